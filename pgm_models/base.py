"""The estimator base class every classifier of the zoo derives from.

A model of the zoo is p(y, x | θ) = p(y | π) p(x | y, φ) with π ~ Dirichlet(class_alpha) and a
conjugate prior on φ. The base class owns what is common — class labels, the class-probability
posterior, the choice of point estimate, the scikit-learn prediction API, the Bayes decision
rule and the bridges to PyMC and ArviZ — and asks its subclass for the feature part through a
small template (the shape of scikit-learn's ``naive_bayes.py``):

``_encode(X, reset, training)``
    validate X and return the representation the counting and scoring use (``training``: the
    rows will be counted or observed, so nothing in them may be dropped);
``_init_counts(Xe, class_index, weight)`` / ``_count(Xe, class_index, weight)``
    allocate the feature sufficient statistics (and any data-scaled prior) from the first
    batch, then accumulate them;
``_feature_log_likelihood(Xe, estimate)``
    (N, K) log p(x_n | y = k) under the chosen estimate (exact posterior predictive for
    "predictive");
``_feature_posterior()``
    {name: (closed-form posterior, dims)} of the feature parameters;
``_coords()``, ``_counts_model(model)``, ``_rows_model(model, Xe, class_index)``
    the PyMC model's coordinates and its two observation forms.

The hooks a concrete class needs follow from its flags (``_generative``, ``_closed_form``,
``_pymc_model``); a class that lacks one fails when it is defined, not at its first fit. A class
that only shares code with its subclasses says so with ``_template = True`` in its body.

The engines (``pgm_models.dask_engine``, ``pgm_models.inference``) know a model through these
hooks and the ones below alone, so a new family gets Dask, sampling and verification without
teaching them its name:

``_statistics()`` / ``_statistics_merger()``
    the mergeable sufficient statistics (by default every fitted attribute ending in
    ``count_``) and the picklable function that merges two of them (by default, addition);
``_after_merged_statistics(first_fit)``
    what a fit derives from the whole data's merged statistics (a data-scaled prior);
``_learn_hyperparameters()``
    evidence-learned hyperparameters, recomputed from the statistics;
``_needs_declared_domains``
    whether the attributes' domains must be known before counting (categorical attributes);
``_without_auxiliary_draws(posterior)``
    the draws with the PyMC model's auxiliary variables removed;
``_components()``
    the models an average is made of (AODE's SPODEs), summarised one by one;
``_nutpie_low_rank``
    the mass matrix NUTS adapts.
"""

from __future__ import annotations

import functools
import math
import sys
from abc import ABCMeta, abstractmethod

import numpy as np
import pandas as pd
import xarray as xr
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from pgm_models.conjugate.blocks import with_stacked_draws, without_groups
from pgm_models._utils.frames import categorical_codes, index_values
from pgm_models._utils.param_names import ParamNamesOnce
from pgm_models._utils.scores import add_per_class, subtract_per_row
from pgm_models._utils.shared_priors import shared_prior
from pgm_models._utils.validation import (
    as_array_like,
    check_concentration,
    check_fitted,
    check_labels,
    check_n_draws,
    check_n_rows,
    check_names_apart,
    check_unique_columns,
    check_sample_weight,
    sorted_classes,
)
from pgm_models.conjugate.dirichlet import check_estimate
from pgm_models.conjugate import Dirichlet, PosteriorDraw, log_probabilities
from pgm_models._utils.decision import bayes_decision

FORMS = ("counts", "rows")
# Rows are scored in blocks whose temporaries hold about this many floats (8 MB): small enough
# that later blocks reuse the first one's memory instead of faulting in fresh pages.
FLOATS_PER_BLOCK = 1_000_000


