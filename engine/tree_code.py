"""A fitted decision tree written out as code: a Python function and a SQL CASE expression.

Both read the raw values a user has (numbers, category text; None / NaN or NULL for a
missing value) and give exactly what ``model.predict`` gives, row for row:

* a numeric split asks ``x <= threshold``, the threshold printed with ``repr`` of its
  float, so it reads back as the very same number;
* a categorical split asks whether the value is one of a branch's categories; its last
  branch (``else``, or the next ``WHEN``) takes every other value, and it is the branch
  the tree sends a category the split did not see (``unseen_child``);
* a missing value goes where the tree sends it (``missing_child``): a branch's condition
  says "missing or ..." when it is that branch's.

A leaf gives the class label (classifier) or the mean target (regressor) ``predict`` gives.
"""
from __future__ import annotations

import keyword
import math
import sqlite3
import unicodedata
from contextlib import closing
from dataclasses import dataclass

import numpy as np

from .tree._tree import NUMERIC, Tree, plurality

#: Python parses at most 100 nested blocks (an ``elif`` is an ``if`` inside an ``else``):
#: deeper trees are written as an ordered list of rules instead.
MAX_NESTING = 90
#: SQLite refuses an expression nested more than 1000 deep (SQLITE_MAX_EXPR_DEPTH); a
#: rule of n conditions nests about n + 4 deep.
SQL_MAX_CONDITIONS = 900
#: A comment names at most this many categories or classes.
MAX_LISTED = 8
#: The forms of Python source :func:`tree_to_python` writes.
FORMS = ("auto", "nested", "rules")


@dataclass(frozen=True)
class _Test:
    """The question that sends a row down one branch of a split.

    Numeric: ``x <= threshold``; categorical (``threshold`` None): ``x`` is one of
    ``values``. ``missing``: a missing value takes this branch too.
    """

    feature: int
    threshold: float | None
    values: tuple
    missing: bool

    @property
    def never(self) -> bool:
        """No row takes the branch: no category and no missing value."""
        return self.threshold is None and not self.values and not self.missing

    @property
    def always(self) -> bool:
        """Every row takes the branch: x <= +inf, and missing values too."""
        return self.threshold == math.inf and self.missing


@dataclass
class _TreeView:
    """What writing code needs of a fitted tree: its arrays, names and leaf outputs."""

    tree: Tree
    feature_names: list[str]
    categories: list
    outputs: np.ndarray
    classes: np.ndarray | None
    estimator: str

    def branches(self, node: int) -> list[tuple[int, _Test | None]]:
        """The branches of ``node`` in the order the code asks them: ``(child, test)``;
        the last one's test is None, it takes every row the others do not."""
        tree = self.tree
        j, missing_child = int(tree.feature[node]), int(tree.missing_child[node])
        children = list(tree.children(node))
        if tree.split_kind[node] == NUMERIC:
            left, right = children
            test = _Test(j, float(tree.threshold[node]), (), missing_child == left)
            asked = [(left, test)]
            last = right
        else:
            unseen = int(tree.unseen_child[node])
            last = unseen if unseen >= 0 else children[-1]
            codes = tree.children_by_code(node)
            asked = [(c, _Test(j, None, tuple(self.categories[j][np.flatnonzero(codes == c)]),
                               missing_child == c)) for c in children if c != last]
        for child, test in asked:
            if test.always:
                return [(child, None)]
        return [(c, t) for c, t in asked if not t.never] + [(last, None)]

    def rules(self) -> list[tuple[int, list[_Test]]]:
        """The leaves in the order the code visits them, each with the tests of the
        branches taken to reach it, the last branch of a split adding none: tried in
        this order, the first rule whose tests all hold gives the row's leaf."""
        found, stack = [], [(0, [])]
        while stack:
            node, tests = stack.pop()
            if self.tree.is_leaf(node):
                found.append((node, tests))
                continue
            branches = self.branches(node)
            for child, test in reversed(branches):
                stack.append((child, tests if test is None else tests + [test]))
        return found

    def nesting(self) -> int:
        """Blocks nested at the deepest leaf of the nested form (an ``elif`` counts one
        more, since Python parses it as an ``if`` inside the ``else``)."""
        deepest, stack = 0, [(0, 0)]
        while stack:
            node, level = stack.pop()
            if self.tree.is_leaf(node):
                deepest = max(deepest, level)
                continue
            branches = self.branches(node)
            if len(branches) == 1:
                stack.append((branches[0][0], level))
                continue
            for k, (child, _) in enumerate(branches):
                stack.append((child, level + 1 + min(k, len(branches) - 2)))
        return deepest

    def note(self, leaf: int) -> str:
        """A leaf's training counts: "versicolor 37 (95%), virginica 2 (5%)" or
        "mean of 12 training rows"; an empty ID3 branch says it holds its parent's."""
        n = int(self.tree.n_node_samples[leaf])
        if self.classes is None:
            return f"mean of {n} training row{'s' if n != 1 else ''}" if n else \
                "no training rows: the parent's mean"
        counts = self.tree.value[leaf]
        order = [q for q in np.argsort(-counts, kind="stable") if counts[q] > 0]
        parts = [f"{_text(self.classes[q])} {counts[q]:g} ({counts[q] / counts.sum():.0%})"
                 for q in order[:MAX_LISTED]]
        text = ", ".join(parts + (["…"] if len(order) > MAX_LISTED else []))
        return text if n else f"no training rows: the parent's {text}"


