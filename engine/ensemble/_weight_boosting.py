"""AdaBoost with decision stumps (Freund & Schapire 1997): :class:`AdaBoostClassifier`."""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import numpy as np

from .._validation import (
    FeatureEncoder,
    check_consistent_length,
    check_sample_weight,
    encode_labels,
)
from ..base import BaseEstimator, ClassifierMixin, clone
from ..tree import DecisionTreeClassifier, plurality
from ..tree._classes import RoundGrower


class AdaBoostClassifier(ClassifierMixin, BaseEstimator):
    """AdaBoost (Freund & Schapire 1997) for two classes; SAMME for more, with the ½ convention.

    Parameters
    ----------
    estimator : classifier or None, default=None
        The weak learner, cloned every round; None: a decision stump,
        ``DecisionTreeClassifier(max_depth=1)``. It must accept ``sample_weight``.
    n_estimators : int, default=50
        Maximum number of rounds T (fewer after an early stop, see Notes).
    learning_rate : float, default=1.0
        Multiplies every model weight :math:`\\hat w_t`.
    random_state : int or None, default=None
        Passed to the weak learners that take one.

    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
    estimators_ : list of fitted classifiers, length n_rounds
    estimator_weights_ : ndarray, shape (n_rounds,)
        :math:`\\hat w_t`, times ``learning_rate``.
    estimator_errors_ : ndarray, shape (n_rounds,)
        Weighted error :math:`\\varepsilon_t` of each round.
    sample_weights_ : ndarray, shape (n_rounds, n_samples)
        The normalised point weights :math:`\\alpha_i` round t's learner was trained with
        (row 0: :attr:`initial_sample_weight_`). Replayed on each access from the start,
        the misses and the model weights (:meth:`staged_sample_weights`), the same to the
        bit as the fit's: the model keeps no rounds × rows floats.
    initial_sample_weight_ : ndarray, shape (n_samples,)
        The uniform start, or the normalised ``sample_weight``.
    training_misses_ : ndarray of bool, shape (n_rounds, n_samples)
        Which training rows round t's learner got wrong: :math:`1\\{\\hat f_t(x_i) \\ne y_i\\}`,
        the indicator :math:`\\varepsilon_t` weighs by :math:`\\alpha_i`.
    final_sample_weight_ : ndarray, shape (n_samples,)
        The normalised :math:`\\alpha_i` after the last round's update.
    feature_importances_ : ndarray, shape (n_features,)
        The learners' importances averaged with weights :math:`\\hat w_t`.
    encoder_ : FeatureEncoder

    Notes
    -----
    For every round t: fit :math:`\\hat f_t` with point weights
    :math:`\\alpha_i`; its weighted error
    :math:`\\varepsilon_t = \\sum_i \\alpha_i 1\\{\\hat f_t(x_i) \\ne y_i\\} / \\sum_i \\alpha_i`;
    its weight :math:`\\hat w_t = \\frac12 \\ln\\frac{1 - \\varepsilon_t}{\\varepsilon_t}`;
    :math:`\\alpha_i \\leftarrow \\alpha_i e^{-\\hat w_t}` if :math:`\\hat f_t(x_i) = y_i`,
    :math:`\\alpha_i e^{\\hat w_t}` otherwise; normalise
    :math:`\\alpha_i \\leftarrow \\alpha_i / \\sum_j \\alpha_j`. The prediction is the sign
    of the weighted vote :math:`\\sum_t \\hat w_t \\hat f_t(x)`, :math:`\\hat f_t = \\pm 1`.

    K > 2 classes (SAMME, Zhu et al. 2009):
    :math:`\\hat w_t = \\frac12 \\left(\\ln\\frac{1 - \\varepsilon_t}{\\varepsilon_t} + \\ln(K - 1)\\right)`
    and the vote gives class k the score :math:`\\sum_t \\hat w_t 1\\{\\hat f_t(x) = k\\}`.
    Every weight is exactly half of scikit-learn's SAMME weight; the argmax / sign of the
    vote, the normalised decision function and the normalised point weights are
    unchanged (:math:`e^{\\hat w}/e^{-\\hat w} = e^{2\\hat w}`, scikit-learn's factor on
    misclassified points).

    Early stops (as scikit-learn): a perfect round (:math:`\\varepsilon_t = 0`) is kept
    with weight ½ (scikit-learn's 1, halved) and error 0, and boosting stops; a round
    with :math:`\\varepsilon_t \\ge 1 - 1/K` (no better than chance) is discarded and
    boosting stops (an error if it is the first).

    Speed: with the default stump (or a gini ``DecisionTreeClassifier`` limited only by
    depth and leaf sizes) on numeric data without missing values, ``X`` is binned once
    and each round's tree is grown by ``engine.tree``'s ``RoundGrower``; it is the tree
    ``DecisionTreeClassifier`` grows (tested). Staged outputs are running sums.

    References
    ----------
    Y. Freund, R. E. Schapire (1997) "A decision-theoretic generalization of on-line
    learning and an application to boosting", *J. Computer and System Sciences* 55.
    J. Zhu, H. Zou, S. Rosset, T. Hastie (2009) "Multi-class AdaBoost", *Statistics and
    Its Interface* 2. T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical
    Learning*, ch. 10.

    Examples
    --------
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]])
    >>> y = np.array([1, 1, -1, -1, 1, 1])
    >>> ada = AdaBoostClassifier(n_estimators=3).fit(X, y)
    >>> np.round(ada.estimator_errors_, 4).tolist()
    [0.3333, 0.25, 0.1667]
    >>> np.round(ada.estimator_weights_, 4).tolist()
    [0.3466, 0.5493, 0.8047]
    >>> ada.predict(X).tolist()
    [1, 1, -1, -1, 1, 1]
    """

    def __init__(self, *, estimator=None, n_estimators=50, learning_rate=1.0, random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None, *, progress=None):
        """Boost on ``X`` (n_samples, n_features) and ``y`` (n_samples,).

        ``progress(done, total)``, if given, is called before every round with the
        number of rounds done so far.
        """
        if int(self.n_estimators) < 1 or self.learning_rate <= 0:
            raise ValueError("n_estimators must be >= 1 and learning_rate > 0.")
        self.encoder_ = FeatureEncoder().fit(X)
        X_enc = self.encoder_.transform(X)
        check_consistent_length(X_enc, y)
        self.classes_, codes = encode_labels(y)
        self.n_classes_ = len(self.classes_)
        self.n_features_in_ = X_enc.shape[1]
        self.feature_names_in_ = self.encoder_.feature_names_in_
        alpha = check_sample_weight(sample_weight, X_enc.shape[0])
        fit_round = self._round_fitter(X, X_enc, codes)
        self._boost(fit_round, X_enc, codes, alpha / alpha.sum(), progress)
        return self

    def _boost(self, fit_round, X_enc, codes, alpha, progress=None) -> None:
        K, T = self.n_classes_, int(self.n_estimators)
        self.initial_sample_weight_ = alpha
        estimators, weights, errors, missed = [], [], [], []
        for t in range(T):
            if progress is not None:
                progress(t, T)
            learner, pred = fit_round(alpha)
            miss = pred != codes
            error = float(np.sum(alpha[miss]) / np.sum(alpha))
            if error <= 0:  # perfect: keep it and stop
                estimators.append(learner)
                weights.append(0.5)
                errors.append(0.0)
                missed.append(miss)
                break
            if error >= 1.0 - 1.0 / K:  # no better than chance: discard and stop
                if not estimators:
                    raise ValueError("The first weak learner is no better than chance; "
                                     "AdaBoost cannot be fitted.")
                break
            w_hat = self.learning_rate * 0.5 * (np.log((1 - error) / error) + np.log(K - 1))
            estimators.append(learner)
            weights.append(w_hat)
            errors.append(error)
            missed.append(miss)
            alpha = _reweighted(alpha, miss, w_hat)
        self.estimators_ = estimators
        self.estimator_weights_ = np.array(weights)
        self.estimator_errors_ = np.array(errors)
        self.training_misses_ = np.array(missed, dtype=bool).reshape(len(missed), len(codes))
        self.final_sample_weight_ = alpha

    def staged_sample_weights(self) -> Iterator[np.ndarray]:
        """The point weights :math:`\\alpha_i` each round's learner was trained with,
        round by round: the fit's update replayed from :attr:`initial_sample_weight_`
        with :attr:`training_misses_` and :attr:`estimator_weights_` (a model loaded
        from a file has neither record, see ``docs/model-format.md``)."""
        self._check_is_fitted()
        alpha, rounds = self.initial_sample_weight_, len(self.estimators_)
        for t in range(rounds):
            yield alpha
            if t + 1 < rounds:  # (the last round's update is final_sample_weight_)
                alpha = _reweighted(alpha, self.training_misses_[t], self.estimator_weights_[t])

    @property
    def sample_weights_(self) -> np.ndarray:
        if "training_misses_" not in vars(self):  # not fitted here: no record of the rows
            raise AttributeError("sample_weights_ is replayed from training_misses_, "
                                 "which a loaded model does not have.")
        return np.array(list(self.staged_sample_weights()))

    def _round_fitter(self, X, X_enc, codes):
        """A function α -> (fitted learner, its predicted class codes on the training rows)."""
        template = self.estimator if self.estimator is not None else DecisionTreeClassifier(max_depth=1)
        grower = RoundGrower.make(template, X_enc, self.encoder_, self.classes_)
        if grower is not None:
            def fit_round(alpha):
                learner, leaves = grower.grow(codes, alpha)
                if (leaves < 0).any():  # rows of zero weight: walk them down
                    leaves = learner.tree_.apply(X_enc)
                return learner, plurality(np.take(learner.tree_.value, leaves, axis=0))
            return fit_round

        def fit_slow(alpha):
            learner = clone(template)
            if "random_state" in learner.get_params(deep=False) and self.random_state is not None:
                learner.set_params(random_state=self.random_state)
            learner.fit(X, self.classes_[codes], sample_weight=alpha)
            return learner, np.searchsorted(self.classes_, learner.predict(X))
        return fit_slow

    def _learner_codes(self, X) -> Iterator[np.ndarray]:
        """Class codes predicted by each learner, round by round."""
        self._check_is_fitted()
        X_enc = None
        for learner in self.estimators_:
            encoder = getattr(learner, "encoder_", None)
            if (encoder is not None and self.encoder_.encodes_as(encoder)
                    and np.array_equal(learner.classes_, self.classes_)):
                if X_enc is None:
                    X_enc = self.encoder_.transform(X)
                yield plurality(learner.tree_.value[learner.tree_.apply(X_enc)])
            else:
                yield np.searchsorted(self.classes_, learner.predict(X))

    def learner_predictions(self, X) -> Iterator[np.ndarray]:
        """The class each round's learner alone predicts for the rows of X, round by
        round (X is encoded once for all of them)."""
        for codes in self._learner_codes(X):
            yield self.classes_[codes]

    def staged_decision_function(self, X) -> Iterator[np.ndarray]:
        """The normalised weighted vote after each round.

        K classes (SAMME's symmetric code, as scikit-learn): class k scores
        :math:`\\sum_t \\hat w_t c_{tk} / \\sum_t \\hat w_t` with :math:`c_{tk} = 1` if
        :math:`\\hat f_t(x) = k` and :math:`-1/(K-1)` otherwise, shape (n_samples, K). Two
        classes: the second score minus the first,
        :math:`2 \\sum_t \\hat w_t \\hat f_t(x) / \\sum_t \\hat w_t` with :math:`\\hat f_t = +1`
        for ``classes_[1]`` (the weighted vote, rescaled), shape (n_samples,).
        Being normalised, it equals scikit-learn's although every weight is half of its.
        Running sums: round t costs one learner's prediction.
        """
        self._check_is_fitted()
        votes, total = None, 0.0
        for w_hat, codes in zip(self.estimator_weights_, self._learner_codes(X), strict=False):
            if votes is None:
                votes = np.zeros((len(codes), self.n_classes_))
            # SAMME's symmetric code: +ŵ for the predicted class, -ŵ/(K-1) for the others
            others = w_hat / max(self.n_classes_ - 1, 1)  # one class: nothing to vote against
            votes -= others
            votes[np.arange(len(codes)), codes] += w_hat + others
            total += w_hat
            score = votes / total
            yield score[:, 1] - score[:, 0] if self.n_classes_ == 2 else score

    def decision_function(self, X) -> np.ndarray:
        """The normalised weighted vote of all rounds (see ``staged_decision_function``)."""
        return _last(self.staged_decision_function(X))

    def _proba(self, score: np.ndarray) -> np.ndarray:
        # SAMME's probabilities (as scikit-learn): softmax of the vote / (K - 1)
        if self.n_classes_ == 1:
            return np.ones((len(score), 1))
        if self.n_classes_ == 2:
            score = np.column_stack([-score, score]) / 2.0
        else:
            score = score / (self.n_classes_ - 1)
        e = np.exp(score - score.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def staged_predict_proba(self, X) -> Iterator[np.ndarray]:
        for score in self.staged_decision_function(X):
            yield self._proba(score)

    def predict_proba(self, X) -> np.ndarray:
        """SAMME class probabilities (n_samples, n_classes) from the normalised vote."""
        return self._proba(self.decision_function(X))

    def staged_predict(self, X) -> Iterator[np.ndarray]:
        """Sign (two classes) or argmax of the vote after each round."""
        for best in self._staged_codes(X):
            yield self.classes_[best]

    def _staged_codes(self, X) -> Iterator[np.ndarray]:
        """:meth:`staged_predict` as places in ``classes_``: a staged error counts
        these, not labels."""
        for score in self.staged_decision_function(X):
            yield (score > 0).astype(np.intp) if score.ndim == 1 else np.argmax(score, axis=1)

    def predict(self, X) -> np.ndarray:
        """The sign of the weighted vote (argmax for K classes); a tie goes to
        ``classes_[0]``."""
        return _last(self.staged_predict(X))

    def staged_score(self, X, y, sample_weight=None) -> Iterator[float]:
        """Accuracy after each round."""
        from ..metrics import accuracy_score

        for pred in self.staged_predict(X):
            yield accuracy_score(y, pred, sample_weight=sample_weight)

    @property
    def feature_importances_(self) -> np.ndarray:
        self._check_is_fitted()
        total = sum(w * est.feature_importances_
                    for w, est in zip(self.estimator_weights_, self.estimators_, strict=True))
        return total / self.estimator_weights_.sum()


def _reweighted(alpha: np.ndarray, miss: np.ndarray, w_hat: float) -> np.ndarray:
    """One round's update of the point weights: :math:`\\alpha_i e^{\\hat w_t}` where the
    learner missed, :math:`\\alpha_i e^{-\\hat w_t}` elsewhere, normalised to sum 1. The
    fit and :meth:`AdaBoostClassifier.staged_sample_weights` both use it, so the replayed
    weights are the fit's to the bit."""
    alpha = alpha * np.where(miss, np.exp(w_hat), np.exp(-w_hat))
    return alpha / alpha.sum()


def _last(stages: Iterator, default=None):
    """The last item of a staged generator (the final model's output)."""
    tail = deque(stages, maxlen=1)
    return tail[0] if tail else default
