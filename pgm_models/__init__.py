"""pgm_models: generative Bayesian classifiers built on PyMC, with closed-form posteriors and a
scikit-learn interface."""

from pgm_models.discriminative import LogisticRegression
from pgm_models.gaussian import LDA, QDA, GaussianNB
from pgm_models.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB

__all__ = ["BernoulliNB", "CategoricalNB", "GaussianNB", "LDA", "LogisticRegression", "MultinomialNB", "QDA"]
__version__ = "0.1.0"
