"""pgm_models: generative Bayesian classifiers built on PyMC, with closed-form posteriors and a
scikit-learn interface."""

from pgm_models.discriminative import LogisticRegression
from pgm_models.gaussian import LDA, QDA, GaussianNB
from pgm_models.naive_bayes import BernoulliNB, CategoricalNB, MixedNB, MultinomialNB
from pgm_models.semi_naive import AODE, SPODE, TAN

__all__ = ["AODE", "BernoulliNB", "CategoricalNB", "GaussianNB", "LDA", "LogisticRegression", "MixedNB", "MultinomialNB", "QDA", "SPODE",
           "TAN"]
__version__ = "0.1.0"
