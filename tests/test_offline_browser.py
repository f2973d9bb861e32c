"""The built site works offline: every page of both editions, opened from file://.

Each page is loaded in headless Chromium with every request observed; any request
that is not for a local file (a CDN script, a web font, a tracker) or any JavaScript
error fails the test, naming the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from browser import PageLog, browser_page, page_per_key

BUILD = Path(__file__).resolve().parent.parent / "_build" / "html"
SETTLED = "() => new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)))"

pytestmark = [pytest.mark.site, pytest.mark.browser]

Tab = Callable[[str], tuple[Any, PageLog]]
"""The module's page for an edition: ``tab("en")`` is the same logged page at every call."""


@pytest.fixture(scope="module")
def tab() -> Iterator[Tab]:
    """One page (one browser context, the default en-US locale) per edition for the whole module.

    A new context and its first load cost several times a load in an open page.  The
    tests here only load pages and read them, so each edition's tests load their pages
    in the same tab, one after another, as a reader following links would.
    """
    with page_per_key() as for_key:
        yield for_key


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_every_page_loads_without_network_or_errors(tab: Tab, language: str) -> None:
    pages = sorted((BUILD / language).rglob("*.html"))
    assert len(pages) > 20, "run `make html` first"
    problems = []
    page, log = tab(language)
    assert log.errors == [] and log.requests == []  # nothing left from before: what follows is the walk's
    for path in pages:
        page.goto(path.as_uri(), wait_until="load")
        # An event, not a delay: the first frame after load, then the tasks the load
        # handlers queued (a script that fails or fetches late has done so by then).
        page.evaluate(SETTLED)
        if log.errors or log.requests:
            problems.append((path.name, list(log.errors), list(log.requests)))
            log.errors.clear()
            log.requests.clear()
    assert problems == []


def test_zh_tw_previews_show_chinese_definitions(tab: Tab) -> None:
    page_path = BUILD / "zh_TW" / "05-the-transformer.html"
    page, log = tab("zh_TW")
    page.goto(page_path.as_uri())
    link = page.locator("a.has-term-preview").first
    link.focus()
    preview = page.locator("#term-preview")
    assert preview.is_visible()
    text = preview.locator("p").inner_text()
    assert sum("\u4e00" <= char <= "\u9fff" for char in text) > len(text) / 4, text
    assert log.errors == []


@pytest.mark.parametrize(("language", "label"), [("en", "Copy"), ("zh_TW", "複製")])
def test_copy_button_copies_code_without_prompts_or_output(tab: Tab, language: str, label: str) -> None:
    page, log = tab(language)
    page.goto((BUILD / language / "10-pre-training-and-fine-tuning.html").as_uri())
    button = page.locator("button.copy-code").first
    assert button.inner_text() == label
    pre = page.locator("div.highlight pre").first
    copied = page.evaluate("text => window.LLMGlossaryCopyCode.codeOf(text)", pre.inner_text())
    assert ">>>" not in copied and copied.strip()
    assert all(line in pre.inner_text() for line in copied.splitlines())
    assert log.errors == []


@pytest.mark.parametrize(("locale", "edition"), [("en-US", "en"), ("zh-TW", "zh_TW"), ("fr-FR", "en")])
def test_site_root_sends_readers_to_their_language(locale: str, edition: str) -> None:
    # A context per locale: the browser's languages are fixed when its context is made.
    with browser_page(locale=locale) as (page, log):
        page.goto((BUILD / "index.html").as_uri())
        page.wait_for_url(f"**/{edition}/index.html")
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize(
    ("language", "docname", "word"),
    [("en", "concept-map", "token"), ("en", "19-will-it-fit", "kv"),
     ("zh_TW", "concept-map", "詞元"), ("zh_TW", "19-will-it-fit", "kv")],
)
def test_search_highlighting_skips_svg_titles(tab: Tab, language: str, docname: str, word: str) -> None:
    """A reader arriving from a search with ``word`` highlighted: no error, the word marked in the page.

    The concept map's nodes and the drawn figures name themselves with SVG ``<title>``
    elements that contain the word; Sphinx's highlighting asks an SVG parent for its
    bounding box, which a ``<title>`` lacks, so they carry the class it skips.
    """
    page, log = tab(language)
    log.errors.clear()
    page.goto((BUILD / language / f"{docname}.html").as_uri() + "?highlight=" + quote(word), wait_until="load")
    page.evaluate(SETTLED)
    assert log.errors == []
    assert page.locator("svg title").filter(has_text=word).count() > 0
    assert page.locator(".highlighted").count() > 0
