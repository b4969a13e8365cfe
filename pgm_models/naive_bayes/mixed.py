"""Mixed naive Bayes: one generative model over a table whose columns have different types.

Model, for classes k and columns j, each column with the class-conditional its type names:

    π ~ Dirichlet(class_alpha),  y_i ~ Categorical(π),  x_ij | y_i = k independent across j:
    categorical  θ_kj ~ Dirichlet(alpha · 1_{S_j}),                  x_ij ~ Categorical(θ_kj)
    gaussian     σ²_kj ~ InvGamma(ν0/2, ν0 s0²_j/2), μ_kj | σ² ~ N(m0_j, σ²/κ0),  x_ij ~ N(μ_kj, σ²_kj)
    bernoulli    θ_kj ~ Beta(alpha, alpha),                            x_ij ~ Bernoulli(θ_kj)
    poisson      λ_kj ~ Gamma(ν_c c̄_j, ν_c),                          x_ij ~ Poisson(λ_kj)

A missing x_ij (NaN/None) is skipped: it is neither counted nor scored. The posterior is the
product of the per-column conjugate posteriors (Dirichlet, Normal–Inverse-Gamma, Beta, Gamma;
see ``pgm_models.conjugate``) and the class Dirichlet, so log p(x, y = k | estimate) is the
class term plus one term per column: ``predict_joint_log_proba`` is the sum of the parts. The
exact posterior predictive ("predictive") multiplies the per-column predictives: categorical and
Bernoulli at the posterior mean, Student-t(2a', m', b'(κ'+1)/(a'κ')) for a Gaussian column,
negative binomial NB(a', b'/(b'+1)) for a count column.

With only categorical columns it is ``CategoricalNB`` and with only float ones ``GaussianNB``
(same defaults: m0, s0² the overall mean and variance of each column, κ0 = 0.01, ν0 = 3); the
count prior has mean c̄_j, the column's overall mean (1 if it is 0), worth ν_c =
``count_strength`` = 1 row.

Column types come from dtypes alone, never from the values, unless ``column_types`` names them,
so every subset of the same table (a fold, a ``partial_fit`` batch) gets the same types: a pandas
Categorical, object or string column is categorical (its domain as in ``CategoricalNB``:
declared categories, else the values seen in the first fit); bool is bernoulli; an integer
column is poisson (counts); any other number is gaussian. An integer measurement is declared
with ``column_types={"age": "gaussian"}``, a 0/1 integer column with ``"bernoulli"``.

The data-scaled priors (m0, s0² of a Gaussian column, c̄ of a count column) are read off the
first batch: ``prior_mean``, ``prior_var`` and ``prior_rate`` pin them per column, so that
``partial_fit`` in batches equals one ``fit`` (and every cross-validation fold has one prior).

The sufficient statistics are model attributes (``categorical_count_``, ``gaussian_count_``,
``gaussian_mean_``, ``gaussian_scatter_``, ``bernoulli_/poisson_count_`` and ``_total_``) that
merge exactly (sums add, Gaussian moments by Chan's formula: ``merged_statistics``), so a fit on
a Dask DataFrame equals the in-memory fit; its categorical columns must then be Categoricals
with known categories.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from pgm_models._utils import jit
from pgm_models._utils.validation import check_concentration, column_name, is_number, reject_non_real_values
from pgm_models.base import BayesianClassifier, Marginal, add_statistics, integer_counts
from pgm_models.conjugate import Beta, Dirichlet, PosteriorDraw, log_probabilities
from pgm_models.conjugate.blocks import DirichletBlocks
from pgm_models.conjugate.gamma import MAX_COUNT, GammaPoisson, poisson_log_density_rows
from pgm_models.conjugate.normal import (
    MAX_ABS_VALUE,
    NormalInverseGamma,
    batch_moments,
    floored_variance,
    merge_moments,
    normal_log_density_rows,
    overall_moments,
    plug_in_moments,
)
from pgm_models.discrete.attributes import CategoricalAttributes, _codes_in, _domain, check_values_to_model
from pgm_models.naive_bayes._discrete import class_weights, log_linear

COLUMN_TYPES = ("categorical", "gaussian", "bernoulli", "poisson")


class _Table:
    """An encoded table: one 2-D array per column type, the same rows in each (sliceable by
    rows, as the base class scores rows in blocks).
    """

    ndim = 2

    def __init__(self, parts: dict, n_rows: int):
        self.parts, self.shape = parts, (n_rows, sum(a.shape[1] for a in parts.values()))

    def __getitem__(self, rows: slice) -> _Table:
        parts = {kind: values[rows] for kind, values in self.parts.items()}
        return _Table(parts, len(range(*rows.indices(self.shape[0]))))


class MixedNB(CategoricalAttributes, BayesianClassifier):
    r"""Naive Bayes over a table whose columns keep their types, each with its conjugate prior.

    One model for a DataFrame of mixed columns: a Categorical/object/string column is
    Dirichlet–categorical (as in :class:`CategoricalNB`), a float column Normal with the
    Normal–Inverse-Gamma prior of :class:`GaussianNB`, a bool column Beta–Bernoulli and an integer
    column (0/1 integers too) Gamma–Poisson, unless ``column_types`` says otherwise
    (``{"flag": "bernoulli", "age": "gaussian"}``). Missing values are skipped per column. With
    only categorical columns it equals ``CategoricalNB``, with only float ones ``GaussianNB``.

    Parameters
    ----------
    column_types : dict, default=None
        {column name (or position, for an array): type} overriding the type the column's dtype
        gives (float: "gaussian", integer: "poisson", bool: "bernoulli", categorical or text:
        "categorical"); the types are "categorical", "gaussian", "bernoulli" and "poisson". Types
        come from dtypes, never from the values, so every subset of the data gets the same ones.
    alpha : float, default=1.0
        Dirichlet (categorical columns) and Beta (bernoulli columns) concentration of every cell (≥ 0).
    class_alpha : float or array-like of shape (n_classes,), default=1.0
        Dirichlet concentration of the class probabilities (≥ 0).
    estimate : {"mean", "map", "mle", "predictive"}, default="mean"
        The parameters predictions plug in (see Notes); each prediction method also takes it per call.
    mean_strength : float > 0, default=0.01
        κ0 of the Gaussian columns (as in ``GaussianNB``).
    var_strength : float > 0, default=3.0
        ν0 of the Gaussian columns (as in ``GaussianNB``).
    var_smoothing : float ≥ 0, default=0.0
        Added to the "mle" variances of the Gaussian columns, × the largest overall variance.
    count_strength : float > 0, default=1.0
        ν_c, the weight in rows of the count columns' prior mean.
    handle_unknown : {"missing", "error"}, default="missing"
        A categorical value outside its domain at prediction is skipped like a missing value (with
        a warning) or raises.
    prior_mean, prior_var : dict, default=None
        {Gaussian column: m0 (a number)} and {Gaussian column: s0² (> 0)} pin the prior mean and
        variance guess of the named columns (default: the column's overall mean and variance in
        the first batch; ``var_smoothing`` is then × the largest of the s0²).
    prior_rate : dict, default=None
        {count column: c̄ > 0} pins the prior mean of the named count columns' rates (default: the
        column's overall mean in the first batch, 1 if it is 0).
    class_prior : array-like of shape (n_classes,), default=None
        A prevalence-shift correction: predictions use these class probabilities (in the order of
        ``classes_``) in place of the class-probability posterior, under every estimate;
        ``set_class_prior`` changes them on a fitted model without refitting. None: the posterior.
        ``loo`` ignores it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        N_k, the (weighted) number of training rows of each class.
    class_concentration_ : ndarray of shape (n_classes,)
        The posterior Dirichlet concentration of the class probabilities, class_alpha + N_k.
    column_types_ : dict
        {column: type} of every column, inferred or given.
    categories_ : list of ndarray
        The domain of each categorical column, in column order.
    n_categories_ : ndarray of shape (n_categorical_columns,)
        The domain sizes of the categorical columns.
    categorical_count_ : ndarray of shape (n_classes, Σ_j S_j)
        The weighted counts N_kjs of the categorical columns' values.
    gaussian_count_, gaussian_mean_, gaussian_scatter_ : ndarray of shape (n_classes, n_gaussian_columns)
        Weight n_kj, mean and centred sum of squares of the observed entries of each Gaussian
        column, per class.
    bernoulli_count_, bernoulli_total_, poisson_count_, poisson_total_ : ndarray of shape (n_classes, n_columns_of_the_kind)
        Weight n_kj and weighted sum Σx of the observed entries of each 0/1 and count column.
    n_features_in_ : int
        The number of columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        The column names, when X was a DataFrame with string column names.

    See Also
    --------
    CategoricalNB : Only categorical columns.
    GaussianNB : Only numeric columns.
    BernoulliNB : Only binary columns.

    Notes
    -----
    For classes k and columns j, each column with the class-conditional its type names:

    .. math::

        \pi \sim \mathrm{Dirichlet}(\alpha_c), \qquad y_i \sim \mathrm{Categorical}(\pi),

    - categorical: θ_kj ~ Dirichlet(α 1_{S_j}), x_ij ~ Categorical(θ_kj);
    - gaussian: σ²_kj ~ InvGamma(ν0/2, ν0 s0²_j/2), μ_kj | σ² ~ N(m0_j, σ²/κ0),
      x_ij ~ N(μ_kj, σ²_kj), with m0_j and s0²_j the column's overall mean and variance;
    - bernoulli: θ_kj ~ Beta(α, α), x_ij ~ Bernoulli(θ_kj);
    - poisson: λ_kj ~ Gamma(ν_c c̄_j, ν_c), x_ij ~ Poisson(λ_kj), c̄_j the column's overall mean
      (1 if it is 0).

    The posterior is the product of the per-column conjugate posteriors (Dirichlet,
    Normal–Inverse-Gamma, Beta, Gamma) and the class Dirichlet, so log p(x, y = k | estimate) is the
    class term plus one term per present column. The exact posterior predictive ("predictive")
    multiplies the per-column predictives: categorical and Bernoulli at the posterior mean,
    Student-t(2a', m', b'(κ' + 1)/(a'κ')) for a Gaussian column, negative binomial
    NB(a', b'/(b' + 1)) for a count column. The PyMC model names the blocks
    ``feature_prob_<column>``, ``feature_mean``/``feature_var``, ``bernoulli_prob`` and
    ``poisson_rate``.

    References
    ----------
    .. [1] K. P. Murphy, *Machine Learning: A Probabilistic Perspective*, MIT Press, 2012,
       sections 3.3–3.5 and 4.6.3.
    .. [2] Li Hang, *Statistical Learning Methods* (2nd ed.), Tsinghua University Press, 2019,
       chapter 4.

    Examples
    --------
    >>> import pandas as pd
    >>> from pgm_models import MixedNB
    >>> X = pd.DataFrame({"colour": pd.Categorical(["red", "red", "blue", "blue", "red", "blue"]),
    ...                   "size": [1.0, 1.3, 3.1, 2.8, 0.9, 3.3],
    ...                   "new": [True, True, False, False, True, True]})
    >>> y = ["a", "a", "b", "b", "a", "b"]
    >>> model = MixedNB().fit(X, y)
    >>> model.column_types_
    {'colour': 'categorical', 'size': 'gaussian', 'new': 'bernoulli'}
    >>> model.predict_proba(X.iloc[:2]).round(3)
    array([[0.991, 0.009],
           [0.981, 0.019]])
    >>> sorted(model.analytic_posterior())
    ['bernoulli_prob', 'class_prob', 'feature_mean', 'feature_prob_colour', 'feature_var']
    """

    # a categorical column declares its domain by its dtype (a Categorical whose categories the
    # Dask engine checks are known); numeric columns need none
    _needs_declared_domains = False

    def __init__(
        self,
        column_types=None,
        alpha=1.0,
        class_alpha=1.0,
        estimate="mean",
        mean_strength=0.01,
        var_strength=3.0,
        var_smoothing=0.0,
        count_strength=1.0,
        handle_unknown="missing",
        prior_mean=None,
        prior_var=None,
        prior_rate=None,
        class_prior=None,
    ):
        self.column_types = column_types
        self.alpha = alpha
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.mean_strength = mean_strength
        self.var_strength = var_strength
        self.var_smoothing = var_smoothing
        self.count_strength = count_strength
        self.handle_unknown = handle_unknown
        self.class_prior = class_prior
        self.prior_mean = prior_mean
        self.prior_var = prior_var
        self.prior_rate = prior_rate

    # ------------------------------------------------------------------ encoding
    def _encode(self, X, reset, training):
        columns, names = self._checked_columns(X, reset)
        where = [column_name(names, j) for j in range(len(columns))]
        if reset:
            self.column_types_ = self._column_types(columns, names, where)
            weight = getattr(self, "_fit_weight", None)
            self.categories_ = [_domain(columns[j], None, where[j], weight) for j in self._of_type("categorical")]
            self.n_categories_ = np.array([len(c) for c in self.categories_], dtype=int)
            check_values_to_model(
                self.n_categories_, [where[j] for j in self._of_type("categorical")], "a pandas Categorical"
            )
        parts = {}
        for kind in COLUMN_TYPES:
            index = self._of_type(kind)
            if not index:
                continue
            if kind == "categorical":
                parts[kind] = self._categorical_codes([columns[j] for j in index], [where[j] for j in index], training)
            else:
                parts[kind] = np.empty((len(columns[0]), len(index)), order="F")  # filled a column at a time
                for i, j in enumerate(index):
                    parts[kind][:, i] = _numbers(columns[j], kind, where[j])
        return _Table(parts, len(columns[0]))

    def _placeholder_rows(self, n: int):
        """N rows of zeros (the first value of a categorical column) in every block (the template's hook)."""
        parts = {
            kind: np.zeros((n, len(self._of_type(kind))), dtype=np.intp if kind == "categorical" else float)
            for kind in COLUMN_TYPES
            if self._of_type(kind)
        }
        return _Table(parts, n)

    def _of_type(self, kind) -> list[int]:
        return [j for j, t in enumerate(self.column_types_.values()) if t == kind]

    def _pinned_prior(self, parameter: str, kind: str, reference: np.ndarray, positive: bool) -> np.ndarray:
        """The data-scaled ``reference`` of the ``kind`` columns (in column order), with the values
        the dict ``parameter`` pins.
        """
        given = getattr(self, parameter)
        if given is None:
            return reference
        columns = [key for key, t in self.column_types_.items() if t == kind]
        if not isinstance(given, dict):
            raise ValueError(f"{parameter} must be a dict {{column: value}} of {kind} columns {columns}, got {given!r}")
        unknown = [key for key in given if key not in columns]
        if unknown:
            which = f"the {kind} columns are {columns}" if columns else f"X has no {kind} column"
            raise ValueError(f"{parameter} names column {unknown[0]!r}, which is not a {kind} column; {which}")
        values = np.array(reference, dtype=float)
        for i, key in enumerate(columns):
            if key in given:
                value = given[key]
                if not (is_number(value) and np.isreal(value) and np.isfinite(value) and (value > 0 or not positive)):
                    raise ValueError(
                        f"{parameter}[{key!r}] must be a finite number{' > 0' if positive else ''}, got {value!r}"
                    )
                values[i] = float(value)
        return values

    def _column_types(self, columns, names, where) -> dict:
        keys = list(names) if names is not None else list(range(len(columns)))
        if self.column_types is not None and not isinstance(self.column_types, dict):
            raise ValueError(
                f"column_types must be a dict {{column: type}} with types from {COLUMN_TYPES}, got {self.column_types!r}"
            )
        given = {} if self.column_types is None else dict(self.column_types)
        for key, kind in given.items():
            if key not in keys:
                raise ValueError(f"column_types names column {key!r}, which X does not have; columns are {keys}")
            if kind not in COLUMN_TYPES:
                raise ValueError(f"column_types[{key!r}] = {kind!r} is not one of {COLUMN_TYPES}")
        return {
            key: given[key] if key in given else _inferred_type(column, where[j])
            for j, (key, column) in enumerate(zip(keys, columns))
        }

    def _categorical_codes(self, columns, where, training):
        per_column = [_codes_in(c, self.categories_[j], where[j]) for j, c in enumerate(columns)]
        # filled a column at a time into a column-major array: np.column_stack's row-major writes are strided
        codes = np.empty((len(per_column[0]), len(per_column)), dtype=np.result_type(*per_column), order="F")
        for j, column in enumerate(per_column):
            codes[:, j] = column
        weight = getattr(self, "_fit_weight", None) if training else None
        for j in np.flatnonzero(codes.min(axis=0, initial=0) < -1):  # each column's minimum: no full-size mask
            self._handle_outside(codes[:, j], columns[j], j, training, where[j], weight)
        return codes

    def _floats_per_row(self) -> int:
        # each block's (rows × columns) temporaries; with numba loaded the categorical and Gaussian columns'
        # compiled loops keep none (the predictive Student-t works in chunks of its own), and blocks would
        # only repeat the tables and concatenate the scores
        if jit.loaded() and set(getattr(self, "_blocks", ())) <= {"categorical", "gaussian"}:
            return 1
        return self.n_features_in_ * 4

    # ------------------------------------------------------------------ counting and scoring
    def _check_parameters(self) -> None:
        """Every column kind's parameters, whether or not X has columns of that kind (scikit-learn's
        convention: a misspelt value is refused at fit, not only on the data that would read it).
        """
        check_concentration(self.alpha, "alpha")
        for name in ("mean_strength", "var_strength", "count_strength"):
            _positive(self, name)
        if not is_number(self.var_smoothing) or not np.isfinite(self.var_smoothing) or self.var_smoothing < 0:
            raise ValueError(f"var_smoothing must be a number ≥ 0, got {self.var_smoothing!r}")
        for parameter, kind, positive in (
            ("prior_mean", "gaussian", False),
            ("prior_var", "gaussian", True),
            ("prior_rate", "poisson", True),
        ):
            self._pinned_prior(parameter, kind, np.zeros(len(self._of_type(kind))), positive)

    def _init_counts(self, table, class_index, weight):
        self._check_parameters()
        blocks = {
            "categorical": _CategoricalBlock,
            "gaussian": _GaussianBlock,
            "bernoulli": _BernoulliBlock,
            "poisson": _PoissonBlock,
        }
        features = np.asarray(list(self.column_types_))
        self._blocks = {
            kind: blocks[kind](self, features[self._of_type(kind)], values, weight)
            for kind, values in table.parts.items()
        }

    def _count(self, table, class_index, weight):
        # the (N, K) class weights only the Bernoulli and Poisson columns' products read
        numeric = {"bernoulli", "poisson"} & set(self._blocks)
        weights = class_weights(class_index, weight, len(self.classes_)) if numeric else None
        for kind, block in self._blocks.items():
            block.add(table.parts[kind], class_index, weight, weights)

    def _statistics(self) -> dict:
        statistics = {"class_count_": self.class_count_}
        for block in self._blocks.values():
            statistics.update({name: getattr(self, name) for name in block.statistic_names()})
        return statistics

    def _statistics_merger(self):
        return merged_statistics

    def _with_whole_counts(self):
        """The template's rounded copy, with blocks of its own: a block reads its counts off the
        model it belongs to, which would be the unrounded original.
        """
        shown = super()._with_whole_counts()
        if shown is not self:
            shown._blocks = {kind: copy.copy(block) for kind, block in self._blocks.items()}
            for block in shown._blocks.values():
                block.model = shown
        return shown

    def _after_merged_statistics(self, first_fit: bool) -> None:
        """On a first fit, the data-scaled priors from the whole data's merged statistics."""
        if first_fit:
            for block in self._blocks.values():
                block.set_prior_from_statistics()

    def _feature_log_likelihood(self, table, estimate):
        return sum(block.log_likelihood(table.parts[kind], estimate) for kind, block in self._blocks.items())

    # ------------------------------------------------------------------ posterior and PyMC
    def _coords(self):
        coords = {"class": self.classes_}
        for block in self._blocks.values():
            coords.update(block.coords())
        return coords

    def _feature_posterior(self):
        return {name: value for block in self._blocks.values() for name, value in block.posterior().items()}

    def _stacked_blocks(self):
        block = self._blocks.get("categorical")
        return [] if block is None else [f"feature_prob_{name}" for name, _ in block._blocks()]

    def _check_proper_prior(self):
        super()._check_proper_prior()
        if any(kind in self._blocks for kind in ("categorical", "bernoulli")) and np.any(
            np.asarray(self.alpha, float) <= 0
        ):
            raise ValueError(
                f"alpha={self.alpha!r}: the PyMC model needs a proper prior (alpha > 0); "
                "with 0 only the closed-form posterior is available"
            )

    def _counts_model(self, model):
        """N_k ~ Multinomial(N, π), then each block's sufficient statistics (see the blocks)."""
        self._class_model(model, observe_counts=True)
        for block in self._blocks.values():
            block.counts_model()

    def _rows_model(self, model, table, class_index):
        """y_i ~ Categorical(π); every observed x_ij from its column's class-conditional."""
        import pymc as pm

        class_prob = self._class_model(model, observe_counts=False)
        categorical = self._blocks.get("categorical")
        # a categorical column's observed variable x_<column> and a numeric kind's x_<kind> share one namespace
        clashes = (
            []
            if categorical is None
            else [name for name, _ in categorical._blocks() if name in self._blocks.keys() - {"categorical"}]
        )
        if clashes:
            raise ValueError(
                f"the categorical column {clashes[0]!r} would be observed by the PyMC variable 'x_{clashes[0]}', the name of "
                f"the {clashes[0]} columns' observed variable: rename the column for form='rows'"
            )
        model.add_coord("row", np.arange(len(class_index)))
        y = pm.Categorical("y", p=class_prob, observed=class_index, dims="row")
        for kind, block in self._blocks.items():
            block.rows_model(model, table.parts[kind], y)


def merged_statistics(a: dict, b: dict) -> dict:
    """Two fits' statistics merged: counts and sums add, the Gaussian columns' moments by Chan's formula."""
    merged = add_statistics(a, b)
    if "gaussian_mean_" in a:
        names = ("gaussian_count_", "gaussian_mean_", "gaussian_scatter_")
        merged.update(zip(names, merge_moments(*(a[n] for n in names), *(b[n] for n in names), full=False)))
    return merged


class _Statistic:
    """A block's sufficient statistic, kept on the model as ``{kind}_{name}_`` (the attributes
    the engines read and merge through ``_statistics``).
    """

    def __init__(self, name: str):
        self.name = name

    def __get__(self, block, owner=None):
        return self if block is None else getattr(block.model, f"{block.kind}_{self.name}_")

    def __set__(self, block, value):
        setattr(block.model, f"{block.kind}_{self.name}_", value)


def _inferred_type(column, where: str) -> str:
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype) or dtype.kind in "OSU" or pd.api.types.is_string_dtype(dtype):
        return "categorical"
    if pd.api.types.is_bool_dtype(dtype):
        return "bernoulli"
    if pd.api.types.is_integer_dtype(dtype):
        return "poisson"
    if pd.api.types.is_numeric_dtype(dtype):
        return "gaussian"
    raise ValueError(f"{where} has dtype {dtype}, which has no column type; set column_types for it")


def _numbers(column, kind: str, where: str) -> np.ndarray:
    """A numeric column as floats with NaN for missing; values checked against the type."""
    reject_non_real_values(getattr(column, "dtype", None), where, f"a {kind} column")
    try:
        if isinstance(column, pd.Series):
            values = column.to_numpy(dtype=float, na_value=np.nan)
        else:
            values = np.asarray(column, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where} is a {kind} column but has a non-numeric value ({error})") from None
    checks = {
        # as GaussianNB's: squared deviations of larger values overflow, and one class's inf scatter became
        # NaN in every class's (the moments' one product over the classes, 0 · inf)
        "gaussian": (
            lambda v: np.abs(v) > MAX_ABS_VALUE,
            f"a value beyond ±{MAX_ABS_VALUE:g} (infinite, or too large for "
            "its squared deviations to stay finite: rescale the column)",
        ),
        "bernoulli": (lambda v: (v != 0) & (v != 1) & ~np.isnan(v), "a value other than 0/1"),
        "poisson": (
            lambda v: ~np.isnan(v) & ~((v >= 0) & (v == np.floor(v)) & (v <= MAX_COUNT)),
            f"a value that is not a count ≥ 0 and ≤ {MAX_COUNT:g} (log x! of a larger count overflows: rescale the column)",
        ),
    }
    bad, problem = checks[kind]
    if kind == "gaussian":
        # the largest and smallest values, missing ones left out: no full-size mask unless one is beyond
        high, low = np.fmax.reduce(values, initial=-np.inf), np.fmin.reduce(values, initial=np.inf)
        if high <= MAX_ABS_VALUE and low >= -MAX_ABS_VALUE:
            return values
    flagged = bad(values)
    if flagged.any():
        raise ValueError(
            f"{where} is a {kind} column and has {problem}: {values[flagged][0]} (column_types sets another type)"
        )
    return values


def _kind_coord(kind: str) -> str:
    return f"{kind}_feature"


class _CategoricalBlock:
    """Categorical columns: θ_kj ~ Dirichlet(alpha), counts N_kjs of the observed values (the
    layout and formulas of ``CategoricalNB``).
    """

    kind = "categorical"
    count = _Statistic("count")

    def __init__(self, model, features, codes, weight):
        self.model, self.features = model, [str(f) for f in features]
        sizes = model.n_categories_
        self.offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        cells = np.repeat(np.broadcast_to(check_concentration(model.alpha, "alpha"), (len(sizes),)), sizes)
        self.prior = Dirichlet(np.broadcast_to(cells, (len(model.classes_), cells.size)), sizes)
        self.count = np.zeros(self.prior.concentration.shape)

    def statistic_names(self):
        return ["categorical_count_"]

    def set_prior_from_statistics(self):
        """The prior is not scaled to the data."""

    def add(self, codes, class_index, weight, weights):
        n_classes = self.count.shape[0]
        if jit.loaded():
            # one compiled pass, each cell's weights added in row order from 0 as np.bincount adds them (from
            # THREAD_MIN_ROWS rows, per block, the blocks in order: fractional weights then round apart):
            # the same batch counts without a (rows × columns) of keys per column
            kernels = jit.kernels("pgm_models.naive_bayes._kernels")
            batch = kernels.value_counts(
                jit.kernel_codes(codes), self.offsets, class_index, np.asarray(weight, dtype=float), self.count.shape
            )
            self.count = self.count + batch
            return
        counts = self.count.copy()
        for (_, block), column in zip(self._blocks(), codes.T):
            size = block.stop - block.start
            seen = column >= 0
            cells = class_index * size + column if seen.all() else (class_index * size + column)[seen]
            counts[:, block] += np.bincount(cells, weight if seen.all() else weight[seen], n_classes * size).reshape(
                n_classes, size
            )
        self.count = counts

    def log_likelihood(self, codes, estimate):
        # a missing value (code −1) points at an extra column of zeros: it adds nothing
        log_table = log_probabilities(self.prior.estimate(self.count, estimate))
        if jit.loaded():
            # the same sums, column after column from the first, a missing code adding nothing (x + 0 = x):
            # bit for bit the look-ups' numbers, with no (rows × columns) of cells nor (rows × K) per column
            kernels = jit.kernels("pgm_models.naive_bayes._kernels")
            return kernels.log_sums(np.ascontiguousarray(log_table), np.asarray(codes, dtype=np.intp), self.offsets, -1)
        table = np.vstack([log_table.T, np.zeros(log_table.shape[0])])  # (T + 1, K)
        cells = np.where(codes >= 0, codes + self.offsets, log_table.shape[1])
        scores = table[cells[:, 0]].copy()
        for j in range(1, cells.shape[1]):
            scores += table[cells[:, j]]
        return scores

    def _blocks(self):
        return [(name, slice(o, o + s)) for name, o, s in zip(self.features, self.offsets, self.model.n_categories_)]

    def coords(self):
        return {f"{name}_value": np.asarray(c) for (name, _), c in zip(self._blocks(), self.model.categories_)}

    def posterior(self):
        concentration = self.prior.posterior(self.count).concentration
        return {
            f"feature_prob_{name}": (Dirichlet(concentration[:, block]), ("class", f"{name}_value"))
            for name, block in self._blocks()
        }

    def _priors(self):
        prior = self.prior.concentration
        # columns with as many values share one stacked PyMC variable (pgm_models.conjugate.blocks)
        return DirichletBlocks(
            [(f"feature_prob_{name}", prior[:, block], ("class", f"{name}_value")) for name, block in self._blocks()]
        )

    def counts_model(self):
        """(N_kjs)_s ~ Multinomial(N_kj, θ_kj) for each class and column."""
        counts = integer_counts(self.count, "categorical counts")
        self._priors().observe({f"feature_prob_{name}": counts[:, block] for name, block in self._blocks()})

    def rows_model(self, model, codes, y):
        """x_ij ~ Categorical(θ_j[y_i]) for every observed x_ij."""
        import pymc as pm

        prob = self._priors().prob
        for (name, _), column in zip(self._blocks(), codes.T):
            rows = np.flatnonzero(column >= 0)
            model.add_coord(f"{name}_row", rows)
            pm.Categorical(
                f"x_{name}", p=prob[f"feature_prob_{name}"][y[rows]], observed=column[rows], dims=f"{name}_row"
            )


class _NumericBlock:
    """Columns of one numeric type, with per-(class, column) counts of the observed entries."""

    kind = ""
    n = _Statistic("count")
    _statistics = ("count",)

    def __init__(self, model, features, values, weight):
        self.model, self.features = model, np.asarray(features)
        self.n = np.zeros((len(model.classes_), values.shape[1]))

    def statistic_names(self):
        return [f"{self.kind}_{name}_" for name in self._statistics]

    def coords(self):
        return {_kind_coord(self.kind): self.features}

    def _dims(self):
        return ("class", _kind_coord(self.kind))

    def _entries(self, model, values, y):
        """Row and column of every observed entry, and its class from y; adds their coordinate."""
        import pymc as pm

        rows, columns = np.nonzero(~np.isnan(values))
        model.add_coord(f"{self.kind}_entry", np.arange(rows.size))
        # an entry's row, for the log likelihood per row (pgm_models.inference.workflow)
        pm.Data(f"{self.kind}_entry_row", rows, dims=f"{self.kind}_entry")
        return y[rows], columns, values[rows, columns]


class _SummedBlock(_NumericBlock):
    """Columns whose sufficient statistics are the count n and the sum Σx of the observed
    entries per (class, column): Bernoulli (Σx = the ones) and Poisson.
    """

    total = _Statistic("total")
    _statistics = ("count", "total")

    def __init__(self, model, features, values, weight):
        super().__init__(model, features, values, weight)
        self.total = np.zeros(self.n.shape)

    def add(self, values, class_index, weight, weights):
        present = ~np.isnan(values)
        self.n = self.n + weights.T @ present
        self.total = self.total + weights.T @ np.where(present, values, 0.0)


class _GaussianBlock(_NumericBlock):
    """Gaussian columns: the Normal–Inverse-Gamma model of ``GaussianNB`` with per-column counts."""

    kind = "gaussian"
    mean, scatter = _Statistic("mean"), _Statistic("scatter")
    _statistics = ("count", "mean", "scatter")

    def __init__(self, model, features, values, weight):
        super().__init__(model, features, values, weight)
        self._set_prior(*overall_moments(values, weight))
        self.mean, self.scatter = np.zeros(self.n.shape), np.zeros(self.n.shape)

    def _set_prior(self, data_mean, data_var):
        """m0, s0² the columns' overall mean and variance; κ0, ν0 the model's strengths."""
        kappa, nu = _positive(self.model, "mean_strength"), _positive(self.model, "var_strength")
        data_mean = self.model._pinned_prior("prior_mean", "gaussian", data_mean, positive=False)
        data_var = self.model._pinned_prior("prior_var", "gaussian", data_var, positive=True)
        self.epsilon = self.model.var_smoothing * data_var.max()
        self.prior = NormalInverseGamma(
            np.broadcast_to(data_mean, self.n.shape), kappa, nu / 2, np.broadcast_to(nu * data_var / 2, self.n.shape)
        )

    def set_prior_from_statistics(self):
        """The prior of the columns' overall moments pooled from the classes' (n_kj, x̄_kj, S_kj)."""
        total = self.n.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(total > 0, (self.n * self.mean).sum(axis=0) / total, 0.0)
            var = np.where(
                total > 0, (self.scatter.sum(axis=0) + (self.n * (self.mean - mean) ** 2).sum(axis=0)) / total, 0.0
            )
        self._set_prior(mean, floored_variance(var))

    def add(self, values, class_index, weight, weights):
        n, mean, scatter = batch_moments(values, class_index, weight, self.n.shape[0], full=False)
        n = np.broadcast_to(n if n.ndim == 2 else n[:, None], self.n.shape)
        self.n, self.mean, self.scatter = merge_moments(self.n, self.mean, self.scatter, n, mean, scatter, full=False)

    def posterior_(self):
        return self.prior.posterior(self.n, self.mean, self.scatter)

    def log_likelihood(self, values, estimate):
        posterior = self.posterior_()
        if estimate == "predictive":
            return posterior.log_predictive_rows(values)
        point = plug_in_moments(
            estimate, posterior, self.n, self.mean, self.scatter, 0, self.epsilon, self.model.classes_, self.features
        )
        return normal_log_density_rows(values, *point)

    def posterior(self):
        joint = self.posterior_()
        return {
            "feature_mean": (Marginal(joint, "mu"), self._dims()),
            "feature_var": (Marginal(joint, "var"), self._dims()),
        }

    def _priors(self):
        import pymc as pm

        var = pm.InverseGamma("feature_var", alpha=self.prior.a, beta=self.prior.b, dims=self._dims())
        mean = pm.Normal("feature_mean", mu=self.prior.m, sigma=pm.math.sqrt(var / self.prior.kappa), dims=self._dims())
        return mean, var

    def counts_model(self):
        """x̄_kj ~ N(μ_kj, σ²_kj/n_kj) where n_kj ≥ 1; S_kj ~ Gamma((n_kj − 1)/2, 1/(2σ²_kj)) where n_kj ≥ 2."""
        import pymc as pm

        mean, var = self._priors()
        n = integer_counts(self.n, "Gaussian column counts")
        seen, several = np.nonzero(n >= 1), np.nonzero(n >= 2)
        pm.Normal("sample_mean", mu=mean[seen], sigma=pm.math.sqrt(var[seen] / n[seen]), observed=self.mean[seen])
        pm.Gamma(
            "sample_scatter", alpha=(n[several] - 1) / 2, beta=1 / (2 * var[several]), observed=self.scatter[several]
        )

    def rows_model(self, model, values, y):
        """x_ij ~ N(μ[y_i, j], σ²[y_i, j]) for every observed x_ij."""
        import pymc as pm

        mean, var = self._priors()
        classes, columns, observed = self._entries(model, values, y)
        pm.Normal(
            "x_gaussian",
            mu=mean[classes, columns],
            sigma=pm.math.sqrt(var[classes, columns]),
            observed=observed,
            dims="gaussian_entry",
        )


class _BernoulliBlock(_SummedBlock):
    """0/1 columns: θ_kj ~ Beta(alpha, alpha), the two-category Dirichlet (absent, present)."""

    kind = "bernoulli"

    def set_prior_from_statistics(self):
        """The prior is not scaled to the data."""

    def __init__(self, model, features, values, weight):
        super().__init__(model, features, values, weight)
        alpha = check_concentration(model.alpha, "alpha")
        self.prior = Dirichlet(np.broadcast_to(alpha, self.n.shape + (2,)))

    def _counts(self):
        return np.stack([self.n - self.total, self.total], axis=-1)

    def log_likelihood(self, values, estimate):
        log_prob = log_probabilities(self.prior.estimate(self._counts(), estimate))  # (K, F, 2)
        design = np.hstack([values == 0, values == 1]).astype(float)  # a missing entry is neither
        return log_linear(design, np.concatenate([log_prob[..., 0], log_prob[..., 1]], axis=1))

    def posterior(self):
        concentration = self.prior.posterior(self._counts()).concentration
        return {"bernoulli_prob": (Beta(concentration[..., 1], concentration[..., 0]), self._dims())}

    def _priors(self):
        import pymc as pm

        prior = self.prior.concentration
        return pm.Beta("bernoulli_prob", alpha=prior[..., 1], beta=prior[..., 0], dims=self._dims())

    def counts_model(self):
        """N1_kj ~ Binomial(n_kj, θ_kj): the ones among the n_kj observed entries."""
        import pymc as pm

        prob = self._priors()
        pm.Binomial(
            "bernoulli_count",
            n=integer_counts(self.n, "binary column counts"),
            p=prob,
            observed=integer_counts(self.total, "binary column counts"),
            dims=self._dims(),
        )

    def rows_model(self, model, values, y):
        """x_ij ~ Bernoulli(θ[y_i, j]) for every observed x_ij."""
        import pymc as pm

        prob = self._priors()
        classes, columns, observed = self._entries(model, values, y)
        pm.Bernoulli(
            "x_bernoulli", p=prob[classes, columns], observed=observed.astype(np.int64), dims="bernoulli_entry"
        )


class _PoissonBlock(_SummedBlock):
    """Count columns: λ_kj ~ Gamma(ν_c c̄_j, ν_c), c̄_j the column's overall mean (1 if it is 0)."""

    kind = "poisson"

    def __init__(self, model, features, values, weight):
        super().__init__(model, features, values, weight)
        self._set_prior(overall_moments(values, weight)[0])

    def _set_prior(self, data_mean):
        strength = _positive(self.model, "count_strength")
        rate = self.model._pinned_prior("prior_rate", "poisson", np.where(data_mean > 0, data_mean, 1.0), positive=True)
        self.prior = GammaPoisson(np.broadcast_to(strength * rate, self.n.shape), strength)

    def set_prior_from_statistics(self):
        """The prior mean from the columns' overall mean Σ_k Σx / Σ_k n."""
        total = self.n.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            self._set_prior(np.where(total > 0, self.total.sum(axis=0) / total, 0.0))

    def posterior_(self):
        return self.prior.posterior(self.n, self.total)

    def log_likelihood(self, values, estimate):
        posterior = self.posterior_()
        if estimate == "predictive":
            return posterior.log_predictive_rows(values)
        if isinstance(estimate, PosteriorDraw):
            rate = posterior.sample(1, estimate.rng)[0]
        elif estimate == "mle":
            with np.errstate(invalid="ignore", divide="ignore"):
                rate = np.where(self.n > 0, self.total / self.n, np.nan)
            if np.isnan(rate).any():
                k, j = np.argwhere(np.isnan(rate))[0]
                raise ValueError(
                    f"class {self.model.classes_[k : k + 1].tolist()[0]!r}, count column {self.features[j : j + 1].tolist()[0]!r}: the mle rate is "
                    "undefined (no observed value); use estimate='mean', 'map' or 'predictive'"
                )
        else:
            rate = posterior.mode() if estimate == "map" else posterior.mean()
        return poisson_log_density_rows(values, rate)

    def posterior(self):
        return {"poisson_rate": (self.posterior_(), self._dims())}

    def _priors(self):
        import pymc as pm

        return pm.Gamma("poisson_rate", alpha=self.prior.a, beta=self.prior.b, dims=self._dims())

    def counts_model(self):
        """s_kj ~ Poisson(n_kj λ_kj): the sum of the n_kj observed counts."""
        import pymc as pm

        rate = self._priors()
        n = integer_counts(self.n, "count column counts")
        seen = np.nonzero(n >= 1)
        pm.Poisson("poisson_total", mu=n[seen] * rate[seen], observed=self.total[seen])

    def rows_model(self, model, values, y):
        """x_ij ~ Poisson(λ[y_i, j]) for every observed x_ij."""
        import pymc as pm

        rate = self._priors()
        classes, columns, observed = self._entries(model, values, y)
        pm.Poisson("x_poisson", mu=rate[classes, columns], observed=observed.astype(np.int64), dims="poisson_entry")


def _positive(model, name: str) -> float:
    value = getattr(model, name)
    if not is_number(value) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a number > 0, got {value!r}")
    return float(value)
