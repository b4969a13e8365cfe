"""The semi-naive Bayes family: attributes depend on the class and on parent attributes."""

from pgm_models.semi_naive.a2de import A2DE
from pgm_models.semi_naive.aode import AODE
from pgm_models.semi_naive.aodesr import AODEsr
from pgm_models.semi_naive.hnb import HNB
from pgm_models.semi_naive.spode import SPODE
from pgm_models.semi_naive.tan import TAN
from pgm_models.semi_naive.waode import WAODE

__all__ = ["A2DE", "AODE", "AODEsr", "HNB", "SPODE", "TAN", "WAODE"]
