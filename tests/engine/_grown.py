"""Shared by the boosting tests: a tree grown by ``engine.ensemble._boost_tree.grow``
against the tree engine's own tree."""
from __future__ import annotations

import numpy as np

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
