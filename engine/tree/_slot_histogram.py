"""The slot histograms of boosting's binned search, a sibling's by subtraction.

A histogram sums one statistic per row (a row count, a weight, a residual, a class's
weight) over a level's (node, bin) slots, slot ``node · n_bins + bin``. Where most of a
table's entries lie in their column's most common bin (spambase's zeros are 77% of its
entries), only the rows' *rare* entries are added up, listed once as (slot, row) pairs,
and a column's common bin gets what is left of its node's total. Where few do (columns
of many values, as quantile bins of measurements), every entry is added up, a column
at a time, straight from the bins of the node's rows: no list of pairs is built.

Below the root the two children of a split share their parent's rows, so for a
statistic that is the same array at both levels the larger child's histogram is its
parent's minus its smaller sibling's: only the smaller children's rows are read, at most
half of a level's (the method of LightGBM and of scikit-learn's histogram gradient
boosting). A residual centred on each node's mean, w·(y - ȳ_t), is re-centred on the way
(:meth:`SlotHistogram.fill`). Sums of whole numbers (counts, whole weights) come out to
the bit, sums of fractions to rounding.
"""
from __future__ import annotations

import numpy as np


class SlotHistogram:
    """The slots of one level of ``m`` nodes (``lnode``: the node of each of ``rows``).

    ``above`` holds the histograms of the level above by statistic (what
    :attr:`kept` was there) and ``parent`` each node's index among that level's nodes
    (-1: none, as at a root); a node whose sibling is here too and has no more rows is
    then *derived*, its histogram its parent's minus its sibling's, and its rows are not
    read (unless the level above lacks the statistic). :attr:`kept` collects this
    level's histograms, by the names they were filled under, for the level below.
    """

    def __init__(self, binned, rows, lnode, m: int, above: dict | None = None,
                 parent: np.ndarray | None = None):
        self.m, self.rows, self.lnode = m, rows, lnode
        self.above = above or {}
        self.kept: dict[str, np.ndarray] = {}
        self.derived = _derived(binned, lnode, m, parent) if self.above and parent is not None else None
        self.direct = np.ones(m, dtype=bool)
        if self.derived is not None:
            self.direct[self.derived[0]] = False
        self.dense = binned.dense
        kind = _Columns if self.dense else _Rare
        self._own = kind.of(binned, rows, lnode, self.direct)
        self._rest = None  # the derived nodes' own entries, read only if needed

    def fill(self, binned, per_row=None, total=None, name: str | None = None,
             centre=None) -> np.ndarray:
        """(m · n_bins,) sums of ``per_row`` (a value per row of the data; None: count
        rows) per slot. ``total``: its sum per node, if the caller has it. ``name``:
        what the statistic is, for the level below (and for this one's derived nodes,
        from the level above's of that name).

        ``centre`` = (mean, (weights, scale)) for a statistic centred on each node's
        ``mean`` (m,), w·(y - ȳ_t), whose slots weigh ``scale`` times this level's
        histogram named ``weights``. A derived node d of parent p and sibling s then
        takes Σ_d = Σ_p - Σ_s - (ȳ_s - ȳ_p)·W_s - (ȳ_d - ȳ_p)·W_d, slot by slot: the
        parent's sums moved to each child's own mean.
        """
        m, B = self.m, binned.n_bins
        parts = [entries.sums(binned, per_row, m * B) for entries in self._read(binned, name)]
        h = (parts[0] if len(parts) == 1 else parts[0] + parts[1]).reshape(m, B)
        if not self.dense:
            if total is None:
                total = np.bincount(self.lnode, minlength=m, weights=None if per_row is None
                                    else per_row[self.rows])
            h[:, binned.common] = total[:, None] - np.add.reduceat(h, binned.start, axis=1)
        return self._finish(h, name, centre).ravel()

    def fill_classes(self, binned, weight, target, n_classes: int, total=None,
                     name: str | None = None) -> np.ndarray:
        """Class weights per slot, shape (m · n_bins, n_classes): one bincount for all.
        ``total``: the class weights per node (m, n_classes), if the caller has them."""
        m, B, K = self.m, binned.n_bins, n_classes
        h = self._own.class_sums(binned, weight, target, K, m * B)
        if self._summed_apart(name):
            h += self._rest_entries(binned).class_sums(binned, weight, target, K, m * B)
        h = h.reshape(m, B, K)
        if not self.dense:
            if total is None:
                total = np.bincount(self.lnode * K + target[self.rows], weights=weight[self.rows],
                                    minlength=m * K)
            h[:, binned.common] = total.reshape(m, 1, K) - np.add.reduceat(h, binned.start, axis=1)
        return self._finish(h, name).reshape(m * B, K)

    def n_read(self, binned) -> int:
        """Entries this level's own rows bring (its derived nodes' are not read)."""
        return self._own.n_entries(binned)

    def _read(self, binned, name):
        """The entries summed for ``name``: the direct nodes', and the derived nodes'
        where the level above lacks it."""
        if self._summed_apart(name):
            return [self._own, self._rest_entries(binned)]
        return [self._own]

    def _summed_apart(self, name) -> bool:
        return self.derived is not None and name not in self.above

    def _rest_entries(self, binned):
        if self._rest is None:
            kind = _Columns if self.dense else _Rare
            self._rest = kind.of(binned, self.rows, self.lnode, ~self.direct)
        return self._rest

    def _finish(self, h: np.ndarray, name, centre=None) -> np.ndarray:
        """The derived nodes' slots as their parent's minus their sibling's (moved to
        their own means, with ``centre``, see :meth:`fill`); ``h`` kept."""
        if self.derived is not None and not self._summed_apart(name):
            node, parent, sibling = self.derived
            h[node] = self.above[name][parent] - h[sibling]
            if centre is not None:
                mean, (weights, scale) = centre
                w = self.kept[weights].reshape(h.shape)
                above = self.above[name + " mean"][parent]
                h[node] -= ((mean[sibling] - above)[:, None] * (scale * w[sibling])
                            + (mean[node] - above)[:, None] * (scale * w[node]))
        if name is not None:
            self.kept[name] = h
            if centre is not None:
                self.kept[name + " mean"] = centre[0]
        return h


