"""The Bayesian workflow's InferenceData (``idata_``): NUTS groups, the pointwise log likelihood that
``az.loo`` reads, prior and posterior predictive draws (pgm_models.inference.workflow)."""

import warnings

import arviz as az
import matplotlib
import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from pgm_models import CategoricalNB, GaussianNB
from pgm_models.datasets import load_dataset

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def vote():
    return load_dataset("vote")


@pytest.fixture(scope="module")
def sampled(vote):
    """CategoricalNB on vote with 2 × 500 NUTS draws and the training rows' log likelihood."""
    X, y = vote
    model = CategoricalNB().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.sample_posterior(draws=500, chains=2, random_seed=3, X=X, y=y, progressbar=False)
    return model


@pytest.mark.nuts
def test_sampled_posterior_loo_agrees_with_the_exact_loo(sampled, vote):
    """PSIS-LOO of the NUTS draws estimates log p(y_i, x_i | D₋ᵢ), which ``loo(conditional=False)``
    computes exactly: their ELPDs agree within the estimate's standard error and 3 nats (the
    Monte Carlo error of 1000 draws is a fraction of a nat; every Pareto k is small)."""
    X, y = vote
    idata = sampled.idata_
    assert {"posterior", "sample_stats", "observed_data", "constant_data", "log_likelihood"} <= set(idata.groups())
    assert idata.log_likelihood["y"].shape == (2, 500, len(y))
    np.testing.assert_array_equal(idata.observed_data["class_count"].values, sampled.class_count_)
    np.testing.assert_array_equal(idata.observed_data["y"].values, sampled._class_index(y.to_numpy()))
    sampled_loo = az.loo(idata)
    exact = sampled.loo(X, y, conditional=False)
    assert float(np.max(sampled_loo.pareto_k)) < 0.7
    assert abs(sampled_loo.elpd_loo - exact.elpd_loo) < min(sampled_loo.se, 3.0)
    # row by row too: each row's PSIS estimate is within 0.2 nats of its exact value
    np.testing.assert_allclose(sampled_loo.loo_i.values, exact.loo_i.values, atol=0.2)


@pytest.mark.nuts
def test_posterior_predictive_from_nuts_draws_matches_the_exact_draws(sampled, vote):
    """The NUTS path (rows-form likelihood of each class per draw) and the exact path
    (``predict_proba_draws``) average P(y | x, θ) over the same posterior: per row within 0.03
    (Monte Carlo sds ≈ 0.002 and 0.001 here; the chance of a false failure is far below 1e-9)."""
    from pgm_models.inference.workflow import class_probability_draws

    X, y = vote
    nuts = class_probability_draws(sampled, sampled.idata_.posterior, X).mean(axis=(0, 1))
    exact = CategoricalNB().fit(X, y).predict_proba_draws(X, n_draws=2000, random_seed=5).mean(axis=0)
    np.testing.assert_allclose(nuts, exact, atol=0.03)
    idata = sampled.sample_posterior_predictive(X, random_seed=4)
    assert idata.posterior_predictive["y"].shape == (2, 500, len(y))  # every NUTS draw
    np.testing.assert_array_equal(idata.posterior_predictive["class_count"].sum("class").values, len(y))
    assert "log_likelihood" in idata.groups() and "y" in idata.observed_data  # merged, not replaced
    axes = az.plot_ppc(idata)
    assert np.size(axes) == 2  # y and class_count against their observed values
    matplotlib.pyplot.close("all")


def test_posterior_predictive_labels_from_exact_draws(vote):
    """Without NUTS draws, each row's sampled labels follow the exact draws' class probabilities:
    2000 draws, frequency within 0.06 of the mean probability (5.5 sds at most; < 1e-5 for 435 rows)."""
    X, y = vote
    model = CategoricalNB().fit(X, y)
    idata = model.sample_posterior_predictive(X, n=2000, random_seed=7)
    labels = idata.posterior_predictive["y"].values[0]  # (draws, rows)
    expected = model.predict_proba_draws(X, n_draws=2000, random_seed=8).mean(axis=0)[:, 1]
    np.testing.assert_allclose((labels == 1).mean(axis=0), expected, atol=0.06)
    assert "posterior" not in idata.groups()  # no NUTS ran
    # a Gaussian model's labels too: iris's setosa rows are setosa under nearly every draw
    Xi, yi = load_dataset("iris")
    gaussian = GaussianNB().fit(Xi, yi)
    pp = gaussian.sample_posterior_predictive(Xi, n=200, random_seed=1).posterior_predictive
    setosa = list(gaussian.classes_).index("Iris-setosa")
    assert (pp["y"].values[0][:, (yi == "Iris-setosa").to_numpy()] == setosa).mean() > 0.99


