"""Which column of a table a person would predict, and why.

A file nobody here has seen rarely ends with its outcome: a passenger list ends with the
port of embarkation, a penguin table starts with the species. :func:`guess_target` weighs
what a person weighs, in this order:

1. a name that says "outcome" (target, label, class, y, survived, species, diagnosis,
   churn, default, ...), in any case and with any separators;
2. otherwise a column of a few classes: categorical labels with 2 to 20 values first,
   then whole numbers that read as classes (2 to 20 values, two rows a value or more:
   ``engine._schema.whole_number_classes``);
3. otherwise a numeric column (a regression target);

never an identifier, a date or a part of one (a weekday is a fact about the day the
row was written, not what a table is kept to predict), a constant, an empty or a
free-text column. Within a rule the last such column wins: tables that do end with their
outcome keep it.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from engine._schema import date_parts, infer_schema, whole_number_classes

#: Column names that say "this is what to predict", normalised (lower case, words joined
#: by one underscore); the earlier in this list, the stronger. Words of machine learning
#: first, then outcomes of a domain (a passenger survived, an e-mail is spam), then
#: words that name an ordinary attribute as often as an outcome: a Titanic table's
#: "class" is the passenger's ticket class beside its "survived", a wine table's "type"
#: its colour beside its "quality".
OUTCOME_NAMES = (
    "target", "label", "labels", "class_label", "y", "outcome", "response",
    "survived", "survival", "species", "diagnosis", "churn", "churned", "default", "defaulted",
    "will_wait", "willwait", "play", "play_tennis", "playtennis", "spam", "is_spam", "fraud",
    "is_fraud", "approved", "decision",
    "class", "result", "quality", "grade", "category", "type", "status",
)
#: Few enough values to be classes a class can read: a guessed target has at most these.
MAX_GUESSED_CLASSES = 20
#: Kinds a target may have.
USABLE = ("numeric", "categorical")


def normalise(name: str) -> str:
    """``Will Wait`` → ``will_wait``; ``Class-Label`` → ``class_label``."""
    words = re.findall(r"[a-z0-9]+", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", str(name)).lower())
    return "_".join(words)


def guess_target(frame: pd.DataFrame, schema: pd.DataFrame | None = None, *,
                 classes: bool = False) -> tuple[str, str]:
    """The column to predict in ``frame``, and one sentence saying why.

    Parameters
    ----------
    frame : DataFrame, the table as read.
    schema : its :func:`infer_schema` (computed when None).
    classes : only a column of a few classes (for a page that classifies).

    Returns
    -------
    (column, reason) : the column's name and a sentence for the user.

    Raises
    ------
    ValueError when no column can be a target (every one an identifier, a date or a
    part of one, a constant, empty or free text).

    Examples
    --------
    >>> frame = pd.DataFrame({"PassengerId": range(1, 7), "Survived": [0, 1, 1, 0, 1, 0],
    ...                       "Fare": [7.3, 71.3, 7.9, 53.1, 8.1, 8.5],
    ...                       "Embarked": list("SCSSSQ")})
    >>> guess_target(frame)
    ('Survived', 'its name says it is an outcome, and it has 2 values')
    >>> guess_target(frame.drop(columns="Survived"))[0]
    'Embarked'
    """
    schema = infer_schema(frame) if schema is None else schema
    parts = {name for name, _, _ in date_parts(schema)}
    usable = [c for c in frame.columns if schema.loc[c, "kind"] in USABLE and c not in parts]
    if not usable:
        raise ValueError("no column can be predicted: each is an identifier, a date or a "
                         "part of one, a constant, empty or free text")
    distinct = {c: int(schema.loc[c, "n_distinct"]) for c in usable}
    named = [c for c in usable if normalise(c) in OUTCOME_NAMES and distinct[c] >= 2
             and (not classes or _few_classes(frame[c], schema.loc[c, "kind"], distinct[c]))]
    if named:
        best = min(named, key=lambda c: (OUTCOME_NAMES.index(normalise(c)), -_position(frame, c)))
        return str(best), f"its name says it is an outcome, and it has {distinct[best]} values"
    labels = [c for c in usable if schema.loc[c, "kind"] == "categorical"
              and 2 <= distinct[c] <= MAX_GUESSED_CLASSES]
    if labels:
        return str(labels[-1]), (f"it is the last column of a few categories "
                                 f"({distinct[labels[-1]]} values)")
    counts = [c for c in usable if schema.loc[c, "kind"] == "numeric"
              and distinct[c] >= 2 and whole_number_classes(frame[c], distinct[c])]
    if counts:
        return str(counts[-1]), (f"it is the last column of a few whole-number classes "
                                 f"({distinct[counts[-1]]} values)")
    numeric = [c for c in usable if schema.loc[c, "kind"] == "numeric"]
    if classes:
        raise ValueError("no column has a few classes to predict")
    if numeric:
        return str(numeric[-1]), "no column has a few classes; it is the last numeric column " \
                                 "(a regression target)"
    return str(usable[-1]), "it is the last column a model can predict"


def _few_classes(column: pd.Series, kind: str, n_distinct: int) -> bool:
    if kind == "categorical":
        return n_distinct <= MAX_GUESSED_CLASSES
    return whole_number_classes(column, n_distinct)


def _position(frame: pd.DataFrame, column) -> int:
    return list(frame.columns).index(column)


#: A feature that alone gets this share of the rows' classes right leaks the answer.
LEAK_SHARE = 0.99
#: Fewer rows than this cannot tell a leak from luck.
LEAK_MIN_ROWS = 30
#: Rows a one-threshold score (:func:`leaky_features`, :func:`rank_features`) reads at
#: most, evenly spaced: it sorts the column.
SCORE_ROWS = 20_000


def leaky_features(frame: pd.DataFrame, target, features, schema=None) -> list[tuple[str, float]]:
    """Features that predict a class target almost perfectly on their own, with the share
    of rows they get right: a column recorded after the outcome (a "survived" flag's
    lifeboat number, a diagnosis code) teaches nothing a model could use beforehand.

    A categorical feature (or one of at most 20 numbers) predicts each of its values'
    commonest class; a numeric one the best one-threshold rule (a stump), scored on at
    most ``SCORE_ROWS`` evenly spaced rows. Codes that name rows are identifiers already
    and are not looked at.

    >>> frame = pd.DataFrame({"boat": ["13", "-", "4", "-"] * 10, "age": range(40),
    ...                       "survived": ["yes", "no", "yes", "no"] * 10})
    >>> leaky_features(frame, "survived", ["boat", "age"])
    [('boat', 1.0)]
    """
    schema = infer_schema(frame) if schema is None else schema
    y = frame[target]
    if y.nunique() < 2 or y.nunique() > MAX_GUESSED_CLASSES:
        return []
    codes = pd.Series(pd.factorize(y)[0], index=y.index)  # classes as integers, read once
    found = []
    for column in features:
        kind = schema.loc[column, "kind"]
        rows = frame[column].notna() & y.notna()
        if rows.sum() < LEAK_MIN_ROWS or kind not in USABLE:
            continue
        x, labels = frame.loc[rows, column], codes[rows]
        if kind == "categorical" or x.nunique() <= MAX_GUESSED_CLASSES:
            share = pd.crosstab(x, labels).max(axis=1).sum() / len(labels)
        else:  # a stump sorts its column: at most SCORE_ROWS evenly spaced rows
            step = max(1, -(-len(x) // SCORE_ROWS))
            share = _stump_share(x.to_numpy(dtype=float)[::step], labels.to_numpy()[::step])
        if share >= LEAK_SHARE:
            found.append((str(column), round(float(share), 4)))
    return found


#: A numeric feature with at most this many distinct values is drawn jittered and is
#: a two-feature view's axis only when fewer than two features have more.
FEW_VALUES = 10


def rank_features(X: pd.DataFrame, y: pd.Series, *, task: str = "classification") -> list[str]:
    """The numeric columns of ``X``, the most useful pair of axes first.

    Columns with more than ``FEW_VALUES`` distinct values come before those with fewer
    (on two 0/1 axes every point sits on one of four spots); within each group the
    higher univariate score comes first: the share of rows the best one-threshold rule
    on that column alone gets right (classification), or the share of the target's
    variance it explains (regression). Ties keep the column order. Rows with the
    column missing are left out of its score; at most ``SCORE_ROWS`` evenly spaced rows
    are read.

    >>> X = pd.DataFrame({"noise": [5, 1, 4, 2, 3, 0] * 5, "signal": range(30),
    ...                   "flag": [0, 1] * 15})
    >>> rank_features(X, pd.Series(["a"] * 15 + ["b"] * 15))
    ['signal', 'noise', 'flag']
    """
    step = max(1, -(-len(X) // SCORE_ROWS))
    X, target = X.iloc[::step], pd.Series(np.asarray(y)[::step], index=X.index[::step])
    if task == "classification":  # classes as integers, read once (NaN stays missing)
        codes = pd.factorize(target)[0]
        target = pd.Series(np.where(codes < 0, np.nan, codes), index=target.index)
    scored = []
    for position, column in enumerate(X.columns):
        if not pd.api.types.is_numeric_dtype(X[column]):
            continue
        rows = X[column].notna() & target.notna()
        x = X.loc[rows, column].to_numpy(dtype=float)
        if task == "classification":
            score = _stump_share(x, target[rows].to_numpy()) if len(x) else 0.0
        else:
            score = _stump_r2(x, target[rows].to_numpy(dtype=float))
        few = X[column].nunique() <= FEW_VALUES
        scored.append((few, -score, position, str(column)))
    return [column for *_, column in sorted(scored)]


def _stump_r2(x, values) -> float:
    """The best share of the variance of ``values`` a rule ``x <= t`` explains."""
    if len(x) < 2:
        return 0.0
    order = np.argsort(x, kind="stable")
    x, v = x[order], values[order] - values.mean()
    total = float(v @ v)
    cut = x[1:] != x[:-1]
    if total == 0.0 or not cut.any():
        return 0.0
    n_left = np.arange(1, len(x))
    left = np.cumsum(v)[:-1]
    # the sum of squares a split removes: n_l·mean_l² + n_r·mean_r², with means of the
    # centred values (their total sum is 0, so the right sum is -left)
    explained = left**2 / n_left + left**2 / (len(x) - n_left)
    return float(explained[cut].max() / total)


def _stump_share(x, labels) -> float:
    """The best share of rows a rule ``x <= t`` → one class, else another, gets right."""
    order = np.argsort(x, kind="stable")
    x, codes = x[order], pd.factorize(labels[order])[0]
    onehot = np.eye(codes.max() + 1)[codes]
    left = np.cumsum(onehot, axis=0)[:-1]
    right = onehot.sum(axis=0) - left
    cut = x[1:] != x[:-1]  # thresholds only between distinct values
    if not cut.any():
        return 0.0
    correct = (left.max(axis=1) + right.max(axis=1))[cut]
    return float(correct.max() / len(x))
