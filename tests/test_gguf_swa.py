"""llama.cpp's sliding-window (SWA) KV cache in GGUF plans, against published load logs and llama.cpp's rules.

The logs (tests/data/llamacpp_runs.json, "swa_logs") print each cache's cells, layers and MiB; the plan is made from a
.gguf header that holds the keys the log lists, written here with the gguf package.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from llmcalc import MiB, get_preset
from llmcalc import gguf as lg

gguf = pytest.importorskip("gguf")  # the [gguf] extra; make install installs it

DATA = Path(__file__).parent / "data"
SWA_LOGS = json.loads((DATA / "llamacpp_runs.json").read_text())["swa_logs"]


def _model(tmp_path: Path, keys: dict[str, Any]) -> lg.GgufModel:
    from make_gguf_fixtures import write_header_keys  # tools/, on the path in conftest

    return lg.gguf_model(lg.read_gguf_header(write_header_keys(tmp_path / "model.gguf", keys)))


@pytest.mark.parametrize("run", SWA_LOGS, ids=lambda r: r["url"])
def test_swa_caches_equal_published_logs(run: dict[str, Any], tmp_path: Path) -> None:
    """Each cache's cells, layers and MiB (to the printed 0.01) as llama.cpp printed them, from the header's keys."""
    model = _model(tmp_path, run["header"])
    contexts = run["n_ctx"] if isinstance(run["n_ctx"], list) else [run["n_ctx"]]
    for index, context in enumerate(contexts):
        plan = lg.plan_gguf(model, context=context, flash_attention=run["flash_attn"], ubatch=run["n_ubatch"],
                            swa_full=run["swa_full"], parallel=run.get("n_seq_max", 1),
                            kv_unified=run.get("kv_unified", False))
        caches = {cache.window: cache for cache in plan.kv_caches}
        assert len(caches) == 2
        for printed in run.get("caches", []):
            cache = caches[printed["window"]]
            assert (cache.cells, cache.layers, cache.streams, round(cache.bytes / MiB, 2)) == \
                (printed["cells"], printed["layers"], printed.get("streams", 1), printed["mib"])
        if "output_buffer_mib" in run:  # a row of logits per sequence, for the vocabulary the run names
            wide = dataclasses.replace(model, n_vocab=run["n_vocab"])
            host = lg.plan_gguf(wide, context=context, parallel=run["n_seq_max"], kv_unified=run["kv_unified"]).host
            assert round(host["output_buffer"] / MiB, 2) == run["output_buffer_mib"]
        if "total_mib" in run:
            assert round(plan.kv_cache / MiB, 2) == run["total_mib"][index]


def test_gemma_3_1b_keeps_the_window_not_the_context() -> None:
    """Gemma 3 1B at 32,768 tokens: 4 full layers of 32,768 cells and 22 of 1,024, 150 MiB; every layer at the full
    context (what the plan held before) would be 832 MiB."""
    model = lg.model_from_config(get_preset("gemma-3-1b"), "Q4_K_M")
    plan = lg.plan_gguf(model, context=32768)
    assert [(c.window, c.cells, c.layers) for c in plan.kv_caches] == [(0, 32768, 4), (512, 1024, 22)]
    assert plan.kv_cache == (4 * 32768 + 22 * 1024) * 2 * 256 * 2 == 150 * MiB
    full = lg.plan_gguf(model, context=32768, swa_full=True)
    assert full.kv_cache == 26 * 32768 * 2 * 256 * 2 == 832 * MiB
    assert [c.cells for c in full.kv_caches] == [32768, 32768]


def test_gemma_2_layers_alternate() -> None:
    """Gemma 2 9B: llama.cpp's period 2 makes the even layers SWA layers (21 of 42), the window 4,096 tokens."""
    model = lg.model_from_config(get_preset("gemma-2-9b"), "Q4_K_M")
    assert model.swa_layers == tuple(i % 2 == 0 for i in range(42))
    full, swa = lg.kv_caches(model, 8192)
    assert (full.cells, full.layers, swa.cells, swa.layers) == (8192, 21, 4608, 21)
    # at 4,096 tokens the window is no smaller than the context: both caches hold the context's cells
    assert [c.cells for c in lg.kv_caches(model, 4096)] == [4096, 4096]


