"""Every glossary entry cites its sources, and every source can be found again.

The entries end with a ``**Sources:**`` paragraph of ``{cite:p}`` citations into the
BibTeX files of ``docs/_bib/`` (sphinxcontrib-bibtex).  The build already fails on a key
that no file defines (``bibtex.key_not_found`` under ``-W``); these tests add what it
does not check:

- every entry of both editions shows at least one citation (read from the built pages);
- every reference is cited somewhere, and defined once across all the files;
- every reference carries a stable identifier: a DOI, an arXiv number, or an address
  with a ``note`` that names the version or the date it was checked against;
- every reference reads as plain text where readers see it (the references page and the
  citations' tooltips): no LaTeX command or math left in it, and a name with capitals
  inside it (ExLlamaV2, ImageNet, GPT-2) keeps them through BibTeX's sentence case.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pybtex.plugin
import pytest
from bs4 import BeautifulSoup
from pybtex.backends import BaseBackend
from pybtex.database import BibliographyData, Entry, parse_string
from pybtex.style.formatting import BaseStyle

from builtsite import built_pages

REPO = Path(__file__).resolve().parent.parent
BIB_DIR = REPO / "docs" / "_bib"
BUILD = REPO / "_build" / "html"
LANGUAGES = ("en", "zh_TW")

# {cite:p}`key`, {cite:t}`a,b`, {cite}`key` -- the roles sphinxcontrib-bibtex defines.
CITE_ROLE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
ARXIV_ID = re.compile(r"^\d{4}\.\d{4,5}$")
# What pybtex leaves of LaTeX it does not know: a command (\texttt, \sqrt) or math ($...$).
LATEX_LEFT = re.compile(r"\\[A-Za-z]{2,}|\$")
# How conf.py's bibtex_default_style formats an entry (its labels are llmglossary.citationlabels').
BIBTEX_STYLE = "plain"
DOI = re.compile(r"^10\.\d{4,9}/\S+$")


def read_bibliography(texts: dict[str, str]) -> tuple[BibliographyData, list[str]]:
    """All entries of several BibTeX texts, and the problems: a key defined twice."""
    merged = BibliographyData()
    problems = []
    for name, text in texts.items():
        for key, entry in parse_string(text, "bibtex").entries.items():
            if key.lower() in (known.lower() for known in merged.entries):
                problems.append(f"{name}: {key} is already defined in another .bib file: keep one")
            else:
                merged.add_entry(key, entry)
    return merged, problems


def identifier_problems(bibliography: BibliographyData) -> list[str]:
    """References that could not be found again: no DOI, arXiv number or versioned address."""
    problems = []
    for key, entry in bibliography.entries.items():
        fields = {name.lower(): value.strip() for name, value in entry.fields.items()}
        if "doi" in fields:
            if not DOI.match(fields["doi"]):
                problems.append(f"{key}: doi {fields['doi']!r} is not a DOI (10.NNNN/...)")
        elif "eprint" in fields:
            if fields.get("archiveprefix", "").lower() != "arxiv" or not ARXIV_ID.match(fields["eprint"]):
                problems.append(f"{key}: eprint needs archiveprefix = {{arXiv}} and an id like 1706.03762")
        elif "url" in fields:
            if not re.search(r"\d", fields.get("note", "")):
                problems.append(f"{key}: a url needs a note naming the version or date it was checked")
        else:
            problems.append(f"{key}: no doi, arXiv eprint or url")
    return problems


def same_work_problems(bibliography: BibliographyData) -> list[str]:
    """References that are one work under two keys: the same DOI, arXiv number or address."""
    seen: dict[tuple[str, str], str] = {}
    problems = []
    for key, entry in bibliography.entries.items():
        fields = {name.lower(): value.strip().lower().rstrip("/") for name, value in entry.fields.items()}
        for kind in ("doi", "eprint", "url"):
            if kind in fields:
                found = seen.setdefault((kind, fields[kind]), key)
                if found != key:
                    problems.append(f"{key} and {found} have the same {kind}: cite one key")
                break
    return problems


@functools.cache
def bibtex_style() -> tuple[BaseStyle, BaseBackend]:
    """The site's formatting style and pybtex's plain-text backend, made once: pybtex finds
    each plugin by reading every installed entry point."""
    style = pybtex.plugin.find_plugin("pybtex.style.formatting", BIBTEX_STYLE)()
    return style, pybtex.plugin.find_plugin("pybtex.backends", "plaintext")()


def spoiled_names(key: str, entry: Entry) -> list[str]:
    """The names in a title with capitals inside them (ExLlamaV2, the GPT of GPT-2) that the style's
    sentence case lowers: each needs braces in the .bib, as ``{ExLlamaV2}``."""
    style, text = bibtex_style()
    shown = style.format_entry(key, entry).text.render(text)
    title = re.sub(r"\\[A-Za-z]+|[{}\\]", "", entry.fields.get("title", ""))
    names = [part for word in re.findall(r"[\w.+-]+", title) for part in word.split("-")
             if re.search(r"[A-Z]", part[1:])]
    return [f"{key}: title word {name!r} shows as lower case: brace it" for name in names if name not in shown]


def latex_left(text: str) -> list[str]:
    """The LaTeX a rendered reference still shows."""
    return LATEX_LEFT.findall(text)


def cited_keys(markdown: str) -> set[str]:
    """The keys a MyST page cites."""
    return {key.strip() for keys in CITE_ROLE.findall(markdown) for key in keys.split(",")}


def uncited_entries(html: str | BeautifulSoup) -> list[str]:
    """The anchors of a built page's glossary entries (the term's, not an alias's) that cite nothing."""
    missing = []
    soup = html if isinstance(html, BeautifulSoup) else BeautifulSoup(html, "html.parser")
    for glossary in soup.select("dl.glossary"):
        term = None
        for child in glossary.find_all(["dt", "dd"], recursive=False):
            if child.name == "dt":
                term = term or child["id"]
            else:
                if child.select_one(".bibtex-citation, a[href*='references.html#']") is None:
                    missing.append(term)
                term = None
    return missing


