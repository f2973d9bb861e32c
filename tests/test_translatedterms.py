"""A translation's term links are checked at the .po line the translator edits."""

from __future__ import annotations

from pathlib import Path

from sphinxbuild import build, write_tree

CONF = (
    'extensions = ["myst_parser", "llmglossary.translatedterms"]\nlocale_dirs = ["locales"]\ngettext_compact = False\n'
)
INDEX = """\
    # Tiny

    ```{glossary}
    Token
      A piece of text.

    Vocabulary
      The set of every {term}`Token` a model knows.
    ```
    """
CATALOG = """\
    msgid ""
    msgstr ""
    "Content-Type: text/plain; charset=UTF-8\\n"

    msgid "A piece of text."
    msgstr "一小段文字。"

    msgid "The set of every {{term}}`Token` a model knows."
    msgstr "{translation}"
    """


def translated_site(tmp_path: Path, translation: str) -> tuple[Path, str]:
    files = {"conf.py": CONF, "index.md": INDEX,
             "locales/zh_TW/LC_MESSAGES/index.po": CATALOG.format(translation=translation)}
    write_tree(tmp_path, files)
    return tmp_path / "locales/zh_TW/LC_MESSAGES/index.po", build(tmp_path, overrides={"language": "zh_TW"}).warnings


def test_a_link_to_another_target_is_reported_at_the_po_line(tmp_path: Path) -> None:
    catalog, warnings = translated_site(tmp_path, "模型認得的所有{term}`詞元 <Tokn>`。")
    assert (
        f"{catalog}:8: WARNING: translated message's term links differ from the English: lacks ['Token'], "
        "adds ['Tokn']; link the same targets as the English, e.g. {term}`中文 <English term>` "
        "[glossary.translated_term]"
    ) in warnings


def test_a_dropped_link_is_reported_and_a_faithful_one_is_not(tmp_path: Path) -> None:
    catalog, warnings = translated_site(tmp_path / "dropped", "模型認得的所有詞元。")
    lost = "translated message's term links differ from the English: lacks ['Token'], adds nothing"
    assert f"{catalog}:8: WARNING: {lost}" in warnings
    _, faithful = translated_site(tmp_path / "faithful", "模型認得的所有{term}`詞元 <Token>`。")
    assert faithful == ""
