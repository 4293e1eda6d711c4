"""Where a point is drawn: jitter on few-valued axes only, never across a threshold."""
import numpy as np
import pandas as pd

from viz._points import JITTER, is_spread, spread
from viz.tree_figures import boundary_figure


def _frame():
    rng = np.random.default_rng(3)
    return pd.DataFrame({"pclass": rng.integers(1, 4, 500).astype(float),
                         "age": rng.normal(30, 10, 500).round(1)})


def test_few_valued_columns_are_jittered_within_a_share_of_their_gap():
    frame = _frame()
    shown = spread(frame)
    moved = shown["pclass"] - frame["pclass"]
    assert (moved != 0).mean() > 0.99
    assert moved.abs().max() <= JITTER * 1.0
    # every point stays nearer its own value than any other: no threshold between two
    # values (at their midpoint) is crossed
    assert (shown["pclass"].round() == frame["pclass"]).all()
    pd.testing.assert_series_equal(shown["age"], frame["age"])
    assert is_spread(frame) and not is_spread(frame[["age"]])


def test_the_jitter_is_the_same_on_every_draw_and_missing_stays_missing():
    frame = _frame()
    frame.loc[::7, "pclass"] = np.nan
    first, second = spread(frame), spread(frame)
    pd.testing.assert_frame_equal(first, second)
    assert first["pclass"].isna().equals(frame["pclass"].isna())


def test_a_boundary_figure_draws_jittered_points_and_hovers_the_true_values():
    frame = _frame()
    y = np.where(frame["age"] > 30, "old", "young")
    grid = {"x": np.linspace(0, 4, 5), "y": np.linspace(0, 60, 5), "z": np.zeros((5, 5))}
    fig = boundary_figure(grid, frame, y, frame.iloc[:0], y[:0], ["old", "young"])
    trace = next(t for t in fig.data if t.type == "scatter" and len(t.x))
    assert not np.isin(trace.x, [1.0, 2.0, 3.0]).all()            # drawn off the values
    assert set(np.asarray(trace.customdata)[:, 0]) <= {1.0, 2.0, 3.0}  # hovered at them
    assert "customdata[0]" in trace.hovertemplate
