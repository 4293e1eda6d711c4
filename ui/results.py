"""The Results tab of a model page: how well the model does on the scored rows.

A class target shows its accuracy and confusion matrix, a numeric target its R²; a page
adds its own numbers after the score (the forest's OOB score, boosting's MSE). Every
page scores on ``dataset.y_test``: the test rows, or every row when all are fitted, and
the labels say which (``data_controls.scored_on``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import streamlit as st

from engine.data import Dataset
from engine.metrics import accuracy_score, confusion_matrix, mean_squared_error, r2_score
from viz import tree_figures as tf
from viz.style import Style

from . import data_controls as dc
from .fitting import compute_once, keep_model

#: What the score means, filled in with the rows scored (``{rows}``) and their count (``{n}``).
ACCURACY_HELP = "Share of {rows} whose predicted class is the true class."
R2_HELP = "R² = 1 − Σ(y − ŷ)² / Σ(y − ȳ)² on {rows}."


def prediction(model, dataset: Dataset, features: Sequence[str], key: tuple):
    """The key and the computation of ``model``'s predictions on the scored rows, for
    :func:`predicted` or a page's prefetch. ``key`` names the model: the page's name and
    its :func:`ui.params.cache_key`."""
    return _prediction_key(key), lambda: model.predict(dataset.X_test[list(features)])


def _prediction_key(key: tuple) -> tuple:
    return ("predicted", *key)


def offer(key: tuple, predicted) -> None:
    """Share ``predicted``, the predictions on the scored rows of the model ``key`` names
    (as :func:`prediction`'s), made on the way to something else: :func:`predicted`
    then takes them instead of predicting."""
    keep_model(_prediction_key(key), predicted)


def predicted(model, dataset: Dataset, features: Sequence[str], key: tuple):
    """``model``'s predictions on the scored rows, computed once per model (see
    :func:`prediction`) and shared: a rerun of the tab predicts nothing again."""
    return compute_once(*prediction(model, dataset, features, key), "Predicting the scored rows")


@dataclass(frozen=True)
class Number:
    """One number of the tab, as ``st.metric`` shows it: label, value as text, meaning."""

    label: str
    value: str
    help: str | None = None


def score(dataset: Dataset, predicted, *, accuracy_help: str = ACCURACY_HELP,
          r2_help: str = R2_HELP) -> Number:
    """Accuracy (a class target) or R² (a numeric one) of ``predicted`` on the scored rows."""
    y, words = dataset.y_test, {"rows": dc.scored_rows(dataset), "n": len(dataset.y_test)}
    if dataset.task == "classification":
        return Number(dc.scored_on(dataset, "accuracy"), f"{accuracy_score(y, predicted):.1%}",
                      accuracy_help.format(**words))
    return Number(dc.scored_on(dataset, "R²"), f"{r2_score(y, predicted):.3f}",
                  r2_help.format(**words))


def mse(dataset: Dataset, predicted) -> Number:
    """The mean squared error of ``predicted`` on the scored rows."""
    return Number(dc.scored_on(dataset, "mean squared error"),
                  f"{mean_squared_error(dataset.y_test, predicted):.4g}")


def show_number(number: Number, place=st) -> None:
    """``number`` as an ``st.metric`` in ``place``."""
    place.metric(number.label, number.value, help=number.help)


def confusion(dataset: Dataset, predicted, classes: Sequence, style: Style, place=st) -> None:
    """The confusion matrix of ``predicted`` on the scored rows (rows and columns in
    ``classes`` order)."""
    matrix = confusion_matrix(dataset.y_test, predicted, labels=classes)
    place.plotly_chart(tf.confusion_figure(matrix, classes, style, dc.scored_rows_title(dataset)),
                       width="stretch")


def show(dataset: Dataset, model, predicted, style: Style, *, layout: str = "stacked",
         extra: Sequence[Number] = (), accuracy_help: str = ACCURACY_HELP,
         r2_help: str = R2_HELP):
    """The score of ``model``'s ``predicted`` values, then ``extra``, and for a class
    target the confusion matrix (in ``model.classes_`` order), laid out as ``layout``:

    * ``"stacked"``: one under another, full width;
    * ``"halves"``: the numbers, then the matrix in the left half; returns the right
      half, for the page's own chart;
    * ``"side"``: the numbers in the left third, the matrix in the other two;
    * ``"compact"``: numbers and matrix in three fifths of the width (a few classes need
      no more); without a matrix, the numbers side by side.

    Returns None but for ``"halves"``.
    """
    numbers = [score(dataset, predicted, accuracy_help=accuracy_help, r2_help=r2_help), *extra]
    matrix = (partial(confusion, dataset, predicted, model.classes_, style)
              if dataset.task == "classification" else None)
    return LAYOUTS[layout](numbers, matrix)


#: Draws the confusion matrix in the container it is given (None: a numeric target).
Matrix = Callable[[object], None] | None


def _stacked(numbers: list[Number], matrix: Matrix) -> None:
    _column(st, numbers)
    if matrix is not None:
        matrix(st)


def _halves(numbers: list[Number], matrix: Matrix):
    _column(st, numbers)
    left, right = st.columns(2, gap="medium")
    if matrix is not None:
        matrix(left)
    return right


def _side(numbers: list[Number], matrix: Matrix) -> None:
    left, right = st.columns([1, 2])
    _column(left, numbers)
    if matrix is not None:
        matrix(right)


def _compact(numbers: list[Number], matrix: Matrix) -> None:
    if matrix is None:
        for place, number in zip(st.columns(len(numbers)), numbers, strict=True):
            show_number(number, place)
        return
    part, _ = st.columns([3, 2])
    _column(part, numbers)
    matrix(part)


def _column(place, numbers: list[Number]) -> None:
    for number in numbers:
        show_number(number, place)


LAYOUTS = {"stacked": _stacked, "halves": _halves, "side": _side, "compact": _compact}