def project_bibliography() -> tuple[BibliographyData, list[str]]:
    return read_bibliography({path.name: path.read_text(encoding="utf-8") for path in sorted(BIB_DIR.glob("*.bib"))})


# -- The checks, on bad input they must catch -----------------------------------------


def test_a_key_defined_in_two_files_is_reported() -> None:
    entry = "@misc{smith2020, title = {T}, doi = {10.1000/x}}"
    _, problems = read_bibliography({"a.bib": entry, "b.bib": entry.replace("smith2020", "Smith2020")})
    assert problems == ["b.bib: Smith2020 is already defined in another .bib file: keep one"]


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ("title = {T}", "no doi, arXiv eprint or url"),
        ("eprint = {1706.03762}", "eprint needs archiveprefix"),
        ("eprint = {cs/0101}, archiveprefix = {arXiv}", "eprint needs archiveprefix"),
        ("doi = {https://doi.org/10.1/x}", "is not a DOI"),
        ("url = {https://example.org/docs/}", "a url needs a note"),
        ("url = {https://example.org/docs/}, note = {latest}", "a url needs a note"),
    ],
)
def test_a_reference_without_a_stable_identifier_is_reported(fields: str, problem: str) -> None:
    bibliography, _ = read_bibliography({"x.bib": f"@misc{{bad, {fields}}}"})
    (found,) = identifier_problems(bibliography)
    assert problem in found


def test_one_work_under_two_keys_is_reported() -> None:
    bibliography, _ = read_bibliography(
        {"x.bib": "@misc{a2017, eprint = {1706.03762}}\n@misc{b2017, eprint = {1706.03762}}\n@misc{c, doi = {10.1/x}}"}
    )
    assert same_work_problems(bibliography) == ["b2017 and a2017 have the same eprint: cite one key"]


@pytest.mark.parametrize(
    "fields",
    [
        "doi = {10.18653/v1/P16-1162}",
        "eprint = {1706.03762}, archiveprefix = {arXiv}",
        "url = {https://github.com/huggingface/peft/blob/v0.21.2/src/peft/utils/other.py}, note = {peft 0.21.2}",
    ],
)
def test_a_stable_identifier_passes(fields: str) -> None:
    bibliography, _ = read_bibliography({"x.bib": f"@misc{{good, {fields}}}"})
    assert identifier_problems(bibliography) == []


