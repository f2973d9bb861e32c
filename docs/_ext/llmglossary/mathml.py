"""Render math as MathML at build time, so pages need no math JavaScript and no CDN.

Sphinx's default HTML math renderer loads MathJax from a CDN, which breaks the
offline promise.  Current browsers render MathML natively, so converting each LaTeX
expression once, during the build, costs nothing at reading time and works from
``file://``, a zip or an EPUB.  A LaTeX expression the converter cannot handle fails
the build with its location instead of shipping broken markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util.math import get_node_equation_number

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata
    from sphinx.writers.html5 import HTML5Translator


def to_mathml(latex: str, node: nodes.Element, *, display: str) -> str:
    from latex2mathml.converter import convert  # only builds that write math pay for it

    try:
        return convert(latex, display=display)
    except Exception as error:  # latex2mathml raises many unrelated exception types
        location = f"{node.source}:{node.line}"
        raise ExtensionError(f"{location}: cannot convert math {latex!r} to MathML: {error}") from error


def visit_inline(self: HTML5Translator, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math"))
    self.body.append(to_mathml(node.astext(), node, display="inline"))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_block(self: HTML5Translator, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math math-display"))
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})</span>')
    self.body.append(to_mathml(node.astext(), node, display="block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_html_math_renderer("mathml", (visit_inline, None), (visit_block, None))
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
