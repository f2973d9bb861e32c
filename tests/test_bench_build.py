"""benchmarks/bench_build.py: its twins still mirror the real pages.

The benchmark compares our build with plain-Sphinx twins it generates by parsing the
pages' Markdown.  If the page format drifts from what its parser expects, a twin
silently shrinks and the ratios lie.  These checks catch that without timing or
building anything: the parser against the built site, the twins' sources against the
real ones.  What only a build of the twins shows (no warning, every term and citation
on the built pages) the benchmark checks itself before it times anything
(``twin_faults``); the last tests make pages drift and check that it says so.
"""

from __future__ import annotations

import runpy
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench_build import (
    CITE_ROLE,
    EQUIPPED_MARKS,
    SHARED_PREFIXES,
    WORD,
    PageShape,
    is_bibliography,
    is_generated,
    page_shape,
    source_pages,
    twin_faults,
    twin_shapes,
    write_equipped_site,
    write_plain_site,
)
from bench_build import BuildResult as BenchBuild
from builtsite import built_page
from sphinxbuild import REPO

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
class Twins:
    pages: list[Path]
    shapes: list[PageShape]
    plain: Path  # the plain twin's source folder
    equipped: Path  # the equipped twin's


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Twins:
    """The two twins' sources, as the benchmark writes them from the built site (not built)."""
    pages = source_pages(REPO / "docs")
    if not all((SITE / f"{page.stem}.html").exists() for page in pages):
        pytest.fail(f"{SITE} is incomplete: run `make html` before the site checks")
    shapes = twin_shapes(pages, SITE)
    folder = tmp_path_factory.mktemp("twin")
    write_plain_site(shapes, folder / "plain")
    write_equipped_site(shapes, REPO, folder / "equipped")
    return Twins(pages, shapes, folder / "plain", folder / "equipped")


@pytest.mark.site
def test_the_plain_twin_keeps_every_entry_with_its_names_and_links(twins: Twins) -> None:
    for shape in twins.shapes:
        twin = page_shape(twins.plain / f"{shape.stem}.md")
        assert [entry.names for entry in twin.entries] == [entry.names for entry in shape.entries], shape.stem
        assert [entry.term_links for entry in twin.entries] == [entry.term_links for entry in shape.entries]
    assert sum(entry.names for shape in twins.shapes for entry in shape.entries) > 300


@pytest.mark.site
def test_the_twin_of_a_generated_page_carries_what_its_build_shows(twins: Twins) -> None:
    """The llmcalc reference pages are mirrored from their built HTML, not their few source lines."""
    generated = [page for page in twins.pages if is_generated(page)]
    assert {page.stem for page in generated} >= {"reference-models", "reference-planner", "reference-cli"}
    for page in generated:
        article = built_page("en", page.stem).select_one("article[role=main]")
        shape = next(shape for shape in twins.shapes if shape.stem == page.stem)
        code = [block for block in shape.prose if block.code]
        assert len(code) == len(article.select("pre")), page.name
        prose_words = sum(len(WORD.findall(" ".join(block.lines))) for block in shape.prose if not block.code)
        source_words = len(WORD.findall(page.read_text(encoding="utf-8")))
        assert prose_words > 5 * source_words, page.name  # the docstrings, not the directives
        assert (twins.plain / page.name).is_file(), page.name


@pytest.mark.site
def test_the_equipped_twin_has_the_real_reference_pages_and_the_project_settings_for_them(twins: Twins) -> None:
    for page in twins.pages:
        same = (twins.equipped / page.name).read_bytes() == page.read_bytes()
        assert same == (is_generated(page) or is_bibliography(page)), page.name
    twin_conf = runpy.run_path(str(twins.equipped / "conf.py"))
    project_conf = runpy.run_path(str(REPO / "conf.py"))
    shared = {name for name in project_conf if name.startswith(SHARED_PREFIXES)}
    assert {"autodoc_typehints", "napoleon_numpy_docstring", "codeautolink_inventory_map"} <= shared
    assert {"bibtex_bibfiles", "bibtex_reference_style", "bibtex_default_style"} <= shared
    assert {name: twin_conf[name] for name in shared} == {name: project_conf[name] for name in shared}
    for bibfile in project_conf["bibtex_bibfiles"]:  # relative to conf.py, in both
        assert (twins.equipped / bibfile).read_bytes() == (REPO / bibfile).read_bytes()
    third_party = {
        "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx_codeautolink", "sphinxarg.ext", "sphinxcontrib.bibtex",
    }  # fmt: skip
    # The project sets codeautolink up through llmglossary (its codelinks module), the twin by name;
    # the twin runs sphinxcontrib-bibtex without llmglossary.bibtexplugins, our workaround of its cost.
    assert third_party - {"sphinx_codeautolink"} <= set(project_conf["extensions"])
    assert "llmglossary" in project_conf["extensions"]
    assert set(twin_conf["extensions"]) == {"myst_parser", *third_party}


