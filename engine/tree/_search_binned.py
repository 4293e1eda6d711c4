"""The search of boosting's trees: every feature binned once per ensemble fit.

Boosting grows hundreds of shallow trees on the same rows with new weights or new
targets each round. Here the rows are coded once (each value's rank among its column's
distinct values, a "bin") and the (row, feature) entries sorted by bin once. A level's
entries are then taken in (node, bin) order, either by a stable radix sort of the
presorted entries by node or, when the level's (node, bin) slots are few, as one
weighted ``np.bincount`` histogram, and a cumulative sum gives the left child's
statistics at every cut. The root's cut geometry is the same every round and is kept.
Where every row weighs the same (gradient boosting's rounds) the entries' cuts are not
listed: a node's runs, one a feature, share their left weights, and the gains are
computed run by run against them (:func:`_dense_scores`).

Where most entries lie in their column's most common bin (spambase's zeros: 77% of its
entries), histograms add up only the other entries and give the common bin what is left
of its node's total; elsewhere they add up every entry, a column at a time. Below the
root, of two siblings only the smaller's rows are read: the other's histogram is their
parent's minus it (:mod:`._slot_histogram`).

It serves the gini and squared-error criteria on numeric features without missing
values, searching every feature (:func:`serves`). For each node it returns the one cut
the tree builder would choose among the exact search's candidates: the same
thresholds (midpoints between adjacent distinct values of the node) and the same tie
rule (lowest feature, then lowest threshold, among scores within
:func:`._criteria.tie_floor` of the best). Tests grow every tree both ways.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._binning import PreparedFeatures, smallest_int
from ._criteria import tie_floor
from ._slot_histogram import SlotHistogram
from ._splitter import Candidates, Level, cumsum0

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
        """The (row, feature) entries outside their column's common bin, row after row:
        rows, bins."""
        outside = self.gbin != self.common
        return np.nonzero(outside)[0], self.gbin[outside].astype(np.intp)

    @cached_property
    def dense(self) -> bool:
        """Whether most entries lie off their column's common bin: then slot histograms
        add up every entry a column at a time (:attr:`columns`) rather than listing the
        rare ones (see :mod:`._slot_histogram`)."""
        n, p = self.gbin.shape
        common = np.count_nonzero(self.gbin == self.common)
        return 2 * common < n * p

    @cached_property
    def columns(self) -> np.ndarray:
        """``gbin`` column by column, shape (n_features, n_samples)."""
        return np.ascontiguousarray(self.gbin.T)

    @cached_property
    def rare_start(self) -> np.ndarray:
        """(n_samples + 1,) where each row's rare entries start, then their number."""
        return cumsum0(np.bincount(self.rare[0], minlength=self.gbin.shape[0]))

    @classmethod
    def from_prepared(cls, prep: PreparedFeatures, features: np.ndarray | None = None) -> BinnedX:
        """Bins of the features ``features`` (all by default; column j here is
        ``features[j]`` there) from the preparation's presorted orders (stable: ties
        keep the row order) and ranks; every feature numeric, no value missing."""
        values, order, rank = prep.numeric_values, prep.order, prep.rank
        if features is not None:
            values, order, rank = values[features], order[features], rank[features]
        p, n = values.shape
        ascending = np.take_along_axis(values, order, axis=1)
        new = np.ones((p, n), dtype=bool)
        new[:, 1:] = ascending[:, 1:] != ascending[:, :-1]
        sizes = new.sum(axis=1)
        start = np.cumsum(sizes) - sizes
        # routing gathers scattered entries of it: the narrowest type keeps it in cache
        gbin = (rank.T + start).astype(smallest_int(int(sizes.sum()) - 1 if n else 0))
        sorted_bin = np.cumsum(new, axis=1) - 1 + start[:, None]
        return cls(gbin, ascending[new], start, start + sizes, np.repeat(np.arange(p), sizes),
                   order.ravel(), sorted_bin.ravel())

    @property
    def n_bins(self) -> int:
        return len(self.values)




#: Up to this many nodes a level's per-node figures (totals, floors) are applied to its
#: cuts slice by slice, as scalars; beyond it, spread to every cut by ``np.repeat``.
SLICED_NODES = 16

#: The criteria :class:`BinnedSearch` scores.
CRITERIA = ("gini", "squared_error")


