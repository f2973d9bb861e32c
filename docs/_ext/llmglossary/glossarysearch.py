"""Search that works like a glossary's: the entry first, with its definition, from a folder.

**Why it exists.**  Sphinx's search ranks pages by the words they contain, so typing a
glossary term put the page that defines it first for only a third of the terms, a
Chinese name like 大 O 符號 found nothing, and no hit showed any text: Sphinx fetches
its summaries with ``fetch()``, which browsers refuse for ``file://`` pages, so
``html_show_search_summary`` is off and every hit was a bare title.

**How, with Sphinx's search machinery** (no second search engine):

* :class:`GlossarySearchDomain` gives every name of every entry to the search index
  through :meth:`~sphinx.domains.Domain.get_objects`: its terms (priority 0), and the
  aliases a reader types (priority 1): in a translated build each part of a
  ``English（中文）`` header and the term's row of ``locales/zh_TW/terminology.tsv``;
  the acronym a multi-word term starts with ("KV" for "KV cache", given to the first
  entry in reading order that starts with it); and :confval:`glossary_search_aliases`.
  Every object points at its entry's anchor.
* The ranking is the search page's scorer (``html_search_scorer``,
  ``docs/_templates/glossarysearch-scorer.js``), which Sphinx puts in
  ``language_data.js``.  It extends ``searchtools.js``'s ``Search._performSearch``
  (not documented API: checked per Sphinx release, :data:`SEARCHTOOLS_VERSIONS`),
  keeps Sphinx's results and adds the glossary's, one hit per entry: a query
  matches a name case-insensitively, ignoring spaces, hyphens and other separators,
  and plural endings ("micro-batches", "micro batch" and "microbatch" all find
  "Micro-batch"), and every glossary match ranks above every page hit.
* Snippets come from scripts, loaded with ``<script>`` elements like ``searchindex.js``
  (nothing is fetched): ``_static/glossarysearch-data.js`` holds the first sentence of
  each entry's definition, and ``_static/glossarysearch/<docname>.js`` the text of one
  page's paragraphs, from which the scorer picks the passage that matches the query;
  the search page loads those only for the pages among its results.  Sphinx's own
  summaries, which it would ``fetch()``, are turned off.

The passages are recorded per document when it is read (after translation, so a
translated build shows translated text), purged and merged by Sphinx like any domain
data, so parallel and incremental builds keep working; the data files are written
from the environment before each build writes its pages, each only when it changed.
"""

from __future__ import annotations

import functools
import html
import json
import re
import unicodedata
from collections.abc import Iterator, Set
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict, cast

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain, ObjType
from sphinx.locale import _
from sphinx.util import logging

from .glossary import Entry, GlossaryGraph, glossary
from .terminology import terminology, terminology_path
from .workarounds import REGISTRY

if TYPE_CHECKING:
    from sphinx.addnodes import pending_xref
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

TEMPLATES = Path(__file__).resolve().parents[2] / "_templates"  # docs/_templates
SCORER = TEMPLATES / "glossarysearch-scorer.js"
STYLESHEET_SOURCE = TEMPLATES / "glossarysearch.css"
DATA_FILE = "glossarysearch-data.js"
PAGES_FOLDER = "glossarysearch"
"""Under ``_static``: one script per document holding its passages."""
STYLESHEET = "glossarysearch.css"

SEARCHTOOLS_VERSIONS = REGISTRY["glossarysearch-scorer"].versions
"""Sphinx releases whose ``searchtools.js`` the scorer was checked against: it extends
``Search._performSearch`` and ``Search.stopPulse`` and sorts with
``_orderResultsByScoreThenName``, which are not documented API (the scorer does nothing
where they are missing).  tests/test_workarounds.py fails when Sphinx moves."""

TERM_PRIORITY = 0
"""A term as its entry's header shows it: Sphinx's "important" objects."""
ALIAS_PRIORITY = 1
"""A name a reader may type that the header does not show as such."""