def _view(model, tree=None) -> _TreeView:
    """The tree to write and the fitted estimator that names its columns and classes.

    ``tree``: None (``model`` is a fitted tree), an int (``model`` is an ensemble and
    this is the index of one of its ``estimators_``), a fitted member tree, or a
    :class:`Tree` to write with ``model``'s names (e.g. ``model.tree_.collapse(...)``).
    """
    if isinstance(tree, (int, np.integer)):
        members = getattr(model, "estimators_", None)
        if members is None or not -len(members) <= tree < len(members):
            size = "no trees" if members is None else f"{len(members)} trees"
            raise ValueError(f"tree={tree} names no tree of this {type(model).__name__} ({size}).")
        model, tree = members[tree], None
    elif hasattr(tree, "tree_"):
        model, tree = tree, None
    if tree is None:
        if not hasattr(model, "tree_"):
            raise ValueError(f"A {type(model).__name__} is not one tree: pass tree=i to write "
                             "its i-th tree, or a fitted DecisionTreeClassifier / Regressor.")
        tree = model.tree_
    classifier = getattr(model, "_estimator_type", None) == "classifier"
    value = np.asarray(tree.value, dtype=np.float64)
    if classifier:  # the leaf's label exactly as predict finds it: from the class shares
        with np.errstate(divide="ignore", invalid="ignore"):
            outputs = np.asarray(model.classes_)[plurality(value / value.sum(axis=1, keepdims=True))]
    else:
        outputs = value[:, 0]
    names = [str(f) for f in model.feature_names_in_]
    categories = list(getattr(model, "categories_", None) or [None] * len(names))
    return _TreeView(tree, names, categories, outputs,
                     np.asarray(model.classes_) if classifier else None, type(model).__name__)


def _text(value) -> str:
    """A value for a comment, on one line."""
    text = str(value)
    return text if text.isprintable() else repr(text)


def _plain(value):
    """numpy scalars as the Python values they hold."""
    return value.item() if isinstance(value, np.generic) else value


def _finite(value: float, what: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{what} {value!r} cannot be written as a number in code.")
    return value


# ---------------------------------------------------------------------------- Python


def python_names(feature_names, function_name: str = "predict") -> list[str]:
    """The argument name of each column in the function :func:`tree_to_python` writes.

    Runs of characters an identifier cannot hold become ``_`` (Unicode letters stay,
    in Python's normal form NFKC), a leading digit gets a ``_`` before it, a keyword a
    ``_`` after it, an empty name is ``x<j>``; a name already taken (another column's,
    the function's, ``missing``) gets ``_2``, ``_3``, ...

    Examples
    --------
    >>> python_names(["sepal length (cm)", "class", "2nd", 'say "hi"', "if", "??"])
    ['sepal_length_cm', 'class_', '_2nd', 'say_hi', 'if_', 'x5']
    >>> python_names(["a b", "a-b", "missing"])
    ['a_b', 'a_b_2', 'missing_2']
    """
    taken = {"missing", function_name}
    names = []
    for j, column in enumerate(feature_names):
        text = unicodedata.normalize("NFKC", str(column))
        kept = "".join(c if ("a" + c).isidentifier() else " " for c in text)
        name = "_".join(kept.split()) or f"x{j}"
        name = "_" + name if not name.isidentifier() else name
        name = name + "_" if keyword.iskeyword(name) else name
        base, k = name, 2
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name)
        names.append(name)
    return names