def test_prior_predictive_class_counts_follow_the_dirichlet_multinomial(vote):
    """Under class_alpha = 1 and two classes the prior predictive class count of N rows is uniform
    on 0..N: 400 draws' mean within 30 of N/2 (sd of the mean 6.3: 4.8 sds), its sd within 25 of
    √(N(N+2)/12) = 126."""
    X, y = vote
    model = CategoricalNB().fit(X, y)
    idata = model.sample_prior_predictive(400, random_seed=11)
    counts = idata.prior_predictive["class_count"].values[0]  # (draws, class)
    n = len(y)
    np.testing.assert_array_equal(counts.sum(axis=1), n)
    assert abs(counts[:, 0].mean() - n / 2) < 30
    assert abs(counts[:, 0].std() - np.sqrt(n * (n + 2) / 12)) < 25
    assert set(idata.prior.data_vars) == {"class_prob", *(f"feature_prob_{c}" for c in X.columns)}
    assert idata.prior_predictive["y"].shape == (1, 400, n) and f"x_{X.columns[0]}" in idata.prior_predictive
    az.plot_ppc(idata, group="prior", var_names=["class_count"])
    matplotlib.pyplot.close("all")


def test_synthetic_rows_follow_the_posterior_tables(vote):
    """Without X, each draw is a synthetic dataset of N rows (x, y) from the joint model: over 100
    exact draws (43 500 rows) an attribute's value frequency within each synthetic class is the
    posterior mean table's within 0.02 (sd about 0.002: posterior spread of θ over 100 draws plus
    the rows' binomial noise). MultinomialNB, whose documents have no fixed length, replicates its
    counts form's statistics instead."""
    from pgm_models import MultinomialNB

    X, y = vote
    model = CategoricalNB().fit(X, y)
    replicated = model.sample_posterior_predictive(n=100, random_seed=3).posterior_predictive
    np.testing.assert_array_equal(replicated["class_count"].sum("class").values, len(y))
    labels = replicated["y"].values
    for column in X.columns[:4]:
        values, table = replicated[f"x_{column}"].values, model.analytic_posterior()[f"feature_prob_{column}"].values
        for k in range(2):
            np.testing.assert_allclose(np.mean(values[labels == k] == 1), table[k, 1], atol=0.02)
    rng = np.random.default_rng(0)
    counts = MultinomialNB().fit(rng.integers(0, 4, size=(30, 5)), rng.integers(0, 2, 30))
    replicated = counts.sample_posterior_predictive(n=10, random_seed=1).posterior_predictive
    np.testing.assert_array_equal(replicated["class_count"].sum("class").values, 30)
    assert "y" not in replicated


def test_workflow_methods_refuse_bad_input(vote):
    X, y = vote
    with pytest.raises(NotFittedError):
        CategoricalNB().sample_posterior_predictive(X)
    with pytest.raises(NotFittedError):
        CategoricalNB().sample_prior_predictive(10)
    model = CategoricalNB().fit(X, y)
    with pytest.raises(
        ValueError, match=r"add_log_likelihood reads the posterior draws in idata_: call sample_posterior\(\)"
    ):
        model.add_log_likelihood(X, y)
    with pytest.raises(ValueError, match="feature names"):
        model.sample_posterior_predictive(X.rename(columns={X.columns[0]: "unseen"}))
    unseen = X.copy()
    unseen[X.columns[0]] = unseen[X.columns[0]].cat.add_categories("maybe")
    unseen.iloc[0, 0] = "maybe"
    with pytest.raises(ValueError, match="maybe"):
        model.sample_posterior_predictive(unseen)
    with pytest.raises(ValueError, match="n must be"):
        model.sample_posterior_predictive(X, n=0)
    with pytest.raises(ValueError, match="needs both the training rows X and their labels y"):
        model.sample_posterior(X=X)


@pytest.mark.parametrize("form", ["counts", "rows"])
def test_graph_draws_the_pymc_model_of_each_form(form, vote):
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    X, y = vote
    X, y = X.iloc[:40, :3], y.iloc[:40]
    graph = CategoricalNB().fit(X, y).graph(form, X=X, y=y)
    svg = graph.pipe(format="svg").decode()
    assert "<svg" in svg and "class_prob" in svg
    observed = "stacked_count_2" if form == "counts" else "y"
    assert observed in graph.source and f"feature_prob_{X.columns[0]}" in graph.source


