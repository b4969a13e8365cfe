"""Bayesian network classifiers whose structure is scored by the marginal likelihood.

The Dirichlet–multinomial marginal likelihood of the conjugate core
(``pgm_models.conjugate.Dirichlet.log_evidence``) is the Bayesian score of a structure (K2,
BDeu). What belongs here is every classifier that learns or averages a discrete network
structure by that score, the class a parent of every attribute:

- :class:`MANB`: exact model averaging over the 2^F naive Bayes feature subsets;
- :class:`BMATAN`: exact model averaging over all tree-augmented naive Bayes trees, by the
  matrix-tree theorem;
- :class:`BayesNetClassifier`: one structure found by a search (K2, hill climbing, TAN) under
  a decomposable score, as Weka's ``BayesNet``.

A fixed-structure TAN with a Chow–Liu tree lives in ``semi_naive``; this family is about
structures chosen or averaged by their evidence.
"""

from pgm_models.bayes_net.bmatan import BMATAN
from pgm_models.bayes_net.classifier import BayesNetClassifier
from pgm_models.bayes_net.kdb import KDB
from pgm_models.bayes_net.manb import MANB

__all__ = ["BMATAN", "KDB", "MANB", "BayesNetClassifier"]
