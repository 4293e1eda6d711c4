"""Looking inside fitted models: the numbers the app's pages display.

``split_candidates`` is the decision-tree page's "show your working" table: for one
node, every split the learner could have made and what each criterion thinks of it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validation import FeatureEncoder, check_sample_weight, encode_labels
from .tree._candidates import (
    SCORE_COLUMN,
    SPLIT_COLUMNS,
    candidate_table,
    mark_chosen,
    node_at_depth,
    one_hot,
)

__all__ = ["split_candidates", "SPLIT_COLUMNS"]


def _model_node(model, node: int, X, y, sample_weight):
    """Encoded rows reaching ``node`` of a fitted tree, their class codes and weights."""
    if X is None or y is None:
        raise ValueError(
            "Pass the rows to inspect: split_candidates(model, node, X=X_train, y=y_train)."
        )
    if not hasattr(model, "tree_") or getattr(model, "_estimator_type", None) != "classifier":
        raise ValueError(
            "split_candidates needs a fitted DecisionTreeClassifier (or None and data)."
        )
    tree = model.tree_
    if not 0 <= node < tree.node_count:
        raise ValueError(f"node must be between 0 and {tree.node_count - 1}; got {node}.")
    encoded = model.encoder_.transform(X)
    codes = pd.Index(model.classes_).get_indexer(pd.Series(np.asarray(y, dtype=object)))
    if (codes < 0).any():
        raise ValueError(
            f"y holds labels the model was not fitted on; its classes are {list(model.classes_)}."
        )
    weight = check_sample_weight(sample_weight, len(codes))
    at_node = node_at_depth(tree, encoded, int(tree.depth[node])) == node
    return encoded[at_node], codes[at_node], weight[at_node], model.classes_, model.encoder_


def _data_node(data, X, y, sample_weight):
    """Encoded rows, class codes and weights when the data itself is the node."""
    if X is None:
        X = data
    if isinstance(y, str) and isinstance(X, pd.DataFrame) and y in X.columns:
        X, y = X.drop(columns=[y]), X[y]
    if X is None or y is None:
        raise ValueError("Pass the node's rows: split_candidates(None, X=X, y=y).")
    encoder = FeatureEncoder().fit(X)
    classes, codes = encode_labels(y)
    weight = check_sample_weight(sample_weight, len(codes))
    return encoder.transform(X), codes, weight, classes, encoder


def split_candidates(
    model_or_data=None,
    node: int = 0,
    X=None,
    y=None,
    *,
    criterion: str | None = None,
    sample_weight=None,
) -> pd.DataFrame:
    """Every candidate split of one node with the value of every splitting criterion.

    Parameters
    ----------
    model_or_data : DecisionTreeClassifier, DataFrame or None
        A fitted tree (the rows of ``X`` that reach ``node`` are the node), or None /
        a DataFrame when the given data itself is the node.
    node : int, default=0
        Node id in ``model.tree_`` (ignored without a model).
    X : array-like or DataFrame of shape (n_samples, n_features), optional
        The rows (a model's training rows to see its own working). Defaults to
        ``model_or_data`` when that is a DataFrame.
    y : array-like of shape (n_samples,) or str
        Class labels, or the name of the target column of the frame.
    criterion : {"gini", "entropy", "misclassification", "gain_ratio"}, optional
        Decides which side missing values go to; default the model's criterion, or
        "gini" without a model.
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    DataFrame
        One row per candidate (:data:`SPLIT_COLUMNS`): ``split`` is "threshold"
        (``x <= threshold`` goes left; ``+inf`` means "present vs missing"), "subset"
        (``categories`` go left) or "multiway" (one branch per value of
        ``categories``). ``*_counts`` are class counts in class order, ``errors`` the
        misclassified weight after the split, ``chosen`` marks the tree's own split.
        ``attrs`` holds ``classes``, ``parent_counts`` and ``criterion``.

    Notes
    -----
    For a split of node :math:`t` into children :math:`t_k`, each criterion's value is
    :math:`\\Delta = I(t) - \\sum_k \\frac{n_k}{n} I(t_k)` for the classification
    error, entropy (the information gain, in bits) and the Gini index; the gain ratio
    divides the information gain by :math:`-\\sum_k \\frac{n_k}{n}\\log_2\\frac{n_k}{n}`;
    χ² compares the children with a zero-gain split (seed 002).

    Examples
    --------
    Seed 002's weak and strong thresholds on 12 points, 4 of them positive:

    >>> X = pd.DataFrame({"x": np.arange(1.0, 13.0)})
    >>> y = [1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0]
    >>> table = split_candidates(None, X=X, y=y)
    >>> table.loc[table.threshold.isin([4.5, 5.5]), ["threshold", "info_gain"]].round(5)
       threshold  info_gain
    3        4.5    0.04411
    4        5.5    0.16859
    """
    criterion = criterion or getattr(model_or_data, "criterion", None) or "gini"
    if criterion not in SCORE_COLUMN:
        raise ValueError(f"criterion must be one of {sorted(SCORE_COLUMN)}; got {criterion!r}.")
    is_model = model_or_data is not None and not isinstance(model_or_data, pd.DataFrame)
    if is_model:
        rows, codes, weight, classes, encoder = _model_node(
            model_or_data, node, X, y, sample_weight
        )
    else:
        rows, codes, weight, classes, encoder = _data_node(model_or_data, X, y, sample_weight)
    names, n_classes = list(encoder.feature_names_in_), len(classes)
    table = candidate_table(rows, codes, weight, n_classes, names, encoder.categories_, criterion)
    if is_model:
        Y = one_hot(codes, weight, n_classes)
        table = mark_chosen(table, model_or_data.tree_, node, rows, Y, names, encoder.categories_)
    else:
        table["chosen"] = False
    table = table.reindex(columns=SPLIT_COLUMNS)
    table.attrs.update(
        classes=list(classes),
        criterion=criterion,
        parent_counts=tuple(np.bincount(codes, weights=weight, minlength=n_classes)),
    )
    return table
