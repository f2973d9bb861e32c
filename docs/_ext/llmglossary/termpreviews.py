"""Hover and focus previews of glossary terms, in the page's language, offline.

Pointing at (or tabbing to) a link to a glossary entry shows the opening of that
entry's definition, so a reader can check a word without leaving the paragraph.  The
previews are written into each page at build time, only for the entries that page
links, as a JSON block that ``termpreviews.js`` reads: nothing is fetched, so it
works from ``file://`` or a zip.

Which entries a page links is read from the document tree, not from its HTML: the
:mod:`glossary` store records every ``{term}`` reference of each document when it is
read, and the store's records hold the translated definition in a translated build.
E-readers and the other builders run no script, so they get the plain links alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .glossary import GlossaryGraph, add_page_view, glossary
from .glossary_html import inline_json

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

# Builders whose pages run termpreviews.js: one output page per document (singlehtml
# joins every document into one page, where the per-page block would not fit).
PREVIEW_BUILDERS = ("html", "dirhtml")


def previews_for_page(app: Sphinx, pagename: str) -> dict[str, dict[str, str]]:
    """href as written in this page -> {name, summary} for every glossary entry it links."""
    store = glossary(app.env)
    graph = store.graph()
    previews = {}
    for target in store.store["linked"].get(pagename, []):
        entry = graph.resolve(target)
        if entry is not None:
            href = app.builder.get_relative_uri(pagename, entry.docname) + "#" + entry.anchor
            previews[href] = {"name": entry.name, "summary": entry.record["summary"]}
    return previews


def add_previews(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if app.builder.name not in PREVIEW_BUILDERS or "body" not in context:
        return
    previews = previews_for_page(app, pagename)
    if previews:
        context["body"] += inline_json("term-previews", previews)
        app.add_js_file("termpreviews.js", defer="defer")


def previews_shown(app: Sphinx, env: BuildEnvironment, graph: GlossaryGraph) -> dict[str, object]:
    """Per page: the place, name and summary of every entry it links."""
    pages: dict[str, object] = {}
    for docname, targets in glossary(env).store["linked"].items():
        linked = (graph.resolve(target) for target in targets)
        pages[docname] = sorted(entry.shown() for entry in linked if entry is not None)
    return pages


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.assets")  # its scripts, stylesheets and templates
    app.setup_extension("llmglossary.glossary")
    app.connect("html-page-context", add_previews)
    add_page_view(app, previews_shown)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
