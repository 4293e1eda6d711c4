"""Tables and plotly figures of the Compare page: every model on the same split.

Compute-then-draw: ``results_table``, ``roc_table`` compute small DataFrames from
fitted models; functions named ``*_figure`` only draw. A model keeps one colour on
every figure: its position in :data:`MODEL_NAMES`.

References
----------
Hastie, Tibshirani & Friedman (2009), *The Elements of Statistical Learning*, 2nd ed., §15.2
and §10.8 (spam: tree 9.3%, bagging 5.4%, random forest 4.9%).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from engine.metrics import mean_squared_error, r2_score, roc_auc_score, roc_curve

from ._text import plain
from .style import Style

#: Every model the page can compare, in the order of the table and the palette.
MODEL_NAMES: tuple[str, ...] = (
    "Naive Bayes", "Decision tree", "Pruned tree (CV)", "Bagging", "Random forest",
    "AdaBoost", "Gradient boosting",
)


@dataclass(frozen=True)
class Entry:
    """One fitted model of the comparison.

    ``columns`` are the test columns it reads (Naive Bayes also reads text);
    ``seconds`` the wall time of its training (cross-validation included).
    """

    name: str
    model: object
    seconds: float
    columns: tuple[str, ...]
    note: str = ""


def model_color(name: str, style: Style) -> str:
    """The colour of model ``name`` on every figure of the page."""
    return style.color(MODEL_NAMES.index(name) if name in MODEL_NAMES else len(MODEL_NAMES))


def model_error(model, X, y, task: str) -> float:
    """Misclassification rate (1/n) Σ 1[ŷᵢ ≠ yᵢ], or the mean squared error (regression)."""
    predicted = model.predict(X)
    if task == "regression":
        return mean_squared_error(y, predicted)
    return float(np.mean(np.asarray(predicted, dtype=object) != np.asarray(y, dtype=object)))


def _size(model) -> tuple[float, float]:
    """(number of trees, mean leaves per tree); NaN where the model has none."""
    members = getattr(model, "estimators_", None)
    if members is not None:
        trees = [t for t in np.ravel(np.asarray(members, dtype=object)) if hasattr(t, "tree_")]
        return float(len(trees)), float(np.mean([t.tree_.n_leaves for t in trees]))
    if hasattr(model, "tree_"):
        return 1.0, float(model.tree_.n_leaves)
    return np.nan, np.nan


def _oob(model, task: str) -> float:
    score = getattr(model, "oob_score_", None)
    if score is None:
        return np.nan
    return float(score) if task == "regression" else 1.0 - float(score)


def results_table(entries: list[Entry], X_test: pd.DataFrame, y_test, task: str) -> pd.DataFrame:
    """One row per model (:func:`result_row`), in the order of ``entries``.

    Returns
    -------
    DataFrame with columns ``model``, then ``test error`` (classification) or
    ``test MSE`` and ``test R²`` (regression), ``training time (s)``, ``OOB error``
    (``OOB R²`` for regression; bagging and forests only, NaN otherwise), ``trees``,
    ``leaves per tree`` (mean over the trees) and ``note``.
    """
    return pd.DataFrame([result_row(entry, X_test, y_test, task) for entry in entries])


def result_row(entry: Entry, X_test: pd.DataFrame, y_test, task: str) -> dict:
    """One model's row of :func:`results_table`: it scores the model on the test rows."""
    X = X_test[list(entry.columns)]
    trees, leaves = _size(entry.model)
    row = {"model": entry.name}
    if task == "regression":
        predicted = entry.model.predict(X)
        row["test MSE"] = mean_squared_error(y_test, predicted)
        row["test R²"] = r2_score(y_test, predicted)
    else:
        row["test error"] = model_error(entry.model, X, y_test, task)
    oob_name = "OOB R²" if task == "regression" else "OOB error"
    row.update({"training time (s)": entry.seconds, oob_name: _oob(entry.model, task),
                "trees": trees, "leaves per tree": leaves, "note": entry.note})
    return row


