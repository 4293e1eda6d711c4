"""The questions "Predict first" asks, built from the fitted model (no Streamlit here).

Each builder returns a :class:`Question` whose options include the right answer exactly
once, the others taken from the same model so that they are plausible (the next-best
splits of the node, the other classes, the leaves nearest the right one, the groups of
points a learner splits), or None when the model offers nothing worth asking (one
feature, one class, a tie). Options are listed in an order that does not give the answer
away: by name, along an axis or the tree, or (plots) shuffled by the question's key.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.tree import plurality
from engine.tree._criteria import TIE_TOLERANCE, tie_floor
from viz.adaboost_figures import learner_rule, learner_sides
from viz.gb_figures import FIT_CHOICES, fit_choices_figure

#: "The same" OOB error after more trees: within half a point (0.005) of the error before.
OOB_SAME = 0.005
#: Options of a multiple-choice question at most (the answer and the most plausible others).
MAX_OPTIONS = 4
#: Which column of the candidate table each criterion maximises, and its name in words.
SCORES = {"gini": ("gini_decrease", "Gini decrease"),
          "entropy": ("info_gain", "information gain"),
          "gain_ratio": ("gain_ratio", "gain ratio"),
          "misclassification": ("error_decrease", "decrease in errors")}


@dataclass(frozen=True)
class Question:
    """One question: ``options[answer]`` is right; ``reason`` says why, in one line;
    ``figure``, a chart the options refer to ("Plot A"), drawn above them."""

    key: str
    prompt: str
    options: tuple[str, ...]
    answer: int
    reason: str
    figure: object | None = None

    def is_right(self, choice: str) -> bool:
        return choice == self.options[self.answer]


def question_key(*parts) -> str:
    """A short id of what a question is about (page, model key, step): a new model or a
    new step asks afresh."""
    return hashlib.sha1(repr(parts).encode()).hexdigest()[:16]


def _question(key, prompt, options, right: str, reason, figure=None) -> Question:
    options = tuple(options)
    if options.count(right) != 1:
        raise ValueError(f"the answer {right!r} must be among the options exactly once")
    return Question(key, prompt, options, options.index(right), reason, figure)


def first_of(*builders: Callable[[], Question | None]) -> Callable[[], Question | None]:
    """A builder that asks the first of ``builders`` with something to ask (None: none has)."""
    return lambda: next((q for q in (build() for build in builders) if q is not None), None)


def alternate(t: int, *builders):
    """The builders in turn by round: round t starts from builder t mod n, then the others."""
    k = t % len(builders)
    return first_of(*builders[k:], *builders[:k])


def _single_best(values: np.ndarray) -> int | None:
    """The index of the largest value, or None when another ties with it."""
    best = int(np.argmax(values))
    if np.sum(np.isclose(values, values[best], rtol=0, atol=TIE_TOLERANCE)) > 1:
        return None
    return best


def candidate_text(row: pd.Series) -> str:
    """A candidate split in the data's words: "x ≤ 2.45", "x ∈ {a, b}", "x: a branch per
    value", "x present"."""
    if row["split"] == "threshold":
        t = row["threshold"]
        return f"{row['feature']} present" if np.isinf(t) else f"{row['feature']} ≤ {t:.4g}"
    if row["split"] == "subset":
        return f"{row['feature']} ∈ {{{', '.join(str(c) for c in row['categories'])}}}"
    return f"{row['feature']}: a branch per value"


def next_split(model, table: pd.DataFrame, node: int, key: str) -> Question | None:
    """Which split does ``node`` make? The tree's own and, as the other options, the best
    split of each of the next-best features (by the tree's criterion). ``table``: the
    node's candidates (``engine.inspection.split_candidates``)."""
    criterion = model.criterion
    if criterion not in SCORES or model.tree_.children_left[node] < 0:
        return None
    column, words = SCORES[criterion]
    chosen = table[table["chosen"]]
    if chosen.empty:
        return None
    right = candidate_text(chosen.iloc[0])
    score = float(chosen.iloc[0][column])
    # an option as good as the tree's own (a tie the tie rule broke) would be right too
    tied = table[column] >= tie_floor(score, float(model.tree_.impurity[node]))
    others = (table[~table["chosen"] & ~tied & (table["feature"] != chosen.iloc[0]["feature"])]
              .sort_values(column, ascending=False, kind="stable")
              .drop_duplicates("feature"))  # each other feature's best split
    texts = [right] + [t for t in map(candidate_text, (r for _, r in others.iterrows()))
                       if t != right][:MAX_OPTIONS - 1]
    if len(texts) < 2:
        return None
    runner = others.iloc[0] if len(others) else None
    n_tied = int(tied.sum())
    reason = f"{right} has the largest {words} of any split here, {score:.3f}" + (
        f" (the best on another feature, {candidate_text(runner)}: {float(runner[column]):.3f})"
        if runner is not None else "") + (
        f"; {n_tied - 1} other split(s) tie with it and the first in column order wins"
        if n_tied > 1 else "") + "."
    depth = int(model.tree_.depth[node])
    return _question(key, f"The node at depth {depth} with {int(model.tree_.n_node_samples[node]):,} "
                          "training rows is split next. Which split does the tree choose?",
                     sorted(texts), right, reason)


