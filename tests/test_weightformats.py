"""Weight-format bytes: llmcalc against the libraries' loaded models, and against hand derivations.

The measurements are every tensor a model holds after transformers loads it in
each format (bitsandbytes, FineGrainedFP8, GPTQ through gptqmodel), recorded by
``tools/measure_quantized.py`` in ``tests/data/quantized/recordings.json``; beside it,
``structure.json`` holds what the int8 and FP8 module replacement converts in every
``tests/data/hf_models`` configuration (built on the meta device, no weights).
"""

import dataclasses
import json
import pathlib

import pytest

import llmcalc as lc
from llmcalc.errors import Refusal
from llmcalc.formats import WEIGHT_FORMATS
from llmcalc.weightformats import modelled_weight_formats, weight_format_bytes

DATA = pathlib.Path(__file__).parent / "data" / "quantized"
RECORDINGS = json.loads((DATA / "recordings.json").read_text("utf-8"))
STRUCTURE = json.loads((DATA / "structure.json").read_text("utf-8"))
PARTS = ("quantized", "constants", "unquantized")
# gpt-oss is sized in bf16 and as its published MXFP4 checkpoint only (no recipe was measured on it): not structured.
HF_CONFIGS = sorted(path for path in (pathlib.Path(__file__).parent / "data" / "hf_models").glob("*.json")
                    if not path.name.startswith(("_", "gpt-oss")) and not path.name.endswith(".full.json"))


def _config(arch: str) -> lc.ModelConfig:
    recorded = RECORDINGS["architectures"][arch]
    return lc.ModelConfig.from_hf_config({"model_type": recorded["model_type"], **recorded["config"]})


def test_recordings_cover_the_issue():
    provenance = RECORDINGS["provenance"]
    for key in ("script", "command", "date", "torch", "transformers", "bitsandbytes", "gptqmodel", "counted"):
        assert provenance[key], key
    assert STRUCTURE["provenance"]["method"] and len(STRUCTURE["models"]) == len(HF_CONFIGS)
    measured = {(r["arch"], r["format"]) for r in RECORDINGS["records"]}
    measured |= {(r["arch"], r["format"]) for r in RECORDINGS["refused"]}
    assert {"llama", "qwen2", "gpt2", "phi3", "mixtral"} <= set(RECORDINGS["architectures"])
    assert measured == {(arch, f) for arch in RECORDINGS["architectures"] for f in WEIGHT_FORMATS}


@pytest.mark.parametrize("record", RECORDINGS["records"], ids=lambda r: f"{r['arch']}-{r['format']}")
def test_matches_recording(record):
    cfg = _config(record["arch"])
    if record["format"] == "int4" and (cfg.is_moe or cfg.layout == "falcon"):
        # What transformers built from a GPTQ config leaves the stacked experts (or every FalconLinear) in
        # 16-bit, which no real GPTQ checkpoint (those quantized) matches: llmcalc refuses rather than guess.
        kept = "experts.gate_up_proj" if cfg.is_moe else "self_attention.query_key_value.weight"
        assert any(kept in name for name in record["matrices_kept_16bit"])
        with pytest.raises(ValueError, match=r"not modelled for (an MoE model|Falcon's FalconLinear)"):
            weight_format_bytes(cfg, "int4")
        return
    assert weight_format_bytes(cfg, record["format"]) == {part: record["parts"][part] for part in PARTS}


@pytest.mark.parametrize("name", sorted(STRUCTURE["models"]))
def test_what_int8_and_fp8_convert_in_every_supported_model_type(name):
    """The libraries' own module replacement, on every tests/data/hf_models config cut to 2 blocks."""
    record = STRUCTURE["models"][name]
    cfg = lc.ModelConfig.from_hf_config(record["config"])
    assert weight_format_bytes(cfg, "int8")["quantized"] == record["int8"]["int8_codes"]
    fp8 = weight_format_bytes(cfg, "fp8")
    assert (fp8["quantized"], fp8["constants"]) == (record["fp8"]["fp8_codes"], record["fp8"]["scale_inv_bytes"])


