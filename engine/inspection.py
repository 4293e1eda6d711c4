"""Looking inside fitted models: the numbers the app's pages display.

``split_candidates`` is the decision-tree page's "show your working" table: for one
node, every split the learner could have made and what each criterion thinks of it.
The ensemble pages read ``oob_error_curve``, ``staged_error_curve`` (or ``staged_errors``,
which also gives the whole model's prediction from the same pass), the two
permutation importances, ``decision_grid`` (two-feature boundary pictures) and
``tree_correlation`` (the ρ of ρσ² + (1−ρ)σ²/B, Hastie et al. 2009, eq. 15.1).
"Why this prediction?" is answered by ``contributions`` (a tree model's output split
into a bias and one part per feature along each row's path, Saabas 2014) and
``partial_dependence`` (the mean output, and each row's curve, as a feature varies,
Friedman 2001 §8.2; Goldstein et al. 2015).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._explain import PartialDependence, contributions, partial_dependence, round_contributions
from ._validation import FeatureEncoder, check_sample_weight, encode_labels
from .base import check_random_state
from .tree import TREE_LEAF, plurality
from .tree._candidates import (
    SCORE_COLUMN,
    SPLIT_COLUMNS,
    candidate_table,
    mark_chosen,
    node_at_depth,
    one_hot,
)
from .tree._tree import CATEGORICAL_BINARY

__all__ = [
    "SPLIT_COLUMNS",
    "DecisionGrid",
    "PartialDependence",
    "TreeCorrelation",
    "contributions",
    "decision_grid",
    "grid_output",
    "importance_frame",
    "node_test_counts",
    "oob_error_curve",
    "oob_permutation_drops",
    "oob_permutation_importance",
    "partial_dependence",
    "round_contributions",
    "permutation_importance",
    "split_candidates",
    "StagedErrors",
    "staged_error_curve",
    "staged_errors",
    "tree_correlation",
]


def _model_node(model, node: int, X, y, sample_weight):
    """Encoded rows reaching ``node`` of a fitted tree, their class codes and weights."""
    if X is None or y is None:
        raise ValueError(
            "Pass the rows to inspect: split_candidates(model, node, X=X_train, y=y_train)."
        )
    if not hasattr(model, "tree_") or getattr(model, "_estimator_type", None) != "classifier":
        raise ValueError(
            "split_candidates needs a fitted DecisionTreeClassifier (or None and data)."
        )
    tree = model.tree_
    if not 0 <= node < tree.node_count:
        raise ValueError(f"node must be between 0 and {tree.node_count - 1}; got {node}.")
    encoded = model.encoder_.transform(X)
    codes = pd.Index(model.classes_).get_indexer(pd.Series(np.asarray(y, dtype=object)))
    if (codes < 0).any():
        raise ValueError(
            f"y holds labels the model was not fitted on; its classes are {list(model.classes_)}."
        )
    weight = check_sample_weight(sample_weight, len(codes))
    at_node = node_at_depth(tree, encoded, int(tree.depth[node])) == node
    return encoded[at_node], codes[at_node], weight[at_node], model.classes_, model.encoder_


def _data_node(data, X, y, sample_weight):
    """Encoded rows, class codes and weights when the data itself is the node."""
    if X is None:
        X = data
    if isinstance(y, str) and isinstance(X, pd.DataFrame) and y in X.columns:
        X, y = X.drop(columns=[y]), X[y]
    if X is None or y is None:
        raise ValueError("Pass the node's rows: split_candidates(None, X=X, y=y).")
    encoder = FeatureEncoder().fit(X)
    classes, codes = encode_labels(y)
    weight = check_sample_weight(sample_weight, len(codes))
    return encoder.transform(X), codes, weight, classes, encoder


def split_candidates(
    model_or_data=None,
    node: int = 0,
    X=None,
    y=None,
    *,
    criterion: str | None = None,
    sample_weight=None,
) -> pd.DataFrame:
    """Every candidate split of one node with the value of every splitting criterion.

    Parameters
    ----------
    model_or_data : DecisionTreeClassifier, DataFrame or None
        A fitted tree (the rows of ``X`` that reach ``node`` are the node), or None /
        a DataFrame when the given data itself is the node.
    node : int, default=0
        Node id in ``model.tree_`` (ignored without a model).
    X : array-like or DataFrame of shape (n_samples, n_features), optional
        The rows (a model's training rows to see its own working). Defaults to
        ``model_or_data`` when that is a DataFrame.
    y : array-like of shape (n_samples,) or str
        Class labels, or the name of the target column of the frame.
    criterion : {"gini", "entropy", "misclassification", "gain_ratio"}, optional
        Decides which side missing values go to; default the model's criterion, or
        "gini" without a model.
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    DataFrame
        One row per candidate (:data:`SPLIT_COLUMNS`): ``split`` is "threshold"
        (``x <= threshold`` goes left; ``+inf`` means "present vs missing"), "subset"
        (``categories`` go left) or "multiway" (one branch per value of
        ``categories``). ``*_counts`` are class counts in class order, ``errors`` the
        misclassified weight after the split, ``chosen`` marks the tree's own split.
        ``attrs`` holds ``classes``, ``parent_counts`` and ``criterion``.

    Notes
    -----
    For a split of node :math:`t` into children :math:`t_k`, each criterion's value is
    :math:`\\Delta = I(t) - \\sum_k \\frac{n_k}{n} I(t_k)` for the classification
    error, entropy (the information gain, in bits) and the Gini index; the gain ratio
    divides the information gain by :math:`-\\sum_k \\frac{n_k}{n}\\log_2\\frac{n_k}{n}`;
    χ² compares the children with a zero-gain split (Quinlan 1986).

    Examples
    --------
    A weak and a strong threshold on 12 points, 4 of them positive:

    >>> X = pd.DataFrame({"x": np.arange(1.0, 13.0)})
    >>> y = [1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0]
    >>> table = split_candidates(None, X=X, y=y)
    >>> table.loc[table.threshold.isin([4.5, 5.5]), ["threshold", "info_gain"]].round(5)
       threshold  info_gain
    3        4.5    0.04411
    4        5.5    0.16859
    """
    criterion = criterion or getattr(model_or_data, "criterion", None) or "gini"
    if criterion not in SCORE_COLUMN:
        raise ValueError(f"criterion must be one of {sorted(SCORE_COLUMN)}; got {criterion!r}.")
    is_model = model_or_data is not None and not isinstance(model_or_data, pd.DataFrame)
    if is_model:
        rows, codes, weight, classes, encoder = _model_node(
            model_or_data, node, X, y, sample_weight
        )
    else:
        rows, codes, weight, classes, encoder = _data_node(model_or_data, X, y, sample_weight)
    names, n_classes = list(encoder.feature_names_in_), len(classes)
    bins = getattr(model_or_data, "bins_", None) if is_model else None
    # a binned tree's own search: each value on its bin's grid (QuantileBins.transform)
    table = candidate_table(rows, codes, weight, n_classes, names, encoder.categories_,
                            criterion, grids=None if bins is None else bins.high)
    if bins is not None:
        numeric = (table["split"] == "threshold").to_numpy()
        table.loc[numeric, "threshold"] = bins.exact_thresholds(
            table.loc[numeric, "feature_idx"].to_numpy(), table.loc[numeric, "threshold"].to_numpy())
    if is_model:
        Y = one_hot(codes, weight, n_classes)
        table = mark_chosen(table, model_or_data.tree_, node, rows, Y, names, encoder.categories_)
    else:
        table["chosen"] = False
    table = table.reindex(columns=SPLIT_COLUMNS)
    table.attrs.update(
        classes=list(classes),
        criterion=criterion,
        parent_counts=tuple(np.bincount(codes, weights=weight, minlength=n_classes)),
    )
    return table


# --------------------------------------------------------------------------- ensembles


def _class_codes(model, y, unseen_as_error: bool = False) -> np.ndarray:
    """``y`` as codes into ``model.classes_``. A label the model was not fitted on is
    refused, or with ``unseen_as_error`` coded -1, which no predicted class equals."""
    codes = pd.Index(model.classes_).get_indexer(pd.Series(np.asarray(y, dtype=object)))
    if not unseen_as_error and (codes < 0).any():
        raise ValueError(
            f"y holds labels the model was not fitted on; its classes are {list(model.classes_)}."
        )
    return codes


def target_codes(model, y, unseen_as_error: bool = False) -> np.ndarray:
    """What a model's predictions are scored against: a classifier's labels as their
    places in ``classes_`` (see :func:`_class_codes` for labels it was not fitted on),
    a regressor's target as floats."""
    if getattr(model, "_estimator_type", None) == "classifier":
        return _class_codes(model, y, unseen_as_error)
    return np.asarray(y, dtype=np.float64)


def _require_bagged(forest) -> None:
    if not hasattr(forest, "inbag_counts_"):
        raise ValueError("Needs a fitted BaggingClassifier or random forest (with inbag_counts_).")


def oob_error_curve(forest, X=None, y=None) -> np.ndarray:
    """Out-of-bag error after the first 1, 2, ..., B trees, in one pass over the trees.

    Parameters
    ----------
    forest : fitted BaggingClassifier, RandomForestClassifier or RandomForestRegressor
    X, y : the training data the forest was fitted on, optional
        Without them the curve stored at fit time (``oob_score=True``) is returned.

    Returns
    -------
    ndarray, shape (n_estimators,)
        Point b is 1 − OOB accuracy (classifiers) or 1 − OOB R² (regressors) of the
        first b + 1 trees, over the rows that were out of bag for at least one of
        them; the last point is ``1 - forest.oob_score_``.

    Notes
    -----
    A row's OOB prediction averages only the trees whose bootstrap sample missed it; the
    OOB error approximates cross-validation, so once it stabilises more trees no longer
    help (Hastie et al. 2009, §15.3.1). Running sums of the trees' OOB outputs give
    every point of the curve at the cost of one.

    Examples
    --------
    >>> from engine.ensemble import RandomForestClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 3)); y = (X[:, 0] > 0).astype(int)
    >>> forest = RandomForestClassifier(n_estimators=15, oob_score=True, random_state=0).fit(X, y)
    >>> curve = oob_error_curve(forest, X, y)
    >>> len(curve), bool(curve[-1] == 1 - forest.oob_score_)
    (15, True)
    """
    from .ensemble._bagged import oob_pass

    _require_bagged(forest)
    if X is None or y is None:
        if not hasattr(forest, "oob_error_curve_"):
            raise ValueError("Fit with oob_score=True, or pass the training data: "
                             "oob_error_curve(forest, X_train, y_train).")
        return forest.oob_error_curve_
    target = target_codes(forest, y)
    if len(target) != forest.inbag_counts_.shape[1]:
        raise ValueError("X, y must be the rows the forest was fitted on (OOB is per training row).")
    curve, _, _ = oob_pass(forest, forest.output_chunks(X), target)
    return curve


def staged_error_curve(model, X, y) -> np.ndarray:
    """Test error after each stage: boosting rounds, or the first 1..B trees of a forest.

    Classifiers give the misclassification rate, regressors the mean squared error.
    Boosting models are read through ``staged_predict``; bagging and forests through
    the running average of their first b trees' outputs.

    Returns
    -------
    ndarray, shape (n_stages,)

    Examples
    --------
    >>> from engine.ensemble import BaggingClassifier
    >>> X = np.arange(40.0).reshape(-1, 1); y = (X[:, 0] > 19).astype(int)
    >>> bag = BaggingClassifier(n_estimators=3, random_state=0).fit(X, y)
    >>> staged_error_curve(bag, X, y).tolist()  # two trees can tie 1–1: first class wins
    [0.0, 0.025, 0.025]
    """
    return staged_errors(model, X, y).errors


@dataclass(frozen=True)
class StagedErrors:
    """What one pass over a model's stages on some rows gives.

    Attributes
    ----------
    errors : ndarray, shape (n_stages,)
        As :func:`staged_error_curve`.
    prediction : ndarray, shape (n_rows,)
        The whole model's prediction on the rows, equal to ``model.predict(X)``.
    correlation : TreeCorrelation or None
        For a forest (or bagging), :func:`tree_correlation` on the same rows, from the
        same pass; None for boosting.
    """

    errors: np.ndarray
    prediction: np.ndarray
    correlation: TreeCorrelation | None = None
    #: A classifier forest's class of each stage on each row, (n_stages, n_rows) places
    #: in ``classes``, and the pass's tree moments: what :meth:`first` reads.
    stage_codes: np.ndarray | None = field(default=None, repr=False)
    classes: np.ndarray | None = field(default=None, repr=False)
    moments: _TreeMoments | None = field(default=None, repr=False)

    def first(self, n_stages: int) -> StagedErrors | None:
        """The pass of the model's first ``n_stages`` stages (a forest's first trees, as
        ``first_members`` keeps them) on the same rows, without walking a tree: its
        errors, predictions and moments are a prefix of these. None unless this is a
        classifier forest's pass of at least ``n_stages`` stages."""
        if self.stage_codes is None or not 0 < n_stages <= len(self.errors):
            return None
        return StagedErrors(self.errors[:n_stages], self.classes[self.stage_codes[n_stages - 1]],
                            self.moments.correlation(n_stages), self.stage_codes[:n_stages],
                            self.classes, self.moments)


def staged_errors(model, X, y) -> StagedErrors:
    """:func:`staged_error_curve` and, from the same pass, the whole model's prediction
    (the last stage), so a page that draws the curve need not walk the trees again; for
    a forest also :func:`tree_correlation`, and for a classifier forest what
    :meth:`StagedErrors.first` needs."""
    target = target_codes(model, y)
    classifier = getattr(model, "_estimator_type", None) == "classifier"
    if hasattr(model, "output_chunks"):  # a chunk of rows at a time: errors add up over rows
        errors, last, moments, codes = None, [], _TreeMoments(), None
        for lo, outputs in model.output_chunks(X):
            moments.add(outputs)
            hi = lo + outputs.shape[1]
            if classifier:  # each stage's class as predict finds it (outputs used up)
                stage = model.stage_classes(outputs)
                if codes is None:
                    codes = np.empty((len(stage), len(target)), stage.dtype)
                codes[:, lo:hi] = stage
                found = (stage != target[lo:hi]).sum(axis=1)
            else:
                running = np.cumsum(outputs, axis=0)  # sums of the first b outputs
                b = np.arange(1, len(running) + 1)
                found = ((running / b[:, None] - target[lo:hi]) ** 2).sum(axis=1)
                # the mean of every output, as predict averages them: the same sums, divided
                last.append(running[-1] / b[-1])
            errors = found if errors is None else errors + found
        if classifier:
            return StagedErrors(errors / len(target), model.classes_[codes[-1]],
                                moments.correlation(), codes, model.classes_, moments)
        return StagedErrors(errors / len(target), np.concatenate(last), moments.correlation())
    if not hasattr(model, "staged_predict"):
        raise ValueError("staged_error_curve needs a boosting model (staged_predict) or a forest.")
    errors, stage = [], None
    if classifier and hasattr(model, "_staged_codes"):  # places in classes_, not labels
        for codes in model._staged_codes(X):
            errors.append(np.mean(codes != target))
            stage = codes
        return StagedErrors(np.array(errors), None if stage is None else model.classes_[stage])
    for stage in model.staged_predict(X):
        wrong = _class_codes(model, stage) != target if classifier else (stage - target) ** 2
        errors.append(np.mean(wrong))
    return StagedErrors(np.array(errors), stage)


def importance_frame(names, scores: np.ndarray) -> pd.DataFrame:
    """(feature, importance_mean, importance_std) from scores (n_features, n_draws),
    whatever their memory layout (the same scores give the same bits)."""
    scores = np.ascontiguousarray(scores)
    return pd.DataFrame({
        "feature": list(names),
        "importance_mean": scores.mean(axis=1),
        "importance_std": scores.std(axis=1),
    })


def _with_column(X, j: int, values):
    """A copy of ``X`` (array or DataFrame) whose column ``j`` holds ``values``."""
    if isinstance(X, pd.DataFrame):
        out = X.copy()
        out[out.columns[j]] = pd.Series(values, index=out.index, dtype=X.dtypes.iloc[j])
        return out
    out = np.array(X, copy=True)
    out[:, j] = values
    return out


def _column(X, j: int):
    return X.iloc[:, j].to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)[:, j]


