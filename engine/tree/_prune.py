"""Pruning a grown tree: cost-complexity (CART) and χ² significance (ID3).

Both work on the flat arrays of :class:`~engine.tree._tree.Tree` and return a new,
smaller ``Tree`` through ``Tree.collapse``; neither needs the training data.

Notes
-----
**Cost-complexity pruning** (Breiman et al. 1984, ESL §9.2.2). With
:math:`R(t) = \\frac{w_t}{w_{root}} I(t)` the weighted impurity of node :math:`t` and
:math:`R(T_t)` the sum of :math:`R` over the leaves of the branch rooted at :math:`t`,
the cost of a subtree is :math:`R_\\alpha(T) = R(T) + \\alpha |leaves(T)|`. Weakest-link
pruning repeatedly collapses the branch with the smallest effective

.. math:: \\alpha_{eff}(t) = \\frac{R(t) - R(T_t)}{|leaves(T_t)| - 1},

giving a nested sequence of subtrees, one for each interval of :math:`\\alpha`.

**χ² pruning** (Quinlan 1986; Russell & Norvig 2010, §18.3). A split of :math:`n`
examples into children :math:`k` with class counts :math:`n_{kq}` is compared with a
zero-gain split, in which each child has the parent's class distribution,
:math:`\\hat n_{kq} = n_q n_k / n`:

.. math:: \\chi^2 = \\sum_k \\sum_q \\frac{(n_{kq} - \\hat n_{kq})^2}{\\hat n_{kq}},
   \\qquad df = (K - 1)(Q - 1).

A split whose children are all leaves is removed when its deviation is not significant
at level ``alpha``; repeat until no split changes.

References
----------
Breiman, Friedman, Olshen & Stone (1984), *Classification and Regression Trees*, ch. 3.
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, §9.2.2.
Quinlan (1986), "Induction of decision trees", *Machine Learning* 1, 81–106.
Russell & Norvig (2010), *Artificial Intelligence: A Modern Approach*, 3rd ed., §18.3.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from itertools import islice, takewhile

import numpy as np
import pandas as pd

from ..base import check_random_state, clone
from ._chi2 import chi2_sf, chi2_statistic, chi2_tables
from ._criteria import TIE_TOLERANCE
from ._tree import plurality

__all__ = [
    "ccp_path",
    "prune_ccp",
    "prune_chi2",
    "choose_ccp_alpha_cv",
    "chi2_statistic",
    "chi2_sf",
    "chi2_tables",
]


# --- cost-complexity pruning --------------------------------------------------------


def _preorder(tree) -> tuple[np.ndarray, np.ndarray]:
    """Depth-first (parent, then children left to right) position and branch size of each node."""
    n_nodes = len(tree.children_left)
    order = np.empty(n_nodes, dtype=np.intp)
    stack, k = [0], 0
    while stack:
        node = stack.pop()
        order[k] = node
        k += 1
        if tree.children_left[node] >= 0:
            stack.extend(range(tree.children_right[node], tree.children_left[node] - 1, -1))
    position = np.empty(n_nodes, dtype=np.intp)
    position[order] = np.arange(n_nodes)
    size = np.ones(n_nodes, dtype=np.intp)
    for node in order[::-1][:-1]:
        size[tree.parent[node]] += size[node]
    return position, size


def _branch_sums(tree, r_node: np.ndarray, position: np.ndarray) -> tuple[list, list]:
    """R(T_t) and |leaves(T_t)| for every node, as lists.

    Each leaf's R is added to its ancestors one leaf at a time in depth-first order, the
    order scikit-learn sums them in, so equally weak branches tie bit for bit as there.
    """
    is_leaf = tree.children_left < 0
    r_branch = np.where(is_leaf, r_node, 0.0).tolist()
    n_leaves = is_leaf.astype(np.intp).tolist()
    parent, r_leaf = tree.parent.tolist(), r_node.tolist()
    leaves = np.flatnonzero(is_leaf)
    for leaf in leaves[np.argsort(position[leaves])].tolist():
        r, node = r_leaf[leaf], leaf
        while node > 0:  # its ancestors, up to the root
            node = parent[node]
            r_branch[node] += r
            n_leaves[node] += 1
    return r_branch, n_leaves


def _weakest_links(tree) -> Iterator[tuple[float, int, float]]:
    """Yield (effective α, node collapsed, R of the remaining tree) for each pruning step.

    The first item, (0, -1, R(T)), is the unpruned tree.

    Ties in α go to the node that comes first depth-first, the order in which
    scikit-learn numbers its nodes, so the two paths agree step by step.

    The candidates wait in a heap by (α, depth-first position). Collapsing a branch
    changes the α of its ancestors only and takes its nodes out of the candidates. An
    ancestor's α cannot fall by it, up to rounding (the collapsed branch was the
    weakest: the mediant of its α and the ancestor's is at least the ancestor's), so an
    ancestor's entry keeps its key, a lower bound, and is pushed again only where the
    new α is lower. A popped entry whose node's α is now higher goes back with that α;
    one whose α is its key is the weakest link, since every other entry's key is at
    most its node's α. A step costs the depth of the branch, not a pass over every node,
    and each α is one division of the same sums: the path is the same to the bit as
    recomputing every candidate's α at every step.
    """
    w = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)
    r_node = w * np.asarray(tree.impurity, dtype=np.float64) / w[0]
    position, size = _preorder(tree)
    r_branch, n_leaves = _branch_sums(tree, r_node, position)
    yield 0.0, -1, float(r_branch[0])
    r_own, parent, at = r_node.tolist(), tree.parent.tolist(), position.tolist()
    internal = np.flatnonzero(tree.children_left >= 0).tolist()
    key = [0.0] * len(r_own)  # the key of each node's entry in the heap
    for t in internal:
        key[t] = (r_own[t] - r_branch[t]) / (n_leaves[t] - 1)
    heap = [(key[t], at[t], t) for t in internal]
    heapq.heapify(heap)
    gone = np.zeros(len(r_own), dtype=bool)  # by depth-first position: inside a collapsed branch
    while heap:
        alpha, p, node = heapq.heappop(heap)
        if gone[p] or alpha != key[node]:  # collapsed, or an entry pushed again since
            continue
        now = (r_own[node] - r_branch[node]) / (n_leaves[node] - 1)
        if now != alpha:  # its branch lost leaves since: back in with its α now
            key[node] = now
            heapq.heappush(heap, (now, p, node))
            continue
        gone[p:p + int(size[node])] = True
        r_diff, n_lost = r_own[node] - r_branch[node], n_leaves[node] - 1
        r_branch[node], n_leaves[node] = r_own[node], 1
        up = node
        while up > 0:  # its ancestors, up to the root
            up = parent[up]
            r_branch[up] += r_diff
            n_leaves[up] -= n_lost
            now = (r_own[up] - r_branch[up]) / (n_leaves[up] - 1)
            if now < key[up]:  # rounding only: its entry must not wait behind its α
                key[up] = now
                heapq.heappush(heap, (now, at[up], up))
        yield alpha, node, float(r_branch[0])


def ccp_path(tree) -> tuple[np.ndarray, np.ndarray]:
    """The minimal cost-complexity pruning path of a grown tree.

    Parameters
    ----------
    tree : Tree
        A fitted tree (classification or regression).

    Returns
    -------
    ccp_alphas : ndarray of shape (n_steps + 1,)
        Effective α of each subtree in the nested sequence, starting with 0 for the
        full tree and ending with the α at which the root is collapsed.
    impurities : ndarray of shape (n_steps + 1,)
        R(T) = Σ_leaves (w_t / w_root) I(t) of each subtree.

    Notes
    -----
    The same definition as scikit-learn's ``cost_complexity_pruning_path``: one
    branch collapsed per step, so α repeats when several branches are equally weak.

    Examples
    --------
    >>> from engine.tree import DecisionTreeClassifier
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> tree = DecisionTreeClassifier().fit(X, [0, 0, 0, 1, 0, 1, 1, 1]).tree_
    >>> alphas, impurities = ccp_path(tree)
    >>> alphas.round(4).tolist(), impurities.round(4).tolist()
    ([0.0, 0.1, 0.3], [0.0, 0.2, 0.5])
    >>> tree.n_leaves, prune_ccp(tree, 0.2).n_leaves, prune_ccp(tree, 0.35).n_leaves
    (4, 2, 1)
    """
    steps = list(_weakest_links(tree))
    return np.array([s[0] for s in steps]), np.array([s[2] for s in steps])


def _topmost(tree, nodes: list[int]) -> list[int]:
    """The nodes of ``nodes`` with no ancestor in ``nodes``."""
    chosen = np.zeros(len(tree.children_left), dtype=bool)
    chosen[nodes] = True
    keep = []
    for node in nodes:
        parent = int(tree.parent[node])
        while parent >= 0 and not chosen[parent]:
            parent = int(tree.parent[parent])
        if parent < 0:
            keep.append(node)
    return sorted(keep)


def _prune_sequence(tree) -> tuple[np.ndarray, np.ndarray]:
    """Effective α and collapsed node of every weakest-link step, in order."""
    steps = list(_weakest_links(tree))[1:]
    return np.array([s[0] for s in steps]), np.array([s[1] for s in steps], dtype=np.intp)


def _collapse_until(tree, alphas: np.ndarray, nodes: np.ndarray, alpha: float):
    # Stop at the first step beyond α, as the sequential algorithm does.
    beyond = np.flatnonzero(alphas > alpha)
    n_steps = beyond[0] if len(beyond) else len(alphas)
    return tree.collapse(_topmost(tree, nodes[:n_steps].tolist()))


def prune_ccp(tree, alpha: float):
    """Minimal cost-complexity pruning: the smallest subtree minimising R(T) + α|leaves(T)|.

    Parameters
    ----------
    tree : Tree
    alpha : float, >= 0
        Complexity parameter. Branches whose effective α is at most ``alpha`` are
        collapsed, weakest first.

    Returns
    -------
    Tree
        A new tree (``tree`` itself is not modified).
    """
    if not alpha >= 0:
        raise ValueError(f"ccp_alpha must be a non-negative number; got {alpha!r}.")
    # The steps up to the first one beyond α, as _collapse_until takes them: the search
    # stops there, so a small α costs a few steps, not the whole sequence.
    steps = takewhile(lambda step: step[0] <= alpha, islice(_weakest_links(tree), 1, None))
    return tree.collapse(_topmost(tree, [node for _, node, _ in steps]))


# --- χ² pruning ------------------------------------------------------------------------


def _split_tables(tree, nodes: np.ndarray) -> np.ndarray:
    """(len(nodes), max children, n_classes) class counts of each node's children (zero-padded)."""
    first = tree.children_left[nodes]
    n_children = tree.children_right[nodes] - first + 1
    offsets = np.arange(int(n_children.max()))
    child = first[:, None] + offsets[None, :]
    valid = offsets[None, :] < n_children[:, None]
    # An empty ID3 branch carries its parent's value for prediction but holds no rows.
    value = np.where((tree.weighted_n_node_samples > 0)[:, None], tree.value, 0.0)
    return np.where(valid[..., None], value[np.where(valid, child, 0)], 0.0)