def serves(X_enc: np.ndarray, n_categories: np.ndarray, criterion: str) -> bool:
    """Whether :class:`BinnedSearch` can search ``X_enc`` for ``criterion``: one of
    :data:`CRITERIA`, every feature numeric and no value missing."""
    return (criterion in CRITERIA and not bool(np.any(n_categories))
            and not bool(np.isnan(X_enc).any()))


#: A feature of at most this share of the rows' distinct values is "few-valued": when
#: the many-valued ones would make a boosting tree's first split level sort every
#: entry, the few-valued ones are summed in slots on their own.
FEW_VALUES_SHARE = 1 / 64


def _parts(prep: PreparedFeatures) -> list[np.ndarray]:
    """The features searched together: all of them, or the few-valued ones (slots at
    every level) apart from the others (entries once nodes multiply)."""
    p, n = prep.numeric_values.shape
    distinct = prep.rank.max(axis=1, initial=-1).astype(np.int64) + 1  # ranks count from 0
    few = distinct <= FEW_VALUES_SHARE * n
    # the slot test of a level of two nodes (see _geometry), for all features together
    entries_soon = 2 * int(distinct.sum()) > 0.5 * n * p
    if entries_soon and few.any() and not few.all():
        return [np.flatnonzero(few), np.flatnonzero(~few)]
    return [np.arange(p)]


class BinnedSearch:
    """A level in, each node's chosen cut out, on rows binned once (:class:`BinnedX`).

    Only :func:`serves` cases, and ``max_features`` None (every feature searched).

    One instance serves every tree of an ensemble fit on the same prepared rows; it
    keeps the root's geometry (and, for classes, its class-change cuts, while the
    classes are the same) from one tree to the next. Features are searched in one
    group or, where few-valued features sit beside many-valued ones, two
    (:func:`_parts`); each group offers each node its first cut tied with the node's
    best over all groups, and the builder's tie rule picks among them.
    """

    def __init__(self, prep: PreparedFeatures):
        groups = _parts(prep)
        if len(groups) == 1:  # every feature: the preparation's own columns
            self.parts = [_Part(BinnedX.from_prepared(prep), groups[0])]
        else:
            self.parts = [_Part(BinnedX.from_prepared(prep, f), f) for f in groups]

    def keep(self, rows: np.ndarray) -> None:
        """Nothing to bring up to date: every level reads the entries it needs."""

    def candidates(self, crit, level: Level, min_leaf: int,
                   allowed: np.ndarray | None = None) -> tuple[Candidates, dict]:
        """The chosen cut of every node of ``level`` that has one (``allowed`` must be
        None: every feature is searched)."""
        scored = [part.score(crit, level, min_leaf) for part in self.parts]
        best = scored[0].best if len(scored) == 1 else np.maximum.reduce([s.best for s in scored])
        floor = tie_floor(best, level.impurity)
        picked = [s.pick(floor) for s in scored]
        return (picked[0] if len(picked) == 1 else Candidates.concat(picked)), {}


