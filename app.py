"""Glassbox: see inside the classic classifiers. Run with ``streamlit run app.py``."""
import streamlit as st

from ui import sidebar

st.set_page_config(page_title="Glassbox", page_icon=":material/search:", layout="wide")

PAGES = {
    "Data": [
        st.Page("pages/data.py", title="Data", icon=":material/table_view:", default=True),
    ],
    "Models": [
        st.Page("pages/naive_bayes.py", title="Naive Bayes", icon=":material/casino:"),
        st.Page("pages/decision_tree.py", title="Decision Tree", icon=":material/account_tree:"),
        st.Page("pages/random_forest.py", title="Random Forest", icon=":material/forest:"),
        st.Page("pages/adaboost.py", title="AdaBoost", icon=":material/rocket_launch:"),
        st.Page("pages/gradient_boosting.py", title="Gradient Boosting", icon=":material/trending_down:"),
    ],
    "Results": [
        st.Page("pages/compare.py", title="Compare", icon=":material/balance:"),
    ],
}

page = st.navigation(PAGES)
sidebar.render()
page.run()
