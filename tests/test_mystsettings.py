"""docs/_ext/mystsettings.py: cached docutils defaults, handed out as independent copies."""

from __future__ import annotations

from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser as RSTParser

from mystsettings import default_settings


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
