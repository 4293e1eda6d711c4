"""Pure drawing functions: fitted engine objects and tables in, plotly figures and DOT out.

Nothing here imports Streamlit; pages render what these functions return.
"""
