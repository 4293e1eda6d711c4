"""Naive Bayes page."""
from ui.placeholder import coming_soon

coming_soon("Naive Bayes", [
    "Priors P(y) and the likelihood tables P(xⱼ | y), with Laplace smoothing α you can move.",
    "The evidence behind one prediction: each feature's log-likelihood, summed to the posterior.",
    "Text mode: type a review and see what every word contributes.",
])