_TRANSLATED_HEADER = re.compile(r"(?P<english>.+?)\s*（(?P<translated>.+)）")
_ACRONYM = re.compile(r"[A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*")
_SENTENCE_END = re.compile(r"[。！？]|[.!?](?=\s+[\"“(\[A-Z0-9]|$)")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.", "Fig.", "No.", "al.")
_PASSAGE_NODES = (nodes.paragraph, nodes.title, nodes.term, nodes.rubric, nodes.caption, addnodes.desc_signature)
_SKIPPED_NODES = (nodes.comment, nodes.raw, nodes.literal_block, nodes.system_message, nodes.substitution_definition)


class Passages(TypedDict):
    """The searchable text of one document: its passages, and where each section starts."""

    texts: list[str]
    sections: dict[str, int]
    """Section id -> index of the section's first passage."""


class SearchData(TypedDict):
    """``env.domaindata["glossarysearch"]``."""

    version: int
    passages: dict[str, Passages]
    sentences: dict[str, dict[str, str]]
    """docname -> {entry anchor: the first sentence of its definition}."""


def match_key(text: str) -> str:
    """A name as the scorer compares it: case, width and every separator ignored.

    The scorer's ``matchKey`` in ``glossarysearch-scorer.js`` does the same.

    >>> match_key("Micro-batch"), match_key("micro batch"), match_key("KV 快取")
    ('microbatch', 'microbatch', 'kv快取')
    """
    return "".join(re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())).replace("_", "")


def first_sentence(text: str) -> str:
    """The first sentence of a definition (a whole sentence, even when it is long).

    >>> first_sentence("A float (e.g. 0.5) is a number. It has a sign.")
    'A float (e.g. 0.5) is a number.'
    >>> first_sentence("詞元是單位。它通常不是單字。")
    '詞元是單位。'
    >>> first_sentence("No end")
    'No end'
    """
    text = " ".join(text.split())
    for found in _SENTENCE_END.finditer(text):
        end = found.end()
        if not any(text[:end].endswith(abbreviation) for abbreviation in _ABBREVIATIONS):
            return text[:end]
    return text


def split_header(name: str) -> tuple[str, str] | None:
    """``English（中文）`` -> (English, 中文); None for a header that is not translated.

    >>> split_header("KV cache（KV 快取）")
    ('KV cache', 'KV 快取')
    >>> split_header("KV cache") is None
    True
    """
    found = _TRANSLATED_HEADER.fullmatch(name.strip())
    return (found["english"], found["translated"]) if found else None


def leading_acronym(name: str) -> str | None:
    """The acronym a term of several words starts with, if any.

    >>> leading_acronym("KV cache"), leading_acronym("LoRA rank"), leading_acronym("KL-divergence penalty")
    ('KV', 'LoRA', 'KL')
    >>> leading_acronym("Micro-batch"), leading_acronym("LoRA")
    (None, None)
    """
    words = re.split(r"[\s\-]+", name.strip())
    if len(words) < 2 or not _ACRONYM.fullmatch(words[0]):
        return None
    return words[0]


def entry_names(entry: Entry, translations: dict[str, str]) -> tuple[list[str], list[str]]:
    """(its headers, the other names a reader may type) of one entry, in order, without repeats.

    In a translated build a header ``English（中文）`` gives its two parts as aliases,
    and each English part its row of the terminology table.
    """
    headers = list(dict.fromkeys(entry.record["names"]))
    aliases: list[str] = []
    for header in headers:
        parts = split_header(header)
        if parts is not None:
            english, translated = parts
            aliases += [english, translated]
            if english.lower() in translations:
                aliases.append(translations[english.lower()])
    seen = {match_key(header) for header in headers}
    unique = []
    for alias in aliases:
        if match_key(alias) not in seen:
            seen.add(match_key(alias))
            unique.append(alias)
    return headers, unique


def english_names(entry: Entry) -> list[str]:
    names = []
    for header in entry.record["names"]:
        parts = split_header(header)
        names.append(parts[0] if parts else header)
    return names


class GlossaryObject(TypedDict):
    name: str
    entry: Entry
    priority: int


