"""Figures drawn at build time from llmcalc's numbers, in the page's language.

Exists so that a picture can never disagree with the example beside it: a ``drawn-figure``
directive names a figure of :mod:`.catalog`, whose numbers come from ``llmcalc`` (or are the
page's own example values, checked against them by ``tests/test_figures.py``), and the page
gives everything the figure says in words, so it is translated like any other message:

````markdown
```{drawn-figure} kv-cache-growth
The caption: what the figure shows and how to read it.

- alt: The text alternative: what the figure shows, for readers who cannot see it.
- table: The title of the figure's data table.
- x: Context length (tokens)
- ...one ``key: label`` item for each label the figure needs (:data:`.catalog.FIGURES`)
```
````

The keyed list follows the calculators' label protocol (:mod:`.calculators.labels`): a
translator rewords the labels and keeps the keys.  Once a document is resolved (so its
labels are translated), :func:`resolve_figures` draws each figure with :mod:`.drawing`:

* HTML builders (and EPUB, whose XHTML takes inline SVG) get the figure as inline SVG with its
  text as text, named by the text alternative, then the caption, then the numbers drawn as a
  table inside a ``<details>`` element;
* every other builder (LaTeX, text, man, Texinfo) gets the text alternative, the caption and
  the same table: no image, so nothing there needs a font that has Chinese glyphs.

Drawing is the costly part (matplotlib), so each SVG is cached by content: the figure's
name, its numbers, its labels, the language and the drawing code's own source.  The cache
lives beside the build's doctrees, so an incremental build, and the second builder of the
same language, reuse it, and a fresh build (``-E`` into an empty folder) draws again.
"""

from __future__ import annotations

import html
import unicodedata
from typing import TYPE_CHECKING, ClassVar

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..calculators.labels import keyed_problems, label_items
from ..glossary_html import add_stylesheet_where
from .catalog import FIGURES, Label, label_keys
from .drawing import cached_svg, format_cell

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata, OptionSpec
    from sphinx.writers.html5 import HTML5Translator

logger = logging.getLogger(__name__)

LABEL_CLASS = "drawn-figure-labels"


class drawn_figure(nodes.General, nodes.Element):
    """A figure until its document is resolved: caption children and the keyed label list."""


class drawn_svg(nodes.General, nodes.Element):
    """The drawn figure for HTML builders: its ``svg`` attribute is the markup."""


class DrawnFigureDirective(SphinxDirective):
    """``{drawn-figure} <name>``: caption paragraphs, then one bullet list of ``key: label`` items."""

    required_arguments = 1
    has_content = True
    option_spec: ClassVar[OptionSpec] = {}

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if name not in FIGURES:
            raise self.error(f"drawn-figure: no figure named {name!r}; the figures are {', '.join(sorted(FIGURES))}")
        container = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, container)
        lists = [child for child in container.children if isinstance(child, nodes.bullet_list)]
        expected = label_keys(name)
        if len(lists) != 1 or container.children[-1] is not lists[0]:
            raise self.error(
                f"drawn-figure {name}: the content must be caption paragraphs, then one bullet list of "
                f"`key: label` items ({', '.join(expected)}); found {len(lists)} lists"
            )
        problems = keyed_problems(expected, [key for key, _label in label_items(lists[0])])
        if problems:
            raise self.error(
                f"drawn-figure {name}: the label list must give each of {', '.join(expected)} once, "
                "as `key: label`; " + "; ".join(problems)
            )
        if len(container.children) < 2:
            raise self.error(f"drawn-figure {name}: a caption paragraph must come before the label list")
        lists[0]["classes"].append(LABEL_CLASS)
        node = drawn_figure(name=name)
        node.extend(container.children)
        self.set_source_info(node)
        return [node]


def data_table(name: str, title: str, labels: dict[str, str], language: str) -> nodes.table:
    """The figure's numbers as a table every builder can write, headed by its translated labels."""
    figure = FIGURES[name]
    columns = figure.columns
    table = nodes.table(classes=["drawn-figure-data"])
    table += nodes.title(text=title)
    group = nodes.tgroup(cols=len(columns))
    table += group
    texts = [[labels[cell.key] if isinstance(cell, Label) else format_cell(cell, language) for cell in cells]
             for cells in figure.table()]
    headers = [labels[key] for key in columns]
    # Column widths in characters (the text builder's), a Chinese character counting as two.
    for index in range(len(columns)):
        widest = max(display_width(row[index]) for row in [headers, *texts])
        group += nodes.colspec(colwidth=min(widest, 24))
    head, body = nodes.thead(), nodes.tbody()
    header = nodes.row()
    header.extend(nodes.entry("", nodes.paragraph(text=text)) for text in headers)
    head += header
    for cells in texts:
        row = nodes.row()
        row.extend(nodes.entry("", nodes.paragraph(text=text)) for text in cells)
        body += row
    group += head
    group += body
    return table


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font: East Asian wide characters take two.

    >>> display_width("Token 1"), display_width("詞元 1")
    (7, 6)
    """
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def resolve_figures(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Draw each figure with its translated labels, or give a builder without SVG its words and numbers."""
    if app.builder.name == "gettext":
        return  # the message catalog builder extracts the caption and the label list: they stay
    shows_svg = app.builder.format == "html"
    language = app.config.language or "en"
    for node in list(doctree.findall(drawn_figure)):
        name = node["name"]
        label_list = next(child for child in node.children
                          if isinstance(child, nodes.bullet_list) and LABEL_CLASS in child["classes"])
        items = label_items(label_list)
        problems = keyed_problems(label_keys(name), [key for key, _label in items])
        if problems:
            # The source was checked when it was read: this is the translation's fault.
            logger.warning(
                "the translated labels of figure %s must keep each key once (%s); %s",
                name, ", ".join(label_keys(name)), "; ".join(problems),
                location=node, type="figure", subtype="labels",
            )
            node.replace_self([])
            continue
        labels = dict(items)
        node.remove(label_list)
        figure = nodes.container(classes=["drawn-figure"])
        if shows_svg:
            figure += drawn_svg(svg=cached_svg(name, labels, language, app.doctreedir / "drawn-figures"),
                                alt=labels["alt"])
        else:
            figure += nodes.paragraph(text=labels["alt"], classes=["drawn-figure-alt"])
        figure.extend(node.children)
        table = data_table(name, labels["table"], labels, language)
        if shows_svg:
            summary = html.escape(labels["table"])
            figure += nodes.raw("", f'<details class="drawn-figure-data"><summary>{summary}</summary>', format="html")
            table.remove(table[0])  # the summary is its title
            figure += table
            figure += nodes.raw("", "</details>", format="html")
        else:
            figure += table
        node.replace_self(figure)


def visit_drawn_svg(self: HTML5Translator, node: drawn_svg) -> None:
    self.body.append(node["svg"])
    raise nodes.SkipNode


def skip(self: object, node: nodes.Node) -> None:
    raise nodes.SkipNode


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.assets")  # its scripts, stylesheets and templates
    app.add_directive("drawn-figure", DrawnFigureDirective)
    app.add_node(drawn_figure)
    app.add_node(drawn_svg, html=(visit_drawn_svg, None), latex=(skip, None), text=(skip, None),
                 man=(skip, None), texinfo=(skip, None))
    app.connect("doctree-resolved", resolve_figures)
    add_stylesheet_where(app, drawn_svg, "drawn-figures.css")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