def _py_str(text: str) -> str:
    """A string literal, in double quotes unless the text holds one."""
    literal = repr(text)
    return f'"{literal[1:-1]}"' if literal[0] == "'" and '"' not in text else literal


def _py_literal(value) -> str:
    value = _plain(value)
    if isinstance(value, str):
        return _py_str(value)
    if isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float):
        return repr(_finite(value, "The value"))
    raise ValueError(f"The value {value!r} (a {type(value).__name__}) cannot be written as a "
                     "Python literal: only text, numbers and booleans can.")


def _py_values(values) -> str:
    return ", ".join(_py_literal(v) for v in values)


def _py_test(test: _Test, names: list[str]) -> str:
    """The Python condition of a branch; it never compares a missing value."""
    x = names[test.feature]
    if test.threshold is not None:
        if test.threshold == math.inf:  # the split "present / missing"
            return f"not missing({x})"
        compare = f"{x} <= {_finite(test.threshold, 'The threshold')!r}"
        return f"missing({x}) or {compare}" if test.missing else f"not missing({x}) and {compare}"
    if not test.values:
        return f"missing({x})"
    compare = (f"{x} == {_py_literal(test.values[0])}" if len(test.values) == 1
               else f"{x} in ({_py_values(test.values)})")
    return f"missing({x}) or {compare}" if test.missing else compare


def _py_else_note(view: _TreeView, node: int, child: int, asked: list, names: list[str]) -> str:
    """What the ``else`` of a split takes, as a comment: 'x > 2.5, or missing',
    'colour in ("blue", "green"), another value or missing'."""
    tree = view.tree
    j = int(tree.feature[node])
    parts = []
    if tree.split_kind[node] == NUMERIC:
        t = float(tree.threshold[node])
        parts += [] if t == math.inf else [f"{names[j]} > {t!r}"]
    else:
        own = view.categories[j][np.flatnonzero(tree.children_by_code(node) == child)]
        listed = _py_values(own[:MAX_LISTED]) + (", ..." if len(own) > MAX_LISTED else "")
        parts += [f"{names[j]} == {listed}"] if len(own) == 1 else (
            [f"{names[j]} in ({listed})"] if len(own) else [])
        parts.append("another value")
    if all(not test.missing for _, test in asked):
        parts.append("missing")
    return ", ".join(parts[:-1]) + (" or " if len(parts) > 1 else "") + parts[-1]


def _py_leaf(view: _TreeView, leaf: int, pad: str) -> str:
    return f"{pad}return {_py_literal(view.outputs[leaf])}  # {view.note(leaf)}"


def _py_nested(view: _TreeView, names: list[str], node: int, level: int) -> list[str]:
    """``if`` / ``elif`` / ``else`` blocks of the subtree at ``node``, ``level`` deep."""
    pad = "    " * level
    if view.tree.is_leaf(node):
        return [_py_leaf(view, node, pad)]
    branches = view.branches(node)
    if len(branches) == 1:
        return _py_nested(view, names, branches[0][0], level)
    lines = []
    for k, (child, test) in enumerate(branches):
        if test is None:
            note = _py_else_note(view, node, child, branches[:-1], names)
            lines.append(f"{pad}else:  # {note}")
        else:
            lines.append(f"{pad}{'elif' if k else 'if'} {_py_test(test, names)}:")
        lines += _py_nested(view, names, child, level + 1)
    return lines


