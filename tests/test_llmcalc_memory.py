"""Byte counts: weights, KV cache, training state, decode bound."""

import numpy as np
import pytest

import llmcalc as lc

BYTES_PER_VALUE = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1, "int4": 0.5, "nf4": 0.5}


def test_dtype_table():
    assert dict(lc.DTYPE_BYTES) == BYTES_PER_VALUE


@pytest.mark.parametrize("n_params, dtype, expected", [
    (6_738_415_616, "fp32", 26_953_662_464),
    (6_738_415_616, "bf16", 13_476_831_232),
    (6_738_415_616, "int8", 6_738_415_616),
    (6_738_415_616, "nf4", 3_369_207_808),
    (7, "int4", 4),          # 3.5 bytes of nibbles -> 4 whole bytes
    (0, "fp16", 0),
    (10**12, "bf16", 2 * 10**12),
    (10**15, "fp32", 4 * 10**15),
])
def test_weight_bytes(n_params, dtype, expected):
    result = lc.weight_bytes(n_params, dtype)
    assert result == expected and type(result) is int


def test_weight_bytes_broadcasts():
    result = lc.weight_bytes(np.array([1, 2, 3, 10**12]), "int4")
    assert result.dtype == np.int64
    assert result.tolist() == [1, 1, 2, 5 * 10**11]


def _kv_formula(layers, kv_heads, head_dim, bytes_per_value, tokens, batch=1):
    return int(2 * layers * kv_heads * head_dim * bytes_per_value * tokens * batch)


# (preset, layers, kv heads, head dim) written out from the published configs.
KV_SHAPES = [
    ("reference", 20, 2, 64),
    ("gpt2", 12, 12, 64),
    ("llama-2-7b", 32, 32, 128),
    ("llama-2-70b", 80, 8, 128),
    ("llama-3-8b", 32, 8, 128),
    ("mistral-7b", 32, 8, 128),
    ("qwen2.5-0.5b", 24, 2, 64),
    ("mixtral-8x7b", 32, 8, 128),
    ("phi-2", 32, 32, 80),
]


@pytest.mark.parametrize("name, layers, kv_heads, head_dim", KV_SHAPES)
@pytest.mark.parametrize("dtype", list(BYTES_PER_VALUE))
@pytest.mark.parametrize("tokens, batch", [(1, 1), (4096, 1), (32768, 8), (1_000_000, 64)])
def test_kv_cache_matches_formula(name, layers, kv_heads, head_dim, dtype, tokens, batch):
    expected = _kv_formula(layers, kv_heads, head_dim, BYTES_PER_VALUE[dtype], tokens, batch)
    result = lc.kv_cache_bytes(lc.get_preset(name), tokens, batch=batch, dtype=dtype)
    assert result == expected and type(result) is int


@pytest.mark.parametrize("name, gib_at_4k", [
    ("llama-2-7b", 2.0),      # MHA: 32 KV heads
    ("llama-3-8b", 0.5),      # GQA: 8 KV heads -> 4x smaller
    ("llama-2-70b", 1.25),    # 80 layers, 8 KV heads
])
def test_kv_cache_published_sizes(name, gib_at_4k):
    assert lc.kv_cache_bytes(lc.get_preset(name), 4096) / lc.GiB == gib_at_4k


def test_kv_cache_sweep_broadcasts():
    cfg = lc.get_preset("mistral-7b")
    tokens = np.array([[1024], [2048]])
    batch = np.array([1, 2, 4])
    result = lc.kv_cache_bytes(cfg, tokens, batch=batch)
    per_token = 2 * 32 * 8 * 128 * 2
    assert result.shape == (2, 3) and result.dtype == np.int64
    assert result.tolist() == [[per_token * t * b for b in (1, 2, 4)] for t in (1024, 2048)]


def test_kv_cache_zero_tokens():
    assert lc.kv_cache_bytes(lc.REFERENCE, 0) == 0


def test_kv_cache_overflow_refused_for_arrays_but_exact_for_scalars():
    cfg = lc.get_preset("llama-2-70b")
    huge = 10**15
    assert lc.kv_cache_bytes(cfg, huge, batch=10**6) == 327680 * huge * 10**6
    with pytest.raises(ValueError, match="kv_cache_bytes would exceed the int64 range"):
        lc.kv_cache_bytes(cfg, np.array([huge]), batch=10**6)


