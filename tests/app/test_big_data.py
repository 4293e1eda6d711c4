"""Large uploads: the binned search and fewer rows per tree by default, said on the page;
steps and tabs that reuse the fitted model; charts that draw a stratified sample."""
from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from engine.data import Dataset
from engine.ensemble import AdaBoostClassifier, GradientBoostingClassifier, RandomForestClassifier
from engine.tree import DecisionTreeClassifier
from tests.app.test_gradient_boosting_page import values
from tests.app.test_hostile_uploads import csv, run_upload
from tests.app.test_pages import assert_clean, run_app
from ui import data_controls, fitting, limits
from ui import forest_controls as fc
from ui import tree_controls as tc


def _table(n_rows: int, seed: int = 0) -> pd.DataFrame:
    """Two unequal classes (1 in 5 "yes") in the first column, six numeric features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 6)).round(4)
    y = np.where(X[:, 0] + X[:, 1] + rng.normal(size=n_rows) > 1.2, "yes", "no")
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    frame.insert(0, "class", y)
    return frame


BIG = csv(_table(40_000))  # 30,000 training rows: above limits.BINNED_ABOVE_ROWS


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_a_big_table_starts_with_the_binned_search_and_says_so():
    at = run_upload("app_pages/decision_tree.py", BIG, "big.csv", target="class")
    assert_clean(at)
    assert at.toggle(key="dt_binned").value is True
    assert "quantile bins" in _captions(at)
    exact = run_upload("app_pages/decision_tree.py", BIG, "big.csv", target="class",
                       dt_binned="false", dt_max_depth="4")
    assert_clean(exact)
    assert "quantile bins" not in _captions(exact)


def test_a_small_table_keeps_the_exact_search():
    at = run_app("app_pages/decision_tree.py", data="spambase")
    assert_clean(at)
    assert at.toggle(key="dt_binned").value is False
    assert "quantile bins" not in _captions(at)


def test_a_big_forest_draws_fewer_rows_per_tree_and_says_so():
    at = run_upload("app_pages/random_forest.py", BIG, "big.csv", target="class",
                    rf_trees="50", rf_view="Results")
    assert_clean(at)
    per_tree = limits.rows_per_tree(30_000, 50)
    assert per_tree == limits.TREE_ROWS == limits.rows_per_tree(30_000, 100)
    assert f"bootstrap sample of {per_tree:,} of the 30,000" in _captions(at)


def test_a_big_forest_scores_importance_on_a_sample_of_each_trees_oob_rows():
    at = run_upload("app_pages/random_forest.py", BIG, "big.csv", target="class",
                    rf_trees="20", rf_view="Importance")
    assert_clean(at)
    assert f"a seeded sample of {limits.IMPORTANCE_OOB_ROWS:,} of its OOB rows" in _captions(at)
    small = run_app("app_pages/random_forest.py", data="iris", rf_view="Importance")
    assert_clean(small)
    assert "seeded sample" not in _captions(small)


def test_big_boosting_shuffles_a_sample_of_the_test_rows_and_says_so():
    at = run_upload("app_pages/gradient_boosting.py", BIG, "big.csv", target="class",
                    gb_rounds="10", gb_view="Importance", gb_perm="true")
    assert_clean(at)
    assert f"seeded sample of {limits.PERMUTATION_ROWS:,} of the 10,000 test rows" in _captions(at)
    shuffled = at.get("plotly_chart")
    assert len(shuffled) == 2  # impurity and permutation importance


def test_the_boosting_model_is_fitted_ahead_while_the_round_view_is_read(fits):
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's job under way: not counted
    at = run_app("app_pages/gradient_boosting.py", data="two_moons", gb_rounds="9", seed="915")
    assert_clean(at)
    assert fitting.prefetch_idle(timeout=30)
    fitted = fits["boosting"]
    assert fitted >= 2  # the round view's one-feature model and, ahead, the full model
    at.query_params["gb_view"] = "Importance"
    at.switch_page("app_pages/gradient_boosting.py").run()
    assert_clean(at)
    assert fits["boosting"] == fitted  # the tab took the prefetched model


@pytest.fixture
def fits(monkeypatch):
    """Counts the fits of AdaBoost and gradient boosting models (all in this process: a
    worker process would not see the counting ``fit``)."""
    monkeypatch.setattr(fitting, "FIT_JOBS", 1)
    counted = {"adaboost": 0, "boosting": 0}
    for name, cls in (("adaboost", AdaBoostClassifier), ("boosting", GradientBoostingClassifier)):
        original = cls.fit

        def counting(self, *args, _original=original, _name=name, **kwargs):
            counted[_name] += 1
            return _original(self, *args, **kwargs)
        monkeypatch.setattr(cls, "fit", counting)
    return counted


def test_an_adaboost_step_and_a_tab_reuse_the_fitted_model(fits):
    at = run_app("app_pages/adaboost.py", data="two_moons", ab_rounds="13", ab_round="2",
                 seed="913")  # a seed no other test uses: the model is fitted here
    assert_clean(at)
    fitted = fits["adaboost"]
    assert fitted >= 1
    at.button(key="ab_round_fwd").click().run()
    assert_clean(at)
    assert at.slider(key="ab_round").value == 3
    at.button(key="ab_round_fwd").click().run()
    assert at.slider(key="ab_round").value == 4
    assert fits["adaboost"] == fitted  # a step draws; it does not fit


def test_a_gradient_boosting_step_reuses_the_fitted_model(fits):
    at = run_app("app_pages/gradient_boosting.py", data="two_moons", gb_rounds="12",
                 seed="914")
    assert_clean(at)
    assert fitting.prefetch_idle(timeout=30)  # the other tabs' model, fitted ahead
    fitted = fits["boosting"]
    assert fitted >= 1
    at.button(key="gb_round_fwd").click().run()
    assert_clean(at)
    assert fits["boosting"] == fitted


def test_fewer_trees_are_the_grown_forests_first_and_more_continue_it(monkeypatch):
    """Changing the number of trees never grows again the trees a grown forest has:
    fewer take its first trees, more grow only the missing ones (a warm start)."""
    grown, cut = [], []
    original_fit, original_cut = RandomForestClassifier.fit, fc.first_members

    def fit(self, *args, **kwargs):
        if self.oob_score:  # the page's forest, not the Results tab's on two features
            grown.append((len(self.__dict__.get("estimators_", [])), self.n_estimators))
        return original_fit(self, *args, **kwargs)

    def first_members(model, n, *args, **kwargs):
        if model.oob_score:  # the page's forest (the prefetch cuts the pair's as well)
            cut.append((len(model.estimators_), n))
        return original_cut(model, n, *args, **kwargs)
    monkeypatch.setattr(RandomForestClassifier, "fit", fit)
    monkeypatch.setattr(fc, "first_members", first_members)
    at = run_app("app_pages/random_forest.py", data="two_moons", rf_trees="12",
                 seed="916")  # a seed no other test uses: the forests are grown here
    assert_clean(at)
    assert grown == [(0, 12)] and not cut
    at.number_input(key="rf_trees").set_value(5).run()
    assert_clean(at)
    assert grown == [(0, 12)] and cut == [(12, 5)]
    assert "5 trees" in _captions(at)
    at.number_input(key="rf_trees").set_value(20).run()
    assert_clean(at)
    assert grown == [(0, 12), (12, 20)] and cut == [(12, 5)]


def _counted(monkeypatch, owner, name: str, noted) -> list:
    """Calls of ``owner.name`` from now on: ``noted(*args)`` for each, unless it is None."""
    calls, original = [], getattr(owner, name)

    def counting(*args, **kwargs):
        if (note := noted(*args)) is not None:
            calls.append(note)
        return original(*args, **kwargs)
    monkeypatch.setattr(owner, name, counting)
    return calls


def _ahead_then_opened(page: str, query: dict, view: dict, calls: list):
    """``page`` drawn with ``query`` and its background work finished, then drawn again
    with the tab ``view`` open: the calls made by then, and the app with the tab."""
    at = run_app(page, **query)
    assert_clean(at)
    assert fitting.prefetch_idle(timeout=60)
    ahead = list(calls)
    at = run_app(page, **{**query, **view})  # the view replaces the query's tab
    assert_clean(at)
    return ahead, at


def test_the_results_tab_takes_the_boundary_forest_fitted_in_the_background(monkeypatch):
    """After the forest page is drawn, the forest on the default pair of features is
    fitted ahead; the Results tab then draws its regions without fitting it again."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted, not in the way
    monkeypatch.setattr(fitting, "FIT_JOBS", 1)  # fits in this process, where they are counted
    pair_fits = _counted(monkeypatch, RandomForestClassifier, "fit",  # the forest on two features
                         lambda forest, X, *_: None if forest.oob_score else sorted(X.columns))
    query = dict(data="two_moons", rf_trees="7", seed="917")  # fitted here only
    ahead, at = _ahead_then_opened("app_pages/random_forest.py", query, dict(rf_view="Results"),
                                   pair_fits)
    assert ahead == pair_fits == [["x1", "x2"]]
    assert any(c.proto.spec and "Decision regions of a forest" in c.proto.spec
               for c in at.get("plotly_chart"))


