"""Sphinx configuration of mechsim's documentation site.

Build (warnings are errors, as CI builds it):

    pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

Pages: the user guide (guide/, Markdown through MyST), the example gallery (gallery/, written at
build time from examples/ by _ext/mechsim_gallery.py), the API reference (api/, autodoc and
autosummary over what ``mechsim`` exports) and the references (references.rst).
"""
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "src"))          # the package from this tree, installed or not
sys.path.insert(0, str(DOCS / "_ext"))

import mechsim  # noqa: E402

project = "mechsim"
author = "the mechsim developers"
copyright = "mechsim developers, MIT licence"
version = release = mechsim.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "myst_parser",
    "mechsim_gallery",
    "mechsim_citations",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# --- MyST (the guide pages are Markdown, moved from the README) ---
myst_enable_extensions = ["colon_fence", "html_image"]
myst_heading_anchors = 3
# The guide's prose names repository files (`tests/...`, `../shared/SPEC.md`) as code, not links.

# --- autodoc / autosummary over the public API (mechsim.__all__, SPEC §3) ---
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"            # the docstrings say what each argument is, in words
autodoc_class_signature = "mixed"
add_module_names = False

# --- HTML ---
html_theme = "furo"
html_title = f"mechsim {release}"
html_static_path = ["_static"]          # mechsim_gallery.css: the gallery's cards
html_show_sourcelink = False

# --- gallery (mechsim_gallery): examples/ at the root of the repository ---
mechsim_examples_dir = str(ROOT / "examples")


def _unlisted_exports(app, config):
    """A warning (an error under -W) for every name ``mechsim`` exports that api/index.rst does not list."""
    from sphinx.util import logging
    listed = set(re.findall(r"^   (\w+)$", (DOCS / "api" / "index.rst").read_text(encoding="utf-8"), flags=re.M))
    for name in mechsim.__all__:
        if name not in listed:
            logging.getLogger(__name__).warning(
                f"mechsim exports {name!r}, which docs/api/index.rst does not list: add it to one of its sections")


def setup(app):
    app.connect("config-inited", _unlisted_exports)
