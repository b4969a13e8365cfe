"""The false-alarm benchmark's results folder (resume, merge, assemble), its counting, and the
faster diagnostics it relies on (one rank-normalisation for R-hat and bulk ESS; labelled_table
by array indexing) agreeing with ArviZ and xarray."""

import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from benchmarks import false_alarm


def _run(results, *extra):
    return false_alarm.main(
        ["--datasets", "textbook-15", "--nuts-seeds", "0", "--power-seeds", "0", "--results", str(results), *extra]
    )


def test_a_stopped_run_resumes_and_runs_elsewhere_merge(tmp_path, monkeypatch):
    results = tmp_path / "results"
    calls = []
    record = false_alarm.record
    monkeypatch.setattr(
        false_alarm, "record", lambda model, *a, **k: calls.append(type(model).__name__) or record(model, *a, **k)
    )
    assert _run(results, "--seeds", "2") == 0
    assert len(calls) == 2 * 6  # 2 seeds × CategoricalNB, SPODE, TAN, HNB, KDB, BayesNet-K2
    first = json.loads((results / "exact" / "textbook-15.json").read_text())
    assert _run(results, "--seeds", "3") == 0
    assert len(calls) == 3 * 6  # only seed 2 is new: the stored seeds are not drawn again
    second = json.loads((results / "exact" / "textbook-15.json").read_text())
    for model in ("CategoricalNB", "SPODE", "TAN"):
        assert sorted(second["models"][model]["seeds"], key=int) == ["0", "1", "2"]
        for seed in ("0", "1"):
            assert second["models"][model]["seeds"][seed] == first["models"][model]["seeds"][seed]
    # another machine's run of other seeds, in its own file, merges with these
    assert _run(results, "--seeds", "2", "--first-seed", "3", "--tag", ".elsewhere") == 0
    assert (results / "exact" / "textbook-15.elsewhere.json").exists()
    doc = tmp_path / "doc.md"
    assert _run(results, "--seeds", "0", "--doc", str(doc)) == 0  # assemble only
    assert len(calls) == 5 * 6
    text = doc.read_text()
    assert text.startswith("# False alarms")
    for model, parameters in (("CategoricalNB", 14), ("SPODE", 24), ("TAN", 26)):
        assert f"| textbook-15 | {model} | {parameters} | exact | 5 | 0.2 % |" in text  # 5 seeds × 1 % / 6
    assert "| textbook-15 | exact | 6 | 5 |" in text  # five zoo runs of six models
    assert "--first-seed 3 --tag .elsewhere" in text  # every command that made the results is listed


def test_summarise_counts_alarms_expected_and_only_complete_zoo_runs():
    """Two models sharing a 1 % family error (0.5 % each), in a zoo run of three: no seed has all
    three, so the family-wise table has no run; with B's seed 2 dropped and two models per run,
    seeds 0 and 1 are the zoo runs."""
    rows = [
        ("A", 0, False, 0.5, 0.2),
        ("A", 1, True, 0.001, 0.004),
        ("A", 2, False, 0.05, 0.5),
        ("B", 0, True, 0.002, 0.9),
        ("B", 1, False, 0.3, 0.001),
        ("B", 2, False, 0.5, np.nan),
    ]  # B's seed 2: run with --no-before
    checks = pd.DataFrame(
        [
            {
                "draws": "exact",
                "dataset": "vote",
                "model": m,
                "seed": s,
                "failed": f,
                "critical": c,
                "before": b,
                "parameters": 7,
                "threshold": 0.005,
                "models_in_zoo_run": 3,
                "max_rhat": 1.0,
                "by": ["z"] if f else [],
            }
            for m, s, f, c, b in rows
        ]
    )
    per_model, families = false_alarm.summarise(checks)
    a, b = (per_model[per_model["model"] == m].iloc[0] for m in "AB")
    assert (a["seeds"], a["alarms"], a["before"], a["at_10"]) == (
        3,
        1,
        1,
        2,
    )  # before < 0.005: seed 1; critical < 0.1: seeds 1, 2
    assert (b["seeds"], b["alarms"], b["before"], b["has_before"], b["at_10"]) == (3, 1, 1, 2, 1)
    assert (
        false_alarm._before(b["before"], b["has_before"], b["seeds"]) == "1 of 2"
    )  # the old statistic on 2 of 3 seeds
    assert a["expected"] == pytest.approx(3 * 0.005) and b["expected"] == pytest.approx(3 * 0.005)
    assert families.empty
    two = checks[(checks["model"] == "A") | (checks["seed"] < 2)].assign(models_in_zoo_run=2)
    _, families = false_alarm.summarise(two)
    assert families[["runs", "failed", "models"]].values.tolist() == [
        [2, 2, 2]
    ]  # seeds 0 (B) and 1 (A) failed; 2 lacks B


def test_failed_by_names_each_failed_test(fitted_models, training_data):
    """Each case fails for certain: shuffled draws leave the simplex; thresholds no draws can meet;
    a prior 50 units off moves every mean by dozens of standard errors."""
    from pgm_models import CategoricalNB
    from pgm_models.inference.verify import check_posterior

    model = fitted_models["CategoricalNB"]
    idata = model.posterior_draws(500, random_seed=1, chains=4)
    assert "support" in false_alarm.failed_by(
        check_posterior(model, false_alarm.shuffled(idata, np.random.default_rng(0)))
    )
    impossible = check_posterior(model, idata, rhat_max=0.5, ess_min=1e9)
    assert {"rhat", "ess"} <= set(false_alarm.failed_by(impossible))
    wrong = CategoricalNB(alpha=50.0).fit(*training_data["CategoricalNB"])
    assert {"z", "joint"} <= set(
        false_alarm.failed_by(check_posterior(model, wrong.posterior_draws(500, random_seed=1, chains=4)))
    )


def test_one_rank_normalisation_gives_arvizs_rhat_and_bulk_ess():
    """check_posterior's diagnostics rank the split draws once for both R-hat and bulk ESS."""
    import arviz as az

    from pgm_models.inference.verify import _sampled_statistics

    rng = np.random.default_rng(3)
    x = np.stack(
        [
            rng.gamma(0.3, size=(4, 300)),
            np.cumsum(rng.normal(size=(4, 300)), axis=1),
            rng.integers(0, 3, (4, 300)) * 1.0,
        ]
    )
    ours = _sampled_statistics(x)
    dataset = xr.Dataset({"p": (("chain", "draw", "k"), np.moveaxis(x, 0, -1))})
    np.testing.assert_allclose(ours["r_hat"], az.rhat(dataset)["p"].values, rtol=1e-10)
    np.testing.assert_allclose(ours["ess_bulk"], az.ess(dataset, method="bulk")["p"].values, rtol=1e-10)


def test_labelled_table_reads_each_dataset_in_the_first_ones_dim_order():
    """A second dataset whose variable has its dims the other way round is read by name, not position."""
    from pgm_models.inference.summary import labelled_table

    values = np.arange(6.0).reshape(2, 3)
    first = xr.Dataset({"theta": (("class", "value"), values)}, coords={"class": ["a", "b"], "value": ["x", "y", "z"]})
    second = xr.Dataset({"theta": (("value", "class"), 10 * values.T)}, coords=first.coords)
    table = labelled_table(mean=first, sd=second)
    assert table["parameter"].tolist() == [f"theta[{c}, {v}]" for c in "ab" for v in "xyz"]
    assert table["mean"].tolist() == [0, 1, 2, 3, 4, 5]
    assert table["sd"].tolist() == [0, 10, 20, 30, 40, 50]
