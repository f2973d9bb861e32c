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
  entry in reading order that starts with it); :confval:`glossary_search_aliases`; and
  in a translated build the terminology table's search rows (``link_text`` ``search``:
  a mainland or colloquial word such as 顯存 for VRAM).
  Every object points at its entry's anchor.
* The ranking is the search page's scorer (``html_search_scorer``,
  the package's ``templates/glossarysearch-scorer.js``), which Sphinx puts in
  ``language_data.js``.  It extends ``searchtools.js``'s ``Search._performSearch``
  (not documented API: checked per Sphinx release, :data:`SEARCHTOOLS_VERSIONS`),
  keeps Sphinx's results and adds the glossary's, one hit per entry: a query
  matches a name case-insensitively, ignoring spaces, hyphens and other separators,
  and plural endings ("micro-batches", "micro batch" and "microbatch" all find
  "Micro-batch"), and every glossary match ranks above every page hit.
* Snippets come from scripts, loaded with ``<script>`` elements like ``searchindex.js``
  (nothing is fetched): ``_static/glossarysearch-data.js`` holds the opening of
  each entry's definition (as its hover preview shows it), and ``_static/glossarysearch/<docname>.js`` the text of one
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
import json
import re
import unicodedata
from collections.abc import Callable, Iterator, Set
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict, cast

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain, ObjType
from sphinx.locale import _
from sphinx.util import docname_join, logging

from .assets import TEMPLATES
from .glossary import Entry, GlossaryGraph, glossary
from .readertext import plain_text, skipped_in_search
from .terminology import search_aliases, terminology, terminology_path
from .workarounds import REGISTRY

if TYPE_CHECKING:
    from sphinx.addnodes import pending_xref
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

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
_PASSAGE_NODES = (nodes.paragraph, nodes.title, nodes.term, nodes.rubric, nodes.caption, addnodes.desc_signature)


class Passages(TypedDict):
    """The searchable text of one document: its passages, and where each section starts."""

    texts: list[str]
    sections: dict[str, int]
    """Section id -> index of the section's first passage."""


class SearchData(TypedDict):
    """``env.domaindata["glossarysearch"]``."""

    version: int
    passages: dict[str, Passages]
    keywords: dict[str, list[str]]
    """Docname -> the words its ``keywords`` meta names (a page's front matter ``html_meta``)."""


def match_key(text: str) -> str:
    """A name as the scorer compares it: case, width and every separator ignored.

    The scorer's ``matchKey`` in ``glossarysearch-scorer.js`` does the same.

    >>> match_key("Micro-batch"), match_key("micro batch"), match_key("KV 快取")
    ('microbatch', 'microbatch', 'kv快取')
    """
    return "".join(re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())).replace("_", "")


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
def bibliography(paths: tuple[str, ...], style: str) -> dict[str, str]:
    """BibTeX key -> the label the pages show for it ("Jurafsky and Martin, 2026"), for every entry of ``paths``.

    The label the references page gives it: ``style`` (the build's ``bibtex_default_style``,
    whose labels are :mod:`.citationlabels`') sorts and labels every entry, as
    sphinxcontrib-bibtex does for the references page, which lists them all.
    """
    import pybtex.plugin
    from pybtex.database import parse_file  # sphinxcontrib-bibtex's own BibTeX parser

    formatting = pybtex.plugin.find_plugin("pybtex.style.formatting", style)()
    entries = list(formatting.sort([entry for path in paths for entry in parse_file(path).entries.values()]))
    return {entry.key: label for entry, label in zip(entries, formatting.format_labels(entries), strict=True)}


def citation_labels(config: Any) -> Callable[[nodes.Node], str | None]:
    """What a citation shows once resolved (its label on the references page), for :func:`.readertext.plain_text`.

    Passages are read before sphinxcontrib-bibtex resolves a ``{cite:p}`` reference, when
    its text is still the BibTeX key: a snippet would show ``radford2019language``.
    """
    files = tuple(config.glossary_search_bibfiles)
    labels = bibliography(files, config.bibtex_default_style) if files else {}

    def shown_as(node: nodes.Node) -> str | None:
        if isinstance(node, addnodes.pending_xref) and node.get("refdomain") == "cite":
            keys = [key.strip() for key in node["reftarget"].split(",")]
            return "; ".join(labels.get(key, key) for key in keys)
        return None

    return shown_as


_TITLE_OF = re.compile("\ufff9(?P<docname>[^\ufffa]*)\ufffa")
"""Where a passage shows another page's title: its docname between two interlinear annotation marks."""


