"""The built search page finds every glossary entry by its name, first, with a snippet (issue 26).

Every glossary header of the built pages (read from the HTML, so entries added since
are measured too) is searched for in the real search page, in headless Chromium, from
``file://``: its English name in the English edition, its Chinese name and its English
name in the zh_TW edition.  The rank of the defining entry among the results is
recorded; the goal is at least 98 % first and 100 % in the first three, per language,
each of the first three hits with a snippet.  The misses are printed (``pytest -s``)
and named in the failure.  All queries of a language run in one page session, through
the search page's own ``Search._parseQuery`` and ``Search._performSearch``.
"""

from __future__ import annotations

import csv
import functools
import re
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag

from browser import PageLog, page_per_key
from builtsite import built_pages, text_without
from llmglossary.readertext import mathml_text
from make_dist import zip_site

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "_build" / "html"
TOP1_GOAL = 0.98
TOP3_GOAL = 1.0
TRANSLATED_HEADER = re.compile(r"(?P<english>.+?)\s*（(?P<translated>.+)）")

pytestmark = [pytest.mark.site, pytest.mark.browser]

Tab = Callable[[str], tuple[Any, PageLog]]
"""The module's page for a language: ``tab("en")`` is the same logged page at every call."""

FINISHED = "document.addEventListener('glossary-search-finished', () => { window.searchFinished = true; });"


@pytest.fixture(scope="module")
def tab() -> Iterator[Tab]:
    """One page (one browser context) per language for the whole module.

    A new context and its first load cost several times a load in an open page, and every
    test here reads the search page without changing what it shows (a query in the
    address is a new load).  So each language's tests go to their search page in the
    same tab, and that tab's log, asserted empty by every test, holds all it ever did.
    """

    def say_when_finished(_language: str, page: Any, _log: PageLog) -> None:
        # Every document the tab loads says when the search page has shown its results.
        page.add_init_script(FINISHED)

    with page_per_key(on_open=say_when_finished) as for_language:
        yield for_language


@dataclass(frozen=True)
class Header:
    """One glossary header (``dt``) of a built page and the entry it belongs to."""

    page: str
    text: str
    places: tuple[str, ...]
    """``page#id`` of every header of its entry: a hit on any of them finds the entry."""
    definition: str
    """The text of the entry's first paragraph, as the page shows it."""


def reader_text(node: Tag) -> str:
    """A page's text with each formula written out as derived texts write it (2^30), not flattened (230)."""
    return "".join(
        mathml_text(str(child)) if isinstance(child, Tag) and child.name == "math"
        else reader_text(child) if isinstance(child, Tag)
        else str(child)
        for child in node.children
    )


def built_headers(site: Path, pattern: str = "*.html") -> list[Header]:
    """Every glossary header of the built site's pages matching ``pattern``, with its entry's anchors."""
    headers: list[Header] = []
    # The built editions are parsed once per run (tests/builtsite.py); any other copy here.
    pages = (
        built_pages(site.name, pattern)
        if site.parent == BUILD
        else {
            path.stem: BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
            for path in sorted(site.glob(pattern))
        }
    )
    for page, soup in pages.items():
        for glossary in soup.select("dl.glossary"):
            entry: list[tuple[str, str]] = []
            for child in glossary.find_all(["dt", "dd"], recursive=False):
                if child.name == "dt":
                    entry.append((text_without(child, "a.headerlink").strip(), f"{page}#{child['id']}"))
                elif entry:
                    places = tuple(place for _text, place in entry)
                    paragraph = child.find("p") or child
                    definition = " ".join(reader_text(paragraph).split())
                    headers += [Header(page, text, places, definition) for text, _place in entry]
                    entry = []
    return headers


def queries(language: str, headers: list[Header]) -> dict[str, list[tuple[str, Header]]]:
    """Kind of name -> (query, header): English names in English; Chinese and English names in zh_TW."""
    if language == "en":
        return {"English names": [(header.text, header) for header in headers]}
    cases: dict[str, list[tuple[str, Header]]] = {"Chinese names": [], "English names": []}
    for header in headers:
        parts = TRANSLATED_HEADER.fullmatch(header.text)
        assert parts, f"zh_TW header {header.text!r} is not 'English（中文）'"
        cases["Chinese names"].append((parts["translated"], header))
        cases["English names"].append((parts["english"], header))
    return cases


RANK_SCRIPT = """
async (cases) => {
  const found = cases.map(([query, places]) => {
    const [text, searchTerms, excluded, highlight, objectTerms] = Search._parseQuery(query);
    const results = Search._performSearch(text, searchTerms, excluded, highlight, objectTerms).reverse();
    const terms = [...new Set([...highlight, ...searchTerms])];
    return { query, terms, top: results.slice(0, 3), count: results.length,
             rank: results.findIndex((result) => places.includes(result[0] + result[2])) + 1 };
  });
  await GlossarySearch.loadPages(found.flatMap((item) => item.top));
  return found.map(({ query, terms, top, count, rank }) => ({
    query, rank, count,
    first: top.length ? top[0][0] + top[0][2] + " " + top[0][1] : "",
    snippets: top.map((result) => GlossarySearch.snippetOf(result, terms)),
  }));
}
"""