class Marginal:
    """One variable of a joint closed-form posterior (e.g. μ of a Normal–Inverse-Gamma), read
    off by name from the joint's dict-valued mean(), sd(), mode() and sample()."""

    def __init__(self, joint, name: str):
        self.joint, self.name = joint, name

    def mean(self):
        """Posterior mean of every entry."""
        return self.joint.mean()[self.name]

    def sd(self):
        """Posterior standard deviation of every entry."""
        return self.joint.sd()[self.name]

    def mode(self):
        """Posterior mode of every entry."""
        return self.joint.mode()[self.name]

    def sample(self, size, random_state=None):
        """``size`` exact posterior draws."""
        return self.joint.sample(size, random_state)[self.name]

    def marginal_distribution(self, index: tuple):
        """The exact marginal distribution of the entry at ``index`` (a scipy frozen distribution)."""
        return self.joint.marginal_distribution(index, self.name)

    def sample_entry(self, index: tuple, size, random_state=None):
        """``size`` exact draws of the one entry at ``index`` (where its marginal has no standard form)."""
        return self.joint.sample_entry(index, self.name, size, random_state)

    def excess_kurtosis(self):
        """Excess kurtosis of every entry's marginal (NaN where it has no standard form)."""
        return self.joint.excess_kurtosis()[self.name]

    def tail_index(self):
        """How many moments every entry's marginal has (inf for all)."""
        return self.joint.tail_index()[self.name]

    def in_support(self, values, atol: float):
        """Whether each draw lies in the posterior's support, within ``atol``."""
        return self.joint.in_support(values, self.name, atol)

    def covariance_groups(self):
        """The joint's groups of correlated entries of this variable, if it defines them."""
        groups = getattr(self.joint, "covariance_groups", None)
        return None if groups is None else groups(self.name)


def _is_generative(estimator) -> bool:
    return estimator._generative


def _has_closed_form(estimator) -> bool:
    return estimator._closed_form


def _has_pymc_model(estimator) -> bool:
    return estimator._pymc_model


def _dask_aware(method):
    """Hand a dask collection X to the same-named function of ``pgm_models.dask_engine``
    (imported only when dask already is: otherwise X cannot be a dask collection)."""

    @functools.wraps(method)
    def dispatch(self, X, *args, **kwargs):
        if "dask" in sys.modules and sys.modules["dask"].is_dask_collection(X):
            from pgm_models import dask_engine

            return getattr(dask_engine, method.__name__)(self, X, *args, **kwargs)
        return method(self, X, *args, **kwargs)

    return dispatch


def add_statistics(a: dict, b: dict) -> dict:
    """Count statistics merged: they add."""
    return {name: value + b[name] for name, value in a.items()}


def _required_hooks(cls) -> list[str]:
    hooks = ["_encode"]
    if cls._generative:
        hooks += ["_init_counts", "_count"]
        if cls._joint_log_likelihood is BayesianClassifier._joint_log_likelihood:
            hooks.append("_feature_log_likelihood")
    if cls._closed_form and cls._parameters is BayesianClassifier._parameters:
        hooks.append("_feature_posterior")
    if cls._pymc_model:
        hooks.append("_coords")
        if cls.pymc_model is BayesianClassifier.pymc_model:
            hooks += ["_counts_model", "_rows_model"]
    return hooks


