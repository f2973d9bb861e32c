"""Text derived from the entries reads as the pages do: no LaTeX source, no flattened powers (issue 42).

The derived texts are what a reader sees of an entry away from its page: the search
page's entry snippets (``_static/glossarysearch-data.js``) and page snippets
(``_static/glossarysearch/<page>.js``), the hover previews written into each page,
the concept map's titles and the all-terms page.  Each is read from the built site,
in both languages, for every entry.

A formula is *flattened* when its characters are kept and its structure lost: 2³⁰
shown as "230", a fraction a/r as "ar".  The oracle is the page's own MathML: every formula of
the site with a power, index, fraction or root is read from the built page, and the
text its characters make without that structure must not appear in a derived text.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from builtsite import built_page, built_pages, text_without

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "_build" / "html"
LANGUAGES = ["en", "zh_TW"]
LATEX_SOURCE = re.compile(r"\\(?:[A-Za-z]{2,}|[{}])|[\^_]\{")
"""A LaTeX command (``\\frac``, ``\\times``), an escaped brace, or a braced power or index."""
STRUCTURE = "msup, msub, msubsup, mfrac, msqrt, mroot, munder, mover, munderover"

pytestmark = pytest.mark.site


def script_data(path: Path) -> object:
    """The JSON a ``name = {...};`` data script assigns."""
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index("=") + 1 :].strip().removesuffix(";"))


def derived_texts(site: Path, pages: dict[str, BeautifulSoup]) -> Iterator[tuple[str, str]]:
    """(where, text) for every text the site derives from its entries."""
    data = script_data(site / "_static" / "glossarysearch-data.js")
    assert isinstance(data, dict)
    for place, entry in data["entries"].items():
        yield f"search snippet of {place}", entry["sentence"]
        for name in entry["names"]:
            yield f"search title of {place}", name
    for path in sorted((site / "_static" / "glossarysearch").rglob("*.js")):
        passages = script_data(path)
        assert isinstance(passages, dict)
        for text in passages["texts"]:
            yield f"page snippet of {path.stem}", text
    for docname, page in pages.items():
        block = page.find(id="term-previews")
        if block is not None:
            for href, preview in json.loads(block.string or "{}").items():
                yield f"preview of {href} on {docname}", preview["name"] + " " + preview["summary"]
    for title in pages["concept-map"].select("svg title"):
        yield "concept map title", title.get_text()
    listing = pages["all-terms"].find(attrs={"role": "main"}) or pages["all-terms"]
    for item in listing.select("li"):
        yield "all-terms page", item.get_text(" ")


def token(text: str) -> str:
    """A pattern for ``text`` standing alone: not inside a number, a word or a written-out formula."""
    return rf"(?<![\w^_/.,(√-]){re.escape(text)}(?![\w^_/)-]|[.,]\w)"


def flattened_formulas(pages: dict[str, BeautifulSoup]) -> set[str]:
    """Every formula of the pages that has structure, as its characters alone read (2³⁰ -> "230").

    A text the pages also write as such (as prose, or as a formula without structure:
    alpha/r) is a reading of its own, not a flattening.
    """
    flattened, plain = set(), set()
    for page in pages.values():
        for formula in page.select("math"):
            text = "".join(formula.get_text().split())
            if isinstance(formula, Tag) and formula.select_one(STRUCTURE) is not None:
                if len(text) > 1:
                    flattened.add(text)
            else:
                plain.add(text)
    prose = "\n".join(text_without(page, "math, script, style") for page in pages.values())
    return {text for text in flattened - plain if not re.search(token(text), prose)}


def site_pages(language: str) -> dict[str, BeautifulSoup]:
    site = BUILD / language
    if not (site / "search.html").exists():
        pytest.fail(f"{site} is missing: run `make html` before the site checks")
    return built_pages(language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_derived_text_holds_latex_source(language: str) -> None:
    pages = site_pages(language)
    # LaTeX the pages quote as code ("LaTeX's \\boxed{}" on the MATH benchmark) is prose about LaTeX.
    quoted = {
        code.get_text()
        for page in pages.values()
        for code in page.select("code")
        if LATEX_SOURCE.search(code.get_text())
    }
    found = [
        (where, text)
        for where, text in derived_texts(BUILD / language, pages)
        if LATEX_SOURCE.search(functools.reduce(lambda text, code: text.replace(code, ""), quoted, text))
    ]
    assert found == [], f"{len(found)} derived texts hold LaTeX source, e.g. {found[:5]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_derived_text_holds_a_flattened_formula(language: str) -> None:
    pages = site_pages(language)
    formulas = flattened_formulas(pages)
    assert len(formulas) > 50, "the pages have no formulas with powers or fractions: is MathML written?"
    longest_first = sorted(formulas, key=len, reverse=True)
    pattern = re.compile("|".join(token(text) for text in longest_first))
    found = [
        (where, match.group(), text[:120])
        for where, text in derived_texts(BUILD / language, pages)
        if (match := pattern.search(text))
    ]
    assert found == [], f"{len(found)} derived texts hold a flattened formula, e.g. {found[:5]}"


def test_the_gibibyte_reads_as_a_power_of_two_in_its_snippet_and_preview() -> None:
    """The reader's example (2^30 shown as 230), in the search data and on a page that links the entry."""
    data = script_data(BUILD / "en" / "_static" / "glossarysearch-data.js")
    assert isinstance(data, dict)
    sentences = [entry["sentence"] for place, entry in data["entries"].items() if place.endswith("#term-GiB")]
    assert sentences and "2^30" in sentences[0], sentences
    assert built_page("en", "07-gpus-flops-and-memory") is not None


@pytest.mark.parametrize("language", LANGUAGES)
def test_page_snippets_show_citations_by_author_and_year_not_by_bibtex_key(language: str) -> None:
    """The pages show [Radford et al., 2019]; a snippet must not show ``radford2019language``."""
    bib = (REPO / "docs" / "_bib" / "references.bib").read_text(encoding="utf-8")
    keys = re.findall(r"^@\w+\{([^,\s]+),", bib, flags=re.MULTILINE)
    assert len(keys) > 100
    key_pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(key)}(?![\w-])" for key in keys))
    pages = site_pages(language)
    found = [
        (where, match.group())
        for where, text in derived_texts(BUILD / language, pages)
        if where.startswith("page snippet") and (match := key_pattern.search(text))
    ]
    assert found == [], f"{len(found)} page snippets show a BibTeX key, e.g. {found[:5]}"
    passages = script_data(BUILD / language / "_static" / "glossarysearch" / "01-what-an-llm-does.js")
    assert isinstance(passages, dict)
    label = {"en": "Jurafsky and Martin, 2026", "zh_TW": "Jurafsky 與 Martin，2026"}[language]  # as the pages cite it
    assert any(label in text for text in passages["texts"])
