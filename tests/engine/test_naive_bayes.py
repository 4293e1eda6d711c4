"""Naive Bayes: scikit-learn as the oracle, the PlayTennis table, and the evidence ledger.

Tolerances: probabilities are compared with rtol=1e-9, atol=1e-12. Both libraries
compute the same formulas in float64; they differ only in summation order and in how a
logarithm of a ratio is split (log(a/b) vs log a − log b), which moves joint
log-likelihoods by a few ulps of their magnitude — far below 1e-9 in a posterior.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn import naive_bayes as sk

from engine.naive_bayes import (
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    MixedNB,
    MultinomialNB,
    logsumexp,
)

try:  # the shared fixture of tests/conftest.py, or a local stand-in
    from tests.conftest import data_path as _data_path
except ImportError:  # pragma: no cover
    from pathlib import Path

    def _data_path(name: str) -> Path:
        repo = Path(__file__).resolve().parents[2]
        for folder in (repo / "sample_data", repo.parent / "shared" / "data"):
            if (folder / name).is_file():
                return folder / name
        pytest.skip(f"dataset {name!r} not found")

TOL = {"rtol": 1e-9, "atol": 1e-12}


@pytest.fixture(autouse=True)
def _raise_on_float_errors():
    """Overflow, 0/0 and x/0 fail a test; underflow (gradual rounding to 0) stays silent."""
    with np.errstate(all="raise", under="ignore"):
        yield


# --------------------------------------------------------------------------- data


def iris() -> tuple[np.ndarray, np.ndarray]:
    frame = pd.read_csv(_data_path("iris.csv"))
    return frame.drop(columns="species").to_numpy(), frame["species"].to_numpy()


def spambase() -> tuple[np.ndarray, np.ndarray]:
    frame = pd.read_csv(_data_path("spambase.csv"))
    return frame.drop(columns="spam").to_numpy(), frame["spam"].to_numpy()


def playtennis() -> tuple[pd.DataFrame, pd.Series]:
    frame = pd.read_csv(_data_path("playtennis.csv")).drop(columns="Day")
    return frame.drop(columns="PlayTennis"), frame["PlayTennis"]


def counts(n: int = 300, p: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Word counts whose rates depend on one of three classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    rates = rng.gamma(0.5, 1.0, size=(3, p))
    return rng.poisson(rates[y]).astype(np.float64), y


def integer_categories(n: int = 400, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Five integer-coded categorical features (2..6 levels) and a dependent label."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, k, size=n) for k in (2, 3, 4, 5, 6)])
    y = (X[:, 0] + X[:, 2] + rng.integers(0, 3, size=n)) % 3
    return X, y


def weights(n: int, seed: int = 5) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.1, 3.0, size=n)


# --------------------------------------------------------------------------- oracle


@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-6, 1e-2])
@pytest.mark.parametrize("dataset", [iris, spambase])
@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_matches_sklearn(dataset, var_smoothing, weighted):
    X, y = dataset()
    w = weights(len(y)) if weighted else None
    ours = GaussianNB(var_smoothing=var_smoothing).fit(X, y, sample_weight=w)
    theirs = sk.GaussianNB(var_smoothing=var_smoothing).fit(X, y, sample_weight=w)
    assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    assert_allclose(ours.var_, theirs.var_, rtol=1e-9)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), **TOL)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_gaussian_fixed_priors_match_sklearn():
    X, y = iris()
    priors = [0.5, 0.3, 0.2]
    ours = GaussianNB(priors=priors).fit(X, y)
    theirs = sk.GaussianNB(priors=priors).fit(X, y)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), **TOL)


@pytest.mark.parametrize("alpha", [0.01, 0.5, 1.0, 2.5])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dataset", [counts, spambase])
def test_multinomial_matches_sklearn(dataset, alpha, weighted):
    X, y = dataset()
    w = weights(len(y)) if weighted else None
    ours = MultinomialNB(alpha=alpha).fit(X, y, sample_weight=w)
    theirs = sk.MultinomialNB(alpha=alpha, force_alpha=True).fit(X, y, sample_weight=w)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12, atol=1e-12)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), **TOL)


@pytest.mark.parametrize("alpha", [0.01, 1.0, 3.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_bernoulli_matches_sklearn_on_spambase(alpha, weighted):
    X, y = spambase()
    w = weights(len(y)) if weighted else None
    ours = BernoulliNB(alpha=alpha, binarize=0.0).fit(X, y, sample_weight=w)
    theirs = sk.BernoulliNB(alpha=alpha, binarize=0.0, force_alpha=True).fit(X, y, sample_weight=w)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12, atol=1e-12)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), **TOL)


@pytest.mark.parametrize("alpha", [0.01, 1.0, 2.0])
def test_bernoulli_matches_sklearn_on_counts(alpha):
    X, y = counts(seed=3)
    ours = BernoulliNB(alpha=alpha, binarize=1.0).fit(X, y)
    theirs = sk.BernoulliNB(alpha=alpha, binarize=1.0, force_alpha=True).fit(X, y)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), **TOL)


@pytest.mark.parametrize("alpha", [0.01, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_categorical_matches_sklearn(alpha, weighted):
    X, y = integer_categories()
    w = weights(len(y)) if weighted else None
    ours = CategoricalNB(alpha=alpha).fit(X, y, sample_weight=w)
    theirs = sk.CategoricalNB(alpha=alpha, force_alpha=True).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
    for a, b in zip(ours.category_count_, theirs.category_count_, strict=True):
        assert_allclose(a, b, rtol=1e-12)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), **TOL)


@pytest.mark.parametrize("alpha", [0.0, 0.1, 1.0])
def test_categorical_strings_match_sklearn_on_ordinal_codes(alpha):
    """Mushroom's string columns natively vs scikit-learn on OrdinalEncoder codes."""
    from sklearn.preprocessing import OrdinalEncoder

    frame = pd.read_csv(_data_path("mushroom.csv"), dtype=str, keep_default_na=False)
    X, y = frame.drop(columns="edibility"), frame["edibility"]
    codes = OrdinalEncoder().fit_transform(X).astype(np.int64)
    ours = CategoricalNB(alpha=alpha).fit(X, y)
    theirs = sk.CategoricalNB(alpha=max(alpha, 1e-300), force_alpha=True).fit(codes, y)
    assert_allclose(ours.predict_proba(X.head(500)), theirs.predict_proba(codes[:500]), **TOL)


