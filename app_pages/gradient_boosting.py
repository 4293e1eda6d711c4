"""Gradient Boosting page."""
from ui.placeholder import coming_soon

coming_soon("Gradient Boosting", [
    "The strong model Sₜ and the residuals the next tree fits, round by round.",
    "Training and test loss for several shrinkage values ν.",
    "Importances and the classification boundary after round t.",
])
