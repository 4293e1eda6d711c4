"""engine._memory: freed numpy temporaries are reused, not faulted in again."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="tunes glibc's allocator; a no-op elsewhere")

#: Whole-array steps as a tree level makes them: temporaries of 8 MB made and freed.
WORK = textwrap.dedent("""
    import os, resource, sys
    if sys.argv[1] == "keep":
        from engine._memory import keep_freed_memory
        print(keep_freed_memory(), os.environ.get("MALLOC_TRIM_THRESHOLD_"))
    import numpy as np
    a = np.ones(1_000_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(100):
        b = a * 2.0; c = b + 1.0; d = c * b; del b, c, d
        e = np.cumsum(a); f = e[::2].copy(); del e, f
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def _page_faults(mode: str) -> list[str]:
    # glibc's defaults: without the variables an earlier keep_freed_memory() in this
    # process (the app's tests run app.py) would have passed on
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", WORK, mode], cwd=REPO, check=True,
                          capture_output=True, text=True, env=environment)
    return done.stdout.split()


def test_kept_memory_saves_the_page_faults_of_every_temporary():
    default = int(_page_faults("default")[-1])
    took, variable, kept = _page_faults("keep")
    if took != "True":
        pytest.skip("this C library has no mallopt (not glibc)")
    # 500 temporaries of 4-8 MB: by default most are faulted in afresh (≈ 275,000 faults
    # of 4 KiB here); kept, the heap serves them again (≈ 1,300)
    assert default > 50_000
    assert int(kept) < default / 20
    assert variable == "134217728"  # worker processes started later get it too