def prune_chi2(tree, alpha: float = 0.05):
    """χ² significance pruning (Quinlan 1986), bottom-up until every remaining split is significant.

    Parameters
    ----------
    tree : Tree
        A fitted classification tree (``value`` holds class counts).
    alpha : float in (0, 1], default=0.05
        Significance level. A split whose children are all leaves is kept only when
        its χ² p-value is below ``alpha``; otherwise it is collapsed, which may make
        its parent the next candidate.

    Returns
    -------
    Tree
        A new tree.
    """
    if not 0 < alpha <= 1:
        raise ValueError(f"chi2_alpha must be in (0, 1]; got {alpha!r}.")
    if tree.value.shape[1] < 2 and tree.node_count > 1:
        raise ValueError("χ² pruning tests class counts: it needs a classification tree.")
    is_leaf = np.asarray(tree.children_left) < 0
    alive = np.ones_like(is_leaf)
    collapsed: list[int] = []
    while True:
        internal = np.flatnonzero(alive & ~is_leaf)
        if len(internal) == 0:
            break
        frontier = internal[[bool(is_leaf[tree.children(i)].all()) for i in internal]]
        _, _, p_value = chi2_tables(_split_tables(tree, frontier))
        weak = frontier[p_value >= alpha]
        if len(weak) == 0:
            break
        for node in weak:
            alive[tree.children(node)] = False
        is_leaf[weak] = True
        collapsed.extend(int(node) for node in weak)
    return tree.collapse(_topmost(tree, collapsed))


