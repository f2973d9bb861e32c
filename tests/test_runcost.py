"""The time of a training run (llmcalc.runcost) against published runs and the papers' own FLOP counts.

The published runs (tests/data/training_runs.json) state their tokens, cards and time; the oracle is what they
took. Where a source states its MFU, the run's time is predicted from it; every run's implied MFU is derived, and
its error at the default MFU is what page 19's table shows.
"""

from __future__ import annotations

import contextlib
import io
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

import llmcalc as lc
from llmcalc.cli import main
from llmcalc.datasheets import tensor_flops
from llmcalc.errors import Refusal
from llmcalc.runcost import (
    DEFAULT_MFU,
    RunEstimate,
    attention_training_flops,
    implied_mfu,
    training_flops_per_token,
    training_run,
)

RUNS = json.loads((Path(__file__).parent / "data" / "training_runs.json").read_text(encoding="utf-8"))["runs"]


def model(run: dict[str, Any]) -> lc.ModelConfig:
    return lc.get_preset(run["preset"]) if "preset" in run else lc.ModelConfig(**run["config"])


def peak(run: dict[str, Any]) -> float:
    """One chip's dense BF16 peak: the card's datasheet, or the figure the source states for a chip not listed."""
    return float(run["peak_flops"]) if "peak_flops" in run else float(tensor_flops(run["card"]))


def published_gpu_hours(run: dict[str, Any]) -> float:
    if "gpu_hours" in run:
        return float(run["gpu_hours"])
    if "steps" in run:
        return run["steps"] * run["seconds_per_step"] * run["n_gpus"] / 3600
    return run["tokens"] / run["tokens_per_gpu_second"] / 3600


def predicted(run: dict[str, Any], mfu: float = DEFAULT_MFU) -> RunEstimate:
    return training_run(model(run), train_tokens=run["tokens"], seq_len=run["seq_len"], n_gpus=1,
                        peak_flops=peak(run), mfu=mfu)


def test_the_check_covers_at_least_five_published_runs_each_with_a_public_source() -> None:
    assert len(RUNS) >= 5
    assert all(run["url"].startswith("https://") and run["quote"] for run in RUNS)


def test_palm_s_stated_mfu_is_this_count_at_its_stated_throughput() -> None:
    # PaLM, appendix B: 238.3K tokens/s on 6144 chips of 275 TFLOPS is 45.7% without self-attention, 46.2% with it.
    [palm] = [run for run in RUNS if run["name"] == "PaLM 540B"]
    cfg = model(palm)
    assert lc.param_count(cfg) == pytest.approx(540.35e9, rel=1e-4)
    achieved = 238.3e3 / (275e12 * 6144)
    assert round(6 * lc.matmul_params(cfg) * achieved, 3) == 0.457
    assert round(training_flops_per_token(cfg, seq_len=2048) * achieved, 3) == 0.462


def test_llama_3_405b_s_stated_compute_is_6nd() -> None:
    # Grattafiori et al. 2024, section 1: 3.8 x 10^25 FLOPs on 15.6T tokens (the attention term not counted there).
    [llama] = [run for run in RUNS if run["name"] == "Llama 3.1 405B"]
    assert f"{6 * lc.matmul_params(model(llama)) * llama['tokens']:.1e}" == "3.8e+25"


@pytest.mark.parametrize("run", [run for run in RUNS if "stated_mfu" in run], ids=lambda run: run["name"])
def test_a_stated_mfu_predicts_the_published_time(run: dict[str, Any]) -> None:
    # Predicted from the MFU the source states. Llama 3.1 405B's card counts all its 30.84M GPU-hours: within the
    # 38-43% range the prediction is 2% to 13% short. PaLM's 8.4M chip-hours include "some downtime and repeated
    # steps", which its 46.2% (measured while running) does not: the prediction is a third short.
    low, high = run["stated_mfu"]
    hours = published_gpu_hours(run)
    errors = [predicted(run, mfu).gpu_hours / hours - 1 for mfu in (high, low)]
    expected = {"Llama 3.1 405B": (-0.133, -0.019), "PaLM 540B": (-0.335, -0.335)}[run["name"]]
    assert errors == pytest.approx(expected, abs=0.001)


