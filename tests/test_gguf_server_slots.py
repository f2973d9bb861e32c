"""llama-server's parallel slots in GGUF plans, against published figures (llamacpp_runs.json, "server_slots").

Each row is a live llama-server run: Gemma 3 270M's two caches summed for 1 to 8 slots (unsloth PRs 5225 and 7530,
planned from the vendored config.json) and a Qwen3 14B server that llama-server switched to 4 unified slots by itself
(ROCm issue 5901, planned from the header keys its log lists).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from llmcalc import MiB
from llmcalc import gguf as lg
from llmcalc.config import ModelConfig

gguf = pytest.importorskip("gguf")  # the [gguf] extra; make install installs it

DATA = Path(__file__).parent / "data"
RUNS = json.loads((DATA / "llamacpp_runs.json").read_text())["server_slots"]


def _model(run: dict[str, Any], tmp_path: Path) -> lg.GgufModel:
    if "config" in run:
        return lg.model_from_config(ModelConfig.from_hf_config(DATA / run["config"]), "Q8_0")
    from make_gguf_fixtures import write_header_keys  # tools/, on the path in conftest

    header = lg.read_gguf_header(write_header_keys(tmp_path / "model.gguf", run["header"]))
    return dataclasses.replace(lg.gguf_model(header), n_vocab=run["n_vocab"])


def _plan(model: lg.GgufModel, run: dict[str, Any], **change: Any) -> lg.GgufPlan:
    settings = {"parallel": run["n_seq_max"], "kv_unified": run["kv_unified"], **change}
    return lg.plan_gguf(model, context=run["n_ctx"], ubatch=run["n_ubatch"], **settings)


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"{r['url']}-c{r['n_ctx']}-np{r['n_seq_max']}")
def test_slots_equal_published_figures(run: dict[str, Any], tmp_path: Path) -> None:
    """The KV caches' MiB (to the printed 0.01), cells over every stream and the output buffer, as printed."""
    plan = _plan(_model(run, tmp_path), run)
    assert round(plan.kv_cache / MiB, 2) == run["kv_mib"]
    if "cells_total" in run:
        assert {cache.cells * cache.streams for cache in plan.kv_caches} == {run["cells_total"]}
    if "output_buffer_mib" in run:
        assert round(plan.host["output_buffer"] / MiB, 2) == run["output_buffer_mib"]


def test_the_published_rows_tell_the_layouts_apart(tmp_path: Path) -> None:
    """What each row checks: Gemma 3 270M's separate streams (a unified cache would hold 1 window per slot more in
    the SWA layers, or the whole context in one stream) and the server's automatic 4 slots (one slot's logits would be
    a quarter of the output buffer)."""
    gemma = _model(RUNS[0], tmp_path)
    differs = [(run["n_ctx"], run["n_seq_max"]) for run in RUNS
               if "config" in run and round(_plan(gemma, run, kv_unified=True).kv_cache / MiB, 2) != run["kv_mib"]]
    # two separate rows the unified layout also gives: 8 slots at 4,096 tokens (the SWA layers' 8 windows and a
    # micro-batch exceed the context, so they hold its 4,096 cells: 72.0 MiB) and 4 slots at 1,024 (18.0 MiB)
    assert differs == [(4096, 2), (4096, 4), (8192, 2), (1024, 3)]
    assert round(_plan(gemma, RUNS[2], kv_unified=True).kv_cache / MiB, 2) == 49.5  # 12 + 2,560 cells x 15 layers
    automatic = next(run for run in RUNS if run.get("automatic"))
    qwen = _model(automatic, tmp_path)
    assert round(_plan(qwen, automatic, parallel=1, kv_unified=False).host["output_buffer"] / MiB, 2) == 0.58
    # a full-attention model's cache is the same 2,048 cells unified or in 4 streams of 512
    assert _plan(qwen, automatic, kv_unified=False).kv_cache == _plan(qwen, automatic).kv_cache == 320 * MiB


def _cli(*extra: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "llmcalc", "gguf", "gemma-3-1b", "--recipe", "Q4_K_M", "--context",
                          "32768", "--json", *extra], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_llama_server_without_np_runs_four_unified_slots() -> None:
    """--llama-server without -np: llama-server's automatic 4 slots in one unified cache, as ROCm issue 5901's server
    ran them (its row above: 4 sequences, '4/1 seqs'), whatever --kv-unified says; -np N keeps N, separate."""
    automatic = next(run for run in RUNS if run.get("automatic"))
    assert lg.llama_server_slots(None) == (automatic["n_seq_max"], automatic["kv_unified"])
    server, told_separate = _cli("--llama-server", "--gpu", "24GiB"), _cli("--llama-server", "--no-kv-unified")
    assert (server["parallel"], server["kv_unified"], server["llama_server_slots"]) == (4, True, True)
    assert [(c["cells"], c["streams"]) for c in server["kv_caches"]] == [(32768, 1), (2560, 1)]
    assert server["parts"] == _cli("-np", "4", "--kv-unified", "--gpu", "24GiB")["parts"]
    assert server["largest_context"] == _cli("-np", "4", "--kv-unified", "--gpu", "24GiB")["largest_context"]
    assert told_separate["kv_unified"] is True
    given = _cli("--llama-server", "-np", "2")
    assert (given["parallel"], given["kv_unified"], "llama_server_slots" in given) == (2, False, False)
    assert _cli()["parallel"] == 1  # llama.cpp's own default, without the server's rule
    text = subprocess.run([sys.executable, "-m", "llmcalc", "gguf", "gemma-3-1b", "--recipe", "Q4_K_M",
                           "--llama-server"], capture_output=True, text=True, check=True).stdout
    assert "llama-server started without -np runs 4 slots sharing one unified cache (llama.cpp PR 17997" in text


def test_every_card_ranking_plans_the_server_slots() -> None:
    ranked, given = _cli("--llama-server", "--gpu", "all"), _cli("-np", "4", "--kv-unified", "--gpu", "all")
    assert (ranked["parallel"], ranked["kv_unified"]) == (4, True)
    assert ranked["rows"] == given["rows"] != _cli("--gpu", "all")["rows"]
