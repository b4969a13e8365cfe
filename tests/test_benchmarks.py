"""Smoke test: the benchmark runs at a tiny size and writes its table."""

from benchmarks import vs_sklearn


def test_discrete_benchmark_runs_and_writes_markdown(tmp_path):
    out = tmp_path / "BENCHMARKS.md"
    assert vs_sklearn.main(["--sizes", "200", "--repeats", "1", "--write", str(out)]) == 0
    text = out.read_text()
    for model in ("CategoricalNB", "BernoulliNB", "MultinomialNB", "GaussianNB", "LDA", "QDA"):
        assert f"| {model} | 200 |" in text
    assert "python -m benchmarks.vs_sklearn --sizes 200 --repeats 1" in text


def test_benchmark_data_is_identical_for_both_libraries():
    X1, y1 = vs_sklearn.make_data("multinomial", 50, seed=3)
    X2, y2 = vs_sklearn.make_data("multinomial", 50, seed=3)
    assert (X1 != X2).nnz == 0 and (y1 == y2).all()
    assert X1.shape == (50, 20_000)
