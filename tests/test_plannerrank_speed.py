"""The speed and cost columns of the planner's vLLM "All cards" table (plannerrank.js) in headless Chromium, against
the CLI, in both languages.

The oracle is ``llmcalc plan MODEL --engine vllm --gpu all --prompt-tokens P --generated-tokens G --price CARD=PRICE
--json`` (llmcalc.ranking's RowSpeed, whose figures tests/test_ranking_speed.py checks against
``estimate_vllm_speed`` and hand arithmetic) and, for the cells and footnotes as printed, ``speed_table`` of the
same rows: every row of the widget, in its order, must carry the CLI's figures (to the float) or its refusal's
code, show the CLI's cells, and the footnotes must be the CLI's in English and as many, in Chinese, in zh_TW.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from browser import browser_pages
from zhlint import HAN

pytestmark = [pytest.mark.site, pytest.mark.browser]

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "_build" / "html"
PAGE = "19-will-it-fit.html"
LANGUAGES = ("en", "zh_TW")

ROWS = """() => Array.from(document.querySelectorAll(".planner-rank-table tbody tr")).map((row) => {
  const cells = Array.from(row.querySelectorAll("td")).map((cell) => cell.textContent);
  return {card: row.dataset.card, gpus: Number(row.dataset.gpus), refusal: row.dataset.refusal || null,
          aggregate: row.dataset.aggregate ? Number(row.dataset.aggregate) : null,
          each: row.dataset.each ? Number(row.dataset.each) : null,
          first: row.dataset.first ? Number(row.dataset.first) : null,
          cost: row.dataset.cost ? Number(row.dataset.cost) : null, cells: cells};
})"""
NOTES = """() => Array.from(document.querySelectorAll(".planner-rank-notes li")).map((item) => item.textContent)"""


# (the widget's share-link fields, the CLI's arguments, the prices) for the same plan
CASES: dict[str, tuple[dict[str, str], list[str], dict[str, str]]] = {
    # speed_table's doctest: the A10's 109.0 tokens/s in all, 739 ms, 1.53 a million at 0.6.
    "llama-8b": ({"preset": "llama-3.1-8b", "task": "inference", "engine": "vllm", "context": "4096",
                  "rank_concurrency": "4", "rank_prompt": "1024", "rank_generated": "256"},
                 ["llama-3.1-8b", "--engine", "vllm", "--context", "4096", "--concurrency", "4",
                  "--prompt-tokens", "1024", "--generated-tokens", "256"],
                 {"a10": "0.6", "h100-sxm": "2.49", "mi300x": "1.99"}),
    # Long prompts past the measured context, a compute-bound prefill, near misses refused as not fitting.
    "llama-8b-long": ({"preset": "llama-3.1-8b", "task": "inference", "engine": "vllm", "context": "32768",
                       "rank_concurrency": "16", "rank_prompt": "30000", "rank_generated": "2000"},
                      ["llama-3.1-8b", "--engine", "vllm", "--context", "32768", "--concurrency", "16",
                       "--prompt-tokens", "30000", "--generated-tokens", "2000"],
                      {"l40s": "0.86", "h100-sxm": "2.49", "h200": "3.5"}),
    # A sliding window: every row refused, the model's type named.
    "gemma-window": ({"preset": "gemma-2-9b", "task": "inference", "engine": "vllm", "vllm_version": "0.20+",
                      "gpu_memory_utilization": "92", "context": "8192", "rank_concurrency": "8",
                      "rank_prompt": "512", "rank_generated": "128"},
                     ["gemma-2-9b", "--engine", "vllm", "--vllm-version", "0.20+", "--context", "8192",
                      "--concurrency", "8", "--prompt-tokens", "512", "--generated-tokens", "128"],
                     {}),
}


def page_url(language: str, fields: dict[str, str], prices: dict[str, str]) -> str:
    path = SITE / language / PAGE
    assert path.exists(), "run `make html` first"
    priced = {f"price_{card}": price for card, price in prices.items()}
    return path.as_uri() + "#" + urllib.parse.urlencode({"plan": "1", **fields, **priced, "all_cards": "true"})


def cli(argv: list[str], prices: dict[str, str], *extra: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The CLI's rows (--json) and the lines of its text output (its table and footnotes)."""
    priced = [part for card, price in prices.items() for part in ("--price", f"{card}={price}")]
    command = [sys.executable, "-m", "llmcalc", "plan", *argv, "--gpu", "all", *priced, *extra]
    rows = json.loads(subprocess.run([*command, "--json"], capture_output=True, text=True, check=True).stdout)["rows"]
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return rows, text.splitlines()


