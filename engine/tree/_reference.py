"""A classification tree grown as the textbooks write it: one node at a time, by recursion.

This is the slow, obvious version of :mod:`._builder`. Read it beside Quinlan (1986) for
ID3 and the information gain, Quinlan (1993) for the gain ratio and Breiman et al. (1984)
for CART. At a node:

1. stop if the node is pure, at ``max_depth``, or has too few rows to split;
2. list every candidate split: the table the Decision Tree page shows under "Show your
   working" (:func:`._candidates.candidate_table`) — thresholds ``x <= t``, best-prefix
   category subsets, one branch per category;
3. send the rows with a missing value to the child where the split scores best;
4. drop the candidates the stopping rules forbid and take the best by the criterion;
5. route the rows to the children and grow each child the same way.

The fast builder grows the same tree, level by level and vectorized;
``tests/engine/test_reference_grower.py`` checks that the two agree on random tables.
``max_features`` (random draws) and ``max_leaf_nodes`` (best-first order) are left to it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ._candidates import SCORE_COLUMN, candidate_table, split_scores
from ._criteria import CLASSIFICATION_CRITERIA, FLOAT_NOISE, TIE_TOLERANCE, tie_floor

#: The impurity decrease Δ of each criterion (the gain ratio's is the information gain).
GAIN_COLUMN = {**SCORE_COLUMN, "gain_ratio": "info_gain"}


@dataclass
class Node:
    counts: np.ndarray          # weighted class counts, shape (n_classes,)
    n_samples: int              # rows that reach the node
    impurity: float
    split: Split | None = None  # None at a leaf
    children: list[Node] = field(default_factory=list)  # left, right; or one per category


@dataclass
class Split:
    feature: int
    kind: str                   # "threshold", "subset" or "multiway"
    threshold: float            # x <= threshold goes left; +inf: present left, missing right
    left: tuple                 # the category codes that go left (subset)
    n_children: int
    missing_only: bool = False  # "value present" (left) vs "value missing" (right)
    missing: int = -1           # the child the node's missing rows go to; -1: none missing
    score: float = -np.inf      # what the criterion ranks by
    gain: float = 0.0           # impurity decrease Δ


@dataclass
class Rules:
    n_classes: int
    categories: list            # per feature: the category values, or None if numeric
    criterion: str = "gini"
    multiway: bool = False
    max_depth: float = np.inf
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_impurity_decrease: float = 0.0
    total_weight: float = 1.0   # N: min_impurity_decrease weighs Δ by N_t / N


def grow_tree(X, y, weight, rules: Rules) -> Node:
    """The tree of encoded rows ``X`` (categories as codes, NaN missing), class codes ``y``."""
    keep = weight > 0  # rows of zero weight take no part
    rules.total_weight = float(weight[keep].sum())
    return grow(X[keep], y[keep], weight[keep], rules, depth=0, used=frozenset())


def grow(X, y, weight, rules: Rules, depth: int, used: frozenset) -> Node:
    counts = np.bincount(y, weights=weight, minlength=rules.n_classes).astype(float)
    impurity = float(CLASSIFICATION_CRITERIA[rules.criterion](counts))  # gain ratio: entropy
    node = Node(counts, len(y), impurity)
    if (impurity <= FLOAT_NOISE or depth >= rules.max_depth
            or len(y) < max(rules.min_samples_split, 2 * rules.min_samples_leaf)):
        return node
    split = best_split(X, y, weight, rules, impurity, used)
    if split is None or counts.sum() / rules.total_weight * split.gain \
            + FLOAT_NOISE < rules.min_impurity_decrease:
        return node
    node.split = split
    branch = route(split, X)
    below = used | {split.feature} if split.kind == "multiway" else used  # ID3 uses it up
    node.children = [grow(X[branch == k], y[branch == k], weight[branch == k], rules,
                          depth + 1, below) for k in range(split.n_children)]
    for child in node.children:
        if child.n_samples == 0:  # an empty ID3 branch predicts what its parent would
            child.counts, child.impurity = node.counts, node.impurity
    return node


def best_split(X, y, weight, rules: Rules, impurity: float, used: frozenset) -> Split | None:
    """The best allowed split; ties within float noise go to the first in table order
    (lowest feature, then lowest threshold or shortest prefix)."""
    names = [str(j) for j in range(X.shape[1])]
    table = candidate_table(X, y, weight, rules.n_classes, names, rules.categories,
                            rules.criterion)
    kinds = ("threshold", "multiway" if rules.multiway else "subset")
    options = []
    for row in table.to_dict("records"):
        if row["split"] in kinds and row["feature_idx"] not in used:
            split = _split_of(row, rules)
            options.append(send_missing(split, X, y, weight, rules, impurity))
    return first_of_the_best(options, impurity)


def first_of_the_best(options: list[Split], impurity: float) -> Split | None:
    """The first allowed option whose score ties with the best (within float noise)."""
    options = [s for s in options if s.score > -np.inf]
    if not options:
        return None
    best = max(s.score for s in options)
    return next(s for s in options if s.score >= tie_floor(best, impurity))


def _split_of(row: dict, rules: Rules) -> Split:
    j = int(row["feature_idx"])
    if row["split"] == "threshold":
        threshold = float(row["threshold"])
        return Split(j, "threshold", threshold, (), 2, missing_only=np.isinf(threshold))
    if row["split"] == "subset":
        left, right = row["_codes"]
        return Split(j, "subset", np.nan, tuple(left), 2, missing_only=not right)
    return Split(j, "multiway", np.nan, (), len(rules.categories[j]))


def route(split: Split, X) -> np.ndarray:
    """The child of every row (missing values to ``split.missing``)."""
    x = X[:, split.feature]
    missing = np.isnan(x)
    if split.kind == "threshold":
        branch = (x > split.threshold).astype(int)
    elif split.kind == "subset":
        branch = (~np.isin(x, split.left)).astype(int)
    else:
        branch = np.where(missing, 0, x).astype(int)
    return np.where(missing, split.missing, branch)


def send_missing(split: Split, X, y, weight, rules: Rules, impurity: float) -> Split:
    """``split`` with its score and gain, the missing rows sent where it scores best.

    Every child holding present rows is an option (a binary tie goes right, a multiway
    one to the first branch); an option is allowed when at least two children hold
    rows, each such child holds ``min_samples_leaf`` rows, and, under the
    misclassification error, the split corrects at least one error."""
    missing = np.isnan(X[:, split.feature])
    if split.missing_only:
        places = [1]
    elif missing.any():
        present = np.bincount(route(split, X)[~missing], minlength=split.n_children)
        places = [k for k in range(split.n_children) if present[k] > 0]
        places = places[::-1] if split.kind != "multiway" else places
    else:
        places = [-1]
    options = []
    for place in places:
        option = replace(split, missing=place)
        option.score, option.gain = _score(option, X, y, weight, rules, impurity)
        options.append(option)
    return first_of_the_best(options, impurity) or split


def _score(split: Split, X, y, weight, rules: Rules, impurity: float) -> tuple[float, float]:
    branch = route(split, X)
    n_rows = np.bincount(branch, minlength=split.n_children)
    tables = np.zeros((1, split.n_children, rules.n_classes))
    np.add.at(tables[0], (branch, y), weight)
    scores = split_scores(tables[0].sum(axis=0), tables, with_chi2=False)
    score, gain = scores[SCORE_COLUMN[rules.criterion]][0], scores[GAIN_COLUMN[rules.criterion]][0]
    held = n_rows[n_rows > 0]
    allowed = len(held) >= 2 and held.min() >= rules.min_samples_leaf
    if rules.criterion == "misclassification":  # a split that corrects nothing is no progress
        allowed &= gain > TIE_TOLERANCE * impurity
    return (float(score) if allowed else -np.inf), float(gain)
