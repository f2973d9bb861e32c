"""The built search pages work in a real browser, from file://, in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser import browser_page

BUILD = Path(__file__).resolve().parent.parent / "_build" / "html"

pytestmark = [pytest.mark.site, pytest.mark.browser]


@pytest.mark.parametrize(
    ("language", "query"),
    [
        ("zh_TW", "梯度"),
        ("zh_TW", "詞元"),
        ("zh_TW", "低秩適應"),
        ("zh_TW", "LoRA"),
        ("en", "gradient"),
        ("en", "LoRA"),
    ],
)
def test_search_page_lists_results_without_errors(language: str, query: str) -> None:
    search = BUILD / language / "search.html"
    assert search.exists(), "run `make html` first"
    with browser_page() as (page, log):
        page.goto(f"{search.as_uri()}?q={query}")
        page.wait_for_selector("#search-results ul.search li", timeout=15_000)
        results = page.locator("#search-results ul.search li").count()
        assert results > 0
        assert log.errors == []
        assert log.requests == []