def expected_cells(speed: dict[str, Any], number: int | None, priced: bool) -> list[str]:
    """The cells llmcalc.ranking._speed_cells prints for the row (``number``: its footnote's, if refused)."""
    if not speed["estimate"]:
        return [f"n/a [{number}]", "n/a", "n/a", *(["n/a"] if priced else [])]
    cost = speed["cost_per_million_output_tokens"]
    return [f"{speed['aggregate_tokens_per_second']:,.1f}", f"{speed['sequence_tokens_per_second']:,.1f}",
            f"{speed['time_to_first_token_seconds'] * 1000:,.0f}",
            *([("no price" if cost is None else f"{cost:,.2f}")] if priced else [])]


@pytest.fixture(scope="module")
def new_page() -> Any:
    with browser_pages() as opener:
        yield opener


def open_table(new_page: Any, url: str) -> tuple[Any, Any]:
    page, log = new_page()
    page.goto("about:blank")
    page.goto(url)
    page.wait_for_selector(".planner-rank-table tbody tr")
    return page, log


def footnotes(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("[", "note ("))]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", CASES)
def test_each_row_s_speed_and_cost_are_the_cli_s(new_page: Any, language: str, case: str) -> None:
    fields, argv, prices = CASES[case]
    rows, lines = cli(argv, prices)
    page, log = open_table(new_page, page_url(language, fields, prices))
    shown = page.evaluate(ROWS)
    assert [(row["card"], row["gpus"]) for row in shown] == [(row["card"], row["gpus"]) for row in rows]
    priced = bool(prices)
    refusals: list[str] = []  # the refusals in the table's order, each once: the footnotes' numbers
    for row, theirs in zip(shown, rows, strict=True):
        speed = theirs["speed"]
        if speed["estimate"]:
            assert row["refusal"] is None
            for mine, key in (("aggregate", "aggregate_tokens_per_second"), ("each", "sequence_tokens_per_second"),
                              ("first", "time_to_first_token_seconds")):
                assert math.isclose(row[mine], speed[key], rel_tol=1e-12), (row["card"], mine)
            cost = speed["cost_per_million_output_tokens"]
            assert (row["cost"] is None) == (cost is None)
            assert cost is None or math.isclose(row["cost"], cost, rel_tol=1e-12)
            number = None
        else:
            assert row["refusal"] == speed["refusal"], row["card"]
            reason = (speed["refusal"], json.dumps(speed["params"], sort_keys=True))
            if reason not in refusals:
                refusals.append(reason)
            number = refusals.index(reason) + 1
        cells = expected_cells(speed, number, priced)
        if language == "zh_TW":  # the page's words for "n/a" and "no price"; the numbers as the CLI's
            cells = [cell if cell[:1].isdigit() else row["cells"][len(row["cells"]) - len(cells) + index]
                     for index, cell in enumerate(cells)]
        assert row["cells"][-len(cells):] == cells, row["card"]
    notes = page.evaluate(NOTES)
    if language == "en":
        assert notes == footnotes(lines)
    else:
        assert len(notes) == len(footnotes(lines)) and all(HAN.search(note) for note in notes)
    basis = page.locator(".planner-rank .planner-note").last.text_content()
    assert bool(HAN.search(basis)) == (language == "zh_TW")
    assert log.errors == [] and log.requests == []


