"""The Random Forest page under AppTest: every sample, every view, links with odd values.

Each test is one first run with its state in the URL (see tests/app/test_pages.py for
why). Forests are kept small through ``rf_trees`` so the file stays quick.
"""
import json

import pytest

from tests.app.test_pages import SAMPLES, assert_clean, run_app, values
from ui import fitting

PAGE = "app_pages/random_forest.py"
VIEWS = ["OOB error", "Effect of m", "Importance", "Inside the forest", "Results"]


def run_page(**query):
    return run_app(PAGE, **{"rf_trees": "10", **query})


def charts(at) -> list:
    return at.get("plotly_chart")


@pytest.mark.parametrize("sample", SAMPLES)
def test_page_runs_on_every_sample(sample):
    at = run_page(data=sample)
    assert_clean(at)
    assert at.title[0].value == "Random Forest"
    if sample == "reviews":  # text only: the page says what to do instead of drawing
        assert "only text" in at.error[0].value
        return
    assert not at.error, [e.value for e in at.error]
    assert len(charts(at)) == 1  # the OOB curve
    assert "10 trees" in at.caption[0].value


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("sample", ["iris", "friedman1"])
def test_every_view_runs_for_classification_and_regression(sample, view):
    at = run_page(data=sample, rf_view=view, rf_m_run="true")
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    assert charts(at) or at.get("graphviz_chart")


def test_defaults_follow_breiman():
    spam = run_page(data="spambase")
    assert spam.slider(key="rf_m").value == 7  # ⌊√57⌋
    assert spam.number_input(key="rf_min_leaf").value == 1
    friedman = run_page(data="friedman1")
    assert friedman.slider(key="rf_m").value == 3  # ⌊10/3⌋
    assert friedman.number_input(key="rf_min_leaf").value == 5
    assert run_app(PAGE, data="iris").number_input(key="rf_trees").value == 100


def test_bagging_comparison_adds_two_curves():
    at = run_page(data="two_moons", rf_bagging="true")
    assert_clean(at)
    names = [t["name"] for t in _traces(at)]
    assert names == ["random forest: OOB error", "random forest: test error",
                     "bagging: OOB error", "bagging: test error"]


def _traces(at) -> list[dict]:
    return json.loads(charts(at)[0].proto.spec)["data"]


def test_effect_of_m_shows_the_measured_formula_and_the_sweep():
    at = run_page(data="xor", rf_view="Effect of m", rf_m_run="true")
    assert_clean(at)
    formula = at.latex[0].value
    assert r"\rho\sigma^2" in formula and "{10}" in formula  # B = 10 plugged in
    assert [t["name"] for t in _traces(at)] == ["OOB error", "test error", "ρ (mean pairwise)"]


def test_noise_column_is_highlighted_in_both_importances():
    at = run_page(data="two_moons", rf_view="Importance", rf_noise="true", rf_trees="40")
    assert_clean(at)
    assert len(charts(at)) == 2
    assert any("The noise column ranks" in m.value for m in at.markdown)


def test_without_bootstrap_there_is_no_oob_and_the_page_says_so():
    at = run_page(data="iris", rf_bootstrap="false", rf_view="Importance")
    assert_clean(at)
    assert any("Bootstrap samples" in i.value for i in at.info)
    at = run_page(data="iris", rf_bootstrap="false")
    assert any("no OOB error" in i.value for i in at.info)


def test_inside_the_forest_draws_the_chosen_tree():
    at = run_page(data="iris", rf_view="Inside the forest", rf_tree="4", rf_show_depth="2")
    assert_clean(at)
    assert at.slider(key="rf_tree").value == 4
    assert any(c.value.startswith("Tree 4:") for c in at.caption)
    assert "n0 [label=" in at.get("graphviz_chart")[0].proto.spec
    assert len(charts(at)) == 2  # the in-bag strip and the votes


def test_hand_edited_link_values_are_replaced_with_a_notice_not_tracebacks():
    at = run_page(data="iris", rf_m="999", rf_tree="999", rf_view="Inside the forest",
                  rf_min_leaf="-3")
    assert_clean(at)
    assert at.slider(key="rf_m").value == 2  # the default √p: p = 4 features, not 999
    assert at.slider(key="rf_tree").value == 1
    notices = " ".join(w.value for w in at.warning)
    assert "m = 999" in notices and "from 1 to 4" in notices, notices
    assert at.number_input(key="rf_min_leaf").value == 1
    at = run_page(data="iris", rf_trees="many")
    assert_clean(at)
    assert at.number_input(key="rf_trees").value == 100


def test_the_regions_of_skewed_features_leave_their_long_tails_off_and_say_so():
    """On spambase's default pair (char_freq_$, char_freq_!: mostly 0, a few e-mails full
    of "$" and "!") the axes end where the grid does, below the largest values, and the
    caption counts the drawn points beyond them; iris's pair keeps every point on the
    picture and says nothing of it."""
    assert fitting.prefetch_idle(timeout=60)  # no forest on a pair growing: the regions are drawn
    at = run_page(data="spambase", rf_view="Results")
    assert_clean(at)
    figure = next(json.loads(c.proto.spec) for c in charts(at)
                  if "Decision regions" in json.loads(c.proto.spec)["layout"]["title"]["text"])
    heatmap = next(t for t in figure["data"] if t["type"] == "heatmap")
    layout = figure["layout"]
    grid_x, grid_y = values(heatmap["x"]), values(heatmap["y"])
    assert layout["xaxis"]["range"] == [grid_x[0], grid_x[-1]]
    assert layout["yaxis"]["range"] == [grid_y[0], grid_y[-1]]
    points = [(x, y) for t in figure["data"] if t["type"].startswith("scatter")
              for x, y in zip(values(t["x"]), values(t["y"]), strict=True)]
    beyond = sum(not (grid_x[0] <= x <= grid_x[-1] and grid_y[0] <= y <= grid_y[-1])
                 for x, y in points)
    assert 0 < beyond < 0.02 * len(points)
    assert f"{beyond} drawn points lie beyond the axes" in " ".join(c.value for c in at.caption)
    assert fitting.prefetch_idle(timeout=60)
    iris = run_page(data="iris", rf_view="Results")
    assert not any("beyond the axes" in c.value for c in iris.caption)
