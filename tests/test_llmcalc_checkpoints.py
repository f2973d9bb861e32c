"""Quantized checkpoints read from their config.json (llmcalc.checkpoints), against published weight totals.

Oracles: tests/data/quantized/published.json, each a checkpoint's published size (its model card's file size, its
model.safetensors.index.json total_size, or the weights a vLLM start-up log reports), with its source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from llmcalc import GiB, get_preset, param_count
from llmcalc.checkpoints import (
    ACCEPTED,
    CheckpointFormat,
    checkpoint_from_hf,
    checkpoint_weight_bytes,
    kept_in_16_bits,
    stored_bytes,
)
from llmcalc.cli import main
from llmcalc.errors import Refusal
from llmcalc.planner import parallel_inference_plans, plan_inference
from llmcalc.weightformats import weight_format_bytes

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent
PUBLISHED = json.loads((DATA / "quantized" / "published.json").read_text("utf-8"))["checkpoints"]
UNITS = {"GB": 10**9, "GiB": GiB, "bytes": 1}


def config_of(entry: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint's config.json: the architecture's file (or a preset's fields) plus its quantization_config."""
    model = entry["model"]
    if "config" in model:
        data: dict[str, Any] = json.loads((ROOT / model["config"]).read_text("utf-8"))
    else:
        cfg = get_preset(model["preset"])
        data = {"model_type": "llama", "vocab_size": cfg.vocab_size, "hidden_size": cfg.d_model,
                "intermediate_size": cfg.d_ff, "num_hidden_layers": cfg.n_layers,
                "num_attention_heads": cfg.n_heads, "num_key_value_heads": cfg.n_kv_heads,
                "max_position_embeddings": cfg.trained_context}
    if entry["quantization_config"] is not None:
        data["quantization_config"] = entry["quantization_config"]
    return data


def mtp_layer_bytes(data: dict[str, Any]) -> int:
    """DeepSeek-V3's multi-token-prediction module as its checkpoint stores it: one more MoE block, counted as the
    difference of 62 and 61 blocks, plus its own BF16 embedding and head, eh_proj and three norms."""
    def total(layers: int) -> int:
        checkpoint = checkpoint_from_hf({**data, "num_hidden_layers": layers})
        assert checkpoint.weight_format is not None
        return sum(checkpoint_weight_bytes(checkpoint.config, checkpoint.weight_format).values())

    width, vocab = data["hidden_size"], data["vocab_size"]
    return total(62) - total(61) + 2 * (2 * vocab * width + 2 * width * width + 3 * width)


def planned_bytes(entry: dict[str, Any]) -> int:
    data = config_of(entry)
    checkpoint = checkpoint_from_hf(data)
    assert checkpoint.weight_format is not None
    if entry["scope"] == "per GPU" and entry["tensor_parallel"] > 1:
        [gpu] = parallel_inference_plans(checkpoint.config, context=1, weight_format=checkpoint.weight_format,
                                         tensor_parallel=entry["tensor_parallel"])
        return gpu.weights
    total = sum(checkpoint_weight_bytes(checkpoint.config, checkpoint.weight_format).values())
    return total + (mtp_layer_bytes(data) if entry.get("plus") else 0)


@pytest.mark.parametrize("entry", PUBLISHED, ids=[e["checkpoint"] for e in PUBLISHED])
def test_published_weight_totals(entry: dict[str, Any]) -> None:
    published = entry["published"] * UNITS[entry["unit"]]
    assert abs(planned_bytes(entry) / published - 1) < 0.03
    # The model-card sizes are rounded to 10 MB; the layouts' exact bytes land within that rounding and 0.2 %.
    if entry["unit"] == "GB":
        assert abs(planned_bytes(entry) / published - 1) < 0.002


def test_the_oracles_cover_fp8_with_bf16_layers_awq_and_gptq() -> None:
    methods = {checkpoint_from_hf(config_of(e)).weight_format.method for e in PUBLISHED}  # type: ignore[union-attr]
    assert {"fbgemm_fp8", "fp8", "awq", "gptq"} <= methods


