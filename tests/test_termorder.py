"""The dependency-order engine: the glossary store (glossary.py), termorder, termlinks, termindex."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from sphinxbuild import DEFAULT_CONF, BuildResult, build, write_tree

INDEX = """\
    # Test glossary

    ```{toctree}
    basics
    advanced
    all-terms
    ```
    """

BASICS = """\
    # Basics

    ```{glossary}
    Token
      A piece of text.

    Vocabulary
      The set of every {term}`Token` a model knows.
    ```
    """

ADVANCED_BACKWARD = """\
    # Advanced

    ```{glossary}
    Embedding
      A vector for each entry of the {term}`vocabulary`, looked up per {term}`Token`.
    ```
    """

ALL_TERMS = """\
    # All terms

    ## In reading order

    ```{glossary-index}
    ```

    ## A to Z

    ```{glossary-index}
    :order: alphabetical
    ```
    """


def project(tmp_path: Path, conf: str = DEFAULT_CONF, **pages: str) -> Path:
    files = {"index.md": INDEX, "basics.md": BASICS, "advanced.md": ADVANCED_BACKWARD}
    files["all-terms.md"] = ALL_TERMS
    files["conf.py"] = conf
    files.update({f"{name}.md": text for name, text in pages.items()})
    write_tree(tmp_path, files)
    return tmp_path


def forward_warning(srcdir: Path, doc: str, line: int, user: str, used: str, at: str) -> str:
    return (
        f"{srcdir / doc}:{line}: WARNING: glossary entry {user!r} uses term {used!r}, "
        f"which is defined later in reading order (at {at}); define {used!r} first "
        f"or drop the link [glossary.forward_reference]"
    )


@pytest.fixture(scope="module")
def default_site(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """The unedited project, built once for the tests that only read it."""
    return build(project(tmp_path_factory.mktemp("termorder")))


def test_backward_references_build_without_any_warning(default_site: BuildResult) -> None:
    result = default_site
    assert result.warnings == ""


def test_forward_reference_across_pages_names_both_terms_and_locations(tmp_path: Path) -> None:
    basics = BASICS.replace("A piece of text.", "A piece of text, later turned into an {term}`Embedding`.")
    result = build(project(tmp_path, basics=basics))
    assert result.warning_lines() == [
        forward_warning(tmp_path, "basics.md", 5, "Token", "Embedding", "advanced.md:4")
    ]


def test_forward_reference_within_one_page(tmp_path: Path) -> None:
    basics = """\
        # Basics

        ```{glossary}
        Token
          One element of the {term}`Vocabulary`.

        Vocabulary
          Every token a model knows.
        ```
        """
    result = build(project(tmp_path, basics=basics))
    assert result.warning_lines() == [
        forward_warning(tmp_path, "basics.md", 5, "Token", "Vocabulary", "basics.md:7")
    ]


def test_forward_reference_warning_points_at_the_link_not_its_paragraph(tmp_path: Path) -> None:
    """MyST gives a paragraph's roles its first line; the warning names the line the link is on."""
    basics = BASICS.replace("A piece of text.", "A piece of text, the unit a model reads,\n"
                            "      often counted in a {term}`Vocabulary`, and\n"
                            "      finally turned into an {term}`Embedding`.")
    result = build(project(tmp_path, basics=basics))
    assert result.warning_lines() == [
        forward_warning(tmp_path, "basics.md", 6, "Token", "Vocabulary", "basics.md:9"),
        forward_warning(tmp_path, "basics.md", 7, "Token", "Embedding", "advanced.md:4"),
    ]


def test_reference_through_an_alias_is_checked_against_its_entry(tmp_path: Path) -> None:
    advanced = """\
        # Advanced

        ```{glossary}
        Embedding
        Embedding vector
          A vector per token.
        ```
        """
    basics = BASICS.replace("A piece of text.", "A piece of text; see {term}`embedding vector`.")
    result = build(project(tmp_path, basics=basics, advanced=advanced))
    assert result.warning_lines() == [
        forward_warning(tmp_path, "basics.md", 5, "Token", "Embedding", "advanced.md:4")
    ]


def test_self_reference_and_prose_outside_definitions_are_not_flagged(tmp_path: Path) -> None:
    basics = """\
        # Basics

        This page ends at the {term}`Embedding`, defined on the next page.

        ```{glossary}
        Token
          A piece of text; one {term}`token` is the unit of counting.

        Vocabulary
          The set of every {term}`Token`.
        ```
        """
    assert build(project(tmp_path, basics=basics)).warnings == ""


