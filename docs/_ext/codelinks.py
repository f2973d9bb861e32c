"""Make sphinx-codeautolink's last step cheap: link the examples without re-parsing each page.

sphinx-codeautolink (0.19.0) works out at read time which names of each code example
to link and where to; once every page is written, its ``link_html`` opens each page
that has examples and parses the whole of it with BeautifulSoup's pure-Python
``html.parser``, copies blocks while looking for the one each example belongs to,
serialises each block it changes, parses the result again, and writes the whole
re-serialised page back.  A fresh English build of our 29 pages took 24.4 s of CPU with
it and 14.5 s with this module instead (benchmarks/README.md).

:func:`link_in_place` does the same work on the page's text.  It finds the same
blocks (a ``div`` with one of codeautolink's classes, in page order, its first
``pre``), matches each example to the first remaining block with the same text, runs
codeautolink's own patterns for each name on that block's lines, builds the same
links with the same titles, and gives the same warnings; then it puts the changed
blocks back into the text it read.  Nothing else of the page is touched.

The pages are the same documents: each parses to the same tree as codeautolink's
(``tests/test_codelinks.py`` builds a site both ways and compares every page, each
put through BeautifulSoup once).  The bytes differ where BeautifulSoup wrote markup
its own way: ``<br/>`` for ``<br />``, ``"`` for ``&quot;`` and the like, on the
pages it rewrote and not on the others.  Upstream, the same change would be a few
lines in ``link_html``; no sphinx-codeautolink issue asks for it yet (none found on
2026-11-30).

This replaces a function of sphinx-codeautolink, so it applies only to the releases
it was written for (:data:`PATCHED_VERSIONS`); on any other the build runs unpatched,
just slower.  A canary test fails when the installed release is not one of them.
"""

from __future__ import annotations

import html
import re
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

PATCHED_VERSIONS = frozenset({"0.19.0"})

LINK = '<a href="{link}"{title} class="sphinx-codeautolink-a">{text}</a>'
"""The markup of one link, as sphinx-codeautolink writes it."""

DIV_START = re.compile(r'<div\b[^>]*?\bclass="([^"]*)"[^>]*>')
PRE = re.compile(r"<pre\b.*?</pre>", re.DOTALL)
LINE_NUMBER = re.compile(r'<span class="linenos">.*?</span>', re.DOTALL)
TAG = re.compile(r"<[^>]*>")
WHITESPACE = re.compile(r"\s+")


def text_of(markup: str) -> str:
    """The text of a piece of highlighted code, as a browser shows it.

    >>> text_of('<pre><span class="n">x</span><span class="o">&gt;</span>1\\n</pre>')
    'x>1\\n'
    """
    return html.unescape(TAG.sub("", markup))


def code_blocks(page: str, classes: set[str]) -> Iterator[tuple[int, int]]:
    """Where the ``pre`` of each code block of ``page`` starts and ends, in page order.

    A block is a ``div`` with one of ``classes``; its ``pre`` is the first one after it.

    >>> page = '<div class="highlight-pycon x"><div class="highlight"><pre>a</pre></div></div><pre>b</pre>'
    >>> [page[start:end] for start, end in code_blocks(page, {"highlight-pycon"})]
    ['<pre>a</pre>']
    """
    seen: set[int] = set()
    for div in DIV_START.finditer(page):
        if not classes.intersection(div[1].split()):
            continue
        pre = PRE.search(page, div.end())
        if pre is not None and pre.start() not in seen:
            seen.add(pre.start())
            yield pre.span()


def link_title(location: str, text: str) -> str:
    """The title of a link, empty when it would only repeat the code it is on.

    >>> link_title("llmcalc.ModelConfig", '<span class="n">ModelConfig</span>')
    ' title="llmcalc.ModelConfig"'
    >>> link_title("llmcalc", '<span class="nn">llmcalc</span>')
    ''
    """
    return "" if WHITESPACE.sub("", text_of(text)) == location else f' title="{location}"'


