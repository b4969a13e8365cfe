"""ARFF loading and the bundled datasets."""

import hashlib
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from pgm_models.datasets import dataset_path, list_datasets, load_arff, load_dataset
from pgm_models.datasets.arff import read_arff

DATA = resources.files("pgm_models.datasets") / "data"


def test_every_listed_dataset_loads_with_its_row_count():
    listing = list_datasets()
    assert {"vote", "breast-cancer", "iris", "reuters-grain-train", "textbook-15"} <= set(listing["name"])
    for name, rows in zip(listing["name"], listing["rows"]):
        X, y = load_dataset(name)
        assert len(X) == len(y) == rows, name
        assert not y.isna().any(), name


def test_bundled_uci_files_are_the_unchanged_originals():
    for line in (DATA / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        assert hashlib.sha256((DATA / name.lstrip("*")).read_bytes()).hexdigest() == digest, name


def test_nominal_columns_keep_declared_values_in_declared_order():
    X, y = load_dataset("breast-cancer")
    assert list(X["age"].cat.categories) == [
        "10-19",
        "20-29",
        "30-39",
        "40-49",
        "50-59",
        "60-69",
        "70-79",
        "80-89",
        "90-99",
    ]
    assert (X["age"].value_counts() == 0).sum() > 0  # declared but never observed
    assert list(y.cat.categories) == ["no-recurrence-events", "recurrence-events"]
    assert X.isna().to_numpy().sum() == 9


def test_numeric_string_and_missing_values():
    X, y = load_dataset("iris")
    assert all(dtype == "float64" for dtype in X.dtypes) and X.shape == (150, 4)
    assert X.iloc[0].tolist() == [5.1, 3.5, 1.4, 0.2]
    X, _ = load_dataset("reuters-grain-train")
    assert X["Text"].iloc[0].startswith("BAHIA COCOA REVIEW Showers continued throughout the week in\nthe Bahia")
    X, _ = load_dataset("vote")
    assert X.isna().to_numpy().sum() == 392


def test_arff_quoting_escapes_sparse_rows_and_target(tmp_path):
    path = tmp_path / "t.arff"
    path.write_text(
        "% comment\n@relation 'test rel'\n"
        "@attribute 'a b' {'x y', z}\n@attribute n NUMERIC\n@attribute s string\n@attribute c {p,q}\n"
        "@data\n'x y', 1.5, 'it\\'s\\nhere', p\nz,?,\"dq\",q\n{1 2.5, 3 q}\n"
    )
    relation, attributes, frame = read_arff(path)
    assert relation == "test rel"
    assert [a.name for a in attributes] == ["a b", "n", "s", "c"]
    assert frame["a b"].tolist()[:2] == ["x y", "z"]
    assert frame["s"].tolist()[:2] == ["it's\nhere", "dq"]
    assert np.isnan(frame["n"].iloc[1]) and frame["n"].iloc[2] == 2.5
    assert frame["a b"].iloc[2] == "x y"  # omitted in a sparse row: the first declared value
    X, y = load_arff(path, target="n")
    assert y.name == "n" and "c" in X.columns
    with pytest.raises(ValueError, match="no attribute named 'nope'"):
        load_arff(path, target="nope")


@pytest.mark.parametrize(
    "data, message",
    [
        ("w,1\n", r"bad.arff:5: attribute 'c' has undeclared value 'w' \(declared: \['x', 'y'\]\)"),
        ("x,1\nx,1,2\n", "bad.arff:6: 3 values, the header declares 2"),
        ("x,1\n\nx,abc\n", "bad.arff:7: attribute 'n' is numeric, got 'abc'"),
    ],
)
def test_arff_errors_name_the_problem(tmp_path, data, message):
    path = tmp_path / "bad.arff"
    path.write_text("@relation r\n@attribute c {x,y}\n@attribute n numeric\n@data\n" + data)
    with pytest.raises(ValueError, match=message):
        read_arff(path)


def test_unknown_dataset_lists_the_available_ones():
    with pytest.raises(ValueError, match="no bundled dataset 'nope'; available: .*'vote'"):
        dataset_path("nope")


@pytest.mark.parametrize("data", ["a,1\n'b c',2\n?,3\n", "a,1\n'b c',2\n?,3\n% a comment line\n"])
def test_fast_and_exact_readers_agree(tmp_path, data):
    """Plain data goes through pandas' C parser; with a comment line it takes the exact tokenizer."""
    path = tmp_path / "p.arff"
    path.write_text("@relation r\n@attribute c {a,'b c'}\n@attribute n numeric\n@data\n" + data)
    _, _, frame = read_arff(path)
    assert frame["c"].tolist()[:2] == ["a", "b c"] and pd.isna(frame["c"].iloc[2])
    assert frame["n"].tolist() == [1.0, 2.0, 3.0]


def test_quoted_question_mark_is_a_value_not_missing(tmp_path):
    path = tmp_path / "q.arff"
    path.write_text("@relation r\n@attribute c {'?',x}\n@data\n'?'\nx\n?\n")
    _, _, frame = read_arff(path)
    assert frame["c"].tolist()[:2] == ["?", "x"] and pd.isna(frame["c"].iloc[2])


def test_load_table_reads_csv_text_as_nominal_and_numbers_as_numeric(tmp_path):
    from pgm_models.datasets import load_table

    path = tmp_path / "t.csv"
    path.write_text("colour,size,label\nred,1.5,a\n,2.0,b\nblue,,a\n")
    X, y = load_table(path, target="colour")
    assert list(X.columns) == ["size", "label"] and X["size"].dtype == float and np.isnan(X["size"][2])
    assert list(y.cat.categories) == ["blue", "red"] and y.isna().tolist() == [False, True, False]
    X, y = load_table(path)  # the last column
    assert y.name == "label" and list(X.columns) == ["colour", "size"]


def test_load_table_reads_arff_and_names_bad_files(tmp_path):
    from pgm_models.datasets import dataset_path, load_table

    X, y = load_table(dataset_path("weather.nominal"), target="windy")
    assert y.name == "windy" and "play" in X.columns
    with pytest.raises(ValueError, match="expected an .arff or .csv file, got '.txt'"):
        load_table(tmp_path / "data.txt")
    (tmp_path / "one.csv").write_text("a\n1\n")
    with pytest.raises(ValueError, match="at least one attribute and a class column"):
        load_table(tmp_path / "one.csv")
    (tmp_path / "two.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="no column named 'c'"):
        load_table(tmp_path / "two.csv", target="c")


def _nominal_arff(tmp_path, rng, n_rows=300, extra=""):
    """Random machine-written nominal data (values of 1–3 characters, 10 % missing, a blank line)."""
    domains = [["a", "bb", "ccc"], ["x", "y"], ["v0", "v1", "v2", "v3"], ["yes", "no"]]
    lines = ["@relation r"] + [f"@attribute f{j} {{{','.join(d)}}}" for j, d in enumerate(domains)] + ["@data"]
    for i in range(n_rows):
        lines.append(",".join("?" if rng.random() < 0.1 else d[rng.integers(len(d))] for d in domains))
        if i == n_rows // 2:
            lines.append("")
    path = tmp_path / "nominal.arff"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def test_bare_nominal_reader_agrees_with_the_general_reader(tmp_path, monkeypatch):
    """Machine-written nominal data takes the NumPy reader; the same rows with a comment line
    (which only the general line-by-line reader accepts) give the same frame."""
    from pgm_models.datasets import arff

    path = _nominal_arff(tmp_path, np.random.default_rng(0))
    used = []
    bare = arff._read_bare_nominal
    monkeypatch.setattr(arff, "_read_bare_nominal", lambda *a: used.append(bare(*a)) or used[-1])
    _, _, fast = read_arff(path)
    assert used and used[0] is not None
    general = tmp_path / "general.arff"
    general.write_text(path.read_text() + "% a comment: the general reader\n")
    _, _, exact = read_arff(general)
    assert len(used) == 1  # the general reader's file never reached the fast ones
    pd.testing.assert_frame_equal(fast, exact)
    assert fast.isna().to_numpy().mean() == pytest.approx(0.1, abs=0.03)
    assert list(fast["f2"].cat.categories) == ["v0", "v1", "v2", "v3"]


@pytest.mark.parametrize(
    "row, message",
    [
        (
            "abcd,x,v0,yes",
            "nominal.arff:308: attribute 'f0' has undeclared value 'abcd'",
        ),  # longer than the reader's field width
        ("a,x,v9,yes", "nominal.arff:308: attribute 'f2' has undeclared value 'v9'"),
        ("a,x,v0", "nominal.arff:308: 3 values, the header declares 4"),
        ("a,x,v0,yes,no", "nominal.arff:308: 5 values, the header declares 4"),
        ("a,,v0,yes", "nominal.arff:308: attribute 'f1' has undeclared value ''"),
    ],
)
def test_bare_nominal_reader_leaves_bad_rows_to_the_general_reader(tmp_path, row, message):
    path = _nominal_arff(tmp_path, np.random.default_rng(1), extra=row + "\n")
    with pytest.raises(ValueError, match=message):
        read_arff(path)


@pytest.mark.parametrize("row, message", [("x,1,2", r"t.arff:7: 3 values"), ("x", r"t.arff:7: 1 values")])
def test_pandas_reader_leaves_rows_of_another_length_to_the_general_reader(tmp_path, row, message):
    path = tmp_path / "t.arff"
    path.write_text("@relation r\n@attribute c {x,y}\n@attribute n numeric\n@data\nx,1\ny,2\n" + row + "\n")
    with pytest.raises(ValueError, match=message):
        read_arff(path)


def test_hash_codes_finds_each_of_many_values_and_rejects_others():
    from pgm_models.datasets.arff import _hash_codes

    rng = np.random.default_rng(2)
    lookup = np.unique(rng.integers(0, 2**56, 200, dtype=np.uint64))
    positions = rng.integers(-1, len(lookup) - 1, 5000)  # −1: the last value, the missing mark
    codes = _hash_codes(lookup[positions], lookup)
    np.testing.assert_array_equal(codes, positions)
    assert _hash_codes(np.append(lookup[positions], np.uint64(2**60)), lookup) is None