def error_bars_figure(table: pd.DataFrame, task: str, style: Style = Style()) -> go.Figure:
    """Horizontal bars of the test error (per cent) or test MSE, the value beside each bar.

    Models run top to bottom in the table's order; horizontal bars keep long model
    names readable at any width.
    """
    column = "test MSE" if task == "regression" else "test error"
    values = table[column].to_numpy(dtype=float)
    shown = values if task == "regression" else 100 * values
    labels = [f"{v:.4g}" if task == "regression" else f"{v:.1f}%" for v in shown]
    fig = go.Figure(go.Bar(
        y=table["model"], x=shown, orientation="h", text=labels, textposition="outside",
        cliponaxis=False, marker_color=[model_color(n, style) for n in table["model"]]))
    axis = "test mean squared error" if task == "regression" else "test error (%)"
    fig.update_layout(xaxis_title=axis, showlegend=False, yaxis_autorange="reversed",
                      height=max(300, 70 + len(table) * (2.4 * style.font_size + 8)),
                      xaxis_range=[0, 1.2 * max(float(np.nanmax(shown)), 1e-9)])
    return style.apply(fig, title=f"Test {'MSE' if task == 'regression' else 'error'} "
                                  "on the same split")


def learning_curve_figure(curves: pd.DataFrame, error_name: str,
                          style: Style = Style()) -> go.Figure:
    """Test error (solid) and training error (dashed) against the training-set size.

    ``curves`` has one row per (model, size): ``model``, ``n_train``, ``train_error``,
    ``test_error``. A model's two lines share one legend entry, so a click hides both.
    """
    fig = go.Figure()
    for name, rows in curves.groupby("model", sort=False):
        color = model_color(name, style)
        for column, dash, legend in (("test_error", "solid", True), ("train_error", "dash", False)):
            fig.add_scatter(
                x=rows["n_train"], y=rows[column], mode="lines+markers", name=name,
                legendgroup=name, showlegend=legend, line=dict(color=color, dash=dash,
                                                               width=style.line_width),
                marker=dict(size=style.marker_size),
                hovertemplate=f"{name}, {column.split('_')[0]}: %{{y:.4g}} "
                              "with %{x} training rows<extra></extra>")
    fig.update_layout(xaxis_title="training rows", yaxis_title=error_name)
    style.apply(fig, title="Learning curves: solid = test, dashed = training")
    return style.legend_below(fig)



def roc_table(entries: list[Entry], X_test: pd.DataFrame, y_test, pos_label) -> pd.DataFrame:
    """Every model's ROC curve on the test rows: ``model``, ``fpr``, ``tpr``, ``auc``.

    The score of a row is the model's probability of ``pos_label``.
    """
    frames = []
    for entry in entries:
        column = list(entry.model.classes_).index(pos_label)
        score = entry.model.predict_proba(X_test[list(entry.columns)])[:, column]
        fpr, tpr, _ = roc_curve(y_test, score, pos_label)
        frames.append(pd.DataFrame({"model": entry.name, "fpr": fpr, "tpr": tpr,
                                    "auc": roc_auc_score(y_test, score, pos_label=pos_label)}))
    return pd.concat(frames, ignore_index=True)


def roc_figure(table: pd.DataFrame, pos_label, style: Style = Style()) -> go.Figure:
    """TPR against FPR for every model, AUC in the legend, the diagonal of guessing."""
    fig = go.Figure()
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="lines", name="guessing (AUC 0.5)",
                    line=dict(color="#888888", dash="dot", width=style.line_width * 0.6))
    for name, rows in table.groupby("model", sort=False):
        fig.add_scatter(x=rows["fpr"], y=rows["tpr"], mode="lines",
                        name=f"{name} (AUC {rows['auc'].iloc[0]:.3f})",
                        line=dict(color=model_color(name, style), width=style.line_width,
                                  shape="linear"))
    fig.update_layout(xaxis_title="false positive rate FP / N",
                      yaxis_title="true positive rate TP / P",
                      xaxis_range=[-0.01, 1.01], yaxis_range=[-0.01, 1.01])
    style.apply(fig, title=f"ROC curves (positive class: {plain(pos_label)})")
    return style.legend_below(fig)
