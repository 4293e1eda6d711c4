"""Shared by the boosting tests: a tree grown round by round (``RoundGrower``) against
the same estimator's own ``fit``."""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine._validation import FeatureEncoder
from engine.tree._classes import RoundGrower

EXACT = ("children_left", "children_right", "feature", "split_kind", "missing_child",
         "n_node_samples", "depth", "parent")
CLOSE = ("threshold", "value", "impurity", "weighted_n_node_samples")


def assert_same_tree(ours, ref, exact=EXACT, close=CLOSE) -> None:
    """Structure equal, numbers equal up to rounding (rtol 1e-9)."""
    for name in exact:
        np.testing.assert_array_equal(getattr(ours, name), getattr(ref, name), err_msg=name)
    for name in close:
        np.testing.assert_allclose(getattr(ours, name), getattr(ref, name), rtol=1e-9,
                                   atol=1e-12, err_msg=name)


def round_grower(template, X, classes=None) -> RoundGrower:
    """The boosters' grower for ``template`` on ``X``; it must serve it."""
    encoder = FeatureEncoder().fit(X)
    grower = RoundGrower.make(template, encoder.transform(X), encoder, classes)
    assert grower is not None
    return grower


def mixed_frame(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Numeric columns, one with gaps, beside text ones, one with gaps: what the
    binned search does not serve and the exact search does."""
    return pd.DataFrame({
        "gappy": np.where(rng.random(n) < 0.15, np.nan, np.round(rng.normal(size=n), 1)),
        "colour": rng.choice(["red", "green", "blue", "grey"], n),
        "size": np.round(rng.exponential(size=n), 2),
        "kind": pd.Series(rng.choice(["x", "y", "z"], n)).where(rng.random(n) > 0.1),
    })


def counting_preparations(monkeypatch) -> list:
    """A list that gains an entry each time a tree or a grower prepares its rows."""
    from engine.tree import _classes

    calls, prepare = [], _classes.prepare_features

    def counted(*args, **kwargs):
        calls.append(1)
        return prepare(*args, **kwargs)

    monkeypatch.setattr(_classes, "prepare_features", counted)
    return calls
