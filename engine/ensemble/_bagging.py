"""Bagging (Breiman 1996): the same learner fitted on bootstrap samples, votes averaged."""
from __future__ import annotations

import numpy as np

from ..base import ClassifierMixin, clone
from ..tree import DecisionTreeClassifier
from ._bagged import BaseBagged


class BaggingClassifier(ClassifierMixin, BaseBagged):
    """Bootstrap aggregation of a classifier: average of the members' class probabilities.

    Parameters
    ----------
    estimator : classifier or None, default=None
        The learner to bag; None is a full-depth ``DecisionTreeClassifier()``. A
        Glassbox tree takes the fast path (X encoded once, all trees walked at once);
        any other classifier needs ``fit(X, y, sample_weight)`` and ``predict_proba``.
    n_estimators : int, default=10
        B, the number of members.
    max_samples : int or float, default=1.0
        Rows drawn per member: a float is a fraction of n, an int a count.
    bootstrap : bool, default=True
        Draw with replacement; False draws ``max_samples`` distinct rows.
    oob_score : bool, default=False
        Compute the OOB estimates after fitting (needs ``bootstrap=True``).
    n_jobs : int or None, default=None
        Worker processes (joblib) fitting members at once; results do not depend on it.
    random_state : int, Generator or None, default=None
        Seeds the bootstraps and, for trees, their ``random_state``.

    Attributes
    ----------
    estimators_ : list of classifiers
    inbag_counts_ : ndarray of unsigned int, shape (n_estimators, n_samples)
        How many times each training row was drawn for each member (0: out of bag).
    estimators_samples_ : list of ndarray
        The in-bag row indices of each member.
    classes_ : ndarray, shape (n_classes,)
    n_classes_ : int
    feature_importances_ : ndarray, shape (n_features,)
        Mean of the trees' normalised impurity importances (zeros for non-tree members).
    oob_score_ : float
        OOB accuracy over the rows out of bag at least once (``oob_score=True``).
    oob_decision_function_ : ndarray, shape (n_samples, n_classes)
        OOB-averaged class probabilities; NaN rows were never out of bag.
    oob_error_curve_ : ndarray, shape (n_estimators,)
        1 − OOB accuracy after the first 1..B members; last point ``1 - oob_score_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    encoder_ : FeatureEncoder

    Notes
    -----
    For each bootstrap sample :math:`Z^{*b}` grow a tree :math:`\\hat f_b`,
    and predict :math:`\\hat y = \\operatorname{argmax}_q \\pi_q`,
    :math:`\\pi = \\frac{1}{B}\\sum_{b=1}^B \\pi_b` (ties: the first class). Averaging
    reduces variance: B identically distributed trees of variance :math:`\\sigma^2` and
    pairwise correlation :math:`\\rho` average to variance
    :math:`\\rho\\sigma^2 + \\frac{1-\\rho}{B}\\sigma^2`, so the correlation, not B,
    limits the gain (random forests lower :math:`\\rho`).

    The bootstrap is kept as in-bag counts used as sample weights (a weight of k is k
    copies of the row), every member's seeds are drawn up front from ``random_state``,
    and the ensemble is the same for any ``n_jobs``. A row's OOB prediction averages
    the members for which it was not drawn (about :math:`e^{-1} \\approx 37\\%` of them).

    References
    ----------
    L. Breiman (1996) "Bagging predictors", *Machine Learning* 24, 123–140. T. Hastie,
    R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., §8.7
    and ch. 15.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(150, 3))
    >>> y = (X[:, 0] * X[:, 1] > 0).astype(int)
    >>> bag = BaggingClassifier(n_estimators=20, oob_score=True, random_state=0).fit(X, y)
    >>> bag.inbag_counts_.sum(axis=1).tolist() == [150] * 20
    True
    >>> bool(bag.oob_score_ > 0.7), bag.predict_proba(X[:2]).shape
    (True, (2, 2))
    """

    def __init__(
        self, *, estimator=None, n_estimators=10, max_samples=1.0, bootstrap=True,
        oob_score=False, n_jobs=None, random_state=None,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _max_samples_param(self):
        return self.max_samples

    def _member(self, tree_seed: int):
        member = DecisionTreeClassifier() if self.estimator is None else clone(self.estimator)
        if "random_state" in member.get_params(deep=False):
            member.set_params(random_state=tree_seed)
        return member

    def predict_proba(self, X) -> np.ndarray:
        """Mean of the members' class probabilities, shape (n_samples, n_classes)."""
        return self._average(X)
