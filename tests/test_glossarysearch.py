"""docs/_ext/llmglossary/glossarysearch.py on a tiny site: the index's glossary objects, the snippet files, rebuilds.

The browser side (ranking, snippets shown) is tested on the real site by
test_search_ranking.py; here the build side is checked against the sources written below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sphinx as sphinx_package
from sphinx.errors import ExtensionError

from llmglossary.glossary import Entry, EntryRecord, GlossaryGraph
from llmglossary.glossarysearch import glossary_objects
from sphinxbuild import BuildResult, build, write_tree

CONF = """\
extensions = ["myst_parser", "llmglossary.mathml", "llmglossary.termorder", "llmglossary.glossarysearch"]
myst_enable_extensions = ["dollarmath"]
html_math_renderer = "mathml"
exclude_patterns = ["_build"]
"""

PAGES = {
    "index.md": """\
        # Home

        ```{toctree}
        first
        second
        ```
        """,
    "first.md": """\
        # First page

        ```{glossary}
        KV cache
        Key-value cache
          The keys and values kept for every token, $m \\times n$ numbers per layer, $2^{30}$ bytes at most.
          The next sentence is not shown, because with it the opening would run past the width
          that a preview and a search hit give the opening of a definition, which is two
          sentences at most and about two hundred and eighty letters.

        Token
          A piece of text that a model reads.
        ```

        A paragraph about a {term}`KV cache` and the tokens in it.

        The next page, {doc}`second`, is read after this one.
        """,
    "second.md": """\
        # Second page

        ```{glossary}
        KV head
          A head that produces keys and values for the {term}`KV cache`.

        Micro-batch
          A slice of a batch (e.g. 4 sequences). It fits in memory.
        ```
        """,
}


def site(tmp_path: Path, conf: str = CONF) -> Path:
    write_tree(tmp_path, {"conf.py": conf, **PAGES})
    return tmp_path


def index_objects(result: BuildResult) -> dict[str, tuple[str, str, int]]:
    """name -> (object type, docname#anchor, priority) of the glossary's objects in searchindex.js."""
    text = (result.outdir / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[len("Search.setIndex(") : -1])
    objects = {}
    for prefix, items in index["objects"].items():
        for doc, kind, priority, anchor, name in items:
            objtype = index["objtypes"][str(kind)]
            if objtype.startswith("glossarysearch:"):
                full = f"{prefix}.{name}" if prefix else name
                place = anchor if anchor not in ("", "-") else f"{objtype.split(':')[1]}-{full}"
                objects[full] = (objtype, f"{index['docnames'][doc]}#{place}", priority)
    return objects


def script_data(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index("=") + 1 :].strip().removesuffix(";"))


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """The tiny site, built once for the tests that only read it."""
    return build(site(tmp_path_factory.mktemp("glossarysearch")))


def test_every_name_and_the_leading_acronym_are_objects_at_their_entry(built_site: BuildResult) -> None:
    result = built_site
    assert result.warning_lines() == []
    assert index_objects(result) == {
        "KV cache": ("glossarysearch:term", "first#term-KV-cache", 0),
        "Key-value cache": ("glossarysearch:term", "first#term-KV-cache", 0),
        "Token": ("glossarysearch:term", "first#term-Token", 0),
        "KV head": ("glossarysearch:term", "second#term-KV-head", 0),
        "Micro-batch": ("glossarysearch:term", "second#term-Micro-batch", 0),
        # "KV" starts two terms: it belongs to the first in reading order.
        "KV": ("glossarysearch:alias", "first#term-KV-cache", 1),
    }


