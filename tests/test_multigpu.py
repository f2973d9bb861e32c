"""Several GPUs: tensor- and pipeline-parallel inference as vLLM splits a model, ZeRO for LoRA and QLoRA.

The oracle is arithmetic by hand from Llama-3.1-70B's shapes (80 layers, width 8,192, 64
query heads and 8 KV heads of 128, FFN 28,672, vocabulary 128,256 = 2,004 x 64, untied
head), from vLLM's rules as its source states them (vLLM 0.10: ``QKVParallelLinear``
replicates KV heads when there are fewer than GPUs, ``VocabParallelEmbedding`` pads the
vocabulary to 64 rows, ``get_pp_indices`` gives the remainder layers to the stages before
the last), and DeepSpeed 0.19.8's ZeRO defaults.
"""

from __future__ import annotations

import pytest

import llmcalc as lc
from llmcalc.planner import (
    RESERVE,
    kv_heads_per_gpu,
    parallel_inference_plans,
    pipeline_stages,
    plan_inference,
    plan_training,
    tensor_parallel_sizes,
)
from llmcalc.weightformats import weight_format_bytes

LLAMA70 = lc.get_preset("llama-3.1-70b")
D, FF, LAYERS, HEAD, VOCAB = 8192, 28_672, 80, 128, 128_256


