"""Neural-network math against explicit, loop-based or closed-form references."""

import math

import numpy as np
import pytest

import llmcalc as lc

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
    np.testing.assert_allclose(lc.softmax(np.array(logits), temperature=temperature), expected, atol=1e-15)


def test_softmax_axis_and_batch():
    z = RNG.normal(size=(3, 5))
    by_rows = lc.softmax(z, axis=0)
    np.testing.assert_allclose(by_rows.sum(axis=0), np.ones(5))
    np.testing.assert_allclose(by_rows, np.exp(z) / np.exp(z).sum(axis=0, keepdims=True))


@pytest.mark.parametrize("n", [1, 2, 5])
def test_causal_mask(n):
    expected = [[j <= i for j in range(n)] for i in range(n)]
    assert lc.causal_mask(n).tolist() == expected


@pytest.mark.parametrize("head_dim, expected", [(64, 0.125), (128, 1 / math.sqrt(128)), (1, 1.0)])
def test_attention_scale(head_dim, expected):
    assert lc.attention_scale(head_dim) == pytest.approx(expected, rel=1e-15)


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
    out, weights = lc.scaled_dot_product_attention(q, k, v, causal=causal)
    np.testing.assert_allclose(out, _loop_attention(q, k, v, causal), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    if causal:
        assert not weights[np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)].any()


def test_attention_batches_over_heads():
    q, k, v = RNG.normal(size=(2, 3, 4, 8)), RNG.normal(size=(2, 3, 4, 8)), RNG.normal(size=(2, 3, 4, 8))
    out, _ = lc.scaled_dot_product_attention(q, k, v, causal=True)
    for b in range(2):
        for h in range(3):
            np.testing.assert_allclose(out[b, h], _loop_attention(q[b, h], k[b, h], v[b, h], True), atol=1e-12)


def _complex_rope(x, positions, base):
    d = x.shape[-1]
    z = x[..., 0::2] + 1j * x[..., 1::2]
    freqs = base ** (-np.arange(0, d, 2) / d)
    rotated = z * np.exp(1j * np.asarray(positions)[:, None] * freqs)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = rotated.real, rotated.imag
    return out


@pytest.mark.parametrize("seq, d, base", [(1, 2, 10000.0), (7, 8, 10000.0), (16, 64, 500000.0)])
def test_rope_matches_complex_multiplication(seq, d, base):
    x = RNG.normal(size=(seq, d))
    positions = np.arange(seq) * 3
    np.testing.assert_allclose(lc.rope_rotate(x, positions, base=base), _complex_rope(x, positions, base), atol=1e-12)


def test_rope_keeps_norms_and_depends_on_relative_position():
    q, k = RNG.normal(size=(1, 16)), RNG.normal(size=(1, 16))
    assert np.linalg.norm(lc.rope_rotate(q, [37])) == pytest.approx(np.linalg.norm(q))
    scores = [(lc.rope_rotate(q, [m + 4]) @ lc.rope_rotate(k, [m]).T).item() for m in (0, 10, 1000)]
    np.testing.assert_allclose(scores, scores[0], rtol=1e-9)


def test_rope_position_zero_is_identity():
    x = RNG.normal(size=(3, 8))
    np.testing.assert_array_equal(lc.rope_rotate(x, [0, 0, 0]), x)


@pytest.mark.parametrize("vocab", [2, 1000, 32768, 128256])
def test_uniform_logits_give_ln_vocab(vocab):
    assert lc.cross_entropy(np.zeros(vocab), 0) == pytest.approx(math.log(vocab), rel=1e-12)
    assert lc.initial_loss(vocab) == pytest.approx(math.log(vocab), rel=1e-15)
    assert lc.perplexity(lc.initial_loss(vocab)) == pytest.approx(vocab, rel=1e-12)


def test_cross_entropy_batch_is_mean_of_rows():
    logits = RNG.normal(size=(4, 6))
    target = np.array([0, 5, 2, 2])
    rows = [-math.log(math.exp(logits[i, t]) / np.exp(logits[i]).sum()) for i, t in enumerate(target)]
    assert lc.cross_entropy(logits, target) == pytest.approx(sum(rows) / 4, rel=1e-12)


