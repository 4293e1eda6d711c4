"""Compare page."""
from ui.placeholder import coming_soon

coming_soon("Compare", [
    "Every model trained on the same split: test error, training time, OOB error.",
    "Learning curves and ROC curves for the chosen models.",
])
