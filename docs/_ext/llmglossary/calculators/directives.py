"""The calculator directives, and what each builder gets of them.

Exists so that a calculator is ordinary, translatable page content: each directive
(``lora-calculator``, ``memory-calculator``, ``kvcache-calculator``, ``memory-planner``)
parses its content as MyST, first any explanation paragraphs, then one bullet list of the
widget's keyed labels (checked by :mod:`.labels`), into a :class:`calculator` node.  Once
the document is resolved, :func:`resolve_calculators` hands an HTML page's widget its
translated labels, and leaves builders that run no JavaScript (EPUB, text, LaTeX, man,
Texinfo, ...) the explanation alone; the message catalog builder keeps the labels, so they
are extracted for translation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .labels import LABELS, label_items, label_links, label_list, label_problems

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import OptionSpec

logger = logging.getLogger(__name__)


class calculator(nodes.General, nodes.Element):
    """The widget: explanation children, the label list, and the calculator's kind."""


class CalculatorDirective(SphinxDirective):
    """Base: explanation paragraphs, then one bullet list of ``key: label`` items."""

    kind: ClassVar[str]
    has_content = True
    option_spec: ClassVar[OptionSpec] = {}

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, container)
        lists = [child for child in container.children if isinstance(child, nodes.bullet_list)]
        expected = ", ".join(LABELS[self.kind])
        if len(lists) != 1:
            raise self.error(
                f"{self.name}: the content must end with one bullet list of `key: label` items "
                f"({expected}); found {len(lists)} lists"
            )
        problems = label_problems(self.kind, [key for key, _label in label_items(lists[0])])
        if problems:
            raise self.error(
                f"{self.name}: the label list must give each of {expected} once, as `key: label`; "
                + "; ".join(problems)
            )
        # The label list stays in the doctree until it is resolved, so that its items
        # are extracted for translation and replaced by the translated text.
        lists[0]["classes"].append("calculator-labels")
        node = calculator(kind=self.kind, serial=self.env.new_serialno("calculator"))
        node.extend(container.children)
        self.set_source_info(node)
        return [node]


class LoraCalculator(CalculatorDirective):
    kind = "lora"


class MemoryCalculator(CalculatorDirective):
    kind = "memory"


class KVCacheCalculator(CalculatorDirective):
    kind = "kvcache"


class MemoryPlanner(CalculatorDirective):
    kind = "planner"


DIRECTIVES: dict[str, type[CalculatorDirective]] = {
    "lora-calculator": LoraCalculator,
    "memory-calculator": MemoryCalculator,
    "kvcache-calculator": KVCacheCalculator,
    "memory-planner": MemoryPlanner,
}
"""Directive name -> class."""


def runs_javascript(app: Sphinx) -> bool:
    """Whether the builder's output can run the widget: HTML pages, not e-readers."""
    return app.builder.format == "html" and app.builder.name != "epub"


def resolve_calculators(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give each widget its (translated) labels, or leave only the explanation.

    Runs once the document is resolved, so it sees the translated label list, and so
    builders that run no script get the explanation as ordinary paragraphs: no writer
    but HTML ever meets the node.
    """
    if app.builder.name == "gettext":
        return  # the message catalog builder extracts the label list: it stays
    interactive = runs_javascript(app)
    for node in list(doctree.findall(calculator)):
        labels = label_list(node)
        items = label_items(labels)
        problems = label_problems(node["kind"], [key for key, _label in items])
        if problems:
            # The source was checked when it was read: this is the translation's fault.
            logger.warning(
                "the translated labels of this %s calculator must keep each key once (%s); %s",
                node["kind"], ", ".join(LABELS[node["kind"]]), "; ".join(problems),
                location=node, type="calculator", subtype="labels",
            )
        node.remove(labels)
        if interactive and not problems:
            node["labels"] = dict(items)
            node["links"] = label_links(labels)
        else:
            node.replace_self(node.children)