def test_categorical_integer_codes_keep_unobserved_levels():
    """Integers 0..max are the categories (scikit-learn's reading), even if 2 never occurs."""
    X = np.array([[0], [1], [3], [3], [1], [0]])
    y = np.array([0, 0, 1, 1, 1, 0])
    ours = CategoricalNB(alpha=1.0).fit(X, y)
    theirs = sk.CategoricalNB(alpha=1.0).fit(X, y)
    assert ours.n_categories_.tolist() == [4]
    assert_allclose(ours.predict_proba(np.array([[2], [3]])),
                    theirs.predict_proba(np.array([[2], [3]])), **TOL)


# --------------------------------------------------------------------------- textbook


SUNNY_COOL_HIGH_STRONG = pd.DataFrame(
    {"Outlook": ["Sunny"], "Temperature": ["Cool"], "Humidity": ["High"], "Wind": ["Strong"]}
)


@pytest.mark.parametrize("make", [lambda: CategoricalNB(alpha=0), lambda: MixedNB(alpha=0)])
def test_playtennis_without_smoothing(make):
    """REFERENCE.md: joint No 0.02057, Yes 0.00529, P(No | x) = 0.7954 (Mitchell 1997)."""
    X, y = playtennis()
    model = make().fit(X, y)
    contributions, log_prior = model.log_likelihood_contributions(SUNNY_COOL_HIGH_STRONG)
    joint = np.exp(contributions.sum(axis=-1) + log_prior)[0]
    assert model.classes_.tolist() == ["No", "Yes"]
    assert round(joint[0], 5) == 0.02057
    assert round(joint[1], 5) == 0.00529
    assert round(model.predict_proba(SUNNY_COOL_HIGH_STRONG)[0, 0], 4) == 0.7954
    assert model.predict(SUNNY_COOL_HIGH_STRONG).tolist() == ["No"]


