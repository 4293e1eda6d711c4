"""Every candidate split of one node, scored by every criterion (the tree page's working).

The splitter (:mod:`engine.tree._splitter`) scores all nodes of a level at once but
keeps only what it needs to choose; this module lays out the same candidates for one
node as a table a student can read: class counts per branch and the value of each
criterion side by side.

Candidates, per feature (loops over features; each is vectorized over rows):

* numeric: ``x <= t`` at every midpoint between adjacent distinct values (only
  those can be optimal), from one sort and one cumulative sum; when values are
  missing, also "value present" vs "value missing" (threshold ``+inf``);
* categorical, binary: values ordered by class-1 proportion (by the proportion of the
  node's majority class for more classes), every prefix of that order (the optimal
  binary split, Breiman et al. 1984); when values are missing, also "any value" vs
  "value missing";
* categorical, multiway: one branch per value (ID3), empty branches included.

Missing values go to the side with the higher score under the chosen criterion, as in
the builder (binary ties: right; multiway ties: the first non-empty branch).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._chi2 import chi2_tables
from ._criteria import CLASSIFICATION_CRITERIA, entropy, gini, tie_floor
from ._tree import CATEGORICAL_BINARY, CATEGORICAL_MULTIWAY, LEAF, NUMERIC

#: Columns of the candidate table, in order (``_lo``, ``_hi``, ``_codes`` are dropped at the end).
SPLIT_COLUMNS = [
    "feature",
    "feature_idx",
    "kind",
    "split",
    "threshold",
    "categories",
    "left_counts",
    "right_counts",
    "branch_counts",
    "n_missing",
    "missing_to",
    "errors",
    "error_decrease",
    "info_gain",
    "gain_ratio",
    "gini_decrease",
    "chi2",
    "chi2_dof",
    "chi2_p_value",
    "chosen",
]

#: The column holding each criterion's score (what the builder maximises).
SCORE_COLUMN = {
    "gini": "gini_decrease",
    "entropy": "info_gain",
    "misclassification": "error_decrease",
    "gain_ratio": "gain_ratio",
}


def _decrease(impurity, parent: np.ndarray, tables: np.ndarray, share: np.ndarray) -> np.ndarray:
    return impurity(parent) - np.sum(share * impurity(tables), axis=-1)


def split_scores(parent: np.ndarray, tables: np.ndarray, with_chi2: bool = True) -> dict:
    """Every criterion for splits of a node with class counts ``parent`` (n_classes,).

    Parameters
    ----------
    parent : ndarray of shape (n_classes,)
    tables : ndarray of shape (..., n_children, n_classes)
        Class counts of the children of each candidate (they sum to ``parent``).

    Returns
    -------
    dict of ndarray of shape (...)
        ``errors`` (misclassified weight after the split, majority class per child),
        ``error_decrease``, ``info_gain`` (bits), ``gain_ratio``, ``gini_decrease``,
        and with ``with_chi2`` also ``chi2``, ``chi2_dof``, ``chi2_p_value``.

    Notes
    -----
    Δ = I(t) − Σ_k (n_k/n) I(t_k) for I = error, entropy, Gini (Hastie et al. 2009, §9.2.3);
    for the error, Δ = (errors(t) − Σ_k errors(t_k)) / n with errors the non-majority weight;
    gain ratio Δ_H / SplitInfo with SplitInfo = −Σ_k (n_k/n) log₂(n_k/n) (C4.5).
    """
    weights = tables.sum(axis=-1)
    share = weights / parent.sum()
    info_gain = _decrease(entropy, parent, tables, share)
    split_info = entropy(weights)
    errors = np.sum(weights - tables.max(axis=-1, initial=0.0), axis=-1)
    # From counts, so a split that corrects no error shows exactly 0 (a 10/6 parent into 4/0 + 6/6).
    parent_errors = parent.sum() - parent.max()
    scores = {
        "errors": errors,
        "error_decrease": (parent_errors - errors) / parent.sum(),
        "info_gain": info_gain,
        "gain_ratio": np.where(
            split_info > 0, info_gain / np.where(split_info > 0, split_info, 1.0), 0.0
        ),
        "gini_decrease": _decrease(gini, parent, tables, share),
    }
    if with_chi2:
        scores["chi2"], scores["chi2_dof"], scores["chi2_p_value"] = chi2_tables(tables)
    return scores


def place_missing(
    parent, tables, nan, criterion: str, last_on_ties: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Add the missing rows' counts ``nan`` to the best child of each candidate.

    Returns the completed tables (n_cand, n_children, n_classes) and the chosen child
    of each candidate. Empty children are not options.
    """
    n_children = tables.shape[1]
    options = tables[:, None] + np.eye(n_children)[None, :, :, None] * nan
    score = split_scores(parent, options, with_chi2=False)[SCORE_COLUMN[criterion]]
    score = np.where(tables.sum(axis=-1) > 0, score, -np.inf)
    impurity = CLASSIFICATION_CRITERIA[criterion](parent)
    tied = score >= tie_floor(score.max(axis=1), impurity)[:, None]
    if last_on_ties:
        best = n_children - 1 - np.argmax(tied[:, ::-1], axis=1)
    else:
        best = np.argmax(tied, axis=1)
    return options[np.arange(len(tables)), best], best


