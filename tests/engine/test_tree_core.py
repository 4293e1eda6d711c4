"""Core checks of the tree engine: scikit-learn as oracle, textbook trees, invariants."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn import tree as sk_tree
from sklearn.datasets import make_classification, make_friedman1, make_regression

import engine.tree._search_drawn as search_drawn
import engine.tree._search_sorted as search_sorted
import engine.tree._search_sparse as search_sparse
import engine.tree._sorting as sorting
import engine.tree._splitter as splitter
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
from engine.tree._criteria import entropy, impurity_decrease

DATA = Path("/work/shared/data")
if not DATA.exists():
    DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def depth_first(tree, node=0, regression=False):
    """(feature, threshold, normalised value) in depth-first order, for ours or sklearn's."""
    value = np.asarray(tree.value[node], dtype=float).ravel()
    value = value if regression else value / value.sum()
    left, right = tree.children_left[node], tree.children_right[node]
    if left == -1:
        return [(-1, np.nan, value)]
    out = [(int(tree.feature[node]), float(tree.threshold[node]), value)]
    for child in range(left, right + 1) if right == left + 1 else (left, right):
        out += depth_first(tree, child, regression)
    return out


def assert_same_tree(ours, theirs, regression=False):
    a, b = depth_first(ours, regression=regression), depth_first(theirs, regression=regression)
    assert [n[0] for n in a] == [n[0] for n in b]
    # sklearn thresholds come from float32 copies of X: agree to float32 precision.
    np.testing.assert_allclose([n[1] for n in a], [n[1] for n in b], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.stack([n[2] for n in a]), np.stack([n[2] for n in b]),
                               rtol=1e-9, atol=1e-9)


def oracle_data(seed, missing=0.0):
    X, y = make_classification(n_samples=3000, n_features=8, n_informative=5, n_redundant=0,
                               n_classes=3, random_state=seed)
    if missing:
        X[np.random.default_rng(seed).random(X.shape) < missing] = np.nan
    return X, y


@pytest.mark.parametrize("missing", [0.0, 0.1])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_identical_to_sklearn_classifier(seed, criterion, missing):
    X, y = oracle_data(seed, missing)
    with np.errstate(all="raise"):
        ours = DecisionTreeClassifier(criterion=criterion, max_depth=4).fit(X, y)
    theirs = sk_tree.DecisionTreeClassifier(criterion=criterion, max_depth=4, random_state=0).fit(X, y)
    assert_same_tree(ours.tree_, theirs.tree_)
    np.testing.assert_array_equal(ours.apply(X) >= 0, True)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-12)
    # Missing only at predict time: both send it to the child with more training rows.
    X_holes = X.copy()
    X_holes[np.random.default_rng(seed).random(X.shape) < 0.2] = np.nan
    np.testing.assert_allclose(ours.predict_proba(X_holes), theirs.predict_proba(X_holes), atol=1e-12)


@pytest.mark.parametrize("params", [
    {"max_leaf_nodes": 12}, {"max_depth": 6, "min_samples_split": 60},
    {"min_impurity_decrease": 0.005}, {"max_depth": 5, "min_samples_leaf": 0.01},
])
def test_stopping_rules_match_sklearn(params):
    X, y = oracle_data(1)
    ours = DecisionTreeClassifier(criterion="entropy", **params).fit(X, y)
    theirs = sk_tree.DecisionTreeClassifier(criterion="entropy", random_state=0, **params).fit(X, y)
    assert_same_tree(ours.tree_, theirs.tree_)


def test_sample_weight_matches_sklearn():
    X, y = oracle_data(1)
    weight = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    ours = DecisionTreeClassifier(max_depth=4, min_samples_leaf=3).fit(X, y, sample_weight=weight)
    theirs = sk_tree.DecisionTreeClassifier(max_depth=4, min_samples_leaf=3, random_state=0)
    theirs.fit(X, y, sample_weight=weight)
    assert_same_tree(ours.tree_, theirs.tree_)
    # Rows of zero weight are not counted in n_node_samples, as in scikit-learn.
    assert ours.tree_.n_node_samples[0] == theirs.tree_.n_node_samples[0] == np.sum(weight > 0)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("make", ["regression", "friedman1"])
def test_identical_to_sklearn_regressor(make, seed):
    if make == "regression":
        X, y = make_regression(n_samples=2000, n_features=6, noise=5.0, random_state=seed)
    else:
        X, y = make_friedman1(n_samples=2000, random_state=seed)
    weight = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
    with np.errstate(all="raise"):
        ours = DecisionTreeRegressor(max_depth=4).fit(X, y, sample_weight=weight)
    theirs = sk_tree.DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y, sample_weight=weight)
    assert_same_tree(ours.tree_, theirs.tree_, regression=True)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-10)


def test_boundary_points_are_enough(monkeypatch):
    """Skipping cuts inside one-class runs never changes the tree (boundary points suffice)."""
    monkeypatch.setattr(search_sorted, "FILTER_SHARE", 0.0)  # filter even when ties abound
    for seed in range(24):
        rng = np.random.default_rng(seed)
        n, p = int(rng.integers(30, 300)), int(rng.integers(1, 4))
        X = rng.integers(0, int(rng.integers(2, 25)), (n, p)).astype(float)
        X[rng.random((n, p)) < 0.1 * (seed % 2)] = np.nan
        y = (X[:, 0] + rng.normal(0, 3, n) > 5).astype(int) + (rng.random(n) < 0.3) * (seed % 3 == 0)
        weight = rng.integers(1, 4, n).astype(float) if seed % 4 else None  # None: unit path
        for criterion in ["gini", "entropy", "misclassification"]:
            params = dict(criterion=criterion, min_samples_leaf=int(rng.integers(1, 12)), max_depth=6)
            fast = DecisionTreeClassifier(**params).fit(X, y, sample_weight=weight)
            with monkeypatch.context() as patch:
                patch.setattr(search_sorted, "BOUNDARY_POINTS_ONLY", False)
                full = DecisionTreeClassifier(**params).fit(X, y, sample_weight=weight)
            assert_same_tree(fast.tree_, full.tree_)
            np.testing.assert_array_equal(fast.tree_.missing_child, full.tree_.missing_child)


def restaurant():
    frame = pd.read_csv(DATA / "restaurant.csv", keep_default_na=False).drop(columns="Example")
    return frame, frame.pop("WillWait")


def test_restaurant_id3_is_aima_figure_18_6():
    X, y = restaurant()
    model = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway").fit(X, y)
    t, names = model.tree_, list(model.feature_names_in_)

    def child(node, value):
        code = list(model.categories_[t.feature[node]]).index(value)
        return t.children_by_code(node)[code]

    def label(node):
        assert t.is_leaf(node)
        return model.classes_[np.argmax(t.value[node])]

    assert names[t.feature[0]] == "Patrons"
    assert label(child(0, "None")) == "No" and label(child(0, "Some")) == "Yes"
    hungry = child(0, "Full")
    assert names[t.feature[hungry]] == "Hungry" and label(child(hungry, "No")) == "No"
    kind = child(hungry, "Yes")
    assert names[t.feature[kind]] == "Type"
    assert label(child(kind, "Italian")) == "No" and label(child(kind, "Burger")) == "Yes"
    french = child(kind, "French")  # empty branch: the parent's 2-2 distribution
    assert t.n_node_samples[french] == 0
    np.testing.assert_allclose(t.value[french] / t.value[french].sum(), [0.5, 0.5])
    fri_sat = child(kind, "Thai")
    assert names[t.feature[fri_sat]] == "Fri/Sat"
    assert label(child(fri_sat, "No")) == "No" and label(child(fri_sat, "Yes")) == "Yes"
    assert t.node_count == 12 and model.score(X, y) == 1.0
    # The tree is perfect, so importances are each split's gain over the root's 1 bit.
    assert round(model.feature_importances_[names.index("Patrons")], 4) == 0.5409


