"""Streamlit glue of the Gradient Boosting page: its controls and its cached computations.

Every control's key starts with ``gb_`` and is bound to the URL query parameter of the
same name. Fitted models live in ``st.cache_resource`` (returned without copying; never
mutated), everything derived from them (stages, curves, grids, importances) in
``st.cache_data``; both are keyed by the dataset's content hash and the parameters, so
moving the round slider only draws.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from engine.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from engine.ensemble._gradient_boosting import importance_shares
from engine.inspection import permutation_importance
from ui.fitting import compute_once, fit_once, fitted_model, in_worker, prefetch, tallied
from ui.limits import PERMUTATION_ROWS
from ui.stepper import stepped
from ui.tally import boost_tallied
from ui.tree_controls import tree_features
from viz import gb_figures as gf
from viz import tree_figures as tf

from . import data_controls as dc
from . import predict, questions, url
from .axes import axis_pair, default_pair, most_useful
from .params import Control, cache_key, draw_controls, seed

#: Loss names in the URL and the selectbox → the engine's names.
LOSSES = {"squared": "squared_error", "absolute": "absolute_error", "huber": "huber"}
SHRINKAGE_VALUES = (1.0, 0.1, 0.01)

HELP = {
    "permutation": "I_j = s − (1/R) Σ_r s_{j,r}: the test score s (accuracy or R²) minus its "
                   "mean over R shuffles of column j (R = 5; 3 above 20 columns). Computed on "
                   "demand: one prediction of the test rows per column and shuffle.",
    "feature": "The picture boosts a regressor on this one column (rows where it is missing "
               "are left out), so every S_t is a step function of x.",
    "class": "A class target is shown as the 0/1 indicator 1[y = c], boosted as a regression: "
             "S_t then estimates P(y = c | x). The classifier of the other tabs boosts the "
             "log-odds with the log loss instead.",
}


def features(dataset: Dataset) -> list[str]:
    """Columns a tree can split on (text columns are left out)."""
    return tree_features(dataset)


def numeric_features(dataset: Dataset) -> list[str]:
    return dc.numeric_of(dataset, features(dataset))


#: The boosting parameters, in the sidebar's order (see ``ui.params``); ``loss`` is the
#: regressor's only (a class target is boosted with the log loss).
CONTROLS = (
    Control("n_estimators", st.number_input, "Rounds T", "gb_rounds", (1, 1000, 100),
            convert=int,
            help="Number of trees T. The strong model after t rounds is S_t = S_0 + ν Σ f_k(x) "
                 "over k = 1..t (Friedman 2001: S_{t+1} = S_t − ν w_t, with f_{t+1} = −w_t)."),
    Control("learning_rate", st.number_input, "Learning rate ν", "gb_nu", (0.001, 1.0, 0.1),
            {"step": 0.01, "format": "%.3f"}, convert=float,
            help="Shrinkage ν in S_{t+1} = S_t − ν w_t: each tree's step is scaled by ν. Small "
                 "ν learns slowly and needs more rounds, but usually generalises better."),
    Control("max_depth", st.number_input, "Tree depth", "gb_depth", (1, 10, 3), convert=int,
            help="Depth of each regression tree w_t (the weak model). Depth 1 = stumps: no "
                 "interactions between features; depth d allows d-way interactions."),
    Control("subsample", st.slider, "Subsample", "gb_subsample", (0.1, 1.0, 1.0, 0.05),
            convert=float,
            help="Share of the training rows drawn (without replacement) for each tree. "
                 "Below 1 this is stochastic gradient boosting (Friedman 2002)."),
    Control("loss", st.selectbox, "Loss (numeric target)", "gb_loss", (list(LOSSES),),
            convert=LOSSES.get,
            help="Loss L(y, S) of a numeric target. Squared: L = (y − S)², w_t = ∂L/∂S_t = "
                 "−2(y − S_t), so the tree fits the residual. Absolute: L = |y − S|, the tree "
                 "fits sign(y − S_t), leaves take the median. Huber: squared for small "
                 "residuals, absolute for large ones. A class target uses the log loss; this "
                 "choice then applies to the one-feature picture."),
)


def controls(dataset: Dataset) -> tuple[dict, str]:
    """Draw the parameter controls; returns (boosting parameters, regression loss)."""
    params = draw_controls(CONTROLS, dataset)
    loss = params.pop("loss")
    if dataset.task == "classification":
        st.caption("Class target: the model uses the log loss; the loss above applies to the "
                   "one-feature picture.")
    return {**params, "random_state": seed()}, loss


def model_params(task: str, params: dict, loss: str) -> dict:
    """The estimator's keyword arguments: the loss only for a regressor."""
    return {**params, "loss": loss} if task == "regression" else dict(params)


