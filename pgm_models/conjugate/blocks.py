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

NUTS samples each group in the frame of its closed-form posterior (:func:`posterior_frame`, the
model that ``sample_posterior`` samples): PyMC's simplex coordinates z_v = log Θ_v − mean_u log Θ_u
of a row with a few small posterior concentrations a = α + N (empty cells, a = 1, beside cells of
a hundred) are correlated through the mean and stiff where a small Θ_v grows (curvature ∝ a Θ_v
in log Θ_v), so a diagonal mass matrix left a small step size, one bulk ESS in four of the draws'
number, and the odd divergent transition (CategoricalNB on breast-cancer, issue 40). The frame's
coordinates are the stick-breaking fractions of the row's values taken in decreasing order of a,
β_k = Θ_(k) / Σ_{j≥k} Θ_(j), whose logits are independent under Dirichlet(a) (logit β_k is the
logit of a Beta(a_(k), Σ_{j>k} a_(j))), centred and scaled by their exact posterior means and sds,
ψ(a_(k)) − ψ(b_k) and √(ψ'(a_(k)) + ψ'(b_k)); the decreasing order leaves no stick with a small
a_(k) beside a large b_k, the shape that stiffens. The model's density is unchanged: the frame
is a change of variables with its exact Jacobian (:class:`PosteriorSticks`), so NUTS still draws
the counts form's posterior, and the closed form's check of those draws keeps its meaning.
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


def posterior_frame(model):
    """``model`` with each Dirichlet group it observes through one Multinomial (constant α and
    counts, Θ in no other variable's distribution) sampled in the stick-breaking frame of its
    closed-form posterior Dirichlet(α + N) (:class:`PosteriorSticks`); the same model, whose
    groups' unconstrained values are named ``{group}_sticks__``; ``model`` itself when it has none.
    Any positive concentrations give a change of variables of the same density: the frame's
    centre and scale only decide how well NUTS moves, never what it samples.
    """
    from pymc.model.fgraph import ModelFreeRV, fgraph_from_model, model_free_rv, model_from_fgraph
    from pymc.pytensorf import toposort_replace

    frames = {rv.name: concentration + counts for rv, concentration, counts, _ in _observed_dirichlets(model)}
    if not frames:
        return model
    fgraph, _ = fgraph_from_model(model)
    replacements = []
    for node in fgraph.apply_nodes:
        (dummy,) = node.outputs if isinstance(node.op, ModelFreeRV) else (None,)
        if dummy is None or dummy.name not in frames:
            continue
        rv, _, *dims = node.inputs
        transform = sticks_transform(frames[dummy.name])
        # of the transformed shape: pymc's change_value_transforms gives the value the variable's own
        value = transform.forward(rv, *rv.owner.inputs).type()
        value.name = f"{dummy.name}_{transform.name}__"
        replacements.append((dummy, model_free_rv(rv, value, transform, *dims)))
    toposort_replace(fgraph, replacements)
    return model_from_fgraph(fgraph, mutate_fgraph=True)


def sticks_transform(concentration):
    """The frame of Dirichlet(``concentration``) rows (rows × V): a
    ``pgm_models.conjugate._sticks.PosteriorSticks`` transform.
    """
    from pgm_models.conjugate._sticks import PosteriorSticks

    return PosteriorSticks(concentration)


def sticks_log_probabilities(value, centre, scale):
    """(log Θ in the frame's order, the log Jacobian per row) at the frame's coordinates, in
    PyTensor (``pgm_models.conjugate._sticks.log_probabilities``).
    """
    from pgm_models.conjugate._sticks import log_probabilities

    return log_probabilities(value, centre, scale)


