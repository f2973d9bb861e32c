"""Compute estimates: 2N, 6ND, Chinchilla 20 tokens/param, effective batch size."""

import numpy as np
import pytest

import llmcalc as lc


@pytest.mark.parametrize("n, d, expected", [
    (1e9, 1e12, 6e21),
    (70e9, 1.4e12, 5.88e23),          # Chinchilla-70B budget
    (175e9, 300e9, 3.15e23),          # GPT-3 budget as published
])
def test_training_flops(n, d, expected):
    assert lc.training_flops(n, d) == pytest.approx(expected, rel=1e-12)


def test_forward_flops():
    assert lc.forward_flops_per_token(7e9) == 1.4e10
    assert lc.forward_flops_per_token(np.array([1, 2])).tolist() == [2.0, 4.0]


@pytest.mark.parametrize("n, ratio, expected", [
    (70e9, 20, 1.4e12),               # Chinchilla itself: 70B params, 1.4T tokens
    (179_594_880, 20, 3_591_897_600.0),
    (1e9, 100, 1e11),
])
def test_chinchilla_tokens(n, ratio, expected):
    assert lc.chinchilla_tokens(n, ratio) == pytest.approx(expected, rel=1e-15)


def test_chinchilla_default_is_twenty():
    assert lc.chinchilla_tokens(1e9) == 2e10


@pytest.mark.parametrize("micro, accum, dp, seq, expected", [
    (1, 1, 1, None, 1),
    (4, 8, 2, None, 64),
    (4, 8, 2, 2048, 131072),
    (8, 16, 64, 4096, 8 * 16 * 64 * 4096),
])
def test_effective_batch_size(micro, accum, dp, seq, expected):
    result = lc.effective_batch_size(micro, accum, dp, seq_len=seq)
    assert result == expected and type(result) is int


def test_effective_batch_size_broadcasts():
    assert lc.effective_batch_size(np.array([1, 2, 4]), 8, seq_len=1024).tolist() == [8192, 16384, 32768]


def test_scalar_results_are_python_floats():
    assert type(lc.training_flops(1, 1)) is float
    assert type(lc.chinchilla_tokens(1)) is float


@pytest.mark.parametrize("m, k, n, expected", [
    (4096, 4096, 4096, 2 * 4096**3),
    (1, 1, 1, 2),
    (2, 3, 4, 48),                     # 8 outputs, each 3 multiplies + 3 adds
    (10**6, 10**6, 10**6, 2 * 10**18),  # exact beyond float64 for Python ints
])
def test_matmul_flops(m, k, n, expected):
    result = lc.matmul_flops(m, k, n)
    assert result == expected and type(result) is int


def test_matmul_flops_counts_multiply_adds_of_a_real_product():
    a, b = np.ones((3, 5)), np.ones((5, 2))
    multiplies = a.shape[0] * b.shape[1] * a.shape[1]
    assert lc.matmul_flops(3, 5, 2) == 2 * multiplies
    assert lc.matmul_flops(np.array([1, 2]), 5, 2).tolist() == [20, 40]


@pytest.mark.parametrize("m, k, n, size, expected", [
    (4096, 4096, 4096, 2, 4096 / 3),            # square: n/3 at 2 bytes
    (4096, 4096, 1, 2, 4096 / (4096 + 2)),       # matrix-vector: about 1
    (1024, 1024, 1024, 4, 1024 / 6),
    (8, 8, 8, 1, 2 * 512 / 192),
])
def test_matmul_arithmetic_intensity(m, k, n, size, expected):
    assert lc.matmul_arithmetic_intensity(m, k, n, size) == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("n, tps, peak, expected", [
    (179_594_880, 100_000, 300e12, 6 * 179_594_880 * 100_000 / 300e12),
    (175e9, 1.0, 1.05e12, 1.0),                  # 6 * 175e9 FLOPs per token = peak
    (1e9, 0.0, 1e12, 0.0),
])
def test_model_flops_utilization(n, tps, peak, expected):
    assert lc.model_flops_utilization(n, tps, peak) == pytest.approx(expected, rel=1e-14)
    if tps:
        assert lc.model_flops_utilization(n, tps, peak) == pytest.approx(lc.training_flops(n, tps) / peak, rel=1e-14)


@pytest.mark.parametrize("call, error, message", [
    (lambda: lc.matmul_flops(0, 4, 4), ValueError, r"m must be an integer >= 1; got 0"),
    (lambda: lc.matmul_flops(np.array([2**40]), 2**20, 2**10), ValueError, r"matmul_flops would exceed the int64 range"),
    (lambda: lc.matmul_arithmetic_intensity(4, 4, 4, 0), ValueError, r"bytes_per_value must be a finite number > 0; got 0\.0"),
    (lambda: lc.model_flops_utilization(1e9, -1, 1e12), ValueError, r"tokens_per_second must be a finite number >= 0; got -1\.0"),
    (lambda: lc.model_flops_utilization(1e9, 1, 0), ValueError, r"peak_flops_per_s must be a finite number > 0; got 0\.0"),
])
def test_new_compute_functions_reject(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("flops, rate, gpus, expected", [
    (3.6e15, 1e12, 1, 3600.0),           # one hour at one TFLOPS
    (3.6e15, 1e12, 8, 450.0),
    (0.0, 1e12, 4, 0.0),
    (5.88e21, 400e12, 1, 5.88e21 / 4e14),
])
def test_training_seconds(flops, rate, gpus, expected):
    assert lc.training_seconds(flops, rate, n_gpus=gpus) == pytest.approx(expected, rel=1e-15)
