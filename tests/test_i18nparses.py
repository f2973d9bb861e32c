"""docs/_ext/llmglossary/i18nparses.py: Sphinx's Locale transform parses each translated message once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import sphinx
import sphinx.transforms.i18n as sphinx_i18n
from docutils import nodes

from llmglossary import i18nparses
from sphinxbuild import write_tree
from translatedsite import TRANSLATED_SITE, doctrees_and_html, translate_every_message

# The shared translated site, plus what the first pass treats apart: a glossary term
# with a classifier (its term part is not the whole message), a term with two names,
# and a section title.
SITE = {
    **TRANSLATED_SITE,
    "classified.md": """\
        # Classified terms

        ```{glossary}
        Logit : score
          A raw score before softmax.

        Weight
        Parameter
          A number the model learns.
        ```

        A closing paragraph, which links {term}`Logit`.
        """,
}
SITE["index.md"] = SITE["index.md"].replace("        matter\n", "        matter\n        classified\n", 1)


def parsed_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extensions: list[str]) -> tuple[Counter[str], Any]:
    """Build the translated site fresh; the text of every message Sphinx parsed, and the output."""
    parsed: Counter[str] = Counter()
    publish_msgstr = sphinx_i18n._publish_msgstr

    def counting(source: str, *args: Any, **kwargs: Any) -> nodes.Element:
        parsed[source] += 1
        return publish_msgstr(source, *args, **kwargs)

    monkeypatch.setattr(sphinx_i18n, "_publish_msgstr", counting)
    output = doctrees_and_html(tmp_path, extensions)
    monkeypatch.setattr(sphinx_i18n, "_publish_msgstr", publish_msgstr)
    return parsed, output


def stock_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], Any]:
    """The translated site built by Sphinx alone: the messages it parsed, and the output."""
    # An earlier build in this process may have patched the transform already.
    stock_apply = getattr(sphinx_i18n.Locale.apply, "__wrapped__", sphinx_i18n.Locale.apply)
    monkeypatch.setattr(sphinx_i18n.Locale, "apply", stock_apply)
    write_tree(tmp_path, SITE)
    translate_every_message(tmp_path)
    return parsed_messages(tmp_path, monkeypatch, ["myst_parser"])


def test_sphinx_still_parses_a_translated_message_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Upstream alone (the registry row's "still needed" test): stock Sphinx parses a paragraph's
    message in both passes and a term's twice in the first."""
    stock_parsed, _ = stock_parses(tmp_path, monkeypatch)
    assert stock_parsed["譯 A raw score before softmax."] == 2
    assert stock_parsed["譯 Weight"] == 2


@pytest.mark.skipif(
    sphinx.__version__ not in i18nparses.PATCHED_VERSIONS, reason="a Sphinx release the patch was not checked against"
)
def test_each_message_is_parsed_once_and_the_pages_are_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stock_parsed, (stock_doctrees, stock_html) = stock_parses(tmp_path, monkeypatch)
    ours_parsed, (ours_doctrees, ours_html) = parsed_messages(
        tmp_path, monkeypatch, ["myst_parser", "llmglossary.i18nparses"]
    )

    assert "譯 A closing paragraph" in ours_doctrees["classified"]
    assert ours_doctrees == stock_doctrees
    assert ours_html == stock_html
    # The same texts are parsed with the patch, each once (the classified term's term
    # part is a text of its own).
    assert set(ours_parsed) == set(stock_parsed)
    assert [text for text, count in ours_parsed.items() if count != 1] == []
    assert ours_parsed["譯 Logit : score"] == ours_parsed["譯 Logit"] == 1


def test_the_first_pass_parses_only_titles_in_sections_and_terms() -> None:
    parsed: list[str] = []

    def publish(source: str, source_path: str, source_line: int, **kwargs: Any) -> nodes.Element:
        parsed.append(source)
        return nodes.paragraph("", source)

    title = nodes.title("", "Tokens")
    term = nodes.term("", "Token", ids=["term-Token"])
    paragraph = nodes.paragraph("", "A token.")
    doctree = nodes.section("", title, nodes.definition_list("", nodes.definition_list_item("", term)), paragraph)
    parses = i18nparses.FirstPassParses(
        lambda tree: [(title, "Tokens"), (term, "Token"), (paragraph, "A token.")], publish
    )

    first: dict[str, nodes.Element] = {}
    for node, message in parses.extract_messages(doctree):
        first[message] = parses.publish_msgstr(message, "page", 1)
        if node is term:
            # The term part of the term just parsed, as Sphinx asks for it: that parse.
            assert parses.publish_msgstr("Token", "page", 1) is first["Token"]
            # Its second name (another id) is parsed anew.
            assert parses.publish_msgstr("Token", "page", 1) is not first["Token"]
    assert parsed == ["Tokens", "Token", "Token"]
    assert type(first["Tokens"]) is type(first["Token"]) is nodes.paragraph
    assert type(first["A token."]) is nodes.inline  # not a paragraph: left to the second pass

    second = [parses.publish_msgstr(message, "page", 1) for _, message in parses.extract_messages(doctree)]
    assert parsed == ["Tokens", "Token", "Token", "Tokens", "Token", "A token."]
    assert all(type(patch) is nodes.paragraph for patch in second)
