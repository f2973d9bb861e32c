"""``llmcalc plan --engine generate|vllm`` against llmcalc.engines."""

from __future__ import annotations

import json

import pytest

from llmcalc import GiB, get_preset
from llmcalc.cli import main
from llmcalc.engines import plan_generate, plan_vllm
from llmcalc.planner import largest_fitting


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_generate_plan_is_llmcalc_s_with_its_longest_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    cfg = get_preset("llama-3-8b")
    result = run(capsys, "llama-3-8b", "--engine", "generate", "--attention", "eager", "--context", "4096",
                 "--gpu", "l4")
    expected = plan_generate(cfg, context=4096, attention="eager")
    assert result["engine"] == "generate" and result["total"] == expected.total
    assert result["parts"]["activations"] == expected.activations > 0
    card = 2203 * GiB // 100  # the L4 as a process sees it (22.03 GiB, evo2 issue 190), not nvidia-smi's 23,034 MiB
    assert result["largest_context"] == largest_fitting(
        lambda n: plan_generate(cfg, context=n, attention="eager"), card, limit=8192)
    assert result["fits"] == expected.fits(card)


def test_vllm_plan_prints_the_pool_and_concurrency_as_vllm_does(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "llama-3-8b", "--engine", "vllm", "--context", "8192", "--gpu", "24",
                 "--gpu-memory-utilization", "0.85", "--max-num-batched-tokens", "2048")
    expected = plan_vllm(get_preset("llama-3-8b"), 24 * GiB, max_model_len=8192, max_num_batched_tokens=2048,
                         gpu_memory_utilization=0.85)
    assert result["kv_tokens"] == expected.kv_tokens > 8192
    assert result["max_concurrency"] == pytest.approx(expected.max_concurrency)
    assert result["fits"] is True and result["largest_context"] == 8192
    assert main(["plan", "llama-3-8b", "--engine", "vllm", "--context", "8192", "--gpu", "24"]) == 0
    text = capsys.readouterr().out
    assert "GPU KV cache size: " in text and "Maximum concurrency for 8,192 tokens per request: " in text


def test_vllm_plan_says_when_cuda_graphs_are_not_counted(capsys: pytest.CaptureFixture[str]) -> None:
    """vLLM 0.20 and later take the graphs from the pool by default; a plan without their size says so."""
    base = ["plan", "llama-3-8b", "--engine", "vllm", "--context", "8192", "--gpu", "rtx-3090"]
    assert main(base) == 0
    assert "CUDA graphs are not counted, as in vLLM before 0.20" in capsys.readouterr().out
    assert main([*base, "--cuda-graphs-mib", "560"]) == 0
    assert "CUDA graphs are not counted" not in capsys.readouterr().out
    without, counted = run(capsys, *base[1:]), run(capsys, *base[1:], "--cuda-graphs-mib", "560")
    assert (without["cuda_graph_bytes"], counted["cuda_graph_bytes"]) == (0, 560 * 2**20)
    # The graphs come out of the pool, whole blocks at a time: 560 MiB is 4,480 tokens of 128 KiB each.
    assert without["kv_tokens"] - counted["kv_tokens"] == 560 * 2**20 // (32 * 2 * 8 * 128 * 2 * 16) * 16


@pytest.mark.parametrize("argv, message", [
    (["--engine", "vllm"], "--engine vllm needs --gpu"),
    (["--engine", "vllm", "--gpu", "24", "--attention", "eager"], "--attention does not apply to --engine vllm"),
    (["--engine", "vllm", "--gpu", "24", "--batch", "2"], "--batch does not apply to --engine vllm"),
    (["--engine", "generate", "--kv-format", "fp8"], "--kv-format does not apply to --engine generate"),
    (["--gpu-memory-utilization", "0.8"], "--gpu-memory-utilization does not apply to --engine sum"),
    (["--engine", "vllm", "--gpu", "24", "--gpu-memory-utilization", "1.2"], "gpu_memory_utilization must be"),
    (["--task", "full", "--engine", "vllm"], "--engine does not apply to --task full"),
])
def test_engine_options_that_do_not_apply_are_refused(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                      message: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "llama-3-8b", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
