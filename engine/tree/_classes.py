"""Decision tree estimators: :class:`DecisionTreeClassifier` and :class:`DecisionTreeRegressor`."""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from .._validation import (
    FeatureEncoder,
    check_consistent_length,
    check_regression_target,
    check_sample_weight,
    encode_labels,
)
from ..base import BaseEstimator, ClassifierMixin, RegressorMixin, check_random_state, clone
from ._binning import prepare_features
from ._builder import GrowParams, build_tree, build_trees, resolve_count, resolve_max_features
from ._by_hand import grow_by_hand
from ._criteria import ClassificationCriterion, SquaredErrorCriterion
from ._quantile import resolve_bins
from ._search_binned import BinnedSearch, serves
from ._tree import Tree, plurality

_CLASSIFICATION = ("gini", "entropy", "misclassification", "gain_ratio")


@dataclass
class PruningPath:
    """Result of ``cost_complexity_pruning_path``; also readable as ``path["ccp_alphas"]``.

    Examples
    --------
    >>> path = PruningPath(np.array([0.0, 0.25]), np.array([0.0, 0.5]))
    >>> path["impurities"].tolist() == path.impurities.tolist()
    True
    """

    ccp_alphas: np.ndarray
    impurities: np.ndarray

    def __getitem__(self, key: str) -> np.ndarray:
        return getattr(self, key)

    def keys(self) -> list[str]:
        return ["ccp_alphas", "impurities"]


