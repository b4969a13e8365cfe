"""Exact leave-one-out cross-validation of the conjugate models, as ArviZ ``ELPDData``.

For a conjugate model the leave-one-out predictive p(y_i, x_i | D₋ᵢ) needs no refit and no
importance sampling: removing row i from the posterior is a downdate of its sufficient
statistics — Dirichlet concentrations minus the row's counts, a rank-one downdate of the
Normal–Inverse-Gamma / Normal–Inverse-Wishart posterior — and the exact posterior predictive of
the downdated posterior scores the row. Row i was counted only in its own class y_i, so

    log p(y = k, x_i | D₋ᵢ) = log (N_k − δ_k + c_k)/(N − 1 + Σc) + log p(x_i | y = k, D₋ᵢ),

where δ_k = 1{k = y_i}, c the class concentration, and p(x_i | y = k, D₋ᵢ) equals the full-data
predictive for every k ≠ y_i except where classes share a parameter (LDA's Σ). Two scores:

* ``conditional=True``: log p(y_i | x_i, D₋ᵢ) = the joint above normalised over k — the
  leave-one-out log loss of the classifier;
* ``conditional=False``: log p(y_i, x_i | D₋ᵢ), the joint (what PSIS-LOO estimates from draws
  of the rows-form PyMC model).

The result is an ``arviz.ELPDData`` like ``az.loo``'s, so ``az.compare`` ranks zoo models:
``elpd_loo`` = Σ_i loo_i, ``se`` = √(N Var(loo_i)), ``p_loo`` = lppd − elpd_loo with lppd the
same score under the full-data posterior, ``n_samples`` = 0 (nothing was sampled) and no
``pareto_k`` (no importance weights). LOO keeps what the fit fixed: attribute domains and any
data-scaled prior (the Gaussian models' default m0, s0²) are those of the full fit.
"""

from __future__ import annotations

import copy

import numpy as np
import xarray as xr
from sklearn.utils.validation import check_is_fitted

from pgm_models._utils.validation import as_array_like, check_labels, check_n_rows
from pgm_models.conjugate import log_probabilities, log_sum_exp
from pgm_models.conjugate.dirichlet import downdated_log_evidence, one_hot_log_predictive
from pgm_models.conjugate.normal import NormalInverseGamma, NormalInverseWishart

_WEIGHTED = " (weighted counts: a fit with sample_weight other than 1)"
_NEEDS_FITTED_ROWS = (
    "leave-one-out needs the very rows of the fit, each with weight 1 (leaving out a row of a fit with "
    "sample_weight would remove its weight, which this exact LOO does not do: refit without sample_weight)"
)


def _whole(counts) -> bool:
    return np.allclose(counts, np.round(counts), rtol=0, atol=1e-9)


def check_fitted_statistics(model, encoded, class_index):
    """Refuse rows whose sufficient statistics, each row counted with weight 1, are not the
    fitted ones: the exact LOO downdates the fitted posterior by each row, which is the LOO of
    these rows only if they are what was counted. The statistics are the model's own
    (``_statistics()``), so the check holds for any chunking, ``partial_fit`` or Dask fit; a
    fit with ``sample_weight`` other than 1 counts other statistics and is refused.
    """
    counter = copy.copy(model)  # the fitted priors and domains, fresh statistics
    for name in model._statistics():
        if hasattr(counter, name):
            delattr(counter, name)
    weight = np.ones(len(class_index))
    counter._init_counts(encoded, class_index, weight)
    counter.class_count_ = np.bincount(class_index, minlength=len(model.classes_)).astype(float)
    counter._count(encoded, class_index, weight)
    fitted, counted = model._statistics(), counter._statistics()
    for name, value in fitted.items():
        if (
            value is None and counted.get(name) is None
        ):  # a statistic the data do not need (A2DE's triples of < 3 attributes)
            continue
        value, other = np.asarray(value, dtype=float), np.asarray(counted.get(name), dtype=float)
        # counts are whole numbers; moments merged in another order differ by rounding only
        scale = np.max(np.abs(value), initial=1.0)
        if value.shape != other.shape or not np.allclose(value, other, rtol=1e-9, atol=1e-9 * scale):
            weighted = any(not _whole(v) for n, v in fitted.items() if n.endswith("count_") and v is not None)
            raise ValueError(
                f"the rows (X, y), each counted with weight 1, do not give the fitted {name}"
                f"{_WEIGHTED if weighted else ' (other rows than the fit, or a fit with sample_weight)'}: {_NEEDS_FITTED_ROWS}"
            )


