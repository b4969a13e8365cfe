"""Smoke test of benchmarks.text_at_scale at toy size: it runs, writes its table, and its corpus is
sparse, reproducible and shaped as asked."""

import numpy as np

from benchmarks import text_at_scale


def test_runs_at_toy_size_and_writes_a_row_per_model(tmp_path):
    out = tmp_path / "text.md"
    assert (
        text_at_scale.main(["--rows", "300", "--words", "500", "--draws", "20", "--repeats", "1", "--write", str(out)])
        == 0
    )
    text = out.read_text()
    for model in ("MultinomialNB", "BernoulliNB", "ComplementNB"):
        assert f"| {model} | 300 × 500 (" in text
    assert "Command: `python -m benchmarks.text_at_scale --rows 300 --words 500 --draws 20 --repeats 1`" in text


def test_corpus_is_identical_per_seed_and_counts_every_draw():
    X, y = text_at_scale.make_corpus(250, 400, 30, seed=4)
    again, y_again = text_at_scale.make_corpus(250, 400, 30, seed=4)
    assert (X != again).nnz == 0 and np.array_equal(y, y_again)
    assert X.shape == (250, 400) and X.format == "csr"
    np.testing.assert_array_equal(X.sum(axis=1), 30)  # repeated words add up: every row holds its 30 draws
    assert 0 < X.nnz < 250 * 30  # and repeats make fewer nonzeros than draws
    assert set(np.unique(y)) == {0, 1, 2}
