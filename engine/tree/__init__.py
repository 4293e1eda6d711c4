"""Decision trees: CART, ID3 and C4.5 on numeric, categorical and missing data.

``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` are the estimators; a fitted
one keeps a :class:`Tree` of flat arrays in ``tree_`` that everything downstream reads.
"""
from ._by_hand import HandSplit, path_of, splits_of
from ._classes import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    PruningPath,
    cut_to_depth,
    prune_to_alpha,
)
from ._quantile import BINNINGS, DEFAULT_MAX_BINS
from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree, plurality

__all__ = [
    "BINNINGS",
    "DEFAULT_MAX_BINS",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "HandSplit",
    "PruningPath",
    "TREE_LEAF",
    "TREE_UNDEFINED",
    "Tree",
    "cut_to_depth",
    "path_of",
    "plurality",
    "prune_to_alpha",
    "splits_of",
]
