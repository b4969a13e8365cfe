"""save / load / load_model: one netCDF file per model, no pickle; a loaded model predicts bit for bit
like the saved one in a fresh process (pgm_models._utils.persistence)."""

import inspect
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import pgm_models
from pgm_models import BernoulliNB, CategoricalNB, HierarchicalNB, load_model
from pgm_models.datasets import load_dataset

# each estimator on the data it takes (the fresh process rebuilds the same rows from this table)
DATA = {
    "CategoricalNB": "vote",
    "BernoulliNB": "iris-abs",
    "MultinomialNB": "iris-abs",
    "MixedNB": "credit-g",
    "HierarchicalNB": "vote",
    "GaussianNB": "iris",
    "LDA": "iris",
    "QDA": "iris",
    "SPODE": "vote",
    "TAN": "vote",
    "AODE": "breast-cancer",
    "LogisticRegression": "iris-array",
    "ComplementNB": "iris-abs",
    "AODEsr": "vote",
    "WAODE": "vote",
    "HNB": "breast-cancer",
    "A2DE": "weather.nominal",
    "MANB": "vote",
    "BMATAN": "vote",
    "BayesNetClassifier": "breast-cancer",
    "KDB": "vote",
}


def data(name):
    """The rows of DATA's entry ``name``: a bundled dataset, its absolute values, or its array."""
    X, y = load_dataset(name.split("-abs")[0].split("-array")[0])
    if name.endswith("-abs"):
        return np.abs(X.to_numpy()), y
    if name.endswith("-array"):
        return X.to_numpy(), y
    return X, y


LOAD_DATA = "import numpy as np\nfrom pgm_models.datasets import load_dataset\n" + inspect.getsource(data)

CHECK_IN_FRESH_PROCESS = (
    LOAD_DATA
    + """
import json, sys, warnings
import pgm_models
warnings.simplefilter("ignore")
directory, names = sys.argv[1], json.loads(sys.argv[2])
report = {}
for name, dataset in names.items():
    X, y = data(dataset)
    expected = np.load(f"{directory}/{name}.npz", allow_pickle=False)
    model = pgm_models.load_model(f"{directory}/{name}.nc")
    same_class = getattr(pgm_models, type(model).__name__).load(f"{directory}/{name}.nc")
    report[name] = {"class": type(model).__name__,
                    "proba": bool(np.array_equal(model.predict_proba(X), expected["proba"])),
                    "predict": bool(np.array_equal(np.asarray(model.predict(X)).astype(str), expected["predict"])),
                    "joint": bool(not hasattr(model, "predict_joint_log_proba") or np.array_equal(model.predict_joint_log_proba(X), expected["joint"])),
                    "classload": bool(np.array_equal(same_class.predict_proba(X), expected["proba"])),
                    "idata": sorted(model.idata_.groups()) if hasattr(model, "idata_") else None}
print(json.dumps(report))
"""
)


def _fitted(name):
    X, y = data(DATA[name])
    if name == "HierarchicalNB":  # counted, with λ draws set as NUTS would leave them (no sampling here)
        import arviz as az

        model = HierarchicalNB().fit_counts(X, y)
        model.alpha_draws_ = np.array([[0.5], [1.5], [4.0]])
        model.idata_ = az.from_dict(posterior={"alpha": model.alpha_draws_.reshape(1, 3)})
        return model, X
    model = getattr(pgm_models, name)().fit(X, y)
    if name == "CategoricalNB":  # an idata_ to carry: exact-draw posterior predictive, no NUTS
        model.sample_posterior_predictive(X, n=20, random_seed=0)
    return model, X


