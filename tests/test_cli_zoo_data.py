"""``pgm-models zoo --data FILE [--target COLUMN]``: the zoo on a user's file, read as ``fit``
reads it (``pgm_models.load_table``), with the same one-line errors."""

from types import SimpleNamespace

import pandas as pd
import pytest

from pgm_models.app.cli import main

pytestmark = pytest.mark.filterwarnings("ignore")


def _capture_zoo(monkeypatch):
    """run_zoo replaced by a recorder of what the command gives it."""
    import pgm_models.app.zoo

    calls = []
    table = pd.DataFrame([{"model": "CategoricalNB", "verified": "passed"}])

    def fake(X, y, **kwargs):
        calls.append((X, y, kwargs))
        return SimpleNamespace(table=lambda: table, runs=[], passed=True, comparison=lambda: None)

    monkeypatch.setattr(pgm_models.app.zoo, "run_zoo", fake)
    return calls


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_zoo_runs_on_a_csv_with_its_target_column(tmp_path, monkeypatch):
    calls = _capture_zoo(monkeypatch)
    path = _write(
        tmp_path, "pets.csv", "kind,colour,size\ncat,black,1.5\ndog,white,2.5\ncat,white,1.0\ndog,black,3.0\n"
    )
    assert main(["zoo", "--data", path, "--target", "kind", "--seed", "3"]) == 0
    X, y, kwargs = calls[0]
    assert list(X.columns) == ["colour", "size"] and y.name == "kind" and list(y) == ["cat", "dog", "cat", "dog"]
    assert isinstance(X["colour"].dtype, pd.CategoricalDtype) and X["size"].dtype == float  # fit's type rules
    assert kwargs["dataset"] == "pets" and kwargs["seed"] == 3


def test_zoo_reads_arff_with_the_last_attribute_as_the_class(tmp_path, monkeypatch):
    calls = _capture_zoo(monkeypatch)
    path = _write(
        tmp_path,
        "w.arff",
        "@relation w\n@attribute outlook {sunny,rainy}\n@attribute play {yes,no}\n@data\n"
        "sunny,yes\nrainy,no\nsunny,no\nrainy,yes\n",
    )
    assert main(["zoo", "--data", path]) == 0
    X, y, kwargs = calls[0]
    assert list(X.columns) == ["outlook"] and y.name == "play" and kwargs["dataset"] == "w"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--dataset", "vote", "--data", "x.csv"], "give --dataset (a bundled dataset) or --data (a file), not both"),
        (["--target", "kind"], "--target names the class column of --data, which is not given"),
        (["--data", "missing.csv"], "missing.csv: no such file"),
        (["--data", "table.txt"], "expected an .arff or .csv file, got '.txt'"),
    ],
)
def test_bad_zoo_input_is_one_line_naming_the_problem(monkeypatch, capsys, argv, message):
    _capture_zoo(monkeypatch)
    assert main(["zoo", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_zoo_refuses_a_column_with_no_observed_value_as_fit_does(tmp_path, monkeypatch, capsys):
    _capture_zoo(monkeypatch)
    path = _write(tmp_path, "holes.csv", "a,b,label\n1,,x\n2,,y\n3,,x\n")
    message = "column 'b' has no observed value (every cell is missing): drop it, or fill it in"
    assert main(["zoo", "--data", path]) == 2
    assert message in capsys.readouterr().err
    assert main(["fit", "--model", "gaussian-nb", "--data", path]) == 2
    assert message in capsys.readouterr().err


def test_zoo_on_an_unknown_target_names_the_columns(tmp_path, monkeypatch, capsys):
    _capture_zoo(monkeypatch)
    path = _write(tmp_path, "pets.csv", "kind,colour\ncat,black\ndog,white\n")
    assert main(["zoo", "--data", path, "--target", "species"]) == 2
    err = capsys.readouterr().err
    assert "species" in err and "kind" in err