def squeezed(text: str) -> str:
    return "".join(text.split())


@dataclass
class Measure:
    ranks: list[tuple[str, int, str]]
    missing_snippets: list[str]
    first_snippets: list[str]
    """The snippet of each query's first hit."""

    def share(self, best: int) -> float:
        return sum(1 for _q, rank, _f in self.ranks if 0 < rank <= best) / len(self.ranks)

    def misses(self) -> list[str]:
        return [f"{query!r}: rank {rank or 'none'} (first: {first})" for query, rank, first in self.ranks if rank != 1]


def measure(
    tab: Tab, language: str, site: Path, cases: list[tuple[str, tuple[str, ...]]]
) -> tuple[Measure, list[str], list[str]]:
    """Rank every query in one page session of ``site``'s search page (loaded unless the tab shows it)."""
    page, log = tab(language)
    search = (site / "search.html").as_uri()
    # The ranking calls the search functions directly: any search page of the site serves,
    # whatever query its address held, since a search changes only what the page shows.
    if page.url.split("?")[0] != search:
        page.goto(search)
    page.wait_for_function("typeof Search !== 'undefined' && Search.hasIndex()")
    found = page.evaluate(RANK_SCRIPT, [[query, list(places)] for query, places in cases])
    result = Measure(
        ranks=[(item["query"], item["rank"], item["first"]) for item in found],
        missing_snippets=[item["query"] for item in found if not all(item["snippets"])],
        first_snippets=[item["snippets"][0] if item["snippets"] else "" for item in found],
    )
    return result, list(log.errors), list(log.requests)


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_every_glossary_header_finds_its_entry_first(tab: Tab, language: str) -> None:
    site = BUILD / language
    assert (site / "search.html").exists(), "run `make html` first"
    headers = built_headers(site)
    assert len(headers) > 300, "the built pages have no glossary headers"
    reports, failures = [], []
    for kind, asked in queries(language, headers).items():
        result, errors, requests = measure(tab, language, site, [(query, header.places) for query, header in asked])
        assert errors == [] and requests == []
        assert result.missing_snippets == [], f"hits without a snippet for {result.missing_snippets}"
        # An entry found first shows the opening of its definition, as its page shows it.
        wrong = [
            (query, snippet)
            for (query, header), (_q, rank, _f), snippet in zip(asked, result.ranks, result.first_snippets, strict=True)
            if rank == 1 and not (snippet and squeezed(header.definition).startswith(squeezed(snippet)))
        ]
        assert wrong == [], "snippets that are not the opening of the entry's definition"
        top1, top3 = result.share(1), result.share(3)
        reports.append(
            f"{language}, {kind}: {len(asked)} queries, top-1 {top1:.2%}, top-3 {top3:.2%}; misses: {result.misses()}"
        )
        if top1 < TOP1_GOAL or top3 < TOP3_GOAL:
            failures.append(reports[-1])
    print(*reports, sep="\n", file=sys.stderr)
    assert failures == []


