"""Activation memory: the model against measurements of transformers, and against Korthikanti et al. (2022).

The measurements are bytes of tensors saved for backward, recorded with torch's
``saved_tensors_hooks`` by ``tools/measure_activations.py`` and stored with their
provenance in ``tests/data/activations/recordings.json``; ``peaks.json`` beside it
holds the same script's ``MemTracker`` figures for a whole forward and backward.
"""

import dataclasses
import json
import pathlib

import pytest

import llmcalc as lc
from llmcalc.activations import ActivationMemory, activation_memory, planner_attention
from llmcalc.errors import Refusal
from llmcalc.lora import lora_targets

DATA = pathlib.Path(__file__).parent / "data" / "activations"
RECORDINGS = json.loads((DATA / "recordings.json").read_text("utf-8"))
PEAKS = json.loads((DATA / "peaks.json").read_text("utf-8"))
TOLERANCE = 0.01  # issue 25: within 1 % of every recorded point (issue 12 asked for 10 %)
# The dense families of issue 25, recorded beside the first three (tools/measure_activations.py).
FAMILIES = {"mistral", "gemma", "gemma2", "gemma3", "qwen3", "olmo2", "olmo", "phi", "gpt_neox", "falcon", "phi3",
            "starcoder2"}
EAGER_ONLY = {"gemma2"}  # transformers 5.24 refuses SDPA for Gemma 2


def _config(arch: str, recordings: dict = RECORDINGS) -> lc.ModelConfig:
    recorded = recordings["architectures"][arch]
    return lc.ModelConfig.from_hf_config({"model_type": recorded["model_type"], **recorded["config"]})


def _record_id(record: dict) -> str:
    checkpointing = "ckpt" if record["checkpointing"] else "full"
    return f"{record['arch']}-{record['attention']}-b{record['batch']}-s{record['seq_len']}-{checkpointing}"


def test_recordings_cover_the_issue():
    provenance = RECORDINGS["provenance"]
    for key in ("script", "date", "torch", "transformers", "dtype", "attention", "counted"):
        assert provenance[key], key
    records = RECORDINGS["records"]
    architectures = {record["arch"] for record in records}
    assert architectures == {"llama", "gpt2", "qwen2"} | FAMILIES
    for arch in architectures:
        points = {(r["batch"], r["seq_len"]) for r in records if r["arch"] == arch}
        assert len(points) >= 3, arch
        attentions = ("eager",) if arch in EAGER_ONLY else ("eager", "sdpa")
        for batch, seq_len in points:
            settings = {(r["attention"], r["checkpointing"]) for r in records
                        if (r["arch"], r["batch"], r["seq_len"]) == (arch, batch, seq_len)}
            assert settings == {(attention, checkpointing) for attention in attentions
                                for checkpointing in (False, True)}


@pytest.mark.parametrize("record", RECORDINGS["records"], ids=_record_id)
def test_matches_measurement(record):
    estimate = activation_memory(_config(record["arch"]), record["batch"], record["seq_len"], dtype="bf16",
                                 checkpointing=record["checkpointing"], attention=record["attention"]).saved
    measured = record["saved_bytes"]
    assert type(estimate) is int
    assert abs(estimate - measured) <= TOLERANCE * measured, f"{estimate:,d} vs measured {measured:,d}"


@pytest.mark.parametrize("record", PEAKS["records"], ids=_record_id)
def test_peak_matches_memtracker(record):
    memory = activation_memory(_config(record["arch"], PEAKS), record["batch"], record["seq_len"],
                               checkpointing=record["checkpointing"], dtype="bf16", attention=record["attention"])
    after_forward = record["live_activations_after_forward"]  # the saved tensors and the returned logits
    assert abs(memory.saved + memory.logits - after_forward) <= TOLERANCE * after_forward
    peak = record["peak_activations_and_temporaries"]
    if record["gradients_at_peak"] == 0:  # the peak is in the loss's backward, before any weight gradient
        assert abs(memory.peak - peak) <= TOLERANCE * peak, f"{memory.peak:,d} vs measured {peak:,d}"
    else:  # GPT-2 peaks later, in its tied embedding's weight gradient, which is not an activation
        assert memory.peak < peak


def test_peak_recordings_include_a_loss_peak_with_and_without_checkpointing():
    at_the_loss = {(r["arch"], r["checkpointing"]) for r in PEAKS["records"] if r["gradients_at_peak"] == 0}
    assert {("llama", False), ("llama", True)} <= at_the_loss


