"""Streamlit glue of the Random Forest page: its controls, cached fits and cached views.

Every control's key starts with ``rf_`` and is bound to the URL query parameter of the
same name. Forests are cached by (dataset content hash, parameters) with
``st.cache_resource`` (the same object comes back, never re-pickled); everything derived
from them (the pass over the trees on the test rows, importances, the m sweep, boundary
grids) once under the same key by ``fitting.compute_once`` or ``fit_once``, when a tab
asks for it or ahead of it (:func:`prefetch_views`).
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from engine.ensemble import RandomForestClassifier, RandomForestRegressor, first_members
from engine.inspection import StagedErrors, importance_frame, oob_permutation_drops, staged_errors
from ui.fitting import (
    FIT_JOBS,
    compute_once,
    fit_once,
    fitted_model,
    fitted_sizes,
    growing,
    is_fitted,
    keep_model,
    note_size,
    prefetch,
    shared,
    under_way,
    wait_for_growth,
    worker_processes,
)
from ui.limits import IMPORTANCE_OOB_ROWS
from ui.tree_controls import tree_features
from viz import forest_figures as ff
from viz import tree_figures as tf

from . import data_controls as dc
from . import predict, questions, results, url
from .axes import axis_pair, default_pair
from .markdown import literal
from .params import Control, cache_key, draw_controls, seed

#: The m sweep fits one forest per m with at most this many trees (half as many when the
#: training table has more cells than SWEEP_CELLS).
SWEEP_TREES, SWEEP_CELLS = 50, 50_000
NOISE = "random noise"

def forest_features(dataset: Dataset) -> list[str]:
    """Columns the trees split on (text columns are left out, as on the tree page)."""
    return tree_features(dataset)


def default_m(task: str, p: int) -> int:
    """Breiman's m: ⌊√p⌋ for classification, ⌊p/3⌋ for regression (at least 1)."""
    return ff.m_marks(p)["√p" if task == "classification" else "p/3"]


def _m_slider(dataset: Dataset) -> dict:
    """The m slider on this data: its range 1..p, Breiman's default, the marks in its label."""
    p = len(forest_features(dataset))
    marks = ff.m_marks(p)
    return {"label": f"m: features per split (√p = {marks['√p']}, p/3 = {marks['p/3']}, "
                     f"p = {p} is bagging)",
            "args": (1, max(p, 2), default_m(dataset.task, p)), "kwargs": {"disabled": p == 1},
            "convert": lambda m: int(min(m, p))}


def _min_leaf(dataset: Dataset) -> dict:
    """Breiman's (2001) smallest leaf: 1 row for classification, 5 for regression."""
    return {"args": (1, 1000, 1 if dataset.task == "classification" else 5)}


#: The forest's parameters, in the sidebar's order (see ``ui.params``).
CONTROLS = (
    Control("n_estimators", st.number_input, "Number of trees B", "rf_trees", (1, 500, 100),
            convert=int,
            help="B, the number of trees. Prediction averages them: ŷ = (1/B) Σ_b f̂_b(x) "
                 "(regression), π = (1/B) Σ_b π_b (classification). A few hundred trees are "
                 "usually enough; watch the OOB curve flatten."),
    Control("max_features", st.slider, "m: features per split", "rf_m", adapt=_m_slider,
            help="Before each split, draw m of the p features at random and split on the "
                 "best of those m only. Breiman's defaults: m ≈ √p (classification), "
                 "m ≈ p/3 (regression). m = p is bagging. Smaller m: less alike trees "
                 "(smaller ρ), each a little worse."),
    Control("max_depth", st.number_input, "Max depth", "rf_max_depth", (1, 60),
            {"value": None, "placeholder": "no limit"},
            help="Nodes at this depth become leaves (the root has depth 0). Empty: grow until "
                 "the leaves are pure or too small, as random forests usually do."),
    Control("min_samples_leaf", st.number_input, "Min samples per leaf", "rf_min_leaf",
            adapt=_min_leaf, convert=int,
            help="Every leaf keeps at least this many training rows (in-bag copies "
                 "counted). Breiman (2001): 1 for classification, 5 for regression."),
    Control("bootstrap", st.toggle, "Bootstrap samples", "rf_bootstrap", kwargs={"value": True},
            convert=bool,
            help="On: each tree grows on a bootstrap sample Z*b, n rows drawn with "
                 "replacement. Off: every tree sees every row (then only the feature draws "
                 "differ, and there are no out-of-bag rows)."),
)


