"""Softmax, masks, attention and RoPE against explicit loops and complex-number references."""

import math

import numpy as np
import pytest

from llmcalc.teach.attention import causal_mask, rope_rotate, scaled_dot_product_attention, softmax

RNG = np.random.default_rng(1234)


@pytest.mark.parametrize("logits, temperature, expected", [
    ([0.0, 0.0], 1.0, [0.5, 0.5]),
    ([math.log(3), 0.0], 1.0, [0.75, 0.25]),
    ([math.log(9), 0.0], 2.0, [0.75, 0.25]),           # T=2 halves the log-odds
    ([1.0, 0.0, -math.inf], 1.0, [math.e / (math.e + 1), 1 / (math.e + 1), 0.0]),
    ([1000.0, 999.0], 1.0, [math.e / (math.e + 1), 1 / (math.e + 1)]),
    ([2.0, 1.0, 0.0], 1e-3, [1.0, 0.0, 0.0]),
])
def test_softmax(logits, temperature, expected):
    np.testing.assert_allclose(softmax(np.array(logits), temperature=temperature), expected, atol=1e-15)


def test_softmax_along_another_axis():
    z = RNG.normal(size=(3, 5))
    np.testing.assert_allclose(softmax(z, axis=0), np.exp(z) / np.exp(z).sum(axis=0, keepdims=True))


@pytest.mark.parametrize("call, error, message", [
    (lambda: softmax(np.array([-math.inf, -math.inf])), ValueError, r"at least one finite entry"),
    (lambda: softmax(np.array([1.0, math.nan])), ValueError, r"logits must be a finite real array.*got nan"),
    (lambda: softmax(np.array([1.0]), temperature=0), ValueError, r"temperature must be a finite number > 0; got 0"),
    (lambda: softmax(np.zeros((2, 3)), axis=2), ValueError, r"axis must be an integer in \[-2, 1\]; got 2"),
    (lambda: causal_mask(0), ValueError, r"n must be an integer in \[1, 16384\]; got 0"),
    (lambda: scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 1))), ValueError,
     r"q and k must have the same last dimension"),
    (lambda: scaled_dot_product_attention(np.ones((3, 2)), np.ones((2, 2)), np.ones((2, 1)), causal=True),
     ValueError, r"at least as many keys as queries; got n_q=3, n_k=2"),
    (lambda: rope_rotate(np.ones((1, 3)), [0]), ValueError, r"x must have an even, non-zero last dimension"),
])
def test_bad_input_is_refused_with_a_message_naming_it(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("n", [1, 2, 5])
def test_causal_mask(n):
    assert causal_mask(n).tolist() == [[j <= i for j in range(n)] for i in range(n)]


def _loop_attention(q, k, v, causal):
    n_q, n_k = len(q), len(k)
    out = np.zeros((n_q, v.shape[1]))
    for i in range(n_q):
        limit = i + n_k - n_q if causal else n_k - 1
        scores = [float(q[i] @ k[j]) / math.sqrt(q.shape[1]) for j in range(limit + 1)]
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        total = sum(weights)
        for j, w in enumerate(weights):
            out[i] += w / total * v[j]
    return out


@pytest.mark.parametrize("n_q, n_k, d, d_v, causal", [
    (4, 4, 8, 8, False), (4, 4, 8, 3, True), (1, 6, 4, 4, True), (3, 6, 16, 2, True), (5, 2, 4, 4, False),
])
def test_attention_matches_loop(n_q, n_k, d, d_v, causal):
    q, k, v = RNG.normal(size=(n_q, d)), RNG.normal(size=(n_k, d)), RNG.normal(size=(n_k, d_v))
    out, weights = scaled_dot_product_attention(q, k, v, causal=causal)
    np.testing.assert_allclose(out, _loop_attention(q, k, v, causal), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    if causal:
        assert not weights[np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)].any()


def test_attention_batches_over_heads():
    q, k, v = RNG.normal(size=(2, 3, 4, 8)), RNG.normal(size=(2, 3, 4, 8)), RNG.normal(size=(2, 3, 4, 8))
    out, _ = scaled_dot_product_attention(q, k, v, causal=True)
    for b in range(2):
        for h in range(3):
            np.testing.assert_allclose(out[b, h], _loop_attention(q[b, h], k[b, h], v[b, h], True), atol=1e-12)


def _complex_rope(x, positions, base):
    d = x.shape[-1]
    z = x[..., 0::2] + 1j * x[..., 1::2]
    rotated = z * np.exp(1j * np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d))
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = rotated.real, rotated.imag
    return out


@pytest.mark.parametrize("seq, d, base", [(1, 2, 10000.0), (7, 8, 10000.0), (16, 64, 500000.0)])
def test_rope_matches_complex_multiplication(seq, d, base):
    x = RNG.normal(size=(seq, d))
    positions = np.arange(seq) * 3
    np.testing.assert_allclose(rope_rotate(x, positions, base=base), _complex_rope(x, positions, base), atol=1e-12)


def test_rope_keeps_norms_and_depends_on_relative_position():
    q, k = RNG.normal(size=(1, 16)), RNG.normal(size=(1, 16))
    assert np.linalg.norm(rope_rotate(q, [37])) == pytest.approx(np.linalg.norm(q))
    scores = [(rope_rotate(q, [m + 4]) @ rope_rotate(k, [m]).T).item() for m in (0, 10, 1000)]
    np.testing.assert_allclose(scores, scores[0], rtol=1e-9)
