"""WAODE: weightily averaged one-dependence estimators (Jiang & Zhang 2006), as in Weka 3.6.

AODE's SPODEs averaged with weights w_a = I(X_a; Y), the empirical mutual information between
the super-parent and the class:

    p(y, x) ∝ Σ_a w_a P(y, x_a) Π_{j≠a} P(x_j | y, x_a) / Σ_a w_a,
    I(X_a; Y) = Σ_{k,v} p̂(k, v) log p̂(k, v) / (p̂(k) p̂(v)),  p̂ = N(y = k, x_a = v) / N_a,

the relative frequencies (maximum likelihood, whatever ``estimate`` the SPODEs use) on the N_a
rows with x_a observed. Weka uses every parent (no frequency limit) and the m-estimate with m = 1,
so ``WAODE()`` reproduces ``weka.classifiers.bayes.WAODE`` (Weka's log base 2 scales every weight
alike, which the average cancels).

Missing values, which Weka's WAODE refuses: as in AODE, a missing value is skipped as parent and
as child and the mutual information is counted on the available cases; a row whose observed
parents all have weight 0 falls back to naive Bayes, and when every attribute's weight is 0 (no
attribute tells anything of the class) the weights are uniform, AODE.

``loo(X, y)`` is exact leave-one-out: the weights too are recomputed without the row (its own
cell of each (class, x_a) table one count less).
"""

from __future__ import annotations

import operator

import numpy as np
from scipy.special import xlogy

from pgm_models._utils import jit
from pgm_models.semi_naive._small import SmallAveragedFolds
from pgm_models.semi_naive.aode import AODE

# Compute the weights by the compiled loop of ``_waode_kernel`` once numba is loaded in the process
# (``jit.loaded``). False: always the NumPy path (``mutual_information``).
COMPILED_WEIGHTS = True