def _observed_dirichlets(model) -> list[tuple]:
    """(Θ, α, N, n) for each free Θ ~ Dirichlet(α) of ``model`` (α a constant matrix > 0) observed
    by exactly one N ~ Multinomial(n, Θ) of constant whole counts N ≥ 0 summing to n, whose
    posterior is then Dirichlet(α + N): no other observed or free variable and no potential
    depends on Θ. α, N and n as the model holds them (float64, int64, int64 arrays).
    """
    from pytensor.graph.basic import Constant
    from pytensor.graph.traversal import ancestors
    from pytensor.tensor.random.basic import DirichletRV, MultinomialRV

    found = []
    for rv in model.free_RVs:
        node = rv.owner
        if not isinstance(node.op, DirichletRV) or rv.ndim != 2:
            continue
        (concentration,) = node.op.dist_params(node)
        users = [
            var
            for var in [*model.observed_RVs, *model.potentials, *(q for q in model.free_RVs if q is not rv)]
            if rv in ancestors([var])
        ]
        if len(users) != 1 or not isinstance(users[0].owner.op, MultinomialRV):
            continue
        totals, p = users[0].owner.op.dist_params(users[0].owner)
        counts = model.rvs_to_values.get(users[0])
        if (
            p is not rv
            or not all(isinstance(var, Constant) for var in (concentration, totals, counts))
            or concentration.type.ndim != 2
            or np.shape(counts.data) != np.shape(concentration.data)
            or np.shape(totals.data) != np.shape(counts.data)[:1]
        ):
            continue
        alpha, counts, totals = (np.asarray(var.data) for var in (concentration, counts, totals))
        # data PyMC's densities would reject (-inf or an error) keep PyMC's own frame and graph
        if (counts >= 0).all() and (counts.sum(axis=1) == totals).all() and (alpha > 0).all():
            found.append(
                (
                    rv,
                    np.ascontiguousarray(alpha, dtype=np.float64),
                    np.ascontiguousarray(counts, dtype=np.int64),
                    np.ascontiguousarray(totals, dtype=np.int64),
                )
            )
    return found


@dataclass(frozen=True)
class CountsGroup:
    """One group of a Dirichlet-only counts model: the free variable Θ_V ~ Dirichlet(α) of shape
    (rows, V) under PyMC's simplex transform or the posterior frame's (``value``: its unconstrained
    value's name), observed through N ~ Multinomial(n, Θ_V): α (float64), N and n (int64) as
    C-contiguous arrays, each row's values in the transform's order (``inverse[r, v]``: the
    position of value v in row r; the identity under the simplex transform); under the frame, its
    sticks' ``centre`` and ``scale`` (rows, V − 1), None under the simplex transform.
    """

    rv: object
    value: str
    transform: object
    concentration: np.ndarray
    counts: np.ndarray
    totals: np.ndarray
    inverse: np.ndarray
    centre: np.ndarray | None = None
    scale: np.ndarray | None = None

    @property
    def kind(self) -> str:
        """The transform: "simplex" or "sticks"."""
        return "simplex" if self.centre is None else "sticks"


def counts_groups(model) -> list[CountsGroup] | None:
    """The groups of ``model`` in the order of its free variables if it is made of them alone, as
    the counts form of DirichletBlocks builds it (or :func:`posterior_frame` of it): every free
    variable a matrix Θ ~ Dirichlet(α) of constant α under the simplex transform or the frame's,
    observed by exactly one Multinomial of constant n and counts whose p is Θ itself (counts ≥ 0
    summing to n, α > 0), no other observed variable and no potential; None otherwise. Its log
    density is then the sum over the groups of each one's Dirichlet, Jacobian and Multinomial terms.
    """
    from pymc.logprob.transforms import SimplexTransform

    from pgm_models.conjugate._sticks import PosteriorSticks

    observed = _observed_dirichlets(model)
    if model.potentials or not model.free_RVs or len(observed) != len(model.free_RVs):
        return None
    if len(model.observed_RVs) != len(observed):
        return None
    groups = []
    for rv, concentration, counts, totals in observed:
        transform = model.rvs_to_transforms[rv]
        identity = np.broadcast_to(np.arange(concentration.shape[1]), concentration.shape)
        if isinstance(transform, SimplexTransform):
            groups.append(
                CountsGroup(rv, model.rvs_to_values[rv].name, transform, concentration, counts, totals, identity)
            )
        elif isinstance(transform, PosteriorSticks) and transform.order.shape == concentration.shape:
            groups.append(
                CountsGroup(
                    rv,
                    model.rvs_to_values[rv].name,
                    transform,
                    np.ascontiguousarray(np.take_along_axis(concentration, transform.order, axis=1)),
                    np.ascontiguousarray(np.take_along_axis(counts, transform.order, axis=1)),
                    totals,
                    transform.inverse,
                    np.ascontiguousarray(transform.centre, dtype=np.float64),
                    np.ascontiguousarray(transform.scale, dtype=np.float64),
                )
            )
        else:
            return None
    order = {rv: i for i, rv in enumerate(model.free_RVs)}
    return sorted(groups, key=lambda g: order[g.rv])
