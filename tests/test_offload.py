"""CPU offload for training (llmcalc.offload) against Answer.AI's published FSDP runs with CPU offload.

The oracle: the peak GPU memory Answer.AI published for its FSDP + QLoRA script with
``--use_cpu_offload true`` on two RTX 3090 and two RTX 4090 cards, every row of the offload
tables (https://github.com/AnswerDotAI/fsdp_qlora/blob/23fafdfb4af403d0808038adafbfd74de265d33a/benchmarks_03_2024.md),
with the script's defaults (rank 64 on six projections, dropout 0.1, FP32 adapters, 2,048 tokens,
gradient checkpointing; https://github.com/AnswerDotAI/fsdp_qlora/blob/02586ac7de37f32b66a12465d64386ac2043c87a/train.py).
Yi 34B and Mistral 7B v0.2 are written from their published ``config.json``.
"""

import json

import pytest

import llmcalc as lc
from llmcalc import ModelConfig
from llmcalc.cli import main
from llmcalc.errors import RefusalValueError
from llmcalc.offload import plan_offloaded_training
from llmcalc.planner import plan_training

BENCHMARKS = ("https://github.com/AnswerDotAI/fsdp_qlora/blob/23fafdfb4af403d0808038adafbfd74de265d33a/"
              "benchmarks_03_2024.md")
SCRIPT = dict(checkpointing=True, rank=64, lora_dropout=0.1, targets=["q", "k", "v", "gate", "up", "down"],
              n_gpus=2, adapter_dtype="fp32")
# https://huggingface.co/01-ai/Yi-34B/blob/main/config.json; https://huggingface.co/mistral-community/Mistral-7B-v0.2
YI_34B = ModelConfig(vocab_size=64000, d_model=7168, n_layers=60, n_heads=56, n_kv_heads=8, d_ff=20480)
MISTRAL_7B_V02 = ModelConfig(vocab_size=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8, d_ff=14336)
MODELS = {"llama-2-70b": lc.get_preset("llama-2-70b"), "llama-2-7b": lc.get_preset("llama-2-7b"),
          "yi-34b": YI_34B, "mistral-7b-v0.2": MISTRAL_7B_V02}
# (model, task, micro-batch, tokens, published peak GiB): the dual 4090 tables (the 3090 rows repeat 70B and 34B).
RUNS = [
    ("llama-2-70b", "qlora", 2, 2048, 14.92),
    ("llama-2-7b", "qlora", 12, 2048, 22.38),
    ("mistral-7b-v0.2", "qlora", 12, 2048, 22.54),
    ("mistral-7b-v0.2", "qlora", 1, 24576, 22.54),
    ("yi-34b", "qlora", 4, 2048, 22.98),
    ("llama-2-7b", "lora", 10, 2048, 22.69),
]


def offloaded_gib(model: str, task: str, batch: int, tokens: int) -> float:
    prepared = {"qlora_preparation": "none"} if task == "qlora" else {}
    plan = plan_offloaded_training(MODELS[model], offload="fsdp", task=task, micro_batch=batch, seq_len=tokens,
                                   **prepared, **SCRIPT)
    return plan.gpu.total / lc.GiB


@pytest.mark.parametrize("model, task, batch, tokens, published", RUNS[:4])
def test_fsdp_offload_is_within_10_percent_of_answer_ai_s_runs(model, task, batch, tokens, published) -> None:
    assert abs(offloaded_gib(model, task, batch, tokens) / published - 1) <= 0.10, BENCHMARKS


@pytest.mark.parametrize("model, task, batch, tokens, published", RUNS[4:])
def test_the_two_runs_beyond_10_percent_are_under_counts_as_page_19_says(model, task, batch, tokens,
                                                                        published) -> None:
    """Yi 34B (-14 %) and LoRA of Llama 2 7B (-15 %): the planner counts tensors, not the allocator's cache."""
    error = offloaded_gib(model, task, batch, tokens) / published - 1
    assert -0.16 < error < -0.10, BENCHMARKS


