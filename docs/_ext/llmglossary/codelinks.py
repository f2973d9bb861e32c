"""Make sphinx-codeautolink's link pass cheap: it is handed a page's code blocks, not the whole page.

sphinx-codeautolink (0.20.0) links a page's examples in its ``html-page-context``
handler: it parses the whole ``body`` of the page with BeautifulSoup's pure-Python
``html.parser``, finds the code blocks, links them, and serialises the whole body
again.  Our pages carry much besides their examples (term previews, calculators), so in
a fresh English build that pass took about 8 s of CPU, a third of the build, for the
code blocks that are a small part of each body (``benchmarks/README.md``).

Two handlers of the same public event, connected right before and right after
codeautolink's (this extension sets codeautolink up between them, so it must come
before it in ``extensions``, or alone: it sets codeautolink up itself), hand it only
the code blocks, and put its result back:

* :func:`hand_over_code_blocks` cuts each code block's ``pre`` out of
  the body, in page order, and gives codeautolink a body made of those blocks alone,
  each in a ``div`` with the block's own classes, as it looks for them;
* codeautolink links that body with its own code, unchanged;
* :func:`put_back_linked_blocks` puts each block it linked back in its
  place in the original body.  Everything else of the page is as Sphinx wrote it.

A linked block is the block codeautolink writes itself (its ``pre``, serialised by
BeautifulSoup); the rest of the page is not re-serialised, so it keeps Sphinx's bytes
(``<br />``, ``&quot;``) where stock codeautolink would rewrite them.
``tests/test_codelinks.py`` builds a site both ways: every page is the same document
with the same links.  Upstream, the same change is to parse only the code blocks inside
``link_html`` (``upstream/sphinx-codeautolink-parse-blocks-only/``).

This depends on codeautolink's handler and on the classes it looks for, so it
applies only to the releases in the registry (:mod:`.workarounds`, row ``codelinks``);
on any other the build runs unchanged, just slower, and a canary test fails.
"""

from __future__ import annotations

import html
import re
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ExtensionError

from .workarounds import REGISTRY

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

PATCHED_VERSIONS = REGISTRY["codelinks"].versions

DIV_START = re.compile(r'<div\b[^>]*?\bclass="([^"]*)"[^>]*>')
PRE = re.compile(r"<pre\b.*?</pre>", re.DOTALL)
LINE_NUMBER = re.compile(r'<span class="linenos">.*?</span>', re.DOTALL)
TAG = re.compile(r"<[^>]*>")
LINK_CLASS = 'class="sphinx-codeautolink-a"'
SAVED = "codelinks_body"
"""Where the page's own body waits in the context while codeautolink links the blocks."""


def code_blocks(page: str, classes: set[str]) -> Iterator[tuple[str, int, int]]:
    """Each code block of ``page`` in page order: its ``div``'s classes, and where its ``pre`` starts and ends.

    A block is a ``div`` with one of ``classes``; its ``pre`` is the first one after it.

    >>> page = '<div class="highlight-pycon x"><div class="highlight"><pre>a</pre></div></div><pre>b</pre>'
    >>> [(kind, page[start:end]) for kind, start, end in code_blocks(page, {"highlight-pycon"})]
    [('highlight-pycon x', '<pre>a</pre>')]
    """
    seen: set[int] = set()
    for div in DIV_START.finditer(page):
        if not classes.intersection(div[1].split()):
            continue
        pre = PRE.search(page, div.end())
        if pre is not None and pre.start() not in seen:
            seen.add(pre.start())
            yield div[1], pre.start(), pre.end()


def text_of(markup: str) -> str:
    """The text of a piece of highlighted code as codeautolink matches it: line numbers left out.

    >>> text_of('<pre><span class="linenos">1</span><span class="n">x</span><span class="o">&gt;</span>1\\n</pre>')
    'x>1\\n'
    """
    return html.unescape(TAG.sub("", LINE_NUMBER.sub("", markup)))


def block_classes(app: Sphinx) -> set[str]:
    """The classes of the ``div`` codeautolink looks for a code block in, as its ``link_html`` lists them."""
    from sphinx_codeautolink.extension.block import BUILTIN_BLOCKS

    kinds = BUILTIN_BLOCKS.keys() | app.config.codeautolink_custom_blocks.keys()
    return {f"highlight-{kind}" for kind in kinds} | {"doctest", *app.config.codeautolink_search_css_classes}


def hand_over_code_blocks(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                          doctree: object) -> None:
    """Give codeautolink a body of the page's code blocks only, when it has examples to link on the page."""
    transforms = getattr(app.env, "sphinx_codeautolink_transforms", None)
    body = context.get("body")
    if not transforms or not transforms.get(str(Path(pagename))) or not isinstance(body, str):
        return
    # Only blocks that some example of the page can match: codeautolink matches each example
    # to the first remaining block with its text, so the others can never be chosen, and it
    # copies every remaining block for every example it matches.
    sources = {transform.source.rstrip() for transform in transforms[str(Path(pagename))]}
    blocks = [(classes, start, end) for classes, start, end in code_blocks(body, block_classes(app))
              if text_of(body[start:end]).rstrip() in sources]
    context[SAVED] = (body, [(start, end) for _, start, end in blocks])
    context["body"] = "\n".join(
        f'<div class="{classes}"><div class="highlight">{body[start:end]}</div></div>' for classes, start, end in blocks
    )


def put_back_linked_blocks(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                           doctree: object) -> None:
    """Put the blocks codeautolink linked back into the page's own body, the rest untouched."""
    saved = context.pop(SAVED, None)
    if saved is None:
        return
    body, spans = saved
    linked = PRE.findall(context["body"])
    if len(linked) != len(spans):
        raise RuntimeError(f"codelinks: {pagename} had {len(spans)} code blocks, codeautolink returned {len(linked)}")
    pieces, done = [], 0
    for (start, end), block in zip(spans, linked, strict=True):
        if LINK_CLASS in block:
            pieces += [body[done:start], block]
            done = end
    pieces.append(body[done:])
    context["body"] = "".join(pieces)


def setup(app: Sphinx) -> ExtensionMetadata:
    """Set sphinx-codeautolink up, between our two handlers on the releases in the registry."""
    if version("sphinx-codeautolink") in PATCHED_VERSIONS:
        if "sphinx_codeautolink" in app.extensions:
            raise ExtensionError(
                "codelinks must come before sphinx_codeautolink in extensions: it sets codeautolink up "
                "between its two handlers, so that no other page-context handler runs in between"
            )
        # Handlers of one priority run in the order they were connected: ours right before
        # and right after codeautolink's, and no other handler sees the body of code blocks.
        app.connect("html-page-context", hand_over_code_blocks)
        app.setup_extension("sphinx_codeautolink")
        app.connect("html-page-context", put_back_linked_blocks)
    else:
        # Another release: codeautolink as it is, so the examples are still linked (slower).
        app.setup_extension("sphinx_codeautolink")
    return {"version": "2.1", "parallel_read_safe": True, "parallel_write_safe": True}
