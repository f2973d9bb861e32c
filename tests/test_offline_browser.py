"""The built site works offline: every page of both editions, opened from file://.

Each page is loaded in headless Chromium with every request observed; any request
that is not for a local file (a CDN script, a web font, a tracker) or any JavaScript
error fails the test, naming the page.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import browser_page

BUILD = Path(__file__).resolve().parent.parent / "_build" / "html"
SETTLED = "() => new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)))"

pytestmark = [pytest.mark.site, pytest.mark.browser]


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_every_page_loads_without_network_or_errors(language: str) -> None:
    pages = sorted((BUILD / language).rglob("*.html"))
    assert len(pages) > 20, "run `make html` first"
    problems = []
    with browser_page() as (page, log):
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


def test_zh_tw_previews_show_chinese_definitions() -> None:
    page_path = BUILD / "zh_TW" / "05-the-transformer.html"
    with browser_page() as (page, log):
        page.goto(page_path.as_uri())
        link = page.locator("a.has-term-preview").first
        link.focus()
        preview = page.locator("#term-preview")
        assert preview.is_visible()
        text = preview.locator("p").inner_text()
        assert sum("\u4e00" <= char <= "\u9fff" for char in text) > len(text) / 4, text
    assert log.errors == []


@pytest.mark.parametrize(("language", "label"), [("en", "Copy"), ("zh_TW", "複製")])
def test_copy_button_copies_code_without_prompts_or_output(language: str, label: str) -> None:
    with browser_page() as (page, log):
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
    with browser_page(locale=locale) as (page, log):
        page.goto((BUILD / "index.html").as_uri())
        page.wait_for_url(f"**/{edition}/index.html")
    assert log.errors == [] and log.requests == []
