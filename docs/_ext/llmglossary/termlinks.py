"""Show under each glossary entry what it builds on and what builds on it.

A reader who lands on an entry from a search should see at a glance which earlier
entries to read first ("Builds on") and where the idea is used next ("Used by").  Both
lists come from :mod:`glossary`'s dependency graph, so they are always complete and
never hand-maintained.  The "used by" line sits in an element with class ``used-by`` so
styles and tools (the hover previews, the tests) can tell it from the definition's own
words.  The labels are translated through the ``sphinx`` message catalog, like the
theme's own strings (``locales/zh_TW/LC_MESSAGES/sphinx.po``).  The lines are links, so
every builder shows them: in print they are a reading list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.locale import get_translation

from .glossary import Entry, GlossaryGraph, add_page_view, glossary
from .glossary_html import entry_link

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

_ = get_translation("sphinx")


def _link_line(
    builder: Builder, fromdocname: str, label: str, entries: list[Entry], css_class: str
) -> nodes.paragraph:
    line = nodes.paragraph(classes=["term-relations", css_class])
    line += nodes.strong(label, label)
    # A full-width colon (the zh_TW label) carries its own space.
    line += nodes.Text("" if label.endswith("：") else " ")
    for position, entry in enumerate(entries):
        if position:
            line += nodes.Text(_(", "))
        line += entry_link(builder, fromdocname, entry)
    return line


def add_relations(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Append "Builds on" and "Used by" lines to every entry of this document."""
    store = glossary(app.env)
    # Only entries recorded under this docname get lines: most pages have none, and
    # need no walk through their whole tree.
    if app.builder.format != "html" or docname not in store.store["entries"]:
        return
    graph = store.graph()
    for item in doctree.findall(nodes.definition_list_item):
        if not isinstance(item.parent.parent, addnodes.glossary):
            continue
        term = next(iter(item.findall(nodes.term)), None)
        entry = graph.by_key.get((docname, term["ids"][0])) if term and term["ids"] else None
        definition = item.next_node(nodes.definition)
        if entry is None or definition is None:
            continue
        builds_on = graph.builds_on(entry)
        if builds_on:
            definition.append(_link_line(app.builder, docname, _("Builds on:"), builds_on, "builds-on"))
        used_by = graph.used_by.get(entry.key, [])
        if used_by:
            definition.append(_link_line(app.builder, docname, _("Used by:"), used_by, "used-by"))


def relations_shown(app: Sphinx, env: BuildEnvironment, graph: GlossaryGraph) -> dict[str, object]:
    """Per page: each entry's relation lines (names and places of the linked entries)."""
    pages: dict[str, list[object]] = {}
    for entry in graph.entries:
        lines = (
            [used.shown()[:3] for used in graph.builds_on(entry)],
            [user.shown()[:3] for user in graph.used_by.get(entry.key, [])],
        )
        pages.setdefault(entry.docname, []).append((entry.anchor, lines))
    return dict(pages)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.glossary")
    app.connect("doctree-resolved", add_relations)
    add_page_view(app, relations_shown)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
