"""LoRA counts by hand; the counts on real models against peft are in test_llmcalc_hf.py and test_llmcalc_presets.py."""

import pytest

import llmcalc as lc


@pytest.mark.parametrize("d_in, d_out, rank, expected", [
    (4096, 4096, 8, 8 * (4096 + 4096)),
    (640, 128, 16, 16 * (640 + 128)),
    (1, 1, 1, 2),
])
def test_lora_params(d_in, d_out, rank, expected):
    assert lc.lora_params(d_in, d_out, rank) == expected


def test_rank_above_the_matrix_is_refused():
    with pytest.raises(ValueError, match=r"rank must be an integer in \[1, min\(d_in, d_out\)=16\]; got 20"):
        lc.lora_params(16, 32, 20)


# Reference model: d_model 640, q 640x640, k and v 640x128, o 640x640, FFN 640x3072 (x3); 20 layers.
@pytest.mark.parametrize("targets, per_layer_per_rank", [
    (("q", "v"), (640 + 640) + (640 + 128)),
    (["q_proj", "k_proj"], (640 + 640) + (640 + 128)),
    (["self_attn.o_proj"], 640 + 640),
    ("all-linear", 2 * (640 + 640) + 2 * (640 + 128) + 3 * (640 + 3072)),
])
def test_reference_model_targets(targets, per_layer_per_rank):
    assert lc.lora_model_params(lc.REFERENCE, 8, targets) == 20 * 8 * per_layer_per_rank


def test_fused_modules_get_one_adapter():
    """GPT-2's c_attn is one 768 -> 2304 matrix: one adapter, not three; peft's c_proj matches both c_proj."""
    gpt2 = lc.get_preset("gpt2")
    assert lc.lora_model_params(gpt2, 4, ["c_attn"]) == 12 * 4 * (768 + 2304)
    assert lc.lora_model_params(gpt2, 1, ["c_proj"]) == 12 * ((768 + 768) + (3072 + 768))
    with pytest.raises(ValueError, match=r"target 'q' matches no module .*\(it fuses 'q' into 'attn\.c_attn'"):
        lc.lora_model_params(gpt2, 8, ["q", "v"])


def test_mixtral_all_linear_as_peft_0_21_converts_stacked_experts():
    """Router r(d+E); gate_up with rank 2r over E experts: 2rE(d + 2f); down rE(f + d); per MoE layer."""
    mixtral = lc.get_preset("mixtral-8x7b")
    d, f, experts, r = 4096, 14336, 8, 16
    attention = (d + d) + 2 * (d + 1024) + (d + d)
    moe = r * (d + experts) + 2 * r * experts * (d + 2 * f) + r * experts * (f + d)
    assert lc.lora_model_params(mixtral, r, "all-linear") == 32 * (r * attention + moe)
    with pytest.raises(ValueError, match=r"targets \['w1'\] need \['w1', 'w3'\] together"):
        lc.lora_model_params(mixtral, r, ["w1"])


def test_all_linear_on_an_moe_needs_its_model_type():
    import dataclasses

    anonymous = dataclasses.replace(lc.get_preset("mixtral-8x7b"), model_type="")
    with pytest.raises(ValueError, match="'all-linear' on a mixture of experts depends on the model_type in peft"):
        lc.lora_model_params(anonymous, 8, "all-linear")


def test_lora_model_share():
    cfg = lc.get_preset("llama-2-7b")
    assert lc.lora_model_share(cfg, 8) == 4_194_304 / 6_738_415_616


@pytest.mark.parametrize("targets, error, message", [
    ([], ValueError, "non-empty sequence of module names"),
    (["q", 3], TypeError, r"targets must hold module names \(str\); got 3"),
    (5, TypeError, r"targets must be 'all-linear' or a sequence of module names; got 5"),
    (["gate_proj", "lm_head2"], ValueError, "target 'lm_head2' matches no module of this model; adaptable modules: "),
])
def test_bad_targets(targets, error, message):
    with pytest.raises(error, match=message):
        lc.lora_model_params(lc.REFERENCE, 8, targets)
