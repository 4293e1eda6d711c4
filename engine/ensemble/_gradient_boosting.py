"""Gradient boosting with regression trees (Friedman 2001): :class:`GradientBoostingClassifier`
and :class:`GradientBoostingRegressor`."""
from __future__ import annotations

import copy
from collections import deque
from collections.abc import Iterator
from itertools import chain, islice

import numpy as np
import pandas as pd

from .._validation import (
    FeatureEncoder,
    check_consistent_length,
    check_regression_target,
    check_sample_weight,
    encode_labels,
)
from ..base import BaseEstimator, ClassifierMixin, RegressorMixin, check_random_state
from ..tree import DecisionTreeRegressor
from ..tree._classes import RoundGrower
from ..tree._quantile import DEFAULT_MAX_BINS, resolve_bins
from ._base import forest_apply, stack_trees
from ._losses import REGRESSION_LOSSES, BinomialLogLoss, MultinomialLogLoss, SquaredError

#: Rounds whose trees :meth:`_BaseGradientBoosting._raw_stages` walks at once: few enough
#: that their leaves and leaf values (16 bytes per tree and row) stay about 20 MB at
#: 150,000 rows.
STAGE_BLOCK = 8


#: Boosting grows each round's tree on the table's distinct rows, each weighing what its
#: copies weigh (:func:`alike_rows`), when the table has at least this many rows and at
#: most :data:`ALIKE_SHARE` of them are distinct in every feature (as the split search
#: sees it: binned where binned) and in the target. A class model of one binned feature
#: (the Gradient Boosting page's first picture) then grows its trees on at most 255 rows
#: a class, not on every row.
ALIKE_MIN_ROWS = 10_000
ALIKE_SHARE = 0.25
#: ... and at most this many features, whose values' codes pack into one integer.
ALIKE_MAX_FEATURES = 8


def alike_rows(values: np.ndarray, target: np.ndarray):
    """The groups of rows alike in every value (``values`` (n_features, n); missing
    values alike) and in ``target``, numbered in the order of their first rows:
    (each group's first row, each row's group, each group's size). None when more than
    :data:`ALIKE_SHARE` of the rows are distinct, or their codes do not pack into 62 bits.

    >>> alike_rows(np.array([[2.0, 2.0, 1.0, 1.0, 2.0, 2.0, 2.0, 1.0]]),
    ...            np.array([0, 0, 1, 1, 0, 0, 0, 1]))
    (array([0, 2]), array([0, 0, 1, 1, 0, 0, 0, 1]), array([5, 3]))
    """
    key, bits = np.zeros(values.shape[1], dtype=np.int64), 0
    for column in (*values, target):
        code = np.unique(column, return_inverse=True)[1]  # (NaN: one value)
        width = int(code.max(initial=0)).bit_length()
        bits += width
        if bits > 62:
            return None
        key <<= width
        key |= code
    _, first, group, size = np.unique(key, return_index=True, return_inverse=True,
                                      return_counts=True)
    if len(first) > ALIKE_SHARE * len(key):
        return None
    by_first = np.argsort(first)
    renumber = np.empty_like(by_first)
    renumber[by_first] = np.arange(len(by_first))
    return first[by_first], renumber[group], size[by_first]


def count_copies(tree, leaves: np.ndarray, copies: np.ndarray) -> None:
    """Set ``tree.n_node_samples`` to the rows in each node of a tree grown on distinct
    rows, the row grown in leaf ``leaves[i]`` standing for ``copies[i]`` rows."""
    tree.n_node_samples[:] = tree.add_up(np.bincount(leaves, weights=copies,
                                                     minlength=tree.node_count))


def raw_importances(tree) -> np.ndarray:
    """Unnormalised weighted impurity decrease per feature of one fitted tree."""
    t = tree.tree_
    weighted = t.weighted_n_node_samples * t.impurity
    internal = np.flatnonzero(t.children_left >= 0)
    children = np.bincount(t.parent[1:], weights=weighted[1:], minlength=t.node_count)
    decrease = weighted[internal] - children[internal]
    return np.bincount(t.feature[internal], weights=decrease,
                       minlength=tree.n_features_in_) / t.weighted_n_node_samples[0]


