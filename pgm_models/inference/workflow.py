"""The Bayesian workflow's InferenceData: pointwise log likelihoods and predictive draws of a fitted model.

An estimator keeps one ``arviz.InferenceData`` in ``idata_``, its groups merged as ArviZ merges
them (a group computed again replaces the old one):

- ``posterior``, ``sample_stats``: NUTS (``sample_posterior``);
- ``observed_data``: ``class_count``, the training rows' class counts, and ``y``, their class
  indices in ``classes_``, when the training rows were given;
- ``constant_data``: ``class_concentration``, the class probabilities' prior concentration;
- ``log_likelihood``: ``y``, log p(x_i, y_i | θ_s) of each training row i under each draw s (the
  rows-form model's likelihood of the row, all its observed variables summed), so that
  ``az.loo(idata_)`` estimates the leave-one-out predictive log p(y_i, x_i | D₋ᵢ), which
  ``model.loo(X, y, conditional=False)`` computes exactly;
- ``prior``, ``prior_predictive``: draws from the prior and a synthetic dataset of the training
  size for each;
- ``posterior_predictive``: ``y`` (class indices) and ``class_count`` replicated for given rows
  X, or a synthetic dataset of the training size per draw.

An average of models (``_averaged``: AODE, AODEsr, WAODE, A2DE, MANB, BMATAN) has no PyMC model
and no parameter posterior of its own. Its labels for given rows are drawn from its own predictive
``predict_proba(X, estimate="predictive")``, row by row; its synthetic datasets
(``averaged_rows``) from the average's joint, read as Bayesian model averaging: per dataset one
structure by its weight (prior or posterior), that structure's parameters from their conjugate
prior or posterior, then the rows (the model's ``_synthetic_rows``); ``structure_graph`` draws the
averaged structure (``_structure_edges``).

A synthetic dataset is rows (x, y) drawn from the joint model by PyMC's forward sampling of the
rows form over placeholder rows (``_placeholder_rows``: the observed values are replaced, only
their number and layout are read); for a model whose rows have no fixed size (MultinomialNB's
documents) it is the statistics the counts form observes, replicated.

The log likelihood of a draw is the rows-form PyMC model's own (``pm.compute_log_likelihood``), so
every family with a rows form gets it, from NUTS draws (``sample_posterior``) or exact ones kept by
``posterior_draws(store=True)``; it needs the model's free variables in the draws (``pymc_trace``
adds the stacked Dirichlet groups back). An observed variable is summed per row over its ``row`` or
``<name>_row`` dim, or over entries (several per row: MixedNB's numeric columns, ComplementNB's
documents once per other class) whose rows the model's data variable ``<entry dim>_row`` names;
``_log_likelihood_offset`` adds a model's own per-row term (MultinomialNB scores a document as
its ordered words, as its ``loo`` does, leaving out the Multinomial's coefficient). The rows-form
likelihood is the classifier's p(x, y | θ) except for HNB (each attribute observed once per table
it has, the tables' model rather than the weighted mixture that classifies) and ComplementNB
(each document observed under every other class's complement): those two have no exact ``loo``
to compare ``az.loo`` with. MANB and BMATAN, Bayesian model averages, store joint draws (a
structure by its posterior probability, then its conjugate parameters) and each row's log
likelihood under the drawn structure (their ``_structure_draws`` and
``_structure_log_likelihood``); the averages of SPODEs have no posterior over structures and
refuse (their ``loo`` is exact, but A2DE's). HierarchicalNB, whose θ is integrated out, stores
log p(y_i, x_i | D₋ᵢ, λ_s) per NUTS draw of λ (its ``add_log_likelihood``), the term PSIS needs
for rows that are not independent given λ.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from pgm_models._utils.validation import check_slash_free, idata_names

SAMPLE_DIMS = ("chain", "draw")


DATA_GROUPS = ("observed_data", "constant_data")


def model_graph(model):
    """``pm.model_to_graphviz(model)``: a ``graphviz.Digraph``, which Jupyter renders (its ``.source``
    is the DOT text). Rendering runs Graphviz's ``dot``; without it on PATH a warning says how to
    render the source.
    """
    import pymc as pm

    graph = pm.model_to_graphviz(model)
    _warn_without_dot()
    return graph


def _warn_without_dot() -> None:
    import shutil
    import warnings

    if shutil.which("dot") is None:
        warnings.warn(
            "Graphviz's dot program is not on PATH, so the graph cannot be rendered here: its DOT text is the "
            "returned graph's .source (install Graphviz, e.g. apt install graphviz, to render it, or paste the "
            "source into any DOT viewer)",
            UserWarning,
            stacklevel=4,
        )


def merge_groups(estimator, idata) -> None:
    """``idata``'s groups into ``estimator.idata_`` (created if absent): a group of draws already
    there is replaced, the data groups gain the new variables.
    """
    check_slash_free(idata_names(idata))
    existing = getattr(estimator, "idata_", None)
    if existing is None:
        estimator.idata_ = idata
        return
    for group in DATA_GROUPS:
        if group in idata.groups() and group in existing.groups():
            setattr(idata, group, existing[group].merge(idata[group], compat="override", join="outer"))
    existing.extend(idata, join="right")


def training_data(estimator) -> dict:
    """The ``observed_data`` and ``constant_data`` every fitted model has: its class counts and
    the class prior's concentration.
    """
    classes = {"class": estimator.classes_}
    observed = xr.Dataset({"class_count": ("class", np.asarray(estimator.class_count_))}, coords=classes)
    constant = (
        xr.Dataset(
            {
                "class_concentration": (
                    "class",
                    np.broadcast_to(estimator._class_prior.concentration, len(estimator.classes_)),
                )
            },
            coords=classes,
        )
        if hasattr(estimator, "_class_prior")
        else None
    )
    return {"observed_data": observed, **({"constant_data": constant} if constant is not None else {})}


def pointwise_log_likelihood(estimator, posterior: xr.Dataset, X, class_index: np.ndarray) -> xr.DataArray:
    """Log p(x_i, y_i = class_index[i] | θ_s) for every draw s of ``posterior`` and row i: (chain,
    draw, row), the rows-form model's observed variables summed per row (a variable covers the rows
    where it is observed, the row numbers its ``row`` or ``<column>_row`` coordinate).
    """
    import arviz as az
    import pymc as pm

    model = estimator.pymc_model("rows", X, estimator.classes_[class_index])
    trace = estimator.pymc_trace(az.InferenceData(posterior=posterior))
    absent = [rv.name for rv in model.free_RVs if rv.name not in trace.posterior]
    if absent:
        raise ValueError(
            f"the draws lack the rows-form model's free variables {absent}: the pointwise log likelihood of "
            f"{type(estimator).__name__} needs draws of them"
        )
    pointwise = pm.compute_log_likelihood(trace, model=model, extend_inferencedata=False, progressbar=False)
    n_rows = len(class_index)
    total = np.zeros((posterior.sizes["chain"], posterior.sizes["draw"], n_rows))
    offset = estimator._log_likelihood_offset(X)
    if offset is not None:
        total += np.asarray(offset, dtype=float)
    for name, values in pointwise.data_vars.items():
        values = values.transpose(*SAMPLE_DIMS, ...)
        row_dims = [
            dim for dim in values.dims if dim == "row" or str(dim).endswith("_row") or f"{dim}_row" in model.named_vars
        ]
        if len(row_dims) != 1:
            raise ValueError(f"observed variable {name!r} of the rows-form model has no single row dim: {values.dims}")
        row_dim = row_dims[0]
        other = [dim for dim in values.dims if dim not in (*SAMPLE_DIMS, row_dim)]
        per_row = values.sum(other).transpose(*SAMPLE_DIMS, row_dim)
        if f"{row_dim}_row" in model.named_vars:  # entries, several per row: the model's data names their rows
            rows = np.asarray(model.named_vars[f"{row_dim}_row"].get_value(), dtype=np.intp)
        else:  # the rows it observes (a SPODE's "row": those with the parent)
            rows = np.asarray(values[row_dim].values, dtype=np.intp)
        np.add.at(total, (slice(None), slice(None), rows), per_row.values)
    return xr.DataArray(
        total,
        dims=(*SAMPLE_DIMS, "row"),
        coords={"chain": posterior["chain"].values, "draw": posterior["draw"].values, "row": np.arange(n_rows)},
    )


def draw_values(posterior: xr.Dataset, names: list[str], owner: str) -> dict:
    """{name: values (chain, draw, ...)} of the draws of ``posterior``, or an error naming the
    variables ``owner``'s log likelihood needs and the draws lack.
    """
    absent = [name for name in names if name not in posterior]
    if absent:
        raise ValueError(f"the draws lack the variables {absent}: the pointwise log likelihood of {owner} needs them")
    return {name: posterior[name].transpose(*SAMPLE_DIMS, ...).values for name in names}


def class_probability_draws(estimator, posterior: xr.Dataset, X) -> np.ndarray:
    """P(y = k | x_n, θ_s) for every draw of ``posterior``: (chain, draw, N, K), from the rows-form
    log likelihood of each row labelled with each class in turn, normalised over the classes.
    """
    n_rows = len(X) if hasattr(X, "__len__") else np.shape(X)[0]
    joint = np.stack(
        [
            pointwise_log_likelihood(estimator, posterior, X, np.full(n_rows, k)).values
            for k in range(len(estimator.classes_))
        ],
        axis=-1,
    )
    joint -= joint.max(axis=-1, keepdims=True)
    probabilities = np.exp(joint)
    return probabilities / probabilities.sum(axis=-1, keepdims=True)


def sampled_labels(probabilities: np.ndarray, rng) -> np.ndarray:
    """One class index per (…, row) drawn from its probabilities over the last axis."""
    cumulative = np.cumsum(probabilities, axis=-1)
    uniform = rng.random(probabilities.shape[:-1] + (1,)) * cumulative[..., -1:]
    return np.minimum((uniform > cumulative).sum(axis=-1), probabilities.shape[-1] - 1)


def label_predictive(estimator, labels: np.ndarray) -> xr.Dataset:
    """``y`` (chain, draw, row) and its ``class_count`` (chain, draw, class) from sampled class indices."""
    n_classes = len(estimator.classes_)
    counts = (labels[..., None] == np.arange(n_classes)).sum(axis=-2)
    chains, draws, n_rows = labels.shape
    return xr.Dataset(
        {"y": ((*SAMPLE_DIMS, "row"), labels), "class_count": ((*SAMPLE_DIMS, "class"), counts)},
        coords={
            "chain": np.arange(chains),
            "draw": np.arange(draws),
            "row": np.arange(n_rows),
            "class": estimator.classes_,
        },
    )


def synthetic_rows_model(estimator):
    """The rows-form PyMC model over as many placeholder rows as were fitted (``_placeholder_rows``),
    whose observed variables forward sampling replaces by synthetic rows; None for a model without
    placeholder rows.
    """
    import pymc as pm

    n_rows = round(float(np.sum(estimator.class_count_)))
    encoded = estimator._placeholder_rows(n_rows)
    if encoded is None:
        return None
    coords = estimator._coords()
    check_slash_free(coords)
    with pm.Model(coords=coords) as model:
        estimator._rows_model(model, encoded, np.zeros(n_rows, dtype=np.intp))
    return model


def with_class_count(estimator, replicated: xr.Dataset) -> xr.Dataset:
    """``replicated`` in the model's own variables (``_synthetic_variables``: ``y``, the class
    indices, and the attributes) with ``class_count`` (chain, draw, class), the counts of its labels.
    """
    replicated = estimator._synthetic_variables(replicated)
    counts = (replicated["y"].values[..., None] == np.arange(len(estimator.classes_))).sum(axis=-2)
    return replicated.assign(class_count=((*SAMPLE_DIMS, "class"), counts)).assign_coords({"class": estimator.classes_})


def rows_predictive(estimator, model, posterior: xr.Dataset, rng) -> xr.Dataset:
    """Synthetic rows (``y`` and the attributes' ``x`` variables, as the rows form names them) of
    ``model`` (``synthetic_rows_model``), one dataset per draw of ``posterior``, with their ``class_count``.
    """
    import arviz as az
    import pymc as pm

    trace = estimator.pymc_trace(az.InferenceData(posterior=posterior))
    replicated = pm.sample_posterior_predictive(
        trace, model=model, random_seed=rng, progressbar=False
    ).posterior_predictive
    return with_class_count(estimator, replicated)


def counts_predictive(estimator, posterior: xr.Dataset, rng, group: str):
    """The counts-form model's observed statistics forward-sampled at the draws of ``posterior``
    (a synthetic dataset of the training size per draw), with ``class_count`` ~ Multinomial(N, π_s)
    added where the counts form stacks the class counts with others (``pgm_models.conjugate.blocks``).
    """
    import arviz as az
    import pymc as pm

    model = estimator.pymc_model("counts")
    trace = estimator.pymc_trace(az.InferenceData(posterior=posterior))
    replicated = pm.sample_posterior_predictive(
        trace, model=model, random_seed=rng, progressbar=False, return_inferencedata=True
    ).posterior_predictive
    if "class_count" not in replicated:
        class_prob = posterior["class_prob"].transpose(*SAMPLE_DIMS, "class").values
        n = round(float(np.sum(estimator.class_count_)))
        counts = rng.multinomial(n, class_prob / class_prob.sum(axis=-1, keepdims=True))
        replicated["class_count"] = xr.DataArray(
            counts,
            dims=(*SAMPLE_DIMS, "class"),
            coords={
                "chain": replicated["chain"].values,
                "draw": replicated["draw"].values,
                "class": estimator.classes_,
            },
        )
    return az.InferenceData(**{group: replicated})


def dirichlet_draws(rng, concentration) -> np.ndarray:
    """One Dirichlet draw over the last axis of ``concentration`` for every leading index
    (normalised Gammas; a row whose Gammas all underflow, possible with tiny concentrations, is
    the vertex of its largest one).
    """
    gammas = rng.standard_gamma(concentration)
    total = gammas.sum(axis=-1, keepdims=True)
    corner = np.argmax(concentration * rng.random(gammas.shape), axis=-1)
    vertex = (np.arange(gammas.shape[-1]) == corner[..., None]).astype(float)
    return np.where(total > 0, gammas / np.where(total > 0, total, 1.0), vertex)


def averaged_rows(estimator, n: int, rng, prior: bool) -> tuple[xr.Dataset, xr.Dataset]:
    """(the structure drawn for each dataset, the datasets) of an average of models: ``n``
    synthetic datasets of the training size from ``estimator._synthetic_rows``, as ``y``, one
    ``x_<attribute>`` of codes per attribute and ``class_count``, dims (chain, draw, row).
    """
    n_rows = round(float(np.sum(estimator.class_count_)))
    structure, labels, codes = estimator._synthetic_rows(n, n_rows, rng, prior)
    names = estimator._feature_names()
    replicated = xr.Dataset(
        {
            "y": ((*SAMPLE_DIMS, "row"), labels[None]),
            **{f"x_{name}": ((*SAMPLE_DIMS, "row"), codes[None, :, :, j]) for j, name in enumerate(names)},
        },
        coords={"chain": [0], "draw": np.arange(n), "row": np.arange(n_rows)},
    )
    structure = xr.Dataset(
        {name: ((*SAMPLE_DIMS, *dims), values[None]) for name, (dims, values) in structure.items()},
        coords={"chain": [0], "draw": np.arange(n), "attribute": names},
    )
    return structure, with_class_count(estimator, replicated)


def structure_graph(estimator):
    """A ``graphviz.Digraph`` of an average's structure: the class and the attributes, each
    dependence of ``estimator._structure_edges()`` an edge labelled with its weight, its caption
    saying what the weights are.
    """
    import graphviz

    caption, edges = estimator._structure_edges()
    graph = graphviz.Digraph(name=type(estimator).__name__)
    graph.attr(label=caption, labelloc="t")
    graph.node("class", "class y", shape="ellipse", style="filled")
    for name in estimator._feature_names():
        graph.node(f"x_{name}", name, shape="ellipse")
    for parent, child, weight, undirected in edges:
        graph.edge(
            parent,
            child,
            label=f"{weight:.2f}",
            penwidth=f"{0.5 + 3 * weight:.2f}",
            style="solid" if weight >= 1 else "dashed",
            **({"dir": "none"} if undirected else {}),
        )
    _warn_without_dot()
    return graph