def _py_rules(view: _TreeView, names: list[str]) -> list[str]:
    """One ``if ...: return`` per leaf, tried in order."""
    lines = []
    for leaf, tests in view.rules():
        if not tests:
            lines.append(_py_leaf(view, leaf, "    "))
            continue
        terms = [f"({c})" if " or " in c else c for c in (_py_test(t, names) for t in tests)]
        if len(terms) == 1:
            lines.append(f"    if {terms[0]}:")
        else:
            lines += ["    if ("] + [f"        {'and ' if i else ''}{term}"
                                     for i, term in enumerate(terms)] + ["    ):"]
        lines.append(_py_leaf(view, leaf, "        "))
    return lines


def _py_signature(function_name: str, names: list[str], used: set) -> list[str]:
    """``def f(*, a, b=None):``, one argument a line when it is long; columns the tree
    does not ask about default to None."""
    args = ["*"] + [name if j in used else f"{name}=None" for j, name in enumerate(names)]
    line = f"def {function_name}({', '.join(args)}):"
    if len(line) <= 88:
        return [line]
    return [f"def {function_name}("] + [f"    {arg}," for arg in args] + ["):"]


def _py_docstring(view: _TreeView, names: list[str], used: set, form: str) -> list[str]:
    tree = view.tree
    what = "class" if view.classes is not None else "value"
    lines = [
        f'"""Predict the {what} of one row with a fitted {view.estimator} '
        f"({tree.n_leaves} leaves, depth {tree.max_depth}).",
        "",
        "Give each column's raw value by its argument name: a number, or a category as",
        "text. None or NaN is a missing value: a split sends it to the branch whose",
        'condition says "missing". A category a split did not see in training goes to its',
        "last branch (else). Arguments that default to None are not used by the tree.",
    ]
    if form == "rules":
        lines += ["", "The tree is written as rules, one per leaf, tried in order: the first",
                  "whose conditions all hold gives the prediction."]
    lines += ["", "Arguments and the columns they stand for:"]
    for j, (name, column) in enumerate(zip(names, view.feature_names, strict=True)):
        kind = "number" if view.categories[j] is None else "category"
        unused = "" if j in used else ", not used"
        column = "" if column == name else f"{column!r}, ".replace('"', '\\"')
        lines.append(f"    {name}: {column}{kind}{unused}")
    return ["    " + line if line else "" for line in lines + ['"""']]


def tree_to_python(model, function_name: str = "predict", tree=None, form: str = "auto") -> str:
    """The source of a standalone Python function that predicts like the fitted tree.

    Parameters
    ----------
    model : fitted DecisionTreeClassifier or DecisionTreeRegressor, or an ensemble
        The tree (with ``tree=None``), or a forest whose member ``tree`` is written.
    function_name : str, default="predict"
    tree : int, fitted tree, Tree or None
        An index into ``model.estimators_``, a fitted member tree, or a :class:`Tree`
        to write with ``model``'s column names and classes.
    form : {"auto", "nested", "rules"}, default="auto"
        "nested": ``if`` / ``elif`` / ``else`` blocks shaped like the tree; "rules": one
        ``if ...: return`` per leaf, tried in order (no nesting, so any depth parses);
        "auto": nested unless that nests more than :data:`MAX_NESTING` blocks.

    Returns
    -------
    str
        ``def <function_name>(*, <a keyword argument per column>): ...``, named by
        :func:`python_names` (its docstring maps them to the columns). A numeric split
        reads ``not missing(x) and x <= t`` or ``missing(x) or x <= t``, a binary
        categorical one ``x in ("a", "b")``, a multiway one ``if x == "a": ... elif
        ...: ... else: ...``; ``missing(value)`` is ``value is None or value != value``
        (only NaN differs from itself). A comment at each leaf gives its training class
        counts and shares (classifier) or its number of rows (regressor).

    Examples
    --------
    >>> import pandas as pd
    >>> from engine.tree import DecisionTreeClassifier
    >>> X = pd.DataFrame({"size (cm)": [1.0, 2.0, 3.0, 4.0], "colour": ["red", "red", "blue", "red"]})
    >>> model = DecisionTreeClassifier().fit(X, ["no", "no", "yes", "yes"])
    >>> source = tree_to_python(model)
    >>> print(source[source.index("    def missing"):])
        def missing(value):
            return value is None or value != value
    <BLANKLINE>
        if missing(size_cm) or size_cm <= 2.5:
            return "no"  # no 2 (100%)
        else:  # size_cm > 2.5
            return "yes"  # yes 2 (100%)
    <BLANKLINE>
    """
    if not function_name.isidentifier() or keyword.iskeyword(function_name):
        raise ValueError(f"function_name must be a Python identifier, got {function_name!r}.")
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}.")
    view = _view(model, tree)
    nesting = view.nesting()
    if form == "nested" and nesting > MAX_NESTING:
        raise ValueError(f"This tree nests {nesting} blocks deep as if/else; Python parses at "
                         f"most {MAX_NESTING} safely. Use form='rules' (or 'auto').")
    if form == "auto":
        form = "nested" if nesting <= MAX_NESTING else "rules"
    names = python_names(view.feature_names, function_name)
    internal = view.tree.children_left >= 0
    used = set(np.asarray(view.tree.feature)[internal].tolist())
    lines = _py_signature(function_name, names, used) + _py_docstring(view, names, used, form)
    if used:
        lines += ["", "    def missing(value):", "        return value is None or value != value",
                  ""]
    lines += _py_nested(view, names, 0, 1) if form == "nested" else _py_rules(view, names)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- SQL


