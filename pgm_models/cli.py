"""The ``pgm-models`` command.

    pgm-models zoo [--dataset vote] [--seed 0] [--test-size 0.3]
        fit every model of the zoo that applies to a bundled dataset on a stratified split and
        print test accuracy and log loss for each estimate (mle, map, mean, predictive)
    pgm-models datasets
        list the bundled datasets

Errors in arguments or data are reported in one line (exit status 2), not a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

from pgm_models.conjugate import ESTIMATES
from pgm_models.datasets import list_datasets, load_dataset


def applicable_models(X: pd.DataFrame):
    """(name, estimator) pairs of the zoo's models that apply to these attributes."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    from pgm_models import BernoulliNB, CategoricalNB, MultinomialNB

    if all(isinstance(dtype, pd.CategoricalDtype) for dtype in X.dtypes):
        return [("CategoricalNB", CategoricalNB())]
    if X.shape[1] == 1 and X.dtypes.iloc[0] == object:
        text = _TextColumn(X.columns[0])
        return [
            ("MultinomialNB", make_pipeline(text, CountVectorizer(), MultinomialNB())),
            ("BernoulliNB", make_pipeline(text, CountVectorizer(binary=True), BernoulliNB())),
        ]
    return []


class _TextColumn:
    """Pipeline step selecting one text column as a list of strings."""

    def __init__(self, column):
        self.column = column

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X[self.column].tolist()


def _estimate_scores(model, X_test, y_test):
    from sklearn.metrics import log_loss

    classifier = model[-1] if hasattr(model, "steps") else model
    features = model[:-1].transform(X_test) if hasattr(model, "steps") else X_test
    rows = {}
    for estimate in ESTIMATES:
        proba = classifier.predict_proba(features, estimate=estimate)
        predicted = classifier.classes_[np.argmax(proba, axis=1)]
        rows[f"acc_{estimate}"] = float(np.mean(predicted == np.asarray(y_test)))
        rows[f"logloss_{estimate}"] = float(log_loss(y_test, np.clip(proba, 1e-300, 1), labels=classifier.classes_))
    return rows


def zoo(dataset: str, seed: int, test_size: float) -> pd.DataFrame:
    from sklearn.model_selection import train_test_split

    X, y = load_dataset(dataset)
    models = applicable_models(X)
    if not models:
        raise ValueError(f"no model of the zoo applies to dataset {dataset!r} yet (numeric attributes)")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=test_size, random_state=seed, stratify=y)
    rows = []
    for name, model in models:
        start = time.perf_counter()
        model.fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
        rows.append({"model": name, **_estimate_scores(model, X_test, y_test), "fit_s": fit_seconds})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pgm-models", description="Generative Bayesian classifiers on PyMC.")
    commands = parser.add_subparsers(dest="command", required=True)
    zoo_parser = commands.add_parser("zoo", help="fit the zoo on a bundled dataset and print a table")
    zoo_parser.add_argument("--dataset", default="vote", help="bundled dataset (see `pgm-models datasets`)")
    zoo_parser.add_argument("--seed", type=int, default=0, help="seed of the train/test split")
    zoo_parser.add_argument("--test-size", type=float, default=0.3, help="fraction held out for testing")
    commands.add_parser("datasets", help="list the bundled datasets")
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            if args.command == "datasets":
                table = list_datasets()
            else:
                table = zoo(args.dataset, args.seed, args.test_size)
    except (ValueError, OSError) as error:
        print(f"pgm-models: error: {error}", file=sys.stderr)
        return 2
    with pd.option_context("display.width", 200, "display.max_columns", None, "display.precision", 4):
        print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
