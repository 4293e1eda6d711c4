"""What bagging and random forests share: bootstrap counts, parallel fits, stacked trees.

* **Bootstrap as weights.** A bootstrap sample of ``n`` rows drawn with replacement is
  stored as integer in-bag counts; the tree is grown with those counts as
  ``sample_weight`` (a weight of k acts exactly like k copies of the row), so no row is
  ever copied. Rows with count 0 are the tree's out-of-bag (OOB) rows.
* **Reproducible for any n_jobs.** Every tree's seeds (one for its bootstrap, one for
  its feature draws) come from one ``np.random.Generator`` before any tree is fitted,
  so the forest does not depend on which worker fits which tree.
* **One descent for all trees.** The trees' flat arrays are concatenated into one
  :class:`~engine.tree.Tree` (node ids offset per tree); every (tree, row) pair then
  walks down that single tree, level by level, vectorized over all pairs. Where rows
  take many steps, they walk by their values' ranks among the thresholds
  (:class:`RankEdges`): a step is then an integer addition, no comparison of floats.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

from ..base import check_random_state
from ..tree import TREE_LEAF, Tree
from ..tree._splitter import gather
from ..tree._tree import CATEGORICAL_BINARY, NODE_INT, NODE_REFERENCES, NUMERIC, take_nodes

#: (tree, row) pairs walked at once by :func:`forest_apply`: few enough that every
#: step's temporaries (about 90 bytes a pair) stay within the few megabytes of cache a
#: core has to itself, enough that the walk's per-call costs are spread thin.
PAIRS_PER_CHUNK = 40_960
#: Bytes of walk tables (:attr:`StackedTrees.walk_code`, ``walk_threshold``, the leaf
#: marks) one walk gathers from: about a processor core's L2 cache. A larger forest is
#: walked a group of trees at a time (:attr:`StackedTrees.walk_groups`), so each step's
#: scattered reads of its tables hit that cache.
WALK_TABLE_BYTES = 1 << 20
#: joblib's ``prefer`` for parallel fits; bench/bench_forest.py measures the other one.
PARALLEL_PREFER = "processes"
#: Parallel fits hand each worker this many batches of members (progress moves per batch).
BATCHES_PER_WORKER = 4


def draw_seeds(random_state, n_estimators: int) -> np.ndarray:
    """Seeds (n_estimators, 2): column 0 for each bootstrap, column 1 for each tree."""
    rng = check_random_state(random_state)
    return rng.integers(0, np.iinfo(np.int64).max, size=(n_estimators, 2))


def resolve_max_samples(max_samples, n_samples: int) -> int:
    """Rows drawn per tree: None is ``n_samples``, a float a fraction, an int a count."""
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, (float, np.floating)):
        if not 0 < max_samples <= 1:
            raise ValueError(f"max_samples as a fraction must be in (0, 1], got {max_samples!r}.")
        return max(1, round(max_samples * n_samples))
    if isinstance(max_samples, (int, np.integer)) and 1 <= max_samples <= n_samples:
        return int(max_samples)
    raise ValueError(
        f"max_samples must be None, a fraction in (0, 1] or an int in [1, {n_samples}]; "
        f"got {max_samples!r}."
    )


def bootstrap_counts(seed: int, n_samples: int, n_draw: int, bootstrap: bool) -> np.ndarray:
    """In-bag count of every row, shape (n_samples,): ``n_draw`` rows drawn from ``seed``.

    With replacement (bootstrap) the counts sum to ``n_draw`` and may exceed 1;
    without, ``n_draw`` distinct rows get count 1.
    """
    rng = np.random.default_rng(seed)
    if bootstrap:
        drawn = rng.integers(0, n_samples, size=n_draw)
    else:
        drawn = rng.choice(n_samples, size=n_draw, replace=False)
    return np.bincount(drawn, minlength=n_samples)


def compact_counts(counts: np.ndarray) -> np.ndarray:
    """In-bag counts in the smallest unsigned integer type that holds their largest:
    a forest keeps one count per tree and row, and a bootstrap count rarely exceeds a
    dozen, so one byte each, whatever the number of rows drawn."""
    top = int(counts.max(initial=0))
    return counts.astype(np.uint8 if top < 2**8 else np.uint16 if top < 2**16 else np.uint32)


def effective_jobs(n_jobs: int | None) -> int:
    """Worker processes :func:`run_parallel` uses for ``n_jobs`` (1: it runs in-process)."""
    if n_jobs in (None, 1):
        return 1
    from joblib import effective_n_jobs  # only needed for parallel fits

    return effective_n_jobs(n_jobs)


def run_parallel(function, tasks: list, n_jobs: int | None, progress=None) -> list:
    """``[function(*task) for task in tasks]``, on ``n_jobs`` worker processes via joblib.

    ``progress(done, total)``, if given, is called as tasks finish (the app draws its
    progress bar from it).

    The tasks go to the workers in a few contiguous batches (``BATCHES_PER_WORKER`` per
    worker), so the training data, shared by every task of a batch, is pickled once per
    batch rather than once per tree. Processes, not threads: many of a fit's numpy calls
    are small and hold the GIL, so threads overlap less of the work (bench/bench_forest.py
    measures both). Results come back in task order, and every task carries its own
    seeds, so the outcome never depends on ``n_jobs``.
    """
    report = progress or (lambda done, total: None)
    if n_jobs in (None, 1) or len(tasks) <= 1:
        results = []
        for task in tasks:
            results.append(function(*task))
            report(len(results), len(tasks))
        return results
    from joblib import Parallel, delayed  # only needed for parallel fits

    n_batches = min(len(tasks), BATCHES_PER_WORKER * effective_jobs(n_jobs))
    edges = np.linspace(0, len(tasks), n_batches + 1).astype(int)
    batches = [tasks[a:b] for a, b in zip(edges[:-1], edges[1:], strict=True)]
    run = Parallel(n_jobs=n_jobs, prefer=PARALLEL_PREFER, return_as="generator")
    results = []
    for done in run(delayed(_run_batch)(function, batch) for batch in batches):  # in order
        results.extend(done)
        report(len(results), len(tasks))
    return results


def _run_batch(function, batch: list) -> list:
    return [function(*task) for task in batch]


@dataclass
class StackedTrees:
    """Several trees' arrays concatenated into one :class:`Tree`.

    Attributes
    ----------
    tree : Tree
        All nodes; tree ``b`` owns ids ``roots[b] .. roots[b + 1] - 1``.
    roots : ndarray of intp, shape (n_trees,)
        Root id of each tree.
    ranking : Ranking or None
        The ranks of the thresholds of the stack a group of trees (:attr:`walk_groups`)
        was taken from, where the group's nodes start at ``first_node``: the groups
        share the whole stack's :attr:`edges`, so one table of the rows' ranks serves
        every group. None: this stack's own.
    compaction_steps : list of int
        The lean walk's steps between compactions, from :func:`compaction_schedule`.
    n_columns_read : int
        One more than the last column a split reads (1 for trees of one leaf).
    """

    tree: Tree
    roots: np.ndarray
    ranking: Ranking | None = None
    first_node: int = 0

    @property
    def n_trees(self) -> int:
        return len(self.roots)

    @property
    def walk_code(self) -> np.ndarray:
        """Per node, its left child and the column it reads in one integer,
        ``left << walk_shift | feature`` (one gather a step instead of two); a leaf points
        to itself and reads column 0, so its step goes nowhere. int32 when every code
        fits: the walk's gathers and steps then move half the bytes."""
        return self._walk[0]

    @property
    def walk_shift(self) -> int:
        """Bits of :attr:`walk_code` that hold the feature."""
        return self._walk[1]

    @property
    def walk_threshold(self) -> np.ndarray:
        """``threshold`` with +inf at leaves, so ``x > threshold`` is False there."""
        return self._walk[2]

    @property
    def edges(self) -> RankEdges:
        """The thresholds the rank walk ranks values among (the whole stack's)."""
        return self.ranking.ranked[0]

    @cached_property
    def rank_code(self) -> np.ndarray:
        """Per node, all one step of the rank walk (:func:`rank_steps`) needs in one
        integer, ``left << rank_shift | (2**rank_bits - 1 - rank) << feature_bits |
        feature`` (:class:`RankEdges`): the left child, the threshold's rank and the
        column read. Adding a row's rank of that column, shifted by ``feature_bits``
        (:meth:`RankEdges.ranks`), carries one into the left child exactly where the
        row's rank is above the threshold's, so ``(code + rank) >> rank_shift`` is the
        child the row goes to. A leaf points to itself with a rank field of 0, where no
        rank carries. int32 when every sum fits."""
        edges, n = self.edges, self.tree.node_count
        leaf = self.tree.children_left == TREE_LEAF
        left = np.where(leaf, np.arange(n), self.tree.children_left).astype(np.int64)
        top = (1 << edges.rank_bits) - 1
        code = left << edges.rank_bits
        rank = self.ranking.ranked[1][self.first_node:self.first_node + n]
        code |= np.where(leaf, 0, top - rank)
        code <<= edges.feature_bits
        code |= np.where(leaf, 0, self.tree.feature)
        return code.astype(np.int32) if (n + 1) << self.rank_shift <= 2**31 else code

    def rank_table(self, X_enc: np.ndarray) -> np.ndarray:
        """The rows' ranks for :func:`rank_steps` (:meth:`RankEdges.ranks`)."""
        return self.edges.ranks(X_enc)

    @property
    def rank_shift(self) -> int:
        """Bits of :attr:`rank_code` below the left child."""
        return self.edges.feature_bits + self.edges.rank_bits

    @cached_property
    def steps_per_row(self) -> float:
        """The steps a training row takes down all the trees: the trees' mean leaf depth
        over their training rows, times the trees."""
        leaf = self.tree.children_left == TREE_LEAF
        weight = self.tree.n_node_samples[leaf]
        return self.n_trees * float(np.dot(self.tree.depth[leaf], weight)) / max(1, int(weight.sum()))

    def ranks_pay(self, n_rows: int, steps_per_row: float | None = None) -> bool:
        """Whether walking ``n_rows`` rows by ranks (:func:`rank_steps`) costs less than
        comparing values (:func:`lean_steps`), for ``steps_per_row`` steps a row (this
        stack's :attr:`steps_per_row`): the steps' saving against ranking each row's
        values of the columns read and, the first time, the stack's thresholds
        (:data:`RANK_STEPS_PER_VALUE`, :data:`RANK_STEPS_PER_NODE`). Numeric splits only."""
        if (self.tree.split_kind >= CATEGORICAL_BINARY).any():
            return False
        steps = n_rows * (self.steps_per_row if steps_per_row is None else steps_per_row)
        cost = n_rows * self.n_columns_read * RANK_STEPS_PER_VALUE
        if not self.ranking.made:  # the thresholds not ranked yet
            cost += len(self.ranking.tree.threshold) * RANK_STEPS_PER_NODE
        return steps >= cost

    def __post_init__(self) -> None:
        leaf = self.tree.children_left == TREE_LEAF
        feature = np.where(leaf, 0, self.tree.feature)
        left = np.where(leaf, np.arange(self.tree.node_count), self.tree.children_left)
        self.n_columns_read = int(feature.max(initial=0)) + 1  # at most: the last read, and those before
        shift = max(1, (self.n_columns_read - 1).bit_length())
        code = left << shift | feature
        if code.max(initial=0) < 2**31:
            code = code.astype(np.int32)
        self._walk = (code, shift, np.where(leaf, np.inf, self.tree.threshold))
        self.compaction_steps = compaction_schedule(self.tree)
        if self.ranking is None:
            self.ranking = Ranking(self.tree)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        for made in ("walk_groups", "rank_code", "steps_per_row"):
            state.pop(made, None)  # made again on demand (walk_groups: copies of every array)
        return state

    @cached_property
    def walk_groups(self) -> list[tuple[StackedTrees, int, int]]:
        """Consecutive trees whose walk tables fit :data:`WALK_TABLE_BYTES`, as
        ``(stack, first tree, first node)``: each group a stack of its own (node ids from
        0), whose leaf ids plus its first node are ids in this stack. One group, this
        stack itself, when the whole forest fits."""
        nodes = self.tree.node_count
        per_node = self.walk_code.itemsize + self.walk_threshold.itemsize + 1
        n_groups = min(self.n_trees, -(-nodes * per_node // WALK_TABLE_BYTES))
        if n_groups <= 1:
            return [(self, 0, 0)]
        # group edges where the nodes are split evenly (trees whole)
        edges = np.unique(np.searchsorted(self.roots, np.linspace(0, nodes, n_groups + 1)[1:-1]))
        bounds = [0, *edges[(edges > 0) & (edges < self.n_trees)].tolist(), self.n_trees]
        return [(self._sub_stack(a, b), a, int(self.roots[a])) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def _sub_stack(self, first: int, stop: int) -> StackedTrees:
        """Trees ``first:stop`` as a stack of their own, node ids from 0."""
        lo = int(self.roots[first])
        hi = int(self.roots[stop]) if stop < self.n_trees else self.tree.node_count
        new_id = np.full(self.tree.node_count + 1, TREE_LEAF, dtype=NODE_INT)
        new_id[lo:hi] = np.arange(hi - lo)
        return StackedTrees(take_nodes(self.tree, np.arange(lo, hi), new_id),
                            self.roots[first:stop] - lo, self.ranking, lo)


class Ranking:
    """The ranks of a stack's thresholds (:meth:`RankEdges.of`), made on first use and
    shared by the groups of trees taken from it (which hold this, not the stack: no
    reference cycle keeps a stack's arrays alive after its last use)."""

    def __init__(self, tree: Tree):
        self.tree = tree

    @property
    def made(self) -> bool:
        return "ranked" in self.__dict__

    @cached_property
    def ranked(self) -> tuple[RankEdges, np.ndarray]:
        return RankEdges.of(self.tree)

    def __getstate__(self) -> dict:
        return {"tree": self.tree}  # the ranks are made again on demand


@dataclass
class RankEdges:
    """Each feature's distinct thresholds in a stack's numeric splits, ascending: a
    value's *rank* is 1 plus the number of its feature's edges below it, a threshold's
    is 1 plus its place among them, and ``x > threshold`` exactly when ``x``'s rank is
    above the threshold's (both 1 plus a count of edges below). Ranks are whole numbers
    of ``rank_bits`` bits at most, which the lean walk adds without comparing floats.

    ``values`` holds the edges of feature 0, then of feature 1, ...; ``start`` (one more
    than the features, the last ``len(values)``) where each feature's begin.
    """

    values: np.ndarray
    start: np.ndarray

    def __post_init__(self) -> None:
        most = int(np.diff(self.start).max(initial=0))  # edges of one feature
        self.feature_bits = max(1, (len(self.start) - 2).bit_length())
        self.rank_bits = (most + 1).bit_length()  # every rank: 1 to most + 1
        self.rank_dtype = np.dtype(np.int32 if (most + 1) << self.feature_bits < 2**31 else np.int64)

    @staticmethod
    def of(tree: Tree) -> tuple[RankEdges, np.ndarray]:
        """The edges of ``tree``'s numeric splits, and each node's threshold rank among
        its feature's (0 at leaves and categorical splits), from one sort of the
        splits by (feature, threshold)."""
        numeric = np.flatnonzero((tree.children_left != TREE_LEAF) & (tree.split_kind == NUMERIC))
        feature, threshold = tree.feature[numeric], tree.threshold[numeric]
        n_features = int(feature.max(initial=0)) + 1
        by_value = np.argsort(threshold)
        # then by feature, stably: a radix sort of small integers
        order = by_value[np.argsort(feature[by_value].astype(np.int16 if n_features < 2**15 else np.int64),
                                    kind="stable")]
        f, t = feature[order], threshold[order]
        new = np.ones(len(f), dtype=bool)
        new[1:] = (f[1:] != f[:-1]) | (t[1:] != t[:-1])
        start = np.searchsorted(f[new], np.arange(n_features + 1))
        rank = np.zeros(tree.node_count, dtype=np.int64)
        rank[numeric[order]] = np.cumsum(new) - start[f]  # 1 + place among the feature's edges
        return RankEdges(t[new], start), rank

    def ranks(self, X: np.ndarray) -> np.ndarray:
        """Every value's rank shifted left by ``feature_bits``, flat as ``X.ravel()``;
        columns no split reads hold rank 1.

        A column is searched through its edges in value order (sorted first), so that
        each search starts near the last one's end, unless most of it is one value
        (:data:`RANK_SEARCH_AS_IS`): then the searches of that value all take the same
        path through the edges, and the column is searched as it is."""
        n_rows, n_columns = X.shape
        columns = np.ascontiguousarray(X.T)
        found = np.zeros((n_columns, n_rows), dtype=self.rank_dtype)
        for f in range(min(n_columns, len(self.start) - 1)):
            edges = self.values[self.start[f]:self.start[f + 1]]
            if not len(edges):
                continue
            column = columns[f]
            sample = column[::max(1, n_rows // RANK_SAMPLE)]
            if np.unique(sample, return_counts=True)[1].max() >= RANK_SEARCH_AS_IS * len(sample):
                found[f] = np.searchsorted(edges, column)
            else:
                order = np.argsort(column)
                found[f, order] = np.searchsorted(edges, column.take(order))
        found += 1
        found <<= self.feature_bits
        return np.ascontiguousarray(found.T).ravel()


#: What ranking costs, in steps of the walk whose saving by ranks pays for it
#: (:meth:`StackedTrees.ranks_pay`; bench/README.md, "forests walk by ranks"): a value of
#: a row (a share of a column's sort and search), and a node of the stack (a share of
#: the sort of its thresholds and of its codes).
RANK_STEPS_PER_VALUE = 20
RANK_STEPS_PER_NODE = 30
#: :meth:`RankEdges.ranks` searches a column as it is where at least this share of a
#: sample of :data:`RANK_SAMPLE` of its values is one value (bench/README.md, "forests walk by ranks").
RANK_SEARCH_AS_IS = 0.6
RANK_SAMPLE = 256


def stack_trees(trees: list[Tree]) -> StackedTrees:
    """Concatenate trees, offsetting every node reference (leaf/none markers kept)."""
    sizes = np.array([t.node_count for t in trees])
    roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    columns = {}
    for f in fields(Tree):
        parts = [getattr(t, f.name) for t in trees]
        column = np.concatenate(parts)
        if f.name in NODE_REFERENCES:  # each tree's ids moved by its first, in place
            ends = np.cumsum([len(p) for p in parts])
            for root, start, end in zip(roots.tolist(), [0, *ends[:-1].tolist()],
                                        ends.tolist(), strict=True):
                ids = column[start:end]
                np.add(ids, root, out=ids, where=ids >= 0)
        columns[f.name] = column
    return StackedTrees(Tree(**columns), roots)


#: What dropping the finished pairs costs (a leaf test and the gathers of the pairs still
#: walking), in steps of the walk. It only sets when the walk compacts: the leaves are
#: the same whatever its value.
COMPACTION_COST = 2.0


def compaction_schedule(tree: Tree, cost: float = COMPACTION_COST) -> list[int]:
    """Steps to walk before each compaction of the pairs still walking (lean path).

    A pair that has reached its leaf steps in place until the next compaction drops it:
    wasted work. The training rows tell when pairs finish: ``f(d)``, the share of them
    (a leaf's rows at its depth) still walking after d steps. Compacting after step d
    costs ``cost · f(d)``; so compact once the waste since the last compaction,
    ``Σ f(last) - f(d)``, has grown as large. Past the schedule, one step at a time.
    """
    leaf = tree.children_left == TREE_LEAF
    finishing = np.bincount(tree.depth[leaf], weights=tree.n_node_samples[leaf])
    walking = 1.0 - np.cumsum(finishing) / max(finishing.sum(), 1.0)
    schedule, last, waste = [], 0, 0.0
    for d in range(1, len(walking)):
        waste += walking[last] - walking[d]
        if waste >= cost * walking[d]:
            schedule.append(d - last)
            last, waste = d, 0.0
    return schedule


def forest_apply(stacked: StackedTrees, X_enc: np.ndarray) -> np.ndarray:
    """Leaf id (in the stacked tree) of every row in every tree, shape (n_trees, n_rows)."""
    out = np.empty((stacked.n_trees, np.shape(X_enc)[0]), dtype=np.intp)
    for lo, leaves in forest_leaves(stacked, X_enc):
        out[:, lo:lo + leaves.shape[1]] = leaves
    return out


def chunk_rows(stacked: StackedTrees, n_rows: int) -> int:
    """Rows of each chunk :func:`forest_leaves` walks ``n_rows`` rows in (the last one
    may hold fewer): at most :data:`PAIRS_PER_CHUNK` pairs of the widest group of trees,
    the chunks filled evenly, with no small last one."""
    widest = max(group.n_trees for group, _, _ in stacked.walk_groups)
    most = max(1, PAIRS_PER_CHUNK // max(1, widest))  # rows a chunk may hold
    n_chunks = max(1, -(-n_rows // most))
    return max(1, -(-n_rows // n_chunks))


def forest_leaves(stacked: StackedTrees, X_enc: np.ndarray, rows_per_chunk: int | None = None):
    """Yield ``(lo, leaves)`` for the rows from ``lo`` on, a chunk at a time: ``leaves``
    (n_trees, rows of the chunk) holds every pair's leaf id in the stacked tree. Chunks
    are ``rows_per_chunk`` rows, or :func:`chunk_rows`'s.

    At most :data:`PAIRS_PER_CHUNK` (tree, row) pairs are walked at once, all in the same
    arrays (``leaves`` too: the next chunk overwrites it), kept from one call to the next
    by the thread (:func:`_walk_arrays`). A forest with more walk tables than
    :data:`WALK_TABLE_BYTES` walks each chunk of rows one group of trees at a time.
    """
    X_enc = np.ascontiguousarray(X_enc, dtype=np.float64)
    n_rows = X_enc.shape[0]
    groups = stacked.walk_groups
    widest = max(group.n_trees for group, _, _ in groups)
    step = rows_per_chunk or chunk_rows(stacked, n_rows)
    rows = min(step, n_rows)
    ranks = stacked.rank_table(X_enc) if stacked.ranks_pay(n_rows) else None
    arrays = _walk_arrays(widest * rows)
    try:
        walks = [_Walk(group, X_enc, ranks, arrays) for group, _, _ in groups]
        if len(walks) == 1:
            for lo in range(0, n_rows, step):
                yield lo, walks[0].leaves(lo, min(lo + step, n_rows))
            return
        leaves = np.empty((stacked.n_trees, rows), dtype=np.intp)
        for lo in range(0, n_rows, step):
            hi = min(lo + step, n_rows)
            for walk, (group, first_tree, first_node) in zip(walks, groups, strict=True):
                part = leaves[first_tree:first_tree + group.n_trees, :hi - lo]
                np.add(walk.leaves(lo, hi), first_node, out=part)  # ids in the whole stack
            yield lo, leaves[:, :hi - lo]
    finally:
        _kept.arrays = arrays  # for this thread's next walk


#: Per thread, the arrays of its last walk. Fresh arrays cost allocations and, where the
#: C allocator hands freed memory back to the system (any process that has not called
#: :func:`engine._memory.keep_freed_memory`, as the app and bench/ do), a page fault for
#: every page they touch. At most :data:`PAIRS_PER_CHUNK` pairs' worth (about 4 MB) a
#: thread, freed with it; a walk writes them before it reads them, and a second walk
#: under way in the same thread at the same time makes its own.
_kept = threading.local()


def _walk_arrays(size: int) -> dict:
    """Arrays for ``size`` pairs: this thread's last ones if they fit, else new ones."""
    arrays = getattr(_kept, "arrays", None)
    _kept.arrays = None
    if arrays is None or len(arrays["out"]) < size:
        arrays = {"out": np.empty(size, dtype=np.intp), "done": np.empty(size, dtype=bool),
                  "sets": [np.empty((3, size), dtype=np.intp) for _ in range(2)],
                  "step": lean_step_buffers(size)}
    return arrays


class _Walk:
    """What one :func:`forest_leaves` call walks its chunks with, made once.

    The pairs still walking are the first ``n`` entries of ``pair`` (the pair's position
    in the chunk's leaves), ``node`` and ``row_start`` (the row's offset in
    ``X_enc.ravel()``); dropping the finished ones gathers the rest into a spare set of
    the three arrays, and the two sets swap. The pairs are laid out row by row (a row's
    trees side by side), so a step's reads of ``X_enc`` stay within a few rows at a time;
    laid out tree by tree, consecutive pairs would read consecutive rows, a cache line each.
    """

    def __init__(self, stacked: StackedTrees, X_enc: np.ndarray, ranks: np.ndarray | None,
                 arrays: dict):
        self.stacked, self.X_enc, self.flat = stacked, X_enc, X_enc.ravel()
        self.ranks = ranks
        tree = stacked.tree
        self.categorical = bool((tree.split_kind >= CATEGORICAL_BINARY).any())
        self.is_leaf = tree.children_left == TREE_LEAF
        self.out, self.done, self.sets = arrays["out"], arrays["done"], list(arrays["sets"])
        # The lean step's temporaries, reused from step to step: no allocation per step
        self.step_buffers = arrays["step"]

    def leaves(self, lo: int, hi: int) -> np.ndarray:
        """Walk every (tree, row) pair of rows ``lo:hi`` down to its leaf.

        Numeric splits on complete rows take a lean path: in ``walk_*`` arrays a leaf
        points to itself (threshold +inf), so a pair that arrives keeps stepping in place
        and finished pairs are dropped only every few steps (:func:`compaction_schedule`).
        Categorical splits and missing values use ``Tree``'s own step and drop pairs at
        every level.
        """
        stacked, tree, n_trees, rows = self.stacked, self.stacked.tree, self.stacked.n_trees, hi - lo
        ranked = self.ranks is not None
        code, shift = (stacked.rank_code, stacked.edges.feature_bits) if ranked else \
            (stacked.walk_code, stacked.walk_shift)
        column = (1 << shift) - 1  # the bits of a code that hold the feature
        n = n_trees * rows
        general = self.categorical or bool(np.isnan(self.X_enc[lo:hi]).any())  # for this chunk
        pair, node, row_start = self.sets[0][:, :n]
        # row by row: entry r · n_trees + b is the pair (tree b, row r), b · rows + r in leaves
        np.add(np.arange(rows)[:, None], np.arange(n_trees) * rows, out=pair.reshape(rows, n_trees))
        row_start.reshape(rows, n_trees)[:] = (np.arange(lo, hi) * self.X_enc.shape[1])[:, None]
        schedule, compactions, taken = stacked.compaction_steps, 0, 0
        if general:
            node.reshape(rows, n_trees)[:] = stacked.roots
        else:  # the first step without gathers: each tree reads one column
            root = gather(code, stacked.roots)
            if ranked:
                width = self.X_enc.shape[1]
                rank = np.take(self.ranks[lo * width:hi * width].reshape(rows, width),
                               root & column, axis=1, mode="clip")
                np.right_shift(rank + root, stacked.rank_shift, out=node.reshape(rows, n_trees))
            else:
                x = self.step_buffers[2][:n].reshape(rows, n_trees)
                np.take(self.X_enc[lo:hi], root & column, axis=1, out=x, mode="clip")
                right = np.greater(x, gather(stacked.walk_threshold, stacked.roots),
                                   out=self.step_buffers[4][:n].reshape(rows, n_trees))
                np.add(root >> shift, right, out=node.reshape(rows, n_trees))
            taken = 1
        n = self._drop_finished(n)  # trees of one leaf (or, after the first step, of depth one)
        while n:
            pair, node, row_start = self.sets[0][:, :n]
            if general:  # the last drop left only pairs at internal nodes
                node[:] = tree.step(node, gather(self.flat, row_start + gather(tree.feature, node)), True, True)
            else:
                steps = (schedule[compactions] if compactions < len(schedule) else 1) - taken
                compactions, taken = compactions + 1, 0
                walk = rank_steps if ranked else lean_steps
                walk(stacked, self.ranks if ranked else self.flat, node, row_start, steps,
                     [b[:n] for b in self.step_buffers])
            n = self._drop_finished(n)
        return self.out[:n_trees * rows].reshape(n_trees, rows)

    def _drop_finished(self, n: int) -> int:
        """Record the leaves of the first ``n`` pairs that reached one and keep the others
        (in the spare set, which becomes the current one); returns how many are kept."""
        current, spare = self.sets
        pair, node = current[0, :n], current[1, :n]
        done = self.is_leaf.take(node, out=self.done[:n], mode="clip")
        # Positions, then gathers: a boolean mask with many of both kinds costs numpy a
        # mispredicted branch per element.
        finished = np.flatnonzero(done)
        if not len(finished):  # as after the first step of trees of some depth
            return n
        self.out[gather(pair, finished)] = gather(node, finished)
        going = np.flatnonzero(np.logical_not(done, out=done))
        for kept, values in zip(spare, current, strict=True):
            values[:n].take(going, out=kept[:len(going)], mode="clip")
        self.sets = [spare, current]
        return len(going)


def lean_step_buffers(size: int) -> list[np.ndarray]:
    """Temporaries of :func:`lean_steps` and :func:`rank_steps` for ``size`` walkers:
    room for a code, a flat position, a value (or a rank), a threshold, a flag and a
    column each (codes and ranks as int32 views where they are int32)."""
    return [np.empty(size, dtype) for dtype in (np.int64, np.intp, float, float, bool, np.intp)]


def lean_steps(stacked: StackedTrees, flat: np.ndarray, node: np.ndarray,
               row_start: np.ndarray, steps: int, buffers: list[np.ndarray],
               replaced: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """``steps`` steps of the lean walk, in place on ``node`` (ids in ``stacked``):
    ``node = left + (x > threshold)``, left and the column read by one gather of
    :attr:`StackedTrees.walk_code`, ``x = flat[row_start + column]``; a walker at its
    leaf steps in place (threshold +inf). With ``replaced = (k, x_k)``, a walker
    reading column ``k`` takes ``x_k`` instead. ``buffers`` (:func:`lean_step_buffers`)
    are as long as ``node``."""
    code, shift, threshold = stacked.walk_code, stacked.walk_shift, stacked.walk_threshold
    column = (1 << shift) - 1  # the bits of a code that hold the feature
    step, at, x, t, flag, f = buffers
    step = step.view(code.dtype)[:len(node)]
    for _ in range(steps):
        code.take(node, out=step, mode="clip")  # gather() in place
        _read(flat, step, column, row_start, x, (at, f, flag), replaced)
        threshold.take(node, out=t, mode="clip")
        np.add(np.right_shift(step, shift, out=node), np.greater(x, t, out=flag), out=node)


def rank_steps(stacked: StackedTrees, ranks: np.ndarray, node: np.ndarray,
               row_start: np.ndarray, steps: int, buffers: list[np.ndarray],
               replaced: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """:func:`lean_steps` on the rows' ranks (``ranks``, :meth:`StackedTrees.rank_table`)
    instead of their values: ``node = (code + rank) >> rank_shift``, the code
    (:attr:`StackedTrees.rank_code`) gathered by node and the rank by ``row_start +
    column``. Two gathers a step where :func:`lean_steps` has three, and no comparison.
    With ``replaced = (k, rank_k)``, a walker reading column ``k`` takes ``rank_k``."""
    code, right_shift = stacked.rank_code, stacked.rank_shift
    column = (1 << stacked.edges.feature_bits) - 1  # the bits of a code that hold the feature
    step, at, rank, _, flag, f = buffers
    n = len(node)
    step, rank = step.view(code.dtype)[:n], rank.view(ranks.dtype)[:n]
    for _ in range(steps):
        code.take(node, out=step, mode="clip")  # gather() in place
        _read(ranks, step, column, row_start, rank, (at, f, flag), replaced)
        np.right_shift(np.add(step, rank, out=step), right_shift, out=node)


def _read(table: np.ndarray, step: np.ndarray, column: int, row_start: np.ndarray,
          out: np.ndarray, room: tuple, replaced) -> None:
    """A step's read of each walker's column (the bits ``column`` of its code ``step``)
    from its row in ``table``, into ``out``; with ``replaced = (k, v)``, ``v`` where the
    column is ``k``. ``room``: the flat positions, columns and flags to work in."""
    at, f, flag = room
    if replaced is None:
        np.add(np.bitwise_and(step, column, out=at), row_start, out=at)
        table.take(at, out=out, mode="clip")
        return
    k, value = replaced
    np.add(row_start, np.bitwise_and(step, column, out=f), out=at)
    table.take(at, out=out, mode="clip")
    np.copyto(out, value, where=np.equal(f, k, out=flag))


def grid_leaves(stacked: StackedTrees, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Leaf id of every point of the grid ``xs`` × ``ys`` in every tree, shape (n_trees,
    len(ys) · len(xs)), point ``i · len(xs) + j`` being (xs[j], ys[i]): what
    :func:`forest_leaves` gives for those points as rows, for trees of numeric splits
    on two features (0 read on ``xs``, 1 on ``ys``), both axes ascending.

    The grid is walked as rectangles, not points. A node's points are a rectangle of
    index ranges, and its split ``x <= threshold`` cuts the range of its feature where
    ``np.searchsorted(axis, threshold, "right")`` says; only children whose rectangle
    holds points go on. The work is the rectangles the trees cut the grid into, not
    its points times the trees' depth. A tree's leaf rectangles tile the grid, so each
    leaf's id, added at its rectangle's corners into a difference table, gives at every
    point the one leaf holding it once the table is summed along both axes.
    """
    tree, axes = stacked.tree, (np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64))
    nx, ny, n_trees = len(axes[0]), len(axes[1]), stacked.n_trees
    node = stacked.roots.astype(np.intp)
    owner = np.arange(n_trees)  # each rectangle's tree
    low = np.zeros((2, n_trees), dtype=np.intp)  # x range low:high (row 0), y range (row 1)
    high = np.array([[nx], [ny]]).repeat(n_trees, axis=1)
    found = []  # (tree, leaf, low, high) of the leaf rectangles
    while len(node):
        leaf = tree.children_left[node] == TREE_LEAF
        if leaf.any():
            found.append((owner[leaf], node[leaf], low[:, leaf], high[:, leaf]))
            keep = ~leaf
            node, owner, low, high = node[keep], owner[keep], low[:, keep], high[:, keep]
        if not len(node):
            break
        feature, threshold = tree.feature[node], tree.threshold[node]
        on_y = feature == 1
        cut = np.empty(len(node), dtype=np.intp)
        for f, rows in ((0, ~on_y), (1, on_y)):
            cut[rows] = np.searchsorted(axes[f], threshold[rows], side="right")
        split = (on_y.astype(np.intp), np.arange(len(node)))  # each node's range that is cut
        a, b = low[split], high[split]
        cut = np.clip(cut, a, b)
        left_high, right_low = high.copy(), low.copy()
        left_high[split] = cut
        right_low[split] = cut
        goes_left, goes_right = cut > a, cut < b  # a child without points stops here
        first = tree.children_left[node].astype(np.intp)  # a numeric split's right is left + 1
        node = np.concatenate([first[goes_left], first[goes_right] + 1])
        owner = np.concatenate([owner[goes_left], owner[goes_right]])
        low = np.concatenate([low[:, goes_left], right_low[:, goes_right]], axis=1)
        high = np.concatenate([left_high[:, goes_left], high[:, goes_right]], axis=1)
    owner, leaf, low, high = (np.concatenate(parts, axis=-1) for parts in zip(*found, strict=True))
    width, size = nx + 1, (ny + 1) * (nx + 1)
    table = np.zeros(n_trees * size)
    base = owner * size
    id_ = leaf.astype(np.float64)  # ids below 2**53: float sums of them are exact
    for y, x, sign in ((low[1], low[0], 1.0), (low[1], high[0], -1.0),
                       (high[1], low[0], -1.0), (high[1], high[0], 1.0)):
        table += np.bincount(base + y * width + x, weights=sign * id_, minlength=len(table))
    table = table.reshape(n_trees, ny + 1, nx + 1)
    np.cumsum(table, axis=1, out=table)
    np.cumsum(table, axis=2, out=table)
    return table[:, :ny, :nx].reshape(n_trees, ny * nx).astype(np.intp)


def leaf_values(stacked: StackedTrees, classifier: bool) -> np.ndarray:
    """Per node of the stacked tree: class shares (classifier) or the mean (regressor)."""
    value = stacked.tree.value
    if not classifier:
        return value[:, 0]
    total = value.sum(axis=1, keepdims=True)
    return np.divide(value, total, out=np.zeros_like(value), where=total > 0)
