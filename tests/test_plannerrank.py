"""The planner's "All cards" table (plannerrank.js) in headless Chromium, both languages, against the CLI.

The oracle is ``llmcalc plan MODEL ... --gpu all --json`` (llmcalc.ranking, whose every row is checked against the
single-card plan in ``test_ranking.py``): the widget's rows, in their order, must carry the same card, GPU count,
verdict, headroom in bytes, longest context, most sequences and first change.  The plans are opened from share
links, so the link's fields for the table (the box, vLLM's requests, the sort order) are exercised too; the sort
is driven from the keyboard and read back from aria-sort and the address.
"""

from __future__ import annotations

import json
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

ROWS = """() => Array.from(document.querySelectorAll(".planner-rank-table tbody tr")).map((row) => ({
  card: row.dataset.card, gpus: Number(row.dataset.gpus), fits: row.dataset.fits === "true",
  headroom: row.dataset.headroom, largest_context: row.dataset.largestContext,
  largest_batch: row.dataset.largestBatch, change: row.dataset.change}))"""

# (the widget's share-link fields, the CLI's arguments for the same plan)
CASES = {
    "sum": ({"preset": "llama-3.1-8b", "task": "inference", "context": "32768", "batch": "16"},
            ["llama-3.1-8b", "--context", "32768", "--batch", "16"]),
    "vllm": ({"preset": "llama-3.1-8b", "task": "inference", "engine": "vllm", "context": "32768",
              "rank_concurrency": "16"},
             ["llama-3.1-8b", "--engine", "vllm", "--context", "32768", "--concurrency", "16"]),
    # vLLM's near misses, each with its smallest change (llmcalc.ranking.vllm_changes_that_fit): fewer requests,
    # a shorter max_model_len, a card, more GPUs; and, with an fp8 KV cache already and 0.7 of the card, where
    # even one request does not fit: a higher gpu_memory_utilization or a lighter weight format.
    "vllm-before-0.20": ({"preset": "llama-3.1-8b", "task": "inference", "engine": "vllm",
                          "vllm_version": "before-0.20", "context": "8192", "rank_concurrency": "5"},
                         ["llama-3.1-8b", "--engine", "vllm", "--vllm-version", "before-0.20", "--context", "8192",
                          "--concurrency", "5"]),
    "vllm-utilization": ({"preset": "qwen2.5-7b", "task": "inference", "engine": "vllm", "kv_format": "fp8",
                          "gpu_memory_utilization": "70", "context": "4096", "rank_concurrency": "2"},
                         ["qwen2.5-7b", "--engine", "vllm", "--kv-format", "fp8", "--gpu-memory-utilization", "0.7",
                          "--context", "4096", "--concurrency", "2"]),
    "vllm-window": ({"preset": "gemma-2-9b", "task": "inference", "engine": "vllm", "vllm_version": "0.20+",
                     "gpu_memory_utilization": "92",
                     "context": "8192", "rank_concurrency": "8"},
                    ["gemma-2-9b", "--engine", "vllm", "--vllm-version", "0.20+", "--context", "8192",
                     "--concurrency", "8"]),
    # A mixture of experts: the search for a lighter weight format passes over GPTQ (int4), whose size is not
    # modelled for one (llmcalc.weightformats.modelled_weight_formats); vLLM 0.20+ adds the resident fused-MoE
    # workspace to the sampler's warm-up.
    "sum-moe": ({"preset": "qwen3-30b-a3b", "task": "inference", "context": "4096", "batch": "1"},
                ["qwen3-30b-a3b", "--context", "4096", "--batch", "1"]),
    "vllm-moe": ({"preset": "qwen3-30b-a3b", "task": "inference", "engine": "vllm", "vllm_version": "0.20+",
                  "gpu_memory_utilization": "92", "context": "32768", "rank_concurrency": "16"},
                 ["qwen3-30b-a3b", "--engine", "vllm", "--vllm-version", "0.20+", "--context", "32768",
                  "--concurrency", "16"]),

    # vLLM 0.17 to 0.19: before 0.20, but the Triton filter; and 0.20 and later, whose filter and hybrid KV-cache
    # manager (Gemma 2's windows) the ranking plans as the single card's plan does.
    "vllm-triton": ({"preset": "gemma-2-9b", "task": "inference", "engine": "vllm", "context": "8192",
                     "max_num_seqs": "1024", "sampler_filter": "triton", "rank_concurrency": "16"},
                    ["gemma-2-9b", "--engine", "vllm", "--context", "8192", "--max-num-seqs", "1024",
                     "--sampler-filter", "triton", "--concurrency", "16"]),
    # A link without the filter, as links made before it was a field: the release's, Triton.
    "vllm-0.20": ({"preset": "gemma-2-9b", "task": "inference", "engine": "vllm", "context": "8192",
                   "vllm_version": "0.20+", "gpu_memory_utilization": "92", "max_num_seqs": "1024",
                   "rank_concurrency": "16"},
                  ["gemma-2-9b", "--engine", "vllm", "--context", "8192", "--vllm-version", "0.20+",
                   "--max-num-seqs", "1024", "--concurrency", "16"]),
    "full-zero3": ({"preset": "llama-2-13b", "task": "full", "zero_stage": "3", "seq_len": "2048"},
                   ["llama-2-13b", "--task", "full", "--zero-stage", "3", "--seq-len", "2048"]),
}


