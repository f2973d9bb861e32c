"""docs/_ext/mystsettings.py: cached docutils defaults and a shared markdown-it parser."""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import myst_parser.parsers.sphinx_ as myst_sphinx
import pytest
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser as RSTParser
from markdown_it import MarkdownIt
from myst_parser.parsers.mdit import create_md_parser

import mystsettings
from mystsettings import default_settings
from sphinxbuild import build, write_tree


def test_each_document_gets_the_same_defaults_as_a_fresh_build() -> None:
    cached, fresh = vars(default_settings(RSTParser)), vars(get_default_settings(RSTParser))
    # A DependencyList compares by identity: each document must get its own, empty one.
    cached_deps, fresh_deps = cached.pop("record_dependencies"), fresh.pop("record_dependencies")
    assert cached == fresh
    assert type(cached_deps) is type(fresh_deps) and cached_deps.list == fresh_deps.list == []
    assert default_settings(RSTParser).record_dependencies is not default_settings(RSTParser).record_dependencies


def test_changing_one_copy_leaves_the_next_untouched() -> None:
    first = default_settings(RSTParser)
    first.tab_width = 99
    first.env = object()
    second = default_settings(RSTParser)
    assert second.tab_width == 8
    assert not hasattr(second, "env")


# A translated page that exercises what a shared markdown-it parser could get wrong:
# headings (slugs and anchors kept per render; links use explicit targets, since a
# translated heading gets a new slug), footnotes and link definitions (kept in the
# markdown-it environment), glossary terms and links, directives whose content is
# parsed inside the render, a page with front matter (its own configuration), and an
# include parsed as a whole document while the outer render is still running.
TRANSLATED_SITE = {
    "conf.py": """\
        extensions = ["myst_parser"]
        myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
        myst_heading_anchors = 3
        language = "zh_TW"
        locale_dirs = ["locales"]
        gettext_compact = False
        exclude_patterns = ["_build", "snippet.md"]
        """,
    "index.md": """\
        # Home

        ```{toctree}
        terms
        matter
        ```

        See [the terms](#terms-top) and a footnote[^note].

        [^note]: The footnote's own text, with a [link][ref].

        [ref]: https://example.org

        ```{eval-rst}
        .. include:: snippet.md
           :parser: myst_parser.sphinx_
        ```

        Text after the include, which must stay in the outer page.
        """,
    "snippet.md": """\
        An included paragraph with a {term}`Token`.
        """,
    "terms.md": """\
        (terms-top)=
        # Glossary terms

        ```{glossary}
        Token
          A piece of text, $x_i$, that a model reads.

        Vocabulary
          Every {term}`Token` a model knows.
        ```

        :::{note}
        A note with **bold** text and a {term}`vocabulary` link.
        :::

        Term
        : A definition list item.

        ## A second heading

        Back to [the top](#terms-top).
        """,
    "matter.md": """\
        ---
        myst:
          heading_anchors: 2
        ---
        # Front matter

        (own-anchors)=
        ## Its own anchors

        A link to [the anchors](#own-anchors).
        """,
}


def translate_every_message(srcdir: Path) -> None:
    """Write a zh_TW catalog for every page: each message, marked as translated."""
    from babel.messages.pofile import read_po, write_po

    pot_dir = build(srcdir, builder="gettext", overrides={"language": "en"}).outdir
    for pot in pot_dir.glob("*.pot"):
        with pot.open("rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            if message.id:
                message.string = f"譯 {message.id}"
        po = srcdir / "locales" / "zh_TW" / "LC_MESSAGES" / f"{pot.stem}.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        with po.open("wb") as handle:
            write_po(handle, catalog)
    shutil.rmtree(srcdir / "_build")


def doctrees_and_html(srcdir: Path, extensions: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    result = build(srcdir, fresh=True, overrides={"extensions": extensions})
    assert result.warnings == ""
    doctrees = {
        path.stem: pickle.loads(path.read_bytes()).pformat()
        for path in (result.outdir.parent / "doctrees").glob("*.doctree")
    }
    html = {path.name: path.read_text(encoding="utf-8") for path in result.outdir.glob("*.html")}
    shutil.rmtree(srcdir / "_build")
    return doctrees, html


def test_a_reused_parser_gives_the_doctrees_of_a_parser_per_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, TRANSLATED_SITE)
    translate_every_message(tmp_path)
    parsers_created = {"fresh": 0, "shared": 0}

    def counting(kind: str) -> Callable[..., MarkdownIt]:
        def create(*args: Any) -> MarkdownIt:
            parsers_created[kind] += 1
            return create_md_parser(*args)

        return create

    # Upstream: a new parser for every parse.
    monkeypatch.setattr(myst_sphinx, "create_md_parser", counting("fresh"))
    fresh_doctrees, fresh_html = doctrees_and_html(tmp_path, ["myst_parser"])
    # Patched: mystsettings.setup replaces the module global, which builds through ours.
    monkeypatch.setattr(mystsettings, "create_md_parser", counting("shared"))
    shared_doctrees, shared_html = doctrees_and_html(tmp_path, ["myst_parser", "mystsettings"])
    assert myst_sphinx.create_md_parser is mystsettings.shared_md_parser

    assert "譯 Text after the include" in shared_doctrees["index"]
    assert shared_doctrees == fresh_doctrees
    assert shared_html == fresh_html
    # One parser for the build's configuration, one for the front matter page's, and
    # one for each include parsed while the outer render ran (read, then translated).
    assert parsers_created["fresh"] > 20 and parsers_created["shared"] <= 4
