"""The estimator machinery shared by bagging and random forests.

:class:`BaseBagged` fits ``n_estimators`` members on bootstrap counts (see
:mod:`._base`), averages their predictions and keeps everything the OOB pictures need.
Members that are Glassbox trees take the fast path: ``X`` is encoded and its columns
sorted once, the trees grow in stacks (``engine.tree._classes.grow_many``: the in-bag
rows of several trees one after the other, all grown level by level together), and
prediction walks all trees at once; any other member is fitted with
``fit(X, y, sample_weight=counts)``.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import (
    FeatureEncoder,
    check_consistent_length,
    check_regression_target,
    check_sample_weight,
    encode_labels,
)
from ..base import BaseEstimator
from ..metrics import r2_score
from ..tree import DecisionTreeClassifier, DecisionTreeRegressor
from ..tree._binning import PreparedFeatures, prepare_features, smallest_int
from ..tree._builder import resolve_max_features
from ..tree._classes import grow_many
from ..tree._quantile import resolve_bins
from ..tree._tree import NUMERIC, TREE_LEAF
from ._base import (
    BATCHES_PER_WORKER,
    PAIRS_PER_CHUNK,
    bootstrap_counts,
    chunk_rows,
    compact_counts,
    draw_seeds,
    effective_jobs,
    forest_apply,
    forest_leaves,
    grid_leaves,
    leaf_values,
    resolve_max_samples,
    run_parallel,
    stack_trees,
)

#: Members grown through the trees' ``_fit_encoded`` hook and walked all at once.
_TREES = (DecisionTreeClassifier, DecisionTreeRegressor)


@dataclass
class _TrainingData:
    """What every member's fit needs, built once per ensemble fit."""

    X: object
    X_enc: np.ndarray
    y: object
    target: np.ndarray
    weight: np.ndarray
    encoder: FeatureEncoder
    classes: np.ndarray | None
    n_draw: int
    bootstrap: bool
    prepared: PreparedFeatures | None = None  # X_enc presorted once for all tree members


def _fit_member(estimator, data: _TrainingData, bootstrap_seed: int):
    """Draw one bootstrap as counts and fit ``estimator`` (not a Glassbox tree: those
    grow in stacks, see :func:`_fit_stack`) with them as weights."""
    counts = bootstrap_counts(bootstrap_seed, len(data.target), data.n_draw, data.bootstrap)
    estimator.fit(data.X, data.y, sample_weight=data.weight * counts)
    return estimator, compact_counts(counts)


#: Rows × features of one stack of trees grown together when the trees use every
#: feature: bagging takes a stacked copy of the data, about 24 bytes a cell, so a million
#: cells are ≈ 24 MB a stack: small enough that a level's arrays stay near a core's
#: caches and that a large fit ends many stacks (each one moves its progress), large
#: enough that small trees (a few thousand rows) still share a stack's numpy calls.
STACK_CELLS = 1_000_000
#: Entries of one stack of trees that draw features, as a forest's do: a drawn row
#: (``n_draw`` per tree) brings an entry for each feature drawn at its node that the
#: search reads it for, every row for most features but only the rows off the common
#: value for features mostly of one value (:func:`entries_per_row`). The trees read the
#: data in place (``PreparedFeatures.take``), so only the level's arrays grow with the
#: stack. A level pays a fixed cost in numpy calls whatever its size, so a stack is big
#: enough that those calls serve many trees, and small enough that the level's arrays
#: stay in a core's cache and the fit's peak memory a few times the data's.
STACK_ENTRIES = 360_000
#: At most this many trees per stack, so progress still moves on small data.
MAX_STACK = 100


