"""The zh_TW catalogs: complete, well-formed, Taiwan usage, consistent terminology.

A fuzzy or empty message silently shows English even under ``-W``, and a malformed
catalog compiles without a word, so these properties are checked here rather than
left to the build.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po

from pocheck import check_po
from zhlint import lint_catalog

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
TERM_ROLE = re.compile(r"\{term\}`(?P<text>[^`<]*?)\s*(?:<(?P<target>[^`>]*)>)?`")


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


TERMINOLOGY = {row["english"]: row["zh_TW"] for row in read_tsv(TERMINOLOGY_FILE)}
TERMINOLOGY_LOWER = {english.lower(): zh for english, zh in TERMINOLOGY.items()}


def load(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


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
    fuzzy = [f"{catalog.name}:{m.lineno}: fuzzy {m.id!r}" for m in messages(catalog) if m.fuzzy]
    empty = [f"{catalog.name}:{m.lineno}: untranslated {m.id!r}" for m in messages(catalog) if not m.string]
    assert fuzzy + empty == []


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_follows_taiwan_style(catalog: Path) -> None:
    assert lint_catalog(catalog) == []


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_diffs_stay_quiet(catalog: Path) -> None:
    """No source locations or uuids: they would change on every edit of a page."""
    text = catalog.read_text(encoding="utf-8")
    assert re.findall(r"^#: .*$", text, flags=re.MULTILINE) == []
    assert re.findall(r"[0-9a-f]{32}", text) == []


def test_terminology_covers_every_term_once() -> None:
    rows = read_tsv(TERMINOLOGY_FILE)
    english = [row["english"] for row in rows]
    duplicates = sorted({name for name in english if english.count(name) > 1})
    assert duplicates == []
    names = [
        name
        for row in read_tsv(EXPECTED_TERMS)
        for name in [row["term"], *filter(None, (a.strip() for a in row["aliases"].split("|")))]
    ]
    assert sorted(set(names) - set(english)) == []
    assert all(row["zh_TW"].strip() for row in rows)


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_term_headers_read_english_then_chinese(catalog: Path) -> None:
    """A header msgid ``Token`` is translated ``Token（詞元）`` exactly, per the terminology list."""
    page_terms = {
        name
        for row in read_tsv(EXPECTED_TERMS)
        if row["page"] == catalog.stem
        for name in [row["term"], *filter(None, (a.strip() for a in row["aliases"].split("|")))]
    }
    wrong = [
        f"{catalog.name}:{m.lineno}: {m.string!r} should be {m.id}（{TERMINOLOGY[m.id]}）"
        for m in messages(catalog)
        if m.id in page_terms and m.string != f"{m.id}（{TERMINOLOGY[m.id]}）"
    ]
    assert wrong == []


def term_targets(text: str) -> list[str]:
    return sorted((match["target"] or match["text"]).strip() for match in TERM_ROLE.finditer(text))


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_term_references_target_exactly_what_the_source_targets(catalog: Path) -> None:
    """Sphinx matches a translation's term targets to the source's case-sensitively."""
    wrong = [
        f"{catalog.name}:{m.lineno}: source targets {term_targets(m.id)}, translation {term_targets(m.string)}"
        for m in messages(catalog)
        if m.string and term_targets(m.id) != term_targets(m.string)
    ]
    assert wrong == []


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_term_references_keep_english_targets_and_terminology(catalog: Path) -> None:
    """``{term}`詞元 <Token>``: anchors stay English; the visible words follow the list."""
    problems: list[str] = []
    for message in messages(catalog):
        for match in TERM_ROLE.finditer(message.string or ""):
            text, target = match["text"].strip(), (match["target"] or match["text"]).strip()
            where = f"{catalog.name}:{message.lineno}: {match.group()!r}"
            if target.lower() not in TERMINOLOGY_LOWER:
                problems.append(f"{where}: target {target!r} is not an English glossary term")
                continue
            rendering = TERMINOLOGY_LOWER[target.lower()]
            if rendering not in text and text.lower() not in TERMINOLOGY_LOWER:
                problems.append(f"{where}: visible text should contain {rendering!r}")
    assert problems == []


def test_interface_catalog_translates_the_engine_labels() -> None:
    catalog = {m.id: m.string for m in messages(MESSAGES / "sphinx.po")}
    assert catalog["Builds on:"] == "先備概念："
    assert catalog["Used by:"] == "延伸概念："
    assert catalog["Back to top"] == "回到頂端"


ENTRY_LABELS = {"**Why it matters:**": "**為什麼重要**：", "**Analogy:**": "**類比**："}


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_entry_labels_read_the_same_on_every_page(catalog: Path) -> None:
    wrong = [
        f"{catalog.name}:{m.lineno}: {m.string[:20]!r} should start with {zh!r}"
        for m in messages(catalog)
        for english, zh in ENTRY_LABELS.items()
        if m.id.startswith(english) and not m.string.startswith(zh)
    ]
    assert wrong == []


@pytest.mark.parametrize("catalog", CATALOGS, ids=catalog_id)
def test_catalog_is_wrapped_the_way_sphinx_intl_writes_it(catalog: Path) -> None:
    """Hand edits keep the canonical form, so a later `make intl-update` diff shows only real changes."""
    raw = catalog.read_bytes()
    canonical = io.BytesIO()
    write_po(canonical, read_po(io.BytesIO(raw)), width=76, include_previous=False)
    assert raw.decode("utf-8").splitlines() == canonical.getvalue().decode("utf-8").splitlines()
