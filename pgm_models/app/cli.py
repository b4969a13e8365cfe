"""The ``pgm-models`` command.

    pgm-models zoo [--dataset vote] [--draws 1000] [--chains 4] [--sampler NAME] [--seed 0] [--test-size 0.3]
                   [--prior fixed|evidence] [--out DIR] [--format md|html] [--wide]
        fit every model of the zoo that applies to a bundled dataset, verify each against NUTS,
        print a table (test accuracy and log loss per estimate, max |z|, R-hat, ESS, fit and
        sampling seconds) and write a report with figures to DIR. Exit status 1 when a
        verification fails, with what failed and what to raise.
    pgm-models datasets
        list the bundled datasets
    pgm-models fit --model aode --data FILE.arff|FILE.csv [--target COLUMN] [--max-rows 40]
                   [--sep ;] [--na-values NA ...] [--max-classes 50] [--scheduler ADDRESS|local]
        fit one model to a file and print its posterior summary. Model names are the README's
        (categorical-nb) or the class names (CategoricalNB), in any case. The nominal models
        (categorical-nb, spode, aode, tan) bin numeric columns by MDL, as the zoo does, and say so.
        With --scheduler, fit a generative model on Dask from Parquet/CSV files ('DIR/*.parquet'),
        out of core. A target with missing labels is refused, and so is a numeric one with more
        than --max-classes distinct values (default 50) when most rows have a value of their own.

Errors in arguments or data are reported in one line (exit status 2), not a traceback; so is an
unexpected error (set PGM_MODELS_TRACEBACK=1 to see its traceback). Heavy modules (pandas, PyMC)
are imported only by the command that needs them: ``--help`` and argument errors answer at once.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

MODELS = {
    "categorical-nb": "CategoricalNB",
    "bernoulli-nb": "BernoulliNB",
    "multinomial-nb": "MultinomialNB",
    "gaussian-nb": "GaussianNB",
    "lda": "LDA",
    "qda": "QDA",
    "spode": "SPODE",
    "aode": "AODE",
    "tan": "TAN",
    "mixednb": "MixedNB",
    "logistic-regression": "LogisticRegression",
}
NOMINAL_MODELS = {"categorical-nb", "spode", "aode", "tan"}  # mixednb takes any column; the others need numeric ones
# The zoo's table on a terminal, under 80 characters: the posterior mean's scores and the
# verification, with short headers; --wide prints every column.
NARROW_COLUMNS = {
    "model": "model",
    "acc_mean": "acc",
    "logloss_mean": "logloss",
    "max_abs_z": "max|z|",
    "max_rhat": "R-hat",
    "min_ess": "ESS",
    "verified": "verified",
    "sample_s": "NUTS_s",
}


def _print_table(table):
    import pandas as pd

    with pd.option_context("display.width", 250, "display.max_columns", None, "display.precision", 4):
        print(table.to_string(index=False))


def _note(message: str):
    print(f"pgm-models: {message}", file=sys.stderr)


def _quiet_pymc():
    """PyMC sets its logger to INFO when imported; the table and the progress bar say enough."""
    import importlib

    importlib.import_module("pymc")  # imported first, or it resets its logger's level on import
    for name in ("pymc", "pytensor"):
        logging.getLogger(name).setLevel(logging.ERROR)


def _verification_advice(verification, draws: int, chains: int) -> str:
    """Which criteria failed, by how much, and what to raise: bulk ESS grows about in
    proportion to chains × draws; split R-hat needs more chains and longer ones; a |z| beyond
    z_max with a healthy sampler is not cured by more draws.
    """
    import numpy as np

    table, limits = verification.table, verification.thresholds
    failed, advice = [], []
    z = np.abs(table[["z_mean", "z_sd"]].to_numpy())
    if "z_max" in limits and (z > limits["z_max"]).any():
        failed.append(
            f"|z| > {limits['z_max']:.2f} for {int((z > limits['z_max']).any(axis=1).sum())} parameter(s) "
            f"(max {np.nanmax(z):.1f})"
        )
    calibrated = limits.get("rhat_max") is None  # each parameter's threshold in the table (check_posterior's default)
    rhat_bad = ~(table["r_hat"] <= (table["r_hat_max"] if calibrated else limits["rhat_max"]))
    if rhat_bad.any():
        bound = (
            f"its calibrated threshold (≥ {table.loc[rhat_bad, 'r_hat_max'].min():.4f})"
            if calibrated
            else limits["rhat_max"]
        )
        failed.append(f"R-hat > {bound} for {int(rhat_bad.sum())} parameter(s) (max {table['r_hat'].max():.3f})")
    ess_bad = ~(table["ess_bulk"] >= limits["ess_min"])
    if ess_bad.any():
        min_ess = table["ess_bulk"].min()
        failed.append(
            f"bulk ESS < {limits['ess_min']:.0f} for {int(ess_bad.sum())} parameter(s) (min {min_ess:.0f} "
            f"from {chains} × {draws} draws)"
        )
    if verification.divergences > limits["max_divergences"]:
        failed.append(f"{verification.divergences} divergent transitions")
    if ess_bad.any() or rhat_bad.any():
        min_ess = table["ess_bulk"].min()
        scale = limits["ess_min"] / min_ess if min_ess > 0 else 10.0
        needed = int(np.ceil(draws * max(min(scale, 10.0) * 1.2, 2.0 if rhat_bad.any() else 1.0) / 100) * 100)
        advice.append(
            f"raise --draws from {draws} to {max(needed, draws + 100)}"
            + (f" and --chains from {chains} to 4" if chains < 4 else "")
        )
    elif failed and not verification.divergences:
        advice.append(
            "the sampler is healthy, so more draws will not change a real disagreement; a |z| just past z_max "
            "is a 1 % false alarm: rerun with another --seed to tell"
        )
    return "; ".join(failed) + (" — " + "; ".join(advice) if advice else "")


def zoo(args) -> int:
    from pgm_models.datasets import dataset_path

    if args.data is None:
        if args.target is not None:
            raise ValueError("--target names the class column of --data, which is not given")
        dataset_path(args.dataset or "vote")  # an unknown name is reported before the heavy imports
    elif args.dataset is not None:
        raise ValueError("give --dataset (a bundled dataset) or --data (a file), not both")
    import numpy as np

    from pgm_models.app.progress import Progress
    from pgm_models.app.report import write_report
    from pgm_models.app.zoo import run_zoo
    from pgm_models.datasets import load_dataset

    _quiet_pymc()
    if args.data is None:
        X, y, name = *load_dataset(args.dataset or "vote"), args.dataset or "vote"
    else:
        X, y, name = (
            *_read_table(args.data, args.target, args.sep, args.na_values),
            os.path.splitext(os.path.basename(args.data))[0],
        )
        _check_target(y, args.max_classes)
        _warn_single_class(y)
    with Progress() as progress:
        result = run_zoo(
            X,
            y,
            dataset=name,
            draws=args.draws,
            chains=args.chains,
            seed=args.seed,
            test_size=args.test_size,
            progress=progress,
            prior=args.prior,
            sampler=args.sampler,
        )
    table = result.table()
    narrow = not args.wide and sys.stdout.isatty()
    shown = table[list(NARROW_COLUMNS)].rename(columns=NARROW_COLUMNS) if narrow else table
    _print_table(shown)
    losses = [c for c in shown.columns if c.startswith("logloss") and np.isinf(shown[c]).any()]
    if losses:
        print(
            f"inf in {', '.join(losses)}: that estimate gives probability 0 to the true class of some test row "
            "(a value never seen with that class in training); the posterior mean and predictive never do."
        )
    if narrow:
        print("(acc, logloss: the posterior mean's; --wide prints every estimate's scores, z_max and fit_s)")
    for run in result.runs:
        for estimate, reason in run.undefined.items():
            print(f"{run.name}: {estimate} not scored (NaN), undefined on these training rows: {reason}")
    comparison = result.comparison()
    if comparison is not None:
        print("\nexact leave-one-out log p(y | x) on the training rows (az.compare):")
        _print_table(comparison[["elpd_loo", "se", "elpd_diff", "dse", "weight", "p_loo"]].reset_index(names="model"))
    for run in result.runs:
        if run.status == "FAILED":
            print(f"{run.name}: verification FAILED: {_verification_advice(run.verification, args.draws, args.chains)}")
    if args.out:
        print(f"report: {write_report(result, args.out, args.format)}")
    return 0 if result.passed else 1


def datasets(args) -> int:
    from pgm_models.datasets import list_datasets

    _print_table(list_datasets())
    return 0


def _read_table(path: str, target: str | None, sep: str | None, na_values) -> tuple:
    """(X, y) of a user's .arff or .csv file (``pgm_models.load_table``), as ``fit`` and ``zoo``
    read it: a column with no observed value is refused.
    """
    from pgm_models.datasets import load_table

    X, y = load_table(path, target, sep=sep, na_values=na_values)  # a bad path fails before pandas loads

    empty = X.columns[X.isna().all().to_numpy()]  # one pass over the frame
    if len(empty):
        raise ValueError(f"column {empty[0]!r} has no observed value (every cell is missing): drop it, or fill it in")
    return X, y


def _warn_single_class(y) -> None:
    """A target of one class is warned about, once the checks that refuse the data have passed."""
    import pandas as pd

    counts = pd.Series(y).value_counts(sort=False)
    counts = counts[counts > 0]
    if len(counts) == 1:
        _note(
            f"warning: the target {y.name!r} has a single class ({counts.index[0]!r} in {counts.iloc[0]} rows): "
            "every prediction will be that class"
        )


def _prepare(X, y, model_name: str):
    """X as the model takes it: columns with no observed value refused, numeric columns binned
    by MDL for the nominal models (said on stderr), nominal or text columns refused by the
    numeric models; each problem names the column and the remedy.
    """
    import pandas as pd

    empty = X.columns[X.isna().all().to_numpy()]  # whole-frame passes: a column at a time costs the width each
    if len(empty):
        raise ValueError(f"column {empty[0]!r} has no observed value (every cell is missing): drop it, or fill it in")
    dtypes = X.dtypes
    numeric = [c for c, t in dtypes.items() if pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t)]
    nominal = [c for c, t in dtypes.items() if isinstance(t, pd.CategoricalDtype)]
    typed = set(numeric) | set(nominal)
    text = [c for c in dtypes.index if c not in typed]
    name = MODELS[model_name]
    if model_name == "mixednb":  # each column keeps its type (MixedNB's column_types)
        return X
    if model_name in NOMINAL_MODELS:
        if text:
            raise ValueError(
                f"column {text[0]!r} holds text (a string attribute), which {name} cannot take: drop it, or "
                "declare its values as a nominal attribute"
            )
        if numeric:
            from pgm_models.preprocessing.discretize import MDLDiscretizer

            binner = MDLDiscretizer().fit(X, y)
            X = binner.transform(X)
            bins = ", ".join(f"{c} → {len(X[c].cat.categories)}" for c in numeric)
            _note(
                f"note: {name} takes nominal attributes: numeric column(s) binned by MDL (Fayyad–Irani, as the zoo "
                f"does), intervals per column: {bins}"
            )
        return X
    if nominal or text:
        column = (nominal or text)[0]
        values = X[column].dropna().astype(str).unique()[:3]
        raise ValueError(
            f"column {column!r} is not numeric (values {', '.join(map(repr, values))}…): {name} takes numeric "
            f"attributes; use --model categorical-nb, aode, spode or tan, or drop the column"
        )
    return X


def _check_target(y, max_classes: int):
    """Refuse a target with missing labels (naming how many rows), and one that looks continuous:
    numeric, with more than ``max_classes`` distinct values, most rows a value of their own; each
    value would become a class (a regression target, or an id column taken for the class).
    """
    import pandas as pd

    if max_classes < 1:
        raise ValueError(f"--max-classes must be ≥ 1, got {max_classes}")
    missing = y.isna().to_numpy()
    if missing.any():
        raise ValueError(
            f"the target {y.name!r} is missing in {int(missing.sum())} of {len(y)} rows (the first at row "
            f"{int(missing.argmax()) + 1} after the header): drop those rows or fill in their labels"
        )
    distinct = y.nunique()
    if (
        pd.api.types.is_numeric_dtype(y)
        and not pd.api.types.is_bool_dtype(y)
        and distinct > max_classes
        and distinct > len(y) / 2
    ):
        raise ValueError(
            f"the target {y.name!r} looks continuous: {distinct} distinct numbers in {len(y)} rows would each be a "
            f"class; pass --max-classes {distinct} to fit them as classes, or bin the target (or name the class "
            "column with --target)"
        )


def fit(args) -> int:
    if args.scheduler:
        import pandas as pd

        import pgm_models
        from pgm_models.dask_engine import fit_files

        _quiet_pymc()
        model = getattr(pgm_models, MODELS[args.model])()
        X, y = fit_files(model, args.data, args.target, args.scheduler)
    else:
        X, y = _read_table(args.data, args.target, args.sep, args.na_values)
        import pandas as pd

        import pgm_models

        _check_target(y, args.max_classes)
        X = _prepare(X, y, args.model)
        _warn_single_class(y)
        model = getattr(pgm_models, MODELS[args.model])()
        model.fit(X, y)
    from pgm_models.inference.summary import posterior_summary

    if not hasattr(model, "analytic_posterior") and hasattr(model, "sample_posterior"):
        _quiet_pymc()
        model.sample_posterior(draws=args.draws, chains=args.chains, cores=1, random_seed=args.seed, progressbar=False)
    counts = pd.Series(model.class_count_, index=model.classes_).astype(int)  # y may be a dask Series
    print(
        f"{type(model).__name__} fitted to {args.data}: {counts.sum()} rows, {X.shape[1]} attributes, target {y.name!r} "
        f"with classes {', '.join(f'{c} ({n})' for c, n in counts.items())}"
    )
    shown = posterior_summary(model, random_seed=args.seed, max_rows=args.max_rows or None)
    _print_table(shown)
    if len(shown) < shown.attrs["n_parameters"]:
        print(f"… {shown.attrs['n_parameters'] - len(shown)} more rows (--max-rows 0 prints all)")
    return 0


def _model_name(text: str) -> str:
    """A model's name as the README writes it (categorical-nb) or its class name (CategoricalNB), in any case."""
    key = text.lower().replace("-", "").replace("_", "")
    for name, class_name in MODELS.items():
        if key in (name.replace("-", ""), class_name.lower()):
            return name
    raise argparse.ArgumentTypeError(
        f"unknown model {text!r}; choose from {', '.join(MODELS)} (or the class names, e.g. CategoricalNB)"
    )


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"--draws and --chains must be ≥ 1, got {value}")
    return value


