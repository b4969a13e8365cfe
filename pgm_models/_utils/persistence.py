"""Saving a fitted estimator to one netCDF file and loading it back, without pickle.

The file (HDF5-based netCDF-4, written by xarray's ``h5netcdf`` engine) holds in its root group:

- one variable per array of the estimator's state — fitted statistics, class labels, category
  levels, feature names — each typed (its NumPy dtype in the ``dtype`` attribute);
- the attributes ``format`` ("pgm_models estimator"), ``format_version``, ``package_version``,
  ``estimator`` (the class name), ``params`` (``get_params()``) and ``state``: the estimator's
  attributes as JSON, where an array is a reference to its variable and an object of the package
  (a conjugate posterior, a value layout) is its class name and attributes, rebuilt without
  running its ``__init__``;

and ``idata_``, when the estimator has one, as the groups ``idata/<group>`` (posterior,
log_likelihood, ...). Loading reads data only: the only classes it rebuilds are the package's own,
named in the file and looked up in ``pgm_models``; nothing in the file is executed. The file is
written to a temporary name beside the target and renamed, so an interrupted save leaves no
partial file under the target's name.
"""

from __future__ import annotations

import importlib
import json
import os
import tempfile

import numpy as np
import pandas as pd

FORMAT = "pgm_models estimator"
FORMAT_VERSION = 1
IDATA_PREFIX = "idata/"
ENGINE = "h5netcdf"


class Persistent:
    """Mixin: ``save(path)`` and ``Class.load(path)``."""

    def save(self, path):
        """Write the estimator (hyperparameters, fitted statistics and domains, ``idata_``) to the
        netCDF file ``path`` (replaced if it exists). Returns ``path``.
        """
        save(self, path)
        return path

    @classmethod
    def load(cls, path):
        """The estimator saved in ``path`` by ``save``; an error if the file holds another class."""
        return load(path, expected=cls)


def save(estimator, path) -> None:
    import xarray as xr

    path = os.fspath(path)
    arrays = {}
    state = {name: value for name, value in vars(estimator).items() if name != "idata_"}
    encoded = _Encoder(arrays).encode(state, [estimator])
    from pgm_models import __version__

    root = xr.Dataset(
        {
            name: (tuple(f"{name}_dim{i}" for i in range(values.ndim)), values, {"dtype": dtype})
            for name, (values, dtype) in arrays.items()
        },
        attrs={
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "package_version": __version__,
            "estimator": type(estimator).__name__,
            "estimator_module": type(estimator).__module__,
            "params": json.dumps(_Encoder({}).encode_params(estimator)),
            "state": json.dumps(encoded),
        },
    )
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".pgm_models-", suffix=".nc", dir=directory)
    os.close(handle)
    try:
        root.to_netcdf(temporary, engine=ENGINE, mode="w")
        idata = getattr(estimator, "idata_", None)
        if idata is not None:
            for group in idata.groups():
                idata[group].to_netcdf(temporary, engine=ENGINE, mode="a", group=IDATA_PREFIX + group)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def load_model(path):
    """Load an estimator saved by its ``save``, whichever class of ``pgm_models.ESTIMATORS`` it is.

    The netCDF file names the class; the model is rebuilt from its stored hyperparameters,
    sufficient statistics and domains, without pickle (loading cannot run code), and predicts
    bit for bit as the saved one.

    Parameters
    ----------
    path : str or path-like
        A file written by an estimator's ``save``.

    Returns
    -------
    estimator
        The fitted estimator, with its ``idata_`` when one was saved.

    Raises
    ------
    ValueError
        If the file is not a netCDF file of a pgm_models estimator, is truncated, or was written by
        a newer format version.

    Examples
    --------
    >>> import os, tempfile
    >>> from pgm_models import CategoricalNB, load_dataset, load_model
    >>> X, y = load_dataset("weather.nominal")
    >>> model = CategoricalNB().fit(X, y)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = model.save(os.path.join(folder, "weather.nc"))
    ...     loaded = load_model(path)
    >>> type(loaded).__name__, bool((loaded.predict_proba(X) == model.predict_proba(X)).all())
    ('CategoricalNB', True)
    """
    return load(path)


