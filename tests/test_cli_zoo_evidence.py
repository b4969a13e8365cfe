"""``pgm-models zoo --prior evidence``: every model the zoo runs learns the hyperparameters its own
check accepts "evidence" for (``use_evidence_priors`` asks the estimator, ``_check_hyperparameters``)
and keeps its defaults otherwise. It used to set ``alpha="evidence"`` on A2DE (which refuses it)
and on AODEsr, WAODE and HNB under their default m-estimate (whose fit refuses it), so the zoo
stopped at AODEsr's fit on every nominal dataset, and it left MANB's ``arc_prior`` out. NUTS is
left out here (LogisticRegression, whose mean needs its draws, with it)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import train_test_split

import pgm_models
from pgm_models.app.cli import main
from pgm_models.datasets import load_dataset
from pgm_models.model_selection.evidence import use_evidence_priors

pytestmark = pytest.mark.filterwarnings("ignore")

# what each estimator learns under use_evidence_priors, by its documented parameters
LEARNED = {
    "CategoricalNB": {"alpha", "class_alpha"},
    "BernoulliNB": {"alpha", "class_alpha"},
    "MultinomialNB": {"alpha", "class_alpha"},
    "GaussianNB": {"class_alpha", "mean_strength", "var_strength", "prior_var"},
    "LDA": {"class_alpha", "mean_strength", "cov_strength", "prior_cov"},
    "QDA": {"class_alpha", "mean_strength", "cov_strength", "prior_cov"},
    "SPODE": {"alpha"},
    "AODE": {"alpha"},
    "TAN": {"alpha", "class_alpha"},
    "MANB": {"arc_prior"},
    "AODEsr": set(),  # the m-estimate (Weka's default) has no learned option
    "WAODE": set(),
    "HNB": set(),
    "A2DE": set(),  # takes a number only
    "KDB": set(),
    "BayesNetClassifier": set(),
    "BMATAN": set(),
    "MixedNB": set(),
    "LogisticRegression": set(),
}


@pytest.mark.parametrize("name", list(LEARNED))
def test_use_evidence_priors_sets_what_the_estimator_accepts(name):
    model = getattr(pgm_models, name)()
    before = model.get_params(deep=False)
    assert use_evidence_priors(model) == bool(LEARNED[name])
    changed = {key for key, value in model.get_params(deep=False).items() if value is not before[key]}
    assert changed == LEARNED[name]
    assert all(model.get_params()[key] == "evidence" for key in changed)


def test_laplace_estimator_lets_the_weka_averages_learn_alpha():
    for name in ("AODEsr", "WAODE", "HNB"):
        model = getattr(pgm_models, name)(estimator="laplace")
        assert use_evidence_priors(model) and model.alpha == "evidence", name
    a2de = pgm_models.A2DE(estimator="m-estimate")
    assert not use_evidence_priors(a2de) and a2de.alpha == 1.0


def _zoo_without_nuts(monkeypatch):
    """run_zoo with nothing sampled and LogisticRegression left out; its results are recorded."""
    import pgm_models.app.zoo as zoo

    class NothingSampled(dict):
        def __contains__(self, name):
            return True

        def __getitem__(self, name):
            return "not sampled in this test"

    monkeypatch.setattr(zoo, "NOT_SAMPLED", NothingSampled())
    catalogue = zoo.applicable_models
    monkeypatch.setattr(zoo, "applicable_models", lambda X: [m for m in catalogue(X) if m[0] != "LogisticRegression"])
    results, run_zoo = [], zoo.run_zoo

    def recorded(*args, **kwargs):
        results.append(run_zoo(*args, **kwargs))
        return results[-1]

    monkeypatch.setattr(zoo, "run_zoo", recorded)
    return results, catalogue


def _classifier(run):
    return run.model[-1] if hasattr(run.model, "steps") else run.model


@pytest.mark.parametrize(
    ("dataset", "learns"),
    [
        ("weather.nominal", {"CategoricalNB": "alpha", "SPODE": "alpha", "TAN": "alpha", "MANB": "arc_prior"}),
        ("iris", {"GaussianNB": "mean_strength", "LDA": "cov_strength", "QDA": "cov_strength"}),
    ],
)
def test_zoo_prior_evidence_runs_every_applicable_model(monkeypatch, capsys, dataset, learns):
    results, catalogue = _zoo_without_nuts(monkeypatch)
    assert main(["zoo", "--dataset", dataset, "--prior", "evidence", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    (result,) = results
    X, y = load_dataset(dataset)
    expected = [(name, model) for name, model in catalogue(X) if name != "LogisticRegression"]
    assert [run.name for run in result.runs] == [name for name, _ in expected]
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=1, stratify=y)
    for (name, default), run in zip(expected, result.runs):
        classifier, default = _classifier(run), _classifier(type("Run", (), {"model": default})())
        kind = type(classifier).__name__
        learned = {key for key, value in classifier.get_params(deep=False).items() if value == "evidence"}
        # the catalogue's own choices (MANB's arc_prior) plus what the estimator accepts
        assert learned == LEARNED[kind] | {k for k, v in default.get_params(deep=False).items() if v == "evidence"}
        assert np.isfinite(run.scores.loc[["mean", "predictive"], "accuracy"]).all(), name
        assert (run.prior != "") == bool(learned), name
        assert (run.prior in out) and (name in out)
    for name, parameter in learns.items():
        run = next(run for run in result.runs if run.name == name)
        classifier = _classifier(run)
        # the value learned in the zoo is the one a fit of the same estimator on the training split learns
        features = run.model[:-1].fit_transform(X_train, y_train) if hasattr(run.model, "steps") else X_train
        alone = clone(classifier).fit(features, y_train)
        learned = np.asarray(getattr(classifier, f"{parameter}_"), dtype=float)
        np.testing.assert_array_equal(learned, np.asarray(getattr(alone, f"{parameter}_"), dtype=float))
        assert np.all(learned != 1.0) and f"{parameter}=" in run.prior  # moved from the optimiser's start
