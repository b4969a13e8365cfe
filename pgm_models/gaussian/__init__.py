"""The Gaussian family: Gaussian naive Bayes and discriminant analysis (LDA, QDA)."""

from pgm_models.gaussian.discriminant import LDA, QDA
from pgm_models.gaussian.gaussian_nb import GaussianNB

__all__ = ["GaussianNB", "LDA", "QDA"]
