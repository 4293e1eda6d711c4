"""The tree as code: what ``tree_to_python`` and ``tree_to_sql`` write predicts what the
model predicts.

Every check runs the code it gets: the Python function through ``exec``, called row by
row on the test rows (raw values, NaN or None for a missing value), and the SQL in the
standard library's sqlite3 on those rows loaded as a table (NULL for a missing value).
Both must equal ``model.predict`` exactly: the same labels, regression values to the bit.
"""
from __future__ import annotations

import math
import sqlite3
from contextlib import closing

import numpy as np
import pandas as pd
import pytest

from engine import tree_code
from engine.ensemble import RandomForestClassifier
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor, cut_to_depth
from engine.tree_code import python_names, tree_to_python, tree_to_sql
from tests.conftest import data_path


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _rows(X: pd.DataFrame) -> list[list]:
    """Each row's raw values as Python objects: NaN in even rows, None in odd rows
    where a value is missing (the function takes both)."""
    return [[None if i % 2 and _missing(v) else v for v in row.values()]
            for i, row in enumerate(X.to_dict("records"))]


def python_predictions(model, X: pd.DataFrame, **kwargs) -> tuple[list, str]:
    """The predictions of the function ``tree_to_python`` writes, and its source."""
    source = tree_to_python(model, **kwargs)
    namespace: dict = {}
    exec(compile(source, "<tree_to_python>", "exec"), namespace)
    predict = namespace[kwargs.get("function_name", "predict")]
    names = python_names(list(X.columns), kwargs.get("function_name", "predict"))
    return [predict(**dict(zip(names, row, strict=True))) for row in _rows(X)], source


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sql_predictions(model, X: pd.DataFrame, **kwargs) -> tuple[list, str]:
    """The predictions of the SELECT ``tree_to_sql`` writes, run by sqlite3 on X loaded
    into a table called "test rows", and the statement."""
    query = tree_to_sql(model, table="test rows", **kwargs)
    rows = [tuple(None if _missing(v) else v for v in row) for row in _rows(X)]
    with closing(sqlite3.connect(":memory:")) as con:
        con.execute(f'CREATE TABLE "test rows" ({", ".join(map(_quoted, X.columns))})')
        con.executemany(f'INSERT INTO "test rows" VALUES ({", ".join("?" * X.shape[1])})', rows)
        got = [row[-1] for row in con.execute(query)]
    return got, query


def assert_code_predicts(model, X: pd.DataFrame, **kwargs) -> tuple[str, str]:
    """Both codes give ``model.predict(X)`` (of the member ``tree``, if given) exactly."""
    member = kwargs.get("tree")
    predictor = model.estimators_[member] if isinstance(member, int) else model
    expected = predictor.predict(X).tolist()
    by_python, source = python_predictions(model, X, **kwargs)
    sql_kwargs = {k: v for k, v in kwargs.items() if k == "tree"}
    by_sql, query = sql_predictions(model, X, **sql_kwargs)
    assert by_python == expected
    assert by_sql == expected
    assert [type(v) for v in by_python] == [type(v) for v in expected]
    return source, query


def split(X: pd.DataFrame, y, n_train: int, seed: int = 0):
    order = np.random.default_rng(seed).permutation(len(X))
    train, test = order[:n_train], order[n_train:]
    y = np.asarray(y)
    return X.iloc[train], y[train], X.iloc[test].reset_index(drop=True), y[test]


# ------------------------------------------------------------------------ datasets


@pytest.fixture(scope="module")
def iris():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    data = sklearn_datasets.load_iris(as_frame=True)
    return data.data, data.target_names[data.target]


@pytest.fixture(scope="module")
def mushroom():
    frame = pd.read_csv(data_path("mushroom.csv"), na_values=["?"], keep_default_na=False)
    assert frame["stalk-root"].isna().sum() == 2480
    return frame.drop(columns="edibility"), frame["edibility"]


@pytest.fixture(scope="module")
def spambase():
    frame = pd.read_csv(data_path("spambase.csv"))
    assert frame.shape == (4601, 58)
    return frame.drop(columns="spam"), frame["spam"]