def heaviest_split_at(tree, depth: int) -> int | None:
    """The node of ``depth`` with the most training rows that is split (None: none is)."""
    at = np.flatnonzero((tree.depth == depth) & (tree.children_left >= 0))
    if not len(at):
        return None
    return int(at[np.argmax(tree.weighted_n_node_samples[at])])


def winning_class(posterior: pd.Series, key: str, row_name: str) -> Question | None:
    """Which class wins for this row? ``posterior``: P(c | x) by class."""
    if len(posterior) < 2:
        return None
    right = str(posterior.idxmax())
    ranked = posterior.sort_values(ascending=False, kind="stable")  # the likeliest others
    options = [str(c) for c in ranked.index[:MAX_OPTIONS]]
    reason = f"P({right} | x) = {posterior.max():.3f} is the largest posterior."
    return _question(key, f"Before the evidence: which class does Naive Bayes predict for {row_name}?",
                     sorted(options), right, reason)


def error_change(errors, t: int, key: str) -> Question | None:
    """Is round ``t``'s weighted error ε_t above or below round t − 1's? (1-based ``t``;
    None for the first round or an equal error.)"""
    if t < 2:
        return None
    now, before = float(errors[t - 1]), float(errors[t - 2])
    if np.isclose(now, before, rtol=0, atol=TIE_TOLERANCE):
        return None
    options = (f"above {before:.3f}", f"below {before:.3f}")
    right = options[0] if now > before else options[1]
    reason = (f"ε_{t} = {now:.3f}: round {t}'s learner is trained on the weights round {t - 1} "
              "raised on its own mistakes, the hard points, so its weighted error "
              f"{'rises' if now > before else 'falls'} from {before:.3f}.")
    return _question(key, f"Round {t - 1}'s weighted error was ε_{t - 1} = {before:.3f}. Is "
                          f"round {t}'s ε_{t} above or below it?", options, right, reason)


def more_important(table: pd.DataFrame, key: str, what: str = "OOB permutation") -> Question | None:
    """Which of the two most important features (by ``table``'s ``importance_mean``) is
    more important? ``table``: a permutation-importance table (feature, importance_mean)."""
    top = table.sort_values("importance_mean", ascending=False, kind="stable").head(2)
    if len(top) < 2 or np.isclose(*top["importance_mean"].to_numpy(), rtol=0, atol=TIE_TOLERANCE):
        return None
    first, second = (str(f) for f in top["feature"])
    a, b = top["importance_mean"].to_numpy()
    reason = (f"Shuffling {first} costs {a:.3f} of the score, shuffling {second} {b:.3f}: the "
              "forest leans on it more.")
    return _question(key, f"Which is more important by {what} importance: {min(first, second)} "
                          f"or {max(first, second)}?", sorted([first, second]), first, reason)


def next_push(x: np.ndarray, residual: np.ndarray, feature: str, t: int,
              key: str) -> Question | None:
    """Where will tree t + 1 push the prediction up most? The thirds of the x range (by
    row count); the answer is the third with the largest mean residual, which the next
    tree fits."""
    present = ~np.isnan(x)
    x, residual = x[present], residual[present]
    if len(np.unique(x)) < 3:
        return None
    q1, q2 = np.quantile(x, [1 / 3, 2 / 3])
    parts = [x <= q1, (x > q1) & (x <= q2), x > q2]
    if not all(p.any() for p in parts):
        return None
    means = np.array([residual[p].mean() for p in parts])
    best = _single_best(means)
    if best is None:
        return None
    options = (f"{feature} ≤ {q1:.3g}", f"{q1:.3g} < {feature} ≤ {q2:.3g}", f"{feature} > {q2:.3g}")
    reason = (f"Tree {t + 1} fits the residuals left after round {t}; they average "
              + ", ".join(f"{m:+.3g}" for m in means) + " over the three parts, highest where "
              f"{options[best]}.")
    return _question(key, f"Tree {t + 1} fits what round {t} left over. Where does it push the "
                          "prediction up the most?", options, options[best], reason)