class _Part:
    """The search of one group of features (``binned`` holds only them; its column j
    is feature ``features[j]``)."""

    def __init__(self, binned: BinnedX, features: np.ndarray):
        self.binned, self.features = binned, features
        self._root: tuple[np.ndarray | None, _Geometry] | None = None
        self._root_classes: _ClassRuns | None = None  # the kept root's, once asked for
        self._above: dict | None = None  # the last level's slot histograms, if it had them

    @property
    def _root_geo(self) -> _Geometry | None:
        return None if self._root is None else self._root[1]

    def score(self, crit, level: Level, min_leaf: int) -> _Scored:
        """The gain of every cut of the level in these features."""
        binned, rows, lnode, m = self.binned, level.rows, level.node, level.n_nodes
        n_total = len(crit.row_weight)
        classes = crit.codes is not None
        weight = crit.row_weight
        w_rows = None if classes else weight[rows]
        # regression on rows of one weight: scored without listing the cuts (_dense_scores)
        dense = not classes and len(w_rows) > 0 and bool(np.all(w_rows == w_rows[0]))
        geo = self._root_geometry(crit, level)
        if geo is not None and geo.dense and not dense:
            geo = None  # made for rows of one weight
        if geo is None:
            above = None if level.parent is None else self._above
            geo = _geometry(binned, rows, lnode, m, n_total, level.totals[:, -1], above,
                            level.parent, dense=dense)
            kept = m == 1 and len(rows) == n_total  # a root of every row: every round's
            if classes and crit.concave and min_leaf == 1:
                if geo.hist is None:
                    geo = _boundary_cuts(binned, geo, crit.codes)
                elif kept:  # counting each slot's classes pays off over the rounds
                    geo = _boundary_slots(binned, geo, rows, crit.codes, crit.n_classes)
            if kept:
                self._root, self._root_classes = (crit.codes, geo), None
        elif geo.hist is not None:  # the kept root: its counts hold, this tree's sums are new
            geo.hist.kept = {"count": geo.hist.kept["count"]}
        if geo.dense:
            self._above = None
            return _dense_scores(self, geo, crit.stats_t[1][geo.erow], w_rows[0], level,
                                 min_leaf)
        if classes:
            K = crit.n_classes
            totals = list(level.totals[:, :K].T)
            if geo.hist is not None:  # all classes' slot sums at once
                per_slot = geo.hist.fill_classes(binned, weight, crit.codes, K,
                                                 level.totals[:, :K], "classes")
                if len(geo.sel) < len(per_slot):  # (a root holds rows in every slot)
                    per_slot = np.take(per_slot, geo.sel, axis=0)  # rows of a 2-D array: take beats []
                left = list(geo.left_sums(per_slot).T)
            elif geo is self._root_geo:  # every round: the root's entries class by class
                if self._root_classes is None:
                    self._root_classes = _ClassRuns.of(geo, crit.codes, K)
                left = self._root_classes.left_sums(weight)
            else:
                left = [geo.left_sums(geo.entry_sums(binned, st, t, None)) for st, t in
                        zip(_class_weights(rows, crit.codes, weight, K), totals, strict=True)]
        else:
            # w·(y - node mean) per row, as the criterion's measure left it: running sums
            # stay small; per node: its weight and its centred sum
            centred = crit.stats_t[1]
            totals = [level.totals[:, 0], level.totals[:, 1]]
            if dense:  # equal weights (histogram mode): the left weight is a row count
                w = w_rows[0]
                left_weight, slot_weight = (geo.n_left() if w == 1.0 else geo.n_left() * w), ("count", w)
            else:
                left_weight = geo.left_sums(geo.entry_sums(binned, weight, totals[0], "weight"))
                slot_weight = ("weight", 1.0)
            centre = (level.value[:, 0], slot_weight)  # (a slot's sums: see SlotHistogram.fill)
            left = [left_weight,
                    geo.left_sums(geo.entry_sums(binned, centred, totals[1], "z", centre))]
        self._above = None if geo.hist is None else geo.hist.kept
        # cuts lie in node order: each node's count of them turns per-node figures into
        # per-cut ones by np.repeat, a streaming copy instead of a gather
        per_node = np.diff(np.searchsorted(geo.cut, geo.node_starts()))
        gain = _gain(left, totals, level.impurity, per_node, K if classes else 0)
        # rows left of each cut: for min_samples_leaf, and for the first child's
        # statistics where the builder takes them instead of measuring (whole weights)
        whole = classes and (crit.unit_weight or crit.int_weight is not None)
        n_left = geo.n_left() if min_leaf > 1 or whole else None
        if min_leaf > 1:
            n_node = np.repeat(np.bincount(lnode, minlength=m), per_node)
            gain = np.where((n_left >= min_leaf) & (n_node - n_left >= min_leaf), gain, -np.inf)
        return _Scored(self, geo, gain, per_node, left, n_left)

    def _root_geometry(self, crit, level: Level):
        """The kept root geometry, if ``level`` is a root of every row and the classes
        (their class-change cuts) are those it was made for."""
        if self._root is None or level.n_nodes != 1 or len(level.rows) != len(crit.row_weight):
            return None
        codes, geo = self._root
        same = (codes is None) == (crit.codes is None) and (
            codes is None or codes is crit.codes or np.array_equal(codes, crit.codes))
        return geo if same else None


