"""Checks on the built site (_build/html/<lang>/), which `make test` builds first.

These read what a reader gets: the glossary entries each page really shows, the
reading-order chain, the language attributes and switch, the Chinese search index
and the doctest reports of both languages.
"""

from __future__ import annotations

import csv
import itertools
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import termlists
from builtsite import built_page, built_pages, text_without
from termlists import derived_rows, missing_terminology_rows, page_entries, planned_entries, planned_entry_problems
from zhlint import SEARCH_ALIAS

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "_build"
LANGUAGES = ("en", "zh_TW")

pytestmark = pytest.mark.site


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


EXPECTED = read_tsv(REPO / "tests" / "data" / "expected_terms.tsv")
TERMINOLOGY = {
    row["english"]: row["zh_TW"]
    for row in read_tsv(REPO / "locales" / "zh_TW" / "terminology.tsv")
    if row["link_text"] != SEARCH_ALIAS
}
SECTION_PAGES = list(dict.fromkeys(row["page"] for row in EXPECTED))
# Pages after the glossary's sections that define no term and use them all: the memory planner.
APPLIED_PAGES = ["19-will-it-fit"]


def reading_order() -> list[str]:
    """The reading order: the index, then the documents of its toctrees."""
    return ["index", *termlists.reading_order()]


# Each page is parsed once per run and shared (tests/builtsite.py): read it, never change it.
page = built_page


def glossary_terms(soup: BeautifulSoup) -> list[tuple[str, str]]:
    """(anchor id, visible text) of every glossary term on a page, in order."""
    terms = []
    for dt in soup.select("dl.glossary > dt"):
        terms.append((dt["id"], text_without(dt, "a.headerlink").strip()))
    return terms


def test_reading_order_lists_every_section_page() -> None:
    reference = sorted(path.stem for path in (REPO / "docs").glob("reference-*.md"))
    front = ["index", *SECTION_PAGES, *APPLIED_PAGES, "all-terms", "concept-map", "references"]
    assert reading_order()[: len(front)] == front
    assert sorted(reading_order()[len(front) :]) == reference


@pytest.mark.parametrize("language", LANGUAGES)
def test_pages_are_chained_in_reading_order(language: str) -> None:
    order = reading_order()
    for current, following in itertools.pairwise(order):
        link = page(language, current).find("link", rel="next")
        assert link is not None and link["href"] == f"{following}.html", current


def assert_no_problems(problems: list[str], remedy: str = "") -> None:
    """Fail with every problem on a line of its own (pytest's list diff shows only the first)."""
    if problems:
        pytest.fail("\n".join([f"{len(problems)} problem(s):", *problems, remedy]).strip(), pytrace=False)


@pytest.mark.parametrize("docname", SECTION_PAGES)
def test_every_planned_term_is_a_glossary_entry_in_order(docname: str) -> None:
    built = page_entries(page("en", docname))
    assert_no_problems(
        planned_entry_problems(docname, built, planned_entries()[docname]),
        "Or run `make expected-terms` to rewrite tests/data/expected_terms.tsv from the built pages,"
        " and check its diff.",
    )


def test_the_planned_terms_are_what_make_expected_terms_writes() -> None:
    """`make expected-terms` reproduces the hand-kept list from the built pages, row for row."""
    planned = (REPO / "tests" / "data" / "expected_terms.tsv").read_text(encoding="utf-8")
    assert derived_rows(BUILD / "html" / "en", parsed=lambda docname: page("en", docname)) == planned.splitlines()


@pytest.mark.parametrize("docname", SECTION_PAGES)
def test_zh_tw_headers_and_anchors_match_english(docname: str) -> None:
    english = glossary_terms(page("en", docname))
    chinese = glossary_terms(page("zh_TW", docname))
    assert [anchor for anchor, _ in chinese] == [anchor for anchor, _ in english]
    assert_no_problems(missing_terminology_rows([text for _, text in english]))
    assert_no_problems([
        f"{docname}: zh_TW header {have!r} should read {want!r} (from locales/zh_TW/terminology.tsv): "
        f"translate the header msgid {text!r} in locales/zh_TW/LC_MESSAGES/{docname}.po as {want!r}"
        for (_, text), (_, have) in zip(english, chinese, strict=True)
        if have != (want := f"{text}（{TERMINOLOGY[text]}）")
    ])


@pytest.mark.parametrize("docname", SECTION_PAGES)
def test_zh_tw_headers_gloss_what_the_english_does_not_say(docname: str) -> None:
    """A rendered header ``English（中文）``: the Chinese has Chinese in it and does not repeat the English."""
    repeats = []
    english_terms, chinese_terms = glossary_terms(page("en", docname)), glossary_terms(page("zh_TW", docname))
    for (_, english), (_, chinese) in zip(english_terms, chinese_terms, strict=True):
        gloss = chinese.removeprefix(english).removeprefix("（").removesuffix("）")
        if not re.search("[\u4e00-\u9fff]", gloss) or english.lower() in gloss.lower():
            repeats.append(chinese)
    assert repeats == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_html_lang_attribute(language: str) -> None:
    expected = {"en": "en", "zh_TW": "zh-TW"}[language]
    for docname in reading_order():
        assert page(language, docname).html["lang"] == expected, docname


@pytest.mark.parametrize("language", LANGUAGES)
def test_language_switch_links_the_same_page_in_the_other_edition(language: str) -> None:
    other = "zh_TW" if language == "en" else "en"
    for docname in reading_order():
        link = page(language, docname).select_one("a.language-switch")
        assert link["href"] == f"../{other}/{docname}.html"
        assert (BUILD / "html" / language / link["href"]).resolve().is_file()


