"""Streamlit glue of the AdaBoost page: its controls and its cached computations.

Every control's key starts with ``ab_`` and is bound to the URL query parameter of the
same name. Two models are fitted and cached: the one on all features (tables, curves,
results) and one on the two drawn features only (the boundary of the round-by-round
view). Everything a step of that view needs (all T grids, every round's misclassified
rows) is computed once and cached, so a step only slices arrays and draws.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from engine.ensemble import AdaBoostClassifier
from engine.inspection import staged_error_curve
from engine.metrics import accuracy_score
from engine.tree import DecisionTreeClassifier
from ui.fitting import compute_once, fit_once, fitted_model, in_worker, prefetch
from ui.stepper import stepped
from ui.tree_controls import tree_features
from viz import adaboost_figures as af

from . import data_controls as dc
from . import predict, questions, tables, url
from .axes import axis_pair, chosen_pair
from .markdown import literal
from .params import Control, cache_key, draw_controls, seed

HELP = {
    "pair": "The two numeric features of the picture. Its boundary comes from a second "
            "AdaBoost fitted on these two features only.",
    "source": "Which model's round t the points show: α_i, the × marks and the split line.",
}
SOURCES = ["all features", "the two drawn features"]
PAIR_KEYS = ("ab_x", "ab_y")  # the URL keys of the picture's two features


def boost_features(dataset: Dataset) -> list[str]:
    """Features the trees can split on (text columns are left out)."""
    return tree_features(dataset)


def numeric_features(dataset: Dataset) -> list[str]:
    return dc.numeric_of(dataset, boost_features(dataset))


#: The boosting parameters, in the sidebar's order (see ``ui.params``); ``max_depth`` is
#: the weak learner's, which :func:`_estimator` builds.
CONTROLS = (
    Control("n_estimators", st.number_input, "Rounds T", "ab_rounds", (1, 500, 50),
            help="T, the number of boosting rounds: the ensemble is "
                 "F̂(x) = sign(Σ_{t=1..T} ŵ_t f̂_t(x)). Boosting stops early if a "
                 "learner is perfect (ε_t = 0) or no better than chance."),
    Control("learning_rate", st.number_input, "Learning rate η", "ab_lr", (0.01, 2.0, 1.0),
            {"step": 0.1},
            help="η multiplies every model weight: ŵ_t = η · ½ ln((1 − ε_t)/ε_t). "
                 "Smaller η: smaller steps, more rounds needed."),
    Control("max_depth", st.number_input, "Weak learner depth", "ab_depth", (1, 5, 1),
            help="Depth of each weak learner f̂_t. 1 = a stump (one question), the classic "
                 "choice."),
)


def controls(dataset: Dataset) -> dict:
    """Draw the boosting parameters; returns AdaBoostClassifier's keyword arguments (minus
    the weak learner, which ``estimator`` builds from ``max_depth``)."""
    return {**draw_controls(CONTROLS, dataset), "random_state": seed()}


def _estimator(params: dict) -> AdaBoostClassifier:
    params = dict(params)
    learner = DecisionTreeClassifier(max_depth=int(params.pop("max_depth")),
                                     binning=params.pop("binning", "exact"))
    return AdaBoostClassifier(estimator=learner, **params)


def fit(dataset: Dataset, params: dict, columns: list[str]) -> AdaBoostClassifier:
    """The fitted AdaBoost on ``columns`` (fitted once per server, shared), with a
    progress bar while it boosts.

    Raises ValueError when it cannot be fitted (e.g. the first learner is no better
    than chance).
    """
    return fit_once(_fit_key(dataset, params, columns), lambda progress: _estimator(params).fit(
        dataset.X_train[columns], dataset.y_train, progress=progress), "Boosting: rounds done")


def _fit_key(dataset: Dataset, params: dict, columns: list[str]) -> tuple:
    """The shared key of :func:`fit`'s model on ``columns``."""
    return ("adaboost", *cache_key(dataset, params), tuple(columns))


def prefetch_pair(dataset: Dataset, params: dict, features: list[str]) -> None:
    """Start the round view's two-feature model (:func:`fit` of the pair its axes will
    show) in a worker process, before the page fits its own model on ``features``: on
    a large upload the two fits run side by side instead of one after the other."""
    numeric = numeric_features(dataset)
    if len(numeric) < 2:
        return
    pair = list(chosen_pair(dataset, numeric, PAIR_KEYS))
    if pair != features:
        # (the estimator's own fit: a worker unpickles it with the engine alone)
        prefetch((_fit_key(dataset, params, pair),
                  lambda: in_worker(_estimator(params).fit, dataset.X_train[pair],
                                    dataset.y_train)))


@st.cache_data(max_entries=16, show_spinner="Drawing every round's boundary once…")
def staged_grid(_model, content_hash: str, params: tuple, pair: tuple[str, str],
                _X2: pd.DataFrame) -> af.StagedGrid:
    return af.staged_grid(_model, _X2)


