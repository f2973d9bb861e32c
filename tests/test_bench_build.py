"""benchmarks/bench_build.py: its plain twin still mirrors the real pages.

The benchmark compares our build with a plain-Sphinx twin it generates by parsing the
pages' Markdown.  If the page format drifts from what its parser expects, the twin
silently shrinks and the ratios lie; these checks catch that without timing anything.
"""

from __future__ import annotations

import runpy
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from bench_build import (
    CITE_ROLE,
    SHARED_PREFIXES,
    WORD,
    PageShape,
    is_bibliography,
    is_generated,
    page_shape,
    source_pages,
    twin_shapes,
    write_equipped_site,
    write_plain_site,
)
from builtsite import built_page
from sphinxbuild import REPO, BuildResult, build

SITE = REPO / "_build" / "html" / "en"


@pytest.mark.site
def test_the_parser_finds_every_entry_the_real_build_shows() -> None:
    for page in source_pages(REPO / "docs"):
        built = SITE / f"{page.stem}.html"
        if not built.exists():
            pytest.fail(f"{built} is missing: run `make html` before the site checks")
        entries = built_page("en", page.stem).select("dl.glossary > dt")
        shape = page_shape(page)
        # An entry with aliases is one <dt> per name in the output.
        assert sum(entry.names for entry in shape.entries) == len(entries), page.name


@dataclass(frozen=True)
class PlainTwin:
    pages: list[Path]
    shapes: list[PageShape]
    srcdir: Path
    result: BuildResult


@pytest.fixture(scope="module")
def plain_twin(tmp_path_factory: pytest.TempPathFactory) -> PlainTwin:
    """The plain twin the benchmark builds (generated pages mirrored from the built site), built once."""
    pages = source_pages(REPO / "docs")
    if not all((SITE / f"{page.stem}.html").exists() for page in pages):
        pytest.fail(f"{SITE} is incomplete: run `make html` before the site checks")
    shapes = twin_shapes(pages, SITE)
    srcdir = tmp_path_factory.mktemp("twin") / "plain"
    write_plain_site(shapes, srcdir)
    return PlainTwin(pages, shapes, srcdir, build(srcdir))


