"""Every listed card at once (llmcalc.ranking, ``plan MODEL --gpu all``): each row is the single-card plan, ranked.

Oracles: a hand derivation of one row from the model's shapes and the card's published total, and the CLI's own
single-card plan (``plan --gpu CARD --tensor-parallel N`` or ``--gpus N``), which every row must repeat.
"""

from __future__ import annotations

import json

import pytest

from llmcalc import GiB, get_preset, param_count
from llmcalc.cli import main
from llmcalc.planner import CARDS, gpu_memory
from llmcalc.ranking import GPU_COUNTS, gpu_counts, rank_cards


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_row_by_hand() -> None:
    """Llama-3.1-8B, 16 sequences of 32,768 tokens on one A100 (80 GB), which a process sees as 79.14 GiB."""
    weights = 2 * param_count(get_preset("llama-3.1-8b"))
    assert weights == 16_060_522_496
    kv_per_token = 2 * 32 * 8 * 128 * 2  # K and V, 32 layers, 8 KV heads of 128 values, 2 bytes each
    total = weights + 16 * 32768 * kv_per_token + GiB
    budget = gpu_memory("79.14")
    [row] = [r for r in rank_cards(get_preset("llama-3.1-8b"), context=32768, batch=16)
             if r.card.key == "a100-80gb" and r.gpus == 1]
    assert (row.fits, row.headroom, row.gpu_bytes) == (False, budget - total, 84_975_927_951)
    assert row.headroom == -877_813_105
    # 15 sequences fit: one sequence fewer frees 4 GiB of KV cache, more than the 0.82 GiB missing.
    assert row.largest_batch == 15 and budget - (weights + 15 * 32768 * kv_per_token + GiB) >= 0
    assert (row.change.setting, row.change.value) == ("batch", 15)


def test_ranked_fits_first_then_fewest_gpus_then_least_memory() -> None:
    rows = rank_cards(get_preset("llama-3.1-8b"), context=32768, batch=16)
    assert len(rows) == len(CARDS) * len(GPU_COUNTS)
    keys = [(not r.fits, r.gpus, r.gpus * r.card.total_bytes) for r in rows]
    assert keys == sorted(keys)
    assert rows[0].fits and not rows[-1].fits


# (argv of the ranking, the option that sets the GPU count in a single-card plan)
CASES = [
    (["plan", "llama-3.1-8b", "--context", "32768", "--batch", "16"], "--tensor-parallel"),
    (["plan", "llama-3.1-8b", "--engine", "vllm", "--context", "32768", "--concurrency", "16"], "--tensor-parallel"),
    (["plan", "llama-2-13b", "--task", "qlora", "--seq-len", "4096"], "--gpus"),
    (["plan", "llama-3.1-70b", "--task", "full", "--zero-stage", "3", "--seq-len", "2048"], "--gpus"),
]


@pytest.mark.parametrize("argv, gpus_option", CASES, ids=["sum", "vllm", "qlora", "full-zero3"])
def test_every_row_is_the_single_card_plan(capsys: pytest.CaptureFixture[str], argv: list[str],
                                           gpus_option: str) -> None:
    ranked = run_json(capsys, *argv, "--gpu", "all")
    vllm = "vllm" in argv
    single_argv = [a for i, a in enumerate(argv) if a != "--concurrency" and argv[i - 1] != "--concurrency"]
    assert ranked["rows"], argv
    for row in ranked["rows"]:
        single = run_json(capsys, *single_argv, "--gpu", row["card"], gpus_option, str(row["gpus"]))
        assert single["gpu_bytes"] == row["gpu_bytes"] and single["gpu_total"]["source"] == row["total_source"]
        if vllm:
            assert row["kv_tokens"] == single["kv_tokens"] and row["largest_context"] == single["largest_context"]
            assert row["largest_batch"] == single["kv_tokens"] // 32768
            assert row["fits"] == (row["largest_batch"] >= 16) and row["change"] is None
            continue
        assert (row["fits"], row["headroom"]) == (single["fits"], single["gpu_bytes"] - single["total"])
        largest = "largest_context" if "largest_context" in single else "largest_micro_batch"
        assert row["largest_context" if largest == "largest_context" else "largest_batch"] == single[largest]
        first = single["changes_that_fit"][0] if single["changes_that_fit"] else None
        assert row["change"] == first