def title_placeholders(node: nodes.Node) -> str | None:
    """A ``{doc}`` reference without text of its own, as a placeholder for the page's title.

    When a page is read, such a reference still shows the docname (``01-what-an-llm-does``),
    and the page it names may not be read yet; :func:`page_passages` puts the title in.
    """
    if isinstance(node, addnodes.pending_xref) and node.get("reftype") == "doc" and not node.get("refexplicit"):
        return f"\ufff9{docname_join(node['refdoc'], node['reftarget'])}\ufffa"
    return None


def with_titles(text: str, titles: dict[str, str]) -> str:
    """``text`` with each title placeholder replaced by the page's title (its docname if it has none)."""
    return _TITLE_OF.sub(lambda match: titles.get(match["docname"], match["docname"]), text)


def document_passages(document: nodes.Node, shown_as: Callable[[nodes.Node], str | None] | None = None) -> Passages:
    """The paragraphs, titles, terms and signatures of a document, as plain text, in order.

    What Sphinx's search skips (comments, raw markup, ``no-search``) is skipped too, and
    so is code: a snippet quotes prose.
    """
    passages = Passages(texts=[], sections={})

    def visit(node: nodes.Node) -> None:
        if skipped_in_search(node):
            return
        if isinstance(node, nodes.section) and node["ids"]:
            passages["sections"].setdefault(node["ids"][0], len(passages["texts"]))
        if isinstance(node, _PASSAGE_NODES):
            text = plain_text(node, shown_as)
            if text and text not in passages["texts"][-1:]:
                passages["texts"].append(text)
            return
        for child in node.children:
            visit(child)

    visit(document)
    return passages


def page_keywords(document: nodes.Node) -> list[str]:
    """The words of a page's ``keywords`` meta (MyST front matter ``html_meta``), comma-separated as Sphinx reads them.

    Sphinx's index counts them as words of the page's text, so a page that answers a
    reader's question ("VRAM", "OOM") still ranks with every page that merely mentions them;
    the scorer ranks a page whose keyword the query names above those.
    """
    return [
        word.strip()
        for meta in document.findall(nodes.meta)
        if meta.get("name") == "keywords"
        for word in meta["content"].split(",")
        if word.strip()
    ]


class GlossarySearchDomain(Domain):
    """The glossary's names as search objects, and every document's passages (see the module)."""

    name = "glossarysearch"
    label = "Glossary search"
    object_types: ClassVar[dict[str, ObjType]] = {
        "term": ObjType(_("glossary term"), searchprio=TERM_PRIORITY),
        "alias": ObjType(_("glossary term"), searchprio=ALIAS_PRIORITY),
    }
    initial_data: ClassVar[dict[str, Any]] = {"passages": {}, "keywords": {}}
    data_version = 6  # 5: passages hold title placeholders; 6: page keywords

    @property
    def store(self) -> SearchData:
        return cast("SearchData", self.data)

    def get_type_name(self, type: ObjType, primary: bool = False) -> str:
        return str(type.lname)  # what a search hit shows: "glossary term", not the domain's label too

    def process_doc(self, env: BuildEnvironment, docname: str, document: nodes.document) -> None:
        citation = citation_labels(env.config)

        def shown_as(node: nodes.Node) -> str | None:
            label = citation(node)
            return label if label is not None else title_placeholders(node)

        self.store["passages"][docname] = document_passages(document, shown_as)
        if keywords := page_keywords(document):
            self.store["keywords"][docname] = keywords

    def clear_doc(self, docname: str) -> None:
        self.store["passages"].pop(docname, None)
        self.store["keywords"].pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        for docname in docnames:
            for kind in ("passages", "keywords"):
                if docname in otherdata[kind]:
                    self.data[kind][docname] = otherdata[kind][docname]

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
        translated = config.language.startswith("zh") and table is not None and table.exists()
        translations = terminology(table) if table is not None and translated else {}
        # The table serves the whole site: a row for a term this build does not define is not an error
        # here (tests/test_translations.py checks every row's term against the site's terms).
        graph = glossary(self.env).graph()
        table_aliases = {
            alias: graph.resolve(term.lower())
            for alias, term in (search_aliases(table) if table is not None and translated else {}).items()
            if graph.resolve(term.lower()) is not None
        }
        aliases = {**table_aliases, **resolved_aliases(self.env, config.glossary_search_aliases)}
        return glossary_objects(graph, translations, {alias: entry for alias, entry in aliases.items() if entry})

    def get_objects(self) -> Iterator[tuple[str, str, str, str, str, int]]:
        for item in self.objects():
            kind = "term" if item["priority"] == TERM_PRIORITY else "alias"
            entry = item["entry"]
            yield item["name"], item["name"], kind, entry.docname, entry.anchor, item["priority"]


