"""Pruning: cost-complexity against scikit-learn, χ² against scipy and hand-worked splits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier as SkTree

from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor, prune_to_alpha
from engine.tree._criteria import entropy, gini
from engine.tree._prune import (
    _branch_sums,
    _fold_ids,
    _preorder,
    _prune_sequence,
    ccp_path,
    chi2_sf,
    chi2_statistic,
    choose_ccp_alpha_cv,
    prune_ccp,
    prune_chi2,
)
from engine.tree._tree import Tree, plurality


def hand_tree(children: dict[int, list[int]], value: list[list[float]]) -> Tree:
    """A classification Tree from {node: child ids} and class counts per node (gini impurity)."""
    value = np.asarray(value, dtype=np.float64)
    n = len(value)
    left, right = np.full(n, -1), np.full(n, -1)
    parent, depth = np.full(n, -1), np.zeros(n, dtype=np.intp)
    for node in sorted(children):
        kids = children[node]
        assert kids == list(range(kids[0], kids[-1] + 1)), "siblings must be contiguous"
        left[node], right[node] = kids[0], kids[-1]
        parent[kids] = node
        depth[kids] = depth[node] + 1
    leaf = left < 0
    kind = np.where(leaf, 0, np.where(right - left > 1, 3, 1)).astype(np.int8)
    return Tree(
        children_left=left,
        children_right=right,
        feature=np.where(leaf, -2, 0),
        threshold=np.where(kind == 1, 0.5, np.nan),
        split_kind=kind,
        category_count=np.zeros(n),
        category_children=np.zeros(0),
        missing_child=np.where(leaf, -1, left),
        unseen_child=np.full(n, -1),
        value=value,
        impurity=gini(value),
        n_node_samples=value.sum(axis=1).astype(np.intp),
        weighted_n_node_samples=value.sum(axis=1),
        depth=depth,
        parent=parent,
    )


def from_sklearn(sk) -> Tree:
    """Our Tree holding a fitted scikit-learn ``tree_``, renumbered breadth-first.

    Breadth-first numbering makes siblings contiguous, as our Tree requires.
    """
    order = [0]
    for old in order:  # grows while iterating: a breadth-first walk
        if sk.children_left[old] >= 0:
            order += [sk.children_left[old], sk.children_right[old]]
    order = np.array(order)
    new = np.empty(sk.node_count, dtype=np.intp)
    new[order] = np.arange(len(order))
    children = {
        int(new[o]): [int(new[sk.children_left[o]]), int(new[sk.children_right[o]])]
        for o in order
        if sk.children_left[o] >= 0
    }
    weight = sk.weighted_n_node_samples[order]
    tree = hand_tree(children, sk.value[order][:, 0, :] * weight[:, None])  # proportions → counts
    tree.impurity = sk.impurity[order].copy()
    tree.weighted_n_node_samples = weight.copy()
    tree.feature = np.where(tree.children_left < 0, -2, sk.feature[order])
    tree.threshold = np.where(tree.children_left < 0, np.nan, sk.threshold[order])
    return tree


def preorder_splits(left, right, feature, threshold) -> tuple[list, np.ndarray]:
    """Features (-2 at leaves) and thresholds depth-first: equal iff the trees are equal."""
    features, thresholds, stack = [], [], [0]
    while stack:
        node = stack.pop()
        leaf = left[node] < 0
        features.append(-2 if leaf else int(feature[node]))
        thresholds.append(0.0 if leaf else float(threshold[node]))
        if not leaf:
            stack += [right[node], left[node]]
    return features, np.array(thresholds)


def assert_same_tree(ours: Tree, sk) -> None:
    t = sk.tree_
    features, thresholds = preorder_splits(
        ours.children_left, ours.children_right, ours.feature, ours.threshold
    )
    sk_features, sk_thresholds = preorder_splits(
        t.children_left, t.children_right, t.feature, t.threshold
    )
    assert features == sk_features
    # scikit-learn takes midpoints of float32 copies of X; ours are float64.
    assert_allclose(thresholds, sk_thresholds, rtol=0, atol=1e-6)


@pytest.fixture(scope="module")
def tie_free():
    return make_classification(
        n_samples=3000, n_features=8, n_informative=5, n_redundant=0, n_classes=3, random_state=0
    )


# --- the χ² distribution and statistic ----------------------------------------------


def test_chi2_sf_matches_scipy():
    rng = np.random.default_rng(0)
    df = np.r_[rng.integers(1, 400, 3000), [1, 1, 2, 3, 1, 50, 1000]].astype(float)
    x = np.r_[df[:3000] * rng.uniform(0, 4, 3000), [1e-9, 0.5, 2.0, 700.0, 1500.0, 49.0, 1010.0]]
    expected = stats.chi2.sf(x, df)
    with np.errstate(all="raise"):
        ours = chi2_sf(x, df)
    representable = expected > 1e-280
    assert representable.sum() > 2900
    # Series and continued fraction both converge to full double precision; 1e-11 leaves
    # room for lgamma and exp rounding on the larger degrees of freedom.
    assert_allclose(ours[representable], expected[representable], rtol=1e-11)
    assert_allclose(ours, expected, atol=1e-300)
    assert chi2_sf(0.0, 3) == 1.0


def test_chi2_sf_large_degrees_of_freedom():
    # Many children × classes: the expansions need O(√df) terms and exp(−x/2) underflows.
    df = np.repeat([1e4, 1e5], 40)
    x = df * np.tile(np.linspace(0.9, 1.1, 40), 2)
    expected = stats.chi2.sf(x, df)
    with np.errstate(all="raise"):
        ours = chi2_sf(x, df)
    # lgamma(5e4) ≈ 5e5 loses ~1e-11 relative in exp(−x/2 + a log(x/2) − lgamma(a)).
    assert_allclose(ours, expected, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize(
    "table",
    [
        [[2, 2], [2, 6]],
        [[10, 3], [4, 12]],
        [[5, 1, 7], [2, 9, 3]],
        [[12, 0, 3], [1, 8, 2], [4, 4, 9], [0, 1, 6]],
        [[30.5, 2.25], [7.0, 11.75], [3.0, 3.0]],
    ],
)
def test_chi2_statistic_matches_scipy_contingency(table):
    statistic, dof, p_value = chi2_statistic(table)
    expected_stat, expected_p, expected_dof, _ = stats.chi2_contingency(table, correction=False)
    assert_allclose(statistic, expected_stat, rtol=1e-12)
    assert dof == expected_dof
    assert_allclose(p_value, expected_p, rtol=1e-10)


def test_chi2_statistic_drops_empty_children_and_classes():
    # An empty ID3 branch and an absent class carry no information.
    padded = chi2_statistic([[3, 0, 1], [0, 0, 0], [1, 0, 5]])
    assert padded == pytest.approx(chi2_statistic([[3, 1], [1, 5]]), rel=1e-12)
    assert chi2_statistic([[4, 0], [6, 0]]) == (0.0, 0, 1.0)


# --- χ² pruning -----------------------------------------------------------------------


def test_weak_split_pruned_strong_split_kept():
    # Root (24/28) splits into A = 4/8 (a weak 2/2 + 2/6, gain 0.04411)
    # and B = 20/20 (perfectly separated into 20/0 + 0/20).
    tree = hand_tree(
        {0: [1, 2], 1: [3, 4], 2: [5, 6]},
        [[24, 28], [4, 8], [20, 20], [2, 2], [2, 6], [20, 0], [0, 20]],
    )
    assert (
        round(float(entropy([4, 8]) - (4 * entropy([2, 2]) + 8 * entropy([2, 6])) / 12), 5)
        == 0.04411
    )
    pruned = prune_chi2(tree, 0.05)
    assert pruned.node_count == 5
    assert_array_equal(pruned.value, [[24, 28], [4, 8], [20, 20], [20, 0], [0, 20]])
    assert pruned.is_leaf(1) and not pruned.is_leaf(2)
    # At level 0.5 the weak split (p = 0.3865) is significant and stays.
    assert prune_chi2(tree, 0.5).node_count == tree.node_count


def test_chi2_pruning_repeats_until_every_split_is_significant():
    # A zero-gain split under another one: once the lower one goes, the root's split is a
    # frontier split with no deviation either, and goes too.
    tree = hand_tree({0: [1, 2], 1: [3, 4]}, [[8, 8], [4, 4], [4, 4], [2, 2], [2, 2]])
    pruned = prune_chi2(tree, 0.05)
    assert pruned.node_count == 1
    assert_array_equal(pruned.value, [[8, 8]])


def test_chi2_pruning_multiway_split():
    strong = hand_tree({0: [1, 2, 3]}, [[15, 15], [10, 0], [0, 10], [5, 5]])
    weak = hand_tree({0: [1, 2, 3]}, [[15, 15], [6, 4], [4, 6], [5, 5]])
    _, _, p_strong = chi2_statistic([[10, 0], [0, 10], [5, 5]])
    _, _, p_weak = chi2_statistic([[6, 4], [4, 6], [5, 5]])
    assert p_strong < 0.05 < p_weak
    assert prune_chi2(strong, 0.05).node_count == 4
    assert prune_chi2(weak, 0.05).node_count == 1


def test_chi2_pruning_ignores_empty_branch_values():
    # The builder gives an empty ID3 branch its parent's counts (to predict the parent's
    # plurality) with zero weight; those counts are not observations.
    tree = hand_tree({0: [1, 2, 3]}, [[6, 6], [6, 0], [6, 6], [0, 6]])
    tree.weighted_n_node_samples[2] = 0.0
    tree.n_node_samples[2] = 0
    _, _, p_value = chi2_statistic([[6, 0], [0, 6]])  # 0.00053; with the phantom row 0.0025
    assert 0.0005 < p_value < 0.001
    assert prune_chi2(tree, 0.001).node_count == 4
    assert prune_chi2(tree, 0.0005).node_count == 1


def test_chi2_pruning_equals_recursive_definition(tie_free):
    # The pruning rule written recursively: a node ends as a leaf when all its children do
    # and its own split is not significant. Compare the surviving splits.
    X, y = tie_free
    tree = DecisionTreeClassifier(max_depth=7).fit(X[:600], y[:600]).tree_

    def becomes_leaf(node: int, kept: list) -> bool:
        kids = list(tree.children(node))
        if not kids:
            return True
        children_leaves = [becomes_leaf(k, kept) for k in kids]
        if all(children_leaves) and chi2_statistic(tree.value[kids])[2] >= 0.05:
            return True
        kept.append(node)
        return False

    kept: list = []
    becomes_leaf(0, kept)
    pruned = prune_chi2(tree, 0.05)
    assert 0 < len(kept) < np.sum(tree.children_left >= 0)
    internal = pruned.children_left >= 0
    surviving = zip(pruned.feature[internal], pruned.threshold[internal], strict=True)
    assert sorted(surviving) == sorted(zip(tree.feature[kept], tree.threshold[kept], strict=True))


# --- cost-complexity pruning against scikit-learn ---------------------------------------


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_depth", [4, None])
def test_ccp_path_of_sklearn_tree_equals_sklearn_path(tie_free, criterion, max_depth):
    X, y = tie_free
    sk = SkTree(criterion=criterion, max_depth=max_depth, random_state=0).fit(X, y)
    expected = sk.cost_complexity_pruning_path(X, y)
    alphas, impurities = ccp_path(from_sklearn(sk.tree_))
    # Same sums in the same order: equal to the last bit, ties (full depth has many) included.
    assert_array_equal(alphas, expected.ccp_alphas)
    assert_array_equal(impurities, expected.impurities)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_prune_ccp_of_sklearn_tree_equals_sklearn_ccp_fit(tie_free, criterion):
    X, y = tie_free
    sk = SkTree(criterion=criterion, random_state=0).fit(X, y)
    tree = from_sklearn(sk.tree_)
    alphas = sk.cost_complexity_pruning_path(X, y).ccp_alphas
    for alpha in np.r_[alphas[::25], alphas[-2]]:
        expected = SkTree(criterion=criterion, random_state=0, ccp_alpha=alpha).fit(X, y)
        pruned = prune_ccp(tree, alpha)
        assert pruned.node_count == expected.tree_.node_count
        assert_same_tree(pruned, expected)


def test_sklearn_entropy_is_in_bits(tie_free):
    X, y = tie_free
    sk = SkTree(criterion="entropy", max_depth=1, random_state=0).fit(X, y)
    assert_allclose(sk.tree_.impurity[0], entropy(np.bincount(y)), rtol=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_our_tree_path_and_pruning_equal_sklearn(tie_free, criterion):
    X, y = tie_free
    ours = DecisionTreeClassifier(criterion=criterion, max_depth=4).fit(X, y)
    sk = SkTree(criterion=criterion, max_depth=4, random_state=0).fit(X, y)
    path = ours.cost_complexity_pruning_path(X, y)
    expected = sk.cost_complexity_pruning_path(X, y)
    assert_allclose(path.ccp_alphas, expected.ccp_alphas, rtol=1e-9, atol=1e-15)
    assert_allclose(path["impurities"], expected.impurities, rtol=1e-9)
    # Between consecutive path alphas, so rounding cannot put them on different sides.
    for alpha in (expected.ccp_alphas[1:] + expected.ccp_alphas[:-1]) / 2:
        pruned = prune_ccp(ours.tree_, alpha)
        sk_pruned = SkTree(criterion=criterion, max_depth=4, random_state=0, ccp_alpha=alpha).fit(
            X, y
        )
        assert pruned.node_count == sk_pruned.tree_.node_count
        assert pruned.n_leaves == sk_pruned.get_n_leaves()
        assert_same_tree(pruned, sk_pruned)


def test_ccp_path_by_hand():
    # Root 6/6 → node 1 = 5/2 (→ 4/1 + 1/1, a weak split) and leaf 2 = 1/4.
    tree = hand_tree({0: [1, 2], 1: [3, 4]}, [[6, 6], [5, 2], [1, 4], [4, 1], [1, 1]])
    r1, r2 = 7 / 12 * gini([5, 2]), 5 / 12 * gini([1, 4])
    r_leaves_1 = 5 / 12 * gini([4, 1]) + 2 / 12 * gini([1, 1])
    alpha_1 = (r1 - r_leaves_1) / (2 - 1)  # weakest link first: node 1
    alpha_0 = (gini([6, 6]) - (r1 + r2)) / (2 - 1)
    alphas, impurities = ccp_path(tree)
    assert_allclose(alphas, [0.0, alpha_1, alpha_0], rtol=1e-12)
    assert_allclose(impurities, [r_leaves_1 + r2, r1 + r2, gini([6, 6])], rtol=1e-12)
    assert_array_equal(prune_ccp(tree, 0.0).value, tree.value)
    assert prune_ccp(tree, (alpha_1 + alpha_0) / 2).node_count == 3
    assert prune_ccp(tree, alphas[-1]).node_count == 1
    assert prune_ccp(tree, np.nextafter(alphas[-1], 0)).node_count == 3


def _every_candidate_each_step(tree):
    """The weakest-link steps found the plain way: at every step the α of every
    candidate from the running sums, the least (first depth-first among equals) taken."""
    w = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)
    r_node = w * np.asarray(tree.impurity, dtype=np.float64) / w[0]
    position, size = _preorder(tree)
    r_branch, n_leaves = (np.array(a) for a in _branch_sums(tree, r_node, position))
    candidate, steps = tree.children_left >= 0, []
    while candidate[0]:
        ids = np.flatnonzero(candidate)
        alphas = (r_node[ids] - r_branch[ids]) / (n_leaves[ids] - 1)
        ties = ids[alphas == alphas.min()]
        node = int(ties[np.argmin(position[ties])])
        inside = (position >= position[node]) & (position < position[node] + size[node])
        ancestors = (position < position[node]) & (position + size > position[node])
        candidate[inside] = False
        r_diff, n_lost = r_node[node] - r_branch[node], n_leaves[node] - 1
        r_branch[node], n_leaves[node] = r_node[node], 1
        r_branch[ancestors] += r_diff
        n_leaves[ancestors] -= n_lost
        steps.append((alphas.min(), node, r_branch[0]))
    return steps


@pytest.mark.parametrize("seed", range(12))
def test_the_weakest_links_are_those_of_every_candidate_each_step(seed):
    """The heap of candidates takes the same steps, to the bit, as recomputing every
    candidate's α at every step, on trees of many equal values (many equal α)."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(200, 800)), int(rng.integers(2, 5))
    X = rng.integers(0, int(rng.integers(5, 30)), size=(n, p)).astype(float)
    weight = rng.integers(1, 4, n).astype(float) if seed % 2 else None
    if seed % 3 == 0:
        model = DecisionTreeRegressor().fit(X, rng.normal(size=n).round(1), sample_weight=weight)
    else:
        model = DecisionTreeClassifier().fit(X, rng.integers(0, 3, n), sample_weight=weight)
    expected = _every_candidate_each_step(model.tree_)
    alphas, nodes = _prune_sequence(model.tree_)
    assert len(expected) > 20
    assert_array_equal(alphas, [a for a, _, _ in expected])
    assert_array_equal(nodes, [node for _, node, _ in expected])
    assert_array_equal(ccp_path(model.tree_)[1][1:], [r for _, _, r in expected])


