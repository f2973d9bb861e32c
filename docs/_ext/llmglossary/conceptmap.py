"""The concept map: every glossary entry and the earlier entries it uses, as one picture.

The ``concept-map`` directive draws :mod:`glossary`'s dependency graph as inline SVG,
written at build time in Python, so the map needs no JavaScript, no graph library and
no network, and works from ``file://``, a zip or an EPUB.  The layout follows the
reading order, which is what makes a graph of 300+ terms legible:

* one column per page, left to right in reading order, headed by the page title;
* the page's entries stacked top to bottom in reading order;
* a light curve from each entry to every later entry whose definition links it.
  Since definitions only link earlier terms, curves run rightwards between columns,
  or bulge left of the column within one page.

Each term is a link to its entry.  Hovering or focusing a term shows its own curves
in colour (what it builds on, what uses it): each term's group carries a hidden copy
of its curves that ``conceptmap.css`` reveals with ``:hover`` / ``:focus-within``, so
the highlighting needs no script either.

Like the all-terms page, the directive leaves a placeholder that is filled once every
document is read (``doctree-resolved``).  Builders that cannot show SVG (text, LaTeX,
...) get a plain list of the terms and what each builds on.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from .glossary import Entry, GlossaryGraph, add_page_view, glossary
from .glossary_html import NOT_HIGHLIGHTED, add_stylesheet_where
from .terminology import kept_in_english, terminology_path

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata
    from sphinx.writers.html5 import HTML5Translator

# Geometry, in CSS pixels at the map's natural size (it scrolls rather than shrinks,
# so the labels keep this size).
FONT_SIZE = 12
NODE_HEIGHT = 18
ROW_HEIGHT = 24
LABEL_PADDING = 6
COLUMN_GAP = 64
MARGIN = 16
MIN_COLUMN_WIDTH = 110
MAX_COLUMN_WIDTH = 230
HEADER_LINE_HEIGHT = 15
HEADER_LINES = 3
HEADER_HEIGHT = HEADER_LINES * HEADER_LINE_HEIGHT + 12

LATIN_CHAR_WIDTH = 0.6  # average advance of a sans-serif Latin character, in em
WIDE_CHAR_WIDTH = 1.0  # CJK and full-width punctuation


VIEW = "concept-map"


class concept_map_placeholder(nodes.General, nodes.Element):
    """Stands where the map goes until every document has been read."""


class concept_map(nodes.General, nodes.Element):
    """The finished map for HTML builders: its ``svg`` attribute is the markup."""


class ConceptMapDirective(SphinxDirective):
    """``{concept-map}``; optional content is a caption shown above the map."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        glossary(self.env).note_shows_all(self.env.docname, VIEW)
        figure = nodes.container(classes=["concept-map-figure"])
        if self.content:
            # Parsed like any paragraph, so it is translated through the page's catalog.
            caption = nodes.container(classes=["concept-map-caption"])
            self.state.nested_parse(self.content, self.content_offset, caption)
            figure += caption
        figure += concept_map_placeholder()
        self.set_source_info(figure)
        return [figure]


def text_width(text: str, font_size: float = FONT_SIZE) -> float:
    """Estimated rendered width of ``text``: wide (CJK) characters count a full em.

    >>> text_width("Token")
    36.0
    >>> text_width("詞元")
    24.0
    """
    ems = sum(
        WIDE_CHAR_WIDTH if unicodedata.east_asian_width(char) in "WF" else LATIN_CHAR_WIDTH
        for char in text
    )
    return round(ems * font_size, 2)


def fit(text: str, width: float) -> str:
    """``text``, cut and ended with an ellipsis if it is wider than ``width``.

    >>> fit("Sliding window attention", 100)
    'Sliding wind…'
    >>> fit("Token", 100)
    'Token'
    """
    if text_width(text) <= width:
        return text
    while text and text_width(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def wrap(text: str, width: float, max_lines: int) -> list[str]:
    """Greedy line breaking, at most ``max_lines``: at spaces, and between wide characters.

    A run of Latin letters or digits is never split, and the text's own spaces are kept
    where it has them and nowhere else (Chinese puts one between a Latin run and a
    Chinese character, and none inside a run of Chinese).

    >>> wrap("Precision and quantization", 120, 3)
    ['Precision and', 'quantization']
    >>> wrap("精度與量化", 30, 3)
    ['精度', '與量', '化']
    >>> wrap("GPU、FLOPS 與記憶體", 200, 3)
    ['GPU、FLOPS 與記憶體']
    >>> wrap("現代注意力機制與混合專家（MoE）", 120, 3)
    ['現代注意力機制與混合', '專家（MoE）']
    """
    lines: list[list[tuple[str, bool]]] = []
    for piece, spaced in _pieces(text):
        if lines and text_width(_line(lines[-1] + [(piece, spaced)])) <= width:
            lines[-1].append((piece, spaced))
        else:
            lines.append([(piece, spaced)])
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], [piece for line in lines[max_lines - 1 :] for piece in line]]
    return [fit(_line(line), width) for line in lines]


