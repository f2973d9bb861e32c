"""Make every build a little faster: a node's XML in Sphinx's debug messages is made only if shown.

Sphinx (9.0.4) looks at every node of every page for its source workarounds
(``apply_source_workaround``) and, in a translated build, for translation
(``is_translatable``).  Each node it patches or skips gets a debug message that shows
the node as XML, and ``repr_domxml`` builds that XML (a DOM of the node, serialised)
before ``logger.debug`` is called, whether or not the message is ever shown.  Debug
messages are shown only with ``-vv``; our builds never ask for them.  In a fresh build
of our site that was 1,958 calls and about 0.25 s of CPU in zh_TW, 710 calls and about
0.09 s in English (benchmarks/README.md).

While this extension is loaded, ``repr_domxml`` returns a :class:`DomXml`, which makes
the same text when the message is formatted, that is, only when a handler shows it.
All ten calls in ``sphinx.util.nodes`` (the only callers in Sphinx and in every
package we install) pass the result to ``logger.debug`` as a ``%s`` argument.  A shown
message reads the same: between the call and the formatting, Sphinx changes only a
node's ``source``, ``line`` and ``rawsource``, which its XML does not show
(``tests/test_debugxml.py`` compares ``-vv`` output with and without this extension).
Upstream, the fix is to make the XML lazily in ``sphinx.util.nodes``; no Sphinx issue
asks for it yet (none found on 2026-11-30).

This replaces a function of Sphinx, so it applies only to the releases it was written
for (:data:`PATCHED_VERSIONS`); on any other the build runs unpatched, just slower.  A
canary test fails when the installed Sphinx is not one of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sphinx
import sphinx.util.nodes as sphinx_nodes

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

PATCHED_VERSIONS = frozenset({"9.0.4"})

SPHINX_REPR_DOMXML = sphinx_nodes.repr_domxml
"""Sphinx's own function, which makes the text."""


class DomXml:
    """A node's XML as Sphinx's ``repr_domxml`` writes it, made when it is turned into text.

    >>> from docutils import nodes
    >>> node = nodes.paragraph("", "A token is a unit of text.", translatable=False)
    >>> message = DomXml(node, 40)
    >>> print(message)
    <paragraph translatable="False">A token ...
    >>> str(message) == SPHINX_REPR_DOMXML(node, 40)
    True
    """

    __slots__ = ("length", "node")

    def __init__(self, node: nodes.Node, length: int = 80) -> None:
        self.node = node
        self.length = length

    def __str__(self) -> str:
        return SPHINX_REPR_DOMXML(self.node, self.length)


def setup(app: Sphinx) -> ExtensionMetadata:
    if sphinx.__version__ in PATCHED_VERSIONS:
        sphinx_nodes.repr_domxml = DomXml  # type: ignore[assignment]
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