def _korthikanti_gpt_block(s: int, b: int, h: int, a: int) -> int:
    """Korthikanti et al. (2022), Section 4.1, in 16-bit, term by term, for one GPT block."""
    qkv_input, q_and_k, values, output_input = 2 * s * b * h, 4 * s * b * h, 2 * s * b * h, 2 * s * b * h
    softmax_output, softmax_dropout_mask, dropout_output = 2 * a * s * s * b, a * s * s * b, 2 * a * s * s * b
    attention_dropout_mask = s * b * h
    attention = (qkv_input + q_and_k + softmax_output + softmax_dropout_mask + dropout_output + values
                 + output_input + attention_dropout_mask)
    mlp_input, gelu_input, gelu_output, mlp_dropout_mask = 2 * s * b * h, 8 * s * b * h, 8 * s * b * h, s * b * h
    mlp = mlp_input + gelu_input + gelu_output + mlp_dropout_mask
    layer_norm_inputs = 4 * s * b * h
    assert attention + mlp + layer_norm_inputs == s * b * h * (34 + 5 * a * s // h)  # their eq. 1
    return attention + mlp + layer_norm_inputs


def test_gpt2_block_is_korthikanti_without_dropout_plus_gelu_new():
    s, b, h, a = 1024, 4, 768, 12
    gpt2 = lc.get_preset("gpt2")
    dropout_masks = 2 * s * b * h + a * s * s * b
    dropout_output = 2 * a * s * s * b  # with p = 0 the matmul reads the softmax output itself
    gelu_new_extra = 3 * 2 * s * b * 4 * h  # tanh output, 0.5 * x and 1 + tanh, each d_ff = 4h wide
    layer_norm_statistics = 2 * 2 * 4 * s * b  # mean and rstd per token, fp32, two LayerNorms
    expected = _korthikanti_gpt_block(s, b, h, a) - dropout_masks - dropout_output + gelu_new_extra
    memory = activation_memory(gpt2, b, s, attention="eager")
    assert memory.per_layer == expected + layer_norm_statistics


def test_checkpointing_keeps_each_block_input_and_recomputes_one_block():
    cfg = lc.get_preset("llama-3-8b")
    full = activation_memory(cfg, 2, 2048)
    checkpointed = activation_memory(cfg, 2, 2048, checkpointing=True)
    assert checkpointed.per_layer == 2 * 2 * 2048 * cfg.d_model  # Korthikanti et al. Section 5: 2sbh per layer
    assert checkpointed.recompute == full.per_layer and full.recompute == 0
    assert checkpointed.head == full.head and checkpointed.loss == full.loss


def test_peak_adds_the_logits_and_the_larger_backward_transient():
    tokens = 4096
    # Llama 3 8B: 128256 vocabulary entries, the loss's two fp32 gradients outweigh a recomputed block.
    llama3 = activation_memory(lc.get_preset("llama-3-8b"), 1, tokens, checkpointing=True)
    assert llama3.logits == 2 * tokens * 128256 and llama3.loss_backward == 8 * tokens * 128256
    assert llama3.loss_backward > llama3.recompute
    assert llama3.peak == llama3.saved + llama3.logits + llama3.loss_backward
    # Llama 2 70B: 32000 entries, width 8192; the recomputed block is the larger.
    llama2 = activation_memory(lc.get_preset("llama-2-70b"), 1, tokens, checkpointing=True)
    assert llama2.recompute > llama2.loss_backward
    assert llama2.peak == llama2.saved + llama2.logits + llama2.recompute
    no_checkpointing = activation_memory(lc.get_preset("llama-2-70b"), 1, tokens)
    assert no_checkpointing.peak == no_checkpointing.saved + no_checkpointing.logits + no_checkpointing.loss_backward


def test_sdpa_is_linear_in_sequence_length_and_eager_is_not():
    cfg = lc.REFERENCE
    sdpa = [activation_memory(cfg, 1, seq_len).per_layer for seq_len in (1024, 2048)]
    eager = [activation_memory(cfg, 1, seq_len, attention="eager").per_layer for seq_len in (1024, 2048)]
    assert sdpa[1] == 2 * sdpa[0]
    # The eager difference is the score matrices: fp32 probabilities and a bf16 copy, 6 bytes per score.
    assert eager[1] - 2 * eager[0] == 6 * cfg.n_heads * (2048**2 - 2 * 1024**2)


def test_loss_is_fp32_log_probabilities():
    cfg = lc.get_preset("llama-3-8b")
    memory = activation_memory(cfg, 1, 8192)
    assert memory.loss == 4 * 8192 * 128256 + 4
    assert memory.loss == activation_memory(cfg, 1, 8192, dtype="fp32").loss


def test_fp32_model_keeps_one_norm_copy():
    cfg = lc.REFERENCE
    bf16 = activation_memory(cfg, 1, 256)
    fp32 = activation_memory(cfg, 1, 256, dtype="fp32")
    # Doubling every element doubles everything but the fp32 norm inputs and statistics, which stay.
    assert bf16.head == (4 + 2) * 256 * cfg.d_model + 4 * 256 + 2 * 256 * cfg.d_model
    assert fp32.head == (4 + 4) * 256 * cfg.d_model + 4 * 256 + 4 * 256 * cfg.d_model


def test_breakdown_adds_up():
    memory = activation_memory(lc.get_preset("qwen2.5-0.5b"), 3, 100, attention="eager")
    assert isinstance(memory, ActivationMemory)
    assert memory.n_layers == 24
    assert memory.saved == 24 * memory.per_layer + memory.shared + memory.head + memory.loss


@pytest.mark.parametrize("name", sorted(name for name, cfg in lc.PRESETS.items() if cfg.model_type != "gpt_oss"))
def test_every_preset_is_modelled(name):
    """Dense families (act-dense) and MoE/MLA families (act-moe) together: no preset is refused but gpt-oss's, whose
    activations were never measured (test_llmcalc_planner.test_gpt_oss_training_is_refused_by_name)."""
    cfg = lc.get_preset(name)
    assert activation_memory(cfg, 1, 128, attention=planner_attention(cfg)).saved > 0


@pytest.mark.parametrize("change, message", [
    (dict(kv_lora_rank=512, rope_head_dim=16, n_kv_heads=0),
     r"latent attention outside the measured families: model_type must be \('mixtral', .*\); got ''"),
    (dict(n_experts=8, experts_per_token=2), "mixture-of-experts routing outside the measured families: model_type"),
    (dict(n_experts=8, experts_per_token=2, model_type="jamba"), "model_type must be .*; got 'jamba'"),
    (dict(norms_per_layer=4), "blocks without exactly two norms: norms_per_layer must be 2; got 4"),
    (dict(norms_per_layer=1), "blocks without exactly two norms: norms_per_layer must be 2; got 1"),
    (dict(ffn="mlp"), "ffn='swiglu'.*got ffn='mlp'"),
    (dict(norm="layernorm"), "an RMSNorm.*norm='layernorm'"),
    (dict(model_type="gemma2", norms_per_layer=4, sliding_window=4096, sliding_window_layers=1),
     "transformers 5.24 does not run model_type 'gemma2' with attention='sdpa'"),
])
def test_unmeasured_architectures_are_refused(change, message):
    cfg = dataclasses.replace(lc.REFERENCE, **change)
    with pytest.raises(ValueError, match=message):
        activation_memory(cfg, 1, 128)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(batch=0), ValueError, "batch must be an integer >= 1; got 0"),
    (dict(seq_len=2048.0), TypeError, "seq_len must be an integer >= 1; got 2048.0"),
    (dict(dtype="bf61"), ValueError, "dtype must be one of 'bf16', 'fp16', 'fp32'; got 'bf61' \\(did you mean"),
    (dict(dtype="int8"), ValueError, "dtype must be one of"),
    (dict(attention="flash"), ValueError, "attention must be one of 'sdpa', 'eager'; got 'flash'"),
    (dict(checkpointing=1), TypeError, "checkpointing must be True or False; got 1"),
])
def test_bad_input(kwargs, error, message):
    arguments = dict(batch=1, seq_len=128) | kwargs
    with pytest.raises(error, match=message):
        activation_memory(lc.REFERENCE, **arguments)


