"""The Decision Tree page's "Your tree" tab: the student grows a tree by hand.

Pick a leaf, choose its split from the candidates listed by column name (the gain is
shown only after the choice), split, repeat; undo or start again. Beside it the
algorithm's tree with as many leaves (``max_leaf_nodes``, best first), and both trees'
test accuracy. The student's tree is an engine tree (``DecisionTreeClassifier.
fit_splits``): it draws with the page's diagram code and downloads as a model file. Its
splits, in the order made, are in the URL as ``dt_hand`` (:func:`encode`), so a link
reopens it.
"""
from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd
import streamlit as st

from engine.data import Dataset
from engine.inspection import split_candidates
from engine.persist import model_to_json
from engine.tree import DecisionTreeClassifier, HandSplit, path_of
from engine.tree._criteria import FLOAT_NOISE, tie_floor
from viz.tree_dot import count_text, tree_to_dot

from . import state, url
from . import tree_diagram as td
from .fitting import compute_once
from .markdown import literal
from .questions import SCORES, candidate_text

#: Splits a hand-grown tree may have (the URL stays short).
MAX_SPLITS = 64
KEY = "dt_hand"
#: Session key of the last split's verdict (its gain against the best at that leaf).
VERDICT = "dt_hand_verdict"


# --- the splits as text (the URL) -------------------------------------------------------

def encode(splits: list[tuple[tuple[int, ...], HandSplit]]) -> str:
    """``path_feature_spec`` per split, joined by ``~``: the path's child offsets joined
    by ``.`` (``r`` for the root), the feature's column number, and ``t<threshold>``,
    ``l<codes joined by .>`` or ``m`` (a branch per category)."""
    parts = []
    for path, split in splits:
        where = ".".join(map(str, path)) or "r"
        if split.multiway:
            spec = "m"
        elif split.left:
            spec = "l" + ".".join(map(str, split.left))
        else:
            spec = f"t{split.threshold!r}"
        parts.append(f"{where}_{split.feature}_{spec}")
    return "~".join(parts)


def decode(text: str, n_features: int) -> list[tuple[tuple[int, ...], HandSplit]]:
    """The splits of :func:`encode`'s text; ValueError when it is not one."""
    if not text:
        return []
    parts = text.split("~")
    if len(parts) > MAX_SPLITS:
        raise ValueError(f"at most {MAX_SPLITS} splits")
    out, seen = [], set()
    for part in parts:
        where, feature, spec = part.split("_")
        path = () if where == "r" else tuple(int(k) for k in where.split("."))
        j = int(feature)
        if not 0 <= j < n_features or path in seen or any(k < 0 for k in path):
            raise ValueError(part)
        seen.add(path)
        if spec == "m":
            split = HandSplit(j, multiway=True)
        elif spec.startswith("l"):
            split = HandSplit(j, left=tuple(int(c) for c in spec[1:].split(".")))
        elif spec.startswith("t"):
            threshold = float(spec[1:])
            if math.isnan(threshold):
                raise ValueError(part)
            split = HandSplit(j, threshold)
        else:
            raise ValueError(part)
        out.append((path, split))
    return out


# --- the tab ----------------------------------------------------------------------------

def view(dataset: Dataset, features: list[str], params: dict, style) -> None:
    if dataset.task != "classification":
        st.info("Building a tree by hand is offered for class targets: its candidates are "
                "scored by class counts.")
        return
    X, y = dataset.X_train[features], dataset.y_train
    text = url.resolve(url.Param(KEY, "", lambda t: _checked(t, len(features)),
                                 "your tree's splits"))
    # The page's binning too: on a large upload the questions are the binned tree's, a
    # few hundred a column, not one between every two of its values.
    settings = {"criterion": params["criterion"], "categorical_split": params["categorical_split"],
                "binning": params["binning"]}
    try:
        mine = _hand_tree(dataset, features, settings, text)
    except ValueError as error:  # a link's splits that do not fit this data
        st.warning(f"**These splits do not make a tree here.** {literal(error)} Starting "
                   "again from the root.")
        st.session_state[KEY] = text = ""
        mine = _hand_tree(dataset, features, settings, text)
    st.markdown("Grow the tree yourself: pick a leaf, choose a question for it, split. The "
                "algorithm's own tree with as many leaves stands beside yours.")
    _chooser(mine, X, y, text, params, _tree_key(dataset, features, settings, text))
    _verdict()
    _compare(mine, dataset, features, settings, style)


def _checked(texts: list[str], n_features: int) -> str:
    if len(texts) != 1:
        raise ValueError(texts)
    decode(texts[0], n_features)
    return texts[0]


def _tree_key(dataset: Dataset, features: list[str], settings: dict, text: str) -> tuple:
    """What a hand-grown tree is cached by: the data, its features, the settings, the splits."""
    return dataset.content_hash, tuple(features), tuple(sorted(settings.items())), text


def _hand_tree(dataset: Dataset, features: list[str], settings: dict, text: str):
    def build():
        splits = dict(decode(text, len(features)))
        return DecisionTreeClassifier(**settings).fit_splits(
            dataset.X_train[features], dataset.y_train, splits)
    return compute_once(("hand-tree", *_tree_key(dataset, features, settings, text)), build,
                        "Building your tree")


def _leaf_title(model, leaf: int) -> str:
    tree = model.tree_
    counts = tree.value[leaf]
    mix = " · ".join(f"{c}: {count_text(n)}" for c, n in zip(model.classes_, counts, strict=True) if n)
    return (f"node {leaf} · depth {int(tree.depth[leaf])} · "
            f"{int(tree.n_node_samples[leaf]):,} rows ({mix})")


