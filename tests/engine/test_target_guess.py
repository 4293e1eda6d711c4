"""The target a person would pick, and the columns that start excluded (issue 31).

Each rule of ``guess_target`` and of the schema on a small table made here.
"""
import numpy as np
import pandas as pd
import pytest

from engine.data import (
    default_features,
    guess_target,
    infer_schema,
    leaky_features,
    load_sample,
    rank_features,
    with_date_parts,
)

rng = np.random.default_rng(0)
N = 60


def continuous():
    return rng.normal(size=N).round(3)


def labels(values, n=N):
    return [values[i % len(values)] for i in range(n)]


@pytest.mark.parametrize("name", ["target", "Survived", "SPECIES", "Will Wait", "class-label",
                                  "y", "Diagnosis", "churn", "is_fraud", "PlayTennis"])
def test_a_column_named_like_an_outcome_wins_anywhere(name):
    frame = pd.DataFrame({"id": range(N), name: labels(["a", "b"]), "x": continuous(),
                          "port": labels(["S", "C", "Q"])})
    column, reason = guess_target(frame)
    assert column == name
    assert reason == "its name says it is an outcome, and it has 2 values"


def test_the_strongest_outcome_name_wins_over_a_weaker_one():
    frame = pd.DataFrame({"type": labels(["u", "v", "w"]), "label": labels(["a", "b"]),
                          "x": continuous()})
    assert guess_target(frame)[0] == "label"


@pytest.mark.parametrize("columns, expected", [
    # seaborn's titanic: "class" is the ticket class, "survived" the outcome
    (["survived", "pclass", "sex", "age", "fare", "class", "who"], "survived"),
    (["class", "age", "diagnosis"], "diagnosis"),
    # a wine table: "type" is its colour, "quality" the grade to predict
    (["type", "acidity", "alcohol", "quality"], "quality"),
    # where "class" is the only outcome word (mushrooms, cars), it is still the one
    (["class", "cap_shape", "odor", "habitat"], "class"),
    (["buying", "safety", "class", "type"], "class"),
])
def test_a_domains_outcome_beats_a_word_that_also_names_an_attribute(columns, expected):
    frame = pd.DataFrame({c: labels(["a", "b", "c"][:2 + i % 2]) if c not in ("age", "fare",
                          "acidity", "alcohol") else continuous() for i, c in enumerate(columns)})
    assert guess_target(frame)[0] == expected


@pytest.mark.parametrize("values, kind", [
    (list(range(N)), "id"),                       # a row number named "class"
    (["same"] * N, "constant"),
    ([f"2020-01-{d % 28 + 1:02d}" for d in range(N)], "date"),
])
def test_an_outcome_name_on_a_column_that_cannot_be_a_target_is_passed_over(values, kind):
    frame = pd.DataFrame({"class": values, "x": continuous(), "colour": labels(["r", "g"])})
    assert infer_schema(frame).loc["class", "kind"] == kind
    assert guess_target(frame)[0] == "colour"


def test_few_categories_beat_a_continuous_last_column_and_the_last_of_them_wins():
    frame = pd.DataFrame({"sex": labels(["f", "m"]), "day": labels(["Thu", "Fri", "Sat"]),
                          "bill": continuous(), "tip": continuous()})
    column, reason = guess_target(frame)
    assert column == "day"
    assert reason == "it is the last column of a few categories (3 values)"


def test_categories_with_more_than_twenty_values_are_not_classes():
    frame = pd.DataFrame({"country": labels([f"c{i}" for i in range(25)], 200),
                          "continent": labels(["Asia", "Europe", "Africa"], 200),
                          "gdp": rng.normal(size=200)})
    assert guess_target(frame)[0] == "continent"


def test_whole_numbers_of_a_few_values_come_next_then_any_number():
    frame = pd.DataFrame({"stars": labels([1, 2, 3, 4, 5]), "price": continuous(),
                          "weight": continuous()})
    assert guess_target(frame) == ("stars", "it is the last column of a few whole-number "
                                            "classes (5 values)")
    column, reason = guess_target(frame.drop(columns="stars"))
    assert column == "weight" and "regression" in reason