def one_hot(y: np.ndarray, weight: np.ndarray, n_classes: int) -> np.ndarray:
    """Weighted one-hot class counts (n_rows, n_classes) of class codes ``y``."""
    counts = np.zeros((len(y), n_classes))
    counts[np.arange(len(y)), y] = weight
    return counts


def numeric_rows(x: np.ndarray, Y: np.ndarray, criterion: str,
                 grid: np.ndarray | None = None) -> dict:
    """Threshold candidates of one numeric feature; ``Y`` (n_rows, n_classes) weighted one-hot.

    ``grid``, if given, is the increasing values a binned search puts ``x`` on (each value
    goes to the first grid value at or above it, a value beyond the last to the last):
    the candidates are then those between the grid values that hold rows, the rows
    counted per grid value (a histogram) instead of sorted.
    """
    present = ~np.isnan(x)
    if grid is None:
        order = np.argsort(x[present], kind="stable")
        xs, cum = x[present][order], np.cumsum(Y[present][order], axis=0)
        cut = np.flatnonzero(xs[1:] > xs[:-1])
    else:
        at = np.minimum(np.searchsorted(grid, x[present], side="left"), len(grid) - 1)
        held = np.bincount(at, minlength=len(grid)) > 0
        Yp = Y[present]
        per_value = np.stack([np.bincount(at, weights=Yp[:, k], minlength=len(grid))
                              for k in range(Y.shape[1])], axis=1)
        xs, cum = grid[held], np.cumsum(per_value[held], axis=0)
        cut = np.arange(len(xs) - 1)
    lo, hi = xs[cut], xs[cut + 1]
    threshold = lo / 2.0 + hi / 2.0
    threshold = np.where(threshold >= hi, lo, threshold)
    left = cum[cut]
    tables = np.stack([left, cum[-1] - left], axis=1) if len(xs) else np.zeros((0, 2, Y.shape[1]))
    nan = Y[~present].sum(axis=0)
    parent = Y.sum(axis=0)
    side = np.full(len(cut), -1)
    if nan.sum() > 0:
        tables, side = place_missing(parent, tables, nan, criterion, last_on_ties=True)
        if len(xs):  # "value present" vs "value missing"
            tables = np.concatenate([tables, np.stack([cum[-1], nan])[None]])
            threshold, lo, hi = (
                np.append(a, v) for a, v in ((threshold, np.inf), (lo, xs[-1]), (hi, np.inf))
            )
            side = np.append(side, 1)
    return {"threshold": threshold, "tables": tables, "side": side, "lo": lo, "hi": hi}