class _Parser(argparse.ArgumentParser):
    """Argument errors in one line, like every other error of the command."""

    def error(self, message):
        raise _UsageError(f"{message} (see {self.prog} --help)")


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pgm-models", description="Generative Bayesian classifiers on PyMC.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    zoo_parser = commands.add_parser(
        "zoo",
        help="fit and verify every applicable model on a bundled dataset",
        description="Fit every model of the zoo that applies to a bundled dataset, verify each "
        "closed-form posterior against NUTS, and print test scores per estimate.",
    )
    zoo_parser.add_argument("--dataset", help="bundled dataset (see `pgm-models datasets`; default vote unless --data)")
    zoo_parser.add_argument("--data", help="your own .arff or .csv file instead of a bundled dataset")
    zoo_parser.add_argument("--target", help="the class column of --data (default: the last)")
    zoo_parser.add_argument("--sep", help="CSV delimiter of --data (default: sniffed among , ; tab |)")
    zoo_parser.add_argument(
        "--na-values",
        nargs="+",
        metavar="TEXT",
        default=(),
        help="CSV cells that mean missing besides empty ones (e.g. NA ?); by default only empty cells",
    )
    zoo_parser.add_argument(
        "--max-classes",
        type=int,
        default=50,
        help="with --data: a numeric target with more distinct values than this, most rows a value of their own, is "
        "refused as continuous (default 50)",
    )
    zoo_parser.add_argument(
        "--draws", type=_at_least_one, default=1000, help="NUTS draws per chain (default 1000; as many tuning steps)"
    )
    zoo_parser.add_argument(
        "--chains", type=_at_least_one, default=4, help="NUTS chains (default 4: R-hat over many parameters needs them)"
    )
    zoo_parser.add_argument("--seed", type=int, default=0, help="seed of the train/test split and of NUTS (default 0)")
    zoo_parser.add_argument("--test-size", type=float, default=0.3, help="fraction held out for testing (default 0.3)")
    zoo_parser.add_argument(
        "--prior",
        choices=["fixed", "evidence"],
        default="fixed",
        help="fixed: the models' default priors; evidence: every hyperparameter a model can learn (alpha, "
        "class_alpha, MANB's arc_prior; Gaussian models: the prior's strengths and scale too) chosen by marginal "
        "likelihood, the others left at their defaults",
    )
    zoo_parser.add_argument(
        "--sampler",
        default=None,
        help="NUTS backend: pymc, nutpie-numba, nutpie, numpyro or blackjax "
        "(default: pgm_models.inference.sampling.DEFAULT_SAMPLER)",
    )
    zoo_parser.add_argument("--out", help="folder for the report and its figures (none written without it)")
    zoo_parser.add_argument("--format", choices=["md", "html"], default="md", help="report format (default md)")
    zoo_parser.add_argument(
        "--wide",
        action="store_true",
        help="every column of the table (on a terminal the default shows the posterior mean's scores only)",
    )
    zoo_parser.set_defaults(run=zoo)
    commands.add_parser("datasets", help="list the bundled datasets").set_defaults(run=datasets)
    fit_parser = commands.add_parser("fit", help="fit one model to an ARFF or CSV file and print its posterior summary")
    fit_parser.add_argument(
        "--model",
        required=True,
        type=_model_name,
        metavar="MODEL",
        help=f"one of {', '.join(MODELS)}, or a class name (CategoricalNB); any case",
    )
    fit_parser.add_argument("--data", required=True, help="an .arff or .csv file")
    fit_parser.add_argument("--target", help="the class column (default: the last)")
    fit_parser.add_argument("--max-rows", type=int, default=40, help="parameters printed (0: all; default 40)")
    fit_parser.add_argument(
        "--max-classes",
        type=int,
        default=50,
        help="a numeric target with more distinct values than this, most rows a value of their own, is "
        "refused as continuous (default 50)",
    )
    fit_parser.add_argument(
        "--draws", type=_at_least_one, default=1000, help="NUTS draws for logistic regression (default 1000)"
    )
    fit_parser.add_argument(
        "--chains", type=_at_least_one, default=4, help="NUTS chains for logistic regression (default 4)"
    )
    fit_parser.add_argument(
        "--seed", type=int, default=0, help="seed of the draws the intervals are read from (default 0)"
    )
    fit_parser.add_argument("--sep", help="CSV delimiter (default: sniffed among , ; tab |)")
    fit_parser.add_argument(
        "--na-values",
        nargs="+",
        metavar="TEXT",
        default=(),
        help="CSV cells that mean missing besides empty ones (e.g. NA ?); by default only empty cells",
    )
    fit_parser.add_argument(
        "--scheduler",
        help="fit on Dask: a scheduler address (tcp://host:8786) or 'local' (a LocalCluster); "
        "--data is then Parquet or CSV files: a glob ('DIR/*.parquet') or a directory",
    )
    fit_parser.set_defaults(run=fit)
    return parser


def main(argv: list[str] | None = None) -> int:
    import warnings

    try:
        args = _parser().parse_args(argv)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return args.run(args)
    except SystemExit as exit:  # --help
        return exit.code
    except (_UsageError, ValueError, OSError) as error:
        print(f"pgm-models: error: {error}", file=sys.stderr)
        return 2
    except MemoryError as error:  # a limit met, not a bug: say so in one line
        print(
            f"pgm-models: error: out of memory ({error or 'MemoryError'}): the data needs more memory than this process may use; "
            "use fewer columns or fewer distinct values",
            file=sys.stderr,
        )
        return 2
    except Exception as error:  # a bug: still one line, with how to see the traceback
        if os.environ.get("PGM_MODELS_TRACEBACK"):
            raise
        print(
            f"pgm-models: error: unexpected {type(error).__name__}: {error} (a bug; please report it with the "
            "command; PGM_MODELS_TRACEBACK=1 shows the traceback)",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())