ACRONYMS = [
    ("en", "KV", "term-KV-cache"),
    ("en", "kv cache", "term-KV-cache"),
    ("en", "key-value cache", "term-KV-cache"),
    ("en", "MoE", "term-MoE"),
    ("en", "mixture of experts", "term-MoE"),
    ("en", "LoRA", "term-LoRA"),
    ("en", "low rank adaptation", "term-LoRA"),
    ("en", "micro-batch", "term-Micro-batch"),
    ("en", "micro batch", "term-Micro-batch"),
    ("en", "microbatch", "term-Micro-batch"),
    ("en", "Micro-batches", "term-Micro-batch"),
    ("en", "GPUS", "term-GPU"),
    ("en", "floating point numbers", "term-Floating-point-number"),
    ("en", "FLOPS", "term-FLOPS"),
    ("en", "flop", "term-FLOP"),
    ("zh_TW", "混合專家", "term-MoE"),
    ("zh_TW", "MoE", "term-MoE"),
    ("zh_TW", "KV", "term-KV-cache"),
    ("zh_TW", "鍵值快取", "term-KV-cache"),
    ("zh_TW", "KV快取", "term-KV-cache"),
    ("zh_TW", "LoRA", "term-LoRA"),
    ("zh_TW", "低秩適應", "term-LoRA"),
    ("zh_TW", "大 O 符號", "term-Big-O-notation"),
    ("zh_TW", "大O符號", "term-Big-O-notation"),
    ("zh_TW", "floating-point number", "term-Floating-point-number"),
    # Words readers arrived with (issue 42): mainland and colloquial words for a term (search
    # rows of the terminology table), British spellings, "-ing" forms, a qualifier before a name.
    ("zh_TW", "斷詞", "term-Tokenizer"),
    ("zh_TW", "分詞器", "term-Tokenizer"),
    ("zh_TW", "分詞", "term-Tokenizer"),
    ("zh_TW", "提示注入", "term-Prompt-injection"),
    ("zh_TW", "推論速度", "term-TPS"),
    ("zh_TW", "顯存", "term-VRAM"),
    ("zh_TW", "投機解碼", "term-Speculative-decoding"),
    ("zh_TW", "KV 緩存", "term-KV-cache"),
    ("en", "KV caching", "term-KV-cache"),
    ("en", "quantisation", "term-Quantization"),
    ("en", "normalisation", "term-Normalization"),
    ("en", "bf16 mixed precision", "term-Mixed-precision"),
    ("en", "tokenisation", "term-Tokenizer"),
    ("en", "tokenization", "term-Tokenizer"),
    ("en", "data contamination", "term-Data-leakage"),
    ("zh_TW", "tokenisation", "term-Tokenizer"),
]


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_acronyms_aliases_and_spelling_variants_reach_their_entry_first(tab: Tab, language: str) -> None:
    cases = [(query, anchor) for lang, query, anchor in ACRONYMS if lang == language]
    site = BUILD / language
    places = {header.places[0].split("#")[1]: header.places for header in built_headers(site)}
    result, errors, requests = measure(tab, language, site, [(query, places[anchor]) for query, anchor in cases])
    assert result.misses() == [] and result.missing_snippets == []
    assert errors == [] and requests == []


# Memory questions a reader asks before any term: the planner page answers them.
PLANNER_QUESTIONS = {
    "en": ["VRAM", "70B", "OOM", "out of memory", "how much memory", "how much VRAM for a 70B model", "VRAM 70B"],
    "zh_TW": ["VRAM", "70B", "OOM", "記憶體不足", "70B VRAM"],
}

PAGE_HITS_SCRIPT = """
(queries) => queries.map((query) => {
  const [text, searchTerms, excluded, highlight, objectTerms] = Search._parseQuery(query);
  const results = Search._performSearch(text, searchTerms, excluded, highlight, objectTerms).reverse();
  return results.filter((result) => result[6] !== SearchResultKind.object).map((result) => result[0]);
})
"""


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_memory_questions_list_the_planner_page_first_among_pages(tab: Tab, language: str) -> None:
    """"how much VRAM for a 70B model", "VRAM 70B" and "70B" listed no page 19 (the reader's R-9)."""
    site = BUILD / language
    page, log = tab(language)
    page.goto((site / "search.html").as_uri())
    page.wait_for_function("typeof Search !== 'undefined' && Search.hasIndex()")
    questions = PLANNER_QUESTIONS[language]
    found = page.evaluate(PAGE_HITS_SCRIPT, questions)
    wrong = {query: pages[:3] for query, pages in zip(questions, found, strict=True) if pages[:1] != ["19-will-it-fit"]}
    assert wrong == {}, f"the planner page is not the first page hit for {wrong}"
    assert log.errors == [] and log.requests == []


def shown_results(
    tab: Tab, language: str, site: Path, query: str
) -> tuple[list[dict[str, str]], list[str], list[str]]:
    """The result list the search page shows for ``query``, once it says it is finished: a real load, as a reader's."""
    page, log = tab(language)
    page.goto(f"{(site / 'search.html').as_uri()}?q={query}")
    page.wait_for_function("window.searchFinished === true")
    shown = page.eval_on_selector_all(
        "#search-results ul.search > li",
        """items => items.map((item) => ({
            href: item.querySelector('a').getAttribute('href'),
            snippet: (item.querySelector('p.glossary-search-snippet') || {}).textContent || '',
        }))""",
    )
    return shown, list(log.errors), list(log.requests)


@pytest.mark.parametrize(
    ("language", "query"), [("en", "KV cache"), ("en", "gradient"), ("zh_TW", "浮點數"), ("zh_TW", "梯度")]
)
def test_search_page_shows_the_entry_first_and_a_snippet_under_every_hit(
    tab: Tab, language: str, query: str
) -> None:
    shown, errors, requests = shown_results(tab, language, BUILD / language, query)
    assert len(shown) > 1
    assert shown[0]["href"].split("#")[1].startswith("term-"), shown[0]
    assert [item["href"] for item in shown if not item["snippet"].strip()] == []
    assert errors == [] and requests == []