def test_partial_offload_counts_each_layers_own_cache() -> None:
    """-ngl 6 of Gemma 3 1B puts layers 20-25 on the GPU: layer 23 is a full-attention layer, the other five SWA."""
    model = lg.model_from_config(get_preset("gemma-3-1b"), "Q4_K_M")
    plan = lg.plan_gguf(model, context=32768, n_gpu_layers=6)
    row = 2 * 256 * 2
    assert plan.kv_cache == (32768 + 5 * 1024) * row
    assert plan.host["kv_cache"] == (3 * 32768 + 17 * 1024) * row


def test_mistral_window_is_not_applied() -> None:
    """Mistral 7B's MistralForCausalLM converts to llama.cpp's llama architecture, which never reads a window."""
    model = lg.model_from_config(get_preset("mistral-7b"), "Q4_K_M")
    assert (model.sliding_window, model.window_not_applied) == (0, 4096)
    result, text = lg.plan_report(model, context=8192, cache_type_k="f16", cache_type_v="f16", flash_attention=False,
                                  compute_buffer=None, gpu_bytes=None)
    assert result["window_not_applied"] == 4096 and "kv_caches" not in result
    assert "llama.cpp does not apply the model's 4,096-token sliding window" in text


def test_headers_follow_llama_cpp_per_architecture(tmp_path: Path) -> None:
    base = {"block_count": 12, "context_length": 8192, "embedding_length": 64, "feed_forward_length": 128,
            "attention.head_count": 4, "attention.head_count_kv": 2, "attention.key_length": 16}

    def keys(arch: str, **extra: Any) -> dict[str, Any]:
        return {"general.architecture": arch, **{f"{arch}.{k}": v for k, v in {**base, **extra}.items()}}

    gemma3 = _model(tmp_path, keys("gemma3", **{"attention.sliding_window": 1024}))
    assert (gemma3.sliding_window, sum(gemma3.swa_layers)) == (1024, 10)
    # a number in sliding_window_pattern replaces the period; an array is passed over
    assert sum(_model(tmp_path, keys("gemma3", **{"attention.sliding_window": 1024,
                                                   "attention.sliding_window_pattern": 4})).swa_layers) == 9
    assert sum(_model(tmp_path, keys("gemma3", **{"attention.sliding_window": 1024,
                                                   "attention.sliding_window_pattern": [1] * 12})).swa_layers) == 10
    assert _model(tmp_path, keys("gemma3")).swa_layers == ()  # a Gemma 3 file without a window has none
    assert _model(tmp_path, keys("gemma2")).sliding_window == 4096  # Gemma 2's default window
    llama = _model(tmp_path, keys("llama", **{"attention.sliding_window": 4096}))
    assert (llama.swa_layers, llama.window_not_applied) == ((), 4096)
    with pytest.raises(lg.GgufError, match=r"olmo2 uses sliding-window attention \(olmo2\.attention\.sliding_window\)"):
        _model(tmp_path, keys("olmo2", **{"attention.sliding_window": 4096}))
    with pytest.raises(lg.GgufError, match=r"the header has no cohere2\.attention\.sliding_window"):
        _model(tmp_path, keys("cohere2"))
    # Llama 4's chunked window needs no key in llama.cpp: refused without one too
    with pytest.raises(lg.GgufError, match="llama4 may use sliding-window attention with or without"):
        _model(tmp_path, keys("llama4"))


def test_cli_shows_both_caches_and_swa_full() -> None:
    def run(*extra: str) -> dict[str, Any]:
        out = subprocess.run([sys.executable, "-m", "llmcalc", "gguf", "gemma-3-1b", "--recipe", "Q4_K_M",
                              "--context", "32768", "--json", *extra], capture_output=True, text=True, check=True)
        result: dict[str, Any] = json.loads(out.stdout)
        return result

    small, full = run(), run("--swa-full")
    assert small["kv_caches"] == [{"window": 0, "cells": 32768, "layers": 4, "bytes": 128 * MiB, "streams": 1},
                                  {"window": 512, "cells": 1024, "layers": 22, "bytes": 22 * MiB, "streams": 1}]
    assert (small["swa_full"], full["swa_full"]) == (False, True)
    assert full["kv_caches"][1]["cells"] == 32768 and full["parts"]["kv_cache"] == 832 * MiB
    text = subprocess.run([sys.executable, "-m", "llmcalc", "gguf", "gemma-3-1b", "--recipe", "Q4_K_M", "--context",
                           "32768"], capture_output=True, text=True, check=True).stdout
    assert "  SWA 22 x 1,024 cells" in text and "  full 4 x 32,768 cells" in text


