"""Random forests (Breiman 2001): bagged trees that draw m of the p features at each split."""
from __future__ import annotations

import numpy as np

from ..base import ClassifierMixin, RegressorMixin
from ..tree import DecisionTreeClassifier, DecisionTreeRegressor
from ..tree._builder import resolve_max_features
from ._bagged import BaseBagged

_FOREST_NOTES = """
    Training (Breiman 2001): for b = 1..B draw a bootstrap sample :math:`Z^{*b}` and grow
    a tree :math:`\\hat f_b`; before each split draw at random m of the p features and
    choose the best split :math:`(j, s)` among those m only. The bootstrap is kept as
    integer in-bag counts (``inbag_counts_``) used as sample weights of the same tree
    code; a row with count 0 is out of bag (OOB) for that tree. Every tree's seeds are
    drawn up front from one generator, so the forest is identical for any ``n_jobs``.
    Trees are grown a stack at a time, level by level together (each exactly as if
    grown alone), so that a level's numpy calls serve many trees.

    Averaging B trees of variance :math:`\\sigma^2` and pairwise correlation
    :math:`\\rho` leaves variance :math:`\\rho\\sigma^2 + \\frac{1-\\rho}{B}\\sigma^2`;
    drawing m < p features de-correlates the trees (smaller :math:`\\rho`), which is
    how a random forest improves on bagging (see ``engine.inspection.tree_correlation``).

    OOB estimate: each row is predicted by the average of the trees for which it was
    out of bag; ``oob_score_`` scores those predictions over the rows that were OOB at
    least once (scikit-learn warns and counts the others; here they are NaN rows of
    ``oob_decision_function_`` / ``oob_prediction_`` and left out of the score).
"""

_FOREST_REFERENCES = """
    L. Breiman (2001) "Random forests", *Machine Learning* 45, 5–32. L. Breiman (1996)
    "Bagging predictors", *Machine Learning* 24, 123–140. T. Hastie, R. Tibshirani,
    J. Friedman, *The Elements of Statistical Learning*, 2nd ed., ch. 15.
"""

_FOREST_ATTRIBUTES = """
    estimators_ : list of trees
        Each tree shares the forest's ``encoder_``.
    inbag_counts_ : ndarray of unsigned int, shape (n_estimators, n_samples)
        How many times each training row was drawn for each tree (0: out of bag).
    estimators_samples_ : list of ndarray
        The in-bag row indices of each tree (rows with a positive count).
    max_features_ : int
        m, the number of features drawn at each split.
    feature_importances_ : ndarray, shape (n_features,)
        Mean of the trees' normalised impurity decreases, normalised to sum 1.
    oob_score_ : float
        With ``oob_score=True``.
    oob_error_curve_ : ndarray, shape (n_estimators,)
        With ``oob_score=True``: 1 − OOB score after the first 1..B trees; the last
        point is ``1 - oob_score_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    encoder_ : FeatureEncoder
"""

_FOREST_PARAMETERS = """
    n_estimators : int, default=100
        B, the number of trees.
    max_depth, min_samples_split, min_samples_leaf, max_leaf_nodes, min_impurity_decrease, categorical_split
        Passed to every tree (see ``engine.tree``).
    bootstrap : bool, default=True
        Draw each tree's rows with replacement; False grows every tree on
        ``max_samples`` rows drawn without replacement (all rows by default).
    oob_score : bool, default=False
        Compute the OOB estimates after fitting (needs ``bootstrap=True``).
    n_jobs : int or None, default=None
        Worker processes (joblib) growing stacks of trees at once (None: 1); results do
        not depend on it.
    random_state : int, Generator or None, default=None
    max_samples : int, float or None, default=None
        Rows drawn per tree: None is n, a float a fraction of n, an int a count.
    binning : {"exact", "quantile"}, default="exact"
        Threshold search of every tree (see ``engine.tree``); the quantile bins are cut
        once, on all training rows, and shared by the trees.
    warm_start : bool, default=False
        A later ``fit`` on the same data keeps the fitted trees and grows only the
        ones ``n_estimators`` adds (as scikit-learn's); with an integer
        ``random_state`` the result equals one fit of them all.
"""


def _forest_docs(cls):
    for name, text in (("forest_parameters", _FOREST_PARAMETERS), ("forest_notes", _FOREST_NOTES),
                       ("forest_references", _FOREST_REFERENCES),
                       ("forest_attributes", _FOREST_ATTRIBUTES)):
        cls.__doc__ = cls.__doc__.replace(f"%({name})s", text.strip("\n").lstrip() + "\n")
    return cls


class _BaseForest(BaseBagged):
    _tree_class = DecisionTreeClassifier

    def _max_samples_param(self):
        return self.max_samples

    def fit(self, X, y, sample_weight=None, *, progress=None):
        """Grow ``n_estimators`` trees on bootstrap samples of X (n_samples, n_features), y.

        ``progress(done, total)``, if given, is called as trees finish.
        """
        self.max_features_ = resolve_max_features(self.max_features, _n_columns(X))
        return super().fit(X, y, sample_weight, progress=progress)

    def _member(self, tree_seed: int):
        return self._tree_class(
            criterion=self.criterion, max_depth=self.max_depth,
            min_samples_split=self.min_samples_split, min_samples_leaf=self.min_samples_leaf,
            max_features=self.max_features_, max_leaf_nodes=self.max_leaf_nodes,
            min_impurity_decrease=self.min_impurity_decrease,
            categorical_split=self.categorical_split, random_state=tree_seed,
            binning=self.binning,
        )