def test_bad_config():
    with pytest.raises(TypeError, match="cfg must be a ModelConfig"):
        activation_memory({"d_model": 768}, 1, 128)


def test_learned_positions_bound_the_sequence():
    with pytest.raises(ValueError, match=r"seq_len must be in \[1, 1024\] \(the model learned 1024 positions\)"):
        activation_memory(lc.get_preset("gpt2"), 1, 2048)


LORA = json.loads((DATA / "lora.json").read_text("utf-8"))


def _lora_id(record: dict) -> str:
    base = ("qlora-kbit" if record.get("prepared") else "qlora") if record["quantized_base"] else "lora"
    adapters = f"-{record['adapter_dtype']}" if "adapter_dtype" in record else ""
    return f"{_record_id(record)}-{base}{adapters}-{record['targets'] or 'default'}-p{record['lora_dropout']}"


def _lora_estimate(record: dict) -> int:
    # peft's default targets (q_proj/v_proj, GPT-2's c_attn) are named by what peft adapted.
    return activation_memory(_config(record["arch"], LORA), record["batch"], record["seq_len"],
                             checkpointing=record["checkpointing"], lora_targets=record["targets"] or record["adapted"],
                             lora_rank=record["rank"], lora_dropout=record["lora_dropout"],
                             attention=record["attention"],
                             qlora_preparation="kbit" if record.get("prepared") else None,
                             adapter_dtype=record.get("adapter_dtype", "fp32")).saved