class WAODE(SmallAveragedFolds, AODE):
    r"""Weightily averaged one-dependence estimators.

    WAODE averages the :class:`SPODE` models of every attribute like :class:`AODE`, but weights
    each by the empirical mutual information I(X_a; Y) of its super-parent with the class, so that
    the parents that tell most of the class count most. ``WAODE()`` reproduces Weka 3.6's
    ``weka.classifiers.bayes.WAODE``; unlike Weka's it accepts missing values.

    Parameters
    ----------
    estimator : {"m-estimate", "laplace"}, default="m-estimate"
        The m-estimate (Weka's, with m = 1) or Laplace's estimate.
    m : float, default=1.0
        The m-estimate's weight in pseudo-rows (Weka: 1).
    alpha : float or "evidence", default=1.0
        The Laplace pseudo-count of every cell, for ``estimator="laplace"``; "evidence": one per
        SPODE, each its SPODE's marginal-likelihood maximum, as in :class:`AODE` (``alpha_``).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters every SPODE plugs in ("predictive" equals "mean"). The weights always use
        the relative frequencies.
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
        cells s and t of two attributes (T' = Σ_j (r_j + 1)); its diagonal holds the single counts
        N(y = k, x_a = v) from which the weights are computed (:meth:`mutual_information`).
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
    AODE : The same SPODEs with equal (or evidence) weights.
    AODEsr : AODE that removes the generalisations from each row.
    HNB : Weights each attribute's parents by conditional mutual information instead.
    SPODE : One member of the average.
    CategoricalNB : The fallback when no parent has positive weight.

    Notes
    -----
    The prediction averages every observed parent a (no frequency limit, as Weka) with weight
    w_a = I(X_a; Y):

    .. math::

        p(y, x) \propto \frac{\sum_a w_a P(y, x_a) \prod_{j \ne a} P(x_j \mid y, x_a)}{\sum_a w_a}.

    With n_kv = N(y = k, x_a = v) on the N_a rows observing x_a, n_k and n_v its margins,

    .. math::

        I(X_a; Y) = \sum_{k, v} \frac{n_{kv}}{N_a} \log \frac{n_{kv} N_a}{n_k n_v}

    in nats (Weka's log base 2 scales every weight alike, which the average cancels). The SPODEs'
    estimates are AODE's Dirichlet posterior means (m-estimate:
    P(y, x_a) = (n_kv + m/(K r_a))/(N_a + m), P(x_j | y, x_a) = (n + m/r_j)/(n_kv' + m)).

    Missing values: a missing value is skipped as parent and as child, and the mutual
    information is counted on the available cases; a row whose observed parents all have weight 0
    falls back to naive Bayes, and when every weight is 0 the weights are uniform (AODE).
    ``loo(X, y)`` is exact leave-one-out: the weights too are recomputed without the row.

    References
    ----------
    .. [1] L. Jiang and H. Zhang, "Weightily averaged one-dependence estimators", *PRICAI 2006*,
       LNAI 4099, 970–974, 2006.

    Examples
    --------
    >>> from pgm_models import WAODE, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> model = WAODE().fit(X, y)
    >>> model.mutual_information().round(4)  # outlook, temperature, humidity, windy
    array([0.171 , 0.0203, 0.1052, 0.0334])
    >>> model.classes_
    array(['no', 'yes'], dtype=object)
    >>> model.predict_proba(X[:1]).round(4)
    array([[0.9452, 0.0548]])
    """

    weights = "uniform"  # AODE's options that WAODE does not take: its weights are its own
    temperature = 1.0
    frequency_limit = 0  # every observed parent, as Weka

    _small_numbers = operator.attrgetter("alpha", "m", "frequency_limit")  # checked by _count on the template's path

    def __init__(
        self,
        estimator="m-estimate",
        m=1.0,
        alpha=1.0,
        estimate="mean",
        n_categories=None,
        handle_unknown="missing",
        class_prior=None,
    ):
        self.estimator = estimator
        self.m = m
        self.alpha = alpha
        self.estimate = estimate
        self.n_categories = n_categories
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior

    def _class_value_tables(self):
        """Every attribute's (K, r_a) table N(y = k, x_a = v), as one (K, T) array of value cells."""
        return self._diagonal_counts()

    def mutual_information(self):
        """I(X_a; Y) in nats for every attribute a (F,), on the rows with x_a observed: Σ_kv
        n_kv log(n_kv N_a / (n_k n_v)) / N_a, term by term (the entropies' difference cancels to
        rounding for a nearly independent attribute).
        """
        diagonal = self._class_value_tables()  # (K, T)
        attribute, n_features = self._layout.attribute_of_value_cell, len(self._layout.sizes)
        by_class = np.stack([np.bincount(attribute, row, n_features) for row in diagonal])  # (K, F) n_k of each table
        total = by_class.sum(axis=0)  # (F,) N_a
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = diagonal * total[attribute] / (by_class[:, attribute] * diagonal.sum(axis=0))
        terms = xlogy(diagonal, np.where(diagonal > 0, ratio, 1.0)).sum(axis=0)
        with np.errstate(invalid="ignore"):
            return np.where(total > 0, np.maximum(np.bincount(attribute, terms, n_features) / total, 0.0), 0.0)

    def _attribute_sums(self, diagonal):
        """Per attribute (F,): Σ n log n of its cells, of its class totals, of its value totals,
        and N_a; ``diagonal`` (K, T) its tables.
        """
        attribute = self._layout.attribute_of_value_cell
        n_features = len(self._layout.sizes)
        cells = np.bincount(attribute, xlogy(diagonal, diagonal).sum(axis=0), n_features)
        values = np.bincount(attribute, xlogy(diagonal.sum(axis=0), diagonal.sum(axis=0)), n_features)
        by_class = np.stack([np.bincount(attribute, row, n_features) for row in diagonal])  # (K, F)
        total = by_class.sum(axis=0)
        return cells, xlogy(by_class, by_class).sum(axis=0), values, total

    @staticmethod
    def _information(cells, classes, values, total_log_total, total):
        """I = (Σ n log n − Σ n_k log n_k − Σ n_v log n_v + N log N) / N, 0 for an empty table and
        never below 0 (the four sums cancel to rounding where X_a and Y are independent).
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            information = (cells - classes - values + total_log_total) / total
        return np.where(total > 0, np.maximum(information, 0.0), 0.0)

    def _log_weights(self):
        if COMPILED_WEIGHTS and jit.loaded():  # one call, not some twenty NumPy calls (a small fold's cost)
            layout = self._layout
            return jit.kernels("pgm_models.semi_naive._waode_kernel").waode_log_weights(
                self.pair_count_, layout.value_cells, layout.value_starts, layout.sizes
            )
        with np.errstate(divide="ignore"):  # an attribute with no information has weight 0
            return self._uniform_if_none(np.log(self.mutual_information()))

    @staticmethod
    def _uniform_if_none(log_weights):
        """Log w (..., F); where every weight of a set is 0 (log −inf), uniform weights instead."""
        none = np.isneginf(log_weights).all(axis=-1, keepdims=True)
        return np.where(none, 0.0, log_weights)

    def _loo_log_weights(self, codes, class_index):
        """Log I(X_a; Y) without each row (N, F): the row's own cell, class total, value total and
        total of each table one less, where it observes x_a.
        """
        diagonal = self._class_value_tables()
        cells_sum, classes_sum, values_sum, total = self._attribute_sums(diagonal)
        layout = self._layout
        cells = self._value_index(codes)  # (N, F)
        observed = cells < len(layout.value_cells)
        cell = np.where(observed, cells, 0)
        own = diagonal[class_index[:, None], cell]  # n(y_i, x_ia)
        value_total = diagonal.sum(axis=0)[cell]
        class_total = np.stack(
            [np.bincount(layout.attribute_of_value_cell, row, len(layout.sizes)) for row in diagonal]
        )[class_index]

        def less_one(n):  # (n − 1) log (n − 1) − n log n: one count fewer
            return xlogy(n - 1, n - 1) - xlogy(n, n)

        downdated = self._information(
            cells_sum + less_one(own),
            classes_sum + less_one(class_total),
            values_sum + less_one(value_total),
            xlogy(total - 1, total - 1),
            total - 1.0,
        )
        full = np.broadcast_to(self.mutual_information(), observed.shape)
        with np.errstate(divide="ignore"):
            return self._uniform_if_none(np.log(np.where(observed, downdated, full)))