def _line(pieces: list[tuple[str, bool]]) -> str:
    """Pieces joined with the spaces the text had between them (none at the line's start)."""
    return "".join((" " if spaced and index else "") + piece for index, (piece, spaced) in enumerate(pieces))


def _pieces(text: str) -> list[tuple[str, bool]]:
    """The unbreakable pieces of ``text``, each with whether a space precedes it.

    >>> _pieces("GPU、FLOPS 與記憶體")
    [('GPU', False), ('、', False), ('FLOPS', False), ('與', True), ('記', False), ('憶', False), ('體', False)]
    """
    pieces: list[tuple[str, bool]] = []
    for word_index, word in enumerate(text.split(" ")):
        for run_index, run in enumerate(_runs(word)):
            pieces.append((run, word_index > 0 and run_index == 0))
    return pieces


def _runs(word: str) -> list[str]:
    """A space-free word split into single wide characters and runs of narrow ones."""
    runs: list[str] = []
    for char in word:
        if runs and not _is_wide(char) and not _is_wide(runs[-1][-1]):
            runs[-1] += char
        else:
            runs.append(char)
    return runs


def node_label(name: str, english_first: frozenset[str] = frozenset()) -> str:
    """What a node shows: for a header ``English（中文）``, first the name a reader looks for.

    That is the Chinese for a term written in Chinese, and the English for one that running
    text keeps in English (``english_first``: acronyms, terms of art and names, whose
    Chinese only glosses them).  The zh map's columns are sized for short labels, so the
    part cut off when a label is too long is the gloss; the tooltip has the whole header.

    >>> node_label("Train/validation/test split（訓練、驗證與測試資料切分）")
    '訓練、驗證與測試資料切分 Train/validation/test split'
    >>> node_label("tiktoken（OpenAI 的 BPE 詞元切分工具庫）", frozenset({"tiktoken"}))
    'tiktoken OpenAI 的 BPE 詞元切分工具庫'
    >>> node_label("Token")
    'Token'
    """
    match = re.fullmatch(r"(.+?)（(.+)）", name)
    if match is None:
        return name
    english, chinese = match[1], match[2]
    return f"{english} {chinese}" if english.lower() in english_first else f"{chinese} {english}"


def _is_wide(char: str) -> bool:
    return bool(char) and unicodedata.east_asian_width(char) in "WF"


@dataclass
class Column:
    docname: str
    title: str
    x: float
    width: float
    entries: list[Entry]


@dataclass
class Placed:
    """Where one entry is drawn."""

    index: int
    entry: Entry
    column: Column
    y: float  # vertical centre of the node

    @property
    def left(self) -> float:
        return self.column.x

    @property
    def right(self) -> float:
        return self.column.x + self.column.width


def layout(
    titles: dict[str, str], graph: GlossaryGraph, english_first: frozenset[str] = frozenset()
) -> tuple[list[Column], list[Placed], float, float]:
    """Columns per document and node positions; returns (columns, nodes, width, height)."""
    grouped: dict[str, list[Entry]] = {}
    for entry in graph.entries:
        grouped.setdefault(entry.docname, []).append(entry)
    columns: list[Column] = []
    placed: list[Placed] = []
    x = MARGIN + COLUMN_GAP / 2  # room for the same-page curves of the first column
    for docname, entries in grouped.items():
        widest = max(text_width(node_label(entry.name, english_first)) for entry in entries) + 2 * LABEL_PADDING
        width = min(max(widest, MIN_COLUMN_WIDTH), MAX_COLUMN_WIDTH)
        column = Column(docname, titles.get(docname, docname), x, width, entries)
        columns.append(column)
        for row, entry in enumerate(entries):
            y = MARGIN + HEADER_HEIGHT + row * ROW_HEIGHT + NODE_HEIGHT / 2
            placed.append(Placed(len(placed), entry, column, y))
        x += width + COLUMN_GAP
    longest = max((len(column.entries) for column in columns), default=0)
    height = MARGIN * 2 + HEADER_HEIGHT + longest * ROW_HEIGHT
    return columns, placed, x - COLUMN_GAP / 2 + MARGIN, height