def _estimator(task: str, params: dict):
    cls = GradientBoostingRegressor if task == "regression" else GradientBoostingClassifier
    return cls(**params)


def _model_fit(dataset: Dataset, key: tuple):
    """The slot key and the fit (given a progress callback) of the model on every feature;
    ``key`` is the parameters' ``cache_key``."""
    def fit(progress):
        X = dataset.X_train[features(dataset)]
        return _estimator(dataset.task, dict(key[1])).fit(X, dataset.y_train, progress=progress)
    return ("gradient_boosting", *key), fit


def fit_model(dataset: Dataset, key: tuple, text: str = "Boosting: rounds done",
              partial=None):
    """The model on every tree-usable feature, fitted once per ``cache_key`` (dataset hash,
    parameters) and shared; a miss fits with a progress bar. Raises ValueError when it
    cannot be fitted. While :func:`prefetch_model`'s fit of it runs, ``partial(done,
    total, sums)`` draws the rounds so far (``sums``: their importance per feature, not
    normalised); see ``fitting.fit_once``.
    """
    return fit_once(*_model_fit(dataset, key), text.rstrip(":"), partial)


def prefetch_model(dataset: Dataset, key: tuple) -> None:
    """Start fitting the model on every feature in the background (the round view uses
    a one-feature model of its own), so that the tabs that need it open at once. It fits
    in a worker process, so that the round view's steps meanwhile do not wait for it,
    and tells the server its rounds and their importances as it goes. For a class
    target the Classification tab's work follows, in a worker process too: the model's
    staged errors, then the model on the default pair of features and its grid after
    every round."""
    slot, _ = _model_fit(dataset, key)
    model, names = _estimator(dataset.task, dict(key[1])), features(dataset)
    jobs = [tallied(slot, len(names), lambda tally: in_worker(
        boost_tallied, model, dataset.X_train[names], dataset.y_train, tally))]
    if dataset.task == "classification":
        jobs.append(_errors(dataset, key, lambda: fitted_model(slot)))
        if len(numeric := numeric_features(dataset)) >= 2:
            jobs.append(_pair(dataset, key, default_pair(dataset, numeric)))
    prefetch(*jobs)


IMPORTANCE_CAPTION = ("Impurity importance: each split's decrease of the squared error of the "
                      "pseudo-residuals, summed over {trees}, normalised to sum 1.")


def importance_so_far(names: list[str], style):
    """The Importance tab's picture while the model is still being fitted ahead: the
    importances of the rounds fitted so far (see :func:`fit_model`)."""
    def draw(done: int, total: int, sums: np.ndarray) -> None:
        title = f"Feature importances after {done} of {total} rounds"
        st.plotly_chart(tf.importance_figure(names, importance_shares(sums), style, title=title),
                        width="stretch", key=f"gb-importance-{done}")
        st.caption(IMPORTANCE_CAPTION.format(trees=f"the trees of the first {done} rounds")
                   + " The chart follows the fit until all its rounds are in.")
    return draw