def test_whole_numbers_with_nearly_a_value_a_row_are_a_measurement_not_classes():
    """As scikit-learn's linnerud exercise table: 20 athletes' chins, sit-ups and jumps,
    whole numbers of 2 to 20 values but hardly two rows a value. None reads as
    classes, so the last one is a regression target, and a page that classifies is told
    there is no column of a few classes."""
    frame = pd.DataFrame({
        "Chins": [5, 2, 12, 12, 13, 4, 8, 6, 15, 17, 17, 13, 14, 1, 6, 12, 4, 11, 15, 2],
        "Situps": [162, 110, 101, 105, 155, 101, 101, 125, 200, 251, 120, 210, 215, 50, 70,
                   210, 60, 230, 225, 110],
        "Jumps": [60, 101, 101, 37, 58, 42, 38, 40, 62, 105, 31, 33, 42, 48, 60, 72, 73, 58,
                  55, 50]})
    column, reason = guess_target(frame)
    assert column == "Jumps" and "regression" in reason
    with pytest.raises(ValueError, match="no column has a few classes"):
        guess_target(frame, classes=True)
    # two rows a value on average are enough: seven values in 20 rows are classes
    frame["Level"] = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3] * 2
    assert guess_target(frame) == ("Level", "it is the last column of a few whole-number "
                                            "classes (7 values)")


def test_text_identifiers_and_dates_are_never_guessed_and_nothing_usable_says_so():
    frame = pd.DataFrame({"order": [f"A{i:04d}" for i in range(N)],
                          "when": [f"2021/03/{d % 28 + 1:02d}" for d in range(N)],
                          "review": [f"word{i} and some more words {i}" for i in range(N)]})
    assert set(infer_schema(frame)["kind"]) == {"id", "date", "text"}
    with pytest.raises(ValueError, match="no column can be predicted"):
        guess_target(frame)


def test_the_parts_of_a_date_are_never_guessed():
    # a weather log (as vega_datasets' seattle-temps.csv): a date and a temperature. The
    # date's weekday is a column of seven categories, but not what the table is kept for.
    days = pd.date_range("2021-01-01", periods=N, freq="D").strftime("%Y-%m-%d")
    frame = with_date_parts(pd.DataFrame({"date": days, "temp": continuous()}))
    assert {"date year", "date month", "date weekday"} <= set(frame.columns)
    column, reason = guess_target(frame)
    assert column == "temp" and "regression" in reason
    with pytest.raises(ValueError, match="no column has a few classes"):
        guess_target(frame, classes=True)
    with pytest.raises(ValueError, match="a date or a part of one"):
        guess_target(frame.drop(columns="temp"))


def test_codes_with_many_values_are_identifiers_not_categories():
    tickets = [f"{349000 + i % 45}" if i % 4 else f"PC {17000 + i}" for i in range(90)]
    frame = pd.DataFrame({"ticket": tickets, "cabin": [f"C{i}" if i % 3 else None
                                                       for i in range(90)],
                          "port": labels(["S", "C", "Q"], 90)})
    schema = infer_schema(frame)
    assert schema.loc["ticket", "kind"] == "id" and not schema.loc["ticket", "include"]
    assert schema.loc["cabin", "kind"] == "id"  # 60 values in 60 present rows
    assert "a code that names rows" in schema.loc["ticket", "reason"]
    assert schema.loc["port", "kind"] == "categorical"


def test_a_few_labels_of_several_words_are_categories_and_many_are_text():
    species = labels(["Adelie Penguin (Pygoscelis adeliae)", "Gentoo penguin (Pygoscelis papua)",
                      "Chinstrap penguin (Pygoscelis antarctica)"])
    notes = [f"note number {i} about the nest" for i in range(N)]
    schema = infer_schema(pd.DataFrame({"Species": species, "Comments": notes}))
    assert schema.loc["Species", "kind"] == "categorical"
    assert schema.loc["Comments", "kind"] == "text"


@pytest.mark.parametrize("values", [
    [f"2007-11-{d % 28 + 1:02d}" for d in range(N)],
    [f"{d % 12 + 1}/{d % 28 + 1}/2009" for d in range(N)],
    [f"2012/01/{d % 28 + 1:02d} 10:{d % 60:02d}" for d in range(N)],
])
def test_dates_start_excluded_with_their_reason(values):
    schema = infer_schema(pd.DataFrame({"when": values, "x": continuous()}))
    assert schema.loc["when", "kind"] == "date" and not schema.loc["when", "include"]
    assert "dates" in schema.loc["when", "reason"]


