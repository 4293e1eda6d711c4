"""Bagging and random forests: bootstrap bookkeeping, OOB estimates, agreement with
scikit-learn within statistical bounds, and the published spambase error rates."""
from __future__ import annotations

import dataclasses
import math
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import BaggingClassifier as SkBagging
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.ensemble import RandomForestRegressor as SkForestRegressor
from sklearn.tree import DecisionTreeClassifier as SkTree

from engine._validation import FeatureEncoder, encode_labels
from engine.data import load_sample
from engine.ensemble import BaggingClassifier, RandomForestClassifier, RandomForestRegressor
from engine.ensemble import _bagged as bagged
from engine.ensemble import _base as forest_base
from engine.ensemble._base import compaction_schedule, forest_apply, forest_leaves, stack_trees
from engine.naive_bayes import GaussianNB
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from engine.tree import _search_drawn as search_drawn
from tests.engine.test_estimator_checks import mixed_frame, numeric_data


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    with np.errstate(all="raise", under="ignore"):
        yield


@pytest.fixture(params=["values", "ranks"])
def walk(request, monkeypatch):
    """Both lean walks: comparing values (what a few trees take) and adding ranks (what
    many take), whatever the stack's size."""
    for cost in ("RANK_STEPS_PER_VALUE", "RANK_STEPS_PER_NODE"):
        monkeypatch.setattr(forest_base, cost, 0 if request.param == "ranks" else math.inf)
    return request.param


def _tree_arrays(model) -> list[dict]:
    return [{f.name: getattr(m.tree_, f.name) for f in dataclasses.fields(m.tree_)}
            for m in model.estimators_]


def _spambase_split():
    """ESL's sizes (3065 train / 1536 test) on a random split with a fixed seed."""
    frame = load_sample("spambase")
    X, y = frame.drop(columns=["spam"]).to_numpy(dtype=float), frame["spam"].to_numpy()
    order = np.random.default_rng(2026).permutation(len(y))
    train, test = order[:3065], order[3065:]
    assert len(test) == 1536
    return X[train], y[train], X[test], y[test]


# --------------------------------------------------------------------------- bookkeeping


@pytest.mark.parametrize("factory", [
    lambda n_jobs: RandomForestClassifier(n_estimators=12, oob_score=True, random_state=3, n_jobs=n_jobs),
    lambda n_jobs: BaggingClassifier(n_estimators=6, random_state=3, n_jobs=n_jobs),
    lambda n_jobs: RandomForestRegressor(n_estimators=8, random_state=3, n_jobs=n_jobs),
])
def test_same_seed_same_forest_for_any_n_jobs(factory):
    kind = "regressor" if isinstance(factory(1), RandomForestRegressor) else "classifier"
    X, y = mixed_frame(kind)
    one, two = factory(1).fit(X, y), factory(2).fit(X, y)
    np.testing.assert_array_equal(one.inbag_counts_, two.inbag_counts_)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))
    for a, b in zip(_tree_arrays(one), _tree_arrays(two), strict=True):
        for name in a:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    different = factory(1).set_params(random_state=4).fit(X, y)
    assert not np.array_equal(one.inbag_counts_, different.inbag_counts_)


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_a_warm_started_forest_grown_in_three_calls_equals_one_fit(kind):
    """Trees, bootstraps, OOB estimates and the OOB curve: the same as one fit of all
    the trees (the curve continues from the kept sums, in the same order of additions)."""
    X, y = mixed_frame(kind)
    cls = RandomForestClassifier if kind == "classifier" else RandomForestRegressor
    whole = cls(n_estimators=11, oob_score=True, random_state=5).fit(X, y)
    grown = cls(n_estimators=2, oob_score=True, random_state=5, warm_start=True).fit(X, y)
    first = grown.estimators_[0]
    assert grown.oob_error_curve_.shape == (2,)
    for size in (6, 11):
        grown.set_params(n_estimators=size).fit(X, y)
    assert grown.estimators_[0] is first  # kept, not refitted
    np.testing.assert_array_equal(grown.inbag_counts_, whole.inbag_counts_)
    for a, b in zip(_tree_arrays(grown), _tree_arrays(whole), strict=True):
        for name in a:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    assert grown.oob_score_ == whole.oob_score_
    if kind == "classifier":
        np.testing.assert_array_equal(grown.oob_error_curve_, whole.oob_error_curve_)
        np.testing.assert_array_equal(grown.oob_decision_function_, whole.oob_decision_function_)
    else:  # row chunks of other sizes: the squared residuals summed in another grouping
        np.testing.assert_allclose(grown.oob_error_curve_, whole.oob_error_curve_, rtol=1e-12)
        np.testing.assert_array_equal(grown.oob_prediction_, whole.oob_prediction_)
    np.testing.assert_array_equal(grown.predict(X), whole.predict(X))


