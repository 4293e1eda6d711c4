"""split_candidates: REFERENCE.md's textbook numbers, scipy's χ², scikit-learn's root split."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier as SkTree

from engine.inspection import SPLIT_COLUMNS, split_candidates
from engine.tree import DecisionTreeClassifier
from engine.tree._criteria import entropy

ROOT = Path(__file__).resolve().parents[2]


def data_path(name: str) -> Path:
    """A bundled dataset: the project's sample_data/, else the shared originals."""
    for folder in (ROOT / "sample_data", ROOT.parent / "shared" / "data"):
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(name)


def read(name: str, drop: str | None = None) -> pd.DataFrame:
    # keep_default_na=False: restaurant's "None" and mushroom's "?" are values.
    frame = pd.read_csv(data_path(name), keep_default_na=False)
    return frame.drop(columns=[drop]) if drop else frame


def multiway(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["split"] == "multiway"].set_index("feature")


def rounded(series: pd.Series, digits: int = 4) -> dict:
    return {k: round(float(v), digits) for k, v in series.items()}


# --- REFERENCE.md --------------------------------------------------------------------


def test_loan_misclassification_and_gain():
    table = multiway(split_candidates(read("loan.csv"), y="y", criterion="misclassification"))
    correct = 9 - table["errors"]
    assert rounded(correct, 6) == {"Credit": 7, "Term": 6, "Income": 6}
    assert rounded(table["info_gain"]) == {"Credit": 0.2516, "Term": 0.0728, "Income": 0.0183}


def test_restaurant_root_gains():
    table = multiway(split_candidates(read("restaurant.csv", drop="Example"), y="WillWait"))
    gain = rounded(table["info_gain"])
    assert {
        k: gain[k] for k in ["Patrons", "WaitEstimate", "Hungry", "Price", "Fri/Sat", "Reservation"]
    } == {
        "Patrons": 0.5409,
        "WaitEstimate": 0.2075,
        "Hungry": 0.1957,
        "Price": 0.1957,
        "Fri/Sat": 0.0207,
        "Reservation": 0.0207,
    }
    assert all(gain[k] == 0 for k in ["Alternate", "Bar", "Raining", "Type"])
    # Patrons leaves 0.459 bits (= 1 − 0.541).
    assert round(1 - table.loc["Patrons", "info_gain"], 3) == 0.459
    gini = rounded(table["gini_decrease"])
    assert {k: gini[k] for k in ["Patrons", "Hungry", "WaitEstimate", "Price"]} == {
        "Patrons": 0.2778,
        "Hungry": 0.1286,
        "WaitEstimate": 0.1111,
        "Price": 0.1032,
    }
    # C4.5: gain over the split information of the 2/4/6 branches.
    split_info = entropy([2, 4, 6])
    assert_allclose(
        table.loc["Patrons", "gain_ratio"], table.loc["Patrons", "info_gain"] / split_info
    )


def test_playtennis_root_gains():
    table = multiway(split_candidates(read("playtennis.csv", drop="Day"), y="PlayTennis"))
    assert rounded(table["info_gain"]) == {
        "Outlook": 0.2467,
        "Temperature": 0.0292,
        "Humidity": 0.1518,
        "Wind": 0.0481,
    }
    assert rounded(table["gini_decrease"]) == {
        "Outlook": 0.1163,
        "Temperature": 0.0187,
        "Humidity": 0.0918,
        "Wind": 0.0306,
    }


def test_mushroom_root_gains():
    table = multiway(split_candidates(read("mushroom.csv"), y="edibility", criterion="entropy"))
    gain = rounded(table["info_gain"])
    assert {k: gain[k] for k in ["odor", "spore-print-color", "gill-color", "ring-type"]} == {
        "odor": 0.9061,
        "spore-print-color": 0.4807,
        "gill-color": 0.4170,
        "ring-type": 0.3180,
    }
    assert table["info_gain"].idxmax() == "odor"