def test_lora_recordings_cover_the_issue():
    provenance = LORA["provenance"]
    for key in ("script", "date", "torch", "transformers", "peft", "bitsandbytes", "lora", "qlora"):
        assert provenance[key], key
    records = LORA["records"]
    assert {record["arch"] for record in records} == {"llama", "gpt2", "qwen2"} | FAMILIES
    for arch in FAMILIES:  # peft's default targets without dropout, all-linear with, checkpointing on and off
        points = {(r["batch"], r["seq_len"]) for r in records if r["arch"] == arch and not r["quantized_base"]}
        assert len(points) >= 3, arch
        for batch, seq_len in points:
            # peft has no default targets for some model types: their records name q and v (Phi-3: qkv_proj).
            settings = {("all-linear" if r["targets"] == "all-linear" else "q and v", r["lora_dropout"],
                         r["checkpointing"]) for r in records
                        if (r["arch"], r["batch"], r["seq_len"], r["quantized_base"]) == (arch, batch, seq_len, False)}
            assert settings >= {(targets, dropout, checkpointing)
                                for targets, dropout in (("q and v", 0.0), ("all-linear", 0.05))
                                for checkpointing in (False, True)}, arch
    for arch in ("llama", "gpt2", "qwen2"):
        points = {(r["batch"], r["seq_len"]) for r in records if r["arch"] == arch and not r["quantized_base"]}
        assert len(points) >= 3, arch
        for batch, seq_len in points:
            settings = {(r["targets"], r["lora_dropout"], r["checkpointing"]) for r in records
                        if (r["arch"], r["batch"], r["seq_len"], r["quantized_base"]) == (arch, batch, seq_len, False)}
            assert settings == {(targets, dropout, checkpointing) for targets in (None, "all-linear")
                                for dropout in (0.0, 0.05) for checkpointing in (False, True)}
    assert all(record["attention"] == ("eager" if record["arch"] in EAGER_ONLY else "sdpa") and record["rank"] == 16
               for record in records)
    assert any(record["quantized_base"] for record in records)


@pytest.mark.parametrize("record", LORA["records"], ids=_lora_id)
def test_lora_matches_measurement(record):
    """Within 1 % of every LoRA and QLoRA recording; in fact within 0.2 % (GPT-NeoX checkpointed, the farthest)."""
    estimate = _lora_estimate(record)
    measured = record["saved_bytes"]
    assert abs(estimate - measured) <= TOLERANCE * measured, f"{estimate:,d} vs measured {measured:,d}"


def test_qlora_keeps_what_lora_keeps():
    """A 4-bit base's MatMul4Bit keeps its weight, not its input: QLoRA's saved bytes are LoRA's, byte for byte."""
    lora = {_setting(r): r["saved_bytes"] for r in LORA["records"] if not r["quantized_base"]}
    quantized = [r for r in LORA["records"] if r["quantized_base"] and not r.get("prepared")
                 and "adapter_dtype" not in r]
    assert {r["arch"] for r in quantized} == {"llama", "gpt2", "qwen2"}
    for record in quantized:
        assert record["saved_bytes"] == lora[_setting(record)], _lora_id(record)


def _setting(record: dict) -> tuple:
    """What a LoRA record was measured with, hashable (targets may be a list of module names)."""
    return tuple(str(record[key]) for key in ("arch", "batch", "seq_len", "checkpointing", "targets", "lora_dropout"))


