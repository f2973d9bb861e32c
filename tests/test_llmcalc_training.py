"""Cross-entropy, Adam and the cosine schedule against ln V, finite differences, the Adam paper and Hugging Face."""

import math

import numpy as np
import pytest

import llmcalc as lc

RNG = np.random.default_rng(99)


@pytest.mark.parametrize("vocab", [2, 1000, 32768, 128256])
def test_uniform_logits_cost_ln_vocab(vocab):
    assert lc.cross_entropy(np.zeros(vocab), 0) == pytest.approx(math.log(vocab), rel=1e-12)


def test_cross_entropy_of_a_batch_is_the_mean_of_its_rows():
    logits = RNG.normal(size=(3, 7)) * 50   # large logits: log-sum-exp must not overflow
    targets = np.array([0, 6, 3])
    rows = [-math.log(math.exp(row[t] - row.max()) / sum(math.exp(z - row.max()) for z in row))
            for row, t in zip(logits, targets, strict=True)]
    assert lc.cross_entropy(logits, targets) == pytest.approx(sum(rows) / 3, rel=1e-12)


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
        numeric[i] = (lc.cross_entropy(up, target) - lc.cross_entropy(down, target)) / (2 * h)
    np.testing.assert_allclose(numeric, lc.softmax(logits) - np.eye(len(logits))[target], atol=1e-8)


@pytest.mark.parametrize("target, message", [
    (3, r"target must hold token ids in \[0, 2\]; got 3"),
    (1.0, r"target must hold integer token ids"),
    (np.array([0, 1]), r"target must have shape \(\)"),
])
def test_cross_entropy_refuses_bad_targets(target, message):
    with pytest.raises((ValueError, TypeError), match=message):
        lc.cross_entropy(np.zeros(3), target)


def _adam_reference(grads_per_step, lr, beta1, beta2, eps):
    """Algorithm 1 of Kingma and Ba (2015), one scalar parameter, starting at 0."""
    theta, m, v = 0.0, 0.0, 0.0
    for t, g in enumerate(grads_per_step, start=1):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        theta = theta - lr * (m / (1 - beta1**t)) / (math.sqrt(v / (1 - beta2**t)) + eps)
    return theta, m, v


@pytest.mark.parametrize("grads", [[1.0], [100.0, 0.01, -3.0], [0.5] * 10, [1e-6, -1e-6, 2e-6, 0.0]])
def test_adam_matches_the_paper_over_several_steps(grads):
    theta, m, v = np.zeros(1), np.zeros(1), np.zeros(1)
    for t, g in enumerate(grads, start=1):
        update, m, v = lc.adam_update(np.array([g]), m, v, step=t, lr=1e-3)
        theta = theta - update
    expected = _adam_reference(grads, 1e-3, 0.9, 0.999, 1e-8)
    assert (theta.item(), m.item(), v.item()) == pytest.approx(expected, rel=1e-12, abs=1e-18)


def test_adam_first_step_is_lr_whatever_the_gradient_scale():
    update, m, v = lc.adam_update(np.array([100.0, 0.01, -5.0]), lr=1e-3)
    np.testing.assert_allclose(update, [1e-3, 1e-3, -1e-3], rtol=1e-5)
    np.testing.assert_allclose(m, [10.0, 0.001, -0.5])
    np.testing.assert_allclose(v, [10.0, 1e-7, 0.025])


def test_adam_refuses_mismatched_moments():
    with pytest.raises(ValueError, match=r"grads, m and v must have the same shape; got \(2,\), \(3,\)"):
        lc.adam_update(np.ones(2), np.ones(3), np.ones(2))


def test_cosine_matches_huggingface_lambda():
    # transformers.get_cosine_schedule_with_warmup's multiplier, written out independently.
    warmup, total = 10, 110

    def hf(step):
        if step < warmup:
            return step / max(1, warmup)
        progress = (step - warmup) / max(1, total - warmup)
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)))

    steps = np.arange(0, total + 1)
    np.testing.assert_allclose(lc.cosine_schedule(steps, peak_lr=2e-4, total_steps=total, warmup_steps=warmup),
                               [2e-4 * hf(int(s)) for s in steps], rtol=1e-12, atol=1e-20)


def test_cosine_holds_min_lr_after_the_end():
    lr = lc.cosine_schedule(np.array([1000, 1001, 5000]), peak_lr=1.0, total_steps=1000, min_lr=0.1)
    np.testing.assert_allclose(lr, [0.1, 0.1, 0.1])


def test_cosine_refuses_warmup_as_long_as_the_run():
    with pytest.raises(ValueError, match=r"warmup_steps must be an integer in \[0, 99\]; got 100"):
        lc.cosine_schedule(np.arange(3), peak_lr=1.0, total_steps=100, warmup_steps=100)
