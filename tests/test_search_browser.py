"""The built search pages work in a real browser, from file://, in both languages."""

from __future__ import annotations

import re
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


def search_page(tab: Tab, language: str, query: str) -> tuple[Any, PageLog]:
    """The search page of ``language`` loaded with ``?q=query``, once Sphinx has said how many it found."""
    page, log = tab(language)
    page.goto(f"{(BUILD / language / 'search.html').as_uri()}?q={query}")
    page.wait_for_function("document.querySelector('#search-results .search-summary')?.textContent.trim() !== ''")
    return page, log


@pytest.mark.parametrize(
    ("language", "query", "summary"),
    [
        ("zh_TW", "詞元", r"^搜尋完成，共找到 \d+ 筆符合的結果。$"),
        ("zh_TW", "zzqqxx", r"^找不到符合的結果。請確認拼字，或改用較短的詞、英文術語或中文譯名再試一次。$"),
        ("en", "token", r"^Search finished, found \d+ pages matching the search query\.$"),
    ],
)
def test_the_search_page_says_how_many_it_found_or_what_to_try(
    tab: Tab, language: str, query: str, summary: str
) -> None:
    """Sphinx 9.0.4's zh_TW catalog leaves the result count empty; the site's catalog gives it."""
    page, log = search_page(tab, language, query)
    assert re.fullmatch(summary, page.locator("#search-results .search-summary").inner_text().strip())
    assert log.errors == [] and log.requests == []


def test_zh_hits_say_glossary_entry_and_command_in_chinese(tab: Tab) -> None:
    page, log = search_page(tab, "zh_TW", "gguf")
    labels = page.eval_on_selector_all("#search-results ul.search > li", "items => items.map((i) => i.textContent)")
    assert any("術語表條目，於" in label for label in labels), labels[:3]
    assert any("命令，於" in label for label in labels), labels[:5]
    assert not any("雜項術語" in label or "command" in label for label in labels)
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize(("language", "command_title"), [("en", "file's tensors"), ("zh_TW", ".gguf 檔案的張量")])
def test_result_titles_show_text_not_html_entities(tab: Tab, language: str, command_title: str) -> None:
    page, log = search_page(tab, language, "gguf")
    titles = page.eval_on_selector_all("#search-results ul.search > li > a", "links => links.map((a) => a.textContent)")
    assert any(command_title in title for title in titles), titles[:5]
    assert [title for title in titles if re.search(r"&(#x?[0-9a-fA-F]+|[a-z]+);", title)] == []
    assert log.errors == [] and log.requests == []


def test_zh_command_hits_are_titled_as_the_translated_reference_shows_them(tab: Tab) -> None:
    """The index took each command's title from llmcalc/cli.py's English help, not the page's translation."""
    page, log = search_page(tab, "zh_TW", "kv-cache")
    commands = page.eval_on_selector_all(
        "#search-results ul.search > li",
        "items => items.filter((i) => i.textContent.includes('命令，於')).map((i) => i.querySelector('a').textContent)",
    )
    assert "llmcalc kv-cache：幾種上下文長度的 KV 快取位元組數" in commands, commands
    assert [title for title in commands if re.search(r"[A-Za-z]+ [a-z]+ [a-z]+", title)] == []
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize(("language", "other"), [("en", "zh_TW"), ("zh_TW", "en")])
def test_the_language_switch_keeps_the_search_query(tab: Tab, language: str, other: str) -> None:
    page, log = search_page(tab, language, "LoRA")
    page.locator("a.language-switch").first.click()
    page.wait_for_url(f"**/{other}/search.html?q=LoRA")
    page.wait_for_selector("#search-results ul.search li", timeout=15_000)
    assert page.locator("#search-results ul.search li").count() > 0
    assert log.errors == [] and log.requests == []