def test_playtennis_id3_tree():
    X = pd.read_csv(DATA / "playtennis.csv").drop(columns="Day")
    y = X.pop("PlayTennis")
    model = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway").fit(X, y)
    t, names = model.tree_, list(model.feature_names_in_)
    outlook = list(model.categories_[0])
    assert names[t.feature[0]] == "Outlook"
    assert names[t.feature[t.children_by_code(0)[outlook.index("Sunny")]]] == "Humidity"
    assert names[t.feature[t.children_by_code(0)[outlook.index("Rain")]]] == "Wind"
    assert t.is_leaf(t.children_by_code(0)[outlook.index("Overcast")])
    assert round(float(t.impurity[0]), 3) == 0.940


def best_subset_gain(codes, y, criterion):
    """Brute force over all 2^(k-1) two-way partitions of the categories."""
    values = np.unique(codes)
    counts = np.array([np.bincount(y[codes == v], minlength=2) for v in values])
    best = 0.0
    for r in range(1, len(values)):
        for subset in itertools.combinations(range(len(values)), r):
            left = counts[list(subset)].sum(axis=0)
            best = max(best, float(impurity_decrease(counts.sum(axis=0), [left, counts.sum(0) - left], criterion)))
    return best


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_binary_categorical_split_is_the_optimal_subset(criterion):
    for seed in range(5):
        rng = np.random.default_rng(seed)
        codes = rng.integers(0, 6, 200)
        y = (rng.random(200) < np.linspace(0.1, 0.9, 6)[rng.permutation(6)][codes]).astype(int)
        X = pd.DataFrame({"c": pd.Categorical([f"v{c}" for c in codes])})
        model = DecisionTreeClassifier(criterion=criterion, max_depth=1).fit(X, y)
        t = model.tree_
        gain = t.impurity[0] - sum(t.weighted_n_node_samples[c] / 200 * t.impurity[c] for c in (1, 2))
        assert gain == pytest.approx(best_subset_gain(codes, y, criterion), rel=1e-12)
        assert t.split_kind[0] == 2


def test_missing_and_unseen_categories_route_to_a_child():
    X, y = restaurant()
    X = X.copy()
    X.loc[[0, 3, 7], "Patrons"] = np.nan
    model = DecisionTreeClassifier(criterion="entropy").fit(X, y)
    test = X.head(3).copy()
    test["Patrons"] = ["Crowded", np.nan, "Some"]  # unseen, missing, seen
    proba = model.predict_proba(test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    t = model.tree_
    internal = t.children_left >= 0
    assert np.all(t.missing_child[internal] >= t.children_left[internal])
    assert np.all(t.missing_child[internal] <= t.children_right[internal])
    categorical = internal & (t.split_kind >= 2)
    heavier = [max(t.children(i), key=lambda c: (t.weighted_n_node_samples[c], -c))
               for i in np.flatnonzero(categorical)]
    np.testing.assert_array_equal(t.unseen_child[categorical], heavier)


@pytest.mark.parametrize("kind", ["tree", "weighted tree", "regression tree", "forest"])
def test_missing_values_unseen_in_training_go_to_the_heavier_child(kind):
    """With no missing value at a node in training, a missing value takes the child of
    more weight (the left one on a tie): trees, weighted trees (halves: sums exact),
    regression trees and a forest's bootstrap weights alike."""
    from engine.ensemble import RandomForestClassifier
    from engine.tree import DecisionTreeRegressor

    rng = np.random.default_rng(5)
    X = rng.integers(0, 6, size=(300, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.normal(0, 2, 300) > 5).astype(int)
    weight = rng.integers(1, 5, 300) / 2.0 if kind == "weighted tree" else None
    model = {"tree": DecisionTreeClassifier(random_state=0),
             "weighted tree": DecisionTreeClassifier(random_state=0),
             "regression tree": DecisionTreeRegressor(random_state=0),
             "forest": RandomForestClassifier(n_estimators=3, random_state=0)}[kind]
    model.fit(X, X[:, 0] + X[:, 1] if kind == "regression tree" else y, sample_weight=weight)
    for estimator in getattr(model, "estimators_", [model]):
        t = estimator.tree_
        internal = np.flatnonzero(t.children_left >= 0)
        left, right = t.children_left[internal], t.children_right[internal]
        heavier = np.where(t.weighted_n_node_samples[right] > t.weighted_n_node_samples[left],
                           right, left)
        np.testing.assert_array_equal(t.missing_child[internal], heavier)
        assert (t.missing_child[internal] == right).any() and (t.missing_child[internal] == left).any()


def test_gain_ratio_picks_the_best_ratio_at_the_root():
    X = pd.read_csv(DATA / "playtennis.csv").drop(columns="Day")
    y = X.pop("PlayTennis")
    codes = pd.factorize(y, sort=True)[0]
    ratios = []
    for column in X:
        groups = [np.bincount(codes[(X[column] == v).to_numpy()], minlength=2) for v in X[column].unique()]
        sizes = np.array([g.sum() for g in groups])
        ratios.append(impurity_decrease(np.bincount(codes), groups, "entropy") / entropy(sizes))
    model = DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway").fit(X, y)
    assert model.tree_.feature[0] == int(np.argmax(ratios))


def test_zero_gain_split_is_not_made_for_misclassification():
    """A 10/6 parent into 2/0 + 8/6 is 'no progress' for the 0/1 loss."""
    X = np.array([[0.0]] * 2 + [[1.0]] * 14)
    y = np.array([0, 0] + [0] * 8 + [1] * 6)
    assert DecisionTreeClassifier(criterion="misclassification").fit(X, y).get_n_leaves() == 1
    assert DecisionTreeClassifier(criterion="entropy").fit(X, y).get_n_leaves() == 2
    single = DecisionTreeClassifier(criterion="misclassification").fit(X, y)
    np.testing.assert_array_equal(single.feature_importances_, [0.0])


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_zero_gain_split_is_made_like_sklearn(criterion):
    """XOR: the first split gains nothing, the second separates; sklearn grows the same."""
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 0])
    ours = DecisionTreeClassifier(criterion=criterion).fit(X, y)
    assert ours.score(X, y) == 1.0
    assert ours.tree_.feature[0] == 0  # the tie rule: lowest column first
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0) ^ (X[:, 1] > 0)
    theirs = sk_tree.DecisionTreeClassifier(criterion=criterion, max_depth=6, random_state=0)
    assert_same_tree(DecisionTreeClassifier(criterion=criterion, max_depth=6).fit(X, y).tree_,
                     theirs.fit(X, y).tree_)


def test_tree_arrays_invariants_and_collapse():
    X, y = oracle_data(0, missing=0.05)
    model = DecisionTreeClassifier(max_depth=6).fit(X, y)
    t = model.tree_
    internal = np.flatnonzero(t.children_left >= 0)
    for i in internal:
        kids = np.array(t.children(i))
        np.testing.assert_array_equal(t.parent[kids], i)
        np.testing.assert_array_equal(t.depth[kids], t.depth[i] + 1)
        np.testing.assert_allclose(t.value[kids].sum(axis=0), t.value[i])
    path = model.decision_path(X)
    leaves = model.apply(X)
    np.testing.assert_array_equal(path.sum(axis=1), t.depth[leaves] + 1)
    assert path[np.arange(len(X)), leaves].all()
    cut = [n for n in internal if t.depth[n] == 3]
    small = t.collapse(cut)
    assert small.max_depth == 3
    assert small.n_leaves == t.n_leaves - sum(len(_leaves_below(t, n)) - 1 for n in cut)
    for i in np.flatnonzero(small.children_left >= 0):
        np.testing.assert_array_equal(small.parent[np.array(small.children(i))], i)
    # Collapsing keeps node statistics: each row's new leaf is its old depth-3 ancestor.
    ancestor = np.where(t.depth[leaves] > 3, 0, leaves)
    deep = t.depth[leaves] > 3
    node = leaves[deep]
    while np.any(t.depth[node] > 3):
        node = np.where(t.depth[node] > 3, t.parent[node], node)
    ancestor[deep] = node
    np.testing.assert_allclose(small.value[small.apply(X)], t.value[ancestor])


