"""Fit and predict on Dask collections (``pgm_models.dask_engine.engine`` says how). The engine
knows the template's hooks only: a family that declares its statistics and how they merge gets
Dask for free.
"""

from pgm_models.dask_engine.engine import (
    ALLOCATOR,
    SLICE_VALUES,
    SPLIT_EVERY,
    WORKER_CONFIG,
    fit,
    fit_files,
    local_cluster,
    partial_fit,
    predict,
    predict_joint_log_proba,
    predict_log_proba,
    predict_proba,
    predict_proba_draws,
    read_table,
    scheduler,
)

__all__ = [
    "ALLOCATOR",
    "SLICE_VALUES",
    "SPLIT_EVERY",
    "WORKER_CONFIG",
    "fit",
    "fit_files",
    "local_cluster",
    "partial_fit",
    "predict",
    "predict_joint_log_proba",
    "predict_log_proba",
    "predict_proba",
    "predict_proba_draws",
    "read_table",
    "scheduler",
]
