"""The GGUF planner's "All cards" table (gguf.js) in headless Chromium, both languages, against the CLI.

The oracle is ``llmcalc gguf MODEL --recipe R --context N --gpu all --json`` (llmcalc.ranking.rank_gguf, whose every
row and smallest change ``test_ranking.py`` checks against the single-card plan): the widget's rows, in their order,
must carry the same card, verdict, headroom in bytes, longest context, change and, for the change, the host memory
the plan then needs.  A header sorts the rows from the keyboard; axe-core judges the table in both colour
schemes.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from typing import Any

import pytest
from test_accessibility import SCHEMES, axe_source, run_axe
from test_gguf_browser import LANGUAGES, tab

from zhlint import HAN

__all__ = ["tab"]  # the fixture (page 19 of each language, loaded once), imported to be used here

pytestmark = [pytest.mark.site, pytest.mark.browser]

# (model, recipe, imatrix, context, cache types and flash attention): near misses of every kind of change.
CASES = [
    ("llama-3.1-70b", "Q4_K_M", False, "8192", ("f16", "f16", False)),  # -ngl, a smaller recipe
    ("llama-3.1-8b", "Q8_0", False, "32768", ("f16", "f16", False)),  # a shorter context
    ("mistral-7b", "IQ4_XS", True, "131072", ("q8_0", "q8_0", True)),  # an imatrix recipe, quantized cache
    ("qwen2.5-7b", "Q6_K", False, "4096", ("f16", "f16", False)),  # fits every card but the smallest
]


@functools.cache
def cli(model: str, recipe: str, imatrix: bool, context: str, cache: tuple[str, str, bool]) -> list[dict[str, Any]]:
    argv = [sys.executable, "-m", "llmcalc", "gguf", model, "--recipe", recipe, "--context", context,
            "--cache-type-k", cache[0], "--cache-type-v", cache[1], "--gpu", "all", "--json"]
    argv += ["--imatrix"] * imatrix + ["--flash-attn"] * cache[2]
    rows = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)["rows"]
    return [{"card": row["card"], "fits": row["fits"], "headroom": str(row["headroom"]),
             "largest_context": str(row["largest_context"]),
             "change": row["change"]["change"] if row["change"] else "",
             "host": str(row["change"]["host_bytes"]) if row["change"] else None} for row in rows]


RANK = """async ([source, recipe, imatrix, context, cache]) => {
  const root = document.querySelector('[data-gguf-planner]');
  const form = root.querySelector('form');
  form.gguf_context.value = context; form.gguf_ubatch.value = '512';
  form.gguf_cache_k.value = cache[0]; form.gguf_cache_v.value = cache[1]; form.gguf_flash.checked = cache[2];
  form.gguf_compute_buffer.value = ''; form.gguf_beyond.checked = false; form.gguf_ngl.value = '';
  form.gguf_source.value = source; form.gguf_recipe.value = recipe; form.gguf_imatrix.checked = imatrix;
  form.gguf_rank_all.checked = true;
  form.gguf_rank_all.dispatchEvent(new Event('change', {bubbles: true}));
  const rows = Array.from(root.querySelectorAll('.gguf-rank-table tbody tr')).map((row) => ({
    card: row.dataset.card, fits: row.dataset.fits === 'true', headroom: row.dataset.headroom,
    largest_context: row.dataset.largestContext, change: row.dataset.change, host: row.dataset.host ?? null}));
  const texts = Array.from(root.querySelectorAll('.gguf-rank-table tbody tr')).map(
    (row) => Array.from(row.cells).map((cell) => cell.textContent));
  return {rows, texts, caption: root.querySelector('.gguf-rank-caption').textContent,
          hidden: root.querySelector('.gguf-rank').hidden};
}"""


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in CASES])
def test_the_table_is_the_cli_s_ranking(tab: Any, language: str, case: tuple[Any, ...]) -> None:
    page, log = tab(language)
    shown = page.evaluate(RANK, list(case))
    assert not shown["hidden"] and shown["rows"] == cli(*case)
    assert bool(HAN.search(shown["caption"])) == (language == "zh_TW")
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_kind_of_change_reads_in_the_form_s_words(tab: Any, language: str) -> None:
    page, _log = tab(language)
    shown = page.evaluate(RANK, list(CASES[0]))
    label = {name: page.locator(f'[data-gguf-planner] label[for$="-{name}"]').text_content().strip()
             for name in ("ngl", "recipe", "context")}
    colon = {"en": ": ", "zh_TW": "："}[language]  # a field and its value: zh_TW sets them apart full-width
    by_card = {row["card"]: text for row, text in zip(shown["rows"], shown["texts"], strict=True)}
    assert by_card["rtx-4090"][1] == "RTX 4090 (24 GB)"
    assert by_card["rtx-4090"][-1].startswith(f"{label['ngl']}{colon}43")
    assert "20.26" in by_card["rtx-4090"][-1] and by_card["a100-40gb"][-1] == f"{label['recipe']}{colon}IQ4_XS"
    context = page.evaluate(RANK, list(CASES[1]))
    by_card = {row["card"]: text for row, text in zip(context["rows"], context["texts"], strict=True)}
    assert by_card["rtx-3060"][-1] == f"{label['context']}{colon}20,480"
    assert all(bool(HAN.search(text)) == (language == "zh_TW") for text in (label["ngl"], label["recipe"]))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_table_passes_axe(tab: Any, language: str) -> None:
    source = axe_source()
    page, log = tab(language)
    failures = []
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        page.evaluate(RANK, list(CASES[0]))
        failures += [f"{scheme} {line}" for line in run_axe(page, source, "[data-gguf-planner]")]
    assert not failures, "\n".join(failures)
    assert log.errors == [] and log.requests == []


def test_the_sort_is_keyboard_driven(tab: Any) -> None:
    """A header's button sorts the rows (ties in rank order) and aria-sort says how; the rows stay the CLI's."""
    page, log = tab("en")
    page.evaluate(RANK, list(CASES[0]))
    header = '[data-gguf-planner] .gguf-rank-table th[data-column="headroom"]'
    rows = """() => Array.from(document.querySelectorAll('.gguf-rank-table tbody tr')).map(
      (row) => [row.dataset.card, Number(row.dataset.headroom)])"""
    assert page.locator(header).get_attribute("aria-sort") == "none"
    page.locator(header + " button").focus()
    page.keyboard.press("Enter")
    assert page.locator(header).get_attribute("aria-sort") == "ascending"
    ascending = page.evaluate(rows)
    assert [h for _, h in ascending] == sorted(h for _, h in ascending)
    page.keyboard.press("Enter")  # the focus stays on the header's button
    assert page.locator(header).get_attribute("aria-sort") == "descending"
    descending = page.evaluate(rows)
    assert [h for _, h in descending] == sorted((h for _, h in descending), reverse=True)
    assert sorted(descending) == sorted([row["card"], int(row["headroom"])] for row in cli(*CASES[0]))
    rank = '[data-gguf-planner] .gguf-rank-table th[data-column="rank"]'
    assert page.locator(rank).get_attribute("aria-sort") == "none"
    page.locator(rank + " button").click()
    assert [card for card, _ in page.evaluate(rows)] == [row["card"] for row in cli(*CASES[0])]
    assert log.errors == [] and log.requests == []