@dataclass
class _Scored:
    """Every cut of one level in one group of features, with its gain."""

    part: _Part
    geo: _Geometry
    gain: np.ndarray       # per cut; -inf where barred
    per_node: np.ndarray   # cuts of each node (they come node after node)
    left: list             # the left child's statistics per cut
    n_left: np.ndarray | None  # rows left of each cut, where asked for

    @cached_property
    def best(self) -> np.ndarray:
        """(m,) each node's best gain here (-inf without a cut)."""
        bounds = np.concatenate([[0], np.cumsum(self.per_node)])
        has = bounds[1:] > bounds[:-1]
        best = np.full(len(self.per_node), -np.inf)
        if has.any():
            best[has] = np.maximum.reduceat(self.gain, bounds[:-1][has])
        return best

    def pick(self, floor: np.ndarray) -> Candidates:
        """Per node, the first cut here (lowest feature, then threshold) at or above
        ``floor``, as a candidate: threshold, and the first child's statistics."""
        gain, per_node = self.gain, self.per_node
        if len(per_node) <= SLICED_NODES:  # node by node: the first cut at the floor
            chosen, node, at = [], [], 0
            for j, n_cuts in enumerate(per_node.tolist()):
                if np.isfinite(floor[j]):  # (-inf: every cut of the node is barred)
                    reached = gain[at:at + n_cuts] >= floor[j]
                    k = int(reached.argmax())
                    if n_cuts and reached[k]:
                        chosen.append(at + k)
                        node.append(j)
                at += n_cuts
            chosen, node = np.array(chosen, dtype=np.intp), np.array(node, dtype=np.intp)
        else:
            near = np.flatnonzero(gain >= np.repeat(floor, per_node))
            near = near[np.isfinite(gain[near])]  # a node whose every cut is barred has best -inf
            cnode = np.repeat(np.arange(len(per_node)), per_node)[near]
            first = np.ones(len(near), dtype=bool)
            first[1:] = cnode[1:] != cnode[:-1]
            chosen, node = near[first], cnode[first]
        binned = self.part.binned
        bin_, next_bin = self._bins_around(chosen)
        lo, hi = binned.values[bin_], binned.values[next_bin]
        threshold = lo / 2.0 + hi / 2.0
        threshold = np.where(threshold >= hi, lo, threshold)  # rounding must not swallow hi
        return Candidates(node=node, feature=self.part.features[binned.feature_of_bin[bin_]],
                          score=gain[chosen], gain=gain[chosen], rank=bin_,
                          threshold=threshold, missing=np.full(len(chosen), -1, dtype=np.intp),
                          first=self._first_at(chosen))

    def _bins_around(self, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The bins of the entries each side of the cuts ``chosen``."""
        c = self.geo.cut[chosen]
        return self.geo.ebin[c], self.geo.ebin[c + 1]

    def _first_at(self, chosen: np.ndarray) -> np.ndarray:
        """The left child's statistics at the cuts ``chosen``, its row count last (NaN
        where not asked for)."""
        count = np.full(len(chosen), np.nan) if self.n_left is None else self.n_left[chosen]
        return np.column_stack([q[chosen] for q in self.left] + [count])


class _DenseScored(_Scored):
    """The cuts of :func:`_dense_scores`: node j's are every position of its p runs of
    n_j entries but each run's last, node after node, run after run. ``left`` holds the
    running sum of the centred target along every entry; the left weight at position k
    of a run is (k + 1) w."""

    w: float = 1.0
    counted: bool = False  # whether the row counts left of the cuts are asked for

    def _entries(self, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The entry on the left of each cut ``chosen``, and its position in its run."""
        blocks, p = self.geo.blocks, self.geo.runs_per_node
        span = np.maximum(blocks - 1, 0)
        cut_start = cumsum0(p * span)
        j = np.searchsorted(cut_start, chosen, side="right") - 1
        run, k = np.divmod(chosen - cut_start[j], span[j])
        return cumsum0(p * blocks)[j] + run * blocks[j] + k, k

    def _bins_around(self, chosen):
        e, _ = self._entries(chosen)
        ent_bin, sel = self.part.binned.ent_bin, self.geo.sel
        return ent_bin[sel[e]], ent_bin[sel[e + 1]]

    def _first_at(self, chosen):
        e, k = self._entries(chosen)
        n_left = k + 1
        count = n_left if self.counted else np.full(len(chosen), np.nan)
        return np.column_stack([n_left if self.w == 1.0 else n_left * self.w,
                                self.left[0][e], count])


