"""Hover and focus previews of glossary terms, in the page's language, offline.

Pointing at (or tabbing to) a link to a glossary entry shows the opening of that
entry's definition, so a reader can check a word without leaving the paragraph.  The
previews are written into each page at build time, only for the entries that page
links, as a JSON block that ``termpreviews.js`` reads: nothing is fetched, so it
works from ``file://``, a zip or an e-reader.  The text comes from
:mod:`termorder`'s records, which hold the translated definition in a translated build.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from termorder import glossary_graph

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


# Cross-reference links, as Sphinx's HTML writer renders them (not the ¶ header links).
REFERENCE_HREF = re.compile(r'<a class="reference internal[^"]*" href="([^"]+)"')


def previews_for_page(app: Sphinx, pagename: str, body: str) -> dict[str, dict[str, str]]:
    """href as written in this page -> {name, summary} for every linked glossary entry."""
    linked = set(REFERENCE_HREF.findall(body))
    previews = {}
    for entry in glossary_graph(app.env).entries:
        href = app.builder.get_relative_uri(pagename, entry.docname) + "#" + entry.anchor
        if href in linked:
            previews[href] = {"name": entry.name, "summary": entry.record["summary"]}
    return previews


def add_previews(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    # E-readers run no scripts, and the JSON could break EPUB's strict XHTML.
    if app.builder.format != "html" or app.builder.name == "epub" or "body" not in context:
        return
    previews = previews_for_page(app, pagename, context["body"])
    if not previews:
        return
    # "</" could end the script element early; JSON allows the escaped form.
    data = json.dumps(previews, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    context["body"] += f'<script type="application/json" id="term-previews">{data}</script>'
    app.add_js_file("termpreviews.js", defer="defer")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("termorder")
    app.connect("html-page-context", add_previews)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
