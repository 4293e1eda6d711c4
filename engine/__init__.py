"""Glassbox's learning algorithms, on NumPy and pandas only.

Modules: ``data`` (ingestion), ``naive_bayes``, ``tree``, ``ensemble``, ``inspection``,
``metrics``. Nothing here imports Streamlit, plotly or graphviz.
"""
