"""Memory footprints against hand derivations and published figures.

The KV cache is also checked against transformers' real caches in ``test_llmcalc_hf.py``.
"""

import dataclasses

import pytest

import llmcalc as lc


@pytest.mark.parametrize("n_params, dtype, expected", [
    (6_738_415_616, "bf16", 13_476_831_232),
    (6_738_415_616, "fp32", 26_953_662_464),
    (7, "int4", 4),        # seven 4-bit values need four bytes: the last one is half used
    (8, "nf4", 4),
    (0, "fp8", 0),
    (10**15, "int8", 10**15),
])
def test_weight_bytes(n_params, dtype, expected):
    assert lc.weight_bytes(n_params, dtype) == expected


# Published per-token KV sizes: 2 (K and V) x layers x KV heads x head size x 2 bytes (bf16).
@pytest.mark.parametrize("name, per_token", [
    ("llama-2-7b", 2 * 32 * 32 * 128 * 2),      # 512 KiB: the figure quoted for Llama 2 7B
    ("llama-2-70b", 2 * 80 * 8 * 128 * 2),       # GQA: 320 KiB, 8 KV heads instead of 64
    ("llama-3-8b", 2 * 32 * 8 * 128 * 2),        # 128 KiB
    ("reference", 2 * 20 * 2 * 64 * 2),          # 10 KiB, the glossary's worked figure
])
def test_kv_cache_per_token(name, per_token):
    cfg = lc.get_preset(name)
    assert lc.kv_cache_bytes_per_token(cfg) == per_token
    assert lc.kv_cache_bytes(cfg, 4096, batch=3) == 3 * 4096 * per_token
    assert lc.kv_cache_bytes(cfg, 0) == 0


def test_latent_attention_caches_the_latent():
    """DeepSeek-V2 (paper, section 2.1.2): (d_c + d_h^R) * l = (512 + 64) * 60 values per token, not per head."""
    cfg = lc.ModelConfig(vocab_size=102400, d_model=5120, n_layers=60, n_heads=128, head_dim=192, d_ff=12288,
                         q_lora_rank=1536, kv_lora_rank=512, rope_head_dim=64, v_head_dim=128)
    assert lc.kv_cache_bytes_per_token(cfg, "bf16") == (512 + 64) * 60 * 2
    as_mha = lc.ModelConfig(vocab_size=102400, d_model=5120, n_layers=60, n_heads=128, head_dim=192, d_ff=12288)
    assert lc.kv_cache_bytes_per_token(as_mha) // lc.kv_cache_bytes_per_token(cfg) == 85  # 2*128*192 / 576


def test_sliding_window_layers_stop_growing():
    """Two of four layers keep at most W - 1 = 7 tokens; the others keep everything."""
    cfg = dataclasses.replace(lc.REFERENCE, n_layers=4, sliding_window=8, sliding_window_layers=2)
    per_layer_token = 2 * 2 * 64 * 2
    for tokens, cached in [(5, 4 * 5), (7, 4 * 7), (8, 2 * 8 + 2 * 7), (1000, 2 * 1000 + 2 * 7)]:
        assert lc.kv_cache_bytes(cfg, tokens) == cached * per_layer_token, tokens


@pytest.mark.parametrize("optimizer, precision, parts", [
    ("adamw", "mixed", dict(weights=2, gradients=2, optimizer_states=8, master_weights=4)),
    ("adamw", "fp32", dict(weights=4, gradients=4, optimizer_states=8, master_weights=0)),
    ("adamw", "bf16", dict(weights=2, gradients=2, optimizer_states=4, master_weights=0)),
    ("adamw-8bit", "mixed", dict(weights=2, gradients=2, optimizer_states=2, master_weights=4)),
    ("sgd", "fp32", dict(weights=4, gradients=4, optimizer_states=0, master_weights=0)),
    ("sgd-momentum", "mixed", dict(weights=2, gradients=2, optimizer_states=4, master_weights=4)),
    ("lion", "bf16", dict(weights=2, gradients=2, optimizer_states=2, master_weights=0)),
])
def test_training_memory_per_parameter(optimizer, precision, parts):
    n = 7_000_000_001
    assert lc.training_memory(n, optimizer, precision) == {key: value * n for key, value in parts.items()}


# ZeRO paper (Rajbhandari et al., 2020), Figure 1: 7.5B parameters, mixed-precision Adam (K = 12), 64 GPUs:
# 120 GB, 31.4 GB, 16.6 GB and 1.9 GB per GPU for the baseline and stages 1, 2 and 3.
@pytest.mark.parametrize("stage, expected_gb", [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_memory_matches_the_paper(stage, expected_gb):
    per_gpu = sum(lc.zero_memory_per_gpu(7_500_000_000, stage, 64).values())
    assert round(per_gpu / lc.GB, 1) == expected_gb


@pytest.mark.parametrize("stage, expected", [
    (0, {"weights": 2 * 10, "gradients": 2 * 10, "optimizer_states": 8 * 10, "master_weights": 4 * 10}),
    (1, {"weights": 2 * 10, "gradients": 2 * 10, "optimizer_states": 8 * 3, "master_weights": 4 * 3}),   # ceil(10/4)
    (2, {"weights": 2 * 10, "gradients": 2 * 3, "optimizer_states": 8 * 3, "master_weights": 4 * 3}),
    (3, {"weights": 2 * 3, "gradients": 2 * 3, "optimizer_states": 8 * 3, "master_weights": 4 * 3}),
])
def test_zero_memory_parts_pad_uneven_shards(stage, expected):
    assert lc.zero_memory_per_gpu(10, stage, 4) == expected