def load(path, expected=None):
    """The estimator in ``path``; ``expected``: the class it must be (None: any of ``pgm_models.ESTIMATORS``)."""
    import pgm_models

    path = os.fspath(path)
    attrs, arrays, groups = _read(path)
    name = attrs.get("estimator")
    if expected is not None and name != expected.__name__:
        raise ValueError(
            f"{path} holds a {name}, not a {expected.__name__}: load it with {name}.load or pgm_models.load_model"
        )
    if name not in pgm_models.ESTIMATORS:
        raise ValueError(f"{path} holds an estimator of class {name!r}, which is not one of pgm_models.ESTIMATORS")
    cls = getattr(pgm_models, name)
    estimator = object.__new__(cls)
    state = _Decoder(arrays, path).decode(json.loads(attrs["state"]), [estimator])
    estimator.__dict__.update(state)
    if groups:
        import arviz as az

        estimator.idata_ = az.InferenceData(**groups)
    return estimator


def _read(path):
    """(root attributes, {name: array}, {idata group: Dataset}) of a file, checked to be this format."""
    import xarray as xr

    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such model file: {path}")
    try:
        import h5py

        with h5py.File(path, "r") as handle:
            idata_groups = list(handle["idata"].keys()) if "idata" in handle else []
        with xr.open_dataset(path, engine=ENGINE) as root:
            root.load()
        groups = {}
        for group in idata_groups:
            with xr.open_dataset(path, engine=ENGINE, group=IDATA_PREFIX + group) as dataset:
                groups[group] = dataset.load()
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        raise ValueError(
            f"{path} is not a readable pgm_models model file (not netCDF, or truncated): {error}"
        ) from None
    if root.attrs.get("format") != FORMAT:
        raise ValueError(f"{path} is a netCDF file but not a pgm_models model file (no format attribute {FORMAT!r})")
    version = int(root.attrs.get("format_version", -1))
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{path} has model file format version {version}, newer than this pgm_models reads "
            f"({FORMAT_VERSION}; the file was written by pgm_models {root.attrs.get('package_version')}): upgrade pgm_models"
        )
    arrays = {name: _typed(variable.values, variable.attrs["dtype"]) for name, variable in root.data_vars.items()}
    return dict(root.attrs), arrays, groups


def _typed(values, dtype: str) -> np.ndarray:
    """An array read back in the dtype it was saved with."""
    if dtype == "object-str":
        return np.array(values.tolist(), dtype=object).reshape(values.shape)
    dtype = np.dtype(dtype)
    if dtype.kind in "Mm":
        return np.asarray(values).astype(np.int64).view(dtype)
    return np.asarray(values).astype(dtype)


class _Encoder:
    """An object tree as JSON, its arrays set aside as netCDF variables."""

    def __init__(self, arrays: dict):
        self.arrays = arrays

    def encode_params(self, estimator):
        return self.encode(
            {
                name: value
                for name, value in estimator.get_params(deep=False).items()
                if not hasattr(value, "get_params")
            },
            [estimator],
            arrays_inline=True,
        )

    def encode(self, value, ancestors, arrays_inline=False):
        for depth, ancestor in enumerate(ancestors):
            if value is ancestor and depth < len(ancestors):
                return {"__ancestor__": depth}
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float)) and type(value) in (int, float):
            return value
        if isinstance(value, np.generic):
            return {
                "__scalar__": value.dtype.str,
                "value": value.item() if value.dtype.kind not in "Mm" else int(value.view(np.int64)),
            }
        if isinstance(value, np.ndarray):
            return self._array(value, arrays_inline)
        if isinstance(value, pd.CategoricalDtype):
            return {
                "__categorical__": self.encode(np.asarray(value.categories), ancestors, arrays_inline),
                "ordered": bool(value.ordered),
            }
        if isinstance(value, pd.Index):
            return {
                "__index__": self.encode(np.asarray(value), ancestors, arrays_inline),
                "dtype": str(value.dtype),
                "name": value.name if isinstance(value.name, (str, int, type(None))) else str(value.name),
            }
        if isinstance(value, list):
            return {"__list__": [self.encode(v, ancestors, arrays_inline) for v in value]}
        if isinstance(value, tuple):
            return {"__tuple__": [self.encode(v, ancestors, arrays_inline) for v in value]}
        if isinstance(value, dict):
            return {
                "__dict__": [
                    [self.encode(k, ancestors, arrays_inline), self.encode(v, ancestors, arrays_inline)]
                    for k, v in value.items()
                ]
            }
        cls = type(value)
        if cls.__module__.startswith("pgm_models.") and hasattr(value, "__dict__"):
            return {
                "__object__": f"{cls.__module__}:{cls.__qualname__}",
                "state": self.encode(dict(vars(value)), [*ancestors, value], arrays_inline),
            }
        raise TypeError(f"cannot save an attribute of type {cls.__module__}.{cls.__qualname__}")

    def _array(self, value: np.ndarray, inline: bool):
        if inline or (value.dtype == object and not all(isinstance(v, str) for v in value.ravel().tolist())):
            return {
                "__array_items__": [self.encode(v, []) for v in value.ravel().tolist()],
                "shape": list(value.shape),
                "dtype": value.dtype.str,
            }
        name = f"array_{len(self.arrays)}"
        if value.dtype == object:
            self.arrays[name] = (value.astype(str), "object-str")
        elif value.dtype.kind in "Mm":
            self.arrays[name] = (value.view(np.int64), value.dtype.str)
        elif value.dtype.kind == "b":
            self.arrays[name] = (value.astype(np.uint8), value.dtype.str)
        else:
            self.arrays[name] = (value, value.dtype.str)
        return {"__array__": name}