# --- choosing α by cross-validation ----------------------------------------------------


def _fold_ids(
    y: np.ndarray | None, n_samples: int, cv: int, rng: np.random.Generator
) -> np.ndarray:
    """Fold number of each row; stratified by class when ``y`` (class codes) is given."""
    folds = np.empty(n_samples, dtype=np.intp)
    groups = [np.arange(n_samples)] if y is None else [np.flatnonzero(y == c) for c in np.unique(y)]
    start = 0
    for rows in groups:
        # Continue the round-robin across classes so fold sizes differ by at most one.
        folds[rng.permutation(rows)] = (start + np.arange(len(rows))) % cv
        start += len(rows)
    return folds


def _steps_taken(step_alphas: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """How many steps of the sequence ``_collapse_until`` takes for each α: up to the
    first step whose α is beyond it."""
    return np.searchsorted(np.maximum.accumulate(step_alphas), alphas, side="right")


def _leaf_intervals(tree, step_nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every node t, the numbers of steps s (``lo[t] <= s <= hi[t]``) after which
    t is a leaf of the pruned tree; empty (lo > hi) when it never is one.

    With k_t the step that collapses t (−1 for a leaf of the full tree, never for an
    internal node no step collapses) and A_t the smallest k of t's ancestors, the tree
    after s steps has t as a leaf exactly when t is collapsed (k_t < s) and none of its
    ancestors is (s ≤ A_t): the leaves of every pruned tree of the sequence at once.
    """
    n, never = tree.node_count, len(step_nodes) + 1
    k = np.where(np.asarray(tree.children_left) < 0, -1, never)
    k[step_nodes[::-1]] = np.arange(len(step_nodes))[::-1]  # the first step wins
    above = np.full(n, never)
    for d in range(1, tree.max_depth + 1):  # parents before children: depth by depth
        at = np.flatnonzero(tree.depth == d)
        parent = tree.parent[at]
        above[at] = np.minimum(above[parent], k[parent])
    return k + 1, np.minimum(above, len(step_nodes))


def _path_sums(tree, leaves: np.ndarray, weight_of) -> np.ndarray:
    """Σ over the rows reaching each node of ``weight_of(rows, node)``: each row is
    walked up from its leaf (``leaves``) to the root, one level at a time."""
    total = np.zeros(tree.node_count)
    rows, node = np.arange(len(leaves)), np.asarray(leaves)
    while len(rows):
        total += np.bincount(node, weights=weight_of(rows, node), minlength=tree.node_count)
        node = tree.parent[node]
        keep = node >= 0
        rows, node = rows[keep], node[keep]
    return total


def _errors_along_path(model, step_alphas, step_nodes, alphas, X_valid_encoded,
                       y_valid) -> np.ndarray:
    """Validation error of ``model``'s tree pruned at each α of ``alphas``, as
    ``_collapse_until`` prunes it: misclassification rate or mean squared error.

    The validation rows are walked once through the full tree. A row's leaf in a
    pruned tree is the node of its path that is a leaf there (:func:`_leaf_intervals`),
    so each node's share of the error (its rows, scored by its own value) is summed
    once, and each α adds up the shares of its tree's leaves. A classifier's error
    counts rows, exactly as scoring each pruned tree would.
    """
    tree = model.tree_
    leaves = tree.apply(X_valid_encoded)
    if getattr(model, "_estimator_type", None) == "classifier":
        predicted = plurality(tree.value)
        truth = pd.Index(model.classes_).get_indexer(np.asarray(y_valid))
        share = _path_sums(tree, leaves, lambda rows, node: truth[rows] != predicted[node])
        share = np.rint(share).astype(np.int64)  # counts of rows
    else:
        target, fitted = np.asarray(y_valid, dtype=np.float64), tree.value[:, 0]
        share = _path_sums(tree, leaves, lambda rows, node: (target[rows] - fitted[node]) ** 2)
    return _leaves_sum(tree, step_alphas, step_nodes, alphas, share) / len(leaves)


def _leaf_counts(tree, step_alphas, step_nodes, alphas) -> np.ndarray:
    """Leaves of ``tree`` pruned at each α of ``alphas`` (as ``_collapse_until`` does)."""
    return _leaves_sum(tree, step_alphas, step_nodes, alphas,
                       np.ones(tree.node_count, dtype=np.int64))


def _leaves_sum(tree, step_alphas, step_nodes, alphas, share: np.ndarray) -> np.ndarray:
    """Σ of ``share`` over the leaves of ``tree`` pruned at each α of ``alphas``: each
    node adds its share to the steps it is a leaf after (:func:`_leaf_intervals`)."""
    lo, hi = _leaf_intervals(tree, step_nodes)
    is_leaf = lo <= hi
    by_steps = np.zeros(len(step_nodes) + 2, dtype=share.dtype)
    np.add.at(by_steps, lo[is_leaf], share[is_leaf])
    np.add.at(by_steps, hi[is_leaf] + 1, -share[is_leaf])
    return np.cumsum(by_steps)[_steps_taken(step_alphas, alphas)]


def _rows(X, index: np.ndarray):
    return X.iloc[index] if isinstance(X, pd.DataFrame | pd.Series) else np.asarray(X)[index]


def choose_ccp_alpha_cv(estimator, X, y, cv: int = 5, random_state: int | None = 0, *,
                        full=None, progress=None):
    """Choose the cost-complexity α by k-fold cross-validation (Breiman et al. 1984).

    Parameters
    ----------
    estimator : DecisionTreeClassifier or DecisionTreeRegressor
        Unfitted template; its parameters are kept except ``ccp_alpha``.
    X : array-like or DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    cv : int, default=5
        Number of folds (stratified by class for classifiers).
    random_state : int or None, default=0
        Seed of the shuffle that assigns rows to folds.
    full : fitted estimator, optional
        ``estimator`` with ``ccp_alpha=0`` already fitted on (X, y), if the caller has
        it: its tree is the whole-data path's and is not grown again (with
        :func:`~engine.tree.prune_to_alpha` it also gives the chosen tree).
    progress : callable, optional
        ``progress(done, total)`` after each of the ``2 * cv + 1`` steps: the whole
        data's path, then each fold's tree grown and its errors along the path.

    Returns
    -------
    best_alpha : float
        The α of the path with the smallest mean validation error; ties go to the
        larger α, i.e. the simpler tree.
    table : DataFrame
        One row per distinct α of the path fitted on all data: ``alpha``,
        ``n_leaves`` (of that pruned tree), ``cv_error`` (mean over folds;
        misclassification rate or mean squared error) and ``cv_error_std``.

    Notes
    -----
    Every fold grows one full tree and prunes it at each α of the whole-data path,
    as ESL §9.2.2 describes, instead of refitting once per α; the validation rows
    are walked once per fold, not once per α (:func:`_errors_along_path`).
    """
    steps, report = 2 * cv + 1, progress or (lambda done, total: None)
    if full is None:
        full = clone(estimator).set_params(ccp_alpha=0.0).fit(X, y)
    full_sequence = _prune_sequence(full.tree_)
    report(1, steps)
    alphas = np.unique(np.r_[0.0, full_sequence[0]])
    y_array = np.asarray(y)
    is_classifier = getattr(full, "_estimator_type", None) == "classifier"
    strata = np.unique(y_array.astype(str), return_inverse=True)[1] if is_classifier else None
    folds = _fold_ids(strata, len(y_array), cv, check_random_state(random_state))
    errors = np.empty((cv, len(alphas)))
    for k in range(cv):
        train, valid = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
        model = clone(estimator).set_params(ccp_alpha=0.0).fit(_rows(X, train), y_array[train])
        report(2 * k + 2, steps)
        X_valid, y_valid = model.encoder_.transform(_rows(X, valid)), y_array[valid]
        errors[k] = _errors_along_path(model, *_prune_sequence(model.tree_), alphas, X_valid,
                                       y_valid)
        report(2 * k + 3, steps)
    table = pd.DataFrame(
        {
            "alpha": alphas,
            "n_leaves": _leaf_counts(full.tree_, *full_sequence, alphas),
            "cv_error": errors.mean(axis=0),
            "cv_error_std": errors.std(axis=0),
        }
    )
    # the largest α (the smallest tree) among those tied for the lowest error
    best = np.flatnonzero(table["cv_error"].to_numpy()
                          <= table["cv_error"].min() + TIE_TOLERANCE)[-1]
    return float(alphas[best]), table
