"""The bundled datasets: catalog well-formed, files load, synthetic sets reproducible.

The copies of ``shared/data`` must stay byte-identical (REFERENCE.md numbers are computed
on them); the synthetic sets must be exactly what ``make_synthetic.py`` regenerates.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"
SHARED = REPO.parent / "shared" / "data"
CATALOG = json.loads((SAMPLE / "catalog.json").read_text(encoding="utf-8"))
BY_NAME = {entry["name"]: entry for entry in CATALOG}

REQUIRED = {"name", "file", "title", "description", "target", "exclude", "task",
            "source", "licence", "pages"}
OPTIONAL = {"na_values", "features_2d", "preset", "class_names"}
PAGES = {"data", "naive_bayes", "decision_tree", "random_forest", "adaboost",
         "gradient_boosting", "compare"}
ORDER = ["loan", "kitchen", "playtennis", "restaurant", "iris", "zoo", "mushroom",
         "spambase", "two_moons", "circles", "xor", "blobs", "friedman1", "esl_10_2",
         "reviews"]
COPIED = ["loan", "kitchen", "playtennis", "restaurant", "iris", "zoo", "mushroom",
          "spambase"]


def load(entry: dict) -> pd.DataFrame:
    """Read a catalog entry the way the app should: its own missing markers if given."""
    path = SAMPLE / entry["file"]
    if "na_values" in entry:
        return pd.read_csv(path, keep_default_na=False, na_values=entry["na_values"])
    # Default markers of the app: "?", "NA" and empty; "None" stays a value.
    return pd.read_csv(path, keep_default_na=False, na_values=["?", "NA", ""])


@pytest.fixture(scope="module")
def synthetic() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_synthetic", SAMPLE / "make_synthetic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_catalog_order_and_fields() -> None:
    assert [entry["name"] for entry in CATALOG] == ORDER
    for entry in CATALOG:
        assert REQUIRED <= set(entry) <= REQUIRED | OPTIONAL, entry["name"]
        assert entry["file"] == f"{entry['name']}.csv"
        assert entry["task"] in {"classification", "regression"}
        assert set(entry["pages"]) <= PAGES and "data" in entry["pages"]
        assert all(isinstance(entry[k], str) and entry[k].strip()
                   for k in ("title", "description", "source", "licence"))


def test_attribution_kept() -> None:
    assert "10.24432/C53G6X" in BY_NAME["spambase"]["source"]
    assert all("CC BY 4.0" in BY_NAME[n]["licence"]
               for n in ("restaurant", "iris", "zoo", "mushroom", "spambase"))
    assert "Friedman (1991)" in BY_NAME["friedman1"]["source"]
    assert "10.1" in BY_NAME["esl_10_2"]["source"]
    assert "Glassbox" in BY_NAME["reviews"]["source"]


@pytest.mark.parametrize("name", ORDER)
def test_file_loads_with_target_and_exclusions(name: str) -> None:
    entry = BY_NAME[name]
    df = load(entry)
    assert len(df) > 0
    assert entry["target"] in df.columns
    assert entry["target"] not in entry["exclude"]
    assert set(entry["exclude"]) <= set(df.columns)
    assert set(entry.get("features_2d", [])) <= set(df.columns)
    if entry["task"] == "regression":
        assert pd.api.types.is_float_dtype(df[entry["target"]])


def test_id_columns_excluded() -> None:
    assert BY_NAME["playtennis"]["exclude"] == ["Day"]
    assert BY_NAME["restaurant"]["exclude"] == ["Example"]
    assert BY_NAME["zoo"]["exclude"] == ["animal"]
    # Names are not an id here: "frog" appears twice, so exclusion must be explicit.
    assert load(BY_NAME["zoo"])["animal"].duplicated().any()


def test_restaurant_keeps_none_as_a_value() -> None:
    patrons = load(BY_NAME["restaurant"])["Patrons"]
    assert patrons.notna().all()
    assert (patrons == "None").sum() == 2


def test_mushroom_keeps_question_mark() -> None:
    stalk_root = load(BY_NAME["mushroom"])["stalk-root"]
    assert stalk_root.notna().all()
    assert (stalk_root == "?").sum() == 2480  # UCI documents 2480 unknown stalk roots


@pytest.mark.parametrize("name", COPIED)
def test_copies_are_byte_identical(name: str) -> None:
    source = SHARED / f"{name}.csv"
    if not source.exists():
        pytest.skip(f"{SHARED} not present")
    assert (SAMPLE / f"{name}.csv").read_bytes() == source.read_bytes()


def test_every_shared_csv_is_bundled() -> None:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} not present")
    assert {p.name for p in SHARED.glob("*.csv")} <= {p.name for p in SAMPLE.glob("*.csv")}


def test_generators_reproduce_files(synthetic: ModuleType) -> None:
    assert set(synthetic.GENERATORS) == {"two_moons", "circles", "xor", "blobs",
                                         "friedman1", "esl_10_2"}
    for name, make in synthetic.GENERATORS.items():
        first, second = synthetic.to_csv_text(make()), synthetic.to_csv_text(make())
        assert first == second, name
        assert (SAMPLE / f"{name}.csv").read_text(encoding="utf-8") == first, name


@pytest.mark.parametrize(("name", "rows", "counts"), [
    ("two_moons", 300, {"A": 150, "B": 150}),
    ("circles", 300, {"inner": 150, "outer": 150}),
    ("blobs", 300, {"A": 100, "B": 100, "C": 100}),
])
def test_balanced_2d_sets(name: str, rows: int, counts: dict[str, int]) -> None:
    df = load(BY_NAME[name])
    assert list(df.columns) == ["x1", "x2", "class"] and len(df) == rows
    assert df["class"].value_counts().to_dict() == counts


def test_circles_radii() -> None:
    df = load(BY_NAME["circles"])
    radius = np.hypot(df["x1"], df["x2"]).groupby(df["class"]).median()
    assert radius["inner"] == pytest.approx(0.5, abs=0.05)
    assert radius["outer"] == pytest.approx(1.0, abs=0.05)


def test_xor_rule_with_a_little_noise() -> None:
    df = load(BY_NAME["xor"])
    assert len(df) == 400 and df[["x1", "x2"]].abs().max().max() <= 1.0
    rule = np.where(df["x1"] * df["x2"] > 0, "A", "B")
    flipped = (rule != df["class"]).mean()
    assert 0.02 <= flipped <= 0.09  # designed 5% label noise
    assert 0.4 <= (df["class"] == "A").mean() <= 0.6


def test_friedman1_formula_up_to_noise(synthetic: ModuleType) -> None:
    df = load(BY_NAME["friedman1"])
    X = df[[f"x{j}" for j in range(1, 11)]].to_numpy()
    assert df.shape == (500, 11) and X.min() >= 0.0 and X.max() <= 1.0
    signal = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2
              + 10 * X[:, 3] + 5 * X[:, 4])
    residual = df["y"].to_numpy() - signal
    assert 0.8 <= residual.std() <= 1.2  # N(0, 1) noise
    assert abs(residual.mean()) < 0.15
    assert np.allclose(synthetic.friedman1_signal(X), signal)


def test_esl_10_2_rule_holds_exactly() -> None:
    df = load(BY_NAME["esl_10_2"])
    X = df[[f"x{j}" for j in range(1, 11)]].to_numpy()
    assert df.shape == (2000, 11)
    expected = np.where((X**2).sum(axis=1) > 9.34, 1, -1)
    np.testing.assert_array_equal(df["y"].to_numpy(), expected)
    # 9.34 is the chi-square(10) median: both classes near half.
    assert 0.45 <= (df["y"] == 1).mean() <= 0.55
    assert abs(X.std() - 1.0) < 0.05


def test_floats_have_four_decimals() -> None:
    for name in ("two_moons", "circles", "xor", "blobs", "friedman1", "esl_10_2"):
        first_row = (SAMPLE / f"{name}.csv").read_text().splitlines()[1].split(",")
        decimals = [len(v.split(".")[1]) for v in first_row if "." in v]
        assert decimals and set(decimals) == {4}, name


def test_reviews() -> None:
    df = load(BY_NAME["reviews"])
    assert list(df.columns) == ["review", "sentiment"]
    assert len(df) >= 250
    assert set(df["sentiment"]) == {"positive", "negative"}
    assert df["sentiment"].value_counts(normalize=True).min() >= 0.4
    assert not df["review"].str.lower().str.strip().duplicated().any()
    assert df["review"].notna().all()
    # The worked review example is in the set, with its ampersand intact.
    assert "The sushi & everything else was awesome!" in set(df["review"])
