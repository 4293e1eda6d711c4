"""The questions "Predict first" asks, built from the fitted model (no Streamlit here).

Each builder returns a :class:`Question` whose options include the right answer exactly
once, the others taken from the same model so that they are plausible (the next-best
splits of the node, the other classes, the other feature of a pair), or None when the
model offers nothing worth asking (one feature, one class, a tie). Options are listed
in a fixed order that does not give the answer away (by name, or along an axis).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.tree._criteria import TIE_TOLERANCE, tie_floor

#: Options of a multiple-choice question at most (the answer and the most plausible others).
MAX_OPTIONS = 4
#: Which column of the candidate table each criterion maximises, and its name in words.
SCORES = {"gini": ("gini_decrease", "Gini decrease"),
          "entropy": ("info_gain", "information gain"),
          "gain_ratio": ("gain_ratio", "gain ratio"),
          "misclassification": ("error_decrease", "decrease in errors")}


@dataclass(frozen=True)
class Question:
    """One question: ``options[answer]`` is right; ``reason`` says why, in one line."""

    key: str
    prompt: str
    options: tuple[str, ...]
    answer: int
    reason: str

    def is_right(self, choice: str) -> bool:
        return choice == self.options[self.answer]


def question_key(*parts) -> str:
    """A short id of what a question is about (page, model key, step): a new model or a
    new step asks afresh."""
    return hashlib.sha1(repr(parts).encode()).hexdigest()[:16]


def _question(key, prompt, options, right: str, reason) -> Question:
    options = tuple(options)
    if options.count(right) != 1:
        raise ValueError(f"the answer {right!r} must be among the options exactly once")
    return Question(key, prompt, options, options.index(right), reason)


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
    if np.sum(np.isclose(means, means.max(), rtol=0, atol=TIE_TOLERANCE)) > 1:
        return None
    options = (f"{feature} ≤ {q1:.3g}", f"{q1:.3g} < {feature} ≤ {q2:.3g}", f"{feature} > {q2:.3g}")
    best = int(np.argmax(means))
    reason = (f"Tree {t + 1} fits the residuals left after round {t}; they average "
              + ", ".join(f"{m:+.3g}" for m in means) + " over the three parts, highest where "
              f"{options[best]}.")
    return _question(key, f"Tree {t + 1} fits what round {t} left over. Where does it push the "
                          "prediction up the most?", options, options[best], reason)