@pytest.mark.parametrize("kind", ["classifier", "regressor", "bagging", "numeric"])
def test_the_oob_pass_shared_out_by_rows_is_the_pass_in_one_process(kind, monkeypatch):
    """With worker processes, the OOB pass walks a share of the rows in each (whole
    chunks of the walk, their sums added in the same order): the curve and the OOB
    estimates are those of the pass in one process to the bit, also for a warm start
    that carries the earlier trees' sums (missing values and categories: the general
    walk; numbers only: the lean one)."""
    X, y = mixed_frame("regressor" if kind == "regressor" else "classifier", n=500)
    if kind == "numeric":
        X, y = make_classification(n_samples=500, n_features=6, random_state=0)
    cls = {"classifier": RandomForestClassifier, "regressor": RandomForestRegressor,
           "bagging": BaggingClassifier, "numeric": RandomForestClassifier}[kind]
    monkeypatch.setattr(forest_base, "PAIRS_PER_CHUNK", 12 * 40)  # 40 rows a chunk
    monkeypatch.setattr(bagged, "OOB_PARALLEL_PAIRS", 1)
    shares = []
    run = bagged.run_parallel

    def recorded(function, tasks, *args):  # the rows of each share sent to a worker
        if function is bagged._oob_share:
            shares.extend(len(task[2]) for task in tasks)
        return run(function, tasks, *args)
    monkeypatch.setattr(bagged, "run_parallel", recorded)
    oob = "oob_prediction_" if kind == "regressor" else "oob_decision_function_"
    one = cls(n_estimators=12, oob_score=True, random_state=2).fit(X, y)
    assert not shares
    two = cls(n_estimators=12, oob_score=True, random_state=2, n_jobs=2).fit(X, y)
    assert len(shares) == 2 and sum(shares) == len(y)
    np.testing.assert_array_equal(two.oob_error_curve_, one.oob_error_curve_)
    np.testing.assert_array_equal(getattr(two, oob), getattr(one, oob))
    assert two.oob_score_ == one.oob_score_
    if kind == "bagging":  # (no warm start)
        return
    shares.clear()
    grown = cls(n_estimators=5, oob_score=True, random_state=2, n_jobs=2, warm_start=True).fit(X, y)
    grown.set_params(n_estimators=12).fit(X, y)
    assert len(shares) == 4
    warm = cls(n_estimators=5, oob_score=True, random_state=2, warm_start=True).fit(X, y)
    warm.set_params(n_estimators=12).fit(X, y)
    np.testing.assert_array_equal(grown.oob_error_curve_, warm.oob_error_curve_)
    np.testing.assert_array_equal(getattr(grown, oob), getattr(warm, oob))


@pytest.mark.parametrize("kind", ["classifier", "regressor", "bagging"])
def test_the_first_members_of_a_larger_fit_are_the_smaller_fit(kind):
    """first_members(model, k) is the model a fit of k members gives, to the bit: trees,
    bootstraps, importances, OOB curve and estimates, predictions; the larger model is
    left as it was."""
    X, y = mixed_frame("regressor" if kind == "regressor" else "classifier")
    cls = {"classifier": RandomForestClassifier, "regressor": RandomForestRegressor,
           "bagging": BaggingClassifier}[kind]
    big = cls(n_estimators=9, oob_score=True, random_state=7).fit(X, y)
    before = (big.oob_score_, big.oob_error_curve_.copy(), big.predict(X))
    for k in (1, 4, 9):
        cut, whole = bagged.first_members(big, k, X, y), cls(n_estimators=k, oob_score=True,
                                                              random_state=7).fit(X, y)
        assert cut.n_estimators == k and cut.get_params() == whole.get_params()
        np.testing.assert_array_equal(cut.inbag_counts_, whole.inbag_counts_)
        if kind != "bagging":
            for a, b in zip(_tree_arrays(cut), _tree_arrays(whole), strict=True):
                for name in a:
                    np.testing.assert_array_equal(a[name], b[name], err_msg=name)
            np.testing.assert_array_equal(cut.feature_importances_, whole.feature_importances_)
        np.testing.assert_array_equal(cut.oob_error_curve_, whole.oob_error_curve_)
        assert cut.oob_score_ == whole.oob_score_ or np.isnan(whole.oob_score_)
        oob = "oob_prediction_" if kind == "regressor" else "oob_decision_function_"
        np.testing.assert_array_equal(getattr(cut, oob), getattr(whole, oob))
        np.testing.assert_array_equal(cut.predict(X), whole.predict(X))
    assert big.n_estimators == 9 and big.oob_score_ == before[0]
    np.testing.assert_array_equal(big.oob_error_curve_, before[1])
    np.testing.assert_array_equal(big.predict(X), before[2])


def test_first_members_then_a_warm_start_grows_the_rest():
    X, y = mixed_frame("classifier")
    whole = RandomForestClassifier(n_estimators=8, oob_score=True, random_state=2).fit(X, y)
    cut = bagged.first_members(whole, 3, X, y)
    grown = cut.set_params(warm_start=True, n_estimators=8).fit(X, y)
    assert grown.estimators_[2] is whole.estimators_[2]
    np.testing.assert_array_equal(grown.inbag_counts_, whole.inbag_counts_)
    np.testing.assert_array_equal(grown.oob_error_curve_, whole.oob_error_curve_)
    np.testing.assert_array_equal(grown.predict_proba(X), whole.predict_proba(X))


def test_first_members_needs_a_seeded_fit_and_a_count_it_has():
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    for bad in (0, 4):
        with pytest.raises(ValueError, match="between 1 and the 3 members"):
            bagged.first_members(forest, bad, X, y)
    unseeded = RandomForestClassifier(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="integer random_state"):
        bagged.first_members(unseeded, 2, X, y)


