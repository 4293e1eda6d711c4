"""What a fit in a worker process has done so far, for the server to show meanwhile.

A :class:`Tally` is a few float64 numbers in a small file mapped into both processes (in
``/dev/shm`` where the system has it, so the pages stay in memory): the steps done, the
steps in all, and numbers of the caller's choice. It pickles as its path, so it travels
to a worker with the fit's arguments. The worker writes the numbers first and the count
of steps last; a reader may see the numbers of the next step with the count of this one,
never a count ahead of its numbers.

This module imports no Streamlit: the worker processes unpickle it.
"""
from __future__ import annotations

import os
import tempfile

import numpy as np

from engine.ensemble._gradient_boosting import raw_importances

_SHARED = "/dev/shm"


class Tally:
    """Steps done, steps in all and ``size`` numbers, shared with a worker process."""

    def __init__(self, size: int, path: str | None = None):
        if path is None:
            fd, path = tempfile.mkstemp(prefix="glassbox-tally-",
                                        dir=_SHARED if os.path.isdir(_SHARED) else None)
            os.ftruncate(fd, 8 * (2 + size))  # zeros: nothing done, nothing known
            os.close(fd)
        self.path, self.size = path, size
        self._numbers = np.memmap(path, np.float64, "r+", shape=(2 + size,))

    def __reduce__(self):
        return Tally, (self.size, self.path)

    def write(self, done: int, total: int, numbers: np.ndarray | None = None) -> None:
        if numbers is not None:
            self._numbers[2:] = numbers
        self._numbers[1] = total
        self._numbers[0] = done

    def read(self) -> tuple[int, int, np.ndarray]:
        """(done, total, numbers): (0, 0, zeros) before the first step."""
        done, total = int(self._numbers[0]), int(self._numbers[1])
        return done, total, np.array(self._numbers[2:])

    def remove(self) -> None:
        """Delete the file; this process's mapping stays readable until it is dropped."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def boost_tallied(model, X, y, tally: Tally):
    """``model.fit(X, y)`` for a gradient boosting model, writing to ``tally`` after each
    round the rounds done and the impurity importance summed (not normalised) over the
    trees fitted so far, one number per feature."""
    sums = np.zeros(tally.size)

    def progress(done: int, total: int) -> None:
        for tree in model.estimators_[done - 1]:
            sums[:] += raw_importances(tree)
        tally.write(done, total, sums)
    return model.fit(X, y, progress=progress)
