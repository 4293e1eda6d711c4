"""Streamlit glue of the Compare page: its controls, its fits and its cached curves.

Every control's key starts with ``cmp_`` and is bound to the URL. Each model is fitted
once per (dataset content hash, model, parameters) and kept by ``st.cache_resource``,
so adding a model to the selection fits only that one; learning curves are cached per
model the same way and computed only when their tab is open.
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from engine.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from engine.tree import DecisionTreeClassifier, DecisionTreeRegressor, prune_to_alpha
from engine.tree._prune import choose_ccp_alpha_cv
from ui import nb_controls
from ui.fitting import FIT_JOBS, compute_once, prefetch, worker_processes
from ui.tree_controls import tree_features
from viz import compare_figures as cf
from viz.compare_figures import Entry, model_error

from . import limits, tables
from .params import Control, draw_controls

#: URL id → display name (the names of viz.compare_figures.MODEL_NAMES).
MODELS = {"nb": "Naive Bayes", "tree": "Decision tree", "pruned": "Pruned tree (CV)",
          "bagging": "Bagging", "forest": "Random forest", "adaboost": "AdaBoost",
          "gboost": "Gradient boosting"}
REGRESSION = ("tree", "pruned", "bagging", "forest", "gboost")
#: Shares of the training rows of each learning-curve point (the last reuses the fit).
FRACTIONS = (0.1, 0.2, 0.4, 0.6, 0.8, 1.0)
MIN_CURVE_ROWS = 6

@dataclass(frozen=True)
class Settings:
    """B and the two T's (hashable: part of the cache keys)."""

    n_trees: int = 100
    ada_rounds: int = 200
    gb_rounds: int = 100


def available(dataset: Dataset) -> list[str]:
    """The model ids that can learn this target from these columns."""
    ids = list(MODELS) if dataset.task == "classification" else list(REGRESSION)
    if not tree_features(dataset):  # only text: Naive Bayes alone reads words
        ids = [i for i in ids if i == "nb"]
    return ids


def columns_of(dataset: Dataset, model_id: str) -> tuple[str, ...]:
    """Naive Bayes reads every feature (text too); the tree models leave text out."""
    return tuple(dataset.features if model_id == "nb" else tree_features(dataset))


def _models(dataset: Dataset) -> dict:
    """The models this data allows, every one chosen to start, listed in ``MODELS`` order."""
    options = available(dataset)
    return {"args": (options,), "kwargs": {"default": options, "format_func": MODELS.get},
            "convert": lambda chosen: [i for i in options if i in chosen]}


#: The model multiselect, above the page: in the URL by id (a display name is read too);
#: one this data does not allow is left out, with a notice.
MODELS_CONTROL = Control(
    "models", st.multiselect, "Models", "cmp_models", adapt=_models,
    help="All fitted on the same training rows and scored on the same test rows. "
         "**Naive Bayes**: the Naive Bayes page's default (categorical counts, Gaussian "
         "numbers, bag of words). **Decision tree**: grown until its leaves are pure. "
         "**Pruned tree (CV)**: cost-complexity α chosen by 5-fold cross-validation, "
         "minimising R_α(T) = R(T) + α|T|. **Bagging**: f̂(x) = (1/B) Σ_b f̂_b(x) over B "
         "trees on bootstrap samples. **Random forest**: bagging with m = √p features "
         "(p/3 for regression) drawn at each split. **AdaBoost**: sign Σ_t α_t h_t(x) over "
         "T stumps. **Gradient boosting**: T trees of depth 3, each fitted to the residuals.")
#: The ensemble sizes, in the sidebar: the fields of :class:`Settings`.
SIZE_CONTROLS = (
    Control("n_trees", st.number_input, "Trees B (bagging, forest)", "cmp_b", (1, 1000, 100),
            convert=int,
            help="B, the number of bootstrap trees of bagging and the random forest."),
    Control("ada_rounds", st.number_input, "Rounds T (AdaBoost)", "cmp_t_ada", (1, 2000, 200),
            convert=int, help="T, the number of AdaBoost rounds (one stump h_t each)."),
    Control("gb_rounds", st.number_input, "Rounds T (gradient boosting)", "cmp_t_gb",
            (1, 2000, 100), convert=int,
            help="T, the number of gradient boosting rounds (one depth-3 tree each, "
                 "learning rate ν = 0.1): S_t = S_{t−1} + ν h_t."),
)
CONTROLS = (MODELS_CONTROL, *SIZE_CONTROLS)