def test_playtennis_evidence_ledger():
    X, y = playtennis()
    ledger = CategoricalNB(alpha=0).fit(X, y).evidence_ledger(SUNNY_COOL_HIGH_STRONG)
    assert ledger.loc[("prior", "log P(c_q)"), "No"] == pytest.approx(np.log(5 / 14))
    assert ledger.loc[("feature", "Outlook"), "Yes"] == pytest.approx(np.log(2 / 9))
    assert round(np.exp(ledger.loc[("total", "log joint"), "Yes"]), 5) == 0.00529
    assert round(ledger.loc[("total", "posterior"), "No"], 4) == 0.7954


def test_playtennis_likelihood_table_shows_counts_and_mle():
    X, y = playtennis()
    table = CategoricalNB(alpha=0).fit(X, y).likelihood_table("Outlook")
    assert table.loc["Sunny", ("count", "No")] == 3
    assert table.loc["Overcast", ("count", "No")] == 0
    assert table.loc["Sunny", ("probability", "No")] == pytest.approx(3 / 5)
    assert table.loc["Overcast", ("probability", "No")] == 0.0
    smoothed = CategoricalNB(alpha=1).fit(X, y).likelihood_table("Outlook")
    assert smoothed.loc["Overcast", ("probability", "No")] == pytest.approx(1 / 8)
    assert_allclose(smoothed["probability"].sum(axis=0), 1.0)


# --------------------------------------------------------------------------- numerics


def test_thousand_tiny_probabilities_do_not_underflow():
    """1,000 features with 20 levels each: every P(x_j | c_q) is about 1/20, and their
    product (about 10^-1300) is below the smallest float64; the sum of logs is not."""
    rng = np.random.default_rng(0)
    n, p, levels = 300, 1000, 20
    y = rng.integers(0, 2, size=n)
    shifted = rng.integers(0, levels, size=(n, p))
    X = np.where(rng.random((n, p)) < 0.1, y[:, None], shifted)  # a weak clue per feature
    model = CategoricalNB(alpha=1.0).fit(X, y)
    contributions, log_prior = model.log_likelihood_contributions(X)
    raw_product = np.prod(np.exp(contributions), axis=-1)
    assert (raw_product == 0).all()  # what multiplying probabilities would give
    assert (contributions.sum(axis=-1) < -2000).all()
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert (model.predict(X) == y).mean() > 0.95  # 1,000 weak clues add up to a sure answer


@pytest.mark.filterwarnings("error")
def test_alpha_zero_with_unseen_value_is_clean():
    X, y = playtennis()
    new = SUNNY_COOL_HIGH_STRONG.assign(Outlook="Foggy", Temperature="Hot")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            model = CategoricalNB(alpha=0).fit(X, y)
            proba = model.predict_proba(new)
            log_proba = model.predict_log_proba(new)
            contributions, _ = model.log_likelihood_contributions(new)
    assert not np.isnan(proba).any() and not np.isnan(log_proba).any()
    assert np.isneginf(contributions[0, :, 0]).all()  # unseen under α = 0: P = 0 for each class
    assert_allclose(proba[0], model.class_prior_)  # every class impossible → the prior


def test_alpha_zero_zero_count_gives_zero_probability():
    X, y = playtennis()
    model = CategoricalNB(alpha=0).fit(X, y)
    overcast = SUNNY_COOL_HIGH_STRONG.assign(Outlook="Overcast")
    assert model.predict_proba(overcast)[0].tolist() == [0.0, 1.0]
    multinomial = MultinomialNB(alpha=0).fit(np.array([[2, 0], [0, 3]]), [0, 1])
    with np.errstate(all="raise"):
        assert multinomial.predict_proba(np.array([[1, 0], [0, 0]])).tolist() == [[1, 0], [.5, .5]]


def test_logsumexp_matches_scipy_on_extremes():
    from scipy.special import logsumexp as scipy_logsumexp

    a = np.array([[-1e4, -1e4 + 1, -np.inf], [700.0, 710.0, 0.0], [-np.inf, -np.inf, -np.inf]])
    assert_allclose(logsumexp(a[:2], axis=1), scipy_logsumexp(a[:2], axis=1), rtol=1e-14)
    assert np.isneginf(logsumexp(a[2:], axis=1)).all()