def _derived(binned, lnode: np.ndarray, m: int, parent: np.ndarray):
    """(node, parent, sibling) of the nodes whose histogram is derived: of each two
    nodes of one parent (a binary split's children), the one with more rows (the
    second of equals); None where their rows' entries (estimated at the data's mean a
    row) are fewer than the level's slots, which a derivation passes over instead."""
    n_rows = np.bincount(lnode, minlength=m)
    big, small = larger_siblings(parent, n_rows)
    n, p = binned.gbin.shape
    per_row = p if binned.dense else len(binned.rare[0]) / max(1, n)  # entries read a row
    if n_rows[big].sum() * per_row < m * binned.n_bins:
        return None
    return big, parent[big], small


def larger_siblings(parent: np.ndarray, n_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of each two nodes of one parent (``parent``: -1 for none), the one with more rows
    (the second of equals) and the other: the node whose histogram a subtraction gives
    and the sibling it is taken from."""
    has = np.flatnonzero(parent >= 0)
    order = has[np.argsort(parent[has], kind="stable")]
    twins = parent[order[1:]] == parent[order[:-1]]
    a, b = order[:-1][twins], order[1:][twins]
    big = np.where(n_rows[b] >= n_rows[a], b, a)
    return big, a + b - big


class _Rare:
    """The rare entries of some nodes' rows: slot and row of each (:func:`_entries`)."""

    def __init__(self, key: np.ndarray, row: np.ndarray):
        self.key, self.row = key, row
        self._class_key: np.ndarray | None = None

    @classmethod
    def of(cls, binned, rows, lnode, direct) -> _Rare:
        return cls(*_entries(binned, rows, lnode, direct))

    def n_entries(self, binned) -> int:
        return len(self.key)

    def sums(self, binned, per_row, size: int) -> np.ndarray:
        return np.bincount(self.key, weights=None if per_row is None else per_row[self.row],
                           minlength=size)

    def class_sums(self, binned, weight, target, n_classes: int, size: int) -> np.ndarray:
        if self._class_key is None:  # the classes of its slots (a root's: the same every round)
            self._class_key = self.key * n_classes + target[self.row]
        return np.bincount(self._class_key, weights=weight[self.row], minlength=size * n_classes)


class _Columns:
    """Every entry of some nodes' rows, read a column at a time from ``binned.columns``:
    the slot of row i's entry in column j is ``node(i) · n_bins + gbin[i, j]``."""

    def __init__(self, rows: np.ndarray | None, base: np.ndarray | None):
        self.rows = rows  # None: every row of the data, read in place
        self.base = base  # each row's node · n_bins; None: one node
        self._made: list[np.ndarray] | None = None

    @classmethod
    def of(cls, binned, rows, lnode, direct) -> _Columns:
        keep = direct[lnode]
        if not keep.all():
            rows, lnode = rows[keep], lnode[keep]
        if len(direct) == 1:  # one node: every row of the data (a level holds each once) is
            every = len(rows) == binned.gbin.shape[0]  # read in place, in any order
            return cls(None if every else rows, None)
        return cls(rows, lnode * binned.n_bins)

    def n_entries(self, binned) -> int:
        n, p = binned.gbin.shape
        return (n if self.rows is None else len(self.rows)) * p

    def _slots(self, binned) -> list[np.ndarray]:
        """Each column's slot of every row, made once: a level fills several statistics
        (and a root the same slots every round)."""
        if self._made is None:
            self._made = [self._slots_of(column) for column in binned.columns]
        return self._made

    def _slots_of(self, column: np.ndarray) -> np.ndarray:
        bins = column if self.rows is None else column.take(self.rows)
        return bins.astype(np.intp) if self.base is None else bins + self.base

    def sums(self, binned, per_row, size: int) -> np.ndarray:
        w = per_row if per_row is None or self.rows is None else per_row[self.rows]
        out = np.zeros(size)
        for slots in self._slots(binned):
            out += np.bincount(slots, weights=w, minlength=size)
        return out

    def class_sums(self, binned, weight, target, n_classes: int, size: int) -> np.ndarray:
        w = weight if self.rows is None else weight[self.rows]
        klass = target if self.rows is None else target[self.rows]
        out = np.zeros(size * n_classes)
        for slots in self._slots(binned):
            out += np.bincount(slots * n_classes + klass, weights=w, minlength=size * n_classes)
        return out


def _entries(binned, rows, lnode, direct: np.ndarray):
    """Slot and row of every rare entry of the rows of the ``direct`` nodes.

    The rare entries lie row after row, so a few rows' are their runs, gathered whole;
    many rows' are taken by a pass over every entry that keeps those of the rows.
    Either way in row order.
    """
    B = binned.n_bins
    rare_row, rare_bin = binned.rare
    keep = direct[lnode]
    d_rows, d_node = (rows, lnode) if keep.all() else (rows[keep], lnode[keep])
    n_total = binned.gbin.shape[0]
    if 2 * len(d_rows) < n_total:
        start = binned.rare_start
        first = start[d_rows]
        length = start[d_rows + 1] - first
        at = np.arange(int(length.sum())) + np.repeat(first - (np.cumsum(length) - length), length)
        return np.repeat(d_node, length) * B + rare_bin[at], np.repeat(d_rows, length)
    node_of_row = np.full(n_total, -1, np.intp)
    node_of_row[d_rows] = d_node
    nd = node_of_row[rare_row]
    if len(d_rows) < n_total:
        inside = nd >= 0
        rare_row, rare_bin, nd = rare_row[inside], rare_bin[inside], nd[inside]
    return nd * B + rare_bin, rare_row
