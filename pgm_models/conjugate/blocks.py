"""Many independent Dirichlet blocks (one per attribute, and the class prior) as few PyMC variables.

A model over nominal attributes has one Dirichlet per attribute, θ_j ~ Dirichlet(α_j) with
θ_j of shape (..., V_j), and in the counts form one Multinomial per attribute, N_j ~
Multinomial(N_j·, θ_j). Written one PyMC variable per attribute, the log density's gradient is
a graph of dozens of nodes per attribute (the simplex transform, its Jacobian, the Multinomial's
parameter checks), and PyTensor's C backend pays a fixed overhead per node, so the gradient's
cost grows with the number of attributes (BENCHMARKS.md, "NUTS backends"). Every row θ_j[i] of every block is an
independent Dirichlet over V_j values, so all the rows of all the blocks with V values are stacked
into one variable Θ_V of shape (rows, V), the blocks' leading axes flattened, with the same density

    log p(Θ_V) = Σ_r log Dirichlet(Θ_V[r] | α_V[r]),   log p(N_V | Θ_V) = Σ_r log Multinomial(N_V[r] | N_V[r]·, Θ_V[r]),

and the graph no longer grows with the number of attributes.

The groups are canonical: one rank-2 variable ``stacked_prob_{V}`` per number of values V, whatever
the blocks' own ranks (CategoricalNB's (class, value) tables, SPODE's and TAN's (class, parent value,
value) tables, a class prior over (class,)). So the nominal models' log densities are made of the
same operations on arrays of the same ranks, and numba compiles each of them once for all the models
(a PyTensor op's numba function is cached by the op and its inputs' broadcasting, not their sizes).

Each block keeps its own name, coords and dims as a ``pm.Deterministic`` (θ_j = Θ_V[rows of j]
reshaped), so the InferenceData, ``az.summary`` and :func:`pgm_models.inference.verify.check_posterior` see the
same variables as with one Dirichlet per block. The groups themselves stay out of the InferenceData
that ``sample_posterior`` and ``posterior_draws`` return (``az.summary`` would list every probability
twice, once under the group's name); PyMC's forward sampling needs them, as it resamples a free
variable missing from the draws from its prior: ``estimator.pymc_trace(idata)`` adds them back
(:func:`with_stacked_draws`).

The groups' names cannot collide with the names the models derive from the data: those are
``feature_prob_<column>`` and ``x_<column>`` for variables, ``<column>_value`` and ``<column>_row``
for dims, while a group is ``stacked_prob_{V}`` observed by ``stacked_count_{V}``, over the dims
``stacked_prob_{V}_rows`` (labelled ``name[label, ...]`` by each block's coords) and
``stacked_prob_{V}_values``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


class DirichletBlocks:
    """The priors θ_j ~ Dirichlet(α_j) of ``blocks`` = [(name, α_j, dims_j)] (α_j of any rank ≥ 1,
    its last axis the values), created in the current PyMC model as ``stacked_prob_{V}`` for each
    number of values V and a Deterministic ``name`` per block; ``prob[name]`` is θ_j (dims_j).
    """

    def __init__(self, blocks):
        import pymc as pm

        model = pm.modelcontext(None)
        self.prob, self._groups = {}, {}
        for name, concentration, dims in blocks:
            concentration = np.asarray(concentration, dtype=float)
            self._groups.setdefault(concentration.shape[-1], []).append((name, concentration, tuple(dims)))
        for values, members in sorted(self._groups.items()):
            rows, value = group_dims(values)
            model.add_coord(
                rows, [label for name, c, dims in members for label in _row_labels(model.coords, name, c.shape, dims)]
            )
            model.add_coord(value, np.arange(values))
            stacked = pm.Dirichlet(
                group_name(values), a=np.concatenate([c.reshape(-1, values) for _, c, _ in members]), dims=(rows, value)
            )
            start = 0
            for name, concentration, dims in members:
                stop = start + math.prod(concentration.shape[:-1])
                self.prob[name] = pm.Deterministic(name, stacked[start:stop].reshape(concentration.shape), dims=dims)
                start = stop

    def observe(self, counts: dict):
        """N_j ~ Multinomial(Σ_s N_j[..., s], θ_j) observed at ``counts[name]`` (whole numbers, the
        shape of block ``name``), one PyMC variable ``stacked_count_{V}`` per group, rows as its prior's.
        """
        import pymc as pm

        for values, members in sorted(self._groups.items()):
            observed = np.concatenate([np.asarray(counts[name]).reshape(-1, values) for name, _, _ in members])
            pm.Multinomial(
                f"stacked_count_{values}",
                n=observed.sum(axis=-1),
                p=pm.modelcontext(None)[group_name(values)],
                observed=observed,
                dims=group_dims(values),
            )


def group_name(values: int) -> str:
    """The name of the group of the rows with ``values`` values."""
    return f"stacked_prob_{values}"


def group_dims(values: int) -> tuple[str, str]:
    """The dims of the group of the rows with ``values`` values: its rows, their values."""
    return f"stacked_prob_{values}_rows", f"stacked_prob_{values}_values"


def without_groups(posterior):
    """``posterior`` (an xarray Dataset) without the groups' draws and their coords: the draws of
    the named blocks alone, each once.
    """
    groups = [
        name
        for name, draws in posterior.data_vars.items()
        if draws.ndim >= 2 and draws.dims[-2:] == group_dims(draws.shape[-1])
    ]
    return posterior.drop_vars(
        groups + [dim for name in groups for dim in posterior[name].dims[-2:] if dim in posterior.coords]
    )


def _row_labels(coords, name: str, shape: tuple, dims: tuple) -> list[str]:
    """``name[a, b]`` for each index (a, b) of the block's leading axes, by their ``coords`` (positions
    where a dim has none); ``name`` alone for a block of one row.
    """
    axes = [
        list(coords[dim]) if coords.get(dim) is not None else list(range(size))
        for dim, size in zip(dims[:-1], shape[:-1])
    ]
    if not axes:
        return [name]
    return [f"{name}[{', '.join(str(axis[i]) for axis, i in zip(axes, index))}]" for index in np.ndindex(*shape[:-1])]


def with_stacked_draws(posterior, names: list[str]):
    """``posterior`` (an xarray Dataset of draws over ("chain", "draw") holding the blocks ``names``,
    in the order given to DirichletBlocks) with the groups ``stacked_prob_{V}`` that DirichletBlocks
    stacks from them, so that PyMC's forward sampling (``pm.sample_posterior_predictive``) reads
    every block from the draws rather than resampling its group from the prior. A ValueError
    names the blocks it lacks (their groups cannot be rebuilt).
    """
    missing = [name for name in names if name not in posterior]
    if missing:
        raise ValueError(
            f"the draws lack {missing}: PyMC's forward sampling would draw them from the prior "
            "(draw every parameter: posterior_draws without var_names)"
        )
    coords = {dim: list(np.asarray(posterior.coords[dim])) for dim in posterior.coords}
    groups = {}
    for name in names:
        groups.setdefault(posterior[name].shape[-1], []).append(posterior[name])
    for values, members in sorted(groups.items()):
        rows, value = group_dims(values)
        stacked = np.concatenate(
            [draws.to_numpy().reshape(draws.shape[:2] + (-1, values)) for draws in members], axis=2
        )
        labels = [
            label for draws in members for label in _row_labels(coords, draws.name, draws.shape[2:], draws.dims[2:])
        ]
        posterior = posterior.assign({group_name(values): (("chain", "draw", rows, value), stacked)}).assign_coords(
            {rows: labels, value: np.arange(values)}
        )
    return posterior


def class_block(estimator) -> tuple:
    """The class prior π ~ Dirichlet(class_alpha) of base's ``_class_model`` as a block
    ("class_prob", α, ("class",)), for a model whose class prior joins its attributes' blocks.
    """
    estimator._check_proper_prior()
    return "class_prob", estimator._class_prior.concentration, ("class",)


@dataclass(frozen=True)
class CountsGroup:
    """One group of a Dirichlet-only counts model: the free variable Θ_V ~ Dirichlet(α) of shape
    (rows, V) under PyMC's simplex transform (``value``: its unconstrained value's name), observed
    through N ~ Multinomial(n, Θ_V): α (float64), N and n (int64) as C-contiguous arrays.
    """

    rv: object
    value: str
    transform: object
    concentration: np.ndarray
    counts: np.ndarray
    totals: np.ndarray


def counts_groups(model) -> list[CountsGroup] | None:
    """The groups of ``model`` in the order of its free variables if it is made of them alone, as
    the counts form of DirichletBlocks builds it: every free variable a matrix Θ ~ Dirichlet(α) of
    constant α under the simplex transform, observed by exactly one Multinomial of constant n and
    counts whose p is Θ itself (counts ≥ 0 summing to n, α > 0), no other observed variable and no
    potential; None otherwise. Its log
    density is then the sum over the groups of each one's Dirichlet, Jacobian and Multinomial terms.
    """
    from pymc.logprob.transforms import SimplexTransform
    from pytensor.graph.basic import Constant
    from pytensor.tensor.random.basic import DirichletRV, MultinomialRV

    if model.potentials or not model.free_RVs:
        return None
    observed = {}
    for obs in model.observed_RVs:
        node = obs.owner
        if not isinstance(node.op, MultinomialRV):
            return None
        totals, p = node.op.dist_params(node)
        value = model.rvs_to_values[obs]
        if p in observed or not (isinstance(totals, Constant) and isinstance(value, Constant)):
            return None
        observed[p] = (value.data, totals.data)
    groups = []
    for rv in model.free_RVs:
        node, transform = rv.owner, model.rvs_to_transforms[rv]
        (concentration,) = node.op.dist_params(node) if isinstance(node.op, DirichletRV) else (None,)
        if (
            not isinstance(transform, SimplexTransform)
            or rv.ndim != 2
            or rv not in observed
            or not isinstance(concentration, Constant)
            or concentration.type.ndim != 2
        ):
            return None
        counts, totals = observed.pop(rv)
        if np.shape(counts) != concentration.type.shape or np.shape(totals) != np.shape(counts)[:1]:
            return None
        # the closed-form terms hold where PyMC's densities are finite: data they would reject
        # (PyMC: -inf or an error) keeps PyMC's own graph
        if not (
            (np.asarray(counts) >= 0).all()
            and (np.sum(counts, axis=1) == totals).all()
            and (concentration.data > 0).all()
        ):
            return None
        groups.append(
            CountsGroup(
                rv,
                model.rvs_to_values[rv].name,
                transform,
                np.ascontiguousarray(concentration.data, dtype=np.float64),
                np.ascontiguousarray(counts, dtype=np.int64),
                np.ascontiguousarray(totals, dtype=np.int64),
            )
        )
    return groups if not observed else None