def stack_edges(n_draw: int, n_features: int, n_members: int, draws: bool = False,
                n_jobs: int = 1, entries: float = 4.0) -> list[int]:
    """Where the stacks of trees start and end: ``members[edges[i]:edges[i + 1]]``.

    As many trees a stack as :data:`STACK_ENTRIES` (trees that draw features, with
    ``entries`` a drawn row, see :func:`entries_per_row`) or :data:`STACK_CELLS` (trees
    that use every feature) allow, from 1 to
    :data:`MAX_STACK`, sizes differing by at most one. With workers, the stacks come in
    a whole number per worker, or per batch when there are more stacks than batches
    (``run_parallel`` hands out ``BATCHES_PER_WORKER`` batches a worker), so that no
    worker is left with the last stack alone.
    """
    limit = (STACK_ENTRIES // max(1, round(n_draw * entries)) if draws
             else STACK_CELLS // max(1, n_draw * n_features))
    n_stacks = -(-n_members // int(np.clip(limit, 1, MAX_STACK)))
    if n_jobs > 1:
        unit = n_jobs if n_stacks <= BATCHES_PER_WORKER * n_jobs else BATCHES_PER_WORKER * n_jobs
        n_stacks = min(n_members, -(-n_stacks // unit) * unit)
    return np.linspace(0, n_members, n_stacks + 1).astype(int).tolist()


def entries_per_row(prepared: PreparedFeatures, n_drawn: int) -> float:
    """About how many entries a drawn row brings a forest's split search: one for each
    of the ``n_drawn`` features drawn at its node, times the share of the rows the
    search reads for a feature, on average (every row for a categorical feature, the
    rows off its most common value for a numeric one: nearly all for a continuous
    feature, few for a word count that most e-mails lack)."""
    n = prepared.values.shape[1]
    if not n:
        return float(n_drawn)
    share = np.ones(prepared.n_features)
    mode, n_common = prepared.mode
    share[prepared.numeric] = np.where(np.isnan(mode), 1.0, 1.0 - n_common / n)
    return n_drawn * float(share.mean())


def _fit_stack(members: list, data: _TrainingData, bootstrap_seeds: list[int]) -> list:
    """Draw each member's bootstrap and grow the members (trees) together on their
    in-bag rows, each weighing its sample weight times its count."""
    counts = [compact_counts(bootstrap_counts(seed, len(data.target), data.n_draw, data.bootstrap))
              for seed in bootstrap_seeds]
    grow_many(members, data.X_enc, data.target, *_in_bag(data.weight, counts), data.encoder,
              data.classes, data.prepared)
    return list(zip(members, counts, strict=True))


def _in_bag(weight: np.ndarray, counts: list[np.ndarray]):
    """The members' in-bag rows one member after the other: (rows, member of each row,
    its weight, the sample weight times the count), rows of zero weight left out."""
    rows = [np.flatnonzero(weight * c > 0) for c in counts]
    # the narrowest type: the arrays are held while the stack grows, and the builder
    # makes its own copy of this one
    member = np.repeat(np.arange(len(rows), dtype=smallest_int(len(rows))), [len(r) for r in rows])
    weights = np.concatenate([weight[r] * c[r] for r, c in zip(rows, counts, strict=True)])
    return np.concatenate(rows), member, weights


class BaseBagged(BaseEstimator):
    """Bootstrap, parallel fit, averaged prediction and OOB estimates.

    Subclasses provide ``_member(tree_seed)`` (a fresh unfitted member) and
    ``_max_samples_param()``; ``n_estimators``, ``bootstrap``, ``oob_score``, ``n_jobs``
    and ``random_state`` are parameters of every subclass, ``warm_start`` of those that
    take it (absent: False).
    """

    _is_classifier = True

    def fit(self, X, y, sample_weight=None, *, progress=None):
        """Fit ``n_estimators`` members on bootstrap samples of (X, y).

        ``progress(done, total)``, if given, is called as members finish (``total``
        counts the members this call fits).

        With ``warm_start=True`` on a fitted ensemble, the members it has are kept and
        only the missing ones are fitted, on the same (X, y): member b draws its seeds
        from ``random_state`` as in one fit of all of them, so with an integer
        ``random_state`` a forest grown in several calls equals the forest grown in one,
        and its OOB curve is extended, not recomputed.
        """
        data = self._training_data(X, y, sample_weight)
        seeds = draw_seeds(self.random_state, self.n_estimators)
        kept = self._kept_members()
        if len(kept) > len(seeds):
            raise ValueError(f"n_estimators={self.n_estimators} is fewer than the "
                             f"{len(kept)} members a warm start keeps.")
        if kept and len(kept) == len(seeds):
            return self
        seeds = seeds[len(kept):]
        members = [self._member(int(tree_seed)) for _, tree_seed in seeds]
        boot_seeds = [int(boot_seed) for boot_seed, _ in seeds]
        if isinstance(members[0], _TREES):  # sort the columns once, grow trees in stacks
            first = members[0]
            bins = resolve_bins(first.binning, data.X_enc, data.encoder.n_categories_,
                                first.max_bins)
            data.prepared = prepare_features(data.X_enc, data.encoder.n_categories_, first.max_bins,
                                             bins)
            if self._is_classifier:  # the search's class-sorted tables: made once, not per stack
                data.prepared.classes = data.target
            n_features = data.X_enc.shape[1]
            n_drawn = resolve_max_features(members[0].max_features, n_features)
            draws = n_drawn < n_features
            if draws:  # the trees sort their nodes' rows by rank: no presorted orders
                data.prepared.release_order()
            edges = stack_edges(data.n_draw, n_features, len(members), draws,
                                effective_jobs(self.n_jobs), entries_per_row(data.prepared, n_drawn))
            tasks = [(members[a:b], data, boot_seeds[a:b]) for a, b in zip(edges, edges[1:], strict=False)]
            report = progress and (lambda done, total: progress(edges[done], len(members)))
            fitted = [pair for stack in run_parallel(_fit_stack, tasks, self.n_jobs, report)
                      for pair in stack]
            for member, _ in fitted:
                member.bins_ = bins
                if bins is not None:
                    bins.move_thresholds(member.tree_)
        else:
            tasks = [(m, data, s) for m, s in zip(members, boot_seeds, strict=True)]
            fitted = run_parallel(_fit_member, tasks, self.n_jobs, progress)
        fitted = kept + fitted
        self.estimators_ = [member for member, _ in fitted]
        self.inbag_counts_ = np.stack([c for _, c in fitted])
        self._stacked_cache = None
        self.feature_importances_ = self._mean_importances()
        if self.oob_score:
            self._set_oob(data, len(kept))
        return self

    def _kept_members(self) -> list[tuple]:
        """(member, in-bag counts) of the members a warm start keeps: none unless
        ``warm_start`` is set and the ensemble is fitted."""
        if not getattr(self, "warm_start", False) or "inbag_counts_" not in self.__dict__:
            return []
        return list(zip(self.estimators_, self.inbag_counts_, strict=True))

    @property
    def estimators_samples_(self) -> list[np.ndarray]:
        """Each member's in-bag row indices, derived from ``inbag_counts_`` when asked
        for (kept as a list they would cost 8 bytes per drawn row and member)."""
        if "inbag_counts_" not in self.__dict__:
            raise AttributeError("estimators_samples_ needs a fitted model with inbag_counts_.")
        return [np.flatnonzero(c) for c in self.inbag_counts_]

    def _training_data(self, X, y, sample_weight) -> _TrainingData:
        if int(self.n_estimators) < 1:
            raise ValueError(f"n_estimators must be >= 1, got {self.n_estimators!r}.")
        if self.oob_score and not self.bootstrap:
            raise ValueError("Out-of-bag estimates need bootstrap=True.")
        encoder = FeatureEncoder().fit(X)
        X_enc = encoder.transform(X, copy=False)  # only read: a float64 X is not copied
        check_consistent_length(X_enc, y)
        self.feature_names_in_ = encoder.feature_names_in_
        self.n_features_in_ = X_enc.shape[1]
        self.encoder_ = encoder
        classes, target = None, None
        if self._is_classifier:
            classes, target = encode_labels(y)
            self.classes_, self.n_classes_ = classes, len(classes)
        else:
            target = check_regression_target(y)
        weight = check_sample_weight(sample_weight, X_enc.shape[0])
        n_draw = resolve_max_samples(self._max_samples_param(), X_enc.shape[0])
        return _TrainingData(X, X_enc, y, target, weight, encoder, classes, n_draw,
                             bool(self.bootstrap))

    def _mean_importances(self) -> np.ndarray | None:
        """Mean of the trees' normalised impurity importances, normalised again.

        Single-leaf trees (all zeros) are left out, as in scikit-learn.
        """
        found = [m.feature_importances_ for m in self.estimators_
                 if hasattr(m, "feature_importances_") and m.feature_importances_.any()]
        if not found:
            return np.zeros(self.n_features_in_)
        mean = np.mean(found, axis=0)
        return mean / mean.sum()

    # ----------------------------------------------------------------- members' outputs

    @property
    def _all_trees(self) -> bool:
        return all(isinstance(m, _TREES) for m in self.estimators_)

    def _stacked(self):
        if getattr(self, "_stacked_cache", None) is None:
            stacked = stack_trees([m.tree_ for m in self.estimators_])
            self._stacked_cache = (stacked, leaf_values(stacked, self._is_classifier))
        return self._stacked_cache

    def _stacked_from(self, first: int):
        """(stacked trees, leaf values) of the members from ``first`` on (all: the cached
        stack)."""
        if not first:
            return self._stacked()
        stacked = stack_trees([m.tree_ for m in self.estimators_[first:]])
        return stacked, leaf_values(stacked, self._is_classifier)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_stacked_cache", None)  # rebuilt on demand; keeps pickles small
        state.pop("_oob_sums", None)  # a warm start after unpickling recomputes them
        return state

    def _encode(self, X, copy: bool = True) -> np.ndarray:
        """X encoded, rows whole (the trees' walk reads them); ``copy=False`` for a caller
        that only reads it (a plain float64 array then comes back itself)."""
        self._check_is_fitted()
        X_enc = self.encoder_.transform(X, order="C", copy=copy)
        if X_enc.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X_enc.shape[1]} features; the model expects {self.n_features_in_}.")
        return X_enc

    def member_outputs(self, X, X_enc: np.ndarray | None = None) -> np.ndarray:
        """Every member's output on every row: (n_estimators, n_rows, n_classes) class
        probabilities for a classifier, (n_estimators, n_rows) predictions for a regressor.

        ``X_enc``, if given, is ``X`` already encoded by ``encoder_``.
        """
        X_enc = self._encode(X) if X_enc is None else X_enc
        if self._all_trees:
            stacked, values = self._stacked()
            return np.take(values, forest_apply(stacked, X_enc), axis=0)  # rows: faster than []
        if not self._is_classifier:
            return np.stack([m.predict(X) for m in self.estimators_])
        return np.stack([self._aligned_proba(m, X) for m in self.estimators_])

    def output_chunks(self, X, X_enc: np.ndarray | None = None, first: int = 0):
        """Yield ``(lo, outputs)`` for the rows from ``lo`` on: ``outputs`` is what
        :meth:`member_outputs` gives for those rows, for the members from ``first`` on.
        A pass over the chunks holds one chunk's outputs (trees: as many (tree, row)
        pairs as one walk takes), not every member's on every row."""
        X_enc = self._encode(X) if X_enc is None else X_enc
        if not self._all_trees:
            yield 0, self.member_outputs(X, X_enc)[first:]
            return
        stacked, values = self._stacked_from(first)
        for lo, leaves in forest_leaves(stacked, X_enc):
            yield lo, np.take(values, leaves, axis=0)

    def _aligned_proba(self, member, X) -> np.ndarray:
        """A member's probabilities with columns in the ensemble's ``classes_`` order."""
        proba = member.predict_proba(X)
        out = np.zeros((proba.shape[0], self.n_classes_))
        out[:, pd.Index(self.classes_).get_indexer(member.classes_)] = proba
        return out

    def _average(self, X) -> np.ndarray:
        """Mean member output, a chunk of rows at a time to bound memory."""
        X_enc = self._encode(X, copy=False)  # only read: no copy of the caller's array
        if not self._all_trees:
            return self.member_outputs(X, X_enc).mean(axis=0)
        stacked, values = self._stacked()
        out = np.empty((X_enc.shape[0],) + values.shape[1:])
        for lo, leaves in forest_leaves(stacked, X_enc):
            np.mean(np.take(values, leaves, axis=0), axis=0, out=out[lo:lo + leaves.shape[1]])
        return out

    def grid_average(self, xs, ys) -> np.ndarray | None:
        """The mean member output, as :meth:`_average` gives it (``predict_proba`` or
        ``predict``), at every point of the grid ``xs`` × ``ys`` of the two features
        (:func:`~engine.inspection.grid_rows`' order), the grid walked as rectangles
        (:func:`grid_leaves`); None unless the members are trees of numeric splits on
        two numeric features."""
        walked = self._grid_outputs(xs, ys)
        return None if walked is None else np.concatenate([np.mean(o, axis=0) for o in walked])

    def grid_stage_classes(self, xs, ys) -> np.ndarray | None:
        """Per number of members b (row b - 1), the class ``predict`` gives
        (:meth:`class_index`) for the first b members' mean output at every point of the
        grid, as :meth:`grid_average` of ``first_members(self, b)`` gives it: shape
        (n_members, n_points), the smallest integer type. None for a regressor and
        wherever :meth:`grid_average` is None."""
        walked = self._grid_outputs(xs, ys) if self._is_classifier else None
        if walked is None:
            return None
        return np.concatenate([self.stage_classes(outputs) for outputs in walked], axis=1)

    def stage_classes(self, outputs: np.ndarray) -> np.ndarray:
        """The class ``predict`` gives (:meth:`class_index`) after each member, from the
        members' outputs (members, points, classes) in member order: shape (members,
        points), the smallest integer type. ``outputs`` is summed and divided in place
        into the running means (the sums ``np.mean`` divides, so the last stage is
        ``predict``'s to the bit)."""
        running = np.cumsum(outputs, axis=0, out=outputs)
        np.divide(running, np.arange(1, len(running) + 1)[:, None, None], out=running)
        return self.class_index(running).astype(np.min_scalar_type(self.n_classes_ - 1))

    def _grid_outputs(self, xs, ys):
        """Every member's output at the grid points (members, points, …), a chunk of
        points at a time in order (as :meth:`_average` walks rows); None when the grid
        cannot be walked as rectangles (see :meth:`grid_average`)."""
        self._check_is_fitted()
        if (not self._all_trees or self.n_features_in_ != 2
                or self.encoder_.is_categorical_.any()):
            return None
        stacked, values = self._stacked()
        if ((stacked.tree.split_kind != NUMERIC) & (stacked.tree.children_left != TREE_LEAF)).any():
            return None
        leaves = grid_leaves(stacked, xs, ys)
        step = max(1, PAIRS_PER_CHUNK // max(1, stacked.n_trees))
        return (np.take(values, leaves[:, lo:lo + step], axis=0)
                for lo in range(0, leaves.shape[1], step))

    # ----------------------------------------------------------------- out of bag

    def _set_oob(self, data: _TrainingData, n_kept: int = 0) -> None:
        """OOB estimates of the members; those of the first ``n_kept`` (a warm start's)
        are carried over from the last fit when it kept their sums."""
        start = getattr(self, "_oob_sums", None) if n_kept else None
        if start is None or getattr(self, "oob_error_curve_", np.zeros(0)).shape != (n_kept,):
            n_kept, start, done = 0, None, np.zeros(0)
        else:
            done = self.oob_error_curve_
        curve, total, n_votes = self._oob_pass(data, start, n_kept)
        self._oob_sums = (total, n_votes)
        self.oob_error_curve_ = np.concatenate([done, curve])
        defined = n_votes > 0
        shape = (-1, 1) if total.ndim == 2 else (-1,)
        average = np.full(total.shape, np.nan)
        average[defined] = total[defined] / n_votes[defined].reshape(shape)
        # the same call as the curve's last point, so that point is 1 - oob_score_ exactly
        self.oob_score_ = oob_score_of(self._is_classifier, total, n_votes, data.target)
        if self._is_classifier:
            self.oob_decision_function_ = average
        else:
            self.oob_prediction_ = average

    def _oob_pass(self, data: _TrainingData, start, first: int):
        """:func:`oob_pass` of the members from ``first`` on over the training rows; on
        the worker processes, a share of the rows each (:func:`parallel_oob_pass`),
        when the fit has them and the pass is long enough to repay sending them the
        trees and the rows."""
        jobs = effective_jobs(self.n_jobs)
        pairs = (len(self.estimators_) - first) * len(data.target)
        if jobs > 1 and self._all_trees and pairs >= OOB_PARALLEL_PAIRS:
            return parallel_oob_pass(self, data.X_enc, data.target, start, first, self.n_jobs)
        chunks = self.output_chunks(data.X, data.X_enc, first=first)
        return oob_pass(self, chunks, data.target, start=start, first=first)


#: (member, row) pairs from which the OOB pass is shared out among the worker processes,
#: each walking a share of the rows: a pass this long takes about a second in one process,
#: several times what sending the trees and the rows to the workers costs.
OOB_PARALLEL_PAIRS = 4_000_000


def first_members(model, n_members: int, X, y, sample_weight=None):
    """A copy of the fitted bagged ensemble ``model`` that keeps its first ``n_members``
    members: the ensemble a fit with ``n_estimators=n_members`` (everything else the
    same) would give, without fitting it. ``(X, y, sample_weight)`` must be the data
    ``model`` was fitted on; its OOB estimates are recomputed on them for the kept members.

    Member b draws its seeds from ``random_state`` and its position alone (see
    :meth:`BaseBagged.fit`), so the first members of a larger fit are those of a smaller
    one; this needs an integer ``random_state``, as a warm start does. The members are
    shared with ``model``, not copied: neither is to be modified.

    >>> from engine.ensemble import RandomForestClassifier
    >>> X = np.arange(40.0).reshape(-1, 2); y = [0, 1] * 10
    >>> big = RandomForestClassifier(n_estimators=6, oob_score=True, random_state=0).fit(X, y)
    >>> small = first_members(big, 3, X, y)
    >>> small.n_estimators, small.estimators_[2] is big.estimators_[2]
    (3, True)
    """
    model._check_is_fitted()
    if not isinstance(model.random_state, (int, np.integer)):
        raise ValueError("Only an ensemble fitted with an integer random_state can be cut: "
                         "its members' seeds must not depend on the number of members.")
    if not 1 <= n_members <= len(model.estimators_):
        raise ValueError(f"n_members must be between 1 and the {len(model.estimators_)} "
                         f"members of the model, got {n_members}.")
    out = copy.copy(model)
    for cached in ("_stacked_cache", "_oob_sums"):
        out.__dict__.pop(cached, None)
    out.n_estimators = int(n_members)
    out.estimators_ = model.estimators_[:n_members]
    out.inbag_counts_ = model.inbag_counts_[:n_members]
    out.feature_importances_ = out._mean_importances()
    if out.oob_score:
        out._set_oob(out._training_data(X, y, sample_weight))
    return out


def oob_score_of(is_classifier: bool, total: np.ndarray, n_votes: np.ndarray, target) -> float:
    """OOB accuracy (classifier) or R² (regressor) over the rows with an OOB vote.

    ``total`` holds the summed OOB outputs; the argmax of a sum is the argmax of the
    mean, so the class needs no division.
    """
    defined = n_votes > 0
    if not defined.any():
        return np.nan
    if is_classifier:
        correct = np.count_nonzero(np.argmax(total[defined], axis=1) == target[defined])
        return correct / np.count_nonzero(defined)
    return r2_score(target[defined], total[defined] / n_votes[defined])


def oob_pass(model, chunks, target, start=None, first: int = 0):
    """OOB error after 1..B members in one pass over ``chunks``, the members' outputs a
    chunk of rows at a time (:meth:`BaseBagged.output_chunks`): no array of every
    member's output on every row is ever held.

    Returns ``(curve, total, n_votes)``: ``curve[b]`` is 1 − OOB score of the first
    b + 1 members over the rows that were out of bag for at least one of them; ``total``
    the summed OOB outputs and ``n_votes`` the number of members each row was OOB for.
    The last point is ``1 − oob_score_of(total, n_votes)`` exactly.

    ``start`` = (total, n_votes) of the members before ``first`` (a warm start's) makes
    the pass cover the members from ``first`` on, their sums continuing from it in the
    order one pass over all members would add them.

    Every point is a sum over rows, so the chunks add up: a classifier counts, per b,
    the rows with a vote and those whose running sum's argmax is their class; a
    regressor sums, per b, the squared residuals and the first two moments of the
    target over the rows with a vote (the target centred first, so that
    Σy² − (Σy)²/n loses no digits).
    """
    oob = model.inbag_counts_[first:] == 0
    classifier = model._is_classifier
    shift = 0.0 if classifier else float(np.mean(target))
    parts = _oob_chunk_sums(oob, classifier, shift, chunks, target, start)
    return _oob_curve(classifier, parts, oob.shape, target)


def _oob_chunk_sums(oob, classifier: bool, shift: float, chunks, target, start):
    """Per chunk of rows ``(lo, outputs)`` (``lo`` indexes ``oob``'s rows, ``target`` and
    ``start``), what :func:`oob_pass` adds up: ``(lo, sums, seen, total, n_votes)``, the
    chunk's per-member sums (right | rss, Σy, Σy², the target less ``shift``) and rows
    with a vote, and its rows' summed OOB outputs and votes."""
    for lo, out in chunks:
        hi = lo + out.shape[1]
        mask, part = oob[:, lo:hi], target[lo:hi]
        added = out * mask.reshape(mask.shape + (1,) * (out.ndim - 2))
        votes = np.cumsum(mask, axis=0, dtype=np.intp)
        if start is not None:  # the earlier members' sums first: the same additions
            added = np.concatenate([start[0][None, lo:hi], added])
            votes += start[1][lo:hi]
        running = np.cumsum(added, axis=0)[0 if start is None else 1:]
        defined = votes > 0
        sums = np.empty((len(mask), 1 if classifier else 3))
        if classifier:
            sums[:, 0] = ((np.argmax(running, axis=2) == part) & defined).sum(axis=1)
        else:
            mean = np.divide(running, votes, out=np.zeros_like(running), where=defined)
            centred = np.where(defined, part - shift, 0.0)
            sums[:, 0] = np.where(defined, (part - mean) ** 2, 0.0).sum(axis=1)
            sums[:, 1] = centred.sum(axis=1)
            sums[:, 2] = (centred ** 2).sum(axis=1)
        yield lo, sums, defined.sum(axis=1), running[-1], votes[-1]


def _oob_curve(classifier: bool, parts, shape: tuple[int, int], target):
    """:func:`oob_pass`'s result from the chunks' sums (:func:`_oob_chunk_sums`), added
    in row order."""
    n_members, n_rows = shape
    seen = np.zeros(n_members, dtype=np.intp)
    sums = np.zeros((n_members, 1 if classifier else 3))
    total, n_votes = None, np.zeros(n_rows, dtype=np.intp)
    for lo, chunk_sums, chunk_seen, chunk_total, chunk_votes in parts:
        sums += chunk_sums
        seen += chunk_seen
        if total is None:
            total = np.zeros((n_rows,) + chunk_total.shape[1:])
        total[lo:lo + len(chunk_votes)], n_votes[lo:lo + len(chunk_votes)] = chunk_total, chunk_votes
    with np.errstate(invalid="ignore", divide="ignore"):
        if classifier:
            curve = 1.0 - sums[:, 0] / seen
        else:
            tss = sums[:, 2] - sums[:, 1] ** 2 / seen
            curve = np.where(tss > 0, sums[:, 0] / tss, np.where(sums[:, 0] == 0, 0.0, 1.0))
    curve[seen == 0] = np.nan
    curve[-1] = 1.0 - oob_score_of(classifier, total, n_votes, target)
    return curve, total, n_votes


def parallel_oob_pass(model, X_enc: np.ndarray, target, start=None, first: int = 0,
                      n_jobs: int | None = None):
    """:func:`oob_pass` of ``model``'s trees from ``first`` on over the rows ``X_enc``,
    the rows shared out among ``n_jobs`` worker processes (:func:`run_parallel`), each
    a run of whole chunks of the walk. The chunks are those of the pass in one process
    and their sums are added in the same order, so the result is the same to the bit."""
    stacked, values = model._stacked_from(first)
    oob = model.inbag_counts_[first:] == 0
    classifier = model._is_classifier
    shift = 0.0 if classifier else float(np.mean(target))
    n_rows = len(target)
    step = chunk_rows(stacked, n_rows)
    n_chunks = -(-n_rows // step)
    shares = np.linspace(0, n_chunks, min(n_chunks, effective_jobs(n_jobs)) + 1).astype(int) * step
    bounds = [(int(a), int(min(b, n_rows))) for a, b in zip(shares[:-1], shares[1:], strict=True)]
    tasks = [(stacked, values, X_enc[a:b], oob[:, a:b], classifier, shift, target[a:b],
              None if start is None else (start[0][a:b], start[1][a:b]), step, a)
             for a, b in bounds]
    parts = [part for share in run_parallel(_oob_share, tasks, n_jobs) for part in share]
    return _oob_curve(classifier, parts, oob.shape, target)


def _oob_share(stacked, values, X_enc, oob, classifier, shift, target, start, step, offset):
    """A worker's share of :func:`parallel_oob_pass`: the chunk sums of its rows, ``lo``
    counted from the first row of all."""
    chunks = ((lo, np.take(values, leaves, axis=0))
              for lo, leaves in forest_leaves(stacked, X_enc, step))
    # copies of the rows' sums: views would hold every chunk's running sums
    return [(lo + offset, sums, seen, total.copy(), votes.copy()) for lo, sums, seen, total, votes
            in _oob_chunk_sums(oob, classifier, shift, chunks, target, start)]