def test_weak_and_strong_thresholds_c1_c2():
    # 12 points, 4 positive; x <= 4.5 leaves 2 of 4 positive (c1), x <= 5.5 leaves 3 of 5 (c2).
    X = pd.DataFrame({"x": np.arange(1.0, 13.0)})
    y = np.array([1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0])
    table = split_candidates(None, X=X, y=y).set_index("threshold")
    assert table.loc[4.5, "left_counts"] == (2.0, 2.0) and table.loc[4.5, "right_counts"] == (
        6.0,
        2.0,
    )
    assert table.loc[5.5, "left_counts"] == (2.0, 3.0) and table.loc[5.5, "right_counts"] == (
        6.0,
        1.0,
    )
    assert round(table.loc[4.5, "info_gain"], 5) == 0.04411
    assert round(table.loc[5.5, "info_gain"], 5) == 0.16859
    # Midpoints between the 12 distinct values: 11 candidates.
    assert list(table.index) == [k + 0.5 for k in range(1, 12)]


def test_peeling_off_an_easy_category():
    # Parent 10/6; x <= 4.5 gives 4/0 + 6/6: no fewer errors, yet 0.2044 bits.
    X = pd.DataFrame({"x": np.arange(16.0)})
    y = np.array(["a"] * 4 + ["a", "b"] * 6)
    row = split_candidates(None, X=X, y=y, criterion="entropy").set_index("threshold").loc[3.5]
    assert row["left_counts"] == (4.0, 0.0) and row["right_counts"] == (6.0, 6.0)
    assert round(row["info_gain"], 4) == 0.2044
    assert row["errors"] == 6 and row["error_decrease"] == 0


# --- every criterion is what it says -----------------------------------------------------


@pytest.mark.parametrize(
    "name, drop, target",
    [
        ("loan.csv", None, "y"),
        ("playtennis.csv", "Day", "PlayTennis"),
        ("restaurant.csv", "Example", "WillWait"),
    ],
)
def test_chi2_columns_equal_scipy_and_counts_add_up(name, drop, target):
    table = split_candidates(read(name, drop), y=target)
    parent = np.array(table.attrs["parent_counts"])
    assert list(table.columns) == SPLIT_COLUMNS
    for _, row in table.iterrows():
        counts = np.array(row["branch_counts"])
        assert_allclose(counts.sum(axis=0), parent)
        counts = counts[counts.sum(axis=1) > 0]
        if len(counts) < 2:
            assert row["chi2_p_value"] == 1.0
            continue
        statistic, p_value, dof, _ = stats.chi2_contingency(counts, correction=False)
        assert_allclose(
            [row["chi2"], row["chi2_p_value"]], [statistic, p_value], rtol=1e-9, atol=1e-15
        )
        assert row["chi2_dof"] == dof


def test_binary_category_candidates_are_prefixes_by_positive_proportion():
    # p(CA) = 7/10, p(NY) = 4/10, p(TX) = 5/20, p(IL) = 3/20 → IL, TX, NY, CA.
    states = np.repeat(["CA", "NY", "TX", "IL"], [10, 10, 20, 20])
    positive = np.concatenate([np.arange(n) < k for n, k in [(10, 7), (10, 4), (20, 5), (20, 3)]])
    table = split_candidates(None, X=pd.DataFrame({"state": states}), y=positive)
    subsets = table[table["split"] == "subset"]
    assert list(subsets["categories"]) == [("IL",), ("IL", "TX"), ("IL", "TX", "NY")]
    assert subsets["left_counts"].tolist() == [(17.0, 3.0), (32.0, 8.0), (38.0, 12.0)]


# --- against scikit-learn and our own tree --------------------------------------------------


def test_best_gini_row_is_sklearn_root_split():
    X, y = make_classification(
        n_samples=400, n_features=6, n_informative=4, n_redundant=0, n_classes=3, random_state=2
    )
    table = split_candidates(None, X=X, y=y, criterion="gini")
    sk = SkTree(max_depth=1, random_state=0).fit(X, y).tree_
    w = sk.weighted_n_node_samples
    improvement = sk.impurity[0] - (w[1] * sk.impurity[1] + w[2] * sk.impurity[2]) / w[0]
    best = table.loc[table["gini_decrease"].idxmax()]
    assert best["feature_idx"] == sk.feature[0]
    assert_allclose(best["threshold"], sk.threshold[0], atol=1e-6)  # float32 midpoint there
    assert_allclose(best["gini_decrease"], improvement, rtol=1e-9)
    # One candidate per gap between the 400 distinct values of each feature.
    assert len(table) == 6 * 399