def _leaves_below(tree, node):
    if tree.is_leaf(node):
        return [node]
    return [leaf for c in tree.children(node) for leaf in _leaves_below(tree, c)]


def test_max_features_is_reproducible_and_random():
    X, y = oracle_data(2)
    a = DecisionTreeClassifier(max_features="sqrt", random_state=3).fit(X, y)
    b = DecisionTreeClassifier(max_features="sqrt", random_state=3).fit(X, y)
    c = DecisionTreeClassifier(max_features="sqrt", random_state=4).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    assert a.tree_.node_count != c.tree_.node_count or not np.array_equal(a.tree_.feature, c.tree_.feature)
    full = DecisionTreeClassifier(max_features=8, max_depth=4).fit(X, y)
    assert_same_tree(full.tree_, DecisionTreeClassifier(max_depth=4).fit(X, y).tree_)


def test_spambase_full_tree_fits_its_training_rows():
    # Speed is measured by bench/bench_tree.py against scikit-learn, not asserted here.
    frame = pd.read_csv(DATA / "spambase.csv")
    y = frame.pop("spam")
    model = DecisionTreeClassifier().fit(frame, y)
    assert model.score(frame, y) > 0.99


@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification", "gain_ratio"])
def test_max_bins_changes_speed_not_the_tree(criterion):
    """Histogram counting (few-valued features) and presorted sums give the same tree."""
    for seed in range(6):
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 12, (300, 3)) * rng.choice([1.0, 0.37, -2.5])
        X[rng.random(X.shape) < 0.1 * (seed % 2)] = np.nan
        y = (np.nan_to_num(X[:, 0]) + rng.normal(0, 3, 300) > 2).astype(int) + (rng.random(300) < 0.2)
        weight = rng.integers(0, 4, 300).astype(float)
        params = dict(criterion=criterion, min_samples_leaf=1 + seed % 3, max_depth=6)
        histogram = DecisionTreeClassifier(max_bins=255, **params).fit(X, y, sample_weight=weight)
        presorted = DecisionTreeClassifier(max_bins=None, **params).fit(X, y, sample_weight=weight)
        assert_same_tree(histogram.tree_, presorted.tree_)
        np.testing.assert_array_equal(histogram.tree_.missing_child, presorted.tree_.missing_child)
        target = np.nan_to_num(X[:, 1]) + rng.normal(0, 1, 300)
        a = DecisionTreeRegressor(max_depth=5).fit(X, target, sample_weight=weight)
        b = DecisionTreeRegressor(max_depth=5, max_bins=None).fit(X, target, sample_weight=weight)
        assert_same_tree(a.tree_, b.tree_, regression=True)


def test_regressor_on_categories_orders_by_mean_target():
    """Binary split of a categorical feature = best prefix of categories sorted by mean y."""
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 5, 300)
    means = np.array([3.0, -1.0, 7.0, 0.5, 2.0])
    y = means[codes] + rng.normal(0, 0.1, 300)
    X = pd.DataFrame({"c": pd.Categorical([f"v{c}" for c in codes])})
    model = DecisionTreeRegressor(max_depth=1).fit(X, y)
    left_codes = np.flatnonzero(model.tree_.children_by_code(0)[:5] == model.tree_.children_left[0])

    def explained(subset):  # between-group sum of squares of a two-way partition
        inside = np.isin(codes, subset)
        return sum(part.size * (part.mean() - y.mean()) ** 2 for part in (y[inside], y[~inside]))

    subsets = [c for r in range(1, 5) for c in itertools.combinations(range(5), r)]
    best = max(subsets, key=explained)
    assert explained(tuple(left_codes)) == pytest.approx(explained(best), rel=1e-12)
    multi = DecisionTreeRegressor(categorical_split="multiway").fit(X, y)
    assert multi.get_n_leaves() == 5
    np.testing.assert_allclose(multi.predict(X), [y[codes == c].mean() for c in codes])


def test_max_leaf_nodes_counts_multiway_branches():
    X, y = restaurant()
    model = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway",
                                   max_leaf_nodes=5).fit(X, y)
    assert model.get_n_leaves() <= 5
    assert model.tree_.feature[0] == list(model.feature_names_in_).index("Patrons")


