"""What χ² pruning (Quinlan 1986) removes from a grown tree: the splits and their tests.

The engine prunes bottom-up: a split whose children are all leaves is removed when its
χ² test is not significant, which may leave its parent as the next candidate. So a
split survives exactly when its own test is significant or a split below it survives;
:func:`chi2_removed` applies that rule in one pass up the levels, and
:func:`chi2_removed_table` lists the removed splits with their statistics.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.tree._prune import chi2_statistic

from .tree_dot import TreeNames, split_text


def split_tests(tree) -> pd.DataFrame:
    """χ², df and p-value of every split of ``tree`` (a classification tree).

    Returns
    -------
    DataFrame indexed by node id (internal nodes only) with ``chi2``, ``df``, ``p_value``.

    Notes
    -----
    χ² = Σ_k Σ_q (n_kq − n̂_kq)² / n̂_kq with n̂_kq = n_q n_k / n, df = (K − 1)(Q − 1),
    over the children k and classes q of the split. An empty ID3 branch holds
    no rows and takes no part.
    """
    internal = np.flatnonzero(tree.children_left >= 0)
    rows = []
    for node in internal:
        children = np.array(list(tree.children(int(node))))
        held = tree.weighted_n_node_samples[children] > 0
        rows.append(chi2_statistic(np.where(held[:, None], tree.value[children], 0.0)))
    table = pd.DataFrame(rows, columns=["chi2", "df", "p_value"], index=internal)
    return table.rename_axis("node")


def chi2_removed(tree, alpha: float) -> np.ndarray:
    """Ids of the nodes of ``tree`` whose split χ² pruning at level ``alpha`` removes.

    A split is kept when p < ``alpha`` or when some split below it is kept; every other
    split is removed (``tree.collapse`` of the topmost removed nodes gives the pruned tree).
    """
    tests = split_tests(tree)
    keep = np.zeros(tree.node_count, dtype=bool)
    keep[tests.index.to_numpy()] = tests["p_value"].to_numpy() < alpha
    for depth in range(int(tree.max_depth), 0, -1):  # children before their parents
        at = np.flatnonzero((tree.depth == depth) & keep)
        keep[tree.parent[at]] = True
    internal = tree.children_left >= 0
    return np.flatnonzero(internal & ~keep)


def chi2_removed_table(model, tree, alpha: float) -> pd.DataFrame:
    """The removed splits of :func:`chi2_removed`, deepest first, as a table.

    Columns: ``node``, ``depth``, ``split`` (the question in the data's words),
    ``samples``, ``chi2``, ``df``, ``p_value``.
    """
    removed = chi2_removed(tree, alpha)
    tests = split_tests(tree).loc[removed]
    names = TreeNames(model)
    table = pd.DataFrame({
        "node": removed, "depth": tree.depth[removed],
        "split": [split_text(tree, int(i), names) for i in removed],
        "samples": tree.n_node_samples[removed],
        "chi2": tests["chi2"].to_numpy(), "df": tests["df"].to_numpy(),
        "p_value": tests["p_value"].to_numpy(),
    })
    return table.sort_values(["depth", "node"], ascending=[False, True]).reset_index(drop=True)