def test_reading_order_follows_the_toctree_not_file_names(tmp_path: Path) -> None:
    index = INDEX.replace("basics\n    advanced", "advanced\n    basics")
    result = build(project(tmp_path, index=index))
    lines = result.warning_lines()
    assert len(lines) == 2
    assert "'Embedding' uses term 'vocabulary'" not in lines[0]
    assert "glossary entry 'Embedding' uses term 'Vocabulary'" in lines[0]
    assert "glossary entry 'Embedding' uses term 'Token'" in lines[1]


def test_entries_show_what_they_build_on_and_what_uses_them(default_site: BuildResult) -> None:
    result = default_site
    assert result.warnings == ""
    basics = BeautifulSoup(result.html("basics"), "html.parser")
    token = basics.find(id="term-Token").find_next_sibling("dd")
    used_by = token.find(class_="used-by")
    assert [a.get_text() for a in used_by.find_all("a")] == ["Vocabulary", "Embedding"]
    assert [a["href"] for a in used_by.find_all("a")] == [
        "#term-Vocabulary",
        "advanced.html#term-Embedding",
    ]
    assert token.find(class_="builds-on") is None
    advanced = BeautifulSoup(result.html("advanced"), "html.parser")
    embedding = advanced.find(id="term-Embedding").find_next_sibling("dd")
    builds_on = embedding.find(class_="builds-on")
    assert [a.get_text() for a in builds_on.find_all("a")] == ["Vocabulary", "Token"]
    assert embedding.find(class_="used-by") is None


def test_all_terms_page_lists_reading_order_by_section_and_a_to_z(default_site: BuildResult) -> None:
    result = default_site
    page = BeautifulSoup(result.html("all-terms"), "html.parser")
    reading, alphabetical = page.find_all(class_="glossary-index")
    assert [r.get_text() for r in reading.find_all(class_="rubric")] == ["Basics", "Advanced"]
    assert [a.get_text() for a in reading.select("li a")] == ["Token", "Vocabulary", "Embedding"]
    assert [r.get_text() for r in alphabetical.find_all(class_="rubric")] == ["E", "T", "V"]
    assert [a.get_text() for a in alphabetical.select("li a")] == ["Embedding", "Token", "Vocabulary"]
    assert alphabetical.select("li a")[0]["href"] == "advanced.html#term-Embedding"


def test_parallel_build_reports_the_same_warning_and_output(tmp_path: Path) -> None:
    basics = BASICS.replace("A piece of text.", "A piece of text, later an {term}`Embedding`.")
    serial = build(project(tmp_path / "serial", basics=basics))
    parallel = build(project(tmp_path / "parallel", basics=basics), parallel=2)
    expected = forward_warning(tmp_path / "{}", "basics.md", 5, "Token", "Embedding", "advanced.md:4")
    assert serial.warning_lines() == [expected.format("serial")]
    assert parallel.warning_lines() == [expected.format("parallel")]
    for docname in ("basics", "advanced", "all-terms"):
        assert serial.html(docname) == parallel.html(docname)


def test_incremental_edit_adds_and_clears_the_warning_and_refreshes_used_by(tmp_path: Path) -> None:
    srcdir = project(tmp_path)
    assert build(srcdir).warnings == ""

    basics = BASICS.replace("A piece of text.", "A piece of text, later an {term}`Embedding`.")
    write_tree(srcdir, {"basics.md": basics})
    edited = build(srcdir)
    assert edited.warning_lines() == [
        forward_warning(srcdir, "basics.md", 5, "Token", "Embedding", "advanced.md:4")
    ]
    # advanced.md was not re-read, yet its "used by" line must now name Token.
    advanced = BeautifulSoup(edited.html("advanced"), "html.parser")
    used_by = advanced.find(id="term-Embedding").find_next_sibling("dd").find(class_="used-by")
    assert [a.get_text() for a in used_by.find_all("a")] == ["Token"]

    write_tree(srcdir, {"basics.md": BASICS})
    fixed = build(srcdir)
    assert fixed.warnings == ""
    advanced = BeautifulSoup(fixed.html("advanced"), "html.parser")
    assert advanced.find(id="term-Embedding").find_next_sibling("dd").find(class_="used-by") is None


def test_a_page_not_reread_keeps_failing_until_fixed(tmp_path: Path) -> None:
    """Editing an unrelated page re-runs the check over the whole glossary."""
    basics = BASICS.replace("A piece of text.", "A piece of text, later an {term}`Embedding`.")
    srcdir = project(tmp_path, basics=basics)
    assert len(build(srcdir).warning_lines()) == 1
    write_tree(srcdir, {"advanced.md": textwrap.dedent(ADVANCED_BACKWARD) + "\nMore words.\n"})
    assert len(build(srcdir).warning_lines()) == 1