def test_snippet_files_hold_first_sentences_and_passages(built_site: BuildResult) -> None:
    result = built_site
    search = (result.outdir / "search.html").read_text(encoding="utf-8")
    assert '<script src="_static/glossarysearch-data.js' in search
    assert "glossarysearch-data.js" not in (result.outdir / "first.html").read_text(encoding="utf-8")
    data = script_data(result.outdir / "_static" / "glossarysearch-data.js")
    entries = data["entries"]
    assert isinstance(entries, dict)
    # Math written out (2^30, not the MathML's "230"); a second sentence only while the opening fits
    # (readertext.opening, as the hover preview); abbreviations kept whole.
    assert (
        entries["first#term-KV-cache"]["sentence"]
        == "The keys and values kept for every token, m × n numbers per layer, 2^30 bytes at most."
    )
    assert entries["second#term-Micro-batch"]["sentence"] == "A slice of a batch (e.g. 4 sequences). It fits in memory."
    assert entries["first#term-KV-cache"]["names"] == ["KV cache", "Key-value cache"]
    assert data["pageFiles"] == ["first", "index", "second"]
    first = script_data(result.outdir / "_static" / "glossarysearch" / "first.js")
    assert "A paragraph about a KV cache and the tokens in it." in first["texts"]
    assert first["texts"][0] == "First page"
    # A {doc} reference shows the page's title, as the rendered link does, though that page is read later.
    assert "The next page, Second page, is read after this one." in first["texts"]


def test_an_incremental_build_rewrites_only_the_changed_page_and_a_parallel_build_writes_the_same(
    tmp_path: Path,
) -> None:
    serial = build(site(tmp_path / "serial"))
    static = serial.outdir / "_static"
    untouched = (static / "glossarysearch" / "first.js").stat().st_mtime_ns
    second = tmp_path / "serial" / "second.md"
    second.write_text(second.read_text(encoding="utf-8").replace("A slice of a batch", "A part of a batch"))
    rebuilt = build(tmp_path / "serial")
    assert rebuilt.warning_lines() == []
    data = script_data(static / "glossarysearch-data.js")
    assert (
        data["entries"]["second#term-Micro-batch"]["sentence"]
        == "A part of a batch (e.g. 4 sequences). It fits in memory."
    )
    assert (
        "A part of a batch (e.g. 4 sequences). It fits in memory."
        in script_data(static / "glossarysearch" / "second.js")["texts"]
    )
    assert (static / "glossarysearch" / "first.js").stat().st_mtime_ns == untouched

    parallel = build(site(tmp_path / "parallel"), parallel=2)
    (tmp_path / "parallel" / "second.md").write_text(second.read_text(encoding="utf-8"))
    parallel = build(tmp_path / "parallel", parallel=2)
    for name in ("glossarysearch-data.js", "glossarysearch/first.js", "glossarysearch/second.js"):
        assert (parallel.outdir / "_static" / name).read_bytes() == (static / name).read_bytes(), name


def test_configured_aliases_are_objects_and_an_unknown_term_is_named(tmp_path: Path) -> None:
    conf = CONF + 'glossary_search_aliases = {"KVC": "KV cache", "Batchlet": "Nanobatch"}\n'
    result = build(site(tmp_path, conf))
    assert index_objects(result)["KVC"] == ("glossarysearch:alias", "first#term-KV-cache", 1)
    assert "Batchlet" not in index_objects(result)
    assert "glossary_search_aliases: 'Batchlet' is given for term 'Nanobatch'" in result.warnings


@pytest.mark.parametrize("length", [5, 79, 1001])
def test_a_snippet_length_out_of_range_is_an_error_naming_it(tmp_path: Path, length: object) -> None:
    with pytest.raises(ExtensionError, match=f"from 80 to 1000 characters, not {length!r}"):
        build(site(tmp_path), overrides={"glossary_search_snippet_length": length})