def test_405b_fp8_keeps_attention_and_the_first_and_last_mlps_in_16_bits() -> None:
    [entry] = [e for e in PUBLISHED if e["checkpoint"].endswith("405B-Instruct-FP8")]
    checkpoint = checkpoint_from_hf(config_of(entry))
    assert checkpoint.weight_format is not None
    kept = kept_in_16_bits(checkpoint.config, checkpoint.weight_format)
    assert kept == [("self_attn.q_proj", 126, 126), ("self_attn.k_proj", 126, 126), ("self_attn.v_proj", 126, 126),
                    ("self_attn.o_proj", 126, 126), ("mlp.gate_proj", 2, 126), ("mlp.up_proj", 2, 126),
                    ("mlp.down_proj", 2, 126), ("lm_head", 1, 1)]
    # The fp8 preset converts every block's linear layers: 10 GiB a GPU less than vLLM loaded.
    [preset] = parallel_inference_plans(checkpoint.config, context=1, weight_format="fp8", tensor_parallel=8)
    assert preset.weights / GiB < 0.85 * entry["published"]


def test_every_quantized_hub_config_is_planned_or_refused_by_name() -> None:
    planned, refused = {}, set()
    for path in sorted((DATA / "hub_configs").glob("*.json")):
        if path.name.startswith("_"):
            continue
        data = json.loads(path.read_text("utf-8"))
        checkpoint = checkpoint_from_hf(path)
        assert (checkpoint.weight_format is None) == ("quantization_config" not in data)
        if checkpoint.weight_format is not None and checkpoint.weight_format.codes == "mxfp4":
            # transformers lays MXFP4 experts out per GPU generation (padded on Hopper) or dequantizes them: refused.
            with pytest.raises(ValueError) as caught:
                plan_inference(checkpoint.config, context=4096, weight_format=checkpoint.weight_format)
            assert getattr(caught.value, "code", None) == "mxfp4_layout_unmodelled"
            refused.add(path.name)
        elif checkpoint.weight_format is not None:
            planned[path.name] = plan_inference(checkpoint.config, context=4096,
                                                weight_format=checkpoint.weight_format).weights
    assert set(planned) == {"deepseek-r1.json", "deepseek-v3.json"}
    assert refused == {"gpt-oss-120b.json", "gpt-oss-20b.json"}


@pytest.mark.parametrize("name, card_gib", [("gpt-oss-20b", 12.8), ("gpt-oss-120b", 60.8)])
def test_gpt_oss_mxfp4_experts_take_17_bytes_per_32_weights(name: str, card_gib: float) -> None:
    """Each expert weight matrix is stored as *_blocks (16 bytes of 4-bit codes per 32 weights) and *_scales (one
    E8M0 byte per 32); everything else, the experts' biases included, is BF16.  The model card gives the checkpoint
    size to 0.1 GiB."""
    checkpoint = checkpoint_from_hf(DATA / "hub_configs" / f"{name}.json")
    assert checkpoint.weight_format is not None and checkpoint.weight_format.method == "mxfp4"
    cfg = checkpoint.config
    expert_weights = cfg.n_layers * cfg.n_experts * 3 * cfg.d_model * cfg.d_ff
    parts = checkpoint_weight_bytes(cfg, checkpoint.weight_format)
    assert parts == {"quantized": expert_weights // 2, "constants": expert_weights // 32,
                     "unquantized": 2 * (param_count(cfg) - expert_weights)}
    assert round(sum(parts.values()) / GiB, 1) == card_gib
    assert [path for path, _, _ in kept_in_16_bits(cfg, checkpoint.weight_format)] == [
        "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.router", "lm_head"]


