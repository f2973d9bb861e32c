"""The all-terms page: every glossary entry in reading order, and A to Z.

Readers who already know a word want to jump to it; readers starting out want the
order.  The ``glossary-index`` directive leaves a placeholder that is filled once all
documents are read (``doctree-resolved``), from :mod:`glossary`'s graph, so the page
can never fall out of step with the entries themselves.  It needs only the glossary
store: the "Builds on" lines (:mod:`termlinks`) are a separate choice.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from .glossary import Entry, GlossaryGraph, add_page_view, glossary
from .glossary_html import entry_link

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata, OptionSpec


VIEW = "glossary-index"


class glossary_index_placeholder(nodes.General, nodes.Element):
    """Stands where the index goes until every document has been read."""


class GlossaryIndexDirective(SphinxDirective):
    """``{glossary-index}`` with ``:order: reading`` (default) or ``:order: alphabetical``."""

    has_content = False
    option_spec: ClassVar[OptionSpec] = {
        "order": lambda value: directives.choice(value, ("reading", "alphabetical")),
    }

    def run(self) -> list[nodes.Node]:
        glossary(self.env).note_shows_all(self.env.docname, VIEW)
        placeholder = glossary_index_placeholder()
        placeholder["order"] = self.options.get("order", "reading")
        return [placeholder]


def _sort_key(name: str) -> str:
    return unicodedata.normalize("NFKD", name).casefold()


def _initial(name: str) -> str:
    first = _sort_key(name)[:1].upper()
    return first if first.isalpha() and first.isascii() else "#"


def _entry_list(app: Sphinx, docname: str, entries: list[Entry]) -> nodes.bullet_list:
    listing = nodes.bullet_list(classes=["glossary-index-list"])
    for entry in entries:
        listing += nodes.list_item("", nodes.paragraph("", "", entry_link(app.builder, docname, entry)))
    return listing


def _by_section(app: Sphinx, docname: str, entries: list[Entry]) -> list[nodes.Node]:
    sections: dict[str, list[Entry]] = {}
    for entry in entries:
        sections.setdefault(entry.docname, []).append(entry)
    result: list[nodes.Node] = []
    for section, members in sections.items():
        title = app.env.titles[section].astext()
        uri = app.builder.get_relative_uri(docname, section)
        heading = nodes.rubric("", "", nodes.reference("", title, internal=True, refuri=uri))
        result += [heading, _entry_list(app, docname, members)]
    return result


def _alphabetical(app: Sphinx, docname: str, entries: list[Entry]) -> list[nodes.Node]:
    groups: dict[str, list[Entry]] = {}
    for entry in sorted(entries, key=lambda entry: _sort_key(entry.name)):
        groups.setdefault(_initial(entry.name), []).append(entry)
    result: list[nodes.Node] = []
    for initial, members in sorted(groups.items()):
        result += [nodes.rubric(initial, initial), _entry_list(app, docname, members)]
    return result


def fill_indexes(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(glossary_index_placeholder))
    if not placeholders:
        return
    entries = glossary(app.env).graph().entries
    for placeholder in placeholders:
        render = _alphabetical if placeholder["order"] == "alphabetical" else _by_section
        placeholder.replace_self(
            nodes.container("", *render(app, docname, entries), classes=["glossary-index"])
        )


def index_shown(app: Sphinx, env: BuildEnvironment, graph: GlossaryGraph) -> dict[str, object]:
    """On each all-terms page: every entry's place, name and section title."""
    titles = {docname: env.titles[docname].astext() for docname in {entry.docname for entry in graph.entries}}
    listing = [(entry.shown()[:3], titles[entry.docname]) for entry in graph.entries]
    return dict.fromkeys(glossary(env).pages_showing_all(VIEW), listing)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.glossary")
    app.add_node(glossary_index_placeholder)
    app.add_directive("glossary-index", GlossaryIndexDirective)
    app.connect("doctree-resolved", fill_indexes)
    add_page_view(app, index_shown)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
