"""Presentation mode draws tables as large-type HTML tables (issue 32): the data grid
draws on a canvas at a fixed 14 px that no CSS reaches."""
from __future__ import annotations

from ui.tables import PRESENTATION_ROWS

from .test_pages import assert_clean, run_app


def test_normal_mode_keeps_the_scrolling_grid():
    at = run_app("app_pages/naive_bayes.py", data="playtennis")
    assert_clean(at)
    assert len(at.dataframe) >= 1 and len(at.table) == 0


def test_presentation_mode_draws_the_same_tables_in_large_type():
    at = run_app("app_pages/naive_bayes.py", data="playtennis", present="true")
    assert_clean(at)
    assert len(at.dataframe) == 0 and len(at.table) >= 1
    likelihoods = at.table[0].value
    assert "P(x | Yes)" in " ".join(map(str, likelihoods.columns))


def test_a_long_table_shows_its_first_rows_and_says_so():
    at = run_app("app_pages/data.py", data="spambase", present="true")
    assert_clean(at)
    assert len(at.table[0].value) == PRESENTATION_ROWS
    assert any(f"The first {PRESENTATION_ROWS} of" in c.value for c in at.caption)


def test_a_hand_typed_switch_opens_presentation_mode_without_a_notice():
    """A teacher types ?present=1 (or yes, on, True): the link means presentation mode."""
    for text in ("1", "yes", "On", "True"):
        at = run_app("app_pages/naive_bayes.py", data="playtennis", present=text)
        assert_clean(at)
        assert len(at.dataframe) == 0 and len(at.table) >= 1, text
        assert not at.warning, [w.value for w in at.warning]
    at = run_app("app_pages/naive_bayes.py", data="playtennis", present="0")
    assert len(at.dataframe) >= 1 and not at.warning
