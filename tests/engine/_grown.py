"""Shared by the boosting tests: a tree grown round by round (``RoundGrower``, the
binned search) against the same estimator's own ``fit`` (the exact search)."""
from __future__ import annotations

import numpy as np

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
