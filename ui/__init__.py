"""Streamlit glue shared by app.py and the pages: session state, URL, cached loading.

Pages stay thin by asking this package for the current dataset and style instead of
repeating widget and cache code.
"""
