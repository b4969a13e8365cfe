"""The documentation site (docs/, ``python3 tasks.py docs``): it builds with warnings as errors, and
its pages render in a browser.

``PGM_MODELS_UPDATE_DOCS=1`` copies the browser's screenshots into docs/_static/screenshots/.
"""

import html
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sphinx", reason="the docs extra is not installed (pip install -e .[docs])")
for _extension in ("pydata_sphinx_theme", "numpydoc", "myst_nb", "sphinx_design", "sphinx_copybutton"):
    pytest.importorskip(_extension, reason=f"{_extension} is not installed (pip install -e .[docs])")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOTS = ROOT / "docs" / "_static" / "screenshots"

# page, what its <title> starts with, whether it must show a figure
PAGES = [
    ("index.html", "pgm_models", False),
    ("generated/pgm_models.CategoricalNB.html", "CategoricalNB", False),
    ("notebooks/02_gaussian_discriminant_analysis.html", "Gaussian naive Bayes, LDA and QDA", True),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built as ``python3 tasks.py docs`` builds it: (html folder, sphinx-build's result)."""
    out = tmp_path_factory.mktemp("docs")
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        "-d",
        str(out / "doctrees"),
        str(ROOT / "docs"),
        str(out / "html"),
    ]
    result = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=900)
    return out / "html", result


def test_docs_build_without_warnings(site):
    html_dir, result = site
    assert result.returncode == 0, f"sphinx-build -W failed:\n{result.stderr[-5000:]}"
    assert "WARNING" not in result.stderr and "ERROR" not in result.stderr, result.stderr[-5000:]
    import pgm_models

    api = (html_dir / "api.html").read_text()
    undocumented = [name for name in pgm_models.__all__ if name not in api]
    assert not undocumented, f"public names missing from the API reference: {undocumented}"
    for name in pgm_models.__all__:
        if name != "ESTIMATORS":
            assert (html_dir / "generated" / f"pgm_models.{name}.html").is_file(), name
    notebooks = sorted(p.stem for p in (ROOT / "docs" / "notebooks").glob("*.ipynb"))
    assert notebooks and all((html_dir / "notebooks" / f"{n}.html").is_file() for n in notebooks)


def _title(page: Path) -> str:
    match = re.search(r"<title>(.*?)</title>", page.read_text(), re.DOTALL)
    return html.unescape(match.group(1)).strip() if match else ""


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize(("page", "title", "has_figure"), PAGES)
def test_page_renders_in_chromium(site, tmp_path, page, title, has_figure):
    html_dir, result = site
    assert result.returncode == 0, "the site did not build"
    path = html_dir / page
    assert _title(path).startswith(title), _title(path)
    if has_figure:
        assert "<img" in path.read_text(), f"{page} shows no figure"

    screenshot = tmp_path / (Path(page).stem + ".png")
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={screenshot}",
        "--window-size=1280,900",
        path.as_uri(),
    ]
    subprocess.run(command, check=False, capture_output=True, timeout=180)
    assert screenshot.is_file() and screenshot.stat().st_size > 0, "chromium wrote no screenshot"
    assert _png_size(screenshot.read_bytes()) == (1280, 900)
    from matplotlib.image import imread

    pixels = imread(screenshot)[..., :3]
    # a page that failed to render (blank, or the browser's error page) is nearly one colour
    assert np.unique(pixels.reshape(-1, 3), axis=0).shape[0] > 50
    if os.environ.get("PGM_MODELS_UPDATE_DOCS"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(screenshot, SCREENSHOTS / screenshot.name)
