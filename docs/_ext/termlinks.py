"""Show under each glossary entry what it builds on and what builds on it.

A reader who lands on an entry from a search should see at a glance which earlier
entries to read first ("Builds on") and where the idea is used next ("Used by").  Both
lists come from :mod:`termorder`'s dependency graph, so they are always complete and
never hand-maintained.  The "used by" line sits in an element with class ``used-by`` so
styles and tools (the hover previews, the tests) can tell it from the definition's own
words.  The labels are translated through the ``sphinx`` message catalog, like the
theme's own strings (``locales/zh_TW/LC_MESSAGES/sphinx.po``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.locale import get_translation

from termorder import Entry, glossary_graph

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

_ = get_translation("sphinx")


def entry_link(app: Sphinx, fromdocname: str, entry: Entry) -> nodes.reference:
    """A link from ``fromdocname`` to ``entry``'s anchor, showing its first name."""
    uri = app.builder.get_relative_uri(fromdocname, entry.docname) + "#" + entry.anchor
    return nodes.reference("", entry.name, internal=True, refuri=uri, classes=["term-link"])


def _link_line(
    app: Sphinx, fromdocname: str, label: str, entries: list[Entry], css_class: str
) -> nodes.paragraph:
    line = nodes.paragraph(classes=["term-relations", css_class])
    line += nodes.strong(label, label)
    line += nodes.Text(" ")
    for position, entry in enumerate(entries):
        if position:
            line += nodes.Text(_(", "))
        line += entry_link(app, fromdocname, entry)
    return line


def add_relations(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Append "Builds on" and "Used by" lines to every entry of this document."""
    if app.builder.format != "html":
        return
    graph = glossary_graph(app.env)
    for item in doctree.findall(nodes.definition_list_item):
        if not isinstance(item.parent.parent, addnodes.glossary):
            continue
        term = next(iter(item.findall(nodes.term)), None)
        entry = graph.by_key.get((docname, term["ids"][0])) if term and term["ids"] else None
        if entry is None:
            continue
        definition = item.next_node(nodes.definition)
        builds_on: list[Entry] = []
        for used, _line in graph.uses[entry.key]:
            if used not in builds_on:
                builds_on.append(used)
        if builds_on:
            definition += _link_line(app, docname, _("Builds on:"), builds_on, "builds-on")
        used_by = graph.used_by.get(entry.key, [])
        if used_by:
            definition += _link_line(app, docname, _("Used by:"), used_by, "used-by")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("termorder")
    app.connect("doctree-resolved", add_relations)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
