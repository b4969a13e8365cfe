"""The zoo's report (Markdown and HTML): table, notes and figures; no NUTS is run here (the
sampler is replaced by the closed form's exact draws where a run needs draws)."""

import matplotlib
import pytest

matplotlib.use("Agg")

from pgm_models import AODE, SPODE  # noqa: E402
from pgm_models.app.report import RELIABILITY_MIN_ROWS, write_report  # noqa: E402
from pgm_models.app.zoo import applicable_models, run_zoo  # noqa: E402
from pgm_models.datasets import load_dataset  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def aode_on_iris():
    """MDL-binned AODE on iris: 45 test rows, no PyMC model, no SPODE in the run."""
    X, y = load_dataset("iris")
    models = [entry for entry in applicable_models(X) if entry[0] == "AODE (MDL bins)"]
    return run_zoo(X, y, dataset="iris", seed=1, models=models)


@pytest.fixture(scope="module")
def spode_and_aode_on_vote():
    """SPODE and AODE on vote (131 test rows), SPODE's "NUTS" draws being exact draws."""
    X, y = load_dataset("vote")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            SPODE,
            "sample_posterior",
            lambda self, draws, chains, random_seed, **_: self.posterior_draws(
                draws, random_seed=random_seed, chains=chains
            ),
        )
        return run_zoo(X, y, dataset="vote", draws=500, seed=0, models=[("SPODE", SPODE()), ("AODE", AODE())])


@pytest.mark.parametrize("format, marker", [("md", "| AODE (MDL bins) |"), ("html", "<table")])
def test_report_has_the_table_the_figures_and_the_notes(aode_on_iris, tmp_path, format, marker):
    path = write_report(aode_on_iris, tmp_path, format)
    text = path.read_text()
    assert path.name == f"report.{format}" and marker in text and "Every verification passed." in text
    # 45 test rows: no zig-zag reliability diagram, a note instead (and AODE has no posterior
    # draws for the other figures)
    assert aode_on_iris.settings["n_test"] == 45 < RELIABILITY_MIN_ROWS
    assert not list((tmp_path / "figures").iterdir())
    assert f"No reliability diagram: 45 test rows, fewer than the {RELIABILITY_MIN_ROWS}" in text
    # iris has no SPODE row to point to
    assert "SPODE row" not in text and "m a SPODE of the average" in text


def test_report_draws_reliability_with_enough_rows_and_points_aode_to_the_spode_row(spode_and_aode_on_vote, tmp_path):
    result = spode_and_aode_on_vote
    assert result.settings["n_test"] == 131 >= RELIABILITY_MIN_ROWS
    text = write_report(result, tmp_path, "md").read_text()
    for slug in ("spode", "aode"):
        assert f"figures/{slug}-reliability.png" in text
        assert (tmp_path / "figures" / f"{slug}-reliability.png").stat().st_size > 5_000
    for figure in ("verification", "joint-prob", "sampler", "intervals"):
        assert (tmp_path / "figures" / f"spode-{figure}.png").stat().st_size > 5_000
    assert "No reliability diagram" not in text
    assert "the SPODE row verifies one of them" in text


def test_report_rejects_an_unknown_format(aode_on_iris, tmp_path):
    with pytest.raises(ValueError, match="format='pdf'"):
        write_report(aode_on_iris, tmp_path, "pdf")