def test_the_results_and_effect_of_m_tabs_take_the_pass_made_in_the_background(monkeypatch):
    """After the forest page is drawn on a tab without the test curve, one pass over
    every tree on the test rows is made ahead (predictions, ρ and σ²); the Results and
    Effect of m tabs, and every rerun of them, then walk no tree again."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    walks = _counted(monkeypatch, RandomForestClassifier, "predict",  # not the pair forest
                     lambda forest, X, *_: ("predict", len(X)) if forest.oob_score else None)
    original = fc.staged_errors
    monkeypatch.setattr(fc, "staged_errors",
                        lambda *args: walks.append(("pass", len(args[1]))) or original(*args))
    query = dict(data="two_moons", rf_trees="6", seed="918", rf_view="Inside the forest")
    ahead, at = _ahead_then_opened("app_pages/random_forest.py", query, dict(rf_view="Results"),
                                   walks)
    at.run()
    assert_clean(at)
    assert [m.label for m in at.metric][:1] == ["Test accuracy"]
    at = run_app("app_pages/random_forest.py", **{**query, "rf_view": "Effect of m"})
    assert_clean(at)
    assert any("\\rho" in latex.value for latex in at.latex)
    assert len(ahead) == 1 and ahead[0][0] == "pass" and walks == ahead  # the test rows, ahead


def test_fewer_trees_take_the_larger_forests_pass_and_drops_cut_to_their_trees(monkeypatch):
    """Once a forest's pass over the test rows, its trees' OOB drops and its boundary on
    two features are made, the same forest with fewer trees (its first trees) walks no
    tree on the test rows or the grid and permutes nothing: on every tab that shows
    them, all three are the larger one's, cut."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    calls = []
    for owner, name in ((fc, "staged_errors"), (fc, "oob_permutation_drops"),
                        (fc.tf, "decision_grid")):
        original = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda *args, name=name, original=original, **kwargs:
                            calls.append(name) or original(*args, **kwargs))
    query = dict(data="two_moons", rf_trees="8", seed="921")
    at = run_app("app_pages/random_forest.py", **query)
    assert_clean(at)
    assert fitting.prefetch_idle(timeout=60)
    assert sorted(calls) == ["decision_grid", "oob_permutation_drops", "staged_errors"]
    calls.clear()
    for view in ("OOB error", "Importance", "Effect of m", "Results"):
        at = run_app("app_pages/random_forest.py", **{**query, "rf_trees": "5", "rf_view": view})
        assert_clean(at)
    assert fitting.prefetch_idle(timeout=60)
    assert calls == []
    assert [m.label for m in at.metric][:1] == ["Test accuracy"]
    assert any(c.proto.spec and "Decision regions of a forest" in c.proto.spec
               for c in at.get("plotly_chart"))