def _n_columns(X) -> int:
    shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
    if len(shape) != 2:
        raise ValueError("X must be 2-D (rows × features).")
    return int(shape[1])


@_forest_docs
class RandomForestClassifier(ClassifierMixin, _BaseForest):
    """A random forest of classification trees; predicts the class of highest mean probability.

    Parameters
    ----------
    %(forest_parameters)s
    criterion : {"gini", "entropy", "misclassification", "gain_ratio"}, default="gini"
    max_features : "sqrt", "log2", int, float or None, default="sqrt"
        m: "sqrt" is ⌊√p⌋ (Breiman's choice for classification), a float f gives
        ⌊f·p⌋, None all p features (bagging).

    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
    n_classes_ : int
    oob_decision_function_ : ndarray, shape (n_samples, n_classes)
        With ``oob_score=True``: the OOB-averaged class probabilities of each training
        row; NaN rows were never out of bag.
    %(forest_attributes)s
    Notes
    -----
    Prediction: :math:`\\hat y = \\operatorname{argmax}_q \\pi_q` with
    :math:`\\pi = \\frac{1}{B} \\sum_{b=1}^B \\pi_b`, the mean of the trees' leaf
    class shares (ties: the first class in ``classes_``).

    %(forest_notes)s
    References
    ----------
    %(forest_references)s
    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 4))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, "spam", "ham")
    >>> forest = RandomForestClassifier(n_estimators=25, oob_score=True, random_state=0).fit(X, y)
    >>> forest.max_features_, forest.inbag_counts_.shape
    (2, (25, 200))
    >>> bool(forest.oob_score_ > 0.85), forest.predict([[2.0, 2.0, 0.0, 0.0]]).tolist()
    (True, ['spam'])
    """

    def __init__(
        self, *, n_estimators=100, criterion="gini", max_depth=None, min_samples_split=2,
        min_samples_leaf=1, max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
        bootstrap=True, oob_score=False, n_jobs=None, random_state=None, max_samples=None,
        categorical_split="binary", binning="exact", warm_start=False,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.max_samples = max_samples
        self.categorical_split = categorical_split
        self.binning = binning
        self.warm_start = warm_start

    def predict_proba(self, X) -> np.ndarray:
        """Mean of the trees' class probabilities, shape (n_samples, n_classes)."""
        return self._average(X)


@_forest_docs
class RandomForestRegressor(RegressorMixin, _BaseForest):
    """A random forest of regression trees; predicts the mean of the trees' predictions.

    Parameters
    ----------
    %(forest_parameters)s
    criterion : {"squared_error"}, default="squared_error"
    max_features : "sqrt", "log2", int, float or None, default=1/3
        m: the default 1/3 gives ⌊p/3⌋, Breiman's choice for regression. scikit-learn's
        default is 1.0 (all features, i.e. bagging).

    Attributes
    ----------
    oob_prediction_ : ndarray, shape (n_samples,)
        With ``oob_score=True``: the OOB-averaged prediction of each training row; NaN
        where a row was never out of bag. ``oob_score_`` is their R².
    %(forest_attributes)s
    Notes
    -----
    Prediction: :math:`\\hat y = \\frac{1}{B} \\sum_{b=1}^B \\hat f_b(x)`.
    ``min_samples_leaf`` keeps scikit-learn's default 1; after Breiman, Hastie et al.
    (2009, §15.3) recommend a minimum node size of 5 for regression: pass
    ``min_samples_leaf=5``.

    %(forest_notes)s
    References
    ----------
    %(forest_references)s
    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(300, 6))
    >>> y = 10 * X[:, 0] + 5 * X[:, 1] + rng.normal(scale=0.1, size=300)
    >>> forest = RandomForestRegressor(n_estimators=30, oob_score=True, random_state=0).fit(X, y)
    >>> forest.max_features_, bool(forest.oob_score_ > 0.8)
    (2, True)
    """

    _is_classifier = False
    _tree_class = DecisionTreeRegressor

    def __init__(
        self, *, n_estimators=100, criterion="squared_error", max_depth=None,
        min_samples_split=2, min_samples_leaf=1, max_features=1 / 3, max_leaf_nodes=None,
        min_impurity_decrease=0.0, bootstrap=True, oob_score=False, n_jobs=None,
        random_state=None, max_samples=None, categorical_split="binary", binning="exact",
        warm_start=False,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.max_samples = max_samples
        self.categorical_split = categorical_split
        self.binning = binning
        self.warm_start = warm_start

    def predict(self, X) -> np.ndarray:
        """Mean of the trees' predictions, shape (n_samples,)."""
        return self._average(X)
