"""Small trees for boosting, grown on a matrix binned once per ensemble fit.

Boosting fits hundreds of shallow trees to the same ``X`` with new weights or new
targets each round. Here ``X`` is coded once (each value's rank among its column's
distinct values, a "bin") and its (row, feature) entries are sorted by bin once. Each
level of a tree then takes the entries in (node, bin) order, either by a stable radix
sort of the presorted entries by node or, when the level's (node, bin) slots are few,
as one weighted ``np.bincount`` histogram, and a cumulative sum gives the left child's
statistics at every cut. The root's cut geometry is the same every round and is kept.

Histograms skip every column's most common bin (spambase's zeros: 77% of its entries):
they add up only the other entries and give the common bin what is left of its node's
total.

The result is a genuine :class:`engine.tree.Tree` with the arrays and breadth-first
numbering of ``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` (gini or squared
error, numeric features without missing values, ``max_features=None``, no
``max_leaf_nodes``): the same splits, thresholds (midpoints between adjacent distinct
values of the node), tie rule (lowest feature, then lowest threshold, among scores
equal within a relative 1e-12) and statistics. Tests check the identity. Other
settings fall back to the tree estimators themselves.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..tree import DecisionTreeClassifier, DecisionTreeRegressor, Tree
from ..tree._binning import smallest_int
from ..tree._criteria import FLOAT_NOISE, tie_floor
from ..tree._splitter import cumsum0

_TINY = np.finfo(np.float64).tiny


@dataclass
class BinnedX:
    """Encoded training matrix coded once: ``gbin[i, j]`` is the global bin of ``X[i, j]``.

    Attributes
    ----------
    gbin : ndarray of the narrowest integer type, shape (n_samples, n_features)
        Rank of the value among column j's distinct values plus ``start[j]``.
    values : ndarray of float64, shape (n_bins,)
        The distinct values, column after column, ascending within a column.
    start, stop : ndarray of intp, shape (n_features,)
        Each column's bins are ``start[j] .. stop[j] - 1``.
    feature_of_bin : ndarray of intp, shape (n_bins,)
    ent_row, ent_bin : ndarray of intp, shape (n_samples * n_features,)
        Every (row, feature) entry, sorted by global bin: its row and its bin.
    common : ndarray of intp, shape (n_features,)
        Each column's most frequent bin (the first of equals).
    """

    gbin: np.ndarray
    values: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    feature_of_bin: np.ndarray
    ent_row: np.ndarray = None
    ent_bin: np.ndarray = None
    common: np.ndarray = None

    def __post_init__(self):
        if self.ent_row is None:  # the (row, feature) entries sorted by global bin
            flat = self.gbin.ravel()
            order = np.argsort(flat, kind="stable")
            self.ent_row, self.ent_bin = order // self.gbin.shape[1], flat[order].astype(np.intp)
        per_bin = np.bincount(self.ent_bin, minlength=len(self.values))
        self.common = np.array([a + np.argmax(per_bin[a:b])
                                for a, b in zip(self.start, self.stop, strict=True)], dtype=np.intp)

    @cached_property
    def rare(self) -> tuple[np.ndarray, np.ndarray]:
        """The (row, feature) entries outside their column's common bin: rows, bins."""
        outside = self.gbin != self.common
        return np.nonzero(outside)[0], self.gbin[outside].astype(np.intp)

    @classmethod
    def from_encoded(cls, X_enc: np.ndarray) -> BinnedX:
        """Bins from one stable sort of every column (ties keep the row order)."""
        n, p = X_enc.shape
        order = np.argsort(X_enc, axis=0, kind="stable")
        ascending = np.take_along_axis(X_enc, order, axis=0)
        new = np.ones((n, p), dtype=bool)
        new[1:] = ascending[1:] != ascending[:-1]
        sizes = new.sum(axis=0)
        start = np.cumsum(sizes) - sizes
        sorted_bin = np.cumsum(new, axis=0) - 1 + start
        gbin = np.empty((n, p), dtype=np.intp)
        np.put_along_axis(gbin, order, sorted_bin, axis=0)
        # routing gathers scattered entries of it: the narrowest type keeps it in cache
        gbin = gbin.astype(smallest_int(int(sizes.sum()) - 1 if n else 0))
        return cls(gbin, ascending.T[new.T], start, start + sizes,
                   np.repeat(np.arange(p), sizes), order.T.ravel(), sorted_bin.T.ravel())

    @property
    def n_bins(self) -> int:
        return len(self.values)


