"""A citation and the reference it lands on carry the same label, by author and year (reader finding R-11).

The references page numbered its entries while the text cited by author and year: an
inline [Pope et al., 2023] landed on an entry labelled [210].  And the zh_TW prose
writes "Dettmers 等人，2023" where the brackets said "Dettmers et al., 2023".  The
oracle for the words is the .bib file itself: each label must start with the first
author's surname as pybtex parses it, and end with the entry's year.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from pybtex.database import BibliographyData, parse_file

from builtsite import built_page, built_pages

REPO = Path(__file__).resolve().parent.parent
LANGUAGES = ["en", "zh_TW"]
MORE_AUTHORS = {"en": " et al.", "zh_TW": " 等人"}
BEFORE_YEAR = {"en": ", ", "zh_TW": "，"}

pytestmark = pytest.mark.site


@functools.cache
def bibliography() -> BibliographyData:
    return parse_file(REPO / "docs" / "_bib" / "references.bib")


def reference_labels(language: str) -> dict[str, str]:
    """Anchor on the references page -> the label it shows, without its brackets."""
    page = built_page(language, "references")
    return {
        entry["id"]: entry.select_one("span.label").get_text().strip("[]")
        for entry in page.select("div.citation")
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_citation_shows_the_label_of_the_reference_it_links_to(language: str) -> None:
    labels = reference_labels(language)
    assert len(labels) == len(bibliography().entries)
    mismatched = []
    cited = 0
    for docname, page in built_pages(language).items():
        for link in page.select('a.reference.internal[href^="references.html#"]'):
            anchor = link["href"].partition("#")[2]
            if anchor in labels:
                cited += 1
                if link.get_text() != labels[anchor]:
                    mismatched.append((docname, link.get_text(), labels[anchor]))
    assert cited > 900
    assert mismatched == [], f"{len(mismatched)} citations differ from their reference's label, e.g. {mismatched[:3]}"


def identifiers() -> dict[str, str]:
    """The address a reference links to (its arXiv number, DOI or URL, as the references page writes it) -> key."""
    found = {}
    for key, entry in bibliography().entries.items():
        for field, address in (("eprint", "https://arxiv.org/abs/{}"), ("doi", "https://doi.org/{}"), ("url", "{}")):
            if field in entry.fields:
                found[address.format(entry.fields[field])] = key
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_references_page_labels_by_author_and_year_in_the_pages_language(language: str) -> None:
    """Each label starts with the first author's surname and ends with the year, both from the .bib file."""
    page = built_page(language, "references")
    keys = identifiers()
    wrong, matched = [], 0
    entries = page.select("div.citation")
    for shown in entries:
        label = shown.select_one("span.label").get_text().strip("[]")
        key = next((keys[link["href"]] for link in shown.select("a.reference.external") if link["href"] in keys), None)
        if key is None:
            continue
        matched += 1
        entry = bibliography().entries[key]
        surname = " ".join(name.render_as("text") for name in entry.persons["author"][0].rich_last_names)
        year = entry.fields.get("year", {"en": "n.d.", "zh_TW": "無日期"}[language])
        other = next(words for lang, words in MORE_AUTHORS.items() if lang != language)
        if not label.startswith(surname) or other in label or not re.search(
            rf"{re.escape(BEFORE_YEAR[language])}{re.escape(year)}[a-z]?$", label
        ):
            wrong.append((key, label))
    assert len(entries) == len(bibliography().entries)
    assert matched > 0.9 * len(entries)
    assert wrong == [], f"{len(wrong)} labels are not author-year in {language}, e.g. {wrong[:3]}"


def test_zh_tw_citations_say_deng_ren_as_the_prose_does() -> None:
    """Dettmers et al. (2023) on QLoRA, cited on page 10, reads as the zh_TW prose names it."""
    page = built_page("zh_TW", "10-pre-training-and-fine-tuning")
    texts = {link.get_text() for link in page.select('a.reference.internal[href^="references.html#"]')}
    assert any(re.fullmatch(r"Dettmers 等人，2023[a-z]?", text) for text in texts), sorted(texts)[:10]
    assert not any("et al." in text for text in texts)
