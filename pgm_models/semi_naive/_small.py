"""The small-fold path of AODEsr, WAODE and HNB: ``fit`` and ``predict_proba`` of a frame of
Categoricals in a few Python calls.

A cross-validation fold of a few hundred rows is mostly fixed cost: the template's fit and
prediction (``pgm_models.base``) pass through some 250 and 150 Python calls each (checking and
encoding the frame, the labels, the weights, the class prior), which cost more than the compiled
counting and scoring (BENCHMARKS.md, "Compiled kernels for small folds"). The common case of a
fold — a DataFrame whose every column is a Categorical of a domain already seen (a fold sliced from
one frame, so its columns and dtypes are the very objects of the earlier folds), a Categorical
label Series, no ``sample_weight``, plain hyperparameters, a fresh estimator — is recognised by
identity and takes these methods, which call the template's own steps (its priors, ``_init_counts``
and ``_count``, ``_joint_log_likelihood``) without the checks that identity already answers.
Anything else, and any of it when ``SMALL_PATH`` is off or numba is not loaded (the compiled
scoring is what makes the rest worth it), takes the template's path; both leave the same fitted
state and the same probabilities (a test compares them to 1e-12).
"""

from __future__ import annotations

import operator
import weakref

import numpy as np
import pandas as pd

from pgm_models._utils import jit
from pgm_models._utils.frames import categorical_codes, categorical_codes_of, column_arrays, index_values
from pgm_models._utils.shared_priors import shared_prior
from pgm_models._utils.validation import sorted_classes
from pgm_models._utils.weights import unit_weights
from pgm_models.base import BayesianClassifier
from pgm_models.conjugate import Dirichlet
from pgm_models.discrete import attributes, pairs
from pgm_models.discrete.pairs import PairLayout
from pgm_models.semi_naive import aode

# Fit and predict small folds by ``SmallFolds``' methods where they apply; False: always the template's.
SMALL_PATH = True
# Rows of a prediction up to which it is one block (the template's one-block limit: ``base.predict_joint_log_proba``)
SMALL_ROWS = 256
_ESTIMATORS = ("laplace", "m-estimate")
# a Categorical's dtype is its C-level ``_dtype`` (its ``dtype`` property is a Python call, one per column)
_DTYPE = operator.attrgetter("_dtype")
_PLAIN = (int, float)
# The largest pair tensor (classes × cells², floats) the small fit counts without the template's memory check
SMALL_TENSOR = 1 << 18
# (type, hyperparameters, ids of the columns' and the label's dtypes) → what the folds of one frame share
# (``SmallFolds._small_context``): the domains, classes, class prior and layout found once, not per fold
_CONTEXTS: dict = {}
_CONTEXTS_KEPT = 64
# (columns, names) of the last frame whose column names were found distinct strings: a fold's columns
# are a new Index sharing the frame's identity (``Index.is_``), so the check runs once per frame
_NAMED_COLUMNS = [None, None]


def _plain(value) -> bool:
    """A plain Python number ≥ 0 (not NaN, not a bool, not ∞: the checks the slow path makes pass)."""
    return type(value) in _PLAIN and 0 <= value < float("inf")


def _string_names(columns: pd.Index):
    """The column names as a read-only array if they are distinct strings, else None (the template checks them)."""
    last, names = _NAMED_COLUMNS
    if last is not None and columns.is_(last):
        return names
    if not (len(columns) and columns.is_unique and all(type(c) is str for c in columns)):
        return None
    names = np.asarray(columns).view()
    names.flags.writeable = False
    _NAMED_COLUMNS[:] = columns, names
    return names


