"""The concept map (docs/_ext/llmglossary/conceptmap.py) on tiny temporary sites."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from sphinxbuild import REPO, BuildResult, build, write_tree

CONF = """\
extensions = ["myst_parser", "llmglossary.termorder", "llmglossary.termlinks", "llmglossary.termindex",
              "llmglossary.conceptmap"]
exclude_patterns = ["_build"]
html_static_path = [{static!r}]
"""

INDEX = """\
    # Test glossary

    ```{toctree}
    basics
    advanced
    map
    ```
    """

BASICS = """\
    # Basics

    ```{glossary}
    Token（詞元）
      A piece of text.

    Vocabulary
      The set of every {term}`Token（詞元）` a model knows.
    ```
    """

# Embedding links Token twice: still one edge.
ADVANCED = """\
    # Advanced

    ```{glossary}
    Embedding
      A vector for each entry of the {term}`vocabulary`, looked up per {term}`Token（詞元）`;
      one {term}`Token（詞元）` at a time.

    A deliberately long term name that cannot fit in one column
      Used to check that long labels are cut, linked to {term}`Embedding`.
    ```
    """

MAP = """\
    # Map

    ```{concept-map}
    All the terms and their links.
    ```
    """

TOKEN, VOCABULARY = "basics.html#term-Token", "basics.html#term-Vocabulary"
EMBEDDING = "advanced.html#term-Embedding"
LONG = "advanced.html#term-A-deliberately-long-term-name-that-cannot-fit-in-one-column"


def project(tmp_path: Path, **pages: str) -> Path:
    conf = CONF.format(static=str(REPO / "docs" / "_static"))
    files = {"conf.py": conf, "index.md": INDEX, "basics.md": BASICS, "advanced.md": ADVANCED, "map.md": MAP}
    files.update({f"{name}.md": text for name, text in pages.items()})
    write_tree(tmp_path, files)
    return tmp_path


def svg_of(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser").select_one(".concept-map svg")


def nodes_of(svg: BeautifulSoup) -> list[tuple[str, str, str]]:
    """(href, <title>, visible label) of every term, in drawing order."""
    return [
        (group.a["href"], group.a.title.get_text(), group.a.find("text").get_text())
        for group in svg.select("g.cm-node")
    ]


def edges_of(svg: BeautifulSoup) -> set[tuple[str, str]]:
    """(used term's href, using term's href) for every drawn edge."""
    hrefs = {group["data-node"]: group.a["href"] for group in svg.select("g.cm-node")}
    pairs = [path["data-edge"].split() for path in svg.select("g.cm-edges path")]
    return {(hrefs[source], hrefs[target]) for source, target in pairs}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """The tiny site, built once for the tests that only read it."""
    return build(project(tmp_path_factory.mktemp("map")))


def test_one_node_per_entry_in_reading_order_linking_to_it(site: BuildResult) -> None:
    result = site
    assert result.warnings == ""
    nodes = nodes_of(svg_of(result.html("map")))
    assert [(href, title) for href, title, _label in nodes] == [
        ("basics.html#term-Token", "Token（詞元）"),
        (VOCABULARY, "Vocabulary"),
        (EMBEDDING, "Embedding"),
        (LONG, "A deliberately long term name that cannot fit in one column"),
    ]
    labels = [label for _href, _title, label in nodes]
    # A translated header shows its Chinese first, so a cut loses the English, which the
    # <title> tooltip still has in full.
    assert labels[:3] == ["詞元 Token", "Vocabulary", "Embedding"]
    # Too wide for the widest column: cut, with the full name kept in <title>.
    assert labels[3].endswith("…") and "A deliberately long term name".startswith(labels[3][:20])


def test_one_edge_per_used_term_even_when_linked_twice(site: BuildResult) -> None:
    svg = svg_of(site.html("map"))
    assert edges_of(svg) == {(TOKEN, VOCABULARY), (VOCABULARY, EMBEDDING), (TOKEN, EMBEDDING), (EMBEDDING, LONG)}
    assert len(svg.select("g.cm-edges path")) == 4


def test_each_node_carries_its_own_edges_for_css_highlighting(site: BuildResult) -> None:
    svg = svg_of(site.html("map"))
    embedding = next(group for group in svg.select("g.cm-node") if group.a["href"] == EMBEDDING)
    highlight = embedding.select_one("g.cm-highlight")
    assert highlight["visibility"] == "hidden"
    assert len(highlight.select("path.cm-uses")) == 2  # builds on Vocabulary and Token
    assert len(highlight.select("path.cm-used-by")) == 1  # used by the long term


def test_sections_are_columns_in_reading_order_with_titles(site: BuildResult) -> None:
    svg = svg_of(site.html("map"))
    sections = svg.select("g.cm-sections > a")
    assert [(a["href"], a.title.get_text()) for a in sections] == [
        ("basics.html", "Basics"),
        ("advanced.html", "Advanced"),
    ]
    x_of = {group.a["href"]: int(group.rect["x"]) for group in svg.select("g.cm-node")}
    assert x_of[TOKEN] == x_of[VOCABULARY] < x_of[EMBEDDING] == x_of[LONG]


def test_every_link_in_the_map_reaches_an_existing_anchor(site: BuildResult) -> None:
    result = site
    svg = svg_of(result.html("map"))
    hrefs = [a["href"] for a in svg.find_all("a")]
    assert len(hrefs) == 6
    for href in hrefs:
        page, _, anchor = href.partition("#")
        target = BeautifulSoup((result.outdir / page).read_text(encoding="utf-8"), "html.parser")
        assert not anchor or target.find(id=anchor) is not None, href


def test_stylesheet_only_on_the_page_with_the_map(site: BuildResult) -> None:
    result = site
    assert "_static/conceptmap.css" in result.html("map")
    assert "conceptmap.css" not in result.html("basics")
    assert "All the terms and their links." in result.html("map")


def test_parallel_build_gives_identical_output(site: BuildResult, tmp_path: Path) -> None:
    serial = site
    parallel = build(project(tmp_path / "parallel"), parallel=2)
    assert serial.warnings == parallel.warnings == ""
    assert serial.html("map") == parallel.html("map")


def test_incremental_build_redraws_the_map_when_another_page_changes(tmp_path: Path) -> None:
    srcdir = project(tmp_path)
    assert len(nodes_of(svg_of(build(srcdir).html("map")))) == 4
    logit = "\n    Logit\n      A raw score per {term}`vocabulary` entry.\n    ```\n"
    write_tree(srcdir, {"basics.md": BASICS.replace("    ```\n", logit, 1)})
    edited = build(srcdir)
    assert edited.warnings == ""
    svg = svg_of(edited.html("map"))
    assert "basics.html#term-Logit" in [href for href, _title, _label in nodes_of(svg)]
    assert (VOCABULARY, "basics.html#term-Logit") in edges_of(svg)


def test_text_builder_gets_a_plain_list(tmp_path: Path) -> None:
    result = build(project(tmp_path), builder="text")
    assert result.warnings == ""
    text = (result.outdir / "map.txt").read_text(encoding="utf-8")
    assert "<svg" not in text
    assert "Embedding ← Vocabulary, Token（詞元）" in text
    assert text.index("* Basics") < text.index("* Advanced")


def test_a_term_kept_in_english_leads_with_its_english(tmp_path: Path) -> None:
    """The 2026-12-07 zh_TW review: 「以注意力機制為核心的模型架構 Tran…」 cut off the name readers look for.

    Transformer is a ``name`` in the repository's terminology table, so its label starts with
    the English and a cut loses the gloss; Token is ``chinese`` and keeps its Chinese first.
    """
    basics = BASICS.replace(
        "    Vocabulary\n",
        "    Transformer（以注意力機制為核心的模型架構）\n      A model built on attention.\n\n    Vocabulary\n",
    )
    folder = project(tmp_path, basics=basics)
    with (folder / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(f"glossary_terminology = {str(REPO / 'locales' / 'zh_TW' / 'terminology.tsv')!r}\n")
    result = build(folder)
    assert result.warnings == ""
    labels = {href: label for href, _title, label in nodes_of(svg_of(result.html("map")))}
    assert labels[TOKEN] == "詞元 Token"
    transformer = labels["basics.html#term-Transformer"]
    assert transformer.startswith("Transformer 以注意力"), transformer