def test_bitsandbytes_configs_size_as_the_measured_formats() -> None:
    cfg = get_preset("llama-2-7b")
    for quantization, measured in (({"load_in_8bit": True}, "int8"),
                                   ({"load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}, "nf4"),
                                   ({"quant_method": "bitsandbytes", "load_in_4bit": True,
                                     "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True}, "nf4-dq")):
        checkpoint = checkpoint_from_hf({**config_of({"model": {"preset": "llama-2-7b"},
                                                      "quantization_config": None}),
                                         "quantization_config": quantization})
        assert checkpoint.weight_format is not None
        assert checkpoint_weight_bytes(checkpoint.config, checkpoint.weight_format) == weight_format_bytes(
            cfg, measured)


def test_compressed_tensors_layouts_byte_by_byte() -> None:
    """compressed-tensors 0.20.1: scales in the model's 16-bit dtype; pack-quantized int32 rows and weight_shape."""
    fp8 = CheckpointFormat("compressed-tensors", "fp8", scales="channel", scale_bytes=2)
    assert stored_bytes(fp8, 4096, 14336) == (4096 * 14336, 2 * 14336)
    w4 = CheckpointFormat("compressed-tensors", "packed", bits=4, scales="group", group_size=128, scale_bytes=2,
                          zero_points=True, group_index=True)
    codes, constants = stored_bytes(w4, 4096, 14336)
    assert codes == 4 * 14336 * 4096 * 4 // 32
    assert constants == 2 * 14336 * 32 + 16 + 4 * (14336 * 4 // 32) * 32 + 4 * 4096


def test_awq_gemv_layout_as_autoawq_registers_it() -> None:
    """AutoAWQ 0.2.9 WQLinear_GEMV: qweight (out, in/8), qzeros (out, width), scales (out, 8 * width) fp16."""
    gemv = CheckpointFormat("awq", "awq-gemv", bits=4, scales="group", group_size=64, scale_bytes=2)
    words = (4096 // 64 + 7) // 8  # calculate_zeros_width(4096, 64): 64 groups in 8 int32 words, rounded to 2
    width = (words + 1) // 2 * 2
    assert stored_bytes(gemv, 4096, 11008) == (4 * 11008 * 512, 4 * 11008 * width + 2 * 11008 * width * 8)


REFUSED = [
    ({"quant_method": "hqq"}, "quant_method", "hqq"),
    ({"quant_method": "gptq", "bits": 5, "group_size": 128}, "bits", "5"),
    ({"quant_method": "gptq", "bits": 4, "group_size": 128, "dynamic": {"-:.*": {}}}, "dynamic", "{"),
    ({"quant_method": "gptq", "bits": 4, "group_size": 128, "lm_head": True}, "lm_head", "True"),
    ({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "exllama"}, "version", "exllama"),
    ({"quant_method": "awq", "bits": 4, "group_size": 48, "version": "gemv"}, "group_size", "48"),
    ({"quant_method": "fp8", "fmt": "e5m2"}, "fmt", "e5m2"),
    ({"quant_method": "fp8", "weight_block_size": [128]}, "weight_block_size", "[128]"),
    ({"quant_method": "fp8", "modules_to_convert": ["model.embed_tokens"]}, "modules_to_convert", "embed"),
    ({"quant_method": "fbgemm_fp8", "modules_to_not_convert": "lm_head"}, "modules_to_not_convert", "lm_head"),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "int4"}, "bnb_4bit_quant_type",
     "int4"),
    ({"quant_method": "compressed-tensors", "config_groups": {"a": {}, "b": {}}}, "config_groups", "a"),
    ({"quant_method": "compressed-tensors", "format": ["pack-quantized"], "config_groups": {"g": {
        "targets": ["Linear"], "weights": {"num_bits": 4, "type": "int"}}}}, "format", "pack-quantized"),
    ({"quant_method": "compressed-tensors", "format": "marlin-24", "config_groups": {"g": {
        "targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128}}}},
     "format", "marlin-24"),
    ({"quant_method": "compressed-tensors", "format": "float-quantized", "sparsity_config": {"format": "sparse-24"},
      "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float"}}}},
     "sparsity_config", "sparse-24"),
    ("gptq", "quantization_config", "gptq"),
    ({"quant_method": "fp8", "modules_to_not_convert": ["lm_head", "model.layers.(0"]}, "modules_to_not_convert",
     "model.layers.(0"),
    ({"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["re:.*lm_head[", "x"],
      "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float"}}}}, "ignore",
     "lm_head["),
]


@pytest.mark.parametrize(("quantization", "key", "shown"), REFUSED)
def test_a_layout_it_cannot_size_is_refused_by_name(quantization: Any, key: str, shown: str) -> None:
    data = {**config_of({"model": {"preset": "llama-2-7b"}, "quantization_config": None}),
            "quantization_config": quantization}
    with pytest.raises(Refusal) as caught:
        checkpoint_from_hf(data)
    assert caught.value.code == "quantization_unmodelled" and caught.value.params["key"] == key
    message = str(caught.value)
    assert key in message and shown in message and "accepted:" in message


@pytest.mark.parametrize(("config", "method"), [("mixtral-8x7b-v0.1.json", "gptq"), ("qwen3-30b-a3b.json", "awq"),
                                                ("gpt2.json", "awq"), ("falcon-7b.json", "gptq")])
def test_per_expert_and_non_linear_layouts_are_refused(config: str, method: str) -> None:
    """Routed experts stored one by one (transformers 5 stacks them), GPT-2's Conv1D and FalconLinear."""
    data = json.loads((DATA / "hub_configs" / config).read_text("utf-8"))
    data["quantization_config"] = {"quant_method": method, "bits": 4, "group_size": 128}
    with pytest.raises(Refusal, match=f"model_type = '{data['model_type']}' is not modelled for {method}"):
        checkpoint_from_hf(data)


def test_cli_plans_a_quantized_config_and_names_what_stays_16_bit(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    [entry] = [e for e in PUBLISHED if e["checkpoint"].endswith("405B-Instruct-FP8")]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config_of(entry)), "utf-8")
    assert main(["plan", str(path), "--tensor-parallel", "8", "--context", "8192", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["weight_format"] == "fbgemm_fp8"
    assert abs(result["parts"]["weights"] / GiB / entry["published"] - 1) < 0.03
    assert {"module": "mlp.gate_proj", "kept": 2, "of": 126} in result["kept_in_16_bits"]
    assert main(["plan", str(path), "--tensor-parallel", "8"]) == 0
    assert "kept in 16 bits: the embedding, norms and biases, and self_attn.q_proj" in capsys.readouterr().out
    for extra, said in ((["--weight-format", "fp8"], "--weight-format does not apply"),
                        (["--task", "lora"], "a quantized checkpoint (fbgemm_fp8): training plans start")):
        with pytest.raises(SystemExit):
            main(["plan", str(path), *extra])
        assert said in capsys.readouterr().err


def test_each_described_acceptance_has_the_planner_s_words() -> None:
    """A refusal's accepted_id is worded from the planner's catalogue (accepted_<id>), in each language."""
    from llmglossary.calculators.labels import REFUSAL_LABELS

    assert {f"accepted_{key}" for key in ACCEPTED} <= set(REFUSAL_LABELS)
    with pytest.raises(Refusal) as caught:
        checkpoint_from_hf({**config_of({"model": {"preset": "llama-2-7b"}, "quantization_config": None}),
                            "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 0}})
    assert caught.value.params["accepted_id"] == "group" and str(caught.value).endswith(ACCEPTED["group"])


def test_a_bitsandbytes_4bit_checkpoint_gets_the_qlora_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A checkpoint stored NF4 with double quantization, as QLoRA loads its base (unsloth's -bnb-4bit releases):
    plan --task qlora on it equals the plan of the model it was quantized from; LoRA and full are refused."""
    base = config_of({"model": {"preset": "llama-2-7b"}, "quantization_config": None})
    stored = {**base, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True,
                                              "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True}}
    plans = []
    for name, data in (("base", base), ("stored", stored)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), "utf-8")
        assert main(["plan", str(path), "--task", "qlora", "--json"]) == 0
        plans.append(json.loads(capsys.readouterr().out)["parts"])
    assert plans[0] == plans[1]
    with pytest.raises(SystemExit):
        main(["plan", str(tmp_path / "stored.json"), "--task", "lora"])
    assert "training plans start from the model it was quantized from" in capsys.readouterr().err


def test_real_gptq_config_files_are_planned_from_the_file_alone() -> None:
    """Issue 38: real config.json files, with the quantization_config their quantizer wrote, are planned within 3 %
    of the published file (the Git LFS pointer's exact size); nothing about the layout is added by hand."""
    real = [e for e in PUBLISHED if e["quantization_config"] is None
            and config_of(e).get("quantization_config", {}).get("quant_method") in ("gptq", "awq")]
    assert len(real) >= 4
    for entry in real:
        error = planned_bytes(entry) / entry["published"] - 1
        # The safetensors file also holds its JSON header (13.77 MB here): the layouts land just under the file.
        assert -0.001 < error < 0, (entry["checkpoint"], error)