def _dense_scores(part: _Part, geo: _Geometry, z: np.ndarray, w: float, level: Level,
                  min_leaf: int) -> _DenseScored:
    """The squared-error gain of every cut of an entry-mode level whose rows weigh
    ``w`` each, ``z`` the centred target of each entry.

    Node j's entries are p runs of n_j, one a feature, so the left weights of its cuts,
    (k + 1) w at position k, are the same n_j - 1 numbers in every run: the gain
    a² / (w_L w_R), a = S_L - w_L ȳ, is computed on the (p, n_j - 1) running sums
    against those numbers broadcast. Each operation acts on the same figures as on a
    list of cuts (:func:`_squared_error_gain`, as :func:`_gain`), so the gains are the same
    to the bit, without the list.
    Positions inside a group of equal values (in a feature with fewer distinct values
    than rows) are no cuts and score -inf, as do those that leave fewer than
    ``min_leaf`` rows on a side."""
    blocks, p, binned = geo.blocks, geo.runs_per_node, part.binned
    span = np.maximum(blocks - 1, 0)
    cum, gain = np.empty_like(z), np.empty(int((p * span).sum()))
    weight, mean = level.totals[:, 0], level.totals[:, 1] / level.totals[:, 0]
    tied = np.flatnonzero(binned.stop - binned.start < binned.gbin.shape[0])
    at = out = 0
    for j, n_j in enumerate(blocks.tolist()):
        size = p * n_j
        runs = cum[at:at + size].reshape(p, n_j)
        np.cumsum(z[at:at + size].reshape(p, n_j), axis=1, out=runs)
        if n_j > 1:
            g = gain[out:out + p * (n_j - 1)].reshape(p, n_j - 1)
            w_left = np.arange(1, n_j) if w == 1.0 else np.arange(1, n_j) * w
            _squared_error_gain(runs[:, :-1], w_left, mean[j], weight[j], g)
            if len(tied):
                ebin = binned.ent_bin[geo.sel[at:at + size]].reshape(p, n_j)[tied]
                g[tied] = np.where(ebin[:, 1:] == ebin[:, :-1], -np.inf, g[tied])
            if min_leaf > 1:
                n_left = np.arange(1, n_j)
                g[:, (n_left < min_leaf) | (n_j - n_left < min_leaf)] = -np.inf
            out += p * (n_j - 1)
        at += size
    scored = _DenseScored(part, geo, gain, p * span, [cum], None)
    scored.w, scored.counted = w, min_leaf > 1
    return scored


@dataclass
class _ClassRuns:
    """A root's entries (one per row and feature, run after run) taken class by class.

    Every feature's run holds every row, so class q's entries of a run are ``n_q``
    entries, the same rows in each run: class q's weight summed along each run up to
    every cut is then one cumulative sum of its own entries, restarted at each run (as
    the runs of all entries are summed, zeros of the other classes left out), and all
    classes take one gather of the weights instead of one each.
    """

    rows: np.ndarray    # the entries' rows, class after class, run order within a class
    n_runs: int         # the runs (features)
    sizes: np.ndarray   # (K,) n_q, class q's entries per run
    at: np.ndarray      # (K, n_cuts) where each cut's sum for each class is in left_sums'
                        # table; its last position (a 0) where a run has none up to the cut

    @classmethod
    def of(cls, geo: _Geometry, codes: np.ndarray, n_classes: int) -> _ClassRuns:
        n = int(geo.blocks[0])  # one node: its rows are every run's length
        p = len(geo.erow) // n
        klass = codes[geo.erow].astype(np.intp)
        sizes = np.bincount(klass[:n], minlength=n_classes)
        block = p * (np.cumsum(sizes) - sizes)  # where each class's entries start
        run = geo.cut // n
        at = np.empty((n_classes, len(geo.cut)), dtype=np.intp)
        for q in range(n_classes):
            seen = np.cumsum(klass == q)  # class-q entries up to and including each one
            k = seen[geo.cut] - np.where(run > 0, seen[run * n - 1], 0)
            at[q] = np.where(k > 0, block[q] + run * sizes[q] + k - 1, p * n)
        return cls(geo.erow[np.argsort(klass, kind="stable")], p, sizes, at)

    def left_sums(self, weight: np.ndarray) -> list[np.ndarray]:
        """Per class, the weight left of every cut in its run."""
        w = weight[self.rows]
        table = np.empty(len(w) + 1)
        table[-1] = 0.0
        p, start = self.n_runs, 0
        for n_q in self.sizes:
            size = p * int(n_q)
            np.cumsum(w[start:start + size].reshape(p, n_q), axis=1,
                      out=table[start:start + size].reshape(p, n_q))
            start += size
        return [table[a] for a in self.at]


