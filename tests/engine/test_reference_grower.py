"""The fast builder grows the textbook tree: ``engine.tree._reference`` against the estimator.

The reference grows one node at a time from the candidate table, the way the textbooks
write it; the estimator grows level by level with sorted runs, histograms and bit sets.
On random small tables — every criterion, binary and multiway categorical splits,
missing values, weights and stopping rules — both must give the same tree: the same
split at every node, the same rows and weights in every child. scikit-learn cannot check
multiway splits, gain ratio or the misclassification error; this can.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from engine.tree import DecisionTreeClassifier  # noqa: E402
from engine.tree._reference import Node, Rules, grow_tree  # noqa: E402
from engine.tree._tree import CATEGORICAL_BINARY, CATEGORICAL_MULTIWAY, NUMERIC  # noqa: E402

from .test_tree_properties import frames  # noqa: E402

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
KIND = {"threshold": NUMERIC, "subset": CATEGORICAL_BINARY, "multiway": CATEGORICAL_MULTIWAY}

PARAMS = st.fixed_dictionaries({
    "criterion": st.sampled_from(["gini", "entropy", "misclassification", "gain_ratio"]),
    "categorical_split": st.sampled_from(["binary", "multiway"]),
    "max_depth": st.sampled_from([None, 1, 2, 4]),
    "min_samples_split": st.sampled_from([2, 5]),
    "min_samples_leaf": st.sampled_from([1, 2, 3]),
    "min_impurity_decrease": st.sampled_from([0.0, 0.01, 0.05]),
})
WEIGHTS = st.sampled_from([None, "whole", "fractional"])

pytestmark = pytest.mark.usefixtures("raise_on_float_errors")


def _weights(kind, n: int, seed: int):
    rng = np.random.default_rng(seed)
    if kind == "whole":
        return rng.integers(0, 4, n).astype(float)
    if kind == "fractional":
        return rng.uniform(0.1, 3.0, n)
    return None


def reference_tree(model, X, y, sample_weight, params) -> Node:
    """The reference tree of the rows a fitted ``model`` saw, with its parameters."""
    codes = np.searchsorted(model.classes_, np.asarray(y))
    weight = np.ones(len(codes)) if sample_weight is None else np.asarray(sample_weight, float)
    rules = Rules(
        n_classes=len(model.classes_), categories=list(model.categories_),
        criterion=params["criterion"], multiway=params["categorical_split"] == "multiway",
        max_depth=np.inf if params["max_depth"] is None else params["max_depth"],
        min_samples_split=params["min_samples_split"],
        min_samples_leaf=params["min_samples_leaf"],
        min_impurity_decrease=params["min_impurity_decrease"],
    )
    return grow_tree(model.encoder_.transform(X), codes, weight, rules)


def differences(ref: Node, tree, node: int = 0, path: str = "root") -> list[str]:
    """Where the fitted ``tree`` departs from the reference, as readable paths."""
    found = []
    if tree.n_node_samples[node] != ref.n_samples:
        found.append(f"{path}: {tree.n_node_samples[node]} rows, reference {ref.n_samples}")
    if not np.allclose(tree.value[node], ref.counts, rtol=1e-9, atol=1e-9):
        found.append(f"{path}: value {tree.value[node]}, reference {ref.counts}")
    if not np.isclose(tree.impurity[node], ref.impurity, rtol=1e-9, atol=1e-12):
        found.append(f"{path}: impurity {tree.impurity[node]}, reference {ref.impurity}")
    if ref.split is None or tree.children_left[node] < 0:
        if (ref.split is None) != (tree.children_left[node] < 0):
            found.append(f"{path}: leaf in {'the reference' if ref.split is None else 'ours'}, "
                         f"split {ref.split} in the other")
        return found
    split = ref.split
    ours = (int(tree.feature[node]), int(tree.split_kind[node]))
    if ours != (split.feature, KIND[split.kind]):
        return found + [f"{path}: ours (feature, kind) {ours}, reference {split}"]
    if split.kind == "threshold" and not np.isclose(tree.threshold[node], split.threshold,
                                                    rtol=1e-12, atol=0):
        return found + [f"{path}: threshold {tree.threshold[node]}, reference {split.threshold}"]
    kids = list(tree.children(node))
    if split.missing >= 0 and tree.missing_child[node] != kids[split.missing]:
        found.append(f"{path}: missing to child {tree.missing_child[node] - kids[0]}, "
                     f"reference {split.missing}")
    for k, kid in enumerate(kids):
        found += differences(ref.children[k], tree, kid, f"{path}/{k}")
    return found


@SETTINGS
@given(data=frames(max_rows=30), params=PARAMS, weights=WEIGHTS, seed=st.integers(0, 2**16))
def test_the_fast_builder_grows_the_reference_tree(data, params, weights, seed):
    X, y = data
    sample_weight = _weights(weights, len(y), seed)
    if sample_weight is not None and not (sample_weight > 0).any():
        return
    model = DecisionTreeClassifier(**params).fit(X, y, sample_weight=sample_weight)
    ref = reference_tree(model, X, y, sample_weight, params)
    found = differences(ref, model.tree_)
    assert not found, "\n".join(found)


def test_the_reference_grows_playtennis_by_outlook_and_wind():
    """Textbook anchor: on Mitchell's (1997) PlayTennis columns Outlook and Wind, ID3's root
    is Outlook with a gain of 0.2467 bits, in the reference and in the estimator."""
    X = pd.DataFrame({"outlook": ["sunny", "sunny", "overcast", "rain", "rain", "rain", "overcast",
                                  "sunny", "sunny", "rain", "sunny", "overcast", "overcast", "rain"],
                      "wind": ["weak", "strong", "weak", "weak", "weak", "strong", "strong",
                               "weak", "weak", "weak", "strong", "strong", "weak", "strong"]})
    y = ["no", "no", "yes", "yes", "yes", "no", "yes", "no", "yes", "yes", "yes", "yes", "yes", "no"]
    params = {"criterion": "entropy", "categorical_split": "multiway", "max_depth": None,
              "min_samples_split": 2, "min_samples_leaf": 1, "min_impurity_decrease": 0.0}
    model = DecisionTreeClassifier(**params).fit(X, y)
    ref = reference_tree(model, X, y, None, params)
    assert ref.split.feature == 0 and ref.split.kind == "multiway"
    assert ref.split.gain == pytest.approx(0.2467498, abs=1e-7)  # Mitchell (1997), Gain(S, Outlook)
    assert not differences(ref, model.tree_)
