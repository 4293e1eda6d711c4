"""A model page's header: its title, the symbols it writes (a "Symbols" popover), and
the textbook settings a bundled example opens with.

One table of symbols per page, in the page's own notation; a symbol means the same
wherever it appears on that page.
"""
from __future__ import annotations

import streamlit as st

from . import lesson, state

SYMBOLS: dict[str, list[tuple[str, str]]] = {
    "naive_bayes": [
        ("c", "a class (a value of the target)"),
        ("x = (x₁, …, x_d)", "one row's feature values"),
        ("P(c)", "prior: the share of training rows in class c, N_c / N"),
        ("P(xⱼ | c)", "likelihood: how usual value xⱼ of feature j is in class c"),
        ("P(c | x)", "posterior: the probability of class c for this row"),
        ("θⱼ꜀", "a counted likelihood, (count + α) / (N_c + α k)"),
        ("α", "smoothing: α = 1 is Laplace's, α = 0 plain counts"),
        ("k", "the number of values feature j takes"),
        ("μ, σ²", "mean and variance of a numeric feature within a class (Gaussian)"),
    ],
    "decision_tree": [
        ("t", "a threshold: rows with x ≤ t go left (yes), the others right"),
        ("I(node)", "impurity of a node: Gini, entropy or misclassification"),
        ("p_q", "share of class q among a node's rows"),
        ("Δ (gain)", "impurity of the parent minus the row-weighted impurity of its children"),
        ("α (pruning)", "cost-complexity: each leaf must buy at least α of error to stay"),
        ("χ², df, p", "the test of a split against chance: statistic, degrees of freedom, p-value"),
        ("n_kq", "rows of class q in child k; n̂_kq the count expected by chance"),
    ],
    "random_forest": [
        ("B", "number of trees"),
        ("m", "features drawn at random at each split (m = p is bagging)"),
        ("p", "number of features"),
        ("OOB", "out of bag: the rows a tree's bootstrap sample missed, used to test it"),
        ("σ²", "variance of one tree's prediction"),
        ("ρ", "correlation between two trees' predictions"),
        ("π", "the forest's probability: the mean of the trees' class shares"),
    ],
    "adaboost": [
        ("T, t", "number of rounds, and one round"),
        ("f̂_t", "round t's weak learner (a stump: one question)"),
        ("ε_t", "its weighted error: the total weight of the points it gets wrong"),
        ("ŵ_t", "its say in the vote: ½ ln((1 − ε_t)/ε_t), larger when ε_t is small"),
        ("α_i", "the weight of training point i; wrong points gain weight each round"),
        ("η", "learning rate: each ŵ_t is multiplied by it"),
        ("K", "number of classes (SAMME adds ln(K − 1) to ŵ_t)"),
    ],
    "gradient_boosting": [
        ("S_t", "the strong model after t trees; S₀ is a constant"),
        ("f_{t+1}", "the tree added in round t + 1, fitted to the pseudo-residuals"),
        ("r = y − S_t", "residuals: what the model still gets wrong (squared error)"),
        ("L(y, S)", "the loss; its negative gradient is what each tree fits"),
        ("ν", "learning rate (shrinkage): only ν of each tree is added"),
        ("1[y = c]", "1 for rows of class c, else 0 (one model per class)"),
    ],
    "compare": [
        ("test error", "share of test rows a model gets wrong"),
        ("OOB error", "error on each training row of the trees that did not see it"),
        ("R²", "share of the target's variance a regression model explains"),
    ],
}


def show(title: str, page: str) -> None:
    """``title`` with the Symbols popover of ``page`` (a key of SYMBOLS) beside it, and
    under it a lesson link's text and the textbook note when the data's example touches
    this page."""
    with st.container(horizontal=True, vertical_alignment="center"):
        st.title(title, width="stretch")
        popover(page)
    lesson.show()
    textbook_note(page)


def textbook_note(page: str) -> None:
    """Which settings a textbook example opens with, and one click to the general
    defaults (and back)."""
    entry = None if state.source() == state.UPLOAD else \
        state.samples().get(state.source(), {}).get("preset")
    if not entry or page not in entry.get("pages", []):
        return
    on = bool(st.session_state.get("textbook", True))
    text, button = st.columns([4, 1], vertical_alignment="center")
    text.caption(f":material/menu_book: **Textbook settings**, {entry['note']}." if on else
                 ":material/menu_book: Glassbox's general defaults: a train/test split and "
                 "the usual settings, not the textbook's.")
    button.button("General defaults" if on else "Textbook settings", key="textbook_switch",
                  type="tertiary", on_click=st.session_state.__setitem__,
                  args=("textbook", not on), width="stretch",
                  help="Switch between the source's own settings and Glassbox's defaults.")


def popover(page: str) -> None:
    """The "Symbols" popover of ``page`` (a key of SYMBOLS)."""
    rows = SYMBOLS[page]
    with st.popover("Symbols", icon=":material/function:"):
        st.markdown("| symbol | meaning |\n|---|---|\n" + "\n".join(
            f"| {symbol.replace('|', '∣')} | {meaning} |" for symbol, meaning in rows))