def edges(graph: GlossaryGraph) -> list[tuple[Entry, Entry]]:
    """(used entry, entry whose definition uses it), each pair once, in reading order."""
    pairs: list[tuple[Entry, Entry]] = []
    for entry in graph.entries:
        seen: set[tuple[str, str]] = set()
        for used, _line in graph.uses[entry.key]:
            if used.key not in seen:
                seen.add(used.key)
                pairs.append((used, entry))
    return pairs


def curve(source: Placed, target: Placed) -> str:
    """SVG path data for one edge: rightwards between columns, a left bulge within one."""
    if source.column is target.column:
        x = source.left
        rows = abs(target.y - source.y) / ROW_HEIGHT
        bulge = min(COLUMN_GAP * 0.45, 6 + 3 * rows)
        return (
            f"M{x:.0f} {source.y:.0f}C{x - bulge:.0f} {source.y:.0f} "
            f"{x - bulge:.0f} {target.y:.0f} {x:.0f} {target.y:.0f}"
        )
    x1, x2 = source.right, target.left
    pull = max(min(abs(x2 - x1) / 2, 120), COLUMN_GAP / 2)
    return (
        f"M{x1:.0f} {source.y:.0f}C{x1 + pull:.0f} {source.y:.0f} "
        f"{x2 - pull:.0f} {target.y:.0f} {x2:.0f} {target.y:.0f}"
    )


def render_svg(app: Sphinx, fromdocname: str, graph: GlossaryGraph, label: str, serial: int) -> str:
    """The map as an ``<svg>`` element, links relative to ``fromdocname``."""
    titles = {docname: title.astext() for docname, title in app.env.titles.items()}
    table = terminology_path(app.config)
    english = kept_in_english(table) if table is not None and table.exists() else frozenset()
    columns, placed, width, height = layout(titles, graph, english)
    by_key = {node.entry.key: node for node in placed}
    pairs = [(by_key[used.key], by_key[user.key]) for used, user in edges(graph)]
    escape = html.escape

    def href(docname: str, anchor: str = "") -> str:
        uri = app.builder.get_relative_uri(fromdocname, docname)
        return escape(uri + ("#" + anchor if anchor else ""))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="concept-map-svg" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" font-size="{FONT_SIZE}" '
        f'role="group" aria-labelledby="concept-map-{serial}-title">',
        f'<title id="concept-map-{serial}-title" class="{NOT_HIGHLIGHTED}">{escape(label)}</title>',
    ]
    out.append('<g class="cm-sections">')
    for column in columns:
        lines = wrap(column.title, column.width, HEADER_LINES)
        text = "".join(
            f'<tspan x="{column.x:.0f}" y="{MARGIN + (line + 1) * HEADER_LINE_HEIGHT:.0f}">{escape(part)}</tspan>'
            for line, part in enumerate(lines)
        )
        out.append(
            f'<a href="{href(column.docname)}"><title class="{NOT_HIGHLIGHTED}">{escape(column.title)}</title>'
            f'<text class="cm-section" font-weight="bold">{text}</text></a>'
        )
    out.append("</g>")
    # Every edge once, faint, beneath the nodes.
    out.append('<g class="cm-edges" fill="none" stroke="#888" stroke-opacity="0.3">')
    out.extend(
        f'<path d="{curve(source, target)}" data-edge="{source.index} {target.index}"/>'
        for source, target in pairs
    )
    out.append("</g>")
    incoming: dict[int, list[Placed]] = {}
    outgoing: dict[int, list[Placed]] = {}
    for source, target in pairs:
        incoming.setdefault(target.index, []).append(source)
        outgoing.setdefault(source.index, []).append(target)
    for node in placed:
        out.append(f'<g class="cm-node" data-node="{node.index}">')
        # The node's own curves, hidden until the node is hovered or focused.
        highlights = [
            f'<path class="cm-uses" d="{curve(source, node)}"/>' for source in incoming.get(node.index, [])
        ] + [
            f'<path class="cm-used-by" d="{curve(node, target)}"/>' for target in outgoing.get(node.index, [])
        ]
        if highlights:
            out.append('<g class="cm-highlight" fill="none" visibility="hidden">')
            out.extend(highlights)
            out.append("</g>")
        name = node.entry.name
        label_width = node.column.width - 2 * LABEL_PADDING
        out.append(
            f'<a href="{href(node.entry.docname, node.entry.anchor)}">'
            f'<title class="{NOT_HIGHLIGHTED}">{escape(name)}</title>'
            f'<rect x="{node.left:.0f}" y="{node.y - NODE_HEIGHT / 2:.0f}" width="{node.column.width:.0f}" '
            f'height="{NODE_HEIGHT}" rx="3" fill="#fff" stroke="#999"/>'
            f'<text x="{node.left + LABEL_PADDING:.0f}" y="{node.y + FONT_SIZE * 0.35:.0f}">'
            f"{escape(fit(node_label(name, english), label_width))}</text></a>"
        )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def plain_list(app: Sphinx, graph: GlossaryGraph) -> nodes.bullet_list:
    """For builders without SVG: each page's terms and what each builds on."""
    sections = nodes.bullet_list(classes=["concept-map-list"])
    grouped: dict[str, list[Entry]] = {}
    for entry in graph.entries:
        grouped.setdefault(entry.docname, []).append(entry)
    uses: dict[tuple[str, str], list[str]] = {user.key: [] for user in graph.entries}
    for used, user in edges(graph):
        uses[user.key].append(used.name)
    for docname, entries in grouped.items():
        terms = nodes.bullet_list()
        for entry in entries:
            text = entry.name
            if uses[entry.key]:
                text += " ← " + ", ".join(uses[entry.key])
            terms += nodes.list_item("", nodes.paragraph(text, text))
        title = app.env.titles[docname].astext() if docname in app.env.titles else docname
        sections += nodes.list_item("", nodes.paragraph(title, title), terms)
    return sections


