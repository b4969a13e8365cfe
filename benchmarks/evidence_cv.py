"""Empirical-Bayes priors against alpha = 1 in 10-fold cross-validated log loss.

    python -m benchmarks.evidence_cv [--datasets NAME ...] [--write FILE]

Every bundled classification dataset with a discrete model: nominal data → CategoricalNB
(numeric or mixed data after MDL binning, fitted inside each fold), the Reuters grain text →
MultinomialNB on its 300 most frequent words; on the nominal datasets also SPODE, AODE and TAN
(a second table, the same folds). Three priors: alpha = class_alpha = 1 (Laplace,
scikit-learn's and Weka's default), alpha = class_alpha = "evidence" (one shared value by type-II
maximum likelihood on the training folds) and alpha = "evidence-per-attribute". Stratified 10-fold
CV (fewer folds where the smallest class has fewer than 10 rows), the same folds for every prior;
mean test log loss over the folds (the posterior predictive, lower is better) with its standard
error across folds.
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

from pgm_models import AODE, SPODE, TAN, CategoricalNB, MultinomialNB
from pgm_models.datasets import load_dataset
from pgm_models.discretize import MDLDiscretizer
from pgm_models.zoo import _kinds, _TextColumn

from benchmarks import append_section

DATASETS = ["breast-cancer", "contact-lenses", "diabetes", "iris", "mountain-climbing", "reuters-grain-train", "textbook-15", "vote",
            "weather.nominal", "weather.numeric"]
PRIORS = {"alpha = 1": dict(alpha=1.0, class_alpha=1.0), "evidence": dict(alpha="evidence", class_alpha="evidence"),
          "evidence per attribute": dict(alpha="evidence-per-attribute", class_alpha="evidence")}


def model_for(X):
    kinds = _kinds(X)
    if kinds == {"text"}:
        return make_pipeline(_TextColumn(X.columns[0]), CountVectorizer(max_features=300), MultinomialNB())
    return CategoricalNB() if kinds == {"nominal"} else make_pipeline(MDLDiscretizer(), CategoricalNB())


def cross_validated_log_loss(X, y, prior: dict, folds, model=None) -> np.ndarray:
    losses = []
    template = model_for(X) if model is None else model
    for train, test in folds:
        model = clone(template)
        classifier = model[-1] if hasattr(model, "steps") else model
        classifier.set_params(**prior)
        model.fit(X.iloc[train], y.iloc[train])
        order = np.argsort(classifier.classes_)  # log_loss reads the columns in sorted-label order
        losses.append(log_loss(y.iloc[test], model.predict_proba(X.iloc[test])[:, order], labels=classifier.classes_[order]))
    return np.array(losses)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--write", help="append the Markdown table to this file")
    args = parser.parse_args(argv)
    rows, semi_naive_rows = [], []
    for name in args.datasets:
        X, y = load_dataset(name)
        n_splits = int(min(10, y.value_counts().min()))
        folds = list(StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=0).split(X, y))
        losses = {prior: cross_validated_log_loss(X, y, settings, folds) for prior, settings in PRIORS.items()}
        rows.append((name, len(y), n_splits, type(model_for(X)[-1] if hasattr(model_for(X), "steps") else model_for(X)).__name__, losses))
        print(name, {p: round(v.mean(), 4) for p, v in losses.items()}, flush=True)
        semi_naive_rows += semi_naive_losses(name, X, y, folds)
    if args.write:
        command = "python -m benchmarks.evidence_cv " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if a not in (args.write, "--write")
        )
        lines = ["", "## Empirical-Bayes alpha vs alpha = 1 (cross-validated log loss)", "", f"Command: `{command.strip()}`", "",
                 "| dataset | rows | folds | model | " + " | ".join(PRIORS) + " | evidence − (alpha = 1) |",
                 "|---|---:|---:|---|" + "---:|" * (len(PRIORS) + 1)]
        for name, n, k, model, losses in rows:
            cells = [mean_and_se(v) for v in losses.values()]
            difference = losses["evidence"] - losses["alpha = 1"]
            lines.append(f"| {name} | {n} | {k} | {model} | " + " | ".join(cells) + f" | {mean_and_se(difference, '+')} |")
        append_section(args.write, lines + semi_naive_table(semi_naive_rows))
    return 0


def mean_and_se(losses, sign="") -> str:
    """Mean over the folds ± its standard error; "—" where the prior does not apply (NaN)."""
    if np.isnan(losses).all():
        return "—"
    return f"{losses.mean():{sign}.4f} ± {losses.std(ddof=1) / np.sqrt(len(losses)):.4f}"


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
    lines = ["", "Semi-naive models, same folds (AODE's \"evidence\" is one alpha per SPODE; it has no per-attribute option):", "",
             "| dataset | rows | folds | model | " + " | ".join(PRIORS) + " | evidence − (alpha = 1) |",
             "|---|---:|---:|---|" + "---:|" * (len(PRIORS) + 1)]
    for name, n, k, model, losses in rows:
        difference = losses["evidence"] - losses["alpha = 1"]
        lines.append(f"| {name} | {n} | {k} | {model} | " + " | ".join(mean_and_se(v) for v in losses.values())
                     + f" | {mean_and_se(difference, '+')} |")
    return lines
# ------------------------------------------------------------------ end of the semi-naive models


if __name__ == "__main__":
    raise SystemExit(main())
