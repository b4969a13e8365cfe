"""The naive Bayes family: categorical, Bernoulli, multinomial, complement, and mixed column types."""

from pgm_models.naive_bayes.bernoulli import BernoulliNB
from pgm_models.naive_bayes.categorical import CategoricalNB
from pgm_models.naive_bayes.complement import ComplementNB
from pgm_models.naive_bayes.hierarchical import HierarchicalNB
from pgm_models.naive_bayes.mixed import MixedNB
from pgm_models.naive_bayes.multinomial import MultinomialNB

__all__ = ["BernoulliNB", "CategoricalNB", "ComplementNB", "HierarchicalNB", "MixedNB", "MultinomialNB"]