class ExactLOO:
    """Mixin adding ``loo`` to a conjugate estimator. The estimator provides
    ``_loo_own_class(encoded, class_index)``: (N,) log p(x_i | y_i, D₋ᵢ), or overrides
    ``_loo_features``.
    """

    def loo(self, X, y, conditional=True):
        r"""Exact leave-one-out cross-validation of the rows the model was fitted on.

        For a conjugate model the leave-one-out predictive p(y_i, x_i | D₋ᵢ) needs no refit and no
        importance sampling: removing row i is a downdate of the sufficient statistics (Dirichlet
        concentrations minus the row's counts, a rank-one downdate of the Normal–Inverse-Gamma/-Wishart
        posterior), and the exact posterior predictive of the downdated posterior scores the row. All
        rows are done in one vectorised pass. The result is an ``arviz.ELPDData`` like ``az.loo``'s, so
        ``az.compare`` (or :func:`pgm_models.compare_loo`) ranks models by it. A fixed
        ``class_prior`` is not applied: LOO scores the fitted posterior at the training rows'
        prevalences.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training rows, exactly those of the fit (each fitted with weight 1).
        y : array-like of shape (n_samples,)
            Their labels.
        conditional : bool, default=True
            Score log p(y_i | x_i, D₋ᵢ), the leave-one-out log loss of the classifier; False: the joint
            log p(y_i, x_i | D₋ᵢ), what PSIS-LOO estimates from draws of the rows-form PyMC model.

        Returns
        -------
        arviz.ELPDData
            ``elpd_loo`` = Σ_i loo_i, its ``se`` = √(N Var(loo_i)), ``p_loo`` = lppd − elpd_loo (lppd the
            same score under the full-data posterior), and the pointwise ``loo_i`` over ``row``;
            ``n_samples`` is 0 (nothing was sampled) and there is no ``pareto_k``.

        Raises
        ------
        ValueError
            If the rows' sufficient statistics (each row counted with weight 1) are not the fitted
            ones: other rows, or a fit with ``sample_weight``.

        Notes
        -----
        Row i was counted only in its own class y_i, so for a Dirichlet class prior with concentration c

        .. math::

            \log p(y = k, x_i \mid D_{-i}) = \log\frac{N_k - \delta_k + c_k}{N - 1 + \sum c}
            + \log p(x_i \mid y = k, D_{-i}), \qquad \delta_k = 1\{k = y_i\}.

        Attribute domains and any data-scaled prior (the Gaussian models' default m0, s0²) stay those
        of the full fit.

        References
        ----------
        .. [1] A. Vehtari, A. Gelman and J. Gabry, "Practical Bayesian model evaluation using
           leave-one-out cross-validation and WAIC", *Statistics and Computing* 27(5), 1413–1432, 2017.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB(n_categories=3).fit(X, y)
        >>> result = model.loo(X, y)
        >>> round(float(result.elpd_loo), 3)
        -3.22
        >>> result.loo_i.values.round(3)
        array([-0.968, -0.597, -0.307, -0.732, -0.307, -0.307])
        """
        if self.class_prior is not None:  # LOO scores the fitted posterior, at the training prevalences
            return copy.copy(self).set_params(class_prior=None).loo(X, y, conditional)
        encoded, class_index = self._loo_rows(X, y)
        full, left_out = self._loo_log_joint(encoded, class_index, all_classes=conditional)
        if conditional:
            full, left_out = own_conditional(full, class_index), own_conditional(left_out, class_index)
        return elpd_data(left_out, full.sum())

    def _loo_rows(self, X, y):
        """(encoded X, class index) of the fitted rows, checked to be the very rows of the fit."""
        check_is_fitted(self, "classes_")
        labels = check_labels(y, self)
        X = as_array_like(X)
        check_n_rows(np.shape(X)[0], len(labels))
        class_index = self._class_index(labels)
        counted = np.bincount(class_index, minlength=len(self.classes_))
        if not np.allclose(counted, self.class_count_, rtol=0, atol=1e-9):
            raise ValueError(
                f"y has class counts {counted.tolist()} but the model was fitted on {self.class_count_.tolist()}"
                f"{_WEIGHTED if not _whole(self.class_count_) else ''}: {_NEEDS_FITTED_ROWS}"
            )
        encoded = self._encode(X, reset=False, training=True)
        check_fitted_statistics(self, encoded, class_index)
        return encoded, class_index

    def _loo_log_joint(self, encoded, class_index, all_classes):
        """(log p(y = k, x_i | D), log p(y = k, x_i | D₋ᵢ)): each (N, K) over the classes, or (N,)
        at k = y_i when not ``all_classes``. The class term of the left-out row is
        log (N_k − δ_k + c_k)/(N − 1 + Σc).
        """
        return self._with_class_terms(*self._loo_features(encoded, class_index, all_classes), class_index, all_classes)

    def _with_class_terms(self, features, left_features, class_index, all_classes):
        """``_loo_log_joint`` from the features' full-data and leave-one-out log predictives
        (``features`` and ``left_features`` are overwritten).
        """
        class_log = log_probabilities(self._class_prior.estimate(self.class_count_, "predictive"))
        concentration = self.class_concentration_
        rest = np.log(concentration.sum() - 1)
        own = log_probabilities(np.maximum(concentration[class_index] - 1, 0.0)) - rest
        if not all_classes:
            return class_log[class_index] + features, own + left_features
        rows = np.arange(len(class_index))
        own += left_features[rows, class_index]
        left_features += log_probabilities(concentration) - rest  # in place: (N, K) temporaries cost page faults
        left_features[rows, class_index] = own
        features += class_log
        return features, left_features

    def _loo_features(self, encoded, class_index, all_classes):
        """(log p(x_i | y = k, D), log p(x_i | y = k, D₋ᵢ)), shaped as ``_loo_log_joint``'s.
        Features with a parameter per class: only class y_i's predictive changes, to the
        downdated ``_loo_own_class``.
        """
        features = self._feature_log_likelihood(encoded, "predictive")
        return left_out_own_class(
            features if all_classes else own_column(features, class_index),
            self._loo_own_class(encoded, class_index),
            class_index,
        )