def resolved_aliases(env: BuildEnvironment, aliases: dict[str, str]) -> dict[str, Entry]:
    """Each alias of :confval:`glossary_search_aliases` resolved to its entry; a term that is not one is an error."""
    graph = glossary(env).graph()
    resolved = {}
    for alias, term in aliases.items():
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
    """What the search page's scorer needs beside the index: entries' titles and openings.

    An entry's ``sentence`` is the opening its hover preview shows (:func:`.readertext.opening`).
    ``pageFiles`` lists the documents whose passages are in :data:`PAGES_FOLDER`, and
    ``keywords`` each page's search keywords (:func:`page_keywords`).
    """
    graph = glossary(env).graph()
    entries = {
        f"{entry.docname}#{entry.anchor}": {
            "names": list(dict.fromkeys(entry.record["names"])),
            "sentence": entry.record["summary"],
            "order": entry.rank,
        }
        for entry in graph.entries
    }
    return {
        "entries": entries,
        "messages": search_page_messages(),
        "pages": {},
        "pageFiles": sorted(page_passages(env)),
        "keywords": dict(sorted(cast("GlossarySearchDomain", env.domains["glossarysearch"]).store["keywords"].items())),
        "snippetLength": env.config.glossary_search_snippet_length,
    }


SEARCH_PAGE_MESSAGES = (
    "Your search did not match any documents. Please make sure that all words are spelled correctly "
    "and that you've selected enough categories.",
    "command",
)
"""Messages of ``searchtools.js`` (and the kind sphinx-argparse gives its objects) that the
search page shows as the build's catalogs translate them (``locales/*/LC_MESSAGES/sphinx.po``)."""
RESULT_COUNT = (
    "Search finished, found one page matching the search query.",
    "Search finished, found ${resultCount} pages matching the search query.",
)
"""``searchtools.js``'s result count, singular and plural.  Sphinx 9.0.4's zh_TW catalog leaves
it empty; the site's catalog translates each form as a message of its own (the catalogs hold
no plural entries), and the scorer puts them where ``Documentation.ngettext`` looks."""


def search_page_messages() -> dict[str, object]:
    """msgid -> its translation, in the form ``Documentation.TRANSLATIONS`` holds (the scorer adds them)."""
    messages: dict[str, object] = {message: str(_(message)) for message in SEARCH_PAGE_MESSAGES}
    singular, plural = RESULT_COUNT
    messages[singular] = {"one": str(_(singular)), "other": str(_(plural))}
    return messages


def page_passages(env: BuildEnvironment) -> dict[str, Passages]:
    """docname -> passages, for every document of the build that has any.

    A page that shows the whole glossary (the all-terms page, the concept map) is
    filled when it is written, so what it read holds little: each entry's names are
    added as a passage, as the page lists them.
    """
    store = cast("GlossarySearchDomain", env.domains["glossarysearch"])
    store_of_entries = glossary(env)
    listed = [" / ".join(dict.fromkeys(entry.record["names"])) for entry in store_of_entries.graph().entries]
    titles = {docname: plain_text(title) for docname, title in env.titles.items()}
    pages = {}
    for docname, read in sorted(store.store["passages"].items()):
        if docname not in env.found_docs:
            continue
        passages = Passages(texts=[with_titles(text, titles) for text in read["texts"]], sections=read["sections"])
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


def resolve_bibfiles(app: Sphinx, config: Any) -> None:
    """Citations in snippets read from sphinxcontrib-bibtex's files unless conf.py names others (absolute paths)."""
    files = config.glossary_search_bibfiles or getattr(config, "bibtex_bibfiles", None) or []
    config.glossary_search_bibfiles = [str(Path(app.confdir, file)) for file in files]


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
    app.setup_extension("llmglossary.assets")  # its scripts, stylesheets and templates
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
    app.add_config_value(
        "glossary_search_bibfiles",
        [],
        "env",
        types=frozenset({list}),
        description="BibTeX files whose entries label citations in snippets (default: bibtex_bibfiles).",
    )
    app.add_domain(GlossarySearchDomain)
    app.connect("config-inited", check_snippet_length)
    app.connect("config-inited", use_scorer)
    app.connect("config-inited", resolve_bibfiles, priority=800)
    app.connect("write-started", write_search_data)
    app.connect("html-page-context", add_search_page_files)
    return {
        "version": "1.0",
        "env_version": 1,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
