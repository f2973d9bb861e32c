"""Serving arithmetic: latency, paged KV blocks and how many sequences fit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_llmcalc_properties import JUNK

import llmcalc as lc


@pytest.mark.parametrize("ttft, tpot, n, expected", [
    (0.2, 0.02, 101, 2.2),
    (0.5, 0.1, 1, 0.5),        # one token: only the TTFT
    (0.0, 0.05, 21, 1.0),
    (1.0, 0.0, 1000, 1.0),
])
def test_request_latency(ttft, tpot, n, expected):
    assert lc.request_latency(ttft, tpot, n) == pytest.approx(expected, rel=1e-14)


def test_request_latency_broadcasts():
    result = lc.request_latency(np.array([[0.1], [0.3]]), 0.02, np.array([1, 51]))
    np.testing.assert_allclose(result, [[0.1, 1.1], [0.3, 1.3]])


@pytest.mark.parametrize("tokens, block, blocks, idle", [
    (1000, 16, 63, 8),
    (0, 16, 0, 0),
    (1, 16, 1, 15),
    (16, 16, 1, 0),
    (17, 16, 2, 15),
    (4096, 32, 128, 0),
    (10**18 + 1, 10**18, 2, 10**18 - 1),   # exact for Python ints of any size
])
def test_paged_blocks_and_idle(tokens, block, blocks, idle):
    assert lc.paged_kv_blocks(tokens, block) == blocks
    assert lc.paged_kv_idle_slots(tokens, block) == idle


@settings(max_examples=300, deadline=None)
@given(tokens=st.integers(0, 10**6), block=st.integers(1, 1024))
def test_paged_blocks_cover_tokens_with_less_than_one_block_spare(tokens, block):
    blocks = lc.paged_kv_blocks(tokens, block)
    assert (blocks - 1) * block < tokens <= blocks * block or tokens == blocks == 0
    assert 0 <= lc.paged_kv_idle_slots(tokens, block) < block


def test_paged_blocks_array_matches_scalar():
    tokens = np.arange(0, 100)
    assert lc.paged_kv_blocks(tokens, 16).tolist() == [lc.paged_kv_blocks(int(t), 16) for t in tokens]
    assert lc.paged_kv_idle_slots(tokens, 16).tolist() == [lc.paged_kv_idle_slots(int(t), 16) for t in tokens]


def test_kv_cache_max_sequences_llama3():
    cfg = lc.get_preset("llama-3-8b")
    weights = lc.weight_bytes(lc.param_count(cfg), "bf16")
    per_sequence = 2 * 32 * 8 * 128 * 2 * 8192   # layers, KV heads, head_dim, bytes, tokens
    assert lc.kv_cache_max_sequences(cfg, 8192, 80 * lc.GB, reserved_bytes=weights) == (80 * 10**9 - weights) // per_sequence
    assert lc.kv_cache_max_sequences(cfg, 8192, 80 * lc.GB, reserved_bytes=weights) == 59


def test_kv_cache_max_sequences_dtype_and_arrays():
    cfg = lc.REFERENCE   # 10,240 bytes per token in bf16
    assert lc.kv_cache_max_sequences(cfg, 1000, 10_240_000) == 1
    assert lc.kv_cache_max_sequences(cfg, 1000, 10_239_999) == 0
    assert lc.kv_cache_max_sequences(cfg, 1000, 10_240_000, dtype="fp8") == 2
    assert lc.kv_cache_max_sequences(cfg, np.array([500, 1000, 2000]), 10_240_000).tolist() == [2, 1, 0]


@pytest.mark.parametrize("call, error, message", [
    (lambda: lc.request_latency(-0.1, 0.02, 10), ValueError, r"ttft must be a finite number >= 0; got -0\.1"),
    (lambda: lc.request_latency(0.1, 0.02, 0), ValueError, r"n_tokens must be an integer in \[1, .*\]; got 0"),
    (lambda: lc.request_latency(0.1, np.ones(2), np.ones(3, dtype=int)), ValueError, r"must broadcast together"),
    (lambda: lc.paged_kv_blocks(-1, 16), ValueError, r"tokens must be an integer >= 0; got -1"),
    (lambda: lc.paged_kv_blocks(10, 0), ValueError, r"block_size must be an integer >= 1; got 0"),
    (lambda: lc.paged_kv_blocks(10.0, 16), TypeError, r"tokens must be an integer >= 0; got 10\.0"),
    (lambda: lc.kv_cache_max_sequences(lc.REFERENCE, 0, 10**9), ValueError, r"tokens must be an integer >= 1"),
    (lambda: lc.kv_cache_max_sequences(lc.REFERENCE, 10, 10, reserved_bytes=11), ValueError,
     r"reserved_bytes must not exceed memory_bytes; got reserved_bytes=11, memory_bytes=10"),
    (lambda: lc.kv_cache_max_sequences("llama", 10, 10), TypeError, r"cfg must be a ModelConfig"),
])
def test_serving_rejects(call, error, message):
    with pytest.raises(error, match=message):
        call()


@settings(max_examples=400, deadline=None)
@given(a=JUNK, b=JUNK, which=st.integers(0, 5))
def test_serving_raises_only_value_or_type_errors(a, b, which):
    calls = [
        lambda: lc.request_latency(a, b, 10),
        lambda: lc.request_latency(0.1, a, b),
        lambda: lc.paged_kv_blocks(a, b),
        lambda: lc.paged_kv_idle_slots(a, b),
        lambda: lc.kv_cache_max_sequences(lc.REFERENCE, a, b),
        lambda: lc.kv_cache_max_sequences(lc.REFERENCE, 100, a, reserved_bytes=b),
    ]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            calls[which]()
        except (ValueError, TypeError):
            pass


def test_kv_cache_max_sequences_reports_huge_reserved_bytes():
    # Python ints beyond int64 once crashed the error message with an AttributeError.
    message = r"reserved_bytes must not exceed memory_bytes; got reserved_bytes=10{30}, memory_bytes=10{29}$"
    with pytest.raises(ValueError, match=message):
        lc.kv_cache_max_sequences(lc.REFERENCE, 100, 10**29, reserved_bytes=10**30)
