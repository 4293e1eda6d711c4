"""Naive Bayes classifiers: Bayes' rule plus the naive assumption, in log space.

``P(c_q | x) = P(c_q) ∏_j P(x_j | c_q) / Σ_r P(c_r) ∏_j P(x_j | c_r)``: each variant
differs only in the per-feature likelihood ``P(x_j | c_q)``.

* :class:`GaussianNB` — numeric features, a normal density per class.
* :class:`CategoricalNB` — categorical features, smoothed count fractions θ_ijk.
* :class:`MultinomialNB` — counts (bag of words).
* :class:`BernoulliNB` — presence/absence.
* :class:`MixedNB` — a DataFrame whose columns are categorical, numeric (Gaussian or
  binned) or free text, each with its own likelihood.

Every fitted model exposes ``log_likelihood_contributions(X)``: the per-feature terms
``log P(x_j | c_q)`` and the log prior, from which the posterior is built.
"""
from ._base import logsumexp
from ._categorical import CategoricalNB
from ._discrete import BernoulliNB, MultinomialNB
from ._gaussian import GaussianNB
from ._mixed import MixedNB

__all__ = ["BernoulliNB", "CategoricalNB", "GaussianNB", "MixedNB", "MultinomialNB", "logsumexp"]
