"""Empirical-Bayes priors against alpha = 1 in 10-fold cross-validated log loss.

    python -m benchmarks.evidence_cv [--datasets NAME ...] [--family all|discrete|gaussian] [--write FILE]

Every bundled classification dataset with a discrete model: nominal data → CategoricalNB
(numeric or mixed data after MDL binning, fitted inside each fold), the Reuters grain text →
MultinomialNB on its 300 most frequent words; on the nominal datasets also SPODE, AODE and TAN
(a second table, the same folds). Three priors: alpha = class_alpha = 1 (Laplace,
scikit-learn's and Weka's default), alpha = class_alpha = "evidence" (one shared value by type-II
maximum likelihood on the training folds) and alpha = "evidence-per-attribute". Stratified 10-fold
CV (fewer folds where the smallest class has fewer than 10 rows), the same folds for every prior;
mean test log loss over the folds (the posterior predictive, lower is better) with its standard
error across folds.

The Gaussian table (``--family gaussian``; the all-numeric datasets among ``--datasets``):
GaussianNB, LDA and QDA with estimate="predictive" (the Student-t posterior predictive, whose
chain rule is the evidence) under their default data-scaled prior, under "evidence" for every
hyperparameter that accepts it (class_alpha, κ0, ν0 and the per-feature prior variance scale),
and under "evidence" for the strengths only (class_alpha, κ0, ν0; the prior variance stays the
overall variance of each feature).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline

from benchmarks import append_section
from pgm_models import AODE, LDA, QDA, SPODE, TAN, CategoricalNB, GaussianNB, MultinomialNB
from pgm_models.app.zoo import _kinds, _TextColumn
from pgm_models.datasets import load_dataset
from pgm_models.preprocessing.discretize import MDLDiscretizer

DATASETS = [
    "breast-cancer",
    "contact-lenses",
    "diabetes",
    "iris",
    "mountain-climbing",
    "reuters-grain-train",
    "textbook-15",
    "vote",
    "weather.nominal",
    "weather.numeric",
]
PRIORS = {
    "alpha = 1": dict(alpha=1.0, class_alpha=1.0),
    "evidence": dict(alpha="evidence", class_alpha="evidence"),
    "evidence per attribute": dict(alpha="evidence-per-attribute", class_alpha="evidence"),
}


GAUSSIAN_MODELS = (GaussianNB, LDA, QDA)
GAUSSIAN_PRIORS = {
    "default prior": lambda cls: {},
    "evidence": lambda cls: dict.fromkeys(cls.evidence_parameters + ("class_alpha",), "evidence"),
    "evidence, strengths only": lambda cls: dict.fromkeys(
        [name for name in cls.evidence_parameters if name.endswith("strength")] + ["class_alpha"], "evidence"
    ),
}


def model_for(X):
    kinds = _kinds(X)
    if kinds == {"text"}:
        return make_pipeline(_TextColumn(X.columns[0]), CountVectorizer(max_features=300), MultinomialNB())
    return CategoricalNB() if kinds == {"nominal"} else make_pipeline(MDLDiscretizer(), CategoricalNB())


def cross_validated_log_loss(X, y, prior: dict, folds, model=None) -> np.ndarray:
    """Test log loss per fold of ``model`` (default ``model_for(X)``) with ``prior`` set."""
    losses = []
    for train, test in folds:
        fold_model = clone(model_for(X) if model is None else model)
        classifier = fold_model[-1] if hasattr(fold_model, "steps") else fold_model
        classifier.set_params(**prior)
        fold_model.fit(X.iloc[train], y.iloc[train])
        losses.append(log_loss(y.iloc[test], fold_model.predict_proba(X.iloc[test]), labels=classifier.classes_))
    return np.array(losses)


def _mean_and_error(values, sign: str = "") -> str:
    """Mean over the folds ± its standard error; "—" where the prior does not apply (NaN)."""
    if np.isnan(values).all():
        return "—"
    return f"{values.mean():{sign}.4f} ± {values.std(ddof=1) / np.sqrt(len(values)):.4f}"


def _gaussian_rows(name, X, y, folds):
    """(dataset, rows, folds, model, {prior: losses}) of the Gaussian models on all-numeric data."""
    rows = []
    for cls in GAUSSIAN_MODELS:
        losses = {
            prior: cross_validated_log_loss(X, y, settings(cls), folds, cls(estimate="predictive"))
            for prior, settings in GAUSSIAN_PRIORS.items()
        }
        rows.append((name, len(y), len(folds), cls.__name__, losses))
        print(name, cls.__name__, {p: round(v.mean(), 4) for p, v in losses.items()}, flush=True)
    return rows


def _table(heading, command, priors, baseline, rows):
    lines = [
        "",
        heading,
        "",
        f"Command: `{command}`",
        "",
        "| dataset | rows | folds | model | " + " | ".join(priors) + f" | evidence − ({baseline}) |",
        "|---|---:|---:|---|" + "---:|" * (len(priors) + 1),
    ]
    for name, n, k, model, losses in rows:
        cells = [_mean_and_error(v) for v in losses.values()] + [
            _mean_and_error(losses["evidence"] - losses[baseline], "+")
        ]
        lines.append(f"| {name} | {n} | {k} | {model} | " + " | ".join(cells) + " |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument(
        "--family",
        choices=["all", "discrete", "gaussian"],
        default="all",
        help="discrete: the Dirichlet models' table; gaussian: GaussianNB/LDA/QDA on the all-numeric datasets",
    )
    parser.add_argument("--write", help="append the Markdown tables to this file")
    args = parser.parse_args(argv)
    rows, semi_naive_rows, gaussian_rows = [], [], []
    for name in args.datasets:
        X, y = load_dataset(name)
        n_splits = int(min(10, y.value_counts().min()))
        folds = list(StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=0).split(X, y))
        if args.family != "gaussian":
            losses = {prior: cross_validated_log_loss(X, y, settings, folds) for prior, settings in PRIORS.items()}
            rows.append(
                (
                    name,
                    len(y),
                    n_splits,
                    type(model_for(X)[-1] if hasattr(model_for(X), "steps") else model_for(X)).__name__,
                    losses,
                )
            )
            print(name, {p: round(v.mean(), 4) for p, v in losses.items()}, flush=True)
            semi_naive_rows += semi_naive_losses(name, X, y, folds)
        if args.family != "discrete" and _kinds(X) == {"numeric"}:
            gaussian_rows += _gaussian_rows(name, X, y, folds)
    if args.write:
        command = (
            "python -m benchmarks.evidence_cv "
            + " ".join(a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write"))
        ).strip()
        lines = []
        if rows:
            lines += _table(
                "## Empirical-Bayes alpha vs alpha = 1 (cross-validated log loss)", command, PRIORS, "alpha = 1", rows
            ) + semi_naive_table(semi_naive_rows)
        if gaussian_rows:
            lines += _table(
                "## Empirical-Bayes Gaussian priors vs the default prior (cross-validated log loss, predictive)",
                command,
                GAUSSIAN_PRIORS,
                "default prior",
                gaussian_rows,
            )
        append_section(args.write, lines)
    return 0


# ------------------------------------------------------------------ semi-naive models (SPODE, AODE, TAN)
# The same folds and priors on the nominal datasets; AODE learns one alpha per SPODE under
# "evidence" and has no per-attribute option (pgm_models.semi_naive._evidence). TAN's class_alpha
# follows alpha (1 or "evidence"); SPODE and AODE have no separate class prior.
SEMI_NAIVE_DATASETS = ("breast-cancer", "contact-lenses", "vote", "weather.nominal")
SEMI_NAIVE_MODELS = {"SPODE (parent: first attribute)": SPODE(parent=0), "AODE": AODE(), "TAN": TAN()}


def semi_naive_losses(name, X, y, folds) -> list:
    """Table rows (dataset, rows, folds, model, {prior: fold losses}) of the semi-naive models."""
    if name not in SEMI_NAIVE_DATASETS:
        return []
    rows = []
    for label, model in SEMI_NAIVE_MODELS.items():
        losses = {}
        for prior, settings in PRIORS.items():
            settings = {k: v for k, v in settings.items() if k in model.get_params()}
            if isinstance(model, AODE) and settings["alpha"] == "evidence-per-attribute":
                losses[prior] = np.full(len(folds), np.nan)
                continue
            losses[prior] = cross_validated_log_loss(X, y, settings, folds, model)
        rows.append((name, len(y), len(folds), label, losses))
        print(name, label, {p: round(v.mean(), 4) for p, v in losses.items()}, flush=True)
    return rows


def semi_naive_table(rows) -> list[str]:
    if not rows:
        return []
    lines = [
        "",
        'Semi-naive models, same folds (AODE\'s "evidence" is one alpha per SPODE; it has no per-attribute option):',
        "",
        "| dataset | rows | folds | model | " + " | ".join(PRIORS) + " | evidence − (alpha = 1) |",
        "|---|---:|---:|---|" + "---:|" * (len(PRIORS) + 1),
    ]
    for name, n, k, model, losses in rows:
        difference = losses["evidence"] - losses["alpha = 1"]
        lines.append(
            f"| {name} | {n} | {k} | {model} | "
            + " | ".join(_mean_and_error(v) for v in losses.values())
            + f" | {_mean_and_error(difference, '+')} |"
        )
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
