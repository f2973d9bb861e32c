"""GQA/MLA cache ratios and speculative decoding expectations."""

import dataclasses

import numpy as np
import pytest

import llmcalc as lc


@pytest.mark.parametrize("heads, kv, expected", [(10, 2, 5.0), (32, 8, 4.0), (64, 8, 8.0), (32, 32, 1.0), (8, 1, 8.0)])
def test_gqa_reduction(heads, kv, expected):
    assert lc.gqa_cache_reduction(heads, kv) == expected


@pytest.mark.parametrize("name", ["reference", "llama-2-70b", "llama-3-8b", "qwen2.5-0.5b"])
def test_gqa_reduction_matches_kv_cache_ratio(name):
    cfg = lc.get_preset(name)
    mha = dataclasses.replace(cfg, n_kv_heads=cfg.n_heads)
    ratio = lc.kv_cache_bytes(mha, 1000) / lc.kv_cache_bytes(cfg, 1000)
    assert ratio == lc.gqa_cache_reduction(cfg.n_heads, cfg.n_kv_heads)


@pytest.mark.parametrize("heads, head_dim, latent, rope, expected", [
    (128, 128, 512, 64, 32768 / 576),   # DeepSeek-V2
    (10, 64, 128, 0, 10.0),
])
def test_mla_reduction(heads, head_dim, latent, rope, expected):
    assert lc.mla_cache_reduction(heads, head_dim, latent, rope_dim=rope) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("a, k, expected", [
    (0.0, 4, 1.0),
    (1.0, 4, 5.0),
    (0.5, 1, 1.5),
    (0.5, 3, 1 + 0.5 + 0.25 + 0.125),
    (0.8, 4, 1 + 0.8 + 0.64 + 0.512 + 0.4096),
])
def test_speculative_expected_tokens_is_geometric_sum(a, k, expected):
    assert lc.speculative_expected_tokens(a, k) == pytest.approx(expected, rel=1e-14)


def test_speculative_sweep():
    a = np.array([0.0, 0.5, 1.0])
    np.testing.assert_allclose(lc.speculative_expected_tokens(a, 2), [1.0, 1.75, 3.0])


@pytest.mark.parametrize("a, k, c, expected", [
    (0.8, 4, 0.0, 3.3616),
    (0.8, 4, 0.05, 3.3616 / 1.2),
    (1.0, 4, 0.25, 2.5),
    (0.0, 4, 0.25, 0.5),
])
def test_speculative_speedup(a, k, c, expected):
    assert lc.speculative_speedup(a, k, c) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("tokens, n_layers, window, n_global, expected", [
    (8192, 20, 512, 5, 5 * 8192 + 15 * 512),
    (8192, 20, None, 0, 20 * 8192),
    (300, 4, 512, 1, 4 * 300),            # context shorter than the window: no saving
    (0, 3, 16, 0, 0),
    (4096, 32, 4096, 0, 32 * 4096),       # Mistral-7B's 4k window at 4k context
])
def test_kv_cache_positions(tokens, n_layers, window, n_global, expected):
    assert lc.kv_cache_positions(tokens, n_layers=n_layers, window=window, n_global_layers=n_global) == expected
