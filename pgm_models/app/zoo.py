"""The zoo: every model that applies to a dataset, fitted, scored and verified against NUTS.

``run_zoo(X, y)`` splits the data (stratified), and for each model of
:func:`applicable_models`:

1. fits the closed-form posterior on the training rows (timed: ``fit_s``);
2. samples its counts-form PyMC model with NUTS (timed: ``sample_s``) and compares the draws with
   the closed form (:func:`pgm_models.inference.verify.check_posterior`: max |z|, R-hat, ESS). AODE is an
   average of SPODEs with no single PyMC model; logistic regression has no closed form, so only
   its sampler's health is checked (:func:`pgm_models.inference.verify.check_sampler`) and its draws give
   its "mean" and "predictive" estimates;
3. scores each estimate (mle / map / mean / predictive) on the test rows: accuracy and log loss.

Which models apply: nominal attributes get CategoricalNB, SPODE (its super-parent the attribute
with the largest marginal likelihood p(D | a)), AODE, TAN, AODEsr, WAODE, HNB, A2DE (where its
triple tensor is small), KDB (k = 1), a K2-searched Bayesian network, MANB, BMATAN and logistic
regression on one-hot columns (HNB is fitted and scored but not sampled: ``NOT_SAMPLED``); numeric attributes get GaussianNB, LDA, QDA, logistic regression on standardised
columns and AODE after MDL discretisation; mixed attributes get the nominal models after MDL
discretisation of the numeric ones; one text column gets MultinomialNB and BernoulliNB on its
``max_words`` most frequent words (a bounded vocabulary keeps NUTS affordable), and ComplementNB
(its complement-class word distributions verified the same way).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pgm_models.conjugate import ESTIMATES

MAX_WORDS = 300
PRIORS = ("fixed", "evidence")


@dataclass
class ZooRun:
    """One model of the zoo: the fitted estimator (a Pipeline when its input needs a transform),
    its test scores per estimate, and its NUTS verification (None when it has no PyMC model).
    """

    name: str
    model: object
    fit_seconds: float
    scores: pd.DataFrame = None  # compare.score_estimates, indexed by estimate
    sample_seconds: float = float("nan")
    verification: object = None
    idata: object = None
    note: str = ""
    loo: object = (
        None  # exact leave-one-out on the training rows (pgm_models.model_selection.loo), where the model has it
    )
    prior: str = ""  # the hyperparameters learned by --prior evidence
    undefined: dict = field(default_factory=dict)  # estimate -> why these training rows leave it undefined

    @property
    def classifier(self):
        return _classifier(self.model)

    def features(self, X):
        """X as the classifier sees it (after the pipeline's transforms)."""
        return self.model[:-1].transform(X) if hasattr(self.model, "steps") else X

    @property
    def status(self) -> str:
        if self.verification is None:
            return "n/a"
        return "passed" if self.verification.passed else "FAILED"


@dataclass
class ZooResult:
    """Every run of the zoo on one train/test split."""

    dataset: str
    runs: list[ZooRun]
    X_test: pd.DataFrame
    y_test: pd.Series
    settings: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """True when no verification failed (models with no PyMC model are not counted)."""
        return all(run.status != "FAILED" for run in self.runs)

    def table(self) -> pd.DataFrame:
        rows = []
        for run in self.runs:
            verification = run.verification
            health = verification.table if verification is not None else None
            rows.append(
                {
                    "model": run.name,
                    **{f"acc_{e}": run.scores.loc[e, "accuracy"] for e in ESTIMATES},
                    **{f"logloss_{e}": run.scores.loc[e, "log_loss"] for e in ESTIMATES},
                    "max_abs_z": verification.max_abs_z if verification is not None else np.nan,
                    "z_max": verification.thresholds.get("z_max", np.nan) if verification is not None else np.nan,
                    "max_rhat": health["r_hat"].max() if health is not None else np.nan,
                    "min_ess": health["ess_bulk"].min() if health is not None else np.nan,
                    "verified": run.status,
                    "fit_s": run.fit_seconds,
                    "sample_s": run.sample_seconds,
                }
            )
        table = pd.DataFrame(rows)
        if self.settings.get("prior") == "evidence":
            table["prior"] = [run.prior for run in self.runs]
        return table

    def comparison(self):
        """``az.compare`` of the models' exact LOO on the training rows, or None."""
        from pgm_models.model_selection.loo import compare_loo

        return compare_loo({run.name: run.loo for run in self.runs if run.loo is not None})


def _scores(classifier, X_test, y_test) -> tuple[pd.DataFrame, dict]:
    """``score_estimates`` indexed by estimate, with the MLE scored NaN where the training rows
    leave it undefined (a class of collinear rows under QDA: the notes' "the MLE cannot even be
    computed"), and why, by estimate; the prior defines every other estimate, so their errors stand.
    """
    from pgm_models.model_selection.compare import score_estimates

    rows, undefined = [], {}
    for estimate in ESTIMATES:
        try:
            rows.append(score_estimates(classifier, X_test, y_test, estimates=(estimate,)))
        except ValueError as reason:
            if estimate != "mle":
                raise
            undefined[estimate] = str(reason)
            rows.append(pd.DataFrame([{"estimate": estimate}]))
    return pd.concat(rows, ignore_index=True).set_index("estimate"), undefined


def _classifier(model):
    """The classifier of an estimator or of a Pipeline (its last step)."""
    return model[-1] if hasattr(model, "steps") else model


class _TextColumn:
    """Pipeline step selecting one text column as a list of strings."""

    def __init__(self, column):
        self.column = column

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X[self.column].tolist()


def _kinds(X: pd.DataFrame) -> set[str]:
    kinds = set()
    for dtype in X.dtypes:
        if isinstance(dtype, pd.CategoricalDtype):
            kinds.add("nominal")
        elif pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            kinds.add("numeric")
        else:
            kinds.add("text")
    return kinds


# A2DE joins the zoo on nominal data whose triple tensor has at most this many cells per class
# (the bins of numeric columns are not known before fitting, so mixed data leave it out)
A2DE_MAX_CELLS = 1 << 20


def _value_cells(X: pd.DataFrame) -> int:
    """Σ_j (r_j + 1): the value and missing cells of X's nominal attributes."""
    return sum(len(dtype.categories) + 1 for dtype in X.dtypes)


def applicable_models(X: pd.DataFrame, max_words: int = MAX_WORDS) -> list[tuple[str, object]]:
    """(name, unfitted estimator or Pipeline) for every model of the zoo that applies to X."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from pgm_models import (
        A2DE,
        AODE,
        BMATAN,
        HNB,
        KDB,
        LDA,
        MANB,
        QDA,
        SPODE,
        TAN,
        WAODE,
        AODEsr,
        BayesNetClassifier,
        BernoulliNB,
        CategoricalNB,
        ComplementNB,
        GaussianNB,
        LogisticRegression,
        MixedNB,
        MultinomialNB,
    )
    from pgm_models.preprocessing.discretize import MDLDiscretizer

    kinds = _kinds(X)
    if kinds == {"text"} and X.shape[1] == 1:
        text = X.columns[0]
        return [
            (
                "MultinomialNB",
                make_pipeline(_TextColumn(text), CountVectorizer(max_features=max_words), MultinomialNB()),
            ),
            (
                "BernoulliNB",
                make_pipeline(_TextColumn(text), CountVectorizer(max_features=max_words, binary=True), BernoulliNB()),
            ),
            ("ComplementNB", make_pipeline(_TextColumn(text), CountVectorizer(max_features=max_words), ComplementNB())),
        ]
    if "text" in kinds:
        raise ValueError("no model of the zoo applies: string attributes are supported only as a single text column")

    def nominal(estimator):
        return estimator if kinds == {"nominal"} else make_pipeline(MDLDiscretizer(), estimator)

    if kinds == {"numeric"}:
        return [
            ("GaussianNB", GaussianNB()),
            ("LDA", LDA()),
            ("QDA", QDA()),
            ("LogisticRegression", make_pipeline(StandardScaler(), LogisticRegression())),
            ("AODE (MDL bins)", nominal(AODE())),
        ]
    one_hot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    return [
        ("CategoricalNB", nominal(CategoricalNB())),
        ("SPODE", nominal(SPODE())),
        ("AODE", nominal(AODE())),
        ("TAN", nominal(TAN())),
        ("AODEsr", nominal(AODEsr())),
        ("WAODE", nominal(WAODE())),
        ("HNB", nominal(HNB())),
        *([("A2DE", A2DE())] if kinds == {"nominal"} and _value_cells(X) ** 3 <= A2DE_MAX_CELLS else []),
        ("KDB", nominal(KDB(k=1))),
        ("BayesNet-K2", nominal(BayesNetClassifier(search="k2", max_parents=2))),
        ("MANB", nominal(MANB(arc_prior="evidence"))),
        ("BMATAN", nominal(BMATAN())),
        (
            "LogisticRegression",
            make_pipeline(MDLDiscretizer(), one_hot, LogisticRegression())
            if "numeric" in kinds
            else make_pipeline(one_hot, LogisticRegression()),
        ),
    ] + ([("MixedNB", MixedNB())] if "numeric" in kinds else [])  # mixed data: numbers kept as numbers


def _most_probable_parent(model, X_train, y_train):
    """Set a SPODE's super-parent to the attribute whose SPODE has the largest marginal
    likelihood on the training rows (AODE's BMA weights).
    """
    from pgm_models import AODE

    classifier = _classifier(model)
    features = model[:-1].fit_transform(X_train, y_train) if hasattr(model, "steps") else X_train
    evidence = AODE(weights="bma").fit(features, y_train).spode_log_evidence()
    classifier.set_params(parent=features.columns[int(np.argmax(evidence))])


# what a catalogue entry needs from the training rows before it is fitted, by its name
_PREPARE = {"SPODE": _most_probable_parent}
# catalogue entries whose NUTS check would take minutes, not seconds (the main job stays under a
# minute): fitted and scored here, their check_posterior run by the test suite
NOT_SAMPLED = {
    "HNB": "one Dirichlet table per ordered pair of attributes (F(F−1) tables): its NUTS check against the "
    "closed form runs in the test suite (tests/test_hnb.py), minutes on vote"
}


def _verifiable(model) -> bool:
    """Whether the model has both a PyMC model and a closed form to check its draws against."""
    classifier = _classifier(model)
    return hasattr(classifier, "sample_posterior") and hasattr(classifier, "analytic_posterior")


def run_zoo(
    X,
    y,
    *,
    dataset: str = "data",
    draws: int = 1000,
    chains: int = 4,
    seed: int = 0,
    test_size: float = 0.3,
    family_error: float = 0.01,
    models=None,
    progress=None,
    prior: str = "fixed",
    sampler: str | None = None,
) -> ZooResult:
    """Fit, verify and score every applicable model (or the (name, estimator) pairs in
    ``models``); ``progress(done, total, message)`` is told before each step and, if it has a
    ``draws(done, total)`` method (``pgm_models.app.progress.Progress``), the iterations inside each
    NUTS run. ``sampler``: the NUTS backend (``pgm_models.inference.sampling``; default its default).

    Four chains by default: with two, split R-hat over a hundred parameters exceeds 1.01 by
    chance in a sizeable share of runs of a correct model. ``prior="evidence"`` fits every
    model with the hyperparameters it accepts "evidence" for set to it (empirical Bayes: alpha,
    class_alpha, MANB's arc_prior; for GaussianNB, LDA and QDA the prior strengths and scale too;
    ``use_evidence_priors`` asks the estimator), the others at their defaults.
    """
    import warnings

    from sklearn.model_selection import train_test_split

    from pgm_models.inference.sampling import DEFAULT_SAMPLER, check_sampler_name
    from pgm_models.inference.verify import check_posterior, check_sampler
    from pgm_models.model_selection.evidence import describe_prior, use_evidence_priors

    if draws < 1 or chains < 1:
        raise ValueError(f"--draws and --chains must be ≥ 1, got draws={draws}, chains={chains}")
    if prior not in PRIORS:
        raise ValueError(f"--prior must be one of {PRIORS}, got {prior!r}")
    if not 0 < test_size < 1:
        raise ValueError(f"--test-size must be in (0, 1), got {test_size}")
    sampler = check_sampler_name(sampler or DEFAULT_SAMPLER)
    unsampled = NOT_SAMPLED if models is None else {}  # the catalogue's choices; models given are all sampled
    models = applicable_models(X) if models is None else models
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=test_size, random_state=seed, stratify=y)
    closed_forms = sum(_verifiable(model) and name not in unsampled for name, model in models)
    # R-hat's calibrated thresholds share the family error among every model NUTS samples, as the
    # closed-form tests share it among those with a closed form
    sampled = sum(hasattr(_classifier(model), "sample_posterior") and name not in unsampled for name, model in models)
    progress = progress or (lambda done, total, message: None)
    runs = []
    for index, (name, model) in enumerate(models):
        progress(index, len(models), f"{name}: fitting")
        if name in _PREPARE:
            _PREPARE[name](model, X_train, y_train)
        if prior == "evidence":
            use_evidence_priors(_classifier(model))
        start = time.perf_counter()
        model.fit(X_train, y_train)
        run = ZooRun(name, model, time.perf_counter() - start)
        classifier = run.classifier
        run.prior = describe_prior(classifier)
        if hasattr(classifier, "loo"):
            try:
                run.loo = classifier.loo(run.features(X_train), y_train)
            except NotImplementedError as reason:  # a model whose leave-one-out is not exact says why
                run.note = str(reason)
        if name in unsampled:
            run.note = unsampled[name]
        elif hasattr(classifier, "sample_posterior"):
            progress(index, len(models), f"{name}: NUTS ({sampler}), {chains} × {draws} draws")
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # R-hat and ESS are computed by the verification below: PyMC's own checks would
                # compute them a second time (BENCHMARKS.md, "Cold against warm start")
                run.idata = classifier.sample_posterior(
                    draws=draws,
                    tune=max(draws, 500),
                    chains=chains,
                    sampler=sampler,
                    random_seed=seed,
                    progress=getattr(progress, "draws", None),
                    compute_convergence_checks=False,
                )
            run.sample_seconds = time.perf_counter() - start
            if _verifiable(model):
                run.verification = check_posterior(
                    classifier, run.idata, family_error=family_error / closed_forms, rhat_level=family_error / sampled
                )
            else:
                run.verification = check_sampler(run.idata, rhat_level=family_error / sampled)
                run.note = (
                    "no closed form: only the sampler's health is checked; its draws give 'mean' and 'predictive'"
                )
        elif classifier._components() is not None:
            column, components = classifier._components()
            kind = type(components[0][2]()).__name__
            run.note = f"an average of {len(components)} {kind} models, with no single PyMC model: " + (
                f"the {kind} row verifies one of them"
                if any(type(_classifier(m)).__name__ == kind for _, m in models)
                else f"verify one of them with check_posterior(m, m.sample_posterior()), m a {kind} of the average"
            )
        run.scores, run.undefined = _scores(run.classifier, run.features(X_test), y_test)
        runs.append(run)
    progress(len(models), len(models), "done")
    settings = {
        "draws": draws,
        "chains": chains,
        "sampler": sampler,
        "seed": seed,
        "test_size": test_size,
        "prior": prior,
        "n_train": len(y_train),
        "n_test": len(y_test),
    }
    return ZooResult(dataset, runs, X_test, y_test, settings)