# --------------------------------------------------------------------------- missing values


@pytest.mark.parametrize("make", [GaussianNB, BernoulliNB, MixedNB])
def test_missing_value_is_skipped(make):
    X, y = iris()
    model = make().fit(X, y)
    row = X[60:61].copy()
    row[0, 2] = np.nan
    contributions, log_prior = model.log_likelihood_contributions(X[60:61])
    contributions[:, :, 2] = 0.0  # the same row, feature 2 left out by hand
    jll = contributions.sum(axis=-1) + log_prior
    expected = np.exp(jll - logsumexp(jll, axis=1)[:, None])
    assert_allclose(model.predict_proba(row), expected, rtol=1e-12)
    assert (model.log_likelihood_contributions(row)[0][0, :, 2] == 0).all()


@pytest.mark.parametrize("make", [lambda: CategoricalNB(alpha=0.5), lambda: MixedNB(alpha=0)])
def test_missing_category_is_skipped(make):
    X, y = playtennis()
    model = make().fit(X, y)
    row = SUNNY_COOL_HIGH_STRONG.assign(Humidity=None)
    contributions, log_prior = model.log_likelihood_contributions(SUNNY_COOL_HIGH_STRONG)
    jll = contributions[:, :, [0, 1, 3]].sum(axis=-1) + log_prior
    assert_allclose(model.predict_log_proba(row), jll - logsumexp(jll, axis=1)[:, None],
                    rtol=1e-12)


def test_unseen_integer_code_gets_the_zero_count_estimate():
    X, y = integer_categories()
    model = CategoricalNB(alpha=0.5).fit(X, y)
    contributions, _ = model.log_likelihood_contributions(np.array([[9, 0, 0, 0, 0]]))
    n_qi = model.category_count_[0].sum(axis=1)
    assert_allclose(contributions[0, :, 0], np.log(0.5 / (n_qi + 0.5 * 2)), rtol=1e-12)


def test_missing_values_are_left_out_of_training():
    X, y = iris()
    X_missing = X.copy()
    X_missing[::7, 1] = np.nan
    model = GaussianNB().fit(X_missing, y)
    kept = ~np.isnan(X_missing[:, 1])
    reference = GaussianNB().fit(X[kept][:, [1]], y[kept])
    assert_allclose(model.theta_[:, 1], reference.theta_[:, 0], rtol=1e-12)
    categorical = CategoricalNB().fit(pd.DataFrame({"c": ["a", None, "b", "a"]}), [0, 0, 1, 1])
    assert categorical.category_count_[0].tolist() == [[1, 0], [1, 1]]


# --------------------------------------------------------------------------- ledger and MixedNB


def mixed_frame(n: int = 240, seed: int = 2) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    good, bad = ["tasty", "fresh", "friendly", "great"], ["cold", "slow", "rude", "bland"]
    words = np.where(rng.random((n, 4)) < np.where(y[:, None] == 1, 0.8, 0.2),
                     rng.choice(good, size=(n, 4)), rng.choice(bad, size=(n, 4)))
    X = pd.DataFrame({
        "price": rng.normal(20 + 5 * y, 4),
        "cuisine": rng.choice(np.array(["thai", "sushi", "pizza"], dtype=object), size=n),
        "review": [" ".join(w) for w in words],
        "wait": rng.exponential(10 + 10 * (1 - y)),
    })
    X.loc[X.index[::11], "cuisine"] = None
    X.loc[X.index[::13], "price"] = np.nan
    return X, y


@pytest.mark.parametrize("make", [
    lambda: GaussianNB(), lambda: MultinomialNB(alpha=0.5), lambda: BernoulliNB(binarize=1.0),
    lambda: CategoricalNB(alpha=0.3), lambda: MixedNB(), lambda: MixedNB(numeric="binned"),
])
def test_ledger_identity(make):
    X, y = mixed_frame()
    if not isinstance(make(), MixedNB):
        X = X[["price", "wait"]].fillna(0).round()
    model = make().fit(X, y)
    contributions, log_prior = model.log_likelihood_contributions(X)
    assert contributions.shape == (len(X), len(model.classes_), X.shape[1])
    jll = contributions.sum(axis=-1) + log_prior
    assert_allclose(jll - logsumexp(jll, axis=1)[:, None], model.predict_log_proba(X),
                    rtol=1e-10, atol=1e-10)


