"""A translated build fails on a message its catalog does not translate (docs/_ext/llmglossary/untranslated.py).

A tiny zh_TW site: one message translated, one translated as itself (a name that stays as
it is), one whose English changed after it was translated (the catalog still holds the
old English), and one missing from the catalog.  Exactly the last two are reported, at
their English source lines; the English build and a complete catalog report nothing.
"""

from __future__ import annotations

from pathlib import Path

from sphinxbuild import build, write_tree

CONF = 'extensions = ["myst_parser", "llmglossary.untranslated"]\nlocale_dirs = ["locales"]\ngettext_compact = False\n'
INDEX = """\
# Tiny

A token is a piece of text.

GPT-2

The vocabulary holds every token.

A model reads tokens.
"""
CATALOG = """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Tiny"
msgstr "小網站"

msgid "A token is a piece of text."
msgstr "詞元是一小段文字。"

msgid "GPT-2"
msgstr "GPT-2"

msgid "The vocabulary holds every token, old wording."
msgstr "詞彙表收錄每個詞元。"
"""


def site(tmp_path: Path, catalog: str, language: str = "zh_TW") -> tuple[Path, list[str]]:
    write_tree(tmp_path, {"conf.py": CONF, "index.md": INDEX, "locales/zh_TW/LC_MESSAGES/index.po": catalog})
    result = build(tmp_path, overrides={"language": language})
    return tmp_path / "locales/zh_TW/LC_MESSAGES/index.po", result.warning_lines()


def test_a_stale_and_a_missing_message_are_reported_at_their_english_lines(tmp_path: Path) -> None:
    catalog, warnings = site(tmp_path, CATALOG)
    assert warnings == [
        f"{tmp_path / 'index.md'}:{line}: WARNING: message not translated: {text!r}; add its translation to "
        f"{catalog.resolve()} (make intl-update merges the English into it) [glossary.untranslated]"
        for line, text in [(7, "The vocabulary holds every token."), (9, "A model reads tokens.")]
    ]


def test_an_entry_left_empty_or_fuzzy_is_reported_at_its_catalog_line(tmp_path: Path) -> None:
    """The translator is sent to the line to fill in, not only to the catalog."""
    catalog_text = CATALOG.split('msgid "The vocabulary')[0] + (
        '#, fuzzy\nmsgid "The vocabulary holds every token."\nmsgstr "詞彙表收錄每個詞元。"\n\n'
        'msgid "A model reads tokens."\nmsgstr ""\n'
    )
    catalog, warnings = site(tmp_path, catalog_text)
    lines = catalog.read_text(encoding="utf-8").splitlines()
    empty = lines.index('msgid "A model reads tokens."') + 1
    fuzzy = lines.index('msgid "The vocabulary holds every token."') + 1
    assert warnings == [
        f"{tmp_path / 'index.md'}:{line}: WARNING: message not translated: {text!r}; its entry at "
        f"{catalog.resolve()}:{at} is {state}: translate it there [glossary.untranslated]"
        for line, text, at, state in [
            (7, "The vocabulary holds every token.", fuzzy, "fuzzy"),
            (9, "A model reads tokens.", empty, "empty"),
        ]
    ]


def test_a_complete_catalog_and_the_english_build_report_nothing(tmp_path: Path) -> None:
    complete = CATALOG.replace(", old wording.", ".") + '\nmsgid "A model reads tokens."\nmsgstr "模型讀取詞元。"\n'
    assert site(tmp_path / "complete", complete)[1] == []
    assert site(tmp_path / "english", CATALOG, language="en")[1] == []
