"""The built site's pages (_build/html/<lang>/), each read and parsed once per pytest run.

Parsing a built page costs far more than any check made on it, and the site checks of
several modules read the same pages, so every module asks here and gets the one parse.
The trees are shared: a test reads them and never changes them (no ``decompose``,
``extract`` or attribute writes); to read a page without some of its parts, use ``text_without``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

REPO = Path(__file__).resolve().parent.parent
HTML = REPO / "_build" / "html"


@functools.cache
def built_page(language: str, docname: str) -> BeautifulSoup:
    """The parsed page ``_build/html/<language>/<docname>.html``; read-only, shared by every test."""
    path = HTML / language / f"{docname}.html"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make html` before the site checks")
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def built_pages(language: str, pattern: str = "*.html") -> dict[str, BeautifulSoup]:
    """Every page of an edition whose file name matches ``pattern``, by docname, in file-name order."""
    return {path.stem: built_page(language, path.stem) for path in sorted((HTML / language).glob(pattern))}


def text_without(node: Tag, selector: str) -> str:
    """``node.get_text()`` as it reads once the elements ``selector`` matches are removed; the tree stays whole.

    >>> soup = BeautifulSoup('<dt>Token<a class="headerlink">¶</a> <code>x</code></dt>', "html.parser")
    >>> text_without(soup.dt, "a.headerlink"), text_without(soup.dt, "a.headerlink, code"), soup.dt.get_text()
    ('Token x', 'Token ', 'Token¶ x')
    """
    removed = {id(element) for element in node.select(selector)}
    return "".join(
        string for string in node.strings if not any(id(parent) in removed for parent in string.parents)
    )
