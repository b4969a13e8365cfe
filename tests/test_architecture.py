"""The package's architecture: the import contract, lint and format, one public API, the
template's hooks checked when a class is defined, and the old module paths' errors."""

import importlib
import inspect
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import pgm_models
from pgm_models.base import BayesianClassifier

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(sys.executable).parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / tool), *args], cwd=ROOT, capture_output=True, text=True)


def test_the_import_contract_is_kept():
    """Layers (app > families > template > engines > model selection > shared core), no import
    cycle inside any folder, private modules imported only from their own folder."""
    result = _run("lint-imports")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


def test_the_import_contract_fails_on_an_engine_that_imports_a_family(tmp_path):
    """The contract has teeth: a copy of the package whose Dask engine imports a family breaks it."""
    import shutil

    copy = tmp_path / "tree"
    shutil.copytree(ROOT / "pgm_models", copy / "pgm_models", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    engine = copy / "pgm_models" / "dask_engine" / "engine.py"
    engine.write_text(engine.read_text() + "\nfrom pgm_models.gaussian._base import GaussianClassifier  # noqa\n")
    result = subprocess.run(
        [str(BIN / "lint-imports")],
        cwd=copy,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(copy), "PATH": str(BIN)},
    )
    assert result.returncode == 1
    assert "pgm_models.dask_engine.engine -> pgm_models.gaussian._base" in result.stdout


@pytest.mark.parametrize("command", [("check",), ("format", "--check")], ids=["check", "format"])
def test_ruff_is_clean(command):
    result = _run("ruff", *command, ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_public_name_imports_from_the_package():
    for name in pgm_models.__all__:
        assert getattr(pgm_models, name) is not None, name
    from sklearn.base import ClassifierMixin

    for name in pgm_models.ESTIMATORS:
        assert issubclass(getattr(pgm_models, name), ClassifierMixin), name


@pytest.mark.parametrize("old", sorted(pgm_models._MOVED_MODULES))
def test_an_old_module_path_names_the_new_one(old):
    new = pgm_models._MOVED_MODULES[old]
    with pytest.raises(ImportError, match=rf"{old} moved to {new}"):
        importlib.import_module(old)
    importlib.import_module(new)


def test_the_root_holds_the_api_and_the_template_only():
    modules = sorted(p.name for p in (ROOT / "pgm_models").glob("*.py"))
    assert modules == ["__init__.py", "base.py"]
    for folder in (ROOT / "pgm_models").iterdir():
        if folder.is_dir() and (folder / "__init__.py").exists():
            module = importlib.import_module(f"pgm_models.{folder.name}")
            assert (module.__doc__ or "").strip(), f"pgm_models/{folder.name}/__init__.py says what belongs there"


def test_a_class_missing_a_template_hook_fails_when_defined():
    with pytest.raises(TypeError, match=r"Incomplete lacks the template hooks \['_init_counts', '_count'"):

        class Incomplete(BayesianClassifier):
            def _encode(self, X, reset, training=False):
                return X

    class Shared(BayesianClassifier):  # a class that only shares code says so
        _template = True

    assert inspect.isabstract(Shared)


class _CountsOfOnes(BayesianClassifier):
    """A minimal new family: Bernoulli features with a Beta prior per class, its statistic a
    ``*count_`` table; nothing of the engines knows it."""

    def __init__(self, class_alpha=1.0, estimate="mean", class_prior=None):
        self.class_alpha = class_alpha
        self.estimate = estimate
        self.class_prior = class_prior

    def _encode(self, X, reset, training=False):
        X = self._check_feature_names(X, reset)
        return np.asarray(X, dtype=float)

    def _init_counts(self, X, class_index, weight):
        self.ones_count_ = np.zeros((len(self.classes_), X.shape[1]))

    def _count(self, X, class_index, weight):
        np.add.at(self.ones_count_, class_index, X * weight[:, None])
        self.feature_prob_ = (self.ones_count_ + 1) / (self.class_count_[:, None] + 2)

    def _feature_log_likelihood(self, X, estimate):
        p = self.feature_prob_
        return X @ np.log(p).T + (1 - X) @ np.log1p(-p).T

    def _feature_posterior(self):
        return {}

    def _coords(self):
        return {"class": self.classes_}

    def _counts_model(self, model):
        self._class_model(model, observe_counts=True)

    def _rows_model(self, model, X, class_index):
        self._class_model(model, observe_counts=False)


def test_a_new_family_gets_dask_for_free():
    """The Dask engine fits a family it has never heard of from its declared statistics."""
    pytest.importorskip("dask")
    import dask.array as da

    rng = np.random.default_rng(0)
    X = (rng.random((400, 5)) < 0.3).astype(float)
    y = rng.integers(0, 3, 400)
    in_memory = _CountsOfOnes().fit(X, y)
    on_dask = _CountsOfOnes().fit(da.from_array(X, chunks=(64, 5)), da.from_array(y, chunks=64))
    np.testing.assert_array_equal(on_dask.ones_count_, in_memory.ones_count_)
    np.testing.assert_array_equal(on_dask.class_count_, in_memory.class_count_)
    np.testing.assert_allclose(on_dask.predict_proba(X), in_memory.predict_proba(X), rtol=0, atol=1e-12)


TIMING = r"\d\s?(?:µs|ms|ns)\b|\d\s?(?:ms|s)\s?→\s?\d|\d+(?:\.\d+)?\s?×\s?(?:faster|slower)|times as (?:long|fast)"


def test_no_code_comment_quotes_a_timing():
    """Measurements live in BENCHMARKS.md; comments and docstrings give the reason."""
    import ast
    import io
    import re
    import tokenize

    found = []
    for path in sorted((ROOT / "pgm_models").rglob("*.py")):
        source = path.read_text()
        texts = [
            (token.start[0], token.string)
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT
        ]
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                docstring = ast.get_docstring(node, clean=False)
                if docstring:
                    texts.append((getattr(node, "lineno", 1), docstring))
        found += [f"{path.relative_to(ROOT)}:{line}" for line, text in texts if re.search(TIMING, text)]
    assert not found, found


def test_every_folder_is_in_the_layers_contract():
    """A folder left out of the layers would be unconstrained: every package is named there."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    named = {name.strip() for layer in layers for name in layer.split("|")}
    folders = {p.parent.name for p in (ROOT / "pgm_models").glob("*/__init__.py")}
    assert folders == named - {"base"}  # base is the template module, not a folder
