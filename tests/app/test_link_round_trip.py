"""URL → state → URL on every page: a link's values reach the widgets, and the page's
"Link to this view" gives back a link with the same values (issue 8).

Each case sets values away from the defaults, so a page that ignored or rewrote one
would show it. Views held in tabs and expanders are covered by each page's own tests.
"""
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.app.test_pages import assert_clean, run_app
from ui.sidebar import SHARE_OPEN

WIDGET_KINDS = ["number_input", "selectbox", "slider", "toggle", "radio", "segmented_control",
                "select_slider", "multiselect", "text_input", "checkbox"]

CASES = {
    "app_pages/data.py": {"data": "iris", "target": "sepal_width", "seed": "7", "test": "0.3",
                          "present": "true"},
    "app_pages/naive_bayes.py": {"data": "iris", "seed": "3", "nb_alpha": "0.5"},
    "app_pages/decision_tree.py": {"data": "iris", "dt_criterion": "entropy", "dt_max_depth": "3",
                                   "dt_min_leaf": "2", "dt_show_depth": "2", "dt_row": "4"},
    "app_pages/random_forest.py": {"data": "iris", "rf_trees": "12", "rf_m": "3",
                                   "rf_min_leaf": "2"},
    "app_pages/adaboost.py": {"data": "two_moons", "ab_lr": "0.5"},
    "app_pages/gradient_boosting.py": {"data": "two_moons", "gb_nu": "0.3"},
    "app_pages/compare.py": {"data": "iris", "seed": "5", "cmp_b": "20", "cmp_t_ada": "15",
                             "cmp_t_gb": "12"},
}


def widget(at, key: str):
    """The widget drawn under ``key`` (main area or sidebar), or None."""
    for kind in WIDGET_KINDS:
        for element in at.get(kind):
            if getattr(element, "key", None) == key:
                return element
    return None


def same(shown, in_link: str) -> bool:
    if isinstance(shown, bool):
        return shown == (in_link == "true")
    if isinstance(shown, int | float):
        return float(shown) == pytest.approx(float(in_link))
    return str(shown) == in_link


def shared_link(at) -> dict[str, list[str]]:
    """The link in the sidebar's "Link to this view", opened (it draws only when open)."""
    assert not at.sidebar.code  # closed: nothing drawn, nothing fetched by the browser
    at.session_state[SHARE_OPEN] = True
    at.run()
    codes = [c.value for c in at.sidebar.code]
    assert len(codes) == 1, codes
    return parse_qs(urlsplit(codes[0]).query)


@pytest.mark.parametrize("page", list(CASES))
def test_url_to_state_to_url(page):
    query = CASES[page]
    at = run_app(page, **query)
    assert_clean(at)
    for key, value in query.items():
        shown = widget(at, key)
        assert shown is not None, f"{page}: no widget for {key}"
        assert same(shown.value, value), (page, key, shown.value, value)
    link = shared_link(at)
    for key, value in query.items():
        assert link.get(key) == [value], (page, key, link.get(key))
