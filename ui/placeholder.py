"""What a model page shows until its views are built: its plan and the data it will use."""
from __future__ import annotations

import streamlit as st

from . import state


def coming_soon(title: str, plan: list[str]) -> None:
    st.title(title)
    st.info("This page is being built. Here is what it will show:")
    st.markdown("\n".join(f"- {item}" for item in plan))
    dataset = state.current_dataset()
    if dataset is not None:
        st.caption(f"It will train on **{state.source_title()}**, target **{dataset.target}** "
                   f"({dataset.task}), {len(dataset.y_train):,} training and "
                   f"{len(dataset.y_test):,} test rows.")
