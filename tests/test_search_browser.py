"""The built search pages work in a real browser, from file://, in both languages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import PageLog, page_per_key

BUILD = Path(__file__).resolve().parent.parent / "_build" / "html"

pytestmark = [pytest.mark.site, pytest.mark.browser]

Tab = Callable[[str], tuple[Any, PageLog]]


@pytest.fixture(scope="module")
def tab() -> Iterator[Tab]:
    """One page (one browser context) per language for the module: each query is a new load in it.

    A new context and its first load cost several times a load in an open page; every
    query here is still a real load of the search page with ``?q=``, as a reader's search is.
    """
    with page_per_key() as for_key:
        yield for_key


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
def test_search_page_lists_results_without_errors(tab: Tab, language: str, query: str) -> None:
    search = BUILD / language / "search.html"
    assert search.exists(), "run `make html` first"
    page, log = tab(language)
    page.goto(f"{search.as_uri()}?q={query}")
    page.wait_for_selector("#search-results ul.search li", timeout=15_000)
    results = page.locator("#search-results ul.search li").count()
    assert results > 0
    assert log.errors == []
    assert log.requests == []
