"""Property tests: any small frame of numbers, categories and missing values fits, predicts
valid probabilities, and leaves a ``tree_`` whose arrays obey the TREE_SPEC invariants (also
after ``Tree.collapse``); binary category splits are the best of all subsets where theory
says they must be."""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402
from engine.tree._criteria import CLASSIFICATION_CRITERIA  # noqa: E402

SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

NUMBERS = st.one_of(st.sampled_from([-1.5, 0.0, 0.25, 2.0, 7.0]),
                    st.floats(-100, 100, allow_nan=False, allow_infinity=False))
CATEGORIES = ["a", "b", "c", "d"]


pytestmark = pytest.mark.usefixtures("raise_on_float_errors")


@st.composite
def frames(draw, *, allow_missing: bool = True, max_rows: int = 40):
    """(X, y): 0-2 float columns (NaN allowed), 0-2 string columns (None allowed),
    at least one column, and a label with 2-4 classes, every class present."""
    n_classes = draw(st.integers(2, 4))
    n = draw(st.integers(n_classes, max_rows))
    n_num, n_cat = draw(st.tuples(st.integers(0, 2), st.integers(0, 2)).filter(lambda t: sum(t) > 0))
    columns = {}
    num = st.one_of(NUMBERS, st.just(np.nan)) if allow_missing else NUMBERS
    cat = st.sampled_from(CATEGORIES + ([None] if allow_missing else []))
    for j in range(n_num):
        columns[f"num{j}"] = pd.Series(draw(st.lists(num, min_size=n, max_size=n)), dtype=float)
    for j in range(n_cat):
        columns[f"cat{j}"] = pd.Series(draw(st.lists(cat, min_size=n, max_size=n)), dtype=object)
    labels = list(range(n_classes)) + draw(
        st.lists(st.integers(0, n_classes - 1), min_size=n - n_classes, max_size=n - n_classes)
    )
    y = pd.Series([f"class{k}" for k in labels], name="label")
    return pd.DataFrame(columns), y


TREE_PARAMS = st.fixed_dictionaries({
    "criterion": st.sampled_from(["gini", "entropy", "misclassification", "gain_ratio"]),
    "categorical_split": st.sampled_from(["binary", "multiway"]),
    "max_depth": st.sampled_from([None, 1, 3]),
    "min_samples_leaf": st.sampled_from([1, 2]),
})


# --------------------------------------------------------------------------- invariants


def check_tree_invariants(model) -> None:
    """The structural promises of TREE_SPEC.md on a fitted ``tree_``."""
    t = model.tree_
    n = t.node_count
    assert t.parent[0] == -1 and t.depth[0] == 0
    leaf = t.children_left == -1
    assert (t.children_right[leaf] == -1).all()
    assert (t.feature[leaf] == -2).all() and (t.split_kind[leaf] == 0).all()
    assert np.isnan(t.threshold[leaf]).all()
    seen_as_child = np.zeros(n, dtype=int)
    for node in np.flatnonzero(~leaf):
        _check_split(model, node)
        seen_as_child[t.children_left[node]:t.children_right[node] + 1] += 1
    assert seen_as_child[0] == 0 and (seen_as_child[1:] == 1).all(), "each node has one parent"
    assert (t.impurity >= -1e-12).all()


def _check_split(model, node: int) -> None:
    t = model.tree_
    children = np.arange(t.children_left[node], t.children_right[node] + 1)
    assert len(children) >= 2
    assert (t.parent[children] == node).all()
    assert (t.depth[children] == t.depth[node] + 1).all()
    assert t.missing_child[node] in children
    np.testing.assert_allclose(t.weighted_n_node_samples[children].sum(),
                               t.weighted_n_node_samples[node], rtol=1e-12)
    assert t.n_node_samples[children].sum() == t.n_node_samples[node]
    kind = t.split_kind[node]
    if kind == 1:
        assert len(children) == 2 and not np.isnan(t.threshold[node])
        assert not model.is_categorical_[t.feature[node]]
        if np.isinf(t.threshold[node]):  # "value present / value missing": missing go right
            assert t.threshold[node] > 0 and t.missing_child[node] == children[1]
        return
    assert model.is_categorical_[t.feature[node]] and np.isnan(t.threshold[node])
    assert t.unseen_child[node] in children
    k = len(model.categories_[t.feature[node]])
    by_code = t.children_by_code(node)
    assert len(by_code) == k  # a run holds every category of the column, no more
    assert set(by_code.tolist()) <= set(children.tolist())
    if kind == 3:
        assert by_code.tolist() == children.tolist()
    else:
        assert kind == 2 and len(children) == 2