@pytest.mark.parametrize("loss, expected", [(0.0, 1.0), (1.0, math.e), (math.log(50), 50.0)])
def test_perplexity(loss, expected):
    assert lc.perplexity(loss) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("logits, target", [
    (np.array([1.0, 2.0, 0.0]), 0),
    (np.array([[0.5, -1.0, 2.0, 0.0], [3.0, 3.0, -2.0, 1.0]]), np.array([2, 1])),
    (RNG.normal(size=(2, 3, 5)), np.array([[0, 4, 2], [1, 1, 3]])),
])
def test_cross_entropy_gradient_matches_finite_differences(logits, target):
    analytic = lc.cross_entropy_gradient(logits, target)
    numeric = np.zeros_like(logits)
    h = 1e-6
    for index in np.ndindex(logits.shape):
        up, down = logits.copy(), logits.copy()
        up[index] += h
        down[index] -= h
        numeric[index] = (lc.cross_entropy(up, target) - lc.cross_entropy(down, target)) / (2 * h)
    np.testing.assert_allclose(analytic, numeric, atol=1e-8)


def test_cross_entropy_gradient_single_position_is_probs_minus_one_hot():
    logits = np.array([1.0, 2.0, 0.0])
    expected = np.exp(logits) / np.exp(logits).sum() - np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(lc.cross_entropy_gradient(logits, 0), expected, rtol=1e-14)


def test_cross_entropy_gradient_rejects():
    with pytest.raises(ValueError, match=r"target must be an integer in \[0, 2\]; got 3"):
        lc.cross_entropy_gradient(np.zeros(3), 3)
    with pytest.raises(ValueError, match=r"target must have shape \(2,\)"):
        lc.cross_entropy_gradient(np.zeros((2, 3)), 1)


# Activations against their textbook definitions, evaluated one scalar at a time with the math module.
ACTIVATION_POINTS = [-30.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 30.0]


@pytest.mark.parametrize("x", ACTIVATION_POINTS)
def test_sigmoid_silu_gelu_definitions(x):
    logistic = 1 / (1 + math.exp(-x))
    assert lc.sigmoid(x) == pytest.approx(logistic, rel=1e-15, abs=1e-300)
    assert lc.silu(x) == pytest.approx(x * logistic, rel=1e-15, abs=1e-300)
    assert lc.gelu(x) == pytest.approx(0.5 * x * (1 + math.erf(x / math.sqrt(2))), rel=1e-15, abs=1e-300)
    tanh_form = 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert lc.gelu(x, approximate="tanh") == pytest.approx(tanh_form, rel=1e-15, abs=1e-300)


@pytest.mark.parametrize("x, expected", [
    (1.0, 0.8413447460685429),     # Phi(1) from normal tables
    (-1.0, -0.15865525393145707),
    (2.0, 2 * 0.9772498680518208),
])
def test_gelu_exact_is_x_times_normal_cdf(x, expected):
    assert lc.gelu(x) == pytest.approx(expected, rel=1e-14)


def test_gelu_tanh_approximation_stays_close():
    x = np.linspace(-6, 6, 2001)
    assert np.abs(lc.gelu(x) - lc.gelu(x, approximate="tanh")).max() < 1e-3


def test_sigmoid_is_two_way_softmax_and_saturates_cleanly():
    x = np.array([-3.0, 0.25, 4.0])
    np.testing.assert_allclose(lc.sigmoid(x), [lc.softmax(np.array([v, 0.0]))[0] for v in x], rtol=1e-15)
    assert lc.sigmoid(-800.0) == 0.0 and lc.sigmoid(800.0) == 1.0


@pytest.mark.parametrize("x, expected", [
    (np.array([-2, 0, 3]), np.array([0, 0, 3])),
    (np.array([-1.5, 0.0, 2.5]), np.array([0.0, 0.0, 2.5])),
    (-4, 0),
    (7, 7),
    (-0.25, 0.0),
])
def test_relu(x, expected):
    result = lc.relu(x)
    np.testing.assert_array_equal(result, expected)
    assert np.asarray(result).dtype.kind == np.asarray(expected).dtype.kind


