"""benchmarks.shrinkage at toy size: both tables are written, the speed table compares the same
probabilities as scikit-learn's, and the cross-validation's Ledoit–Wolf column is scikit-learn's
own cross-validated log loss."""

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from benchmarks import shrinkage
from pgm_models import LDA


def test_runs_at_toy_size_and_writes_both_tables(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    out = tmp_path / "s.md"
    argv = ["--rows", "600", "--features", "6", "--repeats", "1", "--cv-rows", "30", "--cv-features", "5"]
    assert shrinkage.main([*argv, "--cv-seeds", "1", "--folds", "3", "--write", str(out)]) == 0
    text = out.read_text()
    assert text.count("Command: `python -m benchmarks.shrinkage --rows 600 --features 6") == 2
    assert "--write" not in text
    speed_rows = [line for line in text.splitlines() if line.startswith(("| LDA | ", "| QDA | ")) and "±" not in line]
    assert len(speed_rows) == len(shrinkage.SPEED_CASES)
    for row in speed_rows:  # both libraries' probabilities agree far below any modelling difference
        assert float(row.rstrip(" |").rsplit("|", 1)[1]) < 1e-9
    cv_rows = [line for line in text.splitlines() if line.startswith(("| LDA | ", "| QDA | ")) and "±" in line]
    assert len(cv_rows) == 2 and all(line.count("±") == len(shrinkage.CV_MODELS) for line in cv_rows)


def test_ledoit_wolf_column_is_scikit_learns_cross_validated_log_loss():
    losses = shrinkage.cross_validated_losses(LDA, 45, 12, seeds=[0, 1], n_folds=3)
    expected = []
    for seed in (0, 1):
        X, y = shrinkage.correlated_rows(45, 12, seed=1000 + seed)
        for train, test in StratifiedKFold(3, shuffle=True, random_state=seed).split(X, y):
            model = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X[train], y[train])
            expected.append(log_loss(y[test], model.predict_proba(X[test])))
    np.testing.assert_allclose(losses["Ledoit–Wolf plug-in"], expected, rtol=1e-10)
    assert all(len(v) == 6 for v in losses.values())


def test_generated_rows_have_the_stated_correlation_and_classes():
    X, y = shrinkage.correlated_rows(30_000, 4, seed=0)
    assert X.shape == (30_000, 4) and np.bincount(y).tolist() == [10_000] * 3
    within = np.corrcoef((X - np.array([X[y == k].mean(0) for k in range(3)])[y]).T)
    # sampling sd of a correlation near 0.7 from 30 000 rows is about 0.003: 0.02 is > 6 sd
    np.testing.assert_allclose(np.diag(within, 1), 0.7, atol=0.02)
    np.testing.assert_allclose(np.diag(within, 2), 0.49, atol=0.02)


def test_command_names_the_blas_threads_it_ran_with(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    out = tmp_path / "s.md"
    argv = ["--rows", "300", "--features", "3", "--repeats", "1", "--cv-rows", "24", "--cv-features", "3"]
    assert shrinkage.main([*argv, "--cv-seeds", "1", "--folds", "2", "--write", str(out)]) == 0
    assert out.read_text().count("Command: `OPENBLAS_NUM_THREADS=1 python -m benchmarks.shrinkage --rows 300") == 2