def test_graph_without_dot_returns_the_source_and_says_how_to_render_it(vote, monkeypatch):
    import shutil

    X, y = vote
    model = CategoricalNB().fit(X.iloc[:, :2], y)
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    with pytest.warns(UserWarning, match=r"dot program is not on PATH.*\.source.*apt install graphviz"):
        graph = model.graph()
    assert graph.source.lstrip().startswith("digraph") and "class_prob" in graph.source
    with pytest.raises(ValueError, match="form='rows' observes rows"):
        model.graph("rows")


def test_pointwise_log_likelihood_is_each_rows_joint_density_under_the_draw(vote):
    """From exact draws (no NUTS): log p(x_i, y_i | θ_s) read off the rows-form PyMC model equals
    log π_s[y_i] + Σ_j log θ_s,j[y_i, x_ij] (CategoricalNB, missing values skipped) and
    log π_s[y_i] + log N(x_i | μ_s[y_i], Σ_s) (LDA: its Bartlett coordinates recovered from Σ_s)."""
    from scipy import stats

    from pgm_models import LDA
    from pgm_models.inference.workflow import pointwise_log_likelihood

    X, y = vote
    X, y = X.iloc[:50, :5], y.iloc[:50]
    model = CategoricalNB().fit(X, y)
    posterior = model.posterior_draws(2, chains=1, random_seed=4).posterior
    class_index = model._class_index(y.to_numpy())
    pointwise = pointwise_log_likelihood(model, posterior, X, class_index).values[0]
    for s in range(2):
        expected = np.log(posterior["class_prob"].values[0, s][class_index])
        for column in X.columns:
            table = posterior[f"feature_prob_{column}"].values[0, s]  # (class, value)
            codes = X[column].cat.codes.to_numpy()
            seen = codes >= 0
            expected[seen] += np.log(table[class_index[seen], codes[seen]])
        np.testing.assert_allclose(pointwise[s], expected, rtol=1e-10)
    Xi, yi = load_dataset("iris")
    lda = LDA().fit(Xi, yi)
    posterior = lda.posterior_draws(2, chains=1, random_seed=5).posterior
    class_index = lda._class_index(yi.to_numpy())
    pointwise = pointwise_log_likelihood(lda, posterior, Xi, class_index).values[0]
    for s in range(2):
        means, cov = posterior["class_mean"].values[0, s], posterior["cov"].values[0, s]
        expected = np.log(posterior["class_prob"].values[0, s][class_index]) + np.array(
            [stats.multivariate_normal(means[k], cov).logpdf(x) for x, k in zip(Xi.to_numpy(), class_index)]
        )
        np.testing.assert_allclose(pointwise[s], expected, rtol=1e-9)


def test_sample_posterior_keeps_the_draws_groups_and_an_earlier_prior(vote, monkeypatch):
    """The sampler's groups are kept (its constant data merged with the workflow's), the counts
    form's observed statistics replaced by the class counts, an earlier prior predictive kept and an
    earlier posterior predictive dropped (it was of other draws). The sampler is stubbed: no NUTS."""
    from pgm_models.inference import sampling

    X, y = vote
    model = CategoricalNB().fit(X.iloc[:, :2], y)
    model.sample_posterior_predictive(X.iloc[:, :2], n=5, random_seed=0)
    drawn = az.from_dict(
        posterior={"class_prob": np.full((1, 4, 2), 0.5)},
        sample_stats={"diverging": np.zeros((1, 4), bool)},
        observed_data={"stacked_count_2": np.ones((5, 2))},
        constant_data={"scale": np.ones(3)},
    )
    monkeypatch.setattr(sampling, "sample", lambda *args, **kwargs: drawn)
    model.idata_.extend(az.from_dict(prior={"class_prob": np.full((1, 3, 2), 0.5)}))
    idata = model.sample_posterior(draws=4)
    assert idata is model.idata_
    assert set(idata.groups()) == {"posterior", "sample_stats", "observed_data", "constant_data", "prior"}
    assert set(idata.observed_data.data_vars) == {"class_count"}
    assert set(idata.constant_data.data_vars) == {"scale", "class_concentration"}
    np.testing.assert_array_equal(idata.constant_data["class_concentration"].values, [1.0, 1.0])