def glossary_objects(
    graph: GlossaryGraph, translations: dict[str, str], configured: dict[str, Entry]
) -> list[GlossaryObject]:
    """Every name of every entry as a search object, in reading order.

    An alias belongs to one entry only: one that another entry has as a term, or as an
    alias earlier in reading order, is dropped, and so is a derived or configured alias
    that any entry already has; an acronym several entries start with belongs to the
    first in reading order.
    """
    objects: list[GlossaryObject] = []
    owner: dict[str, Entry] = {}
    per_entry: list[tuple[Entry, list[str], list[str]]] = []
    for entry in graph.entries:
        headers, aliases = entry_names(entry, translations)
        per_entry.append((entry, headers, aliases))
        for name in headers:
            owner.setdefault(match_key(name), entry)
    for entry, _headers, aliases in per_entry:  # after every header: a term is never another entry's alias
        for name in aliases:
            owner.setdefault(match_key(name), entry)
    derived: list[tuple[str, Entry]] = [(alias, entry) for alias, entry in configured.items()]
    for entry in graph.entries:
        for name in english_names(entry):
            acronym = leading_acronym(name)
            if acronym is not None:
                derived.append((acronym, entry))
    extra: dict[tuple[str, str], list[str]] = {}
    for alias, entry in derived:
        if match_key(alias) not in owner:
            owner[match_key(alias)] = entry
            extra.setdefault(entry.key, []).append(alias)
    for entry, headers, aliases in per_entry:
        mine = [alias for alias in aliases if owner[match_key(alias)] is entry]
        objects += [GlossaryObject(name=name, entry=entry, priority=TERM_PRIORITY) for name in headers]
        objects += [
            GlossaryObject(name=name, entry=entry, priority=ALIAS_PRIORITY) for name in mine + extra.get(entry.key, [])
        ]
    return objects


@functools.cache
def math_text(latex: str) -> str:
    """LaTeX as the page shows it: the characters of its MathML, not its source.

    >>> math_text(r"m \\times n")
    'm×n'
    """
    from latex2mathml.converter import convert  # as mathml.py converts it for the page

    try:
        mathml = convert(latex)
    except Exception:  # latex2mathml raises many unrelated types; mathml.py reports the error
        return latex
    return html.unescape(re.sub(r"<[^>]+>", "", mathml))


def plain_text(node: nodes.Node) -> str:
    """A node's text as a reader sees it: math as its symbols, index entries left out."""
    parts: list[str] = []

    def visit(node: nodes.Node) -> None:
        if isinstance(node, (nodes.math, nodes.math_block)):
            parts.append(math_text(node.astext()))
        elif isinstance(node, nodes.Text):
            parts.append(node.astext())
        elif not isinstance(node, addnodes.index) and not _skipped(node):
            for child in node.children:
                visit(child)

    visit(node)
    return " ".join("".join(parts).split())


def definition_sentences(document: nodes.Node) -> dict[str, str]:
    """Entry anchor -> the first sentence of its definition, for every glossary entry of a document."""
    sentences = {}
    for item in document.findall(nodes.definition_list_item):
        if not isinstance(item.parent, nodes.definition_list) or not isinstance(item.parent.parent, addnodes.glossary):
            continue
        terms = [term for term in item.children if isinstance(term, nodes.term) and term["ids"]]
        definition = next((child for child in item.children if isinstance(child, nodes.definition)), None)
        if not terms or definition is None:
            continue
        paragraph = definition.next_node(nodes.paragraph)
        sentences[terms[0]["ids"][0]] = first_sentence(plain_text(paragraph if paragraph is not None else definition))
    return sentences


def _skipped(node: nodes.Node) -> bool:
    return isinstance(node, _SKIPPED_NODES) or (isinstance(node, nodes.Element) and "no-search" in node["classes"])


def document_passages(document: nodes.Node) -> Passages:
    """The paragraphs, titles, terms and signatures of a document, as plain text, in order.

    What Sphinx's search skips (comments, raw markup, ``no-search``) is skipped too, and
    so is code: a snippet quotes prose.
    """
    passages = Passages(texts=[], sections={})

    def visit(node: nodes.Node) -> None:
        if _skipped(node):
            return
        if isinstance(node, nodes.section) and node["ids"]:
            passages["sections"].setdefault(node["ids"][0], len(passages["texts"]))
        if isinstance(node, _PASSAGE_NODES):
            text = plain_text(node)
            if text and text not in passages["texts"][-1:]:
                passages["texts"].append(text)
            return
        for child in node.children:
            visit(child)

    visit(document)
    return passages


