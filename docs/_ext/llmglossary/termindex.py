"""The all-terms page: every glossary entry in reading order, A to Z, and in zh_TW by Chinese name.

Readers who already know a word want to jump to it; readers starting out want the
order.  The ``glossary-index`` directive leaves a placeholder that is filled once all
documents are read (``doctree-resolved``), from :mod:`glossary`'s graph, so the page
can never fall out of step with the entries themselves.  It needs only the glossary
store: the "Builds on" lines (:mod:`termlinks`) are a separate choice.

A reader of the zh_TW edition who knows only the Chinese name cannot use an A-to-Z list
of English names.  Taiwanese dictionaries order words by zhuyin (注音) or by radical and
stroke count; the zhuyin order is the one a reader can follow without counting strokes,
and it needs only each character's reading (pypinyin), so the zh_TW page lists the
entries a third time, by their Chinese names in zhuyin order.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.locale import _
from sphinx.util.docutils import SphinxDirective

from .glossary import Entry, GlossaryGraph, add_page_view, glossary
from .glossary_html import entry_link

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata, OptionSpec


VIEW = "glossary-index"


class glossary_index_placeholder(nodes.General, nodes.Element):
    """Stands where the index goes until every document has been read."""


class GlossaryIndexDirective(SphinxDirective):
    """``{glossary-index}`` with ``:order: reading`` (default), ``:order: alphabetical`` or ``:order: zhuyin``.

    ``zhuyin`` lists the entries by their Chinese names in a Chinese build (under a heading
    of its own), and nothing in any other.
    """

    has_content = False
    option_spec: ClassVar[OptionSpec] = {
        "order": lambda value: directives.choice(value, ("reading", "alphabetical", "zhuyin")),
    }

    def run(self) -> list[nodes.Node]:
        glossary(self.env).note_shows_all(self.env.docname, VIEW)
        placeholder = glossary_index_placeholder()
        placeholder["order"] = self.options.get("order", "reading")
        return [placeholder]


def _sort_key(name: str) -> str:
    return unicodedata.normalize("NFKD", name).casefold()


def _initial(name: str) -> str:
    first = _sort_key(name)[:1].upper()
    return first if first.isalpha() and first.isascii() else "#"


def _entry_list(app: Sphinx, docname: str, entries: list[Entry]) -> nodes.bullet_list:
    listing = nodes.bullet_list(classes=["glossary-index-list"])
    for entry in entries:
        listing += nodes.list_item("", nodes.paragraph("", "", entry_link(app.builder, docname, entry)))
    return listing


def _by_section(app: Sphinx, docname: str, entries: list[Entry]) -> list[nodes.Node]:
    sections: dict[str, list[Entry]] = {}
    for entry in entries:
        sections.setdefault(entry.docname, []).append(entry)
    result: list[nodes.Node] = []
    for section, members in sections.items():
        title = app.env.titles[section].astext()
        uri = app.builder.get_relative_uri(docname, section)
        heading = nodes.rubric("", "", nodes.reference("", title, internal=True, refuri=uri))
        result += [heading, _entry_list(app, docname, members)]
    return result


def _alphabetical(app: Sphinx, docname: str, entries: list[Entry]) -> list[nodes.Node]:
    groups: dict[str, list[Entry]] = {}
    for entry in sorted(entries, key=lambda entry: _sort_key(entry.name)):
        groups.setdefault(_initial(entry.name), []).append(entry)
    result: list[nodes.Node] = []
    for initial, members in sorted(groups.items()):
        result += [nodes.rubric(initial, initial), _entry_list(app, docname, members)]
    return result


ZHUYIN_ORDER = "ㄅㄆㄇㄈㄉㄊㄋㄌㄍㄎㄏㄐㄑㄒㄓㄔㄕㄖㄗㄘㄙㄧㄨㄩㄚㄛㄜㄝㄞㄟㄠㄡㄢㄣㄤㄥㄦ"
"""The zhuyin table's order (Unicode puts the medials ㄧㄨㄩ last; the table has them after ㄙ)."""
_TONES = {"\u02ca": 2, "\u02c7": 3, "\u02cb": 4, "\u02d9": 5}
"""Zhuyin tone marks and their tone; the first tone is unmarked."""
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_TRANSLATED_HEADER = re.compile(r".+?（(?P<chinese>.+)）")


