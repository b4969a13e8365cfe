"""Issue 12, round 3: the stacked Dirichlet parametrisation (pgm_models.conjugate.blocks) has the
per-attribute model's density and keeps its names, coords and dims on every NUTS backend; the
LogisticRegression model compiles under nutpie (its likelihood declared stray dims before)."""

import arviz as az
import numpy as np
import pytest
from conftest import assert_names_like_the_exact_draws
from scipy import stats

from pgm_models import LogisticRegression
from pgm_models.inference import sampling
from pgm_models.inference.verify import check_posterior, check_sampler

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def categorical(fitted_models):
    """CategoricalNB on weather: the class prior (play: 2 values), humidity and windy (2 values)
    stack into one Dirichlet of 5 rows, outlook and temperature (3 values) into one of 4."""
    return fitted_models["CategoricalNB"]


def test_stacked_blocks_have_the_per_attribute_density(categorical):
    """log p = log Dir(π | α_class) + log Mult(N_k | π) + Σ_jk [log Dir(θ_jk | α) + log Mult(N_kj | θ_jk)],
    evaluated by scipy at random probabilities, equals the model's logp (no Jacobian); each
    attribute's Deterministic is its rows of its group, in the documented order (class prior,
    then the attributes, each by class)."""
    model = categorical.pymc_model("counts")
    classes, blocks = list(categorical.classes_), dict(categorical._blocks())
    rows = {
        values: [f"{name}[{k}]" for name in names for k in classes]
        for values, names in (
            (2, ["feature_prob_humidity", "feature_prob_windy"]),
            (3, ["feature_prob_outlook", "feature_prob_temperature"]),
        )
    }
    rows[2].insert(0, "class_prob")
    assert [rv.name for rv in model.free_RVs] == ["stacked_prob_2", "stacked_prob_3"]
    assert {values: list(model.coords[f"stacked_prob_{values}_rows"]) for values in (2, 3)} == rows
    logp = model.compile_logp(jacobian=False)
    deterministics = model.compile_fn(
        [model[f"feature_prob_{name}"] for name in blocks] + [model["class_prob"]],
        inputs=model.free_RVs,
        mode="FAST_COMPILE",
    )
    rng = np.random.default_rng(3)
    for _ in range(3):
        values = {values: rng.dirichlet(np.ones(values), size=len(rows[values])) for values in (2, 3)}
        point = {
            model.rvs_to_values[rv].name: model.rvs_to_transforms[rv]
            .forward(values[rv.type.shape[-1]], *rv.owner.inputs)
            .eval()
            for rv in model.free_RVs
        }
        expected = stats.dirichlet.logpdf(values[2][0], categorical._class_prior.concentration)
        expected += stats.multinomial.logpmf(categorical.class_count_, categorical.class_count_.sum(), values[2][0])
        prior = categorical._feature_prior.concentration
        *features, class_prob = deterministics({f"stacked_prob_{v}": values[v] for v in (2, 3)})
        np.testing.assert_array_equal(class_prob, values[2][0])
        for (name, block), theta in zip(blocks.items(), features):
            group = values[len(categorical.categories_[list(blocks).index(name)])]
            first = rows[theta.shape[-1]].index(f"feature_prob_{name}[{classes[0]}]")
            np.testing.assert_array_equal(theta, group[first : first + len(classes)])
            for k in range(len(classes)):
                counts = categorical.feature_count_[k, block]
                expected += stats.dirichlet.logpdf(theta[k], prior[k, block]) + stats.multinomial.logpmf(
                    counts, counts.sum(), theta[k]
                )
        np.testing.assert_allclose(logp(point), expected, rtol=1e-10)


@pytest.mark.nuts
@pytest.mark.parametrize("sampler", sampling.SAMPLERS)
def test_each_backend_samples_the_stacked_model_with_its_names_coords_and_dims(sampler, categorical):
    for package in sampling._PACKAGES[sampler]:
        pytest.importorskip(package)
    # False-failure chance per run well below 1e-4: the z test's family error is 1e-6 (Bonferroni
    # over the 2 × 22 z-scores; sampled sds' heavier tails at most double it). The 20 free
    # parameters' Dirichlet marginals are near-Gaussian on the simplex transform: 4 chains × 1000
    # draws gave bulk ESS 2400-5000 and R-hat ≤ 1.003 on every backend, so ESS < 400 or R-hat > 1.01
    # needs a many-fold, many-sd deviation; there are no divergences on this smooth posterior.
    idata = categorical.sample_posterior(
        draws=1000, tune=1000, chains=4, cores=1, sampler=sampler, random_seed=20261122
    )
    result = check_posterior(categorical, idata, family_error=1e-6)
    assert result.passed, result
    assert_names_like_the_exact_draws(categorical, idata)
    # az.summary lists each probability once: 2 classes + 2 classes × (2 + 2 + 3 + 3) values
    assert len(az.summary(idata, kind="stats")) == 2 + 2 * 10


def test_logistic_regression_declares_only_its_own_dims(binary_data):
    X, y = binary_data
    model = LogisticRegression().fit(X, y).pymc_model()
    assert set(model.coords) == {"class", "vector", "feature", "row"}
    assert model.named_vars_to_dims["y"] == ("row",)


@pytest.mark.nuts
def test_nutpie_samples_logistic_regression(binary_data):
    pytest.importorskip("nutpie")
    pytest.importorskip("jax")
    X, y = binary_data
    model = LogisticRegression().fit(X, y)
    # False-failure chance per run well below 1e-4: 5 parameters of a log-concave posterior (40
    # rows, prior sd 1... a Gaussian-like posterior); 4 chains × 1000 draws gave bulk ESS 3000-5000
    # and R-hat ≤ 1.003 in every run, so ESS < 400 or R-hat > 1.01 needs a many-sd deviation.
    idata = model.sample_posterior(draws=1000, tune=1000, chains=4, sampler="nutpie", random_seed=20261122)
    result = check_sampler(idata, ["weights", "intercept"])
    assert result.passed, result
    assert idata.posterior["weights"].dims == ("chain", "draw", "vector", "feature")
    # the posterior mean is near the posterior mode the estimator fits (5 parameters, 40 rows:
    # the mean and mode differ by a fraction of a posterior sd; the MC error is ~sd/60)
    sd = idata.posterior["weights"].std(("chain", "draw")).to_numpy()
    mean = idata.posterior["weights"].mean(("chain", "draw")).to_numpy()
    assert np.all(np.abs(mean - model.coef_) < sd)
