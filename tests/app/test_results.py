"""The Results tab's one helper (``ui.results``): the score, a page's own numbers and the
confusion matrix, in each layout the pages use, drawn under AppTest."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest


def _show(sample: str, target: str, layout: str, extra: bool, all_rows: bool) -> None:
    """The script AppTest runs: a tree on ``sample`` and its Results tab."""
    from engine.data import Dataset, load_sample
    from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor
    from ui import results
    from viz.style import Style

    dataset = Dataset(load_sample(sample), target, random_state=0)
    dataset = dataset.on_all_rows() if all_rows else dataset
    classify = dataset.task == "classification"
    tree = (DecisionTreeClassifier if classify else DecisionTreeRegressor)(max_depth=2)
    model = tree.fit(dataset.X_train, dataset.y_train)
    predicted = model.predict(dataset.X_test)
    numbers = [results.mse(dataset, predicted)] if extra else []
    rest = results.show(dataset, model, predicted, Style(), layout=layout, extra=numbers)
    if rest is not None:
        rest.caption("the page's own chart goes here")


def run(sample: str, target: str, layout: str = "stacked", extra: bool = False,
        all_rows: bool = False) -> AppTest:
    at = AppTest.from_function(_show, args=(sample, target, layout, extra, all_rows),
                               default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


#: Each layout's columns: (share of the width, elements in it) for a class target.
COLUMNS = {"stacked": [], "halves": [(0.5, 1), (0.5, 1)], "side": [(0.333, 1), (0.667, 1)],
           "compact": [(0.6, 2), (0.4, 0)]}


def columns(at: AppTest) -> list[tuple[float, int]]:
    return [(round(c.proto.weight, 3), len(c.children)) for c in at.columns]


@pytest.mark.parametrize("layout", list(COLUMNS))
def test_a_class_target_shows_its_accuracy_and_confusion_matrix(layout):
    at = run("iris", "species", layout)
    assert columns(at) == COLUMNS[layout]
    assert [m.label for m in at.metric] == ["Test accuracy"]
    assert at.metric[0].value.endswith("%")
    assert at.metric[0].help == "Share of the test rows whose predicted class is the true class."
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert figure["data"][0]["type"] == "heatmap"
    assert figure["layout"]["xaxis"]["title"]["text"] == "predicted class"
    assert len(figure["data"][0]["x"]) == 3  # the three species
    assert [c.value for c in at.caption] == (["the page's own chart goes here"]
                                             if layout == "halves" else [])


@pytest.mark.parametrize("layout", ["stacked", "side", "compact"])
def test_a_numeric_target_shows_r2_and_the_pages_own_numbers_without_a_matrix(layout):
    at = run("friedman1", "y", layout, extra=True)
    assert [m.label for m in at.metric] == ["Test R²", "Test mean squared error"]
    assert at.metric[0].help.startswith("R² = 1 − Σ(y − ŷ)² / Σ(y − ȳ)² on the test rows")
    assert float(at.metric[0].value) <= 1.0 and float(at.metric[1].value) > 0
    assert not at.get("plotly_chart")
    if layout == "compact":  # side by side
        assert columns(at) == [(0.5, 1), (0.5, 1)]


def test_scores_on_every_row_say_the_rows_were_seen():
    at = run("iris", "species", all_rows=True)
    assert at.metric[0].label == "Accuracy on seen rows"
    assert "all rows (every one seen in fitting)" in at.metric[0].help
