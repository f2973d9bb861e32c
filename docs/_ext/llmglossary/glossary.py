"""The glossary store: every entry, the terms its definition links, and their graph.

Every other glossary extension reads this one store: :mod:`termorder` (the reading-order
check), :mod:`termlinks` ("Builds on" / "Used by"), :mod:`termindex` (the all-terms
page), :mod:`termpreviews` (hover previews) and :mod:`conceptmap`.  Entries are keyed by
their anchor (``docname``, node id): anchors are derived from the English source text,
so they are the same in every language even when the visible term is translated.

**Why a Domain, not an EnvironmentCollector.**  Both are public Sphinx APIs with purge
and merge hooks.  A :class:`~sphinx.domains.Domain` also owns its data: it lives in
``env.domaindata["glossary"]``, typed here as :class:`GlossaryData`, is discarded
automatically when :attr:`GlossaryDomain.data_version` changes, and is filled by
``process_doc``, which Sphinx calls after the translation transforms (so a translated
build records translated names and summaries).  A collector has a hook for updated
documents, but its data would be ad-hoc attributes on the environment, untyped and
unversioned, which is what this module replaces.  The one hook a Domain lacks,
``env-get-updated``, is a single handler here (:func:`rewritten_documents`).

**Invalidation composes.**  A page must be rewritten when the glossary data it *shows*
changes, even if its source did not.  Each consumer says what it shows by connecting
to the ``glossary-page-data`` event (:func:`add_page_view`): given the graph, it returns
``{docname: data shown on that page}``.  After an incremental read the store
fingerprints every page's combined data and rewrites the pages whose fingerprint
changed, so a new consumer cannot leave stale pages behind as long as it registers.

The graph is built once per build, on first use after reading, and dropped whenever
the records change.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict, cast

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain

from .readertext import opening, plain_text

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

PAGE_DATA_EVENT = "glossary-page-data"

EntryKey = tuple[str, str]
"""(docname, anchor id of the entry's first term)."""


class EntryRecord(TypedDict):
    """What is stored for one glossary entry (picklable, mergeable)."""

    ids: list[str]
    names: list[str]
    line: int
    uses: list[tuple[str, int]]
    summary: str


class GlossaryData(TypedDict):
    """``env.domaindata["glossary"]``."""

    version: int
    entries: dict[str, list[EntryRecord]]
    """docname -> the document's entries, in document order."""
    linked: dict[str, list[str]]
    """docname -> every term target (lower-cased) the document links, anywhere."""
    shows_all: dict[str, list[str]]
    """docname -> the views that show the whole glossary on that page (index, map)."""
    fingerprints: dict[str, str]
    """docname -> digest of the glossary data the page showed when last written."""


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

    def shown(self) -> tuple[str, str, str, str]:
        """What a page shows of an entry it links: where it is, its name, its summary."""
        return (self.docname, self.anchor, self.name, self.record["summary"])


@dataclass
class GlossaryGraph:
    """The glossary's entries in reading order with their resolved "uses" edges."""

    entries: list[Entry]
    by_key: dict[EntryKey, Entry]
    targets: dict[str, tuple[str, str]]
    """Every glossary term Sphinx knows: lower-cased term text -> (docname, anchor)."""
    by_anchor: dict[tuple[str, str], Entry]
    uses: dict[EntryKey, list[tuple[Entry, int]]] = field(default_factory=dict)
    used_by: dict[EntryKey, list[Entry]] = field(default_factory=dict)

    def resolve(self, target: str) -> Entry | None:
        """The entry a (lower-cased) term reference points to, or None if unknown."""
        return self.by_anchor.get(self.targets.get(target, ("", "")))

    def builds_on(self, entry: Entry) -> list[Entry]:
        """The distinct entries ``entry``'s definition links, in the order it links them."""
        distinct: list[Entry] = []
        for used, _line in self.uses[entry.key]:
            if used not in distinct:
                distinct.append(used)
        return distinct


def reading_order(env: BuildEnvironment, docnames: Iterable[str]) -> list[str]:
    """Documents in the order a reader meets them: depth-first through the toctrees.

    ``docnames`` outside every toctree (Sphinx warns about those itself) come last.
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
    order.extend(sorted(set(docnames) - seen))
    return order


def term_references(node: nodes.Node) -> Iterable[addnodes.pending_xref]:
    """Every unresolved ``{term}`` reference below ``node``."""
    for xref in node.findall(addnodes.pending_xref):
        if xref.get("refdomain") == "std" and xref.get("reftype") == "term":
            yield xref


def _opening_paragraph(definition: nodes.definition) -> str:
    """What a preview shows of a definition: the opening of its first paragraph, math written out."""
    paragraph = definition.next_node(nodes.paragraph)
    return opening(plain_text(paragraph if paragraph is not None else definition))


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
    """The visible term, math written out, without the index entry Sphinx appends to the node."""
    return plain_text(term)


class _LinkLines:
    """The source line of each term link, not its paragraph's first line.

    MyST gives every role in a paragraph the paragraph's line, so a warning about the
    fifth link of a long paragraph would point at its first line.  The role's text in
    backticks is found in the source, searching forward from the paragraph's line and
    past the links already placed; when it is not there (a link split over two lines,
    or a translated page whose text is not in the English source) the paragraph's line stays.
    """

    def __init__(self, source: str) -> None:
        try:
            self.text = Path(source).read_text(encoding="utf-8")
        except (OSError, TypeError):
            self.text = ""
        self.line_starts = [0, *(i + 1 for i, char in enumerate(self.text) if char == "\n")]
        self.cursor: dict[int, int] = {}

    def line_of(self, xref: addnodes.pending_xref, paragraph_line: int) -> int:
        quoted = re.search(r"`[^`]+`", xref.rawsource)
        if not quoted or not self.text or not 0 < paragraph_line <= len(self.line_starts):
            return paragraph_line
        start = self.cursor.get(paragraph_line, self.line_starts[paragraph_line - 1])
        found = self.text.find(quoted.group(), start)
        if found < 0:
            return paragraph_line
        self.cursor[paragraph_line] = found + len(quoted.group())
        return bisect.bisect_right(self.line_starts, found)


def entry_records(document: nodes.document) -> list[EntryRecord]:
    """The glossary entries of one document and the terms their definitions link."""
    records: list[EntryRecord] = []
    link_lines = _LinkLines(document.get("source", ""))
    for glossary in document.findall(addnodes.glossary):
        for item in glossary.findall(nodes.definition_list_item):
            terms = [term for term in item.children if isinstance(term, nodes.term)]
            definitions = [d for d in item.children if isinstance(d, nodes.definition)]
            if not terms or not definitions:
                continue
            line = _entry_line(terms, definitions[0])
            uses = [
                (xref["reftarget"].lower(), link_lines.line_of(xref, xref.line or line))
                for definition in definitions
                for xref in term_references(definition)
            ]
            records.append(
                EntryRecord(
                    ids=[term["ids"][0] for term in terms if term["ids"]],
                    names=[_term_text(term) for term in terms],
                    line=line,
                    uses=uses,
                    summary=_opening_paragraph(definitions[0]),
                )
            )
    return records


class GlossaryDomain(Domain):
    """The glossary's records, purged, merged and versioned by Sphinx (see the module)."""

    name = "glossary"
    label = "Glossary"
    initial_data: ClassVar[dict[str, Any]] = {"entries": {}, "linked": {}, "shows_all": {}, "fingerprints": {}}
    data_version = 3

    def __init__(self, env: BuildEnvironment) -> None:
        super().__init__(env)
        self._graph: GlossaryGraph | None = None
        self.records_changed = False
        """Set when a document is purged (re-read or removed) during this build."""

    @property
    def store(self) -> GlossaryData:
        return cast("GlossaryData", self.data)

    def process_doc(self, env: BuildEnvironment, docname: str, document: nodes.document) -> None:
        records = entry_records(document)
        if records:
            self.store["entries"][docname] = records
        linked = sorted({xref["reftarget"].lower() for xref in term_references(document)})
        if linked:
            self.store["linked"][docname] = linked
        self._graph = None

    def clear_doc(self, docname: str) -> None:
        # Sphinx purges every document it is about to re-read and every removed one.
        self.records_changed = True
        for key in ("entries", "linked", "shows_all"):
            self.data[key].pop(docname, None)
        self._graph = None

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        for key in ("entries", "linked", "shows_all"):
            for docname in docnames:
                if docname in otherdata[key]:
                    self.data[key][docname] = otherdata[key][docname]
        self._graph = None

    def note_shows_all(self, docname: str, view: str) -> None:
        """Record that ``docname`` shows the whole glossary through ``view``."""
        views = self.store["shows_all"].setdefault(docname, [])
        if view not in views:
            views.append(view)

    def pages_showing_all(self, view: str) -> list[str]:
        return sorted(doc for doc, views in self.store["shows_all"].items() if view in views)

    def graph(self) -> GlossaryGraph:
        """The entries in reading order with resolved edges: built once, then reused."""
        if self._graph is None:
            self._graph = self._build_graph()
        return self._graph

    def _build_graph(self) -> GlossaryGraph:
        records = self.store["entries"]
        entries: list[Entry] = []
        for docname in reading_order(self.env, records):
            for record in records.get(docname, []):
                entries.append(Entry(docname, len(entries), record))
        # Sphinx's own registry of glossary terms, through the public object inventory:
        # in a translated build it holds both the English and the translated names.
        targets = {
            name.lower(): (docname, anchor)
            for name, _display, kind, docname, anchor, _priority in self.env.domains.standard_domain.get_objects()
            if kind == "term"
        }
        graph = GlossaryGraph(
            entries,
            by_key={entry.key: entry for entry in entries},
            targets=targets,
            by_anchor={(entry.docname, anchor): entry for entry in entries for anchor in entry.record["ids"]},
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


def glossary(env: BuildEnvironment) -> GlossaryDomain:
    """The build's glossary store."""
    return cast("GlossaryDomain", env.domains["glossary"])


PageView = Callable[["Sphinx", "BuildEnvironment", GlossaryGraph], dict[str, object]]


def add_page_view(app: Sphinx, view: PageView) -> None:
    """Register what a consumer shows of the glossary on each page (see the module)."""
    app.connect(PAGE_DATA_EVENT, view)


def rewritten_documents(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Documents not re-read whose output shows glossary data that changed."""
    store = glossary(env)
    if not store.records_changed:
        return []
    store.records_changed = False
    graph = store.graph()
    pages: dict[str, list[object]] = {}
    for shown in app.events.emit(PAGE_DATA_EVENT, env, graph):
        for docname, data in shown.items():
            pages.setdefault(docname, []).append(data)
    fingerprints = {docname: hashlib.sha256(repr(data).encode()).hexdigest() for docname, data in sorted(pages.items())}
    previous = store.store["fingerprints"]
    store.store["fingerprints"] = fingerprints
    changed = {doc for doc, digest in fingerprints.items() if previous.get(doc) != digest}
    changed |= set(previous) - set(fingerprints)
    return sorted(doc for doc in changed if doc in env.all_docs)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_domain(GlossaryDomain)
    app.add_event(PAGE_DATA_EVENT)
    app.connect("env-get-updated", rewritten_documents)
    return {
        "version": "2.0",
        "env_version": 1,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
