"""Every listed card at once (llmcalc.ranking, ``plan MODEL --gpu all``): each row is the single-card plan, ranked.

Oracles: a hand derivation of one row from the model's shapes and the card's published total, and the CLI's own
single-card plan (``plan --gpu CARD --tensor-parallel N`` or ``--gpus N``), which every row must repeat.
"""

from __future__ import annotations

import functools
import json

import pytest

from llmcalc import GiB, get_preset, param_count
from llmcalc.cli import main
from llmcalc.engines import plan_vllm
from llmcalc.formats import WEIGHT_FORMATS
from llmcalc.gguf import RECIPES, model_from_config
from llmcalc.planner import CARDS, gpu_memory, tensor_parallel_sizes
from llmcalc.ranking import GPU_COUNTS, gpu_counts, rank_cards, vllm_changes_that_fit


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
    (["plan", "qwen3-30b-a3b", "--context", "4096"], "--tensor-parallel"),
    (["plan", "qwen3-30b-a3b", "--engine", "vllm", "--vllm-version", "0.20+", "--context", "32768",
      "--concurrency", "16"], "--tensor-parallel"),
    (["plan", "llama-2-13b", "--task", "qlora", "--seq-len", "4096"], "--gpus"),
    (["plan", "llama-3.1-70b", "--task", "full", "--zero-stage", "3", "--seq-len", "2048"], "--gpus"),
]


@pytest.mark.parametrize("argv, gpus_option", CASES,
                         ids=["sum", "vllm", "sum-moe", "vllm-0.20-moe", "qlora", "full-zero3"])
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
            assert row["fits"] == (row["largest_batch"] >= 16) and (row["change"] is None) == row["fits"]
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
        assert row["largest_batch"] is None and (row["change"] is None) == row["fits"]
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


# The smallest change of a vLLM or llama.cpp row.  Oracle: the CLI's single-card plan with the change applied
# (``plan ... --engine vllm --gpu CARD``, ``gguf ... --gpu CARD``) fits, and the next smaller change does not.

VLLM = ["plan", "llama-3.1-8b", "--engine", "vllm", "--vllm-version", "before-0.20"]


def test_a_vllm_change_by_hand() -> None:
    """Llama-3.1-8B on one A100 (80 GB), vLLM before 0.20 (0.9 of 84,975,927,951 bytes), 14 requests of 32,768.

    A block is 16 tokens of 32 layers' K and V, 8 heads of 128 bf16 values: 2 MiB.  14 requests take 28,672 blocks,
    60,129,542,144 bytes; with 16,060,522,496 bytes of weights (two per parameter), the 375,809,638 bytes outside
    torch and the profiled peak, the utilization must reach (weights + peak + outside + pool) / total, 0.9165: 0.92.
    """
    cfg = get_preset("llama-3.1-8b")
    a100 = next(card.total_bytes for card in CARDS if card.key == "a100-80gb")
    block = 16 * 2 * 32 * 8 * 128 * 2
    assert block == 2 * 2**20
    weights = 2 * param_count(cfg)
    peak = plan_vllm(cfg, a100, max_model_len=32768).profile_peak  # the one term not derived here
    needed = weights + peak + 375_809_638 + 14 * 2048 * block
    assert 0.91 < needed / a100 <= 0.92
    changes = {c.setting: c for c in vllm_changes_that_fit(cfg, a100, context=32768, concurrency=14,
                                                           gpu_memory_utilization=0.9)}
    higher = changes["gpu_memory_utilization"]
    assert higher.value == 0.92 and higher.kv_tokens == (int(a100 * 0.92) - weights - peak - 375_809_638) // block * 16
    # The pool at 0.9: (76,478,335,155 - weights - peak - outside) // 2 MiB = 28,003 blocks, 13 requests.
    pool = (int(a100 * 0.9) - weights - peak - 375_809_638) // block * 16
    assert pool == 448_048 and changes["concurrency"].value == pool // 32768 == 13
    assert changes["context"].value == pool // 14 == 32_003


def vllm_holds(capsys: pytest.CaptureFixture[str], argv: list[str], card: str, gpus: int, concurrency: int,
               context: int, **option: object) -> bool:
    """Whether the single-card plan, ``option`` applied, holds ``concurrency`` requests of ``context`` tokens."""
    extra = [a for name, value in option.items() for a in ("--" + name.replace("_", "-"), str(value))]
    single = run_json(capsys, *argv, "--context", str(context), "--gpu", card, "--tensor-parallel", str(gpus),
                      *extra)
    return single["kv_tokens"] >= concurrency * context


@pytest.mark.parametrize("extra", [[], ["--kv-format", "fp8", "--gpu-memory-utilization", "0.8"]],
                         ids=["defaults", "fp8-kv-0.8"])
