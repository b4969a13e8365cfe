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
    # the marginal z-tests pass (before: |z| 5.8 > z_max 3.8). The joint chi-square still combines
    # the raw means' z (their exact correlations are known, the PIT's are not): on this 3-cell
    # block it fails (34.4 on 3 df); on the zoo's 264 parameters it passed (p = 0.997)
    assert verification.max_abs_z <= verification.thresholds["z_max"], verification.reasons
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
