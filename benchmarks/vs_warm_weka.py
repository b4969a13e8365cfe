"""Per-fold model time against a warm Weka 3.6, on Weka's own 10 cross-validation folds.

    python -m benchmarks.vs_warm_weka [--repeats 3] [--rows 50000] [--attributes 30] [--harness DIR] [--write FILE]

Weka runs `benchmarks/weka/WarmWeka.java` (compiled with `javac -cp /usr/share/java/weka.jar`,
into a temporary folder or ``--harness DIR``, where a compiled one newer than the source is reused):
one JVM builds the classifier on each fold's training rows and calls distributionForInstance on
each test row, timed after warm-up passes over all folds, so the JIT has compiled the hot code
(what Weka's Experimenter or a 10-fold CV sees). The folds are Weka's (randomize(Random(1)),
stratify(10)); the harness prints each fold's test rows and pgm_models is timed on exactly those
rows the same way (fit + predict_proba, after warm-up, in a process that has loaded numba as any
PyMC use does, so its small-data paths run their compiled kernels: ``pgm_models._utils.jit.loaded``). The two sides alternate, ``--repeats``
times. Cases: CategoricalNB vs NaiveBayes and AODE vs AODE on vote and breast-cancer; MDL
discretisation + AODE vs FilteredClassifier(supervised Discretize, AODE) on diabetes; AODE on a
synthetic ``--rows`` × ``--attributes`` nominal set. Reported per fold: median fit + predict
milliseconds of each side, pgm_models / Weka (≤ 1 is the target) and the largest difference
between the two sides' class probabilities; on the small nominal sets also three floors on the same
folds: the least work of the same model in NumPy on these frames (``LeastWorkNB``: reading the
columns' codes, checking names and domains by identity, one bincount, one gather; ``LeastWorkAODE``:
the same codes, one symmetric product per class for the pair counts, the Laplace tables, one
gather of each row's (parent, child) cells per class; their probabilities are checked against
CategoricalNB's and AODE's; both are floors of NumPy code, and AODE's compiled kernels take it
below ``LeastWorkAODE``), an empty scikit-learn estimator's round trip (checking X's columns,
returning uniform probabilities) and scikit-learn's CategoricalNB on integer codes. Then where a fold's time goes in
each small case (``stage_breakdown``: X to codes, y to class indices, counts and priors, scoring;
a pipeline's own cost, its discretizer's fit and transforms; for AODE also its pair counts and its
scores from the counts; the synthetic set's stages over one pass of its folds). Then the top costs of AODE fit +
predict on a vote fold, of MDL + AODE on a diabetes fold and of AODE on a fold of the synthetic
set (cProfile), so that a regression in per-call overhead shows, and the load average. Needs a JDK and Weka
(`apt-get install weka`); without them only the stage breakdown and the profiles run.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

import numba  # noqa: F401  (a warm process: the small-data paths' compiled kernels run once numba is loaded)
import numpy as np
import sklearn.naive_bayes as skl
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.validation import validate_data

from benchmarks import append_section
from benchmarks.aode_vs_weka import WEKA_JAR, write_synthetic
from pgm_models import AODE, CategoricalNB
from pgm_models._utils.frames import categorical_codes, column_arrays
from pgm_models._utils.validation import check_labels
from pgm_models.datasets import dataset_path, load_arff
from pgm_models.discrete.attributes import _stacked
from pgm_models.discrete.pairs import counted_by_bit_sets, pair_counts
from pgm_models.preprocessing.discretize import MDLDiscretizer

HARNESS = Path(__file__).resolve().parent / "weka" / "WarmWeka.java"
MODELS = {
    "nb": ("CategoricalNB", CategoricalNB),
    "aode": ("AODE", AODE),
    "mdl-aode": ("MDL + AODE", lambda: make_pipeline(MDLDiscretizer(), AODE())),
}


def weka_available() -> bool:
    return WEKA_JAR.exists() and shutil.which("javac") is not None and shutil.which("java") is not None


def compile_harness(build: Path) -> None:
    """Compile the harness into ``build``, unless its class there is newer than the source (a
    second run with the same ``--harness`` folder, or a test session, compiles once)."""
    compiled = Path(build) / "WarmWeka.class"
    if compiled.exists() and compiled.stat().st_mtime >= HARNESS.stat().st_mtime:
        return
    subprocess.run(["javac", "-cp", str(WEKA_JAR), "-d", str(build), str(HARNESS)], check=True)


def run_weka(arff: Path, model: str, warmup: int, rounds: int, build: Path):
    """(test rows of each fold, per-fold milliseconds of each measured round, distributions per fold)."""
    command = ["java", "-cp", f"{WEKA_JAR}{os.pathsep}{build}", "WarmWeka", str(arff), model, str(warmup), str(rounds)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    folds, milliseconds, distributions = {}, [], {}
    for line in out.splitlines():
        kind, fold, *values = line.split()
        if kind == "test":
            folds[int(fold)] = np.array(values, dtype=np.intp)
        elif kind == "ms":
            milliseconds.append(float(values[0]) + float(values[1]))
        else:
            distributions.setdefault(int(fold), []).append([float(v) for v in values])
    return [folds[f] for f in sorted(folds)], milliseconds, {f: np.array(d) for f, d in distributions.items()}


def fold_data(X, y, folds):
    """(train X, train y, test X) of each fold, sliced once, outside the timing (Weka's trainCV and
    testCV are outside its timing too)."""
    everything = np.arange(len(y))
    return [
        (X.iloc[np.setdiff1d(everything, test)], y.iloc[np.setdiff1d(everything, test)], X.iloc[test]) for test in folds
    ]


def run_ours(make_model, data, warmup: int, rounds: int):
    """(per-fold milliseconds of each measured round, distributions per fold of the last round)."""
    milliseconds, distributions = [], {}
    for round_ in range(warmup + rounds):
        for f, (X_train, y_train, X_test) in enumerate(data):
            start = time.perf_counter()
            distributions[f] = make_model().fit(X_train, y_train).predict_proba(X_test)
            if round_ >= warmup:
                milliseconds.append((time.perf_counter() - start) * 1e3)
    return milliseconds, distributions


class EmptyEstimator(ClassifierMixin, BaseEstimator):
    """The floor of a scikit-learn estimator's fit + predict_proba round trip in Python: both check
    X's columns (validate_data without the array check, as pgm_models does) and nothing else."""

    def fit(self, X, y):
        validate_data(self, X, reset=True, skip_check_array=True)
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        validate_data(self, X, reset=False, skip_check_array=True)
        return np.full((len(X), 2), 0.5)


