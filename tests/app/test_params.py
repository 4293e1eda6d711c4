"""Every page's parameters go through ``ui.params``: one Control per estimator parameter,
a key of the page's own, the values a page fitted with before the specs, and one cache key.

The controls are drawn under AppTest by a small script (the page's ``controls``) on a
bundled sample, with the state in the URL as a link gives it.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from ui import (
    adaboost_controls,
    compare_controls,
    forest_controls,
    gb_controls,
    nb_controls,
    tree_controls,
)
from ui.fitting import FIT_JOBS
from ui.params import Control, cache_key

#: Each page's URL prefix and its controls.
PAGES = {
    "dt": tree_controls.CONTROLS,
    "rf": forest_controls.CONTROLS,
    "ab": adaboost_controls.CONTROLS,
    "gb": gb_controls.CONTROLS,
    "nb": nb_controls.CONTROLS,
    "cmp": compare_controls.CONTROLS,
}
TARGETS = {"iris": "species", "friedman1": "y", "playtennis": "PlayTennis"}


def test_every_key_is_unique_and_starts_with_its_pages_prefix():
    keys = [control.key for controls in PAGES.values() for control in controls]
    assert len(keys) == len(set(keys)), sorted(keys)
    for prefix, controls in PAGES.items():
        assert all(c.key.startswith(f"{prefix}_") for c in controls), (prefix, controls)
        names = [c.name for c in controls]
        assert len(names) == len(set(names)), prefix


@pytest.mark.parametrize("control", [c for cs in PAGES.values() for c in cs], ids=lambda c: c.key)
def test_every_control_says_what_it_does(control: Control):
    assert control.label and control.help and len(control.help) > 20


def _draw(page: str, sample: str, target: str) -> None:
    """The script AppTest runs: the page's controls on ``sample``; the values in the session."""
    import streamlit as st

    from engine.data import Dataset, load_sample
    from ui import (
        adaboost_controls,
        compare_controls,
        forest_controls,
        gb_controls,
        nb_controls,
        tree_controls,
    )

    st.session_state["data"] = sample  # as app.py resolves it: the sample's textbook presets
    dataset = Dataset(load_sample(sample), target, random_state=0)
    modules = {"dt": tree_controls, "rf": forest_controls, "ab": adaboost_controls,
               "gb": gb_controls, "cmp": compare_controls}
    if page == "nb":
        st.session_state["drawn"] = nb_controls.controls(dataset, st, st)
    else:
        st.session_state["drawn"] = modules[page].controls(dataset)


