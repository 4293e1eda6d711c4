"""Fits report progress (the app's progress bars) and reporting changes nothing."""
import numpy as np
import pytest

from engine.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from engine.ensemble._bagged import BaseBagged, entries_per_row, stack_edges
from engine.ensemble._base import effective_jobs
from engine.tree._binning import prepare_features


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=7, random_state=0),
    lambda: RandomForestClassifier(n_estimators=7, random_state=0, n_jobs=2),
    lambda: RandomForestClassifier(n_estimators=120, random_state=0),  # two stacks
    lambda: BaggingClassifier(n_estimators=5, random_state=0),
    lambda: AdaBoostClassifier(n_estimators=6, random_state=0),
    lambda: GradientBoostingClassifier(n_estimators=4, random_state=0),
])
def test_progress_reports_every_member_and_changes_nothing(make):
    """Boosting reports every round; forests and bagging grow their trees in stacks
    (see engine.ensemble._bagged.stack_edges) and report each stack's trees at once."""
    X, y = _progress_data()
    seen = []
    with_progress = make().fit(X, y, progress=lambda done, total: seen.append((done, total)))
    total = make().n_estimators
    assert [t for _, t in seen] == [total] * len(seen)
    done = [d for d, _ in seen]
    reports = total
    if isinstance(with_progress, BaseBagged):
        draws = isinstance(with_progress, RandomForestClassifier)  # bagging: every feature
        entries = entries_per_row(prepare_features(X, np.zeros(X.shape[1], dtype=np.intp), 255), 2)
        edges = stack_edges(len(y), X.shape[1], total, draws, effective_jobs(with_progress.n_jobs),
                            entries)
        reports = len(edges) - 1
    assert done == sorted(done) and len(done) == reports and done[-1] in (total - 1, total)
    np.testing.assert_array_equal(with_progress.predict_proba(X), make().fit(X, y).predict_proba(X))


def _progress_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    return X, (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)


def test_stacks_are_even_and_fill_every_worker():
    """Trees that draw features stack by entries (drawn rows times the entries a row
    brings), others by cells; the stacks differ by at most one tree, and with workers
    each gets a whole number of stacks (of batches)."""
    def sizes(*args, **kwargs):
        return np.diff(stack_edges(*args, **kwargs)).tolist()

    assert sizes(4601, 57, 100, draws=True) == [16, 17, 17, 16, 17, 17]  # 360,000 entries, 4 a row: 19
    assert sizes(4601, 57, 100, draws=True, entries=1.56) == [50, 50]  # spambase's: 50
    assert sizes(4601, 57, 100) == [2] + [3] * 16 + [2] + [3] * 16  # 1,000,000 cells: 3 trees
    assert sizes(10000, 20, 100, n_jobs=2) == ([4] * 5 + [5]) * 4  # 5 trees: 20, 24 for 8 batches
    assert sizes(20000, 20, 100, draws=True) == [4] * 25
    assert sizes(150, 4, 120, draws=True) == [60] * 2  # at most 100 trees a stack
    assert sizes(4601, 57, 200, draws=True, n_jobs=2) == [12, 13] * 8  # 11 stacks: 2 a batch
    assert sizes(4601, 57, 200, draws=True, n_jobs=2, entries=1.56) == [50] * 4
    assert sizes(20000, 20, 100, draws=True, n_jobs=2) == ([3] * 7 + [4]) * 4  # 25: 4 a batch
    assert sizes(10**7, 3, 5, draws=True) == [1] * 5
    assert sizes(100, 3, 1, draws=True, n_jobs=2) == [1]


def test_a_drawn_row_brings_an_entry_for_each_feature_drawn_that_the_search_reads_it_for():
    """A continuous column's rows are all read, a categorical one's too, a column
    mostly of one value only its other rows: ``entries_per_row`` is the number drawn
    times the mean share."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 200
    words = np.where(np.arange(n) < 30, 1.0 + np.arange(n) % 3, 0.0)  # 30 rows off 0
    columns = {"continuous": rng.normal(size=n), "words": words,
               "colour": rng.integers(0, 3, n).astype(float), "empty": np.full(n, np.nan)}
    X = pd.DataFrame(columns).to_numpy()
    prepared = prepare_features(X, np.array([0, 0, 3, 0]), 255)
    share = [1 - 1 / n, 30 / n, 1.0, 1.0]  # (every value distinct: one row holds the "mode")
    assert entries_per_row(prepared, 2) == pytest.approx(2 * np.mean(share))
