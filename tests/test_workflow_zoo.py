"""The Bayesian workflow on every estimator of ``pgm_models.ESTIMATORS`` (the small fitted cases of
``tests/zoo_cases.py``): prior and posterior predictive draws, their agreement with the model's
own probabilities, ``az.plot_ppc`` on ``idata_``, and ``graph()``."""

import warnings

import arviz as az
import matplotlib
import numpy as np
import pytest
from zoo_cases import fitted, training_data

import pgm_models

matplotlib.use("Agg")

AVERAGED = {"AODE", "AODEsr", "WAODE", "A2DE", "MANB", "BMATAN"}


def stub_nuts(model, rng, draws=1000):
    """NUTS-like draws of a LogisticRegression (the MAP plus noise, 2 chains) in ``idata_``: the
    posterior predictive reads whatever draws are there, no sampler needed."""
    weights = model.coef_ + 0.3 * rng.normal(size=(2, draws) + model.coef_.shape)
    intercept = model.intercept_ + 0.3 * rng.normal(size=(2, draws) + model.intercept_.shape)
    model.idata_ = az.from_dict(posterior={"weights": weights, "intercept": intercept})


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("name", pgm_models.ESTIMATORS)
def test_prior_predictive_datasets_have_the_training_size(name):
    """Every prior draw replicates a dataset: its class counts sum to the training rows and are
    the counts of its labels y (dims chain, draw, row); idata_ holds prior, prior_predictive and
    the observed data."""
    model, _ = fitted(name)
    idata = model.sample_prior_predictive(20, random_seed=1)
    assert idata is model.idata_
    assert {"prior", "prior_predictive", "observed_data"} <= set(idata.groups())
    replicated = idata.prior_predictive
    if name == "HierarchicalNB":  # its model observes the counts: replicated with the fitted block totals
        counts = replicated["feature_count"].values
        assert counts.shape == (1, 20, *idata.observed_data["feature_count"].shape)
        assert set(replicated["prior"] if "prior" in replicated else idata.prior.data_vars) == {"alpha"}
        return
    # a discriminative model replicates the labels of its training rows, a generative one datasets of its (weighted) size
    n_rows = len(model._training[1]) if name == "LogisticRegression" else round(float(model.class_count_.sum()))
    counts = replicated["class_count"]
    assert counts.dims == ("chain", "draw", "class") and counts.shape == (1, 20, len(model.classes_))
    if "y" not in replicated:  # MultinomialNB/ComplementNB: the counts form's statistics
        np.testing.assert_array_equal(counts.sum("class").values, n_rows)
        return
    labels = replicated["y"]
    assert labels.dims == ("chain", "draw", "row") and labels.shape == (1, 20, n_rows)
    per_class = (labels.values[..., None] == np.arange(len(model.classes_))).sum(axis=-2)
    np.testing.assert_array_equal(per_class, counts.values)
    if name in AVERAGED or name in {"SPODE", "CategoricalNB", "TAN", "HNB", "KDB", "BayesNetClassifier"}:
        for j, column in enumerate(model._feature_names()):  # every attribute, its codes in its domain
            codes = replicated[f"x_{column}"].values
            assert codes.min() >= 0 and codes.max() < model.n_categories_[j]


