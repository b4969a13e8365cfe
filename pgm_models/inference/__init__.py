"""Inference engines: the NUTS backends and their compiled helpers, the verification of a
closed-form posterior against draws (``check_posterior``), simulation-based calibration and
posterior summaries. They use the template's hooks only and name no model family.
"""
