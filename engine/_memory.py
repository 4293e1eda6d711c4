"""Let the C allocator keep freed memory for the next numpy temporary.

The engine works in whole-array steps: every level of a tree allocates and frees
temporaries of a few megabytes, thousands of times per fit. With glibc's default
settings a freed block at the top of the heap is handed back to the kernel as soon as
more than twice the current mmap threshold is free there, and the next level's
temporaries fault the same pages in again, zero-filled: those faults can take a large
share of a fit's time. Keeping freed memory for reuse (:data:`TRIM_THRESHOLD`) and
serving blocks below :data:`MMAP_THRESHOLD` from the heap removes nearly all of them.

:func:`keep_freed_memory` sets both for the running process (``mallopt``) and, through
the environment variables glibc reads at start-up, for the worker processes it starts
later (joblib's forest workers). The app calls it first thing; so do the benchmarks, for
both libraries alike. Standard library only, so it can run before numpy is imported.
Elsewhere than Linux with glibc it does nothing.
"""
from __future__ import annotations

import ctypes
import functools
import os
import sys

#: Blocks below this are taken from the heap, not mapped one by one (glibc's maximum).
MMAP_THRESHOLD = 32 * 1024 * 1024
#: Free memory at the top of the heap kept for reuse before any is given back.
TRIM_THRESHOLD = 128 * 1024 * 1024

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameter numbers (malloc.h)
_ENVIRONMENT = {"MALLOC_MMAP_THRESHOLD_": MMAP_THRESHOLD, "MALLOC_TRIM_THRESHOLD_": TRIM_THRESHOLD}


@functools.cache  # once per process (Streamlit reruns app.py on every click)
def keep_freed_memory() -> bool:
    """Apply the two thresholds to this process and its future children; True if the
    C library took them (glibc), False where there is nothing to tune."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError):  # another C library (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    took = (mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
            and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1)
    if took:
        for name, value in _ENVIRONMENT.items():
            os.environ.setdefault(name, str(value))
    return took
