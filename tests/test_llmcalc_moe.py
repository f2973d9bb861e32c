"""Mixture-of-experts routing helpers against the formulas of Switch Transformer and DeepSeek-V3."""

import numpy as np
import pytest

import llmcalc as lc


@pytest.mark.parametrize("shares, probabilities, expected", [
    ([0.25] * 4, [0.25] * 4, 1.0),                      # perfectly balanced: the minimum
    ([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], 4.0),  # collapsed onto one expert: n_experts
    ([0.5, 0.5], [0.9, 0.1], 2 * (0.45 + 0.05)),
    ([0.7, 0.2, 0.1], [0.2, 0.3, 0.5], 3 * (0.14 + 0.06 + 0.05)),
])
def test_load_balancing_loss(shares, probabilities, expected):
    assert lc.load_balancing_loss(np.array(shares), np.array(probabilities)) == pytest.approx(expected, rel=1e-14)


def test_load_balancing_loss_per_layer():
    layers = np.array([[0.25] * 4, [1.0, 0.0, 0.0, 0.0]])
    np.testing.assert_allclose(lc.load_balancing_loss(layers, layers), [1.0, 4.0])


@pytest.mark.parametrize("bias, load, rate, expected", [
    ([0.0, 0.0, 0.0, 0.0], [600, 240, 50, 110], 0.01, [-0.01, 0.01, 0.01, 0.01]),
    ([0.1, -0.2, 0.0], [2, 1, 0], 0.5, [-0.4, -0.2, 0.5]),     # the expert at the mean keeps its bias
    ([0.0, 0.0], [3, 3], 0.1, [0.0, 0.0]),                       # balanced: nothing moves
])
def test_expert_bias_update(bias, load, rate, expected):
    result = lc.expert_bias_update(np.array(bias), np.array(load), rate=rate)
    np.testing.assert_allclose(result, expected, rtol=1e-15)


def test_bias_updates_balance_a_skewed_router():
    rng = np.random.default_rng(0)
    scores = np.array([0.3, 0.2, 0.1, 0.1]) + 0.5 * rng.random((2000, 4))
    bias = np.zeros(4)

    def loads(b):
        return np.bincount(np.argmax(scores + b, axis=1), minlength=4) / len(scores)

    for _ in range(40):
        bias = lc.expert_bias_update(bias, loads(bias), rate=0.01)
    assert np.abs(loads(bias) - 0.25).max() < 0.05 < np.abs(loads(np.zeros(4)) - 0.25).max()


def test_moe_rejects():
    with pytest.raises(ValueError, match=r"token_share must hold shares in \[0, 1\]; got 1\.5 \(at index 0\)"):
        lc.load_balancing_loss(np.array([1.5, -0.5]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match=r"one entry per expert each; got shapes \(2,\) and \(3,\)"):
        lc.load_balancing_loss(np.array([0.5, 0.5]), np.array([0.2, 0.3, 0.5]))
    with pytest.raises(ValueError, match=r"expert_load must be >= 0"):
        lc.expert_bias_update(np.zeros(2), np.array([1, -1]), rate=0.1)
    with pytest.raises(ValueError, match=r"rate must be a finite number >= 0; got -0\.1"):
        lc.expert_bias_update(np.zeros(2), np.array([1, 1]), rate=-0.1)
