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
    older = ["plan", "llama-3-8b", "--engine", "vllm", "--context", "8192", "--gpu", "rtx-3090"]
    assert main(older) == 0
    assert "note: planned as vLLM before 0.20" in capsys.readouterr().out
    base = [*older, "--vllm-version", "0.20+"]
    assert main(base) == 0
    assert "no CUDA graphs counted: their size depends on the kernels" in capsys.readouterr().out
    assert main([*base, "--cuda-graphs-mib", "560"]) == 0
    assert "no CUDA graphs counted" not in capsys.readouterr().out
    without, counted = run(capsys, *base[1:]), run(capsys, *base[1:], "--cuda-graphs-mib", "560")
    assert (without["cuda_graph_bytes"], counted["cuda_graph_bytes"]) == (0, 560 * 2**20)
    # 0.20 and later plan with 0.92 of the card unless told otherwise.
    assert (run(capsys, *older[1:])["gpu_memory_utilization"], without["gpu_memory_utilization"]) == (0.9, 0.92)
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
    (["--engine", "vllm", "--gpu", "24", "--cuda-graphs-mib", "512"],
     "--cuda-graphs-mib applies to --vllm-version 0.20+"),
    (["--engine", "vllm", "--gpu", "24", "--non-torch-gib", "-1"],
     "non_torch_gib must be a finite number >= 0 and <= 24"),
    (["--engine", "vllm", "--gpu", "24", "--non-torch-gib", "25"],
     "non_torch_gib must be a finite number >= 0 and <= 24"),
    (["--engine", "vllm", "--gpu", "24", "--max-num-seqs", "0"], "max_num_seqs must be an integer in [1, 16777216]"),
    (["--engine", "vllm", "--gpu", "24", "--vllm-version", "0.19"], "invalid choice: '0.19'"),
    (["--engine", "vllm", "--gpu", "24", "--sampler-filter", "flashinfer"],
     "argument --sampler-filter: invalid choice: 'flashinfer' (choose from 'sort', 'triton')"),
    (["--sampler-filter", "triton"], "--sampler-filter does not apply to --engine sum"),
    (["--non-torch-gib", "1"], "--non-torch-gib does not apply to --engine sum"),
])
def test_engine_options_that_do_not_apply_are_refused(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                      message: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "llama-3-8b", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_vllm_plan_takes_the_memory_outside_torch_and_the_sequences_a_log_prints(
        capsys: pytest.CaptureFixture[str]) -> None:
    """vLLM PR 10511 on an H100: given its printed non_torch_memory 1.79 GiB, the pool is the printed 53.29 GiB."""
    args = ["llama-3-8b", "--engine", "vllm", "--context", "8192", "--gpu", "79.22GiB", "--max-num-batched-tokens",
            "8192"]
    given = run(capsys, *args, "--non-torch-gib", "1.79")
    assert given["parts"]["non_torch_and_cuda_graphs"] == round(1.79 * 2**30)
    assert abs(given["kv_tokens"] / 436551 - 1) < 0.001  # 53.29 GiB over 128 KiB a token
    # More sequences, a larger sampler warm-up: vLLM V1's 1,024 on large cards takes 3.5 GiB more.
    more = run(capsys, *args, "--non-torch-gib", "1.79", "--max-num-seqs", "1024")
    assert (given["parts"]["profile_peak"], given["max_num_seqs"]) == (1314783232, 256)
    assert more["parts"]["profile_peak"] - given["parts"]["profile_peak"] == 768 * 38 * 128256


def test_vllm_plans_windows_by_release_and_experts_on_two_gpus(capsys: pytest.CaptureFixture[str]) -> None:
    cfg = get_preset("mistral-7b")
    older = run(capsys, "mistral-7b", "--engine", "vllm", "--gpu", "h100-sxm", "--context", "32768",
                "--beyond-trained-context")
    hybrid = run(capsys, "mistral-7b", "--engine", "vllm", "--gpu", "h100-sxm", "--context", "32768",
                 "--vllm-version", "0.20+", "--beyond-trained-context")
    card = 7911 * GiB // 100
    expected = plan_vllm(cfg, card, max_model_len=32768, gpu_memory_utilization=0.92, hybrid_kv_cache=True)
    assert hybrid["kv_tokens"] == expected.kv_tokens
    assert hybrid["max_concurrency"] == pytest.approx(expected.max_concurrency)
    # The window bounds what a request takes with the hybrid manager: about 2.7 times the older concurrency.
    assert hybrid["max_concurrency"] / older["max_concurrency"] > 2.5
    # The longest max_model_len: the pool's tokens before 0.20; with every layer windowed, none is too long.
    assert older["largest_context"] == older["kv_tokens"] < hybrid["largest_context"] == 2**24
    assert main(["plan", "mistral-7b", "--engine", "vllm", "--gpu", "h100-sxm", "--context", "32768",
                 "--vllm-version", "0.20+"]) == 0
    assert "769 blocks a request, not the 2,048 the full length takes" in capsys.readouterr().out
    moe = run(capsys, "mixtral-8x7b", "--engine", "vllm", "--gpu", "h100-sxm", "--context", "32768",
              "--tensor-parallel", "2")
    assert moe["parts"]["weights"] == plan_vllm(get_preset("mixtral-8x7b"), card, max_model_len=32768,
                                                tensor_parallel=2).weights
    assert moe["fits"] is True


def test_vllm_0_20_warms_its_sampler_up_as_the_logged_0_19_release(capsys: pytest.CaptureFixture[str]) -> None:
    """vLLM 0.19.0 printed 168,880 tokens for Gemma 2 9B on an H100 (79.19 GiB, 0.95 of it, 1,024 sequences, 0.25 GiB
    outside PyTorch; tests/data/engines/vllm_startup_logs.json).  0.20 filters its sampler's warm-up with Triton as
    0.19 does; planned as 0.20+ with no CUDA graphs counted, as 0.19 took none from the pool, the pool is within 1 %."""
    result = run(capsys, "gemma-2-9b", "--engine", "vllm", "--vllm-version", "0.20+", "--context", "8192",
                 "--gpu", "79.19", "--gpu-memory-utilization", "0.95", "--max-num-seqs", "1024",
                 "--non-torch-gib", "0.25")
    assert abs(result["kv_tokens"] / 168_880 - 1) <= 0.01
    assert abs(result["max_concurrency"] / 20.60 - 1) <= 0.01


def test_vllm_0_19_is_planned_as_before_0_20_with_the_triton_filter(capsys: pytest.CaptureFixture[str]) -> None:
    """vLLM 0.19.0 printed 168,880 tokens for Gemma 2 9B on an H100 (the same log; its CUDA graphs outside the pool,
    as before 0.20, but its sampler filtered with Triton, as from 0.17).  Planned as before 0.20, the default sort
    leaves the pool 10 % short; with --sampler-filter triton it is within 1 %."""
    args = ["gemma-2-9b", "--engine", "vllm", "--vllm-version", "before-0.20", "--context", "8192", "--gpu", "79.19",
            "--gpu-memory-utilization", "0.95", "--max-num-seqs", "1024", "--non-torch-gib", "0.25"]
    sorted_, triton = run(capsys, *args), run(capsys, *args, "--sampler-filter", "triton")
    assert (sorted_["sampler_filter"], triton["sampler_filter"]) == ("sort", "triton")
    assert sorted_["kv_tokens"] / 168_880 - 1 < -0.1
    assert abs(triton["kv_tokens"] / 168_880 - 1) <= 0.01
    assert abs(triton["max_concurrency"] / 20.60 - 1) <= 0.01
    # The filter given wins over the version's default, either way; the text names the one planned.
    assert run(capsys, *args[:4], "0.20+", *args[5:], "--sampler-filter", "sort")["parts"]["profile_peak"] \
        == sorted_["parts"]["profile_peak"]
    assert main(["plan", *args, "--sampler-filter", "triton"]) == 0
    assert "max_num_seqs 1,024, sampler filter triton\n" in capsys.readouterr().out
