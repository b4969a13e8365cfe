"""``load_table`` turns a CSV's text columns into Categoricals a block of columns at a time (issue 33,
item 15: one ``pd.Categorical`` per column cost the width of a 5,000-column file thousands of times over).
The frames must be those of ``pd.Categorical`` column by column: the same categories (values, order and
dtype), codes (values and dtype) and numeric columns, on text that sorts differently by bytes, by case
or by code point, with missing cells, columns of one value or none, and blocks of one column or many."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pgm_models.datasets as datasets
from pgm_models.datasets import load_table

_WORDS = ["a", "B", "b", "ä", "Z", "10", "9", "x y", "-", "ß", "é", "e\u0301", "𝔘", "NA", "None", "zz", "0.5x"]


def _csv(tmp_path, seed, rows, columns):
    rng = np.random.default_rng(seed)
    data = {}
    for j in range(columns):
        kind = j % 5
        if kind == 0:  # a few shared levels, some missing
            values = rng.choice(["yes", "no", ""], size=rows).tolist()
        elif kind == 1:  # its own levels from a wide alphabet
            values = [str(v) for v in rng.choice(_WORDS, size=rows)]
            values = [v if rng.random() > 0.1 else "" for v in values]
        elif kind == 2:
            values = [f"{rng.normal():.3f}" for _ in range(rows)]  # numeric: stays a float column
        elif kind == 3:
            values = [""] * rows if j % 10 == 3 else ["only"] * rows  # no value, or one
        else:
            values = [f"v{int(v)}" for v in rng.integers(0, 3 * rows, size=rows)]
        data[f"c{j}"] = values
    data["y"] = rng.choice(["p", "n"], size=rows).tolist()
    path = tmp_path / f"t{seed}.csv"
    pd.DataFrame(data).to_csv(path, index=False)
    return path


def _column_by_column(path):
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return {c: v if pd.api.types.is_numeric_dtype(v) else pd.Categorical(v) for c, v in frame.items()}


@pytest.mark.parametrize("block_cells", [1, 40, 1 << 20])  # one column per block, a few, all
@pytest.mark.parametrize("seed, rows, columns", [(0, 20, 60), (1, 7, 33), (2, 1, 12)])
def test_the_categoricals_are_those_of_pd_categorical_column_by_column(
    tmp_path, monkeypatch, block_cells, seed, rows, columns
):
    monkeypatch.setattr(datasets, "_BLOCK_CELLS", block_cells)
    path = _csv(tmp_path, seed, rows, columns)
    X, y = load_table(path)
    expected = _column_by_column(path)
    assert list(X.columns) + [y.name] == list(expected)
    for name in expected:
        got = (X[name] if name in X else y).array
        want = expected[name]
        if isinstance(want, pd.Categorical):
            assert isinstance(got, pd.Categorical), name
            assert got.categories.dtype == want.categories.dtype, name
            assert got.categories.tolist() == want.categories.tolist(), name
            assert got.codes.dtype == want.codes.dtype, name
            np.testing.assert_array_equal(got.codes, want.codes, err_msg=name)
            assert got.ordered == want.ordered
        else:
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=name)
    assert sum(isinstance(X[c].dtype, pd.CategoricalDtype) for c in X) >= columns // 2  # most are text


def test_columns_with_the_same_values_share_one_dtype_and_others_do_not(tmp_path):
    path = tmp_path / "shared.csv"
    path.write_text("a,b,c,y\nx,x,u,p\nz,z,x,n\n")
    X, _ = load_table(path)
    assert X["a"].dtype is X["b"].dtype  # one CategoricalDtype object for one set of levels
    assert X["a"].cat.categories.tolist() == ["x", "z"] and X["c"].cat.categories.tolist() == ["u", "x"]