def test_gptq_refusal_for_gpt2_is_the_library_s():
    refused = {(r["arch"], r["format"]) for r in RECORDINGS["refused"]}
    assert refused == {("gpt2", "int4")}
    with pytest.raises(ValueError, match="not modelled for GPT-2's Conv1D"):
        weight_format_bytes(_config("gpt2"), "int4")


@pytest.mark.parametrize("weight_format", ["int8", "nf4", "nf4-dq", "int4"])
def test_recorded_libraries_keep_stacked_experts_and_head_in_16_bit(weight_format):
    record = next(r for r in RECORDINGS["records"] if (r["arch"], r["format"]) == ("mixtral", weight_format))
    kept = record["matrices_kept_16bit"]
    for name in ("lm_head.weight", "model.layers.0.mlp.experts.gate_up_proj", "model.layers.0.mlp.experts.down_proj",
                 "model.layers.0.mlp.gate.weight"):
        assert name in kept


# One block, llama layout: q, k, v, o are 200 -> 200; gate and up 200 -> 300; down 300 -> 200.
# 340,000 weights; embedding (10 x 200) and 3 RMSNorms (600) stay 16-bit, the head is tied.
ONE_BLOCK = lc.ModelConfig(vocab_size=10, d_model=200, n_layers=1, n_heads=1, d_ff=300, tie_embeddings=True)
SIXTEEN_BIT = 2 * (2000 + 600)


@pytest.mark.parametrize("weight_format, quantized, constants", [
    ("bf16", 0, 0),
    # an fp32 scale per output row: 4 x 200 + 2 x 300 + 200 rows
    ("int8", 340_000, 4 * 1600),
    # 128 x 128 blocks rounded up: 200x200 -> 2x2, 300x200 and 200x300 -> 3x2 and 2x3
    ("fp8", 340_000, 4 * (4 * 4 + 3 * 6)),
    # absmax per 64 weights: 40,000 -> 625 blocks, 60,000 -> 938 (rounded up); a 16-entry fp32 table per tensor
    ("nf4", 170_000, 4 * (4 * 625 + 3 * 938) + 7 * 64),
    # uint8 absmax, fp32 per 256 of them (625 -> 3, 938 -> 4), fp32 offset, 16- and 256-entry fp32 tables
    ("nf4-dq", 170_000, (4 * 625 + 3 * 938) + 4 * (4 * 3 + 3 * 4) + 7 * 4 + 7 * (64 + 1024)),
    # qweight int32 (ceil(d_in/8), d_out); qzeros int32 (groups, ceil(d_out/8)); scales fp16 (groups, d_out);
    # g_idx int32 (d_in,).  200 -> 200: 2 groups; 200 -> 300: 2 groups; 300 -> 200: 3 groups.
    ("int4", 4 * (4 * 25 * 200 + 2 * 25 * 300 + 38 * 200),
     4 * (4 * 2 * 25 + 2 * 2 * 38 + 3 * 25) + 2 * (4 * 2 * 200 + 2 * 2 * 300 + 3 * 200) + 4 * (6 * 200 + 300)),
])
def test_one_block_by_hand(weight_format, quantized, constants):
    unquantized = SIXTEEN_BIT + (2 * 340_000 if weight_format == "bf16" else 0)
    assert weight_format_bytes(ONE_BLOCK, weight_format) == {
        "quantized": quantized, "constants": constants, "unquantized": unquantized}