class _LeastWork:
    """What both floors do with the frames: read the training frame's codes and keep its columns
    and domains; check a test frame's columns and domains by identity and read its codes."""

    def _training_codes(self, X):
        """(F, N) codes of the training frame and each attribute's number of values."""
        self.columns_, arrays = X.columns, column_arrays(X)
        self.dtypes_ = [a.dtype for a in arrays]
        return _stacked_codes(arrays), np.array([len(d.categories) for d in self.dtypes_])

    def _test_codes(self, X):
        """(F, N) codes of a test frame with the training frame's columns and domains."""
        arrays = column_arrays(X)
        if not (X.columns is self.columns_ or X.columns.equals(self.columns_)) or any(
            a.dtype is not d for a, d in zip(arrays, self.dtypes_)
        ):
            raise ValueError("not the training frame's columns and domains")
        return _stacked_codes(arrays)


class LeastWorkNB(_LeastWork):
    """The floor of a correct CategoricalNB (Laplace, Weka's NaiveBayes on nominal data) fit +
    predict_proba of a fold in Python: the least work any implementation must do on a frame of
    Categorical columns, and nothing else (no parameter, input or domain checks beyond these, no
    scikit-learn API). Fit: read the columns' arrays and their codes, stack them, one
    ``np.bincount`` of (class, attribute value) keys, the Laplace estimates' logs; predict: the
    test frame's column names and each column's categories checked by identity against the
    training frame's, its codes stacked, one gather of the log table, the normalisation. Its
    probabilities are the model's (the benchmark checks them), so what it costs is a lower bound
    on a fold of any correct Python estimator that reads these frames."""

    def fit(self, X, y):
        codes, sizes = self._training_codes(X)
        self.offsets_ = np.cumsum(sizes) - sizes
        n_cells, n_classes = int(sizes.sum()), len(y.dtype.categories)
        classes = categorical_codes(y.array)
        keys = codes + self.offsets_[:, None] + classes * n_cells
        keys[codes < 0] = n_classes * n_cells  # a missing value: a spare cell
        counts = np.bincount(keys.ravel(), minlength=n_classes * n_cells + 1)[:-1].reshape(n_classes, n_cells) + 1.0
        self.table_ = np.zeros((n_cells + 1, n_classes))  # (cell, class); the last row: a missing value adds 0
        self.table_[:-1] = (
            np.log(counts) - np.repeat(np.log(np.add.reduceat(counts, self.offsets_, axis=1)), sizes, axis=1)
        ).T
        class_counts = np.bincount(classes, minlength=n_classes) + 1.0
        self.log_prior_ = np.log(class_counts / class_counts.sum())
        return self

    def predict_proba(self, X):
        codes = self._test_codes(X)
        cells = np.where(codes < 0, len(self.table_) - 1, codes + self.offsets_[:, None])
        scores = self.table_[cells].sum(axis=0) + self.log_prior_
        scores = np.exp(scores - scores.max(axis=1, keepdims=True))
        return scores / scores.sum(axis=1, keepdims=True)


