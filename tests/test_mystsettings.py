"""docs/_ext/llmglossary/mystsettings.py: cached docutils defaults and a shared markdown-it parser."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import myst_parser.parsers.sphinx_ as myst_sphinx
import pytest
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser as RSTParser
from markdown_it import MarkdownIt
from myst_parser.parsers.mdit import create_md_parser

from llmglossary import mystsettings
from llmglossary.mystsettings import default_settings
from sphinxbuild import write_tree
from translatedsite import TRANSLATED_SITE, doctrees_and_html, translate_every_message


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
    shared_doctrees, shared_html = doctrees_and_html(tmp_path, ["myst_parser", "llmglossary.mystsettings"])
    assert myst_sphinx.create_md_parser is mystsettings.shared_md_parser

    assert "譯 Text after the include" in shared_doctrees["index"]
    assert shared_doctrees == fresh_doctrees
    assert shared_html == fresh_html
    # One parser for the build's configuration, one for the front matter page's, and
    # one for each include parsed while the outer render ran (read, then translated).
    assert parsers_created["fresh"] > 20 and parsers_created["shared"] <= 4