def test_lora_block_by_hand():
    """LoRA rank 4 on q and v of a tiny Llama, one 8-token sequence, bf16, SDPA: every tensor counted by hand.

    Per block whose input needs a gradient (T = 8 tokens, d = 64, 4 heads of 16, 2 KV heads, f = 128):
    two RMSNorms keep their fp32 input and fp32 rsqrt, not the normalized values their frozen scale
    multiplies; SDPA keeps bf16 queries (T x 64), keys and values (T x 32) and output (T x 64) and an fp32
    log-sum-exp per head and token; the FFN keeps gate, up and SiLU outputs (bf16, T x 128) but not the
    down projection's input (frozen); q and v each keep an fp32 copy of their input (T x 64) and A's fp32
    output (T x 4).  With dropout each adapter also keeps its fp32 mask (T x 64).  The first block's input
    comes from the frozen embedding: its first norm and its adapters' masks are not kept.
    """
    cfg = dataclasses.replace(lc.REFERENCE, d_model=64, n_heads=4, n_kv_heads=2, head_dim=16, d_ff=128,
                              n_layers=3, vocab_size=100, tie_embeddings=False)
    tokens = 8
    norm = 4 * tokens * 64 + 4 * tokens
    attention = 2 * tokens * 64 + 2 * 2 * tokens * 32 + 2 * tokens * 64 + 4 * 4 * tokens
    ffn = 3 * 2 * tokens * 128
    adapters = 2 * (4 * tokens * 64 + 4 * tokens * 4)
    block = 2 * norm + attention + ffn + adapters
    head = norm  # the final norm; the frozen LM head keeps no input
    loss = 4 * tokens * 100 + 4
    shared = 8 * tokens + 2 * 2 * tokens * 16  # shifted targets (the frozen embedding keeps no ids), cos and sin
    memory = activation_memory(cfg, 1, tokens, lora_targets=["q", "v"], lora_rank=4)
    assert (memory.per_layer, memory.first_block_discount, memory.head) == (block, norm, head)
    assert memory.saved == 3 * block - norm + shared + head + loss

    masks = 2 * 4 * tokens * 64
    dropped = activation_memory(cfg, 1, tokens, lora_targets=["q", "v"], lora_rank=4, lora_dropout=0.1)
    assert dropped.per_layer == block + masks and dropped.first_block_discount == norm + masks

    checkpointed = activation_memory(cfg, 1, tokens, lora_targets=["q", "v"], lora_rank=4, checkpointing=True)
    assert checkpointed.recompute == block and checkpointed.first_block_discount == 0
    assert checkpointed.saved == 3 * 2 * tokens * 64 + shared + 8 * tokens + head + loss  # + position ids


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(attention="eager"), ValueError, r"measured with dtype='bf16' and attention='sdpa' \(Gemma 2: 'eager'\) only; "
                                          ".*attention='eager'"),
    (dict(qlora_preparation="kbit", lora_targets=None), ValueError,
     "qlora_preparation applies to QLoRA only; got qlora_preparation='kbit' with task='full'"),
    (dict(qlora_preparation="nf4"), ValueError,
     "qlora_preparation must be one of 'kbit', 'none', 'norms'; got 'nf4'"),
    (dict(adapter_dtype="fp16"), ValueError, "adapter_dtype must be one of 'fp32', 'bf16'; got 'fp16'"),
    (dict(dtype="fp16"), ValueError, "measured with dtype='bf16' .*got dtype='fp16'"),
    (dict(lora_targets=["down"]), ValueError, r"query, key or value projection is adapted .*\['down'\]"),
    (dict(lora_targets=["q", "lm_head"]), ValueError, "LoRA on the LM head was not measured"),
    (dict(lora_targets=["qkv"]), ValueError, "target 'qkv' matches no module"),
    (dict(lora_rank=0), ValueError, "lora_rank must be an integer >= 1; got 0"),
    (dict(lora_dropout=1.0), ValueError, r"lora_dropout must be a finite number >= 0 and < 1; got 1.0"),
    (dict(lora_targets=None, lora_dropout=0.05), ValueError, "apply only with lora_targets; .*lora_dropout=0.05"),
])
def test_lora_refusals(kwargs, error, message):
    arguments = dict(batch=1, seq_len=128, lora_targets=["q", "v"]) | kwargs
    with pytest.raises(error, match=message):
        activation_memory(lc.get_preset("llama-3-8b"), **arguments)


@pytest.mark.parametrize("targets", [5, [], ["q", 5], [None]], ids=["int", "empty", "int-name", "None-name"])
@pytest.mark.parametrize("preset", ["llama-3-8b", "mixtral-8x7b"])
def test_bad_lora_targets_are_refused_as_lora_refuses_them(preset, targets):
    """Targets that are not module names get llmcalc.lora's refusal, naming the value, for a mixture of experts
    (whose targets are read for peft's stacked experts first) as for a dense model: never a TypeError."""
    cfg = lc.get_preset(preset)
    with pytest.raises(Refusal) as expected:
        lora_targets(cfg, targets)
    with pytest.raises(Refusal) as raised:
        activation_memory(cfg, 1, 128, lora_targets=targets)
    assert (raised.value.code, raised.value.params) == (expected.value.code, expected.value.params)


# --- Mixtures of experts and latent attention (tools/measure_activations.py --moe) ---

MOE = json.loads((DATA / "moe.json").read_text("utf-8"))
MOE_LORA = json.loads((DATA / "moe-lora.json").read_text("utf-8"))
MOE_TOLERANCE = 0.01  # issue 25: within 1 % of every recorded point
MOE_ARCHITECTURES = {"mixtral", "qwen2_moe", "qwen3_moe", "olmoe", "deepseek_v2", "deepseek_v3"}


def test_moe_recordings_cover_the_issue():
    provenance = MOE["provenance"]
    for key in ("script", "date", "torch", "transformers", "dtype", "attention", "counted"):
        assert provenance[key], key
    records = MOE["records"]
    assert {record["arch"] for record in records} == MOE_ARCHITECTURES
    assert {MOE["architectures"][arch]["model_type"] for arch in MOE_ARCHITECTURES} == MOE_ARCHITECTURES
    for arch in MOE_ARCHITECTURES:
        points = {(r["batch"], r["seq_len"]) for r in records if r["arch"] == arch}
        assert len(points) >= 3, arch
        for batch, seq_len in points:
            settings = {(r["attention"], r["checkpointing"]) for r in records
                        if (r["arch"], r["batch"], r["seq_len"]) == (arch, batch, seq_len)}
            assert settings == {("eager", False), ("eager", True), ("sdpa", False), ("sdpa", True)}


