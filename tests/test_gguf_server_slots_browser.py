"""llama-server's automatic slots in the GGUF planner (its "llama-server without -np" box), headless Chromium, both
languages, against ``llmcalc gguf --llama-server``: the plan, its caches, the note, the every-card table and the link.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from test_gguf_browser import LANGUAGES, tab
from test_gguf_swa_browser import page_uri, same_plan

from zhlint import HAN

__all__ = ["tab"]  # the fixture (page 19 of each language, loaded once), imported to be used here

pytestmark = [pytest.mark.site, pytest.mark.browser]

SET = """async ([server, parallel, unified, rank]) => {
  const root = document.querySelector('[data-gguf-planner]');
  const form = root.querySelector('form');
  form.gguf_source.value = 'gemma-3-1b'; form.gguf_recipe.value = 'Q4_K_M'; form.gguf_imatrix.checked = false;
  form.gguf_context.value = '32768'; form.gguf_ubatch.value = '512'; form.gguf_flash.checked = false;
  form.gguf_swa_full.checked = false; form.gguf_ngl.value = ''; form.gguf_compute_buffer.value = '';
  form.gguf_beyond.checked = false; form.gguf_gpu.value = '24';
  form.gguf_parallel.value = parallel; form.gguf_kv_unified.checked = unified;
  form.gguf_llama_server.checked = server; form.gguf_rank_all.checked = rank;
  form.gguf_llama_server.dispatchEvent(new Event('change', {bubbles: true}));
  const note = root.querySelector('[data-server-slots]');
  const rows = Array.from(root.querySelectorAll('.gguf-rank-table tbody tr')).map((row) => ({
    card: row.dataset.card, fits: row.dataset.fits === 'true', headroom: row.dataset.headroom,
    largest_context: row.dataset.largestContext}));
  return {state: root.dataset.state, plan: JSON.parse(root.dataset.plan || 'null'),
          note: note.hidden ? null : note.textContent, rows, hash: location.hash};
}"""


def cli(*extra: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "llmcalc", "gguf", "gemma-3-1b", "--recipe", "Q4_K_M", "--context", "32768",
            "--json", *extra]
    result: dict[str, Any] = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
    return result


@pytest.mark.parametrize("language", LANGUAGES)
def test_automatic_slots_equal_the_cli(tab: Any, language: str) -> None:
    """The box plans 4 slots in one unified cache whatever the two fields say, as --llama-server without -np does;
    unticked, the fields' -np 2 without --kv-unified plans 2 streams, as -np 2 does."""
    page, log = tab(language)
    expected = cli("--llama-server", "--gpu", "24")
    got = page.evaluate(SET, [True, "2", False, False])
    assert got["state"] == "plan"
    same_plan(got, expected)
    assert [(c["cells"], c["streams"]) for c in got["plan"]["kv_caches"]] == [(32768, 1), (2560, 1)]
    assert got["plan"]["host_total"] == expected["host"]["total"]  # 4 rows of logits
    assert (got["plan"]["parallel"], got["plan"]["kv_unified"], got["plan"]["llama_server_slots"]) == (4, True, True)
    assert got["note"] is not None and "4" in got["note"] and "17997" in got["note"] and "{" not in got["note"]
    assert bool(HAN.search(got["note"])) == (language == "zh_TW")
    # the link carries the box: opened afresh it gives the same plan
    page.goto(page_uri(language) + got["hash"])
    page.wait_for_function("() => document.querySelector('[data-gguf-planner]').dataset.state === 'plan'")
    again = json.loads(page.evaluate("() => document.querySelector('[data-gguf-planner]').dataset.plan"))
    assert (again["kv_caches"], again["total"], again.get("llama_server_slots")) == \
        (got["plan"]["kv_caches"], got["plan"]["total"], True)
    given = page.evaluate(SET, [False, "2", False, False])
    same_plan(given, cli("-np", "2", "--gpu", "24"))
    assert given["note"] is None and "llama_server_slots" not in given["plan"]
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_card_table_plans_the_automatic_slots(tab: Any, language: str) -> None:
    page, log = tab(language)
    shown = page.evaluate(SET, [True, "1", False, True])
    rows = cli("--llama-server", "--gpu", "all")["rows"]
    assert shown["rows"] == [{"card": row["card"], "fits": row["fits"], "headroom": str(row["headroom"]),
                              "largest_context": str(row["largest_context"])} for row in rows]
    assert log.errors == [] and log.requests == []
