"""docs/_ext/codelinks.py: codeautolink's links, put into each page without re-parsing it.

A tiny site is built with stock sphinx-codeautolink and with the replacement; each page
must be the same document (the replacement's page, put through BeautifulSoup as stock
codeautolink puts its own, is byte-identical to stock), with the same links.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sphinx_codeautolink.extension as codeautolink
from bs4 import BeautifulSoup
from sphinx_codeautolink.extension.block import link_html as stock_link_html

import codelinks
from sphinxbuild import build, write_tree

MODULE = '''\
"""A module to link to."""


class Box:
    """A box."""

    size: int = 1

    def grow(self, by: int) -> "Box":
        """A bigger box."""
        return self


def make(size: int) -> Box:
    """A box of ``size``."""
    return Box()
'''

# Examples that exercise what link_html matches on: an import, a call, an attribute
# chain through a return type, line numbers, quotes and markup characters in strings
# (written as entities), a doctest session, two blocks with the same text, and a block
# with nothing to link.
EXAMPLES = '''\
Examples
========

.. code-block:: python

   import boxes
   box = boxes.make(3)
   box.grow(by=1).size

.. code-block:: python
   :linenos:

   from boxes import make, Box
   label = "a <b> & 'c'"
   make(2).grow(1)

.. doctest::

   >>> import boxes
   >>> boxes.make(1).size
   1

.. code-block:: python

   import boxes
   boxes.Box()

.. code-block:: python

   import boxes
   boxes.Box()

.. code-block:: python

   total = 1 + 2
'''

CONF = '''\
import sys
sys.path.insert(0, {root!r})
extensions = ["sphinx.ext.autodoc", "sphinx.ext.doctest", "sphinx_codeautolink"{extra}]
'''

PAGES = {
    "index.rst": "Boxes\n=====\n\n.. toctree::\n\n   examples\n   api\n",
    "examples.rst": EXAMPLES,
    "api.rst": "API\n===\n\n.. automodule:: boxes\n   :members:\n",
    "boxes.py": MODULE,
}


def built_pages(root: Path, builder: str, extra: str) -> dict[str, str]:
    write_tree(root, {"conf.py": CONF.format(root=str(root), extra=extra), **PAGES})
    result = build(root, builder=builder, fresh=True)
    assert result.warning_lines() == []
    return {str(path.relative_to(result.outdir)): path.read_text(encoding="utf-8")
            for path in sorted(result.outdir.rglob("*.html"))}


@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_the_pages_are_codeautolinks_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, builder: str) -> None:
    monkeypatch.setattr(codeautolink, "link_html", stock_link_html)  # an earlier build may have patched it
    stock = built_pages(tmp_path / "stock", builder, "")
    ours = built_pages(tmp_path / "ours", builder, ', "codelinks"')
    assert codeautolink.link_html is codelinks.link_in_place
    assert ours.keys() == stock.keys()
    examples = next(name for name in stock if name.startswith("examples"))
    links = stock[examples].count('class="sphinx-codeautolink-a"')
    assert links >= 12 and ours[examples].count('class="sphinx-codeautolink-a"') == links
    # dirhtml writes the page one folder down: its links climb out of it.
    api = "../api/" if builder == "dirhtml" else "api.html"
    assert f'<a href="{api}#boxes.make" class="sphinx-codeautolink-a">' in ours[examples]
    for name, page in ours.items():
        assert page == stock[name] or str(BeautifulSoup(page, "html.parser")) == stock[name], name
    # Stock re-serialises the whole page; ours leaves what it does not link as Sphinx wrote it.
    assert '<meta charset="utf-8" />' in ours[examples]
    assert '<meta charset="utf-8"/>' in stock[examples]


def test_an_example_without_its_block_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The warning link_html gives when a page no longer holds an example's code."""
    from sphinx_codeautolink.extension.backref import CodeExample
    from sphinx_codeautolink.extension.block import SourceTransform

    warnings: list[str] = []
    monkeypatch.setattr("sphinx_codeautolink.warn.logger.warning", lambda message, **_: warnings.append(message))
    page = '<div class="highlight-python notranslate"><div class="highlight"><pre>x = 1\n</pre></div></div>'
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    missing = SourceTransform(source="y = 2", names=[], example=CodeExample("page", "id", []), doc_lineno=1)
    codelinks.link_in_place("page", str(tmp_path), [missing], {}, {}, [], disable_link_titles=False)
    assert warnings == ["Could not match a code example to HTML, source:\ny = 2"]
    assert (tmp_path / "page.html").read_text(encoding="utf-8") == page