def test_the_smaller_cache_lengthens_the_context_that_fits() -> None:
    model = lg.model_from_config(get_preset("gemma-3-1b"), "Q4_K_M")
    budget = 3 * 1024 * MiB
    assert lg.largest_context(model, budget, beyond_trained=True) > \
        lg.largest_context(model, budget, beyond_trained=True, swa_full=True)


GPT_OSS_120B = next(run["header"] for run in SWA_LOGS if run.get("n_seq_max", 1) > 1)


def test_parallel_sequences_size_the_caches_as_llama_cpp(tmp_path: Path) -> None:
    """gpt-oss-120b's caches for several sequences, derived by hand from llama.cpp 6c8dcaa (llama_context's
    constructor and llama_kv_cache_iswa's): 18 full and 18 SWA layers, K+V 2 x 8 x 64 x 2 = 2,048 bytes a cell."""
    model = _model(tmp_path, GPT_OSS_120B)
    row = 2 * 8 * 64 * 2

    def caches(context: int, **options: Any) -> list[tuple[int, int, int]]:
        found = lg.kv_caches(model, context, **options)
        assert all(cache.bytes == cache.streams * cache.cells * 18 * row for cache in found)
        return [(cache.cells, cache.streams, cache.bytes // MiB) for cache in found]

    # llama-server's automatic 4 slots, unified: one stream of the whole context; the SWA layers hold a window for
    # each sequence and a micro-batch, GGML_PAD(min(131072, 128 x 4 + 512), 256) = 1,024 cells
    assert caches(131072, parallel=4, kv_unified=True) == [(131072, 1, 4608), (1024, 1, 36)]
    # the same slots with a stream each: 32,768 cells each, and GGML_PAD(128 + 512, 256) = 768 in the SWA layers
    assert caches(131072, parallel=4) == [(32768, 4, 4608), (768, 4, 108)]
    # 3 streams of a 4,096-token context: GGML_PAD(4096 / 3, 256) = 1,536 each, 4,608 in all (llama.cpp warns)
    assert caches(4096, parallel=3) == [(1536, 3, 162), (768, 3, 81)]
    # one sequence is the same plan unified or not
    assert caches(8192, parallel=1, kv_unified=True) == caches(8192) == [(8192, 1, 288), (768, 1, 27)]


def test_parallel_is_refused_outside_llama_cpps_range(tmp_path: Path) -> None:
    model = _model(tmp_path, GPT_OSS_120B)
    for bad in (0, 257, True, 2.0):
        with pytest.raises((ValueError, TypeError), match="parallel"):
            lg.plan_gguf(model, context=4096, parallel=bad)  # type: ignore[arg-type]
    with pytest.raises((ValueError, TypeError), match="kv_unified"):
        lg.kv_caches(model, 4096, parallel=2, kv_unified=1)  # type: ignore[arg-type]
    out = subprocess.run([sys.executable, "-m", "llmcalc", "gguf", "gemma-3-1b", "--recipe", "Q4_K_M", "-np", "0"],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "parallel must be an integer in [1, 256]; got 0" in out.stderr


def test_cli_plans_slots() -> None:
    def run(*extra: str) -> dict[str, Any]:
        out = subprocess.run([sys.executable, "-m", "llmcalc", "gguf", "gemma-3-1b", "--recipe", "Q4_K_M",
                              "--context", "32768", "--json", "--gpu", "24GiB", *extra],
                             capture_output=True, text=True, check=True)
        result: dict[str, Any] = json.loads(out.stdout)
        return result

    one, unified, streams = run(), run("-np", "4", "--kv-unified"), run("--parallel", "4", "--no-kv-unified")
    assert [(c["cells"], c["streams"]) for c in unified["kv_caches"]] == [(32768, 1), (2560, 1)]
    assert [(c["cells"], c["streams"]) for c in streams["kv_caches"]] == [(8192, 4), (1024, 4)]
    assert (unified["parallel"], unified["kv_unified"], streams["kv_unified"]) == (4, True, False)
    # the unified cache's SWA layers keep four windows: more memory, a shorter longest context
    assert unified["parts"]["kv_cache"] - one["parts"]["kv_cache"] == 22 * (2560 - 1024) * 2 * 256 * 2
    assert unified["largest_context"] <= one["largest_context"]
    text = subprocess.run([sys.executable, "-m", "llmcalc", "gguf", "gemma-3-1b", "--recipe", "Q4_K_M", "--context",
                           "32768", "-np", "4"], capture_output=True, text=True, check=True).stdout
    assert "  SWA 22 x 1,024 x 4 seqs" in text and "for 4 sequences, a stream each" in text