def controls(dataset: Dataset) -> tuple[list[str], Settings]:
    """The model multiselect and (in the sidebar) B and T; returns (chosen ids, settings)."""
    chosen = draw_controls([MODELS_CONTROL], dataset)["models"]
    with st.sidebar:
        st.subheader("Ensemble sizes")
        settings = Settings(**draw_controls(SIZE_CONTROLS, dataset))
    return chosen, settings


def estimator(model_id: str, task: str, settings: Settings, seed: int, texts=(),
              n_rows: int = 0):
    """The unfitted model (for "pruned": the full tree whose α cross-validation picks),
    with the model pages' defaults for ``n_rows`` training rows: the binned search above
    ``limits.BINNED_ABOVE_ROWS``, fewer rows per tree above ``limits.TREE_ROWS``."""
    B, regress = settings.n_trees, task == "regression"
    binning = "quantile" if n_rows > limits.BINNED_ABOVE_ROWS else "exact"
    per_tree = limits.rows_per_tree(n_rows, B)
    if model_id == "nb":
        return nb_controls.Spec().make(tuple(texts))
    if model_id in ("tree", "pruned"):
        tree = DecisionTreeRegressor if regress else DecisionTreeClassifier
        return tree(random_state=seed, binning=binning)
    if model_id == "bagging" and regress:  # a forest that sees all p features is bagging
        return RandomForestRegressor(n_estimators=B, max_features=1.0, oob_score=True,
                                     random_state=seed, binning=binning, max_samples=per_tree,
                                     n_jobs=FIT_JOBS)
    if model_id == "bagging":
        return BaggingClassifier(estimator=DecisionTreeClassifier(binning=binning), n_estimators=B,
                                 oob_score=True, random_state=seed,
                                 max_samples=per_tree or 1.0, n_jobs=FIT_JOBS)
    if model_id == "forest":
        forest = RandomForestRegressor if regress else RandomForestClassifier
        return forest(n_estimators=B, oob_score=True, random_state=seed, binning=binning,
                      max_samples=per_tree, n_jobs=FIT_JOBS)
    if model_id == "adaboost":
        return AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1, binning=binning),
                                  n_estimators=settings.ada_rounds, random_state=seed)
    booster = GradientBoostingRegressor if regress else GradientBoostingClassifier
    return booster(n_estimators=settings.gb_rounds, max_depth=3, random_state=seed,
                   binning=binning)


def _work(model, model_id: str, n_rows: int) -> tuple[int, int, str] | None:
    """(rows each fit sees, trees or rounds, kind of ``limits.MAX_WORK``), None if light
    (a pruned tree counts five cross-validation trees and the final one)."""
    if model_id in ("bagging", "forest"):
        per_tree = model.get_params()["max_samples"]
        rows = per_tree if isinstance(per_tree, int) else n_rows
        return rows, model.n_estimators, "forest"
    if model_id == "pruned":
        return n_rows, 6, "forest"
    if model_id == "adaboost":
        return n_rows, model.n_estimators, "adaboost"
    if model_id == "gboost":
        return n_rows, model.n_estimators, "boosting"
    return None


def too_much_work(model, model_id: str, n_rows: int) -> str | None:
    """The work limit's message when fitting ``model`` on ``n_rows`` rows is refused."""
    work = _work(model, model_id, n_rows)
    return None if work is None else limits.check_work(*work)


Progress = Callable[[int, int], None]


