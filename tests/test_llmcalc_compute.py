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
