"""Discriminative baselines: models of p(y | x) alone, to compare with the generative zoo."""

from pgm_models.discriminative.logistic_regression import LogisticRegression

__all__ = ["LogisticRegression"]