def landing_leaf(model, row: pd.Series, path: np.ndarray, depth_limit: int, key: str,
                 row_name: str) -> Question | None:
    """Which leaf does ``row``, whose root-to-leaf ``path`` (node ids) this is, land in?
    The prompt gives its values of the features the drawn splits ask about; the other
    options are the drawn leaves nearest to it in the tree (deepest common ancestor
    first), named as the diagram shows them (rows, class or value) and listed left to
    right. None when the leaf is not drawn (below ``depth_limit``)."""
    tree = model.tree_
    leaf = int(path[-1])
    if tree.depth[leaf] > depth_limit:
        return None
    leaves = np.flatnonzero((tree.children_left < 0) & (tree.depth <= depth_limit))
    on_path = set(path.tolist())
    parent = tree.parent
    # the depth of each leaf's deepest ancestor on the row's path: the nearer, the deeper
    shared = np.empty(len(leaves), dtype=int)
    for i, node in enumerate(leaves):
        while node not in on_path:
            node = parent[node]
        shared[i] = tree.depth[node]
    order = np.lexsort((leaves, -shared))  # nearest first, then left to right
    texts = {leaf: _leaf_text(model, leaf)}
    for n in leaves[order]:
        text = _leaf_text(model, int(n))
        if len(texts) < MAX_OPTIONS and text not in texts.values():
            texts[int(n)] = text
    if len(texts) < 2:
        return None
    right = texts[leaf]
    reason = (f"Its path asks {len(path) - 1} question(s) from the root and ends in the leaf "
              f"of {int(tree.n_node_samples[leaf]):,} training rows, which predicts "
              f"{_leaf_prediction(model, leaf)}.")
    asked = np.flatnonzero((tree.children_left >= 0) & (tree.depth < depth_limit))
    names = [str(model.feature_names_in_[j]) for j in sorted(set(tree.feature[asked]))]
    values = ", ".join(f"{name} = {_value_text(row[name])}" for name in names)
    return _question(key, f"Which leaf does {row_name} ({values}) land in? Follow it down "
                          "the diagram.", [texts[n] for n in sorted(texts)], right, reason)


def _value_text(value) -> str:
    if pd.isna(value):
        return "missing"
    return f"{value:.4g}" if isinstance(value, float | np.floating) else str(value)


def _leaf_prediction(model, leaf: int) -> str:
    value = model.tree_.value[[leaf]]
    if hasattr(model, "classes_"):
        return str(model.classes_[plurality(value)[0]])
    return f"{float(value[0, 0]):.4g}"


def _leaf_text(model, leaf: int) -> str:
    """A leaf as the diagram labels it: "samples = 46, class = virginica"."""
    what = "class" if hasattr(model, "classes_") else "value"
    return (f"samples = {int(model.tree_.n_node_samples[leaf]):,}, "
            f"{what} = {_leaf_prediction(model, leaf)}")


def strongest_push(points: np.ndarray, names, towards: str, key: str,
                   what: str = "feature") -> Question | None:
    """Which ``what`` pushes hardest towards class ``towards``? ``points``: each one's
    log-likelihood ratio for that class against the others (a nomogram's points); the
    other options are the next-strongest pushes."""
    points = np.asarray(points, dtype=float)
    if len(points) < 2 or not np.isfinite(points).all():  # −∞: a value rules a class out
        return None
    best = _single_best(points)
    if best is None or points[best] <= 0:
        return None
    top = np.argsort(-points, kind="stable")[:MAX_OPTIONS]
    right = str(names[best])
    second = int(top[1])
    reason = (f"{right} adds {points[best]:+.3f} to the log odds of {towards}, the most of any "
              f"{what} (next, {names[second]}: {points[second]:+.3f}).")
    return _question(key, f"Which {what} pushes hardest towards {towards}?",
                     sorted(str(names[i]) for i in top), right, reason)


def word_push(table: pd.DataFrame, towards, key: str) -> Question | None:
    """Which word of a sentence pushes hardest towards class ``towards`` in a multinomial
    model? ``table``: log θ_wc of each word occurrence (rows ``"1. word"``, unseen words
    marked), one column per class; a word's push is its log θ for the class minus the
    mean of the other classes' (for two classes, the log-likelihood ratio)."""
    seen = table[~table.index.str.endswith("(unseen)")]
    words = seen.index.str.split(". ", n=1).str[1]
    seen = seen.groupby(words.to_numpy(), sort=True).first()  # a word once, however often
    if len(seen) < 2:
        return None
    others = seen.drop(columns=[towards]).mean(axis=1)
    return strongest_push((seen[towards] - others).to_numpy(), list(seen.index), str(towards),
                          key, what="word of the sentence")


