"""The ``pgm-models`` command.

    pgm-models zoo [--dataset vote] [--draws 1000] [--chains 4] [--sampler NAME] [--seed 0] [--test-size 0.3]
                   [--out DIR] [--format md|html]
        fit every model of the zoo that applies to a bundled dataset, verify each against NUTS,
        print a table (test accuracy and log loss per estimate, max |z|, R-hat, ESS, fit and
        sampling seconds) and write a report with figures to DIR. Exit status 1 when a
        verification fails.
    pgm-models datasets
        list the bundled datasets
    pgm-models fit --model aode --data FILE.arff|FILE.csv [--target COLUMN] [--max-rows 40]
        fit one model to a file and print its posterior summary

Errors in arguments or data are reported in one line (exit status 2), not a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings

import pandas as pd

MODELS = {
    "categorical-nb": "CategoricalNB", "bernoulli-nb": "BernoulliNB", "multinomial-nb": "MultinomialNB",
    "gaussian-nb": "GaussianNB", "lda": "LDA", "qda": "QDA", "spode": "SPODE", "aode": "AODE", "tan": "TAN",
    "logistic-regression": "LogisticRegression",
}


def _print_table(table: pd.DataFrame):
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.precision", 4):
        print(table.to_string(index=False))


def _quiet_pymc():
    """PyMC sets its logger to INFO when imported; the table and the progress bar say enough."""
    import importlib

    importlib.import_module("pymc")  # imported first, or it resets its logger's level on import
    for name in ("pymc", "pytensor"):
        logging.getLogger(name).setLevel(logging.ERROR)


def zoo(args) -> int:
    from pgm_models.datasets import load_dataset
    from pgm_models.progress import Progress
    from pgm_models.report import write_report
    from pgm_models.zoo import run_zoo

    _quiet_pymc()
    X, y = load_dataset(args.dataset)
    with Progress() as progress:
        result = run_zoo(X, y, dataset=args.dataset, draws=args.draws, chains=args.chains, seed=args.seed,
                         test_size=args.test_size, progress=progress, sampler=args.sampler)
    _print_table(result.table())
    for run in result.runs:
        if run.status == "FAILED":
            print(f"{run.name}: verification FAILED: {'; '.join(run.verification.reasons[:3])}")
    if args.out:
        print(f"report: {write_report(result, args.out, args.format)}")
    return 0 if result.passed else 1


def datasets(args) -> int:
    from pgm_models.datasets import list_datasets

    _print_table(list_datasets())
    return 0


def fit(args) -> int:
    import pgm_models
    from pgm_models.datasets import load_table
    from pgm_models.summary import posterior_summary

    _quiet_pymc()
    X, y = load_table(args.data, args.target)
    model = getattr(pgm_models, MODELS[args.model])()
    model.fit(X, y)
    if not hasattr(model, "analytic_posterior") and hasattr(model, "sample_posterior"):
        model.sample_posterior(draws=args.draws, chains=args.chains, cores=1, random_seed=args.seed, progressbar=False)
    counts = pd.Series(y).value_counts().reindex(model.classes_)
    print(f"{type(model).__name__} fitted to {args.data}: {len(y)} rows, {X.shape[1]} attributes, target {y.name!r} "
          f"with classes {', '.join(f'{c} ({n})' for c, n in counts.items())}")
    summary = posterior_summary(model, random_seed=args.seed)
    shown = summary if args.max_rows == 0 else summary.head(args.max_rows)
    _print_table(shown)
    if len(shown) < len(summary):
        print(f"… {len(summary) - len(shown)} more rows (--max-rows 0 prints all)")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pgm-models", description="Generative Bayesian classifiers on PyMC.")
    commands = parser.add_subparsers(dest="command", required=True)
    zoo_parser = commands.add_parser("zoo", help="fit and verify every applicable model on a bundled dataset",
                                     description="Fit every model of the zoo that applies to a bundled dataset, verify each "
                                     "closed-form posterior against NUTS, and print test scores per estimate.")
    zoo_parser.add_argument("--dataset", default="vote", help="bundled dataset (see `pgm-models datasets`; default vote)")
    zoo_parser.add_argument("--draws", type=int, default=1000, help="NUTS draws per chain (default 1000; as many tuning steps)")
    zoo_parser.add_argument("--chains", type=int, default=4, help="NUTS chains (default 4: R-hat over many parameters needs them)")
    zoo_parser.add_argument("--seed", type=int, default=0, help="seed of the train/test split and of NUTS (default 0)")
    zoo_parser.add_argument("--test-size", type=float, default=0.3, help="fraction held out for testing (default 0.3)")
    zoo_parser.add_argument("--sampler", default=None, help="NUTS backend: pymc, nutpie, numpyro or blackjax "
                            "(default: pgm_models.sampling.DEFAULT_SAMPLER)")
    zoo_parser.add_argument("--out", help="folder for the report and its figures (none written without it)")
    zoo_parser.add_argument("--format", choices=["md", "html"], default="md", help="report format (default md)")
    zoo_parser.set_defaults(run=zoo)
    commands.add_parser("datasets", help="list the bundled datasets").set_defaults(run=datasets)
    fit_parser = commands.add_parser("fit", help="fit one model to an ARFF or CSV file and print its posterior summary")
    fit_parser.add_argument("--model", required=True, choices=sorted(MODELS), help="the model")
    fit_parser.add_argument("--data", required=True, help="an .arff or .csv file")
    fit_parser.add_argument("--target", help="the class column (default: the last)")
    fit_parser.add_argument("--max-rows", type=int, default=40, help="parameters printed (0: all; default 40)")
    fit_parser.add_argument("--draws", type=int, default=1000, help="NUTS draws for logistic regression (default 1000)")
    fit_parser.add_argument("--chains", type=int, default=2, help="NUTS chains for logistic regression (default 2)")
    fit_parser.add_argument("--seed", type=int, default=0, help="seed of the draws the intervals are read from (default 0)")
    fit_parser.set_defaults(run=fit)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return args.run(args)
    except (ValueError, OSError) as error:
        print(f"pgm-models: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
