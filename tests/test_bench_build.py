"""benchmarks/bench_build.py: its plain twin still mirrors the real pages.

The benchmark compares our build with a plain-Sphinx twin it generates by parsing the
pages' Markdown.  If the page format drifts from what its parser expects, the twin
silently shrinks and the ratios lie; these checks catch that without timing anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from bench_build import page_shape, source_pages, write_plain_site
from sphinxbuild import REPO, build

SITE = REPO / "_build" / "html" / "en"


@pytest.mark.site
def test_the_parser_finds_every_entry_the_real_build_shows() -> None:
    for page in source_pages(REPO / "docs"):
        built = SITE / f"{page.stem}.html"
        if not built.exists():
            pytest.fail(f"{built} is missing: run `make html` before the site checks")
        entries = BeautifulSoup(built.read_text(encoding="utf-8"), "html.parser").select("dl.glossary > dt")
        shape = page_shape(page)
        # An entry with aliases is one <dt> per name in the output.
        assert sum(entry.names for entry in shape.entries) == len(entries), page.name


def test_the_plain_twin_builds_without_a_warning_and_keeps_every_entry(tmp_path: Path) -> None:
    shapes = [page_shape(page) for page in source_pages(REPO / "docs")]
    write_plain_site(shapes, tmp_path / "plain")
    result = build(tmp_path / "plain")
    assert result.warnings == ""
    terms = sum(
        len(BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").select("dl.glossary > dt"))
        for page in result.outdir.glob("*.html")
    )
    assert terms == sum(entry.names for shape in shapes for entry in shape.entries) > 300