def test_every_published_run_implies_an_mfu_in_the_published_range() -> None:
    mfus = {run["name"]: implied_mfu(predicted(run).flops, published_gpu_hours(run), peak(run)) for run in RUNS}
    assert min(mfus.values()) == pytest.approx(0.188, abs=0.001)  # Llama 3 8B's 1.3M H100-hours for 15T tokens
    assert max(mfus.values()) == pytest.approx(0.643, abs=0.001)  # llm.c's GPT-2 774M on 8 A100s
    assert mfus["GPT-2 124M, llm.c"] == pytest.approx(0.60, abs=0.005)  # llm.c's own "~60% MFU" for this run
    assert statistics.median(mfus.values()) == pytest.approx(0.453, abs=0.001)


def test_the_default_mfu_predicts_the_published_runs_within_a_median_of_22_percent() -> None:
    errors = [predicted(run).gpu_hours / published_gpu_hours(run) - 1 for run in RUNS]
    assert statistics.median(abs(error) for error in errors) == pytest.approx(0.224, abs=0.001)
    assert max(abs(error) for error in errors) == pytest.approx(0.607, abs=0.005)


def test_lora_skips_the_frozen_weights_gradients_only() -> None:
    # Hu et al. 2022, section 4.2: LoRA trains GPT-3 175B 25% faster than full fine-tuning. The count gives LoRA
    # 32% fewer FLOPs than full fine-tuning (a forward and two backward products per frozen weight become a forward
    # and one): at equal MFU it would run 1.48x as fast, so a LoRA run reaches about 84% of full fine-tuning's MFU.
    gpt3 = lc.ModelConfig(vocab_size=50257, d_model=12288, n_layers=96, n_heads=96, d_ff=49152, ffn="mlp",
                          tie_embeddings=True, qkv_bias=True, out_bias=True, mlp_bias=True, norm="layernorm",
                          learned_positions=2048, layout="gpt2")
    full = training_flops_per_token(gpt3, seq_len=2048)
    lora = training_flops_per_token(gpt3, seq_len=2048, task="lora", rank=4, targets=["c_attn"])
    assert round(1 - lora / full, 2) == 0.32
    assert round(1.25 / (full / lora), 2) == 0.84
    n = lc.matmul_params(gpt3)
    assert lora - attention_training_flops(gpt3, 2048) - 4 * n == 6 * lc.lora_model_params(gpt3, 4, ["c_attn"])


def test_qlora_costs_the_same_flops_as_lora() -> None:
    llama = lc.get_preset("llama-2-7b")
    assert (training_flops_per_token(llama, seq_len=2048, task="qlora")
            == training_flops_per_token(llama, seq_len=2048, task="lora"))


def test_a_window_shorter_than_the_sequence_bounds_the_attention_term() -> None:
    mistral = lc.get_preset("mistral-7b")  # a 4,096-token window on every layer
    assert attention_training_flops(mistral, 32768) == attention_training_flops(mistral, 4096)
    assert attention_training_flops(mistral, 2048) * 2 == attention_training_flops(mistral, 4096)


def test_time_price_and_gpus_follow_from_the_flops() -> None:
    llama = lc.get_preset("llama-2-7b")
    one = training_run(llama, train_tokens=10**9, seq_len=4096, n_gpus=1, peak_flops=1e15, mfu=0.5,
                       price_per_gpu_hour=3.0)
    eight = training_run(llama, train_tokens=10**9, seq_len=4096, n_gpus=8, peak_flops=1e15, mfu=0.5)
    assert one.flops == 10**9 * training_flops_per_token(llama, seq_len=4096)
    assert one.gpu_hours == pytest.approx(one.flops / 0.5e15 / 3600)
    assert eight.gpu_hours == one.gpu_hours and eight.wall_hours == pytest.approx(one.wall_hours / 8)
    assert one.price == pytest.approx(3 * one.gpu_hours) and eight.price is None


