"""Make translated builds faster: Sphinx parses a translated message once, not twice.

Sphinx's ``Locale`` transform (9.0.4) walks a page's messages twice.  Its first pass
parses every translated message, but uses the result for two kinds of node only: a
section title (whose target names change with the translation) and a glossary term
(rebuilt with its translated name, once per id).  Every other message, nine in ten of ours, is
parsed, found not to be a title or a term, marked untranslated, and parsed again by
the second pass, which is the parse that ends up on the page.  A glossary term is
parsed twice within the first pass too: the whole message, only to check that it is
a paragraph, then its term part (the same text, when it has no classifier) for use.
In the zh_TW build that was about 2,400 of the 4,800 parses, each a MyST parse into a
docutils document of its own.

While ``Locale.apply`` runs, :class:`FirstPassParses` stands in for the two module
functions the transform calls, ``extract_messages`` (to know which pass and which node
it is at) and ``_publish_msgstr`` (the parse):

* in the first pass, a message of a node that is neither a section title nor a
  glossary term (a term with ids) is not parsed; the transform gets an empty node that is not a
  paragraph, skips the message, and its second pass parses it as before;
* a glossary term's term part, when it is the very text just parsed for that term,
  gets that parse, which the transform has only looked at, instead of a new one.

The page is the same node for node: the first pass only marks a node it skips as
untranslated, which the second pass does as well before it translates the node.  What
is lost is a second copy of any warning the parse of such a message gives.  Upstream,
the fix is a few lines in ``Locale.apply``: in the first pass, ``continue`` (with
``node['translated'] = False``) before parsing a node that is not a title in a section
or a term with ids, and reuse the first parse as the term's when ``term == msgstr``.  No Sphinx
issue exists for it yet (none found on 2026-12-01); the issue text and the patch with its
test are ready in ``upstream/sphinx-locale-single-parse/``.  The releases are the
registry's (:mod:`workarounds`, row ``i18nparses``).

This replaces module functions of Sphinx, so it applies only to the releases it was
written for (:data:`PATCHED_VERSIONS`); on any other the build runs unpatched, just
slower.  A canary test fails when the installed Sphinx is not one of them: then check
whether the release does this itself (drop the patch) or not (add the version).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import sphinx
import sphinx.transforms.i18n as sphinx_i18n
from docutils import nodes

from .workarounds import REGISTRY

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

PATCHED_VERSIONS = REGISTRY["i18nparses"].versions


def used_by_first_pass(node: nodes.Node) -> bool:
    """Whether the first pass of ``Locale.apply`` uses the parse of ``node``'s message.

    A glossary term has ids (its anchors); a term of a plain definition list has none,
    and the first pass does nothing with it.

    >>> section = nodes.section("", nodes.title("", "Tokens"))
    >>> used_by_first_pass(section[0]), used_by_first_pass(nodes.term("", "Token", ids=["term-Token"]))
    (True, True)
    >>> used_by_first_pass(nodes.term("", "Term")), used_by_first_pass(nodes.paragraph("", "A token."))
    (False, False)
    """
    if isinstance(node, nodes.term):
        return bool(node["ids"])
    return isinstance(node, nodes.title) and isinstance(node.parent, nodes.section)


class FirstPassParses:
    """The two functions ``Locale.apply`` calls, for one run of it, parsing only what it uses.

    ``extract_messages`` and ``publish_msgstr`` wrap Sphinx's functions of those names;
    the first call of ``extract_messages`` is the transform's first pass.
    """

    def __init__(
        self,
        extract_messages: Callable[[nodes.Element], Iterable[tuple[nodes.Element, str]]],
        publish_msgstr: Callable[..., nodes.Element],
    ) -> None:
        self._extract_messages = extract_messages
        self._publish_msgstr = publish_msgstr
        self.passes = 0
        self.node: nodes.Element | None = None
        """The node whose message the first pass is at."""
        self.term_parse: tuple[nodes.Element, tuple[Any, ...], nodes.Element] | None = None
        """The term node, the arguments and the result of the first pass's last parse of a term."""

    def extract_messages(self, doctree: nodes.Element) -> Iterator[tuple[nodes.Element, str]]:
        self.passes += 1
        first_pass = self.passes == 1
        for node, message in self._extract_messages(doctree):
            if first_pass:
                self.node = node
            yield node, message
        self.node = None

    def publish_msgstr(self, source: str, source_path: str, source_line: int, **kwargs: Any) -> nodes.Element:
        node = self.node
        if self.passes != 1 or node is None:
            return self._publish_msgstr(source, source_path, source_line, **kwargs)
        if not used_by_first_pass(node):
            # Not a paragraph: the first pass leaves the message to the second.
            return nodes.inline()
        arguments = (source, source_path, source_line)
        if self.term_parse is not None and self.term_parse[0] is node and self.term_parse[1] == arguments:
            # The term part of a term, the same text as the message just parsed to check
            # that it is a paragraph: that parse was only looked at, so it is this one.
            patch = self.term_parse[2]
            self.term_parse = None
            return patch
        patch = self._publish_msgstr(source, source_path, source_line, **kwargs)
        self.term_parse = (node, arguments, patch) if isinstance(node, nodes.term) else None
        return patch


def parse_once(apply: Callable[..., None]) -> Callable[..., None]:
    """``Locale.apply``, run with :class:`FirstPassParses` in place of the functions it calls."""

    @functools.wraps(apply)
    def apply_parsing_once(self: sphinx_i18n.Locale, **kwargs: Any) -> None:
        stock = {name: getattr(sphinx_i18n, name) for name in ("extract_messages", "_publish_msgstr")}
        parses = FirstPassParses(stock["extract_messages"], stock["_publish_msgstr"])
        replacements = {"extract_messages": parses.extract_messages, "_publish_msgstr": parses.publish_msgstr}
        for name, function in replacements.items():
            setattr(sphinx_i18n, name, function)
        try:
            apply(self, **kwargs)
        finally:
            for name, function in stock.items():
                setattr(sphinx_i18n, name, function)

    apply_parsing_once.parses_once = True  # type: ignore[attr-defined]
    return apply_parsing_once


def setup(app: Sphinx) -> ExtensionMetadata:
    if sphinx.__version__ in PATCHED_VERSIONS and not getattr(sphinx_i18n.Locale.apply, "parses_once", False):
        sphinx_i18n.Locale.apply = parse_once(sphinx_i18n.Locale.apply)  # type: ignore[method-assign]
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
