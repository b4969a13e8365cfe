"""The discrete naive Bayes family: categorical, Bernoulli and multinomial."""

from pgm_models.naive_bayes.bernoulli import BernoulliNB
from pgm_models.naive_bayes.categorical import CategoricalNB
from pgm_models.naive_bayes.multinomial import MultinomialNB

__all__ = ["BernoulliNB", "CategoricalNB", "MultinomialNB"]