@pytest.mark.parametrize(("field", "value", "message"), [
    ("mfu", 0, "mfu must be a finite number > 0 and <= 1; got 0.0"),
    ("mfu", 1.01, "mfu must be a finite number > 0 and <= 1; got 1.01"),
    ("mfu", float("nan"), "mfu must be a finite number > 0 and <= 1; got nan"),
    ("train_tokens", 0, "train_tokens must be an integer >= 1; got 0"),
    ("train_tokens", 1e9, "train_tokens must be an integer >= 1; got 1000000000.0 (a float)"),
    ("n_gpus", -2, "n_gpus must be an integer >= 1; got -2"),
    ("peak_flops", 0, "peak_flops must be a finite number > 0; got 0.0"),
    ("price_per_gpu_hour", -1, "price_per_gpu_hour must be a finite number > 0; got -1.0"),
    ("task", "dpo", "task must be one of 'full', 'lora', 'qlora'; got 'dpo'"),
])
def test_bad_settings_are_refused_naming_the_value(field: str, value: object, message: str) -> None:
    settings: dict[str, Any] = {"train_tokens": 10**9, "seq_len": 2048, "n_gpus": 1, "peak_flops": 1e15}
    settings[field] = value
    with pytest.raises(Refusal) as refused:
        training_run(lc.get_preset("llama-2-7b"), **settings)
    assert str(refused.value).startswith(message)