@pytest.mark.parametrize("record", MOE["records"], ids=_record_id)
def test_moe_matches_measurement(record):
    """Within 1 % of every recording; in fact byte for byte but for DeepSeek-V3 (up to 0.07 %: storages
    of its router's group choice, saved and freed with a branch that no gradient reaches, counted or not as the
    allocator reuses their addresses)."""
    estimate = activation_memory(_config(record["arch"], MOE), record["batch"], record["seq_len"],
                                 checkpointing=record["checkpointing"], attention=record["attention"]).saved
    measured = record["saved_bytes"]
    assert abs(estimate - measured) <= MOE_TOLERANCE * measured, f"{estimate:,d} vs measured {measured:,d}"


def test_moe_lora_recordings_cover_the_issue():
    provenance = MOE_LORA["provenance"]
    for key in ("script", "date", "torch", "transformers", "peft", "bitsandbytes", "lora", "qlora"):
        assert provenance[key], key
    records = MOE_LORA["records"]
    assert {record["arch"] for record in records} == MOE_ARCHITECTURES
    for arch in MOE_ARCHITECTURES:
        points = {(r["batch"], r["seq_len"]) for r in records if r["arch"] == arch}
        assert len(points) >= 3, arch
        settings = {(r["targets"] == "all-linear", r["lora_dropout"] > 0, r["quantized_base"], r["checkpointing"])
                    for r in records if r["arch"] == arch}
        assert settings >= {(all_linear, False, quantized, checkpointing) for all_linear in (False, True)
                            for quantized in (False, True) for checkpointing in (False, True)}, arch
        assert (False, True, False, False) in settings, arch
        prepared = {r["checkpointing"] for r in records if r["arch"] == arch and r.get("prepared")}
        assert prepared == {False, True}, arch  # the kbit-prepared QLoRA base on the query and value projections


@pytest.mark.parametrize("record", MOE_LORA["records"], ids=_lora_id)
def test_moe_lora_matches_measurement(record):
    # The MoE recordings name their targets (peft 0.21.2 has a default list for Mixtral only).
    estimate = activation_memory(_config(record["arch"], MOE_LORA), record["batch"], record["seq_len"],
                                 checkpointing=record["checkpointing"], lora_targets=record["targets"],
                                 lora_rank=record["rank"], lora_dropout=record["lora_dropout"],
                                 qlora_preparation="kbit" if record.get("prepared") else None,
                                 adapter_dtype=record.get("adapter_dtype", "fp32")).saved
    measured = record["saved_bytes"]
    assert abs(estimate - measured) <= MOE_TOLERANCE * measured, f"{estimate:,d} vs measured {measured:,d}"


def test_moe_qlora_keeps_what_lora_keeps():
    """bitsandbytes leaves the stacked experts (3-D parameters, not nn.Linear) in bf16, and its 4-bit layers keep
    their weights, not their inputs: QLoRA keeps LoRA's bytes."""
    setting = ("arch", "batch", "seq_len", "checkpointing", "lora_dropout")
    lora_bytes = {(*[r[key] for key in setting], str(r["targets"])): r["saved_bytes"]
                  for r in MOE_LORA["records"] if not r["quantized_base"]}
    quantized = [r for r in MOE_LORA["records"] if r["quantized_base"] and not r.get("prepared")
                 and "adapter_dtype" not in r]
    assert {r["arch"] for r in quantized} == MOE_ARCHITECTURES
    for record in quantized:
        key = (*[record[k] for k in setting], str(record["targets"]))
        assert abs(record["saved_bytes"] - lora_bytes[key]) <= MOE_TOLERANCE * lora_bytes[key], _lora_id(record)


def test_moe_ffn_by_hand():
    """A tiny Mixtral-style layer, one 8-token sequence, SDPA, bf16: the MoE FFN counted tensor by tensor.

    T = 8 tokens, d = 64, 4 experts of width f = 96, top 2: P = 16 token-expert pairs.  The router keeps its
    fp32 softmax (T x 4), the int64 top-2 indices (T x 2), the fp32 top-2 weights before their renormalization
    (T x 2) and their sum (T), and the fp32 weights sorted by expert (P); the experts keep the gathered inputs
    (P x d), the fused gate/up output (P x 2f), the SiLU output and the product (P x f each) and the down
    output (P x d) in bf16, three int64 permutations (P) and the int32 offsets (4).
    """
    cfg = dataclasses.replace(lc.REFERENCE, d_model=64, n_heads=4, n_kv_heads=2, head_dim=16, d_ff=96,
                              n_experts=4, experts_per_token=2, n_layers=1, vocab_size=100, model_type="mixtral")
    dense = dataclasses.replace(cfg, n_experts=1, experts_per_token=1, model_type="")
    tokens, pairs = 8, 16
    router = 4 * tokens * 4 + 8 * tokens * 2 + 4 * tokens * 2 + 4 * tokens + 4 * pairs
    experts = 2 * pairs * 64 + 2 * pairs * 2 * 96 + 2 * 2 * pairs * 96 + 2 * pairs * 64 + 3 * 8 * pairs + 4 * 4
    dense_ffn = 4 * 2 * tokens * 96  # SwiGLU: gate, up, SiLU output and product
    moe_layer = activation_memory(cfg, 1, tokens).per_layer
    assert moe_layer - activation_memory(dense, 1, tokens).per_layer == router + experts - dense_ffn


