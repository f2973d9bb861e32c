"""vLLM 0.34's extensible KV cache (plan_vllm's extensible_kv_cache) against hand derivations from its source.

No vLLM 0.34 start-up log was found in vLLM's issue tracker (searched 2026-12-07 for "Memory after warmup",
"Extended KV cache to", "GPU KV cache size" with 0.34): the oracle is the 0.34.0 wheel's arithmetic, derived here by
hand and, in ``_measured_blocks``, in the terms vLLM measures (free memory after warm-up, the committed null block)
rather than the planner's budget, so the planner's reduction of ``min(requested - non_kv_used, headroom - margin)``
is checked too.
"""

from __future__ import annotations

import json
import math

import pytest

from llmcalc import GiB, get_preset
from llmcalc.cli import main
from llmcalc.engines import (
    VLLM_NON_TORCH,
    plan_vllm,
    vllm_profile_peak,
    vllm_release_settings,
)
from llmcalc.planner import gpu_memory

MiB = 2**20
LLAMA = get_preset("llama-3.1-8b")
H100 = gpu_memory("h100-sxm")
# Llama 3.1 8B: 8 KV heads of 128, K and V in BF16: 4,096 bytes a token a layer; a block of 64 tokens, 256 KiB a
# layer; 2 MiB granules hold 8 such blocks.
LAYER_BLOCK = 64 * 2 * 8 * 128 * 2
WEIGHTS = 8_030_261_248 * 2  # Meta's 8.03 billion parameters, BF16


def _plan(total: int = H100, **options: object) -> object:
    settings = {"max_model_len": 8192, "gpu_memory_utilization": 1.0, "sampler_filter": "triton",
                **vllm_release_settings("0.34+"), **options}
    return plan_vllm(LLAMA, total, **settings)  # type: ignore[arg-type]


def _measured_blocks(total: int, used_at_start: int, utilization: float, resident: int, transient: int,
                     layers: int = 32, floor: int = GiB) -> int:
    """The blocks vLLM 0.34 commits, in the terms it measures them (``measure_kv_cache_blocks``).

    At start-up ``total - used_at_start`` is free; after warm-up and capture the engine holds ``resident`` (weights,
    memory outside torch, the graphs) and the null block, one granule a layer; it keeps free the transient and a
    margin, and commits whole granules a layer.
    """
    init_free = total - used_at_start
    committed = layers * 2 * MiB
    free = init_free - resident - committed
    non_kv_used = init_free - free - committed
    headroom = free + committed
    margin = max(floor, int(transient * 0.75))
    available = min(math.ceil(total * utilization) - non_kv_used, headroom - margin) - transient
    per_layer = max(available, 0) // layers // (2 * MiB) * (2 * MiB)
    return per_layer // LAYER_BLOCK


def test_the_defaults_of_0_34_by_hand() -> None:
    """All of the card, a 1 GiB margin (the peak is under 4/3 GiB), blocks of 64 tokens in 2 MiB granules."""
    peak = vllm_profile_peak(LLAMA, 8192, sampler_filter="triton")
    assert peak == 864 * MiB  # the forward pass's MLP, 110,592 bytes a token for 8,192 tokens, above the sampler
    plan = _plan()
    assert plan.weights == WEIGHTS and plan.margin == GiB
    available = H100 - GiB - WEIGHTS - 864 * MiB - VLLM_NON_TORCH
    assert plan.available_kv == available == 66_527_672_074
    # 66,527,672,074 bytes over 32 layers are 991 whole granules a layer, 8 blocks each.
    assert plan.blocks == 991 * 8 == 7928
    assert plan.blocks == _measured_blocks(H100, 0, 1.0, WEIGHTS + VLLM_NON_TORCH, peak)
    # vLLM 0.34 prints int(concurrency x max_model_len): 7,928 / 128 x 8,192.
    assert plan.kv_tokens == 507_392 and plan.max_concurrency == 7928 / 128


def test_the_printed_size_is_concurrency_times_the_length_not_the_blocks() -> None:
    """At 20,000 tokens a request takes ceil(20,000 / 64) = 313 blocks; the printed size is truncated, not rounded
    to blocks, and is smaller than the pool's 64-token blocks hold."""
    plan = _plan(max_model_len=20_000)
    assert plan.blocks_per_request() == 313
    assert plan.kv_tokens == int(plan.blocks / 313 * 20_000) < plan.blocks * 64