def test_every_llama_cpp_row_is_the_single_card_gguf_plan(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["gguf", "llama-3.1-8b", "--recipe", "Q4_K_M", "--context", "131072", "--cache-type-k", "q8_0"]
    ranked = run_json(capsys, *argv, "--gpu", "all")
    assert [row["gpus"] for row in ranked["rows"]] == [1] * len(CARDS)
    for row in ranked["rows"]:
        single = run_json(capsys, *argv, "--gpu", row["card"])
        assert (row["fits"], row["headroom"], row["largest_context"]) == (
            single["fits"], single["gpu_bytes"] - single["total"], single["largest_context"])
        assert row["largest_batch"] is None and row["change"] is None
    assert ranked["rows"][0]["fits"] and not ranked["rows"][-1]["fits"]


def test_the_largest_batch_and_sequence_are_the_single_card_boundaries(capsys: pytest.CaptureFixture[str]) -> None:
    """The column the single-card plan does not print, checked at its edge: n fits, n + 1 does not."""
    ranked = run_json(capsys, "plan", "llama-3.1-8b", "--context", "32768", "--gpu", "all")
    for row in [r for r in ranked["rows"] if r["gpus"] == 1][:6]:
        n = row["largest_batch"]
        at = [run_json(capsys, "plan", "llama-3.1-8b", "--context", "32768", "--batch", str(b), "--gpu",
                       row["card"])["fits"] for b in (n, n + 1) if b >= 1]
        assert at == ([True, False] if n else [False])
    training = run_json(capsys, "plan", "llama-2-13b", "--task", "qlora", "--no-checkpointing", "--gpu", "all")
    row = next(r for r in training["rows"] if r["card"] == "rtx-4090")
    assert 1 <= row["largest_context"] < 4096
    edges = [run_json(capsys, "plan", "llama-2-13b", "--task", "qlora", "--no-checkpointing", "--seq-len", str(n),
                      "--gpu", "rtx-4090")["fits"] for n in (row["largest_context"], row["largest_context"] + 1)]
    assert edges == [True, False]


def test_the_table_marks_estimated_totals_and_says_how_it_ranks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "llama-3.1-8b", "--context", "8192", "--gpu", "all"]) == 0
    text = capsys.readouterr().out
    assert "A10G (24 GB) *" in text and "H100 SXM (80 GB) *" not in text
    assert "no prices are shipped" in text and "the driver's total less 881 MiB" in text
    lines = [line.split() for line in text.splitlines() if line.startswith("A10G")]
    assert lines[0][:6] == ["A10G", "(24", "GB)", "*", "1", "fits"]


def test_gpu_counts_follow_the_planner_s_multi_gpu_plans() -> None:
    # Qwen2.5-7B's 28 heads and 4 KV heads: vLLM takes no tensor-parallel size of 8.
    assert gpu_counts(get_preset("qwen2.5-7b")) == [1, 2, 4]
    assert gpu_counts(get_preset("mixtral-8x7b")) == [1]
    assert {r.gpus for r in rank_cards(get_preset("llama-2-7b"), task="lora", seq_len=512)} == {1}
    sharded = rank_cards(get_preset("llama-2-7b"), task="lora", seq_len=512, zero_stage=2)
    assert {r.gpus for r in sharded} == {1, 2, 4, 8}


@pytest.mark.parametrize("kwargs, message", [
    ({"context": 4096, "tensor_parallel": 2}, "tensor_parallel is chosen by the ranking"),
    ({"context": 4096, "n_gpus": 2}, "n_gpus is chosen by the ranking"),
    ({"context": 4096, "concurrency": 4}, "concurrency applies to inference with the vLLM engine"),
    ({"batch": 4}, "a ranking needs context"),
    ({"task": "full"}, "a ranking needs seq_len"),
    ({"context": 4096, "engine": "llama.cpp"}, "engine must be one of 'sum', 'generate', 'vllm'"),
    ({"context": 4096, "concurrency": 0, "engine": "vllm"}, r"concurrency must be an integer in \[1, 65536\]; got 0"),
])
def test_bad_input_is_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rank_cards(get_preset("llama-3.1-8b"), **kwargs)


@pytest.mark.parametrize("argv, message", [
    (["plan", "llama-3.1-8b", "--gpu", "all", "--tensor-parallel", "2"], "--tensor-parallel is chosen by the ranking"),
    (["plan", "llama-3.1-8b", "--task", "full", "--gpu", "all", "--gpus", "2"], "--gpus is chosen by the ranking"),
    (["plan", "llama-3.1-8b", "--engine", "vllm", "--gpu", "rtx-4090", "--concurrency", "2"],
     "--concurrency applies to --gpu all"),
    (["plan", "llama-3.1-8b", "--gpu", "all", "--concurrency", "2"], "--concurrency does not apply to --engine sum"),
])
def test_the_cli_refuses_what_the_ranking_chooses(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                  message: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err
