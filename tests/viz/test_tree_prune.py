"""What χ² pruning removes: the same tree as the engine's pruning, and hand-worked numbers."""
import numpy as np
import pytest

from engine.data import Dataset, load_sample
from engine.tree import DecisionTreeClassifier
from engine.tree._prune import _topmost
from viz.tree_prune import chi2_removed, chi2_removed_table, split_tests


def fitted(name: str, target: str | None = None, **params):
    frame = load_sample(name)
    data = Dataset(frame, target or frame.columns[-1])
    return DecisionTreeClassifier(**params).fit(data.X_train, data.y_train), data


@pytest.mark.parametrize("name, target", [("iris", "species"), ("spambase", None),
                                          ("restaurant", "WillWait")])
@pytest.mark.parametrize("alpha", [0.05, 0.001])
def test_collapsing_the_removed_splits_gives_the_engines_pruned_tree(name, target, alpha):
    grown, data = fitted(name, target)
    pruned = DecisionTreeClassifier(chi2_alpha=alpha).fit(data.X_train, data.y_train).tree_
    removed = chi2_removed(grown.tree_, alpha)
    ours = grown.tree_.collapse(_topmost(grown.tree_, list(removed)))
    assert ours.node_count == pruned.node_count < grown.tree_.node_count
    for field in ("children_left", "feature", "threshold", "n_node_samples"):
        np.testing.assert_array_equal(getattr(ours, field), getattr(pruned, field))


def test_every_removed_split_is_not_significant_and_every_kept_leaf_parent_is():
    grown, _ = fitted("spambase", max_depth=8)
    tree, alpha = grown.tree_, 0.01
    tests = split_tests(tree)
    removed = set(chi2_removed(tree, alpha).tolist())
    assert removed and all(tests.loc[i, "p_value"] >= alpha for i in removed)
    # A kept split whose children are all leaves must be significant itself.
    for node in tests.index.difference(sorted(removed)):
        children = list(tree.children(int(node)))
        if all(tree.children_left[c] < 0 or c in removed for c in children):
            assert tests.loc[node, "p_value"] < alpha


def test_split_tests_are_pearsons_chi2_of_the_children_and_the_table_lists_them():
    # Σ (n_kq − n̂_kq)² / n̂_kq with n̂_kq = n_q n_k / n, written out again here.
    grown, _ = fitted("restaurant", "WillWait")
    tree = grown.tree_
    tests = split_tests(tree)
    for node in tests.index:
        counts = tree.value[list(tree.children(int(node)))]
        expected = counts.sum(1, keepdims=True) * counts.sum(0, keepdims=True) / counts.sum()
        keep = expected > 0
        stat = (((counts - expected) ** 2)[keep] / expected[keep]).sum()
        assert tests.loc[node, "chi2"] == pytest.approx(stat)
    table = chi2_removed_table(grown, tree, 0.05)
    assert list(table.columns) == ["node", "depth", "split", "samples", "chi2", "df", "p_value"]
    assert table["depth"].is_monotonic_decreasing
    assert (table["p_value"] >= 0.05).all() and (table["df"] == 1).all()
    assert table["split"].str.contains("∈|≤").all()
