"""False-alarm rate and power of ``check_posterior`` on every zoo model with a closed form.

    python -m benchmarks.false_alarm [--seeds 200] [--nuts-seeds 4] [--datasets ...] [--results DIR]
                                     [--doc FILE] [--write FILE]

For every bundled dataset the zoo supports, the zoo's split (stratified, 30 % test, seed 0) and
each model of :func:`pgm_models.app.zoo.applicable_models` with a closed form (CategoricalNB, SPODE,
TAN on nominal or MDL-binned data; GaussianNB, LDA, QDA on numeric; MultinomialNB, BernoulliNB
on text), fitted as the zoo fits it: ``--seeds`` sets of exact i.i.d. draws (``posterior_draws``,
the zoo's 4 × 1000) are checked against the model's own closed form, at the zoo's threshold (1 %
family error shared by the dataset's verified models). Every such failure is a false alarm.
Recorded per (model, seed), and summarised per model as:

* ``alarms``: ``check_posterior`` as it is — all of its tests (marginal z, joint chi-square,
  support, R-hat ≤ 1.01, bulk ESS ≥ 400) — against ``expected`` = seeds × the model's share of
  the family error (the closed-form tests' nominal count; R-hat and ESS have no nominal rate);
* ``before``: the statistic before issue 18, from the same draws — z of the mean over the
  draws' sd, z of the sd over ArviZ's ``mcse_sd`` (fourth moment estimated from the draws),
  Bonferroni over 4P at the same family error; no joint test;
* ``at 10 %``: the closed-form comparison alone at a 10 % family error for this one model (the
  same tails at a resolution 40 seeds can show: a calibrated test stays near 10 %);
* ``R-hat > 1.01``: runs whose largest split R-hat exceeds 1.01.

The family-wise table counts the zoo runs (seeds with every model of the dataset) where any
model failed: the zoo's verdict on the dataset, nominal 1 %. ``--nuts-seeds`` repeats the check
with NUTS (``sample_posterior``, 4 chains × 1000 draws, 1000 tuning steps) on
``--nuts-datasets``. The power table checks, against CategoricalNB on vote, draws that are
wrong: each parameter's exact draws shuffled independently over draws, and exact draws of the
posterior under Dirichlet(1.05) and Dirichlet(1.1) priors instead of Dirichlet(1).

``--zoo-seeds N`` measures what ``pgm-models zoo --dataset D --seed S`` reports, S = 0..N − 1 on
``--zoo-datasets`` (default every bundled dataset): :func:`pgm_models.app.zoo.run_zoo` as the
command runs it (its split by the seed, every model, the default NUTS sampler, 4 × 1000 draws),
each model's full verdict (marginal z, joint, support, R-hat, bulk ESS, divergences; the sampler's
health alone for logistic regression), kept in ``DIR/nuts/D.json``. Its table gives per dataset
the zoo runs that failed (the zoo exits 1) with the one-sided 95 % Clopper–Pearson upper bound of
that rate, and per model the failures, by which test, the runs with divergent transitions and the
largest R-hat.

Results are kept per (draws, dataset) in ``--results DIR`` as JSON (``DIR/exact/vote.json``),
written after every model's seed: a run stopped anywhere resumes where it stopped (seeds already
in the file are skipped), runs on other machines merge by copying their files into one folder
(``--tag`` names a file apart, ``--first-seed`` gives it other seeds), and ``--doc FILE`` writes
the whole Markdown document from everything in the folder (``--seeds 0 --nuts-seeds 0
--power-seeds 0 --doc FILE`` only assembles). ``--write FILE`` appends the tables to FILE
(BENCHMARKS.md). Without ``--results`` the results live in a temporary folder.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr
from scipy.stats import binom, norm
from sklearn.model_selection import train_test_split

from pgm_models.app.zoo import _PREPARE, _classifier, _verifiable, applicable_models
from pgm_models.datasets import list_datasets, load_dataset
from pgm_models.inference.verify import _ess, _split_chains, check_posterior

DRAWS, CHAINS, FAMILY_ERROR = 1000, 4, 0.01
TINY = ["textbook-15", "mountain-climbing", "heights-weights", "weather.nominal", "weather.numeric", "contact-lenses"]


def zoo_cases(dataset: str):
    """(model name, fitted classifier, the zoo's per-model family error) for each verified model."""
    X, y = load_dataset(dataset)
    models = [(name, model) for name, model in applicable_models(X) if _verifiable(model)]
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    cases = []
    for name, model in models:
        _PREPARE.get(name, lambda *_: None)(model, X_train, y_train)  # the zoo's preparation (a SPODE's parent)
        classifier = _classifier(model.fit(X_train, y_train))
        # the fitted model's closed form is the same for every seed: built once, not four times a
        # check (a fifth of a small model's check was building these xarray Datasets)
        classifier.analytic_posterior = functools.lru_cache(classifier.analytic_posterior)
        cases.append((name, classifier, FAMILY_ERROR / len(models)))
    return cases


def critical_family_error(verification) -> float:
    """The smallest family error at which the closed-form comparison would fail: |z| ≤
    Φ⁻¹(1 − fe/(12P)) fails for fe > 12P Φ̄(max|z|), the chi-square for fe > 3p, the means'
    coupling with their (co)variances for fe > 6 Φ̄(|z|)."""
    table = verification.table
    marginal = 12 * len(table) * norm.sf(verification.max_abs_z)
    coupling = 6 * norm.sf(abs(verification.coupling_z)) if verification.coupling_df else np.inf
    return min(marginal, 3 * verification.joint_p if verification.joint_df else np.inf, coupling)


def critical_family_error_before(model, idata) -> float:
    """The same for the statistic before: sd of the draws in z_mean, ArviZ's mcse_sd in z_sd,
    Bonferroni over 4P."""
    analytic_mean, analytic_sd = model.analytic_posterior("mean"), model.analytic_posterior("sd")
    names = list(analytic_mean.data_vars)
    values = np.concatenate(
        [
            idata.posterior[n].values.reshape(CHAINS, -1, int(np.prod(idata.posterior[n].shape[2:], dtype=int)))
            for n in names
        ],
        axis=-1,
    )
    values = np.moveaxis(values, -1, 0)
    flat = values.reshape(len(values), -1)
    mean = np.concatenate([analytic_mean[n].values.ravel() for n in names])
    sd = np.concatenate([analytic_sd[n].values.ravel() for n in names])
    sampled_mean, sampled_sd = flat.mean(axis=1), flat.std(axis=1, ddof=1)
    centred = (values - values.mean(axis=(1, 2), keepdims=True)) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        z_mean = (sampled_mean - mean) / (sampled_sd / np.sqrt(_ess(_split_chains(values))))
        variance = centred.mean(axis=(1, 2))
        mcse_sd = np.sqrt(((centred**2).mean(axis=(1, 2)) - variance**2) / _ess(_split_chains(centred)) / variance / 4)
        z_sd = (sampled_sd - sd) / mcse_sd
    z = np.abs(np.concatenate([z_mean, z_sd]))
    z = np.where(np.isnan(z), 0.0, z)
    return 4 * len(mean) * norm.sf(z.max())


def failed_by(verification) -> list[str]:
    """Which of check_posterior's tests failed: z (a marginal), joint, support, rhat, ess, divergences."""
    table, thresholds = verification.table, verification.thresholds
    tests = {
        "z": verification.max_abs_z > thresholds["z_max"],
        "joint": verification.joint_p < thresholds["joint_level"],
        "support": any(verification.outside_support.values()),
        "rhat": not (table["r_hat"] <= table["r_hat_max"]).all(),
        "ess": not (table["ess_bulk"] >= thresholds["ess_min"]).all(),
        "divergences": verification.divergences > thresholds["max_divergences"],
    }
    return [name for name, failed in tests.items() if failed]


def record(model, idata, family_error: float, before: bool) -> dict:
    """One check of one model's draws, as stored in the results file."""
    verification = check_posterior(model, idata, family_error=family_error)
    result = {
        "parameters": len(verification.table),
        "failed": not verification.passed,
        "by": failed_by(verification),
        "critical": float(critical_family_error(verification)),
        "max_rhat": float(verification.table["r_hat"].max()),
        "min_ess": float(verification.table["ess_bulk"].min()),
    }
    if before:
        result["before"] = float(critical_family_error_before(model, idata))
    return result


def _load(path: Path, dataset: str, draws: str) -> dict:
    if path.exists():
        return json.loads(path.read_text())
    return {"dataset": dataset, "draws": draws, "commands": [], "models": {}}


def _save(path: Path, results: dict) -> None:
    """Write atomically: a run killed mid-write leaves the previous file, not half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(results, indent=0))
    os.replace(temporary, path)


def run_dataset(
    results_dir: Path,
    dataset: str,
    draws: str,
    seeds: range,
    command: str,
    models=None,
    tag: str = "",
    before: bool = True,
) -> Path:
    """Check ``seeds`` on every verified model of ``dataset`` (``draws``: "exact" or "NUTS"),
    skipping the (model, seed) pairs already in the results file; save after each. ``before``:
    also the statistic before issue 18 (exact draws only; a fifth of the cost)."""
    path = results_dir / draws / f"{dataset}{tag}.json"
    results = _load(path, dataset, draws)
    results["commands"].append(f"{command} ({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC)")
    cases = [case for case in zoo_cases(dataset) if not models or case[0] in models]
    for name, _model, family_error in cases:
        entry = results["models"].setdefault(name, {"threshold": family_error, "seeds": {}})
        entry["models_in_zoo_run"] = round(FAMILY_ERROR / family_error)
    _save(path, results)
    for seed in seeds:
        for name, model, family_error in cases:
            entry = results["models"][name]
            if str(seed) in entry["seeds"]:
                continue
            start = time.perf_counter()
            if draws == "exact":
                idata = model.posterior_draws(DRAWS, random_seed=seed, chains=CHAINS)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    idata = model.sample_posterior(
                        draws=DRAWS, tune=DRAWS, chains=CHAINS, cores=1, random_seed=seed, progressbar=False
                    )
            result = record(model, idata, family_error, before=before and draws == "exact")
            entry["parameters"] = result.pop("parameters")
            entry["seeds"][str(seed)] = {**result, "seconds": round(time.perf_counter() - start, 2)}
            _save(path, results)
        print(f"{draws} {dataset} seed {seed} done", flush=True)
    return path


ZOO = "nuts"  # the folder of the zoo runs' results


def zoo_failed_by(verification) -> list[str]:
    """``failed_by`` for a zoo verdict, which may be the sampler's health alone (no closed form)."""
    if "z_max" in verification.thresholds:
        return failed_by(verification)
    table, thresholds = verification.table, verification.thresholds
    tests = {
        "rhat": not (table["r_hat"] <= table["r_hat_max"]).all(),
        "ess": not (table["ess_bulk"] >= thresholds["ess_min"]).all(),
        "divergences": verification.divergences > thresholds["max_divergences"],
    }
    return [name for name, failed in tests.items() if failed]


def run_zoo_seeds(results_dir: Path, dataset: str, seeds: range, command: str, tag: str = "") -> Path:
    """``run_zoo`` on ``dataset`` for each of ``seeds`` not yet in ``DIR/nuts/{dataset}{tag}.json``;
    saved after each seed."""
    from pgm_models.app.zoo import run_zoo

    path = results_dir / ZOO / f"{dataset}{tag}.json"
    results = json.loads(path.read_text()) if path.exists() else {"dataset": dataset, "commands": [], "seeds": {}}
    results["commands"].append(f"{command} ({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC)")
    X, y = load_dataset(dataset)
    for seed in seeds:
        if str(seed) in results["seeds"]:
            continue
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            zoo = run_zoo(X, y, dataset=dataset, seed=seed)
        models = {
            run.name: {
                "failed": not run.verification.passed,
                "by": zoo_failed_by(run.verification),
                "parameters": len(run.verification.table),
                "divergences": run.verification.divergences,
                "max_rhat": float(run.verification.table["r_hat"].max()),
                "min_ess": float(run.verification.table["ess_bulk"].min()),
                "sample_seconds": round(run.sample_seconds, 2),
                "reasons": run.verification.reasons[:3],
            }
            for run in zoo.runs
            if run.verification is not None
        }
        results["sampler"] = zoo.settings["sampler"]
        results["seeds"][str(seed)] = {
            "failed": not zoo.passed,
            "models": models,
            "seconds": round(time.perf_counter() - start, 1),
        }
        _save(path, results)
        print(
            f"zoo {dataset} seed {seed}: {'FAILED ' + str([m for m, r in models.items() if r['failed']]) if not zoo.passed else 'passed'}",
            flush=True,
        )
    return path


# zoo runs recorded from this time on compare a Dirichlet cell by its probability integral transform
# and a Dirichlet block's joint by its stick-breaking fractions (commit 4f6022a); before, by raw moments
PIT_SINCE = "2026-11-28 15:18"


def _statistic(commands: list[str]) -> str:
    """ "PIT" when every command of a results file ran on the transform's statistic, else "raw"."""
    dates = [c.rsplit(" (", 1)[1].removesuffix(" UTC)") for c in commands if c.endswith(" UTC)")]
    return "PIT" if dates and min(dates) >= PIT_SINCE else "raw"


def load_zoo_results(results_dir: Path) -> tuple[pd.DataFrame, list[str]]:
    """One row per (dataset, seed, model) of the zoo runs in ``DIR/nuts``, and the commands. A
    (dataset, seed) recorded under both statistics (``_statistic``) counts once, by the current one."""
    rows, commands = {}, []
    for path in sorted((results_dir / ZOO).glob("*.json")):
        results = json.loads(path.read_text())
        statistic = _statistic(results["commands"])
        commands += [c.rsplit(" (", 1)[0] for c in results["commands"]]
        for seed, run in results["seeds"].items():
            key = results["dataset"], int(seed)
            if statistic == "raw" and any(r[:2] == key and rows[r]["statistic"] == "PIT" for r in rows):
                continue
            for stale in [r for r in rows if r[:2] == key and statistic == "PIT" and rows[r]["statistic"] == "raw"]:
                del rows[stale]
            for model, result in run["models"].items():
                rows[(*key, model)] = {
                    "sampler": results.get("sampler", ""),
                    "statistic": statistic,
                    "run_failed": run["failed"],
                    **result,
                }
    table = pd.DataFrame([{"dataset": d, "seed": s, "model": m, **r} for (d, s, m), r in rows.items()])
    return table, list(dict.fromkeys(commands))


def clopper_pearson_upper(failed: int, runs: int, confidence: float = 0.95) -> float:
    """One-sided upper confidence bound of a binomial rate after ``failed`` of ``runs``."""
    from scipy.stats import beta

    return 1.0 if failed >= runs else float(beta.ppf(confidence, failed + 1, runs - failed))


def zoo_markdown(table: pd.DataFrame, commands: list[str]) -> list[str]:
    """The zoo runs' tables: per dataset the failed runs with their upper bound, per model the failures."""
    if table.empty:
        return []
    order = {name: i for i, name in enumerate(list_datasets()["name"])}
    lines = (
        [
            "",
            f"## False alarms of `pgm-models zoo` under NUTS ({table['sampler'].iloc[0]}, {CHAINS} chains × {DRAWS} draws)",
            "",
            "Made by:",
            "",
        ]
        + [f"* `{c}`" for c in commands]
        + [
            "",
            "Each seed is one `pgm-models zoo --dataset D --seed S` run (its own train/test split, every model, the full "
            "verdict). `failed`: runs where any model failed (the zoo exits 1); `upper 95 %`: the one-sided Clopper–Pearson "
            "bound of that rate. Nominal: 1 % for the closed-form tests plus 1 % for R-hat (each shared by the models). "
            "`Dirichlet cells`: how the verdict compared them — `PIT`, the current statistic (a cell by its probability "
            "integral transform, a block's joint by its stick-breaking fractions), or `raw`, the raw moments' z-scores and "
            f"Pearson's joint of runs recorded before {PIT_SINCE} UTC (commit 4f6022a), kept where a seed was not rerun.",
            "",
            "| dataset | zoo runs | failed | rate | upper 95 % | Dirichlet cells |",
            "|---|---:|---:|---:|---:|---|",
        ]
    )
    runs = (
        table.groupby(["dataset", "seed"])
        .agg(failed=("run_failed", "first"), statistic=("statistic", "first"))
        .reset_index()
    )
    per_dataset = (
        runs.groupby("dataset")
        .agg(
            runs=("seed", "size"),
            failed=("failed", "sum"),
            statistic=("statistic", lambda s: ", ".join(f"{k} {n}" for k, n in s.value_counts().sort_index().items())),
        )
        .reset_index()
    )
    per_dataset = per_dataset.sort_values("dataset", key=lambda c: c.map(order))
    for r in per_dataset.itertuples():
        lines.append(
            f"| {r.dataset} | {r.runs} | {r.failed} | {_percent(r.failed / r.runs)} | "
            f"{_percent(clopper_pearson_upper(r.failed, r.runs))} | {r.statistic} |"
        )
    total_runs, total_failed = int(per_dataset["runs"].sum()), int(per_dataset["failed"].sum())
    by_statistic = runs.groupby("statistic").agg(runs=("seed", "size"), failed=("failed", "sum"))
    lines.append(
        f"| all | {total_runs} | {total_failed} | {_percent(total_failed / total_runs)} | "
        f"{_percent(clopper_pearson_upper(total_failed, total_runs))} | |"
    )
    for statistic, r in by_statistic.iterrows():
        lines.append(
            f"| all {statistic} | {r.runs} | {r.failed} | {_percent(r.failed / r.runs)} | "
            f"{_percent(clopper_pearson_upper(int(r.failed), int(r.runs)))} | {statistic} |"
        )
    lines += [
        "",
        "| dataset | model | parameters | runs | failed | failed by | runs with divergences | max R-hat | min bulk ESS |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    models = (
        table.groupby(["dataset", "model"], sort=False)
        .agg(
            parameters=("parameters", "max"),
            runs=("seed", "size"),
            failed=("failed", "sum"),
            by=("by", lambda b: ", ".join(sorted({t for tests in b for t in tests}))),
            diverging=("divergences", lambda d: int((d > 0).sum())),
            max_rhat=("max_rhat", "max"),
            min_ess=("min_ess", "min"),
        )
        .reset_index()
    )
    models = models.sort_values("dataset", key=lambda c: c.map(order), kind="stable")
    lines += [
        f"| {m.dataset} | {m.model} | {m.parameters} | {m.runs} | {m.failed} | {m.by or '–'} | {m.diverging} | "
        f"{m.max_rhat:.4f} | {m.min_ess:.0f} |"
        for m in models.itertuples()
    ]
    return lines


def shuffled(idata, rng):
    """Each scalar parameter's draws permuted independently over (chain, draw): right marginals,
    wrong joint."""
    posterior = idata.posterior
    out = {}
    for name, array in posterior.items():
        values = array.values.reshape(-1, int(np.prod(array.shape[2:], dtype=int)))
        values = np.stack([rng.permutation(column) for column in values.T], axis=1)
        out[name] = (array.dims, values.reshape(array.shape))
    import arviz as az

    return az.InferenceData(posterior=xr.Dataset(out, coords=posterior.coords))


def power_rows(seeds: int) -> list[dict]:
    from pgm_models import CategoricalNB

    X, y = load_dataset("vote")
    model = CategoricalNB().fit(X, y)
    wrong = {alpha: CategoricalNB(alpha=alpha).fit(X, y) for alpha in (1.05, 1.1)}
    rng = np.random.default_rng(0)
    rows = []
    for label, make in [
        ("each parameter's draws shuffled", lambda s: shuffled(model.posterior_draws(DRAWS, s, CHAINS), rng)),
        ("Dirichlet(1.05) prior", lambda s: wrong[1.05].posterior_draws(DRAWS, s, CHAINS)),
        ("Dirichlet(1.1) prior", lambda s: wrong[1.1].posterior_draws(DRAWS, s, CHAINS)),
    ]:
        results = [check_posterior(model, make(seed)) for seed in range(seeds)]
        rows.append(
            {
                "draws": label,
                "seeds": seeds,
                "rejected": np.mean([not r.passed for r in results]),
                "by_marginal_z": np.mean([r.max_abs_z > r.thresholds["z_max"] for r in results]),
                "by_joint": np.mean([r.joint_p < r.thresholds["joint_level"] for r in results]),
                "by_support": np.mean([any(r.outside_support.values()) for r in results]),
                "median_joint_p": float(np.median([r.joint_p for r in results])),
            }
        )
        print(rows[-1], flush=True)
    return rows


def load_results(results_dir: Path) -> tuple[pd.DataFrame, list[str]]:
    """Every (draws, dataset, model, seed) check in the folder, files of one dataset merged (a
    seed in two files counts once), and the commands that made them."""
    checks, commands = {}, []
    for path in sorted(results_dir.glob("*/*.json")):
        if path.parent.name == ZOO:  # the zoo runs' own format (load_zoo_results)
            continue
        results = json.loads(path.read_text())
        commands += [c.rsplit(" (", 1)[0] for c in results["commands"]]  # without the date: each command once
        for model, entry in results["models"].items():
            for seed, result in entry["seeds"].items():
                checks[results["draws"], results["dataset"], model, int(seed)] = {
                    "parameters": entry["parameters"],
                    "threshold": entry["threshold"],
                    "models_in_zoo_run": entry["models_in_zoo_run"],
                    **result,
                }
    table = pd.DataFrame(
        [{"draws": d, "dataset": ds, "model": m, "seed": s, **r} for (d, ds, m, s), r in checks.items()]
    )
    return table, list(dict.fromkeys(commands))


def summarise(checks: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (draws, dataset, model): checks, expected and observed alarms, the other columns; and
    per (draws, dataset) the zoo runs (seeds checked on every model) that any model failed."""
    checks = checks.assign(before=checks["before"] if "before" in checks else np.nan)
    checks = checks.assign(
        before_alarm=checks["before"] < checks["threshold"],
        at_10=checks["critical"] < 0.10,
        rhat_over=checks["max_rhat"] > 1.01,
    )
    order = {name: i for i, name in enumerate(list_datasets()["name"])}
    rows = (
        checks.groupby(["draws", "dataset", "model"], sort=False)
        .agg(
            parameters=("parameters", "first"),
            seeds=("seed", "size"),
            threshold=("threshold", "first"),
            alarms=("failed", "sum"),
            before=("before_alarm", "sum"),
            has_before=("before", "count"),
            at_10=("at_10", "sum"),
            rhat=("rhat_over", "sum"),
            by=("by", lambda b: ", ".join(sorted({t for tests in b for t in tests}))),
        )
        .reset_index()
    )
    rows["expected"] = rows["seeds"] * rows["threshold"]
    rows = rows.sort_values(
        ["draws", "dataset"],
        key=lambda c: c.map(order) if c.name == "dataset" else c.map({"exact": 0, "NUTS": 1}),
        kind="stable",
    )
    runs = (
        checks.groupby(["draws", "dataset", "seed"])
        .agg(models=("model", "size"), in_zoo=("models_in_zoo_run", "first"), failed=("failed", "any"))
        .reset_index()
    )
    runs = runs[runs["models"] == runs["in_zoo"]]
    families = (
        runs.groupby(["draws", "dataset"])
        .agg(models=("models", "first"), runs=("seed", "size"), failed=("failed", "sum"))
        .reset_index()
    )
    families = families.sort_values(
        ["draws", "dataset"],
        key=lambda c: c.map(order) if c.name == "dataset" else c.map({"exact": 0, "NUTS": 1}),
        kind="stable",
    )
    return rows, families


def _percent(value) -> str:
    return "–" if pd.isna(value) else f"{100 * value:.1f} %"


def _before(alarms, checked, seeds) -> str:
    """The old statistic's alarms, "k of n" where only n of the seeds were run with it (--no-before)."""
    return "–" if checked == 0 else f"{int(alarms)}" if checked == seeds else f"{int(alarms)} of {int(checked)}"


def _tail(alarms, expected_rate, checks) -> str:
    """P(at least this many alarms | the nominal rate): small means the rate is exceeded."""
    return "–" if checks == 0 else f"{binom.sf(alarms - 1, checks, expected_rate):.2g}"


def markdown(checks: pd.DataFrame, power: list[dict], commands: list[str]) -> list[str]:
    rows, families = summarise(checks)
    lines = (
        [
            "",
            f"## False alarms of `check_posterior` at the zoo's thresholds ({CHAINS} chains × {DRAWS} draws)",
            "",
            "Made by:",
            "",
        ]
        + [f"* `{c}`" for c in commands]
        + [
            "",
            "A correct model checked against its own closed form: every failure is a false alarm. `threshold`: the zoo's "
            "per-model family error (1 % shared by the dataset's verified models); `expected`: seeds × threshold, the nominal "
            "count of the closed-form tests; `alarms`: `check_posterior` with every test (`failed by`: which); `before`: the "
            "statistic before issue 18 (ArviZ's sd MCSE, no joint test) on the same draws; `at 10 %`: the closed-form "
            "comparison alone at a 10 % family error for this one model (expected: 10 % of the seeds).",
            "",
            "| dataset | model | parameters | draws | seeds | threshold | expected | alarms | before | at 10 % | R-hat > 1.01 | failed by |",
            "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
    )
    lines += [
        f"| {r.dataset} | {r.model} | {r.parameters} | {r.draws} | {r.seeds} | {_percent(r.threshold)} | {r.expected:.2f} | "
        f"{r.alarms} | {_before(r.before, r.has_before, r.seeds)} | {r.at_10} | {r.rhat} | {r.by or '–'} |"
        for r in rows.itertuples()
    ]
    lines += [
        "",
        "Totals per model family (`P(≥ alarms)`: the chance of at least that many alarms at the nominal rate; "
        "a small value would mean the rate is exceeded):",
        "",
        "| draws | model | datasets | checks | expected | alarms | P(≥ alarms) | before | at 10 % (expected) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    totals = [(draws, model, part) for (draws, model), part in rows.groupby(["draws", "model"], sort=False)]
    totals += [(draws, "all", part) for draws, part in rows.groupby("draws", sort=False)]
    for draws, model, part in totals:
        checks_n, expected = int(part["seeds"].sum()), float(part["expected"].sum())
        alarms = int(part["alarms"].sum())
        before = _before(part["before"].sum(), part["has_before"].sum(), checks_n)
        lines.append(
            f"| {draws} | {model} | {len(part)} | {checks_n} | {expected:.2f} | {alarms} | "
            f"{_tail(alarms, expected / checks_n, checks_n)} | {before} | {int(part['at_10'].sum())} ({0.1 * checks_n:.1f}) |"
        )
    if len(families):
        lines += [
            "",
            "Family-wise: the zoo's verdict on a dataset (any verified model failed), nominal 1 % of the zoo runs:",
            "",
            "| dataset | draws | models | zoo runs | failed | rate | expected | P(≥ failed) |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {f.dataset} | {f.draws} | {f.models} | {f.runs} | {f.failed} | {_percent(f.failed / f.runs)} | "
            f"{FAMILY_ERROR * f.runs:.2f} | {_tail(f.failed, FAMILY_ERROR, f.runs)} |"
            for f in families.itertuples()
        ]
        for draws, part in families.groupby("draws", sort=False):
            runs, failed = int(part["runs"].sum()), int(part["failed"].sum())
            lines.append(
                f"| all | {draws} | | {runs} | {failed} | {_percent(failed / runs)} | {FAMILY_ERROR * runs:.2f} | "
                f"{_tail(failed, FAMILY_ERROR, runs)} |"
            )
    if power:
        lines += [
            "",
            "Power against wrong draws, CategoricalNB on vote, default settings (1 % family error): share of seeds rejected, "
            "and by which test.",
            "",
            "| draws | seeds | rejected | by marginal z | by joint chi-square | by support | median joint p |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {p['draws']} | {p['seeds']} | {_percent(p['rejected'])} | {_percent(p['by_marginal_z'])} | {_percent(p['by_joint'])} | "
            f"{_percent(p['by_support'])} | {p['median_joint_p']:.2g} |"
            for p in power
        ]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200, help="exact-draw seeds per model")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed … first-seed + seeds − 1")
    parser.add_argument("--nuts-seeds", type=int, default=4, help="NUTS seeds per model (0: none)")
    parser.add_argument("--nuts-datasets", nargs="*", default=["contact-lenses", "weather.nominal"])
    parser.add_argument("--nuts-models", nargs="+", help="only these models under NUTS")
    parser.add_argument("--zoo-seeds", type=int, default=0, help="pgm-models zoo runs (NUTS) per dataset (0: none)")
    parser.add_argument("--zoo-datasets", nargs="*", default=list(list_datasets()["name"]))
    parser.add_argument("--power-seeds", type=int, default=100)
    parser.add_argument("--datasets", nargs="*", default=list(list_datasets()["name"]))
    parser.add_argument("--results", help="folder of the JSON results, resumed and added to (default: a temporary one)")
    parser.add_argument("--tag", default="", help="suffix of this run's result files (to merge runs on other machines)")
    parser.add_argument(
        "--no-before", action="store_true", help="skip the statistic before issue 18 (its column shows –)"
    )
    parser.add_argument("--doc", help="write the whole Markdown document from every result in --results to this file")
    parser.add_argument("--write", help="append the Markdown tables to this file")
    args = parser.parse_args(argv)
    command = "python -m benchmarks.false_alarm " + " ".join(argv if argv is not None else sys.argv[1:])
    with tempfile.TemporaryDirectory() as temporary:
        results_dir = Path(args.results or temporary)
        exact = range(args.first_seed, args.first_seed + args.seeds)
        for dataset in args.datasets if args.seeds else []:
            run_dataset(results_dir, dataset, "exact", exact, command, tag=args.tag, before=not args.no_before)
        nuts = range(args.first_seed, args.first_seed + args.nuts_seeds)
        for dataset in args.nuts_datasets if args.nuts_seeds else []:
            run_dataset(results_dir, dataset, "NUTS", nuts, command, models=args.nuts_models, tag=args.tag)
        for dataset in args.zoo_datasets if args.zoo_seeds else []:
            run_zoo_seeds(
                results_dir, dataset, range(args.first_seed, args.first_seed + args.zoo_seeds), command, tag=args.tag
            )
        power_path = results_dir / f"power{args.tag}.json"
        if args.power_seeds:
            _save(power_path, {"command": command, "rows": power_rows(args.power_seeds)})
        power = json.loads(power_path.read_text()) if power_path.exists() else {"command": None, "rows": []}
        checks, commands = load_results(results_dir)
        commands += [power["command"]] if power["command"] else []
        lines = markdown(checks, power["rows"], commands) if len(checks) else []
        lines += zoo_markdown(*load_zoo_results(results_dir))
    if args.doc:
        Path(args.doc).write_text("\n".join([DOC_HEADER, *lines]) + "\n")
    if args.write:
        with open(args.write, "a") as handle:
            handle.write("\n".join(lines) + "\n")
    return 0


DOC_HEADER = """# False alarms and power of the verification (`check_posterior`)

Written by `benchmarks/false_alarm.py` (its docstring defines every column) from the JSON results
in `docs/false_alarm_results/` (one file per draws kind and dataset; a stopped run resumes, runs
elsewhere merge by adding their files), assembled by
`python -m benchmarks.false_alarm --results docs/false_alarm_results --seeds 0 --nuts-seeds 0 --power-seeds 0 --doc docs/false_alarm.md`.
Do not edit it by hand.

How to read it: with 40 seeds a per-model rate at the zoo's per-model threshold (0.3 % for three
models) cannot be resolved — one alarm is 2.5 % — so the evidence is in the totals (`P(≥ alarms)`,
the chance of so many alarms at the nominal rate) and in `at 10 %`, the same closed-form test at a
rate 40 seeds can show. The marginal tests are Bonferroni bounds and each ESS is capped at the
number of draws, so the totals sit below their nominal count. `before` counts what the statistic
before issue 18 raised on the same draws: mostly heights-weights (9 rows, 3 per class in training),
where a variance's InvGamma posterior has no fourth moment, so an sd z-score with an estimated
fourth moment is meaningless; the check now leaves out the comparisons the tails cannot support
(`Verification.untested`). R-hat and bulk ESS have no nominal rate: with exact draws they never
fail (R-hat > 1.01 of i.i.d. split chains of 500 needs a chi-square(7) above 77); under NUTS they
are what can fail a correct model.

The exact-draw tables were measured before 2026-11-28 15:18 UTC, when a Dirichlet cell was compared
by its raw moments and a block's joint by Pearson's chi-square; the check now uses the cell's
probability integral transform and the block's stick-breaking fractions (docs: Verification).
With exact draws both are calibrated by construction (a transform of exact draws is exactly
uniform; the stick statistic's calibration on exact draws of a skewed block is a test,
`tests/test_verify_skewed_cells.py`); the power table and the NUTS zoo runs marked `PIT` ran on
the current statistic."""


if __name__ == "__main__":
    raise SystemExit(main())
