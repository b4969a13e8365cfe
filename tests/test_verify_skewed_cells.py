"""check_posterior on skewed Dirichlet cells: the z-scores of a Beta-marginal cell are those of its
probability integral transform, whose exact moments hold whatever the skew.

The fixture holds the NUTS draws (4 chains × 1000) of the three cells of prior 0.5 and no count
(ages 10-19, 80-89, 90-99) of feature_prob_age[no-recurrence-events] from the zoo's BayesNet-K2 run
on breast-cancer seed 9, which failed with z = 5.8 on the 10-19 cell's raw mean and sd although
its model's log density equals the closed form's and its stick coordinates are Beta distributed
(Kolmogorov–Smirnov p 0.1–0.5). By Dirichlet aggregation those cells and the rest of their row
are Dirichlet(0.5, 0.5, 0.5, 144).
"""

from pathlib import Path

import numpy as np
import pandas as pd

from pgm_models import CategoricalNB, check_posterior

CELLS = Path(__file__).parent / "data" / "k2_breast_cancer_seed9_small_cells.npz"


def _row_model():
    """CategoricalNB(alpha=0.5) whose only feature row is Dirichlet(0.5, 0.5, 0.5, 144): value 3
    seen with weight 143.5 in the one class.
    """
    X = pd.DataFrame({"age": pd.Categorical([3, 3], categories=[0, 1, 2, 3])})
    return CategoricalNB(alpha=0.5).fit(X, np.array(["a", "a"]), sample_weight=np.array([143.0, 0.5]))


def _with_recorded_cells(model, seed):
    idata = model.posterior_draws(n=1000, chains=4, random_seed=seed)
    cells = np.load(CELLS)["cells"]  # (chain, draw, 3)
    row = np.concatenate([cells, 1 - cells.sum(axis=-1, keepdims=True)], axis=-1)
    name = [n for n in idata.posterior.data_vars if n.startswith("feature_prob")][0]
    draws = idata.posterior[name]
    idata.posterior[name] = draws.copy(data=row.reshape(draws.shape))
    return idata


def test_recorded_nuts_draws_of_a_skewed_cell_pass():
    model = _row_model()
    np.testing.assert_allclose(model._parameters()["feature_prob_age"][0].concentration.ravel(), [0.5, 0.5, 0.5, 144])
    # deterministic: the recorded draws fix every z; the exact class draws are constant (one class)
    verification = check_posterior(model, _with_recorded_cells(model, seed=0))
    # the marginal z-tests pass (before: |z| 5.8 > z_max 3.8), and so does the joint on the row's
    # three stick-breaking fractions (4.3 on 3 df; the raw means' chi-square was 34.4)
    assert verification.passed, verification.reasons
    assert verification.joint_df == 3 and 4.2 < verification.joint_statistic < 4.4
    z = verification.table.set_index("parameter")
    # the 10-19 cell: PIT z 2.56 and 2.67 (its raw moments' z: 5.8 and 5.9)
    assert 2.4 < z.loc["feature_prob_age[a, 0]", "z_mean"] < 2.7
    assert 2.5 < z.loc["feature_prob_age[a, 0]", "z_sd"] < 2.8


def test_skewed_cell_still_fails_when_its_draws_are_wrong():
    # the same draws with the 10-19 cell doubled (and the rest renormalised) must fail: power is kept
    model = _row_model()
    idata = _with_recorded_cells(model, seed=0)
    draws = idata.posterior["feature_prob_age"].values.copy()
    draws[..., 0] *= 2
    draws[..., 3] = 1 - draws[..., :3].sum(axis=-1)
    idata.posterior["feature_prob_age"] = idata.posterior["feature_prob_age"].copy(data=draws)
    verification = check_posterior(model, idata)
    assert not verification.passed
    assert verification.table.set_index("parameter").loc["feature_prob_age[a, 0]", "z_mean"] > 10
    assert verification.joint_p < 1e-100  # the stick fractions' chi-square: 785 on 3 df
    assert "z of the Beta CDF of the draws" in verification.reasons[0]


def _stick_statistics(concentration, sampled_from, n_sets, seed):
    from pgm_models.inference.verify import _stick_chi_square

    rng = np.random.default_rng(seed)
    concentration = np.asarray(concentration, dtype=float)
    out = []
    for _ in range(n_sets):
        draws = rng.dirichlet(np.maximum(sampled_from, 1e-300), size=(4, 1000)) * (np.asarray(sampled_from) > 0)
        out.append(_stick_chi_square(concentration[None], np.moveaxis(draws, -1, 0)[None], 4000))
    return np.array(out)


def test_stick_fractions_chi_square_is_calibrated_on_exact_draws_of_a_skewed_block():
    # a block with a cell fixed at 0, two skewed cells and a dominant one: 3 usable fractions
    concentration = [0.0, 0.5, 0.7, 3.0, 300.0]
    statistics = _stick_statistics(concentration, concentration, n_sets=300, seed=7)
    assert np.all(statistics[:, 1] == 3)
    # χ²(3): mean 3, sd of a mean of 300 = √(6/300) = 0.14; the bound 0.6 is 4.2 sd (false
    # failure below 3e-5), an ESS estimate's noise adds a little spread
    assert abs(statistics[:, 0].mean() - 3) < 0.6
    # its upper 1 % point: about 3 of 300 sets above 11.34 (a Poisson count above 10: below 1e-3)
    assert (statistics[:, 0] > 11.34).sum() <= 10


def test_stick_fractions_chi_square_sees_a_prior_one_tenth_too_large():
    # draws from the block's concentration + 0.1 on every usable cell (Dirichlet(1.1) instead
    # of Dirichlet(1) on a block of 5 rare values and a common one): the mean statistic
    # must be far above χ²(5)'s 5 (measured: 171, the least of 20 sets 133)
    concentration = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 60.0])
    statistics = _stick_statistics(concentration, concentration + 0.1, n_sets=20, seed=8)
    assert statistics[:, 0].mean() > 20
