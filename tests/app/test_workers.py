"""ui.fitting's worker processes: every forest fit of the app uses one setting, which
keeps idle workers for WORKER_IDLE_SECONDS, and the server starts them once."""
import os

from joblib import Parallel, delayed
from joblib.parallel import get_active_backend

from ui import fitting


def test_fits_keep_their_workers_for_the_configured_time():
    with fitting.worker_processes():
        backend, _ = get_active_backend()
        assert type(backend).__name__ == "LokyBackend"
        assert backend.backend_kwargs["idle_worker_timeout"] == fitting.WORKER_IDLE_SECONDS
        first = set(Parallel(n_jobs=2)(delayed(os.getpid)() for _ in range(4)))
        again = set(Parallel(n_jobs=2)(delayed(os.getpid)() for _ in range(4)))
        # os.nice(0) reads a process's niceness
        niceness = set(Parallel(n_jobs=2)(delayed(os.nice)(0) for _ in range(4)))
    assert os.getpid() not in first  # worker processes, not this one
    assert len(first | again) <= 2  # the second call reused the first call's two workers
    assert niceness == {os.nice(0) + fitting.WORKER_NICENESS}  # below the server's pages


def test_the_server_starts_the_workers_once():
    started = fitting.start_workers()
    assert started == (fitting.FIT_JOBS >= 2)
    assert fitting.start_workers() is started  # cached: one start per server process
