"""The target a person would pick, and the columns that start excluded (issue 31).

Each rule of ``guess_target`` and of the schema on a small table made here.
"""
import numpy as np
import pandas as pd
import pytest

from engine.data import default_features, guess_target, infer_schema, leaky_features, load_sample

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


def test_text_identifiers_and_dates_are_never_guessed_and_nothing_usable_says_so():
    frame = pd.DataFrame({"order": [f"A{i:04d}" for i in range(N)],
                          "when": [f"2021/03/{d % 28 + 1:02d}" for d in range(N)],
                          "review": [f"word{i} and some more words {i}" for i in range(N)]})
    assert set(infer_schema(frame)["kind"]) == {"id", "date", "text"}
    with pytest.raises(ValueError, match="no column can be predicted"):
        guess_target(frame)


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