@pytest.mark.parametrize(("language", "query"), [("en", "KV"), ("zh_TW", "鍵值快取")])
def test_search_works_from_the_unpacked_zip_bundle(tab: Tab, tmp_path: Path, language: str, query: str) -> None:
    # The site as `make dist` bundles it, unpacked where a reader would unpack it.
    archive = tmp_path / "site.zip"
    zip_site(BUILD / language, archive)
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(tmp_path / "unpacked")
    site = tmp_path / "unpacked"
    shown, errors, requests = shown_results(tab, language, site, query)
    assert shown[0]["href"] == "05-the-transformer.html#term-KV-cache"
    # The entry as the unpacked page defines it: that page alone is parsed (the others are not read).
    headers = built_headers(site, "05-the-transformer.html")
    kv_cache = next(header for header in headers if header.places[0].endswith("#term-KV-cache"))
    assert squeezed(kv_cache.definition).startswith(squeezed(shown[0]["snippet"]))
    assert shown[0]["snippet"].endswith((".", "。"))
    assert all(item["snippet"] for item in shown)
    assert errors == [] and requests == []


def search_aliases() -> dict[str, str]:
    """Alias -> English term, from the terminology table's search rows (link_text ``search``)."""
    with (REPO / "locales" / "zh_TW" / "terminology.tsv").open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {row["zh_TW"]: row["english"] for row in rows if row["link_text"] == "search"}


@functools.cache
def segmenters() -> tuple[Any, Any]:
    """jieba as the zh_TW index runs it (the glossary's words added) and as it runs on a reader's text (its own)."""
    import jieba

    from llmglossary.zhsearch import terminology_words

    own, site = jieba.Tokenizer(), jieba.Tokenizer()
    for word in terminology_words(REPO / "locales" / "zh_TW" / "terminology.tsv"):
        site.add_word(word)
    return own, site


def running_text_pieces(text: str) -> set[str]:
    """The words ``text`` is cut into as running text, by either segmenter."""
    return {piece for segmenter in segmenters() for piece in segmenter.lcut(text)}


HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,}")


def test_every_chinese_name_and_alias_finds_its_entry_first_and_each_piece_of_it_finds_something(tab: Tab) -> None:
    """Whole, each reaches its entry first; cut as jieba cuts running text, no piece of two Han characters
    or more gives an empty result page (the index holds the words as jieba cut them, so 斷詞 was 做斷 + 詞)."""
    site = BUILD / "zh_TW"
    headers = built_headers(site)
    by_english: dict[str, tuple[str, ...]] = {}
    names: list[tuple[str, tuple[str, ...]]] = []
    for header in headers:
        parts = TRANSLATED_HEADER.fullmatch(header.text)
        assert parts, header.text
        by_english[parts["english"].lower()] = header.places
        names.append((parts["translated"], header.places))
    aliases = [(alias, by_english[term.lower()]) for alias, term in search_aliases().items()]
    assert len(aliases) >= 30
    whole = [(name, places) for name, places in names + aliases if HAN_RUN.search(name)]
    result, errors, requests = measure(tab, "zh_TW", site, whole)
    assert result.share(1) == 1.0, result.misses()
    pieces = sorted(
        {piece for name, _places in whole for piece in running_text_pieces(name) if HAN_RUN.fullmatch(piece)}
        - {name for name, _places in whole}
    )
    assert len(pieces) > 100
    page, _log = tab("zh_TW")
    counts = page.evaluate(
        """(queries) => queries.map((query) => {
            const [text, searchTerms, excluded, highlight, objectTerms] = Search._parseQuery(query);
            return Search._performSearch(text, searchTerms, excluded, highlight, objectTerms).length;
        })""",
        pieces,
    )
    empty = [piece for piece, count in zip(pieces, counts, strict=True) if count == 0]
    print(f"zh_TW: {len(whole)} names and aliases, {len(pieces)} pieces, {len(empty)} empty", file=sys.stderr)
    assert empty == [], f"{len(empty)} of {len(pieces)} pieces give no result: {empty[:20]}"
    assert errors == [] and requests == []


def test_chinese_text_jieba_cut_otherwise_still_finds_the_entry_and_the_page(tab: Tab) -> None:
    """A word inside an entry's opening that the index holds cut otherwise, and a page title's words."""
    site = BUILD / "zh_TW"
    page, _log = tab("zh_TW")
    page.goto((site / "search.html").as_uri())
    page.wait_for_function("typeof Search !== 'undefined' && Search.hasIndex()")
    found = page.evaluate(
        """(queries) => queries.map((query) => {
            const [text, searchTerms, excluded, highlight, objectTerms] = Search._parseQuery(query);
            return Search._performSearch(text, searchTerms, excluded, highlight, objectTerms).map((r) => r[0] + r[2]);
        })""",
        ["裝得下", "裝得下嗎"],
    )
    assert all(any(place.startswith("19-will-it-fit") for place in places) for places in found), found