class LeastWorkAODE(_LeastWork):
    """The floor of a correct AODE (Weka's: Laplace estimates, uniform weights, frequency limit 1)
    fit + predict_proba of a fold in NumPy, as ``LeastWorkNB`` is naive Bayes': the least work
    any implementation does on a frame of Categorical columns, and nothing else. Fit: the codes'
    cells (each attribute's values and a missing cell, T' in all), the rows one-hot in class
    order and every pair count of a class by one symmetric product of its rows (one product of
    all classes at once, K·T' × N × T', took 4 times as long), the value cells' counts read off, the Laplace estimates' logs of P(y, x_a) and of
    P(x_j | y, x_a) (0 where j is a's own attribute; a parent value never seen in training gets
    −inf, which leaves it out as Weka's frequency limit does). Predict: for each class one gather
    of every (parent, child) pair of each row's cells, summed over the children, plus the
    parent's joint, then the log-sum over the parents and the normalisation (the average's 1/F'
    is the same for every class and cancels); a row with no eligible parent (all its values
    missing, say) is scored by Weka's fallback, naive Bayes on the same counts.

    A floor in NumPy only: since round 9 AODE counts small folds by compiled bit sets and scores
    by compiled loops (numba), and takes less time than this floor (vote: about 0.24 against
    0.34 ms a fold); what it bounds is an AODE in NumPy, not the compiled one."""

    def fit(self, X, y):
        codes, sizes = self._training_codes(X)
        n_classes, n_values, n_cells = len(y.dtype.categories), int(sizes.sum()), int(sizes.sum() + len(sizes))
        starts = np.cumsum(sizes + 1) - (sizes + 1)  # each attribute's first cell; its missing cell after its values
        cells = codes + starts[:, None]
        np.copyto(cells, (starts + sizes)[:, None], where=codes < 0)
        classes = categorical_codes(y.array)
        order = np.argsort(classes, kind="stable")  # the rows class by class
        design = np.zeros((len(order), n_cells), np.float32)
        design.reshape(-1)[cells[:, order] + np.arange(len(order)) * n_cells] = 1.0
        pairs, ends = (
            np.empty((n_classes, n_cells, n_cells), np.float32),
            np.cumsum(np.bincount(classes, minlength=n_classes)),
        )
        for k, (start, end) in enumerate(zip(np.concatenate(([0], ends[:-1])), ends)):
            pairs[k] = design[start:end].T @ design[start:end]  # a symmetric product (syrk) per class
        value_cells = np.arange(n_values) + np.repeat(
            np.arange(len(sizes)), sizes
        )  # past the missing cells before them
        values = pairs.take(value_cells, axis=1).take(value_cells, axis=2).astype(float)  # (K, T, T)
        self.value_starts_ = np.cumsum(sizes) - sizes
        attribute = np.repeat(np.arange(len(sizes)), sizes)
        log_child = np.log(values + 1.0) - np.repeat(
            np.log(np.add.reduceat(values, self.value_starts_, axis=2) + sizes), sizes, axis=2
        )
        log_child[:, attribute[:, None] == attribute[None, :]] = 0.0
        self.table_ = np.zeros((n_classes, n_values + 1, n_values + 1))  # a missing child or parent: cell T, log 1 = 0
        self.table_[:, :n_values, :n_values] = log_child
        diagonal = values.reshape(n_classes, -1)[:, :: n_values + 1]  # N(y, x_a = v)
        observed = np.add.reduceat(diagonal.sum(axis=0), self.value_starts_)  # rows with x_a observed
        self.joint_ = np.full((n_classes, n_values + 1), -np.inf)  # a missing parent: left out
        with np.errstate(divide="ignore"):
            self.joint_[:, :n_values] = (
                np.log(diagonal + 1.0)
                - np.log(observed + n_classes * sizes)[attribute]
                + np.log(diagonal.sum(axis=0) >= 1)
            )
        # the fallback: log P(y) + Σ_j log P(x_j | y) from the same counts, Laplace
        class_count = np.bincount(classes, minlength=n_classes) + 1.0
        self.naive_bayes_ = np.zeros((n_classes, n_values + 1))
        self.naive_bayes_[:, :n_values] = np.log(diagonal + 1.0) - np.repeat(
            np.log(np.add.reduceat(diagonal, self.value_starts_, axis=1) + sizes), sizes, axis=1
        )
        self.log_prior_ = np.log(class_count / class_count.sum())
        return self

    def predict_proba(self, X):
        codes = self._test_codes(X)
        n_values = self.table_.shape[1] - 1
        cells = codes + self.value_starts_[:, None]
        np.copyto(cells, n_values, where=codes < 0)
        pairs = cells[:, None, :] * (n_values + 1) + cells[None, :, :]  # (parent, child, row)
        scores = np.empty((len(self.table_), codes.shape[1]))
        for k, (table, joint) in enumerate(zip(self.table_, self.joint_)):
            per_parent = table.ravel().take(pairs).sum(axis=1) + joint.take(cells)  # (parent, row)
            peak = per_parent.max(axis=0)
            with np.errstate(invalid="ignore"):  # a row with no eligible parent: NaN, replaced below
                scores[k] = np.log(np.exp(per_parent - peak).sum(axis=0)) + peak
        fallback = np.flatnonzero(np.isnan(scores[0]))
        if len(fallback):
            scores[:, fallback] = (
                self.naive_bayes_.take(cells[:, fallback], axis=1).sum(axis=1) + self.log_prior_[:, None]
            )
        scores = np.exp(scores - scores.max(axis=0))
        return (scores / scores.sum(axis=0)).T


