"""Divergences and ESS per second of the nominal models under NUTS: the counts form in PyMC's
simplex coordinates ("simplex", before issue 40) against the posterior's stick-breaking frame
("sticks", ``pgm_models.conjugate.blocks.posterior_frame``, what ``sample_posterior`` samples).

    python -m benchmarks.dirichlet_frame [--datasets breast-cancer vote] [--models CategoricalNB TAN ...]
                                         [--seeds 20] [--results DIR] [--write FILE]

For each seed S, each model is fitted on the zoo's split of seed S (``pgm-models zoo --seed S``:
stratified, 30 % test, SPODE's super-parent chosen as the zoo chooses it) and sampled as the zoo
samples it (default sampler, 4 chains × 1000 draws, 1000 tuning steps, NUTS seed S) in both frames,
one after the other, so that the two columns share the machine's load. Per run: divergent
transitions, the smallest bulk ESS over the model's parameters (ArviZ), the sampler's own seconds
(``posterior.attrs["sampling_time"]``), the mean step size and tree depth. Results are saved per
(dataset, model, seed, frame) in ``DIR/dirichlet_frame.json`` after each run, and a later run
resumes them.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks import append_section

HEADING = "## NUTS on the nominal models: PyMC's simplex coordinates against the posterior's frame"
FRAMES = ("simplex", "sticks")


def fitted(dataset: str, name: str, seed: int):
    """The zoo's ``name`` on ``dataset`` fitted on the training rows of the zoo's split of ``seed``."""
    from sklearn.model_selection import train_test_split

    from pgm_models.app.zoo import _PREPARE, _classifier, applicable_models
    from pgm_models.datasets import load_dataset

    X, y = load_dataset(dataset)
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    for model_name, model in applicable_models(X):
        if model_name == name:
            _PREPARE.get(name, lambda *_: None)(model, X_train, y_train)
            return _classifier(model.fit(X_train, y_train))
    raise ValueError(f"{name!r} is not a model of the zoo on {dataset!r}")


def run(dataset: str, name: str, seed: int, frame: str) -> dict:
    """One NUTS run of the zoo's model in ``frame``."""
    import arviz as az

    classifier = fitted(dataset, name, seed)
    if frame == "simplex":  # the counts form as it stands, in PyMC's own coordinates
        classifier._sampling_model = lambda: classifier.pymc_model("counts")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = classifier.sample_posterior(
            draws=1000, tune=1000, chains=4, random_seed=seed, compute_convergence_checks=False
        )
    stats = idata.sample_stats
    posterior = idata.posterior
    ess = min(float(v.min()) for v in az.ess(posterior, method="bulk").data_vars.values())
    seconds = float(posterior.attrs["sampling_time"])
    return {
        "divergences": int(stats["diverging"].sum()),
        "min_ess": round(ess, 1),
        "seconds": round(seconds, 2),
        "ess_per_s": round(ess / seconds, 1),
        "step_size": round(float(stats["step_size"].mean()), 4),
        "depth": round(float(stats["depth"].mean()), 3),
    }


def markdown(results: dict, command: str) -> list[str]:
    """Per (dataset, model): runs, runs with a divergence and divergences in all, median min bulk
    ESS, median ESS per second, the median over seeds of the frame's ESS per second over the
    simplex coordinates' (``ESS/s ratio``), median step size and tree depth, in each frame; seeds
    compared only where both frames ran."""
    lines = [
        HEADING,
        "",
        f"Command: `{command}`",
        "",
        "| dataset | model | seeds | frame | runs with divergences | divergences | median min ESS | median ESS/s | "
        "ESS/s ratio | median step | median depth |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for dataset, models in results.items():
        for name, seeds in models.items():
            both = [s for s, runs in seeds.items() if all(f in runs for f in FRAMES)]
            if not both:
                continue
            # per seed, the frame's ESS per second over the simplex coordinates' on the same split and load
            ratio = np.median([seeds[s]["sticks"]["ess_per_s"] / seeds[s]["simplex"]["ess_per_s"] for s in both])
            for frame in FRAMES:
                runs = [seeds[s][frame] for s in both]
                diverged = sum(r["divergences"] > 0 for r in runs)
                lines.append(
                    f"| {dataset} | {name} | {min(map(int, both))}–{max(map(int, both))} ({len(both)}) | {frame} | "
                    f"{diverged} | {sum(r['divergences'] for r in runs)} | "
                    f"{np.median([r['min_ess'] for r in runs]):.0f} | {np.median([r['ess_per_s'] for r in runs]):.1f} | "
                    f"{'1' if frame == 'simplex' else f'{ratio:.2f}'} | "
                    f"{np.median([r['step_size'] for r in runs]):.3f} | {np.median([r['depth'] for r in runs]):.2f} |"
                )
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["breast-cancer", "vote"])
    parser.add_argument("--models", nargs="+", default=["CategoricalNB", "SPODE", "TAN"])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--results", default="docs/false_alarm_results", help="folder of dirichlet_frame.json")
    parser.add_argument("--write", help="append the Markdown section to this file")
    args = parser.parse_args(argv)
    command = "python -m benchmarks.dirichlet_frame " + " ".join(
        [f"--datasets {' '.join(args.datasets)}", f"--models {' '.join(args.models)}", f"--seeds {args.seeds}"]
    )
    path = Path(args.results) / "dirichlet_frame.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    for seed in range(args.seeds):  # seed by seed: a run cut short leaves every model compared on its first seeds
        for dataset in args.datasets:
            for name in args.models:
                runs = results.setdefault(dataset, {}).setdefault(name, {}).setdefault(str(seed), {})
                for frame in FRAMES:
                    if frame in runs:
                        continue
                    start = time.perf_counter()
                    runs[frame] = run(dataset, name, seed, frame)
                    print(f"{dataset} {name} seed {seed} {frame}: {runs[frame]} ({time.perf_counter() - start:.0f} s)")
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(json.dumps(results, indent=1))
    lines = markdown(results, command)
    print("\n".join(lines))
    if args.write:
        append_section(args.write, lines)


if __name__ == "__main__":
    main()