def hand_weights_per_gpu(tp: int, kv_heads: int) -> int:
    """BF16 bytes one GPU of ``tp`` holds of Llama-3.1-70B: every matrix's share, norms whole."""
    q = D * (64 // tp * HEAD)
    k = v = D * (kv_heads * HEAD)
    o = (64 // tp * HEAD) * D
    mlp = 3 * D * (FF // tp)
    norms = 2 * D
    per_layer = q + k + v + o + mlp + norms
    embedding = head = VOCAB // tp * D
    return 2 * (LAYERS * per_layer + embedding + head + D)


@pytest.mark.parametrize(("tp", "kv_heads"), [(1, 8), (2, 4), (4, 2), (8, 1)])
def test_llama_70b_tensor_parallel_weights_and_kv_heads_per_gpu(tp: int, kv_heads: int) -> None:
    assert kv_heads_per_gpu(LLAMA70, tp) == kv_heads
    [plan] = parallel_inference_plans(LLAMA70, context=8192, tensor_parallel=tp)
    assert plan.weights == hand_weights_per_gpu(tp, kv_heads)
    # Keys and values of 80 layers, this GPU's heads of 128, bf16, 8,192 tokens.
    assert plan.kv_cache == 2 * LAYERS * kv_heads * HEAD * 2 * 8192
    assert plan.reserve == RESERVE
    assert plan_inference(LLAMA70, context=8192, tensor_parallel=tp) == plan


def test_tensor_parallel_1_is_the_one_gpu_plan() -> None:
    [plan] = parallel_inference_plans(LLAMA70, context=4096)
    assert plan == plan_inference(LLAMA70, context=4096)


def test_more_gpus_than_kv_heads_replicate_them() -> None:
    """At TP 16 each GPU still holds one KV head: the cache per GPU stops shrinking, the weights do not."""
    [eight] = parallel_inference_plans(LLAMA70, context=8192, tensor_parallel=8)
    [sixteen] = parallel_inference_plans(LLAMA70, context=8192, tensor_parallel=16)
    assert sixteen.kv_cache == eight.kv_cache
    # Query, output, MLP, embedding and head halve again; the replicated key and value projections do not.
    assert eight.weights - sixteen.weights == (eight.weights - 2 * LAYERS * (2 * D * HEAD + 2 * D) - 2 * D) // 2


def test_pipeline_stages_follow_get_pp_indices() -> None:
    assert pipeline_stages(80, 1) == [80]
    assert pipeline_stages(80, 3) == [27, 27, 26]  # 80 = 3 * 26 + 2: stages 0 and 1 take one more
    assert pipeline_stages(61, 4) == [15, 15, 16, 15]
    assert sum(pipeline_stages(126, 5)) == 126


def test_pipeline_first_stage_holds_the_embedding_and_last_the_head() -> None:
    per_layer = hand_weights_per_gpu(1, 8) // 2 - 2 * VOCAB * D - D
    per_layer //= LAYERS
    plans = parallel_inference_plans(LLAMA70, context=1024, pipeline_parallel=2)
    assert [p.weights for p in plans] == [2 * (40 * per_layer + VOCAB * D), 2 * (40 * per_layer + VOCAB * D + D)]
    assert [p.kv_cache for p in plans] == [2 * 40 * 8 * HEAD * 2 * 1024] * 2
    # The plan is the busiest GPU's: the last stage, by its final norm.
    assert plan_inference(LLAMA70, context=1024, pipeline_parallel=2) == plans[1]


def test_tied_head_is_a_second_copy_on_the_last_stage() -> None:
    gpt2 = lc.get_preset("gpt2")
    first, last = parallel_inference_plans(gpt2, context=1024, pipeline_parallel=2)
    vocab_rows = 2 * 50_304 * 768  # 50,257 padded to a multiple of 64
    assert first.weights - 2 * 1024 * 768 - vocab_rows == last.weights - vocab_rows - 2 * 2 * 768


def test_tensor_parallel_sizes_vllm_accepts() -> None:
    assert tensor_parallel_sizes(LLAMA70) == [1, 2, 4, 8, 16, 32, 64]
    # Llama 2 13B: 40 heads, FFN 13,824 = 2^9 * 27, vocabulary 32,000 = 2^8 * 125.
    assert tensor_parallel_sizes(lc.get_preset("llama-2-13b")) == [1, 2, 4, 8]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tensor_parallel": 3}, "tensor_parallel_size must divide the 64 attention heads, the 8 KV heads (or be a "
                             "multiple of them), the MLP width 28672 and the padded vocabulary 128256, as vLLM "
                             "requires; got 3; valid sizes: 1, 2, 4, 8, 16, 32, 64"),
    ({"tensor_parallel": 0}, "tensor_parallel must be an integer"),
    ({"pipeline_parallel": 81}, "pipeline_parallel_size must be from 1 to the model's 80 layers; got 81"),
])
def test_bad_parallel_sizes_are_refused_naming_the_value(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        plan_inference(LLAMA70, context=1024, **kwargs)
    assert message in str(raised.value)


def test_mixture_of_experts_is_refused_under_parallelism() -> None:
    with pytest.raises(ValueError, match="dense models only"):
        plan_inference(lc.get_preset("mixtral-8x7b"), context=1024, tensor_parallel=2)


LLAMA7 = lc.get_preset("llama-2-7b")
# q and v adapters of rank 16 on 32 layers of width 4,096: A (16 x 4,096) and B (4,096 x 16) each.
ADAPTERS = 32 * 2 * (16 * 4096 + 4096 * 16)


@pytest.mark.parametrize("task", ["lora", "qlora"])
def test_zero_shards_the_adapters_state(task: str) -> None:
    preparation = {"qlora_preparation": "none"} if task == "qlora" else {}
    one = plan_training(LLAMA7, task=task, seq_len=512, **preparation)
    shard = -(-ADAPTERS // 8)
    stage1 = plan_training(LLAMA7, task=task, seq_len=512, zero_stage=1, n_gpus=8, **preparation)
    assert (stage1.weights, stage1.gradients) == (one.weights, one.gradients) == (stage1.weights, 4 * ADAPTERS)
    assert one.optimizer_states == 8 * ADAPTERS and stage1.optimizer_states == 8 * shard
    stage2 = plan_training(LLAMA7, task=task, seq_len=512, zero_stage=2, n_gpus=8, **preparation)
    assert (stage2.weights, stage2.gradients, stage2.optimizer_states) == (one.weights, 4 * shard, 8 * shard)
    assert stage2.activations == one.activations


def test_zero3_shards_the_frozen_bf16_base_and_adds_its_buffers() -> None:
    base = 2 * 6_738_415_616
    plan = plan_training(LLAMA7, task="lora", seq_len=512, zero_stage=3, n_gpus=8)
    shard = -(-ADAPTERS // 8)
    gathered = 2 * (32_000 * 4096 + 50_000_000)  # the embedding, the largest module, and the prefetch bucket
    assert plan.weights == base // 8 + 4 * shard + gathered
    assert plan.gradients == 4 * shard + 4 * ADAPTERS  # the reduce bucket holds every adapter gradient (< 5e8)


def test_qlora_zero3_keeps_the_quantization_constants_whole() -> None:
    parts = weight_format_bytes(LLAMA7, "nf4-dq")
    plan = plan_training(LLAMA7, task="qlora", seq_len=512, zero_stage=3, n_gpus=4, qlora_preparation="none")
    base = parts["quantized"] + parts["unquantized"]
    gathered = -(-(32_000 * 4096 + 50_000_000) * sum(parts.values()) // 6_738_415_616)
    assert plan.weights == -(-base // 4) + parts["constants"] + 4 * ADAPTERS // 4 + gathered


def test_one_gpu_zero_changes_nothing_but_stage_3_buffers() -> None:
    one = plan_training(LLAMA7, task="lora", seq_len=512)
    assert plan_training(LLAMA7, task="lora", seq_len=512, zero_stage=2, n_gpus=1) == one


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    import json

    from llmcalc.cli import main

    assert main(["plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_cli_tensor_and_pipeline_parallel_plan_the_busiest_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_cli(capsys, "llama-3.1-70b", "--tensor-parallel", "4", "--pipeline-parallel", "2",
                     "--context", "8192")
    expected = plan_inference(LLAMA70, context=8192, tensor_parallel=4, pipeline_parallel=2)
    assert result["total"] == expected.total and result["per_gpu_of"] == 8
    assert result["parts"]["weights"] == expected.weights  # type: ignore[index]


def test_cli_zero_for_lora(capsys: pytest.CaptureFixture[str]) -> None:
    """The default set-up, TRL's SFTTrainer, keeps LoRA adapters in bf16 under ZeRO-3 and checkpoints."""
    result = run_cli(capsys, "llama-2-7b", "--task", "lora", "--zero-stage", "3", "--gpus", "8", "--seq-len", "512")
    assert result["total"] == plan_training(LLAMA7, task="lora", seq_len=512, zero_stage=3, n_gpus=8,
                                            adapter_dtype="bf16", checkpointing=True).total
    assert result["adapter_dtype"] == "bf16"


def test_cli_vllm_tensor_parallel(capsys: pytest.CaptureFixture[str]) -> None:
    from llmcalc.engines import plan_vllm

    result = run_cli(capsys, "llama-3-8b", "--engine", "vllm", "--tensor-parallel", "2", "--gpu", "80",
                     "--context", "8192")
    plan = plan_vllm(lc.get_preset("llama-3-8b"), 80 * 2**30, max_model_len=8192, tensor_parallel=2)
    assert result["kv_tokens"] == plan.kv_tokens and result["per_gpu_of"] == 2


@pytest.mark.parametrize(("argv", "message"), [
    (["--tensor-parallel", "3"], "valid sizes: 1, 2, 4, 8, 16, 32, 64"),
    (["--engine", "generate", "--tensor-parallel", "2"], "--tensor-parallel does not apply to --engine generate"),
    (["--engine", "vllm", "--gpu", "80", "--pipeline-parallel", "2"],
     "--pipeline-parallel does not apply to --engine vllm"),
    (["--task", "full", "--tensor-parallel", "2"], "--tensor-parallel does not apply to --task full"),
    (["--task", "inference", "--gpus", "2"], "--gpus does not apply to --task inference"),
])
def test_cli_refuses_parallel_options_where_they_do_not_apply(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    from llmcalc.cli import main

    with pytest.raises(SystemExit):
        main(["plan", "llama-3.1-70b", *argv])
    assert message in capsys.readouterr().err


def test_a_plan_that_does_not_fit_is_offered_a_larger_tensor_parallel_size() -> None:
    from llmcalc.planner import inference_changes_that_fit

    h100 = 81_559 * 2**20
    changes = inference_changes_that_fit(LLAMA70, h100, context=8192, tensor_parallel=1)
    tp = [change for change in changes if change.setting == "tensor_parallel"]
    # 131.4 GiB of weights: two GPUs of 79.65 GiB hold 65.7 GiB each with the cache and the reserve.
    assert [(change.value, change.plan) for change in tp] == [
        (2, plan_inference(LLAMA70, context=8192, tensor_parallel=2))]


def test_a_training_plan_on_several_gpus_is_offered_a_higher_zero_stage() -> None:
    from llmcalc.planner import training_changes_that_fit

    a100 = 80 * 2**30
    settings = {"task": "lora", "seq_len": 2048, "checkpointing": True, "n_gpus": 8}
    changes = training_changes_that_fit(LLAMA70, a100, **settings)
    assert [(c.setting, c.value) for c in changes if c.setting == "zero_stage"] == [("zero_stage", 3)]
    # One GPU: no stage shards anything, so none is offered.
    one = training_changes_that_fit(LLAMA70, a100, **{**settings, "n_gpus": 1})
    assert all(change.setting != "zero_stage" for change in one)