def cli(*argv: str) -> tuple[int, str, str]:
    """``llmcalc`` as a reader runs it: exit status, standard output, standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exit_:
            status = int(exit_.code or 0)
    return status, out.getvalue(), err.getvalue()


def test_the_cli_prints_the_run_llmcalc_estimates() -> None:
    status, out, _ = cli("plan", "llama-2-7b", "--task", "full", "--seq-len", "4096", "--gpus", "8", "--zero-stage",
                         "3", "--gpu", "a100-80gb", "--train-tokens", "1e9", "--price-per-gpu-hour", "2", "--json")
    run = training_run(lc.get_preset("llama-2-7b"), train_tokens=10**9, seq_len=4096, n_gpus=8,
                       peak_flops=312e12, price_per_gpu_hour=2.0)
    shown = json.loads(out)["training_run"]
    assert status == 0 and shown["peak_source"] == "a100-80gb" and shown["mfu"] == DEFAULT_MFU
    assert (shown["flops"], shown["gpu_hours"], shown["wall_hours"], shown["price"]) == (
        run.flops, run.gpu_hours, run.wall_hours, run.price)
    _, text, _ = cli("plan", "llama-2-7b", "--task", "full", "--seq-len", "4096", "--gpus", "8", "--zero-stage", "3",
                     "--gpu", "a100-80gb", "--train-tokens", "1e9", "--price-per-gpu-hour", "2")
    assert ("on 8 GPU(s) of 312.0 TFLOPS (its datasheet's dense BF16) at MFU 0.4: 102.58 GPU-hours, "
            "12.82 hours from start to end; at 2.00 per GPU-hour: 205.16") in text


def test_the_cli_s_lora_run_counts_the_plan_s_adapters() -> None:
    _, out, _ = cli("plan", "llama-2-7b", "--task", "qlora", "--rank", "64", "--targets", "all-linear",
                    "--train-tokens", "5e7", "--peak-tflops", "100", "--mfu", "0.25", "--json")
    shown = json.loads(out)["training_run"]
    llama = lc.get_preset("llama-2-7b")
    assert shown["flops_per_token"] == training_flops_per_token(llama, seq_len=2048, task="qlora", rank=64)
    assert shown["peak_source"] == "given" and shown["gpu_hours"] == pytest.approx(
        5e7 * shown["flops_per_token"] / (100e12 * 0.25) / 3600)


@pytest.mark.parametrize(("card", "name", "fp16", "argv", "precision"), [
    ("t4", "T4 (16 GB)", "65", ("--task", "lora"), "bf16"),
    ("t4", "T4 (16 GB)", "65", ("--task", "qlora"), "bf16"),
    ("v100-16gb", "V100 (16 GB)", "125", ("--task", "full"), "bf16"),
    ("v100-32gb", "V100 (32 GB)", "125", ("--task", "full", "--precision", "amp"), "amp"),
    ("v100-32gb", "V100 (32 GB)", "125", ("--task", "full", "--precision", "mixed"), "mixed"),
])
def test_a_bf16_plan_on_a_card_without_bf16_tensor_cores_is_refused_by_name(
        card: str, name: str, fp16: str, argv: tuple[str, ...], precision: str) -> None:
    # Every precision the planner offers multiplies in BF16 (llmcalc plan --help: bf16, amp, mixed; LoRA's BF16
    # base), and the T4 (compute capability 7.5) and the V100 (7.0) have FP16 tensor cores only: their
    # datasheets print "65 TFLOPS" and "125 TFLOPS" for FP16 and no BF16 figure.
    status, out, err = cli("plan", "llama-3.2-1b", *argv, "--gpu", card, "--train-tokens", "1e6")
    assert status == 2 and out == ""
    assert f"the {name} has no BF16 tensor cores" in err and f"(precision {precision})" in err
    assert f"its datasheet's {fp16} TFLOPS are its FP16 rate" in err and "give --peak-tflops" in err
    status, out, _ = cli("plan", "llama-3.2-1b", *argv, "--gpu", card, "--train-tokens", "1e6", "--peak-tflops",
                         fp16, "--json")
    shown = json.loads(out)["training_run"]
    # A hand case: the run's FLOPs over the typed peak times the default MFU, in hours.
    assert status == 0 and shown["peak_source"] == "given" and shown["peak_dtype"] is None
    assert shown["gpu_hours"] == pytest.approx(shown["flops"] / (int(fp16) * 1e12 * 0.4) / 3600, rel=1e-12)


@pytest.mark.parametrize(("card", "tflops"), [("a100-80gb", "312.0"), ("l4", "121.0"), ("rtx-4090", "165.2"),
                                              ("mi300x", "1,307.4")])
def test_a_card_with_bf16_tensor_cores_is_priced_at_its_printed_bf16_rate(card: str, tflops: str) -> None:
    # Each datasheet's BF16 row prints the same dense rate as its FP16 row (the L4's 242 with sparsity, halved; the
    # RTX 4090's with FP32 accumulation, as the Ada whitepaper's table gives it).
    _, text, _ = cli("plan", "llama-3.2-1b", "--task", "lora", "--gpu", card, "--train-tokens", "1e6")
    assert f"of {tflops} TFLOPS (its datasheet's dense BF16)" in text
    _, out, _ = cli("plan", "llama-3.2-1b", "--task", "lora", "--gpu", card, "--train-tokens", "1e6", "--json")
    shown = json.loads(out)["training_run"]
    assert shown["peak_dtype"] == "bf16" and shown["peak_flops"] == float(tflops.replace(",", "")) * 1e12


@pytest.mark.parametrize(("argv", "message"), [
    (("--task", "full", "--mfu", "0.5"), "--mfu applies with --train-tokens"),
    (("--task", "full", "--train-tokens", "1e9"), "--train-tokens needs one GPU's peak FLOPS"),
    (("--task", "full", "--train-tokens", "1e9", "--gpu", "a10g"), "no datasheet figures for card 'a10g'"),
    (("--task", "full", "--train-tokens", "1e9", "--gpu", "h100-sxm", "--mfu", "0"),
     "mfu must be a finite number > 0 and <= 1; got 0.0"),
    (("--train-tokens", "1e9",), "--train-tokens does not apply to --task inference"),
    (("--task", "lora", "--train-tokens", "2.5"), "'2.5' is not a whole number of tokens"),
])
def test_the_cli_refuses_a_run_it_cannot_estimate(argv: tuple[str, ...], message: str) -> None:
    status, out, err = cli("plan", "llama-2-7b", *argv)
    assert status == 2 and out == "" and message in err