@pytest.mark.parametrize("name", pgm_models.ESTIMATORS)
def test_posterior_predictive_labels_follow_the_models_probabilities(name, monkeypatch):
    """500 replicated labels of each of 12 rows: each class's frequency within 0.12 of the mean
    probability its draws give it (a sum of independent Bernoullis: sd ≤ 0.0224, 5.4 sds; a false
    failure has a chance below 1e-4 per run of the 36 cells of the 21 models). The probabilities
    the labels are drawn from (``workflow.sampled_labels``' argument, recorded) are the model's: an
    average of models' (and HierarchicalNB's) predict_proba(estimate="predictive") itself; a
    closed-form model's its exact posterior draws, those predict_proba_draws gives with the same
    seed (its first 5 compared: one generator, drawn in turn); LogisticRegression's every one of
    its 500 draws, whose average is predict_proba(estimate="predictive")."""
    from pgm_models.inference import workflow

    recorded = []
    sampled_labels = workflow.sampled_labels

    def recording(probabilities, rng):
        recorded.append(np.array(probabilities))
        return sampled_labels(probabilities, rng)

    monkeypatch.setattr(workflow, "sampled_labels", recording)
    rng = np.random.default_rng(7)
    model, rows = fitted(name)
    if name == "LogisticRegression":
        stub_nuts(model, rng, draws=250)
    idata = model.sample_posterior_predictive(rows, n=500, random_seed=3)
    labels = idata.posterior_predictive["y"].values.reshape(-1, len(rows))
    assert labels.shape[0] == 500 and len(recorded) == 1
    probabilities = recorded[0].reshape(-1, len(rows), len(model.classes_))
    assert probabilities.shape[0] == 500
    if name == "HierarchicalNB":
        np.testing.assert_allclose(probabilities, np.broadcast_to(model.predict_proba(rows), probabilities.shape))
    elif name in AVERAGED or name == "LogisticRegression":
        expected = model.predict_proba(rows, estimate="predictive")
        np.testing.assert_allclose(probabilities.mean(axis=0), expected, rtol=1e-9, atol=1e-12)
    else:  # the draws sample_posterior_predictive read: its generator's first use
        first = model.predict_proba_draws(rows, n_draws=5, random_seed=np.random.default_rng(3))
        np.testing.assert_allclose(probabilities[:5], first, rtol=1e-12, atol=1e-15)
    frequency = (labels[..., None] == np.arange(len(model.classes_))).mean(axis=0)
    np.testing.assert_allclose(frequency, probabilities.mean(axis=0), atol=0.12)
    counts = idata.posterior_predictive["class_count"].values.reshape(-1, len(model.classes_))
    np.testing.assert_array_equal(counts.sum(axis=1), len(rows))


@pytest.mark.parametrize("name", pgm_models.ESTIMATORS)
def test_plot_ppc_runs_on_the_replicated_training_data(name):
    """Without X each model replicates what it observed (synthetic rows, the counts form's
    statistics, HierarchicalNB's counts, LogisticRegression's training labels), and az.plot_ppc
    sets the observed data against the replicates."""
    rng = np.random.default_rng(5)
    model, _ = fitted(name)
    if name == "LogisticRegression":
        stub_nuts(model, rng, draws=20)
    idata = model.sample_posterior_predictive(n=20, random_seed=2)
    shared = sorted(set(idata.observed_data.data_vars) & set(idata.posterior_predictive.data_vars))
    assert shared, f"{name}: nothing observed is replicated"
    axes = az.plot_ppc(idata, var_names=shared, num_pp_samples=10)
    assert np.size(axes) == len(shared)
    matplotlib.pyplot.close("all")


@pytest.mark.parametrize("name", pgm_models.ESTIMATORS)
def test_graph_returns_a_source_naming_the_model(name):
    """graph() of every model (fitted with fractional weights: counts rounded for the drawing, on a
    copy: the model keeps its own, MixedNB's in its blocks too) is DOT text; an average's names
    every attribute and labels its dependences with weights in [0, 1]."""
    model, _ = fitted(name)
    statistics = {key: np.copy(value) for key, value in vars(model).items() if key.endswith("count_")}
    source = model.graph().source
    for key, value in statistics.items():
        np.testing.assert_array_equal(getattr(model, key), value)
    if name == "MixedNB":
        assert "stacked_count" in source and "poisson_total" in source and "bernoulli_count" in source
    assert source.lstrip().startswith("digraph")
    if name in AVERAGED:
        for column in model._feature_names():
            assert f"x_{column}" in source
        labels = [float(part.split('"')[0]) for part in source.split('label="')[1:] if part[:1].isdigit()]
        labels += [float(part.split(" ")[0]) for part in source.split("label=")[1:] if part[:1].isdigit()]
        assert labels and all(0 <= value <= 1 for value in labels)
    elif name == "HierarchicalNB":
        assert "alpha" in source
    elif name != "LogisticRegression":
        assert "class_prob" in source or "joint_prob" in source or "stacked_prob" in source