def _stacked_codes(arrays) -> np.ndarray:
    """(F, N) intp codes of F Categorical columns (the package's (N, F) stack, transposed back)."""
    return _stacked([categorical_codes(array) for array in arrays]).T


def floor_data(data):
    """The folds for scikit-learn's CategoricalNB: each attribute's codes, a missing value as one
    more category (min_categories), encoded outside the timing."""

    def codes(X):
        return np.column_stack(
            [np.where(c.codes < 0, len(c.categories), c.codes) for c in (X[name].array for name in X.columns)]
        )

    sizes = [len(X_train[name].cat.categories) + 1 for X_train, _, _ in data[:1] for name in X_train.columns]
    return sizes, [(codes(X_train), y_train.cat.codes.to_numpy(), codes(X_test)) for X_train, y_train, X_test in data]


LEAST_WORK = {"nb": LeastWorkNB, "aode": LeastWorkAODE}


def run_floors(data, warmup: int, rounds: int, model: str = "nb") -> dict:
    """Median per-fold milliseconds of the empty estimator and of the least work of the model
    (``LEAST_WORK[model]``, whose probabilities must be the model's to be its floor), both on the
    frames, and of scikit-learn's CategoricalNB (on the codes), timed as ``run_ours``."""
    sizes, coded = floor_data(data)
    empty, _ = run_ours(EmptyEstimator, data, warmup, rounds)
    least, least_p = run_ours(LEAST_WORK[model], data, warmup, rounds)
    _, ours_p = run_ours(MODELS[model][1], data, 0, 1)
    sklearn_nb, _ = run_ours(lambda: skl.CategoricalNB(min_categories=sizes), coded, warmup, rounds)
    difference = float(np.max([np.abs(least_p[f] - ours_p[f]).max() for f in ours_p]))  # NaN anywhere: NaN
    if not difference <= 1e-12:  # a floor that computes another model bounds nothing (NaN fails too)
        raise AssertionError(
            f"{LEAST_WORK[model].__name__}'s probabilities differ from {MODELS[model][0]}'s by {difference:.1e}"
        )
    return {
        "empty_ms": statistics.median(empty),
        "least_ms": statistics.median(least),
        "sklearn_nb_ms": statistics.median(sklearn_nb),
    }


