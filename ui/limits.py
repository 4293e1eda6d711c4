"""How much work one click may start on a shared classroom server, and what happens above it.

Streamlit runs one process for every student: a single request that fits a 1,000-tree forest
on 100,000 rows would hold a core for minutes while thirty others wait. The limits below
bound the work of one fit; docs/limits.md states them for users and teachers.

* Uploads: ``MAX_UPLOAD_MB`` (= ``server.maxUploadSize`` in .streamlit/config.toml, which
  the server itself enforces).
* Ensemble size: at most ``MAX_TREES`` trees and ``MAX_ROUNDS`` boosting rounds.
* Work: rows × models must stay under ``MAX_WORK[kind]``; :func:`check_work` refuses more
  with a message saying what to lower.
* Bootstrap sample per tree: on a table of more than ``TREE_ROWS`` rows a forest's or
  bagging's trees draw ``rows_per_tree`` rows each by default instead of n
  (``max_samples``), whatever their number, and the page says so.
* Threshold search: above ``BINNED_ABOVE_ROWS`` training rows the tree pages start with
  the binned search (``binning="quantile"``), which a toggle turns back to exact.
* OOB permutation importance scores at most ``IMPORTANCE_OOB_ROWS`` OOB rows a tree (a
  seeded sample of each tree's own); the Importance tab says so when it samples.
  Gradient boosting's permutation importance shuffles at most ``PERMUTATION_ROWS`` test
  rows (a seeded sample with each class's share).

The work budgets come from bench/README.md: a 100-tree forest on spambase (4,601 rows)
takes about 14 s of one core, 100 depth-3 gradient-boosting rounds on 20,000 rows about
8 s, 200 AdaBoost stumps on 20,000 rows about 4 s. Each budget is about a minute of one
core for a single fit.

Examples
--------
>>> check_work(4_601, 100, "forest") is None
True
>>> print(check_work(100_000, 400, "forest"))  # doctest: +ELLIPSIS
**This would take too long on a shared server.** ...
"""
from __future__ import annotations

from ui.state import MAX_UPLOAD_MB

__all__ = ["MAX_UPLOAD_MB", "BINNED_ABOVE_ROWS", "TREE_ROWS",
           "MAX_TREES", "MAX_ROUNDS", "MAX_WORK", "IMPORTANCE_OOB_ROWS", "PERMUTATION_ROWS",
           "check_work", "most_models", "rows_per_tree",
           "rows_per_tree_note"]

#: Training rows above which trees and ensembles start with the binned threshold search:
#: there one exact full-depth tree of 20 numeric features takes about a second of one
#: core and grows roughly as n^1.2 (bench/README.md, "Binned search").
BINNED_ABOVE_ROWS = 25_000
#: OOB rows a tree scores for the permutation importance: each scored row is walked again
#: for every feature on its path, so the work grows as trees × OOB rows × depth. Spambase's
#: trees have about 1,700 OOB rows each, all of them scored.
IMPORTANCE_OOB_ROWS = 2_000
#: Test rows a permutation importance shuffles: each column is shuffled several times
#: and every shuffled copy predicted by the whole model.
PERMUTATION_ROWS = 5_000
MAX_TREES = 500
MAX_ROUNDS = 1_000
MAX_WORK = {
    "forest": 4_000_000,     # rows × trees (full-depth trees)
    "bagging": 4_000_000,    # rows × trees
    "boosting": 20_000_000,  # rows × rounds of gradient boosting (shallow trees)
    "adaboost": 40_000_000,  # rows × rounds of stumps
}
UNIT = {"forest": "trees", "bagging": "trees", "boosting": "rounds", "adaboost": "rounds"}
MAX_MODELS = {"forest": MAX_TREES, "bagging": MAX_TREES, "boosting": MAX_ROUNDS,
              "adaboost": MAX_ROUNDS}


#: Rows a forest's or bagging's tree draws by default on a big table: the default 100
#: trees of 10,000 rows of 20 features take about 13 s of the two cores of a small server
#: (bench/README.md, "200,000 rows").
TREE_ROWS = 10_000


def rows_per_tree(n_rows: int, n_trees: int) -> int | None:
    """The bootstrap sample size per tree of a forest of ``n_trees`` on ``n_rows`` rows:
    None (n, every tree a full bootstrap sample) on a table of at most ``TREE_ROWS``
    rows, else ``TREE_ROWS``; fewer only where the forest would exceed its work limit
    (``MAX_WORK["forest"]``, more than 400 trees of ``TREE_ROWS``).

    The size does not depend on the number of trees below that limit, so a forest of
    more trees continues the one of fewer (the same first trees, the OOB curve
    extended) and a smaller one is the larger one's first trees.

    >>> rows_per_tree(4_601, 100) is None, rows_per_tree(4_601, 500) is None
    (True, True)
    >>> rows_per_tree(150_000, 100), rows_per_tree(150_000, 50), rows_per_tree(150_000, 500)
    (10000, 10000, 8000)
    """
    per_tree = min(n_rows, TREE_ROWS, MAX_WORK["forest"] // max(n_trees, 1))
    return None if per_tree >= n_rows else per_tree


def rows_per_tree_note(n_rows: int, max_samples: int | None) -> str:
    """The sentence a page shows when its trees draw fewer rows than it has, else ""."""
    if max_samples is None or max_samples >= n_rows:
        return ""
    return (f"Each tree is grown on a bootstrap sample of {max_samples:,} of the {n_rows:,} "
            "training rows, so that the forest fits in seconds on a shared server; the "
            "rows a tree did not draw are its out-of-bag rows."
            + (" More trees add to this forest and fewer keep its first ones: the OOB "
               "curve goes on where it was." if max_samples == TREE_ROWS else ""))


def check_work(n_rows: int, n_models: int, kind: str) -> str | None:
    """None when a fit of ``n_models`` trees/rounds on ``n_rows`` rows is allowed, else why not.

    Parameters
    ----------
    n_rows : int
        Training rows the fit will see (a forest's rows per tree, see :func:`rows_per_tree`).
    n_models : int
        Trees (forest, bagging) or rounds (boosting, AdaBoost).
    kind : {"forest", "bagging", "boosting", "adaboost"}

    Returns
    -------
    message : str or None
        A message for ``st.error`` saying what to lower, or None when the fit may run.

    Notes
    -----
    Allowed when ``n_models <= MAX_MODELS[kind]`` and ``n_rows × n_models <= MAX_WORK[kind]``.
    """
    if kind not in MAX_WORK:
        raise ValueError(f"kind must be one of {sorted(MAX_WORK)}, got {kind!r}")
    unit, most = UNIT[kind], MAX_MODELS[kind]
    if n_models > most:
        return (f"**{n_models:,} {unit} is more than this server allows ({most:,}).** "
                f"Choose at most {most:,} {unit}.")
    budget = MAX_WORK[kind]
    if n_rows * n_models <= budget:
        return None
    return (f"**This would take too long on a shared server.** {n_models:,} {unit} on "
            f"{n_rows:,} training rows is more than the limit of {budget:,} rows × {unit}. "
            f"Choose at most {most_models(n_rows, kind):,} {unit}, or fewer rows.")


def most_models(n_rows: int, kind: str) -> int:
    """The most trees or rounds :func:`check_work` allows on ``n_rows`` rows (at least 1).

    >>> most_models(50_000, "forest"), most_models(100, "forest")
    (80, 500)
    """
    return max(min(MAX_WORK[kind] // max(n_rows, 1), MAX_MODELS[kind]), 1)