def can_bin(encoder, X_enc: np.ndarray) -> bool:
    """The fast path needs numeric columns without missing values."""
    return not bool(np.any(encoder.is_categorical_)) and not bool(np.isnan(X_enc).any())


@dataclass
class _Level:
    value: np.ndarray
    impurity: np.ndarray
    n: np.ndarray
    weight: np.ndarray
    parent: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing: np.ndarray  # child offset (0 left, 1 right) of split nodes, -1 at leaves
    centred: np.ndarray | None = None  # regression: w·(y - node mean) of the level's rows


def grow(binned: BinnedX, rows: np.ndarray, target: np.ndarray, weight: np.ndarray,
         n_classes: int, max_depth: int, min_samples_split: int = 2,
         min_samples_leaf: int = 1, cache: dict | None = None, *,
         return_leaves: bool = False) -> Tree | tuple[Tree, np.ndarray]:
    """Grow a gini (``n_classes`` > 0, integer ``target``) or squared-error
    (``n_classes`` == 0) tree on the rows ``rows`` (ascending row numbers: levels keep
    that order, and a level holding every row is read as a value per row) with positive
    ``weight``.

    ``cache``: a dict kept by the caller across rounds on the same ``binned`` and
    (for classification) the same ``target``. ``return_leaves``: also return the leaf id
    of every row of the data (-1 for rows the tree was not grown on), read off the
    growth instead of walking the rows down the tree again.
    """
    rows = rows[weight[rows] > 0]
    node = np.zeros(len(rows), dtype=np.intp)
    parent, levels = np.array([-1]), []
    leaves, first_id = np.full(len(weight), -1, np.intp), 0
    unit = bool(np.all(weight[rows] == 1.0))
    for depth in range(max_depth + 1):
        level = _measure(rows, node, parent, target, weight, n_classes, unit)
        levels.append(level)
        leaves[rows] = first_id + node  # deeper levels overwrite: the last one is the leaf
        first_id += len(parent)
        open_ = ((level.impurity > FLOAT_NOISE) & (level.n >= min_samples_split)
                 & (level.n >= 2 * min_samples_leaf) & (depth < max_depth))
        if not open_.any():
            break
        rows, node, parent = _split(binned, level, open_, rows, node, target, weight,
                                    n_classes, min_samples_leaf, cache)
        if not len(parent):
            break
    tree = _freeze(levels)
    return (tree, leaves) if return_leaves else tree


def _measure(rows, node, parent, target, weight, n_classes, unit=False) -> _Level:
    """Each node's rows, weight, value and impurity; ``unit``: every weight is 1 (sums of
    weights are then the row counts, exactly)."""
    m = len(parent)
    w = None if unit else weight[rows]
    n = np.bincount(node, minlength=m)
    total = n.astype(np.float64) if unit else np.bincount(node, weights=w, minlength=m)
    if n_classes:
        counts = np.bincount(node * n_classes + target[rows], weights=w, minlength=m * n_classes)
        counts = counts.reshape(m, n_classes).astype(np.float64, copy=False)  # unit: ints
        share = counts / np.where(total > 0, total, 1.0)[:, None]
        value, impurity = counts, 1.0 - np.sum(share**2, axis=1)
    else:
        safe = np.where(total > 0, total, 1.0)
        y = target[rows]
        mean = np.bincount(node, weights=y if unit else w * y, minlength=m) / safe
        centred = y - mean[node]
        square = centred * centred
        rss = np.bincount(node, weights=square if unit else w * square, minlength=m)
        value, impurity = mean[:, None], np.where(total > 0, rss / safe, 0.0)
        if not unit:
            centred *= w
    return _Level(value, impurity + 0.0, n, total, parent, np.full(m, -2, np.intp),
                  np.full(m, np.nan), np.full(m, -1, np.intp), None if n_classes else centred)


def _class_weights(rows, target, weight, n_classes) -> np.ndarray:
    """(K, n_total): each of ``rows``' weight under its class, 0 elsewhere."""
    out = np.zeros((n_classes, len(weight)))
    out[target[rows], rows] = weight[rows]
    return out


def _per_row(values, rows, n_total) -> np.ndarray:
    """``values`` of the ascending ``rows`` as a value per row of the data, 0 elsewhere."""
    if len(rows) == n_total:  # every row, in order: nothing to place
        return values
    out = np.zeros(n_total)
    out[rows] = values
    return out


