"""Each row's prediction is that row's alone: every estimator × every prediction method gives a
batch's rows what it gives each of them scored by itself, at batch sizes on both sides of every
size the code switches path at (the per-class/per-row column loops, the blocks of rows, the
chunks of the Gaussian work arrays, the one-hot look-ups, the compiled loops)."""

from __future__ import annotations

import numpy as np
import pytest
from zoo_cases import fitted, prediction_methods

import pgm_models
from pgm_models import base
from pgm_models._utils import scores
from pgm_models.conjugate import normal
from pgm_models.discrete import one_hot
from pgm_models.naive_bayes import categorical
from pgm_models.semi_naive import aode

MAX_ROWS = 20_000  # a threshold past this is reached with the blocks made smaller (test_blocks_of_rows)


def _thresholds(model, rows) -> list[int]:
    """Batch sizes on both sides of every size at which ``model``'s scoring changes path."""
    n_classes, n_features = len(model.classes_), rows.shape[1]
    sizes = [
        1,
        2,
        scores.PER_CLASS_ROWS,
        256,
        normal.WORK_ROWS,
        2 * normal.WORK_ROWS,
        -(-one_hot.LOOKUP_VALUES // (n_features * n_classes)),
    ]
    floats = getattr(model, "_floats_per_row", None) or getattr(getattr(model, "model_", None), "_floats_per_row", None)
    if floats is not None:
        block = max(256, base.FLOATS_PER_BLOCK // floats())
        sizes += [block, 2 * block]
    return sorted({n + d for n in sizes for d in (-1, 0, 1) if 1 <= n + d <= MAX_ROWS})


def _check_rows_alone(model, rows, sizes):
    for name, method in prediction_methods(model).items():
        alone = [method(rows[i : i + 1]) for i in range(len(rows))]
        for n in sizes:
            batch = np.resize(rows, (n, rows.shape[1]))  # the rows tiled
            output = method(batch)
            row_axis = 1 if name == "predict_proba_draws" else 0
            expected = np.concatenate([alone[i % len(rows)] for i in range(n)], axis=row_axis)
            if name == "predict":
                np.testing.assert_array_equal(output, expected, err_msg=f"{name} of {n} rows")
            else:
                np.testing.assert_allclose(output, expected, rtol=1e-10, atol=1e-12, err_msg=f"{name} of {n} rows")


@pytest.mark.parametrize("name", pgm_models.ESTIMATORS)
def test_each_row_scores_as_if_alone(name):
    model, rows = fitted(name)
    _check_rows_alone(model, rows, _thresholds(model, rows))


@pytest.mark.parametrize("name", pgm_models.ESTIMATORS)
def test_blocks_of_rows(name, monkeypatch):
    """The blocks of rows the template scores one at a time, made 256 rows so a few hundred cross them."""
    monkeypatch.setattr(base, "FLOATS_PER_BLOCK", 256)
    model, rows = fitted(name)
    _check_rows_alone(model, rows, [255, 256, 257, 511, 512, 513, 769])


@pytest.mark.parametrize(
    "name, module, switch",
    [
        ("CategoricalNB", categorical, "COMPILED_LOOPS"),
        ("HierarchicalNB", categorical, "COMPILED_LOOPS"),
        ("AODE", aode, "COMPILED_SCORING"),
    ],
)
def test_each_row_scores_as_if_alone_without_compiled_loops(name, module, switch, monkeypatch):
    """The NumPy paths the compiled loops stand in for (the one-hot look-ups below LOOKUP_VALUES)."""
    monkeypatch.setattr(module, switch, False)
    model, rows = fitted(name)
    _check_rows_alone(model, rows, _thresholds(model, rows))


def test_a_per_class_term_of_the_wrong_shape_is_refused():
    """A (1,) term broadcasts over a few rows but reached only class 0 column by column: refused on both paths."""
    for n in (3, scores.PER_CLASS_ROWS):
        with pytest.raises(ValueError, match=r"per-class term must have shape \(3,\), got \(1,\)"):
            scores.add_per_class(np.zeros((n, 3)), np.ones(1))
        with pytest.raises(ValueError, match=rf"per-row term must have shape \({n},\), got \(1,\)"):
            scores.subtract_per_row(np.zeros((n, 3)), np.ones(1))