def _error_curves(model, dataset: Dataset, params: dict, columns: list[str]):
    """The key and the computation of ``model``'s (the page's, see :func:`fit`) training
    and test misclassification rate after 1..n_rounds rounds."""
    def compute() -> tuple[np.ndarray, np.ndarray]:
        return in_worker(_staged_errors, model, dataset.X_train[columns], dataset.y_train,
                         dataset.X_test[columns], dataset.y_test)
    return ("adaboost-errors", *cache_key(dataset, params), tuple(columns)), compute


def _staged_errors(model, X_train, y_train, X_test, y_test) -> tuple[np.ndarray, np.ndarray]:
    return staged_error_curve(model, X_train, y_train), staged_error_curve(model, X_test, y_test)


def _tree_errors(dataset: Dataset, params: dict, columns: list[str]):
    """The key and the computation of the test error of a stump and of a full-depth tree
    on the same training rows, searched as the page's learners are (exact, or between
    quantile bins)."""
    seed, binning = params["random_state"], params["binning"]

    def compute() -> dict[str, float]:
        return in_worker(_single_tree_errors, dataset.X_train[columns], dataset.y_train,
                         dataset.X_test[columns], dataset.y_test, seed, binning)
    return ("single-trees", dataset.content_hash, tuple(columns), seed, binning), compute


def _single_tree_errors(X_train, y_train, X_test, y_test, seed: int, binning: str) -> dict[str, float]:
    errors = {}
    for name, depth in (("a stump", 1), ("a full-depth tree", None)):
        tree = DecisionTreeClassifier(max_depth=depth, random_state=seed, binning=binning)
        errors[name] = 1.0 - accuracy_score(y_test, tree.fit(X_train, y_train).predict(X_test))
    return errors


def error_curves(model, dataset: Dataset, params: dict, columns: list[str]):
    """:func:`_error_curves`, computed once and shared (see :func:`prefetch_views`)."""
    return compute_once(*_error_curves(model, dataset, params, columns), "Scoring every round")


def tree_errors(dataset: Dataset, params: dict, columns: list[str]) -> dict[str, float]:
    """:func:`_tree_errors`, computed once and shared."""
    return compute_once(*_tree_errors(dataset, params, columns),
                        "Growing the single trees to compare with")


def grown_tree_errors(dataset: Dataset, params: dict, columns: list[str]) -> dict | None:
    """:func:`tree_errors` if they are there already, else None (nothing is grown)."""
    return fitted_model(_tree_errors(dataset, params, columns)[0])


def prefetch_views(model, dataset: Dataset, params: dict, columns: list[str]) -> None:
    """Start the Error vs rounds tab's staged errors in the background, in a worker
    process. The single trees beside them (a full-depth tree: seconds on a large
    upload) are grown when the tab opens, after its curves are drawn: made ahead, they
    held the queue up for the next page's own work."""
    prefetch(_error_curves(model, dataset, params, columns))


def round_view(dataset: Dataset, model, params: dict, features: list[str], style) -> None:
    """The heart of the page: round t's points, learner and boundary, and its arithmetic."""
    numeric = numeric_features(dataset)
    picture = None
    shown, shown_columns = model, features
    if len(numeric) >= 2:
        pair = axis_pair(dataset, numeric, PAIR_KEYS, help=(HELP["pair"], HELP["pair"]))
        pair_model = model if list(pair) == features else fit(dataset, params, list(pair))
        source = SOURCES[0] if pair_model is model else url.bound(
            st.radio, "Points, × marks and split line from the model on", SOURCES,
            key="ab_source", horizontal=True, help=HELP["source"])
        if source == SOURCES[1]:
            shown, shown_columns = pair_model, list(pair)
        X2 = dataset.X_train[list(pair)]
        grid = staged_grid(pair_model, *cache_key(dataset, params), pair, X2)
        rows = dc.drawn_rows(dataset, dataset.y_train, dc.STEPPED_POINTS)
        picture = (grid, X2, pair, rows)
        _picture_caption(dataset, pair_model is model, shown is model, pair)
        notes = [dc.sample_note(f"{len(rows):,} of {len(X2):,} training rows")
                 if len(rows) < len(X2) else "", dc.beyond_note([X2.iloc[rows]], grid.xs, grid.ys)]
        if any(notes):
            st.caption(" ".join(n for n in notes if n))
    else:
        st.info("The picture needs two numeric features and this data has fewer; the "
                "round's arithmetic below uses all features.")
    missing = bool(dataset.X_train[shown_columns].isna().to_numpy().any())

    model_key = cache_key(dataset, params)

    def question(t: int, detail: af.RoundDetail):
        """Rounds alternate: whether ε_t rises (even t), which points get heavier (odd t)."""
        key = questions.question_key("ab", model_key, tuple(shown_columns), t)

        def error():
            return questions.error_change(shown.estimator_errors_, t, key)

        def heavier():
            return questions.heavier_group(shown.estimators_[t - 1], detail, dataset.y_train,
                                           dataset.X_train[shown_columns], key,
                                           [str(c) for c in shown.classes_])
        return questions.alternate(t, error, heavier)

    def draw(t: int) -> bool:
        detail = af.round_detail(shown, t)
        if not predict.ask(question(t, detail)):
            return False  # the round waits for the student's prediction
        learner = shown.estimators_[t - 1]
        if picture is None:
            round_arithmetic(shown, learner, detail, None, missing)
        else:  # stacked, not side by side: the formulas need the width at 1024 px
            grid, X2, pair, rows = picture
            t_grid = min(t, len(grid.class_index))
            st.plotly_chart(af.round_figure(grid, t_grid, X2, dataset.y_train, detail,
                                            af.stump_line(learner, pair), style, rows),
                            width="stretch")
            if t_grid < t:
                st.caption(f"The two-feature model stopped after {t_grid} rounds: its last "
                           "boundary is shown.")
            round_arithmetic(shown, learner, detail, pair, missing)
        heaviest_points(detail, dataset)
        return True

    stepped(draw, first=1, last=len(shown.estimators_), key="ab_round", label="Round t")


