"""Prove that every glossary definition uses only terms defined before it.

This glossary is meant to be read top to bottom: pages in toctree order, entries in
page order.  That promise is only worth something if the build checks it, so this
extension records every ``glossary`` entry and every ``{term}`` reference made inside a
definition, and after reading warns (an error under ``-W``) about each definition that
links a term defined later in reading order.

The records are also the glossary's dependency graph, which :mod:`termlinks` (the
"builds on" / "used by" lines under each entry) and :mod:`termindex` (the all-terms
page) render.  Entries are keyed by their anchor (``docname``, node id): anchors are
derived from the English source text, so they are the same in every language even
when the visible term is translated.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

EntryKey = tuple[str, str]
"""(docname, anchor id of the entry's first term)."""


class EntryRecord(TypedDict):
    """What is stored in the environment for one glossary entry (picklable, mergeable)."""

    ids: list[str]
    names: list[str]
    line: int
    uses: list[tuple[str, int]]
    summary: str


@dataclass
class Entry:
    """One glossary entry placed in reading order."""

    docname: str
    rank: int
    record: EntryRecord

    @property
    def key(self) -> EntryKey:
        return (self.docname, self.record["ids"][0])

    @property
    def name(self) -> str:
        return self.record["names"][0]

    @property
    def anchor(self) -> str:
        return self.record["ids"][0]


@dataclass
class GlossaryGraph:
    """The glossary's entries in reading order with their resolved "uses" edges."""

    entries: list[Entry]
    by_key: dict[EntryKey, Entry]
    targets: dict[str, tuple[str, str]]
    """The standard domain's terms: lower-cased term text -> (docname, anchor)."""
    by_anchor: dict[tuple[str, str], Entry]
    uses: dict[EntryKey, list[tuple[Entry, int]]] = field(default_factory=dict)
    used_by: dict[EntryKey, list[Entry]] = field(default_factory=dict)

    def resolve(self, target: str) -> Entry | None:
        """The entry a (lower-cased) term reference points to, or None if unknown."""
        return self.by_anchor.get(self.targets.get(target, ("", "")))


def reading_order(env: BuildEnvironment) -> list[str]:
    """Documents in the order a reader meets them: depth-first through the toctrees.

    Documents outside every toctree (Sphinx warns about those itself) come last.
    """
    order: list[str] = []
    seen: set[str] = set()
    pending = [env.config.root_doc]
    while pending:
        docname = pending.pop()
        if docname in seen:
            continue
        seen.add(docname)
        order.append(docname)
        pending.extend(reversed(env.toctree_includes.get(docname, [])))
    order.extend(sorted(set(_entries(env)) - seen))
    return order


def glossary_graph(env: BuildEnvironment) -> GlossaryGraph:
    """Place every recorded entry in reading order and resolve its term references."""
    records = _entries(env)
    entries: list[Entry] = []
    for docname in reading_order(env):
        for record in records.get(docname, []):
            entries.append(Entry(docname, len(entries), record))
    by_anchor = {
        (entry.docname, anchor): entry for entry in entries for anchor in entry.record["ids"]
    }
    graph = GlossaryGraph(
        entries,
        by_key={entry.key: entry for entry in entries},
        targets=env.domains.standard_domain._terms,
        by_anchor=by_anchor,
    )
    for entry in entries:
        resolved: list[tuple[Entry, int]] = []
        for target, line in entry.record["uses"]:
            used = graph.resolve(target)
            # Unknown terms are reported by Sphinx itself (nitpicky mode).
            if used is not None and used is not entry:
                resolved.append((used, line))
        graph.uses[entry.key] = resolved
        for used, _line in resolved:
            users = graph.used_by.setdefault(used.key, [])
            if entry not in users:
                users.append(entry)
    return graph


def forward_references(graph: GlossaryGraph) -> Iterable[tuple[Entry, Entry, int]]:
    """Yield (entry, later entry it uses, line of the reference)."""
    for entry in graph.entries:
        for used, line in graph.uses[entry.key]:
            if used.rank > entry.rank:
                yield entry, used, line


def _entries(env: BuildEnvironment) -> dict[str, list[EntryRecord]]:
    if not hasattr(env, "glossary_entries"):
        env.glossary_entries = {}
    return env.glossary_entries


def _first_sentences(text: str, limit: int = 240) -> str:
    """The opening of a definition, cut at a sentence end near ``limit`` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    for end in (". ", "。", "? ", "! "):
        cut = text.find(end, 40, limit)
        if cut != -1:
            return text[: cut + len(end)].strip()
    return text[:limit].rstrip() + "…"


def collect_entries(app: Sphinx, doctree: nodes.document) -> None:
    """Record the document's glossary entries and the terms their definitions link."""
    records: list[EntryRecord] = []
    for glossary in doctree.findall(addnodes.glossary):
        for item in glossary.findall(nodes.definition_list_item):
            terms = [term for term in item.children if isinstance(term, nodes.term)]
            definitions = [d for d in item.children if isinstance(d, nodes.definition)]
            if not terms or not definitions:
                continue
            line = _entry_line(terms, definitions[0])
            uses = [
                (xref["reftarget"].lower(), xref.line or line)
                for definition in definitions
                for xref in _term_references(definition)
            ]
            records.append(
                EntryRecord(
                    ids=[term["ids"][0] for term in terms if term["ids"]],
                    names=[_term_text(term) for term in terms],
                    line=line,
                    uses=uses,
                    summary=_first_sentences(_opening_paragraph(definitions[0])),
                )
            )
    if records:
        _entries(app.env)[app.env.docname] = records
    linked = sorted({xref["reftarget"].lower() for xref in _term_references(doctree)})
    if linked:
        _linked_terms(app.env)[app.env.docname] = linked


def _term_references(node: nodes.Node) -> Iterable[addnodes.pending_xref]:
    """Every unresolved ``{term}`` reference below ``node``."""
    for xref in node.findall(addnodes.pending_xref):
        if xref.get("refdomain") == "std" and xref.get("reftype") == "term":
            yield xref


def _opening_paragraph(definition: nodes.definition) -> str:
    paragraph = definition.next_node(nodes.paragraph)
    return paragraph.astext() if paragraph is not None else definition.astext()


def _entry_line(terms: list[nodes.term], definition: nodes.definition) -> int:
    """The source line of the entry's first term.

    The glossary directive numbers terms by their offset in its content (relative to
    the directive under MyST), while nodes parsed inside the definition carry real
    source lines.  The definition starts on the line after the last term, which fixes
    the offset between the two.
    """
    first_term = terms[0].line or 0
    inner = next((node.line for node in definition.findall(nodes.Element) if node.line), None)
    if inner is None:
        return first_term
    return inner - ((terms[-1].line or 0) + 1) + first_term


def _term_text(term: nodes.term) -> str:
    """The visible term, without the index entry Sphinx appends to the node."""
    return "".join(
        child.astext() for child in term.children if not isinstance(child, addnodes.index)
    )


def check_order(app: Sphinx, env: BuildEnvironment) -> None:
    """Warn about every definition that links a term defined later."""
    graph = glossary_graph(env)
    for entry, used, line in forward_references(graph):
        defined_at = f"{env.doc2path(used.docname, False)}:{used.record['line']}"
        logger.warning(
            "glossary entry %r uses term %r, which is defined later in reading order "
            "(at %s); define %r first or drop the link",
            entry.name,
            used.name,
            defined_at,
            used.name,
            location=(entry.docname, line),
            type="glossary",
            subtype="forward_reference",
        )


def dependent_documents(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Documents not re-read whose output shows glossary data that changed.

    A page shows data from other pages' entries: its entries' "builds on" and "used
    by" links, and the name and opening sentences of every entry it links (the hover
    previews).  The all-terms page and the concept map show the whole glossary.  After
    an incremental read, each page's share of that data is compared with what it was
    at the last build; only pages whose share changed are rewritten.
    """
    if not getattr(env, "glossary_reread", False):
        return []
    env.glossary_reread = False
    graph = glossary_graph(env)
    signatures = _page_signatures(env, graph)
    previous = getattr(env, "glossary_signatures", {})
    env.glossary_signatures = signatures
    return sorted(doc for doc, signature in signatures.items() if previous.get(doc) != signature)


def _page_signatures(env: BuildEnvironment, graph: GlossaryGraph) -> dict[str, str]:
    def shown(entry: Entry) -> tuple[str, str, str, str]:
        return (entry.docname, entry.anchor, entry.name, entry.record["summary"])

    pages: dict[str, list[object]] = {}
    for docname, targets in _linked_terms(env).items():
        linked = (graph.resolve(target) for target in targets)
        pages.setdefault(docname, []).append(sorted(shown(entry) for entry in linked if entry))
    for entry in graph.entries:
        relations = [
            [shown(used) for used, _line in graph.uses[entry.key]],
            [shown(user) for user in graph.used_by.get(entry.key, [])],
        ]
        pages.setdefault(entry.docname, []).append((entry.anchor, relations))
    whole = [
        (entry.docname, env.titles[entry.docname].astext(), shown(entry),
         [used.key for used, _line in graph.uses[entry.key]])
        for entry in graph.entries
    ]
    for docname in _dependent_pages(env):
        pages.setdefault(docname, []).append(whole)
    return {docname: hashlib.sha256(repr(data).encode()).hexdigest() for docname, data in pages.items()}


def _linked_terms(env: BuildEnvironment) -> dict[str, list[str]]:
    """docname -> every term target the document links, anywhere on the page."""
    if not hasattr(env, "glossary_linked_terms"):
        env.glossary_linked_terms = {}
    return env.glossary_linked_terms


def _dependent_pages(env: BuildEnvironment) -> set[str]:
    if not hasattr(env, "glossary_dependent_pages"):
        env.glossary_dependent_pages = set()
    return env.glossary_dependent_pages


def note_dependent_page(env: BuildEnvironment, docname: str) -> None:
    """Mark ``docname`` as showing the whole glossary (rewritten whenever it changes)."""
    _dependent_pages(env).add(docname)


def purge_document(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    # Sphinx purges every document it is about to re-read and every removed one, so
    # this is also where a build learns that dependent pages need rewriting.
    env.glossary_reread = True
    _entries(env).pop(docname, None)
    _linked_terms(env).pop(docname, None)
    _dependent_pages(env).discard(docname)


def merge_from_worker(
    app: Sphinx, env: BuildEnvironment, docnames: Iterable[str], other: BuildEnvironment
) -> None:
    for docname in docnames:
        if docname in _entries(other):
            _entries(env)[docname] = _entries(other)[docname]
        if docname in _linked_terms(other):
            _linked_terms(env)[docname] = _linked_terms(other)[docname]
        if docname in _dependent_pages(other):
            _dependent_pages(env).add(docname)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("env-purge-doc", purge_document)
    app.connect("env-merge-info", merge_from_worker)
    app.connect("doctree-read", collect_entries)
    app.connect("env-get-updated", dependent_documents)
    app.connect("env-check-consistency", check_order)
    return {
        "version": "1.1",
        "env_version": 2,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
