"""The package's own files: its scripts and stylesheets (``static/``) and its templates (``templates/``).

Exists so that the package works in any Sphinx project that lists ``"llmglossary"`` in
``extensions``, with nothing in that project's ``conf.py`` or folders: every feature
that adds a script or stylesheet to its pages sets this extension up, which puts
:data:`STATIC` on ``html_static_path`` (the public setting Sphinx copies into
``_static``, as sphinx-design and sphinx-copybutton add theirs), and every template is
read from :data:`TEMPLATES`.  Both are folders of the installed package, not of a
checkout.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata

STATIC = Path(__file__).resolve().parent / "static"
"""The scripts and stylesheets the features add to their pages, copied into each HTML build's ``_static``."""
TEMPLATES = Path(__file__).resolve().parent / "templates"
"""The calculators' Jinja templates and the search page's scorer and stylesheet."""


def add_static_folder(app: Sphinx, config: Config) -> None:
    """Put the package's :data:`STATIC` folder on ``html_static_path``, after the project's own folders."""
    if str(STATIC) not in config.html_static_path:
        config.html_static_path = [*config.html_static_path, str(STATIC)]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("config-inited", add_static_folder)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