@pytest.mark.browser
@pytest.mark.parametrize(
    ("builder", "search_page", "first"),
    [("html", "search.html", "first.html#term-KV-cache"), ("dirhtml", "search/index.html", "../first/#term-KV-cache")],
)
def test_the_search_page_of_each_builder_shows_the_entry_first_with_its_snippet(
    tmp_path: Path, builder: str, search_page: str, first: str
) -> None:
    from browser import browser_page

    result = build(site(tmp_path), builder=builder)
    with browser_page() as (page, log):
        page.add_init_script("document.addEventListener('glossary-search-finished', () => { window.done = true; });")
        page.goto((result.outdir / search_page).as_uri() + "?q=kv")
        page.wait_for_function("window.done === true")
        shown = page.eval_on_selector_all(
            "ul.search > li",
            "items => items.map((item) => [item.querySelector('a').getAttribute('href'),"
            " (item.querySelector('p.glossary-search-snippet') || {}).textContent])",
        )
    assert shown[0] == [first, "The keys and values kept for every token, m × n numbers per layer, 2^30 bytes at most."]
    assert all(snippet for _href, snippet in shown) and len(shown) == 4
    assert log.errors == [] and log.requests == []


def test_translated_headers_give_both_parts_and_an_alias_never_takes_another_entrys_term() -> None:

    from llmglossary.glossary import Entry

    def entry(rank: int, *names: str) -> Entry:
        anchor = "term-" + names[0].split("（")[0].replace(" ", "-")
        return Entry("page", rank, EntryRecord(ids=[anchor], names=list(names), line=rank, uses=[], summary="."))

    moe = entry(0, "MoE（混合專家模型）", "Mixture of experts（混合專家）")
    kv_cache = entry(1, "KV cache（KV 快取）")
    kv_head = entry(2, "KV head（KV 頭）")
    experts = entry(3, "混合專家")  # a term elsewhere: not MoE's alias any more
    graph = GlossaryGraph([moe, kv_cache, kv_head, experts], by_key={}, targets={}, by_anchor={})
    found = glossary_objects(graph, {"kv cache": "鍵值快取"}, {})
    names = {(item["name"], item["entry"].anchor, item["priority"]) for item in found}
    assert names == {
        ("MoE（混合專家模型）", "term-MoE", 0),
        ("Mixture of experts（混合專家）", "term-MoE", 0),
        ("MoE", "term-MoE", 1),
        ("混合專家模型", "term-MoE", 1),
        ("Mixture of experts", "term-MoE", 1),
        ("KV cache（KV 快取）", "term-KV-cache", 0),
        ("KV cache", "term-KV-cache", 1),
        ("KV 快取", "term-KV-cache", 1),
        ("鍵值快取", "term-KV-cache", 1),  # the terminology table's row
        ("KV", "term-KV-cache", 1),  # the acronym, for the first entry that starts with it
        ("KV head（KV 頭）", "term-KV-head", 0),
        ("KV head", "term-KV-head", 1),
        ("KV 頭", "term-KV-head", 1),
        ("混合專家", "term-混合專家", 0),
    }


def test_the_installed_searchtools_still_has_what_the_scorer_extends() -> None:
    searchtools = (Path(sphinx_package.__file__).parent / "themes" / "basic" / "static" / "searchtools.js").read_text()
    for needed in (
        "const _orderResultsByScoreThenName = (a, b) =>",
        "  _performSearch: (\n    query,\n    searchTerms,\n    excludedTerms,\n"
        "    highlightTerms,\n    objectTerms,\n  ) =>",
        "const results = Search._performSearch(",
        "  stopPulse: () =>",
        "Search.stopPulse();",
        "[docname, title, anchor, descr, score, filename, kind]",
        'if (anchor === "") anchor = fullname;',
    ):
        assert needed in searchtools, needed
    # The scorer adds the catalog's messages where doctools.js's gettext and ngettext look.
    doctools = (Path(sphinx_package.__file__).parent / "themes" / "basic" / "static" / "doctools.js").read_text()
    for needed in ("  TRANSLATIONS: {},", "Documentation.TRANSLATIONS[singular];", "[Documentation.PLURAL_EXPR(n)]"):
        assert needed in doctools, needed
    assert 'Documentation.ngettext(\n      "Search finished, found one page matching the search query.",' in searchtools
