"""Markup helpers shared by the glossary extensions (not an extension itself).

* :func:`entry_link`: a link to a glossary entry, as the relation lines and the
  all-terms page show it;
* :func:`inline_json`: data for a page's script, written into the page itself, since
  pages opened from ``file://`` may not fetch anything;
* :func:`add_stylesheet_where`: a stylesheet added only to the pages that hold a node.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from docutils import nodes

NOT_HIGHLIGHTED = "nohighlight"
"""The class Sphinx's search highlighting skips, set on every SVG ``<title>`` the extensions write.

A ``<title>`` is not drawn and has no bounding box: Sphinx's ``sphinx_highlight.js``
(9.0.4) wraps a searched word found in one and then calls its ``getBBox``, which
throws and stops the rest of the page's highlighting.  The fix for Sphinx is in
``upstream/sphinx-highlight-svg-title``; once released, the class is still right
(a tooltip has nothing to highlight).
"""

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.builders import Builder

    from .glossary import Entry


def entry_link(builder: Builder, fromdocname: str, entry: Entry) -> nodes.reference:
    """A link from ``fromdocname`` to ``entry``'s anchor, showing its first name."""
    uri = builder.get_relative_uri(fromdocname, entry.docname) + "#" + entry.anchor
    return nodes.reference("", entry.name, internal=True, refuri=uri, classes=["term-link"])


def inline_json(element_id: str, data: object) -> str:
    """A ``<script type="application/json">`` element holding ``data``.

    ``</`` is escaped (JSON allows ``<\\/``), so no string can end the element early.

    >>> inline_json("labels", {"copy": "</script>複製"})
    '<script type="application/json" id="labels">{"copy": "<\\\\/script>複製"}</script>'
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def add_stylesheet_where(app: Sphinx, node_class: type[nodes.Element], filename: str) -> None:
    """Add stylesheet ``filename`` (from the static path) to each HTML page whose doctree holds a ``node_class``."""

    def add_stylesheet(
        app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
    ) -> None:
        if doctree is not None and any(doctree.findall(node_class)):
            app.add_css_file(filename)

    app.connect("html-page-context", add_stylesheet)
