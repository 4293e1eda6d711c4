"""The estimator contract every Glassbox model follows.

It is scikit-learn's: ``__init__`` only stores keyword parameters, ``fit`` does all
the work and returns ``self``, learned state ends in ``_``, and ``get_params`` /
``set_params`` / :func:`clone` work from the ``__init__`` signature alone.
"""
from __future__ import annotations

import copy
import functools
import inspect
from typing import Any

import numpy as np


class NotFittedError(ValueError, AttributeError):
    """Raised when a model is used before ``fit``.

    Both a ``ValueError`` and an ``AttributeError``, as scikit-learn's is: ``hasattr`` on
    a learned quantity of an unfitted model is then False rather than an error.
    """


class BaseEstimator:
    """Parameter handling shared by every estimator.

    Examples
    --------
    >>> class Stump(BaseEstimator):
    ...     def __init__(self, *, depth=1):
    ...         self.depth = depth
    >>> Stump(depth=2).get_params()
    {'depth': 2}
    >>> clone(Stump(depth=3)).depth
    3
    """

    #: What ``fit`` and ``predict`` accept as X, as scikit-learn's ``InputTags`` fields: a
    #: DataFrame of numbers, categories and strings, with NaN as a missing value.
    _input_tags: dict[str, bool] = {"allow_nan": True, "categorical": True, "string": True}

    @classmethod
    def _param_names(cls) -> list[str]:
        return list(_init_parameters(cls))

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if isinstance(value, BaseEstimator):
                    for sub, sub_value in value.get_params().items():
                        params[f"{name}__{sub}"] = sub_value
        return params

    def set_params(self, **params: Any) -> BaseEstimator:
        valid = self._param_names()
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"{type(self).__name__} has no parameter {name!r}; "
                    f"valid parameters are {valid}."
                )
            if sub:
                getattr(self, name).set_params(**{sub: value})
            else:
                setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            name: p.default
            for name, p in inspect.signature(type(self).__init__).parameters.items()
        }
        changed = [
            f"{name}={value!r}"
            for name, value in self.get_params(deep=False).items()
            if not _same(value, defaults.get(name, inspect.Parameter.empty))
        ]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        """scikit-learn's description of this estimator (``sklearn.utils.Tags``).

        Only scikit-learn calls this, so scikit-learn is imported here and nowhere else:
        the engine itself runs without it.
        """
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    input_tags=InputTags(**self._input_tags))

    def _check_is_fitted(self) -> None:
        fitted = [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]
        if not fitted:
            raise NotFittedError(
                f"This {type(self).__name__} is not fitted yet: call fit(X, y) first."
            )


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a is b or a == b)
    except (TypeError, ValueError):
        return False


@functools.cache
def _init_parameters(cls: type) -> tuple[str, ...]:
    """The keyword parameters of ``cls.__init__``, sorted (read once per class: boosting
    clones its learner every round)."""
    signature = inspect.signature(cls.__init__)
    return tuple(sorted(
        name
        for name, p in signature.parameters.items()
        if name != "self" and p.kind is not p.VAR_KEYWORD
    ))


def clone(estimator: BaseEstimator) -> BaseEstimator:
    """A new, unfitted estimator with the same parameters (sub-estimators cloned too)."""
    params = {
        name: clone(value) if isinstance(value, BaseEstimator) else copy.deepcopy(value)
        for name, value in estimator.get_params(deep=False).items()
    }
    return type(estimator)(**params)


class ClassifierMixin:
    """``predict`` from ``predict_proba`` through ``classes_``; ``score`` is accuracy."""

    _estimator_type = "classifier"

    def predict(self, X) -> np.ndarray:
        best = self.class_index(self.predict_proba(X))  # checks that the model is fitted first
        return self.classes_[best]

    def class_index(self, proba: np.ndarray) -> np.ndarray:
        """The place in ``classes_`` of the class ``predict`` gives for the class
        probabilities ``proba`` (along the last axis): the most probable, a tie to the
        first. Anything drawn as this model's prediction (a grid, a stage) uses it."""
        if proba.shape[-1] == 2:  # one comparison: an argmax along an axis of two is slow
            return (proba[..., 1] > proba[..., 0]).astype(np.intp)
        return np.argmax(proba, axis=-1)

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        tags.target_tags.required = True
        return tags

    def score(self, X, y, sample_weight=None) -> float:
        from .metrics import accuracy_score

        return accuracy_score(y, self.predict(X), sample_weight=sample_weight)


class RegressorMixin:
    """``score`` is the coefficient of determination R²."""

    _estimator_type = "regressor"

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags()
        tags.target_tags.required = True
        return tags

    def score(self, X, y, sample_weight=None) -> float:
        from .metrics import r2_score

        return r2_score(y, self.predict(X), sample_weight=sample_weight)


def check_random_state(random_state: int | np.random.Generator | None) -> np.random.Generator:
    """A NumPy ``Generator`` from a seed; never the global random state.

    ``None`` draws fresh entropy, an int makes every result reproducible, and a
    ``Generator`` is passed through (so ensembles can hand one to their trees).
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(random_state)
    raise ValueError(f"random_state must be an int or None, got {random_state!r}.")