def test_graphs_are_kept_twice_and_grow_the_margin_past_its_floor() -> None:
    """The graphs are resident after capture and their estimate is in the transient vLLM keeps free; once the
    transient passes 4/3 GiB the margin is three quarters of it."""
    peak = 864 * MiB
    for graphs_mib in (0, 300, 1024):
        graphs = graphs_mib * MiB
        plan = _plan(cuda_graph_bytes=graphs)
        transient = peak + graphs
        assert plan.margin == max(GiB, transient * 3 // 4)
        assert plan.blocks == _measured_blocks(H100, 0, 1.0, WEIGHTS + VLLM_NON_TORCH + graphs, transient)
    # 1 GiB of graphs: 1 GiB resident, 1 GiB again in the transient, and a margin of 1,416 MiB, not 1,024.
    assert _plan(cuda_graph_bytes=GiB).margin == 1416 * MiB
    assert _plan().available_kv - _plan(cuda_graph_bytes=GiB).available_kv == 2 * GiB + 392 * MiB


def test_what_is_in_use_at_start_counts_only_when_the_card_binds() -> None:
    """With all of the card the memory in use at start-up comes off the pool; with a share of it (0.8 here), the
    share binds until start-up use and the margin reach past it."""
    used = GiB // 2
    full, shared = _plan(startup_used_bytes=used), _plan(gpu_memory_utilization=0.8)
    assert _plan().available_kv - full.available_kv == used
    assert full.blocks == _measured_blocks(H100, used, 1.0, WEIGHTS + VLLM_NON_TORCH, 864 * MiB)
    assert shared.budget == math.ceil(H100 * 0.8) == _plan(gpu_memory_utilization=0.8, startup_used_bytes=used).budget
    crowded = _plan(gpu_memory_utilization=0.8, startup_used_bytes=20 * GiB)
    assert crowded.budget == H100 - 20 * GiB - GiB < shared.budget
    assert crowded.blocks == _measured_blocks(H100, 20 * GiB, 0.8, WEIGHTS + VLLM_NON_TORCH, 864 * MiB)


def test_a_request_cannot_use_the_null_block() -> None:
    """vLLM 0.34 checks a request of max_model_len against the pool less its null block: a pool of exactly one
    request's blocks does not start."""
    plan = _plan(max_model_len=131_072)
    longest = plan.longest_model_len(131_072)
    assert plan.starts and longest == 131_072
    small = gpu_memory("rtx-4090")
    tight = plan_vllm(LLAMA, small, max_model_len=8192, gpu_memory_utilization=1.0, **vllm_release_settings("0.34+"))
    assert tight.longest_model_len(131_072) == (tight.blocks - 1) * 64
    assert tight.starts == (tight.blocks - 1 >= 128)


def test_rocm_keeps_a_floor_of_three_gib() -> None:
    assert _plan(rocm=True).margin == 3 * GiB
    assert _plan().available_kv - _plan(rocm=True).available_kv == 2 * GiB


def test_start_up_use_applies_only_to_the_extensible_cache() -> None:
    with pytest.raises(ValueError, match=r"startup_used_bytes \(1,024\) applies to extensible_kv_cache=True"):
        plan_vllm(LLAMA, H100, max_model_len=8192, startup_used_bytes=1024)
    with pytest.raises(ValueError, match="startup_used_bytes must be an integer"):
        _plan(startup_used_bytes=H100 + 1)


def test_the_cli_plans_0_34_with_its_defaults_and_says_what_it_does_not_model(
        capsys: pytest.CaptureFixture[str]) -> None:
    base = ["plan", "llama-3.1-8b", "--engine", "vllm", "--gpu", "h100-sxm", "--context", "8192",
            "--vllm-version", "0.34+"]
    assert main([*base, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["gpu_memory_utilization"], result["block_size"], result["sampler_filter"]) == (1.0, 64, "triton")
    assert (result["kv_tokens"], result["margin"], result["startup_used_bytes"]) == (507_392, GiB, 0)
    assert result["parts"]["budget"] == H100 - GiB and result["parts"]["cuda_graphs_kept_again"] == 0
    assert main([*base, "--startup-used-gib", "0.5", "--cuda-graphs-mib", "512", "--json"]) == 0
    given = json.loads(capsys.readouterr().out)
    assert given["startup_used_bytes"] == GiB // 2 and given["parts"]["cuda_graphs_kept_again"] == 512 * MiB
    assert main(base) == 0
    text = capsys.readouterr().out
    assert "not yet checked against a start-up log" in text and "give --startup-used-gib" in text
    assert "smaller than this one by at least twice it" in text


def test_the_cli_refuses_start_up_use_for_older_releases(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "llama-3.1-8b", "--engine", "vllm", "--gpu", "24", "--vllm-version", "0.20+",
            "--startup-used-gib", "0.5"]
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert "--startup-used-gib applies to --vllm-version 0.34+" in capsys.readouterr().err


def test_the_ranking_plans_amd_cards_with_the_rocm_floor(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "llama-3.1-8b", "--engine", "vllm", "--gpu", "all", "--context", "8192",
            "--vllm-version", "0.34+", "--json"]
    assert main(argv) == 0
    rows = {(row["card"], row["gpus"]): row for row in json.loads(capsys.readouterr().out)["rows"]}
    mi300x = plan_vllm(LLAMA, gpu_memory("mi300x"), max_model_len=8192, gpu_memory_utilization=1.0,
                       sampler_filter="triton", rocm=True, **vllm_release_settings("0.34+"))
    assert rows[("mi300x", 1)]["largest_batch"] == mi300x.kv_tokens // 8192
    assert rows[("h100-sxm", 1)]["largest_batch"] == 507_392 // 8192


@pytest.mark.parametrize("preset", ["mixtral-8x7b", "gemma-2-9b", "mistral-7b"])
def test_experts_and_windows_are_refused_with_0_34_not_planned_as_0_20(preset: str) -> None:
    """0.34 restructured its fused experts and admits windowed requests by max_in_flight_tokens: not re-read."""
    from llmcalc.errors import RefusalValueError

    with pytest.raises(RefusalValueError, match=r"0\.34 was not re-read: plan the model as vLLM 0\.20"):
        plan_vllm(get_preset(preset), H100, max_model_len=4096, **vllm_release_settings("0.34+"))
    assert plan_vllm(get_preset(preset), H100, max_model_len=4096, **vllm_release_settings("0.20+")).block_size == 16
