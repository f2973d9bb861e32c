"""Offline bundles (tools/make_dist.py) and their checks (tools/check_epub.py) on a tiny site."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from check_epub import check_epub, check_site_zip
from make_dist import declare_content_properties, zip_site
from sphinxbuild import REPO, build, write_tree

CONF = """\
extensions = ["myst_parser", "llmglossary.termorder", "llmglossary.termlinks", "llmglossary.termindex",
              "llmglossary.conceptmap", "llmglossary.mathml"]
exclude_patterns = ["_build"]
html_static_path = [{static!r}]
myst_enable_extensions = ["dollarmath"]
html_math_renderer = "mathml"
project = "Tiny glossary"
author = "Tests"
copyright = "2026, Tests"
version = release = "1.0"
epub_description = "A tiny glossary."
epub_contributor = "Tests"
epub_identifier = epub_uid = "tiny-glossary-en"
"""  # html_static_path: the repository's, as in conf.py (conceptmap.css lives there)

FILES = {
    "conf.py": CONF.format(static=str(REPO / "docs" / "_static")),
    "index.md": """\
        # Tiny glossary

        ```{toctree}
        basics
        map
        ```
        """,
    "basics.md": """\
        # Basics

        ```{glossary}
        Token
          A piece of text.

        Softmax
          Turns one score per {term}`Token` into probabilities, $e^{z_i} / \\sum_j e^{z_j}$.
        ```
        """,
    "map.md": """\
        # Map

        ```{concept-map}
        ```
        """,
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The tiny site built once as HTML and as EPUB, both without a warning."""
    srcdir = tmp_path_factory.mktemp("site")
    write_tree(srcdir, FILES)
    html = build(srcdir)
    assert html.warnings == ""
    epub = build(srcdir, builder="epub")
    assert epub.warnings == ""
    return {"html": html.outdir, "epub": next(epub.outdir.glob("*.epub"))}


def rewrite(source: Path, target: Path, changes: dict[str, bytes], order: list[str] | None = None) -> Path:
    """A copy of the archive ``source`` with some members replaced, optionally reordered."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        infos = original.infolist()
        if order is not None:
            infos.sort(key=lambda info: order.index(info.filename) if info.filename in order else len(order))
        for info in infos:
            copy.writestr(info, changes.get(info.filename, original.read(info)))
    return target


def test_site_zip_has_index_at_the_top_and_every_link_resolves(built: dict[str, Path], tmp_path: Path) -> None:
    archive = tmp_path / "site.zip"
    count = zip_site(built["html"], archive)
    names = zipfile.ZipFile(archive).namelist()
    assert "index.html" in names and "map.html" in names and "_static/conceptmap.css" in names
    assert len(names) == count
    assert not any(name.startswith(".buildinfo") for name in names)
    assert check_site_zip(archive) == []


def test_site_zip_is_reproducible(built: dict[str, Path], tmp_path: Path) -> None:
    zip_site(built["html"], tmp_path / "first.zip")
    zip_site(built["html"], tmp_path / "second.zip")
    assert (tmp_path / "first.zip").read_bytes() == (tmp_path / "second.zip").read_bytes()


def test_sphinx_epub_lacks_the_mathml_and_svg_properties_that_are_then_declared(
    built: dict[str, Path], tmp_path: Path
) -> None:
    opf = zipfile.ZipFile(built["epub"]).read("content.opf").decode("utf-8").splitlines()
    line = {
        page: next(n for n, text in enumerate(opf, 1) if f'href="{page}"' in text)
        for page in ("basics.xhtml", "map.xhtml")
    }
    assert check_epub(built["epub"]) == [
        f'content.opf:{line["basics.xhtml"]}: basics.xhtml contains mathml content; declare properties="mathml"',
        f'content.opf:{line["map.xhtml"]}: map.xhtml contains svg content; declare properties="svg"',
    ]
    fixed = tmp_path / "fixed.epub"
    assert declare_content_properties(built["epub"], fixed) == {
        "basics.xhtml": ["mathml"],
        "map.xhtml": ["svg"],
    }
    assert check_epub(fixed) == []
    first = zipfile.ZipFile(fixed).infolist()[0]
    assert (first.filename, first.compress_type) == ("mimetype", zipfile.ZIP_STORED)


def test_broken_links_are_reported_with_file_line_and_target(built: dict[str, Path], tmp_path: Path) -> None:
    fixed = tmp_path / "fixed.epub"
    declare_content_properties(built["epub"], fixed)
    page = zipfile.ZipFile(fixed).read("basics.xhtml").decode("utf-8")
    lines = page.splitlines()
    body_line = next(number for number, line in enumerate(lines, start=1) if "<h1>" in line)
    lines[body_line - 1] += '<a href="missing.xhtml">x</a><a href="index.xhtml#no-such-id">y</a>'
    broken = rewrite(fixed, tmp_path / "broken.epub", {"basics.xhtml": "\n".join(lines).encode("utf-8")})
    assert check_epub(broken) == [
        f"basics.xhtml:{body_line}: link to 'missing.xhtml': no file 'missing.xhtml' in the archive",
        f"basics.xhtml:{body_line}: link to 'index.xhtml#no-such-id': 'index.xhtml' has no id 'no-such-id'",
    ]


def test_malformed_xhtml_and_a_misplaced_mimetype_are_reported(built: dict[str, Path], tmp_path: Path) -> None:
    fixed = tmp_path / "fixed.epub"
    declare_content_properties(built["epub"], fixed)
    names = zipfile.ZipFile(fixed).namelist()
    page = zipfile.ZipFile(fixed).read("basics.xhtml").replace(b"<h1>", b"<h1><input required>", 1)
    broken = rewrite(fixed, tmp_path / "broken.epub", {"basics.xhtml": page}, order=[*names[1:], names[0]])
    problems = check_epub(broken)
    assert problems[0] == "mimetype: must be the first file in the archive"
    assert len(problems) == 2
    assert problems[1].startswith("basics.xhtml:") and "not well-formed XML" in problems[1]


def test_site_zip_reports_a_link_to_a_missing_page(built: dict[str, Path], tmp_path: Path) -> None:
    archive = tmp_path / "site.zip"
    zip_site(built["html"], archive)
    page = zipfile.ZipFile(archive).read("map.html").replace(b"</body>", b'<a href="gone.html#x">x</a></body>')
    broken = rewrite(archive, tmp_path / "broken.zip", {"map.html": page})
    problems = check_site_zip(broken)
    assert len(problems) == 1
    assert problems[0].startswith("map.html:") and "link to 'gone.html#x': no file 'gone.html'" in problems[0]
