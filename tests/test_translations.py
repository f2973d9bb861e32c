"""The zh_TW catalogs: complete, well-formed, Taiwan usage, consistent terminology.

A fuzzy or empty message silently shows English even under ``-W``, and a malformed
catalog compiles without a word, so these properties are checked here rather than
left to the build.
"""

from __future__ import annotations

import csv
import functools
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message

from intl_update import read_catalog, wrapping_problem
from llmglossary.translatedterms import term_targets
from pocheck import check_po
from termlists import missing_terminology_rows
from zhlint import LINK_TEXT_POLICIES, SEARCH_ALIAS, lint_catalog, lint_terminology, read_terminology

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
MESSAGES = REPO / "locales" / "zh_TW" / "LC_MESSAGES"
TERMINOLOGY_FILE = REPO / "locales" / "zh_TW" / "terminology.tsv"
EXPECTED_TERMS = REPO / "tests" / "data" / "expected_terms.tsv"

PAGES = sorted(
    path.relative_to(DOCS).with_suffix("").as_posix()
    for path in DOCS.rglob("*.md")
    if not any(part.startswith("_") for part in path.relative_to(DOCS).parts)
)
CATALOGS = sorted(MESSAGES.glob("*.po"))


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


TERMINOLOGY = {row["english"]: row["zh_TW"] for row in read_tsv(TERMINOLOGY_FILE) if row["link_text"] != SEARCH_ALIAS}


@functools.cache
def load(path: Path) -> Catalog:
    """The catalog, read once per run: several tests check each one, and none changes it."""
    return read_catalog(path.read_bytes())


def assert_no_problems(problems: list[str]) -> None:
    """Fail with every problem on a line of its own (pytest's list diff shows only the first)."""
    if problems:
        pytest.fail(f"{len(problems)} problem(s):\n" + "\n".join(problems), pytrace=False)


def messages(path: Path) -> list[Message]:
    return [message for message in load(path) if message.id]


def catalog_id(path: Path) -> str:
    return path.stem


def test_every_page_has_a_catalog() -> None:
    missing = [page for page in PAGES if not (MESSAGES / f"{page}.po").exists()]
    assert missing == []


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_is_well_formed(catalog: Path) -> None:
    assert [str(problem) for problem in check_po(catalog)] == []


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_is_fully_translated(catalog: Path) -> None:
    fuzzy = [
        f"{catalog}:{m.lineno}: fuzzy {m.id!r}"
        + (f" (the translation was written for {m.previous_id[0]!r})" if m.previous_id else "")
        + ": check the translation, then delete the '#, fuzzy' and '#|' lines"
        for m in messages(catalog)
        if m.fuzzy
    ]
    empty = [
        f"{catalog}:{m.lineno}: untranslated {m.id!r}: fill in its msgstr" for m in messages(catalog) if not m.string
    ]
    assert_no_problems(fuzzy + empty)


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_follows_taiwan_style_and_the_terminology_policy(catalog: Path) -> None:
    """Every zhlint check: characters, mainland words, second renderings, punctuation and
    spacing, link text per ``link_text``, spelled-out English-policy terms, and renderings
    that depend on the English (preset, column).  Each problem names catalog, line, msgid and fix."""
    assert_no_problems(lint_catalog(catalog))


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_diffs_stay_quiet(catalog: Path) -> None:
    """No source locations or uuids: they would change on every edit of a page."""
    text = catalog.read_text(encoding="utf-8")
    assert re.findall(r"^#: .*$", text, flags=re.MULTILINE) == []
    assert re.findall(r"[0-9a-f]{32}", text) == []


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_has_no_stray_translator_comments(catalog: Path) -> None:
    """No ``# ...`` comment on a message: in these catalogs one has only ever been a fragment
    of a previous English (``#|``) whose mark was lost when the fuzzy entry was checked by hand
    (28 of them, in four catalogs, until 2026-12-02).  Notes for translators belong in
    POLICY.md or terminology.tsv, where every catalog's translator reads them."""
    stray = [
        f"{catalog}:{m.lineno}: {m.id!r} carries the comment(s) {m.user_comments!r}: delete the '# ...' line(s)"
        for m in messages(catalog)
        if m.user_comments
    ]
    assert_no_problems(stray)


