"""Smoke test of benchmarks.text_at_scale at toy size: it runs, writes its tables, and its corpus is
sparse, reproducible and shaped as asked, in memory and as the Dask path's folder of blocks."""

import os

import numpy as np
import scipy.sparse as sp

from benchmarks import text_at_scale


def test_runs_at_toy_size_and_writes_a_row_per_model(tmp_path):
    out = tmp_path / "text.md"
    argv = ["--rows", "300", "--words", "500", "--draws", "20", "--repeats", "1", "--parts", "corpus"]
    assert text_at_scale.main([*argv, "--write", str(out)]) == 0
    text = out.read_text()
    for model in ("MultinomialNB", "BernoulliNB", "ComplementNB"):
        assert f"| {model} | 300 × 500 (" in text
    assert f"Command: `python -m benchmarks.text_at_scale {' '.join(argv)}`" in text
    assert "Machine: " in text and "load average" in text
    assert "Reuters grain" not in text and "through Dask" not in text


def test_reuters_and_dask_parts_write_their_tables(tmp_path):
    out = tmp_path / "text.md"
    argv = ["--rows", "250", "--words", "300", "--draws", "10", "--reuters-repeats", "1", "--parts", "reuters", "dask"]
    assert text_at_scale.main([*argv, "--dask-models", "MultinomialNB", "--write", str(out)]) == 0
    text = out.read_text()
    for model in ("MultinomialNB", "BernoulliNB", "ComplementNB"):
        assert f"| {model} | Reuters grain: fit 1,554, predict 604 × " in text
    dask_row = next(line for line in text.splitlines() if line.startswith("| MultinomialNB | 250 × 300 ("))
    # the Dask fit of the one block counts exactly what the in-memory fit counts
    assert dask_row.endswith("| 0.0e+00 | 0.0e+00 |")


def test_corpus_is_identical_per_seed_and_counts_every_draw():
    X, y = text_at_scale.make_corpus(250, 400, 30, seed=4)
    again, y_again = text_at_scale.make_corpus(250, 400, 30, seed=4)
    assert (X != again).nnz == 0 and np.array_equal(y, y_again)
    assert X.shape == (250, 400) and X.format == "csr"
    np.testing.assert_array_equal(X.sum(axis=1), 30)  # repeated words add up: every row holds its 30 draws
    assert 0 < X.nnz < 250 * 30  # and repeats make fewer nonzeros than draws
    assert set(np.unique(y)) == {0, 1, 2}


def test_folder_of_blocks_is_the_corpus(tmp_path, monkeypatch):
    monkeypatch.setattr(text_at_scale, "BLOCK_ROWS", 70)  # 4 blocks: 70, 70, 70, 40 rows
    X, y = text_at_scale.make_corpus(250, 400, 30)
    assert text_at_scale.write_blocks(str(tmp_path), 250, 400, 30) == X.nnz
    files = sorted(f for f in os.listdir(tmp_path) if f.startswith("block-"))
    assert len(files) == 4 and np.load(tmp_path / "sizes.npy").tolist() == [70, 70, 70, 40]
    blocks = sp.vstack([sp.load_npz(tmp_path / f) for f in files], format="csr")
    assert (blocks != X).nnz == 0 and np.array_equal(np.load(tmp_path / "labels.npy"), y)
