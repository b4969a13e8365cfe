"""PyMC's NUTS on every sampled zoo model, this checkout against earlier ones, side by side.

    git worktree add /tmp/before REV      # or: git archive REV pgm_models | tar -x -C /tmp/before
    python -m benchmarks.nuts_versions --checkouts /tmp/before . [--datasets vote iris] [--models SPODE ...]
                                       [--draws 1000] [--cores default 1 2]

Each (dataset, model) is fitted on the zoo's training split and sampled by
``sample_posterior(draws, chains=4, random_seed=0)`` (PyMC's NUTS with each version's own
defaults: its model parametrisation, its chain processes, 1000 tuning steps), in its own process
per checkout, the checkouts alternating model by model on a warm compile cache (one untimed
run of each first). Reported per model: sampling seconds (PyMC's ``sampling_time``), min bulk
ESS over the model's variables, ESS per second, and each checkout's ESS/s over the first one's.
The worker imports only ``pgm_models`` (the checkout's, through PYTHONPATH), so any earlier
commit can be measured. ``--cores`` samples each checkout once per value (``default``: the
version's own choice of chain processes; a number is passed as ``cores=``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

WORKER = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
import arviz as az
from sklearn.model_selection import train_test_split
from pgm_models.datasets import load_dataset
from pgm_models.app.zoo import _PREPARE, _classifier, applicable_models
dataset, wanted, draws = sys.argv[1], sys.argv[2], int(sys.argv[3])
cores = {} if sys.argv[4] == "default" else {"cores": int(sys.argv[4])}
X, y = load_dataset(dataset)
X_train, _, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
for name, model in applicable_models(X):
    if name == wanted:
        _PREPARE.get(name, lambda *_: None)(model, X_train, y_train)  # the zoo's preparation (a SPODE's parent)
        model.fit(X_train, y_train)
        start = time.perf_counter()
        idata = _classifier(model).sample_posterior(draws=draws, chains=4, random_seed=0, **cores)
        total = time.perf_counter() - start
        posterior = idata.posterior[[v for v in idata.posterior.data_vars if not v.endswith("__")]]
        ess = min(float(v.min()) for v in az.ess(posterior, method="bulk").data_vars.values())
        sampling = float(idata.posterior.attrs["sampling_time"])
        print(json.dumps({"total": total, "sampling": sampling, "ess": ess}))
"""


def sampled_models(dataset: str) -> list[str]:
    from pgm_models.app.zoo import _classifier, applicable_models
    from pgm_models.datasets import load_dataset

    X, _ = load_dataset(dataset)
    return [name for name, model in applicable_models(X) if hasattr(_classifier(model), "sample_posterior")]


def measure(checkout: Path, dataset: str, model: str, draws: int, cores: str = "default") -> dict:
    environment = {**os.environ, "PYTHONPATH": str(checkout.resolve()), "OPENBLAS_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, "-c", WORKER, dataset, model, str(draws), cores],
        env=environment,
        capture_output=True,
        text=True,
        cwd=checkout,
    )
    if result.returncode:
        return {"error": result.stderr.strip().splitlines()[-1][:100]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkouts", nargs="+", type=Path, required=True, help="the first is the reference")
    parser.add_argument("--datasets", nargs="+", default=["vote", "iris"])
    parser.add_argument("--models", nargs="+", help="only these zoo models")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--cores", nargs="+", default=["default"])
    args = parser.parse_args(argv)
    runs = [(checkout, cores) for checkout in args.checkouts for cores in args.cores]
    names = [f"{checkout.resolve().name}{'' if cores == 'default' else f', cores={cores}'}" for checkout, cores in runs]
    header = (
        ["dataset", "model"]
        + [f"{name}: sampling (s) / ESS / ESS/s" for name in names]
        + [f"ESS/s: {name} ÷ {names[0]}" for name in names[1:]]
    )
    print(f"| {' | '.join(header)} |\n|{'---|' * len(header)}", flush=True)
    for dataset in args.datasets:
        for model in sampled_models(dataset):
            if args.models and model not in args.models:
                continue
            for checkout in args.checkouts:  # warm-up: each version's compile cache
                measure(checkout, dataset, model, 50)
            cells, rates = [], []
            for checkout, cores in runs:
                result = measure(checkout, dataset, model, args.draws, cores)
                if "error" in result:
                    cells.append(f"error: {result['error']}")
                    rates.append(float("nan"))
                    continue
                rates.append(result["ess"] / result["sampling"])
                cells.append(f"{result['sampling']:.1f} / {result['ess']:.0f} / {rates[-1]:.0f}")
            ratios = [f"{rate / rates[0]:.1f}" for rate in rates[1:]]
            load = os.getloadavg()[0]
            print(
                f"| {dataset} | {model} | {' | '.join(cells)} | {' | '.join(ratios)} |  (load {load:.1f}, {time.strftime('%H:%M')})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