def chinese_name(name: str) -> str | None:
    """The Chinese of a translated header ``English（中文）``, or None.

    >>> chinese_name("KV cache（KV 快取）"), chinese_name("KV cache")
    ('KV 快取', None)
    """
    found = _TRANSLATED_HEADER.fullmatch(name)
    return found["chinese"] if found else None


def zhuyin_syllables(chinese: str) -> list[tuple[str, int]]:
    """(zhuyin syllable, tone) of each Han character of ``chinese``; Latin letters passed over.

    The readings are pypinyin's (standard Mandarin) written in zhuyin.

    >>> zhuyin_syllables("KV 快取")
    [('ㄎㄨㄞ', 4), ('ㄑㄩ', 3)]
    """
    from pypinyin import Style, pinyin

    syllables = []
    for character in chinese:
        if not _HAN.match(character):
            continue
        reading = pinyin(character, style=Style.BOPOMOFO)[0][0]
        tone = next((_TONES[mark] for mark in reading if mark in _TONES), 1)
        syllables.append(("".join(mark for mark in reading if mark not in _TONES), tone))
    return syllables


def zhuyin_key(chinese: str) -> tuple[list[tuple[list[int], int]], str]:
    """How a Taiwanese dictionary orders a word: by the zhuyin of its Han characters, in the
    table's order (ㄅㄆㄇㄈ…ㄙㄧㄨㄩㄚ…ㄦ), then by tone; a reader finds KV 快取 under ㄎ.

    >>> sorted(["注意力", "詞元", "批次大小", "嵌入向量", "延遲"], key=zhuyin_key)
    ['批次大小', '嵌入向量', '注意力', '詞元', '延遲']
    """
    order = [([ZHUYIN_ORDER.find(symbol) for symbol in syllable], tone) for syllable, tone in zhuyin_syllables(chinese)]
    return order, chinese.casefold()


def _by_zhuyin(app: Sphinx, docname: str, entries: list[Entry]) -> list[nodes.Node]:
    named = [(chinese_name(entry.name), entry) for entry in entries]
    ordered = sorted(((name, entry) for name, entry in named if name), key=lambda pair: zhuyin_key(pair[0]))
    if not ordered:
        return []
    groups: dict[str, list[Entry]] = {}
    for name, entry in ordered:
        syllables = zhuyin_syllables(name)
        groups.setdefault(syllables[0][0][:1] if syllables else "#", []).append(entry)
    heading = _("By Chinese name, in zhuyin order")
    result: list[nodes.Node] = [nodes.rubric(heading, heading, classes=["glossary-index-heading"])]
    for initial, members in groups.items():
        result += [nodes.rubric(initial, initial), _entry_list(app, docname, members)]
    return result


def fill_indexes(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(glossary_index_placeholder))
    if not placeholders:
        return
    entries = glossary(app.env).graph().entries
    renderers = {"alphabetical": _alphabetical, "zhuyin": _by_zhuyin}
    for placeholder in placeholders:
        shown = renderers.get(placeholder["order"], _by_section)(app, docname, entries)
        if shown:
            placeholder.replace_self(nodes.container("", *shown, classes=["glossary-index"]))
        else:
            placeholder.parent.remove(placeholder)


def index_shown(app: Sphinx, env: BuildEnvironment, graph: GlossaryGraph) -> dict[str, object]:
    """On each all-terms page: every entry's place, name and section title."""
    titles = {docname: env.titles[docname].astext() for docname in {entry.docname for entry in graph.entries}}
    listing = [(entry.shown()[:3], titles[entry.docname]) for entry in graph.entries]
    return dict.fromkeys(glossary(env).pages_showing_all(VIEW), listing)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.glossary")
    app.add_node(glossary_index_placeholder)
    app.add_directive("glossary-index", GlossaryIndexDirective)
    app.connect("doctree-resolved", fill_indexes)
    add_page_view(app, index_shown)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