def test_the_results_tab_does_not_wait_for_regions_made_in_the_background(monkeypatch):
    """While the forest on the pair is grown elsewhere (the page's prefetch), the Results
    tab shows its scores at once and, in place of the regions, a note that they follow;
    once that work has ended the regions are drawn."""
    assert fitting.prefetch_idle(timeout=60)
    query = dict(data="two_moons", rf_trees="6", seed="922", rf_view="Results")
    monkeypatch.setattr(fc, "under_way", lambda *args: True)
    at = run_app("app_pages/random_forest.py", **query)
    assert_clean(at)
    assert [m.label for m in at.metric][:1] == ["Test accuracy"]
    assert any("its decision regions appear here when it is grown" in i.value for i in at.info)
    assert not any(c.proto.spec and "Decision regions of a forest" in c.proto.spec
                   for c in at.get("plotly_chart"))
    monkeypatch.undo()
    assert fitting.prefetch_idle(timeout=60)
    at = run_app("app_pages/random_forest.py", **query)
    assert_clean(at)
    assert not any("appear here when" in i.value for i in at.info)
    assert any(c.proto.spec and "Decision regions of a forest" in c.proto.spec
               for c in at.get("plotly_chart"))


def test_the_results_tab_takes_the_predictions_of_the_test_curve(monkeypatch):
    """The OOB tab's test curve walks every tree on the test rows: its last point's
    predictions are the Results tab's, which then predicts nothing, ahead or on opening
    (that they equal predict's is tested in tests/engine/test_inspection.py)."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    predicted = _counted(monkeypatch, RandomForestClassifier, "predict",  # not the pair forest
                         lambda forest, X, *_: len(X) if forest.oob_score else None)
    query = dict(data="two_moons", rf_trees="6", seed="920")  # the OOB tab first
    ahead, at = _ahead_then_opened("app_pages/random_forest.py", query,
                                   dict(rf_view="Results"), predicted)
    assert ahead == predicted == []
    assert [m.label for m in at.metric][:1] == ["Test accuracy"]


def test_show_your_working_opens_on_the_root_table_scored_in_the_background(monkeypatch):
    """After the tree page is drawn, the root's candidate splits are scored ahead; the
    "Show your working" tab, which opens on the root, then scores nothing again."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    scored = _counted(monkeypatch, tc, "split_candidates", lambda model, node, *_: node)
    ahead, at = _ahead_then_opened("app_pages/decision_tree.py",
                                   dict(data="two_moons", dt_max_depth="4", seed="919"),
                                   dict(dt_view="Show your working"), scored)
    assert ahead == scored == [0]
    assert any("Every split the learner could make here" in m.value for m in at.markdown)