def category_histogram(
    codes: np.ndarray, Y: np.ndarray, n_categories: int
) -> tuple[np.ndarray, np.ndarray]:
    """(n_categories, n_classes) counts of present rows and (n_classes,) counts of missing rows.

    Codes outside 0..k-1 (missing, or unseen in training) count as missing.
    """
    present = (codes >= 0) & (codes < n_categories)
    n_classes = Y.shape[1]
    key = codes[present].astype(np.intp)[:, None] * n_classes + np.arange(n_classes)
    hist = np.bincount(key.ravel(), weights=Y[present].ravel(), minlength=n_categories * n_classes)
    return hist.reshape(n_categories, n_classes), Y[~present].sum(axis=0)


def subset_rows(hist: np.ndarray, nan: np.ndarray, criterion: str) -> dict:
    """Best-prefix candidates: present categories ordered by a class proportion."""
    parent = hist.sum(axis=0) + nan
    weight = hist.sum(axis=1)
    present = np.flatnonzero(weight > 0)
    focus = 1 if hist.shape[1] == 2 else int(np.argmax(parent))
    order = present[np.argsort(hist[present, focus] / weight[present], kind="stable")]
    cum = np.cumsum(hist[order], axis=0)
    left = cum[:-1]
    tables = (
        np.stack([left, cum[-1] - left], axis=1)
        if len(order) > 1
        else np.zeros((0, 2, hist.shape[1]))
    )
    side = np.full(len(tables), -1)
    lefts = [tuple(order[: k + 1]) for k in range(len(tables))]
    rights = [tuple(order[k + 1 :]) for k in range(len(tables))]
    if nan.sum() > 0 and len(order):
        if len(tables):
            tables, side = place_missing(parent, tables, nan, criterion, last_on_ties=True)
        # "any category" (left) vs "missing" (right), after every proper prefix
        tables = np.concatenate([tables, np.stack([cum[-1], nan])[None]])
        side = np.append(side, 1)
        lefts, rights = lefts + [tuple(order)], rights + [()]
    return {"tables": tables, "side": side, "left_codes": lefts, "right_codes": rights}


def multiway_row(hist: np.ndarray, nan: np.ndarray, criterion: str) -> dict:
    """The ID3 split: one branch per category code (empty ones included)."""
    if hist.sum() <= 0:  # every row of the node misses the value: nothing to split on
        return {"tables": np.zeros((0,) + hist.shape), "side": np.zeros(0, np.intp)}
    tables, side = hist[None], np.array([-1])
    if nan.sum() > 0:
        tables, side = place_missing(
            hist.sum(axis=0) + nan, tables, nan, criterion, last_on_ties=False
        )
    return {"tables": tables, "side": side}


def _side_name(side: int, binary: bool, labels):
    if binary:
        return _BINARY_SIDES[side]
    return None if side < 0 else labels[side]


def _piece(name: str, j: int, kind: str, split: str, rows: dict, labels: list, n_missing) -> dict:
    """The candidates of one feature and one kind of split: count tables and table columns.

    A node has a candidate between every two values of every feature (a quarter of a
    million on 15,000 rows of 20 measurements): the Python objects of the table (a tuple
    of counts per branch, a tuple of those per candidate) are made by ``zip`` over whole
    columns, not candidate by candidate."""
    tables = rows["tables"]
    n, n_branches, n_classes = tables.shape
    branches = [list(zip(*(tables[:, b, k].tolist() for k in range(n_classes)), strict=True))
                for b in range(n_branches)]
    counts = list(zip(*branches, strict=True))
    binary = split != "multiway"
    missing_to = [_side_name(s, binary, labels[i]) for i, s in enumerate(rows["side"].tolist())]
    columns = {
        "feature": [name] * n,
        "feature_idx": [j] * n,
        "kind": [kind] * n,
        "split": [split] * n,
        "threshold": _floats(rows.get("threshold"), n),
        "categories": labels,
        "left_counts": branches[0] if binary else [None] * n,
        "right_counts": branches[1] if binary else [None] * n,
        "branch_counts": counts,
        "n_missing": [float(n_missing)] * n,
        "missing_to": missing_to,
        "_lo": _floats(rows.get("lo"), n),
        "_hi": _floats(rows.get("hi"), n),
        "_codes": list(rows.get("codes", [None] * n)),
    }
    return {"tables": tables, "columns": columns}