class _Decoder:
    """The inverse of ``_Encoder``: rebuilds only containers, arrays and the package's own classes."""

    def __init__(self, arrays: dict, path: str):
        self.arrays, self.path = arrays, path

    def decode(self, value, ancestors):
        if not isinstance(value, dict):
            return value
        if "__ancestor__" in value:
            return ancestors[value["__ancestor__"]]
        if "__scalar__" in value:
            dtype = np.dtype(value["__scalar__"])
            return (
                np.array(value["value"]).astype(np.int64).view(dtype)[()]
                if dtype.kind in "Mm"
                else dtype.type(value["value"])
            )
        if "__array__" in value:
            return self.arrays[value["__array__"]].copy()
        if "__array_items__" in value:
            items = [self.decode(v, []) for v in value["__array_items__"]]
            array = np.empty(len(items), dtype=np.dtype(value["dtype"]))
            array[:] = items if array.dtype != object else _object_items(items)
            return array.reshape(value["shape"])
        if "__categorical__" in value:
            return pd.CategoricalDtype(self.decode(value["__categorical__"], ancestors), ordered=value["ordered"])
        if "__index__" in value:
            return pd.Index(self.decode(value["__index__"], ancestors), dtype=value["dtype"], name=value["name"])
        if "__list__" in value:
            return [self.decode(v, ancestors) for v in value["__list__"]]
        if "__tuple__" in value:
            return tuple(self.decode(v, ancestors) for v in value["__tuple__"])
        if "__dict__" in value:
            return {_hashable(self.decode(k, ancestors)): self.decode(v, ancestors) for k, v in value["__dict__"]}
        if "__object__" in value:
            instance = object.__new__(self._package_class(value["__object__"]))
            instance.__dict__.update(self.decode(value["state"], [*ancestors, instance]))
            return instance
        raise ValueError(f"{self.path}: unknown entry in the saved state: {sorted(value)}")

    def _package_class(self, qualified: str):
        """A class of the package, looked up by its module and name (no other class is rebuilt)."""
        module, _, name = qualified.partition(":")
        if not module.startswith("pgm_models.") or "." in name:
            raise ValueError(
                f"{self.path}: the saved state names the class {qualified!r}, which is not one of pgm_models'"
            )
        cls = getattr(importlib.import_module(module), name, None)
        if not isinstance(cls, type) or not cls.__module__.startswith("pgm_models."):
            raise ValueError(
                f"{self.path}: the saved state names the class {qualified!r}, which pgm_models does not define"
            )
        return cls


def _object_items(items: list) -> np.ndarray:
    """A 1-D object array of ``items`` (np.array would make tuples a second axis)."""
    array = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        array[i] = item
    return array


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key