def test_free_text_is_a_feature_only_when_nothing_else_is():
    names = [f"Name{i}, Mr. Given{i} Middle" for i in range(N)]
    frame = pd.DataFrame({"name": names, "fare": continuous(), "survived": labels([0, 1])})
    assert default_features(infer_schema(frame), "survived") == ["fare"]
    text_only = frame.drop(columns="fare")
    assert default_features(infer_schema(text_only), "survived") == ["name"]



def test_a_big_tables_threshold_leak_is_found_on_evenly_spaced_rows():
    """Above SCORE_ROWS rows a numeric column's stump reads evenly spaced rows: a leak
    sorted to the end of the file is still found, an honest column still passes."""
    from engine._target import SCORE_ROWS

    n = 3 * SCORE_ROWS + 7
    rng_ = np.random.default_rng(6)
    y = np.where(np.arange(n) < n // 2, "no", "yes")  # the file sorted by class
    frame = pd.DataFrame({"fee": np.where(y == "yes", 50.0, 10.0) + rng_.random(n),
                          "age": rng_.normal(40, 10, n), "y": y})
    assert leaky_features(frame, "y", ["fee", "age"]) == [("fee", 1.0)]

@pytest.mark.parametrize("name", ["playtennis", "restaurant", "iris", "zoo", "mushroom",
                                  "spambase", "loan"])
def test_bundled_tables_keep_their_kinds(name):
    """The new rules leave the textbook tables as they were: no code, date or text."""
    kinds = set(infer_schema(load_sample(name))["kind"])
    assert not kinds & {"date", "text"}


def test_a_feature_that_alone_predicts_the_class_is_a_leak_and_an_honest_one_is_not():
    rng_ = np.random.default_rng(5)
    y = rng_.choice(["yes", "no"], 200)
    noisy = np.where(rng_.random(200) < 0.2, "S", np.where(y == "yes", "C", "Q"))
    frame = pd.DataFrame({
        "boat": np.where(y == "yes", "13", "none"),               # categorical, 100%
        "fee": np.where(y == "yes", 50.0, 10.0) + rng_.random(200),  # a threshold, 100%
        "port": noisy,                                           # 80-90%: honest
        "age": rng_.normal(40, 10, 200), "y": y})
    assert leaky_features(frame, "y", ["boat", "fee", "port", "age"]) == [("boat", 1.0),
                                                                         ("fee", 1.0)]
    assert leaky_features(frame.iloc[:20], "y", ["boat"]) == []  # too few rows to tell


@pytest.mark.parametrize("name", ["playtennis", "restaurant", "iris", "zoo", "mushroom",
                                  "spambase", "loan", "two_moons"])
def test_no_bundled_feature_is_taken_for_a_leak(name):
    from engine.data import list_samples
    target = {e["name"]: e["target"] for e in list_samples()}[name]
    frame = load_sample(name)
    schema = infer_schema(frame)
    assert leaky_features(frame, target, default_features(schema, target), schema) == []


# --------------------------------------------------------------- the two axes to draw


def _brute_share(x, y):
    """Best share right of x <= t → one class, else another, over every midpoint t."""
    values = np.unique(x)
    best = 0.0
    for t in (values[:-1] + values[1:]) / 2:
        left, right = pd.Series(y[x <= t]), pd.Series(y[x > t])
        best = max(best, (left.value_counts().max() + right.value_counts().max()) / len(y))
    return best


def _brute_r2(x, y):
    values = np.unique(x)
    total = ((y - y.mean()) ** 2).sum()
    best = 0.0
    for t in (values[:-1] + values[1:]) / 2:
        left, right = y[x <= t], y[x > t]
        rest = ((left - left.mean()) ** 2).sum() + ((right - right.mean()) ** 2).sum()
        best = max(best, 1 - rest / total)
    return best


@pytest.mark.parametrize("seed", range(5))
def test_the_univariate_scores_match_a_brute_force(seed):
    from engine._target import _stump_r2, _stump_share
    local = np.random.default_rng(seed)
    x = local.integers(0, 25, size=80).astype(float)
    y_class = np.where(x + local.normal(0, 6, 80) > 12, "a", "b")
    y_class[local.random(80) < 0.1] = "c"
    y_value = x ** 1.5 + local.normal(0, 9, 80)
    assert _stump_share(x, y_class) == pytest.approx(_brute_share(x, y_class), abs=1e-12)
    assert _stump_r2(x, y_value) == pytest.approx(_brute_r2(x, y_value), abs=1e-12)


def test_axes_rank_continuous_columns_first_then_by_score():
    local = np.random.default_rng(1)
    n = 300
    signal = local.normal(size=n)
    y = np.where(signal + local.normal(0, 0.3, n) > 0, "yes", "no")
    X = pd.DataFrame({"pclass": local.integers(1, 4, n),            # 3 values
                      "sex": (signal > 0).astype(int),              # 2 values, a good split
                      "noise": local.normal(size=n),
                      "signal": signal, "weak": signal + local.normal(0, 2, n)})
    assert rank_features(X, pd.Series(y)) == ["signal", "weak", "noise", "sex", "pclass"]
    value = pd.Series(3 * signal + local.normal(0, 0.5, n))
    assert rank_features(X, value, task="regression")[:2] == ["signal", "weak"]


def test_axes_ignore_missing_cells_and_text_columns():
    X = pd.DataFrame({"a": [np.nan] * 20 + list(range(20)), "b": list(range(40)),
                      "words": ["w"] * 40})
    y = pd.Series(["p"] * 30 + ["q"] * 10)
    ranked = rank_features(X, y)
    assert ranked == ["a", "b"]  # a separates the 20 rows it has perfectly; b gets 100% too


def test_a_date_offers_its_year_month_and_weekday_which_start_excluded():
    from engine.data import with_date_parts
    days = pd.date_range("2012-01-01", periods=N, freq="9D")
    frame = pd.DataFrame({"date": days.strftime("%Y-%m-%d"), "rain": continuous(),
                          "weather": labels(["sun", "rain", "fog"])})
    wide = with_date_parts(frame)
    assert wide.columns.tolist() == ["date", "date year", "date month", "date weekday", "rain",
                                     "weather"]
    assert wide["date year"].tolist() == days.year.tolist()
    assert wide["date month"].tolist() == days.month.tolist()
    assert wide["date weekday"].tolist()[:3] == ["Sun", "Tue", "Thu"]  # 2012-01-01: a Sunday
    schema = infer_schema(wide)
    assert schema.loc["date", "kind"] == "date"
    for part in ("year", "month", "weekday"):
        assert not schema.loc[f"date {part}", "include"]
        assert schema.loc[f"date {part}", "reason"].startswith(f"the {part} of date")
    assert default_features(schema, "weather") == ["rain"]


def test_day_first_dates_and_gaps_are_read_and_a_table_without_dates_is_untouched():
    from engine.data import with_date_parts
    frame = pd.DataFrame({"when": ["31/01/2020", "15/02/2020", None, "01/03/2021"] * 6,
                          "x": range(24)})
    wide = with_date_parts(frame)
    assert wide["when year"].tolist()[:4] == [2020, 2020, pd.NA, 2021]
    assert wide["when month"].tolist()[:4] == [1, 2, pd.NA, 3]
    plain_table = pd.DataFrame({"x": range(5), "y": list("abcde")})
    assert with_date_parts(plain_table) is plain_table


def test_a_row_number_within_groups_is_an_identifier_and_a_year_is_not():
    counter = list(range(1, 31)) + list(range(1, 21)) + list(range(1, 11))
    years = [y for _ in range(3) for y in range(1990, 2010)]
    frame = pd.DataFrame({"Sample Number": counter, "year": years,
                          "size": rng.integers(1, 7, size=60)})
    schema = infer_schema(frame)
    assert schema.loc["Sample Number", "kind"] == "id"
    assert "within groups" in schema.loc["Sample Number", "reason"]
    assert schema.loc["year", "kind"] == "numeric"
    assert schema.loc["size", "kind"] == "numeric"  # whole numbers from 1, but no runs