def check_classifier_values(model, X, y, sample_weight=None) -> None:
    """value rows are the weighted class counts of the training rows at each node."""
    t = model.tree_
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    occupied = t.n_node_samples > 0
    np.testing.assert_allclose(t.value[occupied].sum(axis=1),
                               t.weighted_n_node_samples[occupied], rtol=1e-12)
    empty = np.flatnonzero(~occupied)  # empty ID3 branches answer like their parent
    parent_share = t.value[t.parent[empty]] / t.value[t.parent[empty]].sum(axis=1, keepdims=True)
    share = t.value[empty] / t.value[empty].sum(axis=1, keepdims=True)
    np.testing.assert_allclose(share, parent_share, rtol=1e-12)
    # Prediction routes every training row to the node that counted it in training.
    path = model.decision_path(X)
    assert path[w > 0].sum(axis=0).tolist() == t.n_node_samples.tolist()
    codes = pd.Index(model.classes_).get_indexer(y)
    counts = path.T.astype(float) @ (w[:, None] * np.eye(len(model.classes_))[codes])
    np.testing.assert_allclose(counts[occupied], t.value[occupied], atol=1e-9)
    assert (counts[~occupied] == 0).all()
    impurity = CLASSIFICATION_CRITERIA[model.criterion](t.value[occupied])
    np.testing.assert_allclose(t.impurity[occupied], impurity, rtol=1e-9, atol=1e-12)


def check_proba(model, X) -> None:
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), len(model.classes_))
    assert np.isfinite(proba).all() and (proba >= 0).all() and (proba <= 1).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert set(model.predict(X)) <= set(model.classes_)


# --------------------------------------------------------------------------- properties


@SETTINGS
@given(data=frames(), params=TREE_PARAMS)
def test_any_frame_fits_and_predicts_probabilities(data, params):
    X, y = data
    model = DecisionTreeClassifier(**params).fit(X, y)
    check_proba(model, X)
    leaves = model.apply(X)
    assert (model.tree_.children_left[leaves] == -1).all()
    check_tree_invariants(model)
    check_classifier_values(model, X, y)


@SETTINGS
@given(data=frames(), params=TREE_PARAMS, seed=st.integers(0, 2**16))
def test_weighted_frames(data, params, seed):
    """Bootstrap-like integer weights (0 drops a row): value holds weighted counts,
    n_node_samples counts the rows of positive weight."""
    X, y = data
    w = np.random.default_rng(seed).integers(0, 4, size=len(y)).astype(float)
    w[0] = max(w[0], 1.0)  # at least one row in the sample
    model = DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    check_proba(model, X)
    check_tree_invariants(model)
    check_classifier_values(model, X, y, w)


@SETTINGS
@given(data=frames(), params=TREE_PARAMS, seed=st.integers(0, 2**16))
def test_new_rows_with_missing_and_unseen_values(data, params, seed):
    """Rows the tree has never seen (NaN anywhere, unseen categories) still get valid output."""
    X, y = data
    model = DecisionTreeClassifier(**params).fit(X, y)
    new = X.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    for name in new.columns:
        hole = rng.random(len(new)) < 0.3
        new.loc[hole, name] = "zzz" if new[name].dtype == object else np.nan
    check_proba(model, new)


XOR = (pd.DataFrame({"num0": [0.0, 0.0, 1.0, 1.0], "num1": [0.0, 1.0, 0.0, 1.0]}),
       pd.Series(["class0", "class1", "class1", "class0"], name="label"))


@SETTINGS
@given(data=frames(allow_missing=False), criterion=st.sampled_from(["gini", "entropy", "gain_ratio"]),
       categorical_split=st.sampled_from(["binary", "multiway"]))
def test_full_tree_fits_distinct_rows_perfectly(data, criterion, categorical_split):
    """Rows with distinct features can always be separated, so a full tree is 100% right
    on its training rows."""
    X, y = data
    distinct = ~X.duplicated(keep=False)
    X, y = X[distinct].reset_index(drop=True), y[distinct].reset_index(drop=True)
    if len(X) == 0:
        return
    model = DecisionTreeClassifier(criterion=criterion, categorical_split=categorical_split)
    model.fit(X, y)
    assert model.score(X, y) == 1.0
    check_tree_invariants(model)