def test_every_vllm_change_applied_fits_and_the_next_smaller_does_not(capsys: pytest.CaptureFixture[str],
                                                                      extra: list[str]) -> None:
    argv = [*VLLM, *extra]
    ranked = run_json(capsys, *argv, "--context", "32768", "--concurrency", "16", "--gpu", "all")
    seen = set()
    for row in [r for r in ranked["rows"] if not r["fits"]]:
        change, card, gpus = row["change"], row["card"], row["gpus"]
        setting, value = change["setting"], change["value"]
        seen.add(setting)
        holds = functools.partial(vllm_holds, capsys, argv, card, gpus)
        if setting == "concurrency":
            assert holds(value, 32768) and not holds(value + 1, 32768)
        elif setting == "context":
            assert holds(16, value) and not holds(16, value + 1) and not holds(1, 32768)
        elif setting == "tensor_parallel":
            assert vllm_holds(capsys, argv, card, value, 16, 32768) and not holds(1, 1)  # nothing shorter does
            smaller = [n for n in tensor_parallel_sizes(get_preset("llama-3.1-8b")) if gpus < n < value]
            assert not any(vllm_holds(capsys, argv, card, n, 16, 32768) for n in smaller)
        elif setting == "gpu":
            assert vllm_holds(capsys, argv, value, gpus, 16, 32768) and not holds(1, 1)
            between = [c.key for c in CARDS if row["gpu_bytes"] < c.total_bytes < change["gpu_bytes"]]
            assert not any(vllm_holds(capsys, argv, key, gpus, 16, 32768) for key in between)
        else:
            raise AssertionError(f"{setting} is not expected first here")
    assert {"concurrency", "context"} <= seen and seen & {"tensor_parallel", "gpu"}


@pytest.mark.parametrize("card, requests", [("rtx-4090", 5), ("a10", 4), ("rtx-3060", 1)])
def test_each_vllm_change_of_a_card_applied(capsys: pytest.CaptureFixture[str], card: str, requests: int) -> None:
    """Every change the list offers, not only the first: applied, it holds the requests; one step less does not.

    The requests are one more than the card's pool holds at 8,192 tokens (none at all on the RTX 3060)."""
    cfg = get_preset("llama-3.1-8b")
    budget = next(c.total_bytes for c in CARDS if c.key == card)
    changes = vllm_changes_that_fit(cfg, budget, context=8192, concurrency=requests, gpu_memory_utilization=0.9)
    holds = functools.partial(vllm_holds, capsys, VLLM, card, 1)
    assert not holds(requests, 8192) and (requests == 1 or holds(requests - 1, 8192))
    settings = [c.setting for c in changes]
    order = ["concurrency", "context", "kv_format", "gpu_memory_utilization", "weight_format", "tensor_parallel", "gpu"]
    assert settings == sorted(settings, key=order.index) and len(settings) == len(set(settings))
    for change in changes:
        value = change.value
        if change.setting == "concurrency":
            assert value == requests - 1
        elif change.setting == "context":
            assert holds(requests, value) and not holds(requests, value + 1)
        elif change.setting == "kv_format":
            assert holds(requests, 8192, kv_format="fp8")
        elif change.setting == "gpu_memory_utilization":
            assert holds(requests, 8192, gpu_memory_utilization=value)
            assert not holds(requests, 8192, gpu_memory_utilization=round(value - 0.01, 2))
        elif change.setting == "weight_format":
            assert holds(requests, 8192, weight_format=value)
            earlier = WEIGHT_FORMATS[1:WEIGHT_FORMATS.index(value)]
            assert not any(holds(requests, 8192, weight_format=w) for w in earlier)
        elif change.setting == "tensor_parallel":
            assert vllm_holds(capsys, VLLM, card, value, requests, 8192) and value == 2
        else:
            assert vllm_holds(capsys, VLLM, value, 1, requests, 8192)
            between = [c.key for c in CARDS if budget < c.total_bytes < change.gpu_bytes]
            assert not any(vllm_holds(capsys, VLLM, key, 1, requests, 8192) for key in between)
    expected = {"rtx-4090": order, "a10": order, "rtx-3060": ["weight_format", "tensor_parallel", "gpu"]}
    assert settings == expected[card]


GGUF = ["gguf", "llama-3.1-70b", "--recipe", "Q4_K_M", "--context", "8192"]


def gguf_single(capsys: pytest.CaptureFixture[str], card: str, *extra: str, argv: list[str] = GGUF) -> dict:
    return run_json(capsys, *argv, "--gpu", card, *extra)