class _BaseDecisionTree(BaseEstimator):
    """Fitting and prediction shared by the classifier and the regressor."""

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` (n_samples, n_features) and ``y`` (n_samples,)."""
        return self._fit_encoded(*self._fit_arguments(X, y, sample_weight))

    def _fit_arguments(self, X, y, sample_weight):
        """(encoded X, target, weights, the fitted encoder) of a fit's arguments."""
        self._validate_params()
        encoder = FeatureEncoder().fit(X)
        X_enc = encoder.transform(X)
        check_consistent_length(X_enc, y)
        target = self._encode_target(y)
        weight = check_sample_weight(sample_weight, X_enc.shape[0])
        return X_enc, target, weight, encoder

    def _fit_encoded(self, X_enc, target, weight, encoder, classes=None):
        """Grow on rows already encoded by the fitted ``encoder`` (no validation).

        ``target`` is class codes into ``classes`` (classifier) or the float target,
        ``weight`` a float array (e.g. bootstrap counts), ``encoder`` is shared, not
        copied. Forests grow many such trees at once with :func:`grow_many`.
        """
        self._start_encoded(encoder, classes)
        return self._finish(self._grow(X_enc, target, weight))

    def _start_encoded(self, encoder, classes) -> None:
        self._validate_params()
        if classes is not None:
            self._encode_target(classes)  # checks the criterion, sets classes_
        self.encoder_ = encoder
        self.feature_names_in_ = self.encoder_.feature_names_in_
        self.n_features_in_ = len(encoder.feature_names_in_)
        self.is_categorical_ = self.encoder_.is_categorical_
        self.categories_ = self.encoder_.categories_
        self.max_features_ = resolve_max_features(self.max_features, self.n_features_in_)

    def _finish(self, tree: Tree):
        self.tree_ = self._prune(tree)
        self.feature_importances_ = self.tree_.feature_importances(self.n_features_in_)
        return self

    def _grow(self, X_enc, target, weight) -> Tree:
        # Like scikit-learn, rows of zero weight take no part (not even in n_node_samples).
        keep = weight > 0
        X_fit = X_enc[keep]
        bins = self._fit_bins(X_fit)
        prep = prepare_features(X_fit, self.encoder_.n_categories_, self.max_bins, bins)
        crit = self._criterion(target[keep], weight[keep])
        tree = build_tree(prep, crit, self._grow_params(X_enc.shape[0]))
        return tree if bins is None else bins.move_thresholds(tree)

    def _fit_bins(self, X_fit: np.ndarray):
        """``bins_``: the quantile bins ``binning`` asks for on the rows fitted on (those
        of positive weight), or None for the exact search."""
        self.bins_ = resolve_bins(self.binning, X_fit, self.encoder_.n_categories_, self.max_bins)
        return self.bins_

    def _prune(self, tree: Tree) -> Tree:
        if self.ccp_alpha > 0:
            from ._prune import prune_ccp

            tree = prune_ccp(tree, self.ccp_alpha)
        if self.chi2_alpha is not None:
            from ._prune import prune_chi2

            tree = prune_chi2(tree, self.chi2_alpha)
        return tree

    def _validate_params(self) -> None:
        if self.splitter != "best":
            raise ValueError(f"splitter must be 'best', got {self.splitter!r}.")
        if self.categorical_split not in ("binary", "multiway"):
            raise ValueError(
                f"categorical_split must be 'binary' or 'multiway', got {self.categorical_split!r}."
            )
        if self.max_depth is not None and self.max_depth < 1:
            raise ValueError(f"max_depth must be None or >= 1, got {self.max_depth!r}.")
        if self.max_leaf_nodes is not None and self.max_leaf_nodes < 2:
            raise ValueError(f"max_leaf_nodes must be None or >= 2, got {self.max_leaf_nodes!r}.")
        if self.max_bins is not None and self.max_bins < 2:
            raise ValueError(f"max_bins must be None or >= 2, got {self.max_bins!r}.")
        if self.min_impurity_decrease < 0 or self.ccp_alpha < 0:
            raise ValueError("min_impurity_decrease and ccp_alpha must be >= 0.")
        if self.chi2_alpha is not None and not 0 < self.chi2_alpha < 1:
            raise ValueError(f"chi2_alpha must be None or in (0, 1), got {self.chi2_alpha!r}.")

    def _grow_params(self, n_samples: int) -> GrowParams:
        max_depth = np.iinfo(np.int32).max if self.max_depth is None else int(self.max_depth)
        if self.max_leaf_nodes is not None:  # a tree with L leaves is at most L - 1 deep
            max_depth = min(max_depth, int(self.max_leaf_nodes) - 1)
        return GrowParams(
            max_depth=max_depth,
            min_samples_split=resolve_count(self.min_samples_split, n_samples, "min_samples_split", 2),
            min_samples_leaf=resolve_count(self.min_samples_leaf, n_samples, "min_samples_leaf", 1),
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_features=self.max_features_ if self.max_features_ < self.n_features_in_ else None,
            max_leaf_nodes=self.max_leaf_nodes,
            multiway=self.categorical_split == "multiway",
            rng=check_random_state(self.random_state),
        )

    def _encoded(self, X) -> np.ndarray:
        self._check_is_fitted()
        X_enc = self.encoder_.transform(X)
        if X_enc.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X_enc.shape[1]} features; the tree expects {self.n_features_in_}.")
        return X_enc

    def apply(self, X) -> np.ndarray:
        """Leaf id (index into ``tree_`` arrays) of every row, shape (n_samples,)."""
        X_enc = self._encoded(X)
        return self.tree_.apply(X_enc)

    def decision_path(self, X) -> np.ndarray:
        """Boolean matrix (n_samples, node_count): the nodes each row passes through."""
        X_enc = self._encoded(X)
        return self.tree_.decision_path(X_enc)

    def get_depth(self) -> int:
        self._check_is_fitted()
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        self._check_is_fitted()
        return self.tree_.n_leaves

    def cost_complexity_pruning_path(self, X, y, sample_weight=None) -> PruningPath:
        """Effective alphas of minimal cost-complexity pruning and the total leaf impurities.

        Fits an unpruned copy of this tree and follows the weakest-link path of
        Breiman et al. (1984): ``ccp_alphas[i]`` is the α at which the i-th subtree
        becomes optimal, ``impurities[i]`` its :math:`R(T) = \\sum_{leaves} \\frac{N_t}{N} I(t)`.
        """
        from ._prune import ccp_path

        params = {**self.get_params(deep=False), "ccp_alpha": 0.0, "chi2_alpha": None}
        unpruned = type(self)(**params).fit(X, y, sample_weight=sample_weight)
        alphas, impurities = ccp_path(unpruned.tree_)
        return PruningPath(np.asarray(alphas), np.asarray(impurities))


_SHARED_PARAMETERS = """
    splitter : {"best"}, default="best"
        Every candidate split is evaluated.
    max_depth : int or None, default=None
        Nodes at this depth become leaves (root depth 0).
    min_samples_split : int or float, default=2
        A node with fewer training rows is not split (a float is a fraction of n_samples).
    min_samples_leaf : int or float, default=1
        Splits leaving fewer rows in a child are not candidates (empty ID3 branches excepted).
    max_features : int, float, "sqrt", "log2" or None, default=None
        Features drawn at random per node (with ``random_state``) among those that can split it.
    max_leaf_nodes : int or None, default=None
        Grow best-first: expand the leaf with the largest weighted impurity decrease first.
    min_impurity_decrease : float, default=0.0
        Split only if :math:`\\frac{N_t}{N}(I(t) - \\frac{N_{t_R}}{N_t} I(t_R) -
        \\frac{N_{t_L}}{N_t} I(t_L)) \\ge` this value (weighted ``N`` as in scikit-learn).
    categorical_split : {"binary", "multiway"}, default="binary"
        Binary: categories ordered (see Notes), best prefix. Multiway: ID3, one branch per
        category, the attribute used up below; an empty branch predicts its parent's value.
    max_bins : int or None, default=255
        Numeric features with at most this many distinct values may be counted by histogram;
        with ``binning="exact"`` it never changes the tree: thresholds are always exact
        midpoints (see Notes). With ``binning="quantile"``, the number of bins.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning parameter α (0: no pruning).
    chi2_alpha : float or None, default=None
        Significance level of χ² pruning (Quinlan 1986); None: no χ² pruning.
    random_state : int or None, default=None
        Seed for ``max_features`` draws.
    binning : {"exact", "quantile"}, default="exact"
        Exact: every midpoint between adjacent distinct values is a candidate threshold.
        Quantile: a numeric feature with more than ``max_bins`` distinct values is cut
        into ``max_bins`` quantile bins and only cuts between bins are candidates (fewer
        candidates on large data; see ``engine.tree._quantile``). ``bins_`` holds them.
"""

_SHARED_NOTES = """
    Splits. A numeric split is ``x <= t`` with ``t`` the midpoint between two adjacent
    distinct values observed in the node (only those can be optimal). The gain
    of a split of node :math:`t` into children :math:`t_k` is
    :math:`\\Delta = I(t) - \\sum_k \\frac{n_k}{n} I(t_k)`, with weighted counts.

    Exactness and speed. The tree grows level by level: all nodes of one depth at once.
    A numeric feature with at most ``max_bins`` distinct values is counted, while the
    level has few nodes, by one ``np.bincount`` over (node, value) slots; otherwise its
    rows are taken in presorted order and cumulative sums give every cut. For gini,
    entropy and misclassification only cuts where the class changes (and the
    ``min_samples_leaf`` limits) are scored: for a concave impurity no other cut can
    be better. Every distinct value remains a possible threshold, so ``max_bins`` changes
    the speed, never the tree, and on data without ties the tree is scikit-learn's.

    Missing values. At every candidate split the node's missing rows are tried on both
    sides (every branch for a multiway split) and the better side is kept (equal: right);
    a split "value present / value missing" (threshold +inf) is a candidate too. If the
    node had no missing values, prediction sends them to the child with most training
    weight, as it does for categories not seen at the node.

    Tie rule. Among splits whose scores are equal up to a relative 1e-12 (float noise),
    the lowest column index wins, then the lowest threshold (for a binary categorical
    split: the shortest prefix of the category order). With it, ID3 on AIMA's restaurant
    data gives Fig. 18.6. scikit-learn instead visits features in a random order, so its
    trees differ from these only where splits tie. A leaf whose classes tie predicts the
    class listed last in ``classes_`` (see ``predict``).

    Stopping. A node is a leaf when it is pure, when a stopping parameter says so, or
    when it has no valid split. As in scikit-learn, the best split of an impure node is
    made even when it gains nothing under gini, entropy, gain ratio or squared error (on
    XOR only the second split pays off); under misclassification a zero gain is "no
    progress", common because the error ignores everything but the majority,
    and such a split is not made (gains within 1e-12 relative of 0 count as zero).
"""

_SHARED_REFERENCES = """
    L. Breiman, J. Friedman, R. Olshen, C. Stone (1984) *Classification and Regression
    Trees* (CART). J. R. Quinlan (1986) "Induction of decision trees", *Machine Learning*
    1 (ID3); J. R. Quinlan (1993) *C4.5: Programs for Machine Learning*. S. Russell,
    P. Norvig, *Artificial Intelligence: A Modern Approach*, 3rd ed. (2010), §18.3.
    T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed.
    (2009), §9.2.
"""


def _shared_docs(cls):
    """Fill the parameter, notes and reference sections both estimators share."""
    for name, text in (("shared_parameters", _SHARED_PARAMETERS), ("shared_notes", _SHARED_NOTES),
                       ("shared_references", _SHARED_REFERENCES)):
        cls.__doc__ = cls.__doc__.replace(f"%({name})s", text.strip("\n").lstrip() + "\n")
    return cls


@_shared_docs
class DecisionTreeClassifier(ClassifierMixin, _BaseDecisionTree):
    """A classification tree: CART (gini), ID3 (entropy), error rate, or C4.5 gain ratio.

    Parameters
    ----------
    criterion : {"gini", "entropy", "misclassification", "gain_ratio"}, default="gini"
        Impurity :math:`I`. ``entropy`` is in bits; ``gain_ratio`` ranks splits by
        :math:`\\Delta / \\mathrm{SplitInfo}` and reports entropy as the impurity.
    %(shared_parameters)s
    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
    is_categorical_ : ndarray of bool, shape (n_features,)
    categories_ : list of ndarray or None
    tree_ : Tree
        ``value`` holds weighted class counts.
    encoder_ : FeatureEncoder
    feature_importances_ : ndarray, shape (n_features,)
        Normalised total weighted impurity decrease per feature.
    max_features_ : int
        Features drawn per node, ``max_features`` resolved (all of them for None).

    Notes
    -----
    Impurities with class proportions :math:`\\pi_q` (Hastie et al. 2009, §9.2.3):
    Gini :math:`1 - \\sum_q \\pi_q^2`, entropy :math:`-\\sum_q \\pi_q \\log_2 \\pi_q`,
    misclassification :math:`1 - \\max_q \\pi_q`; C4.5's split information
    :math:`-\\sum_k \\frac{n_k}{n} \\log_2 \\frac{n_k}{n}`.

    Binary categorical splits order the node's categories by the proportion of class 1
    (two classes; optimal, Breiman et al. 1984) or, for more classes, by the
    proportion of the node's majority class (a heuristic: then not always optimal), and
    take the best prefix of that order like a numeric threshold.

    ``gain_ratio`` divides every candidate's gain by its split information and takes
    the largest ratio; C4.5's extra rule (only candidates with at least average gain)
    is not applied, so a split with tiny gain and tiny split information can win.

    %(shared_notes)s
    References
    ----------
    %(shared_references)s
    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"credit": ["good", "bad", "good", "bad"], "income": [3.0, 1.0, 2.0, 2.5]})
    >>> y = ["safe", "risky", "safe", "risky"]
    >>> tree = DecisionTreeClassifier(criterion="entropy").fit(X, y)
    >>> tree.predict(X).tolist()
    ['safe', 'risky', 'safe', 'risky']
    >>> tree.get_n_leaves(), tree.feature_importances_.tolist()
    (2, [1.0, 0.0])
    """

    def __init__(
        self, *, criterion="gini", splitter="best", max_depth=None, min_samples_split=2,
        min_samples_leaf=1, max_features=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
        categorical_split="binary", max_bins=255, ccp_alpha=0.0, chi2_alpha=None,
        random_state=None, binning="exact",
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.categorical_split = categorical_split
        self.max_bins = max_bins
        self.ccp_alpha = ccp_alpha
        self.chi2_alpha = chi2_alpha
        self.random_state = random_state
        self.binning = binning

    def _encode_target(self, y) -> np.ndarray:
        if self.criterion not in _CLASSIFICATION:
            raise ValueError(f"criterion must be one of {_CLASSIFICATION}, got {self.criterion!r}.")
        self.classes_, codes = encode_labels(y)
        self.n_classes_ = len(self.classes_)
        return codes

    def _criterion(self, codes, weight):
        return ClassificationCriterion(self.criterion, self.n_classes_, codes, weight)

    def fit_splits(self, X, y, splits, sample_weight=None):
        """Build the tree whose splits are ``splits`` instead of searching for them.

        ``splits`` maps a node's path (the child offsets from the root: ``()`` the root,
        ``(0,)`` its first child) to a :class:`HandSplit`; every other node is a leaf. A
        student's own tree (:mod:`._by_hand`): the missing values of a node go where its
        split scores best; the stopping and pruning settings do not apply. Raises
        ValueError for a split whose node does not exist or that leaves a child empty.

        With ``binning="quantile"`` the tree keeps the bins a fit would make (``bins_``),
        so :func:`engine.inspection.split_candidates` lists a node's questions between
        bins, as for the tree the search grows; the splits themselves apply to the
        values as given.
        """
        X_enc, target, weight, encoder = self._fit_arguments(X, y, sample_weight)
        self._start_encoded(encoder, None)
        self._fit_bins(X_enc[weight > 0])
        self.tree_ = grow_by_hand(X_enc, target, weight, self.n_classes_,
                                  list(encoder.categories_), self.criterion, splits)
        self.feature_importances_ = self.tree_.feature_importances(self.n_features_in_)
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (n_samples, n_classes): the leaf's weighted class shares."""
        leaves = self.apply(X)
        value = np.take(self.tree_.value, leaves, axis=0)  # rows: faster than []
        return value / value.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """The plurality class of each row's leaf.

        A tie goes to the class listed last in ``classes_`` (see ``_tree.plurality``);
        any rule would do, this one reproduces AIMA's trees.
        """
        best = self.class_index(self.predict_proba(X))  # checks that the model is fitted first
        return self.classes_[best]

    def class_index(self, proba: np.ndarray) -> np.ndarray:
        """The place in ``classes_`` of the class :meth:`predict` gives for ``proba``:
        the plurality, a tie to the class listed last (``_tree.plurality``)."""
        return plurality(proba)


@_shared_docs
class DecisionTreeRegressor(RegressorMixin, _BaseDecisionTree):
    """A regression tree (CART): leaves predict the mean target, splits minimise the RSS.

    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error"
        Impurity :math:`I(t)` is the weighted mean squared error of the node.
    %(shared_parameters)s
    Attributes
    ----------
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
    is_categorical_ : ndarray of bool, shape (n_features,)
    categories_ : list of ndarray or None
    tree_ : Tree
        ``value`` holds the node mean, shape (node_count, 1).
    encoder_ : FeatureEncoder
    feature_importances_ : ndarray, shape (n_features,)
    max_features_ : int
        Features drawn per node, ``max_features`` resolved (all of them for None).

    Notes
    -----
    The split :math:`(j, s)` minimises
    :math:`\\sum_{x_i \\in R_1} (y_i - \\hat c_1)^2 + \\sum_{x_i \\in R_2} (y_i - \\hat c_2)^2`,
    :math:`\\hat c_m` the mean of region :math:`R_m`. Binary categorical splits order the
    categories by their mean target (optimal for squared error, Breiman et al. 1984).

    %(shared_notes)s
    References
    ----------
    %(shared_references)s
    Examples
    --------
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> reg = DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 1.0, 5.0, 5.0])
    >>> reg.tree_.threshold[0], reg.predict([[0.0], [10.0]]).tolist()
    (np.float64(2.5), [1.0, 5.0])
    """

    def __init__(
        self, *, criterion="squared_error", splitter="best", max_depth=None, min_samples_split=2,
        min_samples_leaf=1, max_features=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
        categorical_split="binary", max_bins=255, ccp_alpha=0.0, chi2_alpha=None,
        random_state=None, binning="exact",
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.categorical_split = categorical_split
        self.max_bins = max_bins
        self.ccp_alpha = ccp_alpha
        self.chi2_alpha = chi2_alpha
        self.random_state = random_state
        self.binning = binning

    def _encode_target(self, y) -> np.ndarray:
        if self.criterion != "squared_error":
            raise ValueError(f"criterion must be 'squared_error', got {self.criterion!r}.")
        return check_regression_target(y)

    def _criterion(self, y, weight):
        return SquaredErrorCriterion(y, weight)

    def predict(self, X) -> np.ndarray:
        """Mean training target of each row's leaf, shape (n_samples,)."""
        leaves = self.apply(X)
        return self.tree_.value[leaves, 0]


def cut_to_depth(model, max_depth: int):
    """A copy of the fitted tree ``model`` whose nodes at depth ``max_depth`` are leaves:
    the tree that fitting it with ``max_depth`` set would grow, without growing it.

    Growth is greedy and level by level, so no split above a depth depends on what is
    grown below it (features drawn for a node included: deeper levels draw after).
    That holds for a model grown without ``max_leaf_nodes`` (best-first growth) and
    without pruning (which looks at the whole grown tree); others raise ValueError,
    as does a ``max_depth`` beyond the model's own limit.

    >>> X = np.arange(16.0).reshape(-1, 1); y = [0, 1] * 4 + [1, 0] * 4
    >>> deep = DecisionTreeClassifier().fit(X, y)
    >>> cut = cut_to_depth(deep, 2)
    >>> cut.get_depth(), cut.tree_.node_count == DecisionTreeClassifier(max_depth=2).fit(X, y).tree_.node_count
    (2, True)
    """
    model._check_is_fitted()
    if model.max_leaf_nodes is not None or model.ccp_alpha > 0 or model.chi2_alpha is not None:
        raise ValueError("Only a tree grown without max_leaf_nodes and without pruning can be "
                         "cut to a depth.")
    if max_depth < 1 or (model.max_depth is not None and max_depth > model.max_depth):
        raise ValueError(f"max_depth must be between 1 and the model's own "
                         f"({model.max_depth}), got {max_depth}.")
    tree = model.tree_
    cut = np.flatnonzero((tree.depth == max_depth) & (np.asarray(tree.children_left) >= 0))
    out = copy.copy(model).set_params(max_depth=int(max_depth))
    out.tree_ = tree.collapse(cut) if len(cut) else tree
    out.feature_importances_ = out.tree_.feature_importances(out.n_features_in_)
    return out


def prune_to_alpha(model, ccp_alpha: float = 0.0, *, chi2_alpha: float | None = None):
    """A copy of the fitted, unpruned tree ``model`` pruned at ``ccp_alpha`` (and, with
    ``chi2_alpha``, by the χ² test at that level): the tree that fitting it with those
    parameters set would give, without growing it again (a fit grows its tree whole,
    then prunes it: :func:`._prune.prune_ccp`, :func:`._prune.prune_chi2`). A model
    already pruned (``ccp_alpha`` > 0 or ``chi2_alpha`` set) raises ValueError.

    >>> X = np.arange(16.0).reshape(-1, 1); y = [0, 1] * 4 + [1, 0] * 4
    >>> full = DecisionTreeClassifier().fit(X, y)
    >>> pruned = prune_to_alpha(full, 0.05)
    >>> pruned.ccp_alpha, pruned.tree_.node_count == DecisionTreeClassifier(ccp_alpha=0.05).fit(X, y).tree_.node_count
    (0.05, True)
    >>> prune_to_alpha(full, chi2_alpha=0.05).tree_.node_count
    1
    """
    model._check_is_fitted()
    if model.ccp_alpha > 0 or model.chi2_alpha is not None:
        raise ValueError("Only a tree grown without pruning can be pruned to an alpha.")
    if not ccp_alpha >= 0:
        raise ValueError(f"ccp_alpha must be a non-negative number; got {ccp_alpha!r}.")
    out = copy.copy(model).set_params(ccp_alpha=float(ccp_alpha), chi2_alpha=chi2_alpha)
    out._validate_params()
    return out._finish(model.tree_)


def grow_many(trees: list, X_enc, target, stacked_rows, tree_of_row, weights, encoder,
              classes, prepared) -> list:
    """Grow several trees of the same parameters at once, each on its own rows.

    The forests' fast path: ``trees`` are unfitted estimators that differ only in
    ``random_state``; tree ``b`` is grown on the rows ``stacked_rows[tree_of_row == b]``
    (ascending, one tree's after another's) with the positive weights ``weights`` there.
    Those rows are stacked (see :meth:`PreparedFeatures.take`) and all trees grow level
    by level together (:func:`build_trees`); each comes out as
    ``tree._fit_encoded(X_enc, target, w, encoder, classes)`` would make it, ``w``
    holding its rows' weights and 0 elsewhere. ``prepared`` is :func:`prepare_features`
    of all of ``X_enc``.
    """
    for tree in trees:
        tree._start_encoded(encoder, classes)
    first = trees[0]
    params = first._grow_params(X_enc.shape[0])
    params.rng = [check_random_state(t.random_state) for t in trees]
    draws = params.max_features is not None and params.max_features < first.n_features_in_
    prep = prepared.take(stacked_rows, with_order=not draws)
    crit = first._criterion(target[stacked_rows], weights)
    grown = build_trees(prep, crit, params, tree_of_row)
    return [tree._finish(g) for tree, g in zip(trees, grown, strict=True)]


#: Parameters a :class:`RoundGrower` needs at these values (or the tree's own ``fit``):
#: every feature is searched, and the tree is used as grown.
_ROUND_PARAMETERS = {"splitter": "best", "max_features": None, "max_leaf_nodes": None,
                     "min_impurity_decrease": 0.0, "ccp_alpha": 0.0, "chi2_alpha": None}


class RoundGrower:
    """Trees of one template grown round after round on the same rows, with new weights
    (AdaBoost) or new targets (gradient boosting): the boosters' fast path.

    The rows are prepared once (presorted, coded, binned) for every round. Numeric
    features without missing values are searched by
    :class:`._search_binned.BinnedSearch`, which keeps the root's cut geometry from
    round to round; others (categorical features, missing values, other criteria) by
    the exact search every tree uses. Each tree is grown by the same builder as every
    tree (:func:`._builder.build_tree`), and each round's estimator is the one
    ``clone(template).fit`` on those rows and weights would give (with quantile bins:
    the bins of all the rows, where a fit on some of them would bin those).
    :meth:`make` says whether the template allows it.
    """

    def __init__(self, template, X_enc: np.ndarray, encoder, classes=None):
        self.bins = resolve_bins(template.binning, X_enc, encoder.n_categories_,
                                 template.max_bins)
        self._prepare(template, X_enc, encoder, classes)

    def _prepare(self, template, X_enc: np.ndarray, encoder, classes) -> None:
        """The prepared rows, the search and the parameters, with ``self.bins``."""
        self._made_with = (template, encoder, classes)
        if serves(X_enc, encoder.n_categories_, template.criterion):
            self.prep = prepare_features(X_enc, encoder.n_categories_, None, self.bins)
            self.search = BinnedSearch(self.prep)
        else:  # prepared as the tree's own fit prepares; build_tree's exact search
            self.prep = prepare_features(X_enc, encoder.n_categories_, template.max_bins,
                                         self.bins)
            self.search = None
        self._started = clone(template)  # each round's estimator is a copy of it
        self._started._start_encoded(encoder, classes)
        self.params = self._started._grow_params(X_enc.shape[0])

    @classmethod
    def make(cls, template, X_enc: np.ndarray, encoder, classes=None) -> RoundGrower | None:
        """A grower for ``template`` (a decision tree estimator) on ``X_enc``, or None
        where only the template's own ``fit`` serves (other estimators, a full-depth
        tree, settings other than :data:`_ROUND_PARAMETERS`)."""
        if type(template) not in (DecisionTreeClassifier, DecisionTreeRegressor):
            return None
        params = template.get_params(deep=False)
        if params["max_depth"] is None or any(params[k] != v for k, v in _ROUND_PARAMETERS.items()):
            return None
        return cls(template, X_enc, encoder, classes)

    def on_rows(self, X_enc: np.ndarray) -> RoundGrower:
        """A grower of the same template on ``X_enc``, rows of the table this one was
        made on, with that table's bins and parameters (counts resolved on its rows): a
        tree grown there splits those rows as a tree grown here would."""
        template, encoder, classes = self._made_with
        grower = RoundGrower.__new__(RoundGrower)  # not __init__: no bins of its own
        grower.bins = self.bins
        grower._prepare(template, X_enc, encoder, classes)
        grower.params = self.params
        return grower

    def grow(self, target: np.ndarray, weight: np.ndarray, rows: np.ndarray | None = None):
        """The fitted estimator of this round, grown on ``rows`` (default: all) of
        positive ``weight`` with ``target`` (class codes into ``classes``, or values),
        and the leaf of every row (-1 for rows it was not grown on)."""
        rows = np.flatnonzero(weight > 0) if rows is None else rows[weight[rows] > 0]
        tree = copy.copy(self._started)  # its parameters and encoding; fitted below
        grown, leaves = build_tree(self.prep, tree._criterion(target, weight), self.params,
                                   rows, self.search, with_leaves=True)
        tree.bins_ = self.bins
        if self.bins is not None:
            self.bins.move_thresholds(grown)
        return tree._finish(grown), leaves