def left_out_own_class(features, own, class_index):
    """(features, features with column y_i of each row replaced by ``own``); (N,) features are
    column y_i already, replaced whole.
    """
    if features.ndim == 1:
        return features, own
    left_out = features.copy(order="K")
    left_out[np.arange(len(class_index)), class_index] = own
    return features, left_out


def own_column(scores, class_index):
    """Column y_i of each row of (N, K) ``scores``."""
    return scores[np.arange(len(class_index)), class_index]


def own_conditional(joint, class_index):
    """Log p(y_i | x_i) = log p(y_i, x_i) − log Σ_k p(k, x_i), from (N, K) joint log scores."""
    return own_column(joint, class_index) - log_sum_exp(joint, axis=1)


def elpd_data(pointwise, lppd, n_samples=0, pareto_k=None, good_k=None):
    """``arviz.ELPDData`` as ``az.loo(pointwise=True)`` builds it: elpd_loo = Σ loo_i, se =
    √(N Var(loo_i)), p_loo = lppd − elpd_loo; ``pareto_k`` (and the warning when a k exceeds
    ``good_k``) only where importance weights were used.
    """
    from arviz.stats.stats_utils import ELPDData

    elpd, n = pointwise.sum(), len(pointwise)
    rows = {"row": np.arange(n)}
    data = {
        "elpd_loo": elpd,
        "se": np.sqrt(n * np.var(pointwise)),
        "p_loo": lppd - elpd,
        "n_samples": n_samples,
        "n_data_points": n,
        "warning": False,
        "loo_i": xr.DataArray(pointwise, dims="row", coords=rows, name="loo_i"),
    }
    if pareto_k is not None:
        data.update(
            warning=bool(np.any(pareto_k > good_k)),
            pareto_k=xr.DataArray(pareto_k, dims="row", coords=rows, name="pareto_shape"),
        )
    data["scale"] = "log"
    if pareto_k is not None:
        data["good_k"] = good_k
    return ELPDData(data=list(data.values()), index=list(data))