def drawn(page: str, sample: str = "iris", **query):
    """The values ``page``'s controls give on ``sample`` opened with ``query``, and the run."""
    at = AppTest.from_function(_draw, args=(page, sample, TARGETS[sample]), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at.session_state["drawn"], at


TREE = {"criterion": "gini", "max_depth": None, "min_samples_leaf": 1, "min_samples_split": 2,
        "max_leaf_nodes": None, "categorical_split": "binary", "ccp_alpha": 0.0,
        "chi2_alpha": None}


def test_tree_defaults_and_a_link():
    assert drawn("dt")[0] == TREE
    values, _ = drawn("dt", dt_max_depth="3", dt_chi2="0.01", dt_cat_split="multiway")
    assert values == {**TREE, "max_depth": 3, "chi2_alpha": 0.01, "categorical_split": "multiway"}
    assert type(values["max_depth"]) is int


def test_a_numeric_target_has_no_criterion_to_choose_and_chi2_greyed_out():
    values, at = drawn("dt", "friedman1", dt_chi2="0.01", dt_criterion="entropy")
    assert values == {**TREE, "criterion": "squared_error"}
    assert not [w for w in at.selectbox if w.key == "dt_criterion"]
    assert at.selectbox(key="dt_chi2").disabled
    assert any(c.value.startswith("Criterion: squared error") for c in at.caption)


def test_a_textbook_example_opens_with_its_settings():
    values, _ = drawn("dt", "playtennis")
    assert values == {**TREE, "criterion": "entropy", "categorical_split": "multiway"}
    assert drawn("nb", "playtennis")[0].alpha == 0.0


FOREST = {"n_estimators": 100, "max_features": 2, "max_depth": None, "min_samples_leaf": 1,
          "bootstrap": True, "oob_score": True, "random_state": 0, "n_jobs": FIT_JOBS}


def test_forest_defaults_follow_the_data():
    assert drawn("rf")[0] == FOREST  # m = ⌊√4⌋
    values, at = drawn("rf", "friedman1")
    assert values == {**FOREST, "max_features": 3, "min_samples_leaf": 5}  # ⌊10/3⌋, Breiman
    assert at.slider(key="rf_m").label.startswith("m: features per split (√p = 3, p/3 = 3")


def test_forest_link():
    values, _ = drawn("rf", rf_trees="7", rf_m="3", rf_bootstrap="false")
    assert values == {**FOREST, "n_estimators": 7, "max_features": 3, "bootstrap": False,
                      "oob_score": False}


def test_adaboost_defaults_and_a_link():
    base = {"n_estimators": 50, "learning_rate": 1.0, "max_depth": 1, "random_state": 0}
    assert drawn("ab")[0] == base
    assert drawn("ab", ab_rounds="5", ab_lr="0.5")[0] == {**base, "n_estimators": 5,
                                                            "learning_rate": 0.5}


def test_gradient_boosting_defaults_and_a_link():
    base = {"n_estimators": 100, "learning_rate": 0.1, "max_depth": 3, "subsample": 1.0,
            "random_state": 0}
    assert drawn("gb")[0] == (base, "squared_error")
    assert drawn("gb", gb_loss="huber", gb_depth="2", gb_subsample="0.5")[0] == (
        {**base, "max_depth": 2, "subsample": 0.5}, "huber")


def test_naive_bayes_bins_only_when_binned():
    assert drawn("nb")[0] == nb_controls.Spec("auto", 1.0, "gaussian", 5)
    spec, at = drawn("nb", nb_numeric="binned", nb_bins="7", nb_alpha="0.5")
    assert spec == nb_controls.Spec("auto", 0.5, "binned", 7)
    assert at.slider(key="nb_bins").value == 7
    spec, at = drawn("nb", nb_variant="gaussian", nb_numeric="binned", nb_bins="7")
    assert spec == nb_controls.Spec("gaussian", 1.0, "gaussian", 5)
    assert not [w for w in at.slider if w.key == "nb_bins"]


def test_compare_models_and_sizes():
    chosen, settings = drawn("cmp")[0]
    assert chosen == list(compare_controls.MODELS) and settings == compare_controls.Settings()
    chosen, settings = drawn("cmp", "friedman1", cmp_b="3", cmp_models=["forest", "tree"])[0]
    assert chosen == ["tree", "forest"]  # in the models' order, whatever the link's
    assert settings == compare_controls.Settings(n_trees=3)


# --- The cache key -------------------------------------------------------------------------

def _other(value):
    """A value unlike ``value`` of the same parameter."""
    if value is None:
        return 1
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    return f"{value}x"


@pytest.mark.parametrize("params", [TREE, FOREST], ids=["tree", "forest"])
def test_the_cache_key_changes_with_every_parameter_and_nothing_else(params):
    data = SimpleNamespace(content_hash="abc")
    key = cache_key(data, params)
    assert hash(key) == hash(cache_key(data, dict(reversed(params.items()))))  # order free
    assert key == cache_key(SimpleNamespace(content_hash="abc"), dict(params))
    assert key != cache_key(SimpleNamespace(content_hash="abd"), params)
    for name, value in params.items():
        assert cache_key(data, {**params, name: _other(value)}) != key, name
    assert cache_key(data, {**params, "binning": "exact"}) != key
