"""Smoke test of benchmarks.false_alarm at a tiny size: it runs, its table is consistent, and
its "before" statistic is the one check_posterior used to compute."""

import numpy as np
import pytest

from benchmarks import false_alarm


def test_false_alarm_benchmark_runs_at_tiny_size(tmp_path):
    out = tmp_path / "fa.md"
    assert (
        false_alarm.main(
            [
                "--seeds",
                "2",
                "--datasets",
                "weather.nominal",
                "--nuts-seeds",
                "0",
                "--power-seeds",
                "1",
                "--write",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert (
        "`python -m benchmarks.false_alarm --seeds 2 --datasets weather.nominal --nuts-seeds 0 --power-seeds 1 --write"
        in text
    )
    for model in ("CategoricalNB", "SPODE", "TAN"):
        assert f"| weather.nominal | {model} |" in text
    assert "| weather.nominal | exact | 6 | 2 |" in text  # the family-wise row: the six closed-form models of the zoo
    # the shuffled draws are rejected on every seed, by their support (a certainty, not a chance)
    assert "| each parameter's draws shuffled | 1 | 100.0 % |" in text


def test_critical_family_error_is_where_the_verdict_flips(fitted_models):
    """check_posterior's closed-form comparison passes at a family error just below the critical
    one and fails just above (the sampler's health switched off: only the flip is tested)."""
    from pgm_models.inference.verify import check_posterior

    model = fitted_models["CategoricalNB"]
    idata = model.posterior_draws(200, random_seed=5, chains=4)
    critical = false_alarm.critical_family_error(check_posterior(model, idata))
    health = dict(rhat_max=np.inf, ess_min=0)
    assert check_posterior(model, idata, family_error=critical * 0.999, **health).passed
    assert not check_posterior(model, idata, family_error=critical * 1.001, **health).passed


def test_before_statistic_is_arviz_mcse_on_the_same_draws(fitted_models):
    """The 'before' column recomputes the old statistic: z of the sd over ArviZ's mcse_sd."""
    import arviz as az
    from scipy.stats import norm

    model = fitted_models["CategoricalNB"]
    idata = model.posterior_draws(500, random_seed=2, chains=4)
    analytic = model.analytic_posterior("sd")
    summary = az.summary(idata, var_names=list(analytic.data_vars), kind="all", round_to="none")
    sd = np.concatenate([analytic[n].values.ravel() for n in analytic.data_vars])
    mean = np.concatenate([model.analytic_posterior("mean")[n].values.ravel() for n in analytic.data_vars])
    z = np.concatenate([(summary["mean"] - mean) / summary["mcse_mean"], (summary["sd"] - sd) / summary["mcse_sd"]])
    expected = 4 * len(sd) * norm.sf(np.abs(z).max())
    assert false_alarm.critical_family_error_before(model, idata) == pytest.approx(expected, rel=1e-9)


def test_clopper_pearson_upper_bound_by_hand():
    # 0 of n: the bound solves (1 − p)^n = 0.05; n of n: 1
    assert false_alarm.clopper_pearson_upper(0, 20) == pytest.approx(1 - 0.05 ** (1 / 20), rel=1e-12)
    assert false_alarm.clopper_pearson_upper(3, 3) == 1.0
    from scipy.stats import binom

    upper = false_alarm.clopper_pearson_upper(2, 40)
    assert binom.cdf(2, 40, upper) == pytest.approx(0.05, rel=1e-9)  # the rate at which 2 or fewer has chance 5 %


def test_zoo_table_counts_failed_runs_and_their_tests(tmp_path):
    """Two seeds of a two-model zoo, one run failed by one model's divergences: the per-dataset
    and per-model rows say so, with the bound of 1 in 2."""
    import json

    folder = tmp_path / false_alarm.ZOO
    folder.mkdir()
    model = {
        "failed": False,
        "by": [],
        "parameters": 5,
        "divergences": 0,
        "max_rhat": 1.002,
        "min_ess": 3000.0,
        "sample_seconds": 1.0,
        "reasons": [],
    }
    failed = {**model, "failed": True, "by": ["divergences"], "divergences": 2}
    (folder / "heights-weights.json").write_text(
        json.dumps(
            {
                "dataset": "heights-weights",
                "commands": ["python -m benchmarks.false_alarm --zoo-seeds 2 (date)"],
                "sampler": "nutpie-numba",
                "seeds": {
                    "0": {"failed": False, "models": {"LDA": model, "QDA": model}},
                    "1": {"failed": True, "models": {"LDA": model, "QDA": failed}},
                },
            }
        )
    )
    lines = false_alarm.zoo_markdown(*false_alarm.load_zoo_results(tmp_path))
    upper = false_alarm.clopper_pearson_upper(1, 2)
    # a command with no UTC date is not known to have run on the current statistic
    assert f"| heights-weights | 2 | 1 | 50.0 % | {100 * upper:.1f} % | raw 2 |" in lines
    assert "| heights-weights | QDA | 5 | 2 | 1 | divergences | 1 | 1.0020 | 3000 |" in lines
    assert "| heights-weights | LDA | 5 | 2 | 0 | – | 0 | 1.0020 | 3000 |" in lines

    # seed 1 rerun on the current statistic (passed), seed 2 new: seed 1 counts once, by the rerun;
    # seed 0 stays as recorded before
    (folder / "heights-weights.pit.json").write_text(
        json.dumps(
            {
                "dataset": "heights-weights",
                "commands": [f"python -m benchmarks.false_alarm --zoo-seeds 3 ({false_alarm.PIT_SINCE} UTC)"],
                "sampler": "nutpie-numba",
                "seeds": {s: {"failed": False, "models": {"LDA": model, "QDA": model}} for s in ("1", "2")},
            }
        )
    )
    table, commands = false_alarm.load_zoo_results(tmp_path)
    assert len(table) == 6 and len(commands) == 2
    lines = false_alarm.zoo_markdown(table, commands)
    assert (
        f"| heights-weights | 3 | 0 | 0.0 % | {100 * false_alarm.clopper_pearson_upper(0, 3):.1f} % | PIT 2, raw 1 |"
        in lines
    )
    assert f"| all PIT | 2 | 0 | 0.0 % | {100 * false_alarm.clopper_pearson_upper(0, 2):.1f} % | PIT |" in lines
    # the same files in the other order of reading: a raw seed never replaces a rerun one
    (folder / "heights-weights.pit.json").rename(folder / "a-heights-weights.json")
    assert sorted(false_alarm.zoo_markdown(*false_alarm.load_zoo_results(tmp_path))) == sorted(
        lines
    )  # commands reorder
