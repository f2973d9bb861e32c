"""The registry of our workarounds for other projects' behaviour: one row each, read by tests and README.

Each :class:`Workaround` names the package it works around, the releases it was
written for (the module applies it only there), the release it expires at, the
upstream report or the ready patch in ``upstream/`` when none is filed yet, what it
gains, as measured, and the test that proves the upstream behaviour is still there.

A workaround that only saves build time is kept while it saves at least twice the
noise of the build it saves in (``benchmarks/bench_workarounds.py`` measures both).
The noise of a fresh English build is 1.25 s of CPU (the pooled standard deviation of
the project's and the equipped twin's rounds in ``benchmarks/README.md``, 20 degrees of
freedom), so a saving under 2.5 s goes: jieba's prefix dictionary (0.4 s) and
sphinx-codeautolink's block hand-over (1.0 s) were removed.

``tests/test_workarounds.py`` checks, for every row, that the installed release is
below :attr:`Workaround.expires` and one of :attr:`Workaround.versions`, that the
module's own version gate is this row's, that the "still needed" test exists, that
the upstream patch folder holds a README and a patch, and that the README's table is
:func:`markdown_table`, row for row.  So a pin that moves, a release that reaches a
row's expiry (on whichever Python it needs: ``make newest`` installs it), a gate edited
in one place only, or a README left behind, fails the suite.

This module is data, not an extension: it has no ``setup()``.

Examples
--------
>>> row = REGISTRY["zhsearch-stemmer"]
>>> row.package, row.expires, row.upstream_patch
('sphinx', '9.1.1', '')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Workaround:
    """One workaround: where it is, what it works around, and how we know it still matters.

    Parameters
    ----------
    key
        Short name, the row's key in :data:`REGISTRY`.
    module
        Where the workaround lives, ``module.name`` in the package ``docs/_ext/llmglossary``
        (``zhsearch.stemmer.english_stemmer_code`` for a subpackage's module), or
        ``tools/<file>.py:name`` for one of the repository's tools.
    package
        The distribution whose behaviour is worked around, as ``importlib.metadata`` names it.
    versions
        The releases of ``package`` it was written for and checked against.
    expires
        The release of ``package`` from which the workaround goes: the first release
        with the upstream fix where it has shipped, else two minor releases (a year, for
        a package versioned by date) after the newest one checked: by then the upstream
        patch is in, or the row is measured and justified again.
    what
        What it changes, in one line.
    upstream
        The upstream issue or pull request, or ``"to file"`` when none exists yet.
    upstream_patch
        The folder under the repository root holding the proposed upstream change
        (``README.md`` with the issue text, and ``*.patch``), or ``""`` when upstream
        already has a fix.
    gain
        What it buys, measured (CPU seconds of a fresh build, or what breaks without it).
    still_needed
        The pytest node id of the test that fails once upstream has changed the behaviour.
    """

    key: str
    module: str
    package: str
    versions: frozenset[str]
    expires: str
    what: str
    upstream: str
    upstream_patch: str
    gain: str
    still_needed: str


TO_FILE = "to file"

ROWS = (
    Workaround(
        key="i18nparses",
        module="i18nparses.parse_once",
        package="sphinx",
        versions=frozenset({"9.0.4", "9.2.0"}),
        expires="9.4.0",
        what="Locale transform: each translated message parsed once, not twice",
        upstream=TO_FILE,
        upstream_patch="upstream/sphinx-locale-single-parse",
        gain="zh_TW fresh build 3 to 4 s CPU faster (Locale transform 4.0 s to 2.5 s); review of 2026-12-01",
        still_needed="tests/test_i18nparses.py::test_sphinx_still_parses_a_translated_message_twice",
    ),
    Workaround(
        key="mystsettings",
        module="mystsettings.default_settings, mystsettings.shared_md_parser",
        package="myst-parser",
        versions=frozenset({"5.2.0"}),
        expires="5.4.0",
        what="docutils defaults and the markdown-it parser built once per build, not per message",
        upstream=TO_FILE,
        upstream_patch="upstream/myst-parser-per-message-setup",
        gain="zh_TW fresh build about 10 s CPU faster; with i18nparses 41 to 42 s down to 20 to 21 s "
        "(review of 2026-12-01)",
        still_needed="tests/test_workarounds.py::test_myst_still_builds_settings_and_a_parser_per_parse",
    ),
    Workaround(
        key="themestrings",
        module="themestrings.TranslateThemeLiterals",
        package="furo",
        versions=frozenset({"2025.12.19"}),
        expires="2026.12.19",
        what="Furo's literal English labels rewritten into _() calls as its templates load",
        upstream=TO_FILE,
        upstream_patch="upstream/furo-translatable-labels",
        gain="correctness: 3 ARIA labels, 7 icon titles and the footer possessive translated in zh_TW",
        still_needed="tests/test_workarounds.py::test_furo_templates_still_hold_literal_english_labels",
    ),
    Workaround(
        key="argparse-help-source",
        module="reference.TranslateCommandLineReference",
        package="sphinx-argparse",
        versions=frozenset({"0.6.1"}),
        expires="0.8.0",
        what="option help paragraphs given the page as source, so gettext translates them",
        upstream="https://github.com/sphinx-doc/sphinx-argparse/issues/67",
        upstream_patch="",
        gain="correctness: the zh_TW command-line reference is translated, not English",
        still_needed="tests/test_workarounds.py::test_sphinx_argparse_still_leaves_help_paragraphs_without_a_source",
    ),
    Workaround(
        key="codeautolink-cache",
        module="reference.restore_saved_examples",
        package="sphinx-codeautolink",
        versions=frozenset({"0.20.0"}),
        expires="0.22.0",
        what="saved examples of MyST pages restored after codeautolink reads its .rst-only cache",
        upstream="https://github.com/felix-hilden/sphinx-codeautolink/issues/181",
        upstream_patch="upstream/sphinx-codeautolink-cache-suffixes",
        gain="correctness: a page rewritten but not re-read keeps its example links",
        still_needed="tests/test_reference_cache.py::test_codeautolink_alone_drops_a_myst_pages_examples",
    ),
    Workaround(
        key="zhsearch-stemmer",
        module="zhsearch.stemmer.english_stemmer_code",
        package="sphinx",
        versions=frozenset({"9.0.4"}),
        expires="9.1.1",
        what="Chinese search ships the English stemmer under the name its language_data.js uses",
        upstream="https://github.com/sphinx-doc/sphinx/issues/14229 (fixed by #14416 in 9.1.1, for Python 3.12+)",
        upstream_patch="",
        gain="correctness: zh_TW search works at all (no ReferenceError)",
        still_needed="tests/test_workarounds.py::test_sphinx_chinese_search_still_names_a_stemmer_it_does_not_ship",
    ),
    Workaround(
        key="zhsearch-split",
        module="zhsearch.language.traditional_chinese_search (split)",
        package="sphinx",
        versions=frozenset({"9.0.4", "9.2.0"}),
        expires="9.4.0",
        what="remembered segmentations replay SearchChinese.split's side effect on latin_terms",
        upstream=TO_FILE,
        upstream_patch="upstream/sphinx-chinese-split-cache",
        gain="incremental zh_TW build 3.30 s to 2.18 s (measured on the flat zhsearch.py, before issue 29)",
        still_needed="tests/test_workarounds.py::test_sphinx_chinese_split_still_notes_latin_terms_as_a_side_effect",
    ),
    Workaround(
        key="glossarysearch-scorer",
        module="glossarysearch.SEARCHTOOLS_VERSIONS",
        package="sphinx",
        versions=frozenset({"9.0.4", "9.2.0"}),
        expires="9.4.0",
        what="the search page's scorer wraps Search._performSearch and Search.stopPulse to rank glossary "
        "objects first and add snippets, and puts the catalog's search-page messages in Documentation.TRANSLATIONS",
        upstream=TO_FILE,
        upstream_patch="upstream/sphinx-search-results-hook",
        gain="correctness: every glossary name ranks its entry first with a snippet, offline (issue 26; 100 % top-1 "
        "in both languages against 16-98 % before); the zh_TW result count shown (issue 42; empty before)",
        still_needed="tests/test_glossarysearch.py::test_the_installed_searchtools_still_has_what_the_scorer_extends",
    ),
    Workaround(
        key="bibtexplugins",
        module="bibtexplugins.register_plaintext_backend",
        package="sphinxcontrib-bibtex",
        versions=frozenset({"2.7.0"}),
        expires="2.9.0",
        what="pybtex's plaintext backend registered as a run-time plugin: resolving a citation reads no entry points",
        upstream=TO_FILE,
        upstream_patch="upstream/sphinxcontrib-bibtex-backend-once",
        gain="English text build on a saved environment 11.5 s to 8.3 s CPU (medians of 4, 2026-12-01); "
        "the lookups were 15 % of a fresh English HTML build under cProfile",
        still_needed="tests/test_workarounds.py::test_sphinxcontrib_bibtex_still_looks_up_the_backend_per_citation",
    ),
    Workaround(
        key="babel-previous-msgid",
        module="tools/intl_update.py:_previous_lines",
        package="babel",
        versions=frozenset({"2.19.0"}),
        expires="2.21.0",
        what="make intl-update writes a fuzzy entry's previous English one quoted line per '#|' line, as msgmerge "
        "does, instead of through Babel's comment wrapper",
        upstream=TO_FILE,
        upstream_patch="upstream/babel-previous-msgid-lines",
        gain="correctness: a long previous English read back whole, where Babel's lines cut words and lost "
        "characters ('befault' for 'by default', 2026-12-02)",
        still_needed="tests/test_workarounds.py::test_babel_still_wraps_a_long_previous_msgid_as_a_comment",
    ),
)

REGISTRY = {row.key: row for row in ROWS}
"""Every workaround, by key."""


def markdown_table() -> str:
    """The README's table of workarounds, one line per row of :data:`ROWS`.

    >>> markdown_table().splitlines()[0]
    '| Workaround | Package | Releases | Expires at | What it does | Upstream | Gain | Still needed while |'
    """
    lines = [
        "| Workaround | Package | Releases | Expires at | What it does | Upstream | Gain | Still needed while |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in ROWS:
        upstream = row.upstream if row.upstream != TO_FILE else f"to file: `{row.upstream_patch}/`"
        if row.upstream_patch and row.upstream != TO_FILE:
            upstream += f"; patch: `{row.upstream_patch}/`"
        lines.append(
            f"| `{row.module}` | {row.package} | {', '.join(sorted(row.versions))} | {row.expires} | {row.what} "
            f"| {upstream} | {row.gain} | `{row.still_needed}` |"
        )
    return "\n".join(lines)