def test_the_decision_boundary_tab_takes_the_tree_fitted_in_the_background(monkeypatch):
    """After the tree page is drawn, the tree on the default pair of features is fitted
    ahead; the Decision boundary tab then draws its regions without fitting it again."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    pair_fits = _counted(monkeypatch, DecisionTreeClassifier, "fit",
                         lambda tree, X, *_: sorted(X.columns) if X.shape[1] == 2 else None)
    ahead, at = _ahead_then_opened("app_pages/decision_tree.py",
                                   dict(data="iris", dt_max_depth="3", seed="920"),
                                   dict(dt_view="Decision boundary"), pair_fits)
    assert len(ahead) == 1 and pair_fits == ahead
    assert any(c.proto.spec and "Decision regions of a tree" in c.proto.spec
               for c in at.get("plotly_chart"))


def test_a_background_fit_runs_in_a_worker_process_and_comes_back_fitted():
    X, y = _table(300).drop(columns="class"), _table(300)["class"]
    here = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    there = fitting.in_worker(GradientBoostingClassifier(n_estimators=5, random_state=0).fit, X, y)
    np.testing.assert_array_equal(there.predict_proba(X), here.predict_proba(X))
    if fitting.FIT_JOBS > 1:
        assert fitting.in_worker(os.getpid) != os.getpid()


def test_two_feature_points_are_a_seeded_stratified_sample():
    dataset = Dataset(_table(20_000), "class", test_size=0.25, stratify=True, random_state=0)
    points = data_controls.two_feature_points(dataset, ["x0", "x1"])
    assert len(points.train) == data_controls.POINTS_DRAWN
    assert len(points.test) == data_controls.POINTS_DRAWN // 3
    share = (dataset.y_train == "yes").mean()
    drawn = (points.y_train == "yes").sum()
    assert abs(drawn - share * data_controls.POINTS_DRAWN) <= 1  # each class by its share
    again = data_controls.two_feature_points(dataset, ["x0", "x1"])
    assert points.train.index.equals(again.train.index)  # seeded: the same rows
    assert points.train.index.is_monotonic_increasing
    assert "1,500 of 15,000 training rows and 500 of 5,000 test rows" in points.note


def test_two_feature_points_of_a_small_table_are_every_row():
    dataset = Dataset(_table(400), "class", test_size=0.25, stratify=True, random_state=0)
    points = data_controls.two_feature_points(dataset, ["x0", "x1"])
    assert len(points.train) == 300 and len(points.test) == 100
    assert points.sampled == ""
    assert points.note == "Filled points: training rows; hollow: test rows."


def test_a_big_adaboost_round_draws_a_sample_and_says_so():
    at = run_upload("app_pages/adaboost.py", BIG, "big.csv", target="class", ab_rounds="5")
    assert_clean(at)
    assert "Drawn: 900 of 30,000 training rows" in _captions(at)
    figure = next(spec for spec in (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
                  if spec["layout"]["title"]["text"].startswith("Round 1"))
    drawn = sum(len(values(trace["x"])) for trace in figure["data"]
                if trace["type"].startswith("scatter") and trace["x"] != [None])
    assert drawn == data_controls.STEPPED_POINTS  # fewer than a still picture: Play redraws them


def test_a_big_boosting_round_draws_a_stepped_sample_and_says_so():
    at = run_upload("app_pages/gradient_boosting.py", BIG, "big.csv", target="class",
                    gb_rounds="5")
    assert_clean(at)
    assert "Drawn: 900 of 30,000 training rows" in _captions(at)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    points = [len(values(trace["x"])) for trace in figure["data"]
              if trace["name"].startswith(("training rows", "residual"))]
    assert points == [data_controls.STEPPED_POINTS] * 2  # the rows and their residuals


def test_the_round_figure_draws_the_rows_asked_for_sized_against_every_row():
    from viz import adaboost_figures as af
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(500, 2)), columns=["a", "b"])
    y = np.where(X["a"] + X["b"] + rng.normal(size=500) > 0, "p", "q")
    model = AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, y)
    detail = af.round_detail(model, 2)
    grid = af.staged_grid(model, X)
    rows = np.arange(0, 500, 5)
    every = af.round_figure(grid, 2, X, y, detail)
    some = af.round_figure(grid, 2, X, y, detail, rows=rows)

    def sizes(figure):
        return {(x, y_): s for trace in figure.data
                if trace.type.startswith("scatter") and trace.x[0] is not None
                for x, y_, s in zip(trace.x, trace.y, trace.marker.size, strict=True)}
    drawn, all_sizes = sizes(some), sizes(every)
    assert len(drawn) == len(rows)
    assert all(all_sizes[point] == size for point, size in drawn.items())


def test_a_large_forest_grows_in_waves_and_equals_one_fit(monkeypatch):
    from ui import forest_controls as fc

    dataset = Dataset(_table(8_000), "class", test_size=0.25, random_state=972)
    params = {"n_estimators": 100, "max_features": 2, "max_depth": None, "min_samples_leaf": 1,
              "bootstrap": True, "oob_score": True, "random_state": 0, "n_jobs": 1,
              "max_samples": None, "binning": "exact"}
    # 100 trees of 6,000 rows and their OOB passes: a first wave once that is long enough
    oob = fc.oob_rows_per_tree(6_000, 6_000)
    assert fc.waves(100, 6_000, oob_rows=oob) == [50, 100]
    monkeypatch.setattr(fc, "FIRST_PICTURE_ABOVE", 100 * 6_000)  # this small table's is drawn
    assert fc.waves(100, 6_000, oob_rows=oob) == [10, 50, 100]
    assert fc.waves(100, 6_000, first_picture=False, oob_rows=oob) == [50, 100]
    seen = []
    forest = fc.fit_forest(dataset, params, grown=lambda f: seen.append(
        fc.ff.error_curve(f, None, None)))
    assert [len(curve) for curve in seen] == [10, 50]
    assert seen[0]["test"].isna().all()
    whole = fc._estimator(dataset.task, params).fit(fc.training_rows(dataset), dataset.y_train)
    np.testing.assert_array_equal(forest.oob_error_curve_, whole.oob_error_curve_)
    np.testing.assert_array_equal(seen[1]["oob"], whole.oob_error_curve_[:50])
    assert forest.get_params()["warm_start"] is False


def test_the_forests_a_large_forest_passes_through_are_kept(monkeypatch):
    """After growing 100 trees in waves of 10, 50, 100 (its growth drawn), asking for 50
    (or 10) trees neither grows nor cuts: it is the forest of the wave, equal to one fit
    of 50 trees, left as it was when the later trees were added."""
    from ui import forest_controls as fc

    dataset = Dataset(_table(8_000), "class", test_size=0.25, random_state=973)
    params = {"n_estimators": 100, "max_features": 2, "max_depth": None, "min_samples_leaf": 1,
              "bootstrap": True, "oob_score": True, "random_state": 0, "n_jobs": 1,
              "max_samples": None, "binning": "exact"}
    monkeypatch.setattr(fc, "FIRST_PICTURE_ABOVE", 100 * 6_000)  # its growth drawn in three
    fc.fit_forest(dataset, params, grown=lambda forest: None)
    work, original_fit = [], RandomForestClassifier.fit
    monkeypatch.setattr(RandomForestClassifier, "fit", lambda *a, **k: work.append("fit"))
    monkeypatch.setattr(fc, "first_members", lambda *a, **k: work.append("cut"))
    X, y = fc.training_rows(dataset), dataset.y_train
    for size in (50, 10):
        kept = fc.fit_forest(dataset, {**params, "n_estimators": size})
        assert not work and kept.n_estimators == size and len(kept.estimators_) == size
        assert kept.get_params()["warm_start"] is False
        whole = original_fit(fc._estimator(dataset.task, {**params, "n_estimators": size}), X, y)
        np.testing.assert_array_equal(kept.oob_error_curve_, whole.oob_error_curve_)
        np.testing.assert_array_equal(kept.oob_decision_function_, whole.oob_decision_function_)
        assert kept.oob_score_ == whole.oob_score_
        np.testing.assert_array_equal(kept.predict_proba(dataset.X_test[X.columns]),
                                      whole.predict_proba(dataset.X_test[X.columns]))


def test_fewer_trees_asked_for_while_more_grow_ahead_wait_for_their_wave(monkeypatch):
    """While the background grows 100 trees in waves of 50 and 100 (nobody watches it
    grow: no first wave of 10), a view asking for 50 waits for the wave of 50 and takes
    it, before the last wave is grown: no tree is grown twice, and it is the forest one
    fit of 50 trees would grow."""
    import threading

    from ui import forest_controls as fc

    dataset = Dataset(_table(8_000), "class", test_size=0.25, random_state=974)
    params = {"n_estimators": 100, "max_features": 2, "max_depth": None, "min_samples_leaf": 1,
              "bootstrap": True, "oob_score": True, "random_state": 0, "n_jobs": 1,
              "max_samples": None, "binning": "exact"}
    grown, original_fit = [], RandomForestClassifier.fit
    first_wave, go_on, last_wave, last_grown = (threading.Event() for _ in range(4))

    def fit(self, *args, **kwargs):
        before = len(self.__dict__.get("estimators_", []))
        grown.append((before, self.n_estimators))
        if before == 0:  # the first wave is under way: the view asks now
            first_wave.set()
            assert go_on.wait(10)
        if before == 50:  # the last wave waits until the view has its forest
            assert last_wave.wait(10)
        fitted = original_fit(self, *args, **kwargs)
        if before == 50:
            last_grown.set()
        return fitted
    monkeypatch.setattr(RandomForestClassifier, "fit", fit)
    key, _, grow = fc._grower(dataset, params)
    assert fitting.prefetch_idle(timeout=60)
    assert fitting.prefetch((key, lambda: grow(lambda done, total: None)))
    assert first_wave.wait(10)
    threading.Timer(0.3, go_on.set).start()  # the view is waiting by then
    fifty = fc.fit_forest(dataset, {**params, "n_estimators": 50})
    assert not last_grown.is_set()  # taken from the wave of 50, not from the 100
    last_wave.set()
    assert fitting.prefetch_idle(timeout=60)
    assert grown == [(0, 50), (50, 100)]  # the background's waves, nothing else
    assert len(fifty.estimators_) == 50
    X = fc.training_rows(dataset)
    whole = original_fit(fc._estimator(dataset.task, {**params, "n_estimators": 50}), X,
                         dataset.y_train)
    np.testing.assert_array_equal(fifty.oob_decision_function_, whole.oob_decision_function_)
    np.testing.assert_array_equal(fifty.predict_proba(dataset.X_test[X.columns]),
                                  whole.predict_proba(dataset.X_test[X.columns]))


def test_a_depth_limit_cuts_the_grown_tree_instead_of_growing_it_again(monkeypatch):
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    grown = []
    original = DecisionTreeClassifier.fit

    def counting(self, X, *args, **kwargs):
        if X.shape[1] > 2:  # the page's tree, not the one on two features fitted ahead
            grown.append(self.max_depth)
        return original(self, X, *args, **kwargs)
    monkeypatch.setattr(DecisionTreeClassifier, "fit", counting)
    at = run_app("app_pages/decision_tree.py", data="spambase", seed="916")
    assert_clean(at)
    assert grown == [None]
    full_leaves = at.caption[0].value
    at.number_input(key="dt_max_depth").set_value(3).run()
    assert_clean(at)
    assert grown == [None]  # cut, not grown
    assert "depth 3" in at.caption[0].value and at.caption[0].value != full_leaves


def test_a_pruning_alpha_prunes_the_grown_tree_and_its_path_is_the_same(monkeypatch):
    """A pruning α on the page's unpruned tree prunes that tree instead of growing it
    again, and the cross-validated path takes it as its whole tree: the tree is grown
    once, then once per fold."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    grown = _counted(monkeypatch, DecisionTreeClassifier, "fit",
                     lambda tree, X, *_: (tree.ccp_alpha, len(X)) if X.shape[1] > 2 else None)
    pairs = _counted(monkeypatch, DecisionTreeClassifier, "fit",
                     lambda tree, X, *_: tree.ccp_alpha if X.shape[1] == 2 else None)
    query = dict(data="spambase", seed="917")
    at = run_app("app_pages/decision_tree.py", **query)
    assert_clean(at)
    assert fitting.prefetch_idle(timeout=60)
    n_train = grown[0][1]
    assert grown == [(0.0, n_train)] and pairs == [0.0]
    at = run_app("app_pages/decision_tree.py", **query, dt_ccp="0.002")
    assert_clean(at)
    assert fitting.prefetch_idle(timeout=60)
    assert grown == [(0.0, n_train)] and pairs == [0.0]  # both pruned, not grown
    assert "leaves" in at.caption[0].value
    at = run_app("app_pages/decision_tree.py", **query, dt_view="Complexity", dt_run_cv="true")
    assert_clean(at)
    assert grown[0] == (0.0, n_train) and len(grown) == 1 + 5  # the folds only
    assert all(alpha == 0.0 and n < n_train for alpha, n in grown[1:])