def _sql_identifier(name: str) -> str:
    """A quoted identifier: ``"col name"``, embedded double quotes doubled."""
    _no_nul(name)
    return '"' + name.replace('"', '""') + '"'


def _no_nul(text: str) -> None:
    if "\x00" in text:
        raise ValueError(f"{text!r} holds a NUL character, which SQL text cannot.")


def _sql_exact(value: float) -> str:
    """``value`` as integer arithmetic that is exact in IEEE doubles: m × 2^e, with m an
    integer of at most 53 bits and the power applied in exact steps of at most 2^62."""
    mantissa, exponent = math.frexp(value)
    m, e = int(mantissa * 2.0**53), exponent - 53
    text = f"CAST({m} AS REAL)"
    while e:
        step = max(-62, min(62, e))
        text += f" * {2**step}" if step > 0 else f" / {2**-step}"
        e -= step
    return f"({text})"


def _sql_numbers(values) -> dict[float, str]:
    """How to write each float: ``repr`` when SQLite reads it back as the same double,
    else 17 significant digits, else :func:`_sql_exact`. SQLite's own conversion of
    decimal text is not always correctly rounded (in some versions about 1 in 1000 of
    shortest representations come back one unit in the last place off), so each
    choice is checked with the standard library's SQLite."""
    values = sorted({_finite(float(v), "The number") for v in values})
    chosen = {}
    with closing(sqlite3.connect(":memory:")) as con:
        for write in (repr, "{:.17g}".format):
            left = [v for v in values if v not in chosen]
            for lo in range(0, len(left), 500):
                part = left[lo:lo + 500]
                texts = [write(v) for v in part]
                back = con.execute("SELECT " + ", ".join(texts)).fetchone()
                chosen.update((v, t) for v, t, b in zip(part, texts, back, strict=True) if b == v)
    return {v: chosen.get(v) or _sql_exact(v) for v in values}


class _Sql:
    """SQL text of values, columns and tests; floats as :func:`_sql_numbers` chose."""

    def __init__(self, view: _TreeView):
        self.view = view
        floats = [t for t in view.tree.threshold if math.isfinite(t)]
        floats += [v for v in view.outputs if isinstance(_plain(v), float)]
        floats += [v for cats in view.categories if cats is not None for v in cats
                   if isinstance(_plain(v), float)]
        self.numbers = _sql_numbers(floats)

    def literal(self, value) -> str:
        value = _plain(value)
        if isinstance(value, str):
            _no_nul(value)
            return "'" + value.replace("'", "''") + "'"
        if isinstance(value, bool):
            return "TRUE" if value else "FALSE"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return self.numbers[_finite(value, "The number")]
        raise ValueError(f"The value {value!r} (a {type(value).__name__}) cannot be written as "
                         "a SQL literal: only text, numbers and booleans can.")

    def test(self, test: _Test) -> str:
        """The condition of a branch. It is true when the row takes the branch and
        false or NULL when not: a comparison with NULL is NULL, not true, so a
        missing value falls through to a later WHEN unless the test says IS NULL."""
        x = _sql_identifier(self.view.feature_names[test.feature])
        if test.threshold is not None:
            if test.threshold == math.inf:
                return f"{x} IS NOT NULL"
            compare = f"{x} <= {self.literal(test.threshold)}"
        elif not test.values:
            return f"{x} IS NULL"
        elif len(test.values) == 1:
            compare = f"{x} = {self.literal(test.values[0])}"
        else:
            compare = f"{x} IN ({', '.join(self.literal(v) for v in test.values)})"
        return f"({x} IS NULL OR {compare})" if test.missing else compare

    def leaf(self, leaf: int) -> str:
        return f"{self.literal(self.view.outputs[leaf])}  -- {self.view.note(leaf)}"