def test_mixed_detects_kinds_and_explains_words():
    X, y = mixed_frame()
    y = np.where(y == 1, "good", "bad")
    model = MixedNB().fit(X, y)
    assert model.feature_kinds_ == {"price": "gaussian", "cuisine": "categorical",
                                    "review": "text", "wait": "gaussian"}
    assert (model.predict(X) == y).mean() > 0.9
    words = model.word_contributions(X["review"].iloc[0] + " unheardof")
    assert words.index[-1] == "unheardof" and (words.iloc[-1] == 0).all()
    contributions, _ = model.log_likelihood_contributions(X.head(1))
    assert_allclose(words.sum(axis=0).to_numpy(), contributions[0, :, 2], rtol=1e-12)
    table = model.likelihood_table("cuisine")
    assert table["count"].columns.tolist() == model.classes_.tolist()
    assert table["count"].to_numpy().sum() == X["cuisine"].notna().sum()
    assert words.columns.tolist() == model.classes_.tolist()
    assert_allclose(model.gaussian_params("price").loc[["bad", "good"], "mean"],
                    [X["price"][y == q].mean() for q in ("bad", "good")], rtol=1e-12)


def test_mixed_binned_counts_quantile_bins():
    X, y = mixed_frame()
    model = MixedNB(numeric="binned", n_bins=4).fit(X, y)
    table = model.likelihood_table("wait")
    assert len(table) == 4
    assert table["count"].to_numpy().sum() == len(X)  # every row lands in one bin
    assert table["count"].sum(axis=1).tolist() == [60, 60, 60, 60]


def test_mixed_equals_categorical_on_categories():
    X, y = playtennis()
    for alpha in (0.0, 1.0, 0.5):
        mixed = MixedNB(alpha=alpha).fit(X, y)
        categorical = CategoricalNB(alpha=alpha).fit(X, y)
        assert_allclose(mixed.predict_proba(X), categorical.predict_proba(X), **TOL)


def test_mixed_equals_gaussian_on_numbers():
    X, y = iris()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    w = weights(len(y))
    mixed = MixedNB(var_smoothing=1e-6).fit(frame, y, sample_weight=w)
    gaussian = GaussianNB(var_smoothing=1e-6).fit(frame, y, sample_weight=w)
    assert_allclose(mixed.predict_proba(frame), gaussian.predict_proba(frame), **TOL)
    assert mixed.classes_.tolist() == gaussian.classes_.tolist()


def test_mixed_text_equals_multinomial_on_word_counts():
    from engine.text import Vocabulary

    X, y = mixed_frame()
    model = MixedNB(alpha=0.7, text_columns=["review"]).fit(X[["review"]], y)
    vocabulary = Vocabulary().fit(X["review"])
    multinomial = MultinomialNB(alpha=0.7).fit(vocabulary.transform(X["review"]), y)
    assert_allclose(model.predict_proba(X[["review"]]),
                    multinomial.predict_proba(vocabulary.transform(X["review"])), **TOL)


def test_gaussian_params_table():
    X, y = iris()
    model = GaussianNB().fit(pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"]), y)
    params = model.gaussian_params("pl")
    assert params.index.tolist() == model.classes_.tolist()
    assert_allclose(params["var"], model.var_[:, 2])
    assert_allclose(model.gaussian_table()["mean"].to_numpy(), model.theta_.T)


@pytest.mark.parametrize("make", [MultinomialNB, BernoulliNB])
def test_count_models_likelihood_table(make):
    X, y = counts()
    model = make().fit(X, y)
    table = model.likelihood_table()
    assert table.shape == (X.shape[1], 2 * len(model.classes_))
    assert_allclose(table["count"].to_numpy(), model.feature_count_.T)
    assert_allclose(np.log(table["probability"].to_numpy()), model.feature_log_prob_.T)


def test_numeric_models_refuse_categories_by_name():
    X, y = playtennis()
    with pytest.raises(ValueError, match="Outlook"):
        GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        CategoricalNB(alpha=-1).fit(X, y)