def search_index(language: str) -> dict:
    text = (BUILD / "html" / language / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


@pytest.mark.parametrize("word", ["詞元", "詞元切分器", "低秩適應", "注意力機制", "梯度"])
def test_chinese_search_indexes_glossary_words_whole(word: str) -> None:
    assert word in search_index("zh_TW")["terms"]


def test_english_search_indexes_terms() -> None:
    terms = search_index("en")["terms"]
    assert {"token", "lora", "attent"} <= set(terms)


def doctest_counts(language: str) -> dict[str, int]:
    """Examples run per document, from Sphinx's doctest report."""
    report = (BUILD / "doctest" / language / "output.txt").read_text(encoding="utf-8")
    counts: dict[str, int] = defaultdict(int)
    for chunk in report.split("\nDocument: ")[1:]:
        document = chunk.split("\n", 1)[0].strip()
        match = re.search(r"^(\d+) tests? in \d+ items?\.$", chunk, flags=re.MULTILINE)
        counts[document] += int(match.group(1)) if match else 0
    return dict(counts)


def test_every_section_page_runs_examples() -> None:
    """Every section page ran examples in the English doctest run.

    The zh_TW pages run the same ones: their code is the English pages', character for
    character (``test_zh_tw_pages_show_and_run_the_english_examples_unchanged``), so
    ``make test`` runs the examples once; ``make doctest`` runs both languages.
    """
    english = doctest_counts("en")
    assert [docname for docname in SECTION_PAGES if english.get(docname, 0) < 1] == []
    assert sum(english.values()) >= 100


@pytest.mark.parametrize(
    "label",
    ["切換淺色／深色／自動配色", "切換網站導覽側欄", "切換本頁目錄側欄", "淺色模式", "深色模式",
     "回到頂端", "下一頁", "搜尋", "跳到主要內容"],
)
def test_zh_tw_theme_interface_is_translated(label: str) -> None:
    assert label in str(page("zh_TW", "05-the-transformer"))


def test_zh_tw_footer_and_heading_links_speak_chinese() -> None:
    soup = page("zh_TW", "05-the-transformer")
    footer = " ".join(soup.select_one(".bottom-of-page .left-details").get_text().split())
    assert footer == "Copyright © 2026，LLM 工程術語表貢獻者 以 Sphinx 與 @pradyunsg 的 Furo 主題建置"
    # Sphinx's own catalog says 連結到這個標頭 (a header, not a heading) for headings.
    assert {link["title"] for link in soup.select("a.headerlink")} == {"連結到此標題", "連結到這個項目"}


def test_zh_tw_relation_labels_end_in_their_full_width_colon() -> None:
    """「先備概念：」 is followed directly by the first link: the full-width colon has its own space."""
    soup = page("zh_TW", "06-modern-attention-and-moe")
    labels = soup.select("p.term-relations > strong")
    assert labels and {label.get_text() for label in labels} == {"先備概念：", "延伸概念："}
    assert all(label.next_sibling.name == "a" for label in labels)


def test_no_markdown_emphasis_markers_leak_into_zh_tw_text() -> None:
    leaks = []
    for docname in reading_order():
        # A signature's ``**settings`` is Python, not emphasis.
        if "**" in text_without(page("zh_TW", docname), "pre, code, script, style, dt.sig"):
            leaks.append(docname)
    assert leaks == []


@pytest.mark.parametrize("docname", SECTION_PAGES)
def test_every_entry_is_a_real_paragraph_with_why_it_matters(docname: str) -> None:
    """A glossary entry is a paragraph a beginner understands, not a one-liner."""
    thin = []
    for dd in page("en", docname).select("dl.glossary > dd"):
        opening = dd.find("p").get_text(" ", strip=True)
        if len(opening.split()) < 25 or "Why it matters:" not in dd.get_text():
            thin.append(dd.find_previous_sibling("dt")["id"])
    assert thin == []


@pytest.mark.parametrize("docname", ["06-modern-attention-and-moe", "08-precision-and-quantization", "19-will-it-fit"])
def test_zh_tw_model_lists_name_the_reference_model_in_chinese(docname: str) -> None:
    """The lists show llmcalc's preset names, but the reference model by the name the text gives it."""
    options = page("zh_TW", docname).select('option[value="reference"]')
    assert options and {option.get_text() for option in options} == {"reference（參考模型）"}


DOCTEST_FENCE = re.compile(r"^ *(`{3,}|:{3,})\{?doctest\}?\s*$", re.MULTILINE)


@pytest.mark.site
def test_zh_tw_pages_show_and_run_the_english_examples_unchanged() -> None:
    """A zh_TW page's code is its English page's, character for character, example for example.

    Code is never translated (conf.py sets no ``gettext_additional_targets``), so the zh_TW
    doctest run would run the English examples again: ``make test`` runs them once, in
    English, and this test is what makes that enough.  ``make doctest`` still runs both.
    """
    examples = 0
    for docname, english in built_pages("en").items():
        code = [pre.get_text() for pre in english.select("div[class^='highlight'] pre")]
        translated = [pre.get_text() for pre in built_page("zh_TW", docname).select("div[class^='highlight'] pre")]
        assert translated == code, docname
        examples += sum(text.startswith(">>>") for text in code)
    fences = sum(len(DOCTEST_FENCE.findall(page.read_text(encoding="utf-8"))) for page in (REPO / "docs").glob("*.md"))
    assert examples >= fences > 300