def one_feature_data(dataset: Dataset, feature: str, positive) -> tuple[pd.DataFrame, np.ndarray]:
    """Training rows with ``feature`` present; the target, or its 0/1 indicator of a class."""
    keep = dataset.X_train[feature].notna().to_numpy()
    y = dataset.y_train.to_numpy()[keep]
    if positive is not None:
        y = (y.astype(str) == str(positive)).astype(float)
    return dataset.X_train.loc[keep, [feature]].astype(float), y


@st.cache_data(max_entries=4, show_spinner="Boosting on one feature…")
def one_feature(_dataset: Dataset, content_hash: str, params: tuple, feature: str,
                positive) -> gf.OneFeatureStages:
    """Every round of a one-feature model: a regressor of the target, or for a class c the
    log-loss classifier of 1[y = c] (the loss the page's model minimises)."""
    X, y = one_feature_data(_dataset, feature, positive)
    if positive is None:
        model = GradientBoostingRegressor(**dict(params)).fit(X, y)
    else:
        settings = {k: v for k, v in params if k != "loss"}
        model = GradientBoostingClassifier(**settings).fit(X, y.astype(int))
    label = _dataset.target if positive is None else f"1[{_dataset.target} = {positive}]"
    return gf.one_feature_stages(model, X, y, label,
                                 rows=dc.drawn_rows(_dataset, y, dc.STEPPED_POINTS))


def shrinkage_values(nu: float) -> list[float]:
    """The chosen ν and two of 1, 0.1, 0.01 (the two farthest apart from it on a log scale)."""
    others = [v for v in SHRINKAGE_VALUES if not np.isclose(v, nu)]
    if len(others) == 3:  # ν is none of them: drop the one nearest to it
        others.pop(int(np.argmin([abs(np.log10(v / nu)) for v in others])))
    return sorted([nu, *others], reverse=True)


def shrinkage_curves(dataset: Dataset, params: dict) -> dict:
    """Loss curves for each ν of :func:`shrinkage_values`, fitted with a progress bar."""
    nus = shrinkage_values(params["learning_rate"])
    curves = {}
    for i, nu in enumerate(nus):
        key = cache_key(dataset, {**params, "learning_rate": nu})
        model = fit_model(dataset, key, f"Boosting with ν = {nu:g} ({i + 1} of {len(nus)}):")
        curves[nu] = loss_curve(model, dataset, *key)
    return curves


@st.cache_data(max_entries=16, show_spinner="Scoring every round…")
def loss_curve(_model, _dataset: Dataset, content_hash: str, params: tuple) -> pd.DataFrame:
    """Training and test loss of the model after every round (see ``gf.loss_curves``)."""
    X_train, X_test = (part[features(_dataset)] for part in (_dataset.X_train, _dataset.X_test))
    return gf.loss_curves(_model, X_train, _dataset.y_train, X_test, _dataset.y_test)


def permutation_note(dataset: Dataset) -> str:
    """Which test rows the permutation importance shuffles: all, or how many of them."""
    n = len(dataset.y_test)
    return (f" On a seeded sample of {PERMUTATION_ROWS:,} of the {n:,} test rows, with each "
            "class's share." if n > PERMUTATION_ROWS else "")


def n_repeats(dataset: Dataset) -> int:
    """Shuffles per column: 5, or 3 with many columns (each one predicts the test rows)."""
    return 5 if len(features(dataset)) <= 20 else 3


@st.cache_data(max_entries=16, show_spinner="Shuffling each column of the test rows…")
def permutation(_model, _dataset: Dataset, content_hash: str, params: tuple) -> pd.DataFrame:
    """Permutation importance of the model on the test rows."""
    columns = features(_dataset)
    rows = dc.drawn_rows(_dataset, _dataset.y_test, PERMUTATION_ROWS)
    X_test = _dataset.X_test[columns].iloc[rows]
    if all(_dataset.feature_kinds.get(c) == "numeric" for c in columns):
        X_test = X_test.to_numpy(dtype=float)  # the encoder's fast path: ~3x quicker here
    return permutation_importance(_model, X_test, _dataset.y_test.iloc[rows],
                                  n_repeats=n_repeats(_dataset),
                                  random_state=dict(params)["random_state"])