def test_every_llama_cpp_change_applied_fits_and_the_next_smaller_does_not(
        capsys: pytest.CaptureFixture[str]) -> None:
    ranked = run_json(capsys, *GGUF, "--gpu", "all")
    seen = set()
    for row in [r for r in ranked["rows"] if not r["fits"]]:
        change, card = row["change"], row["card"]
        seen.add(change["setting"])
        if change["setting"] == "n_gpu_layers":
            layers = change["value"]
            applied = gguf_single(capsys, card, "-ngl", str(layers))
            assert applied["fits"] and not gguf_single(capsys, card, "-ngl", str(layers + 1))["fits"]
            assert (change["total"], change["host_bytes"]) == (applied["total"], applied["host"]["total"])
            assert change["change"] == f"--n-gpu-layers {layers}"
            assert not gguf_single(capsys, card, argv=[*GGUF[:-1], "1"])["fits"]  # no shorter context does
        elif change["setting"] == "recipe":
            fitting = {r for r in RECIPES
                       if gguf_single(capsys, card, argv=[*GGUF[:3], r, *GGUF[4:]])["fits"]}
            assert change["value"] in fitting
            weights = {r: model_from_config(get_preset("llama-3.1-70b"), r).weight_bytes for r in fitting}
            assert weights[change["value"]] == max(weights.values())
        else:
            raise AssertionError(f"{change['setting']} is not expected first here")
    assert seen == {"n_gpu_layers", "recipe"}
    # A row whose context alone is too long: the longest that fits, as the single-card plan finds it.
    short = run_json(capsys, "gguf", "llama-3.1-8b", "--recipe", "Q8_0", "--context", "32768", "--gpu", "all")
    [row] = [r for r in short["rows"] if r["card"] == "rtx-3060"]
    single = run_json(capsys, "gguf", "llama-3.1-8b", "--recipe", "Q8_0", "--context", "32768", "--gpu", "rtx-3060")
    assert row["change"]["change"] == f"--context {single['largest_context']}"


def test_the_table_prints_the_host_memory_of_partial_offload(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*GGUF, "--gpu", "all"]) == 0
    text = capsys.readouterr().out
    line = next(line for line in text.splitlines() if line.startswith("RTX 4090"))
    single = gguf_single(capsys, "rtx-4090", "-ngl", "43")
    assert line.endswith(f"--n-gpu-layers 43 (host {single['host']['total'] / GiB:.2f} GiB)")


def test_a_mixture_of_experts_passes_over_the_gptq_size_it_does_not_model() -> None:
    """Qwen3-30B-A3B on an RTX 4090 (23.64 GiB): the search for a lighter format passes over GPTQ, refused for a
    mixture of experts, where it used to stop at that refusal.  bitsandbytes leaves transformers 5's routed experts
    (3-D parameters) in bf16: 48 layers x 128 experts x 3 x 2,048 x 768 = 28,991,029,248 values, 54 GiB alone, so
    neither int8 nor nf4 fits and the smallest change is a card."""
    from llmcalc import get_preset
    from llmcalc.planner import CARDS, inference_changes_that_fit
    from llmcalc.weightformats import modelled_weight_formats

    cfg = get_preset("qwen3-30b-a3b")
    assert modelled_weight_formats(cfg) == ("bf16", "fp8", "int8", "nf4", "nf4-dq")
    rtx4090 = next(card.total_bytes for card in CARDS if card.key == "rtx-4090")
    experts = 48 * 128 * 3 * 2048 * 768
    assert 2 * experts > rtx4090
    changes = inference_changes_that_fit(cfg, rtx4090, context=4096, batch=1)
    assert [change.setting for change in changes] == ["gpu"]


def test_a_windowed_model_s_requests_are_vllm_s_printed_concurrency() -> None:
    # Mistral-7B-v0.1 (every layer windowed at 4,096) with vLLM 0.20's hybrid KV-cache manager: a 32,768-token
    # request keeps its window plus a step's tokens, 769 blocks of 16, not 2,048 (test_engines' oracle of vLLM's
    # SlidingWindowSpec), so a pool holds floor(blocks / 769) such requests, what vLLM prints as its "Maximum
    # concurrency"; counted in printed tokens (blocks x 16 / 32,768) it would be 2.7 times fewer.
    cfg = get_preset("mistral-7b")
    hybrid = {"hybrid_kv_cache": True}
    for row in rank_cards(cfg, engine="vllm", context=32768, concurrency=1, **hybrid):
        if row.gpus != 1:
            continue
        plan = plan_vllm(cfg, row.card.total_bytes, max_model_len=32768, **hybrid)
        assert row.largest_batch == plan.blocks // 769 == int(plan.max_concurrency)
        assert row.largest_batch > plan.kv_tokens // 32768 or plan.blocks < 769


def test_vllm_0_34_keeps_its_null_block_from_requests() -> None:
    # vLLM 0.34 checks requests against its pool less the null block (kv_cache_planning.py:1846-1860 in the 0.34.0
    # wheel).  Find a context whose request's blocks divide the pool exactly: there the printed concurrency is a
    # whole number n, yet n requests at their longest would need the null block, so only n - 1 fit.
    cfg = get_preset("llama-3.1-8b")
    extensible = {"hybrid_kv_cache": True, "extensible_kv_cache": True, "block_size": 64}
    card = gpu_memory("h100-sxm")
    for context in range(64, 131_072 + 1, 64):
        plan = plan_vllm(cfg, card, max_model_len=context, **extensible)
        per_request = context // 64
        if plan.blocks % per_request == 0 and plan.blocks // per_request >= 2:
            break
    else:
        pytest.fail("no context divides the pool")
    exact = plan.blocks // per_request
    assert plan.max_concurrency == exact and plan.most_requests() == exact - 1
    [row] = [r for r in rank_cards(cfg, engine="vllm", context=context, concurrency=exact, **extensible)
             if r.card.key == "h100-sxm" and r.gpus == 1]
    assert not row.fits and row.largest_batch == exact - 1