# --- α by cross-validation -------------------------------------------------------------


def test_choose_ccp_alpha_cv_equals_refitting_each_alpha():
    X, y = make_classification(
        n_samples=300, n_features=5, n_informative=3, n_redundant=0, random_state=1
    )
    template = DecisionTreeClassifier(max_depth=6)
    best, table = choose_ccp_alpha_cv(template, X, y, cv=4, random_state=0)
    full = DecisionTreeClassifier(max_depth=6).fit(X, y)
    assert_array_equal(table["alpha"], np.unique(ccp_path(full.tree_)[0]))
    folds = _fold_ids(y, len(y), 4, np.random.default_rng(0))
    for i in [0, len(table) // 2, len(table) - 1]:
        alpha = table["alpha"].iat[i]
        errors = []
        for k in range(4):
            train, valid = folds != k, folds == k
            model = DecisionTreeClassifier(max_depth=6, ccp_alpha=alpha).fit(X[train], y[train])
            errors.append(np.mean(model.predict(X[valid]) != y[valid]))
        assert table["cv_error"].iat[i] == pytest.approx(np.mean(errors), abs=1e-12)
        assert table["cv_error_std"].iat[i] == pytest.approx(np.std(errors), abs=1e-12)
        assert (
            table["n_leaves"].iat[i]
            == DecisionTreeClassifier(max_depth=6, ccp_alpha=alpha).fit(X, y).get_n_leaves()
        )
    lowest = table["cv_error"].min()
    assert (
        best == table.loc[np.isclose(table["cv_error"], lowest, rtol=0, atol=1e-12), "alpha"].max()
    )


@pytest.mark.parametrize("regression", [False, True])
def test_a_grown_tree_pruned_to_an_alpha_is_the_tree_fitted_with_it(regression):
    """prune_to_alpha prunes the fitted whole tree as a fit with ccp_alpha does, at every
    α of the path and between them, without growing it again."""
    X, y = make_classification(n_samples=400, n_features=6, n_informative=4,
                               n_redundant=0, random_state=3)
    if regression:
        y = X[:, 0] + 0.3 * np.random.default_rng(0).normal(size=len(y))
    make = DecisionTreeRegressor if regression else DecisionTreeClassifier
    full = make(max_depth=8, random_state=0).fit(X, y)
    alphas = np.unique(ccp_path(full.tree_)[0])
    for alpha in np.r_[alphas[::7], (alphas[1:3] + alphas[:2]) / 2, alphas[-1]]:
        expected = make(max_depth=8, random_state=0, ccp_alpha=alpha).fit(X, y)
        pruned = prune_to_alpha(full, alpha)
        assert pruned.ccp_alpha == alpha and pruned.get_params() == expected.get_params()
        for name in ("children_left", "feature", "threshold", "value", "n_node_samples"):
            assert_array_equal(getattr(pruned.tree_, name), getattr(expected.tree_, name))
        assert_array_equal(pruned.feature_importances_, expected.feature_importances_)
        assert_array_equal(pruned.predict(X), expected.predict(X))
    assert full.ccp_alpha == 0.0 and full.tree_.node_count > pruned.tree_.node_count  # untouched
    with pytest.raises(ValueError, match="without pruning"):
        prune_to_alpha(expected, 0.1)
    with pytest.raises(ValueError, match="non-negative"):
        prune_to_alpha(full, -1.0)


def test_a_grown_tree_pruned_by_chi2_is_the_tree_fitted_with_it():
    """prune_to_alpha with chi2_alpha (alone or after a ccp_alpha) is the fit with those
    parameters, without growing the tree again."""
    X, y = make_classification(n_samples=400, n_features=6, n_informative=4,
                               n_redundant=0, flip_y=0.2, random_state=5)
    full = DecisionTreeClassifier(random_state=0).fit(X, y)
    for ccp, chi2 in ((0.0, 0.05), (0.0, 0.01), (0.004, 0.01)):
        expected = DecisionTreeClassifier(random_state=0, ccp_alpha=ccp, chi2_alpha=chi2).fit(X, y)
        pruned = prune_to_alpha(full, ccp, chi2_alpha=chi2)
        assert pruned.get_params() == expected.get_params()
        assert 1 < pruned.tree_.node_count < full.tree_.node_count
        for name in ("children_left", "feature", "threshold", "value", "n_node_samples"):
            assert_array_equal(getattr(pruned.tree_, name), getattr(expected.tree_, name))
        assert_array_equal(pruned.feature_importances_, expected.feature_importances_)
    with pytest.raises(ValueError, match="chi2_alpha"):
        prune_to_alpha(full, chi2_alpha=1.5)
    assert full.chi2_alpha is None


def test_choose_ccp_alpha_cv_takes_the_whole_tree_it_is_given():
    X, y = make_classification(n_samples=300, n_features=5, n_informative=3,
                               n_redundant=0, random_state=1)
    template = DecisionTreeClassifier(max_depth=6)
    best, table = choose_ccp_alpha_cv(template, X, y, cv=4, random_state=0)
    full = DecisionTreeClassifier(max_depth=6).fit(X, y)
    again, same = choose_ccp_alpha_cv(template, X, y, cv=4, random_state=0, full=full)
    assert again == best
    pd.testing.assert_frame_equal(same, table)


def test_choose_ccp_alpha_cv_reports_each_step_and_chooses_the_same():
    """The whole data's path, then each fold's tree and its errors: 2 · cv + 1 steps in
    order, and the same α and table as without a progress callback."""
    X, y = make_classification(n_samples=300, n_features=5, n_informative=3,
                               n_redundant=0, random_state=2)
    template = DecisionTreeClassifier(max_depth=6)
    best, table = choose_ccp_alpha_cv(template, X, y, cv=4, random_state=0)
    steps = []
    again, same = choose_ccp_alpha_cv(template, X, y, cv=4, random_state=0,
                                      progress=lambda done, total: steps.append((done, total)))
    assert steps == [(k, 9) for k in range(1, 10)]
    assert again == best
    pd.testing.assert_frame_equal(same, table)


@pytest.mark.parametrize("kind", ["classifier", "regressor", "mixed", "multiway"])
def test_errors_along_the_path_equal_pruning_and_scoring_each_alpha(kind):
    """One walk of the validation rows gives, for every α, the error of the tree pruned
    at that α and scored in full (counts exactly; squared errors to rounding)."""
    from engine.tree import DecisionTreeRegressor
    from engine.tree._prune import (
        _collapse_until,
        _errors_along_path,
        _leaf_counts,
        _prune_sequence,
    )
    from tests.engine.test_estimator_checks import mixed_frame, numeric_data

    if kind in ("mixed", "multiway"):
        X, y = mixed_frame("classifier")
        params = {"categorical_split": "multiway"} if kind == "multiway" else {}
        model = DecisionTreeClassifier(random_state=0, **params)
    else:
        X, y = numeric_data(kind, 400, seed=7)
        X[np.random.default_rng(1).random(X.shape) < 0.05] = np.nan
        model = (DecisionTreeClassifier if kind == "classifier" else DecisionTreeRegressor)(
            random_state=0)
    half = len(y) // 2
    rows = (lambda a: a.iloc[:half], lambda a: a.iloc[half:]) if hasattr(X, "iloc") else \
        (lambda a: a[:half], lambda a: a[half:])
    y = np.asarray(y)
    model.fit(rows[0](X), y[:half])
    X_valid, y_valid = model.encoder_.transform(rows[1](X)), y[half:]
    sequence = _prune_sequence(model.tree_)
    assert len(sequence[0]) > 5
    alphas = np.unique(np.r_[0.0, sequence[0], sequence[0] * 1.5, 1e9])
    found = _errors_along_path(model, *sequence, alphas, X_valid, y_valid)
    leaves = _leaf_counts(model.tree_, *sequence, alphas)
    for j, alpha in enumerate(alphas):
        pruned = _collapse_until(model.tree_, *sequence, alpha)
        value = pruned.value[pruned.apply(X_valid)]
        assert leaves[j] == pruned.n_leaves
        if kind == "regressor":
            assert found[j] == pytest.approx(np.mean((y_valid - value[:, 0]) ** 2), rel=1e-12)
        else:
            assert found[j] == np.mean(model.classes_[plurality(value)] != y_valid)


def test_folds_are_stratified():
    y = np.repeat([0, 1, 2], [50, 31, 7])
    folds = _fold_ids(y, len(y), 5, np.random.default_rng(3))
    per_fold = np.array([[np.sum((folds == k) & (y == c)) for c in range(3)] for k in range(5)])
    assert np.ptp(per_fold, axis=0).max() <= 1
    assert np.ptp(per_fold.sum(axis=1)) <= 1
