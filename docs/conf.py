"""Sphinx configuration of the wv_engine documentation.

Build: pip install ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html

wv_engine is imported as installed (its compiled modules are needed for
autodoc); this file does not put the repository on sys.path, because an
unbuilt source tree there would shadow the installed package. Nothing is
fetched from the network: no intersphinx."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ext"))

import wv_engine  # noqa: E402

project = "wv_engine"
author = "wv_engine contributors"
copyright = "wv_engine contributors, MIT licence"
version = release = wv_engine.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
    "cli_reference",  # docs/_ext/cli_reference.py: the CLI reference from wv_engine.cli.build_parser()
    "repo_links",  # docs/_ext/repo_links.py: links to repository files outside docs/ render as their path
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
# No smart quotes: "--threads" in a help text or docstring must stay two hyphens, not a dash.
smartquotes = False
# The docstrings are prose: `name` in them is code, linked where Sphinx knows the name.
default_role = "py:obj"

# ---- MyST (the Markdown pages) ----
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # #section-title links work as on GitHub

# ---- autodoc / napoleon ----
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
# No defaults (autodoc_default_options): Sphinx 9.0 lets a default "members" override a
# directive's own list, so every directive in docs/api names its members itself.
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# ---- HTML ----
html_theme = "furo"
html_title = f"wv_engine {release}"
html_static_path: list[str] = []
html_show_sourcelink = False


def setup(app):
    """napoleon only for functions, methods and classes: it reads the first
    line of an attribute's or a property's docstring as "type: description",
    and ours are prose ("Blocks on disk ... (0: in memory or none)")."""
    from sphinx.ext import napoleon

    process = getattr(napoleon, "_process_docstring", None)
    if process is None:  # a napoleon without it: leave it as it is
        return
    for listener in list(app.events.listeners.get("autodoc-process-docstring", [])):
        if listener.handler is process:
            app.disconnect(listener.id)

    def napoleon_but_not_for_attributes(app, what, name, obj, options, lines):
        if what not in ("attribute", "property", "data"):
            process(app, what, name, obj, options, lines)

    app.connect("autodoc-process-docstring", napoleon_but_not_for_attributes)