def _errors(dataset: Dataset, key: tuple, model):
    """The key and the computation of the staged training and test errors of ``model()``
    (the model on every feature, see :func:`fit_model`), once per ``cache_key``."""
    def compute() -> pd.DataFrame:
        fitted = model()
        if fitted is None:  # a prefetch after a fit that failed: the view fits and says why
            raise ValueError("The model on every feature is not fitted.")
        X_train, X_test = (part[features(dataset)] for part in (dataset.X_train, dataset.X_test))
        return in_worker(gf.staged_errors, fitted, X_train, dataset.y_train, X_test, dataset.y_test)
    return ("gb-errors", *key), compute


def _pair(dataset: Dataset, key: tuple, pair: tuple[str, str]):
    """The key and the computation of the classifier with the same settings on the two
    columns ``pair``: its classes and its class on a grid after every round (int8)."""
    pair = tuple(pair)

    def compute() -> dict:
        return in_worker(_pair_grids, dict(key[1]), dataset.X_train[list(pair)], dataset.y_train)
    return ("gb-pair", *key, pair), compute


def _pair_grids(params: dict, X2: pd.DataFrame, y) -> dict:
    model = GradientBoostingClassifier(**params).fit(X2, y)
    resolution = 120 if params["n_estimators"] <= 300 else 80  # bounded memory
    return {"classes": model.classes_, "grids": gf.staged_grids(model, X2, resolution)}


ROUND_TEXT = """Gradient boosting (Friedman 2001) updates $S_{t+1} = S_t - \\nu\\, w_t$, the weak
model $w_t$ fitted to the gradient $\\partial L(y, S_t)/\\partial S_t$. For the squared error,
taken as $L = \\tfrac12 (y - S_t)^2$ (halved, as Friedman and scikit-learn do), that
gradient is $-(y - S_t)$: **the residual is minus the gradient**. So the tree $f_{t+1} = -w_t$
is fitted to the residuals $r = y - S_t$ (below, points) and added:
$S_{t+1} = S_t + \\nu\\, f_{t+1}(x)$ (above, the step line moves by ν times the green step)."""

LOG_LOSS_TEXT = """For a class c the model is a log-odds, $S_t(x)$, and its probability
$p_t(x) = \\sigma(S_t(x)) = 1/(1 + e^{-S_t(x)})$ (above, the step line). The log loss
$L = -[y \\ln p + (1 - y) \\ln(1 - p)]$ with $y = 1[\\text{class} = c]$ has gradient
$\\partial L/\\partial S_t = -(y - p_t)$: **the residual in probability is minus the
gradient**. The tree $f_{t+1}$ splits on the residuals $y - p_t$ (below, points); each leaf
then takes the Newton step $\\sum r / \\sum p(1 - p)$ of its rows, in log-odds (the green
step), and $S_{t+1} = S_t + \\nu\\, f_{t+1}(x)$ (Friedman 2001)."""

OTHER_LOSS_TEXT = ("With the {loss} loss the tree splits on the pseudo-residuals −∂L/∂S_t "
                   "(crosses); each leaf then takes the loss's best step (absolute: the median "
                   "of y − S_t in the leaf), which is the green step, on the scale of y − S_t.")


