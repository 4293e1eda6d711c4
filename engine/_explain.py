"""Why this prediction: a tree model's output split into parts per feature, and how it
moves as one feature varies.

``contributions`` (path contributions, Saabas 2014) and ``partial_dependence`` (with
ICE curves; Friedman 2001 §8.2, Goldstein et al. 2015). Both are part of
:mod:`engine.inspection`, which re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._validation import as_frame, is_categorical_dtype, positional_names
from .tree import plurality


def contributions(model, X) -> tuple[np.ndarray, np.ndarray]:
    """Split a tree model's output for each row into a bias and one part per feature.

    Path contributions (Saabas 2014): each node has a value, the output the tree would
    give if that node were a leaf. A row's path from the root to its leaf passes a split
    at every step; the change of value at the step, child's value minus parent's, is
    credited to the split's feature. The changes telescope, so for every row

    ``bias + contrib.sum(axis=1) == output``

    with ``bias`` the root's value. Ensembles add up (or average) the contributions of
    their trees exactly as they add up (or average) the trees' outputs. A feature split
    on several times along a path gets the sum of its changes; a feature never met gets 0.

    Parameters
    ----------
    model : fitted tree or tree ensemble
        ``DecisionTreeClassifier``, ``DecisionTreeRegressor`` (``engine.tree``);
        ``RandomForestClassifier``, ``RandomForestRegressor``, ``BaggingClassifier`` of
        trees, ``GradientBoostingClassifier``, ``GradientBoostingRegressor``,
        ``AdaBoostClassifier`` of trees (``engine.ensemble``).
    X : array or DataFrame (n_samples, n_features)
        Rows as the model's ``predict`` takes them (categories, missing values): each
        model encodes and routes them as its own prediction does.

    Returns
    -------
    bias : ndarray, the shape of the output explained
    contrib : ndarray, that shape with the feature axis second
        ``contrib[i, j]`` is feature j's part in row i's output (the model's input
        features, ``n_features_in_``).

        ======================================  ==========================  ===============
        model                                   output explained            bias shape
        ======================================  ==========================  ===============
        decision tree, forest, bagging (class)  ``predict_proba``           (n, n_classes)
        decision tree, forest (regression)      ``predict``                 (n,)
        gradient boosting, 2 classes            ``decision_function``       (n,)
        gradient boosting, K > 2 classes        ``decision_function``       (n, K)
        gradient boosting (regression)          ``predict``                 (n,)
        AdaBoost, 2 classes                     ``decision_function``       (n,)
        AdaBoost, K > 2 classes                 ``decision_function``       (n, K)
        ======================================  ==========================  ===============

        ``contrib`` is (n, n_features) or (n, n_features, n_classes / K) accordingly.

    Raises
    ------
    TypeError
        For any other model (Naive Bayes, ensembles of members that are not Glassbox
        trees): its output is not a sum over tree paths.

    Notes
    -----
    A node's value: a classification tree's class shares of the node (its ``value``
    rows normalised, as ``predict_proba`` reads a leaf); a regression tree's mean.
    A forest or bagging divides the sum of its trees' contributions by B.

    Gradient boosting explains the raw score
    :math:`S(x) = S_0 + \\nu \\sum_t f_t(x)`: the bias is :math:`S_0` (``init_``) plus
    ν times every tree's root value, and each tree's changes are scaled by ν (one
    column per class score for K > 2). A boosted tree's leaves hold line-searched steps
    (Newton steps for the log loss, medians for the absolute error) while its inner
    nodes keep the mean pseudo-residual, another scale; so a node's value here is the
    mean of the leaf values below it, weighted by the training weight reaching each
    leaf. For the squared error that is the stored node mean.

    AdaBoost explains its normalised vote: a learner's vote is
    :math:`\\hat w_t c_k` with :math:`c_k = 1` for the class its node would predict
    (the node's plurality class) and :math:`-1/(K-1)` for the others, divided by
    :math:`\\sum_t \\hat w_t`; two classes, the second class's score minus the first's.
    A stump credits its feature with the change of vote from root to leaf.

    References
    ----------
    A. Saabas (2014) "Interpreting random forests", blog post; the method of the
    ``treeinterpreter`` package.

    Examples
    --------
    Two binary features; the tree splits on ``a`` (root mean 5 → 2 or 8), then on ``b``:

    >>> from engine.tree import DecisionTreeRegressor
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> tree = DecisionTreeRegressor().fit(X, [1.0, 3.0, 5.0, 11.0])
    >>> bias, contrib = contributions(tree, X)
    >>> bias.tolist(), contrib.tolist()
    ([5.0, 5.0, 5.0, 5.0], [[-3.0, -1.0], [-3.0, 1.0], [3.0, -3.0], [3.0, 3.0]])
    """
    explain = _explainer(model)
    model._check_is_fitted()
    return explain(model, X)


def _explainer(model):
    """The function that explains ``model``'s output; TypeError for other models."""
    from .ensemble import AdaBoostClassifier
    from .ensemble._bagged import BaseBagged
    from .ensemble._gradient_boosting import _BaseGradientBoosting
    from .tree import DecisionTreeClassifier, DecisionTreeRegressor

    if isinstance(model, (DecisionTreeClassifier, DecisionTreeRegressor)):
        return _explain_tree
    if isinstance(model, BaseBagged):
        return _explain_bagged
    if isinstance(model, _BaseGradientBoosting):
        return _explain_gradient_boosting
    if isinstance(model, AdaBoostClassifier):
        return _explain_adaboost
    raise TypeError(
        f"contributions explains decision trees and tree ensembles (forests, bagging of "
        f"trees, gradient boosting, AdaBoost of trees); got {type(model).__name__}."
    )


def _climb(tree, node_value: np.ndarray, leaves: np.ndarray, out: np.ndarray) -> None:
    """Add each row's path contributions in one tree to ``out`` (n_rows, n_features,
    n_outputs). ``leaves`` (n_rows,) are the rows' leaves in ``tree`` (or in a stack
    of trees), ``node_value`` (node_count, n_outputs) every node's value.

    A row's path is its leaf's ancestors, so the rows climb from their leaves to the
    root, a level a step: the step up from ``node`` to ``parent`` adds
    ``node_value[node] - node_value[parent]`` to ``feature[parent]``. A row is at one
    node at a time, so no (row, feature) cell is written twice in a step.
    """
    row, node = np.arange(len(leaves)), np.asarray(leaves)
    parent = tree.parent[node]
    while True:
        climbing = parent >= 0
        row, node, parent = row[climbing], node[climbing], parent[climbing]
        if not len(row):
            return
        out[row, tree.feature[parent]] += node_value[node] - node_value[parent]
        node, parent = parent, tree.parent[parent]


def _member_leaves(member, encoder, X, X_enc: np.ndarray) -> np.ndarray:
    """A boosting round's tree's leaves, routed as the booster routes them: with the
    booster's encoding when the tree shares its encoder, else by the tree itself."""
    if not hasattr(member, "tree_"):
        raise TypeError(f"contributions needs Glassbox trees as members; got "
                        f"{type(member).__name__}.")
    if getattr(member, "encoder_", None) is encoder:
        return member.tree_.apply(X_enc)
    return member.apply(X)


def _squeezed(bias: np.ndarray, contrib: np.ndarray, one_column: bool):
    return (bias[:, 0], contrib[:, :, 0]) if one_column else (bias, contrib)


def _explain_tree(model, X):
    leaves = model.apply(X)
    value = model.tree_.value
    if model._estimator_type == "classifier":
        value = value / value.sum(axis=1, keepdims=True)  # the leaf shares of predict_proba
    contrib = np.zeros((len(leaves), model.n_features_in_, value.shape[1]))
    _climb(model.tree_, value, leaves, contrib)
    bias = np.tile(value[0], (len(leaves), 1))
    return _squeezed(bias, contrib, model._estimator_type != "classifier")


def _explain_bagged(model, X):
    """Mean of the trees' contributions, the trees walked together as the ensemble
    predicts (its encoding, its stacked trees and node values, a chunk of rows at a time)."""
    from .ensemble._base import forest_leaves

    if not model._all_trees:
        raise TypeError("contributions needs an ensemble of Glassbox trees; this one has "
                        f"{type(model.estimators_[0]).__name__} members.")
    X_enc = model._encode(X, copy=False)
    stacked, values = model._stacked()
    values = values.reshape(len(values), -1)
    contrib = np.zeros((X_enc.shape[0], model.n_features_in_, values.shape[1]))
    for lo, leaves in forest_leaves(stacked, X_enc):
        part = contrib[lo:lo + leaves.shape[1]]
        for tree_leaves in leaves:
            _climb(stacked.tree, values, tree_leaves, part)
    n_trees = stacked.n_trees
    bias = np.tile(values[stacked.roots].sum(axis=0) / n_trees, (X_enc.shape[0], 1))
    return _squeezed(bias, contrib / n_trees, not model._is_classifier)


def _mean_leaf_values(tree) -> np.ndarray:
    """Every node's value as the mean of the leaf values below it, weighted by the
    training weight that reached each leaf; leaves keep their own (node_count,).

    For a tree whose leaves hold their rows' mean (squared error) this is the stored
    ``value`` of every node; a boosted tree whose leaves were replaced by a line search
    gets inner values on the leaves' scale.

    >>> from engine.tree import DecisionTreeRegressor
    >>> tree = DecisionTreeRegressor(max_depth=1).fit([[0.0], [1.0], [2.0]], [1.0, 2.0, 6.0])
    >>> tree.tree_.value[1:, 0] = [10.0, 20.0]  # as a line search would
    >>> _mean_leaf_values(tree.tree_).tolist()
    [13.333333333333334, 10.0, 20.0]
    """
    value = tree.value[:, 0].astype(np.float64)
    weight = tree.weighted_n_node_samples
    n = tree.node_count
    for depth in range(tree.max_depth, 0, -1):
        child = np.flatnonzero(tree.depth == depth)
        parent = tree.parent[child]
        total = np.bincount(parent, weights=weight[child] * value[child], minlength=n)
        below = np.bincount(parent, weights=weight[child], minlength=n)
        at = np.unique(parent)
        value[at] = total[at] / below[at]
    return value


def _explain_gradient_boosting(model, X):
    X_enc = model.encoder_.transform(X)
    n_rows, (n_rounds, K) = X_enc.shape[0], model.estimators_.shape
    contrib = np.zeros((n_rows, model.n_features_in_, K))
    bias = np.array(model.init_, dtype=np.float64)
    for t in range(n_rounds):
        for k in range(K):
            member = model.estimators_[t, k]
            value = model.learning_rate * _mean_leaf_values(member.tree_)[:, None]
            leaves = _member_leaves(member, model.encoder_, X, X_enc)
            _climb(member.tree_, value, leaves, contrib[:, :, k:k + 1])
            bias[k] += value[0, 0]
    return _squeezed(np.tile(bias, (n_rows, 1)), contrib, K == 1)


def _vote_values(model, learner, w_hat: float, total: float) -> np.ndarray:
    """Every node's share of the normalised vote (node_count, K): ŵ for the class the
    node would predict, -ŵ/(K-1) for the others, over Σŵ; two classes: one column,
    the second class's score minus the first's."""
    codes = plurality(learner.tree_.value)
    if getattr(learner, "encoder_", None) is not model.encoder_:  # its own classes_
        codes = np.searchsorted(model.classes_, learner.classes_[codes])
    K = model.n_classes_
    vote = np.full((len(codes), K), -w_hat / max(K - 1, 1))
    vote[np.arange(len(codes)), codes] = w_hat
    vote /= total
    return vote[:, 1:] - vote[:, :1] if K == 2 else vote


def _explain_adaboost(model, X):
    X_enc = model.encoder_.transform(X)
    total = float(np.sum(model.estimator_weights_))
    columns = 1 if model.n_classes_ == 2 else model.n_classes_
    contrib = np.zeros((X_enc.shape[0], model.n_features_in_, columns))
    bias = np.zeros(columns)
    for w_hat, learner in zip(model.estimator_weights_, model.estimators_, strict=True):
        leaves = _member_leaves(learner, model.encoder_, X, X_enc)
        value = _vote_values(model, learner, float(w_hat), total)
        _climb(learner.tree_, value, leaves, contrib)
        bias += value[0]
    return _squeezed(np.tile(bias, (X_enc.shape[0], 1)), contrib, columns == 1)


def round_contributions(model, X) -> tuple[np.ndarray, np.ndarray]:
    """Split a boosted model's output for each row into its start and one part per round.

    :func:`contributions` asks "which feature?"; this asks "which round?". A booster's
    score is a sum over its rounds, so each round's term is that round's part.

    Parameters
    ----------
    model : fitted booster
        ``GradientBoostingClassifier``, ``GradientBoostingRegressor`` or
        ``AdaBoostClassifier`` (``engine.ensemble``; any weak learner).
    X : array or DataFrame (n_samples, n_features)
        Rows as the model's ``predict`` takes them.

    Returns
    -------
    start : ndarray, shape (n_samples,) or (n_samples, K)
    parts : ndarray, shape (n_samples, n_rounds) or (n_samples, n_rounds, K)
        ``parts[i, t]`` is round t's term in row i's score (t = 0 is the first round).

        ==============================  ==========================  =====  =================
        model                           part of round t             start  shapes
        ==============================  ==========================  =====  =================
        gradient boosting, 2 classes    ν f_t(x), in log-odds       S_0    (n,), (n, T)
        gradient boosting, K classes    ν f_tk(x), class k's score  S_0k   (n, K), (n, T, K)
        gradient boosting (regression)  ν f_t(x)                    S_0    (n,), (n, T)
        AdaBoost, 2 classes             ŵ_t × (±1), its vote        0      (n,), (n, T)
        AdaBoost, K classes             ŵ_t c_tk(x)                 0      (n, K), (n, T, K)
        ==============================  ==========================  =====  =================

    Raises
    ------
    TypeError
        For any other model.

    Notes
    -----
    Gradient boosting: :math:`S_t(x) = S_0 + \\nu \\sum_{s \\le t} f_s(x)` with
    :math:`f_s` the line-searched tree of round s, so
    ``start + parts[:, :t + 1].sum(axis=1)`` is the t-th array of
    ``staged_decision_function`` (the regressor's ``staged_predict``); over every round
    it is ``decision_function`` (``predict``).

    AdaBoost: the parts are the weighted vote before it is normalised, the textbook
    :math:`F_t(x) = \\sum_{s \\le t} \\hat w_s \\hat f_s(x)` whose sign is the prediction;
    two classes, :math:`\\hat f_s = +1` where round s predicts ``classes_[1]`` and -1
    where it predicts ``classes_[0]``; K classes, SAMME's symmetric code
    :math:`c_{sk} = 1` for the class round s predicts and :math:`-1/(K-1)` for the
    others. ``staged_decision_function`` divides the vote by the weight of the rounds so
    far, :math:`W_t = \\sum_{s \\le t} \\hat w_s` (``np.cumsum(estimator_weights_)``),
    and for two classes reports the second class's score minus the first's, twice
    :math:`F_t`:

    * two classes: ``staged_decision_function`` at round t is :math:`2 F_t(x) / W_t`;
    * K classes: it is :math:`F_t(x) / W_t`, column by column.

    :math:`W_t > 0`, so the running vote has the sign (the argmax) of the staged one: it
    shows each round pushing the row towards a class without the normalisation's
    rescaling of the earlier rounds.

    References
    ----------
    J. H. Friedman (2001) "Greedy function approximation: a gradient boosting machine",
    *Annals of Statistics* 29(5). J. Zhu, H. Zou, S. Rosset, T. Hastie (2009)
    "Multi-class AdaBoost", *Statistics and Its Interface* 2.

    Examples
    --------
    y = 0, 2: :math:`S_0 = 1`; each stump halves (ν = ½) the residuals ∓1, then ∓½.

    >>> from engine.ensemble import GradientBoostingRegressor
    >>> X = np.array([[0.0], [1.0]])
    >>> gb = GradientBoostingRegressor(n_estimators=2, learning_rate=0.5, max_depth=1)
    >>> start, parts = round_contributions(gb.fit(X, [0.0, 2.0]), X)
    >>> start.tolist(), parts.tolist()
    ([1.0, 1.0], [[-0.5, -0.25], [0.5, 0.25]])
    """
    from .ensemble import AdaBoostClassifier
    from .ensemble._gradient_boosting import _BaseGradientBoosting

    if isinstance(model, _BaseGradientBoosting):
        model._check_is_fitted()
        return _rounds_gradient_boosting(model, X)
    if isinstance(model, AdaBoostClassifier):
        model._check_is_fitted()
        return _rounds_adaboost(model, X)
    raise TypeError(f"round_contributions explains gradient boosting and AdaBoost; got "
                    f"{type(model).__name__}.")


def _rounds_gradient_boosting(model, X):
    """ν times each round's tree at each row's leaf, read as ``_raw_stages`` reads it."""
    X_enc = model.encoder_.transform(X)
    n_rows, (n_rounds, K) = X_enc.shape[0], model.estimators_.shape
    parts = np.zeros((n_rows, n_rounds, K))
    for t in range(n_rounds):
        for k in range(K):
            member = model.estimators_[t, k]
            leaves = _member_leaves(member, model.encoder_, X, X_enc)
            parts[:, t, k] = model.learning_rate * member.tree_.value[leaves, 0]
    start = np.tile(np.asarray(model.init_, dtype=np.float64), (n_rows, 1))
    return _squeezed(start, parts, K == 1)


def _rounds_adaboost(model, X):
    """Each round's un-normalised vote ŵ_t f̂_t(x) (two classes) or ŵ_t c_tk (K)."""
    K = model.n_classes_
    votes = []
    for w_hat, codes in zip(model.estimator_weights_, model._learner_codes(X), strict=True):
        if K == 2:
            votes.append(w_hat * (2.0 * codes - 1.0))
        else:  # one class: only the class itself to vote for, ŵ
            vote = np.full((len(codes), K), -w_hat / max(K - 1, 1))
            vote[np.arange(len(codes)), codes] = w_hat
            votes.append(vote)
    parts = np.stack(votes, axis=1).astype(np.float64)
    return np.zeros(parts.shape[:1] + parts.shape[2:]), parts


#: Grid points of a numeric feature's default partial-dependence grid, at most.
PD_GRID_POINTS = 50
#: Cells (rows × columns) of one stacked frame predicted at once by partial_dependence.
PD_CELLS = 1_000_000


@dataclass
class PartialDependence:
    """A model's mean output as one or two features are set to grid values.

    Attributes
    ----------
    features : list of str
        The feature names, one or two.
    grid : list of ndarray
        The values each feature is set to, one 1-D array per feature; the grid is
        their product, of shape ``grid_shape`` = (len(grid[0]),) or
        (len(grid[0]), len(grid[1])).
    average : ndarray, shape ``grid_shape`` + output shape
        The mean over the rows of X of the model's output with the features set to
        each grid point. Output shape: () for a regressor (``predict``) and for a
        binary classifier (the probability of ``classes[1]``); (n_classes,) for more
        classes (``predict_proba``, columns in ``classes`` order).
    individual : ndarray or None, shape (n_samples,) + ``grid_shape`` + output shape
        Each row's own curve (ICE), with ``kind="individual"``; its mean over the
        rows is ``average``.
    classes : ndarray or None
        The classifier's ``classes_``.
    """

    features: list
    grid: list
    average: np.ndarray
    individual: np.ndarray | None
    classes: np.ndarray | None


def partial_dependence(model, X, feature, grid=None, kind: str = "average") -> PartialDependence:
    """Partial dependence of a model's output on one feature or a pair of features.

    For each grid value v, every row of X gets feature j set to v (the other columns
    unchanged) and the model predicts; the partial dependence at v is the mean of those
    predictions, :math:`\\bar f_j(v) = \\frac1n \\sum_i f(v, x_{i,\\setminus j})`, and
    the individual conditional expectation (ICE) curve of row i is
    :math:`f(v, x_{i,\\setminus j})` itself. ICE curves that cross show an interaction
    the average hides.

    Parameters
    ----------
    model : any fitted estimator (``predict_proba`` for classifiers, else ``predict``)
    X : array or DataFrame (n_samples, n_features)
        The rows to average over (typically the training data).
    feature : str or int, or a pair of them
        Column name or position; a pair gives a two-feature dependence.
    grid : array-like, or a pair of array-likes for a pair of features, optional
        The values to set. Default: a categorical feature's categories (the model's
        ``categories_`` when it has an encoder); a numeric feature's distinct values
        when there are at most :data:`PD_GRID_POINTS`, else that many percentiles
        evenly spaced from the 5th to the 95th (duplicates dropped).
    kind : {"average", "individual"}, default="average"
        "individual" also returns every row's curve (``individual``).

    Returns
    -------
    PartialDependence
        ``average`` of shape grid shape + output shape, ``individual`` with the rows
        first (see :class:`PartialDependence`). The output of a binary classifier is
        the probability of its second class, of a multiclass one every class's.

    Notes
    -----
    The rows and the grid points are stacked into one frame and predicted in one call
    a chunk of grid points at a time (at most :data:`PD_CELLS` cells a chunk; one grid
    point, a copy of X, when X alone is larger).

    References
    ----------
    J. H. Friedman (2001) "Greedy function approximation: a gradient boosting machine",
    *Annals of Statistics* 29(5), §8.2. A. Goldstein, A. Kapelner, J. Bleich, E. Pitkin
    (2015) "Peeking inside the black box: visualizing statistical learning with plots
    of individual conditional expectation", *J. Computational and Graphical
    Statistics* 24(1).

    Examples
    --------
    >>> from engine.tree import DecisionTreeRegressor
    >>> X = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0], "colour": ["red", "blue", "red", "blue"]})
    >>> tree = DecisionTreeRegressor().fit(X, [0.0, 10.0, 1.0, 11.0])
    >>> by_colour = partial_dependence(tree, X, "colour", kind="individual")
    >>> by_colour.grid[0].tolist(), by_colour.average.tolist()
    (['blue', 'red'], [10.25, 0.5])
    >>> by_colour.individual.shape, partial_dependence(tree, X, ("size", "colour")).average.shape
    ((4, 2), (4, 2))
    """
    if kind not in ("average", "individual"):
        raise ValueError(f"kind must be 'average' or 'individual', got {kind!r}.")
    names = ([str(c) for c in X.columns] if isinstance(X, pd.DataFrame)
             else positional_names(np.shape(X)[1]))
    columns = _pd_columns(feature, names)
    axes = _pd_axes(model, X, columns, grid)
    shape = tuple(len(axis) for axis in axes)
    points = [axis[i] for axis, i in zip(axes, np.indices(shape).reshape(len(shape), -1),
                                         strict=True)]
    n_rows, n_points = np.shape(X)[0], int(np.prod(shape))
    per_chunk = max(1, PD_CELLS // max(1, n_rows * len(names)))
    averages, curves = [], []
    for lo in range(0, n_points, per_chunk):
        chunk = [values[lo:lo + per_chunk] for values in points]
        output = _pd_output(model, _stacked_rows(X, columns, chunk))
        output = output.reshape((len(chunk[0]), n_rows) + output.shape[1:])
        averages.append(output.mean(axis=1))
        if kind == "individual":
            curves.append(np.moveaxis(output, 1, 0))
    out_shape = averages[0].shape[1:]
    average = np.concatenate(averages).reshape(shape + out_shape)
    individual = (np.concatenate(curves, axis=1).reshape((n_rows,) + shape + out_shape)
                  if kind == "individual" else None)
    classes = model.classes_ if getattr(model, "_estimator_type", None) == "classifier" else None
    return PartialDependence([names[j] for j in columns], axes, average, individual, classes)


def _pd_columns(feature, names: list[str]) -> list[int]:
    """Positions of one or two features given by name or position."""
    features = list(feature) if isinstance(feature, (tuple, list)) else [feature]
    if not 1 <= len(features) <= 2:
        raise ValueError(f"feature must be one column or a pair of columns; got {feature!r}.")
    columns = []
    for f in features:
        if isinstance(f, (int, np.integer)) and not isinstance(f, bool):
            if not 0 <= f < len(names):
                raise ValueError(f"feature position {f} is out of range: X has {len(names)} columns.")
            columns.append(int(f))
        elif str(f) in names:
            columns.append(names.index(str(f)))
        else:
            raise ValueError(f"feature {f!r} is not a column of X; its columns are {names}.")
    if len(set(columns)) < len(columns):
        raise ValueError(f"A two-feature dependence needs two different features; got {feature!r}.")
    return columns


def _pd_axes(model, X, columns: list[int], grid) -> list[np.ndarray]:
    if grid is None:
        return [_default_axis(model, X, j) for j in columns]
    given = [grid] if len(columns) == 1 else list(grid)
    if len(given) != len(columns):
        raise ValueError("For a pair of features, grid is a pair of value lists.")
    axes = []
    for values in given:
        axis = np.asarray(values)
        axis = axis if axis.dtype.kind in "fiub" else axis.astype(object)
        if axis.ndim != 1 or not len(axis):
            raise ValueError("Each feature's grid must be a non-empty 1-D list of values.")
        axes.append(axis)
    return axes


def _default_axis(model, X, j: int) -> np.ndarray:
    """A feature's categories, or its distinct values, or its 5th..95th percentiles."""
    column = pd.Series(X.iloc[:, j].to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)[:, j])
    encoder = getattr(model, "encoder_", None)
    if encoder is not None and len(encoder.is_categorical_) > j:
        categorical = bool(encoder.is_categorical_[j])
    else:
        categorical = is_categorical_dtype(as_frame(X).iloc[:, j])
    if categorical:
        if encoder is not None and encoder.categories_[j] is not None:
            return np.asarray(encoder.categories_[j], dtype=object)
        return np.asarray(sorted(pd.unique(column.dropna()), key=str), dtype=object)
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    values = values[np.isfinite(values)]
    if not len(values):
        raise ValueError(f"Column {j} has no numeric values to build a grid from; pass grid=.")
    distinct = np.unique(values)
    if len(distinct) <= PD_GRID_POINTS:
        return distinct
    return np.unique(np.percentile(values, np.linspace(5, 95, PD_GRID_POINTS)))


def _stacked_rows(X, columns: list[int], values: list[np.ndarray]):
    """X repeated once per grid point (point-major), the ``columns`` set to the
    points' ``values``: row ``g * n + i`` is row i at grid point g."""
    n, g = np.shape(X)[0], len(values[0])
    if isinstance(X, pd.DataFrame):
        frame = X.iloc[np.tile(np.arange(n), g)].reset_index(drop=True)
        for j, v in zip(columns, values, strict=True):
            frame.isetitem(j, _as_column(X.iloc[:, j], np.repeat(v, n)))
        return frame
    array = np.asarray(X)
    array = array.astype(np.float64 if array.dtype.kind in "fiu" else object)
    stacked = np.tile(array, (g, 1))
    for j, v in zip(columns, values, strict=True):
        stacked[:, j] = np.repeat(v, n)
    return stacked


def _as_column(original: pd.Series, values: np.ndarray):
    """``values`` as a column of the kind of ``original``: its own categorical dtype
    when every value is one of its categories, objects for other categorical columns,
    floats for numeric ones."""
    dtype = original.dtype
    if isinstance(dtype, pd.CategoricalDtype) and pd.Index(dtype.categories).get_indexer(
            values.astype(object)).min(initial=0) >= 0:
        return pd.Categorical(values, dtype=dtype)
    if is_categorical_dtype(original) or values.dtype == object:
        return values.astype(object)
    return values.astype(np.float64)


def _pd_output(model, X) -> np.ndarray:
    """Probability of the second class (binary), every class's (more), or predict."""
    if getattr(model, "_estimator_type", None) == "classifier":
        proba = model.predict_proba(X)
        return proba[:, 1] if proba.shape[1] == 2 else proba
    return np.asarray(model.predict(X), dtype=np.float64)
