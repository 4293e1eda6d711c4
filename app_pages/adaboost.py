"""AdaBoost page."""
from ui.placeholder import coming_soon

coming_soon("AdaBoost", [
    "Round by round: points sized by their weight αᵢ, the stump chosen, its weight ŵₜ.",
    "The combined boundary sign(Σ ŵₜ fₜ(x)) after each round.",
    "Training and test error against the number of rounds.",
])