def _picture_caption(dataset: Dataset, same: bool, full: bool, pair: tuple[str, str]) -> None:
    if same:
        st.caption("Shaded: the ensemble's class after t rounds, sign(Σ_{s≤t} ŵ_s f̂_s(x)). "
                   "Point area ∝ α_i, the weight f̂_t was fitted with; × marks the points "
                   "f̂_t got wrong; dashed: f̂_t's split.")
        return
    source = "the model on all features" if full else "the two-feature model"
    st.caption(f"The shaded boundary, sign(Σ_{{s≤t}} ŵ_s f̂_s(x)), comes from a second AdaBoost "
               f"fitted on **{literal(pair[0])}** and **{literal(pair[1])}** only (a boundary needs a model of "
               f"two inputs). Point areas ∝ α_i, × marks and the dashed split come from "
               f"{source}; the tables, curves and results use the model on all "
               f"{len(boost_features(dataset))} features.")


def round_arithmetic(model, learner, detail: af.RoundDetail, pair: tuple[str, str] | None,
                     missing: bool) -> None:
    """Round t's learner, ε_t and ŵ_t with the numbers plugged in, and the reweighting.

    ``missing``: the training rows have missing values (say where the learner sends them).
    """
    t, K = detail.t, len(model.classes_)
    sides = " · ".join(f"{literal(side)} → **{literal(c)}**"
                       for side, c in af.learner_sides(learner, note_missing=missing))
    st.markdown(f"$\\hat f_{{{t}}}$ asks **{literal(af.learner_rule(learner))}**: {sides}")
    if pair is not None and af.stump_line(learner, pair) is None:
        st.caption("Its split is not on one of the two drawn features, so no line is drawn.")
    st.latex(rf"\varepsilon_{{{t}}} = \textstyle\sum_{{\hat f_{{{t}}}(x_i) \ne y_i}} "
             rf"\alpha_i = {detail.error:.4f}")
    st.latex(_weight_latex(detail, float(model.learning_rate), K))
    n_wrong, n = int(detail.miss.sum()), len(detail.miss)
    st.markdown(f"**{n_wrong:,}** of {n:,} training points misclassified: their α_i × "
                f"e^ŵ = {np.exp(detail.weight):.3f}, the others' × e^−ŵ = "
                f"{np.exp(-detail.weight):.3f}, then all ÷ Z = {detail.normaliser:.4f} to sum "
                f"to 1. The misclassified now hold **{detail.after[detail.miss].sum():.1%}**"
                f" of the weight (before: {detail.before[detail.miss].sum():.1%}).")


def heaviest_points(detail: af.RoundDetail, dataset: Dataset, k: int = 8) -> None:
    """The k points heaviest after round t's update, with their weights before and after."""
    table = af.heaviest_table(detail, dataset.y_train, dataset.X_train.index, k)
    st.markdown(f"**The {k} heaviest points after round {detail.t}** (training rows): "
                "the next learner is pushed hardest to get these right.")
    tables.show(table, hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.4g") for c in table.columns[3:]})


def _weight_latex(detail: af.RoundDetail, eta: float, K: int) -> str:
    """The model weight with round t's numbers: ŵ_t = η · ½ ln((1 − ε_t)/ε_t) [+ ½ ln(K − 1)]."""
    t, e, w = detail.t, detail.error, detail.weight
    if e <= 0:
        return (rf"\varepsilon_{{{t}}} = 0:\ \text{{a perfect learner, kept with }}"
                rf"\hat w_{{{t}}} = {w:.4f}\text{{; boosting stops}}")
    scale = "" if eta == 1 else rf"{eta:g} \cdot "
    body = rf"\tfrac12 \ln\tfrac{{1 - {e:.4f}}}{{{e:.4f}}}"
    if K > 2:
        body = rf"\left({body} + \tfrac12 \ln({K} - 1)\right)"
    return rf"\hat w_{{{t}}} = {scale}{body} = {w:.4f}"