def linked_block(block: str, transform: Any, inventory: dict[str, str], local_prefix: str,
                 *, disable_link_titles: bool, document: str) -> str:
    """``block`` (a ``pre``'s markup) with the links of one example, as ``link_html`` makes them."""
    # Imported here, not at the top: on a release this was not written for, whose
    # internals may differ, the extension must still load and leave codeautolink alone.
    from sphinx_codeautolink.extension.block import construct_name_pattern
    from sphinx_codeautolink.warn import logger, warn_type

    lines = block.split("\n")
    for name in transform.names:
        begin_line = name.lineno - 1
        end_line = name.end_lineno - 1
        selection = "\n".join(lines[begin_line : end_line + 1])
        # From the right, as codeautolink does, so that ``a.b = a.b`` links the right one.
        matches = list(re.finditer(construct_name_pattern(name), selection))[::-1]
        if not matches:
            logger.warning(
                f"Could not match transformation of `{name.code_str}` on source lines "
                f"{name.lineno}-{name.end_lineno}, source:\n{transform.source}",
                type=warn_type, subtype="match_name", location=document,
            )
            continue
        start, end = matches[0].span()
        start += len(matches[0].group(1))
        location = inventory[name.resolved_location]
        if not location.startswith(("http://", "https://")):
            location = local_prefix + location
        text = selection[start:end]
        title = "" if disable_link_titles else link_title(name.resolved_location, text)
        transformed = selection[:start] + LINK.format(link=location, title=title, text=text) + selection[end:]
        lines[begin_line : end_line + 1] = transformed.split("\n")
    return "\n".join(lines)


def link_in_place(document: str, out_dir: str, transforms: list[Any], inventory: dict[str, str],
                  custom_blocks: dict[str, Any], search_css_classes: list[str], builder_name: str = "html",
                  *, disable_link_titles: bool) -> None:
    """sphinx-codeautolink's ``link_html``, with the same arguments, editing the page's text."""
    from sphinx_codeautolink.extension.block import BUILTIN_BLOCKS
    from sphinx_codeautolink.warn import logger, warn_type

    if builder_name == "dirhtml" and Path(document).name != "index":
        html_file = Path(out_dir) / document / "index.html"
    else:
        html_file = Path(out_dir) / (document + ".html")
    page = html_file.read_text("utf-8")

    classes = {f"highlight-{kind}" for kind in BUILTIN_BLOCKS.keys() | custom_blocks.keys()}
    classes.update(["doctest", *search_css_classes])
    # Each block with its text, line numbers left out, as examples are matched on it.
    unmatched = [
        ((start, end), text_of(LINE_NUMBER.sub("", page[start:end])).rstrip())
        for start, end in code_blocks(page, classes)
    ]
    local_prefix = "../" * (len(html_file.relative_to(out_dir).parents) - 1)

    replacements: dict[tuple[int, int], str] = {}
    for transform in transforms:
        source = transform.source.rstrip()
        for index, (_, text) in enumerate(unmatched):
            if text == source:
                span = unmatched.pop(index)[0]
                break
        else:
            logger.warning(
                f"Could not match a code example to HTML, source:\n{transform.source}",
                type=warn_type, subtype="match_block", location=document,
            )
            continue
        replacements[span] = linked_block(
            page[span[0] : span[1]], transform, inventory, local_prefix,
            disable_link_titles=disable_link_titles, document=document,
        )
    if not replacements:
        return
    pieces, done = [], 0
    for (start, end), block in sorted(replacements.items()):
        pieces += [page[done:start], block]
        done = end
    pieces.append(page[done:])
    html_file.write_text("".join(pieces), "utf-8")


def setup(app: Sphinx) -> ExtensionMetadata:
    if version("sphinx-codeautolink") in PATCHED_VERSIONS:
        import sphinx_codeautolink.extension

        sphinx_codeautolink.extension.link_html = link_in_place
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