@dataclass
class _Histogram:
    """A level's (node, bin) slots, ``node · n_bins + bin``, summed over its rows' rare
    entries; each column's common bin gets the rest of its node's total."""

    key: np.ndarray    # slot of every rare entry of the level's rows
    row: np.ndarray    # the row of each of those entries
    lnode: np.ndarray  # the node of each of the level's rows
    m: int
    class_key: np.ndarray | None = None  # slot · n_classes + class of every rare entry

    def fill(self, binned, rows, per_row=None, total=None) -> np.ndarray:
        """Sums of ``per_row`` (a value per row of the data; None: count rows) per slot.
        ``total``: its sum per node over ``rows``, if the caller has it."""
        m, B = self.m, binned.n_bins
        weights = None if per_row is None else per_row[self.row]
        if total is None:
            total = np.bincount(self.lnode, weights=None if per_row is None else per_row[rows],
                                minlength=m)
        h = np.bincount(self.key, weights=weights, minlength=m * B).reshape(m, B)
        h[:, binned.common] = total[:, None] - np.add.reduceat(h, binned.start, axis=1)
        return h.ravel()

    def fill_classes(self, binned, rows, weight, target, n_classes) -> np.ndarray:
        """Class weights per slot, shape (m · n_bins, n_classes): one bincount for all."""
        m, B, K = self.m, binned.n_bins, n_classes
        if self.class_key is None:  # the level's classes (the root's: the same every round)
            self.class_key = self.key * K + target[self.row]
        total = np.bincount(self.lnode * K + target[rows], weights=weight[rows], minlength=m * K)
        h = np.bincount(self.class_key, weights=weight[self.row],
                        minlength=m * B * K).reshape(m, B, K)
        h[:, binned.common] = total.reshape(m, 1, K) - np.add.reduceat(h, binned.start, axis=1)
        return h.reshape(m * B, K)


@dataclass
class _Geometry:
    """Where the cuts of one level are along its entries sorted by (node, bin).

    Entry mode (one entry per row and feature): node j's entries are ``p`` runs of
    ``n_j`` entries, one run per feature, so ``blocks`` (the n_j) says where every run
    is. Histogram mode (one entry per non-empty slot): runs differ in length and
    ``first`` gives each cut's run start.
    """

    sel: np.ndarray    # entries (indices into ent_row / ent_bin) in (node, bin) order
    ebin: np.ndarray   # their global bins
    bounds: np.ndarray | None  # histogram mode: each node's first entry, then their number
    cut: np.ndarray    # positions p: a cut between entries p and p + 1
    first: np.ndarray | None = None    # histogram mode: the first position of each cut's run
    erow: np.ndarray | None = None     # entry mode: the row of every entry
    blocks: np.ndarray | None = None   # entry mode: rows per node (each run's length)
    n_left_: np.ndarray | None = None  # entry mode: rows left of every cut
    hist: _Histogram | None = None     # histogram mode: the slots' machinery
    counts: np.ndarray | None = None   # histogram mode: rows per non-empty slot

    def keep(self, cuts: np.ndarray) -> _Geometry:
        """The same entries with only the cuts ``cuts`` (a mask or positions)."""
        pick = (lambda a: None if a is None else a[cuts])  # noqa: E731
        return _Geometry(self.sel, self.ebin, self.bounds, self.cut[cuts], pick(self.first),
                         self.erow, self.blocks, pick(self.n_left_), self.hist, self.counts)

    def entry_sums(self, binned, stat, rows, total):
        """The statistic summed per entry (per non-empty slot in histogram mode);
        ``total`` is its sum per node."""
        if self.hist is None:
            return stat[self.erow]
        return self.hist.fill(binned, rows, stat, total)[self.sel]

    def left_sums(self, x: np.ndarray) -> np.ndarray:
        """Per cut, ``x`` summed over its (node, feature) run up to the cut."""
        if self.blocks is None:
            c = cumsum0(x)  # c[i]: the sum of the first i entries
            return c[self.cut + 1] - c[self.first]
        p = self.runs_per_node
        out, at = np.empty_like(x), 0
        for n_rows in self.blocks:  # a node's runs as the rows of a matrix: one cumsum each
            size = p * n_rows
            np.cumsum(x[at:at + size].reshape(p, n_rows), axis=1,
                      out=out[at:at + size].reshape(p, n_rows))
            at += size
        return out[self.cut]

    @property
    def runs_per_node(self) -> int:
        """Entry mode: the features, one run of each per node."""
        return len(self.sel) // int(self.blocks.sum())

    def node_starts(self) -> np.ndarray:
        """(m + 1,) the first entry of each node, then the number of entries."""
        if self.blocks is not None:
            return np.concatenate([[0], np.cumsum(self.blocks * self.runs_per_node)])
        return self.bounds

    def n_left(self):
        """Rows left of every cut."""
        if self.blocks is not None:
            return self.n_left_
        cum = cumsum0(self.counts)
        return cum[self.cut + 1] - cum[self.first]