def test_spode_rows_split_its_class_parent_cells():
    """SPODE's rows form observes (y, x_a) as one cell y·r_a + x_a: its synthetic rows give y and
    x_<parent> instead, and the pair's frequency over 200 replicated datasets (7200 rows) is within
    0.03 of the posterior-mean joint table (sd ≤ 0.006 with the posterior spread: 5 sds)."""
    model, _ = fitted("SPODE")
    replicated = model.sample_posterior_predictive(n=200, random_seed=4).posterior_predictive
    assert "y_parent" not in replicated
    parent = model._feature_names()[model._parent_index()]
    size = model.n_categories_[model._parent_index()]
    cell = (replicated["y"].values * size + replicated[f"x_{parent}"].values).ravel()
    frequency = np.bincount(cell, minlength=len(model.classes_) * size) / cell.size
    np.testing.assert_allclose(frequency, model.analytic_posterior()["joint_prob"].values, atol=0.03)


@pytest.mark.parametrize("name", ["AODE", "MANB", "BMATAN", "A2DE"])
def test_synthetic_rows_of_an_average_follow_its_class_posterior(name):
    """An average's synthetic rows (a structure and its tables per dataset): over 200 datasets of
    36 rows the class frequencies are within 0.04 of the class probabilities' posterior mean
    (the posterior sd of a class probability ≈ 0.08 over 200 datasets gives sd 0.006, the rows'
    noise 0.006: 4.7 sds), and the structure drawn per dataset is kept in no posterior group."""
    model, _ = fitted(name)
    replicated = model.sample_posterior_predictive(n=200, random_seed=6).posterior_predictive
    labels = replicated["y"].values.ravel()
    frequency = np.bincount(labels, minlength=len(model.classes_)) / labels.size
    concentration = model.class_concentration_
    np.testing.assert_allclose(frequency, concentration / concentration.sum(), atol=0.04)


def test_random_spanning_tree_follows_the_edge_posterior():
    """400 trees over 4 nodes drawn with probability ∝ Π w_uv: each edge's frequency within 0.13
    of its exact probability w_uv τ(G/uv)/τ(G) (sd ≤ 0.025: 5.2 sds); the skewed weights make
    those probabilities far from the uniform 0.5 (the heaviest edge's is above 0.9)."""
    from pgm_models.bayes_net._trees import edge_probabilities, random_spanning_tree

    log_weight = np.log(np.array([[0, 20, 1, 0.2], [20, 0, 0.5, 2], [1, 0.5, 0, 8], [0.2, 2, 8, 0]], dtype=float))
    exact = edge_probabilities(log_weight)
    assert exact[0, 1] > 0.9 and exact[0, 3] < 0.2
    rng = np.random.default_rng(0)
    frequency = np.zeros((4, 4))
    for _ in range(400):
        parent = random_spanning_tree(log_weight, rng)
        assert (parent < 0).sum() == 1
        for child, node in enumerate(parent):
            if node >= 0:
                frequency[node, child] += 1 / 400
                frequency[child, node] += 1 / 400
    np.testing.assert_allclose(frequency, exact, atol=0.13)


def test_logistic_regression_workflow_refuses_what_it_cannot_do():
    model, rows = fitted("LogisticRegression")
    with pytest.raises(ValueError, match=r"reads the NUTS draws: call sample_posterior\(\) first"):
        model.sample_posterior_predictive(rows)
    flat = pgm_models.LogisticRegression(intercept_prior_sd=None).fit(*training_data("LogisticRegression")[:2])
    with pytest.raises(ValueError, match="intercept_prior_sd=None is a flat prior"):
        flat.sample_prior_predictive(5)
