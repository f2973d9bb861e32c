"""Copy buttons on code examples that copy only the code, not prompts or output.

A reader copying a doctest wants ``import llmcalc as lc`` and the calls, not the
``>>>`` prompts and the printed results.  The button's labels come from the
``sphinx`` message catalog (``locales/zh_TW/LC_MESSAGES/sphinx.po``), so they are
translated like the theme's own strings.

Why not sphinx-copybutton (0.5.2), which strips prompts too: it fails our "translated
labels" requirement.  Its labels are a table inside its JavaScript with ``zh-CN`` but no
``zh-TW`` entry, keyed by the page's ``lang``, so the zh_TW edition would show English,
and the table cannot be extended from a catalog.  It meets the offline requirement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sphinx.locale import get_translation

from .glossary_html import inline_json

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

_ = get_translation("sphinx")


def add_copy_buttons(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    # E-readers run no scripts: no buttons in the EPUB.
    if app.builder.name == "epub" or app.builder.format != "html" or 'class="highlight"' not in context.get("body", ""):
        return
    labels = {"copy": _("Copy"), "copied": _("Copied!"), "failed": _("Copy failed")}
    context["body"] += inline_json("copy-labels", labels)
    app.add_js_file("copycode.js", defer="defer")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.assets")  # its scripts, stylesheets and templates
    app.connect("html-page-context", add_copy_buttons)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