@SETTINGS
@given(data=frames(allow_missing=True), criterion=st.sampled_from(["gini", "entropy"]))
def test_full_tree_fits_distinct_rows_with_missing_values(data, criterion):
    """Missing is a value the tree can split on ("present / missing", threshold +inf for
    numbers), so rows that differ only in where a value is missing are separable too.

    Binary categorical splits only: ID3's multiway split has no branch for missing values
    and uses its attribute up, so there two rows differing only by a missing category can
    end in the same leaf by design.
    """
    X, y = data
    distinct = ~X.astype(object).where(X.notna(), "<missing>").duplicated(keep=False)
    X, y = X[distinct].reset_index(drop=True), y[distinct].reset_index(drop=True)
    if len(X) == 0:
        return
    model = DecisionTreeClassifier(criterion=criterion).fit(X, y)
    assert model.score(X, y) == 1.0


@pytest.mark.parametrize("column", [[1.0, np.nan], ["a", None]], ids=["numeric", "categorical"])
def test_missing_values_can_be_split_off(column):
    """The smallest case of the property above: one value present, one missing."""
    X = pd.DataFrame({"x": pd.Series(column, dtype=object if isinstance(column[0], str) else float)})
    model = DecisionTreeClassifier().fit(X, ["p", "q"])
    assert model.score(X, ["p", "q"]) == 1.0


@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain_ratio"])
def test_full_tree_fits_xor(criterion):
    """XOR: distinct rows whose first split gains nothing; only the second separates them.

    The same promise as above on the one case random frames rarely draw: a full tree must
    make the zero-gain split to reach 100% (scikit-learn does).
    """
    X, y = XOR
    model = DecisionTreeClassifier(criterion=criterion).fit(X, y)
    assert model.score(X, y) == 1.0


@SETTINGS
@given(data=frames(), max_depth=st.sampled_from([None, 2]))
def test_regression_tree_leaf_values_are_means(data, max_depth):
    X, labels = data
    y = pd.Series(labels.str[-1].astype(float) * 1.5 + np.arange(len(labels)) % 3)
    model = DecisionTreeRegressor(max_depth=max_depth).fit(X, y)
    check_tree_invariants(model)
    t = model.tree_
    leaves = model.apply(X)
    sums = np.bincount(leaves, weights=y, minlength=t.node_count)
    counts = np.bincount(leaves, minlength=t.node_count)
    hit = counts > 0
    np.testing.assert_allclose(t.value[hit, 0], sums[hit] / counts[hit], rtol=1e-9, atol=1e-12)
    assert np.isfinite(model.predict(X)).all()


# --------------------------------------------------------------------------- optimal category subsets


def _best_subset_gain(codes: np.ndarray, impurity) -> float:
    """Brute force over every way to send a set of categories left (2^(k-1) - 1 of them)."""
    present = np.unique(codes)
    parent = impurity(np.ones(len(codes), dtype=bool))
    best = -np.inf
    for mask in range(1, 2 ** (len(present) - 1)):
        left_set = present[[(mask >> i) & 1 == 1 for i in range(len(present))]]
        left = np.isin(codes, left_set)
        share = left.mean()
        best = max(best, parent - share * impurity(left) - (1 - share) * impurity(~left))
    return best


def _root_gain(model) -> float:
    t = model.tree_
    children = np.arange(t.children_left[0], t.children_right[0] + 1)
    weighted = t.weighted_n_node_samples[children] * t.impurity[children]
    return t.impurity[0] - weighted.sum() / t.weighted_n_node_samples[0]


CATEGORY_COLUMN = st.lists(st.sampled_from(list("abcdef")), min_size=4, max_size=60)


@SETTINGS
@given(column=CATEGORY_COLUMN, seed=st.integers(0, 2**16),
       criterion=st.sampled_from(["gini", "entropy"]))
def test_binary_category_split_is_the_best_subset_for_two_classes(column, seed, criterion):
    """Ordering categories by their share of class 1 and taking the best prefix finds the
    best of all 2^(k-1) - 1 subsets (Breiman et al. 1984)."""
    X = pd.DataFrame({"c": pd.Series(column, dtype=object)})
    y = np.random.default_rng(seed).integers(0, 2, size=len(column))
    if len(set(column)) < 2 or len(set(y)) < 2:
        return
    model = DecisionTreeClassifier(criterion=criterion, max_depth=1).fit(X, y)
    codes = model.encoder_.transform(X)[:, 0]
    counts = CLASSIFICATION_CRITERIA[criterion]

    def impurity(rows):
        return counts(np.bincount(y[rows], minlength=2).astype(float))

    expected = _best_subset_gain(codes, impurity)
    assert model.tree_.split_kind[0] == 2
    assert _root_gain(model) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@SETTINGS