def round_view(dataset: Dataset, params: dict, loss: str, style) -> None:
    """Choose x (and a class); step through the rounds of a one-feature regressor."""
    numeric = numeric_features(dataset)
    if not numeric:
        st.info("The one-feature picture needs a numeric feature and this data has none. "
                "The other tabs use every feature.")
        return
    pick, focus = st.columns(2)
    feature = url.bound(pick.selectbox, "Feature x", numeric,
                        index=numeric.index(most_useful(dataset, numeric)), key="gb_x",
                        help=HELP["feature"])
    positive = None
    if dataset.task == "classification":
        names = [str(c) for c in dataset.class_names]
        positive = url.bound(focus.selectbox, "Class c (the target is 1[y = c])", names,
                             index=min(1, len(names) - 1), key="gb_class", help=HELP["class"])
    key = (*cache_key(dataset, {**params, "loss": loss}), feature, positive)
    try:
        stages = one_feature(dataset, *key)
    except ValueError as error:
        st.error(f"**No model on {feature} alone.** {error} Choose another feature.")
        return
    st.markdown(ROUND_TEXT if positive is None else LOG_LOSS_TEXT)
    missing = int(dataset.X_train[feature].isna().sum())
    if missing:
        st.caption(f"{missing:,} training rows with {feature} missing are left out of this "
                   "picture (the other tabs keep them).")
    if len(stages.x) < stages.n_rows:
        st.caption(dc.sample_note(f"{len(stages.x):,} of {stages.n_rows:,} training rows") +
                   " The loss is over every row.")
    if loss != "squared_error" and positive is None:
        st.caption(OTHER_LOSS_TEXT.format(loss=loss.split("_")[0]))

    def draw(t: int) -> bool:
        stages = one_feature(dataset, *key)
        asked = questions.question_key("gb", key, t)

        def fits():
            return questions.fit_target(stages, t, asked, style)

        def push():
            return questions.next_push(stages.x, stages.pseudo[t], stages.feature, t, asked)
        # rounds alternate: what the next tree is fitted to (even t), where it pushes (odd t)
        if t < stages.n_rounds and not predict.ask(questions.alternate(t, fits, push)):
            return False  # the round waits for the student's prediction
        name, value = gf.round_loss(stages, t)
        st.markdown(f"**Round {t}** of {stages.n_rounds}: {name} {value:.4g}"
                    + ("" if t < stages.n_rounds else " (every tree is in: nothing left to add)"))
        st.plotly_chart(gf.round_figure(stages, t, style), width="stretch", key="gb_round_chart")
        return True

    stepped(draw, first=0, last=stages.n_rounds, key="gb_round", label="Round t")


def classification_view(dataset: Dataset, model, key: tuple, style) -> None:
    """Staged test error of the model; the boundary of a two-feature model after round t
    (``key``: the model's ``cache_key``)."""
    staged = compute_once(*_errors(dataset, key, lambda: model), "Scoring every round")
    best = staged.loc[staged["test"].idxmin()]
    st.plotly_chart(gf.staged_error_figure(staged, style=style), width="stretch")
    st.caption(f"All features. Lowest test error {best['test']:.1%} after round "
               f"{int(best['round'])}; after all {len(staged)} rounds {staged['test'].iloc[-1]:.1%}.")
    numeric = numeric_features(dataset)
    if len(numeric) < 2:
        st.info("The decision boundary needs two numeric features; this data has fewer.")
        return
    pair = axis_pair(dataset, numeric, ("gb_fx", "gb_fy"))
    fitted = compute_once(*_pair(dataset, key, pair), "Boosting on the two features")
    classes, grids = fitted["classes"], fitted["grids"]  # shared: read, never changed
    points = dc.two_feature_points(dataset, list(pair), dc.STEPPED_POINTS)

    def draw(t: int) -> None:
        figure = gf.boundary_round_figure(grids, t, points.train, points.y_train, points.test,
                                          points.y_test, classes, style)
        st.plotly_chart(figure, width="stretch", key="gb_boundary_chart")

    stepped(draw, first=0, last=len(staged), key="gb_bround", label="Round t")
    st.caption("A model with the same settings refitted on these two columns only. "
               f"{points.note} Round 0 is S₀, the class priors. "
               f"{points.beyond(grids['x'], grids['y'])}")