def page_url(language: str, fields: dict[str, str]) -> str:
    path = SITE / language / PAGE
    assert path.exists(), "run `make html` first"
    return path.as_uri() + "#" + urllib.parse.urlencode({"plan": "1", **fields, "all_cards": "true"})


def cli_rows(argv: list[str]) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "llmcalc", "plan", *argv, "--gpu", "all", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return [{"card": row["card"], "gpus": row["gpus"], "fits": row["fits"], "headroom": str(row["headroom"]),
             "largest_context": str(row["largest_context"]), "largest_batch": str(row["largest_batch"]),
             "change": row["change"]["change"] if row["change"] else ""} for row in json.loads(out)["rows"]]


@pytest.fixture(scope="module")
def new_page() -> Any:
    with browser_pages() as opener:
        yield opener


def open_table(new_page: Any, language: str, fields: dict[str, str]) -> tuple[Any, Any]:
    page, log = new_page()
    page.goto("about:blank")
    page.goto(page_url(language, fields))
    page.wait_for_selector(".planner-rank-table tbody tr")
    return page, log


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", CASES)
def test_the_table_is_the_cli_s_ranking(new_page: Any, language: str, case: str) -> None:
    fields, argv = CASES[case]
    page, log = open_table(new_page, language, fields)
    assert page.evaluate(ROWS) == cli_rows(argv)
    caption = page.locator(".planner-rank-caption").text_content()
    assert bool(HAN.search(caption)) == (language == "zh_TW")
    # Every card with an estimated total is marked, and the note says which total each row used.
    estimated = page.locator('.planner-rank-table tr[data-estimated="true"] th').all_text_contents()
    assert estimated and all(name.endswith(" *") for name in estimated)
    assert "881" in page.locator(".planner-rank .planner-note").first.text_content()  # then vLLM's speed notes
    assert log.errors == [] and log.requests == []


def test_the_sort_is_keyboard_driven_and_kept_in_the_link(new_page: Any) -> None:
    fields = CASES["sum"][0]
    page, log = open_table(new_page, "en", fields)
    header = '.planner-rank-table th[data-column="gpus"]'
    assert page.locator(header).get_attribute("aria-sort") == "none"
    assert page.locator('.planner-rank-table th[data-column="rank"]').get_attribute("aria-sort") == "ascending"
    page.locator(header + " button").focus()
    page.keyboard.press("Enter")
    assert page.locator(header).get_attribute("aria-sort") == "ascending"
    page.keyboard.press("Enter")  # the focus stays on the header's button after the table is redrawn
    assert page.locator(header).get_attribute("aria-sort") == "descending"
    gpus = [row["gpus"] for row in page.evaluate(ROWS)]
    assert gpus == sorted(gpus, reverse=True) and gpus[0] == 8
    assert "rank_sort=gpus%3Adescending" in page.url and "all_cards=true" in page.url
    # The link opens the same table, in the same order.
    rows = page.evaluate(ROWS)
    again, _ = new_page()
    again.goto(page.url)
    again.wait_for_selector(".planner-rank-table tbody tr")
    assert again.evaluate(ROWS) == rows
    assert again.locator(header).get_attribute("aria-sort") == "descending"
    assert log.errors == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_qlora_table_made_from_the_form(new_page: Any, language: str) -> None:
    """Chosen in the form, as a reader does: the trainer's set-up fills in what it sets, as the CLI's defaults."""
    page, log = new_page()
    page.goto("about:blank")
    page.goto((SITE / language / PAGE).as_uri())
    page.locator('select[name="preset"]').select_option("llama-2-13b")
    page.locator('input[name="task"][value="qlora"]').check()
    page.locator('[name="seq_len"]').fill("4096")
    page.locator('[name="checkpointing"]').uncheck()
    page.locator('[name="all_cards"]').check()
    page.wait_for_selector(".planner-rank-table tbody tr")
    rows = page.evaluate(ROWS)
    assert rows == cli_rows(["llama-2-13b", "--task", "qlora", "--seq-len", "4096", "--no-checkpointing"])
    assert any(row["change"] == "--checkpointing" for row in rows) and any(row["fits"] for row in rows)
    assert "all_cards=true" in page.url
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_vllm_change_reads_in_the_form_s_words(new_page: Any, language: str) -> None:
    """The change cell names the form's field in the page's language, with the value as that field takes it: the
    CLI's --gpu-memory-utilization 0.75 is the form's percentage, 75; zh_TW sets them apart with 「：」, not ": "."""
    fields, argv = CASES["vllm-utilization"]
    page, log = open_table(new_page, language, fields)
    expected = {(row["card"], row["gpus"]): row["change"] for row in cli_rows(argv)}
    assert expected[("a10g", 1)] == "--gpu-memory-utilization 0.75"
    row = page.locator('.planner-rank-table tr[data-card="a10g"][data-gpus="1"]')
    field = page.locator('[name="gpu_memory_utilization"]').get_attribute("id")
    label = page.locator(f'label[for="{field}"]').text_content().strip()
    # The field and its value set apart as the language does: ": " in English, a full-width 「：」 in zh_TW.
    assert row.locator("td").last.text_content() == label + {"en": ": ", "zh_TW": "："}[language] + "75"
    assert bool(HAN.search(label)) == (language == "zh_TW")
    assert row.get_attribute("data-change") == expected[("a10g", 1)]
    assert log.errors == [] and log.requests == []