def test_chosen_rows_of_numeric_tree():
    X, y = make_classification(
        n_samples=600, n_features=5, n_informative=3, n_redundant=0, random_state=4
    )
    model = DecisionTreeClassifier(criterion="entropy", max_depth=3).fit(X, y)
    tree = model.tree_
    for node in np.flatnonzero(tree.children_left >= 0):
        table = split_candidates(model, int(node), X, y)
        chosen = table[table["chosen"]]
        assert len(chosen) == 1
        row = chosen.iloc[0]
        assert row["feature_idx"] == tree.feature[node] and row["threshold"] == tree.threshold[node]
        assert row["left_counts"] == tuple(tree.value[tree.children_left[node]])
        assert_allclose(row["info_gain"], table["info_gain"].max(), rtol=1e-12)


def test_restaurant_id3_working():
    data = read("restaurant.csv", drop="Example")
    X, y = data.drop(columns=["WillWait"]), data["WillWait"]
    model = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway").fit(X, y)
    root = split_candidates(model, 0, X, y)
    assert root.loc[root["chosen"], "feature"].tolist() == ["Patrons"]
    full = int(model.tree_.children_by_code(0)[list(model.categories_[4]).index("Full")])
    table = split_candidates(model, full, X, y)
    assert table.attrs["parent_counts"] == (4.0, 2.0)
    ties = multiway(table)["info_gain"].round(4)
    # REFERENCE.md: five attributes tie at 0.2516 under Patrons = Full; the first column wins.
    assert sorted(ties[ties == 0.2516].index) == [
        "Hungry",
        "Price",
        "Reservation",
        "Type",
        "WaitEstimate",
    ]
    assert table.loc[table["chosen"], "feature"].tolist() == ["Hungry"]


def test_chosen_subset_row_of_mushroom_tree():
    data = read("mushroom.csv")
    X, y = data.drop(columns=["edibility"]), data["edibility"]
    model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    tree = model.tree_
    for node in np.flatnonzero(tree.children_left >= 0):
        table = split_candidates(model, int(node), X, y)
        row = table[table["chosen"]].iloc[0]
        assert (
            row["split"] == "subset"
            and row["feature"] == model.feature_names_in_[tree.feature[node]]
        )
        children = {
            tuple(tree.value[tree.children_left[node]]),
            tuple(tree.value[tree.children_right[node]]),
        }
        assert {row["left_counts"], row["right_counts"]} == children
        binary = table[table["split"] != "multiway"]
        assert_allclose(row["gini_decrease"], binary["gini_decrease"].max(), rtol=1e-12)


def test_missing_values_go_to_the_better_side_as_in_the_tree():
    rng = np.random.default_rng(0)
    n = 300
    x = rng.normal(size=n)
    colour = rng.choice(["red", "green", "blue"], size=n).astype(object)
    y = (x + (colour == "red") + rng.normal(scale=0.5, size=n) > 0.5).astype(int)
    y[:40] = 1
    x[:40] = np.nan  # all missing rows positive: their side matters
    colour[rng.choice(n, 30, replace=False)] = None
    X = pd.DataFrame({"x": x, "colour": colour})
    model = DecisionTreeClassifier(criterion="gini", max_depth=1).fit(X, y)
    table = split_candidates(model, 0, X, y)
    assert (table.loc[table["feature"] == "x", "n_missing"] == 40).all()
    assert (table.loc[table["feature"] == "colour", "n_missing"] == 30).all()
    for _, row in table[table["split"] != "multiway"].iterrows():
        if row["threshold"] == np.inf:
            continue
        # Moving the missing rows' counts to the other side must not score better.
        missing = _missing_counts(X, y, row["feature"])
        left, right = np.array(row["left_counts"]), np.array(row["right_counts"])
        moved = (
            (left - missing, right + missing)
            if row["missing_to"] == "left"
            else (left + missing, right - missing)
        )
        if min(side.sum() for side in moved) == 0:
            continue  # "any category" vs "missing": the missing rows are the right child
        assert _gini_decrease(*moved) <= row["gini_decrease"] + 1e-12
    chosen = table[table["chosen"]].iloc[0]
    tree = model.tree_
    side = "left" if tree.missing_child[0] == tree.children_left[0] else "right"
    assert chosen["missing_to"] == side
    assert chosen["left_counts"] == tuple(tree.value[tree.children_left[0]])