@pytest.mark.parametrize("optimizer, precision, parts", [
    ("adamw", "mixed", dict(weights=2, gradients=2, optimizer_states=8, master_weights=4)),
    ("adam", "mixed", dict(weights=2, gradients=2, optimizer_states=8, master_weights=4)),
    ("adamw", "fp32", dict(weights=4, gradients=4, optimizer_states=8, master_weights=0)),
    ("adamw", "bf16", dict(weights=2, gradients=2, optimizer_states=4, master_weights=0)),
    ("adamw-8bit", "mixed", dict(weights=2, gradients=2, optimizer_states=2, master_weights=4)),
    ("sgd", "fp32", dict(weights=4, gradients=4, optimizer_states=0, master_weights=0)),
    ("sgd-momentum", "mixed", dict(weights=2, gradients=2, optimizer_states=4, master_weights=4)),
    ("lion", "bf16", dict(weights=2, gradients=2, optimizer_states=2, master_weights=0)),
])
def test_training_memory_per_parameter(optimizer, precision, parts):
    n = 7_000_000_001
    result = lc.training_memory(n, optimizer, precision)
    assert result == {key: value * n for key, value in parts.items()}
    assert lc.training_bytes_per_param(optimizer, precision) == sum(parts.values())


def test_adamw_mixed_is_sixteen_bytes_per_param():
    assert lc.training_bytes_per_param() == 16
    assert sum(lc.training_memory(10**9).values()) == 16 * 10**9


def test_training_memory_broadcasts():
    result = lc.training_memory(np.array([10, 20]))
    assert result["optimizer_states"].tolist() == [80, 160]


@pytest.mark.parametrize("weights, bandwidth, kv, expected", [
    (14e9, 1e12, 0, 1e12 / 14e9),
    (4e9, 1e12, 1e9, 200.0),
    (np.array([1e9, 2e9]), 100e9, 0, np.array([100.0, 50.0])),
])
def test_decode_bound(weights, bandwidth, kv, expected):
    np.testing.assert_allclose(lc.decode_tokens_per_second_bound(weights, bandwidth, kv_cache_bytes=kv), expected)


def test_decode_bound_scalar_is_python_float():
    assert type(lc.decode_tokens_per_second_bound(1, 2)) is float


def test_units():
    assert (lc.KB, lc.MB, lc.GB, lc.TB) == (1000, 1000**2, 1000**3, 1000**4)
    assert (lc.KiB, lc.MiB, lc.GiB, lc.TiB) == (1024, 1024**2, 1024**3, 1024**4)


@pytest.mark.parametrize("n_params, bits, expected", [
    (7_000_000_000, 4.5, 3_937_500_000.0),
    (64, 0.5, 4.0),
    (6_738_415_616, 0.5, 421_150_976.0),          # QLoRA's fp32 scale per 64 weights on Llama-2-7B
    (1_000, 16, 2_000.0),
    (0, 8.5, 0.0),
])
def test_weight_bytes_at_bits(n_params, bits, expected):
    assert lc.weight_bytes_at_bits(n_params, bits) == pytest.approx(expected, rel=1e-15)


def test_weight_bytes_at_bits_agrees_with_weight_bytes_for_whole_dtypes():
    for dtype, bits in lc.DTYPE_BITS.items():
        assert lc.weight_bytes_at_bits(1_000_000, bits) == lc.weight_bytes(1_000_000, dtype)


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


def test_zero_memory_one_gpu_is_plain_training_and_arrays_broadcast():
    for stage in lc.ZERO_STAGES:
        assert lc.zero_memory_per_gpu(1_000, stage, 1, "sgd", "fp32") == lc.training_memory(1_000, "sgd", "fp32")
    parts = lc.zero_memory_per_gpu(80, 2, np.array([1, 2, 8]))
    assert parts["weights"].tolist() == [160, 160, 160]
    assert parts["gradients"].tolist() == [160, 80, 20]