def test_a_name_spoiled_by_sentence_case_is_reported() -> None:
    bibliography, _ = read_bibliography(
        {"x.bib": "@misc{a, title = {ExLlamaV2: the {GPT-2} README}}\n@misc{b, title = {{ExLlamaV2}: Notes}}"}
    )
    found = [problem for key, entry in bibliography.entries.items() for problem in spoiled_names(key, entry)]
    assert found == ["a: title word 'ExLlamaV2' shows as lower case: brace it",
                     "a: title word 'README' shows as lower case: brace it"]


def test_latex_left_in_a_rendered_reference_is_found() -> None:
    found = latex_left("as c \\tanh(x/c) in \\texttt model.py, $k_1$, lines split by \\n")
    assert found == ["\\tanh", "\\texttt", "$", "$"]


def test_cited_keys_reads_every_role_form() -> None:
    text = "A {cite:p}`vaswani2017attention`, §3; {cite:t}`a2020, b2021` and {cite}`c2022`."
    assert cited_keys(text) == {"vaswani2017attention", "a2020", "b2021", "c2022"}


def test_an_entry_without_a_citation_is_reported() -> None:
    html = """<dl class="glossary">
      <dt id="term-A">A</dt><dd><p>Cited <span class="bibtex-citation">[x]</span>.</p></dd>
      <dt id="term-B">B</dt><dt id="term-B2">B2</dt><dd><p>Not cited.</p></dd>
    </dl>"""
    assert uncited_entries(html) == ["term-B"]


# -- The project ------------------------------------------------------------------------


def test_every_reference_is_defined_once() -> None:
    _, problems = project_bibliography()
    assert problems == []


def test_every_work_is_listed_once() -> None:
    bibliography, _ = project_bibliography()
    assert same_work_problems(bibliography) == []


def test_every_reference_has_a_stable_identifier() -> None:
    bibliography, _ = project_bibliography()
    assert identifier_problems(bibliography) == []


def test_every_reference_is_cited_and_every_citation_defined() -> None:
    bibliography, _ = project_bibliography()
    defined = set(bibliography.entries)
    cited = set().union(*(cited_keys(path.read_text(encoding="utf-8")) for path in (REPO / "docs").glob("*.md")))
    assert sorted(defined - cited) == [], "references nobody cites: cite them or delete them"
    assert sorted(cited - defined) == [], "citations of keys no .bib file defines"


def test_every_title_keeps_the_capitals_of_its_names() -> None:
    bibliography, _ = project_bibliography()
    spoiled = [problem for key, entry in bibliography.entries.items() for problem in spoiled_names(key, entry)]
    assert spoiled == []


@pytest.mark.site
@pytest.mark.parametrize("language", LANGUAGES)
def test_references_read_as_plain_text_on_the_page_and_in_tooltips(language: str) -> None:
    references = built_pages(language, "references.html")["references"]
    shown = [entry.get_text(" ") for entry in references.select("div.citation")]
    assert len(shown) == len(project_bibliography()[0].entries)
    tooltips = [link["title"] for soup in built_pages(language, "[0-9]*.html").values()
                for link in soup.select("a[href^='references.html#'][title]")]
    assert tooltips, "no citation tooltips found: did sphinxcontrib-bibtex stop writing them?"
    left = sorted({f"{found} in: {text[:120]}" for text in shown + tooltips for found in latex_left(text)})
    assert left == [], "write the .bib fields as plain text (no \\texttt, no $...$):\n" + "\n".join(left)


@pytest.mark.site
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_glossary_entry_cites_a_source(language: str) -> None:
    pages = built_pages(language, "[0-9]*.html")
    if not pages:
        pytest.fail(f"no section pages in {BUILD / language}: run `make html` before the site checks")
    missing = [f"{docname}#{anchor}" for docname, soup in pages.items() for anchor in uncited_entries(soup)]
    assert missing == [], f"{len(missing)} entries cite no source; end each with a **Sources:** paragraph"
