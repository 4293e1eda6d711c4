"""Data page figures, checked on their data (no browser needed)."""
import pandas as pd
import pytest

from viz.data_charts import class_balance_figure, missing_values_figure, target_histogram
from viz.style import PALETTE, Style

BALANCE = pd.DataFrame({
    "class": ["no", "yes", "no", "yes", "no", "yes"],
    "split": ["all", "all", "train", "train", "test", "test"],
    "count": [5, 9, 4, 6, 1, 3],
    "share": [5 / 14, 9 / 14, 0.4, 0.6, 0.25, 0.75],
})


def test_class_balance_has_one_bar_trace_per_split_in_order():
    fig = class_balance_figure(BALANCE)
    assert [t.name for t in fig.data] == ["all", "train", "test"]
    assert list(fig.data[1].y) == pytest.approx([0.4, 0.6])
    assert list(fig.data[0].text) == ["5", "9"]
    assert fig.layout.xaxis.title.text == "class"
    assert fig.layout.yaxis.tickformat == ".0%"


def test_presentation_style_enlarges_type():
    normal = class_balance_figure(BALANCE, Style())
    big = class_balance_figure(BALANCE, Style.presentation())
    assert big.layout.font.size >= 22 > normal.layout.font.size


def test_class_names_that_look_like_markup_stay_text():
    balance = BALANCE.assign(**{"class": ["<b>x</b>", "1", "<b>x</b>", "1", "<b>x</b>", "1"]})
    fig = class_balance_figure(balance)
    # escaped, so plotly.js draws the characters instead of a bold "x"
    assert list(fig.data[0].x) == ["&lt;b&gt;x&lt;/b&gt;", "1"]
    assert list(fig.layout.xaxis.categoryarray) == ["&lt;b&gt;x&lt;/b&gt;", "1"]
    assert fig.layout.xaxis.type == "category"  # "1" must not become a number axis


def test_target_histogram_counts_every_row():
    y = pd.Series([1.0, 2.0, 2.5, 10.0], name="price")
    fig = target_histogram(y)
    assert len(fig.data[0].x) == 4
    assert fig.layout.xaxis.title.text == "price"


def test_missing_values_lists_only_columns_with_gaps():
    schema = pd.DataFrame({"n_missing": [0, 3, 1]}, index=["a", "b", "c"])
    fig = missing_values_figure(schema, n_rows=10)
    assert list(fig.data[0].y) == ["c", "b"]
    assert list(fig.data[0].x) == pytest.approx([0.1, 0.3])


def test_palette_has_sixteen_distinct_colours():
    assert len(set(PALETTE)) == len(PALETTE) >= 12
