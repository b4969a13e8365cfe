"""Model selection: exact leave-one-out cross-validation, evidence (marginal-likelihood)
maximisation of hyperparameters, and the comparison of estimates and models.
"""
