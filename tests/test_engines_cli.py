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
    card = 23_034 * 2**20
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