def importance_shares(sums: np.ndarray) -> np.ndarray:
    """Importance sums (``raw_importances`` added over trees) normalised to sum 1; all
    zero (no split anywhere): unchanged."""
    return sums / sums.sum() if sums.sum() > 0 else sums


class _BaseGradientBoosting(BaseEstimator):
    """Fitting and staged prediction shared by the classifier and the regressor."""

    def fit(self, X, y, sample_weight=None, *, progress=None):
        """Fit ``n_estimators`` rounds on ``X`` (n_samples, n_features), ``y`` (n_samples,).

        ``progress(done, total)``, if given, is called after every round.
        """
        self._validate_params()
        self.encoder_ = FeatureEncoder().fit(X)
        X_enc = self.encoder_.transform(X)
        check_consistent_length(X_enc, y)
        w = check_sample_weight(sample_weight, X_enc.shape[0])
        target = self._encode_target(y, w)
        self.n_features_in_ = X_enc.shape[1]
        self.feature_names_in_ = self.encoder_.feature_names_in_
        self.loss_ = self._make_loss()
        if getattr(self, "n_classes_", 2) == 1:  # one class: nothing to boost
            self._fit_single_class(len(w))
            return self
        self.init_ = self.loss_.init(target, w)
        S = np.tile(self.init_, (X_enc.shape[0], 1))
        grower = RoundGrower.make(DecisionTreeRegressor(**self._tree_params()), X_enc,
                                  self.encoder_)
        self.bins_ = grower.bins if grower is not None else resolve_bins(
            self.binning, X_enc, self.encoder_.n_categories_, DEFAULT_MAX_BINS)
        alike = self._alike(grower, target, w)
        if alike is None:
            self._boost(X, X_enc, grower, target, w, S, progress)
        else:  # the distinct rows, each weighing its copies: the same trees, grown on fewer
            first, group, size = alike
            X_first = X_enc[first]
            self._boost(X_first, X_first, grower.on_rows(X_first), target[first],
                        np.bincount(group, weights=w), S[first], progress, copies=size)
        return self

    def _alike(self, grower, target, w):
        """:func:`alike_rows` of the prepared rows where growing the distinct ones, each
        weighing its copies, gives every round the tree that all the rows give: every
        row in every tree (no subsample), statistics that are weighted sums (the squared
        error's and the log losses' steps; not the medians of the others), a leaf of
        one row and a split of a node of two rows allowed; else None."""
        if (grower is None or self.subsample < 1 or len(w) < ALIKE_MIN_ROWS
                or not isinstance(self.loss_, (SquaredError, BinomialLogLoss, MultinomialLogLoss))
                or grower.params.min_samples_split > 2 or grower.params.min_samples_leaf > 1
                or grower.prep.n_features > ALIKE_MAX_FEATURES or not bool((w > 0).all())):
            return None
        return alike_rows(grower.prep.values, target)

    def _fit_single_class(self, n: int) -> None:
        self.init_ = np.zeros(1)
        self.estimators_ = np.empty((0, 1), dtype=object)
        self.train_score_ = np.zeros(0)
        self.huber_deltas_, self.oob_improvement_ = None, None

    def _validate_params(self) -> None:
        if not 0 < self.subsample <= 1:
            raise ValueError(f"subsample must be in (0, 1], got {self.subsample!r}.")
        if self.learning_rate <= 0 or int(self.n_estimators) < 1:
            raise ValueError("learning_rate must be > 0 and n_estimators >= 1.")

    def _boost(self, X, X_enc, grower, target, w, S, progress=None, copies=None) -> None:
        """The rounds; ``copies``, if given: how many rows of the table each row stands
        for (see :meth:`_alike`), which the trees' row counts then say."""
        n, K = S.shape
        rng = check_random_state(self.random_state)
        n_inbag = max(1, int(self.subsample * n))
        self.estimators_ = np.empty((self.n_estimators, K), dtype=object)
        self.train_score_ = np.zeros(self.n_estimators)
        huber = hasattr(self.loss_, "set_delta")
        self.huber_deltas_ = np.zeros(self.n_estimators) if huber else None
        self.oob_improvement_ = np.zeros(self.n_estimators) if self.subsample < 1 else None
        for t in range(self.n_estimators):
            rows = np.sort(rng.permutation(n)[:n_inbag]) if n_inbag < n else np.arange(n)
            inbag = rows if n_inbag < n else slice(None)  # every row: views, not copies
            oob = np.setdiff1d(np.arange(n), rows) if n_inbag < n else rows[:0]
            before = self.loss_(target[oob], S[oob], w[oob]) if len(oob) else 0.0
            if huber:  # Huber's δ from all rows, as scikit-learn
                self.loss_.set_delta(target, S, w)
                self.huber_deltas_[t] = self.loss_.delta
            r = self.loss_.negative_gradient(target, S)
            for k in range(K):
                tree, leaves = self._fit_tree(X, grower, rows, r[:, k], w)
                if leaves is None or (leaves < 0).any():  # out-of-bag rows: walk them down
                    leaves = self._leaves(tree, X, X_enc)
                self._line_search(tree, leaves, inbag, target, S, r[:, k], w, k)
                S[:, k] += self.learning_rate * tree.tree_.value[leaves, 0]
                if copies is not None:
                    count_copies(tree.tree_, leaves, copies)
                self.estimators_[t, k] = tree
            self.train_score_[t] = self.loss_(target[inbag], S[inbag], w[inbag])
            if len(oob):
                self.oob_improvement_[t] = before - self.loss_(target[oob], S[oob], w[oob])
            if progress is not None:
                progress(t + 1, self.n_estimators)

    def _tree_params(self) -> dict:
        return dict(max_depth=self.max_depth, min_samples_split=self.min_samples_split,
                    min_samples_leaf=self.min_samples_leaf, max_leaf_nodes=self.max_leaf_nodes,
                    binning=self.binning)

    def _fit_tree(self, X, grower, rows, r, w):
        """A squared-error regression tree fitted to the pseudo-residuals of the in-bag
        rows, and the leaf of every row if the growth tells it (else None)."""
        if grower is None:
            mask = np.zeros(len(w))
            mask[rows] = 1.0  # zero weight: out of the bag, out of the tree
            tree = DecisionTreeRegressor(**self._tree_params())
            return tree.fit(X, r, sample_weight=w * mask), None
        return grower.grow(r, w, rows)

    def _leaves(self, tree, X, X_enc) -> np.ndarray:
        if self.encoder_.encodes_as(tree.encoder_):
            return tree.tree_.apply(X_enc)
        return tree.apply(X)

    def _line_search(self, tree, leaves, inbag, target, S, r, w, k) -> None:
        """Replace each leaf's mean residual by the loss's optimal step (squared error: same);
        ``inbag`` picks the round's rows."""
        if isinstance(self.loss_, SquaredError):
            return
        found, steps = self.loss_.leaf_values(leaves[inbag], target[inbag], S[inbag], r[inbag],
                                              w[inbag], k)
        tree.tree_.value[found, 0] = steps

    def _raw_stages(self, X) -> Iterator[np.ndarray]:
        """The score :math:`S_t` (n_samples, K) after each round t = 1..n_rounds.

        The trees of :data:`STAGE_BLOCK` rounds are walked at once, as a forest's are
        (:func:`._base.forest_apply`); each round then adds its trees' leaf values in
        the fit's order, so every stage is the same to the bit as round by round."""
        self._check_is_fitted()
        X_enc = self.encoder_.transform(X)
        S = np.tile(self.init_, (X_enc.shape[0], 1))
        for lo in range(0, len(self.estimators_), STAGE_BLOCK):
            block = self.estimators_[lo:lo + STAGE_BLOCK]
            values = self._leaf_values(block.ravel(), X, X_enc).reshape(*block.shape, -1)
            for round_values in values:
                for k, value in enumerate(round_values):
                    S[:, k] += self.learning_rate * value
                yield S.copy()

    def _leaf_values(self, trees, X, X_enc) -> np.ndarray:
        """(len(trees), n_samples): each tree's leaf value at every row; trees that
        share the model's encoding in one walk."""
        if all(self.encoder_.encodes_as(tree.encoder_) for tree in trees):
            stacked = stack_trees([tree.tree_ for tree in trees])
            return stacked.tree.value[forest_apply(stacked, X_enc), 0]
        return np.stack([tree.tree_.value[self._leaves(tree, X, X_enc), 0] for tree in trees])

    def staged_pseudo_residuals(self, X, y) -> Iterator[np.ndarray]:
        """The pseudo-residuals :math:`r_t = -\\partial L(y, S_{t-1}) / \\partial S` that
        round t's trees are fitted to, t = 1..n_rounds, at the rows of ``X`` (target
        ``y``): (n_samples, K) a round. At the training rows they are the fit's own: the
        scores :math:`S_{t-1}` are added up as the fit adds them, and Huber's δ is the
        round's (``huber_deltas_``). Nothing per training row is kept in the model."""
        target = self._target_codes(y)
        start = np.tile(self.init_, (len(target), 1))
        stages = chain([start], self._raw_stages(X))
        for t, S in enumerate(islice(stages, len(self.estimators_))):
            loss = self.loss_
            if self.huber_deltas_ is not None:  # a copy: a fitted model is shared, not changed
                loss = copy.copy(loss)
                loss.delta = self.huber_deltas_[t]
            yield loss.negative_gradient(target, S)

    def _raw(self, X) -> np.ndarray:
        self._check_is_fitted()
        start = np.tile(self.init_, (len(self.encoder_.transform(X)), 1))
        return _last(self._raw_stages(X), start)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity decrease of every tree summed per feature, normalised to sum 1."""
        self._check_is_fitted()
        sums = sum((raw_importances(tree) for tree in self.estimators_.ravel()),
                   np.zeros(self.n_features_in_))
        return importance_shares(sums)


_PARAMS = """
    learning_rate : float, default=0.1
        Shrinkage ν of the update :math:`S_{t+1} = S_t - ν w_t`.
    n_estimators : int, default=100
        Boosting rounds.
    subsample : float, default=1.0
        Share of rows drawn (without replacement, from ``random_state``) for each round;
        below 1 this is stochastic gradient boosting and ``oob_improvement_`` is kept.
    max_depth : int or None, default=3
        Depth of each regression tree.
    min_samples_split, min_samples_leaf : int or float, default=2, 1
        As in :class:`engine.tree.DecisionTreeRegressor`.
    max_leaf_nodes : int or None, default=None
        Best-first growth with at most this many leaves.
    random_state : int or None, default=None
        Seed of the row subsamples.
    binning : {"exact", "quantile"}, default="exact"
        Threshold search of the trees (see ``engine.tree``): quantile bins, cut once on
        the training rows (``bins_``), are shared by every round.