def test_a_chi2_level_prunes_the_grown_tree(monkeypatch):
    """A χ² pruning level, alone or with an α, prunes the page's unpruned tree and its
    two-feature tree instead of growing them again: the trees the fits would give."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    grown = _counted(monkeypatch, DecisionTreeClassifier, "fit",
                     lambda tree, X, *_: (tree.chi2_alpha, len(X)) if X.shape[1] > 2 else None)
    pairs = _counted(monkeypatch, DecisionTreeClassifier, "fit",
                     lambda tree, X, *_: (tree.chi2_alpha,) if X.shape[1] == 2 else None)
    query = dict(data="spambase", seed="918")
    at = run_app("app_pages/decision_tree.py", **query)
    assert_clean(at)
    assert fitting.prefetch_idle(timeout=60)
    n_train, captions = grown[0][1], {at.caption[0].value}
    assert grown == [(None, n_train)] and pairs == [(None,)]
    for extra in ({"dt_chi2": "0.01"}, {"dt_chi2": "0.001", "dt_ccp": "0.001"}):
        at = run_app("app_pages/decision_tree.py", **query, **extra)
        assert_clean(at)
        assert fitting.prefetch_idle(timeout=60)
        assert grown == [(None, n_train)] and pairs == [(None,)]  # pruned, not grown
        assert "leaves" in at.caption[0].value and at.caption[0].value not in captions
        captions.add(at.caption[0].value)


def test_a_new_depth_cuts_the_pair_tree_and_reuses_the_root_table(monkeypatch):
    """A depth limit after the full-depth page has done its background work: the tree on
    two features is a cut of the one fitted ahead, and the root's candidate table (the
    same at every depth) is the one scored ahead; the tabs open on them."""
    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    pair_fits = _counted(monkeypatch, DecisionTreeClassifier, "fit",
                         lambda tree, X, *_: ("pair", tree.max_depth) if X.shape[1] == 2 else None)
    scored = _counted(monkeypatch, tc, "split_candidates", lambda model, node, *_: node)
    query = dict(data="iris", seed="921")
    at = run_app("app_pages/decision_tree.py", **query)
    assert_clean(at)
    assert fitting.prefetch_idle(timeout=60)
    assert pair_fits == [("pair", None)] and scored == [0]
    for view in ("Decision boundary", "Show your working"):
        at = run_app("app_pages/decision_tree.py", **query, dt_max_depth="2", dt_view=view)
        assert_clean(at)
    assert fitting.prefetch_idle(timeout=60)
    assert pair_fits == [("pair", None)] and scored == [0]  # cut and reused, not fitted or scored again
    assert any(c.proto.spec and "Decision regions of a tree" in c.proto.spec
               for c in run_app("app_pages/decision_tree.py", **query, dt_max_depth="2",
                                dt_view="Decision boundary").get("plotly_chart"))
    assert "depth 2" in at.caption[0].value


def test_two_feature_points_without_test_rows_say_only_what_is_drawn():
    """A chart that draws only training rows (the Naive Bayes regions) gets no test rows
    and a caption that names none."""
    dataset = Dataset(_table(20_000), "class", test_size=0.25, stratify=True, random_state=0)
    points = data_controls.two_feature_points(dataset, ["x0", "x1"], test=False)
    assert points.test is None and points.y_test is None
    assert len(points.train) == data_controls.POINTS_DRAWN
    assert "1,500 of 15,000 training rows, a sample" in points.sampled
    assert "test" not in points.sampled


def test_the_classification_tab_takes_the_work_done_in_the_background(monkeypatch):
    """After the gradient boosting page is drawn, the model on every feature, its staged
    errors and the model on the default pair of features (with its grid after every
    round) are made ahead; the Classification tab then fits and scores nothing again."""
    from engine import inspection

    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    monkeypatch.setattr(fitting, "FIT_JOBS", 1)  # fits in this process, where they are counted
    work = _counted(monkeypatch, GradientBoostingClassifier, "fit",
                    lambda model, X, *_: ("fit", len(X.columns)))
    original = inspection.staged_errors
    monkeypatch.setattr(inspection, "staged_errors",
                        lambda *args: work.append(("staged", len(args[1]))) or original(*args))
    query = dict(data="two_moons", gb_rounds="9", seed="918")  # fitted here only
    ahead, at = _ahead_then_opened("app_pages/gradient_boosting.py", query,
                                   dict(gb_view="Classification"), work)
    assert sorted(ahead) == sorted(work)  # nothing more once the tab is open
    assert [w for w in ahead if w[0] == "fit"].count(("fit", 2)) >= 2  # every feature, the pair
    assert sum(w[0] == "staged" for w in ahead) == 2  # training and test rows
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert titles == ["Error against rounds", "Decision regions after round 0"]


def test_the_error_tab_of_adaboost_takes_the_work_done_in_the_background(monkeypatch):
    """After the AdaBoost page is drawn, its staged errors are made ahead; the Error vs
    rounds tab then scores nothing again and grows only the two single trees beside
    the curves (not queued ahead: they held up the next page's own work)."""
    from engine import inspection

    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    monkeypatch.setattr(fitting, "FIT_JOBS", 1)  # the work in this process, where it is counted
    work = _counted(monkeypatch, DecisionTreeClassifier, "fit",  # the single trees (and learners)
                    lambda tree, *_: ("tree", tree.max_depth))
    original = inspection.staged_errors
    monkeypatch.setattr(inspection, "staged_errors",
                        lambda *args: work.append(("staged", len(args[1]))) or original(*args))
    query = dict(data="two_moons", ab_rounds="7", seed="919")  # fitted here only
    ahead, at = _ahead_then_opened("app_pages/adaboost.py", query, dict(ab_view="Error vs rounds"),
                                   work)
    assert sum(w[0] == "staged" for w in ahead) == 2 and ("tree", None) not in ahead
    assert sorted(work[len(ahead):], key=str) == [("tree", 1), ("tree", None)]
    names = [t["name"] for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    assert any(n.startswith("a full-depth tree: ") for n in names)


def test_the_roc_tab_takes_the_curves_made_in_the_background(monkeypatch):
    """Once the Compare page has fitted its models, their ROC curves (each model's
    probabilities on the test rows) are made ahead; the ROC tab then scores nothing."""
    from viz import compare_figures as cf

    assert fitting.prefetch_idle(timeout=60)  # an earlier page's prefetch: not counted
    made, original = [], cf.roc_table
    monkeypatch.setattr(cf, "roc_table",
                        lambda entries, *args: made.append(len(entries)) or original(entries, *args))
    query = dict(data="two_moons", seed="921", cmp_models=["Naive Bayes", "Decision tree"])
    ahead, at = _ahead_then_opened("app_pages/compare.py", query, dict(cmp_view="ROC curves"),
                                   made)
    assert ahead == made == [2]
    names = [t["name"] for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    assert len(names) == 3 and all("AUC" in n for n in names)
