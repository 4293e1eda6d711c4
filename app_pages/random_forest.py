"""Random Forest page."""
from ui.placeholder import coming_soon

coming_soon("Random Forest", [
    "OOB and test error against the number of trees; bagging and forests side by side.",
    "The effect of m, the number of features tried per split, and tree correlation ρ.",
    "Permutation importance on out-of-bag rows next to impurity importance.",
])