def _geometry(binned, rows, lnode, m, n_total, n_node) -> _Geometry:
    """Entries in (node, bin) order: one per (row, feature), or, when the level's
    (node, bin) slots are fewer than half the row entries (few distinct values, e.g.
    spambase's many zeros), one per non-empty slot of a histogram. ``n_node``: rows per
    node."""
    B, p = binned.n_bins, binned.gbin.shape[1]
    node_of_row = np.full(n_total, -1, np.intp)
    node_of_row[rows] = lnode
    if m * B <= 0.5 * len(rows) * p:
        rare_row, rare_bin = binned.rare
        nd = node_of_row[rare_row]
        if len(rows) < n_total:
            inside = nd >= 0
            rare_row, rare_bin, nd = rare_row[inside], rare_bin[inside], nd[inside]
        hist = _Histogram(nd * B + rare_bin, rare_row, lnode, m)
        counts = hist.fill(binned, rows, total=n_node)
        sel = np.flatnonzero(counts > 0)  # of a bool: numpy's fast path (not a float's)
        bounds = np.searchsorted(sel, np.arange(m + 1) * B)  # each node's first slot
        ebin = sel - np.repeat(np.arange(m) * B, np.diff(bounds)) if m > 1 else sel
        efeat = binned.feature_of_bin[ebin]
        start = np.empty(len(sel), dtype=bool)  # a new (node, feature) run
        np.not_equal(efeat[1:], efeat[:-1], out=start[1:])
        start[bounds[:-1]] = True
        cut = np.flatnonzero(~start[1:])  # every slot holds rows: each neighbour is a cut
        runs = np.flatnonzero(start)
        # a run of L slots holds L - 1 cuts, all measured from its first slot
        first = np.repeat(runs, np.diff(runs, append=len(sel)) - 1)
        return _Geometry(sel, ebin, bounds, cut, first, hist=hist, counts=counts[sel])
    nd = node_of_row[binned.ent_row]
    sel = np.flatnonzero(nd >= 0) if len(rows) < n_total else None  # None: every entry
    if m > 1:  # radix sort by node keeps each node's entries in bin order
        key = (nd if sel is None else nd[sel]).astype(np.int16 if m < 2**15 else np.int32)
        by_node = np.argsort(key, kind="stable")
        sel = by_node if sel is None else sel[by_node]
    elif sel is None:
        sel = np.arange(len(nd))
    ebin, blocks = binned.ent_bin[sel], np.bincount(lnode, minlength=m)
    # node j's entries: p runs of n_j, one per feature; a cut wherever the bin changes
    # inside a run. within[i]: entries of i's run up to and including i.
    within = np.concatenate([np.tile(np.arange(1, n + 1), p) for n in blocks])
    cut = np.flatnonzero((within[1:] > 1) & (ebin[1:] != ebin[:-1]))
    return _Geometry(sel, ebin, None, cut, erow=binned.ent_row[sel], blocks=blocks,
                     n_left_=within[cut])


def _boundary_cuts(binned, geo: _Geometry, target) -> _Geometry:
    """Keep the cuts next to a class change (for a concave impurity no cut
    inside a run of one class can be optimal, whatever the weights)."""
    y = target[geo.erow]
    run_start = np.ones(len(y), dtype=bool)
    run_start[1:] = geo.ebin[1:] != geo.ebin[:-1]
    starts = np.flatnonzero(run_start)
    low, high = np.minimum.reduceat(y, starts), np.maximum.reduceat(y, starts)
    r = np.cumsum(run_start)[geo.cut] - 1  # the run ending at each cut; r + 1 follows it
    same = (low[r] == high[r]) & (low[r + 1] == high[r + 1]) & (low[r] == low[r + 1])
    return geo.keep(~same)


