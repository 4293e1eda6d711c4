"""Glassbox: see inside the classic classifiers. Run with ``streamlit run app.py``."""
from engine._memory import keep_freed_memory

keep_freed_memory()  # before any fit, and before the worker processes start

import streamlit as st  # noqa: E402

from ui import fitting, live, predict, runner_order, sidebar, state, url  # noqa: E402

runner_order.install()  # once per server: no run's output is dropped for the next run's

# The sidebar opens except on phones; presentation mode folds it on narrow screens
# (ui.sidebar.fold_on_narrow_screen).
st.set_page_config(page_title="Glassbox", page_icon=":material/search:", layout="wide",
                   initial_sidebar_state="auto")

PAGES = {
    "Data": [
        st.Page("app_pages/data.py", title="Data", icon=":material/table_view:", default=True),
    ],
    "Models": [
        st.Page("app_pages/naive_bayes.py", title="Naive Bayes", icon=":material/casino:"),
        st.Page("app_pages/decision_tree.py", title="Decision Tree", icon=":material/account_tree:"),
        st.Page("app_pages/random_forest.py", title="Random Forest", icon=":material/forest:"),
        st.Page("app_pages/adaboost.py", title="AdaBoost", icon=":material/rocket_launch:"),
        st.Page("app_pages/gradient_boosting.py", title="Gradient Boosting", icon=":material/trending_down:"),
    ],
    "Results": [
        st.Page("app_pages/compare.py", title="Compare", icon=":material/balance:"),
    ],
}

fitting.start_workers()  # once per server: the first forest need not wait for them
page = st.navigation(PAGES, position="hidden")  # the sidebar draws the links
runner_order.note_page_shown()  # a fragment's rerun asked for on another page is stale
url.begin_run(st.container())  # notices about the link's values go above the page
sidebar.render(PAGES, page)
try:
    page.run()
except state.PageStopped:
    pass  # the page has said why it ends early
url.end_run()
live.end_run()  # a class follows the teacher's view once its URL is written
sidebar.share_link()
predict.score_box()