"""

_ATTRIBUTES = """
    init_ : ndarray, shape (K,)
        The constant start :math:`S_0`.
    estimators_ : ndarray of DecisionTreeRegressor, shape (n_estimators, K)
        Round t's tree for score k; leaf values hold the line-searched steps (before ν).
    train_score_ : ndarray, shape (n_estimators,)
        Loss on the round's in-bag rows after the round (scikit-learn's scale).
    oob_improvement_ : ndarray or None, shape (n_estimators,)
        Loss decrease of the round on the out-of-bag rows (``subsample < 1`` only).
    feature_importances_ : ndarray, shape (n_features,)
        Impurity decrease summed over all trees, normalised to sum 1.
    encoder_ : FeatureEncoder
"""

_NOTES = """
    The strong model is updated by :math:`S_{t+1} = S_t - ν w_t` where the weak
    model :math:`w_t` is a regression tree fitted to the gradient
    :math:`\\partial L(y, S_t) / \\partial S_t` (its negative, the pseudo-residuals, is fitted
    and added). As in Friedman's TreeBoost and scikit-learn, each leaf's value is then
    replaced by the loss's line search in that leaf (see :mod:`engine.ensemble._losses`).

    The trees use the squared-error criterion; scikit-learn's default is ``friedman_mse``,
    so this model equals scikit-learn's with ``criterion="squared_error"`` (on data without
    tied splits). With numeric features and no missing values the rows are binned once
    per fit and each round's tree is grown by ``engine.tree``'s ``RoundGrower``; they are
    the trees ``DecisionTreeRegressor`` would grow (tested), only faster.
