"""Every notebook in notebooks/ runs from top to bottom and shows the figures it promises; its
executed copy in docs/notebooks/ (outputs included, for readers who run nothing) is current.

A code cell tagged ``figure`` must show exactly one image, every other cell none: a figure
that comes out blank, or a cell that shows one figure twice, fails. The kernel runs with
matplotlib's inline backend whatever ``MPLBACKEND`` the suite itself has (a headless run with
MPLBACKEND=Agg would otherwise show no image at all), and imports the checkout's pgm_models.

What a reader sees is checked in a real browser when chromium is installed (the test skips
otherwise; docs/notebook-02-in-chromium.png is such a screenshot).

To refresh docs/notebooks/ after editing a notebook, run the notebooks with
``PGM_MODELS_UPDATE_DOCS=1 python3 tasks.py test tests/test_notebooks.py``: each executed
notebook is then written there, reusing the run the test makes anyway.
"""

import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
DOCS = ROOT / "docs" / "notebooks"
UPDATE_DOCS = os.environ.get("PGM_MODELS_UPDATE_DOCS") == "1"
UPDATE_COMMAND = "PGM_MODELS_UPDATE_DOCS=1 python3 tasks.py test tests/test_notebooks.py"
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


def code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def missing_figures(notebook) -> list[str]:
    """One line per code cell whose count of PNG outputs differs from what its tag promises."""
    wrong = []
    for number, cell in enumerate(code_cells(notebook), 1):
        promised = int("figure" in cell.metadata.get("tags", []))
        shown = sum("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
        if shown != promised:
            wrong.append(
                f"code cell {number} shows {shown} image(s), its tags promise {promised}: {cell.source[:60]!r}"
            )
    return wrong


def test_there_are_notebooks_and_each_promises_figures():
    assert NOTEBOOKS
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        assert any("figure" in cell.metadata.get("tags", []) for cell in code_cells(notebook)), path.name


def test_missing_figures_counts_png_outputs_per_tagged_cell():
    png = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"})
    text = nbformat.v4.new_output("stream", text="hello\n")
    tagged = nbformat.v4.new_code_cell("plot()", metadata={"tags": ["figure"]})
    plain = nbformat.v4.new_code_cell("print('hello')")
    notebook = nbformat.v4.new_notebook(cells=[tagged, plain])
    tagged.outputs, plain.outputs = [png], [text]
    assert missing_figures(notebook) == []
    tagged.outputs = [text]  # a blank figure
    assert missing_figures(notebook) == ["code cell 1 shows 0 image(s), its tags promise 1: 'plot()'"]
    tagged.outputs, plain.outputs = [png, png], [png]  # a figure shown twice, an untagged figure
    assert len(missing_figures(notebook)) == 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_docs_copy_is_the_executed_notebook(path):
    """docs/notebooks/<name> has the notebook's cells, source for source, with its figures shown."""
    source = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in code_cells(source)), "strip outputs before committing"
    executed_path = DOCS / path.name
    assert executed_path.exists(), f"{executed_path} is missing: run {UPDATE_COMMAND}"
    executed = nbformat.read(executed_path, as_version=4)
    stale = [(a.cell_type, a.source, a.metadata.get("tags")) for a in source.cells] != [
        (b.cell_type, b.source, b.metadata.get("tags")) for b in executed.cells
    ]
    assert not stale, f"{executed_path} is stale: run {UPDATE_COMMAND}"
    assert missing_figures(executed) == []


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_and_shows_its_figures(path):
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    # The checkout's pgm_models, as for the tests (pytest's pythonpath), whatever the kernel's cwd.
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    client.execute(env={**os.environ, "MPLBACKEND": INLINE_BACKEND, "PYTHONPATH": pythonpath})
    if UPDATE_DOCS:
        DOCS.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, DOCS / path.name)
    assert missing_figures(notebook) == []


C0_BLUE = (31, 119, 180)  # matplotlib's first colour: drawn by the figures, never by the page itself


def _blue_pixels_in_chromium(notebook, folder: Path) -> int:
    """Render ``notebook`` to HTML (nbconvert), screenshot it in headless chromium, count C0-blue pixels."""
    from nbconvert import HTMLExporter
    from PIL import Image

    html, _ = HTMLExporter().from_notebook_node(notebook)
    page, shot = folder / "page.html", folder / "page.png"
    page.write_text(html, encoding="utf-8")
    subprocess.run(
        [
            shutil.which("chromium"),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            f"--screenshot={shot}",
            "--window-size=1200,7000",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pixels = np.asarray(Image.open(shot).convert("RGB"))
    return int(np.all(pixels == C0_BLUE, axis=-1).sum())


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs a chromium browser (optional manual check)")
def test_a_browser_shows_the_figures_of_the_rendered_notebook(tmp_path):
    pytest.importorskip("nbconvert")  # in the notebooks extra
    executed = nbformat.read(DOCS / "02_gaussian_discriminant_analysis.ipynb", as_version=4)
    with_figures = _blue_pixels_in_chromium(executed, tmp_path)
    for cell in code_cells(executed):  # the same page with its images left out
        cell.outputs = [output for output in cell.outputs if "image/png" not in output.get("data", {})]
    without_figures = _blue_pixels_in_chromium(executed, tmp_path)
    assert without_figures < 100 and with_figures > 1_000, (with_figures, without_figures)  # measured: 0 and 5388
