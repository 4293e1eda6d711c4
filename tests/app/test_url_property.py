"""URL → state → URL is the identity, for random states of every page (issue 30).

A link is opened on a page with a random choice of the page's values; the URL the app
writes back after the run must be the link itself (a value equal to its default left out,
as the app never writes defaults). The values and their choices are read from the page:
its registered URL values (``ui.url``) and the widgets that draw them.
"""
from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.app.test_pages import assert_clean, run_app
from ui import url

#: Each page on data it draws quickly, with its work kept small (these are not varied).
PAGES = {
    "app_pages/data.py": {"data": "restaurant"},
    "app_pages/naive_bayes.py": {"data": "playtennis"},
    "app_pages/decision_tree.py": {"data": "iris"},
    "app_pages/random_forest.py": {"data": "iris", "rf_trees": "8"},
    "app_pages/adaboost.py": {"data": "two_moons", "ab_rounds": "6"},
    "app_pages/gradient_boosting.py": {"data": "two_moons", "gb_rounds": "6"},
    "app_pages/compare.py": {"data": "iris", "cmp_b": "4", "cmp_t_ada": "5", "cmp_t_gb": "5"},
}
#: Not varied: the data and what depends on it, tabs and sections (they change which other
#: values are drawn, so a random mix of them is not a view anyone could reach).
FIXED = {"data", "target", "task"}
KINDS = ["number_input", "selectbox", "slider", "toggle", "radio", "multiselect", "checkbox"]


def _widget(at, key):
    for kind in KINDS:
        for element in at.get(kind):
            if getattr(element, "key", None) == key:
                return kind, element
    return None, None


def _choices(param: url.Param, kind: str, element) -> list[str]:
    """Texts the URL may hold for ``param``, read from its widget."""
    if kind in ("selectbox", "radio"):
        return [url.to_url(param.parse([str(option)]))[0] for option in element.options]
    if kind == "multiselect":
        options = [url.to_url(param.parse([str(o)])[0])[0] for o in element.options]
        return [options[:1], options[-2:]] if len(options) > 1 else [options]
    if kind in ("toggle", "checkbox"):
        return ["true", "false"]
    low, high, step = element.min, element.max, element.step
    whole = float(step).is_integer() and float(low).is_integer()
    middle = low + round((min(high, low + 50 * step) - low) / 2 / step) * step
    values = {low, middle, min(high, low + 3 * step)}
    return [url.to_url(int(v) if whole else round(float(v), 6))[0] for v in sorted(values)]


@cache
def page_values(page: str) -> dict[str, tuple[object, list]]:
    """key → (default as URL text, choices) for the values the page draws by default."""
    at = run_app(page, **PAGES[page])
    assert_clean(at)
    values = {}
    for key, param in at.session_state["gb_url_params"].items():
        kind, element = _widget(at, key)
        if key in FIXED or key in PAGES[page] or kind is None:
            continue
        values[key] = (url.to_url(param.default), _choices(param, kind, element))
    return values


@pytest.mark.slow
@pytest.mark.parametrize("page", list(PAGES))
@settings(max_examples=5, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(draw=st.data())
def test_a_link_comes_back_as_the_same_link(page, draw):
    values = page_values(page)
    keys = draw.draw(st.lists(st.sampled_from(sorted(values)), min_size=1, max_size=4,
                              unique=True), label="keys")
    asked = {key: draw.draw(st.sampled_from(values[key][1]), label=key) for key in keys}
    query = {**PAGES[page], **{k: v if isinstance(v, list) else [v] for k, v in asked.items()}}
    at = run_app(page, **query)
    assert_clean(at)
    assert not at.warning or all("link asked" not in w.value for w in at.warning)
    written = {k: v if isinstance(v, list) else [v] for k, v in at.query_params.items()}
    expected = {k: v if isinstance(v, list) else [v] for k, v in query.items()
                if k not in values or (v if isinstance(v, list) else [v]) != values[k][0]}
    assert written == expected