@pytest.mark.parametrize("expert_d_ff, gate_up_block_rows", [(32, 2), (192, 3)])
def test_fp8_experts_stack_gate_and_up(expert_d_ff, gate_up_block_rows):
    """FP8Experts: gate and up are one 2*d_ff-row matrix per expert, with at least 2 block rows of scales."""
    moe = lc.ModelConfig(vocab_size=10, d_model=128, n_layers=1, n_heads=1, d_ff=expert_d_ff,
                         n_experts=2, experts_per_token=1, tie_embeddings=True)
    down_blocks = -(-expert_d_ff // 128)
    attention_blocks = 4
    expected = 4 * (attention_blocks + 2 * (gate_up_block_rows + down_blocks))
    assert weight_format_bytes(moe, "fp8")["constants"] == expected


def test_deepseek_routers_stay_in_fp32():
    """transformers keeps DeepSeek-V2/V3's ``gate.weight`` in fp32 (``_keep_in_fp32_modules_strict``)."""
    deepseek = _config("deepseek_v3")
    router_weights = 352 * 4  # one MoE layer (the first is dense): d_model x n_routed_experts
    for weight_format in ("bf16", "int8", "fp8"):
        router_in_bf16 = weight_format_bytes(dataclasses.replace(deepseek, model_type="llama"), weight_format)
        expected = router_in_bf16["unquantized"] + 2 * router_weights
        assert weight_format_bytes(deepseek, weight_format)["unquantized"] == expected


@pytest.mark.parametrize("path", HF_CONFIGS, ids=lambda path: path.stem)
def test_every_supported_model_type_shrinks_or_is_refused(path):
    cfg = lc.ModelConfig.from_hf_config(path)
    bf16 = sum(weight_format_bytes(cfg, "bf16").values())
    for weight_format in (f for f in WEIGHT_FORMATS if f != "bf16"):
        if weight_format == "int4" and (cfg.is_moe or cfg.layout in ("gpt2", "falcon")):
            with pytest.raises(ValueError, match="not modelled"):
                weight_format_bytes(cfg, weight_format)
            continue
        parts = weight_format_bytes(cfg, weight_format)
        assert all(type(n) is int and n >= 0 for n in parts.values())
        unconverted = cfg.layout == "falcon" or (weight_format == "fp8" and cfg.layout == "gpt2")
        assert sum(parts.values()) == bf16 if unconverted else sum(parts.values()) < bf16


def test_gpt2_conv1d_stays_16_bit_in_fp8_but_not_in_bitsandbytes():
    gpt2 = lc.get_preset("gpt2")
    assert weight_format_bytes(gpt2, "fp8") == weight_format_bytes(gpt2, "bf16")
    # 12 blocks of c_attn 768 -> 2304, c_proj 768 -> 768, c_fc 768 -> 3072, mlp.c_proj 3072 -> 768
    assert weight_format_bytes(gpt2, "int8")["quantized"] == 12 * 768 * (2304 + 768 + 3072 + 3072)


def test_bad_input():
    llama = lc.get_preset("llama-2-7b")
    with pytest.raises(ValueError, match=r"weight_format must be one of 'bf16', .*'nf4-dq'; got 'nf4dq' "
                                         r"\(did you mean 'nf4-dq'\?\)"):
        weight_format_bytes(llama, "nf4dq")
    with pytest.raises(ValueError, match="got 'fp4'"):
        weight_format_bytes(llama, "fp4")
    with pytest.raises(TypeError, match=r"weight_format must be one of .*; got 4 \(int\)"):
        weight_format_bytes(llama, 4)
    with pytest.raises(TypeError, match="cfg must be a ModelConfig"):
        weight_format_bytes({"d_model": 4096}, "int8")
    with pytest.raises(ValueError, match=r"'int4' \(GPTQ\) is not modelled for an MoE model; use one of 'bf16'"):
        weight_format_bytes(lc.get_preset("mixtral-8x7b"), "int4")


@pytest.mark.parametrize("weight_format", [f for f in WEIGHT_FORMATS if f != "bf16"])
def test_gpt_oss_recipes_are_refused_naming_what_is_modelled(weight_format):
    """No recipe was measured on attention sinks and expert biases: bf16 (what transformers 5.24 dequantizes the
    MXFP4 experts to without its kernels) and the published checkpoint are what a plan of gpt-oss may use."""
    cfg = lc.get_preset("gpt-oss-20b")
    assert modelled_weight_formats(cfg) == ("bf16",)
    with pytest.raises(Refusal) as refused:
        weight_format_bytes(cfg, weight_format)
    assert refused.value.code == "weight_format_unmeasured" and refused.value.params["formats"] == ["bf16"]
    assert weight_format_bytes(cfg, "bf16")["unquantized"] == 2 * lc.param_count(cfg)
