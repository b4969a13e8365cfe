"""Benchmarks of pgm_models (not part of the test run; `python -m benchmarks.discrete`)."""