"""

_REFERENCES = """
    J. H. Friedman (2001) "Greedy function approximation: a gradient boosting machine",
    *Annals of Statistics* 29(5). J. H. Friedman (2002) "Stochastic gradient boosting".
    T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, ch. 10.
"""


def _docs(cls):
    for name, text in (("params", _PARAMS), ("attributes", _ATTRIBUTES), ("notes", _NOTES),
                       ("references", _REFERENCES)):
        cls.__doc__ = cls.__doc__.replace(f"%({name})s", text.strip("\n").lstrip() + "\n")
    return cls


class _SingleClass:
    """A target with one class: every probability is 1 (no trees are grown)."""

    @staticmethod
    def proba(S):
        return np.ones((len(S), 1))


@_docs
class GradientBoostingClassifier(ClassifierMixin, _BaseGradientBoosting):
    """Gradient boosting for classification with the log loss (binary or K classes).

    Two classes: one tree per round on the log-odds score. K > 2 classes: K trees per
    round, one per class score, probabilities by softmax.

    Parameters
    ----------
    loss : {"log_loss"}, default="log_loss"
    %(params)s
    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
    %(attributes)s
    Notes
    -----
    %(notes)s
    Log loss: :math:`S_0` the log-odds of the class shares; the pseudo-residual is
    :math:`r = y - p`; a leaf's step is one Newton step :math:`\\sum r / \\sum p(1-p)`
    (two classes) or :math:`\\frac{K-1}{K}\\sum r / \\sum |r|(1-|r|)` (K classes).

    References
    ----------
    %(references)s
    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> y = ["no", "no", "no", "yes", "yes", "yes"]
    >>> gb = GradientBoostingClassifier(n_estimators=20, max_depth=1).fit(X, y)
    >>> gb.predict([[0.5], [4.5]]).tolist()
    ['no', 'yes']
    >>> bool(gb.train_score_[-1] < gb.train_score_[0])
    True
    """

    def __init__(self, *, loss="log_loss", learning_rate=0.1, n_estimators=100, subsample=1.0,
                 max_depth=3, min_samples_split=2, min_samples_leaf=1, max_leaf_nodes=None,
                 random_state=None, binning="exact"):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.random_state = random_state
        self.binning = binning

    def _encode_target(self, y, w) -> np.ndarray:
        if self.loss != "log_loss":
            raise ValueError(f"loss must be 'log_loss', got {self.loss!r}.")
        self.classes_, codes = encode_labels(y)
        self.n_classes_ = len(self.classes_)
        # The initial scores are the logs of the classes' weighted shares: none may be 0.
        weightless = np.bincount(codes, weights=w, minlength=self.n_classes_) == 0
        if weightless.any():
            label = self.classes_.tolist()[np.argmax(weightless)]
            raise ValueError(f"y has a class, {label!r}, whose rows all have sample_weight 0; "
                             "drop those rows or give them weight.")
        return codes

    def _target_codes(self, y) -> np.ndarray:
        """The class codes (positions in ``classes_``) of labels ``y``."""
        self._check_is_fitted()
        codes = pd.Index(self.classes_).get_indexer(np.asarray(y))
        if (codes < 0).any():
            unknown = np.asarray(y)[codes < 0][0]
            raise ValueError(f"y holds {unknown!r}, which is not a class of the model.")
        return codes

    def _make_loss(self):
        if self.n_classes_ == 1:
            return _SingleClass()
        return BinomialLogLoss() if self.n_classes_ == 2 else MultinomialLogLoss(self.n_classes_)

    def decision_function(self, X) -> np.ndarray:
        """Scores :math:`S`: shape (n_samples,) for two classes, (n_samples, K) otherwise."""
        S = self._raw(X)
        return S[:, 0] if S.shape[1] == 1 else S

    def staged_decision_function(self, X) -> Iterator[np.ndarray]:
        """``decision_function`` after each round."""
        for S in self._raw_stages(X):
            yield S[:, 0] if S.shape[1] == 1 else S

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (n_samples, n_classes): logistic / softmax of the scores."""
        S = self._raw(X)  # checks that the model is fitted
        return self.loss_.proba(S)

    def staged_predict_proba(self, X) -> Iterator[np.ndarray]:
        for S in self._raw_stages(X):
            yield self.loss_.proba(S)

    def staged_predict(self, X) -> Iterator[np.ndarray]:
        for best in self._staged_codes(X):
            yield self.classes_[best]

    def _staged_codes(self, X) -> Iterator[np.ndarray]:
        """:meth:`staged_predict` as places in ``classes_``: a staged error counts
        these, not labels."""
        for proba in self.staged_predict_proba(X):
            if proba.shape[1] == 2:  # argmax (a tie to the first) without numpy's per-row loop
                yield (proba[:, 1] > proba[:, 0]).astype(np.intp)
            else:
                yield np.argmax(proba, axis=1)


