"""docs/_ext/llmglossary/codelinks.py: codeautolink is handed a page's code blocks, not the whole page.

A tiny site is built with stock sphinx-codeautolink and with the two handlers; each page
must be the same document with the same links (put through BeautifulSoup, as stock
codeautolink puts the body of every page it links), and the rest of our pages keeps
Sphinx's own bytes.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from bs4 import BeautifulSoup

from llmglossary import codelinks
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

A box is sized on creation.

----

Boxes grow.
'''

CONF = '''\
import sys
sys.path.insert(0, {root!r})
extensions = ["sphinx.ext.autodoc", "sphinx.ext.doctest"{extra}, "sphinx_codeautolink"]
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
def test_the_pages_are_codeautolinks_own(tmp_path: Path, builder: str) -> None:
    stock = built_pages(tmp_path / "stock", builder, "")
    ours = built_pages(tmp_path / "ours", builder, ', "llmglossary.codelinks"')
    assert ours.keys() == stock.keys()
    examples = next(name for name in stock if name.startswith("examples"))
    links = stock[examples].count('class="sphinx-codeautolink-a"')
    assert links >= 12 and ours[examples].count('class="sphinx-codeautolink-a"') == links
    # dirhtml writes the page one folder down: its links climb out of it.
    api = "../api/" if builder == "dirhtml" else "api.html"
    assert f'<a class="sphinx-codeautolink-a" href="{api}#boxes.make">' in ours[examples]
    for name, page in ours.items():
        assert str(BeautifulSoup(page, "html.parser")) == str(BeautifulSoup(stock[name], "html.parser")), name
    # Stock re-serialises the whole body of a page with examples; ours only the blocks it links.
    assert '<hr class="docutils" />' in ours[examples]
    assert '<hr class="docutils"/>' in stock[examples]


BLOCK = '<div class="highlight-python notranslate"><div class="highlight"><pre>{code}\n</pre></div>\n</div>'
PAGE = "<p>Intro &quot;quoted&quot;<br /></p>\n" + BLOCK.format(code="a = 1") + "\n<p>middle</p>\n" + BLOCK.format(
    code='<span class="n">make</span><span class="p">()</span>') + "\n" + BLOCK.format(code="b = 2")


def fake_app(sources: list[str]) -> Any:
    transforms = {"page": [SimpleNamespace(source=source) for source in sources]}
    config = SimpleNamespace(codeautolink_custom_blocks={}, codeautolink_search_css_classes=[])
    return SimpleNamespace(env=SimpleNamespace(sphinx_codeautolink_transforms=transforms), config=config)


def test_codeautolink_is_handed_the_blocks_an_example_can_match() -> None:
    context: dict[str, Any] = {"body": PAGE}
    codelinks.hand_over_code_blocks(fake_app(["make()", "b = 2"]), "page", "page.html", context, None)
    handed = context["body"]
    assert "Intro" not in handed and "a = 1" not in handed
    assert handed.count("<pre>") == 2 and 'class="highlight-python notranslate"' in handed
    # codeautolink links the first block it was handed; the page gets that block back, the rest as it was.
    linked = handed.replace('<span class="n">make</span>', '<a class="sphinx-codeautolink-a" href="api.html#make">'
                                                            '<span class="n">make</span></a>')
    context["body"] = linked
    codelinks.put_back_linked_blocks(fake_app([]), "page", "page.html", context, None)
    assert context["body"] == PAGE.replace('<span class="n">make</span>', '<a class="sphinx-codeautolink-a" '
                                           'href="api.html#make"><span class="n">make</span></a>')
    assert codelinks.SAVED not in context


def test_a_page_without_examples_is_left_alone() -> None:
    context: dict[str, Any] = {"body": PAGE}
    codelinks.hand_over_code_blocks(fake_app([]), "other", "page.html", context, None)
    assert context == {"body": PAGE}
    codelinks.put_back_linked_blocks(fake_app([]), "other", "page.html", context, None)
    assert context == {"body": PAGE}


def test_blocks_lost_by_codeautolink_are_an_error_not_a_wrong_page() -> None:
    context: dict[str, Any] = {"body": PAGE}
    codelinks.hand_over_code_blocks(fake_app(["a = 1", "b = 2"]), "page", "page.html", context, None)
    context["body"] = "<pre>only one</pre>"
    with pytest.raises(RuntimeError, match="page had 2 code blocks, codeautolink returned 1"):
        codelinks.put_back_linked_blocks(fake_app([]), "page", "page.html", context, None)


def test_codelinks_after_codeautolink_is_a_clear_error(tmp_path: Path) -> None:
    conf = 'extensions = ["sphinx_codeautolink", "llmglossary.codelinks"]\n'
    write_tree(tmp_path, {"conf.py": conf, "index.rst": "T\n=\n"})
    with pytest.raises(Exception, match="codelinks must come before sphinx_codeautolink"):
        build(tmp_path)