def train(model, model_id: str, X: pd.DataFrame, y: pd.Series,
          progress: Progress | None = None, whole=None) -> tuple[object, float, str]:
    """Fit ``model`` on (X, y); returns (model, seconds, note). Raises ValueError.

    ``whole`` ("pruned" only): ``model`` already fitted on (X, y), unpruned (the
    decision tree's own fit), which the cross-validation then prunes."""
    start, note = time.perf_counter(), ""
    if model_id == "pruned":
        folds = min(5, len(y) // 2)
        if folds >= 2:  # the whole tree, grown once: the path's and, pruned, the model
            full = model.fit(X, y) if whole is None else whole
            alpha, _ = choose_ccp_alpha_cv(full, X, y, cv=folds, random_state=0, full=full,
                                           progress=progress)
            note = f"α = {alpha:.3g} ({folds}-fold CV)"
            return prune_to_alpha(full, alpha), time.perf_counter() - start, note
        note = "too few rows to cross-validate: not pruned"
    with worker_processes():  # bagging's and the forest's trees on the server's workers
        if progress is not None and model_id in ("bagging", "forest", "adaboost", "gboost"):
            model.fit(X, y, progress=progress)
        else:
            model.fit(X, y)
    return model, time.perf_counter() - start, note


@st.cache_resource(max_entries=32, show_spinner=False)
def _slot(content_hash: str, kind: str, model_id: str, params: tuple) -> dict:
    """A bounded, shared box for one result, filled by :func:`_cached`.

    The fit runs outside the cached function on purpose: a progress bar moved from
    inside an ``st.cache_*`` function is recorded for replay, and replaying it on a
    cache hit fails because the bar belongs to an earlier run.
    """
    return {"lock": threading.Lock()}


def _cached(dataset: Dataset, kind: str, model_id: str, params: tuple, compute):
    """``compute()`` once per (dataset, kind, model, params); later calls return it."""
    slot = _slot(dataset.content_hash, kind, model_id, params)
    with slot["lock"]:  # two students asking at once: one fit, the other waits
        if "value" not in slot:
            slot["value"] = compute()
    return slot["value"]


def _fit(dataset: Dataset, model_id: str, params: tuple, progress: Progress | None) -> Entry:
    settings = Settings(**dict(params))
    columns = columns_of(dataset, model_id)
    model = estimator(model_id, dataset.task, settings, dataset.random_state,
                      nb_controls.text_columns(dataset), len(dataset.y_train))
    if refused := too_much_work(model, model_id, len(dataset.y_train)):
        raise ValueError(refused)
    whole, grown = None, 0.0
    if model_id == "pruned":  # the same estimator as the decision tree's: its fit is shared
        tree = _cached(dataset, "fit", "tree", (), lambda: _fit(dataset, "tree", (), None))
        whole, grown = tree.model, tree.seconds
    model, seconds, note = train(model, model_id, dataset.X_train[list(columns)],
                                 dataset.y_train, progress, whole)
    return Entry(MODELS[model_id], model, grown + seconds, columns, note)


def _params(settings: Settings, model_id: str) -> tuple:
    # Only what this model depends on goes into its cache key.
    names = {"bagging": "n_trees", "forest": "n_trees", "adaboost": "ada_rounds",
             "gboost": "gb_rounds"}
    return ((names[model_id], getattr(settings, names[model_id])),) if model_id in names else ()


def fit_all(dataset: Dataset, chosen: list[str], settings: Settings,
            fitted: Callable[[list[Entry]], None] | None = None):
    """Fit (or fetch) every chosen model, with a progress bar "3 of 7 models";
    ``fitted(entries)``, if given, is called with the entries so far after each model,
    so that a view can show them while the next one fits.

    Returns (entries, failures): failures maps a model name to the reason it failed.
    """
    bar = st.progress(0.0, text="Fitting the models…")
    entries, failures, n = [], {}, len(chosen)
    for i, model_id in enumerate(chosen):
        name = MODELS[model_id]

        def report(done: int, total: int, i=i, name=name) -> None:
            bar.progress(min((i + done / max(total, 1)) / n, 1.0),
                         text=f"{i + 1} of {n} models: {name} ({done} of {total} done)")

        bar.progress(i / n, text=f"{i + 1} of {n} models: {name}")
        try:
            params = _params(settings, model_id)
            entries.append(_cached(dataset, "fit", model_id, params,
                                   lambda m=model_id, p=params: _fit(dataset, m, p, report)))
        except ValueError as error:
            failures[name] = str(error)
            continue
        if fitted is not None and i + 1 < n:
            fitted(entries)
    bar.empty()
    return entries, failures


def training_order(y, seed: int) -> np.ndarray:
    """An order of the training rows whose every prefix keeps the class shares.

    Each class's rows are shuffled and given the positions (k + u)/n_c, k = 0..n_c−1,
    u ~ U(0, 1); sorting all rows by position interleaves the classes, so the first
    n rows hold about n·n_c/N of class c (for regression: one shuffle).
    """
    rng = np.random.default_rng(seed)
    codes = pd.factorize(pd.Series(y), sort=True)[0]
    position = np.empty(len(codes))
    for c in np.unique(codes):
        rows = rng.permutation(np.flatnonzero(codes == c))
        position[rows] = (np.arange(len(rows)) + rng.random(len(rows))) / len(rows)
    return np.argsort(position, kind="stable")


def curve_sizes(n_train: int) -> list[int]:
    """Distinct training-set sizes for the learning curve (at least MIN_CURVE_ROWS)."""
    sizes = {min(n_train, max(MIN_CURVE_ROWS, math.ceil(f * n_train))) for f in FRACTIONS}
    return sorted(sizes)


def _curve(dataset: Dataset, model_id: str, params: tuple, entry: Entry,
           progress: Progress | None = None, trees: dict | None = None) -> pd.DataFrame:
    """One model's learning curve: error on its first n training rows and on the test rows.

    ``trees`` (size → the decision tree fitted on that many rows) is filled by the
    decision tree's curve and read by the pruned tree's, whose whole tree at each size
    is that same tree."""
    settings, task = Settings(**dict(params)), dataset.task
    X, y = dataset.X_train[list(entry.columns)], dataset.y_train
    X_test, order = dataset.X_test[list(entry.columns)], training_order(y, dataset.random_state)
    sizes, rows = curve_sizes(len(y)), []
    for k, n in enumerate(sizes):
        model = entry.model
        if n < len(y):
            model = estimator(model_id, task, settings, dataset.random_state,
                              nb_controls.text_columns(dataset), n)
            if "oob_score" in model.get_params():
                model.set_params(oob_score=False)  # not drawn here; saves time
            whole = trees.get(n) if trees is not None and model_id == "pruned" else None
            try:
                model = train(model, model_id, X.iloc[order[:n]], y.iloc[order[:n]],
                              whole=whole)[0]
            except ValueError:
                model = None  # e.g. one class only among so few rows: no point
            if trees is not None and model_id == "tree" and model is not None:
                trees[n] = model
        rows.append({"model": entry.name, "n_train": n,
                     "train_error": _error(model, X.iloc[order[:n]], y.iloc[order[:n]], task),
                     "test_error": _error(model, X_test, dataset.y_test, task)})
        if progress is not None:
            progress(k + 1, len(sizes))
    return pd.DataFrame(rows)


def curve_work(dataset: Dataset, model_id: str, settings: Settings) -> tuple[int, int, str] | None:
    """The work of one model's learning curve, its refits taken together, as
    :func:`_work` gives it for one fit (rows, trees or rounds, kind), None if light.

    Each size's refit is counted as :func:`_curve` builds it: a forest's or bagging's
    trees on a big table draw ``limits.rows_per_tree`` rows at every size above
    ``limits.TREE_ROWS``, not a share of the size, so the smaller sizes cost nearly
    what the full fit costs."""
    rows, work = 0, None
    for n in curve_sizes(len(dataset.y_train))[:-1]:  # the last size is the fitted model
        model = estimator(model_id, dataset.task, settings, dataset.random_state,
                          nb_controls.text_columns(dataset), n)
        work = _work(model, model_id, n)
        if work is None:
            return None
        rows += work[0]
    return None if work is None else (rows, work[1], work[2])


def curve_too_much_work(dataset: Dataset, model_id: str, settings: Settings) -> str | None:
    """The work limit's message when one model's learning curve (:func:`curve_work`)
    would exceed it, else None."""
    work = curve_work(dataset, model_id, settings)
    return None if work is None else limits.check_work(*work)


def _error(model, X, y, task: str) -> float:
    return np.nan if model is None else model_error(model, X, y, task)


def learning_curves(dataset: Dataset, chosen: list[str], entries: list[Entry],
                    settings: Settings,
                    drawn: Callable[[pd.DataFrame], None] | None = None) -> pd.DataFrame:
    """Every chosen model's curve, with a progress bar (models × sizes done);
    ``drawn(curves)``, if given, is called with the curves so far after each model but
    the last, so that a view can show them while the next ones are computed."""
    bar = st.progress(0.0, text="Learning curves…")
    by_name = {e.name: e for e in entries}
    fitted = [i for i in chosen if MODELS[i] in by_name]
    n_sizes, frames = len(curve_sizes(len(dataset.y_train))), []
    total = max(len(fitted) * n_sizes, 1)
    skipped, trees = [], {}  # the decision tree's refits, for the pruned tree's curve
    for m, model_id in enumerate(fitted):
        entry = by_name[MODELS[model_id]]
        work = curve_work(dataset, model_id, settings)
        if work and limits.check_work(*work):
            rows, _, kind = work
            skipped.append(f"{entry.name} (up to {limits.most_models(rows, kind):,} "
                           f"{limits.UNIT[kind]} would fit)")
            continue

        def report(done: int, _total: int, m=m, name=MODELS[model_id]) -> None:
            bar.progress(min((m * n_sizes + done) / total, 1.0),
                         text=f"{m * n_sizes + done} of {total} fits done ({name})")

        params = _params(settings, model_id)
        frames.append(_cached(dataset, "curve", model_id, params,
                              lambda m=model_id, p=params, e=entry: _curve(dataset, m, p, e, report,
                                                                           trees)))
        if drawn is not None and m + 1 < len(fitted):
            drawn(pd.concat(frames, ignore_index=True))
    bar.empty()
    if skipped:
        st.caption(f"Not drawn: {', '.join(skipped)}. Refitting at every size would exceed "
                   "the work limit of a shared server; choose fewer trees or rounds, or "
                   "fewer rows.")
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["model", "n_train", "train_error", "test_error"])