def _split(binned, level, open_, rows, node, target, weight, n_classes, min_leaf, cache):
    """Best cut of every open node; returns the next level's rows, nodes and parents.

    The (row, feature) entries, presorted by global bin, are stably sorted by node; a
    cumulative sum along them gives the left child's statistics at every cut between
    two adjacent distinct values of one feature within one node. The root's geometry
    (and, for classification, its class-change cuts) is the same every boosting round
    when all rows take part, so ``cache`` keeps it.
    """
    open_ids = np.flatnonzero(open_)
    local = np.full(len(open_), -1, np.intp)
    local[open_ids] = np.arange(len(open_ids))
    keep = local[node] >= 0
    rows, lnode = rows[keep], local[node[keep]]
    m = len(open_ids)
    root = cache is not None and len(open_) == 1 and len(rows) == len(weight)
    geo = cache.get("root") if root else None
    if geo is None:
        geo = _geometry(binned, rows, lnode, m, len(weight), level.n[open_ids])
        if n_classes and min_leaf == 1 and geo.hist is None:
            geo = _boundary_cuts(binned, geo, target)
        if root:
            cache["root"] = geo
    if n_classes:
        totals = list(level.value[open_ids].T)  # per node: the class weights _measure summed
        if geo.hist is not None:  # all classes' slot sums at once
            per_slot = np.take(geo.hist.fill_classes(binned, rows, weight, target, n_classes),
                               geo.sel, axis=0)  # rows of a 2-D array: take is faster than []
            left = [geo.left_sums(np.ascontiguousarray(column)) for column in per_slot.T]
        else:
            left = [geo.left_sums(geo.entry_sums(binned, st, rows, t)) for st, t in
                    zip(_class_weights(rows, target, weight, n_classes), totals, strict=True)]
    else:
        # w·(y - node mean): centred on the node mean, so that running sums stay small
        # (as the tree builder does); per node: its weight and its centred sum, summed in
        # _measure's order (all of a node's rows are here)
        centred = level.centred if len(rows) == len(node) else level.centred[keep]
        totals = [level.weight[open_ids], np.bincount(lnode, weights=centred, minlength=m)]
        w_rows = weight[rows]
        n_total = len(weight)
        if np.all(w_rows == w_rows[0]):  # equal weights: the left weight is a row count
            left_weight = geo.n_left() * w_rows[0]
        else:
            left_weight = geo.left_sums(geo.entry_sums(binned, _per_row(w_rows, rows, n_total),
                                                       rows, totals[0]))
        left = [left_weight, geo.left_sums(geo.entry_sums(binned, _per_row(centred, rows, n_total),
                                                     rows, totals[1]))]
    # cuts lie in node order: each node's count of them turns per-node figures into
    # per-cut ones by np.repeat, a streaming copy instead of a gather
    per_node = np.diff(np.searchsorted(geo.cut, geo.node_starts()))
    cnode = np.repeat(np.arange(m), per_node)
    gain = _gain(left, totals, level.impurity[open_ids], per_node, n_classes)
    if min_leaf > 1:
        n_left = geo.n_left()
        n_node = np.repeat(np.bincount(lnode, minlength=m), per_node)
        gain = np.where((n_left >= min_leaf) & (n_node - n_left >= min_leaf), gain, -np.inf)
    chosen, at = _choose(gain, cnode, per_node, level.impurity[open_ids])
    c = geo.cut[chosen]
    bin_ = geo.ebin[c]
    lo, hi = binned.values[bin_], binned.values[geo.ebin[c + 1]]
    thr = lo / 2.0 + hi / 2.0
    at = open_ids[at]
    level.threshold[at] = np.where(thr >= hi, lo, thr)  # rounding must not swallow hi
    level.feature[at] = binned.feature_of_bin[bin_]
    w_left = sum(l_[chosen] for l_ in left) if n_classes else left[0][chosen]
    # no missing values in training: they go to the heavier child (left on a tie)
    level.missing[at] = (level.weight[at] - w_left > w_left).astype(np.intp)
    return _route(binned, at, rows, lnode, open_ids, bin_)