@pytest.mark.site
@pytest.mark.heavy
def test_the_plain_twin_builds_without_a_warning_and_keeps_every_entry(plain_twin: PlainTwin) -> None:
    result = plain_twin.result
    assert result.warnings == ""
    terms = sum(
        len(BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").select("dl.glossary > dt"))
        for page in result.outdir.glob("*.html")
    )
    assert terms == sum(entry.names for shape in plain_twin.shapes for entry in shape.entries) > 300


@pytest.mark.site
def test_the_twin_of_a_generated_page_carries_what_its_build_shows(plain_twin: PlainTwin) -> None:
    """The llmcalc reference pages are mirrored from their built HTML, not their few source lines."""
    generated = [page for page in plain_twin.pages if is_generated(page)]
    assert {page.stem for page in generated} >= {"reference-models", "reference-planner", "reference-cli"}
    for page in generated:
        article = built_page("en", page.stem).select_one("article[role=main]")
        shape = next(shape for shape in plain_twin.shapes if shape.stem == page.stem)
        code = [block for block in shape.prose if block.code]
        assert len(code) == len(article.select("pre")), page.name
        prose_words = sum(len(WORD.findall(" ".join(block.lines))) for block in shape.prose if not block.code)
        source_words = len(WORD.findall(page.read_text(encoding="utf-8")))
        assert prose_words > 5 * source_words, page.name  # the docstrings, not the directives
        assert (plain_twin.result.outdir / f"{page.stem}.html").is_file(), page.name
    assert plain_twin.result.warnings == ""


@dataclass(frozen=True)
class EquippedTwin:
    srcdir: Path
    result: BuildResult


@pytest.fixture(scope="module")
def equipped_twin(plain_twin: PlainTwin, tmp_path_factory: pytest.TempPathFactory) -> EquippedTwin:
    """The equipped twin the benchmark builds, from the same shapes as the plain twin, built once."""
    srcdir = tmp_path_factory.mktemp("twin") / "equipped"
    write_equipped_site(plain_twin.shapes, REPO, srcdir)
    return EquippedTwin(srcdir, build(srcdir))


def citation_links(page: BeautifulSoup) -> list[str]:
    """The titles (the cited work, formatted) of a built page's citations, in order."""
    article = page.select_one("article[role=main]")
    return [link.get("title", "") for link in article.select('a.reference.internal[href^="references.html#"]')]


@pytest.mark.site
@pytest.mark.heavy
def test_the_equipped_twin_has_the_real_reference_pages_and_the_project_settings_for_them(
    plain_twin: PlainTwin, equipped_twin: EquippedTwin
) -> None:
    for page in plain_twin.pages:
        same = (equipped_twin.srcdir / page.name).read_bytes() == page.read_bytes()
        assert same == (is_generated(page) or is_bibliography(page)), page.name
    twin_conf = runpy.run_path(str(equipped_twin.srcdir / "conf.py"))
    project_conf = runpy.run_path(str(REPO / "conf.py"))
    shared = {name for name in project_conf if name.startswith(SHARED_PREFIXES)}
    assert {"autodoc_typehints", "napoleon_numpy_docstring", "codeautolink_inventory_map"} <= shared
    assert {"bibtex_bibfiles", "bibtex_reference_style", "bibtex_default_style"} <= shared
    assert {name: twin_conf[name] for name in shared} == {name: project_conf[name] for name in shared}
    for bibfile in project_conf["bibtex_bibfiles"]:  # relative to conf.py, in both
        assert (equipped_twin.srcdir / bibfile).read_bytes() == (REPO / bibfile).read_bytes()
    third_party = {
        "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx_codeautolink", "sphinxarg.ext", "sphinxcontrib.bibtex",
    }  # fmt: skip
    # The project sets codeautolink up through llmglossary (its codelinks module), the twin by name;
    # the twin runs sphinxcontrib-bibtex without llmglossary.bibtexplugins, our workaround of its cost.
    assert third_party - {"sphinx_codeautolink"} <= set(project_conf["extensions"])
    assert "llmglossary" in project_conf["extensions"]
    assert set(twin_conf["extensions"]) == {"myst_parser", "llmglossary.codelinks", *third_party}

    result = equipped_twin.result
    assert result.warnings == ""
    assert 'id="llmcalc.ModelConfig"' in result.html("reference-models")  # autodoc documented it
    # The examples' llmcalc names link to the reference, as on the real pages.
    assert "sphinx-codeautolink-a" in result.html("05-the-transformer")


@pytest.mark.site
@pytest.mark.heavy
def test_the_equipped_twin_carries_every_citation_of_the_real_build(
    plain_twin: PlainTwin, equipped_twin: EquippedTwin
) -> None:
    """Each twin entry cites the keys of its real entry; each page's build shows as many citations of each work."""
    total = 0
    for page, shape in zip(plain_twin.pages, plain_twin.shapes, strict=True):
        if is_generated(page) or is_bibliography(page):
            continue
        twin_entries = page_shape(equipped_twin.srcdir / page.name).entries
        assert [entry.cited_keys for entry in twin_entries] == [entry.cited_keys for entry in shape.entries], page.name
        # The text around the glossaries keeps its citations too (the planning page's has some).
        twin_keys = CITE_ROLE.findall((equipped_twin.srcdir / page.name).read_text(encoding="utf-8"))
        assert Counter(twin_keys) == Counter(CITE_ROLE.findall(page.read_text(encoding="utf-8"))), page.name
        # The oracle is the real build: as many citations, of the same works.
        real = citation_links(built_page("en", page.stem))
        twin = citation_links(BeautifulSoup(equipped_twin.result.html(page.stem), "html.parser"))
        assert Counter(twin) == Counter(real), page.name
        total += len(real)
    assert total > 800

    def works_listed(html: str) -> list[str]:
        article = BeautifulSoup(html, "html.parser").select_one("article[role=main]")
        return [" ".join(work.p.get_text().split()) for work in article.select("div.citation")]

    (references,) = [page for page in plain_twin.pages if is_bibliography(page)]
    real_works = works_listed((SITE / f"{references.stem}.html").read_text(encoding="utf-8"))
    assert works_listed(equipped_twin.result.html(references.stem)) == real_works
    assert len(real_works) > 350