class GlossarySearchDomain(Domain):
    """The glossary's names as search objects, and every document's passages (see the module)."""

    name = "glossarysearch"
    label = "Glossary search"
    object_types: ClassVar[dict[str, ObjType]] = {
        "term": ObjType(_("glossary term"), searchprio=TERM_PRIORITY),
        "alias": ObjType(_("glossary term"), searchprio=ALIAS_PRIORITY),
    }
    initial_data: ClassVar[dict[str, Any]] = {"passages": {}, "sentences": {}}
    data_version = 2

    @property
    def store(self) -> SearchData:
        return cast("SearchData", self.data)

    def get_type_name(self, type: ObjType, primary: bool = False) -> str:
        return str(type.lname)  # what a search hit shows: "glossary term", not the domain's label too

    def process_doc(self, env: BuildEnvironment, docname: str, document: nodes.document) -> None:
        self.store["passages"][docname] = document_passages(document)
        sentences = definition_sentences(document)
        if sentences:
            self.store["sentences"][docname] = sentences

    def clear_doc(self, docname: str) -> None:
        self.store["passages"].pop(docname, None)
        self.store["sentences"].pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        for key in ("passages", "sentences"):
            for docname in docnames:
                if docname in otherdata[key]:
                    self.data[key][docname] = otherdata[key][docname]

    def resolve_any_xref(
        self,
        env: BuildEnvironment,
        fromdocname: str,
        builder: Builder,
        target: str,
        node: pending_xref,
        contnode: nodes.Element,
    ) -> list[tuple[str, nodes.reference]]:
        return []  # nothing to link: the objects only feed the search index

    def objects(self) -> list[GlossaryObject]:
        config = self.env.config
        table = terminology_path(config)
        translations = terminology(table) if config.language.startswith("zh") and table.exists() else {}
        return glossary_objects(glossary(self.env).graph(), translations, configured_aliases(self.env))

    def get_objects(self) -> Iterator[tuple[str, str, str, str, str, int]]:
        for item in self.objects():
            kind = "term" if item["priority"] == TERM_PRIORITY else "alias"
            entry = item["entry"]
            yield item["name"], item["name"], kind, entry.docname, entry.anchor, item["priority"]


def configured_aliases(env: BuildEnvironment) -> dict[str, Entry]:
    """:confval:`glossary_search_aliases`, each resolved to its entry; a term that is not one is an error."""
    graph = glossary(env).graph()
    resolved = {}
    for alias, term in env.config.glossary_search_aliases.items():
        entry = graph.resolve(str(term).lower())
        if entry is None:
            logger.warning(
                "glossary_search_aliases: %r is given for term %r, which no glossary entry defines; "
                "name one of the glossary's terms (e.g. %r)",
                alias,
                term,
                graph.entries[0].name if graph.entries else "Token",
                type="glossary",
                subtype="search_alias",
            )
            continue
        resolved[str(alias)] = entry
    return resolved


def search_data(env: BuildEnvironment) -> dict[str, object]:
    """What the search page's scorer needs beside the index: entries' titles and first sentences.

    ``pageFiles`` lists the documents whose passages are in :data:`PAGES_FOLDER`.
    """
    store = cast("GlossarySearchDomain", env.domains["glossarysearch"])
    graph = glossary(env).graph()
    entries = {
        f"{entry.docname}#{entry.anchor}": {
            "names": list(dict.fromkeys(entry.record["names"])),
            "sentence": store.store["sentences"].get(entry.docname, {}).get(entry.anchor)
            or first_sentence(entry.record["summary"]),
            "order": entry.rank,
        }
        for entry in graph.entries
    }
    return {
        "entries": entries,
        "pages": {},
        "pageFiles": sorted(page_passages(env)),
        "snippetLength": env.config.glossary_search_snippet_length,
    }


