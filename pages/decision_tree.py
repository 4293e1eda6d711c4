"""Decision Tree page."""
from ui.placeholder import coming_soon

coming_soon("Decision Tree", [
    "The tree diagram, grown level by level, with the split written in the data's own words.",
    "Show your working: every candidate split with its entropy gain, Gini and error.",
    "Decision boundaries, the path of one row, pruning and its cross-validated choice.",
])