def test_a_warm_start_refuses_fewer_trees_and_keeps_an_equal_count():
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=4, random_state=0, warm_start=True).fit(X, y)
    trees = list(forest.estimators_)
    assert forest.fit(X, y).estimators_ == trees
    with pytest.raises(ValueError, match="fewer than the 4"):
        forest.set_params(n_estimators=3).fit(X, y)
    refit = forest.set_params(warm_start=False, n_estimators=4).fit(X, y)
    assert all(a is not b for a, b in zip(refit.estimators_, trees, strict=True))


def test_inbag_counts_are_a_bootstrap_and_oob_rows_have_count_zero():
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=30, oob_score=True, random_state=0).fit(X, y)
    counts = forest.inbag_counts_
    assert counts.shape == (30, len(y)) and counts.dtype == np.uint8  # one byte a count
    np.testing.assert_array_equal(counts.sum(axis=1), len(y))
    for c, rows in zip(counts, forest.estimators_samples_, strict=True):
        np.testing.assert_array_equal(rows, np.flatnonzero(c))
    # About e^-1 of the rows are out of bag for each tree (binomial sd ≈ 0.04 at n=160).
    assert abs((counts == 0).mean() - math.exp(-1)) < 0.05
    # Each tree was grown on its counts: the root holds exactly the in-bag weight.
    roots = [m.tree_.weighted_n_node_samples[0] for m in forest.estimators_]
    np.testing.assert_array_equal(roots, len(y))


def test_in_bag_counts_widen_only_for_a_count_a_byte_cannot_hold():
    assert forest_base.compact_counts(np.array([0, 3, 255])).dtype == np.uint8
    assert forest_base.compact_counts(np.array([0, 256])).dtype == np.uint16
    np.testing.assert_array_equal(forest_base.compact_counts(np.array([0, 70_000])), [0, 70_000])


def test_a_level_searched_a_group_of_columns_at_a_time_grows_the_same_trees(monkeypatch):
    X, y = make_classification(3000, 12, n_informative=6, n_classes=3, random_state=4)
    X[np.random.default_rng(0).random(X.shape) < 0.03] = np.nan
    whole = RandomForestClassifier(n_estimators=12, min_samples_leaf=2, random_state=0).fit(X, y)
    monkeypatch.setattr(search_drawn, "DRAWN_CHUNK_ENTRIES", 2_000)  # one or two columns a group
    grouped = RandomForestClassifier(n_estimators=12, min_samples_leaf=2, random_state=0).fit(X, y)
    for a, b in zip(_tree_arrays(whole), _tree_arrays(grouped), strict=True):
        for name in a:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_a_stack_of_many_trees_searches_within_a_bounded_working_set(monkeypatch):
    # All 40 trees in one stack: the level's search held every (row, drawn column) entry
    # at once (≈ 140 MiB here) before it went a group of columns at a time.
    monkeypatch.setattr(bagged, "STACK_ENTRIES", 10**9)
    X, y = make_classification(10_000, 20, random_state=0)
    tracemalloc.start()
    try:
        RandomForestClassifier(n_estimators=40, random_state=0).fit(X, y)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (peak - kept) / 2**20 < 80


def test_oob_decision_function_averages_exactly_the_trees_that_missed_the_row():
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=15, oob_score=True, random_state=1).fit(X, y)
    probas = np.stack([m.predict_proba(X) for m in forest.estimators_])
    oob = (forest.inbag_counts_ == 0)[:, :, None]
    n_votes = oob.sum(axis=0)
    defined = n_votes[:, 0] > 0
    expected = (probas * oob).sum(axis=0)[defined] / n_votes[defined]
    np.testing.assert_allclose(forest.oob_decision_function_[defined], expected, rtol=1e-12)
    assert np.isnan(forest.oob_decision_function_[~defined]).all()
    np.testing.assert_allclose(forest.oob_decision_function_[defined].sum(axis=1), 1.0)
    codes = pd.Index(forest.classes_).get_indexer(y)
    accuracy = np.mean(np.argmax(expected, axis=1) == codes[defined])
    assert forest.oob_score_ == pytest.approx(accuracy)


def test_rows_never_out_of_bag_are_nan_without_warnings():
    X, y = numeric_data("classifier", n=40)
    with np.errstate(all="raise"):
        forest = RandomForestClassifier(n_estimators=2, oob_score=True, random_state=0).fit(X, y)
    never = (forest.inbag_counts_ > 0).all(axis=0)
    assert never.any()
    assert np.isnan(forest.oob_decision_function_[never]).all()
    assert not np.isnan(forest.oob_decision_function_[~never]).any()


def test_predict_proba_is_the_mean_of_the_trees_on_categories_and_nan():
    """The stacked all-trees descent agrees with each tree's own predict_proba."""
    X, y = mixed_frame("classifier")
    forest = RandomForestClassifier(n_estimators=10, random_state=2).fit(X, y)
    X_test, _ = mixed_frame("classifier", seed=8)
    X_test.loc[X_test.index[:3], "colour"] = "purple"
    expected = np.mean([m.predict_proba(X_test) for m in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X_test), expected, rtol=1e-12)


