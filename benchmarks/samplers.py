"""NUTS backends side by side on every model of the zoo: compile seconds, sampling seconds and
min bulk ESS per second, on a cold and a warm compile cache.

    python -m benchmarks.samplers [--datasets vote iris reuters-grain-train] [--samplers pymc nutpie ...]
                                  [--draws 1000] [--chains 4] [--write FILE]

Each model of ``pgm-models zoo`` on each dataset (fitted on the zoo's training split) is
sampled by each installed backend with its package defaults (tuning steps included:
``pgm_models.inference.sampling.DEFAULT_TUNE``), the backends alternating model by model. Every measurement
runs in its own process: "cold" on a new PyTensor base compile folder (C and numba caches; no JAX cache), "warm"
again on the folder the cold run left. Sampling seconds are the backend's own
(``posterior.attrs["sampling_time"]``); compile seconds are the rest of ``sample_posterior``
(graph compilation, initialisation, and for PyMC the start of its chain processes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from benchmarks import append_section

# the section heading in BENCHMARKS.md (its settings follow in parentheses)
HEADING = "## NUTS backends on the zoo's models"


def _models(dataset):
    from sklearn.model_selection import train_test_split

    from pgm_models.app.zoo import _classifier, applicable_models
    from pgm_models.datasets import load_dataset

    X, y = load_dataset(dataset)
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    for name, model in applicable_models(X):
        if hasattr(_classifier(model), "sample_posterior"):
            yield name, model, X_train, y_train


def worker(dataset, model_name, sampler, draws, chains) -> dict:
    """Fit one zoo model and time one sample_posterior with ``sampler`` (in this process)."""
    import warnings

    import arviz as az

    from pgm_models.app.zoo import _PREPARE, _classifier

    warnings.simplefilter("ignore")
    for name, model, X_train, y_train in _models(dataset):
        if name == model_name:
            _PREPARE.get(name, lambda *_: None)(model, X_train, y_train)  # the zoo's preparation (a SPODE's parent)
            model.fit(X_train, y_train)
            start, cpu_start = time.perf_counter(), _cpu_seconds()
            idata = _classifier(model).sample_posterior(draws=draws, chains=chains, sampler=sampler, random_seed=0)
            total, cpu = time.perf_counter() - start, _cpu_seconds() - cpu_start
            sampling = float(idata.posterior.attrs["sampling_time"])
            # the model's own variables (nutpie also stores the transformed ones, named "..._simplex__");
            # per variable, since to_array() would broadcast every variable's dims against the others
            posterior = idata.posterior[[v for v in idata.posterior.data_vars if not v.endswith("__")]]
            ess = min(float(v.min()) for v in az.ess(posterior, method="bulk").data_vars.values())
            r_hat = max(float(v.max()) for v in az.rhat(posterior).data_vars.values())
            return {
                "compile": total - sampling,
                "sampling": sampling,
                "cpu": cpu,
                "ess": ess,
                "ess_per_s": ess / sampling,
                "r_hat": r_hat,
                "divergences": int(idata.sample_stats["diverging"].sum()),
            }
    raise ValueError(f"{model_name!r} is not a sampled model of the zoo on {dataset!r}")


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process (all its threads) and of its finished children
    (PyMC's chain processes)."""
    import resource

    return sum(
        r.ru_utime + r.ru_stime for r in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    )


def _measure(dataset, model_name, sampler, draws, chains, compiledir) -> dict:
    # base_compiledir, not compiledir: PyTensor keeps numba's cache beside the C one, under base_compiledir/numba
    environment = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={compiledir}"}
    command = [
        sys.executable,
        "-m",
        "benchmarks.samplers",
        "--worker",
        dataset,
        model_name,
        sampler,
        "--draws",
        str(draws),
        "--chains",
        str(chains),
    ]
    result = subprocess.run(command, env=environment, capture_output=True, text=True)
    if result.returncode:
        return {"error": result.stderr.strip().splitlines()[-1][:120]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    from pgm_models.inference.sampling import available_samplers

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["vote", "iris", "reuters-grain-train"])
    parser.add_argument("--samplers", nargs="+", default=None, help="default: every installed backend")
    parser.add_argument("--models", nargs="+", default=None, help="only these zoo models (default: all)")
    parser.add_argument(
        "--draws", type=int, default=1000, help="draws per chain (tuning steps: each sampler's default)"
    )
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--write", help="append the Markdown table to this file")
    parser.add_argument("--worker", nargs=3, metavar=("DATASET", "MODEL", "SAMPLER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker, args.draws, args.chains)))
        return 0
    samplers = args.samplers or available_samplers()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for dataset in args.datasets:
            for name, *_ in _models(dataset):
                if args.models and name not in args.models:
                    continue
                for sampler in samplers:  # alternating: every backend sees the same machine load
                    compiledir = os.path.join(folder, f"{dataset}-{name}-{sampler}")
                    cold = _measure(dataset, name, sampler, args.draws, args.chains, compiledir)
                    warm = _measure(dataset, name, sampler, args.draws, args.chains, compiledir)
                    rows.append((f"{name}, {dataset}", sampler, cold, warm))
                    print(rows[-1], flush=True)
    lines = [
        "",
        f"{HEADING} ({args.chains} chains × {args.draws} draws, each sampler's default tuning steps)",
        "",
        f"Command: `python -m benchmarks.samplers --draws {args.draws} --chains {args.chains} --datasets "
        f"{' '.join(args.datasets)}`. Each cell is one process; cold = new PyTensor compile folder, warm = the folder "
        "the cold run left. ESS/s = min bulk ESS over the parameters ÷ sampling seconds; ratio = ESS/s ÷ PyMC's (warm); "
        "CPU = user + system seconds of the whole warm sample_posterior call (chain processes and threads included).",
        "",
        "| model | sampler | compile cold (s) | compile warm (s) | sampling warm (s) | CPU warm (s) | min ESS | ESS/s warm | × PyMC | max R-hat | divergences |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    baseline = {model: warm.get("ess_per_s") for model, sampler, _, warm in rows if sampler == "pymc"}
    for model, sampler, cold, warm in rows:
        if "error" in cold or "error" in warm:
            lines.append(
                f"| {model} | {sampler} | failed: {(cold.get('error') or warm.get('error'))} | | | | | | | | |"
            )
            continue
        ratio = warm["ess_per_s"] / baseline[model] if baseline.get(model) else float("nan")
        lines.append(
            f"| {model} | {sampler} | {cold['compile']:.1f} | {warm['compile']:.1f} | {warm['sampling']:.1f} | {warm['cpu']:.1f} | "
            f"{warm['ess']:.0f} | {warm['ess_per_s']:.0f} | {ratio:.1f} | {warm['r_hat']:.3f} | {warm['divergences']} |"
        )
    print("\n".join(lines))
    if args.write:
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
