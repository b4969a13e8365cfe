"""Smoke test of benchmarks.false_alarm at a tiny size: it runs, its table is consistent, and
its "before" statistic is the one check_posterior used to compute."""

import numpy as np
import pytest

from benchmarks import false_alarm


def test_false_alarm_benchmark_runs_at_tiny_size(tmp_path):
    out = tmp_path / "fa.md"
    assert false_alarm.main(["--seeds", "2", "--datasets", "weather.nominal", "--nuts-seeds", "0", "--power-seeds", "1",
                             "--write", str(out)]) == 0
    text = out.read_text()
    assert "`python -m benchmarks.false_alarm --seeds 2 --datasets weather.nominal --nuts-seeds 0 --power-seeds 1 --write" in text
    for model in ("CategoricalNB", "SPODE", "TAN"):
        assert f"| weather.nominal | {model} |" in text
    assert "| weather.nominal | exact | 3 | 2 |" in text  # the family-wise row
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