def permutation_importance(model, X, y, *, n_repeats: int = 5, random_state=None) -> pd.DataFrame:
    """Drop of the model's score when one column is shuffled, feature by feature.

    Parameters
    ----------
    model : any fitted Glassbox estimator (``score``: accuracy or R²)
    X : array or DataFrame (n_samples, n_features), y : (n_samples,)
        Held-out data preferably (on training data an overfit model shows what it
        memorised).
    n_repeats : int, default=5
        Shuffles per feature.
    random_state : int, Generator or None

    Returns
    -------
    DataFrame
        One row per feature in column order: ``feature``, ``importance_mean``,
        ``importance_std`` (over the repeats).

    Notes
    -----
    :math:`I_j = s - \\frac{1}{R}\\sum_{r=1}^R s_{j,r}`, with :math:`s` the score on
    the data and :math:`s_{j,r}` the score after the r-th shuffle of column j
    (Breiman 2001, as generalised to any model by Fisher, Rudin & Dominici 2019).

    Examples
    --------
    >>> from engine.tree import DecisionTreeClassifier
    >>> X = np.column_stack([np.arange(20.0), np.zeros(20)]); y = (X[:, 0] > 9).astype(int)
    >>> table = permutation_importance(DecisionTreeClassifier().fit(X, y), X, y, random_state=0)
    >>> table.feature.tolist(), bool(table.importance_mean[0] > 0.2), table.importance_mean[1]
    (['x0', 'x1'], True, np.float64(0.0))
    """
    rng = check_random_state(random_state)
    baseline = model.score(X, y)
    n_features = np.shape(X)[1]
    scores = np.empty((n_features, n_repeats))
    for j in range(n_features):
        column = _column(X, j)
        for r in range(n_repeats):
            scores[j, r] = baseline - model.score(_with_column(X, j, rng.permutation(column)), y)
    return importance_frame(getattr(model, "feature_names_in_", [f"x{j}" for j in range(n_features)]), scores)