def _run_fresh(directory, names):
    result = subprocess.run(
        [sys.executable, "-c", CHECK_IN_FRESH_PROCESS, str(directory), json.dumps(names)],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=os.getcwd(),
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def _saved_expectations(model, X, directory, name):
    joint = model.predict_joint_log_proba(X) if hasattr(model, "predict_joint_log_proba") else np.zeros(0)
    np.savez(
        directory / f"{name}.npz",
        proba=model.predict_proba(X),
        predict=np.asarray(model.predict(X)).astype(str),
        joint=joint,
    )
    assert model.save(directory / f"{name}.nc") == directory / f"{name}.nc"


def test_every_estimator_loads_in_a_fresh_process_and_predicts_bit_for_bit(tmp_path):
    import warnings

    assert set(DATA) == set(pgm_models.ESTIMATORS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in pgm_models.ESTIMATORS:
            model, X = _fitted(name)
            _saved_expectations(model, X, tmp_path, name)
    report = _run_fresh(tmp_path, DATA)
    for name in pgm_models.ESTIMATORS:
        assert report[name] == {
            "class": name,
            "proba": True,
            "predict": True,
            "joint": True,
            "classload": True,
            "idata": report[name]["idata"],
        }, name
    assert report["CategoricalNB"]["idata"] == ["constant_data", "observed_data", "posterior_predictive"]
    assert report["HierarchicalNB"]["idata"] == ["posterior"]


def test_a_model_fitted_on_dask_loads_in_a_fresh_process(tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    X, y = load_dataset("vote")
    model = CategoricalNB().fit(
        dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(y, npartitions=3, sort=False)
    )
    np.testing.assert_array_equal(model.feature_count_, CategoricalNB().fit(X, y).feature_count_)
    _saved_expectations(model, X, tmp_path, "dask")
    assert _run_fresh(tmp_path, {"dask": "vote"})["dask"]["proba"]


def test_the_file_holds_statistics_not_rows(tmp_path):
    """A million rows save to a file the size of a thousand rows' (same domains), and load fast."""
    import pandas as pd

    rng = np.random.default_rng(0)

    def frame(n):
        codes = rng.integers(0, 4, size=(n, 6))
        X = pd.DataFrame({f"a{j}": pd.Categorical.from_codes(codes[:, j], list("wxyz")) for j in range(6)})
        return X, (codes[:, 0] + rng.integers(0, 2, n)) % 3

    small, large = CategoricalNB().fit(*frame(1_000)), CategoricalNB().fit(*frame(1_000_000))
    small.save(tmp_path / "small.nc"), large.save(tmp_path / "large.nc")
    assert os.path.getsize(tmp_path / "large.nc") <= os.path.getsize(tmp_path / "small.nc") + 64
    start = time.perf_counter()
    loaded = CategoricalNB.load(tmp_path / "large.nc")
    assert time.perf_counter() - start < 5
    np.testing.assert_array_equal(loaded.feature_count_, large.feature_count_)
    assert loaded.class_count_.sum() == 1_000_000


def test_loading_refuses_what_is_not_this_model(tmp_path):
    import h5py
    import xarray as xr

    X, y = load_dataset("vote")
    path = tmp_path / "model.nc"
    CategoricalNB(alpha=2.0).fit(X, y).save(path)
    with pytest.raises(ValueError, match="holds a CategoricalNB, not a BernoulliNB"):
        BernoulliNB.load(path)
    assert load_model(path).get_params()["alpha"] == 2.0
    newer = tmp_path / "newer.nc"
    newer.write_bytes(path.read_bytes())
    with h5py.File(newer, "r+") as handle:
        handle.attrs["format_version"] = 99
    with pytest.raises(ValueError, match="format version 99, newer than this pgm_models reads"):
        load_model(newer)
    truncated = tmp_path / "truncated.nc"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ValueError, match="not a readable pgm_models model file"):
        load_model(truncated)
    text = tmp_path / "text.nc"
    text.write_text("class_count_ = [1, 2]\n")
    with pytest.raises(ValueError, match="not a readable pgm_models model file"):
        load_model(text)
    other = tmp_path / "other.nc"
    xr.Dataset({"v": ("x", [1.0])}).to_netcdf(other, engine="h5netcdf")
    with pytest.raises(ValueError, match="not a pgm_models model file"):
        load_model(other)
    with pytest.raises(FileNotFoundError, match="no such model file"):
        load_model(tmp_path / "absent.nc")


def test_a_state_naming_a_foreign_class_is_refused_and_nothing_runs(tmp_path):
    import h5py

    X, y = load_dataset("vote")
    path = tmp_path / "model.nc"
    CategoricalNB().fit(X, y).save(path)
    with h5py.File(path, "r+") as handle:
        state = json.loads(handle.attrs["state"])
        state["__dict__"].append(["extra", {"__object__": "subprocess:Popen", "state": {"__dict__": []}}])
        handle.attrs["state"] = json.dumps(state)
    with pytest.raises(ValueError, match="names the class 'subprocess:Popen', which is not one of pgm_models'"):
        load_model(path)


def test_a_failed_save_leaves_the_earlier_file_whole(tmp_path):
    X, y = load_dataset("vote")
    path = tmp_path / "model.nc"
    model = CategoricalNB().fit(X, y)
    model.save(path)
    before = path.read_bytes()
    model._unsaveable = lambda: None
    with pytest.raises(TypeError, match="cannot save an attribute of type builtins.function"):
        model.save(path)
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["model.nc"]