@pytest.mark.site
def test_the_equipped_twin_cites_what_each_real_entry_cites(twins: Twins) -> None:
    """Each twin entry cites the keys of its real entry, and each page's text as many of each work."""
    citations = 0
    for page, shape in zip(twins.pages, twins.shapes, strict=True):
        if is_generated(page) or is_bibliography(page):
            continue
        twin_entries = page_shape(twins.equipped / page.name).entries
        assert [entry.cited_keys for entry in twin_entries] == [entry.cited_keys for entry in shape.entries], page.name
        # The text around the glossaries keeps its citations too (the planning page's has some).
        twin_keys = CITE_ROLE.findall((twins.equipped / page.name).read_text(encoding="utf-8"))
        assert Counter(twin_keys) == Counter(CITE_ROLE.findall(page.read_text(encoding="utf-8"))), page.name
        citations += len(twin_keys)
    assert citations > 500


# ---- twin_faults: what the benchmark checks on the built twins before it times them ----

# A glossary page with citations and codeautolink links, the references page, a generated page.
SAMPLE = ("05-the-transformer", "references", "reference-models")


@dataclass(frozen=True)
class Sample:
    pages: list[Path]
    shapes: list[PageShape]
    real: Path
    plain: Path
    equipped: Path


def clean_build() -> BenchBuild:
    return BenchBuild(seconds={}, cpu_seconds={}, failures=[], warnings=[], pages_written=0)


@pytest.fixture
def sample(twins: Twins, tmp_path: Path) -> Sample:
    """Three real built pages standing in for a faithful twin's: copies an edit can make drift."""
    pages = [page for page in twins.pages if page.stem in SAMPLE]
    shapes = [shape for shape in twins.shapes if shape.stem in SAMPLE]
    for folder in ("plain", "equipped"):
        (tmp_path / folder).mkdir()
        for stem in SAMPLE:
            shutil.copyfile(SITE / f"{stem}.html", tmp_path / folder / f"{stem}.html")
    return Sample(pages, shapes, SITE, tmp_path / "plain", tmp_path / "equipped")


def faults(sample: Sample, plain: BenchBuild | None = None, equipped: BenchBuild | None = None) -> list[str]:
    return twin_faults(sample.pages, sample.shapes, sample.real, plain or clean_build(), sample.plain,
                       equipped or clean_build(), sample.equipped)  # fmt: skip


def edit(page: Path, old: str, new: str, count: int = 1) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.count(old) >= count, (page.name, old)
    page.write_text(text.replace(old, new, count), encoding="utf-8")


@pytest.mark.site
def test_twin_faults_finds_none_in_pages_that_mirror_the_real_build(sample: Sample) -> None:
    assert set(EQUIPPED_MARKS) <= set(SAMPLE)
    assert faults(sample) == []


@pytest.mark.site
def test_twin_faults_names_each_way_a_built_twin_drifts(sample: Sample) -> None:
    transformer, references, models = (f"{stem}.html" for stem in SAMPLE)
    warned = clean_build()
    warned.warnings.append("copy1: WARNING: a term that is not there")
    assert faults(sample, plain=warned) == ["plain twin warns: copy1: WARNING: a term that is not there"]
    assert faults(sample, equipped=warned) == ["equipped twin warns: copy1: WARNING: a term that is not there"]

    edit(sample.plain / transformer, '<dt id="', '<dd id="')
    (lost_name,) = faults(sample)
    assert lost_name.startswith("plain twin shows ") and "glossary term names" in lost_name

    edit(sample.equipped / transformer, 'href="references.html#', 'href="elsewhere.html#')
    (lost_citation,) = faults(sample)[1:]
    assert lost_citation.startswith(f"equipped twin: {transformer} shows ") and "citations" in lost_citation

    edit(sample.equipped / references, '<div class="citation"', '<div class="other"')
    assert f"equipped twin: {references} lists " in faults(sample)[2]

    edit(sample.equipped / models, EQUIPPED_MARKS["reference-models"], 'id="elsewhere"')
    assert f"equipped twin: {models} lacks {EQUIPPED_MARKS['reference-models']}" in faults(sample)