def test_one_drawn_feature_on_mixed_columns_with_gaps_matches_a_full_search_of_that_feature():
    """max_features=1 draws one varying feature per node; on a frame whose only varying
    feature is 'a' the tree must equal the tree grown on 'a' alone."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=80),
                      "c": pd.Series(["x"] * 80).astype("category")})
    X.loc[[3, 7], "a"] = np.nan
    y = (X["a"].fillna(0) > 0.3).astype(int)
    for seed in range(4):
        drawn = DecisionTreeClassifier(max_features=1, random_state=seed).fit(X, y)
        alone = DecisionTreeClassifier().fit(X[["a"]], y)
        np.testing.assert_array_equal(drawn.tree_.threshold, alone.tree_.threshold)
        np.testing.assert_array_equal(drawn.tree_.feature, alone.tree_.feature)


@pytest.mark.parametrize("limit", [1, 40, 150, 10**6])
def test_a_level_cut_by_trees_gives_each_part_whole_trees_within_the_limit(limit):
    """Parts of whole trees, in order, their rows a slice of the level's; each holds the
    first trees left that fit ``limit`` (one tree alone if it does not fit)."""
    rng = np.random.default_rng(limit)
    tree = np.repeat(np.arange(7), rng.integers(1, 5, 7))  # each tree's nodes, tree after tree
    m, p = len(tree), 5
    count = rng.integers(1, 9, m)
    node = np.concatenate([rng.permutation(np.repeat(np.flatnonzero(tree == t), count[tree == t]))
                           for t in range(7)])  # rows tree after tree, a tree's nodes mixed
    rows = np.arange(len(node)) * 3
    per_row = rng.integers(1, 4, m)
    level = splitter.Level(rows, node, rng.random((m, 2)), rng.random(m), rng.random(m),
                           rng.random((m, p)) < 0.3, rows + 1, rng.random((m, 2)),
                           rng.integers(-1, 4, m), tree)
    parts = level.by_trees(per_row, limit)
    assert [first for first, _ in parts] == np.cumsum([0] + [p.n_nodes for _, p in parts[:-1]]).tolist()
    np.testing.assert_array_equal(np.concatenate([part.rows for _, part in parts]), rows)
    load = np.bincount(tree, weights=count * per_row)
    trees_done = 0
    for first, part in parts:
        nodes = slice(first, first + part.n_nodes)
        np.testing.assert_array_equal(part.node + first, node[np.isin(rows, part.rows)])
        np.testing.assert_array_equal(part.data_rows, part.rows + 1)
        for name in ("totals", "impurity", "min_gain", "used", "value", "parent", "tree"):
            np.testing.assert_array_equal(getattr(part, name), getattr(level, name)[nodes])
        trees = np.unique(part.tree)
        assert trees.tolist() == list(range(trees_done, trees_done + len(trees)))  # whole, in order
        assert np.isin(tree, trees).sum() == part.n_nodes
        held = load[trees].sum()
        assert held <= limit or len(trees) == 1
        if trees[-1] + 1 < len(load):  # the next tree would not have fitted
            assert held + load[trees[-1] + 1] > limit
        trees_done += len(trees)
    assert trees_done == 7
    assert len(parts) == 1 or limit < load.sum()


@pytest.mark.parametrize("low", [0, 3])  # some node draws nothing (row-major) / all 3 or 4
def test_drawn_entries_pair_every_row_with_its_nodes_draws_in_row_order(low):
    """Each run (slot, node) holds one drawn column and that node's rows in row order;
    together the entries are exactly the pairs np.nonzero(allowed[node]) lists."""
    rng = np.random.default_rng(low)
    m, p, r = 6, 9, 50
    allowed = np.zeros((m, p), dtype=bool)
    for i in range(m):
        allowed[i, rng.choice(p, size=rng.integers(max(low, 1), 4, endpoint=True),
                              replace=False)] = True
    allowed[0] &= low > 0  # node 0 draws nothing: no slot is full
    node = rng.integers(0, m, size=r)
    rows = np.sort(rng.choice(1000, size=r, replace=False))
    level = splitter.Level(rows, node, np.zeros((m, 2)), np.zeros(m), np.zeros(m),
                           np.zeros((m, p), dtype=bool), rows + 7)
    drawn = search_drawn.DrawnEntries.of(allowed, level)
    position = np.searchsorted(rows, drawn.rows)
    np.testing.assert_array_equal(drawn.node, node[position])
    np.testing.assert_array_equal(drawn.data_rows, drawn.rows + 7)
    np.testing.assert_array_equal(drawn.group, drawn.slot * m + drawn.node)
    drawn_column = drawn.table[drawn.slot, drawn.node]  # each entry's (slot, node) pair's column
    at, column = np.nonzero(allowed[node])
    assert sorted(zip(position, drawn_column, strict=True)) == sorted(zip(at, column, strict=True))
    layout = drawn.slot if low else position  # slot after slot, or row after row
    assert np.all(np.diff(layout) >= 0)
    for group in np.unique(drawn.group):
        assert np.all(np.diff(position[drawn.group == group]) > 0)
    for i in range(m):  # the table lists each node's draws in column order, then -1
        draws = np.flatnonzero(allowed[i])
        np.testing.assert_array_equal(drawn.table[: len(draws), i], draws)
        assert np.all(drawn.table[len(draws):, i] == -1)


@pytest.mark.parametrize(("n", "major_high", "minor_high"), [
    (0, 1, 1), (1, 1, 1), (1000, 7, 5), (50_000, 2**20, 2**16), (100, 2**30, 2**20),
    (300, 2**40, 2**30),
])
@pytest.mark.parametrize("radix", [True, False])
def test_order_by_is_a_stable_two_key_argsort(n, major_high, minor_high, radix, monkeypatch):
    """Many ties on both keys. Up to 48 bits of key, radix passes (one, two or three) or
    a packed sort with the position, whichever the machine runs faster (both tried here);
    the last two cases are wider: a packed sort, then too wide to pack (np.lexsort)."""
    monkeypatch.setattr(sorting, "radix_pays", lambda kind, passes: radix)
    rng = np.random.default_rng(n)
    major = rng.integers(0, major_high, size=n)
    minor = rng.integers(0, minor_high, size=n).astype(np.int32 if minor_high < 2**31 else np.int64)
    major[: n // 2] = major[0] if n else 0  # ties on the major key
    minor[: n // 3] = 0  # and on both
    order = sorting.order_by(major, minor)
    assert order.dtype == np.intp
    np.testing.assert_array_equal(order, np.lexsort((minor, major)))
    at, keys = sorting.order_by(major, minor, keys=True)  # the major key read back
    np.testing.assert_array_equal(at, order)
    np.testing.assert_array_equal(keys, major[order])
    at, keys = sorting.order_by(major, keys=True)  # one key: radix, packed or lexsort
    np.testing.assert_array_equal(at, np.argsort(major, kind="stable"))
    np.testing.assert_array_equal(keys, np.sort(major))


@pytest.mark.parametrize(("n", "top", "dtype"), [
    (0, 1, np.int32), (1, 1, np.int32), (5_000, 300, np.int32), (5_000, 10**6, np.int32),
    (5_000, 2**32, np.int64), (2_000, 2**40, np.int64),
])
@pytest.mark.parametrize("radix", [True, False])
def test_sort_keys_counts_few_valued_keys_and_sorts_the_rest(n, top, dtype, radix, monkeypatch):
    """The counting branch (top well under the key count), the radix branch (up to 32
    bits, where the machine runs it faster: both tried here) and the comparison branch
    all give numpy's sort, in the keys' own type."""
    monkeypatch.setattr(sorting, "radix_pays", lambda kind, passes: radix)
    rng = np.random.default_rng(n)
    key = rng.integers(0, top, size=n).astype(dtype)
    out = sorting.sort_keys(key.copy(), top)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, np.sort(key))


def test_radix_pays_answers_once_per_question():
    """The trial runs once per (kind, passes); its answer is a bool either way."""
    sorting.radix_pays.cache_clear()
    answers = {(kind, passes): sorting.radix_pays(kind, passes)
               for kind in ("order", "sort") for passes in (1, 2, 3)}
    assert all(isinstance(a, bool) for a in answers.values())
    assert sorting.radix_pays.cache_info().currsize == 6
    assert sorting.radix_pays("order", 2) is answers["order", 2]


@pytest.mark.parametrize("seed", range(4))
def test_presorted_orders_are_numpys_stable_argsort(seed):
    """Columns with few ties (sorted by rank), mostly one value (sorted as floats), with
    NaN (last, in row order), -0.0 beside 0.0, more than 65,536 distinct values (ranks
    wider than 16 bits) and bin codes: each the order of a stable sort, ties in row order."""
    from engine.tree._binning import _few_ties, _presorted

    rng = np.random.default_rng(seed)
    n = 70_000 if seed == 0 else 3_000
    columns = np.stack([
        rng.normal(size=n),                                   # no ties
        rng.normal(size=n).round(2 + seed % 2),               # a few ties
        np.where(rng.random(n) < 0.8, 0.0, rng.random(n)),    # mostly one value
        np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
        np.where(rng.random(n) < 0.5, -0.0, rng.normal(size=n).round(1)),
    ])
    columns[1, rng.random(n) < 0.05] = np.nan
    codes = [None, None, None, None, rng.integers(0, 9, size=n)]
    expected = np.argsort(columns, axis=1, kind="stable")
    expected[4] = np.argsort(codes[4], kind="stable")
    assert np.array_equal(_presorted(columns, codes), expected)
    assert _few_ties(columns[0]) and not _few_ties(columns[2])


def test_orders_and_ranks_made_a_block_of_features_at_a_time_are_the_same(monkeypatch):
    """Sorted and ranked a few features at a time (so a large table's temporaries stay
    small), every order is the stable argsort and every rank the value's place among the
    column's distinct values, as when all are made at once."""
    from engine.tree import _binning

    rng = np.random.default_rng(5)
    n = 4_000
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n).round(1),
                         np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
                         rng.normal(size=n), rng.integers(0, 4, size=n).astype(float)])
    whole = _binning.prepare_features(X, np.zeros(5, dtype=np.intp), None)
    monkeypatch.setattr(_binning, "BLOCK_VALUES", 2 * n)  # two features a block
    assert [(b.start, b.stop) for b in _binning.feature_blocks(5, n)] == [(0, 2), (2, 4), (4, 5)]
    blocks = _binning.prepare_features(X, np.zeros(5, dtype=np.intp), None)
    assert np.array_equal(blocks.order, np.argsort(X.T, axis=1, kind="stable"))
    assert np.array_equal(blocks.order, whole.order)
    assert np.array_equal(blocks.rank, whole.rank)
    for j in range(5):
        present = ~np.isnan(X[:, j])
        distinct = np.unique(X[present, j])
        assert np.array_equal(blocks.rank[j][present], np.searchsorted(distinct, X[present, j]))
        assert (blocks.rank[j][~present] >= len(distinct)).all()  # missing: after every value