def modulo_folds(X, y, n_folds: int = 10):
    """(train X, train y, test X) of folds of every tenth row: folds without Weka's harness."""
    fold = np.arange(len(y)) % n_folds
    return [(X[fold != f], y[fold != f], X[fold == f]) for f in range(n_folds)]


def _median_ms(call, data, rounds: int) -> float:
    """Median milliseconds of ``call(train X, train y, test X)`` per fold, over ``rounds`` passes
    (after one untimed pass)."""
    milliseconds = []
    for round_ in range(rounds + 1):
        for fold in data:
            start = time.perf_counter()
            call(*fold)
            if round_:
                milliseconds.append((time.perf_counter() - start) * 1e3)
    return statistics.median(milliseconds)


def stage_breakdown(make_model, data, rounds: int) -> list[tuple[str, float]]:
    """(stage, median ms per fold) of fit + predict_proba, each stage timed alone on the folds:
    reading X into codes (column checks, domains, codes: ``_encode``) and y into class indices,
    the rest of fit (counts, priors), the rest of predict_proba (estimates, scoring). A pipeline
    is timed against the same steps called directly (the difference is scikit-learn's Pipeline),
    then split into the discretizer's fit_transform (the Pipeline's call; of which the fit) and
    test transform and the model's stages on the intervals.
    Stages timed alone add up to less than the whole (about 0.1 ms a fold on vote): run in
    sequence, each finds less of its data in cache."""
    fitted = [make_model().fit(X_train, y_train) for X_train, y_train, _ in data]
    whole = _median_ms(
        lambda X_train, y_train, X_test: make_model().fit(X_train, y_train).predict_proba(X_test), data, rounds
    )
    if isinstance(fitted[0], Pipeline):
        # fresh steps made as the pipeline's were (constructors), not by clone: a clone of each
        # step (~0.05 ms) would be counted in the steps and taken off the pipeline's own cost
        first, last = (
            functools.partial(type(step), **step.get_params(deep=False)) for step in (fitted[0][0], fitted[0][-1])
        )

        def without_pipeline(X_train, y_train, X_test):
            discretizer = first()  # fit_transform on the training rows, as the Pipeline calls it
            return (
                last()
                .fit(discretizer.fit_transform(X_train, y_train), y_train)
                .predict_proba(discretizer.transform(X_test))
            )

        steps = [(fitted[f][0], *fold) for f, fold in enumerate(data)]
        bare = _median_ms(without_pipeline, data, rounds)
        discretizer = [
            (
                "  discretizer fit_transform, training rows",
                _median_ms(lambda X_train, y_train, X_test: first().fit_transform(X_train, y_train), data, rounds),
            ),
            (
                "    of which the fit",
                _median_ms(lambda X_train, y_train, X_test: first().fit(X_train, y_train), data, rounds),
            ),
            (
                "  discretizer transform, test rows",
                _median_ms(lambda d, X_train, y_train, X_test: d.transform(X_test), steps, rounds),
            ),
        ]
        intervals = [(d.transform(X_train), y_train, d.transform(X_test)) for d, X_train, y_train, X_test in steps]
        model = stage_breakdown(last, intervals, rounds)
        return [
            ("fit + predict_proba", whole),
            ("Pipeline's own (the whole less the same steps called directly)", whole - bare),
            ("the same steps called directly", bare),
            *discretizer,
            *[(f"  {last.func.__name__}: {name}", ms) for name, ms in model],
        ]
    folds = [(model, *fold) for model, fold in zip(fitted, data)]
    fit = _median_ms(lambda X_train, y_train, X_test: make_model().fit(X_train, y_train), data, rounds)
    predict = _median_ms(lambda model, X_train, y_train, X_test: model.predict_proba(X_test), folds, rounds)
    encode_train = _median_ms(
        lambda X_train, y_train, X_test: make_model()._encode(X_train, reset=True, training=True), data, rounds
    )
    labels = _median_ms(
        lambda model, X_train, y_train, X_test: model._class_index(check_labels(y_train, model, categorical=True)),
        folds,
        rounds,
    )
    encode_test = _median_ms(
        lambda model, X_train, y_train, X_test: model._encode(X_test, reset=False, training=False), folds, rounds
    )
    stages = [
        ("fit + predict_proba", whole),
        ("fit", fit),
        ("  X to codes, training rows", encode_train),
        ("  y to class indices", labels),
        ("  the rest (counts, priors)", fit - encode_train - labels),
        ("predict_proba", predict),
        ("  X to codes, test rows", encode_test),
        ("  the rest (estimates, scoring)", predict - encode_test),
    ]
    if isinstance(fitted[0], AODE):
        counts, scores = _aode_stages(folds, rounds)
        stages.insert(5, ("      of which the pair counts", counts))
        stages.append(("      of which the scores from the counts (all test rows at once)", scores))
    return stages