class BayesianClassifier(ParamNamesOnce, ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Generative classifier with a Dirichlet(class_alpha) prior on the class probabilities.

    A discriminative subclass (``_generative = False``) models only p(y | x): it has no
    sufficient statistics to add to (``partial_fit``), no p(x, y) and no closed form, and those
    methods are absent from it.
    """

    _generative = True
    _closed_form = True  # analytic_posterior and exact posterior_draws
    _pymc_model = True  # pymc_model, sample_posterior and find_map
    # the mass matrix nutpie adapts under sampler="nutpie-numba": a diagonal plus a low-rank part
    # (the posterior's correlated directions) unless a subclass's posterior needs only the diagonal,
    # which is cheaper per step, in tuning most (BENCHMARKS.md, "ESS per second: the mass matrix per model")
    _nutpie_low_rank = True
    _needs_declared_domains = False
    _template = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("_template", False):
            return
        missing = [hook for hook in _required_hooks(cls) if not callable(getattr(cls, hook, None))]
        if missing:
            raise TypeError(f"{cls.__name__} lacks the template hooks {missing} of pgm_models.base.BayesianClassifier "
                            "(or mark a class that only shares code with _template = True)")

    @abstractmethod
    def _encode(self, X, reset: bool, training: bool = False):
        """X validated and in the representation counting and scoring read."""

    # ------------------------------------------------------------------ engine hooks
    def _statistics(self) -> dict:
        """The mergeable sufficient statistics: every fitted attribute ending in ``count_``."""
        return {name: value for name, value in vars(self).items() if name.endswith("count_")}

    def _statistics_merger(self):
        """A picklable function merging two ``_statistics()`` dicts of this model."""
        return add_statistics

    def _after_merged_statistics(self, first_fit: bool) -> None:
        """Hook: derive what needs the whole data's merged statistics (nothing by default)."""

    def _learn_hyperparameters(self) -> None:
        """Hook: recompute evidence-learned hyperparameters (none by default)."""

    def _components(self):
        """Hook for an average of models: (the column naming a component, [(name, weight, maker of
        the component model)]) for ``posterior_summary``; None for a single model."""
        return None

    def _without_auxiliary_draws(self, posterior):
        """The draws of the model's named variables, each once (the stacked Dirichlet groups left out)."""
        return without_groups(posterior)

    # ------------------------------------------------------------------ fitting
    @_dask_aware
    def fit(self, X, y, sample_weight=None):
        """Fit the closed-form posterior from the sufficient statistics of (X, y)."""
        labels = self._start_fit(y)
        return self._partial_fit(X, labels, self._declared_classes(y, labels), sample_weight)

    def _start_fit(self, y) -> np.ndarray:
        """Forget any earlier fit and return y's labels, checked to be a classification target."""
        for attribute in [a for a in vars(self) if a.endswith("_") and not a.startswith("_")]:
            delattr(self, attribute)
        labels = check_labels(y, self, categorical=True)
        # a Categorical declares its classes, of any type; 1-D integers and booleans are always
        # classes (scikit-learn's check would find their distinct values again)
        if not isinstance(getattr(y, "dtype", None), pd.CategoricalDtype) and labels.dtype.kind not in "iub":
            check_classification_targets(labels)
        return labels

    @available_if(_is_generative)
    @_dask_aware
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch to the sufficient statistics; ``classes`` is needed on the first call
        (unless y is a pandas Categorical, whose categories are the classes)."""
        labels = check_labels(y, self, categorical=True)
        if not hasattr(self, "classes_"):
            if classes is None:
                if not isinstance(getattr(y, "dtype", None), pd.CategoricalDtype):
                    raise ValueError("the first call to partial_fit needs classes= (all class labels)")
                classes = self._declared_classes(y, labels)
            elif len(np.unique(classes)) != len(classes):  # a Categorical's categories are distinct by construction
                raise ValueError(f"classes has repeated labels: {list(classes)}")
            return self._partial_fit(X, labels, sorted_classes(classes), sample_weight)
        if classes is not None and not np.array_equal(sorted_classes(classes), self.classes_):
            raise ValueError(f"classes={list(classes)} differs from classes_ {self.classes_.tolist()} of the first call")
        return self._partial_fit(X, labels, None, sample_weight)

    @staticmethod
    def _declared_classes(y, labels):
        """The class domain, sorted: a Categorical's declared categories, else the observed labels."""
        if isinstance(getattr(y, "dtype", None), pd.CategoricalDtype):
            return sorted_classes(index_values(y.dtype.categories))
        return np.sort(pd.unique(labels))  # hashing then sorting K values: np.unique sorts all N labels (BENCHMARKS.md, 'Against scikit-learn')

    def _partial_fit(self, X, labels, classes, sample_weight):
        """Count a batch; ``classes``: the class domain, already in ``sorted_classes`` order, on the
        first batch (None after it)."""
        X = as_array_like(X)
        check_estimate(self.estimate)
        check_n_rows(_n_rows(X), len(labels))
        weight = check_sample_weight(sample_weight, len(labels))
        reset = classes is not None
        class_alpha = self._class_concentration(len(classes)) if reset else None
        self._fit_weight = weight  # seen by _encode (observed domains, weightless rows)
        try:
            encoded = self._encode(X, reset=reset, training=True)
        finally:
            del self._fit_weight
        if reset:
            self.classes_ = classes
            self.class_count_ = np.zeros(len(classes))
            # every fit with these classes and class_alpha has this prior: made once (pgm_models._utils.shared_priors)
            self._class_prior = shared_prior(("class", len(classes), class_alpha.shape, class_alpha.tobytes()),
                                             lambda: Dirichlet(np.broadcast_to(class_alpha.copy(), (len(classes),))), self)
        class_index = self._class_index(labels)
        if reset:
            self._init_counts(encoded, class_index, weight)
        self.class_count_ = self.class_count_ + np.bincount(class_index, weight, len(self.classes_))
        self._count(encoded, class_index, weight)
        self.class_concentration_ = self._class_prior.posterior(self.class_count_).concentration
        return self

    def _class_concentration(self, n_classes: int) -> np.ndarray:
        """Dirichlet concentration of the class probabilities."""
        return check_concentration(self.class_alpha, "class_alpha", n_classes, "class")

    def _class_index(self, labels) -> np.ndarray:
        """Each label's position in ``classes_``; ``labels`` an array or a pandas Categorical
        (``check_labels(categorical=True)``)."""
        # each distinct label looked up once: get_indexer on N labels converts and hashes every
        # one against the classes' index, far slower than factorize (BENCHMARKS.md, 'Against
        # scikit-learn'); a Categorical's distinct labels are its categories, its codes their positions
        if isinstance(labels, pd.Categorical):
            # the categories as an array, as classes_ is one (a datetime64[ns] Index lists Timestamps, its array ints)
            codes, distinct = categorical_codes(labels), index_values(labels.categories)  # its own codes, only read
            # K labels compared as lists (an object array's == and all() are slower)
            if distinct.dtype == self.classes_.dtype and distinct.tolist() == self.classes_.tolist():
                return codes.astype(np.intp)  # categories declared in the classes' order: the codes are the indices
        else:
            codes, distinct = pd.factorize(labels)
        position = {label: k for k, label in enumerate(self.classes_.tolist())}  # K labels: a dict, not an Index (building an Index costs more)
        index = np.array([position.get(label, -1) for label in distinct.tolist()], dtype=np.intp)[codes]
        if np.any(index < 0):
            unknown = labels[index < 0][:1].tolist()[0]
            raise ValueError(f"y has label {unknown!r}, which is not among classes_ {self.classes_.tolist()}")
        return index

    def _class_label(self, k: int):
        """Class k's label as a plain Python value (for messages)."""
        return self.classes_[k : k + 1].tolist()[0]

    def _check_feature_names(self, X, reset: bool):
        """Set or check n_features_in_ / feature_names_in_; a DataFrame whose columns are the
        fitted ones in another order is matched by name."""
        if not isinstance(X, pd.DataFrame) and not hasattr(X, "toarray") and np.ndim(X) != 2:
            raise ValueError(
                f"Expected a 2-D X (rows × features), got {np.ndim(X)}-D. Reshape your data: X.reshape(-1, 1) "
                "for a single feature or X.reshape(1, -1) for a single row"
            )
        if (len(X.columns) if isinstance(X, pd.DataFrame) else np.shape(X)[1]) == 0:  # np.shape of a frame is slower
            raise ValueError(f"X has 0 feature(s) (shape={np.shape(X)}) while a minimum of 1 is required.")
        fitted_columns = getattr(self, "_fitted_columns", None)
        if not reset and fitted_columns is not None and isinstance(X, pd.DataFrame) and X.columns.is_(fitted_columns):
            return X  # the very columns checked in fit (a row slice of the training frame shares them)
        check_unique_columns(X)
        names = getattr(self, "feature_names_in_", None)
        if (
            not reset
            and isinstance(X, pd.DataFrame)
            and names is not None
            and list(X.columns) != list(names)
            and set(X.columns) == set(names)
        ):
            X = X[list(names)]
        if reset and isinstance(X, pd.DataFrame) and _all_str(X.columns):
            # what validate_data sets for string column names, without its dataframe-protocol round trip (a fixed cost on every fit)
            self.n_features_in_, self.feature_names_in_ = len(X.columns), index_values(X.columns).copy()  # its own, writable
        else:
            validate_data(self, X, reset=reset, skip_check_array=True)
        if reset:
            self._fitted_columns = X.columns if isinstance(X, pd.DataFrame) else None
        return X

    # ------------------------------------------------------------------ prediction
    def _estimate(self, estimate):
        return check_estimate(self.estimate if estimate is None else estimate)

    @available_if(_is_generative)
    @_dask_aware
    def predict_joint_log_proba(self, X, estimate=None):
        """log p(x_n, y = k | estimate) for every row n and class k, shape (N, K)."""
        check_fitted(self, "classes_")
        estimate = self._estimate(estimate)
        encoded = self._encode(as_array_like(X), reset=False, training=False)
        # rows are scored a block at a time, so the models' per-row temporaries stay bounded;
        # under a PosteriorDraw every row must see the same draw, so all rows form one block
        n_rows = _n_rows(encoded)
        rows = max(1, n_rows) if isinstance(estimate, PosteriorDraw) or n_rows <= 256 else max(256, FLOATS_PER_BLOCK // self._floats_per_row())
        if n_rows <= rows:  # one block, not sliced: a slice of a sparse matrix copies it
            return self._joint_log_likelihood(encoded, estimate)
        return np.concatenate([self._joint_log_likelihood(encoded[start : start + rows], estimate) for start in range(0, n_rows, rows)])

    def _floats_per_row(self) -> int:
        """Size of a model's per-row scoring temporaries, in floats (sets the block size). Most
        models keep O(K) per row and score every row in one block; the semi-naive models, whose
        temporaries grow with the attributes' cells, override this."""
        return 1

    def _joint_log_likelihood(self, encoded, estimate):
        """log p(y = k) + log p(x | y = k) under the estimate: the class prior times the features."""
        class_prob = self._class_prior.estimate(self.class_count_, estimate)
        joint = self._feature_log_likelihood(encoded, estimate)
        return add_per_class(joint, log_probabilities(class_prob))  # in place: a new (N, K) array costs its page faults

    @_dask_aware
    def predict_log_proba(self, X, estimate=None):
        """log P(y = k | x_n). A row that has probability 0 under every class (possible only
        with alpha = 0) gets the uniform distribution rather than NaN."""
        shifted, _, total = _shifted_exp(self._log_posterior_scores(X, estimate))
        return subtract_per_row(shifted, np.log(total))

    def _log_posterior_scores(self, X, estimate):
        """log p(x_n, y = k) up to a term that is the same for every class (normalising cancels
        it): the joint itself, unless a model has a cheaper form (LDA's linear discriminants)."""
        return self.predict_joint_log_proba(X, estimate)

    @_dask_aware
    def predict_proba(self, X, estimate=None):
        """P(y = k | x_n), shape (N, K), columns in the order of ``classes_``."""
        if not self._generative:  # no joint: the model's own log posterior
            return np.exp(self.predict_log_proba(X, estimate))
        _, exp, total = _shifted_exp(self._log_posterior_scores(X, estimate))
        exp /= total[:, None]
        return exp

    @available_if(_has_closed_form)
    @_dask_aware
    def predict_proba_draws(self, X, n_draws=200, random_seed=None):
        """P(y = k | x_n, θ_s) under ``n_draws`` exact posterior draws θ_s, shape (S, N, K): the
        posterior uncertainty of each row's class probabilities (their mean over draws is the
        posterior predictive of a model whose parameters enter the likelihood once)."""
        check_fitted(self, "classes_")
        n_draws = check_n_draws(n_draws, "n_draws")
        rng = np.random.default_rng(random_seed)
        return np.stack([self.predict_proba(X, estimate=PosteriorDraw(rng)) for _ in range(n_draws)])

    @_dask_aware
    def predict(self, X, loss=None, estimate=None):
        """The Bayes decision: argmin_i Σ_j loss[i, j] P(c_j | x) (0-1 loss: the most probable class)."""
        decisions = bayes_decision(self.predict_proba(X, estimate), loss)  # checks fitted first
        return self.classes_[decisions]

    # ------------------------------------------------------------------ the posterior
    def _parameters(self):
        """{name: (closed-form posterior, dims)} of every model parameter."""
        check_fitted(self, "classes_")
        return {
            "class_prob": (self._class_prior.posterior(self.class_count_), ("class",)),
            **self._feature_posterior(),
        }

    def _dataset(self, values_by_name, leading_dims=()):
        parameters, coords = self._parameters(), self._coords()
        check_names_apart(parameters)
        return xr.Dataset(
            {
                name: (leading_dims + dims, values_by_name[name])
                for name, (_, dims) in parameters.items() if name in values_by_name
            },
            coords={dim: coords[dim] for dim in _used_dims(parameters)},
        )

    @available_if(_has_closed_form)
    def analytic_posterior(self, statistic="mean") -> xr.Dataset:
        """The closed-form posterior's ``statistic`` ("mean", "sd" or "mode") of every
        parameter, named and dimensioned as in the PyMC model."""
        if statistic not in ("mean", "sd", "mode"):
            raise ValueError(f"statistic={statistic!r} is not one of 'mean', 'sd', 'mode'")
        return self._dataset({n: getattr(p, statistic)() for n, (p, _) in self._parameters().items()})

    @available_if(_has_closed_form)
    def posterior_draws(self, n=1000, random_seed=None, chains=2, var_names=None):
        """Exact i.i.d. draws from the closed-form posterior, as ``arviz.InferenceData`` with the
        same variable names and dims as ``sample_posterior``'s (``chains`` × ``n`` draws);
        ``var_names``: only these parameters (default: all). For PyMC's forward sampling pass
        :meth:`pymc_trace` of them."""
        import arviz as az

        n, chains = check_n_draws(n, "n"), check_n_draws(chains, "chains")
        parameters = self._parameters()
        unknown = [] if var_names is None else [name for name in var_names if name not in parameters]
        if unknown:
            raise ValueError(f"var_names {unknown} are not parameters of {type(self).__name__}: {list(parameters)}")
        rng = np.random.default_rng(random_seed)
        joint_draws = {}  # variables of one joint posterior are drawn together, not marginally
        draws = {}
        for name, (posterior, _) in parameters.items():
            if var_names is not None and name not in var_names:
                continue
            if isinstance(posterior, Marginal):
                key = id(posterior.joint)
                if key not in joint_draws:
                    joint_draws[key] = posterior.joint.sample(chains * n, rng)
                values = joint_draws[key][posterior.name]
            else:
                values = posterior.sample(chains * n, rng)
            draws[name] = values.reshape((chains, n) + values.shape[1:])
        posterior = self._dataset(draws, ("chain", "draw")).assign_coords(
            chain=np.arange(chains), draw=np.arange(n)
        )
        return az.InferenceData(posterior=posterior)

    @available_if(_has_pymc_model)
    def pymc_trace(self, idata):
        """``idata`` (``sample_posterior``'s or ``posterior_draws``' InferenceData) for PyMC's forward
        sampling, ``pm.sample_posterior_predictive(model.pymc_trace(idata), model=model.pymc_model(...))``:
        a copy whose posterior holds too the free variables that stack several parameters
        (``stacked_prob_{V}``, ``pgm_models.conjugate.blocks``), left out of ``idata`` so that
        ``az.summary`` lists each parameter once. Without them PyMC would draw every table they
        stack from the prior; a ValueError if ``idata`` lacks a table they stack."""
        stacked = self._stacked_blocks()
        if not stacked:
            return idata
        trace = idata.copy()
        trace.posterior = with_stacked_draws(trace.posterior, stacked)
        return trace

    def _stacked_blocks(self) -> list[str]:
        """The parameters the PyMC model stacks into ``stacked_prob_{V}`` groups
        (``pgm_models.conjugate.blocks``), in the order given to DirichletBlocks: none here."""
        return []

    # ------------------------------------------------------------------ PyMC
    @available_if(_has_pymc_model)
    def pymc_model(self, form="counts", X=None, y=None):
        """The generative PyMC model of the fitted classifier.

        ``form="counts"`` observes the sufficient statistics kept by ``fit``, so its gradient
        costs O(parameters). ``form="rows"`` observes every row of (X, y), which must be given
        (the estimator keeps only sufficient statistics); sample its prior or posterior
        predictive to generate synthetic datasets (the posterior's from :meth:`pymc_trace` of the
        draws). Both have the same posterior: their log
        densities differ by a constant that depends only on the data.
        """
        import pymc as pm

        check_fitted(self, "classes_")
        if form not in FORMS:
            raise ValueError(f"form={form!r} is not one of {FORMS}")
        with pm.Model(coords=self._coords()) as model:
            if form == "counts":
                self._counts_model(model)
            else:
                if X is None or y is None:
                    raise ValueError("form='rows' observes rows: pass the X and y to observe")
                labels = check_labels(y, self)
                X = as_array_like(X)
                check_n_rows(_n_rows(X), len(labels))
                encoded = self._encode(X, reset=False, training=True)
                self._rows_model(model, encoded, self._class_index(labels))
        return model

    def _check_proper_prior(self):
        """PyMC's Dirichlet needs every concentration > 0; class_alpha = 0 is an improper prior."""
        if np.any(np.asarray(self.class_alpha, dtype=float) <= 0):
            raise ValueError(
                f"class_alpha={self.class_alpha!r}: the PyMC model needs a proper prior (class_alpha > 0); "
                "with 0 only the closed-form posterior is available"
            )

    def _class_model(self, model, observe_counts: bool):
        """π ~ Dirichlet(class_alpha); the class counts ~ Multinomial(N, π) in the counts form."""
        import pymc as pm

        self._check_proper_prior()
        class_prob = pm.Dirichlet("class_prob", a=self._class_prior.concentration, dims="class")
        if observe_counts:
            counts = integer_counts(self.class_count_, "class counts")
            pm.Multinomial("class_count", n=counts.sum(), p=class_prob, observed=counts, dims="class")
        return class_prob

    @available_if(_has_pymc_model)
    def sample_posterior(self, draws=1000, chains=4, random_seed=None, sampler=None, **pm_sample_kwargs):
        """NUTS samples of the counts-form PyMC model, as ``arviz.InferenceData``
        (compare them with the closed form using ``pgm_models.inference.verify.check_posterior``). Four
        chains by default: split R-hat ≤ 1.01 over many parameters needs them.
        ``sampler`` is the NUTS backend, one of ``pgm_models.inference.sampling.SAMPLERS`` (default
        ``DEFAULT_SAMPLER``); other keywords go to ``pm.sample``. Under "nutpie-numba" nutpie adapts
        the mass matrix the class declares (``_nutpie_low_rank``: low-rank or diagonal)."""
        from pgm_models.inference import sampling

        sampler = sampler or sampling.DEFAULT_SAMPLER
        if self._closed_form:
            check_names_apart(self._parameters())
        if sampler == "nutpie-numba":  # settings given in nuts_sampler_kwargs win
            pm_sample_kwargs["nuts_sampler_kwargs"] = {"low_rank_modified_mass_matrix": self._nutpie_low_rank,
                                                       **pm_sample_kwargs.get("nuts_sampler_kwargs", {})}
        return sampling.sample(self._sampling_model(), sampler=sampler, draws=draws, chains=chains, random_seed=random_seed,
                               auxiliary=self._without_auxiliary_draws, **pm_sample_kwargs)

    def _sampling_model(self):
        """The PyMC model NUTS samples: the counts form, whose cost does not grow with N."""
        return self.pymc_model("counts")

    @available_if(_has_pymc_model)
    def find_map(self, **find_map_kwargs) -> xr.Dataset:
        """``pm.find_MAP`` on the counts-form model. PyMC maximises the density in the original
        parameter space (no Jacobian), so for the Dirichlet and Normal–Inverse-Gamma models this is
        the posterior mode ``analytic_posterior("mode")``; LDA/QDA's free variables are the Bartlett
        coordinates of the precision, whose mode is not the closed-form mode of Σ."""
        import pymc as pm

        find_map_kwargs.setdefault("progressbar", False)
        point = pm.find_MAP(model=self.pymc_model("counts"), include_transformed=False, **find_map_kwargs)
        return self._dataset(point)


def integer_counts(counts: np.ndarray, what: str) -> np.ndarray:
    """Counts observed by a PyMC Multinomial/Binomial must be whole numbers."""
    rounded = np.round(counts)
    if not np.allclose(counts, rounded, rtol=0, atol=1e-9):
        raise ValueError(
            f"the counts-form PyMC model observes whole-number {what}; these were fitted with "
            "non-integer sample_weight"
        )
    return rounded.astype(np.int64)


def _shifted_exp(scores: np.ndarray):
    """(scores − each row's maximum, exp of that, each row's sum of the exp): a row's log
    posterior is the first less the log of the third, its posterior the second over the third. A row that is −inf everywhere (probability 0 under every
    class, possible only with alpha = 0) becomes uniform rather than NaN. The maxima and sums
    run column by column and through a product: a reduction along a short last axis is several
    times slower. ``scores`` is overwritten."""
    peak = np.maximum(scores[:, 0], scores[:, -1])  # a new array: two classes take one call, no copy
    for column in scores.T[1:-1]:
        np.maximum(peak, column, out=peak)
    if not math.isfinite(np.add.reduce(peak)):  # one reduction (not through .sum()'s wrapper); the masks only where a row may need them
        scores[np.isneginf(peak)] = 0.0
        peak[~np.isfinite(peak)] = 0.0
    subtract_per_row(scores, peak)
    exp = np.exp(scores)
    return scores, exp, exp @ np.ones(scores.shape[1])


def _all_str(columns: pd.Index) -> bool:
    """Whether every column name is a ``str`` (what scikit-learn takes as feature names): a
    pandas string dtype holds only str, or NaN (iterating the names is a cost on every fit)."""
    if isinstance(columns.dtype, pd.StringDtype):
        return len(columns) > 0 and not columns.hasnans
    return len(columns) > 0 and all(type(c) is str for c in columns)


def _n_rows(X) -> int:
    if isinstance(X, pd.DataFrame):
        return len(X.index)  # np.shape and np.ndim on a frame are slower
    return np.shape(X)[0] if np.ndim(X) else 0


def _used_dims(parameters) -> list[str]:
    return list(dict.fromkeys(dim for _, dims in parameters.values() for dim in dims))