@pytest.mark.parametrize("binned", [False, True])
def test_orders_let_go_are_made_again_from_the_ranks(binned):
    """A forest lets the presorted orders go (``release_order``) once the ranks are
    made: a feature's order made again from its ranks is the one let go, ties (a column
    mostly of one value, a rounded one) in row order and every missing value last, in
    row order; with quantile bins, the bins' order."""
    from engine.tree._binning import prepare_features
    from engine.tree._quantile import resolve_bins

    rng = np.random.default_rng(11)
    n = 3_000
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n).round(1),
                         np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
                         np.where(rng.random(n) < 0.9, 0.0, rng.integers(1, 5, size=n)),
                         np.full(n, np.nan), rng.integers(0, 4, size=n).astype(float)])
    n_categories = np.zeros(X.shape[1], dtype=np.intp)
    bins = resolve_bins("quantile", X, n_categories, 16) if binned else None
    prep = prepare_features(X, n_categories, 255, bins)
    kept, mode = prep.order.copy(), prep.mode
    features = np.array([5, 0, 3])
    assert np.array_equal(prep.presorted(features), kept[features])
    prep.release_order()
    assert prep.order is None and prep.mode is mode
    assert np.array_equal(prep.presorted(np.arange(X.shape[1])), kept)
    assert np.array_equal(prep.presorted(features), kept[features])
    taken = prep.take(np.array([4, 4, 0, 7]), with_order=False)
    assert taken.order is None and taken.source is prep


@pytest.mark.parametrize("k", [0, 1, 2, 5])
def test_sum_columns_adds_a_rows_columns_as_numpy_does(k):
    """Column by column, left to right: the same floats as numpy's sum along a short row."""
    a = np.random.default_rng(k).random((1000, k + 2))[:, :k] * 1e3
    np.testing.assert_array_equal(splitter.sum_columns(a), a.sum(axis=1))


def mostly_one_value(seed):
    """Columns mostly of one value (not always the smallest), ties, missing values, a
    constant and an all-missing column, a categorical column; 2-4 classes."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 400))
    common = rng.choice([0.0, 3.0, -1.5])
    X = np.full((n, 7), common)
    for j in range(5):
        other = rng.random(n) < rng.uniform(0.05, 0.6)
        X[other, j] = rng.integers(-4, 8, other.sum()) / rng.choice([1, 4])
    X[:, 4] = np.where(rng.random(n) < 0.5, X[:, 4], rng.normal(size=n))  # half distinct
    X[rng.random((n, 7)) < 0.08 * (seed % 2)] = np.nan
    X[:, 6] = np.nan
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(7)])
    frame["colour"] = pd.Series(rng.choice(["red", "green", "blue"], n), dtype="category")
    n_classes = 2 + seed % 3
    y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + rng.normal(0, 1.5, n)) > common)
    y = np.where(rng.random(n) < 0.2, rng.integers(0, n_classes, n), y.astype(int))
    return frame, y


@pytest.mark.parametrize("seed", range(12))
def test_sparse_search_grows_the_same_tree(seed, monkeypatch):
    """Searching only the rows off each feature's common value gives the tree of the
    full search, node for node (the common value's counts are the node's rest)."""
    import engine.tree._search_exact as exact

    X, y = mostly_one_value(seed)
    calls = []
    search = search_sparse.sparse_numeric_candidates
    monkeypatch.setattr(search_sparse, "sparse_numeric_candidates",
                        lambda *a: calls.append(1) or search(*a))
    for criterion in ["gini", "entropy", "misclassification", "gain_ratio"]:
        trees = []
        for share in (-1.0, 1.0):  # no feature sparse, every one
            monkeypatch.setattr(exact, "SPARSE_SHARE", share)
            trees.append(DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y).tree_)
        dense, sparse = trees
        assert calls, "the sparse search was not used"
        for name in ["feature", "threshold", "children_left", "children_right", "missing_child",
                     "category_count", "category_children", "value", "impurity", "n_node_samples"]:
            np.testing.assert_array_equal(getattr(sparse, name), getattr(dense, name), err_msg=name)
        calls.clear()


@pytest.mark.parametrize("model", ["tree", "regression tree", "forest"])
def test_features_without_missing_values_skip_the_missing_checks(model, monkeypatch):
    """The sorted and drawn searches of features with no missing value skip looking for
    one; told that every feature may have some, they grow the same trees to the bit."""
    import dataclasses

    from engine.ensemble import RandomForestClassifier
    from engine.tree._binning import PreparedFeatures

    X, y = make_classification(1_500, 8, n_informative=4, random_state=1)
    X[:, 2] = np.round(X[:, 2], 1)  # ties
    make = {"tree": lambda: DecisionTreeClassifier(random_state=0),
            "regression tree": lambda: DecisionTreeRegressor(random_state=0),
            "forest": lambda: RandomForestClassifier(n_estimators=5, random_state=0)}[model]
    target = X[:, 0] + y if model == "regression tree" else y
    checked = []
    chunk = search_sorted.numeric_chunk
    monkeypatch.setattr(search_sorted, "numeric_chunk",
                        lambda *a: checked.append(a[3].missing) or chunk(*a))
    monkeypatch.setattr(search_drawn, "numeric_chunk",
                        lambda *a: checked.append(a[3].missing) or chunk(*a))
    grown = []
    for told in (None, True):  # as found (none); every feature may miss values
        if told:
            monkeypatch.setattr(PreparedFeatures, "numeric_missing",
                                property(lambda self: np.ones(len(self.numeric), dtype=bool)))
        checked.clear()
        fitted = make().fit(X, target)
        grown.append([m.tree_ for m in getattr(fitted, "estimators_", [fitted])])
        assert checked and set(checked) == {bool(told)}
    for a, b in zip(*grown, strict=True):
        for f in dataclasses.fields(a):
            np.testing.assert_array_equal(getattr(a, f.name), getattr(b, f.name), err_msg=f.name)


@pytest.mark.parametrize("seed", range(8))
def test_class_changes_read_off_class_ordered_groups(seed):
    """With each value group's classes in ascending order, the first and last class of
    the groups beside a cut tell the same as counting the groups' classes."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    run = np.sort(rng.integers(0, 5, n))
    v = rng.integers(0, int(rng.integers(1, 30)), n).astype(float)
    v[rng.random(n) < 0.05] = np.nan
    codes = rng.integers(0, 2 + seed % 3, n).astype(np.int16)
    codes[rng.random(n) < 0.6] = 0  # long runs of one class
    order = np.lexsort((codes, np.nan_to_num(v, nan=np.inf), run))  # class order in a group
    run, v, codes = run[order], v[order], codes[order]
    same_run = run[1:] == run[:-1]
    new_value = v[1:] != v[:-1]
    cut = same_run & ~np.isnan(v[1:]) & new_value
    expected = np.flatnonzero(cut & search_sorted._class_changes(codes, new_value, same_run))
    found = search_sorted.class_changes_at(codes, ~same_run | new_value, cut)
    np.testing.assert_array_equal(found, expected)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("top", [1, 7, 2**40])  # unit weights, bootstrap counts, too wide to pack
def test_running_class_sums_are_each_range_s_class_weights(n_classes, top):
    """Whatever the running sums (one a class, or every class packed in one integer),
    the sums over a range are its entries' class weights, summed one by one."""
    rng = np.random.default_rng(n_classes * 100 + top % 97)
    n = 500
    codes = rng.integers(0, n_classes, n).astype(np.int16)
    w = None if top == 1 else rng.integers(0, top, n, endpoint=True)
    sums = search_sorted.class_sums(codes, w, n_classes, top)
    assert bool(sums.n_packed) == (n_classes > 2 and top < 2**40)  # packed where they fit
    lo = rng.integers(0, n, 300)
    hi = np.minimum(n, lo + rng.integers(0, 60, 300))
    out = np.empty((300, n_classes + 1))
    out[:, -1] = hi - lo
    sums.between(lo, hi, out)
    weight = np.ones(n, dtype=np.int64) if w is None else w
    expected = np.array([[weight[a:b][codes[a:b] == q].sum() for q in range(n_classes)]
                         for a, b in zip(lo, hi, strict=True)])
    np.testing.assert_array_equal(out[:, :-1], expected)
    np.testing.assert_array_equal(out[:, -1], hi - lo)