def controls(dataset: Dataset) -> dict:
    """Draw the forest's controls; returns its parameters (keyword arguments)."""
    params = draw_controls(CONTROLS, dataset)
    return {**params, "oob_score": params["bootstrap"], "random_state": seed(),
            "n_jobs": FIT_JOBS}


def _estimator(task: str, params: dict):
    cls = RandomForestClassifier if task == "classification" else RandomForestRegressor
    return cls(**params)


def training_rows(dataset: Dataset, noise: bool = False) -> pd.DataFrame:
    """The training features; with ``noise``, plus a column of N(0, 1) noise."""
    X = dataset.X_train[forest_features(dataset)]
    if not noise:
        return X
    rng = np.random.default_rng(int(dataset.random_state or 0))
    return X.assign(**{NOISE: rng.normal(size=len(X))})


def _forest_key(dataset: Dataset, params: dict, noise: bool, columns: tuple | None = None) -> tuple:
    return "forest", *cache_key(dataset, params), noise, columns


def is_grown(dataset: Dataset, params: dict, *, noise: bool = False) -> bool:
    """Whether :func:`fit_forest` has this forest already (no progress bar, no wait)."""
    return is_fitted(_forest_key(dataset, params, noise))


#: A forest of more (rows per tree × trees) than this grows in waves (:func:`waves`):
#: half its trees, then all, so that a view asking for fewer trees meanwhile has them.
WAVES_ABOVE = 500_000
#: ... and, when its growth is drawn, a first wave of a tenth of its trees when its fit
#: does more work than this: per tree, the rows it grows on plus the out-of-bag rows its
#: OOB pass walks (about 1-2 s of a fit on two workers here). A wave costs a few tenths
#: of a second of its own (the data handed to the workers again, an OOB pass set up, a
#: redraw), so a forest fitted in about a second shows its whole curve sooner without.
FIRST_PICTURE_ABOVE = 1_500_000


def oob_rows_per_tree(n_rows: int, rows_per_tree: int) -> float:
    """The expected out-of-bag rows of a tree that draws ``rows_per_tree`` of ``n_rows``
    rows with replacement: each row is missed with probability (1 − 1/n)^draws.

    >>> round(oob_rows_per_tree(3_450, 3_450)), round(oob_rows_per_tree(140_000, 10_000))
    (1269, 130349)
    """
    return n_rows * (1.0 - 1.0 / max(n_rows, 1)) ** rows_per_tree


