"""Sphinx configuration of ubreg's documentation site: ``make docs``.

Built with ``sphinx-build -W --keep-going -b html docs docs/_build/html``: every
warning fails the build.  Pages are Markdown (MyST) except the API reference
(reST, autosummary + numpydoc).  The vignettes run during the build
(``_ext/ubreg_docs.py``).
"""
from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import ubreg  # noqa: E402  (the installed package: make docs installs it editable)

project = "ubreg"
author = "the ubreg authors"
copyright = "the ubreg authors; GPL-2.0-or-later"
release = ubreg.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "ubreg_docs",
    "ubreg_api",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]

# --- MyST -------------------------------------------------------------------------------
# docs/math.md, docs/tempered.md and docs/dask.md are pages of the site as they are.
# Headings get GitHub's slugs (math.html#3-likelihood-reading-...), so links written for
# the repository keep working; _ext/ubreg_docs.py adds the short "§N" anchors (#s3).
myst_heading_anchors = 3
myst_enable_extensions = ["deflist", "colon_fence"]

# --- autodoc, autosummary, numpydoc ------------------------------------------------------
# The API pages (api/pages/*.rst) are written at each build from the packages' __all__
# (_ext/ubreg_api.py); autosummary only draws their overview tables (no stub pages).
autosummary_generate = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"          # the numpydoc sections say the types
# numpydoc: no member tables of its own (autodoc's :members: documents every public method
# and property in full, and numpydoc's tables would need a stub page per member);
# parameter types stay text (no cross-
# references to pandas/numpy: the build has no network for intersphinx).
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True
# numpydoc's validation (numpydoc_validation_checks) is off: the docstrings are checked
# by what Sphinx renders (-W), not by numpydoc's style checklist (GL01, SA01, EX01, ...),
# which most of ubreg's one-line docstrings of small helpers would fail without being
# wrong.
numpydoc_validation_checks: set = set()

# Unknown cross-reference targets in text are not errors (nitpicky off): numpydoc types
# such as "array-like" or "pandas.DataFrame" are text.
nitpicky = False

# --- HTML ----------------------------------------------------------------------------------
html_theme = "alabaster"
html_title = f"ubreg {release}"
html_static_path = ["_static"]
html_css_files = ["ubreg.css"]
html_theme_options = {
    "description": "Classification by proper scoring rules and Bregman divergences",
    "page_width": "1160px",
    "sidebar_width": "250px",
    "fixed_sidebar": True,
    "show_relbars": True,
}
html_sidebars = {"**": ["about.html", "searchfield.html", "navigation.html", "relations.html"]}
html_show_sourcelink = False