def _missing_counts(X, y, feature):
    missing = X[feature].isna().to_numpy()
    return np.bincount(y[missing], minlength=2).astype(float)


def _gini_decrease(left, right):
    parent = left + right
    gini = lambda c: 1 - np.sum((c / c.sum()) ** 2)  # noqa: E731
    return gini(parent) - (left.sum() * gini(left) + right.sum() * gini(right)) / parent.sum()


def test_chosen_split_counted_on_new_rows():
    X, y = make_classification(n_samples=400, n_features=4, random_state=5)
    model = DecisionTreeClassifier(max_depth=2).fit(X[:200], y[:200])
    table = split_candidates(model, 0, X[200:], y[200:])
    chosen = table[table["chosen"]]
    assert len(chosen) == 1
    goes_left = X[200:, model.tree_.feature[0]] <= model.tree_.threshold[0]
    expected = tuple(np.bincount(y[200:][goes_left], minlength=2).astype(float))
    assert chosen.iloc[0]["left_counts"] == expected


def test_a_category_present_or_missing_is_a_candidate_and_can_be_chosen():
    """With one category and missing values, the only binary split is "any value" vs
    "missing": listed after the prefixes, and the one the tree makes."""
    X = pd.DataFrame({"colour": ["red", "red", "red", None, None]})
    y = np.array([0, 0, 0, 1, 1])
    model = DecisionTreeClassifier().fit(X, y)
    table = split_candidates(model, 0, X, y)
    subset = table[table["split"] == "subset"]
    assert len(subset) == 1
    row = subset.iloc[0]
    assert row["categories"] == ("red",) and row["missing_to"] == "right"
    assert row["left_counts"] == (3.0, 0.0) and row["right_counts"] == (0.0, 2.0)
    assert row["gini_decrease"] == pytest.approx(0.48) and row["chosen"]


@pytest.mark.parametrize("weighted", [False, True])
def test_a_binned_trees_candidates_are_counted_per_bin_as_its_sorted_binned_values_give(weighted):
    """On a binned tree the candidates come from per-bin counts; they are those of the
    rows sorted after QuantileBins.transform (to the bit with whole-number weights), with
    the thresholds moved back to the data as the tree's own are."""
    from engine.inspection import _model_node
    from engine.tree._candidates import candidate_table

    X, y = make_classification(3_000, 4, n_informative=3, n_redundant=0, random_state=2)
    X[::17, 1] = np.nan
    frame = pd.DataFrame(X, columns=list("abcd"))
    weight = np.random.default_rng(0).random(len(y)) if weighted else None
    tree = DecisionTreeClassifier(max_depth=3, binning="quantile", max_bins=40,
                                  criterion="entropy").fit(frame, y, sample_weight=weight)
    for node in (0, 1, 4):
        table = split_candidates(tree, node, frame, y, sample_weight=weight)
        rows, codes, w, classes, encoder = _model_node(tree, node, frame, y, weight)
        sorted_ = candidate_table(tree.bins_.transform(rows), codes, w, len(classes),
                                  list(encoder.feature_names_in_), encoder.categories_, "entropy")
        numeric = (sorted_["split"] == "threshold").to_numpy()
        sorted_.loc[numeric, "threshold"] = tree.bins_.exact_thresholds(
            sorted_.loc[numeric, "feature_idx"].to_numpy(), sorted_.loc[numeric, "threshold"].to_numpy())
        assert len(table) == len(sorted_) > 40
        columns = [c for c in table.columns if c in sorted_.columns and c != "chosen"]
        pd.testing.assert_frame_equal(table[columns], sorted_[columns], check_exact=not weighted,
                                      rtol=1e-12)
        assert table["chosen"].sum() == (1 if tree.tree_.children_left[node] >= 0 else 0)
