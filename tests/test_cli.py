"""The pgm-models command."""

import subprocess
import sys

import pytest

from pgm_models.cli import main


def test_zoo_prints_a_table_for_the_discrete_family(capsys):
    assert main(["zoo", "--dataset", "vote", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    header, row = out.splitlines()[:2]
    for estimate in ("mle", "map", "mean", "predictive"):
        assert f"acc_{estimate}" in header and f"logloss_{estimate}" in header
    assert row.split()[0] == "CategoricalNB"
    accuracy = float(row.split()[1])
    assert 0.85 < accuracy <= 1.0  # naive Bayes on vote is ~90 % accurate


def test_zoo_on_text_fits_multinomial_and_bernoulli(capsys):
    assert main(["zoo", "--dataset", "reuters-grain-test"]) == 0
    models = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert models == ["MultinomialNB", "BernoulliNB"]


def test_datasets_lists_the_bundled_data(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "vote" in out and "435" in out


@pytest.mark.parametrize(
    "argv, message",
    [(["zoo", "--dataset", "nope"], "no bundled dataset 'nope'"), (["zoo", "--dataset", "iris"], "no model of the zoo applies")],
)
def test_errors_are_one_line_with_exit_status_2(argv, message):
    result = subprocess.run([sys.executable, "-m", "pgm_models.cli", *argv], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert message in result.stderr and "Traceback" not in result.stderr


def test_help_describes_each_command():
    result = subprocess.run([sys.executable, "-m", "pgm_models.cli", "zoo", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "--dataset" in result.stdout


def test_console_script_is_installed():
    """The `pgm-models` entry point from pyproject.toml (the README's main job runs it)."""
    from pathlib import Path

    script = Path(sys.executable).parent / "pgm-models"
    result = subprocess.run([str(script), "datasets"], capture_output=True, text=True)
    assert result.returncode == 0 and "reuters-grain-train" in result.stdout