def test_moe_routing_pairs_are_tokens_times_top_k():
    """Every tensor the experts keep has one row per token-expert pair: doubling top-k doubles them all."""
    base = lc.ModelConfig.from_hf_config({"model_type": "mixtral", **MOE["architectures"]["mixtral"]["config"]})
    top4 = dataclasses.replace(base, experts_per_token=4)
    tokens, d, f = 256, base.d_model, base.d_ff
    # Per pair, bf16: gathered input and down output (d each), gate/up (2f), SiLU output and product (f each);
    # three int64 permutations; the router's int64 index, fp32 weight before renormalization, fp32 sorted weight.
    per_pair = 2 * (2 * d + 4 * f) + 3 * 8 + 8 + 4 + 4
    difference = activation_memory(top4, 1, tokens).per_layer - activation_memory(base, 1, tokens).per_layer
    assert difference == (4 - 2) * tokens * per_pair


def test_dense_leading_layers_keep_a_dense_ffn():
    """DeepSeek's first_k_dense_replace layers: a dense SwiGLU, no router; the recomputed block is the larger."""
    cfg = lc.ModelConfig.from_hf_config("tests/data/hf_models/deepseek-v2-lite.json")
    memory = activation_memory(cfg, 1, 1024)
    moe_only = activation_memory(dataclasses.replace(cfg, dense_layers=0), 1, 1024)
    assert memory.per_layer == moe_only.per_layer and cfg.dense_layers == 1
    assert memory.saved - moe_only.saved == memory.dense_layers_extra != 0
    checkpointed = activation_memory(cfg, 1, 1024, checkpointing=True)
    assert checkpointed.dense_layers_extra == 0
    assert checkpointed.recompute == max(memory.per_layer, memory.per_layer + memory.dense_layers_extra)


def test_lora_dropout_on_stacked_experts_is_refused():
    """peft's ParamWrapper refuses lora_dropout on the stacked experts "all-linear" adapts in Mixtral."""
    cfg = lc.ModelConfig.from_hf_config("tests/data/hf_models/mixtral-8x7b-v0.1.json")
    with pytest.raises(ValueError, match=r"peft adapts the stacked experts .* lora_dropout=0.05"):
        activation_memory(cfg, 1, 128, lora_targets="all-linear", lora_dropout=0.05)
    assert activation_memory(cfg, 1, 128, lora_targets=["q", "v"], lora_dropout=0.05).saved > 0


MOE_PEAKS = json.loads((DATA / "moe-peaks.json").read_text("utf-8"))


@pytest.mark.parametrize("record", MOE_PEAKS["records"], ids=_record_id)
def test_moe_peak_matches_memtracker(record):
    """MemTracker over a whole step (Mixtral, Qwen1.5-MoE, DeepSeek-V2-Lite): the live activations after the
    forward pass, and the step's peak where it falls in the loss's backward, within 1 % (in fact 0.004 %).  Where
    the step's largest total falls later, among the weight gradients (Mixtral with checkpointing), the activations
    alive at that moment are no peak of theirs, and are below the model's."""
    memory = activation_memory(_config(record["arch"], MOE_PEAKS), record["batch"], record["seq_len"],
                               checkpointing=record["checkpointing"], attention=record["attention"])
    after_forward = record["live_activations_after_forward"]
    assert abs(memory.saved + memory.logits - after_forward) <= MOE_TOLERANCE * after_forward
    peak = record["peak_activations_and_temporaries"]
    if record["gradients_at_peak"] == 0:
        assert abs(memory.peak - peak) <= MOE_TOLERANCE * peak, f"{memory.peak:,d} vs measured {peak:,d}"
    else:
        assert peak < memory.peak


def test_moe_peaks_include_the_loss_peak_with_and_without_checkpointing():
    at_the_loss = {(r["arch"], r["checkpointing"]) for r in MOE_PEAKS["records"] if r["gradients_at_peak"] == 0}
    assert {("deepseek_v2", False), ("deepseek_v2", True), ("qwen2_moe", True), ("mixtral", False)} <= at_the_loss


def test_prepared_qlora_was_recorded_for_every_dense_family():
    """The planner's QLoRA default (a kbit-prepared base) counts every dense family in fp32: each was measured so
    (peft's default targets, with and without checkpointing), and test_lora_matches_measurement holds them."""
    prepared = {(r["arch"], r["checkpointing"]) for r in LORA["records"]
                if r.get("prepared") and r["targets"] != "all-linear"}
    assert prepared == {(arch, checkpointing) for arch in {"llama", "gpt2", "qwen2"} | FAMILIES
                        for checkpointing in (False, True)}