@given(column=CATEGORY_COLUMN, seed=st.integers(0, 2**16))
def test_binary_category_split_is_the_best_subset_for_squared_error(column, seed):
    """Ordering categories by mean target finds the best subset for squared error."""
    X = pd.DataFrame({"c": pd.Series(column, dtype=object)})
    y = np.random.default_rng(seed).normal(size=len(column))
    if len(set(column)) < 2:
        return
    model = DecisionTreeRegressor(max_depth=1).fit(X, y)
    codes = model.encoder_.transform(X)[:, 0]

    def impurity(rows):
        return y[rows].var()

    expected = _best_subset_gain(codes, impurity)
    assert _root_gain(model) == pytest.approx(expected, rel=1e-9, abs=1e-12)


# --------------------------------------------------------------------------- collapsing subtrees


@SETTINGS
@given(data=frames(), params=TREE_PARAMS, seed=st.integers(0, 2**16))
def test_collapse_keeps_the_invariants_and_routes_rows_to_the_cut(data, params, seed):
    """Tree.collapse(nodes): the nodes become leaves, their subtrees vanish, and each row
    now stops at the first collapsed node (or original leaf) on its old path."""
    X, y = data
    model = DecisionTreeClassifier(**params).fit(X, y)
    t = model.tree_
    internal = np.flatnonzero(t.children_left != -1)
    rng = np.random.default_rng(seed)
    cut = internal[rng.random(len(internal)) < 0.4]
    pruned = copy.copy(model)
    pruned.tree_ = t.collapse(cut)
    check_tree_invariants(pruned)
    assert pruned.tree_.node_count <= t.node_count
    stop = np.zeros(t.node_count, dtype=bool)
    stop[cut] = True
    stop[t.children_left == -1] = True
    path = model.decision_path(X)
    # First stopping node on each path: the stopping node of least depth.
    depth_on_path = np.where(path & stop, t.depth, t.node_count)  # deeper than any node
    old_stop = np.argmin(depth_on_path, axis=1)
    np.testing.assert_array_equal(pruned.tree_.value[pruned.apply(X)], t.value[old_stop])
    np.testing.assert_array_equal(pruned.tree_.depth[pruned.apply(X)], t.depth[old_stop])


@pytest.mark.parametrize("kind, params", [
    ("classifier", {}),
    ("classifier", {"max_features": 2, "random_state": 3, "criterion": "entropy"}),
    ("regressor", {"min_samples_leaf": 3}),
    ("mixed", {"categorical_split": "multiway"}),
    ("mixed", {"binning": "quantile", "max_bins": 8}),
])
def test_a_tree_cut_to_a_depth_is_the_tree_grown_to_it(kind, params):
    """Every array of the cut tree, and the importances, equal those of fitting with
    max_depth set: growth above a depth never looks below it."""
    import dataclasses

    from engine.tree import cut_to_depth
    from tests.engine.test_estimator_checks import mixed_frame, numeric_data

    if kind == "mixed":
        X, y = mixed_frame("classifier")
    else:
        X, y = numeric_data(kind, 300, seed=11)
        X[np.random.default_rng(2).random(X.shape) < 0.05] = np.nan
    cls = DecisionTreeRegressor if kind == "regressor" else DecisionTreeClassifier
    full = cls(**params).fit(X, y)
    assert full.get_depth() > 4
    for depth in (1, 2, 4):
        cut, grown = cut_to_depth(full, depth), cls(max_depth=depth, **params).fit(X, y)
        assert cut.get_params() == grown.get_params()
        for field in dataclasses.fields(grown.tree_):
            np.testing.assert_array_equal(getattr(cut.tree_, field.name),
                                          getattr(grown.tree_, field.name), err_msg=field.name)
        np.testing.assert_array_equal(cut.feature_importances_, grown.feature_importances_)
        np.testing.assert_array_equal(cut.predict(X), grown.predict(X))
    assert full.get_depth() > 4  # the model cut is left as it was


def test_only_trees_grown_without_leaf_limits_or_pruning_are_cut():
    from engine.tree import cut_to_depth
    from tests.engine.test_estimator_checks import numeric_data

    X, y = numeric_data("classifier", 200, seed=1)
    for params in ({"max_leaf_nodes": 8}, {"ccp_alpha": 0.01}, {"chi2_alpha": 0.05}):
        with pytest.raises(ValueError, match="cut to a depth"):
            cut_to_depth(DecisionTreeClassifier(**params).fit(X, y), 2)
    with pytest.raises(ValueError, match="between 1 and"):
        cut_to_depth(DecisionTreeClassifier(max_depth=3).fit(X, y), 4)
