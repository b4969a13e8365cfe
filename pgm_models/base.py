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
``_blocks_refused()``
    why the model cannot be fitted from block statistics merged by the Dask engine (None: it can),
    a message naming the setting that prevents it;
``_after_merged_statistics(first_fit)``
    what a fit derives from the whole data's merged statistics (a data-scaled prior);
``_learn_hyperparameters()``
    evidence-learned hyperparameters, recomputed from the statistics;
``_needs_declared_domains``
    whether the attributes' domains must be known before counting (categorical attributes);
``_check_hyperparameters()``
    refuse a hyperparameter that is bad whatever the data (a ValueError naming it);
    ``use_evidence_priors`` asks it which parameters take "evidence";
``_predicts_when_fitted``
    the fitted attribute without which the model cannot predict (``classes_``), checked before
    a prediction is mapped over dask blocks;
``_without_auxiliary_draws(posterior)``
    the draws with the PyMC model's auxiliary variables removed;
``_components()``
    the models an average is made of (AODE's SPODEs), summarised one by one;
``_nutpie_low_rank``
    the mass matrix NUTS adapts;
``_placeholder_rows(n)``
    n rows in the encoded form the rows-form model observes, over which PyMC forward-samples
    synthetic datasets (``pgm_models.inference.workflow``);
``_synthetic_variables(replicated)``
    those forward-sampled rows as ``y`` (the class indices) and the attributes' variables;
``_synthetic_rows(n_datasets, n_rows, rng, prior)`` / ``_structure_edges()``
    for an average of models (``_averaged``): synthetic datasets drawn from the average's joint,
    a structure and its parameters per dataset, and the averaged structure ``graph`` draws;
``_joint_draws_refused()``, ``_structure_draws(n, rng)``, ``_structure_log_likelihood(posterior, encoded, class_index)``
    for an average of models: why it has no joint posterior draws (None where it has), else
    joint (structure, parameters) draws from the posterior and each row's log likelihood under
    them, which ``posterior_draws`` and ``add_log_likelihood`` read.

The Bayesian workflow's methods (``sample_prior_predictive``, ``sample_posterior`` with the
training rows' ``log_likelihood``, ``sample_posterior_predictive``, ``graph``, ``save`` / ``load``)
and the fixed ``class_prior`` live here too, so every family has them.
"""

from __future__ import annotations

import copy
import functools
import inspect
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

from pgm_models._utils import threads
from pgm_models._utils.decision import bayes_decision
from pgm_models._utils.frames import categorical_codes, index_values
from pgm_models._utils.param_names import ParamNamesOnce
from pgm_models._utils.persistence import Persistent
from pgm_models._utils.scores import add_per_class, normalised_in_place, subtract_per_row
from pgm_models._utils.shared_priors import shared_prior
from pgm_models._utils.validation import (
    as_array_like,
    check_class_prior,
    check_concentration,
    check_fitted,
    check_labels,
    check_n_draws,
    check_n_rows,
    check_names_apart,
    check_sample_weight,
    check_slash_free,
    check_unique_columns,
    idata_names,
    sorted_classes,
)
from pgm_models.conjugate import ESTIMATES, Dirichlet, PosteriorDraw, log_probabilities
from pgm_models.conjugate.blocks import posterior_frame, with_stacked_draws, without_groups
from pgm_models.conjugate.dirichlet import check_estimate

FORMS = ("counts", "rows")
# Rows are scored in blocks whose temporaries hold about this many floats (8 MB): small enough
# that later blocks reuse the first one's memory instead of faulting in fresh pages.
FLOATS_PER_BLOCK = 1_000_000


class Marginal:
    """One variable of a joint closed-form posterior (e.g. μ of a Normal–Inverse-Gamma), read
    off by name from the joint's dict-valued mean(), sd(), mode() and sample().
    """

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


def _has_workflow(estimator) -> bool:
    return estimator._pymc_model or estimator._averaged


def _has_draws(estimator) -> bool:
    return estimator._closed_form or estimator._averaged


def _has_log_likelihood(estimator) -> bool:
    return estimator._pymc_model or estimator._averaged


def _dask_aware(method):
    """Hand a dask collection X to the same-named function of ``pgm_models.dask_engine``
    (imported only when dask already is: otherwise X cannot be a dask collection). The arguments
    are first bound to ``method``'s signature, so one the method lacks fails at the call, as in
    memory, not in a block's task at compute time. A class outside the template gets the same
    route by decorating its prediction methods and declaring ``classes_`` and
    ``_predicts_when_fitted``; the engine passes only the arguments the caller gave.
    """
    signature = inspect.signature(method)

    @functools.wraps(method)
    def dispatch(self, X, *args, **kwargs):
        if "dask" in sys.modules and sys.modules["dask"].is_dask_collection(X):
            from pgm_models import dask_engine

            try:
                signature.bind(self, X, *args, **kwargs)
            except TypeError as error:
                raise TypeError(f"{type(self).__name__}.{method.__name__}() {error}") from None
            return getattr(dask_engine, method.__name__)(self, X, *args, **kwargs)
        return method(self, X, *args, **kwargs)

    return dispatch


def add_statistics(a: dict, b: dict) -> dict:
    """Count statistics merged: they add; one the data do not need (None in every block) stays None."""
    return {name: None if value is None else value + b[name] for name, value in a.items()}


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


class BayesianClassifier(ParamNamesOnce, Persistent, ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
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
    # which is cheaper per step, in tuning most (BENCHMARKS.md, "Mass matrices and tuning steps")
    _nutpie_low_rank = True
    _needs_declared_domains = False
    _predicts_when_fitted = "classes_"
    # an average of models (AODE's SPODEs, MANB's and BMATAN's structures): no PyMC model of its
    # own, its workflow methods read the hooks _synthetic_rows and _structure_edges
    _averaged = False
    _estimates = ESTIMATES  # the estimates the model defines (an average over structures may lack one)
    _template = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("_template", False):
            return
        missing = [hook for hook in _required_hooks(cls) if not callable(getattr(cls, hook, None))]
        if missing:
            raise TypeError(
                f"{cls.__name__} lacks the template hooks {missing} of pgm_models.base.BayesianClassifier "
                "(or mark a class that only shares code with _template = True)"
            )

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

    def _blocks_refused(self) -> str | None:
        """Hook: why block statistics cannot be merged into this model's fit (None by default: they can)."""
        return None

    def _after_merged_statistics(self, first_fit: bool) -> None:
        """Hook: derive what needs the whole data's merged statistics (nothing by default)."""

    def _learn_hyperparameters(self) -> None:
        """Hook: recompute evidence-learned hyperparameters (none by default)."""

    def _components(self):
        """Hook for an average of models: (the column naming a component, [(name, weight, maker of
        the component model)]) for ``posterior_summary``; None for a single model.
        """
        return None

    def _placeholder_rows(self, n: int):
        """Hook: n complete rows in the encoded form ``_rows_model`` observes (their values
        unused), for forward sampling synthetic rows; None where a row's size is not fixed by
        the model (a document's length), and synthetic data are then the counts form's.
        """
        return None

    def _synthetic_variables(self, replicated):
        """Hook: forward-sampled rows of the rows-form model (chain, draw, ...) as ``y``, the class
        indices, and the attributes' variables; the rows form's own variables by default (a model
        whose rows form observes the class jointly with an attribute splits them here).
        """
        return replicated

    def _log_likelihood_offset(self, X):
        """Hook: a term per row (n_rows,) added to the rows-form model's log likelihood of the rows
        X so that it scores a row as ``loo`` and ``predict_joint_log_proba`` do (MultinomialNB's
        documents as ordered word sequences); None, nothing to add, by default.
        """
        return None

    def _without_auxiliary_draws(self, posterior):
        """The draws of the model's named variables, each once (the stacked Dirichlet groups left out)."""
        return without_groups(posterior)

    # ------------------------------------------------------------------ fitting
    @_dask_aware
    def fit(self, X, y, sample_weight=None):
        """Fit the closed-form posterior from the sufficient statistics of (X, y).

        Any earlier fit is forgotten. The data are counted in one pass (the class counts and the
        model's feature statistics) and the conjugate posterior follows in closed form; nothing is
        sampled. A Dask collection X is fitted by ``pgm_models.dask_engine`` with the same result.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            The training rows (what each model accepts: categories, counts, 0/1, numbers).
        y : array-like of shape (n_samples,)
            The class labels; a pandas Categorical declares the classes, seen or not.
        sample_weight : array-like of shape (n_samples,), default=None
            A nonnegative weight per row (the counts become weighted sums); None: 1 each.

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        ValueError
            If X and y differ in length, a weight is negative or not finite, or a value cannot be
            modelled (the message names the column and the value).

        See Also
        --------
        partial_fit : Add a batch to the statistics instead of starting again.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> model.classes_, model.class_count_
        (array([0, 1]), array([2., 4.]))
        >>> CategoricalNB().fit(X, y, sample_weight=[2, 2, 1, 1, 1, 1]).class_count_
        array([4., 4.])
        """
        labels = self._start_fit(y)
        if isinstance(getattr(y, "dtype", None), pd.CategoricalDtype) or isinstance(labels, pd.Categorical):
            return self._partial_fit(X, labels, self._declared_classes(y, labels), sample_weight)
        # the labels hashed once: their distinct values give the classes and, with their codes, the class index
        codes, distinct = pd.factorize(labels)
        self._factorized_labels = (labels, codes, distinct)
        try:
            return self._partial_fit(X, labels, np.sort(distinct), sample_weight)
        finally:
            del self._factorized_labels

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
        """Add a batch of rows to the sufficient statistics.

        The posterior after the batches equals the posterior of one ``fit`` on all of them (counts
        add), so data larger than memory can be fitted in chunks.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            The batch's rows.
        y : array-like of shape (n_samples,)
            The batch's class labels.
        classes : array-like of shape (n_classes,), default=None
            Every class label; needed on the first call unless y is a pandas Categorical (whose
            categories are the classes), and if given later it must equal ``classes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            A nonnegative weight per row; None: 1 each.

        Returns
        -------
        self
            The estimator, fitted to every batch so far.

        Raises
        ------
        ValueError
            On the first call without ``classes``, or with a label not among ``classes_``.

        See Also
        --------
        fit : Fit from scratch.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB(n_categories=3)  # the first batch has not seen value 2
        >>> model = model.partial_fit(X[:3], y[:3], classes=[0, 1]).partial_fit(X[3:], y[3:])
        >>> np.allclose(model.predict_proba(X), CategoricalNB(n_categories=3).fit(X, y).predict_proba(X))
        True
        """
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
            raise ValueError(
                f"classes={list(classes)} differs from classes_ {self.classes_.tolist()} of the first call"
            )
        return self._partial_fit(X, labels, None, sample_weight)

    @staticmethod
    def _declared_classes(y, labels):
        """The class domain, sorted: a Categorical's declared categories, else the observed labels."""
        if isinstance(getattr(y, "dtype", None), pd.CategoricalDtype):
            return sorted_classes(index_values(y.dtype.categories))
        return np.sort(
            pd.unique(labels)
        )  # hashing then sorting K values: np.unique sorts all N labels (BENCHMARKS.md, "Against scikit-learn")

    def _partial_fit(self, X, labels, classes, sample_weight):
        """Count a batch; ``classes``: the class domain, already in ``sorted_classes`` order, on the
        first batch (None after it).
        """
        X = as_array_like(X)
        check_estimate(self.estimate)
        check_n_rows(_n_rows(X), len(labels))
        weight = check_sample_weight(sample_weight, len(labels))
        reset = classes is not None
        if reset:
            check_class_prior(self.class_prior, len(classes))
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
            self._class_prior = shared_prior(
                ("class", len(classes), class_alpha.shape, class_alpha.tobytes()),
                lambda: Dirichlet(np.broadcast_to(class_alpha.copy(), (len(classes),))),
                self,
            )
        class_index = self._class_index(labels)
        if reset:
            self._init_counts(encoded, class_index, weight)
        self.class_count_ = self.class_count_ + np.bincount(class_index, weight, len(self.classes_))
        self._count(encoded, class_index, weight)
        self.class_concentration_ = self._class_prior.posterior(self.class_count_).concentration
        return self

    def _check_hyperparameters(self):
        """Refuse a hyperparameter that is bad whatever the data, naming it (none here: a family
        checks its own). A parameter that takes "evidence" accepts it here and refuses any other
        string, which is how ``use_evidence_priors`` finds them.
        """

    def _class_concentration(self, n_classes: int) -> np.ndarray:
        """Dirichlet concentration of the class probabilities."""
        return check_concentration(self.class_alpha, "class_alpha", n_classes, "class")

    def _class_index(self, labels) -> np.ndarray:
        """Each label's position in ``classes_``; ``labels`` an array or a pandas Categorical
        (``check_labels(categorical=True)``).
        """
        # each distinct label looked up once: get_indexer on N labels converts and hashes every
        # one against the classes' index, far slower than factorize (BENCHMARKS.md, "Against
        # scikit-learn"); a Categorical's distinct labels are its categories, its codes their positions
        if isinstance(labels, pd.Categorical):
            # the categories as an array, as classes_ is one (a datetime64[ns] Index lists Timestamps, its array ints)
            codes, distinct = categorical_codes(labels), index_values(labels.categories)  # its own codes, only read
            # K labels compared as lists (an object array's == and all() are slower)
            if distinct.dtype == self.classes_.dtype and distinct.tolist() == self.classes_.tolist():
                return codes.astype(np.intp)  # categories declared in the classes' order: the codes are the indices
        elif getattr(self, "_factorized_labels", (None,))[0] is labels:  # fit's own labels, already factorized
            _, codes, distinct = self._factorized_labels
        else:
            codes, distinct = pd.factorize(labels)
        position = {
            label: k for k, label in enumerate(self.classes_.tolist())
        }  # K labels: a dict, not an Index (building an Index costs more)
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
        fitted ones in another order is matched by name.
        """
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
            self.n_features_in_, self.feature_names_in_ = (
                len(X.columns),
                index_values(X.columns).copy(),
            )  # its own, writable
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
        """Joint log probabilities log p(x, y = k) of each row and class.

        The class term plus the features' log likelihood under the chosen estimate (under
        ``"predictive"``, the exact log posterior predictive of (x, y)). Normalising a row over the
        classes gives :meth:`predict_log_proba`.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            The rows to score.
        estimate : {"mean", "map", "mle", "predictive"}, default=None
            The estimate to plug in for this call; None: the estimator's ``estimate``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            log p(x_n, y = k | estimate).

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> joint = model.predict_joint_log_proba(X[:1])
        >>> np.exp(joint).round(4)  # 3/8 · 3/5 · 1/2 and 5/8 · 1/7 · 2/3
        array([[0.1125, 0.0595]])
        """
        check_fitted(self, "classes_")
        estimate = self._estimate(estimate)
        encoded = self._encode(as_array_like(X), reset=False, training=False)
        # rows are scored a block at a time, so the models' per-row temporaries stay bounded (a large
        # input's blocks on threads); under a PosteriorDraw every row must see the same draw, so all
        # rows form one block
        n_rows = _n_rows(encoded)
        rows = (
            max(1, n_rows)
            if isinstance(estimate, PosteriorDraw) or n_rows <= 256
            else max(256, FLOATS_PER_BLOCK // self._floats_per_row())
        )
        if n_rows <= rows:  # one block, not sliced: a slice of a sparse matrix copies it
            return self._joint_log_likelihood(encoded, estimate)
        return np.concatenate(
            threads.over_row_blocks(
                lambda start, stop: self._joint_log_likelihood(encoded[start:stop], estimate), n_rows, rows
            )
        )

    def _fixed_class_prior(self):
        """``class_prior`` checked against the fitted classes (None: predictions use the posterior)."""
        return None if self.class_prior is None else check_class_prior(self.class_prior, len(self.classes_))

    def _class_probabilities(self, estimate):
        """P(y = k) that predictions use: the fixed ``class_prior`` if given, else the estimate of
        the class-probability posterior.
        """
        prior = self._fixed_class_prior()
        return self._class_prior.estimate(self.class_count_, estimate) if prior is None else prior

    def set_class_prior(self, prior):
        """Adjust the fitted model to new class prevalences without refitting: predictions use
        ``prior`` (one probability per class of ``classes_``) in place of the class-probability
        posterior, under every estimate; None restores the posterior. Returns self.
        """
        check_fitted(self, "classes_")
        check_class_prior(prior, len(self.classes_))
        self.class_prior = prior
        return self

    def _floats_per_row(self) -> int:
        """Size of a model's per-row scoring temporaries, in floats (sets the block size). Most
        models keep O(K) per row and score every row in one block; the semi-naive models, whose
        temporaries grow with the attributes' cells, override this.
        """
        return 1

    def _joint_log_likelihood(self, encoded, estimate):
        """Log p(y = k) + log p(x | y = k) under the estimate: the class prior times the features."""
        class_prob = self._class_probabilities(estimate)
        joint = self._feature_log_likelihood(encoded, estimate)
        return add_per_class(joint, log_probabilities(class_prob))  # in place: a new (N, K) array costs its page faults

    @_dask_aware
    def predict_log_proba(self, X, estimate=None):
        """Logarithms of the posterior class probabilities, log P(y = k | x).

        Computed from the joint log probabilities with the log-sum-exp shift, so rows far from every
        class do not underflow. A row with probability 0 under every class (possible only with
        alpha = 0) gets the uniform distribution rather than NaN.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            The rows to classify.
        estimate : {"mean", "map", "mle", "predictive"}, default=None
            The estimate to plug in for this call; None: the estimator's ``estimate``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            log P(y = k | x_n), columns in the order of ``classes_``.

        See Also
        --------
        predict_proba : The probabilities themselves.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> model.predict_log_proba(X[:1]).round(3)
        array([[-0.425, -1.061]])
        """
        scores = self._log_posterior_scores(X, estimate)
        compiled = normalised_in_place(scores, log=True)
        if compiled is not None:
            return compiled
        shifted, _, total = _shifted_exp(scores)
        return subtract_per_row(shifted, np.log(total))

    def _log_posterior_scores(self, X, estimate):
        """Log p(x_n, y = k) up to a term that is the same for every class (normalising cancels
        it): the joint itself, unless a model has a cheaper form (LDA's linear discriminants).
        """
        return self.predict_joint_log_proba(X, estimate)

    def _probability_scores(self, X, estimate):
        """The scores ``predict_proba`` normalises: ``_log_posterior_scores``, unless a model has a form
        whose rounding suits the probabilities but not the logarithm of an unlikely class's (MultinomialNB's
        class differences, whose log probabilities differ from the joint's by rounding at its scale).
        """
        return self._log_posterior_scores(X, estimate)

    @_dask_aware
    def predict_proba(self, X, estimate=None):
        """Posterior class probabilities P(y = k | x) of each row.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            The rows to classify (missing values are skipped by the models that allow them, or
            replaced by the mode in BayesNetClassifier, KDB and BMATAN).
        estimate : {"mean", "map", "mle", "predictive"}, default=None
            The estimate to plug in for this call; None: the estimator's ``estimate``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            P(y = k | x_n), columns in the order of ``classes_``; each row sums to 1.

        See Also
        --------
        predict_log_proba : Their logarithms, computed without underflow.
        predict_proba_draws : Their posterior uncertainty.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> model.predict_proba(X[:2]).round(3)
        array([[0.654, 0.346],
               [0.791, 0.209]])
        >>> model.predict_proba(X[:2], estimate="mle").round(3)
        array([[1., 0.],
               [1., 0.]])
        """
        if not self._generative:  # no joint: the model's own log posterior
            return np.exp(self.predict_log_proba(X, estimate))
        scores = self._probability_scores(X, estimate)
        compiled = normalised_in_place(scores, log=False)
        if compiled is not None:
            return compiled
        _, exp, total = _shifted_exp(scores)
        exp /= total[:, None]
        return exp

    @available_if(_has_closed_form)
    @_dask_aware
    def predict_proba_draws(self, X, n_draws=200, random_seed=None):
        """Class probabilities under exact posterior draws of the parameters.

        P(y = k | x_n, θ_s) for ``n_draws`` i.i.d. draws θ_s from the closed-form posterior: the
        posterior uncertainty of each row's class probabilities. Their mean over the draws is the
        posterior predictive of a model whose parameters enter the likelihood once.

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            The rows to classify.
        n_draws : int, default=200
            The number of posterior draws S.
        random_seed : int or numpy Generator, default=None
            The seed of the draws.

        Returns
        -------
        ndarray of shape (n_draws, n_samples, n_classes)
            P(y = k | x_n, θ_s).

        See Also
        --------
        pgm_models.probability_intervals : Plots their credible intervals.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> draws = model.predict_proba_draws(X[:2], n_draws=4000, random_seed=0)
        >>> draws.shape
        (4000, 2, 2)
        >>> np.quantile(draws[:, 0, 0], [0.05, 0.95]).round(2)  # a 90 % credible interval of P(y = 0 | x_0)
        array([0.17, 0.98])
        """
        check_fitted(self, "classes_")
        n_draws = check_n_draws(n_draws, "n_draws")
        rng = np.random.default_rng(random_seed)
        return np.stack([self.predict_proba(X, estimate=PosteriorDraw(rng)) for _ in range(n_draws)])

    @_dask_aware
    def predict(self, X, loss=None, estimate=None):
        """Predict the class of each row by the Bayes decision rule.

        Under 0-1 loss the decision is the most probable class; with a loss matrix it is the class of
        least expected loss, argmin_i Σ_j loss[i, j] P(y = j | x).

        Parameters
        ----------
        X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
            The rows to classify.
        loss : array-like of shape (n_classes, n_classes), default=None
            loss[i, j], the cost of deciding class i when the truth is class j (in the order of
            ``classes_``); None: 0-1 loss.
        estimate : {"mean", "map", "mle", "predictive"}, default=None
            The estimate to plug in for this call; None: the estimator's ``estimate``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The decided class labels.

        See Also
        --------
        predict_proba : The class probabilities the decision weighs.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> model.predict(np.array([[0, 1], [2, 0]]))
        array([0, 1])
        >>> model.predict(np.array([[0, 1]]), loss=[[0, 10], [1, 0]])  # missing class 1 costs 10
        array([1])
        """
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
                for name, (_, dims) in parameters.items()
                if name in values_by_name
            },
            coords={dim: coords[dim] for dim in _used_dims(parameters)},
        )

    @available_if(_has_closed_form)
    def analytic_posterior(self, statistic="mean") -> xr.Dataset:
        """A statistic of the closed-form posterior of every parameter.

        The variables are named and dimensioned as in the PyMC model (``class_prob``,
        ``feature_prob_<attribute>``, ``feature_mean``, ...), so they line up with the draws of
        :meth:`sample_posterior` and :meth:`posterior_draws`.

        Parameters
        ----------
        statistic : {"mean", "sd", "mode"}, default="mean"
            The posterior mean, standard deviation or mode of every entry.

        Returns
        -------
        xarray.Dataset
            One variable per parameter.

        Raises
        ------
        ValueError
            If ``statistic`` is not one of the three.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> posterior = model.analytic_posterior("mean")
        >>> list(posterior.data_vars)
        ['class_prob', 'feature_prob_x0', 'feature_prob_x1']
        >>> posterior["class_prob"].values  # (N_k + 1) / (N + 2)
        array([0.375, 0.625])
        >>> model.analytic_posterior("sd")["class_prob"].values.round(3)
        array([0.161, 0.161])
        """
        if statistic not in ("mean", "sd", "mode"):
            raise ValueError(f"statistic={statistic!r} is not one of 'mean', 'sd', 'mode'")
        return self._dataset({n: getattr(p, statistic)() for n, (p, _) in self._parameters().items()})

    @available_if(_has_draws)
    def posterior_draws(self, n=1000, random_seed=None, chains=2, var_names=None, *, store=False, X=None, y=None):
        """Exact i.i.d. draws from the closed-form posterior, as ArviZ InferenceData.

        The draws have the same variable names and dims as :meth:`sample_posterior`'s, so ArviZ's
        summaries and plots and :func:`pgm_models.check_posterior` take either. No MCMC is run.

        With ``store=True`` the draws become ``idata_``'s ``posterior``, as NUTS draws do (the
        draws of an earlier :meth:`sample_posterior` or ``store`` go, with the groups computed
        from them: ``sample_stats``, ``log_likelihood``, ``posterior_predictive``; the prior
        groups and the data stay). Given the training rows X and labels y too, ``idata_`` gets
        their pointwise ``log_likelihood`` under every draw (:meth:`add_log_likelihood`), so that
        ``az.loo(model.idata_)`` estimates, by PSIS, the leave-one-out that
        ``loo(X, y, conditional=False)`` computes exactly, without NUTS. The draws are
        independent, so PSIS's relative efficiency is 1: ``az.loo(model.idata_, reff=1.0)``
        (its default estimates it from the draws' effective sample size, close to 1).

        MANB and BMATAN, true Bayesian model averages, draw jointly: a structure by its posterior
        probability (MANB's arcs ``arc``, each independently with ``arc_posterior_``; BMATAN's
        spanning tree exactly by the matrix-tree theorem, as ``parent``), then its parameters from
        their conjugate posterior; their log likelihood is log p(y_i, x_i | structure, θ), so
        ``az.loo`` estimates the average's leave-one-out that their exact ``loo`` computes. The
        averages of SPODEs (AODE, AODEsr, WAODE, A2DE) are no posterior over structures and
        refuse, pointing to their ``loo``.

        Parameters
        ----------
        n : int, default=1000
            Draws per chain.
        random_seed : int or numpy Generator, default=None
            The seed of the draws.
        chains : int, default=2
            The number of "chains" (independent blocks of draws).
        var_names : list of str, default=None
            Only these parameters; None: all.
        store : bool, default=False
            Keep the draws in ``idata_`` as its ``posterior`` (the predictive methods and
            :meth:`add_log_likelihood` then read them).
        X, y : array-like, default=None
            The training rows and labels (with ``store=True``): ``idata_`` also gets their
            pointwise ``log_likelihood``, so that ``az.loo(model.idata_)`` runs.

        Returns
        -------
        arviz.InferenceData
            Its ``posterior`` group holds ``chains`` × ``n`` draws of each parameter; with
            ``store=True``, ``idata_`` itself.

        Raises
        ------
        ValueError
            If a name in ``var_names`` is not a parameter of the model, X or y is given without
            the other or without ``store=True``, (X, y) are not the fitted rows, or the model is
            an average of SPODEs (no joint posterior to draw from).

        See Also
        --------
        pymc_trace : The draws for PyMC's forward sampling.
        add_log_likelihood : The training rows' log likelihood under the draws in ``idata_``.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> idata = model.posterior_draws(n=2000, random_seed=0)
        >>> idata.posterior["class_prob"].shape
        (2, 2000, 2)
        >>> idata.posterior["class_prob"].mean(("chain", "draw")).values.round(2)
        array([0.37, 0.63])

        Kept in ``idata_`` with the training rows' log likelihood, for PSIS-LOO without NUTS:

        >>> import arviz as az
        >>> idata = model.posterior_draws(n=2000, random_seed=0, store=True, X=X, y=y)
        >>> sorted(group for group in idata.groups() if group in ("posterior", "log_likelihood"))
        ['log_likelihood', 'posterior']
        >>> idata.log_likelihood["y"].shape  # (chain, draw, row)
        (2, 2000, 6)
        >>> exact = model.loo(X, y, conditional=False).elpd_loo
        >>> bool(abs(az.loo(idata, reff=1.0).elpd_loo - exact) < 0.5)
        True
        """
        import arviz as az

        if (X is None) != (y is None):
            raise ValueError("posterior_draws' log likelihood needs both the training rows X and their labels y")
        if X is not None and not store:
            raise ValueError("posterior_draws(X=, y=) adds the log likelihood to idata_: pass store=True with them")
        n, chains = check_n_draws(n, "n"), check_n_draws(chains, "chains")
        if self._averaged:
            posterior = self._averaged_draws(n, chains, random_seed, var_names)
        else:
            posterior = self._conjugate_draws(n, chains, random_seed, var_names)
        if not store:
            return az.InferenceData(posterior=posterior)
        self._store_posterior(az.InferenceData(posterior=posterior.assign_attrs(draws="exact")))
        if X is not None:
            self.add_log_likelihood(X, y)
        return self.idata_

    def _conjugate_draws(self, n, chains, random_seed, var_names) -> xr.Dataset:
        """``posterior_draws``' posterior of a closed-form model: (chain, draw, ...) per parameter."""
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
        return self._dataset(draws, ("chain", "draw")).assign_coords(chain=np.arange(chains), draw=np.arange(n))

    def _averaged_draws(self, n, chains, random_seed, var_names) -> xr.Dataset:
        """``posterior_draws``' posterior of an average of models: joint (structure, parameters)
        draws (``_structure_draws``), or the average's reason for having none.
        """
        self._refuse_joint_draws()
        draws, coords = self._structure_draws(chains * n, np.random.default_rng(random_seed))
        unknown = [] if var_names is None else [name for name in var_names if name not in draws]
        if unknown:
            raise ValueError(f"var_names {unknown} are not variables of {type(self).__name__}'s draws: {list(draws)}")
        variables = {
            name: (("chain", "draw", *dims), values.reshape((chains, n) + values.shape[1:]))
            for name, (dims, values) in draws.items()
            if var_names is None or name in var_names
        }
        used = {dim for dims, _ in variables.values() for dim in dims}
        return xr.Dataset(
            variables, coords={dim: values for dim, values in coords.items() if dim in used}
        ).assign_coords(chain=np.arange(chains), draw=np.arange(n))

    def _refuse_joint_draws(self) -> None:
        why = self._joint_draws_refused()
        if why is not None:
            raise ValueError(why)

    def _joint_draws_refused(self):
        """Hook for an average of models: why it has no joint posterior draws of (structure,
        parameters) whose rows' log likelihood PSIS-LOO could read; None where it has them
        (``_structure_draws`` and ``_structure_log_likelihood``).
        """
        return (
            f"{type(self).__name__} has no joint posterior over its structures and their parameters to draw from: "
            f"its leave-one-out is model.loo(X, y, conditional=False)"
        )

    def _structure_draws(self, n_draws: int, rng):
        """Hook for an average of models: ``n_draws`` joint posterior draws, a structure by its
        posterior probability and then its parameters from their conjugate posterior, as
        ({name: (dims, values of shape (n_draws, ...))}, {dim: coordinate}).
        """
        raise NotImplementedError(self._joint_draws_refused())

    def _structure_log_likelihood(self, posterior: xr.Dataset, encoded, class_index: np.ndarray) -> np.ndarray:
        """Hook for an average of models: (chain, draw, row) log p(y_i, x_i | structure_s, θ_s) of
        the encoded training rows under the draws of ``_structure_draws``.
        """
        raise NotImplementedError(self._joint_draws_refused())

    def _store_posterior(self, idata) -> None:
        """``idata``'s posterior draws (and their ``sample_stats``) as ``idata_``, with the
        workflow's ``observed_data`` and ``constant_data`` and an earlier prior predictive: the
        groups computed from earlier draws go.
        """
        from pgm_models.inference import workflow

        earlier = getattr(self, "idata_", None)
        kept = {
            group: earlier[group]
            for group in ("prior", "prior_predictive")
            if earlier is not None and group in earlier.groups()
        }
        # the draws' own groups, a sampler's observed statistics replaced by the workflow's
        check_slash_free(idata_names(idata))
        groups = {group: idata[group] for group in idata.groups() if group != "observed_data"}
        for group, data in workflow.training_data(self).items():
            groups[group] = groups[group].merge(data) if group in groups else data
        self.idata_ = type(idata)(**groups, **kept)

    @available_if(_has_pymc_model)
    def pymc_trace(self, idata):
        """Posterior draws prepared for PyMC's forward sampling.

        A copy of ``idata`` (from :meth:`sample_posterior` or :meth:`posterior_draws`) whose posterior
        also holds the free variables that stack several parameters (``stacked_prob_{V}``), left out of
        ``idata`` so that ``az.summary`` lists each parameter once. Without them
        ``pm.sample_posterior_predictive`` would draw every table they stack from the prior.

        Parameters
        ----------
        idata : arviz.InferenceData
            Posterior draws of this model's parameters.

        Returns
        -------
        arviz.InferenceData
            ``idata`` itself when the model stacks nothing, else a copy with the stacked variables.

        Raises
        ------
        ValueError
            If ``idata`` lacks a table a stacked variable holds.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> trace = model.pymc_trace(model.posterior_draws(n=100, random_seed=0))
        >>> sorted(trace.posterior.data_vars)  # doctest: +ELLIPSIS
        [...'class_prob'...]
        """
        stacked = self._stacked_blocks()
        if not stacked:
            return idata
        trace = idata.copy()
        trace.posterior = with_stacked_draws(trace.posterior, stacked)
        return trace

    def _stacked_blocks(self) -> list[str]:
        """The parameters the PyMC model stacks into ``stacked_prob_{V}`` groups
        (``pgm_models.conjugate.blocks``), in the order given to DirichletBlocks: none here.
        """
        return []

    # ------------------------------------------------------------------ PyMC
    @available_if(_has_pymc_model)
    def pymc_model(self, form="counts", X=None, y=None):
        """The generative PyMC model of the fitted classifier.

        ``form="counts"`` observes the sufficient statistics kept by ``fit``, so its gradient costs
        O(parameters) whatever the number of rows; it is the model :meth:`sample_posterior` samples.
        ``form="rows"`` observes every row of (X, y), which must be given (the estimator keeps only the
        statistics); sample its prior or posterior predictive to generate synthetic datasets. Both
        forms have the same posterior: their log densities differ by a constant that depends only on
        the data. The priors are the estimator's, with the coords named like the math (``class``,
        ``<attribute>_value``, ...).

        Parameters
        ----------
        form : {"counts", "rows"}, default="counts"
            What the model observes.
        X : array-like of shape (n_samples, n_features), default=None
            The rows to observe (``form="rows"`` only).
        y : array-like of shape (n_samples,), default=None
            Their labels (``form="rows"`` only).

        Returns
        -------
        pymc.Model
            The model, with the fitted data observed.

        Raises
        ------
        ValueError
            If ``form`` is unknown, "rows" lacks X or y, the prior is improper (a concentration of 0),
            or the counts form meets non-integer counts (from fractional ``sample_weight``).

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> pymc_model = model.pymc_model("counts")
        >>> [variable.name for variable in pymc_model.observed_RVs]
        ['stacked_count_2', 'stacked_count_3']
        >>> rows_model = model.pymc_model("rows", X, y)
        >>> [variable.name for variable in rows_model.observed_RVs]
        ['y', 'x_x0', 'x_x1']
        >>> list(pymc_model.coords)[:3]
        ['class', 'x0_value', 'x1_value']
        """
        import pymc as pm

        check_fitted(self, "classes_")
        if form not in FORMS:
            raise ValueError(f"form={form!r} is not one of {FORMS}")
        coords = self._coords()
        check_slash_free(coords)  # before PyMC, whose message would not name the column
        with pm.Model(coords=coords) as model:
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
    def sample_posterior(
        self, draws=1000, chains=4, random_seed=None, sampler=None, *, X=None, y=None, **pm_sample_kwargs
    ):
        """NUTS draws of the counts-form PyMC model, as ArviZ InferenceData.

        The draws are the model's posterior by MCMC, to be compared with the closed form by
        :func:`pgm_models.check_posterior` (they must agree). Four chains by default: split R-hat
        ≤ 1.01 over many parameters needs them.

        Parameters
        ----------
        draws : int, default=1000
            Draws per chain after tuning.
        chains : int, default=4
            The number of chains.
        random_seed : int, default=None
            The sampler's seed.
        sampler : str, default=None
            The NUTS backend, one of :func:`pgm_models.available_samplers` (None: the default
            backend).
        X, y : array-like, default=None
            The training rows and labels: given, ``idata_`` also gets their pointwise
            ``log_likelihood`` (:meth:`add_log_likelihood`), so that ``az.loo(model.idata_)`` runs.
        **pm_sample_kwargs
            Other keywords of ``pymc.sample`` (``tune``, ``target_accept``, ...).

        Returns
        -------
        arviz.InferenceData
            The draws, with the variable names and dims of :meth:`analytic_posterior`, also kept
            in ``idata_`` with the groups ``sample_stats``, ``observed_data`` and ``constant_data``
            (``pgm_models.inference.workflow``), beside an earlier prior predictive.

        See Also
        --------
        posterior_draws : Exact draws without MCMC.
        pgm_models.check_posterior : Compares the draws with the closed form.

        Examples
        --------
        NUTS takes seconds to minutes, so this example is not run:

        >>> import numpy as np
        >>> from pgm_models import CategoricalNB, check_posterior
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> idata = model.sample_posterior(draws=1000, random_seed=0)  # doctest: +SKIP
        >>> check_posterior(model, idata).passed  # doctest: +SKIP
        True
        """
        from pgm_models.inference import sampling

        sampler = sampler or sampling.DEFAULT_SAMPLER
        if self._closed_form:
            check_names_apart(self._parameters())
        if (X is None) != (y is None):
            raise ValueError("sample_posterior's log likelihood needs both the training rows X and their labels y")
        if sampler == "nutpie-numba":  # settings given in nuts_sampler_kwargs win
            pm_sample_kwargs["nuts_sampler_kwargs"] = {
                "low_rank_modified_mass_matrix": self._nutpie_low_rank,
                **pm_sample_kwargs.get("nuts_sampler_kwargs", {}),
            }
        idata = sampling.sample(
            self._sampling_model(),
            sampler=sampler,
            draws=draws,
            chains=chains,
            random_seed=random_seed,
            auxiliary=self._without_auxiliary_draws,
            **pm_sample_kwargs,
        )
        self._store_posterior(idata)
        if X is not None:
            self.add_log_likelihood(X, y)
        return self.idata_

    @available_if(_has_log_likelihood)
    def add_log_likelihood(self, X, y):
        """Add to ``idata_`` the ``log_likelihood`` of the training rows (X, y) under every posterior
        draw in ``idata_`` (NUTS draws of :meth:`sample_posterior`, or exact ones kept by
        ``posterior_draws(store=True)``), log p(x_i, y_i | θ_s) (the rows-form model's likelihood of
        row i, ``pgm_models.inference.workflow``), and their class indices as ``observed_data``
        ``y``: then ``az.loo(model.idata_)`` estimates the leave-one-out log p(y_i, x_i | D₋ᵢ) that
        ``loo(X, y, conditional=False)`` computes exactly. For MANB and BMATAN the draws are joint
        (structure, parameters) draws and the likelihood is the drawn structure's. Returns self.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training rows, those of the fit.
        y : array-like of shape (n_samples,)
            Their labels.

        Returns
        -------
        self
            The model, its ``idata_`` with ``log_likelihood`` ``y`` (chain, draw, row).

        Raises
        ------
        ValueError
            If ``idata_`` holds no posterior draws, y's class counts are not the fitted ones, or
            the model is an average of SPODEs (AODE, AODEsr, WAODE, A2DE: see ``posterior_draws``).

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB().fit(X, y)
        >>> _ = model.posterior_draws(n=100, random_seed=0, store=True)
        >>> model.add_log_likelihood(X, y).idata_.log_likelihood["y"].shape
        (2, 100, 6)
        """
        import arviz as az

        from pgm_models.inference import workflow

        if self._averaged:
            self._refuse_joint_draws()
        posterior = self._sampled_posterior("add_log_likelihood")
        class_index = self._training_rows(X, y)
        if self._averaged:
            pointwise = xr.DataArray(
                self._structure_log_likelihood(
                    posterior, self._encode(as_array_like(X), reset=False, training=True), class_index
                ),
                dims=("chain", "draw", "row"),
                coords={"chain": posterior["chain"].values, "draw": posterior["draw"].values},
            ).assign_coords(row=np.arange(len(class_index)))
        else:
            pointwise = workflow.pointwise_log_likelihood(self, posterior, X, class_index)
        observed = workflow.training_data(self)
        observed["observed_data"] = (
            observed["observed_data"].assign(y=("row", class_index)).assign_coords(row=np.arange(len(class_index)))
        )
        workflow.merge_groups(self, az.InferenceData(log_likelihood=xr.Dataset({"y": pointwise}), **observed))
        return self

    def _sampled_posterior(self, method: str):
        """The posterior draws in ``idata_``, or an error naming what to call first."""
        check_fitted(self, "classes_")
        idata = getattr(self, "idata_", None)
        if idata is None or "posterior" not in idata.groups():
            if self._averaged:
                raise ValueError(
                    f"{method} reads the posterior draws in idata_: call posterior_draws(store=True) "
                    "(exact joint draws of a structure and its parameters) first"
                )
            if self._closed_form:
                raise ValueError(
                    f"{method} reads the posterior draws in idata_: call sample_posterior() (NUTS) or "
                    "posterior_draws(store=True) (exact draws) first"
                )
            raise ValueError(f"{method} reads the NUTS draws: call sample_posterior() first")
        return idata.posterior

    def _training_rows(self, X, y) -> np.ndarray:
        """Y's class indices, checked to be those of the fitted rows (their class counts) and to
        have as many rows as X.
        """
        labels = check_labels(y, self)
        check_n_rows(_n_rows(as_array_like(X)), len(labels))
        class_index = self._class_index(labels)
        counted = np.bincount(class_index, minlength=len(self.classes_))
        if not np.allclose(counted, self.class_count_, rtol=0, atol=1e-9):
            raise ValueError(
                f"y has class counts {counted.tolist()} but the model was fitted on {self.class_count_.tolist()}: "
                "the log likelihood is of the very rows of the fit"
            )
        return class_index

    @available_if(_has_workflow)
    def sample_prior_predictive(self, n=500, random_seed=None):
        """Draws from the prior and, for each, a synthetic dataset of the training size.

        The rows (x, y) of each dataset come from the joint model: PyMC's forward sampling of the
        rows form (``y`` the class indices, the attributes as the rows form names them, e.g.
        ``x_<attribute>``, ``class_count`` the labels' counts); for MultinomialNB, whose rows have
        no fixed length, the statistics its counts form observes. An average of models
        (AODE, AODEsr, WAODE, A2DE, MANB, BMATAN) draws a structure from its prior (a super-parent
        or pair of them uniformly; MANB's arcs, each present with ``arc_prior``; BMATAN's tree from
        ``edge_prior``), then that structure's parameters from their prior and the rows, and keeps
        the structure in ``prior`` (``parent``, ``parents``, ``arc`` or ``edge``).

        Parameters
        ----------
        n : int, default=500
            The number of prior draws, each with its synthetic dataset.
        random_seed : int or numpy Generator, default=None
            The seed of the draws.

        Returns
        -------
        arviz.InferenceData
            ``idata_``, with the groups ``prior``, ``prior_predictive`` and ``observed_data``
            merged in, so that ``az.plot_ppc(model.idata_, group="prior",
            var_names=["class_count"])`` sets the observed class counts against the replicates.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> idata = CategoricalNB().fit(X, y).sample_prior_predictive(100, random_seed=0)
        >>> idata.prior_predictive["y"].shape  # (chain, draw, row)
        (1, 100, 6)
        >>> int(idata.prior_predictive["class_count"].sum("class").max())  # every dataset has 6 rows
        6
        """
        import arviz as az
        import pymc as pm

        from pgm_models.inference import workflow

        check_fitted(self, "classes_")
        n = check_n_draws(n, "n")
        rng = np.random.default_rng(random_seed)
        if self._averaged:
            prior, replicated = workflow.averaged_rows(self, n, rng, prior=True)
        else:
            rows_model = workflow.synthetic_rows_model(self)
            if rows_model is not None:
                drawn = pm.sample_prior_predictive(draws=n, model=rows_model, random_seed=rng)
                prior, replicated = (
                    self._without_auxiliary_draws(drawn.prior),
                    workflow.with_class_count(self, drawn.prior_predictive),
                )
            else:
                whole = self._with_whole_counts()
                prior = self._without_auxiliary_draws(
                    pm.sample_prior_predictive(draws=n, model=whole.pymc_model("counts"), random_seed=rng).prior
                )
                replicated = workflow.counts_predictive(whole, prior, rng, "prior_predictive").prior_predictive
        workflow.merge_groups(
            self, az.InferenceData(prior=prior, prior_predictive=replicated, **workflow.training_data(self))
        )
        return self.idata_

    @available_if(_has_workflow)
    def sample_posterior_predictive(self, X=None, n=500, random_seed=None):
        """Posterior predictive draws, merged into ``idata_`` as ``posterior_predictive``.

        Given rows ``X``: class labels y ~ P(y | x, θ_s) (the classifier's predictive; a fixed
        ``class_prior`` is not applied: the check is of the fitted posterior), as ``y`` (class
        indices in ``classes_``, dims chain, draw, row) and ``class_count`` (their counts per
        class); ``az.plot_ppc(model.idata_)`` then sets the training rows' class counts (and their
        labels, after :meth:`add_log_likelihood`) against the replicates when X is the training X.
        Without X: a synthetic dataset of the training size per draw, rows (x, y) from the joint
        model (forward sampling of the rows form, as for :meth:`sample_prior_predictive`).

        The draws θ_s are the posterior draws in ``idata_`` when there are some (all of them, ``n``
        then unused: NUTS draws of :meth:`sample_posterior`, or exact ones kept by
        ``posterior_draws(store=True)``), else ``n`` fresh exact draws of the closed-form
        posterior (``posterior_draws``, no NUTS). The fresh draws' labels come from
        ``predict_proba_draws``, the kept draws' from the rows-form model's likelihood of each row
        under each class.

        An average of models has no parameter posterior of its own: its labels for given X are
        drawn row by row from its own predictive, ``predict_proba(X, estimate="predictive")``
        (which averages the members exactly as the classifier does), and its synthetic datasets
        from the average's joint: per dataset a structure by its posterior weight (a SPODE or
        pair of super-parents by its weight in the average, MANB's arcs by their posterior
        probabilities, a BMATAN tree from the posterior over spanning trees), that structure's
        parameters from their conjugate posterior, then the rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            The rows whose labels to replicate; None: synthetic datasets of (x, y).
        n : int, default=500
            The number of draws (without NUTS draws, or for an average of models).
        random_seed : int or numpy Generator, default=None
            The seed of the draws.

        Returns
        -------
        arviz.InferenceData
            ``idata_``, with ``posterior_predictive`` and ``observed_data`` merged in.

        Raises
        ------
        ValueError
            If X has columns or categories the model was not fitted on, or ``n`` < 1.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import AODE
        >>> X = np.array([[0, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 0])
        >>> model = AODE().fit(X, y)
        >>> labels = model.sample_posterior_predictive(X[:1], n=4000, random_seed=0).posterior_predictive["y"]
        >>> float((labels == 0).mean().round(2)), float(model.predict_proba(X[:1])[0, 0].round(2))
        (0.85, 0.84)
        """
        import arviz as az

        from pgm_models.inference import workflow

        check_fitted(self, "classes_")
        n = check_n_draws(n, "n")
        rng = np.random.default_rng(random_seed)
        sampled = getattr(self, "idata_", None) is not None and "posterior" in self.idata_.groups()
        if X is None and self._averaged:
            replicated = az.InferenceData(posterior_predictive=workflow.averaged_rows(self, n, rng, prior=False)[1])
        elif X is None:
            if not (sampled or self._closed_form):
                raise ValueError(
                    f"{type(self).__name__} has no closed form to draw from: call sample_posterior() first"
                )
            posterior = (
                self.idata_.posterior if sampled else self.posterior_draws(n, random_seed=rng, chains=1).posterior
            )
            rows_model = workflow.synthetic_rows_model(self)
            if rows_model is not None:
                replicated = az.InferenceData(
                    posterior_predictive=workflow.rows_predictive(self, rows_model, posterior, rng)
                )
            else:
                replicated = workflow.counts_predictive(
                    self._with_whole_counts(), posterior, rng, "posterior_predictive"
                )
        else:
            X = as_array_like(X)
            self._encode(
                X, reset=False, training=True
            )  # an unseen column or category is an error here, not a missing value
            posterior_model = copy.copy(self).set_params(class_prior=None)
            if self._averaged:  # the average's own predictive, row by row
                predictive = posterior_model.predict_proba(X, estimate="predictive")
                probabilities = np.broadcast_to(predictive, (1, n, *predictive.shape))
            elif sampled and self._closed_form:
                probabilities = workflow.class_probability_draws(posterior_model, self.idata_.posterior, X)
            else:  # exact draws, or a model without a closed form, whose predict_proba_draws reads the NUTS draws
                probabilities = posterior_model.predict_proba_draws(X, n_draws=n, random_seed=rng)[None]
            labels = workflow.sampled_labels(probabilities, rng)
            replicated = az.InferenceData(posterior_predictive=workflow.label_predictive(self, labels))
        workflow.merge_groups(
            self, az.InferenceData(posterior_predictive=replicated.posterior_predictive, **workflow.training_data(self))
        )
        return self.idata_

    @available_if(_has_workflow)
    def graph(self, form="counts", X=None, y=None):
        """The model's graph: a ``graphviz.Digraph``, rendered by Jupyter when Graphviz's ``dot``
        is installed; without it, a warning, and the DOT text is the graph's ``.source``.

        A model with a PyMC model draws it (:meth:`pymc_model` of ``form``; "rows" needs X and y)
        by ``pm.model_to_graphviz``; a model fitted with fractional ``sample_weight``, whose counts
        form cannot observe its non-integer counts, is drawn with them rounded (the graph shows
        the variables, their shapes and distributions, not the counts). An average of models has
        no PyMC model: it draws its averaged structure whatever ``form`` (the class and the
        attributes, each dependence an edge labelled with its weight or posterior probability:
        AODE's super-parents by their weights in the average, MANB's arcs and BMATAN's tree edges
        by their posterior probabilities).

        Parameters
        ----------
        form : {"counts", "rows"}, default="counts"
            The PyMC model's form.
        X, y : array-like, default=None
            The rows and labels the rows form observes.

        Returns
        -------
        graphviz.Digraph
            The graph; its ``.source`` is the DOT text.

        Examples
        --------
        >>> import warnings
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> with warnings.catch_warnings():  # no dot on PATH: the source is still there
        ...     warnings.simplefilter("ignore")
        ...     graph = CategoricalNB().fit(X, y).graph()
        >>> "class_prob" in graph.source
        True
        """
        from pgm_models.inference import workflow

        check_fitted(self, "classes_")
        if form not in FORMS:
            raise ValueError(f"form={form!r} is not one of {FORMS}")
        if self._averaged:
            return workflow.structure_graph(self)
        if form == "counts":
            return workflow.model_graph(self._with_whole_counts().pymc_model(form))
        return workflow.model_graph(self.pymc_model(form, X, y))

    def _with_whole_counts(self):
        """The model itself, or where fractional ``sample_weight`` left non-integer counts (which the
        counts form's Multinomials cannot observe) a shallow copy with them rounded: what the
        graph and the synthetic datasets of a weighted fit read.
        """
        rounded = {}
        for name, value in vars(self).items():
            if not name.endswith(("count_", "counts_", "total_")):
                continue
            values = value if isinstance(value, list) else [value]
            if all(isinstance(v, np.ndarray) and np.issubdtype(v.dtype, np.number) for v in values) and not all(
                np.allclose(v, np.round(v), rtol=0, atol=1e-9) for v in values
            ):
                rounded[name] = [np.round(v) for v in values] if isinstance(value, list) else np.round(value)
        if not rounded:
            return self
        shown = copy.copy(self)
        vars(shown).update(rounded)
        return shown

    def _sampling_model(self):
        """The PyMC model NUTS samples: the counts form, whose cost does not grow with N, its
        observed Dirichlet groups in their closed-form posterior's frame (the same density, by an
        exact change of variables: ``pgm_models.conjugate.blocks.posterior_frame``).
        """
        return posterior_frame(self.pymc_model("counts"))

    @available_if(_has_pymc_model)
    def find_map(self, **find_map_kwargs) -> xr.Dataset:
        """The posterior mode found by PyMC's optimiser on the counts-form model.

        ``pymc.find_MAP`` maximises the density in the original parameter space (no Jacobian), so
        for the Dirichlet and Normal–Inverse-Gamma models it is the closed-form
        ``analytic_posterior("mode")``; LDA/QDA's free variables are the Bartlett coordinates of
        the precision, whose mode is not the closed-form mode of Σ.

        Parameters
        ----------
        **find_map_kwargs
            Keywords of ``pymc.find_MAP`` (``method``, ``maxeval``, ...; the progress bar is off
            unless asked for).

        Returns
        -------
        xarray.Dataset
            The mode of every parameter, named as in :meth:`analytic_posterior`.

        Examples
        --------
        >>> import numpy as np
        >>> from pgm_models import CategoricalNB
        >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0], [2, 1], [2, 1]])
        >>> y = np.array([0, 0, 1, 1, 1, 1])
        >>> model = CategoricalNB(alpha=2.0, class_alpha=2.0).fit(X, y)
        >>> mode = model.find_map()
        >>> np.allclose(mode["class_prob"], model.analytic_posterior("mode")["class_prob"], atol=1e-4)
        True
        """
        import pymc as pm

        find_map_kwargs.setdefault("progressbar", False)
        point = pm.find_MAP(model=self.pymc_model("counts"), include_transformed=False, **find_map_kwargs)
        return self._dataset(point)


def integer_counts(counts: np.ndarray, what: str) -> np.ndarray:
    """Counts observed by a PyMC Multinomial/Binomial must be whole numbers."""
    rounded = np.round(counts)
    if not np.allclose(counts, rounded, rtol=0, atol=1e-9):
        raise ValueError(
            f"the counts-form PyMC model observes whole-number {what}; these were fitted with non-integer sample_weight"
        )
    return rounded.astype(np.int64)


def _shifted_exp(scores: np.ndarray):
    """(scores − each row's maximum, exp of that, each row's sum of the exp): a row's log
    posterior is the first less the log of the third, its posterior the second over the third. A row that is −inf everywhere (probability 0 under every
    class, possible only with alpha = 0) becomes uniform rather than NaN. The maxima and sums
    run column by column and through a product: a reduction along a short last axis is several
    times slower. ``scores`` is overwritten.
    """
    peak = np.maximum(scores[:, 0], scores[:, -1])  # a new array: two classes take one call, no copy
    for column in scores.T[1:-1]:
        np.maximum(peak, column, out=peak)
    if not math.isfinite(
        np.add.reduce(peak)
    ):  # one reduction (not through .sum()'s wrapper); the masks only where a row may need them
        scores[np.isneginf(peak)] = 0.0
        peak[~np.isfinite(peak)] = 0.0
    subtract_per_row(scores, peak)
    exp = np.exp(scores)
    return scores, exp, exp @ np.ones(scores.shape[1])


def _all_str(columns: pd.Index) -> bool:
    """Whether every column name is a ``str`` (what scikit-learn takes as feature names): a
    pandas string dtype holds only str, or NaN (iterating the names is a cost on every fit).
    """
    if isinstance(columns.dtype, pd.StringDtype):
        return len(columns) > 0 and not columns.hasnans
    return len(columns) > 0 and all(type(c) is str for c in columns)


def _n_rows(X) -> int:
    if isinstance(X, pd.DataFrame):
        return len(X.index)  # np.shape and np.ndim on a frame are slower
    return np.shape(X)[0] if np.ndim(X) else 0


def _used_dims(parameters) -> list[str]:
    return list(dict.fromkeys(dim for _, dims in parameters.values() for dim in dims))