def mixed_table(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """A numeric column with NaN, an integer column, two categorical ones (one with
    missing values); a class target and a numeric one."""
    rng = np.random.default_rng(seed)
    size = rng.normal(10.0, 3.0, n)
    count = rng.integers(0, 20, n)
    colour = rng.choice(["red", "green", "blue", "yellow", "white"], n).astype(object)
    shape = rng.choice(["round", "flat", "long"], n).astype(object)
    label = np.where((size > 10) ^ np.isin(colour, ["red", "blue"]) ^ (count > 14), "yes", "no")
    noisy = rng.random(n) < 0.1
    label[noisy] = np.where(label[noisy] == "yes", "no", "yes")
    value = size * 2 + (colour == "red") * 5 + count / 3 + rng.normal(0, 1, n)
    size[rng.random(n) < 0.15] = np.nan
    colour[rng.random(n) < 0.1] = None
    X = pd.DataFrame({"size": size, "count": count, "colour": colour, "shape": shape})
    return X, label, value


@pytest.fixture(scope="module")
def mixed():
    X, label, value = mixed_table(600, seed=1)
    X_test, _, _ = mixed_table(300, seed=2)
    X_test.loc[::7, "colour"] = "purple"  # a category no tree saw in training
    X_test.loc[3::11, "shape"] = "star"
    return X, label, value, X_test


# ------------------------------------------------------------------------ classifiers


def test_iris_tree_as_code(iris):
    X, y = iris
    X_train, y_train, X_test, _ = split(X, y, 100)
    X_test.loc[::5, "petal width (cm)"] = np.nan  # missing where training had none
    model = DecisionTreeClassifier(random_state=0).fit(X_train, y_train)
    source, query = assert_code_predicts(model, X_test)
    assert_code_predicts(model, X_test, form="rules")
    assert source.startswith(
        "def predict(*, sepal_length_cm, sepal_width_cm, petal_length_cm, petal_width_cm):\n")
    assert "        petal_length_cm: 'petal length (cm)', number" in source
    assert '"petal length (cm)" <= 2.45' in query
    assert query.startswith('SELECT *,\n    CASE\n') and query.endswith('FROM "test rows";')


def test_thresholds_are_printed_to_round_trip(iris):
    X, y = iris
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    source = tree_to_python(model)
    tree = model.tree_
    for t in tree.threshold[tree.children_left >= 0]:
        assert f"<= {float(t)!r}:" in source
        assert float(repr(float(t))) == t


@pytest.mark.parametrize("split_kind", ["binary", "multiway"])
def test_mushroom_categories_with_missing_values(mushroom, split_kind):
    X, y = mushroom
    X_train, y_train, X_test, _ = split(X, y, 4000)
    X_train = X_train.copy()
    X_train.loc[X_train.index[::20], "odor"] = np.nan
    X_test.loc[::9, "odor"] = np.nan
    X_test.loc[4::13, "odor"] = "x"  # not a mushroom odor
    model = DecisionTreeClassifier(criterion="entropy", categorical_split=split_kind)
    model.fit(X_train, y_train)
    assert model.get_depth() >= 5
    source, query = assert_code_predicts(model, X_test)
    assert_code_predicts(model, X_test, form="rules")
    first = next(line for line in source.splitlines() if line.startswith("    if "))
    if split_kind == "multiway":  # one branch per odor, in the categories' order
        assert first == '    if odor == "a":' and '    elif odor == "c":' in source
        assert "    WHEN \"odor\" = 'a' THEN" in query
        assert "# no training rows: the parent's " in source  # an empty ID3 branch
    else:
        assert first.startswith("    if odor in (") and "    WHEN \"odor\" IN ('" in query
    assert "missing(odor)" in source and '"odor" IS NULL' in query


def test_spambase_deep_tree(spambase):
    X, y = spambase
    X_train, y_train, X_test, _ = split(X, y, 3000)
    model = DecisionTreeClassifier().fit(X_train, y_train)
    assert model.get_depth() > 15
    source, query = assert_code_predicts(model, X_test)
    assert source.count("return 1  #") + source.count("return 0  #") == model.get_n_leaves()
    assert query.count("    WHEN ") == model.get_n_leaves() - 1


@pytest.mark.parametrize("split_kind", ["binary", "multiway"])
def test_missing_numbers_and_unseen_categories(mixed, split_kind):
    X, label, _, X_test = mixed
    assert X_test["size"].isna().any() and (X_test["colour"] == "purple").any()
    model = DecisionTreeClassifier(categorical_split=split_kind, min_samples_leaf=3)
    model.fit(X, label)
    source, query = assert_code_predicts(model, X_test)
    assert "missing(size)" in source and '"size" IS NULL' in query


def test_a_forest_member(mixed):
    X, label, _, X_test = mixed
    forest = RandomForestClassifier(n_estimators=3, max_features=2, random_state=0).fit(X, label)
    member = forest.estimators_[1]
    assert tree_to_python(forest, tree=1) == tree_to_python(member)
    assert tree_to_sql(forest, tree=1) == tree_to_sql(member)
    assert_code_predicts(forest, X_test, tree=1)
    with pytest.raises(ValueError, match="tree=i"):
        tree_to_python(forest)
    with pytest.raises(ValueError, match="3 trees"):
        tree_to_sql(forest, tree=3)


# ------------------------------------------------------------------------ regressors


def test_regression_values_are_exact(mixed):
    X, _, value, X_test = mixed
    model = DecisionTreeRegressor(min_samples_leaf=2).fit(X, value)
    source, query = assert_code_predicts(model, X_test)
    assert "# mean of 2 training rows" in source


def test_diabetes_regression_with_missing_values():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    data = sklearn_datasets.load_diabetes(as_frame=True)
    X = data.data.copy()
    X.loc[::6, "bmi"] = np.nan
    X_train, y_train, X_test, _ = split(X, data.target, 300)
    model = DecisionTreeRegressor(min_samples_leaf=3, random_state=0).fit(X_train, y_train)
    assert_code_predicts(model, X_test)


def test_numbers_sqlite_reads_inexactly_are_still_exact():
    # SQLite's text-to-double conversion is not correctly rounded in every version: the
    # standard library's SQLite 3.40 reads repr(-856.56769310464) one unit in the last
    # place off, and both repr and 17 digits of the last two.
    awkward = [-856.56769310464, -984.631236387765, -596.748165951771, -602.468711047667]
    tiny = [-1.4660355537496526e-303, 1.6820343240612908e-301]
    y = awkward + tiny + [0.0, 1.0]
    X = pd.DataFrame({"x": np.arange(len(y), dtype=float)})
    model = DecisionTreeRegressor().fit(X, y)
    assert set(awkward) <= set(model.predict(X).tolist())
    assert_code_predicts(model, X)
    for v in awkward + tiny:
        text = tree_code._sql_numbers([v])[v]
        with closing(sqlite3.connect(":memory:")) as con:
            assert con.execute(f"SELECT {text}").fetchone()[0] == v


# ------------------------------------------------------------------------ names


def test_hostile_column_names_and_values():
    rng = np.random.default_rng(3)
    n = 400
    X = pd.DataFrame({
        "petal length": rng.normal(0, 1, n),
        'say "hi"': rng.choice(["O'Brien", 'x"y', "back\\slash", "new\nline"], n),
        "it's": rng.normal(0, 1, n),
        "2nd": rng.integers(0, 5, n),
        "class": rng.normal(0, 1, n),
        "if": rng.choice(["a", "b"], n),
        "missing": rng.normal(0, 1, n),
        "predict": rng.normal(0, 1, n),
    })
    score = (3 * X['say "hi"'].isin(["O'Brien", 'x"y']) + (X["class"] > 0) + (X["if"] == "a")
             + (X["2nd"] > 2) + (X["petal length"] > 0) + (X["it's"] > 0))
    y = np.where(score >= 3, "it's yes", 'say "no"')
    X.loc[::10, "class"] = np.nan
    model = DecisionTreeClassifier(min_samples_leaf=5).fit(X, y)
    assert python_names(X.columns) == ["petal_length", "say_hi", "it_s", "_2nd", "class_",
                                       "if_", "missing_2", "predict_2"]
    source, query = assert_code_predicts(model, X)
    lines = source.splitlines()
    assert lines[:8] == ["def predict(", "    *,", "    petal_length,", "    say_hi,", "    it_s,",
                         "    _2nd,", "    class_,", "    if_,"]  # all asked by the tree
    assert [line.split("=")[0].rstrip(",") for line in lines[8:11]] == ["    missing_2", "    predict_2", "):"]
    first = next(line for line in lines if line.startswith("    if "))
    assert first in ('    if say_hi in ("O\'Brien", \'x"y\'):',
                     '    if say_hi in ("back\\\\slash", "new\\nline"):')
    assert ("WHEN \"say \"\"hi\"\"\" IN ('O''Brien', 'x\"y')" in query
            or "WHEN \"say \"\"hi\"\"\" IN ('back\\slash', 'new\nline')" in query)
    assert "class_ <= " in source and '"class" <= ' in query and '"it\'s" <= ' in query
    assert "return \"it's yes\"" in source and "return 'say \"no\"'" in source
    assert "        say_hi: 'say \\\"hi\\\"', category" in source


def test_names_with_newlines_triple_quotes_and_unicode():
    rng = np.random.default_rng(0)
    n = 200
    X = pd.DataFrame({'tri"""ple\nline\\': rng.normal(size=n), "größe ﬁ": rng.normal(size=n),
                      "\u2028sep": rng.choice(["a\u2028b", 'q"""'], n)})
    y = np.where((X.iloc[:, 0] > 0) ^ (X.iloc[:, 2] == "a\u2028b"), "x\ny", "z")
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert python_names(X.columns) == ["tri_ple_line", "größe_fi", "sep"]
    source, _ = assert_code_predicts(model, X)
    assert "        tri_ple_line: 'tri\\\"\\\"\\\"ple\\nline\\\\', number" in source


def test_function_name_must_be_an_identifier(iris):
    X, y = iris
    model = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert tree_to_python(model, function_name="species_of").startswith("def species_of(")
    with pytest.raises(ValueError, match="identifier"):
        tree_to_python(model, function_name="class")


# ------------------------------------------------------------------------ the textbook


def test_playtennis_reads_like_the_textbook_tree():
    frame = pd.read_csv(data_path("playtennis.csv")).drop(columns="Day")
    X, y = frame.drop(columns="PlayTennis"), frame["PlayTennis"]
    model = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway").fit(X, y)
    source, query = assert_code_predicts(model, X)
    lines = source.splitlines()
    assert lines[0] == "def predict(*, Outlook, Temperature=None, Humidity, Wind):"
    body = lines[lines.index("        return value is None or value != value") + 2:]
    assert body == [
        '    if Outlook == "Overcast":',
        '        return "Yes"  # Yes 4 (100%)',
        '    elif Outlook == "Sunny":',
        '        if Humidity == "Normal":',
        '            return "Yes"  # Yes 2 (100%)',
        '        else:  # Humidity == "High", another value or missing',
        '            return "No"  # No 3 (100%)',
        '    else:  # Outlook == "Rain", another value or missing',
        '        if Wind == "Strong":',
        '            return "No"  # No 2 (100%)',
        '        else:  # Wind == "Weak", another value or missing',
        '            return "Yes"  # Yes 3 (100%)',
    ]
    assert tree_to_sql(model, select=False).splitlines() == [
        "CASE",
        "    WHEN \"Outlook\" = 'Overcast' THEN 'Yes'  -- Yes 4 (100%)",
        "    WHEN \"Outlook\" = 'Sunny'",
        "        AND \"Humidity\" = 'Normal' THEN 'Yes'  -- Yes 2 (100%)",
        "    WHEN \"Outlook\" = 'Sunny' THEN 'No'  -- No 3 (100%)",
        "    WHEN \"Wind\" = 'Strong' THEN 'No'  -- No 2 (100%)",
        "    ELSE 'Yes'  -- Yes 3 (100%)",
        "END",
    ]


# ------------------------------------------------------------------------ depth


@pytest.fixture(scope="module")
def chain():
    """A regression tree 129 levels deep: each split peels off the largest of 3**i."""
    X = pd.DataFrame({"x": np.arange(130.0)})
    model = DecisionTreeRegressor().fit(X, 3.0 ** np.arange(130))
    assert model.get_depth() == 129 > tree_code.MAX_NESTING
    return model, X


def test_a_tree_too_deep_to_nest_is_written_as_rules(chain):
    model, X = chain
    with pytest.raises(ValueError, match="form='rules'"):
        tree_to_python(model, form="nested")
    source, _ = assert_code_predicts(model, X)
    assert "else:" not in source and "tried in order" in source
    lines = source.splitlines()
    assert sum(line.startswith("    if ") for line in lines) == model.get_n_leaves() - 1
    assert max(len(line) - len(line.lstrip()) for line in lines) == 8


def test_the_deepest_nested_form_parses(chain):
    model, X = chain
    cut = cut_to_depth(model, tree_code.MAX_NESTING)
    assert tree_to_python(model, tree=cut.tree_) == tree_to_python(cut)  # a Tree, named by model
    source, _ = assert_code_predicts(cut, X, form="nested")
    deepest = max(len(line) - len(line.lstrip()) for line in source.splitlines())
    assert deepest == 4 * (tree_code.MAX_NESTING + 1)


def test_sql_refuses_a_rule_longer_than_sqlite_evaluates(chain, monkeypatch):
    model, _ = chain
    monkeypatch.setattr(tree_code, "SQL_MAX_CONDITIONS", 100)
    with pytest.raises(ValueError, match="129 conditions"):
        tree_to_sql(model)


def test_sqlite_evaluates_a_rule_of_the_longest_length():
    condition = '("x" IS NULL OR "x" <= 1.5)'
    rule = "\n        AND ".join([condition] * tree_code.SQL_MAX_CONDITIONS)
    query = f'SELECT *,\n    CASE\n    WHEN {rule} THEN 1\n    ELSE 2\n    END AS prediction\nFROM "t";'
    with closing(sqlite3.connect(":memory:")) as con:
        con.execute('CREATE TABLE "t" ("x")')
        con.executemany('INSERT INTO "t" VALUES (?)', [(1.0,), (2.0,), (None,)])
        assert [row[-1] for row in con.execute(query)] == [1, 2, 1]
