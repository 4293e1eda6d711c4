"""The slot histograms of boosting's binned search, a sibling's by subtraction.

A histogram sums one statistic per row (a row count, a weight, a residual, a class's
weight) over a level's (node, bin) slots, slot ``node · n_bins + bin``. Only the rows'
*rare* entries are added up: a column's most common bin gets what is left of its node's
total (spambase's zeros are 77% of its entries).

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
        self.key, self.row = _entries(binned, rows, lnode, self.direct)
        self.class_key: np.ndarray | None = None
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
        if total is None:
            total = np.bincount(self.lnode, weights=None if per_row is None else per_row[self.rows],
                                minlength=m)
        parts = [np.bincount(key, weights=None if per_row is None else per_row[row], minlength=m * B)
                 for key, row in self._read(binned, name)]
        h = (parts[0] if len(parts) == 1 else parts[0] + parts[1]).reshape(m, B)
        h[:, binned.common] = total[:, None] - np.add.reduceat(h, binned.start, axis=1)
        return self._finish(h, name, centre).ravel()

    def fill_classes(self, binned, weight, target, n_classes: int, total=None,
                     name: str | None = None) -> np.ndarray:
        """Class weights per slot, shape (m · n_bins, n_classes): one bincount for all.
        ``total``: the class weights per node (m, n_classes), if the caller has them."""
        m, B, K = self.m, binned.n_bins, n_classes
        if total is None:
            total = np.bincount(self.lnode * K + target[self.rows], weights=weight[self.rows],
                                minlength=m * K)
        if self.class_key is None:  # the level's classes (the root's: the same every round)
            self.class_key = self.key * K + target[self.row]
        h = np.bincount(self.class_key, weights=weight[self.row], minlength=m * B * K)
        if self._summed_apart(name):
            key, row = self._rest_entries(binned)
            h += np.bincount(key * K + target[row], weights=weight[row], minlength=m * B * K)
        h = h.reshape(m, B, K)
        h[:, binned.common] = total.reshape(m, 1, K) - np.add.reduceat(h, binned.start, axis=1)
        return self._finish(h, name).reshape(m * B, K)

    def _read(self, binned, name):
        """The entries summed for ``name``: the direct nodes', and the derived nodes'
        where the level above lacks it."""
        if self._summed_apart(name):
            return [(self.key, self.row), self._rest_entries(binned)]
        return [(self.key, self.row)]

    def _summed_apart(self, name) -> bool:
        return self.derived is not None and name not in self.above

    def _rest_entries(self, binned):
        if self._rest is None:
            self._rest = _entries(binned, self.rows, self.lnode, ~self.direct)
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
    has = np.flatnonzero(parent >= 0)
    order = has[np.argsort(parent[has], kind="stable")]
    twins = parent[order[1:]] == parent[order[:-1]]
    a, b = order[:-1][twins], order[1:][twins]
    big = np.where(n_rows[b] >= n_rows[a], b, a)
    per_row = len(binned.rare[0]) / max(1, binned.gbin.shape[0])
    if n_rows[big].sum() * per_row < m * binned.n_bins:
        return None
    return big, parent[big], a + b - big


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
