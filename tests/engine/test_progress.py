"""Fits report progress (the app's progress bars) and reporting changes nothing."""
import numpy as np
import pytest

from engine.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from engine.ensemble._bagged import BaseBagged, stack_size


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=7, random_state=0),
    lambda: RandomForestClassifier(n_estimators=7, random_state=0, n_jobs=2),
    lambda: RandomForestClassifier(n_estimators=60, random_state=0),  # three stacks
    lambda: BaggingClassifier(n_estimators=5, random_state=0),
    lambda: AdaBoostClassifier(n_estimators=6, random_state=0),
    lambda: GradientBoostingClassifier(n_estimators=4, random_state=0),
])
def test_progress_reports_every_member_and_changes_nothing(make):
    """Boosting reports every round; forests and bagging grow their trees in stacks
    (see engine.ensemble._bagged.stack_size) and report each stack's trees at once."""
    X, y = _progress_data()
    seen = []
    with_progress = make().fit(X, y, progress=lambda done, total: seen.append((done, total)))
    total = make().n_estimators
    assert [t for _, t in seen] == [total] * len(seen)
    done = [d for d, _ in seen]
    reports = total
    if isinstance(with_progress, BaseBagged):
        reports = len(range(0, total, stack_size(len(y), X.shape[1], total)))
    assert done == sorted(done) and len(done) == reports and done[-1] in (total - 1, total)
    np.testing.assert_array_equal(with_progress.predict_proba(X), make().fit(X, y).predict_proba(X))


def _progress_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    return X, (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