def oob_permutation_importance(forest, X, y, *, random_state=None, n_jobs=None,
                               max_rows: int | None = None) -> pd.DataFrame:
    """Breiman's importance: per tree, OOB score minus OOB score with feature k permuted.

    Parameters
    ----------
    forest : fitted random forest or bagged trees
    X, y : the training data the forest was fitted on
    random_state : int, Generator or None
    n_jobs : int or None
        Worker processes (joblib) sharing the trees; the result does not depend on it.
    max_rows : int or None
        At most this many of each tree's OOB rows are scored: a tree with more scores a
        sample of them drawn without replacement by its own generator (seeded by
        ``[seed_b, 1]``). None, or a tree with no more, scores every OOB row.

    Returns
    -------
    DataFrame
        One row per feature in column order: ``feature``, ``importance_mean`` (over the
        trees), ``importance_std`` (across trees).

    Notes
    -----
    Breiman (2001): the importance of variable k is the OOB accuracy minus the OOB
    accuracy with variable k permuted, averaged over the trees. For each tree b, its OOB
    rows are predicted as they are and with column k shuffled among those rows; the
    accuracy drop (classifiers) or the rise of the mean squared error (regressors) is
    averaged over the trees. The signed drop is kept, as in Breiman (2001): a noise feature then
    scatters around 0 instead of being pushed above it by the absolute value.

    Tree b shuffles with its own generator, seeded by the b-th of the seeds
    ``random_state`` draws first: one permutation per column, in column order.

    Examples
    --------
    >>> from engine.ensemble import RandomForestClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
    >>> forest = RandomForestClassifier(n_estimators=20, max_features=None, random_state=0).fit(X, y)
    >>> table = oob_permutation_importance(forest, X, y, random_state=0)
    >>> bool(table.importance_mean[0] > 0.3), bool(abs(table.importance_mean[1]) < 0.05)
    (True, True)
    """
    drops = oob_permutation_drops(forest, X, y, random_state=random_state, n_jobs=n_jobs,
                                  max_rows=max_rows)
    return importance_frame(forest.feature_names_in_, drops.T)


