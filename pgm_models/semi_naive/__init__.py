"""The semi-naive Bayes family: attributes depend on the class and on parent attributes."""

from pgm_models.semi_naive.aode import AODE
from pgm_models.semi_naive.spode import SPODE
from pgm_models.semi_naive.tan import TAN

__all__ = ["AODE", "SPODE", "TAN"]
