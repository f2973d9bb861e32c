"""benchmarks/bench_build.py: its plain twin still mirrors the real pages.

The benchmark compares our build with a plain-Sphinx twin it generates by parsing the
pages' Markdown.  If the page format drifts from what its parser expects, the twin
silently shrinks and the ratios lie; these checks catch that without timing anything.
"""

from __future__ import annotations

import runpy
from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from bench_build import (
    SHARED_PREFIXES,
    WORD,
    PageShape,
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


@pytest.mark.site
@pytest.mark.heavy
def test_the_equipped_twin_has_the_real_reference_pages_and_the_project_settings_for_them(
    plain_twin: PlainTwin, tmp_path: Path
) -> None:
    pages = plain_twin.pages
    write_equipped_site(plain_twin.srcdir, REPO, tmp_path / "equipped")
    for page in pages:
        same = (tmp_path / "equipped" / page.name).read_bytes() == page.read_bytes()
        assert same == is_generated(page), page.name
    twin_conf = runpy.run_path(str(tmp_path / "equipped" / "conf.py"))
    project_conf = runpy.run_path(str(REPO / "conf.py"))
    shared = {name for name in project_conf if name.startswith(SHARED_PREFIXES)}
    assert {"autodoc_typehints", "napoleon_numpy_docstring", "codeautolink_inventory_map"} <= shared
    assert {name: twin_conf[name] for name in shared} == {name: project_conf[name] for name in shared}
    third_party = {"sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx_codeautolink", "sphinxarg.ext"}
    # The project sets codeautolink up through llmglossary (its codelinks module), the twin by name.
    assert third_party - {"sphinx_codeautolink"} <= set(project_conf["extensions"])
    assert "llmglossary" in project_conf["extensions"]
    assert set(twin_conf["extensions"]) == {"myst_parser", "llmglossary.codelinks", *third_party}

    result = build(tmp_path / "equipped")
    assert result.warnings == ""
    assert 'id="llmcalc.ModelConfig"' in result.html("reference-models")  # autodoc documented it
    # The examples' llmcalc names link to the reference, as on the real pages.
    assert "sphinx-codeautolink-a" in result.html("05-the-transformer")