#: Where a binary candidate sends the missing values, by its side (-1: none missing).
_BINARY_SIDES = {-1: None, 0: "left", 1: "right"}


def _floats(values, n: int) -> list:
    """``values`` (an array, or None for a column the split kind lacks: NaN) as a list."""
    return [np.nan] * n if values is None else np.asarray(values, dtype=float).tolist()


def _assemble(pieces: list[dict], parent: np.ndarray | None = None) -> pd.DataFrame:
    """One table from the pieces of a node with class counts ``parent`` (default: the first
    candidate's); scores computed once per number of branches."""
    pieces = [p for p in pieces if len(p["tables"])]
    if not pieces:
        return pd.DataFrame(columns=SPLIT_COLUMNS + ["_lo", "_hi", "_codes"])
    frame = pd.DataFrame(
        {k: [v for p in pieces for v in p["columns"][k]] for k in pieces[0]["columns"]}
    )
    sizes = np.array([len(p["tables"]) for p in pieces])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    width = np.array([p["tables"].shape[1] for p in pieces])
    parent = pieces[0]["tables"][0].sum(axis=0) if parent is None else parent
    scores: dict[str, np.ndarray] = {}
    for k in np.unique(width):
        group = np.flatnonzero(width == k)
        rows = np.concatenate([np.arange(starts[g], starts[g] + sizes[g]) for g in group])
        tables = np.concatenate([pieces[g]["tables"] for g in group])
        for column, values in split_scores(parent, tables).items():
            scores.setdefault(column, np.zeros(len(frame), dtype=values.dtype))[rows] = values
    return frame.assign(**scores)


def _categorical_pieces(name, j, codes, Y, categories, criterion) -> list[dict]:
    hist, nan = category_histogram(codes, Y, len(categories))
    values = list(categories)
    multiway = multiway_row(hist, nan, criterion)
    subsets = subset_rows(hist, nan, criterion)
    subsets["codes"] = list(zip(subsets.pop("left_codes"), subsets.pop("right_codes"), strict=True))
    subset_labels = [tuple(values[c] for c in left) for left, _ in subsets["codes"]]
    return [
        _piece(name, j, "categorical", "multiway", multiway, [tuple(values)], nan.sum()),
        _piece(name, j, "categorical", "subset", subsets, subset_labels, nan.sum()),
    ]


def candidate_table(X, y, weight, n_classes, names, categories, criterion,
                    grids: dict | None = None) -> pd.DataFrame:
    """All candidates of the node holding rows ``X`` (encoded), ``y`` (class codes), ``weight``.

    ``categories[j]`` is None for numeric features. Rows are ordered by feature, then
    threshold (numeric) or multiway first and prefixes by length (categorical).
    ``grids[j]``, if given, is the grid a binned search puts numeric column j on (see
    :func:`numeric_rows`).
    """
    Y = one_hot(y, weight, n_classes)
    if Y.sum() <= 0:  # no rows reach the node
        return _assemble([])
    pieces = []
    for j, name in enumerate(names):
        if categories[j] is None:
            rows = numeric_rows(X[:, j], Y, criterion, None if grids is None else grids.get(j))
            labels = [None] * len(rows["tables"])
            n_missing = Y[np.isnan(X[:, j])].sum()
            pieces.append(_piece(name, j, "numeric", "threshold", rows, labels, n_missing))
        else:
            pieces.extend(_categorical_pieces(name, j, X[:, j], Y, categories[j], criterion))
    return _assemble(pieces, Y.sum(axis=0))