@pytest.mark.parametrize("rows_per_chunk", [None, 30])
@pytest.mark.parametrize("with_nan", [False, True])
def test_all_trees_descent_on_numeric_rows(with_nan, rows_per_chunk, monkeypatch, walk):
    """Numeric complete rows take the lean walk, rows with NaN the general step; in
    chunks of at most 30 rows (seven, filled evenly: 29 rows, the last one 26), each
    chunk reuses the first one's arrays and only the first three chunks, which hold
    the NaN, take the general step."""
    X, y = numeric_data("classifier", n=300)
    forest = RandomForestClassifier(n_estimators=7, max_depth=12, random_state=0).fit(X, y)
    if rows_per_chunk:
        monkeypatch.setattr(forest_base, "PAIRS_PER_CHUNK", 7 * rows_per_chunk)
    X_test, _ = numeric_data("classifier", n=200, seed=6)
    if with_nan:
        X_test[:90:7, 1] = np.nan
    expected = np.mean([m.predict_proba(X_test) for m in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X_test), expected, rtol=1e-12)
    stacked = stack_trees([m.tree_ for m in forest.estimators_])
    leaves = forest_apply(stacked, forest.encoder_.transform(X_test))
    own = [m.apply(X_test) + root for m, root in zip(forest.estimators_, stacked.roots, strict=True)]
    np.testing.assert_array_equal(leaves, np.array(own))
    if rows_per_chunk:
        chunks = [(lo, part.shape[1]) for lo, part in forest_leaves(stacked, X_test)]
        assert chunks == [(29 * i, 29) for i in range(6)] + [(174, 26)]


def test_forest_encodes_columns_of_a_frame_into_whole_rows():
    """A frame's numbers come out of to_numpy column by column (Fortran order); the
    encoder hands the walk whole rows (C order) in its one copy, with the same values."""
    X, y = numeric_data("classifier", n=200)
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    X_f = np.asfortranarray(X)
    encoded = forest._encode(X_f)
    assert encoded.flags.c_contiguous and not np.shares_memory(encoded, X_f)
    np.testing.assert_array_equal(encoded, X)
    assert forest.encoder_.transform(X_f).flags.f_contiguous  # other callers: as given
    np.testing.assert_array_equal(forest.predict_proba(X_f), forest.predict_proba(X))


@pytest.mark.parametrize("schedule", [None, [1], [2, 5], [50]])
def test_lean_walk_leaves_do_not_depend_on_the_compaction_schedule(schedule, walk):
    """Compacting after every step, rarely, or never before the deepest leaf: the same
    leaves as each tree's own descent."""
    X, y = numeric_data("classifier", n=400)
    forest = RandomForestClassifier(n_estimators=6, random_state=1).fit(X, y)
    X_test, _ = numeric_data("classifier", n=150, seed=3)
    stacked = stack_trees([m.tree_ for m in forest.estimators_])
    if schedule is not None:
        stacked.compaction_steps = schedule
    leaves = forest_apply(stacked, forest.encoder_.transform(X_test))
    expected = [m.apply(X_test) + root for m, root in zip(forest.estimators_, stacked.roots, strict=True)]
    np.testing.assert_array_equal(leaves, np.array(expected))


def test_walk_codes_are_int32_when_they_fit_and_int64_walks_alike(walk):
    """Codes of a stack past 2**31 stay int64: the same leaves, and a thread's kept
    arrays serve codes of either type from one walk to the next."""
    X, y = numeric_data("classifier", n=300)
    forest = RandomForestClassifier(n_estimators=5, random_state=2).fit(X, y)
    X_test = forest.encoder_.transform(numeric_data("classifier", n=100, seed=5)[0])
    narrow = stack_trees([m.tree_ for m in forest.estimators_])
    wide = stack_trees([m.tree_ for m in forest.estimators_])
    wide._walk = (narrow.walk_code.astype(np.int64),) + wide._walk[1:]
    wide.rank_code = narrow.rank_code.astype(np.int64)
    assert narrow.walk_code.dtype == narrow.rank_code.dtype == np.int32
    expected = [m.apply(X_test) + root for m, root in zip(forest.estimators_, narrow.roots, strict=True)]
    for stacked in (narrow, wide, narrow):
        np.testing.assert_array_equal(forest_apply(stacked, X_test), np.array(expected))


def test_walks_under_way_together_do_not_share_arrays(monkeypatch, walk):
    """A thread keeps its last walk's arrays for the next one; two walks under way at
    once in one thread (and walks in other threads) each get their own."""
    from concurrent.futures import ThreadPoolExecutor

    X, y = numeric_data("classifier", n=300)
    forests = [RandomForestClassifier(n_estimators=8, random_state=s).fit(X, y) for s in (1, 2)]
    stacks = [stack_trees([m.tree_ for m in f.estimators_]) for f in forests]
    X_test = forests[0].encoder_.transform(numeric_data("classifier", n=200, seed=6)[0])
    expected = [forest_apply(s, X_test) for s in stacks]
    monkeypatch.setattr(forest_base, "PAIRS_PER_CHUNK", 8 * 30)
    walked = [np.empty_like(e) for e in expected]
    for chunks in zip(*(forest_leaves(s, X_test) for s in stacks), strict=True):
        for out, (lo, leaves) in zip(walked, chunks, strict=True):
            out[:, lo:lo + leaves.shape[1]] = leaves
    for out, e in zip(walked, expected, strict=True):
        np.testing.assert_array_equal(out, e)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: forest_apply(stacks[i % 2], X_test), range(16)))
    for i, leaves in enumerate(results):
        np.testing.assert_array_equal(leaves, expected[i % 2])


