"""LoRA counts on single matrices and whole models (peft-verified cases are in test_llmcalc_presets)."""

import numpy as np
import pytest

import llmcalc as lc


@pytest.mark.parametrize("d_in, d_out, rank, expected", [
    (4096, 4096, 8, 8 * 8192),
    (4096, 11008, 16, 16 * 15104),
    (640, 128, 128, 128 * 768),
    (1, 1, 1, 2),
    (10**9, 10**9, 10**6, 2 * 10**15),
])
def test_lora_params(d_in, d_out, rank, expected):
    result = lc.lora_params(d_in, d_out, rank)
    assert result == expected and type(result) is int


def test_lora_params_rank_sweep_is_one_call():
    ranks = np.arange(1, 65)
    assert lc.lora_params(4096, 4096, ranks).tolist() == [r * 8192 for r in range(1, 65)]


def test_lora_params_broadcast_grid():
    result = lc.lora_params(np.array([[64], [128]]), 256, np.array([1, 8]))
    assert result.tolist() == [[320, 2560], [384, 3072]]


@pytest.mark.parametrize("d_in, d_out, rank, expected", [
    (4096, 4096, 8, 8 * 8192 / 4096**2),
    (640, 640, 64, 0.2),
    (100, 100, 50, 1.0),   # at half the size LoRA is as big as the matrix
])
def test_lora_share(d_in, d_out, rank, expected):
    assert lc.lora_share(d_in, d_out, rank) == pytest.approx(expected, rel=1e-12)


# Reference model per layer: q 640->640, k/v 640->128, o 640->640, gate/up 640->3072, down 3072->640.
@pytest.mark.parametrize("targets, per_layer_per_rank", [
    (("q",), 1280),
    (("q", "v"), 1280 + 768),
    (("k", "v"), 768 + 768),
    (("q", "k", "v", "o"), 1280 + 768 + 768 + 1280),
    (("gate", "up", "down"), 3 * 3712),
    ("all-linear", 1280 + 768 + 768 + 1280 + 3 * 3712),
    ("down", 3712),
])
def test_reference_model_targets(targets, per_layer_per_rank):
    assert lc.lora_model_params(lc.REFERENCE, 8, targets) == 20 * 8 * per_layer_per_rank


def test_moe_experts_each_get_an_adapter():
    cfg = lc.get_preset("mixtral-8x7b")
    assert lc.lora_model_params(cfg, 4, ("up",)) == 32 * 8 * 4 * (4096 + 14336)


def test_mlp_all_linear_has_no_gate():
    cfg = lc.get_preset("gpt2")
    assert lc.lora_model_params(cfg, 1, "all-linear") == 12 * (4 * 1536 + 2 * (768 + 3072))


def test_lora_model_params_rank_array():
    result = lc.lora_model_params(lc.get_preset("llama-2-7b"), np.array([8, 16]))
    assert result.dtype == np.int64
    assert result.tolist() == [4_194_304, 8_388_608]


def test_lora_model_share():
    cfg = lc.get_preset("llama-2-7b")
    assert lc.lora_model_share(cfg, 8) == pytest.approx(4_194_304 / 6_738_415_616)


@pytest.mark.parametrize("alpha, rank, rslora, expected", [
    (32, 16, False, 2.0),
    (16, 256, False, 0.0625),
    (16, 256, True, 1.0),
    (8, 2, True, 8 / 2**0.5),
])
def test_lora_scaling(alpha, rank, rslora, expected):
    assert lc.lora_scaling(alpha, rank, rslora=rslora) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("d_model, bottleneck, expected", [
    (640, 64, 640 * 64 + 64 + 64 * 640 + 640),
    (768, 64, 2 * 768 * 64 + 64 + 768),          # BERT-base adapter, Houlsby et al.
    (1, 1, 4),
])
def test_bottleneck_adapter_params(d_model, bottleneck, expected):
    assert lc.bottleneck_adapter_params(d_model, bottleneck) == expected


def test_adapter_and_prompt_counts_on_a_model():
    ref = lc.get_preset("reference")
    assert lc.bottleneck_adapter_model_params(ref, 64) == 20 * 2 * 82_624
    assert lc.bottleneck_adapter_model_params(ref, 64, adapters_per_layer=1) == 20 * 82_624
    assert lc.prompt_tuning_params(ref, 20) == 20 * 640
    assert lc.prefix_tuning_params(ref, 20) == 20 * 20 * 2 * 2 * 64     # 2 KV heads of 64 per layer
    llama = lc.get_preset("llama-2-7b")
    assert lc.prefix_tuning_params(llama, np.array([1, 10])).tolist() == [32 * 2 * 4096, 10 * 32 * 2 * 4096]
