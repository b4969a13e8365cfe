"""AODEsr: AODE with subsumption resolution (Zheng & Webb 2006), as in Weka 3.6.

At prediction, a value x_i of the row is a *generalisation* of another value x_j of the row when
every training row with x_j also has x_i, N(x_i, x_j) = N(x_j), and x_j is frequent enough to
trust that, N(x_j) > ``critical_value``; P(y | x_i, x_j) = P(y | x_j), so x_i adds nothing but
a double count, and it is removed from the row — as a parent and as a child — before AODE's
average. Two values that imply each other (N(x_i) = N(x_j)) remove only the later attribute's.
The counts are the class-free sums of the pair tensor (``pgm_models.semi_naive._base``); a
missing value is neither removed nor removes another. With no parent left the row falls back to
naive Bayes on all its observed values, as Weka does.

The estimates are AODE's Dirichlet posterior means; the defaults are Weka's: the m-estimate with
m = 1 (``estimator="laplace"`` is Weka's ``-L``), critical value 50 (``-C``) and frequency limit
1 (``-F``), so ``AODEsr()`` reproduces ``weka.classifiers.bayes.AODEsr``.

``loo(X, y)`` is exact leave-one-out: without row i the counts N(x_i, x_j) and N(x_j) of its own
values both fall by one, so a generalisation stays one and only the critical value's test
changes, N(x_j) − 1 > C.
"""

from __future__ import annotations

import numpy as np

from pgm_models._utils.validation import as_array_like, check_fitted
from pgm_models.semi_naive.aode import AODE


class AODEsr(AODE):
    """Averaged one-dependence estimators with subsumption resolution.

    Parameters
    ----------
    critical_value : a value x_j removes a generalisation x_i only when N(x_j) > critical_value
        (Weka -C, default 50).
    frequency_limit : a parent value must occur this often in training (Weka -F, default 1).
    estimator : "m-estimate" (Weka's default) or "laplace" (Weka -L).
    m : the m-estimate's weight (Weka -M, default 1).
    alpha : Laplace pseudo-count per cell (1 is Weka's -L), or "evidence" (see :class:`AODE`).
    estimate : {"mean", "map", "mle", "predictive"} for every SPODE's parameters.
    n_categories, handle_unknown : as for CategoricalNB.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.

    Attributes
    ----------
    pair_count_ (K, T', T'), categories_, n_categories_, class_count_ : as for :class:`AODE`.

    Notes
    -----
    For a row x let R(x) be its observed values less those x_i for which another observed x_j of
    a different attribute has N(x_j) > C, N(x_i, x_j) = N(x_j) and not (N(x_i) = N(x_j) and
    i < j). Then

        p(y, x) ∝ Σ_{a ∈ R(x), N(x_a) ≥ F} P(y, x_a) Π_{j ∈ R(x), j ≠ a} P(x_j | y, x_a),

    averaged over the parents counted; P are the Dirichlet posterior means of AODE (m-estimate:
    (n + m/S)/(n_block + m) for a block of S cells).

    References
    ----------
    F. Zheng and G. I. Webb (2006). Efficient lazy elimination for averaged one-dependence
    estimators. ICML 2006, 1113–1120.

    Examples
    --------
    >>> from pgm_models import AODEsr, load_dataset
    >>> X, y = load_dataset("breast-cancer")
    >>> model = AODEsr(critical_value=5).fit(X, y)
    >>> model.predict_proba(X[:2]).round(3)
    array([[0.335, 0.665],
           [0.986, 0.014]])
    >>> int(model.generalisations(X).sum())  # values removed from the 286 rows
    44
    """

    weights = "uniform"  # AODE's options that AODEsr does not take
    temperature = 1.0

    def __init__(self, critical_value=50, frequency_limit=1, estimator="m-estimate", m=1.0, alpha=1.0, estimate="mean",
                 n_categories=None, handle_unknown="missing", class_prior=None):
        self.critical_value = critical_value
        self.frequency_limit = frequency_limit
        self.estimator = estimator
        self.m = m
        self.alpha = alpha
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _check_critical_value(self):
        value = self.critical_value
        if isinstance(value, (bool, np.bool_)) or not (np.isscalar(value) and np.isreal(value) and value >= 0):
            raise ValueError(f"critical_value must be a number ≥ 0 (Weka -C), got {value!r}")

    def _count(self, codes, class_index, weight):
        self._check_critical_value()
        super()._count(codes, class_index, weight)

    def _subsumes(self, removed):
        """(T + 1, T + 1) whether value cell t is a generalisation removed by cell s: N(s) −
        ``removed`` > C, N(t, s) = N(s), t and s of different attributes, and not (N(t) = N(s)
        and t's attribute first); the last row and column, a missing value, never."""
        self._check_critical_value()
        layout = self._layout
        pairs = self._value_counts(self.pair_count_, layout).sum(axis=0)  # (T, T) class-free N(t, s)
        frequency = np.diagonal(pairs)
        attribute = layout.attribute_of_value_cell
        mutual = (frequency[:, None] == frequency[None, :]) & (attribute[:, None] < attribute[None, :])
        subsumes = ((frequency - removed > self.critical_value)[None, :] & (pairs == frequency[None, :])
                    & ~layout.same_attribute_mask() & ~mutual)
        return np.pad(subsumes, ((0, 1), (0, 1)))

    def generalisations(self, X):
        """(N, F) whether each value of X's rows is removed as a generalisation of another."""
        check_fitted(self, "classes_")
        return self._generalisations(self._encode(as_array_like(X), reset=False, training=False), 0)

    def _generalisations(self, codes, removed):
        cells = self._value_index(codes)
        return self._subsumes(removed)[cells[:, :, None], cells[:, None, :]].any(axis=2)

    def _parent_codes(self, codes, removed):
        return np.where(self._generalisations(codes, removed), -1, codes)

    def _floats_per_row(self):
        """AODE's, and the F × F subsumption test of each row (booleans)."""
        return super()._floats_per_row() + self.n_features_in_ ** 2 // 8 + 1
