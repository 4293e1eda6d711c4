"""Streamlit glue of the Naive Bayes page: its controls and its cached fits.

A fit is cached by (dataset content hash, model spec, columns), bounded to 32 entries,
so moving a slider back to an earlier value, or switching pages, costs nothing.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from engine.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MixedNB, MultinomialNB
from engine.text import Vocabulary
from viz import explain_figures

from . import predict, questions
from .data_controls import scored_row
from .params import Control, draw_controls

VARIANTS = {
    "auto": "Auto (by column kind)",
    "gaussian": "Gaussian",
    "categorical": "Categorical",
    "multinomial": "Multinomial (counts)",
    "bernoulli": "Bernoulli (present / absent)",
}
DEFAULT_SENTENCE = "The sushi & everything else was awesome!"
#: The text box starts with at most this many characters of a row's text.
MAX_SENTENCE = 200


@dataclass(frozen=True)
class Spec:
    """Everything a fit depends on besides the data (hashable: part of the cache key)."""

    variant: str = "auto"
    alpha: float = 1.0
    numeric: str = "gaussian"
    n_bins: int = 5

    def make(self, text_columns: tuple[str, ...]):
        if self.variant == "gaussian":
            return GaussianNB()
        if self.variant == "categorical":
            return CategoricalNB(alpha=self.alpha)
        if self.variant == "multinomial":
            return MultinomialNB(alpha=self.alpha)
        if self.variant == "bernoulli":
            return BernoulliNB(alpha=self.alpha)
        return MixedNB(alpha=self.alpha, numeric=self.numeric, n_bins=self.n_bins,
                       text_columns=list(text_columns))


@dataclass(frozen=True)
class Fit:
    """A fitted model, its predictions of the scored rows and its accuracy on them."""

    model: object
    y_pred: np.ndarray
    accuracy: float


def first_sentence(dataset: Dataset, column: str, row: int) -> str:
    """The text box's first sentence: the worked example's review when the data holds it,
    otherwise the chosen test row's own text (its first ``MAX_SENTENCE`` characters)."""
    if any((part[column] == DEFAULT_SENTENCE).any() for part in (dataset.X_train, dataset.X_test)):
        return DEFAULT_SENTENCE
    text = dataset.X_test[column].iloc[row] if len(dataset.X_test) else None
    return str(text)[:MAX_SENTENCE] if isinstance(text, str) and text.strip() else ""


def text_columns(dataset: Dataset) -> tuple[str, ...]:
    return tuple(c for c, k in dataset.feature_kinds.items() if k == "text")


def numeric_columns(dataset: Dataset) -> list[str]:
    return [c for c, k in dataset.feature_kinds.items() if k == "numeric"]


def variant_problem(variant: str, dataset: Dataset) -> str | None:
    """Why ``variant`` cannot model this dataset's columns, or None when it can."""
    kinds = dataset.feature_kinds
    other = [c for c, k in kinds.items() if k != "numeric"]
    if variant == "auto":
        return None
    if variant == "categorical":
        text = text_columns(dataset)
        return (f"Categorical Naive Bayes counts category values; {', '.join(text)} is free "
                "text. Use Auto (words are counted by the multinomial model).") if text else None
    if other:
        return (f"{VARIANTS[variant]} Naive Bayes needs numeric columns only, but "
                f"{', '.join(other[:4])} {'is' if len(other) == 1 else 'are'} not numeric. "
                "Use Auto, which gives each column the likelihood of its kind.")
    if variant in ("multinomial", "bernoulli") and (dataset.X_train.to_numpy(float) < 0).any():
        return (f"{VARIANTS[variant]} Naive Bayes reads the columns as counts or presence and "
                "needs values ≥ 0; this data has negative values. Use Gaussian or Auto.")
    return None


@st.cache_resource(max_entries=32, show_spinner="Fitting Naive Bayes…")
def _fit(content_hash: str, spec: Spec, columns: tuple[str, ...], texts: tuple[str, ...],
         _dataset: Dataset) -> Fit:
    model = spec.make(texts).fit(_dataset.X_train[list(columns)], _dataset.y_train)
    y_pred = model.predict(_dataset.X_test[list(columns)])
    return Fit(model, y_pred, float(np.mean(y_pred == _dataset.y_test.to_numpy())))


def fit(dataset: Dataset, spec: Spec, columns: list[str] | None = None) -> Fit:
    """The fitted model of ``spec`` on ``columns`` (all features by default), cached."""
    columns = tuple(columns or dataset.features)
    texts = tuple(c for c in text_columns(dataset) if c in columns)
    return _fit(dataset.content_hash, spec, columns, texts, dataset)


@st.cache_resource(max_entries=8, show_spinner="Counting words…")
def _text_models(content_hash: str, column: str, alpha: float, _dataset: Dataset):
    vocabulary = Vocabulary().fit(_dataset.X_train[column])
    counts = vocabulary.transform(_dataset.X_train[column])
    return (vocabulary, MultinomialNB(alpha=alpha).fit(counts, _dataset.y_train),
            BernoulliNB(alpha=alpha).fit(counts, _dataset.y_train))


def text_models(dataset: Dataset, column: str, alpha: float):
    """(Vocabulary, MultinomialNB, BernoulliNB) on the word counts of one text column."""
    return _text_models(dataset.content_hash, column, alpha, dataset)