class SmallFolds:
    """Mixin (before the semi-naive template in the bases) giving ``fit`` and ``predict_proba`` their
    small-fold path; ``_small_parameters`` says whether the model's own hyperparameters are plain.
    """

    # the numeric hyperparameters (the model's own among them: AODEsr's critical value) that must be plain
    _small_numbers = operator.attrgetter("alpha", "m")

    def _small_parameters(self) -> bool:
        """Whether the hyperparameters are plain numbers and names (learned α, a class prior, declared
        sizes or a bad value: the template's path, which checks them).
        """
        return (
            self.estimator in _ESTIMATORS
            and all(map(_plain, self._small_numbers(self)))  # (an attrgetter is not bound: given self)
            and self.class_prior is None
            and self.n_categories is None
            and self.handle_unknown in attributes.HANDLE_UNKNOWN
            and type(self.estimate) is str
            and self.estimate in ("mean", "predictive")
        )

    def fit(self, X, y, sample_weight=None):
        if (
            SMALL_PATH
            and sample_weight is None
            and type(X) is pd.DataFrame
            and type(y) is pd.Series
            and jit.loaded()
            and self._small_fit(X, y)
        ):
            return self
        return super().fit(X, y, sample_weight)

    fit.__doc__ = BayesianClassifier.fit.__doc__

    def _small_fit(self, X, y) -> bool:
        """Fit a fold of the common case (see the module) and return True, or return False having set
        nothing (the template's fit then runs).
        """
        if any(name[-1] == "_" for name in vars(self)) or not self._small_parameters():
            return False  # a refit (the template forgets the earlier fit) or a hyperparameter to check
        labels = y.array
        y_dtype = getattr(labels, "_dtype", None)
        if not isinstance(y_dtype, pd.CategoricalDtype):
            return False
        class_index = categorical_codes(labels)
        n_rows = len(class_index)
        if n_rows == 0 or len(X.index) != n_rows or np.minimum.reduce(class_index) < 0:
            return False  # a missing label, or lengths that differ: the template's errors
        names = _string_names(X.columns)
        if names is None:
            return False
        columns = column_arrays(X)
        try:
            dtypes = list(map(_DTYPE, columns))
        except AttributeError:  # a NumPy column: not a frame of Categoricals
            return False
        dtypes.append(y_dtype)
        key = (type(self), self.estimator, self.alpha, self.m, *map(id, dtypes))
        context = _CONTEXTS.get(key)
        # by identity (an id can be reused; comparing Categorical dtypes compares their categories)
        if context is None or not all(map(operator.is_, map(operator.call, context[0]), dtypes)):
            context = self._small_context(key, dtypes, labels)
            if context is None:
                return False
        _, categories, sizes, classes, class_prior, layout, _ = context
        del dtypes[-1]
        self.n_features_in_, self.feature_names_in_ = len(names), names.copy()
        self._fitted_columns = X.columns
        self.categories_, self._domain_dtypes, self.n_categories_ = list(categories), dtypes, sizes.copy()
        self.classes_, self._class_prior, self._layout = classes.copy(), class_prior, layout
        codes = np.array(categorical_codes_of(columns)).T  # the Categoricals' own (narrow) codes, as the template's
        class_index = class_index.astype(np.intp)
        weight = unit_weights(n_rows)
        n_classes = len(classes)
        if n_rows * layout.n_cells**2 <= pairs.DIRECT_PRODUCT_WORK and pairs.COMPILED_SMALL_COUNTS:
            # the template's counts (``pairs.pair_counts``' bit sets) without its checks: the tensor is
            # at most SMALL_TENSOR floats (``_small_context``), whose memory check cannot refuse it
            if n_rows <= context[6]:  # ``pairs._bit_counts``' one chunk of rows: its kernel called directly
                self.pair_count_ = np.zeros((n_classes, layout.n_cells, layout.n_cells))
                jit.kernels("pgm_models.discrete.bitsets").add_value_pair_counts(
                    jit.kernel_codes(codes), layout.starts, layout.missing_cells, class_index, self.pair_count_
                )
            else:
                self.pair_count_ = pairs._bit_counts(
                    codes, layout.starts, layout.missing_cells, class_index, n_classes, layout.n_cells
                )
        else:
            self._init_counts(codes, class_index, weight)
            self._count(codes, class_index, weight)
        self.class_count_ = np.bincount(class_index, weight, n_classes)
        self.class_concentration_ = class_prior.posterior(self.class_count_).concentration
        return True

    def _small_context(self, key, dtypes, labels):
        """What every fold of one frame and these hyperparameters shares, kept in ``_CONTEXTS``: (weak
        references to the columns' and the label's dtypes, the domains, their sizes, the classes, the
        class prior, the pair layout, the rows the bit sets count in one chunk), found as the template finds them; None where the small path
        does not apply (domains not yet known, an empty one, class categories out of sorted order, a
        tensor above ``SMALL_TENSOR``).
        """
        if not type(self).__module__.startswith("pgm_models."):
            return None  # a subclass of its own may make its priors otherwise (``shared_prior`` makes them afresh)
        known = attributes._CATEGORICAL_DOMAINS.get(tuple(map(id, dtypes[:-1])))  # the domains of an earlier fold
        if known is None or not all(map(operator.is_, map(operator.call, known[0]), dtypes)) or min(known[2]) == 0:
            return None
        categories = index_values(labels.categories)
        classes = sorted_classes(categories)
        if classes.tolist() != categories.tolist():
            return None  # the categories not in sorted order: the template maps them
        n_classes = len(classes)
        layout = PairLayout.of_sizes(tuple(known[2]))
        if n_classes * layout.n_cells**2 > SMALL_TENSOR or n_classes * layout.n_cells > pairs.BITSET_CLASS_CELLS:
            return None
        class_alpha = self._class_concentration(n_classes)
        class_prior = shared_prior(
            ("class", n_classes, class_alpha.shape, class_alpha.tobytes()),
            lambda: Dirichlet(np.broadcast_to(class_alpha.copy(), (n_classes,))),
            self,
        )
        if len(_CONTEXTS) >= _CONTEXTS_KEPT:
            _CONTEXTS.clear()
        context = _CONTEXTS[key] = (
            [weakref.ref(dtype) for dtype in dtypes],
            known[1],
            np.array(known[2]),
            classes,
            class_prior,
            layout,
            # the rows ``pairs._bit_counts`` counts in one chunk
            64
            * max(
                1,
                min(
                    pairs.BITSET_BYTES // (8 * n_classes * layout.n_cells),
                    pairs.CHUNK_CODE_BYTES // (64 * 8 * max(1, len(known[2]))),
                ),
            ),
        )
        return context

    def predict_proba(self, X, estimate=None):
        if SMALL_PATH and estimate is None and type(X) is pd.DataFrame and jit.loaded():
            probabilities = self._small_predict_proba(X)
            if probabilities is not None:
                return probabilities
        return super().predict_proba(X, estimate)

    predict_proba.__doc__ = BayesianClassifier.predict_proba.__doc__

    def _small_predict_proba(self, X):
        """``predict_proba`` of a frame with the fitted columns and the fitted domains' own dtypes (a
        fold of the training frame), up to ``SMALL_ROWS`` rows; None otherwise.
        """
        state = vars(self)
        fitted_columns = state.get("_fitted_columns")
        if fitted_columns is None or not X.columns.is_(fitted_columns) or not self._small_parameters():
            return None
        columns = column_arrays(X)
        fitted = state["_domain_dtypes"]
        try:
            if not (len(columns) == len(fitted) and all(map(operator.is_, map(_DTYPE, columns), fitted))):
                return None
        except AttributeError:  # a NumPy column: not the fitted Categoricals
            return None
        if not 0 < len(X.index) <= SMALL_ROWS:
            return None
        codes = np.array(categorical_codes_of(columns), dtype=np.intp).T
        return jit.kernels("pgm_models.semi_naive._small_kernel").probabilities(self._small_scores(codes))

    def _small_scores(self, codes):
        """The joint log probabilities (N, K) of the rows' ``codes`` (intp, −1 missing) under the posterior mean."""
        return self._joint_log_likelihood(codes, self.estimate)