def fill_maps(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(concept_map_placeholder))
    if not placeholders:
        return
    graph = glossary(app.env).graph()
    for serial, placeholder in enumerate(placeholders, start=1):
        if app.builder.format != "html":
            placeholder.replace_self(plain_list(app, graph))
            continue
        figure = placeholder.parent
        captions = [
            child
            for child in (figure.children if figure is not None else [])
            if isinstance(child, nodes.Element) and "concept-map-caption" in child["classes"]
        ]
        text = captions[0].astext() if captions else app.env.titles[docname].astext()
        label = " ".join(text.split())
        placeholder.replace_self(concept_map(svg=render_svg(app, docname, graph, label, serial), label=label))


def map_shown(app: Sphinx, env: BuildEnvironment, graph: GlossaryGraph) -> dict[str, object]:
    """On each page with a map: every entry, its section title and its edges."""
    titles = {docname: env.titles[docname].astext() for docname in {entry.docname for entry in graph.entries}}
    drawing = [
        (entry.shown()[:3], titles[entry.docname], [used.key for used in graph.builds_on(entry)])
        for entry in graph.entries
    ]
    return dict.fromkeys(glossary(env).pages_showing_all(VIEW), drawing)


def visit_concept_map(self: HTML5Translator, node: concept_map) -> None:
    # A scrollable, focusable region: the map keeps its natural size so labels stay legible.
    self.body.append(
        f'<div class="concept-map" role="region" tabindex="0" aria-label="{html.escape(node["label"])}">'
        f'{node["svg"]}</div>\n'
    )
    raise nodes.SkipNode


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.assets")  # its scripts, stylesheets and templates
    app.setup_extension("llmglossary.glossary")
    app.setup_extension("llmglossary.terminology")
    add_page_view(app, map_shown)
    app.add_node(concept_map_placeholder)
    app.add_node(concept_map, html=(visit_concept_map, None))
    app.add_directive("concept-map", ConceptMapDirective)
    app.connect("doctree-resolved", fill_maps)
    add_stylesheet_where(app, concept_map, "conceptmap.css")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