def test_sparse_search_is_kept_to_whole_weights_and_single_row_leaves():
    import engine.tree._search_exact as exact
    from engine.tree._binning import prepare_features
    from engine.tree._builder import GrowParams
    from engine.tree._criteria import ClassificationCriterion, SquaredErrorCriterion

    X = np.zeros((10, 3))
    X[:3, 0], X[:, 1] = 1.0, np.arange(10)  # column 0 mostly 0, column 1 all distinct
    X[:6, 2] = 1.0  # column 2: 4 rows off its common value 1, more than a third
    prep = prepare_features(X, np.zeros(3, dtype=np.intp), 255)
    y = np.arange(10) % 2
    params = GrowParams(None, 2, 1, 0.0, None, None, False, np.random.default_rng(0))
    unit = ClassificationCriterion("gini", 2, y, np.ones(10))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exact, "SPARSE_SHARE", 0.35)
        np.testing.assert_array_equal(exact._sparse_features(prep, unit, params), [0])
        patch.setattr(exact, "SPARSE_SHARE", 0.55)  # 16 of 30 values off: every feature ...
        np.testing.assert_array_equal(exact._sparse_features(prep, unit, params), [0, 1, 2])
        # ... but a forest's draw takes only the features mostly of one value
        np.testing.assert_array_equal(exact._sparse_features(prep, unit, params, True), [0, 2])
    counts = ClassificationCriterion("gini", 2, y, np.arange(10.0) % 3)  # bootstrap counts
    np.testing.assert_array_equal(exact._sparse_features(prep, counts, params), [0, 2])
    fractional = ClassificationCriterion("gini", 2, y, np.full(10, 1.5))
    assert len(exact._sparse_features(prep, fractional, params)) == 0
    regression = SquaredErrorCriterion(y.astype(float), np.ones(10))
    assert len(exact._sparse_features(prep, regression, params)) == 0
    params.min_samples_leaf = 2
    assert len(exact._sparse_features(prep, unit, params)) == 0


@pytest.mark.parametrize("seed", range(8))
def test_sparse_search_grows_the_same_forest_and_weighted_tree(seed, monkeypatch):
    """With whole-number weights, a forest's bootstrap counts (with and without feature
    draws) and a tree's integer sample weights, the search through the rows off the
    common values grows the trees of the full search, node for node. A forest reads its
    entries off the rows' bits, some features' every row too, or, when a sparse column
    has no bit (here the column of missing values only, sparse when every feature is),
    from the list of entries."""
    import engine.tree._search_exact as exact
    from engine.ensemble import RandomForestClassifier

    X, y = mostly_one_value(seed)
    calls = []
    search = search_sparse.sparse_numeric_candidates
    monkeypatch.setattr(search_sparse, "sparse_numeric_candidates",
                        lambda *a: calls.append((a[4] is not None, a[3])) or search(*a))
    weight = np.random.default_rng(seed).integers(0, 4, len(y)).astype(float)
    criterion = ["gini", "entropy", "misclassification", "gain_ratio"][seed % 4]
    forest = lambda: RandomForestClassifier(n_estimators=6, criterion=criterion,  # noqa: E731
                                            max_features=2, random_state=seed)
    complete = X.drop(columns="x6")
    every_row = {"BITS_SPARSE_SHARE": 0.3, "BITS_DENSE_SHARE": 1.0}  # x4: half its rows distinct
    models = {  # name: model, data, how the sparse entries are found, settings
        "forest": (forest, X, "listed", {}),
        "forest, entries off the bits": (forest, complete, "bits", {}),
        "forest, every row of some features": (forest, complete, "every row", every_row),
        "bagged trees": (lambda: RandomForestClassifier(n_estimators=4, criterion=criterion,
                                                        max_features=None, random_state=seed),
                         X, "listed", {}),
        "weighted tree": (lambda: DecisionTreeClassifier(criterion=criterion, random_state=0),
                          X, "listed", {}),
    }

    for name, (make, data, entries, settings) in models.items():
        fitted = []
        for share in (-1.0, 1.0):  # no feature sparse, every one (or as ``settings`` say)
            monkeypatch.setattr(exact, "SPARSE_SHARE", share)
            for setting, default in (("BITS_SPARSE_SHARE", 0.95), ("BITS_DENSE_SHARE", 0.125)):
                monkeypatch.setattr(exact, setting, settings.get(setting, default) if share > 0 else -1.0)
            fit = {"sample_weight": weight} if name == "weighted tree" else {}
            model = make().fit(data, y, **fit)
            fitted.append([m.tree_ for m in getattr(model, "estimators_", [model])])
        assert calls, f"{name}: the sparse search was not used"
        drawn = [d for d, _ in calls]
        assert all(drawn) if name.startswith("forest") else not any(drawn)  # the draw passed on
        found = {"bits" if isinstance(e, search_sparse.SparseBits) else "listed" for _, e in calls}
        assert found == {"listed" if entries == "listed" else "bits"}, name
        if entries != "listed":  # with every_row, x4's bit (and maybe others') in every row
            bits = calls[0][1].bits
            every = [((bits >> np.uint64(b)) & np.uint64(1)).all() for b in range(6)]
            assert any(every) == (entries == "every row"), name
        calls.clear()
        for dense, sparse in zip(*fitted, strict=True):
            for field in ["feature", "threshold", "children_left", "missing_child",
                          "category_count", "category_children", "value", "impurity",
                          "n_node_samples",
                          "weighted_n_node_samples"]:
                np.testing.assert_array_equal(getattr(sparse, field), getattr(dense, field),
                                              err_msg=f"{name}: {field}")


@pytest.mark.parametrize("seed", range(6))
def test_a_levels_statistics_from_the_splits_above_are_the_measured_ones(seed, monkeypatch):
    """With whole-number weights, a level's class counts come from the splits above it:
    the first child's from the chosen candidate (its missing rows in it if they go
    there), the second's the rest of its node. They are the counts of its rows to the
    bit, whichever search found the split (sparse, sorted, histogram, categorical);
    with fractional weights, and below multiway splits, the rows are measured."""
    import engine.tree._builder as builder
    import engine.tree._search_exact as exact
    from engine.ensemble import RandomForestClassifier

    X, y = mostly_one_value(seed)  # odd seeds: missing values
    measure = builder._measure_level
    given = []

    def checked(crit, rows, node, parent, previous, prep, totals=None):
        if totals is not None:
            given.append(True)
            np.testing.assert_array_equal(totals, measure(crit, rows, node, parent, previous, prep)[1])
        return measure(crit, rows, node, parent, previous, prep, totals)

    monkeypatch.setattr(builder, "_measure_level", checked)
    rng = np.random.default_rng(seed)
    whole, fractional = rng.integers(0, 4, len(y)).astype(float), rng.uniform(0.1, 2, len(y))
    criterion = ["gini", "entropy", "gain_ratio"][seed % 3]
    cases = [  # model, weights, the counts given by the splits
        (DecisionTreeClassifier(criterion=criterion), None, True),
        (DecisionTreeClassifier(criterion=criterion), whole, True),
        (RandomForestClassifier(n_estimators=4, max_features=2, criterion=criterion, random_state=seed),
         None, True),
        (DecisionTreeClassifier(criterion=criterion), fractional, False),
        (DecisionTreeClassifier(criterion="entropy", categorical_split="multiway"), None, True),
    ]
    for share in (0.5, -1.0):  # the sparse search, then none
        monkeypatch.setattr(exact, "SPARSE_SHARE", share)
        for model, weight, expected in cases:
            given.clear()
            model.fit(X, y, sample_weight=weight)
            assert bool(given) == expected, (model, share)