@pytest.mark.parametrize("order", ["reading", "alphabetical"])
def test_glossary_index_rejects_unknown_order(tmp_path: Path, order: str) -> None:
    page = f"# All terms\n\n```{{glossary-index}}\n:order: {order}-ish\n```\n"
    result = build(project(tmp_path, **{"all-terms": page}))
    assert result.warning_lines() == [
        f"{tmp_path / 'all-terms.md'}:4: WARNING: 'glossary-index': Invalid option value for "
        f"'order': {order}-ish: \"{order}-ish\" unknown; choose from \"reading\", \"alphabetical\", or "
        f"\"zhuyin\" [myst.directive_option]"
    ]


def written_pages(result_dir: Path, before: dict[str, int]) -> set[str]:
    return {
        path.stem
        for path in result_dir.glob("*.html")
        if path.stem in before and path.stat().st_mtime_ns != before[path.stem]
    }


def page_times(outdir: Path) -> dict[str, int]:
    return {path.stem: path.stat().st_mtime_ns for path in outdir.glob("*.html")}


def test_editing_prose_rewrites_only_the_edited_page(tmp_path: Path) -> None:
    srcdir = project(tmp_path)
    first = build(srcdir)
    before = page_times(first.outdir)
    write_tree(srcdir, {"advanced.md": textwrap.dedent(ADVANCED_BACKWARD) + "\nA closing remark.\n"})
    second = build(srcdir)
    assert second.warnings == ""
    # index: Sphinx itself rewrites a toctree's parent when a child changes.
    assert written_pages(second.outdir, before) - {"genindex", "search"} == {"advanced", "index"}


def rewritten_after(srcdir: Path, edit: dict[str, str]) -> set[str]:
    """Build, apply ``edit``, build again: the pages the second build wrote (beyond Sphinx's own)."""
    before = page_times(build(srcdir).outdir)
    write_tree(srcdir, edit)
    second = build(srcdir)
    assert second.warnings == ""
    return written_pages(second.outdir, before) - {"genindex", "search"}


SHORTER_TOKEN = {"basics.md": BASICS.replace("A piece of text.", "A short piece of text.")}


def test_changing_a_definition_rewrites_the_pages_that_preview_it(tmp_path: Path) -> None:
    conf = DEFAULT_CONF.replace('"llmglossary.termindex"]', '"llmglossary.termindex", "llmglossary.termpreviews"]')
    srcdir = project(tmp_path, conf=conf)
    # advanced.md links Token, so its hover preview shows Token's opening sentence;
    # index: Sphinx itself rewrites a toctree's parent when a child changes.
    assert rewritten_after(srcdir, SHORTER_TOKEN) == {"basics", "index", "advanced"}


def test_a_definition_no_page_shows_elsewhere_rewrites_only_its_own_page(tmp_path: Path) -> None:
    # Without previews, other pages show Token's name and place, never its definition.
    assert rewritten_after(project(tmp_path), SHORTER_TOKEN) == {"basics", "index"}


def test_a_new_entry_rewrites_the_pages_that_list_every_entry(tmp_path: Path) -> None:
    with_byte = BASICS.replace("    Vocabulary\n", "    Byte\n      Eight bits.\n\n    Vocabulary\n")
    assert rewritten_after(project(tmp_path), {"basics.md": with_byte}) == {"basics", "index", "all-terms"}


def test_the_index_alone_adds_no_relation_lines(tmp_path: Path) -> None:
    conf = 'extensions = ["myst_parser", "llmglossary.termindex"]\nexclude_patterns = ["_build"]\n'
    result = build(project(tmp_path, conf=conf))
    assert result.warnings == ""
    index = BeautifulSoup(result.html("all-terms"), "html.parser")
    listed = [a.get_text() for a in index.select(".glossary-index a.term-link")]
    assert listed[:3] == ["Token", "Vocabulary", "Embedding"]
    assert BeautifulSoup(result.html("basics"), "html.parser").select(".term-relations") == []


def test_the_graph_is_built_once_per_build_for_every_consumer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from llmglossary import glossary

    builds: list[str] = []
    build_graph = glossary.GlossaryDomain._build_graph

    def counted(self: glossary.GlossaryDomain) -> glossary.GlossaryGraph:
        builds.append("graph")
        return build_graph(self)

    monkeypatch.setattr(glossary.GlossaryDomain, "_build_graph", counted)
    conf = DEFAULT_CONF.replace(
        '"llmglossary.termindex"]', '"llmglossary.termindex", "llmglossary.termpreviews", "llmglossary.conceptmap"]'
    )
    index = INDEX.replace("    all-terms\n", "    all-terms\n    map\n")
    result = build(project(tmp_path, conf=conf, index=index, map="# Map\n\n```{concept-map}\n```\n"))
    assert result.warnings == ""
    assert "cm-node" in result.html("map")
    # The check, the relation lines, the index, the previews and the map share one graph.
    assert builds == ["graph"]