def oob_permutation_drops(forest, X, y, *, random_state=None, n_jobs=None,
                          max_rows: int | None = None) -> np.ndarray:
    """Each tree's score drops behind :func:`oob_permutation_importance` (same
    parameters), shape (n_trees, n_features). Tree b's drops depend only on the tree,
    its OOB rows and the b-th seed, so the first B rows are the drops of the forest of
    the first B trees (``first_members``) with the same ``random_state``."""
    from .ensemble._base import draw_seeds, effective_jobs, run_parallel

    _require_bagged(forest)
    if not hasattr(forest, "estimators_") or not forest._all_trees:
        raise ValueError("oob_permutation_importance needs trees as members.")
    X_enc, target = forest._encode(X), target_codes(forest, y)
    if len(target) != forest.inbag_counts_.shape[1]:
        raise ValueError("X, y must be the rows the forest was fitted on (OOB is per training row).")
    seeds = draw_seeds(random_state, len(forest.estimators_))[:, 0]
    oob = forest.inbag_counts_ == 0
    if max_rows is not None:
        oob = _at_most(oob, int(max_rows), seeds)
    edges = _tree_groups(oob.sum(axis=1), X_enc.shape[1], effective_jobs(n_jobs))
    tasks = [([m.tree_ for m in forest.estimators_[a:b]], oob[a:b], X_enc, target, seeds[a:b],
              forest._is_classifier) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    return np.concatenate(run_parallel(_permutation_drops, tasks, n_jobs))


def _at_most(oob: np.ndarray, max_rows: int, seeds: np.ndarray) -> np.ndarray:
    """The OOB masks with at most ``max_rows`` rows a tree (a seeded sample of its own)."""
    if max_rows < 1:
        raise ValueError(f"max_rows must be at least 1, got {max_rows}.")
    if not (oob.sum(axis=1) > max_rows).any():
        return oob
    kept = np.zeros_like(oob)
    for b, mask in enumerate(oob):
        rows = np.flatnonzero(mask)
        if len(rows) > max_rows:
            rows = np.sort(np.random.default_rng([int(seeds[b]), 1]).choice(rows, max_rows,
                                                                              replace=False))
        kept[b, rows] = True
    return kept


#: (tree, OOB row) pairs × columns of one group of trees walked together in the OOB
#: permutation importance (its marks and permutations take about 9 bytes a cell; 200
#: spambase trees make 8 groups).
CELLS_PER_GROUP = 2_000_000


def _tree_groups(n_oob: np.ndarray, n_columns: int, at_least: int = 1) -> list[int]:
    """Edges of consecutive groups of trees whose OOB rows × ``n_columns`` stay within
    :data:`CELLS_PER_GROUP` (a tree with more is a group of its own), and within an
    even share of ``at_least`` groups (one a worker process, so that every worker has
    work and none of it is left to the calling process)."""
    total = int(np.sum(n_oob)) * n_columns
    most = min(CELLS_PER_GROUP, -(-total // max(1, at_least)))
    edges, cells = [0], 0
    for b, n in enumerate(n_oob):
        if cells and cells + n * n_columns > most:
            edges.append(b)
            cells = 0
        cells += n * n_columns
    return [*edges, len(n_oob)]


def _permutation_drops(trees, oob, X_enc, target, seeds, classifier: bool) -> np.ndarray:
    """Score drops (len(trees), n_features) of trees on their OOB rows (masks ``oob``)
    when each column in turn is shuffled; tree b's permutations come from
    ``np.random.default_rng(seeds[b])``, one per column in column order.

    Shuffling column k can only move a row whose path meets a split on k, and only
    from the first such node down. So each (tree, OOB row) pair is walked once as it
    is, recording where its path first meets each column; then every (pair, k) with k
    on the pair's path is walked again from that node with the row's own values
    except column k, which takes the shuffled value. Every other (pair, k) keeps its
    leaf, and a column a tree never splits on drops by 0 exactly. The scores are those
    of walking every shuffled copy in full. The trees are walked together (one numpy
    call per level serves them all), as in ``forest_apply``.
    """
    from .ensemble._base import stack_trees

    p = X_enc.shape[1]
    stacked = stack_trees(trees)
    tree = stacked.tree
    rows_of = [np.flatnonzero(mask) for mask in oob]
    size = np.array([len(r) for r in rows_of])
    pair_start = np.cumsum(size) - size
    pair_row = np.concatenate(rows_of)
    pair_tree = np.repeat(np.arange(len(trees)), size)
    # Each tree's p permutations of its OOB rows, as training row numbers, flat:
    # column k of tree b starts at p * pair_start[b] + k * size[b]. ``permuted`` shuffles
    # each of the p copies of the rows in turn, in place, as p calls of ``permutation``
    # would (the same swaps of the same draws).
    shuffled = np.empty(p * len(pair_row), dtype=np.intp)
    for rows, start, rng in zip(rows_of, pair_start, map(np.random.default_rng, seeds), strict=True):
        block = shuffled[p * start:p * (start + len(rows))].reshape(p, len(rows))
        block[:] = rows
        rng.permuted(block, axis=1, out=block)
    flat = np.ascontiguousarray(X_enc, dtype=np.float64).ravel()  # (row, column) as one index
    missing = bool(np.isnan(flat).any())
    categorical = bool((tree.split_kind >= CATEGORICAL_BINARY).any())
    is_leaf = tree.children_left == TREE_LEAF
    # Walk the pairs as they are, keeping (pair, node) where the path meets a split on a
    # column for the first time: levels come shallowest first, and within a level each
    # pair appears once, so a (pair, column) mark per level is enough.
    leaf = stacked.roots[pair_tree]
    seen = np.zeros(len(pair_row) * p, dtype=bool)
    path_pairs, path_nodes = [], []
    walking = np.flatnonzero(~is_leaf[leaf])
    while len(walking):
        at = leaf[walking]
        f = tree.feature[at]
        cell = walking * p + f
        first = ~seen[cell]
        seen[cell[first]] = True
        path_pairs.append(walking[first])
        path_nodes.append(at[first])
        leaf[walking] = tree.step(at, flat[pair_row[walking] * p + f], missing, categorical)
        walking = walking[~is_leaf[leaf[walking]]]
    pair = np.concatenate(path_pairs or [np.zeros(0, np.intp)])
    node = np.concatenate(path_nodes or [np.zeros(0, np.intp)])
    k = tree.feature[node]  # (pair, k): the first split on k on the pair's path
    b = pair_tree[pair]
    local = pair - pair_start[b]
    # Walk again, reading column k from the shuffled row: flat index (row or shuffled row) * p + f.
    own_at = pair_row[pair] * p
    shuffled_at = shuffled[p * pair_start[b] + k * size[b] + local] * p
    if missing or categorical:
        walking = np.arange(len(pair))
        while len(walking):
            at = node[walking]
            f = tree.feature[at]
            x = flat[np.where(f == k[walking], shuffled_at[walking], own_at[walking]) + f]
            node[walking] = tree.step(at, x, missing, categorical)
            walking = walking[~is_leaf[node[walking]]]
    else:
        from .ensemble._base import lean_steps, rank_steps

        # an entry walks at most a tree's depth again: by ranks where a row has many
        mean_depth = stacked.steps_per_row / max(1, stacked.n_trees)
        n_rows = max(1, X_enc.shape[0])
        if stacked.ranks_pay(n_rows, len(pair) * mean_depth / n_rows):
            ranks = stacked.rank_table(X_enc)
            node = _walk_shuffled(stacked, node, own_at, k, ranks[shuffled_at + k], ranks, rank_steps)
        else:
            node = _walk_shuffled(stacked, node, own_at, k, flat[shuffled_at + k], flat, lean_steps)

    # a tree's class at a leaf, as its own predict gives it (a tie to the class listed last)
    node_class = plurality(tree.value) if classifier else None

    def per_row(leaves, truth):  # what the score averages: hits, or minus squared errors
        if classifier:
            return (node_class[leaves] == truth).astype(np.float64)
        return -((tree.value[leaves, 0] - truth) ** 2)

    base, moved = per_row(leaf, target[pair_row]), per_row(node, target[pair_row[pair]])
    by_tree = np.argsort(b, kind="stable")
    ends = np.cumsum(np.bincount(b, minlength=len(trees)))
    drops = np.zeros((len(trees), p))
    for t, (lo, hi) in enumerate(zip(ends - np.diff(ends, prepend=0), ends, strict=True)):
        if lo == hi:  # the tree is a single leaf, or has no OOB row
            continue
        mine = by_tree[lo:hi]
        own = base[pair_start[t]:pair_start[t] + size[t]]
        splits_on = np.bincount(k[mine], minlength=p) > 0
        used, position = np.flatnonzero(splits_on), (np.cumsum(splits_on) - 1)[k[mine]]
        scores = np.tile(own, (len(used), 1))
        scores[position, local[mine]] = moved[mine]
        drops[t, used] = np.mean(own) - np.mean(scores, axis=1)
    return drops


#: Steps the walk of :func:`_walk_shuffled` takes between two drops of the entries that
#: reached a leaf (an entry at its leaf steps in place meanwhile).
SHUFFLED_STEPS = 6


def _walk_shuffled(stacked, node: np.ndarray, own_at: np.ndarray, k: np.ndarray,
                   x_k: np.ndarray, table: np.ndarray, walk) -> np.ndarray:
    """The leaves that entries starting at nodes ``node`` of numeric splits reach, each
    reading its row's values (``table[own_at + f]``) except for column ``k``, where it
    reads ``x_k``: the forest's lean walk ``walk`` (complete numeric data only; ``table``
    the rows' values for ``lean_steps``, their ranks for ``rank_steps``), a chunk of
    ``PAIRS_PER_CHUNK`` entries at a time, whose arrays stay in cache as the forest's
    walk's do."""
    from .ensemble._base import PAIRS_PER_CHUNK, lean_step_buffers

    is_leaf = stacked.tree.children_left == TREE_LEAF
    out = node.copy()
    size = min(len(node), PAIRS_PER_CHUNK)
    buffers = lean_step_buffers(size)
    for lo in range(0, len(node), PAIRS_PER_CHUNK):
        part = slice(lo, lo + PAIRS_PER_CHUNK)
        at, own, on, x_on = node[part].copy(), own_at[part], k[part], x_k[part]
        walking = np.arange(len(at))
        while len(walking):
            n = len(at)
            walk(stacked, table, at, own, SHUFFLED_STEPS, [b[:n] for b in buffers], (on, x_on))
            done = is_leaf.take(at, mode="clip")
            out[lo + walking[done]] = at[done]
            going = np.flatnonzero(~done)
            walking, at, own, on, x_on = (a.take(going, mode="clip")
                                          for a in (walking, at, own, on, x_on))
    return out


@dataclass
class DecisionGrid:
    """A model's predictions on a grid over two features, for boundary pictures.

    Attributes
    ----------
    xx, yy : ndarray, shape (resolution, resolution)
        Grid coordinates (``np.meshgrid`` of the two features' ranges plus a margin).
    class_index : ndarray of intp, shape (resolution, resolution) or None
        Index into ``classes`` of the predicted class (classifiers).
    max_proba : ndarray, shape (resolution, resolution) or None
        Probability of the predicted class: how sure the model is.
    value : ndarray, shape (resolution, resolution) or None
        The prediction itself (regressors).
    feature_names : list of str
    classes : ndarray or None
    """

    xx: np.ndarray
    yy: np.ndarray
    class_index: np.ndarray | None
    max_proba: np.ndarray | None
    value: np.ndarray | None
    feature_names: list
    classes: np.ndarray | None


#: A boundary picture's axis leaves out a long tail: on each side, the values beyond the
#: ``GRID_TAIL`` quantile when they reach further than ``LONG_TAIL`` times the span
#: between the two quantiles (the few e-mails full of "$" that would squeeze every other
#: row into a corner). A short table, or a column without such a tail, spans all its values.
GRID_TAIL = 0.005
LONG_TAIL = 0.5


def grid_axis(values, resolution: int, margin: float = 0.05, *,
              nonnegative: bool = False) -> np.ndarray:
    """``resolution`` points spanning the finite ``values``, long tails left out (see
    :data:`GRID_TAIL`), widened by ``margin`` × range per side (±0.5 when they are all
    equal, [0, 1] when there are none).

    With ``nonnegative``, a column without negative values is not widened below 0
    (counts stay counts). Every boundary picture spans its axes with this.

    >>> grid_axis(np.array([1.0, 3.0, np.nan]), 3, margin=0.5).tolist()
    [0.0, 2.0, 4.0]
    >>> tail = np.concatenate([np.linspace(0.0, 1.0, 1000), [50.0]])
    >>> float(grid_axis(tail, 2, margin=0.0)[-1]) < 1.0
    True
    """
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    low, high = (values.min(), values.max()) if values.size else (0.0, 1.0)
    if values.size:
        q_low, q_high = np.quantile(values, [GRID_TAIL, 1.0 - GRID_TAIL])
        middle = q_high - q_low
        if middle > 0 and q_low - low > LONG_TAIL * middle:
            low = q_low
        if middle > 0 and high - q_high > LONG_TAIL * middle:
            high = q_high
    pad = margin * (high - low) if high > low else 0.5
    start = max(low - pad, 0.0) if nonnegative and low >= 0 else low - pad
    return np.linspace(start, high + pad, resolution)


def grid_rows(columns, xs: np.ndarray, ys: np.ndarray) -> tuple[tuple[int, int], pd.DataFrame]:
    """The grid of ``xs`` × ``ys`` as rows of a frame with the two ``columns`` (x varies
    fastest), and the grid's shape (len(ys), len(xs)) to reshape predictions to."""
    gx, gy = np.meshgrid(xs, ys)
    return gx.shape, pd.DataFrame({columns[0]: gx.ravel(), columns[1]: gy.ravel()})


def grid_output(model, columns, xs: np.ndarray, ys: np.ndarray, *, as_frame: bool = True) -> np.ndarray:
    """``predict_proba`` (a model that has one) or ``predict`` of ``model`` at every point
    of the grid ``xs`` × ``ys`` of its two features, in :func:`grid_rows`' order. A forest
    of numeric trees walks the grid as rectangles (``grid_average``), to the same
    numbers; any other model predicts the grid's rows, a frame of ``columns`` (or, with
    ``as_frame`` False, a plain array)."""
    walked = getattr(model, "grid_average", None)
    if walked is not None and (out := walked(xs, ys)) is not None:
        return out
    _, rows = grid_rows(columns, xs, ys)
    rows = rows if as_frame else rows.to_numpy()
    return model.predict_proba(rows) if hasattr(model, "predict_proba") else model.predict(rows)


def decision_grid(model, X2, resolution: int = 200, margin: float = 0.05) -> DecisionGrid:
    """Predict on a ``resolution`` × ``resolution`` grid spanning two numeric features.

    Parameters
    ----------
    model : fitted estimator on exactly these two columns
    X2 : array or DataFrame, shape (n_samples, 2)
        The data whose range the grid covers (widened by ``margin`` × range per side).
    resolution : int, default=200
    margin : float, default=0.05

    Examples
    --------
    >>> from engine.tree import DecisionTreeClassifier
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> grid = decision_grid(DecisionTreeClassifier().fit(X, [0, 1, 0, 1]), X, resolution=5)
    >>> grid.xx.shape, grid.class_index[0].tolist(), grid.feature_names
    ((5, 5), [0, 0, 0, 1, 1], ['x0', 'x1'])
    """
    if getattr(model, "n_features_in_", None) != 2 or np.shape(X2)[1] != 2:
        raise ValueError("decision_grid needs a model fitted on exactly the two columns of X2.")
    frame = X2 if isinstance(X2, pd.DataFrame) else pd.DataFrame(np.asarray(X2))
    if not all(pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns):
        raise ValueError("decision_grid needs two numeric columns.")
    axes = [grid_axis(frame.iloc[:, j], resolution, margin) for j in range(2)]
    xx, yy = np.meshgrid(*axes)
    names = [str(n) for n in model.feature_names_in_]
    out = grid_output(model, names, *axes, as_frame=isinstance(X2, pd.DataFrame))
    if not hasattr(model, "predict_proba"):
        value = np.asarray(out, dtype=float).reshape(xx.shape)
        return DecisionGrid(xx, yy, None, None, value, names, None)
    proba = out
    index = np.argmax(proba, axis=1)
    return DecisionGrid(xx, yy, index.reshape(xx.shape), proba.max(axis=1).reshape(xx.shape),
                        None, names, model.classes_)


@dataclass
class TreeCorrelation:
    """How alike a forest's trees are, and what that does to the average's variance.

    Attributes
    ----------
    rho : float
        Mean pairwise correlation ρ of the trees' predictions across the rows.
    sigma2 : float
        σ², the mean variance of one tree's predictions across the rows.
    n_estimators : int
    """

    rho: float
    sigma2: float
    n_estimators: int

    def ensemble_variance(self, n_trees: int | None = None) -> float:
        """Variance of the average of B trees,
        :math:`\\rho\\sigma^2 + \\frac{1-\\rho}{B}\\sigma^2` (Hastie et al. 2009, eq. 15.1)."""
        B = self.n_estimators if n_trees is None else n_trees
        return self.rho * self.sigma2 + (1.0 - self.rho) * self.sigma2 / B


def tree_correlation(forest, X) -> TreeCorrelation:
    """Mean pairwise correlation ρ between the trees' predictions, and σ².

    Each tree's predictions over the rows of ``X`` form a vector; ρ is the mean
    Pearson correlation over all pairs of trees (trees predicting a constant are left
    out) and σ² the mean of the trees' variances across the rows. For classifiers the
    prediction is the probability of ``classes_[1]`` (the positive class of a binary
    problem); with more classes ρ and σ² are averaged over the classes' probabilities.

    Notes
    -----
    B identically distributed trees of variance σ² and pairwise correlation ρ average
    to variance :math:`\\rho\\sigma^2 + \\frac{1-\\rho}{B}\\sigma^2` (Hastie et al. 2009,
    eq. 15.1). With ρ and σ² measured across the rows of ``X`` this is (for trees of
    equal variance) exactly the variance across those rows of the forest's averaged
    prediction. Bagged trees are strongly correlated; drawing m < p features per split
    lowers ρ.

    Examples
    --------
    >>> from engine.ensemble import RandomForestRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(100, 3)); y = X[:, 0] + rng.normal(scale=0.1, size=100)
    >>> corr = tree_correlation(RandomForestRegressor(n_estimators=10, random_state=0).fit(X, y), X)
    >>> bool(-1 <= corr.rho <= 1), bool(corr.ensemble_variance() <= corr.sigma2)
    (True, True)
    """
    moments = _TreeMoments()
    for _, outputs in forest.output_chunks(X):  # a chunk of rows at a time: sums add up
        moments.add(outputs)
    return moments.correlation()


class _TreeMoments:
    """Sums over rows of the trees' outputs and of every two trees' products, a chunk of
    rows at a time, from which their covariances follow.

    Each tree's output is taken relative to its output on the first row: the sums then
    stay near the spread, not the mean (no cancellation when the spread is small), and a
    tree that predicts a constant sums exact zeros, so its variance is exactly 0. For a
    classifier the outputs are the class probabilities: of ``classes_[1]`` with two
    classes, of each class with more (ρ and σ² then averaged over the classes).
    """

    def __init__(self) -> None:
        self.n = 0
        self.shift = self.sums = self.products = None

    def add(self, outputs: np.ndarray) -> None:
        """``outputs`` (trees, rows) or (trees, rows, classes), as ``output_chunks`` gives."""
        if outputs.ndim == 2:
            outputs = outputs[:, :, None]
        elif outputs.shape[2] == 2:
            outputs = outputs[:, :, 1:]
        columns = np.moveaxis(outputs, 2, 0)  # (columns, trees, rows)
        if not outputs.shape[1]:
            return
        if self.shift is None:
            self.shift = columns[:, :, :1].copy()
            self.sums = np.zeros(columns.shape[:2])
            self.products = np.zeros((columns.shape[0],) + (columns.shape[1],) * 2)
        for k, column in enumerate(columns):
            d = column - self.shift[k]
            self.sums[k] += d.sum(axis=1)
            self.products[k] += d @ d.T
        self.n += outputs.shape[1]

    def correlation(self, n_trees: int | None = None) -> TreeCorrelation:
        """:func:`tree_correlation` of the rows added so far, among the first
        ``n_trees`` trees (all by default): their sums and products are a corner of
        every tree's."""
        if not self.n:
            return TreeCorrelation(np.nan, np.nan, 0)
        k = self.sums.shape[1] if n_trees is None else n_trees
        found = [_pair_correlation(s[:k], p[:k, :k], self.n)
                 for s, p in zip(self.sums, self.products, strict=True)]
        rho = np.array([r for r, _ in found])
        rho = float(np.nanmean(rho)) if not np.isnan(rho).all() else np.nan
        return TreeCorrelation(rho, float(np.mean([v for _, v in found])), k)


def _pair_correlation(sums: np.ndarray, products: np.ndarray, n: int) -> tuple[float, float]:
    """(mean off-diagonal correlation, mean variance) of the trees whose outputs, shifted,
    sum to ``sums`` and multiply pairwise to ``products`` over ``n`` rows (population
    covariances: divided by n). Trees of zero variance have no correlation: left out."""
    mean = sums / n
    covariance = products / n - np.outer(mean, mean)
    variance = np.maximum(np.diag(covariance), 0.0)
    varying = np.flatnonzero(variance > 0)
    if len(varying) < 2:
        return np.nan, float(variance.mean())
    scale = np.sqrt(variance[varying])
    corr = covariance[np.ix_(varying, varying)] / np.outer(scale, scale)
    m = len(varying)
    return float((corr.sum() - np.trace(corr)) / (m * (m - 1))), float(variance.mean())


def node_test_counts(model, X, y) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows of ``X`` that reach each node of a fitted decision tree, and (classifier) how
    many of them are of the node's own class (the class it would predict as a leaf).

    A row reaches a node when the node is on its path (``decision_path``); the counts
    are added up from the leaves, level by level, so no (rows × nodes) matrix is made.

    >>> from engine.tree import DecisionTreeClassifier
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> reached, right = node_test_counts(DecisionTreeClassifier().fit(X, y), X, [0, 1, 1, 1])
    >>> reached.tolist(), right.tolist()
    ([4, 2, 2], [3, 1, 2])
    """
    model._check_is_fitted()
    tree = model.tree_
    leaves = model.apply(X)
    classifier = hasattr(model, "classes_")
    if classifier:  # a label the tree never saw counts in a column of its own: never right
        codes = pd.Index(model.classes_).get_indexer(pd.Series(np.asarray(y, dtype=object)))
        K = len(model.classes_) + 1
        codes = np.where(codes < 0, K - 1, codes)
        by_class = np.bincount(leaves * K + codes, minlength=tree.node_count * K)
        by_class = by_class.reshape(tree.node_count, K)
    else:
        by_class = np.bincount(leaves, minlength=tree.node_count)[:, None]
    tree.add_up(by_class)
    reached = by_class.sum(axis=1)
    if not classifier:
        return reached, None
    own = plurality(tree.value)
    return reached, by_class[np.arange(tree.node_count), own]