def roc_key(chosen: list[str], settings: Settings) -> tuple:
    """The ROC table's key besides the data: each model, in order, with what its fit
    depends on (a model's own key leaves out the other models' sizes)."""
    return tuple((i, _params(settings, i)) for i in chosen)


def results(dataset: Dataset, entries: list[Entry], settings: Settings) -> pd.DataFrame:
    """The results table (``viz.compare_figures.results_table``): each model is scored
    once per (dataset, model, parameters), so the rows shown while the others fit are
    not scored again."""
    ids = {name: model_id for model_id, name in MODELS.items()}
    rows = [_cached(dataset, "row", ids[e.name], _params(settings, ids[e.name]),
                    lambda e=e: cf.result_row(e, dataset.X_test, dataset.y_test, dataset.task))
            for e in entries]
    return pd.DataFrame(rows)


def _roc(dataset: Dataset, key: tuple, entries: list[Entry]):
    """The key and the computation of every model's ROC curve on the test rows (the
    second class is the positive one); ``key`` is :func:`roc_key`'s."""
    return (("cmp-roc", dataset.content_hash, key),
            lambda: cf.roc_table(entries, dataset.X_test, dataset.y_test, dataset.class_names[1]))


def roc(dataset: Dataset, key: tuple, entries: list[Entry]) -> pd.DataFrame:
    """:func:`_roc`, computed once and shared (see :func:`prefetch_roc`)."""
    return compute_once(*_roc(dataset, key, entries), "Computing the ROC curves")


