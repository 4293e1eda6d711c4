"""Ensembles: bagging, random forests, AdaBoost and gradient boosting.

Bagging and forests keep every tree's in-bag counts (``inbag_counts_``) so that
out-of-bag views can be drawn; boosting exposes every round (``staged_*``).
"""
from ._bagged import first_members
from ._bagging import BaggingClassifier
from ._forest import RandomForestClassifier, RandomForestRegressor
from ._gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from ._weight_boosting import AdaBoostClassifier

__all__ = [
    "AdaBoostClassifier",
    "BaggingClassifier",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "first_members",
]