def _chooser(model, X: pd.DataFrame, y: pd.Series, text: str, params: dict,
             tree_key: tuple) -> None:
    tree = model.tree_
    leaves = [int(i) for i in np.flatnonzero((tree.children_left < 0) & (tree.impurity > FLOAT_NOISE)
                                             & (tree.n_node_samples >= 2))]
    undo, again = st.columns(2)
    undo.button("Undo the last split", on_click=_undo, disabled=not text, width="stretch",
                key="dt_hand_undo")
    again.button("Start again", on_click=_set, args=("",), disabled=not text, width="stretch",
                 key="dt_hand_reset")
    if not leaves:
        st.success("Every leaf of your tree is pure (or a single row): nothing left to split.")
        return
    if text.count("~") + 1 >= MAX_SPLITS and text:
        st.info(f"Your tree has {MAX_SPLITS} splits, as many as a link can hold.")
        return
    tree_id = zlib.crc32(text.encode())  # each tree's leaves get a chooser of their own
    leaf = st.selectbox("Leaf to split", leaves, format_func=lambda i: _leaf_title(model, i),
                        key=f"dt_hand_leaf_{tree_id}")
    table = compute_once(("hand-candidates", *tree_key, leaf),  # shared: cached by the data
                         lambda: split_candidates(model, leaf, X, y), "Listing the questions")
    wanted = "multiway" if params["categorical_split"] == "multiway" else "subset"
    table = table[((table["split"] == "threshold") & np.isfinite(table["threshold"]))
                  | (table["split"] == wanted)]
    if table.empty:
        st.info("The rows of this leaf have one value in every column: no question splits them.")
        return
    names = sorted(table["feature"].unique())
    pick, question = st.columns([2, 3])
    feature = pick.selectbox("Column", names, key="dt_hand_feature",
                             help="Listed by name: which one is best is for you to judge.")
    rows = table[table["feature"] == feature]
    chosen = question.selectbox("Question", list(rows.index),
                                format_func=lambda i: candidate_text(rows.loc[i]),
                                key=f"dt_hand_question_{tree_id}_{leaf}_{feature}")
    path = path_of(tree, leaf)
    split = _hand_split(rows.loc[chosen], model)
    st.button("Split this leaf", type="primary", key="dt_hand_split",
              on_click=_add, args=(text, path, split, _verdict_of(
                  table, rows.loc[chosen], params["criterion"], float(tree.impurity[leaf]))))


def _hand_split(row: pd.Series, model) -> HandSplit:
    j = int(row["feature_idx"])
    if row["split"] == "threshold":
        return HandSplit(j, float(row["threshold"]))
    if row["split"] == "multiway":
        return HandSplit(j, multiway=True)
    names = list(model.categories_[j])
    return HandSplit(j, left=tuple(sorted(names.index(c) for c in row["categories"])))


def _verdict_of(table: pd.DataFrame, row: pd.Series, criterion: str, impurity: float) -> str:
    column, words = SCORES[criterion]
    best = table.loc[table[column].idxmax()]
    mine, top = float(row[column]), float(best[column])
    if mine >= tie_floor(top, impurity):  # tied with the best is the best
        return f"Your split {candidate_text(row)} is the best here: {words} {mine:.3f}."
    return (f"Your split {candidate_text(row)}: {words} {mine:.3f}. The best here was "
            f"{candidate_text(best)}, {top:.3f}.")


def _add(text: str, path: tuple, split: HandSplit, verdict: str) -> None:
    splits = decode(text, 10**6) + [(path, split)]
    _set(encode(splits))
    st.session_state[VERDICT] = verdict


def _undo() -> None:
    text = st.session_state.get(KEY, "")
    _set("~".join(text.split("~")[:-1]) if text else "")


def _set(text: str) -> None:
    st.session_state[KEY] = text
    st.session_state.pop(VERDICT, None)


def _verdict() -> None:
    verdict = st.session_state.get(VERDICT)
    if verdict:
        st.info(literal(verdict))


def _compare(mine, dataset: Dataset, features: list[str], settings: dict, style) -> None:
    X_test, y_test = dataset.X_test[features], dataset.y_test
    n_leaves = int(mine.tree_.n_leaves)
    theirs = None
    if n_leaves >= 2:
        theirs = compute_once(
            ("greedy-tree", dataset.content_hash, tuple(features), tuple(sorted(settings.items())),
             n_leaves),
            lambda: DecisionTreeClassifier(**settings, max_leaf_nodes=n_leaves).fit(
                dataset.X_train[features], dataset.y_train),
            "Growing the algorithm's tree")
    yours = float((mine.predict(X_test) == y_test.to_numpy()).mean()) if len(y_test) else np.nan
    line = f"On the {len(y_test):,} test rows: **yours {yours:.1%}**"
    if theirs is not None:
        score = float((theirs.predict(X_test) == y_test.to_numpy()).mean())
        line += (f", the algorithm's {score:.1%} (its {int(theirs.tree_.n_leaves)} leaves "
                 "chosen best first, each split the largest gain).")
    st.markdown(line)
    tree_style = td.diagram_style(style)
    side_by_side = theirs is not None and not state.presentation()
    left, right = st.columns(2) if side_by_side else (st.container(), st.container())
    left.markdown(f"**Your tree** · {n_leaves} {'leaf' if n_leaves == 1 else 'leaves'}")
    with left:
        td.diagram(tree_to_dot(mine, style=tree_style), tree_style, place="yours")
    left.download_button("Your tree as a model file (JSON)", lambda: model_to_json(mine),
                         file_name="your-tree.json", mime="application/json",
                         on_click="ignore", key="dt_hand_json")
    if theirs is not None:
        right.markdown(f"**The algorithm's tree** · {int(theirs.tree_.n_leaves)} leaves")
        with right:
            td.diagram(tree_to_dot(theirs, style=tree_style), tree_style, place="theirs")