def _aode_stages(folds, rounds: int) -> tuple[float, float]:
    """Median ms per fold of AODE's two largest stages, on codes made outside the timing: the pair
    counts of the training rows, and the scores of the test rows from the counts (the log tables,
    the scoring and the average over the parents: the compiled kernels of
    ``pgm_models.semi_naive._aode_kernel`` where they apply, else the one-hot product and the
    average), each in its BLAS-thread context if it has one."""
    coded = []
    for model, X_train, y_train, X_test in folds:
        codes = model._encode(X_train, reset=False, training=False)
        class_index = model._class_index(check_labels(y_train, model, categorical=True))
        coded.append((model, codes, class_index, model._encode(X_test, reset=False, training=False)))

    def count(model, codes, class_index, test_codes):
        weight = np.ones(len(codes))
        with (
            model._blas_threads()
            if not counted_by_bit_sets(model._layout, len(codes), len(model.classes_), weight)
            else nullcontext()
        ):
            pair_counts(model._layout, codes, class_index, weight, len(model.classes_))

    def score(model, codes, class_index, test_codes):
        with model._scoring_threads("mean"):
            model._joint_log_likelihood(test_codes, "mean")

    return _median_ms(count, coded, rounds), _median_ms(score, coded, rounds)


def format_breakdown(stages: list[tuple[str, float]]) -> str:
    total = stages[0][1]
    return "\n".join(f"  {name:66s} {ms:6.3f} ms {100 * ms / total:5.1f} %" for name, ms in stages)


def profile_fold(arff: Path, repeats: int, make_model=AODE, top: int = 15) -> str:
    """cProfile's top costs (own time) of ``repeats`` × fit + predict_proba (AODE unless
    ``make_model`` says otherwise) on the first of 10 folds (every tenth row) of an ARFF file, per
    fold (``per_fold_costs``)."""
    X, y = load_arff(arff)
    test = np.arange(len(y)) % 10 == 0
    X_train, y_train, X_test = X[~test], y[~test], X[test]
    make_model().fit(X_train, y_train).predict_proba(X_test)  # warm: imports, caches
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(repeats):
        make_model().fit(X_train, y_train).predict_proba(X_test)
    profiler.disable()
    return per_fold_costs(pstats.Stats(profiler), repeats, top)


