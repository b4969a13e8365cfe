"""The zoo's report: its table, each model's verification verdict, and the figures of
:mod:`pgm_models.app.plots`, written to a folder as Markdown (``report.md``) or HTML
(``report.html``) with the figures as PNG files beside it.

Figures per model: closed form against NUTS for every parameter (``verification_forest``),
the sampler's energy, ESS and R-hat (``sampler_health``), the sampled class probabilities (a
SPODE's class-and-parent probabilities) with their exact marginal densities
(``posterior_vs_closed_form``), the credible intervals of P(ŷ | x) per test point
(``probability_intervals``) and, with at least ``RELIABILITY_MIN_ROWS`` test rows, a reliability
diagram of the posterior-mean predictions (else a note says why it is left out).
"""

from __future__ import annotations

import html
import platform
import re
from pathlib import Path

import numpy as np
import pandas as pd

FORMATS = ("md", "html")
# A reliability diagram bins the test rows by confidence (10 bins) and plots each bin's accuracy,
# whose standard error is up to 0.5/√n for n rows: with fewer than 100 test rows most bins hold a
# handful of rows and the curve zig-zags between 0 and 1. The diagram also drops bins of < 10 rows.
RELIABILITY_MIN_ROWS = 100


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


def _save(figure, folder: Path, name: str) -> str:
    import matplotlib.pyplot as plt

    figure.savefig(folder / name, dpi=90)
    plt.close(figure)
    return f"figures/{name}"


def _figures(run, result, folder: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """(caption, relative path) of every figure of one run, and notes on figures left out."""
    from pgm_models.app import plots
    from pgm_models.model_selection.compare import _true_index

    slug = _slug(run.name)
    classifier, features = run.classifier, run.features(result.X_test)
    figures, notes = [], []
    if run.verification is not None:
        if np.isfinite(run.verification.max_abs_z):
            figures.append(
                (
                    "NUTS against the closed form, every parameter",
                    _save(plots.verification_forest(run.verification), folder, f"{slug}-verification.png"),
                )
            )
            first = next(iter(classifier.analytic_posterior("mean").data_vars))  # class_prob, or SPODE's joint_prob
            figures.append(
                (
                    f"sampled {first} against the closed form",
                    _save(
                        plots.posterior_vs_closed_form(classifier, run.idata, first),
                        folder,
                        f"{slug}-{_slug(first)}.png",
                    ),
                )
            )
        figures.append(
            (
                "sampler health: energy, bulk ESS and R-hat",
                _save(plots.sampler_health(run.idata, run.verification), folder, f"{slug}-sampler.png"),
            )
        )
    if hasattr(classifier, "predict_proba_draws"):
        draws = classifier.predict_proba_draws(features, n_draws=200, random_seed=0)
        figures.append(
            (
                "credible intervals of P(ŷ | x) per test point",
                _save(
                    plots.probability_intervals(draws, classifier.classes_, result.y_test),
                    folder,
                    f"{slug}-intervals.png",
                ),
            )
        )
    if len(result.y_test) >= RELIABILITY_MIN_ROWS:
        proba = classifier.predict_proba(features, estimate="mean")
        figures.append(
            (
                "reliability of the posterior-mean predictions",
                _save(
                    plots.reliability_diagram(_true_index(classifier.classes_, result.y_test), proba),
                    folder,
                    f"{slug}-reliability.png",
                ),
            )
        )
    else:
        notes.append(
            f"No reliability diagram: {len(result.y_test)} test rows, fewer than the {RELIABILITY_MIN_ROWS} "
            "its bins need to say anything (use a larger dataset or --test-size)."
        )
    return figures, notes


def _markdown_table(table: pd.DataFrame) -> str:
    def cell(value):
        if isinstance(value, float):
            return "—" if np.isnan(value) else f"{value:.4g}"
        return str(value)

    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join(lines)


def _versions() -> str:
    import arviz
    import pymc
    import sklearn

    return f"Python {platform.python_version()}, PyMC {pymc.__version__}, ArviZ {arviz.__version__}, scikit-learn {sklearn.__version__}"


COMPARISON_TITLE = "Model comparison: exact leave-one-out log p(y | x) on the training rows (az.compare)"


def _comparison(result, folder: Path):
    """The zoo's az.compare table of exact LOO and its az.plot_compare figure (None, None with
    fewer than two models that have LOO).
    """
    import arviz as az

    comparison = result.comparison()
    if comparison is None:
        return None, None
    ax = az.plot_compare(comparison, insample_dev=False)
    return comparison, _save(ax.figure, folder, "model-comparison.png")


def write_report(result, folder, format: str = "md") -> Path:
    """Write the report of a :class:`pgm_models.app.zoo.ZooResult` into ``folder``; returns its path."""
    if format not in FORMATS:
        raise ValueError(f"format={format!r} is not one of {FORMATS}")
    folder = Path(folder)
    (folder / "figures").mkdir(parents=True, exist_ok=True)
    settings = result.settings
    intro = (
        f"Dataset {result.dataset}: {settings['n_train']} training and {settings['n_test']} test rows (stratified, "
        f"seed {settings['seed']}); NUTS {settings['chains']} chains × {settings['draws']} draws. {_versions()}."
    )
    verdict = "Every verification passed." if result.passed else "A verification FAILED: see the model's section."
    sections = []
    for run in result.runs:
        lines = [f"Verification: {run.status}." + (f" {run.note}." if run.note else "")]
        if run.verification is not None and not run.verification.passed:
            lines += [f"- {reason}" for reason in run.verification.reasons[:10]]
        figures, notes = _figures(run, result, folder / "figures")
        sections.append((run.name, lines + notes, figures))
    table = result.table()
    comparison, comparison_figure = _comparison(result, folder / "figures")
    if format == "md":
        text = [f"# pgm-models zoo: {result.dataset}", "", intro, "", verdict, "", _markdown_table(table), ""]
        if comparison is not None:
            text += [
                f"## {COMPARISON_TITLE}",
                "",
                _markdown_table(comparison.reset_index(names="model")),
                "",
                f"![az.plot_compare]({comparison_figure})",
                "",
            ]
        for name, lines, figures in sections:
            text += [f"## {name}", "", *lines, ""]
            text += [f"![{caption}]({path})\n\n*{caption}*\n" for caption, path in figures]
        path = folder / "report.md"
        path.write_text("\n".join(text), encoding="utf-8")
    else:
        body = [
            f"<h1>pgm-models zoo: {html.escape(result.dataset)}</h1>",
            f"<p>{html.escape(intro)}</p>",
            f"<p><b>{html.escape(verdict)}</b></p>",
            table.to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="—"),
        ]
        if comparison is not None:
            body += [
                f"<h2>{COMPARISON_TITLE}</h2>",
                comparison.to_html(float_format=lambda v: f"{v:.4g}"),
                f'<figure><img src="{comparison_figure}" alt="az.plot_compare"></figure>',
            ]
        for name, lines, figures in sections:
            body += [f"<h2>{html.escape(name)}</h2>"] + [f"<p>{html.escape(line)}</p>" for line in lines]
            body += [
                f'<figure><img src="{path}" alt="{html.escape(caption)}"><figcaption>{html.escape(caption)}</figcaption></figure>'
                for caption, path in figures
            ]
        path = folder / "report.html"
        path.write_text(
            "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>pgm-models zoo</title></head><body>\n"
            + "\n".join(body)
            + "\n</body></html>\n",
            encoding="utf-8",
        )
    return path
