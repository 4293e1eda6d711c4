"""Textbook trees and numbers (../shared/REFERENCE.md) reproduced through the estimators.

Each test fits a DecisionTreeClassifier the way the textbooks build the tree and reads
the answer off the fitted model: its predictions, its ``tree_`` arrays, or the whole tree
turned into the nested ``{attribute: {value: subtree or class}}`` form the textbooks draw.
Per-attribute gains at a node are tested through ``engine.inspection.split_candidates``
elsewhere; here only the split the tree actually makes is checked.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.tree import DecisionTreeClassifier
from engine.tree._criteria import entropy, gini, misclassification

ID3 = {"criterion": "entropy", "categorical_split": "multiway"}
LN2 = np.log(2.0)


pytestmark = pytest.mark.usefixtures("raise_on_float_errors")


# --------------------------------------------------------------------------- the tree as a dict


def _probe_row(template: pd.DataFrame, path: dict) -> pd.DataFrame:
    row = template.iloc[[0]].copy()
    for name, value in path.items():
        row[name] = value
    return row


def _leaf_label(model, template: pd.DataFrame, path: dict, node: int):
    """The class the model predicts for a row that reaches this leaf.

    Read through ``predict`` rather than ``argmax(value)`` so that the tie rule for an
    empty branch (its parent's plurality) is the one the user actually sees.
    """
    row = _probe_row(template, path)
    assert model.apply(row)[0] == node, f"probe {path} did not reach leaf {node}"
    return model.predict(row)[0]


def nested_tree(model, template: pd.DataFrame, node: int = 0, path: dict | None = None):
    """``{feature: {category: subtree or class label}}`` for a tree of categorical splits.

    Branches come from ``tree_.children_by_code`` (child node per category code) and
    category names from ``categories_``; leaves are labelled by prediction.
    """
    path = path or {}
    t = model.tree_
    if t.children_left[node] == -1:
        return _leaf_label(model, template, path, node)
    j = int(t.feature[node])
    name = model.feature_names_in_[j]
    branches = {}
    for code, category in enumerate(model.categories_[j]):
        child = int(t.children_by_code(node)[code])
        branches[category] = nested_tree(model, template, child, {**path, name: category})
    return {name: branches}


def tree_differences(ours, expected, path: str = "") -> list[str]:
    """Where two nested trees differ, as readable paths (for the assertion message)."""
    if isinstance(ours, dict) and isinstance(expected, dict):
        if ours.keys() != expected.keys():
            return [f"{path or 'root'}: {sorted(ours)} != expected {sorted(expected)}"]
        return [d for key in expected
                for d in tree_differences(ours[key], expected[key], f"{path}/{key}")]
    return [] if ours == expected else [f"{path}: {ours!r} != expected {expected!r}"]


def root_gain(model) -> float:
    """Gain of the root split read off the tree: I(root) − Σ_k (N_k / N) I(child_k)."""
    t = model.tree_
    children = np.arange(t.children_left[0], t.children_right[0] + 1)
    weighted = np.sum(t.weighted_n_node_samples[children] * t.impurity[children])
    return float(t.impurity[0] - weighted / t.weighted_n_node_samples[0])


def fit_id3(frame: pd.DataFrame, target: str, **params) -> tuple[DecisionTreeClassifier, pd.DataFrame]:
    X, y = frame.drop(columns=[target]), frame[target]
    return DecisionTreeClassifier(**ID3, **params).fit(X, y), X


# --------------------------------------------------------------------------- loan


@pytest.fixture
def loan(read_data) -> pd.DataFrame:
    return read_data("loan.csv")


def test_loan_root_only_predicts_majority(loan):
    """A node with fewer rows than min_samples_split is a leaf: the root-only tree."""
    X, y = loan.drop(columns=["y"]), loan["y"]
    model = DecisionTreeClassifier(min_samples_split=len(y) + 1).fit(X, y)
    assert model.get_n_leaves() == 1
    assert set(model.predict(X)) == {"safe"}
    assert model.score(X, y) == pytest.approx(6 / 9)


@pytest.mark.parametrize("attribute, accuracy", [("Credit", 7 / 9), ("Term", 6 / 9), ("Income", 6 / 9)])
def test_loan_one_split_accuracy(loan, attribute, accuracy):
    X, y = loan[[attribute]], loan["y"]
    model = DecisionTreeClassifier(
        criterion="misclassification", categorical_split="multiway", max_depth=1
    ).fit(X, y)
    assert model.score(X, y) == pytest.approx(accuracy)


def test_loan_misclassification_stump_chooses_credit(loan):
    X, y = loan.drop(columns=["y"]), loan["y"]
    model = DecisionTreeClassifier(
        criterion="misclassification", categorical_split="multiway", max_depth=1
    ).fit(X, y)
    assert model.feature_names_in_[model.tree_.feature[0]] == "Credit"
    assert model.score(X, y) == pytest.approx(7 / 9)
    assert model.tree_.impurity[0] == pytest.approx(3 / 9)


def test_loan_id3_stump_splits_on_credit(loan):
    """Information gain: Credit 0.2516 beats Term 0.0728 and Income 0.0183."""
    model, _ = fit_id3(loan, "y", max_depth=1)
    assert model.feature_names_in_[model.tree_.feature[0]] == "Credit"
    assert round(root_gain(model), 4) == 0.2516


# --------------------------------------------------------------------------- hand-worked splits


def _threshold_data(blocks: list[tuple[float, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """One numeric feature: (value, n of class 1, n of class 0) per block of rows."""
    x = np.concatenate([[v] * (a + b) for v, a, b in blocks]).reshape(-1, 1)
    y = np.concatenate([[1] * a + [0] * b for _, a, b in blocks])
    return x, y


def test_misclassification_makes_no_progress():
    """Parent 10/6: splits 2/0 + 8/6 and 4/0 + 6/6 both keep the 0/1 loss at 6, so a
    misclassification tree does not split; entropy takes 4/0 + 6/6 (gain 0.2044)."""
    X, y = _threshold_data([(1.0, 1, 0), (2.0, 1, 0), (3.0, 1, 0), (4.0, 1, 0), (5.0, 6, 6)])
    error_tree = DecisionTreeClassifier(criterion="misclassification").fit(X, y)
    assert error_tree.get_n_leaves() == 1
    assert error_tree.tree_.impurity[0] * 16 == pytest.approx(6)
    entropy_tree = DecisionTreeClassifier(criterion="entropy", max_depth=1).fit(X, y)
    assert entropy_tree.tree_.threshold[0] == 4.5
    assert round(root_gain(entropy_tree), 4) == 0.2044


def test_stump_prefers_the_larger_gain():
    """4 positives of 12: c1 gives 2/4 + 2/8 (gain 0.04411), c2 gives 3/5 + 1/7 (0.16859)."""
    positive = np.arange(12) < 4
    c1 = np.isin(np.arange(12), [0, 1, 4, 5])      # left: rows 0, 1 positive; 4, 5 negative
    c2 = np.isin(np.arange(12), [0, 1, 2, 4, 5])   # left: rows 0-2 positive; 4, 5 negative
    X = np.column_stack([~c1, ~c2]).astype(float)  # x <= 0.5 goes left
    model = DecisionTreeClassifier(criterion="entropy", max_depth=1).fit(X, positive.astype(int))
    assert model.tree_.feature[0] == 1
    assert round(root_gain(model), 5) == 0.16859
    only_c1 = DecisionTreeClassifier(criterion="entropy", max_depth=1).fit(X[:, :1], positive)
    assert round(root_gain(only_c1), 5) == 0.04411


# --------------------------------------------------------------------------- restaurant (AIMA)

AIMA_FIG_18_6 = {
    "Patrons": {
        "None": "No",
        "Some": "Yes",
        "Full": {
            "Hungry": {
                "No": "No",
                "Yes": {
                    "Type": {
                        "French": "Yes",
                        "Italian": "No",
                        "Thai": {"Fri/Sat": {"No": "No", "Yes": "Yes"}},
                        "Burger": "Yes",
                    }
                },
            }
        },
    }
}


@pytest.fixture
def restaurant(read_data) -> pd.DataFrame:
    # "None" is a value of Patrons, not a missing value.
    frame = read_data("restaurant.csv", keep_default_na=False)
    return frame.drop(columns=["Example"], errors="ignore")


def test_restaurant_id3_is_aima_figure_18_6(restaurant):
    model, X = fit_id3(restaurant, "WillWait")
    tree = nested_tree(model, X)
    assert tree == AIMA_FIG_18_6, tree_differences(tree, AIMA_FIG_18_6)
    assert model.score(X, restaurant["WillWait"]) == 1.0


def test_restaurant_id3_arrays(restaurant):
    """Multiway splits: one child per category, contiguous, in category-code order."""
    model, _ = fit_id3(restaurant, "WillWait")
    t = model.tree_
    internal = np.flatnonzero(t.children_left != -1)
    assert (t.split_kind[internal] == 3).all()
    for node in internal:
        k = len(model.categories_[t.feature[node]])
        children = np.arange(t.children_left[node], t.children_right[node] + 1)
        assert len(children) == k
        assert t.children_by_code(node)[:k].tolist() == children.tolist()
    assert model.get_depth() == 4
    assert model.get_n_leaves() == 8


def test_restaurant_root_gain_patrons(restaurant):
    """Root: entropy 1 bit; Patrons leaves 0.459 bits (gain 0.541)."""
    model, _ = fit_id3(restaurant, "WillWait", max_depth=1)
    assert model.feature_names_in_[model.tree_.feature[0]] == "Patrons"
    assert model.tree_.impurity[0] == pytest.approx(1.0)
    assert round(1.0 - root_gain(model), 3) == 0.459
    assert round(root_gain(model), 4) == 0.5409


def test_restaurant_empty_branch_holds_no_rows(restaurant):
    """French under Patrons=Full, Hungry=Yes: an empty branch, answered by its parent (2-2)."""
    model, X = fit_id3(restaurant, "WillWait")
    row = _probe_row(X, {"Patrons": "Full", "Hungry": "Yes", "Type": "French"})
    leaf = model.apply(row)[0]
    parent = model.tree_.parent[leaf]
    assert model.tree_.n_node_samples[leaf] == 0
    assert model.tree_.n_node_samples[parent] == 4
    assert model.predict(row)[0] == "Yes"


# --------------------------------------------------------------------------- PlayTennis (Mitchell)

MITCHELL_FIG_3_1 = {
    "Outlook": {
        "Overcast": "Yes",
        "Rain": {"Wind": {"Strong": "No", "Weak": "Yes"}},
        "Sunny": {"Humidity": {"High": "No", "Normal": "Yes"}},
    }
}


@pytest.fixture
def playtennis(read_data) -> pd.DataFrame:
    return read_data("playtennis.csv").drop(columns=["Day"], errors="ignore")


def test_playtennis_root_entropy(playtennis):
    model, _ = fit_id3(playtennis, "PlayTennis")
    assert round(float(model.tree_.impurity[0]), 3) == 0.940


def test_playtennis_id3_tree(playtennis):
    model, X = fit_id3(playtennis, "PlayTennis")
    tree = nested_tree(model, X)
    assert tree == MITCHELL_FIG_3_1, tree_differences(tree, MITCHELL_FIG_3_1)


# --------------------------------------------------------------------------- shirt colour


def shirt_data() -> tuple[pd.DataFrame, pd.Series]:
    colour = ["G"] * 3 + ["B"] * 2 + ["R"] * 4
    label = ["Y", "Y", "Y"] + ["Y", "N"] + ["N"] * 4
    return pd.DataFrame({"colour": colour}), pd.Series(label, name="label")


def test_shirt_entropies_from_counts():
    """S = 0.6870 nats for 4 Y / 5 N; S' = (0·3 + ln2·2 + 0·4)/9 = 2 ln 2 / 9 = 0.1540."""
    parent = entropy(np.array([4.0, 5.0]), base=np.e)
    children = np.array([[3.0, 0.0], [1.0, 1.0], [0.0, 4.0]])
    weighted = np.sum(children.sum(axis=1) / 9 * entropy(children, base=np.e))
    assert round(float(parent), 4) == 0.6870
    assert weighted == pytest.approx(2 * LN2 / 9, rel=1e-12)
    assert round(float(weighted), 4) == 0.1540


def test_shirt_multiway_stump():
    X, y = shirt_data()
    model = DecisionTreeClassifier(**ID3, max_depth=1).fit(X, y)
    t = model.tree_
    children = np.arange(t.children_left[0], t.children_right[0] + 1)
    assert len(children) == 3
    weighted_bits = np.sum(t.weighted_n_node_samples[children] * t.impurity[children]) / 9
    assert round(float(t.impurity[0] * LN2), 4) == 0.6870
    assert weighted_bits * LN2 == pytest.approx(2 * LN2 / 9, rel=1e-12)
    # The final decision: G -> Y, R -> N, B -> P(Y) = P(N) = 1/2.
    proba = model.predict_proba(pd.DataFrame({"colour": ["G", "R", "B"]}))
    yes = list(model.classes_).index("Y")
    assert proba[:, yes].tolist() == [1.0, 0.0, 0.5]


# --------------------------------------------------------------------------- two-class formulas

PI = np.linspace(0.0, 1.0, 201)


def _two_class_counts(n: float = 37.0) -> np.ndarray:
    return np.stack([PI * n, (1 - PI) * n], axis=-1)


def _xlogx(p: np.ndarray, log) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * log(np.where(p > 0, p, 1.0)), 0.0)


