"""Canaries for the workarounds of upstream bugs: each applies only where it was written for.

When a pin in constraints.txt moves, the first test here fails and names the
workaround to re-examine: drop it if the new release fixed the bug, or add the
version to the workaround's list if it did not.  The other tests check that each
workaround is still needed (the upstream bug is still there) and that it does nothing
on a version it was not written for.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import glossarysearch
import myst_parser
import myst_parser.mdit_to_docutils.base as myst_base
import myst_parser.parsers.sphinx_ as myst_sphinx
import pytest
import sphinx.search
import sphinx.transforms.i18n as sphinx_i18n
import sphinx.util.nodes as sphinx_nodes
import sphinx_codeautolink.extension as codeautolink

import codelinks
import debugxml
import i18nparses
import mystsettings
import reference
import themestrings
import zhsearch
from sphinxbuild import build, write_tree

WORKAROUNDS = [
    ("sphinx", zhsearch.STEMMER_BUG_VERSIONS, "docs/_ext/zhsearch.py (sphinx#14229)"),
    ("sphinx", glossarysearch.SEARCHTOOLS_VERSIONS, "docs/_templates/glossarysearch-scorer.js (searchtools.js hooks)"),
    ("myst-parser", mystsettings.PATCHED_VERSIONS, "docs/_ext/mystsettings.py"),
    ("sphinx", i18nparses.PATCHED_VERSIONS, "docs/_ext/i18nparses.py (Locale parses messages twice)"),
    ("sphinx", debugxml.PATCHED_VERSIONS, "docs/_ext/debugxml.py (debug messages' XML made unshown)"),
    ("furo", themestrings.REWRITTEN_VERSIONS, "docs/_ext/themestrings.py"),
    ("sphinx-argparse", reference.UNTRANSLATED_HELP_VERSIONS, "docs/_ext/reference.py (sphinx-argparse#67)"),
    ("sphinx-codeautolink", reference.RST_ONLY_CACHE_VERSIONS, "docs/_ext/reference.py (codeautolink cache, #181)"),
    ("sphinx-codeautolink", codelinks.PATCHED_VERSIONS, "docs/_ext/codelinks.py (link_html re-parses each page)"),
]


@pytest.mark.parametrize(("package", "versions", "workaround"), WORKAROUNDS)
def test_each_workaround_was_written_for_the_installed_release(
    package: str, versions: frozenset[str], workaround: str
) -> None:
    installed = version(package)
    assert installed in versions, (
        f"{package} is now {installed}; {workaround} was written for {sorted(versions)}: "
        "drop it if this release fixed the bug, else add the version"
    )


def language_data(tmp_path: Path, extensions: list[str]) -> str:
    write_tree(tmp_path, {"conf.py": f"extensions = {extensions!r}\n", "index.rst": "Title\n=====\n\n詞元。\n"})
    result = build(tmp_path, overrides={"language": "zh_TW"})
    assert result.warnings == ""
    return (result.outdir / "_static" / "language_data.js").read_text(encoding="utf-8")


@pytest.mark.heavy
def test_sphinx_chinese_search_still_names_a_stemmer_it_does_not_ship(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # add_search_language replaces Sphinx's process-wide entry, so an earlier build with
    # zhsearch in this process would otherwise stand in for the stock search.
    monkeypatch.setitem(sphinx.search.languages, "zh", "sphinx.search.zh.SearchChinese")
    stock = language_data(tmp_path / "stock", [])
    assert "window.Stemmer = ChineseStemmer;" in stock and "class ChineseStemmer" not in stock
    fixed = language_data(tmp_path / "fixed", ["zhsearch"])
    assert "window.Stemmer = EnglishStemmer;" in fixed and "EnglishStemmer" in fixed.split("window.Stemmer")[0]


def test_the_myst_patches_are_left_out_on_other_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    original_settings = myst_base.get_default_settings  # type: ignore[attr-defined]
    original_parser = myst_sphinx.create_md_parser  # type: ignore[attr-defined]
    monkeypatch.setattr(myst_base, "get_default_settings", original_settings)
    monkeypatch.setattr(myst_sphinx, "create_md_parser", original_parser)
    monkeypatch.setattr(myst_parser, "__version__", "0.0.0")
    mystsettings.setup(None)  # type: ignore[arg-type]
    assert myst_base.get_default_settings is original_settings  # type: ignore[attr-defined]
    assert myst_sphinx.create_md_parser is original_parser  # type: ignore[attr-defined]
    monkeypatch.setattr(myst_parser, "__version__", sorted(mystsettings.PATCHED_VERSIONS)[0])
    mystsettings.setup(None)  # type: ignore[arg-type]
    assert myst_base.get_default_settings is mystsettings.default_settings  # type: ignore[attr-defined]
    assert myst_sphinx.create_md_parser is mystsettings.shared_md_parser  # type: ignore[attr-defined]


def test_the_locale_patch_is_left_out_on_other_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    # Unwrapped: an earlier build in this process may have patched it already.
    stock_apply = getattr(sphinx_i18n.Locale.apply, "__wrapped__", sphinx_i18n.Locale.apply)
    monkeypatch.setattr(sphinx_i18n.Locale, "apply", stock_apply)
    monkeypatch.setattr(sphinx, "__version__", "0.0.0")
    i18nparses.setup(None)  # type: ignore[arg-type]
    assert sphinx_i18n.Locale.apply is stock_apply
    monkeypatch.setattr(sphinx, "__version__", sorted(i18nparses.PATCHED_VERSIONS)[0])
    i18nparses.setup(None)  # type: ignore[arg-type]
    patched_apply = sphinx_i18n.Locale.apply
    assert patched_apply is not stock_apply and patched_apply.__wrapped__ is stock_apply  # type: ignore[attr-defined]
    i18nparses.setup(None)  # type: ignore[arg-type]
    assert sphinx_i18n.Locale.apply is patched_apply  # a second build in the process wraps it once


def test_the_codeautolink_patch_is_left_out_on_other_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    from sphinx_codeautolink.extension.block import link_html as stock_link_html

    monkeypatch.setattr(codeautolink, "link_html", stock_link_html)
    monkeypatch.setattr(codelinks, "version", lambda package: "0.0.0")
    codelinks.setup(None)  # type: ignore[arg-type]
    assert codeautolink.link_html is stock_link_html
    monkeypatch.setattr(codelinks, "version", lambda package: sorted(codelinks.PATCHED_VERSIONS)[0])
    codelinks.setup(None)  # type: ignore[arg-type]
    assert codeautolink.link_html is codelinks.link_in_place


def test_the_debug_xml_patch_is_left_out_on_other_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sphinx_nodes, "repr_domxml", debugxml.SPHINX_REPR_DOMXML)
    monkeypatch.setattr(sphinx, "__version__", "0.0.0")
    debugxml.setup(None)  # type: ignore[arg-type]
    assert sphinx_nodes.repr_domxml is debugxml.SPHINX_REPR_DOMXML
    monkeypatch.setattr(sphinx, "__version__", sorted(debugxml.PATCHED_VERSIONS)[0])
    debugxml.setup(None)  # type: ignore[arg-type]
    assert sphinx_nodes.repr_domxml is debugxml.DomXml