def test_the_examples_cover_estimates_refusals_prices_and_notes() -> None:
    """The cases reach what the columns show: estimates, several refusals, a cost, a row priced but refused."""
    codes: set[str] = set()
    costs = notes = 0
    for _fields, argv, prices in CASES.values():
        rows, lines = cli(argv, prices)
        codes |= {row["speed"]["refusal"] for row in rows if not row["speed"]["estimate"]}
        costs += sum(row["speed"]["cost_per_million_output_tokens"] is not None for row in rows)
        notes += sum(line.startswith("note (") for line in lines)
    assert {"vllm_speed_tensor_parallel", "ranking_speed_does_not_fit", "no_datasheet_figures",
            "vllm_speed_hardware_unmeasured", "vllm_speed_no_tensor_rate", "vllm_speed_model_unmeasured"} <= codes
    assert costs >= 3 and notes >= 2


def test_sort_by_cost_is_the_cli_s_and_the_link_keeps_split_and_prices(new_page: Any) -> None:
    fields, argv, prices = CASES["llama-8b"]
    rows, _lines = cli(argv, prices, "--sort", "cost")
    page, log = open_table(new_page, page_url("en", fields, prices))
    header = '.planner-rank-table th[data-column="cost"]'
    page.locator(header + " button").focus()
    page.keyboard.press("Enter")
    assert page.locator(header).get_attribute("aria-sort") == "ascending"
    shown = page.evaluate(ROWS)
    assert [(row["card"], row["gpus"]) for row in shown] == [(row["card"], row["gpus"]) for row in rows]
    assert [row["cost"] for row in shown[:2]] == sorted(row["cost"] for row in shown[:2])
    # A price typed in the form goes into the link; a card left without one does not appear there.
    page.locator("details.planner-rank-prices summary").click()
    page.locator('[name="price_l4"]').fill("0.8")
    page.wait_for_function("() => location.hash.includes('price_l4=0.8')")
    assert "rank_prompt=1024" in page.url and "rank_generated=256" in page.url and "price_a10=0.6" in page.url
    assert "price_t4=" not in page.url and "rank_sort=cost%3Aascending" in page.url
    table = page.evaluate(ROWS)
    again, _ = new_page()
    again.goto(page.url)
    again.wait_for_selector(".planner-rank-table tbody tr")
    assert again.evaluate(ROWS) == table
    l4 = next(row for row in table if row["card"] == "l4" and row["gpus"] == 1)
    theirs = next(row for row in cli(argv, {**prices, "l4": "0.8"})[0] if row["card"] == "l4" and row["gpus"] == 1)
    assert math.isclose(l4["cost"], theirs["speed"]["cost_per_million_output_tokens"], rel_tol=1e-12)
    assert log.errors == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_bad_split_and_prices_are_named(new_page: Any, language: str) -> None:
    """A split past the context, half a split, a price of 0, a price without a split: each said, in the page's
    language, with the value; the memory columns stay."""
    fields, _argv, _prices = CASES["llama-8b"]
    page, log = open_table(new_page, page_url(language, fields, {}))
    error = page.locator(".planner-rank .calc-error")
    page.locator('[name="rank_prompt"]').fill("4000")
    assert "4,000" in error.text_content() and "4,256" in error.text_content()
    page.locator('[name="rank_prompt"]').fill("")
    assert error.count() == 1 and bool(HAN.search(error.text_content())) == (language == "zh_TW")
    page.locator('[name="rank_generated"]').fill("")
    assert error.count() == 0
    page.locator("details.planner-rank-prices summary").click()
    page.locator('[name="price_a10"]').fill("0")
    assert "0" in error.text_content() and page.locator('th[data-column="aggregate"]').count() == 0
    page.locator('[name="price_a10"]').fill("0.6")
    assert bool(HAN.search(error.text_content())) == (language == "zh_TW")  # a price needs the split
    assert page.locator(".planner-rank-table tbody tr").count() > 0
    assert log.errors == []