@pytest.mark.parametrize("x, expected", [
    ([1.0, 2.0, 3.0], [-math.sqrt(1.5), 0.0, math.sqrt(1.5)]),   # population std sqrt(2/3)
    ([5.0, 5.0, 5.0, 9.0], [-1 / math.sqrt(3)] * 3 + [math.sqrt(3)]),
])
def test_layer_norm(x, expected):
    np.testing.assert_allclose(lc.layer_norm(np.array(x), eps=0.0), expected, rtol=1e-14, atol=1e-15)


def test_layer_norm_eps_and_batches():
    x = np.array([[1.0, 3.0], [2.0, 2.0]])
    np.testing.assert_allclose(lc.layer_norm(x, eps=1.0), [[-1 / math.sqrt(2), 1 / math.sqrt(2)], [0.0, 0.0]])
    with pytest.raises(ValueError, match="layer_norm with eps=0 needs features that are not all equal"):
        lc.layer_norm(x, eps=0.0)


@pytest.mark.parametrize("x, eps, expected", [
    ([1.0, 2.0, 3.0], 0.0, [1 / math.sqrt(14 / 3), 2 / math.sqrt(14 / 3), 3 / math.sqrt(14 / 3)]),
    ([3.0, -4.0], 0.0, [3 / math.sqrt(12.5), -4 / math.sqrt(12.5)]),
    ([1.0, 1.0], 3.0, [0.5, 0.5]),                 # sqrt(1 + 3) = 2
    ([1e200, 1e200], 0.0, [1.0, 1.0]),             # squares would overflow without rescaling
])
def test_rms_norm(x, eps, expected):
    np.testing.assert_allclose(lc.rms_norm(np.array(x), eps=eps), expected, rtol=1e-14)


@pytest.mark.parametrize("n, window", [(1, 1), (5, 1), (6, 3), (4, 4), (4, 9)])
def test_sliding_window_mask(n, window):
    expected = [[i - window < j <= i for j in range(n)] for i in range(n)]
    assert lc.sliding_window_mask(n, window).tolist() == expected


def test_rope_wavelengths_match_rotation_speed():
    wavelengths = lc.rope_wavelengths(8, base=10000.0)
    np.testing.assert_allclose(wavelengths, [2 * math.pi * 10000 ** (i / 8) for i in (0, 2, 4, 6)], rtol=1e-15)
    # After one full wavelength every pair is back where it started.
    x = np.ones((1, 8))
    for pair, wavelength in enumerate(wavelengths):
        turned = lc.rope_rotate(x, [wavelength])
        np.testing.assert_allclose(turned[0, 2 * pair:2 * pair + 2], [1.0, 1.0], atol=1e-9)


@pytest.mark.parametrize("p, q, expected", [
    ([0.9, 0.1], [0.5, 0.5], 0.9 * math.log(1.8) + 0.1 * math.log(0.2)),
    ([0.5, 0.5], [0.9, 0.1], 0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(5.0)),
    ([1.0, 0.0], [0.25, 0.75], math.log(4)),       # p_i = 0 terms vanish
    ([0.2, 0.3, 0.5], [0.2, 0.3, 0.5], 0.0),
])
def test_kl_divergence(p, q, expected):
    assert lc.kl_divergence(np.array(p), np.array(q)) == pytest.approx(expected, rel=1e-14, abs=1e-15)


def test_kl_divergence_batches_and_refuses_infinite():
    p = np.array([[0.9, 0.1], [0.5, 0.5]])
    expected = [0.9 * math.log(1.8) + 0.1 * math.log(0.2), 0.0]
    np.testing.assert_allclose(lc.kl_divergence(p, np.array([0.5, 0.5])), expected, atol=1e-15)
    with pytest.raises(ValueError, match=r"KL\(p \|\| q\) is infinite: q is 0 where p is 0\.5 \(at index 1\)"):
        lc.kl_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match=r"q must sum to 1 along the last axis"):
        lc.kl_divergence(np.array([0.5, 0.5]), np.array([0.5, 0.6]))