def waves(n_estimators: int, rows_per_tree: int, first_picture: bool = True,
          oob_rows: float = 0.0) -> list[int]:
    """The forest's size after each wave of its growth: one wave for a small forest
    (:data:`WAVES_ABOVE`); else half of the trees and all of them, after a tenth of them
    (at least four) when its growth is drawn (``first_picture``) and long
    (:data:`FIRST_PICTURE_ABOVE`, with ``oob_rows`` the rows each tree's OOB pass walks).
    Each wave pays the fit's fixed costs again (the data prepared, handed to the
    workers, the OOB pass set up).

    >>> waves(100, 3_450), waves(200, 3_450, oob_rows=1_269)
    ([100], [100, 200])
    >>> waves(100, 10_000, oob_rows=130_349), waves(100, 10_000, first_picture=False)
    ([10, 50, 100], [50, 100])
    >>> waves(12, 200_000)
    [4, 6, 12]
    """
    if n_estimators < 8 or n_estimators * rows_per_tree <= WAVES_ABOVE:
        return [n_estimators]
    long = n_estimators * (rows_per_tree + oob_rows) > FIRST_PICTURE_ABOVE
    first = {max(4, n_estimators // 10)} if first_picture and long else set()
    return sorted(first | {n_estimators // 2, n_estimators})


def _grower(dataset: Dataset, params: dict, *, noise: bool = False,
            columns: tuple | None = None, grown=None):
    """``(key, family, fit)`` of a forest: ``fit(progress)`` grows it on the training
    rows (plus the noise column, or only ``columns``), shared under ``key``; ``family``
    is its parameters without the number of trees (see :func:`ui.fitting.note_size`).

    A forest of the same parameters but another number of trees that is grown already
    is not grown again: a larger one gives its first trees (``first_members``), a
    smaller one is continued (a warm start grows only the missing trees). A large
    forest grows in :func:`waves` (a first one only for ``grown``), ``grown(forest)``,
    if given, called after each wave but the last, and the forest after each wave is
    kept as the forest of that many trees. Member b's seeds depend only on the seed and
    b, so each is the forest one fit would grow. While a forest of the family with at least as many trees is being
    grown elsewhere (the page's prefetch), its trees are waited for, not grown beside it."""
    B = params["n_estimators"]

    def key_of(size: int | None) -> tuple:
        return _forest_key(dataset, {**params, "n_estimators": size}, noise, columns)
    family = key_of(None)

    def fit(progress):
        X = training_rows(dataset, noise) if columns is None else dataset.X_train[list(columns)]
        y = dataset.y_train
        grown_ones = {**wait_for_growth(family, B), **fitted_sizes(family, key_of)}
        if larger := [size for size in grown_ones if size > B]:
            return first_members(grown_ones[min(larger)], B, X, y)
        smaller = max(grown_ones, default=0)
        forest = (copy.copy(grown_ones[smaller]) if smaller  # the cached one stays as it is
                  else _estimator(dataset.task, params))
        per_tree = params.get("max_samples") or len(y)
        oob = oob_rows_per_tree(len(y), per_tree) if params.get("oob_score") else 0.0
        sizes = [size for size in waves(B, per_tree, grown is not None, oob) if size > smaller]
        with growing(family, B, key_of(B)), worker_processes():
            for size in sizes:
                before = len(getattr(forest, "estimators_", []))
                forest.set_params(n_estimators=size, warm_start=True).fit(
                    X, y, progress=lambda done, total, before=before: progress(before + done, B))
                if size < B:  # a forest of `size` trees, as one fit would grow it
                    wave = copy.copy(forest).set_params(warm_start=False)
                    keep_model(key_of(size), wave)
                    note_size(family, size, wave)
                    if grown is not None:
                        grown(forest)
        return forest.set_params(warm_start=False)
    return key_of(B), family, fit


def fit_forest(dataset: Dataset, params: dict, *, noise: bool = False, what: str = "trees",
               grown=None):
    """The fitted forest (see :func:`_grower`), fitted once per server and shared; a
    progress bar while it grows. Raises ValueError."""
    key, family, fit = _grower(dataset, params, noise=noise, grown=grown)
    forest = fit_once(key, fit, f"Growing {what}")
    note_size(family, params["n_estimators"])
    return forest


def _pass_key(dataset: Dataset, params: dict) -> tuple:
    return "rf-scored-pass", *cache_key(dataset, params)


def _scored_pass(forest, dataset: Dataset, params: dict):
    """The key and the computation of one pass over every tree on the scored rows, which
    gives the test error curve, the predictions (offered to :func:`results.predicted`)
    and ρ, σ² (:class:`~engine.inspection.StagedErrors`): cut from the pass of a larger
    forest of the family when one is scored already."""
    def compute():
        staged = (_cut_from_larger(dataset, params, _pass_key, StagedErrors.first)
                  or staged_errors(forest, dataset.X_test[forest_features(dataset)], dataset.y_test))
        results.offer(("rf", *cache_key(dataset, params)), staged.prediction)
        return staged
    return _pass_key(dataset, params), compute


def _cut_from_larger(dataset: Dataset, params: dict, key_of_result, cut, noise: bool = False):
    """``cut(result, B)`` of the result (found under ``key_of_result(dataset, params)``)
    of a larger forest of this forest's family that has it already, or None. A forest
    of B trees is the larger one's first B trees (``first_members``), so what it gives
    tree by tree is a prefix of the larger one's: "50 trees" after the default 100
    walks no tree again."""
    B = params["n_estimators"]

    def key_of(size: int | None) -> tuple:
        return _forest_key(dataset, {**params, "n_estimators": size}, noise)
    for size in sorted(size for size in fitted_sizes(key_of(None), key_of) if size > B):
        larger = fitted_model(key_of_result(dataset, {**params, "n_estimators": size}))
        if larger is not None and (found := cut(larger, B)) is not None:
            return found
    return None


def scored_pass(forest, dataset: Dataset, params: dict):
    """:func:`_scored_pass`, computed once per forest and shared: the OOB error, Effect
    of m and Results tabs all read it (see :func:`prefetch_views`)."""
    return compute_once(*_scored_pass(forest, dataset, params), "Scoring the test rows with every tree")


def error_curve(forest, dataset: Dataset, params: dict) -> pd.DataFrame:
    """The forest's OOB and test error curves (the test one from :func:`scored_pass`)."""
    X_test = dataset.X_test[forest_features(dataset)]
    return ff.error_curve(forest, X_test, dataset.y_test, scored_pass(forest, dataset, params))


def trees_shown(n_trees: int) -> int:
    """How many trees' OOB error the curve shows before the OOB question is answered
    (with Predict first off: all)."""
    return n_trees - questions.oob_held_back(n_trees) if predict.on() else n_trees


def oob_question(curves: dict[str, pd.DataFrame], dataset: Dataset, params: dict,
                 classify: bool) -> dict[str, pd.DataFrame]:
    """With Predict first on, ask what the OOB error does over the last trees (below the
    chart); until the student answers, the ``curves`` stop before those trees."""
    curve = next(iter(curves.values()))
    if predict.ask(lambda: questions.oob_trend(
            curve, questions.question_key("rf-oob", cache_key(dataset, params)), classify)):
        return curves
    return {name: c.iloc[:trees_shown(len(c))] for name, c in curves.items()}


def correlation(forest, dataset: Dataset, params: dict) -> tuple[float, float]:
    """ρ and σ² of the forest's trees over the scored rows (from :func:`scored_pass`)."""
    found = scored_pass(forest, dataset, params).correlation
    return found.rho, found.sigma2


def _importance(forest, dataset: Dataset, params: dict, noise: bool):
    """The key and the computation of each tree's OOB permutation drops (cut from a
    larger forest's when it has them)."""
    def key_of(dataset: Dataset, params: dict) -> tuple:
        return "oob-drops", *cache_key(dataset, params), noise

    def compute() -> np.ndarray:
        cut = _cut_from_larger(dataset, params, key_of, lambda drops, B: drops[:B], noise)
        if cut is not None:
            return cut
        with worker_processes():  # groups of trees on the forest's workers
            return oob_permutation_drops(forest, training_rows(dataset, noise), dataset.y_train,
                                         random_state=params["random_state"], n_jobs=FIT_JOBS,
                                         max_rows=IMPORTANCE_OOB_ROWS)
    return key_of(dataset, params), compute


def oob_importance(forest, dataset: Dataset, params: dict, noise: bool = False) -> pd.DataFrame:
    """OOB permutation importance, from each tree's drops computed once per forest and
    shared (see :func:`prefetch_views`)."""
    drops = compute_once(*_importance(forest, dataset, params, noise),
                         "Permuting each feature on each tree's OOB rows")
    return importance_frame(forest.feature_names_in_, drops.T)


def prefetch_views(forest, dataset: Dataset, params: dict) -> None:
    """Start in the background what the other tabs wait for: the forest on the default
    pair of features (:func:`pair_grid`, the longest), the pass over every tree on the
    scored rows (:func:`scored_pass`: predictions, ρ and σ²), then the OOB permutation
    importance, so that the tabs open at once."""
    jobs = []
    if len(numeric := _numeric(dataset)) >= 2:
        jobs.append(_pair_grid(dataset, params, default_pair(dataset, numeric)))
    jobs.append(_scored_pass(forest, dataset, params))
    if params["bootstrap"]:
        jobs.append(_importance(forest, dataset, params, noise=False))
    prefetch(*jobs)


def m_grid(p: int, current: int) -> list[int]:
    """The m values of the sweep: 1, √p, p/3, p and the current m, plus the geometric
    midpoint between each two neighbours (at most about ten forests)."""
    marks = sorted({1, current, *ff.m_marks(p).values()})
    mids = {int(round(np.sqrt(a * b))) for a, b in zip(marks, marks[1:], strict=False)}
    return sorted(set(marks) | mids)


def sweep_trees(dataset: Dataset, n_estimators: int) -> int:
    """Trees per forest of the sweep: fewer on large data, where each tree costs more."""
    size = len(dataset.y_train) * len(forest_features(dataset))
    return min(n_estimators, SWEEP_TREES if size <= SWEEP_CELLS else SWEEP_TREES // 2)


def m_sweep(dataset: Dataset, params: dict, grid: tuple, progress=None) -> pd.DataFrame:
    """One forest per m in ``grid`` (the other parameters fixed): errors and ρ, σ²."""
    rows, X_test = [], dataset.X_test[forest_features(dataset)]
    report = progress or (lambda done, total: None)
    for i, m in enumerate(grid):
        forest = _estimator(dataset.task, {**params, "max_features": int(m)})

        def step(done: int, total: int, i: int = i) -> None:
            report(i * total + done, total * len(grid))  # trees over the whole sweep

        with worker_processes():
            forest.fit(training_rows(dataset), dataset.y_train, progress=step)
        staged = staged_errors(forest, X_test, dataset.y_test)  # one pass: curve, ρ and σ²
        curve, found = ff.error_curve(forest, X_test, dataset.y_test, staged), staged.correlation
        rows.append({"m": m, "oob": curve["oob"].iloc[-1], "test": curve["test"].iloc[-1],
                     "rho": found.rho, "sigma2": found.sigma2})
    return pd.DataFrame(rows)


def sweep_view(dataset: Dataset, params: dict, style) -> None:
    """Effect of m: the sweep (on request), its figure, and the measured variance."""
    p = len(forest_features(dataset))
    grid = tuple(m_grid(p, params["max_features"]))
    n_trees = sweep_trees(dataset, params["n_estimators"])
    if not url.bound(st.toggle, f"Fit one forest of {n_trees} trees for each m in {list(grid)}",
                     key="rf_m_run",
                     help="Each point is its own forest; fewer trees than above keep it quick."):
        return
    swept = {**params, "n_estimators": n_trees}
    table = fit_once(("forest-m-sweep", *cache_key(dataset, swept), grid),
                     lambda progress: m_sweep(dataset, swept, grid, progress),
                     "Fitting one forest per m (trees)")
    st.plotly_chart(ff.effect_of_m_figure(table, p, params["max_features"],
                                          error_label=ff.error_name(dataset.task ==
                                                                    "classification"),
                                          style=style), width="stretch")
    st.caption("Each point is a forest of its own. Small m: trees less alike (ρ falls) but "
               "each tree weaker; m = p is bagging. Error is lowest somewhere in between.")


def importance_view(dataset: Dataset, params: dict, style) -> None:
    """OOB permutation importance beside impurity importance, optionally with noise."""
    noise = url.bound(
        st.toggle, f"Add a column of random noise (“{NOISE}”, N(0, 1), all values distinct)",
        key="rf_noise", help="A feature that carries no information. Impurity importance still "
                             "credits it (it offers many thresholds to split on); permutation "
                             "importance stays near 0.")
    forest = fit_forest(dataset, params, noise=noise, what="the forest with the noise column"
                        if noise else "trees")
    impurity = ff.impurity_importance_table(forest)
    if params["bootstrap"] and not predict.ask(lambda: questions.more_important(
            oob_importance(forest, dataset, params, noise),
            questions.question_key("rf-importance", cache_key(dataset, params), noise))):
        return  # the charts wait for the student's prediction
    left, right = st.columns(2)
    right.plotly_chart(ff.importance_bars_figure(
        impurity, title="Impurity importance", x_title="impurity decrease (share)",
        highlight=NOISE if noise else None, style=style), width="stretch")
    if not params["bootstrap"]:
        left.info("OOB permutation importance needs out-of-bag rows: turn **Bootstrap samples** on.")
        return
    table = oob_importance(forest, dataset, params, noise)
    drop = "accuracy" if dataset.task == "classification" else "−MSE"
    left.plotly_chart(ff.importance_bars_figure(
        table, title="OOB permutation importance", x_title=f"OOB {drop} drop",
        highlight=NOISE if noise else None, style=style), width="stretch")
    sampled = int((forest.inbag_counts_ == 0).sum(axis=1).max()) > IMPORTANCE_OOB_ROWS
    st.caption("Permutation (Breiman 2001): for each tree, OOB accuracy minus OOB accuracy with "
               "feature k shuffled among its OOB rows, averaged over the trees; bars show ±1 "
               "standard deviation across trees. Impurity: each tree's share of the total "
               "impurity decrease made by splits on k, averaged."
               + (f" Each tree scores a seeded sample of {IMPORTANCE_OOB_ROWS:,} of its OOB rows."
                  if sampled else ""))
    if noise:
        rank = {name: int((t["importance_mean"] > t.set_index("feature").loc[NOISE,
                          "importance_mean"]).sum()) + 1 for name, t in
                (("permutation", table), ("impurity", impurity))}
        st.markdown(f"The noise column ranks **{rank['impurity']}** of {len(impurity)} by "
                    f"impurity and **{rank['permutation']}** by permutation importance.")


def _numeric(dataset: Dataset) -> list[str]:
    """The numeric features, the ones a two-feature picture can draw."""
    return dc.numeric_of(dataset, forest_features(dataset))


def _pair_settings(dataset: Dataset, params: dict) -> dict:
    """The parameters of the forest on two features: the page's, with m = 1 (2 for
    bagging) and, for the regions only, no out-of-bag pass over every training row."""
    bagging = params["max_features"] >= len(forest_features(dataset))
    return {**params, "max_features": 2 if bagging else 1, "oob_score": False}


def _pair_grid(dataset: Dataset, params: dict, pair: tuple[str, str]):
    """The key and the computation of a forest with the same parameters on two columns,
    predicted over a grid. The forest itself is shared as the page's forests are
    (:func:`_grower`): with fewer or more trees it is cut or continued, not regrown."""
    pair = tuple(pair)

    def key_of(dataset: Dataset, params: dict) -> tuple:
        return "forest-pair", *cache_key(dataset, params), pair

    def compute() -> dict:
        cut = _cut_from_larger(dataset, params, key_of, tf.first_trees_grid)
        if cut is not None:
            return cut
        settings = _pair_settings(dataset, params)
        key, family, fit = _grower(dataset, settings, columns=pair)
        forest = shared(key, lambda: fit(lambda done, total: None))
        note_size(family, settings["n_estimators"])
        return tf.decision_grid(forest, dataset.X_train[list(pair)], resolution=120, stages=True)
    return key_of(dataset, params), compute


def pair_grid(dataset: Dataset, params: dict, pair: tuple[str, str]) -> dict:
    """:func:`_pair_grid`, computed once per (data, parameters, pair) and shared (see
    :func:`prefetch_views`). Raises ValueError."""
    return compute_once(*_pair_grid(dataset, params, pair), "Fitting a forest on the two features")


def _pair_under_way(dataset: Dataset, params: dict, pair: tuple[str, str]) -> bool:
    """Whether the regions on ``pair`` are being made in the background (or the forest
    on the pair they come from is being grown there) and are not there yet."""
    key, _ = _pair_grid(dataset, params, pair)
    if is_fitted(key):
        return False
    _, family, _ = _grower(dataset, _pair_settings(dataset, params), columns=tuple(pair))
    return under_way(key, family, params["n_estimators"])


#: Seconds between two looks, while the regions are made in the background, at whether
#: they are there.
REGIONS_POLL_S = 0.5


def boundary_view(dataset: Dataset, params: dict, style) -> None:
    """The forest refitted on two chosen numeric features: its decision regions. While
    they are made in the background (the forest on the pair still growing there), the
    tab does not wait for them: they appear once made (:func:`_regions_when_made`)."""
    numeric = _numeric(dataset)
    if len(numeric) < 2:
        st.info("The decision boundary needs two numeric features; this data has fewer.")
        return
    pair = axis_pair(dataset, numeric, ("rf_bx", "rf_by"))
    if _pair_under_way(dataset, params, pair):
        _regions_when_made(dataset, params, pair)
    else:
        _regions(dataset, params, pair, style)


def _regions_when_made(dataset: Dataset, params: dict, pair: tuple[str, str]) -> None:
    """A note in place of the regions, looking every :data:`REGIONS_POLL_S` seconds
    whether the background work is done; then the page runs again and draws them."""
    @st.fragment(run_every=REGIONS_POLL_S)
    def waiting() -> None:
        if not _pair_under_way(dataset, params, pair):
            st.rerun()
        st.info(f"Growing a forest on **{literal(pair[0])}** and **{literal(pair[1])}** in the "
                "background: its decision regions appear here when it is grown.",
                icon=":material/hourglass_top:")
    waiting()


def _regions(dataset: Dataset, params: dict, pair: tuple[str, str], style) -> None:
    a, b = pair
    try:
        grid = pair_grid(dataset, params, (a, b))
    except ValueError as error:
        st.error(f"**No forest on these two features.** {error} Choose two other columns.")
        return
    points = dc.two_feature_points(dataset, [a, b])
    st.plotly_chart(tf.boundary_figure(grid, points.train, points.y_train, points.test,
                                       points.y_test, dataset.class_names, style,
                                       title="Decision regions of a forest on two features"),
                    width="stretch")
    st.caption("A forest refitted on just these two columns (m = 1 of 2; 2 when m = p, "
               f"bagging), same B and limits. {points.note} Averaging many "
               "axis-parallel trees gives a smoother, staircase boundary. "
               f"{points.beyond(grid['x'], grid['y'])}")