@pytest.mark.parametrize("seed", range(20))
def test_a_search_keeping_only_its_near_best_candidates_changes_no_choice(seed):
    """Each search keeps only its candidates within choose_splits' tolerance of their
    node's best among its own (``near_best``): the split chosen among every search's
    kept candidates is the one chosen among all of them, near-ties (a relative 1e-13
    to 1e-11 apart, both sides of the tolerance), invalid ones and ties by feature and
    rank included."""
    rng = np.random.default_rng(seed)
    m, n = 6, 400
    node = rng.integers(0, m, n)
    base = rng.choice([0.0, 0.02, 0.3, 5.0], m)
    score = base[node] * (1 - rng.choice([0, 0, 1e-13, 5e-13, 2e-12, 1e-11, 0.2], n))
    score[rng.random(n) < 0.05] = -np.inf
    gain = score.copy()
    feature = rng.integers(0, 4, n)
    rank = rng.integers(0, 3, n)
    empty = np.zeros(n, dtype=np.intp)
    cands = splitter.Candidates(node, feature, score, gain, rank, np.zeros(n), empty, np.zeros((n, 3)))
    level = splitter.Level(np.arange(m), np.arange(m), np.zeros((m, 3)), rng.uniform(0, 0.5, m),
                           np.full(m, -np.inf), np.zeros((m, 4), dtype=bool), np.arange(m))
    search = rng.integers(0, 3, n)  # which of three searches found each
    kept = []
    for part in range(3):
        at = np.flatnonzero(search == part)
        kept.append(at[splitter.near_best(node[at], score[at], level)])
    kept = np.concatenate(kept)
    assert len(kept) < n
    pruned = splitter.select_candidates(cands, np.isin(np.arange(n), kept))
    everything, among_kept = splitter.choose_splits(cands, level), splitter.choose_splits(pruned, level)
    for field in ("node", "feature", "rank", "score"):
        whole = getattr(cands, field)
        np.testing.assert_array_equal(
            np.where(everything >= 0, whole[everything], -1),
            np.where(among_kept >= 0, getattr(pruned, field)[among_kept], -1))


def test_entries_off_the_bits_sort_the_same_when_the_key_is_too_wide_to_pack(monkeypatch):
    """The entries read off the bits sort by one packed integer key; a key too wide for it
    (huge data, huge weights) sorts by :func:`order_by` instead, and the forest is the
    same."""
    from engine.ensemble import RandomForestClassifier

    X, y = mostly_one_value(1)
    X = X.drop(columns="x6")

    def fit():
        forest = RandomForestClassifier(n_estimators=5, max_features=2, random_state=0).fit(X, y)
        return [m.tree_ for m in forest.estimators_]

    calls = []
    order_by = sorting.order_by
    for module in (search_drawn, search_sparse):  # every search that sorts by order_by()
        monkeypatch.setattr(module, "order_by", lambda *a, **k: calls.append(1) or order_by(*a, **k))
    packed = fit()
    n_packed = len(calls)  # the other features' search sorts by order_by() too
    monkeypatch.setattr(search_sparse, "PACKED_KEY_BITS", 0)
    wide = fit()
    assert len(calls) > 2 * n_packed, "the wide key did not fall back"
    for a, b in zip(packed, wide, strict=True):
        for field in ["feature", "threshold", "children_left", "missing_child", "value"]:
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_stacked_rows_get_their_data_rows_entries_in_value_and_class_order():
    """A forest's stacked rows take the data's off-common entries, one copy per stacked
    row of the data row: the same entries as a stacked preparation's own, feature after
    feature, by value (missing last), equal present values by class."""
    import engine.tree._search_exact as exact
    from engine.tree._binning import prepare_features

    X, y = mostly_one_value(3)
    X = X.drop(columns="colour").to_numpy()
    prep = prepare_features(X, np.zeros(X.shape[1], dtype=np.intp), 255)
    rows = np.random.default_rng(1).integers(0, len(y), 3 * len(y))  # three bootstraps' rows
    codes = y[rows].astype(np.int16)
    features = np.array([0, 2, 3, 6])
    mode = prep.mode[0][features]
    row, column, value = exact._stacked_entries(prep, codes, rows, features, mode)
    stacked = prep.take(rows)
    own = exact._off_common_entries(stacked, codes, features, mode)
    as_set = lambda r, c, v: sorted(zip(r.tolist(), c.tolist(), np.nan_to_num(v, nan=99).tolist(), strict=True))  # noqa: E731
    assert as_set(row, column, value) == as_set(*own)
    key = np.nan_to_num(value, nan=np.inf)
    same_column = column[1:] == column[:-1]
    assert (np.diff(column) >= 0).all()
    assert (key[1:] >= key[:-1])[same_column].all()
    same_value = same_column & (value[1:] == value[:-1])  # present values (NaN != NaN)
    assert same_value.sum() > 100
    assert (codes[row[1:]] >= codes[row[:-1]])[same_value].all()


@pytest.mark.parametrize("seed", range(6))
def test_mode_is_the_most_common_present_value(seed):
    """The smallest of the most common values and its count; NaN and 0 for a column
    with no value; the same for a taken (stacked) preparation."""
    from engine.tree._binning import prepare_features

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    X = rng.integers(-3, 4, (n, 4)).astype(float)
    X[rng.random((n, 4)) < 0.3] = np.nan
    X[:, 3] = np.nan
    prep = prepare_features(X, np.zeros(4, dtype=np.intp), 255 if seed % 2 else None)

    def expected(data):
        out = []
        for column in data.T:
            counts = pd.Series(column).value_counts(dropna=True)
            if counts.empty:
                out.append((np.nan, 0))
                continue
            best = counts[counts == counts.max()]
            out.append((float(best.index.min()), int(best.max())))
        return out

    for p, data in ((prep, X), (prep.take(np.r_[0:n, 0:n:2]), X[np.r_[0:n, 0:n:2]])):
        value, count = p.mode
        np.testing.assert_array_equal(value, [v for v, _ in expected(data)])
        np.testing.assert_array_equal(count, [c for _, c in expected(data)])