def node_at_depth(tree, X: np.ndarray, depth: int) -> np.ndarray:
    """Id of the node each row of ``X`` (encoded) reaches at ``depth`` (or a shallower leaf).

    The tree cut at that depth is applied, so memory stays O(n_samples), unlike a dense
    decision path; ``collapse`` keeps the kept nodes' relative order, which maps ids back.
    """
    kept = np.flatnonzero(tree.depth <= depth)
    cut = kept[(tree.depth[kept] == depth) & (tree.children_left[kept] >= 0)]
    return kept[tree.collapse(cut).apply(X)]


def _tree_split_rows(tree, node: int, X: np.ndarray, Y: np.ndarray) -> dict:
    """The split the tree made at ``node``, counted on the rows ``X`` that reach it."""
    kids = np.asarray(tree.children(node))
    branch = node_at_depth(tree, X, int(tree.depth[node]) + 1) - kids[0]
    tables = np.zeros((len(kids), Y.shape[1]))
    np.add.at(tables, branch, Y)
    side = int(tree.missing_child[node] - kids[0])
    return {
        "tables": tables[None],
        "side": np.array([side]),
        "threshold": np.array([tree.threshold[node]]),
    }


def _matches(table: pd.DataFrame, tree, node: int) -> np.ndarray:
    kind, feature = int(tree.split_kind[node]), int(tree.feature[node])
    same = (table["feature_idx"] == feature).to_numpy()
    if kind == NUMERIC:
        t = tree.threshold[node]
        numeric = same & (table["split"] == "threshold").to_numpy()
        if np.isinf(t):
            return numeric & np.isinf(table["threshold"].to_numpy())
        return numeric & (table["_lo"].to_numpy() <= t) & (t < table["_hi"].to_numpy())
    if kind == CATEGORICAL_MULTIWAY:
        return same & (table["split"] == "multiway").to_numpy()
    left = set(np.flatnonzero(tree.children_by_code(node) == tree.children_left[node]).tolist())
    hit = np.zeros(len(table), dtype=bool)
    for i in np.flatnonzero(same & (table["split"] == "subset").to_numpy()):
        lo, hi = (set(c) for c in table["_codes"].iat[i])
        hit[i] = (lo <= left and not hi & left) or (hi <= left and not lo & left)
    return hit


def mark_chosen(table, tree, node, X, Y, names, categories) -> pd.DataFrame:
    """Add the boolean column ``chosen``: the candidate the tree actually split on.

    When no candidate matches (the rows given are not the training rows, so the
    tree's threshold falls outside every interval here), the tree's own split is
    counted on these rows and appended as the chosen row.
    """
    table["chosen"] = False
    if tree.split_kind[node] == LEAF or len(X) == 0:
        return table
    hit = np.flatnonzero(_matches(table, tree, node))
    if len(hit):
        table.loc[hit[0], "chosen"] = True
        return table
    j = int(tree.feature[node])
    kind = {NUMERIC: "threshold", CATEGORICAL_BINARY: "subset",
            CATEGORICAL_MULTIWAY: "multiway"}[int(tree.split_kind[node])]
    values = None if categories[j] is None else list(categories[j])
    if kind == "subset":
        left = np.flatnonzero(tree.children_by_code(node) == tree.children_left[node])
        labels = [tuple(values[c] for c in left)]
    else:
        labels = [None if values is None else tuple(values)]
    n_missing = Y[np.isnan(X[:, j])].sum()
    kind_name = "numeric" if values is None else "categorical"
    rows = _tree_split_rows(tree, node, X, Y)
    row = _assemble([_piece(names[j], j, kind_name, kind, rows, labels, n_missing)])
    row["chosen"] = True
    return pd.concat([table, row], ignore_index=True)
