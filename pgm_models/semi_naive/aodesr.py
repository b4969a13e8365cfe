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

import operator

import numpy as np

from pgm_models._utils import jit
from pgm_models._utils.validation import as_array_like, check_fitted, is_number
from pgm_models.semi_naive._small import SmallAveragedFolds
from pgm_models.semi_naive.aode import AODE

# Remove the generalisations by the compiled loop of ``_aode_kernel`` once numba is loaded in the
# process (``jit.loaded``). False: always the NumPy path (the T × T subsumption table).
COMPILED_GENERALISATIONS = True


class AODEsr(SmallAveragedFolds, AODE):
    r"""Averaged one-dependence estimators with subsumption resolution.

    AODEsr is :class:`AODE` with one step added at prediction: a value of the row that every
    training row with another of the row's values also has (a *generalisation* of it, such as
    ``humidity=normal`` when every ``temperature=cool`` day is humid-normal) adds nothing but a
    double count, so it is removed from the row, as a parent and as a child, before the SPODEs are
    averaged. ``AODEsr()`` reproduces Weka 3.6's ``weka.classifiers.bayes.AODEsr``.

    Parameters
    ----------
    critical_value : float, default=50
        A value x_j removes a generalisation x_i only when it is frequent enough to trust,
        N(x_j) > critical_value training rows (Weka's -C; ≥ 0).
    frequency_limit : int, default=1
        A parent value must occur this often in training for its SPODE to vote (Weka's -F).
    estimator : {"m-estimate", "laplace"}, default="m-estimate"
        The m-estimate (Weka's default) or Laplace's estimate (Weka's -L).
    m : float, default=1.0
        The m-estimate's weight in pseudo-rows (Weka's -M).
    alpha : float or "evidence", default=1.0
        The Laplace pseudo-count of every cell, for ``estimator="laplace"`` (Weka: 1); "evidence":
        one per SPODE, each its SPODE's marginal-likelihood maximum, as in :class:`AODE`
        (``alpha_``).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters every SPODE plugs in ("predictive" equals "mean").
    n_categories : int or array-like of shape (n_features,), default=None
        Domain size of integer-coded attributes (values 0..n−1), as in :class:`CategoricalNB`.
    handle_unknown : {"missing", "error"}, default="missing"
        A value outside an attribute's domain at prediction is skipped like a missing value (with
        a warning) or raises.
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        N_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities.
    categories_ : list of ndarray
        The domain of each attribute.
    n_categories_ : ndarray of shape (n_features,)
        The domain sizes r_j.
    pair_count_ : ndarray of shape (n_classes, T', T')
        The pair-count tensor: C[k, s, t], the (weighted) rows of class k with the value or missing
        cells s and t of two attributes (T' = Σ_j (r_j + 1)); its diagonal holds the single counts.
        Its sums over the classes are the counts N(x_i, x_j) and N(x_j) that the subsumption test
        reads.
    n_features_in_ : int
        The number of attributes seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.
    alpha_ : ndarray of shape (n_features,)
        The learned α of each SPODE (only with ``alpha="evidence"``).
    fallback_alpha_ : float
        The learned α of the naive Bayes fallback (only with ``alpha="evidence"``).

    See Also
    --------
    AODE : The same average without subsumption resolution.
    WAODE : SPODEs weighted by the mutual information of their parent with the class.
    A2DE : Averages two-parent models instead of one-parent ones.
    HNB : A hidden parent per attribute, mixing the one-dependence estimates.
    SPODE : One member of the average.
    CategoricalNB : The fallback when no parent is left.

    Notes
    -----
    For a row x let R(x) be its observed values less those x_i for which another observed x_j of
    a different attribute has N(x_j) > C, N(x_i, x_j) = N(x_j) and not (N(x_i) = N(x_j) and
    i < j): two values that imply each other remove only the later attribute's. Then

    .. math::

        p(y, x) \propto \sum_{a \in R(x),\, N(x_a) \ge F} P(y, x_a)
        \prod_{j \in R(x),\, j \ne a} P(x_j \mid y, x_a),

    averaged over the parents counted, with no parent left falling back to naive Bayes on all
    the observed values, as Weka does. P are the Dirichlet posterior means of AODE (m-estimate:
    (n + m/S)/(n_block + m) for a block of S cells). A missing value is neither removed nor
    removes another. ``loo(X, y)`` is exact leave-one-out: without row i both N(x_i, x_j) and
    N(x_j) of its own values fall by one, so only the critical value's test changes,
    N(x_j) − 1 > C.

    References
    ----------
    .. [1] F. Zheng and G. I. Webb, "Efficient lazy elimination for averaged one-dependence
       estimators", *Proceedings of ICML 2006*, 1113–1120, 2006.

    Examples
    --------
    >>> from pgm_models import AODEsr, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = AODEsr(critical_value=3).fit(X, y)
    >>> removed = model.generalisations(X)  # every cool day has normal humidity
    >>> X.columns[removed.any(axis=0)].tolist()
    ['humidity']
    >>> int(removed.sum())
    4
    >>> model.predict_proba(X.iloc[[5]]).round(3)
    array([[0.766, 0.234]])
    """

    weights = "uniform"  # AODE's options that AODEsr does not take
    temperature = 1.0

    _small_numbers = operator.attrgetter(
        "alpha", "m", "critical_value", "frequency_limit"
    )  # checked by _count on the template's path

    def __init__(
        self,
        critical_value=50,
        frequency_limit=1,
        estimator="m-estimate",
        m=1.0,
        alpha=1.0,
        estimate="mean",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
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
        if type(value) in (int, float) and value >= 0:  # a plain number (NaN fails): no NumPy call on it
            return
        if isinstance(value, (bool, np.bool_)) or not (is_number(value) and np.isreal(value) and value >= 0):
            raise ValueError(f"critical_value must be a number ≥ 0 (Weka -C), got {value!r}")

    def _count(self, codes, class_index, weight):
        self._check_critical_value()
        super()._count(codes, class_index, weight)

    def _subsumes(self, removed):
        """(T + 1, T + 1) whether value cell t is a generalisation removed by cell s: N(s) −
        ``removed`` > C, N(t, s) = N(s), t and s of different attributes, and not (N(t) = N(s)
        and t's attribute first); the last row and column, a missing value, never.
        """
        self._check_critical_value()
        layout = self._layout
        pairs = self._value_counts(self.pair_count_, layout).sum(axis=0)  # (T, T) class-free N(t, s)
        frequency = np.diagonal(pairs)
        attribute = layout.attribute_of_value_cell
        mutual = (frequency[:, None] == frequency[None, :]) & (attribute[:, None] < attribute[None, :])
        subsumes = (
            (frequency - removed > self.critical_value)[None, :]
            & (pairs == frequency[None, :])
            & ~layout.same_attribute_mask()
            & ~mutual
        )
        return np.pad(subsumes, ((0, 1), (0, 1)))

    def generalisations(self, X):
        """(N, F) whether each value of X's rows is removed as a generalisation of another."""
        check_fitted(self, "classes_")
        return self._generalisations(self._encode(as_array_like(X), reset=False, training=False), 0)

    def _generalisations(self, codes, removed):
        cells = self._value_index(codes)
        return self._subsumes(removed)[cells[:, :, None], cells[:, None, :]].any(axis=2)

    def _parent_codes(self, codes, removed):
        if COMPILED_GENERALISATIONS and jit.loaded():  # F² tests a row, no T × T table (a small fold's cost)
            self._check_critical_value()
            return jit.kernels("pgm_models.semi_naive._aode_kernel").without_generalisations(
                self.pair_count_,
                self._layout.value_cells,
                self._layout.value_starts,
                jit.kernel_codes(np.asarray(codes)),
                float(self.critical_value),
                float(removed),
            )
        return np.where(self._generalisations(codes, removed), -1, codes)

    def _floats_per_row(self):
        """AODE's, and the F × F subsumption test of each row (booleans)."""
        return super()._floats_per_row() + self.n_features_in_**2 // 8 + 1