def test_lean_walk_handles_trees_of_one_leaf_and_of_depth_one(walk):
    """The walk's first step reads each tree's root column at once; a root that is a
    leaf, or children that are, finish there."""
    X, y = numeric_data("classifier", n=300)
    trees = [DecisionTreeClassifier(max_depth=1).fit(X, y),
             DecisionTreeClassifier(min_samples_split=len(y) + 1).fit(X, y),  # one leaf
             DecisionTreeClassifier(random_state=0).fit(X, y)]
    assert [t.tree_.node_count for t in trees[:2]] == [3, 1]
    stacked = stack_trees([t.tree_ for t in trees])
    X_test, _ = numeric_data("classifier", n=120, seed=4)
    leaves = forest_apply(stacked, trees[0].encoder_.transform(X_test))
    expected = [t.apply(X_test) + root for t, root in zip(trees, stacked.roots, strict=True)]
    np.testing.assert_array_equal(leaves, np.array(expected))


def test_predict_proba_reads_a_float_array_in_place_and_checks_it_all_the_same():
    """Prediction only reads X: a C-ordered float64 array is walked as it is (no copy),
    left unchanged, and gives what any other form of the same rows gives; an infinite
    value is still refused."""
    X, y = numeric_data("classifier")
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    X = np.ascontiguousarray(X, dtype=np.float64)
    assert forest._encode(X, copy=False) is X and forest._encode(X) is not X
    before = X.copy()
    proba = forest.predict_proba(X)
    np.testing.assert_array_equal(X, before)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    for other in (np.asfortranarray(X), X.tolist(), frame):
        np.testing.assert_array_equal(forest.predict_proba(other), proba)
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        forest.predict_proba(X)


@pytest.mark.parametrize("with_nan", [False, True])
def test_a_large_forest_walks_in_groups_of_trees_to_the_same_leaves(with_nan, monkeypatch, walk):
    """Walk tables over WALK_TABLE_BYTES split the trees into groups of consecutive trees,
    each walked as a stack of its own: every chunk's leaves are still ids in the whole
    stack, the same as each tree's own descent, on the lean path and the general one."""
    X, y = numeric_data("classifier", n=300)
    forest = RandomForestClassifier(n_estimators=9, random_state=3).fit(X, y)
    stacked = stack_trees([m.tree_ for m in forest.estimators_])
    per_node = stacked.walk_code.itemsize + 8 + 1
    monkeypatch.setattr(forest_base, "WALK_TABLE_BYTES", stacked.tree.node_count * per_node // 3)
    monkeypatch.setattr(forest_base, "PAIRS_PER_CHUNK", 4 * 50)  # trees of a group x 50 rows
    groups = stacked.walk_groups
    assert len(groups) == 4  # a third of the tables each, rounded up: 4 groups
    assert [first for _, first, _ in groups] == sorted({first for _, first, _ in groups})
    assert sum(group.n_trees for group, _, _ in groups) == 9
    for group, first, first_node in groups:
        assert first_node == stacked.roots[first]
        np.testing.assert_array_equal(group.roots + first_node,
                                      stacked.roots[first:first + group.n_trees])
    X_test, _ = numeric_data("classifier", n=160, seed=8)
    if with_nan:
        X_test[::9, 2] = np.nan
    X_enc = forest.encoder_.transform(X_test)
    expected = np.array([m.apply(X_test) + root
                         for m, root in zip(forest.estimators_, stacked.roots, strict=True)])
    np.testing.assert_array_equal(forest_apply(stacked, X_enc), expected)
    widest = max(group.n_trees for group, _, _ in groups)
    chunk = 4 * 50 // widest
    seen = [(lo, part.shape) for lo, part in forest_leaves(stacked, X_enc)]
    assert all(shape[0] == 9 and shape[1] <= chunk for _, shape in seen)
    assert sum(shape[1] for _, shape in seen) == 160


def test_ranks_order_values_as_the_thresholds_do():
    """A value's rank is above a threshold's exactly where the value is above the
    threshold: values equal to a threshold, -0.0 against 0.0, a column mostly of one
    value (searched as it is) and a spread one (searched in value order), a column no
    split reads (rank 1) and one more column than the stack knows."""
    rng = np.random.default_rng(0)
    thresholds = [np.array([-1.5, -0.0, 0.25, 0.25, 3.0]), np.array([]), rng.normal(size=40),
                  np.array([0.5])]
    edges = forest_base.RankEdges(*_edges_of(thresholds))
    X = np.column_stack([
        np.concatenate([[-1.5, -0.0, 0.0, 0.25, 3.0, 3.5, -9.0], rng.choice([0.0, 0.25, 4.0], 293)]),
        rng.normal(size=300),
        np.concatenate([thresholds[2], rng.normal(size=260)]),
        np.where(rng.random(300) < 0.9, 0.0, rng.normal(size=300)),
        rng.normal(size=300),
    ])
    ranks = edges.ranks(X).reshape(X.shape) >> edges.feature_bits
    assert (ranks[:, 1] == 1).all() and (ranks[:, 4] == 1).all()
    for f, t in enumerate(thresholds):
        if len(t):
            t_rank = np.searchsorted(np.unique(t), t) + 1  # as rank_of gives them
            np.testing.assert_array_equal(ranks[:, [f]] > t_rank, X[:, [f]] > t)


def _edges_of(thresholds):
    values = [np.unique(t) for t in thresholds]
    return np.concatenate(values), np.cumsum([0] + [len(v) for v in values])


def test_ranks_pay_for_many_steps_a_row_on_numeric_splits_only():
    """A few trees compare values; many rows of a forest whose rows take many steps for
    each column it ranks walk by ranks, and once its thresholds are ranked, fewer rows
    do; categorical splits never do."""
    X, y = numeric_data("classifier", n=300)
    few = stack_trees([m.tree_ for m in RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y).estimators_])
    many = stack_trees([m.tree_ for m in RandomForestClassifier(n_estimators=80, random_state=0).fit(X, y).estimators_])
    assert many.steps_per_row == pytest.approx(40 * few.steps_per_row, rel=0.5)
    assert many.n_columns_read == X.shape[1]
    assert not few.ranks_pay(10_000) and many.ranks_pay(10_000)
    rows = next(n for n in range(1, 10_000) if many.ranks_pay(n))  # the least that pay
    assert not many.ranks_pay(rows - 1)
    many.rank_code  # noqa: B018 (the thresholds ranked)
    assert many.ranks_pay(rows - 1)
    frame, target = mixed_frame("classifier")
    mixed = RandomForestClassifier(n_estimators=80, random_state=0).fit(frame, target)
    assert not stack_trees([m.tree_ for m in mixed.estimators_]).ranks_pay(10_000)