class DirichletLOO(ExactLOO):
    """Exact LOO of a model whose feature parameters are Dirichlet blocks, one row per class of
    ``feature_concentration_`` (blocks ``_loo_blocks``). A model whose rows hold one count per
    block (categorical attributes) gives ``_loo_codes``: each row's position in every block, −1
    where unobserved, scored by ``one_hot_log_predictive`` in one pass. Otherwise the row's
    counts in that layout (``_loo_design``) are taken off its own class and its
    Dirichlet–multinomial evidence is the downdated predictive.
    """

    def _loo_blocks(self):
        return self._feature_blocks()

    def _loo_codes(self, encoded):
        return None  # not one count per block

    def _loo_design(self, encoded):
        return self._design(encoded)

    def _loo_concentration(self):
        concentration = self.feature_concentration_
        return concentration.reshape(len(concentration), -1)

    def _loo_features(self, encoded, class_index, all_classes):
        codes = self._loo_codes(encoded)
        if codes is None:
            return super()._loo_features(encoded, class_index, all_classes)
        return left_out_own_class(
            *one_hot_log_predictive(self._loo_concentration(), self._loo_blocks(), codes, class_index, all_classes),
            class_index,
        )

    def _loo_own_class(self, encoded, class_index):
        return downdated_log_evidence(
            self._loo_concentration(), self._loo_blocks(), self._loo_design(encoded), class_index
        )


class GaussianLOO(ExactLOO):
    """Exact LOO of the Gaussian models: the one-row downdate of the Normal–Inverse-Gamma
    posterior of the row's class (naive Bayes) or of the Normal–Inverse-Wishart posterior (LDA's
    shared Σ moves every class's predictive, so all K columns are recomputed).
    """

    def _loo_features(self, X, class_index, all_classes):
        posterior = self.posterior_
        if not isinstance(posterior, NormalInverseWishart):
            return super()._loo_features(X, class_index, all_classes)
        features = self._feature_log_likelihood(X, "predictive")
        left_out = posterior.leave_one_out_log_predictive(X, class_index)
        return (
            (features, left_out)
            if all_classes
            else (own_column(features, class_index), own_column(left_out, class_index))
        )

    def _loo_own_class(self, X, class_index):
        posterior = self.posterior_
        own = NormalInverseGamma(*(v[class_index] for v in (posterior.m, posterior.kappa, posterior.a, posterior.b)))
        return own.downdate(X).log_predictive(X).sum(axis=1)


def compare_loo(results: dict):
    """Rank models by their exact leave-one-out predictive accuracy.

    ``arviz.compare`` of exact-LOO results (from each model's ``loo(X, y)`` on the same rows):
    elpd_loo ± se, the difference to the best model and its standard error, and stacking weights.

    Parameters
    ----------
    results : dict
        {name: arviz.ELPDData} of the models' ``loo`` results; every result must score the same
        rows.

    Returns
    -------
    pandas.DataFrame or None
        ``az.compare``'s table, best model first; None with fewer than two models.

    See Also
    --------
    compare_models : Compares models on a held-out test set instead.

    References
    ----------
    .. [1] A. Vehtari, A. Gelman and J. Gabry, "Practical Bayesian model evaluation using
       leave-one-out cross-validation and WAIC", *Statistics and Computing* 27(5), 1413–1432, 2017.

    Examples
    --------
    >>> from pgm_models import CategoricalNB, TAN, compare_loo, load_dataset
    >>> X, y = load_dataset("weather.nominal")
    >>> results = {name: model.fit(X, y).loo(X, y) for name, model in {"nb": CategoricalNB(), "tan": TAN()}.items()}
    >>> table = compare_loo(results)
    >>> table[["rank", "elpd_loo"]].round(3)
         rank  elpd_loo
    tan     0    -9.769
    nb      1   -10.299
    """
    import arviz as az

    if len(results) < 2:
        return None
    return az.compare(results, ic="loo")
