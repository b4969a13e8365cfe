"""Sphinx configuration of the pgm_models documentation (``python3 tasks.py docs`` builds it)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's package, also when it is not installed

import pgm_models

project = "pgm_models"
author = "the pgm_models developers"
copyright = "the pgm_models developers, MIT licence"
version = release = pgm_models.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_nb",
    "sphinx_design",
    "sphinx_copybutton",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "false_alarm_results"]
templates_path = ["_templates"]
html_static_path = ["_static"]

# The notebooks in docs/notebooks/ are executed copies (tests/test_notebooks.py refreshes them):
# the site shows their stored outputs and never runs NUTS.
nb_execution_mode = "off"
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
autodoc_default_options = {"member-order": "bysource"}
numpydoc_show_class_members = False  # the class template lists the members once
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

# No inventories are downloaded: the build works offline, and external names are plain links.
intersphinx_mapping = {}

html_theme = "pydata_sphinx_theme"
html_title = f"pgm_models {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_context = {"default_mode": "light"}
html_show_sourcelink = False


def _skip_metadata_routing(app, what, name, obj, skip, options):
    """scikit-learn's metadata-routing methods (``set_fit_request``, ...) are generated on every
    estimator and cross-reference scikit-learn's own pages: they are documented there."""
    if name == "get_metadata_routing" or (name.startswith("set_") and name.endswith("_request")):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_routing)