def test_two_class_gini_closed_form():
    values = gini(_two_class_counts())
    np.testing.assert_allclose(values, 2 * PI * (1 - PI), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("base, log", [(2.0, np.log2), (np.e, np.log)])
def test_two_class_entropy_closed_form(base, log):
    expected = -_xlogx(PI, log) - _xlogx(1 - PI, log)
    values = entropy(_two_class_counts(), base=base)
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15)


def test_two_class_misclassification_closed_form():
    values = misclassification(_two_class_counts())
    np.testing.assert_allclose(values, 1 - np.maximum(PI, 1 - PI), rtol=1e-12, atol=1e-15)


def test_tree_impurities_follow_the_closed_forms():
    """The impurity a fitted two-class tree stores at its root is the closed form at π."""
    y = np.array([1] * 7 + [0] * 13)
    X = np.arange(20.0).reshape(-1, 1)
    pi = 7 / 20
    expected = {
        "gini": 2 * pi * (1 - pi),
        "entropy": -(pi * np.log2(pi) + (1 - pi) * np.log2(1 - pi)),
        "misclassification": min(pi, 1 - pi),
    }
    for criterion, value in expected.items():
        model = DecisionTreeClassifier(criterion=criterion, max_depth=1).fit(X, y)
        assert model.tree_.impurity[0] == pytest.approx(value, rel=1e-12)