def test_terminology_covers_every_term_once() -> None:
    rows = read_tsv(TERMINOLOGY_FILE)
    english = [row["english"] for row in rows if row["link_text"] != SEARCH_ALIAS]  # a term's search aliases repeat it
    duplicates = sorted({name for name in english if english.count(name) > 1})
    assert_no_problems([f"{TERMINOLOGY_FILE}: {name!r} has more than one row: keep one" for name in duplicates])
    names = [
        name
        for row in read_tsv(EXPECTED_TERMS)
        for name in [row["term"], *filter(None, (a.strip() for a in row["aliases"].split("|")))]
    ]
    assert_no_problems(missing_terminology_rows(names, TERMINOLOGY_FILE))
    assert_no_problems([
        f"{TERMINOLOGY_FILE}: {row['english']!r} has no Chinese in its zh_TW column"
        for row in rows
        if not row["zh_TW"].strip()
    ])


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_term_headers_read_english_then_chinese(catalog: Path) -> None:
    """A header msgid ``Token`` is translated ``Token（詞元）`` exactly, per the terminology list."""
    page_terms = {
        name
        for row in read_tsv(EXPECTED_TERMS)
        if row["page"] == catalog.stem
        for name in [row["term"], *filter(None, (a.strip() for a in row["aliases"].split("|")))]
    }
    headers = [m for m in messages(catalog) if m.id in page_terms]
    assert_no_problems(missing_terminology_rows([m.id for m in headers], TERMINOLOGY_FILE))
    assert_no_problems([
        f"{catalog}:{m.lineno}: {m.string!r} should be {m.id}（{TERMINOLOGY[m.id]}）"
        for m in headers
        if m.string != f"{m.id}（{TERMINOLOGY[m.id]}）"
    ])


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_term_references_target_exactly_what_the_source_targets(catalog: Path) -> None:
    """Sphinx matches a translation's term targets to the source's case-sensitively."""
    assert_no_problems([
        target_mismatch(f"{catalog}:{m.lineno}", m.id, m.string)
        for m in messages(catalog)
        if m.string and term_targets(m.id) != term_targets(m.string)
    ])


def target_mismatch(location: str, source: str, translation: str) -> str:
    """Which term targets the translation lacks and which it adds, with the form that fixes it."""
    lacking = sorted(set(term_targets(source)) - set(term_targets(translation)))
    extra = sorted(set(term_targets(translation)) - set(term_targets(source)))
    counts = (
        "" if lacking or extra
        else f": the English links {term_targets(source)}, the translation {term_targets(translation)}"
    )
    return (
        f"{location}: term links differ from the English{counts}"
        + (f"; missing target(s) {lacking}" if lacking else "")
        + (f"; target(s) not in the English {extra}" if extra else "")
        + "; keep each English target exactly, e.g. {term}`token` -> {term}`詞元 <token>`"
    )


def test_every_search_alias_names_a_term_of_the_site() -> None:
    """A search row's term must be one the pages define: the build skips a row for an unknown term
    (tiny sites share the table), so a misspelt term would make its alias find nothing, silently."""
    names = {
        name
        for row in read_tsv(EXPECTED_TERMS)
        for name in [row["term"], *filter(None, (a.strip() for a in row["aliases"].split("|")))]
    }
    aliases = [row for row in read_tsv(TERMINOLOGY_FILE) if row["link_text"] == SEARCH_ALIAS]
    assert len(aliases) >= 30
    assert_no_problems([
        f"{TERMINOLOGY_FILE}: search alias {row['zh_TW']!r} names {row['english']!r}, which is no term of the site"
        for row in aliases
        if row["english"] not in names
    ])


def test_terminology_says_how_each_term_is_written() -> None:
    rows = [row for row in read_tsv(TERMINOLOGY_FILE) if row["link_text"] != SEARCH_ALIAS]
    unknown = [f"{row['english']}: {row['link_text']!r}" for row in rows if row["link_text"] not in LINK_TEXT_POLICIES]
    assert unknown == []
    assert len(read_terminology(TERMINOLOGY_FILE)) == len(rows)


def test_every_header_says_something_its_english_does_not() -> None:
    assert lint_terminology(TERMINOLOGY_FILE) == []


def test_policy_document_lists_every_english_policy_acronym() -> None:
    """POLICY.md is the readable form of the list: the acronyms it names keep their policy."""
    policy = (TERMINOLOGY_FILE.parent / "POLICY.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([^`]+)`", policy.split("## Kept in English", 1)[1].split("\n## ", 1)[0]))
    terms = read_terminology(TERMINOLOGY_FILE)
    assert sorted(name for name in named if terms.get(name.lower()) is None) == []
    assert sorted(name for name in named if terms[name.lower()].link_text == "chinese") == []


def test_interface_catalog_translates_the_engine_labels() -> None:
    catalog = {m.id: m.string for m in messages(MESSAGES / "sphinx.po")}
    assert catalog["Builds on:"] == "先備概念："
    assert catalog["Used by:"] == "延伸概念："
    assert catalog["Back to top"] == "回到頂端"


ENTRY_LABELS = {"**Why it matters:**": "**為什麼重要**：", "**Analogy:**": "**類比**："}


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_entry_labels_read_the_same_on_every_page(catalog: Path) -> None:
    assert_no_problems([
        f"{catalog}:{m.lineno}: {m.string[:20]!r} should start with {zh!r}"
        for m in messages(catalog)
        for english, zh in ENTRY_LABELS.items()
        if m.id.startswith(english) and not m.string.startswith(zh)
    ])


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_is_wrapped_the_way_make_intl_update_writes_it(catalog: Path) -> None:
    """Hand edits keep the canonical form, so a later `make intl-update` diff shows only real changes;
    `make intl-update` rewraps a hand-edited catalog (tests/test_intl_loop.py)."""
    assert_no_problems([problem for problem in [wrapping_problem(catalog)] if problem])