def _auto_with_numbers(dataset: Dataset, values: Mapping[str, object]) -> bool:
    """Numeric columns are modelled one way or the other only by Auto, and only if any."""
    return values["variant"] == "auto" and bool(numeric_columns(dataset))


def _binned(dataset: Dataset, values: Mapping[str, object]) -> bool:
    """A number of bins only when numeric columns are binned."""
    return values["numeric"] == "binned"


#: The model's controls (see ``ui.params``); place 0 and 1 are the first two of the
#: page's three columns.
CONTROLS = (
    Control("variant", st.selectbox, "Variant", "nb_variant", (list(VARIANTS),),
            help="auto: categorical columns are counted, numeric ones Gaussian (or binned), "
                 "text is a bag of words. The others force one likelihood on every column: "
                 "gaussian (numbers), categorical (values), multinomial (counts), bernoulli "
                 "(present or absent)."),
    Control("alpha", st.slider, "Smoothing α", "nb_alpha", (0.0, 5.0, 1.0, 0.1), convert=float,
            place=1,
            help="θ = (count + α) / (N_q + α k): the MAP estimate with a Dirichlet prior, k the "
                 "number of values. α = 1 is Laplace smoothing; α = 0 is the plain count "
                 "fraction, and a value never seen with a class then makes that class "
                 "impossible."),
    Control("numeric", st.radio, "Numeric columns", "nb_numeric", (["gaussian", "binned"],),
            {"horizontal": True}, applies=_auto_with_numbers, otherwise="gaussian",
            help="gaussian: P(x_j | c) = N(x_j; μ_jc, σ²_jc). binned: cut into "
                 "equal-frequency bins and counted like categories."),
    Control("n_bins", st.slider, "Bins", "nb_bins", (2, 20, 5), applies=_binned, otherwise=5,
            convert=int, place=1,
            help="Number of equal-frequency bins per numeric column."),
)


def controls(dataset: Dataset, first, second) -> Spec:
    """The model's widgets in two containers (variant | α and bins); returns the Spec."""
    return Spec(**draw_controls(CONTROLS, dataset, (first, second)))


def row_picker(dataset: Dataset, fitted: Fit) -> int:
    """Position of the chosen test row, shown with its index label, its class and, when
    the model gets it wrong, the class predicted. The first row it gets wrong comes first:
    its evidence is the interesting one."""
    labels, truth, predicted = dataset.X_test.index, dataset.y_test.to_numpy(), fitted.y_pred
    wrong = np.flatnonzero(predicted != truth)

    def label(i: int) -> str:
        right = predicted[i] == truth[i]
        return f"row {labels[i]}: {truth[i]}" + ("" if right else f", predicted {predicted[i]} ✗")

    return st.selectbox(
        f"{scored_row(dataset).capitalize()} to explain", range(len(labels)),
        index=int(wrong[0]) if len(wrong) else 0,
        key="nb_row", format_func=label,
        help="Its evidence ledger and its values on the likelihood curves are shown. "
             "✗: the model gets this row wrong; the first such row is chosen to start.")


def typed_row(dataset: Dataset, start: pd.DataFrame, key: str = "nb_typed_row") -> pd.DataFrame:
    """A one-row table the student edits, starting from the chosen test row.

    Categorical cells offer the training values (a new value is allowed and counts as
    unseen); an emptied cell is a missing value, which Naive Bayes skips. ``key`` names
    the editor's state (each page that uses it passes its own).
    """
    config = {
        column: st.column_config.SelectboxColumn(
            column, options=sorted(map(str, dataset.X_train[column].dropna().unique())))
        for column in start.columns if dataset.feature_kinds.get(column) == "categorical"
    }
    edited = st.data_editor(start.reset_index(drop=True), key=key, hide_index=True,
                            column_config=config, num_rows="fixed")
    return edited.astype(start.dtypes.to_dict(), errors="ignore")


def ask_evidence(model, posterior: pd.Series, contributions: np.ndarray,
                 log_prior: np.ndarray, names: list[str], key: str, row_name: str) -> bool:
    """Predict first, before a row's evidence: which class wins, then which feature
    pushes hardest towards the class the nomogram draws. True once both are answered
    (or Predict first is off)."""
    if not predict.ask(lambda: questions.winning_class(posterior, key, row_name)):
        return False

    def push():
        c = explain_figures.nomogram_class(contributions, log_prior)
        try:
            points = explain_figures.nomogram_points(contributions, log_prior, c).features
        except ValueError:  # every class has probability 0: nothing pushes
            return None
        return questions.strongest_push(points, names, str(model.classes_[c]),
                                        questions.question_key(key, "push"))
    return predict.ask(push)


def ask_words(table: pd.DataFrame, dataset: Dataset, column: str, spec: Spec, text: str) -> bool:
    """Predict first, before the Text tab's word charts: which word of the sentence pushes
    hardest towards the second of two classes (spam, say), or else the class the words
    make likeliest. ``table``: the multinomial word table."""
    classes = table.columns
    towards = classes[1] if len(classes) == 2 else table.sum().idxmax()
    return predict.ask(lambda: questions.word_push(
        table, towards, questions.question_key("nb-words", dataset.content_hash, column,
                                               spec, text)))
