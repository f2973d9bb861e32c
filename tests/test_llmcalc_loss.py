"""Cross-entropy, Adam and the cosine schedule against ln V, finite differences, the Adam paper and Hugging Face."""

import math

import numpy as np
import pytest

from llmcalc.teach.attention import softmax
from llmcalc.teach.loss import cross_entropy

RNG = np.random.default_rng(99)


@pytest.mark.parametrize("vocab", [2, 1000, 32768, 128256])
def test_uniform_logits_cost_ln_vocab(vocab):
    assert cross_entropy(np.zeros(vocab), 0) == pytest.approx(math.log(vocab), rel=1e-12)


def test_cross_entropy_of_a_batch_is_the_mean_of_its_rows():
    logits = RNG.normal(size=(3, 7)) * 50   # large logits: log-sum-exp must not overflow
    targets = np.array([0, 6, 3])
    rows = [-math.log(math.exp(row[t] - row.max()) / sum(math.exp(z - row.max()) for z in row))
            for row, t in zip(logits, targets, strict=True)]
    assert cross_entropy(logits, targets) == pytest.approx(sum(rows) / 3, rel=1e-12)


@pytest.mark.parametrize("logits, target", [
    (np.array([1.0, 2.0, 0.0]), 0),
    (np.array([0.5, -1.0, 2.0, 0.0]), 2),
])
def test_gradient_is_probabilities_minus_one_hot_by_finite_differences(logits, target):
    # The derivation page 04 shows: d loss / d logits = softmax(logits) - one_hot(target).
    h = 1e-6
    numeric = np.zeros_like(logits)
    for i in range(len(logits)):
        up, down = logits.copy(), logits.copy()
        up[i] += h
        down[i] -= h
        numeric[i] = (cross_entropy(up, target) - cross_entropy(down, target)) / (2 * h)
    np.testing.assert_allclose(numeric, softmax(logits) - np.eye(len(logits))[target], atol=1e-8)


@pytest.mark.parametrize("target, message", [
    (3, r"target must hold token ids in \[0, 2\]; got 3"),
    (1.0, r"target must hold integer token ids"),
    (np.array([0, 1]), r"target must have shape \(\)"),
])
def test_cross_entropy_refuses_bad_targets(target, message):
    with pytest.raises((ValueError, TypeError), match=message):
        cross_entropy(np.zeros(3), target)


def _adam_reference(grads_per_step, lr, beta1, beta2, eps):
    """Algorithm 1 of Kingma and Ba (2015), one scalar parameter, starting at 0."""
    theta, m, v = 0.0, 0.0, 0.0
    for t, g in enumerate(grads_per_step, start=1):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        theta = theta - lr * (m / (1 - beta1**t)) / (math.sqrt(v / (1 - beta2**t)) + eps)
    return theta, m, v
