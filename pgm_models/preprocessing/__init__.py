"""Preprocessing: the discretizers (equal width, equal frequency, Fayyad–Irani MDL) that turn
numeric columns into the nominal attributes the discrete families take, and their kernels.
"""

from pgm_models.preprocessing.discretize import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLDiscretizer

__all__ = ["EqualFrequencyDiscretizer", "EqualWidthDiscretizer", "MDLDiscretizer"]