def per_fold_costs(stats: pstats.Stats, repeats: int, top: int) -> str:
    """The ``top`` functions by own time, in µs and calls per fold (``repeats`` folds profiled):
    pstats prints seconds to three decimals, 0.000 for every function of a 0.1 ms fold. The times
    are the profiler's (each call costs it about a µs), so they rank the calls rather than time them."""
    rows = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)[
        :top
    ]  # (file, line, name) → (cc, nc, tt, ct, callers)
    lines = [f"{'own µs':>9} {'total µs':>9} {'calls':>7}  function (per fold, {repeats} folds profiled)"]
    for (file, line, name), (_, calls, own, total, _) in rows:
        where = f"{Path(file).name}:{line}({name})" if line else name
        lines.append(f"{own / repeats * 1e6:9.2f} {total / repeats * 1e6:9.2f} {calls / repeats:7.1f}  {where}")
    return "\n".join(lines) + "\n"


def _milliseconds(row: dict, key: str) -> str:
    return f"{row[key]:.2f}" if key in row else "—"


def _table_row(row: dict) -> str:
    """A case's Markdown row: both sides, their ratio, the floors (— where not measured) and Δp."""
    least_ratio = f"{row['least_ms'] / row['weka_ms']:.2f}" if "least_ms" in row else "—"
    return (
        f"| {row['data']} | {row['model']} | {row['ours_ms']:.2f} | {row['weka_ms']:.2f} | {row['ratio']:.2f} | "
        f"{_milliseconds(row, 'least_ms')} | {least_ratio} | {_milliseconds(row, 'empty_ms')} | "
        f"{_milliseconds(row, 'sklearn_nb_ms')} | {row['max_difference']:.1e} |"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="alternations of the two sides")
    parser.add_argument("--warmup", type=int, default=20, help="passes over the 10 folds before timing (small data)")
    parser.add_argument("--rounds", type=int, default=5, help="timed passes over the 10 folds per repeat (small data)")
    parser.add_argument("--rows", type=int, default=50_000, help="rows of the synthetic AODE set (0: skip it)")
    parser.add_argument("--attributes", type=int, default=30)
    parser.add_argument(
        "--harness", help="folder of the compiled Weka harness, compiled there if it is not (default: a temporary one)"
    )
    parser.add_argument("--write", help="append the Markdown section to this file")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        cases = [
            ("vote", "nb"),
            ("vote", "aode"),
            ("breast-cancer", "nb"),
            ("breast-cancer", "aode"),
            ("diabetes", "mdl-aode"),
        ]
        files = {}
        for name in {name for name, _ in cases}:
            files[name] = folder / f"{name}.arff"
            files[name].write_bytes(dataset_path(name).read_bytes())
        if args.rows:
            name = f"synthetic {args.rows} × {args.attributes}"
            files[name] = folder / "synthetic.arff"
            write_synthetic(files[name], args.rows, args.attributes, seed=1)
            cases.append((name, "aode"))
        harness = Path(args.harness) if args.harness else folder
        if weka_available():
            compile_harness(harness)
            for name, model in cases:
                small = not name.startswith("synthetic")
                warmup, rounds = (args.warmup, args.rounds) if small else (2, 1)
                X, y = load_arff(files[name])
                ours_ms, weka_ms, data = [], [], None
                for _ in range(args.repeats):
                    folds, milliseconds, weka_p = run_weka(files[name], model, warmup, rounds, harness)
                    weka_ms += milliseconds
                    data = data or fold_data(X, y, folds)
                    milliseconds, ours_p = run_ours(MODELS[model][1], data, warmup, rounds)
                    ours_ms += milliseconds
                difference = max(float(np.abs(ours_p[f] - weka_p[f]).max()) for f in weka_p)
                row = {
                    "data": name,
                    "model": MODELS[model][0],
                    "ours_ms": statistics.median(ours_ms),
                    "weka_ms": statistics.median(weka_ms),
                    "max_difference": difference,
                    **(run_floors(data, warmup, rounds, model) if small and model != "mdl-aode" else {}),
                }
                row["ratio"] = row["ours_ms"] / row["weka_ms"]
                results.append(row)
                floors = (
                    f"  (least work {row['least_ms']:.2f} ms, empty estimator {row['empty_ms']:.2f} ms, "
                    f"scikit-learn CategoricalNB {row['sklearn_nb_ms']:.2f} ms)"
                    if "empty_ms" in row
                    else ""
                )
                print(
                    f"{name:24s} {row['model']:14s} pgm_models {row['ours_ms']:8.2f} ms  warm Weka {row['weka_ms']:8.2f} ms  "
                    f"ratio {row['ratio']:5.2f}  max |Δp| {difference:.1e}{floors}",
                    flush=True,
                )
        else:
            print("Weka 3.6 (apt-get install weka) and a JDK were not found: timing against Weka skipped", flush=True)
        breakdowns = []
        for name, model in cases:
            X, y = load_arff(files[name])
            rounds = 1 if name.startswith("synthetic") else args.rounds
            breakdowns.append(
                (f"{name} / {MODELS[model][0]}", stage_breakdown(MODELS[model][1], modulo_folds(X, y), rounds))
            )
        profiles = [
            ("1000 × AODE fit + predict_proba on a vote fold", profile_fold(dataset_path("vote"), 1000)),
            (
                "200 × MDL + AODE fit + predict_proba on a diabetes fold",
                profile_fold(dataset_path("diabetes"), 200, MODELS["mdl-aode"][1]),
            ),
        ]
        if args.rows:
            profiles.append(
                (
                    f"3 × AODE fit + predict_proba on a fold of the synthetic {args.rows} × {args.attributes} set",
                    profile_fold(files[f"synthetic {args.rows} × {args.attributes}"], 3),
                )
            )
    for title, stages in breakdowns:
        print(f"Stages of a fold (every tenth row), {title}:", format_breakdown(stages), sep="\n")
    for title, profile in profiles:
        print(title, profile, sep="\n")
    if args.write:
        command = "python -m benchmarks.vs_warm_weka " + " ".join(
            a
            for a in (argv if argv is not None else sys.argv[1:])
            if a not in (args.write, "--write", args.harness, "--harness")
        )
        lines = [
            "",
            "## Per-fold model time vs a warm Weka 3.6 (Weka's 10 CV folds)",
            "",
            f"Command: `{command.strip()}` — fit + predict_proba of each fold's test rows (Weka: buildClassifier + "
            "distributionForInstance inside one JVM after warm-up passes), median over folds and repeats, the two sides "
            "alternating; ratio = pgm_models / Weka (≤ 1 is the target).",
            "",
        ]
        if results:
            lines += [
                "| data | model | pgm_models (ms) | warm Weka (ms) | ratio | least work (ms) | least work / Weka | empty estimator (ms) "
                "| scikit-learn CategoricalNB (ms) | max abs Δp |",
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            ]
            lines += [_table_row(r) for r in results]
        else:
            lines.append("Not run: Weka 3.6 (`apt-get install weka`) and a JDK were not found.")
        lines += [
            "",
            "Where a fold's time goes: each stage timed alone, median ms per fold over folds of every tenth row "
            '("the rest" is fit or predict_proba less the stages timed in it; "Pipeline\'s own" is the pipeline '
            "less its steps called directly; stages timed alone add up to less than the whole, which runs them in "
            "sequence with less of their data in cache; the shares are of fit + predict_proba):",
            "",
            "```",
        ]
        for title, stages in breakdowns:
            lines += [title, format_breakdown(stages)]
        lines.append("```")
        for title, profile in profiles:
            lines += ["", f"Top costs (own time) of {title}, cProfile:", "", "```", profile.strip(), "```"]
        append_section(args.write, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