def _sql_case(view: _TreeView, pad: str) -> list[str]:
    """``CASE WHEN <rule> THEN <leaf> ... ELSE <last leaf> END``, one WHEN per leaf."""
    sql = _Sql(view)
    rules = view.rules()
    if len(rules) == 1:
        return [pad + sql.literal(view.outputs[rules[0][0]])]
    longest = max(len(tests) for _, tests in rules)
    if longest > SQL_MAX_CONDITIONS:
        raise ValueError(f"A rule of this tree has {longest} conditions; SQLite evaluates at "
                         f"most {SQL_MAX_CONDITIONS} in one expression. Limit max_depth.")
    lines = [pad + "CASE"]
    for leaf, tests in rules[:-1]:
        conditions = [sql.test(t) for t in tests]
        lines.append(f"{pad}    WHEN {conditions[0]}")
        lines += [f"{pad}        AND {c}" for c in conditions[1:]]
        lines[-1] += f" THEN {sql.leaf(leaf)}"
    lines += [f"{pad}    ELSE {sql.leaf(rules[-1][0])}", pad + "END"]
    return lines


def tree_to_sql(model, table: str = "rows", *, tree=None, select: bool = True) -> str:
    """The fitted tree as a SQL ``CASE`` expression, or a ``SELECT`` that applies it.

    Parameters
    ----------
    model, tree
        As in :func:`tree_to_python`.
    table : str, default="rows"
        The table the ``SELECT`` reads; its columns are named as the model's.
    select : bool, default=True
        True: ``SELECT *, CASE ... END AS prediction FROM "<table>";``. False: the
        ``CASE ... END`` expression alone, to put in a query of one's own.

    Returns
    -------
    str
        One ``WHEN`` per leaf in the tree's order, the last leaf the ``ELSE``: the first
        ``WHEN`` that holds gives the prediction, so a leaf's conditions are those of the
        branches taken to it but the last branch of a split (earlier ``WHEN`` s took
        the rows of the others). Columns are quoted identifiers (``"col name"``, a ``"``
        doubled), text is in single quotes (a ``'`` doubled). A missing value is NULL: a
        branch that takes it says ``"x" IS NULL OR ...``; elsewhere a comparison with
        NULL is not true and the row falls through, as does a category no ``IN (...)``
        lists. Each number reads back, in the standard library's SQLite, as the model's
        own double (see :func:`_sql_numbers`).

    Examples
    --------
    >>> import pandas as pd
    >>> from engine.tree import DecisionTreeRegressor
    >>> X = pd.DataFrame({"size (cm)": [1.0, 2.0, 3.0, None], "colour": ["red", "red", "blue", "red"]})
    >>> model = DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 1.0, 5.0, 5.0])
    >>> print(tree_to_sql(model))
    SELECT *,
        CASE
            WHEN "size (cm)" <= 2.5 THEN 1.0  -- mean of 2 training rows
            ELSE 5.0  -- mean of 2 training rows
        END AS prediction
    FROM "rows";
    """
    view = _view(model, tree)
    if not select:
        return "\n".join(_sql_case(view, ""))
    lines = ["SELECT *,"] + _sql_case(view, "    ")
    lines[-1] += " AS prediction"
    return "\n".join(lines + [f"FROM {_sql_identifier(table)};"])