def _class_weights(rows, target, weight, n_classes) -> np.ndarray:
    """(K, n_total): each of ``rows``' weight under its class, 0 elsewhere."""
    out = np.zeros((n_classes, len(weight)))
    out[target[rows], rows] = weight[rows]
    return out


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
    n_left_: np.ndarray | None = None  # rows left of every cut, once known
    hist: SlotHistogram | None = None  # histogram mode: the slots' machinery
    counts: np.ndarray | None = None   # histogram mode: rows per non-empty slot
    dense: bool = False  # entry mode, every position a cut (no ``ebin``, ``cut``): see _dense_scores

    def keep(self, cuts: np.ndarray) -> _Geometry:
        """The same entries with only the cuts ``cuts`` (a mask or positions)."""
        pick = (lambda a: None if a is None else a[cuts])  # noqa: E731
        return _Geometry(self.sel, self.ebin, self.bounds, self.cut[cuts], pick(self.first),
                         self.erow, self.blocks, pick(self.n_left_), self.hist, self.counts)

    def entry_sums(self, binned, stat, total, name: str | None, centre=None):
        """The statistic ``name`` summed per entry (per non-empty slot in histogram
        mode); ``total`` is its sum per node; ``centre`` as :meth:`SlotHistogram.fill`'s."""
        if self.hist is None:
            return stat[self.erow]
        sums = self.hist.fill(binned, stat, total, name, centre)
        return sums if len(self.sel) == len(sums) else sums[self.sel]  # a root: every slot

    def left_sums(self, x: np.ndarray) -> np.ndarray:
        """Per cut, ``x`` summed over its (node, feature) run up to the cut; histogram
        mode also takes ``x`` of shape (n_entries, k), k sums at once."""
        if self.blocks is None:
            c = np.zeros((len(x) + 1, *x.shape[1:]))  # c[i]: the sum of the first i entries
            np.cumsum(x, axis=0, out=c[1:])
            return np.take(c, self.cut + 1, axis=0) - np.take(c, self.first, axis=0)
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
        """Rows left of every cut (kept: a root's geometry serves every round)."""
        if self.n_left_ is None:
            cum = cumsum0(self.counts)
            self.n_left_ = cum[self.cut + 1] - cum[self.first]
        return self.n_left_


#: Up to this many nodes, a level's entries are taken node by node, a pass over them
#: each (compare and ``flatnonzero``), rather than sorted by node: m passes cost less
#: than the radix sort's while m is small (where they break even: bench/README.md).
#: The order is the same.
NODES_BY_PASSES = 8


def _geometry(binned, rows, lnode, m, n_total, n_node, above=None, parent=None,
              dense=False) -> _Geometry:
    """Entries in (node, bin) order: one per (row, feature), or, when the level's
    (node, bin) slots are fewer than half the row entries (few distinct values, e.g.
    spambase's many zeros), one per non-empty slot of a histogram. ``n_node``: rows per
    node; ``above`` and ``parent``: the level above's histograms and each node's parent
    there (see :class:`SlotHistogram`). ``dense``: entries without their cuts listed,
    for :func:`_dense_scores`."""
    B, p = binned.n_bins, binned.gbin.shape[1]
    if m * B <= 0.5 * len(rows) * p:
        hist = SlotHistogram(binned, rows, lnode, m, above, parent)
        counts = hist.fill(binned, total=n_node, name="count")
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
    # each row's node, m (past every node) where it is not in the level: the narrowest
    # type, as the sort's key (numpy's stable sort of one-byte keys is one radix pass)
    node_of_row = np.full(n_total, m, smallest_int(m))
    node_of_row[rows] = lnode
    nd = node_of_row[binned.ent_row]
    if m == 1 and len(rows) == n_total:
        sel = np.arange(len(nd))
    elif m <= NODES_BY_PASSES:  # node after node, each node's entries in bin order
        sel = np.concatenate([np.flatnonzero(nd == j) for j in range(m)])
    else:  # a radix sort by node keeps each node's entries in bin order
        sel = np.flatnonzero(nd != m) if len(rows) < n_total else None  # None: every entry
        by_node = np.argsort(nd if sel is None else nd[sel], kind="stable")
        sel = by_node if sel is None else sel[by_node]
    blocks = np.bincount(lnode, minlength=m)
    if dense:
        return _Geometry(sel, None, None, None, erow=binned.ent_row[sel], blocks=blocks,
                         dense=True)
    ebin = binned.ent_bin[sel]
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