def heavier_group(learner, detail, y, X, key: str, class_names=None) -> Question | None:
    """Which training points gain the most weight when round t reweights? Groups: the
    class of a point and the branch of the learner's root it answers (the learner's own
    sides), each with the share of the weight it holds now; the right one gains the most
    total weight α_i(after) − α_i(before). Every misclassified point is multiplied by
    the same factor, so it is the misclassified group holding the most weight."""
    tree = learner.tree_
    if tree.children_left[0] < 0:
        return None
    sides = learner_sides(learner, class_names)
    children = sorted({int(c) for c in (tree.children_left[0], tree.children_right[0],
                                        *tree.children_by_code(0)) if c >= 0})
    branch = np.argmax(learner.decision_path(X)[:, children], axis=1)
    groups = pd.DataFrame({"side": branch, "label": np.asarray(y).astype(str),
                           "gain": detail.after - detail.before, "held": detail.before})
    groups = groups.groupby(["side", "label"], sort=True).agg(
        gain=("gain", "sum"), held=("held", "sum"), size=("gain", "size")).reset_index()
    if len(groups) < 2:
        return None
    best = _single_best(groups["gain"].to_numpy())
    if best is None:
        return None
    texts = [f"class {g.label} answering {sides[g.side][0]} (holds {g.held:.1%} now)"
             for g in groups.itertuples()]
    others = groups.drop(index=best).sort_values("size", ascending=False, kind="stable")
    options = [texts[best]] + [texts[i] for i in others.index[:MAX_OPTIONS - 1]]
    rule = " · ".join(f"{side} → {c}" for side, c in sides)
    won = groups.loc[best]
    reason = (f"Every point f̂_{detail.t} gets wrong is multiplied by e^ŵ = "
              f"{np.exp(detail.weight):.3f}, every other by e^−ŵ, then all are rescaled to sum "
              f"to 1: the misclassified group holding the most weight gains the most, here "
              f"{won['held']:.1%} → {won['held'] + won['gain']:.1%}.")
    return _question(key, f"f̂_{detail.t} asks {learner_rule(learner)} ({rule}). Which "
                          f"training points gain the most weight when round {detail.t} "
                          "reweights them?", sorted(options), texts[best], reason)


def oob_held_back(n_trees: int) -> int:
    """The last trees :func:`oob_trend` asks about: 100, or half of fewer than 200."""
    return 100 if n_trees >= 200 else n_trees // 2


def oob_trend(curve: pd.DataFrame, key: str, percent: bool = True) -> Question | None:
    """Will the OOB error still fall over the last trees? ``curve``: the forest's error
    curve (``n_trees``, ``oob``). The last 100 trees (half, for a forest of fewer than
    200) are compared with the error before them; within half a point is "the same"."""
    n = len(curve)
    more = oob_held_back(n)
    if more < 5:
        return None
    before, after = (float(curve["oob"].iloc[i]) for i in (n - more - 1, n - 1))
    if not (np.isfinite(before) and np.isfinite(after)):
        return None
    shown = (lambda e: f"{e:.1%}") if percent else (lambda e: f"{e:.3f}")
    options = ("it falls further", "it stays within half a point", "it rises")
    change = after - before
    right = options[1] if abs(change) <= OOB_SAME else options[0] if change < 0 else options[2]
    reason = (f"After {n} trees the OOB error is {shown(after)}, against {shown(before)} after "
              f"{n - more}: " + ("averaging more trees barely changes it once the forest is "
                                 "large — the error has levelled off." if right == options[1] else
                                 f"it moved by {change * (100 if percent else 1):+.2f}"
                                 f"{' points' if percent else ''}."))
    return _question(key, f"After {n - more} trees the OOB error is {shown(before)}. With "
                          f"{more} more trees ({n} in all), what does it do?",
                     options, right, reason)




def fit_target(stages, t: int, key: str, style) -> Question | None:
    """What will tree t + 1 fit? Three plots against x — the pseudo-residuals (right), the
    target y, the current model — in an order drawn from ``key``."""
    if t >= stages.n_rounds:
        return None
    order = [FIT_CHOICES[i] for i in
             np.random.default_rng(int(key, 16)).permutation(len(FIT_CHOICES))]
    letters = {name: f"Plot {chr(65 + i)}" for i, name in enumerate(order)}
    model = "p_t" if stages.probability else "S_t"
    residual = "y − p_t, in probability" if stages.probability else (
        "y − S_t" if stages.squared else "the pseudo-residuals −∂L/∂S_t")
    reason = (f"{letters['residual']}: tree {t + 1} is fitted to the residuals {residual} — "
              f"what the model still gets wrong — not to y itself ({letters['target']}) nor to "
              f"the model's current {model} ({letters['prediction']}).")
    return _question(key, f"Tree {t + 1} is fitted next. Which of these three plots is it "
                          "fitted to?", sorted(letters.values()), letters["residual"], reason,
                     fit_choices_figure(stages, t, order, style))
