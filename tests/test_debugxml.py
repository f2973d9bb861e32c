"""docs/_ext/debugxml.py: a node's XML in Sphinx's debug messages is made only when shown."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import sphinx.util.nodes as sphinx_nodes
from docutils import nodes

import debugxml
from sphinxbuild import build, write_tree
from translatedsite import TRANSLATED_SITE, translate_every_message

# Sphinx's debug messages that show a node as XML: "[i18n] PATCH: <class> to have ...: <xml>"
# from its source workarounds, "[i18n] SKIP <class> because ...: <xml>" from the
# translation's checks.
XML_MESSAGE = re.compile(r"^\[i18n\] (?:PATCH|SKIP)\b.*$", re.MULTILINE)

# The shared translated site, plus nodes each message is written for: a title a
# directive made, a term with a classifier, a code block, a version note.
SITE = {
    **TRANSLATED_SITE,
    "extras.rst": """\
        Extras
        ======

        .. topic:: A topic

           Its text.

        .. code-block:: python

           x = 1

        .. versionadded:: 1.0
           Something new.

        Term : classifier
           A definition.
        """,
}
SITE["index.md"] = SITE["index.md"].replace("        matter\n", "        matter\n        extras\n", 1)


def build_log(srcdir: Path, extensions: list[str], verbosity: int) -> str:
    """A fresh translated build's status output; the build folder is removed."""
    # Sphinx's Chinese search would load jieba's dictionary in each build.
    overrides = {"extensions": extensions, "html_search_language": "en"}
    result = build(srcdir, fresh=True, overrides=overrides, verbosity=verbosity)
    shutil.rmtree(srcdir / "_build")
    assert result.warnings == ""
    return result.status


@pytest.fixture
def translated_site(tmp_path: Path) -> Path:
    write_tree(tmp_path, SITE)
    translate_every_message(tmp_path)
    return tmp_path


@pytest.fixture
def stock_repr_domxml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sphinx's own function, whatever an earlier build in this process left in its place."""
    monkeypatch.setattr(sphinx_nodes, "repr_domxml", debugxml.SPHINX_REPR_DOMXML)


@pytest.mark.usefixtures("stock_repr_domxml")
def test_a_shown_debug_message_reads_as_without_the_extension(translated_site: Path) -> None:
    stock = XML_MESSAGE.findall(build_log(translated_site, ["myst_parser"], verbosity=2))
    patched = XML_MESSAGE.findall(build_log(translated_site, ["myst_parser", "debugxml"], verbosity=2))
    assert sphinx_nodes.repr_domxml is debugxml.DomXml
    assert patched == stock
    # Both kinds of message, for each kind of node above, each with its XML.
    for node_xml in ("<title>A topic</title>", "<term>Term</term>", '<term ids="term-Token">', "<literal_block ",
                     "<versionmodified "):  # fmt: skip
        assert any(node_xml in line for line in stock), node_xml


@pytest.mark.usefixtures("stock_repr_domxml")
def test_no_xml_is_made_for_messages_that_are_not_shown(translated_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = []
    asdom = nodes.Node.asdom

    def counting_asdom(self: nodes.Node, dom: object = None) -> object:
        made.append(type(self).__name__)
        return asdom(self, dom)

    monkeypatch.setattr(nodes.Node, "asdom", counting_asdom)
    build_log(translated_site, ["myst_parser"], verbosity=0)
    # Stock Sphinx makes one XML per debug message, shown or not.
    messages = XML_MESSAGE.findall(build_log(translated_site, ["myst_parser"], verbosity=2))
    assert len(made) == 2 * len(messages) > 0
    made.clear()
    build_log(translated_site, ["myst_parser", "debugxml"], verbosity=0)
    assert made == []


def test_the_text_is_sphinx_own_for_short_long_and_text_nodes() -> None:
    short = nodes.term("", "Token", ids=["term-Token"])
    long = nodes.paragraph("", "A token is a piece of text a model reads; " * 4)
    assert str(debugxml.DomXml(short)) == debugxml.SPHINX_REPR_DOMXML(short) == '<term ids="term-Token">Token</term>'
    assert str(debugxml.DomXml(long)) == debugxml.SPHINX_REPR_DOMXML(long)
    assert str(debugxml.DomXml(long)).endswith("...") and len(str(debugxml.DomXml(long))) == 83
    assert str(debugxml.DomXml(long, 0)) == long.asdom().toxml()
    text = nodes.Text("plain text")  # its DOM is a text node: no markup at all
    assert str(debugxml.DomXml(text)) == debugxml.SPHINX_REPR_DOMXML(text) == "plain text"
