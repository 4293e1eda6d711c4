"""Ordering integer keys: the searches' sorts, each done the way this machine runs fastest.

A level's search sorts its entries by packed integer keys (run, rank, class, weight).
Two ways give the same order:

* numpy's comparison sort of the key (with each entry's position packed into its low
  bits where the order must be stable): n·log(n) comparisons, at a speed set by the
  vector code numpy has for the processor;
* a least-significant-digit radix sort: one stable pass of numpy's radix argsort per
  16 bits of the key, from the lowest digit up (a stable pass keeps the order the lower
  digits gave among equal higher digits): a fixed number of linear passes.

Which is faster depends on the processor, by up to a factor of three either way on
machines of the same kind (bench/README.md, "Sorting on a second machine"), so
:func:`radix_pays` tries both once per process on random keys and the faster is used
from then on. The order is the same either way, so the trees are too.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from ._splitter import gather

#: Keys of up to this many bits may be ordered by radix passes (three at most); wider
#: ones (huge data with huge whole-number weights) take a packed comparison sort.
RADIX_KEY_BITS = 48
#: Keys a trial of :func:`radix_pays` sorts: enough that the trial sees the cache misses
#: of a level's sort, few enough that all trials take a few tens of milliseconds.
TRIAL_KEYS = 1 << 17
#: A key of values below this many times the number of keys is sorted by counting
#: (:func:`sort_keys`): its table of counts is then no bigger than a few passes over the keys.
COUNT_SORT_RANGE = 8


def order_by(major: np.ndarray, minor: np.ndarray | None = None, keys: bool = False):
    """Positions that sort by ``major``, then ``minor`` (non-negative integers), equal
    pairs in position order: a stable argsort on two keys (on one without ``minor``).
    With ``keys``, also ``major`` in that order.

    The two keys are packed into one integer and ordered by radix passes or by a
    comparison sort of the key with the position packed in (:func:`radix_pays`), or by
    ``np.lexsort`` when even that does not fit 63 bits.
    """
    n = len(major)
    if not n:
        at = np.zeros(0, dtype=np.intp)
        return (at, major[at]) if keys else at
    top = int(major.max())
    minor_bits = 0 if minor is None else int(minor.max()).bit_length()
    key_bits = top.bit_length() + minor_bits
    at_bits = (n - 1).bit_length()
    packs = key_bits + at_bits <= 63
    if key_bits <= RADIX_KEY_BITS and (not packs or radix_pays("order", _passes(key_bits))):
        key = major if minor is None else (major.astype(np.int64) << minor_bits) | minor
        at = _radix_argsort(key, key_bits)
        return (at, gather(major, at)) if keys else at
    if not packs:
        at = np.lexsort((major,) if minor is None else (minor, major))
        return (at, major[at]) if keys else at
    key = major.astype(np.int64) << minor_bits
    if minor is not None:
        key |= minor
    at, key = _packed_argsort(key, at_bits)
    return (at, (key >> (at_bits + minor_bits)).astype(np.intp)) if keys else at


def sort_keys(key: np.ndarray, top: int) -> np.ndarray:
    """``key`` (non-negative integers below ``top``) in ascending order.

    When the keys take few values compared with their number, a counting sort (one
    histogram, then each value repeated as often as it occurs) does O(n + top) work;
    else keys of up to 32 bits take two radix passes and a gather or numpy's sort,
    whichever :func:`radix_pays` found faster, and wider ones numpy's sort. Equal keys
    are equal numbers, so the result is the same array every way. ``key`` may be sorted
    in place.
    """
    if top <= COUNT_SORT_RANGE * len(key):
        counts = np.bincount(key, minlength=top)
        present = np.flatnonzero(counts)
        return np.repeat(present.astype(key.dtype), counts[present])
    bits = (top - 1).bit_length()
    if bits <= 32 and radix_pays("sort", _passes(bits)):
        return gather(key, _radix_argsort(key, bits))
    key.sort()
    return key


def _passes(key_bits: int) -> int:
    """Radix passes of 16 bits a key of ``key_bits`` bits takes."""
    return max(1, -(-key_bits // 16))


def _radix_argsort(key: np.ndarray, key_bits: int) -> np.ndarray:
    """Stable argsort of non-negative integers below ``2**key_bits``: one stable radix
    pass a 16-bit digit, lowest first (an 8-bit type for a last digit that fits one)."""
    at = None
    for shift in range(0, max(key_bits, 1), 16):
        digit = key if at is None else gather(key, at)
        if shift:
            digit = digit >> shift
        digit = digit.astype(np.uint8 if key_bits - shift <= 8 else np.uint16)  # (wraps: the low 16 bits)
        step = np.argsort(digit, kind="stable")
        at = step if at is None else gather(at, step)
    return at


def _packed_argsort(key: np.ndarray, at_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable argsort of non-negative int64 ``key`` with room for ``at_bits`` more bits:
    a comparison sort of the key with each position packed into its low bits (all
    distinct, so any sort is stable). Returns the positions and the sorted packed key
    (``key`` itself, sorted in place)."""
    key <<= at_bits
    key |= np.arange(len(key), dtype=key.dtype)
    key.sort()
    return (key & (1 << at_bits) - 1).astype(np.intp), key


@functools.cache  # once per process and question: the machine does not change
def radix_pays(kind: str, passes: int) -> bool:
    """Whether radix passes order :data:`TRIAL_KEYS` random keys of ``16 · passes`` bits
    faster on this machine than numpy's comparison sort: of the key with the position
    packed in (``kind="order"``, as :func:`order_by` sorts) or of the key alone
    (``"sort"``, as :func:`sort_keys` does). The best of three trials of each."""
    rng = np.random.default_rng(0)
    bits = 16 * passes - 1  # as the searches' keys: int32 up to two passes
    key = rng.integers(0, 1 << bits, size=TRIAL_KEYS).astype(np.int32 if passes <= 2 else np.int64)
    at_bits = (TRIAL_KEYS - 1).bit_length()
    if kind == "order":
        ways = (lambda: _radix_argsort(key, bits),
                lambda: _packed_argsort(key.astype(np.int64), at_bits))
    else:
        ways = (lambda: gather(key, _radix_argsort(key, bits)), lambda: np.sort(key))
    radix, comparison = (min(_seconds(way) for _ in range(3)) for way in ways)
    return radix < comparison


def _seconds(way) -> float:
    start = time.perf_counter()
    way()
    return time.perf_counter() - start