@_docs
class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    """Gradient boosting for regression: squared, absolute or Huber loss.

    Parameters
    ----------
    loss : {"squared_error", "absolute_error", "huber"}, default="squared_error"
    %(params)s
    alpha : float, default=0.9
        Huber's δ is the ``alpha``-quantile of the absolute residuals, re-set each round.

    Attributes
    ----------
    huber_deltas_ : ndarray or None, shape (n_estimators,)
        Huber's δ of each round (loss "huber"), for :meth:`staged_pseudo_residuals`.
    %(attributes)s
    Notes
    -----
    %(notes)s
    Squared error: :math:`S_0 = \\bar y`, residuals :math:`y - S_t` (the negative gradient of
    :math:`(y - S_t)^2` up to the factor 2), leaves keep the mean residual. Absolute error:
    :math:`S_0` the median, residuals :math:`\\mathrm{sign}(y - S_t)`, leaves the median of
    :math:`y - S_t`. Huber: see :class:`engine.ensemble._losses.HuberLoss`.

    References
    ----------
    %(references)s
    Examples
    --------
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> gb = GradientBoostingRegressor(n_estimators=50, learning_rate=0.5, max_depth=1)
    >>> gb = gb.fit(X, [1.0, 1.0, 5.0, 5.0])
    >>> np.round(gb.predict([[1.5], [3.5]]), 3).tolist()
    [1.0, 5.0]
    >>> next(gb.staged_pseudo_residuals(X, [1.0, 1.0, 5.0, 5.0]))[:, 0].tolist()
    [-2.0, -2.0, 2.0, 2.0]
    """

    def __init__(self, *, loss="squared_error", learning_rate=0.1, n_estimators=100,
                 subsample=1.0, max_depth=3, min_samples_split=2, min_samples_leaf=1,
                 max_leaf_nodes=None, alpha=0.9, random_state=None, binning="exact"):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_leaf_nodes = max_leaf_nodes
        self.alpha = alpha
        self.random_state = random_state
        self.binning = binning

    def _encode_target(self, y, w) -> np.ndarray:
        if self.loss not in REGRESSION_LOSSES:
            raise ValueError(f"loss must be one of {sorted(REGRESSION_LOSSES)}, got {self.loss!r}.")
        return check_regression_target(y)

    def _target_codes(self, y) -> np.ndarray:
        return check_regression_target(y)

    def _make_loss(self):
        if self.loss == "huber":
            return REGRESSION_LOSSES["huber"](self.alpha)
        return REGRESSION_LOSSES[self.loss]()

    def predict(self, X) -> np.ndarray:
        """The score :math:`S_T(x)`, shape (n_samples,)."""
        return self._raw(X)[:, 0]

    def staged_predict(self, X) -> Iterator[np.ndarray]:
        for S in self._raw_stages(X):
            yield S[:, 0]


def _last(stages: Iterator, default=None):
    """The last item of a staged generator (the final model's output)."""
    tail = deque(stages, maxlen=1)
    return tail[0] if tail else default