# --------------------------------------------------------------------------- mushroom


@pytest.fixture(scope="module")
def mushroom(read_data) -> pd.DataFrame:
    return read_data("mushroom.csv")


def test_mushroom_stump_splits_on_odor(mushroom):
    X, y = mushroom.drop(columns=["edibility"]), mushroom["edibility"]
    model = DecisionTreeClassifier(**ID3, max_depth=1).fit(X, y)
    assert model.feature_names_in_[model.tree_.feature[0]] == "odor"
    assert round(root_gain(model), 4) == 0.9061


def _gain_ratios(X: pd.DataFrame, y: pd.Series) -> pd.Series:
    """C4.5's gain ratio of every attribute as a multiway split, from contingency tables."""
    ratios = {}
    for name in X.columns:
        table = pd.crosstab(X[name], y).to_numpy(dtype=float)
        sizes = table.sum(axis=1)
        gain = entropy(table.sum(axis=0)) - np.sum(sizes / sizes.sum() * entropy(table))
        split_information = entropy(sizes)  # 0 for a one-valued attribute: no split at all
        ratios[name] = gain / split_information if split_information > 0 else 0.0
    return pd.Series(ratios)


def test_mushroom_gain_ratio_penalises_many_branches(mushroom):
    """Without odor, information gain picks spore-print-color (9 values, gain 0.4807) but
    C4.5's gain ratio picks gill-size (2 values): gain / split information."""
    X, y = mushroom.drop(columns=["edibility", "odor"]), mushroom["edibility"]
    by_gain = DecisionTreeClassifier(**ID3, max_depth=1).fit(X, y)
    by_ratio = DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway",
                                      max_depth=1).fit(X, y)
    assert by_gain.feature_names_in_[by_gain.tree_.feature[0]] == "spore-print-color"
    ratios = _gain_ratios(X, y)
    chosen = by_ratio.feature_names_in_[by_ratio.tree_.feature[0]]
    assert chosen == ratios.idxmax() == "gill-size"
    t = by_ratio.tree_
    children = np.arange(t.children_left[0], t.children_right[0] + 1)
    split_information = entropy(t.weighted_n_node_samples[children])
    assert root_gain(by_ratio) / split_information == pytest.approx(ratios.max(), rel=1e-9)


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
def test_mushroom_binary_stump_splits_on_odor(mushroom, criterion):
    """With the default binary categorical split odor still wins, by a wide margin
    (its best binary entropy gain is about twice spore-print-color's)."""
    X, y = mushroom.drop(columns=["edibility"]), mushroom["edibility"]
    model = DecisionTreeClassifier(criterion=criterion, max_depth=1).fit(X, y)
    assert model.feature_names_in_[model.tree_.feature[0]] == "odor"
    assert model.tree_.split_kind[0] == 2