def _gain(left, totals, impurity, per_node, n_classes):
    """Δ of every cut from the left child's statistics and its node's totals and
    impurity (per node; the cuts come node after node, ``per_node`` of each)."""
    # a node's figure at each cut (one node, as at every root: the number itself)
    at_cut = (lambda a: a[0]) if len(impurity) == 1 else (lambda a: np.repeat(a, per_node))  # noqa: E731
    if n_classes:
        # W·gini = W - Σ_q W_q² / W per child, so Δ = impurity - 1 + (Σ_children Σ_q W_q² / W_child) / W
        total = sum(totals)
        w_left = np.add.reduce(left)
        purity = np.add.reduce([q * q for q in left]) / np.maximum(w_left, _TINY)
        right = [at_cut(t) - q for t, q in zip(totals, left, strict=True)]
        purity += np.add.reduce([q * q for q in right]) / np.maximum(at_cut(total) - w_left, _TINY)
        return purity / at_cut(total) + at_cut(impurity - 1.0)
    # Σ_k (S_k - w_k ȳ)² / w_k over both children, divided by W. The right child's
    # centred sum is minus the left's, so this is a² / (w_L w_R), a = S_L - w_L ȳ.
    w_left = left[0]
    a = left[1] - w_left * at_cut(totals[1] / totals[0])
    a *= a
    w_right = at_cut(totals[0]) - w_left
    w_right *= w_left
    return np.divide(a, np.maximum(w_right, _TINY, out=w_right), out=a)


def _choose(gain, cnode, per_node, impurity):
    """Per node the first cut (lowest feature, then threshold) tied with the best."""
    # cuts are sorted by node: per-node maxima by reduceat over the node boundaries
    m = len(per_node)
    bounds = np.concatenate([[0], np.cumsum(per_node)])
    has = bounds[1:] > bounds[:-1]
    best = np.full(m, -np.inf)
    if has.any():
        best[has] = np.maximum.reduceat(gain, bounds[:-1][has])
    floor = tie_floor(best, impurity)
    near = np.flatnonzero(gain >= (floor[0] if m == 1 else np.repeat(floor, per_node)))
    near = near[np.isfinite(gain[near])]  # a node whose every cut is barred has best -inf
    first = np.ones(len(near), dtype=bool)
    first[1:] = cnode[near[1:]] != cnode[near[:-1]]
    return near[first], cnode[near[first]]


def _route(binned, at, rows, lnode, open_ids, cut):
    """Rows of split nodes and their child (2·rank of the split node + side)."""
    split_local = np.full(len(open_ids), -1, np.intp)
    split_local[np.searchsorted(open_ids, at)] = np.arange(len(at))
    s = split_local[lnode]
    moving = s >= 0
    rows, s = rows[moving], s[moving]
    f = binned.feature_of_bin[cut]
    side = (binned.gbin.ravel()[rows * binned.gbin.shape[1] + f[s]] > cut[s]).astype(np.intp)
    return rows, 2 * s + side, np.repeat(at, 2)


def _freeze(levels: list[_Level]) -> Tree:
    """Breadth-first ids, children of a node contiguous, as the tree builder numbers them."""
    sizes = np.array([len(lv.n) for lv in levels])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    left, parent, depth = [], [], []
    for d, lv in enumerate(levels):
        split = lv.feature >= 0
        first = offsets[d + 1] + 2 * (np.cumsum(split) - 1)
        left.append(np.where(split, first, -1))
        parent.append(offsets[d - 1] + lv.parent if d else np.array([-1]))
        depth.append(np.full(len(lv.n), d))
    left = np.concatenate(left).astype(np.intp)
    cat = lambda name: np.concatenate([getattr(lv, name) for lv in levels])  # noqa: E731
    missing = cat("missing")
    return Tree(
        children_left=left, children_right=np.where(left >= 0, left + 1, -1).astype(np.intp),
        feature=cat("feature").astype(np.intp), threshold=cat("threshold"),
        split_kind=(left >= 0).astype(np.int8), category_child=np.full((len(left), 0), -1, np.intp),
        missing_child=np.where(left >= 0, left + missing, -1).astype(np.intp),
        unseen_child=np.full(len(left), -1, np.intp), value=cat("value"),
        impurity=cat("impurity"), n_node_samples=cat("n").astype(np.intp),
        weighted_n_node_samples=cat("weight"), depth=np.concatenate(depth).astype(np.intp),
        parent=np.concatenate(parent).astype(np.intp),
    )


def as_estimator(tree: Tree, template, encoder, classes=None):
    """A fitted ``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` holding ``tree``."""
    est = template if template is not None else (
        DecisionTreeClassifier() if classes is not None else DecisionTreeRegressor())
    return est.from_tree(tree, encoder, classes)