def _common_code_bits(codes: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Reference for ``off_common``: bit b of a row set where its code of features[b] is
    not that column's most common code."""
    bits = np.zeros(len(codes), dtype=np.uint64)
    for b, j in enumerate(features):
        values, counts = np.unique(codes[:, j], return_counts=True)
        bits |= (codes[:, j] != values[np.argmax(counts)]).astype(np.uint64) << np.uint64(b)
    return bits


def _off_mode_bits(X: np.ndarray, mode: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Reference for ``off_common`` from the values: bit b set where the value of
    features[b] is not its most common present value (missing is off it)."""
    bits = np.zeros(len(X), dtype=np.uint64)
    for b, j in enumerate(features):
        bits |= (X[:, j] != mode[j]).astype(np.uint64) << np.uint64(b)  # NaN != anything
    return bits


@pytest.mark.parametrize("seed", range(6))
def test_feature_draw_takes_the_first_k_varying_features_by_priority(seed, monkeypatch):
    """Each node gets the ``k`` features of lowest priority among those that vary in its
    rows and are not used up, with or without the shortcuts: all-distinct columns, and
    the common-code bits (a node with rows off and on a column's common code)."""
    rng = np.random.default_rng(seed)
    m, p, r, k = 12, 10, 60 + 40 * seed, 2
    codes = rng.permutation(np.tile(np.arange(r), (p, 1)).T)  # each column: all distinct
    codes[:, :2] = rng.integers(0, 2, size=(r, 2))  # two with ties, often constant
    codes[:, 2] = 0  # one constant everywhere
    codes[:, 3] = np.where(rng.random(r) < 0.9, 5, rng.integers(0, 9, r))  # mostly one code
    codes[:, 4] = np.where(rng.random(r) < 0.5, 1, rng.integers(2, 4, r))  # off it: 2 codes
    node = rng.integers(0, m, size=r)
    node[node == 1] = 2  # node 1 is empty
    node[np.flatnonzero(node == 5)[1:]] = 6  # node 5 has one row
    codes[:, 0] = node % 3  # constant in every node, not from one node to the next
    codes[node == 7, 4] = 2 + (np.flatnonzero(node == 7) % 2)  # every row off the common code
    codes[node == 8, 4] = 3  # every row off it, one code
    used = rng.random((m, p)) < 0.15
    counts = np.zeros((m, 2))
    counts[:, -1] = np.bincount(node, minlength=m)  # the row count is the last statistic
    level = splitter.Level(np.arange(r), node, counts, np.zeros(m), np.zeros(m),
                           used, np.arange(r))
    priority = rng.random((m, p))
    distinct = np.array([len(np.unique(c)) == r for c in codes.T])
    assert distinct.tolist() == [False] * 5 + [True] * 5
    features = np.array([0, 1, 3, 4, 6])  # some of the columns, one all distinct
    bits = (_common_code_bits(codes, features), features)
    expected = np.zeros((m, p), dtype=bool)
    shortcut_nodes = 0
    for i in range(m):
        rows = node == i
        varies = [j for j in np.argsort(priority[i], kind="stable")
                  if not used[i, j] and len(np.unique(codes[rows, j])) > 1]
        expected[i, varies[:k]] = True
        first = np.argsort(np.where(used[i], np.inf, priority[i]), kind="stable")[:k]
        shortcut_nodes += rows.sum() >= 2 and distinct[first].all() and not used[i, first].any()
    truly_constant = np.array([[len(np.unique(codes[node == i, j])) == 1 for j in range(p)]
                               for i in range(m)]) & ~used
    read = []  # (node, feature) pairs whose values were read
    vary = search_drawn._pairs_vary
    monkeypatch.setattr(search_drawn, "_pairs_vary", lambda *a: read.append(len(a[-1])) or vary(*a))
    for shortcut, off_common in ((None, None), (distinct, None), (None, bits), (distinct, bits)):
        read.clear()
        got, constant = search_drawn.draw_features(codes.astype(np.int16), level, k, priority.copy(),
                                               shortcut, off_common)
        np.testing.assert_array_equal(got, expected)
        # only features really constant in the node (and not used up) are reported
        assert not (constant & ~truly_constant).any()
        # every constant feature of lower priority than a drawn one was looked at
        for i in np.flatnonzero(expected.any(axis=1)):
            last = priority[i, expected[i]].max()
            looked = truly_constant[i] & (priority[i] < last)
            if shortcut is None:
                np.testing.assert_array_equal(constant[i] & looked, looked)
        # passed down as used, the constant ones change no draw (they vary in no child)
        known = splitter.Level(np.arange(r), node, counts, np.zeros(m), np.zeros(m),
                               used | constant, np.arange(r))
        again, _ = search_drawn.draw_features(codes.astype(np.int16), known, k, priority.copy(),
                                          shortcut, off_common)
        np.testing.assert_array_equal(again, expected)
        n_read = sum(read)
        if off_common is None and shortcut is None:
            all_read = n_read
        elif off_common is not None:  # the bits leave fewer pairs to read
            assert n_read < all_read
    assert constant.any()
    assert not expected[1].any() and not expected[5].any()
    assert 0 < shortcut_nodes < m - 2  # both ways of drawing are exercised


def test_common_code_bits_mark_rows_off_each_features_most_common_code():
    """``off_common``: up to 64 features, those whose common value most rows hold, none
    whose values all differ; a row's bit is set where it is off that value (the
    smallest of equally common present values, as ``mode`` has it; missing is off)."""
    from engine.tree._binning import prepare_features

    rng = np.random.default_rng(0)
    n = 300
    X = np.where(rng.random((n, 70)) < np.linspace(0.2, 0.95, 70), 0.0,
                 rng.integers(1, 5, (n, 70)).astype(float))
    X[:, 0] = rng.permutation(n)  # all distinct: left out
    X[rng.random(n) < 0.1, 1] = np.nan  # missing is one more code
    X[:, 2] = np.where(rng.random(n) < 0.7, 7.0, rng.normal(size=n))  # common value not the smallest
    X[:, 3] = np.where(rng.random(n) < 0.8, np.nan, np.round(rng.random(n)))  # mostly missing
    X[:5, 4] = 1.0  # a tie for the most common value: the smaller, 0, is it
    X[5:10, 4] = 2.0
    X[10:, 4] = rng.permutation(n - 10) + 10
    prep = prepare_features(X, np.zeros(70, dtype=np.intp), 255)
    bits, features = prep.off_common
    held = [pd.Series(X[:, j]).value_counts().max() for j in range(70)]
    assert len(features) == 64 and 0 not in features and 2 in features
    assert min(held[j] for j in features) >= max(held[j] for j in set(range(70)) - set(features) - {0})
    np.testing.assert_array_equal(bits, _off_mode_bits(X, prep.mode[0], features))
    few = prepare_features(X[:, :8], np.zeros(8, dtype=np.intp), 255)  # all but the distinct one
    bits, features = few.off_common
    np.testing.assert_array_equal(features, np.arange(1, 8))
    np.testing.assert_array_equal(bits, _off_mode_bits(X, prep.mode[0], features))
    assert few.mode[0][4] == 1.0  # held by as many rows as 2.0


@pytest.mark.parametrize("seed", range(4))
def test_varies_in_runs_is_whether_a_run_holds_two_values(seed):
    """Runs back to back along the last axis, of one row or many, 1-D and 2-D: a run
    varies exactly when it holds two different values, whatever its neighbours hold."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=40)
    starts = np.cumsum(sizes) - sizes
    x = rng.integers(0, 3, size=(3, sizes.sum())).astype(np.int16)
    x[0] = np.repeat(np.arange(len(sizes)) % 2, sizes)  # every run constant, neighbours not
    expected = np.array([[len(np.unique(row[a:a + n])) > 1 for a, n in zip(starts, sizes, strict=True)]
                         for row in x])
    got = splitter.varies_in_runs(x, starts, starts + sizes)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(splitter.varies_in_runs(x[1], starts, starts + sizes), expected[1])
    assert not expected[0].any() and expected[1:].any() and not expected[1:].all()


def test_max_features_has_one_resolution_for_trees_and_forests():
    """0.7 of 90 features is 63 for a tree, a forest and the forest's trees alike."""
    from engine.ensemble import RandomForestClassifier
    from engine.ensemble import _base as ensemble_base
    from engine.tree import _builder

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 90)), rng.integers(0, 2, 40)
    tree = DecisionTreeClassifier(max_features=0.7, random_state=0).fit(X, y)
    forest = RandomForestClassifier(n_estimators=3, max_features=0.7, random_state=0).fit(X, y)
    assert tree.max_features_ == forest.max_features_ == 63
    assert [t.max_features_ for t in forest.estimators_] == [63, 63, 63]
    assert DecisionTreeClassifier().fit(X, y).max_features_ == 90
    assert not hasattr(ensemble_base, "resolve_max_features")  # one home: the tree builder
    assert _builder.resolve_max_features(1 / 3, 57) == 19


@pytest.mark.parametrize("k", [2, 3])
def test_the_class_rules_on_any_shape_with_ties(k):
    """plurality (ties to the last class) and a classifier's class_index (ties to the
    first) along the last axis of any shape, ties included: two classes take a shortcut
    that must agree with the general rule."""
    from engine.ensemble import RandomForestClassifier
    from engine.tree import plurality

    counts = np.random.default_rng(k).integers(0, 3, size=(4, 50, k)).astype(float)
    flat = counts.reshape(-1, k)
    last = np.array([max(i for i in range(k) if row[i] == row.max()) for row in flat])
    first = np.array([min(i for i in range(k) if row[i] == row.max()) for row in flat])
    assert (last != first).any()  # ties are there
    np.testing.assert_array_equal(plurality(counts).ravel(), last)
    forest = RandomForestClassifier(n_estimators=1).fit(np.arange(k)[:, None], np.arange(k))
    np.testing.assert_array_equal(forest.class_index(counts).ravel(), first)
    tree = DecisionTreeClassifier().fit(np.arange(k)[:, None], np.arange(k))
    np.testing.assert_array_equal(tree.class_index(counts).ravel(), last)