def test_prepared_qlora_keeps_an_fp32_residual_stream():
    """peft's prepare_model_for_kbit_training upcasts embedding, norms and head to fp32 (issue 24): the recorded
    prepared runs keep more than the unprepared 4-bit base at the same setting (about 13 % for peft's default
    targets), and the model counts them so; for every setting of peft's default targets and of all-linear."""
    plain = {_setting(r): r for r in LORA["records"] if r["quantized_base"] and not r.get("prepared")
             and "adapter_dtype" not in r}
    prepared = [r for r in LORA["records"] if r.get("prepared") and "adapter_dtype" not in r]
    assert {(r["targets"], r["lora_dropout"], r["checkpointing"]) for r in prepared if r["arch"] == "llama"} == {
        (targets, dropout, checkpointing) for targets, dropout in ((None, 0.0), ("all-linear", 0.05))
        for checkpointing in (False, True)}
    for record in prepared:
        unprepared = plain.get(_setting(record))
        if unprepared is not None:
            assert record["saved_bytes"] > unprepared["saved_bytes"], _lora_id(record)
    point = next(r for r in prepared if (r["arch"], r["targets"], r["checkpointing"], r["batch"]) ==
                 ("llama", None, False, 1))
    increase = point["saved_bytes"] / plain[_setting(point)]["saved_bytes"] - 1
    assert 0.12 < increase < 0.14


def test_sliding_window_under_sdpa_by_hand():
    """Mistral-style block, window 4: from seq_len = window on, SDPA gets an explicit bf16 mask (kept) and grouped
    keys and values repeated to n_heads; below it transformers passes is_causal and neither."""
    cfg = dataclasses.replace(lc.REFERENCE, d_model=64, n_heads=4, n_kv_heads=2, head_dim=16, d_ff=128, n_layers=3,
                              vocab_size=100, sliding_window=4, model_type="mistral")
    plain = dataclasses.replace(cfg, sliding_window=0)
    short, long = 3, 8
    assert activation_memory(cfg, 2, short).saved == activation_memory(plain, 2, short).saved
    windowed = activation_memory(cfg, 2, long)
    per_layer = 2 * 2 * long * long + 2 * 2 * (2 * long) * (64 - 32)  # the mask, and K and V at 4 heads not 2
    assert windowed.windowed_extra == 3 * per_layer
    assert windowed.saved == activation_memory(plain, 2, long).saved + 3 * per_layer
    checkpointed = activation_memory(cfg, 2, long, checkpointing=True)
    plain_checkpointed = activation_memory(plain, 2, long, checkpointing=True)
    assert checkpointed.saved - plain_checkpointed.saved == long * long  # one boolean mask, expanded over the batch
    assert checkpointed.recompute == plain_checkpointed.recompute + per_layer


def test_peaks_were_recorded_for_dense_families():
    """The step's peak (MemTracker) for seven families beside the Llama-style model, with and without checkpointing."""
    recorded = {(r["arch"], r["checkpointing"]) for r in PEAKS["records"] if r["gradients_at_peak"] == 0}
    assert {(arch, checkpointing) for arch in ("mistral", "qwen3", "gemma2", "phi3", "falcon", "gpt_neox", "starcoder2")
            for checkpointing in (False, True)} <= recorded


def test_prepared_moe_qlora_keeps_fp32_blocks():
    """prepare_model_for_kbit_training upcasts the bf16 experts with the rest (merged-act): the recorded prepared
    runs of every MoE and MLA family keep more than the unprepared 4-bit base at the same setting."""
    setting = ("arch", "batch", "seq_len", "checkpointing", "lora_dropout")
    plain = {tuple(r[key] for key in setting): r["saved_bytes"] for r in MOE_LORA["records"]
             if r["quantized_base"] and not r.get("prepared") and r["targets"] != "all-linear"}
    prepared = [r for r in MOE_LORA["records"] if r.get("prepared")]
    assert {r["arch"] for r in prepared} == MOE_ARCHITECTURES
    for record in prepared:
        assert record["saved_bytes"] > plain[tuple(record[key] for key in setting)], _lora_id(record)


def test_prepared_qlora_with_adapters_on_stacked_experts_is_refused():
    """Not measured: the merged expert weights and factor copies of peft's ParamWrapper on an fp32 base."""
    cfg = lc.ModelConfig.from_hf_config("tests/data/hf_models/mixtral-8x7b-v0.1.json")
    with pytest.raises(ValueError, match="adapters on stacked experts or a router of a kbit-prepared base"):
        activation_memory(cfg, 1, 128, lora_targets="all-linear", qlora_preparation="kbit")
    assert activation_memory(cfg, 1, 128, lora_targets="all-linear", qlora_preparation="none").saved > 0