def prefetch_roc(dataset: Dataset, key: tuple, entries: list[Entry]) -> None:
    """With two classes, start the ROC curves in the background once every model is
    fitted: each model's probabilities on the test rows take seconds on a large upload,
    and the ROC tab then opens at once."""
    if dataset.task == "classification" and len(dataset.class_names) == 2:
        prefetch(_roc(dataset, key, entries))


def _leaves(mean: float) -> str:
    """Leaves per tree: a whole number as one (a single tree's), a mean to a tenth.

    >>> _leaves(225.0), _leaves(164.37)
    ('225', '164.4')
    """
    return f"{mean:.0f}" if float(mean).is_integer() else f"{mean:.1f}"


def show_table(table: pd.DataFrame, key: str | None = None) -> None:
    """The results table as text: errors in per cent, "—" where a model has no such number.
    A model's note (the pruned tree's α) goes under the table, whole: in a column of
    its own the grid cut it off at every width. ``key`` tells apart tables of the same
    run (the rows so far, then all of them)."""
    shown = table.drop(columns="note", errors="ignore")
    for column in ("test error", "OOB error"):
        if column in shown:
            shown[column] = 100 * shown[column]
    formats = {"test error": "{:.1f}%", "OOB error": "{:.1f}%", "training time (s)": "{:.2f}",
               "trees": "{:.0f}", "leaves per tree": _leaves, "test MSE": "{:.4g}",
               "test R²": "{:.3f}", "OOB R²": "{:.3f}"}
    for column, text in formats.items():
        if column in shown:  # st.dataframe shows NaN as "None"; a dash reads as "not defined"
            write = text if callable(text) else text.format
            shown[column] = [("—" if pd.isna(v) else write(v)) for v in shown[column]]
    config = {c: st.column_config.TextColumn(c, alignment="right") for c in formats if c in shown}
    tables.show(shown, hide_index=True, width="stretch", column_config=config, key=key)
    notes = table[table["note"] != ""] if "note" in table else table.iloc[:0]
    if len(notes):
        st.caption(" · ".join(f"{model}: {note}" for model, note
                              in zip(notes["model"], notes["note"], strict=True)))