def test_compaction_schedule_follows_where_the_training_rows_finish():
    """f(d), the share of training rows still walking after d steps, sets the schedule:
    compact once the steps wasted on finished rows since the last compaction,
    sum of f(last) - f(d), reach cost * f(d)."""
    X = np.arange(8.0)[:, None]
    balanced = DecisionTreeRegressor().fit(X, 10.0 * (np.arange(8) // 2)).tree_
    assert set(balanced.depth[balanced.children_left < 0].tolist()) == {2}  # all end at 2
    assert compaction_schedule(balanced) == [2]
    # half the rows end at depth 1 (all equal), half at depth 3: f = 1, .5, .5, 0
    uneven = DecisionTreeRegressor().fit(X, [0.0, 0, 0, 0, 100, 101, 102, 103]).tree_
    assert sorted(uneven.depth[uneven.children_left < 0].tolist()) == [1, 3, 3, 3, 3]
    # cost 2: at d=1 the waste .5 < 2 * .5; at d=2 it is 1 >= 2 * .5; at d=3, .5 >= 0
    assert compaction_schedule(uneven, cost=2.0) == [2, 1]
    # cheaper compactions come sooner: at d=1 the waste .5 >= .5 * .5
    assert compaction_schedule(uneven, cost=0.5) == [1, 2]
    assert compaction_schedule(uneven, cost=0.0) == [1, 1, 1]


def test_regressor_predicts_the_mean_of_its_trees():
    X, y = mixed_frame("regressor")
    forest = RandomForestRegressor(n_estimators=10, oob_score=True, random_state=2).fit(X, y)
    expected = np.mean([m.predict(X) for m in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict(X), expected, rtol=1e-12)
    defined = ~np.isnan(forest.oob_prediction_)
    assert defined.mean() > 0.95


def test_feature_importances_are_the_normalised_mean_of_the_trees():
    X, y = numeric_data("classifier")
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    mean = np.mean([m.feature_importances_ for m in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.feature_importances_, mean / mean.sum())
    assert np.argmax(forest.feature_importances_) == 0  # the strongest signal


@pytest.mark.parametrize("n_features, m_classifier, m_regressor",
                         [(57, 7, 19), (10, 3, 3), (9, 3, 3), (4, 2, 1), (2, 1, 1)])
def test_max_features_defaults_are_breimans(n_features, m_classifier, m_regressor):
    """⌊√p⌋ for classification and ⌊p/3⌋ for regression (REFERENCE.md, Breiman 2001)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, n_features))
    forest = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, X[:, 0] > 0)
    reg = RandomForestRegressor(n_estimators=2, random_state=0).fit(X, X[:, 0])
    assert forest.max_features_ == m_classifier == math.isqrt(n_features)
    assert reg.max_features_ == m_regressor == max(1, n_features // 3)
    assert {m.max_features for m in forest.estimators_} == {m_classifier}
    assert {m.max_features for m in reg.estimators_} == {m_regressor}


def test_invalid_settings_are_refused():
    X, y = numeric_data("classifier", n=30)
    with pytest.raises(ValueError, match="bootstrap"):
        RandomForestClassifier(bootstrap=False, oob_score=True).fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        BaggingClassifier(n_estimators=0).fit(X, y)
    with pytest.raises(ValueError, match="max_samples"):
        BaggingClassifier(max_samples=1.5).fit(X, y)


def test_max_samples_and_no_bootstrap():
    X, y = numeric_data("classifier", n=100)
    half = BaggingClassifier(n_estimators=4, max_samples=0.5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(half.inbag_counts_.sum(axis=1), 50)
    distinct = BaggingClassifier(n_estimators=4, max_samples=30, bootstrap=False, random_state=0)
    counts = distinct.fit(X, y).inbag_counts_
    assert counts.max() == 1 and (counts.sum(axis=1) == 30).all()


def test_bagging_any_classifier_with_sample_weight():
    """A non-tree member takes the generic path: fit with counts, average predict_proba."""
    X, y = numeric_data("classifier")
    bag = BaggingClassifier(estimator=GaussianNB(), n_estimators=5, oob_score=True,
                            random_state=0).fit(X, y)
    expected = np.mean([m.predict_proba(X) for m in bag.estimators_], axis=0)
    np.testing.assert_allclose(bag.predict_proba(X), expected)
    assert bag.oob_score_ > 0.6
    np.testing.assert_array_equal(bag.feature_importances_, np.zeros(4))


def test_tree_fit_encoded_hook_equals_fit():
    """The private hook forests use grows the same tree as fit, and keeps every class
    even when the weights leave one out (a bootstrap can miss a rare class)."""
    X, y = mixed_frame("classifier")
    encoder = FeatureEncoder().fit(X)
    classes, codes = encode_labels(y)
    weight = np.random.default_rng(0).integers(0, 3, size=len(y)).astype(float)
    weight[codes == 0] = 0.0
    hooked = DecisionTreeClassifier(random_state=0)._fit_encoded(
        encoder.transform(X), codes, weight, encoder, classes)
    plain = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=weight)
    assert hooked.classes_.tolist() == ["no", "yes"] and hooked.encoder_ is encoder
    for f in dataclasses.fields(plain.tree_):
        np.testing.assert_array_equal(getattr(hooked.tree_, f.name), getattr(plain.tree_, f.name))
    np.testing.assert_array_equal(hooked.predict_proba(X), plain.predict_proba(X))


@pytest.mark.parametrize("bootstrap", [True, False])
@pytest.mark.parametrize("max_features", [2, None])
@pytest.mark.parametrize("kind", ["numeric with gaps", "mixed frame", "regression"])
def test_forest_trees_are_the_standalone_trees_of_their_bootstrap(kind, max_features, bootstrap):
    """A forest sorts its columns once and hands each tree its in-bag rows; drawing
    trees read the data in place and sort only the (node, feature) pairs they drew,
    trees of every feature (bagging) carry presorted orders of their stacked rows. Each
    tree must still be exactly the tree a standalone fit grows with the same seed and the
    in-bag counts as weights. Without bootstrap every in-bag row weighs 1, which
    the histogram counts by class alone (``_search_histogram._coded_classes``)."""
    if kind == "mixed frame":
        X, y = mixed_frame("classifier")
    else:
        X, y = numeric_data("regressor" if kind == "regression" else "classifier", 400, seed=4)
        X[:, :2] = np.round(X[:, :2], 1)  # few values: counted by histogram, not sorted
        X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    regression = kind == "regression"
    forest_class, tree_class = ((RandomForestRegressor, DecisionTreeRegressor) if regression
                                else (RandomForestClassifier, DecisionTreeClassifier))
    forest = forest_class(n_estimators=5, max_features=max_features, min_samples_leaf=2,
                          bootstrap=bootstrap, max_samples=None if bootstrap else 0.7,
                          random_state=7).fit(X, y)
    for member, counts in zip(forest.estimators_, forest.inbag_counts_, strict=True):
        alone = tree_class(max_features=max_features, min_samples_leaf=2,
                           random_state=member.random_state)
        alone.fit(X, y, sample_weight=counts.astype(float))
        for f in dataclasses.fields(alone.tree_):
            np.testing.assert_array_equal(getattr(member.tree_, f.name), getattr(alone.tree_, f.name))


# --------------------------------------------------------------------------- categorical data


def test_playtennis_frame_with_categories():
    frame = load_sample("playtennis").drop(columns=["Day"])
    X, y = frame.drop(columns=["PlayTennis"]), frame["PlayTennis"]
    forest = RandomForestClassifier(n_estimators=50, oob_score=True, random_state=0).fit(X, y)
    assert forest.classes_.tolist() == ["No", "Yes"]
    assert forest.score(X, y) >= 12 / 14  # the 14 rows are almost separable
    assert forest.oob_decision_function_.shape == (14, 2)


def test_mushroom_subset_with_missing_values():
    frame = load_sample("mushroom").sample(1500, random_state=0)
    X, y = frame.drop(columns=["edibility"]), frame["edibility"]
    X = X.mask(np.random.default_rng(0).random(X.shape) < 0.1)  # 10% NaN everywhere
    X_train, X_test, y_train, y_test = X[:1000], X[1000:], y[:1000], y[1000:]
    forest = RandomForestClassifier(n_estimators=30, oob_score=True, random_state=0)
    forest.fit(X_train, y_train)
    # Odor alone separates 98.5% of mushrooms; with 10% of it missing other columns help.
    assert forest.score(X_test, y_test) > 0.97
    assert forest.oob_score_ > 0.97
    expected = np.mean([m.predict_proba(X_test) for m in forest.estimators_], axis=0)
    np.testing.assert_allclose(forest.predict_proba(X_test), expected, rtol=1e-12)


# --------------------------------------------------------------------------- against scikit-learn


def test_regressor_on_friedman1_against_scikit_learn():
    """Test R² and OOB R² within 0.04 of scikit-learn's with the same m = ⌊p/3⌋.

    Both forests are random; over seeds each one's holdout R² on 167 rows moves by
    about ±0.01–0.02 (measured), so 0.04 is about two spreads of independent forests.
    """
    frame = load_sample("friedman1")
    X, y = frame.drop(columns=["y"]).to_numpy(dtype=float), frame["y"].to_numpy()
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[: 2 * len(y) // 3], order[2 * len(y) // 3:]
    ours = RandomForestRegressor(n_estimators=100, oob_score=True, random_state=0, n_jobs=2)
    ours.fit(X[train], y[train])
    theirs = SkForestRegressor(n_estimators=100, max_features=1 / 3, oob_score=True,
                               random_state=0).fit(X[train], y[train])
    assert ours.score(X[test], y[test]) == pytest.approx(theirs.score(X[test], y[test]), abs=0.04)
    assert ours.oob_score_ == pytest.approx(theirs.oob_score_, abs=0.04)
    assert ours.score(X[test], y[test]) > 0.65


@pytest.fixture(scope="module")
def spam_forests():
    X, y, X_test, y_test = _spambase_split()
    ours = RandomForestClassifier(n_estimators=100, oob_score=True, random_state=0, n_jobs=2)
    theirs = SkForest(n_estimators=100, oob_score=True, random_state=0, n_jobs=2)
    return ours.fit(X, y), theirs.fit(X, y), X_test, y_test


@pytest.mark.slow
def test_spambase_oob_error_close_to_scikit_learn(spam_forests):
    """OOB error within 1.5 points of scikit-learn's on the same 3065 training rows.

    Why 1.5 points: an OOB error near 5% on 3065 rows has a binomial standard error
    of √(0.05·0.95/3065) ≈ 0.4 points, and two independently seeded forests (different
    bootstraps and feature draws) differ by about √2 of that; 1.5 points is about
    2.7 such standard deviations, while a real flaw (no feature sampling, wrong
    averaging, OOB rows mixed up) moves the error by more.
    """
    ours, theirs, _, _ = spam_forests
    assert abs((1 - ours.oob_score_) - (1 - theirs.oob_score_)) <= 0.015


@pytest.mark.slow
def test_spambase_random_forest_test_error(spam_forests):
    """ESL reports 4.88% for a random forest; scikit-learn gets ≈ 4.8–5.2% (REFERENCE.md)."""
    ours, _, X_test, y_test = spam_forests
    assert 1 - ours.score(X_test, y_test) <= 0.055


SPLIT_SEEDS = range(5)


def _spambase_splits():
    """Five random 3065/1536 splits of spambase (ESL's sizes), seeds 0–4."""
    frame = load_sample("spambase")
    X, y = frame.drop(columns=["spam"]).to_numpy(dtype=float), frame["spam"].to_numpy()
    for seed in SPLIT_SEEDS:
        order = np.random.default_rng(seed).permutation(len(y))
        train, test = order[:3065], order[3065:]
        yield seed, X[train], y[train], X[test], y[test]


@pytest.mark.slow
def test_spambase_bagging_test_error():
    """Bagged information-gain trees: ≤ 6% test error averaged over five random splits,
    and within half a point of scikit-learn's BaggingClassifier on the same splits.

    ESL reports 5.4% for bagging on its fixed split. One random 3065/1536 split is too
    noisy to hold a bound against: its 1536 test rows give a binomial sd of ≈ 0.6 points,
    and scikit-learn's own bagging ranged 5.3–6.3% over these five splits. The mean of
    five has sd ≈ 0.27 points. Trees split by entropy, the seeds' information gain;
    scikit-learn's default Gini trees bag to about 0.6 points worse on spam. Measured
    (2026-11-23, 100 trees): ours 6.12 / 5.34 / 6.64 / 5.53 / 6.18%, mean 5.96%;
    scikit-learn 6.05 / 5.34 / 6.32 / 5.47 / 5.99%, mean 5.83%.
    """
    ours, theirs = [], []
    for seed, X, y, X_test, y_test in _spambase_splits():
        tree = DecisionTreeClassifier(criterion="entropy")
        bag = BaggingClassifier(estimator=tree, n_estimators=100, random_state=seed, n_jobs=2)
        ours.append(1 - bag.fit(X, y).score(X_test, y_test))
        sk_bag = SkBagging(SkTree(criterion="entropy"), n_estimators=100, random_state=seed,
                           n_jobs=2)
        theirs.append(1 - sk_bag.fit(X, y).score(X_test, y_test))
    assert np.mean(ours) <= 0.06, ours
    assert abs(np.mean(ours) - np.mean(theirs)) <= 0.005, (ours, theirs)


@pytest.mark.parametrize("gaps", [False, True])
def test_a_forest_makes_its_sparse_bits_once_for_all_its_stacks(gaps, monkeypatch):
    """The rows' bits and class-sorted ranks of a forest's sparse search depend on the
    data and the rows' classes alone: a forest grown in several stacks makes them once,
    and each tree is still the tree a standalone fit (which makes its own) grows."""
    import engine.tree._search_exact as exact

    rng = np.random.default_rng(3)
    X = np.where(rng.random((300, 8)) < 0.2, rng.integers(1, 9, (300, 8)) / 2, 0.0)
    if gaps:
        X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.normal(0, 1, 300) > 1).astype(int)
    y[rng.random(300) < 0.1] = 2
    made = []
    make = exact._make_bits
    monkeypatch.setattr(exact, "_make_bits", lambda *args: made.append(1) or make(*args))
    monkeypatch.setattr(bagged, "MAX_STACK", 2)
    forest = RandomForestClassifier(n_estimators=6, max_features=3, random_state=0).fit(X, y)
    assert len(made) == 1  # three stacks, one making
    for member, counts in zip(forest.estimators_, forest.inbag_counts_, strict=True):
        alone = DecisionTreeClassifier(max_features=3, random_state=member.random_state)
        alone.fit(X, y, sample_weight=counts.astype(float))
        for f in dataclasses.fields(alone.tree_):
            np.testing.assert_array_equal(getattr(member.tree_, f.name), getattr(alone.tree_, f.name))
    assert len(made) == 7  # and each tree alone made its own