def test_offload_answers_the_70b_on_two_24_gb_cards_question() -> None:
    """Without offload Answer.AI's 70B run needs 35 GiB a GPU; with FSDP's offload it fits a 24 GB card."""
    llama = MODELS["llama-2-70b"]
    run = dict(task="qlora", seq_len=2048, micro_batch=2, qlora_preparation="none", **SCRIPT)
    sharded = plan_training(llama, zero_stage=3, **run)
    offloaded = plan_offloaded_training(llama, offload="fsdp", **run)
    budget = lc.planner.gpu_memory("rtx-4090")
    assert not sharded.fits(budget) and offloaded.gpu.fits(budget)
    # What leaves the GPU is in host RAM: the NF4 codes (4 bits a linear weight), the 16-bit embedding and head, the
    # FP32 adapters with their gradients and two AdamW moments, split over the two GPUs of one machine.
    linear = lc.param_count(llama) - 2 * 32000 * 8192 - 161 * 8192
    adapters = lc.lora_model_params(llama, 64, SCRIPT["targets"])
    by_hand = linear // 2 + 2 * (2 * 32000 * 8192 + 161 * 8192) + 16 * adapters
    assert abs(offloaded.host_total - by_hand) <= 2 * 2**20


def test_zero_offload_keeps_16_bit_weights_and_moves_the_optimizer_out() -> None:
    """ZeRO-Offload at stage 2: full fine-tuning of Llama 2 7B in mixed precision keeps 2 bytes a parameter on the
    GPU, and 4 (master) + 8 (moments) + 4 (FP32 gradients) in host RAM, split over the GPUs."""
    cfg = MODELS["llama-2-7b"]
    n = lc.param_count(cfg)
    plan = plan_offloaded_training(cfg, offload="zero", zero_stage=2, n_gpus=2, seq_len=1024, precision="mixed")
    assert plan.gpu.weights == 2 * n and plan.gpu.optimizer_states == 0
    assert plan.gpu.gradients == 2 * 500_000_000  # one reduce bucket of bf16 gradients
    assert plan.host_per_gpu == 16 * -(-n // 2)


def test_offload_refuses_a_stage_it_does_not_run_with() -> None:
    with pytest.raises(RefusalValueError, match="offload 'fsdp' needs zero_stage 3"):
        plan_offloaded_training(MODELS["llama-2-7b"], offload="fsdp", zero_stage=0, seq_len=512)
    with pytest.raises(RefusalValueError, match="offload 'zero' needs zero_stage 1, 2 or 3; got zero_stage 0"):
        plan_offloaded_training(MODELS["llama-2-7b"], offload="zero", zero_stage=0, seq_len=512)
    with pytest.raises(RefusalValueError, match="offload must be one of 'fsdp', 'zero'; got 'nvme'"):
        plan_offloaded_training(MODELS["llama-2-7b"], offload="nvme", seq_len=512)


ARGS = ["plan", "llama-2-70b", "--task", "qlora", "--qlora-preparation", "none", "--seq-len", "2048",
        "--micro-batch", "2", "--checkpointing", "--rank", "64", "--lora-dropout", "0.1", "--targets", "q", "k", "v",
        "gate", "up", "down", "--adapter-dtype", "fp32", "--zero-stage", "3", "--gpus", "2", "--gpu", "rtx-4090"]


def test_the_cli_names_the_offload_that_makes_a_plan_fit(capsys) -> None:
    assert main([*ARGS, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert not result["fits"] and result["offload"] is None
    assert result["offload_fits"]["offload"] == "fsdp"
    assert main(ARGS) == 0
    assert "with --offload fsdp (FSDP CPU offload" in capsys.readouterr().out


def test_the_cli_plans_with_offload_as_the_library_does(capsys) -> None:
    assert main([*ARGS, "--offload", "fsdp", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    prepared = dict(task="qlora", seq_len=2048, micro_batch=2, qlora_preparation="none", **SCRIPT)
    plan = plan_offloaded_training(MODELS["llama-2-70b"], offload="fsdp", **prepared)
    assert result["fits"] and result["total"] == plan.gpu.total and result["host_bytes"] == plan.host_total