class SmallAveragedFolds(SmallFolds):
    """``SmallFolds`` of AODE's subclasses (AODEsr, WAODE): their scores by one compiled call from the
    pair counts (``_small_kernel.aode_scores``: AODE's average in the probability domain, a log per
    row and class where AODE's kernels log K·T² table entries), under what the small path's plain
    hyperparameters assure: the posterior mean, every concentration > 0, no class prior. With a
    concentration of 0, or ``aode.COMPILED_SCORING`` off, AODE's own scoring.
    """

    def _small_scores(self, codes):
        positive = self.m > 0 if self.estimator == "m-estimate" else self.alpha > 0
        if not (aode.COMPILED_SCORING and positive):
            return self._joint_log_likelihood(codes, self.estimate)
        layout = self._layout
        scores, fallback = jit.kernels("pgm_models.semi_naive._small_kernel").aode_scores(
            self.pair_count_,
            layout.value_cells,
            layout.value_starts,
            layout.sizes,
            self._joint_prior().concentration.reshape(len(layout.value_cells), len(self.classes_)),
            self._child_prior().concentration[0],
            self._parent_codes(codes, 0),
            float(self.frequency_limit),
            self._log_weights(),
        )
        if fallback.any():
            scores[fallback] = self._log_naive_bayes(codes[fallback], self.estimate)
        return scores