def page_passages(env: BuildEnvironment) -> dict[str, Passages]:
    """docname -> passages, for every document of the build that has any.

    A page that shows the whole glossary (the all-terms page, the concept map) is
    filled when it is written, so what it read holds little: each entry's names are
    added as a passage, as the page lists them.
    """
    store = cast("GlossarySearchDomain", env.domains["glossarysearch"])
    store_of_entries = glossary(env)
    listed = [" / ".join(dict.fromkeys(entry.record["names"])) for entry in store_of_entries.graph().entries]
    pages = {}
    for docname, passages in sorted(store.store["passages"].items()):
        if docname not in env.found_docs:
            continue
        if store_of_entries.store["shows_all"].get(docname):
            passages = Passages(texts=passages["texts"] + listed, sections=passages["sections"])
        if passages["texts"]:
            pages[docname] = passages
    return pages


def script_text(assignment: str, data: object) -> str:
    r"""``assignment = <data as JSON>;`` as a script: JSON is JavaScript once U+2028/9 are escaped.

    >>> script_text("window.x", {"a": "b\u2028"})
    'window.x = {"a":"b\\u2028"};\n'
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return f"{assignment} = " + text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + ";\n"


def write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


SEARCH_BUILDERS = ("html", "dirhtml")
"""Builders that write a search page (singlehtml and EPUB write none)."""


def writes_search_page(builder: Builder) -> bool:
    return builder.name in SEARCH_BUILDERS and bool(getattr(builder, "search", False))


def write_search_data(app: Sphinx, builder: Builder) -> None:
    """Write the scorer's data files and the snippets' style, each only when it changed (a no-op build stays one).

    ``_static/glossarysearch-data.js`` (entries) is loaded by the search page;
    ``_static/glossarysearch/<docname>.js`` (one document's passages) by the scorer,
    with a ``<script>`` element, only for the pages among the results shown: all the
    passages of the site would weigh more than the rest of the search page.
    """
    if not writes_search_page(builder):
        return
    static = Path(app.outdir) / "_static"
    write_if_changed(static / STYLESHEET, STYLESHEET_SOURCE.read_text(encoding="utf-8"))
    write_if_changed(static / DATA_FILE, script_text("window.GlossarySearchData", search_data(app.env)))
    folder = static / PAGES_FOLDER
    files = {
        folder / f"{docname}.js": script_text(f"GlossarySearchData.pages[{json.dumps(docname)}]", passages)
        for docname, passages in page_passages(app.env).items()
    }
    for stale in set(folder.rglob("*.js")) - set(files) if folder.exists() else ():
        stale.unlink()
    for path, text in files.items():
        write_if_changed(path, text)


def add_search_page_files(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """The search page alone loads the snippets and their style."""
    if pagename == "search" and writes_search_page(app.builder):
        app.add_js_file(DATA_FILE)
        app.add_css_file(STYLESHEET)


def use_scorer(app: Sphinx, config: Any) -> None:
    """Make ours the search page's scorer, unless conf.py names one (Sphinx reads it from the working directory).

    Its snippets replace Sphinx's summaries, which Sphinx would ``fetch()`` from each
    page: refused from ``file://``, and a second text under each hit elsewhere.
    """
    if not config.html_search_scorer:
        config.html_search_scorer = str(SCORER)
        config.html_show_search_summary = False


def check_snippet_length(app: Sphinx, config: Any) -> None:
    length = config.glossary_search_snippet_length
    if not isinstance(length, int) or isinstance(length, bool) or not 80 <= length <= 1000:
        msg = f"glossary_search_snippet_length must be an integer from 80 to 1000 characters, not {length!r}"
        raise ValueError(msg)
    aliases = config.glossary_search_aliases
    if not isinstance(aliases, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in aliases.items()):
        msg = f"glossary_search_aliases must map alias strings to glossary term strings, not {aliases!r}"
        raise ValueError(msg)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.glossary")
    app.setup_extension("llmglossary.terminology")
    app.add_config_value(
        "glossary_search_snippet_length",
        240,
        "html",
        types=frozenset({int}),
        description="Characters of a page's matching passage shown under a search hit.",
    )
    app.add_config_value(
        "glossary_search_aliases",
        {},
        "html",
        types=frozenset({dict}),
        description="Extra names the search finds a glossary entry by: {alias: term}.",
    )
    app.add_domain(GlossarySearchDomain)
    app.connect("config-inited", check_snippet_length)
    app.connect("config-inited", use_scorer)
    app.connect("write-started", write_search_data)
    app.connect("html-page-context", add_search_page_files)
    return {
        "version": "1.0",
        "env_version": 1,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
