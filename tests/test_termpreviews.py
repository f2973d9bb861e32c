"""Hover/focus previews of glossary terms (docs/_ext/llmglossary/termpreviews.py, termpreviews.js)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from browser import browser_page
from sphinxbuild import build, write_tree

REPO = Path(__file__).resolve().parent.parent
CONF = f"""\
extensions = ["myst_parser", "llmglossary.mathml", "llmglossary.termpreviews"]
myst_enable_extensions = ["dollarmath"]
html_math_renderer = "mathml"
html_static_path = [{str(REPO / "docs" / "_static")!r}]
"""
PAGES = {
    "conf.py": CONF,
    "index.md": """\
        # Home

        ```{toctree}
        basics
        usage
        ```
        """,
    "basics.md": """\
        # Basics

        ```{glossary}
        Token
          A piece of text that a model reads. Models count everything in these pieces.

        Vocabulary
          Every {term}`Token` a model knows, each with a number.

        Unused
          Nobody links this entry.

        Gibibyte
          A gibibyte is $2^{30}$ bytes, $\\frac{2^{30}}{10^9} \\approx 1.074$ gigabytes. It is written GiB.
          A third sentence would make the preview too long to read at a glance, so it is left to the page itself,
          where the reader who wants it can read every word of it.

        Throughput
          生成速度以每秒詞元數計。寫成式子：

          $$\\frac{n}{t}$$
        ```
        """,
    "usage.md": """\
        # Usage

        A model reads a {term}`token` at a time from its {term}`vocabulary`, in a {term}`gibibyte` of memory, at
        some {term}`throughput`.

        [A plain link](basics.md)
        """,
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory):
    srcdir = tmp_path_factory.mktemp("previews")
    write_tree(srcdir, PAGES)
    result = build(srcdir)
    assert result.warnings == ""
    return result


def previews(html: str) -> dict:
    return json.loads(BeautifulSoup(html, "html.parser").find(id="term-previews").string)


def test_each_page_carries_previews_of_exactly_the_entries_it_links(site) -> None:
    assert previews(site.html("usage")) == {
        "basics.html#term-Token": {
            "name": "Token",
            "summary": "A piece of text that a model reads. Models count everything in these pieces.",
        },
        "basics.html#term-Vocabulary": {
            "name": "Vocabulary",
            "summary": "Every Token a model knows, each with a number.",
        },
        # Math written out, not LaTeX; two sentences that fit, not the third.
        "basics.html#term-Gibibyte": {
            "name": "Gibibyte",
            "summary": "A gibibyte is 2^30 bytes, (2^30)/(10^9) ≈ 1.074 gigabytes. It is written GiB.",
        },
        # The same rule in Chinese; the clause that announced the dropped formula goes with it.
        "basics.html#term-Throughput": {"name": "Throughput", "summary": "生成速度以每秒詞元數計。"},
    }
    # The glossary's own page: only the link inside Vocabulary's definition, not the ¶ anchors.
    assert set(previews(site.html("basics"))) == {"#term-Token"}
    assert "term-previews" not in site.html("index")


@pytest.mark.browser
def test_hover_and_keyboard_focus_show_the_definition(site) -> None:
    with browser_page() as (page, log):
        page.goto((site.outdir / "usage.html").as_uri())
        tooltip = page.locator("#term-preview")
        assert tooltip.is_hidden()
        page.locator('a[href="basics.html#term-Token"]').hover()
        assert tooltip.is_visible()
        assert tooltip.locator("strong").inner_text() == "Token"
        assert tooltip.locator("p").inner_text().startswith("A piece of text that a model reads.")
        page.mouse.move(0, 0)
        assert tooltip.is_hidden()
        page.locator('a[href="basics.html#term-Vocabulary"]').focus()
        assert tooltip.is_visible()
        assert "Every Token a model knows" in tooltip.inner_text()
        assert page.locator('a[href="basics.html#term-Vocabulary"]').get_attribute("aria-describedby") == "term-preview"
        page.keyboard.press("Escape")
        assert tooltip.is_hidden()
        page.locator('a[href="basics.html#term-Gibibyte"]').hover()
        assert tooltip.locator("p").inner_text().startswith("A gibibyte is 2^30 bytes, (2^30)/(10^9) ≈ 1.074")
        page.get_by_role("link", name="A plain link").hover()
        assert tooltip.is_hidden()
    assert log.errors == [] and log.requests == []