def _boundary_slots(binned, geo: _Geometry, rows, target, n_classes) -> _Geometry:
    """Histogram mode: keep the cuts next to a class change, as :func:`_boundary_cuts`
    does for entries; a cut between two slots that hold rows of one and the same class
    goes."""
    present = geo.hist.fill_classes(binned, np.ones(len(target)), target, n_classes) > 0
    present = np.take(present, geo.sel, axis=0) if len(geo.sel) < len(present) else present
    pure = np.count_nonzero(present, axis=1) == 1
    klass = np.argmax(present, axis=1)
    a, b = geo.cut, geo.cut + 1  # the slots each side of a cut
    return geo.keep(~(pure[a] & pure[b] & (klass[a] == klass[b])))


def _gain(left, totals, impurity, per_node, n_classes):
    """Δ of every cut from the left child's statistics and its node's totals and
    impurity (per node; the cuts come node after node, ``per_node`` of each)."""
    # a node's figure at each cut (one node, as at every root: the number itself)
    at_cut = (lambda a: a[0]) if len(impurity) == 1 else (lambda a: np.repeat(a, per_node))  # noqa: E731
    if n_classes:
        # W·gini = W - Σ_q W_q² / W per child, so Δ = impurity - 1 + (Σ_children Σ_q W_q² / W_child) / W.
        # Sums run class after class into a few arrays, in place: one pass an operation.
        total = at_cut(sum(totals))
        scratch = np.empty_like(left[0])
        w_left, left_squares = left[0].copy(), left[0] * left[0]
        for q in left[1:]:
            w_left += q
            left_squares += np.multiply(q, q, out=scratch)
        right_squares = None
        for t, q in zip(totals, left, strict=True):
            right = np.subtract(at_cut(t), q, out=scratch)
            right *= right
            if right_squares is None:
                right_squares = right.copy()
            else:
                right_squares += right
        purity = np.divide(left_squares, np.maximum(w_left, _TINY, out=scratch), out=left_squares)
        w_right = np.subtract(total, w_left, out=w_left)
        purity += np.divide(right_squares, np.maximum(w_right, _TINY, out=w_right), out=right_squares)
        purity /= total
        purity += at_cut(impurity - 1.0)
        return purity
    # Σ_k (S_k - w_k ȳ)² / w_k over both children, divided by W. The right child's
    # centred sum is minus the left's, so this is a² / (w_L w_R), a = S_L - w_L ȳ.
    (w_left, centred), mean, weight = left, totals[1] / totals[0], totals[0]
    out = np.empty(len(w_left))
    if 1 < len(per_node) <= SLICED_NODES:  # a node's figures as scalars, slice by slice
        at = 0
        for j, n_cuts in enumerate(per_node.tolist()):
            cuts = slice(at, at + n_cuts)
            _squared_error_gain(centred[cuts], w_left[cuts], mean[j], weight[j], out[cuts])
            at += n_cuts
        return out
    return _squared_error_gain(centred, w_left, at_cut(mean), at_cut(weight), out)


def _squared_error_gain(centred, w_left, mean, weight, out):
    """a² / (w_L w_R), a = S_L - w_L ȳ, into ``out``: ``centred`` (S_L - ...: the left
    child's centred sums) of ``out``'s shape, ``w_left`` its left weights (broadcast
    against it), ``mean`` and ``weight`` the node's ȳ and W (scalars or per cut)."""
    w_right = np.subtract(weight, w_left)
    w_right *= w_left
    np.subtract(centred, np.multiply(w_left, mean), out=out)
    out *= out
    return np.divide(out, np.maximum(w_right, _TINY, out=w_right), out=out)
