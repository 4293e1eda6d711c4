"""ROC curve and AUC against scikit-learn (test-only oracle) and a hand count."""
import numpy as np
import pytest
from sklearn import metrics as sk

from engine.metrics import roc_auc_score, roc_curve


def _data(seed: int, n: int = 300, distinct: int | None = None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = rng.normal(y * 0.8, 1.0)
    if distinct is not None:  # rounded scores: many ties
        score = np.round(score * distinct) / distinct
    return y, score


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("distinct", [None, 2])
def test_curve_equals_scikit_learn(seed, distinct):
    y, score = _data(seed, distinct=distinct)
    with np.errstate(all="raise"):
        fpr, tpr, thresholds = roc_curve(y, score)
    want = sk.roc_curve(y, score, drop_intermediate=False)
    # Same arithmetic (counts divided by class totals): equal to the last bit.
    np.testing.assert_array_equal(fpr, want[0])
    np.testing.assert_array_equal(tpr, want[1])
    np.testing.assert_array_equal(thresholds, want[2])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("distinct", [None, 1])
def test_auc_equals_scikit_learn(seed, distinct):
    y, score = _data(seed, distinct=distinct)
    with np.errstate(all="raise"):
        auc = roc_auc_score(y, score)
    # Trapezoids summed in another order: equal to rounding.
    assert auc == pytest.approx(sk.roc_auc_score(y, score), abs=1e-12)


def test_auc_is_the_mann_whitney_probability():
    y, score = _data(7, n=120, distinct=2)
    pos, neg = score[y == 1], score[y == 0]
    pairs = pos[:, None] - neg[None, :]
    expected = np.mean(pairs > 0) + 0.5 * np.mean(pairs == 0)
    assert roc_auc_score(y, score) == pytest.approx(expected, abs=1e-12)


def test_string_labels_with_a_chosen_positive_class():
    y = np.array(["spam", "ham", "spam", "ham", "ham"])
    score = np.array([0.9, 0.2, 0.4, 0.6, 0.1])
    fpr, tpr, _ = roc_curve(y, score, pos_label="spam")
    want = sk.roc_curve(y, score, pos_label="spam", drop_intermediate=False)
    np.testing.assert_array_equal(fpr, want[0])
    np.testing.assert_array_equal(tpr, want[1])
    # 'spam' sorts after 'ham', so it is also the default positive class
    assert roc_auc_score(y, score) == pytest.approx(sk.roc_auc_score(y == "spam", score))


def test_reversed_score_gives_one_minus_auc():
    y, score = _data(3)
    assert roc_auc_score(y, -score) == pytest.approx(1 - roc_auc_score(y, score), abs=1e-12)


def test_one_class_or_three_classes_is_a_clear_error():
    with pytest.raises(ValueError, match="both classes"):
        roc_curve([1, 1, 1], [0.2, 0.5, 0.7])
    with pytest.raises(ValueError, match="two classes"):
        roc_auc_score([0, 1, 2], [0.2, 0.5, 0.7])
