"""Optimizer-step helpers against the published update rules, written out independently."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_llmcalc_properties import JUNK

import llmcalc as lc


@pytest.mark.parametrize("fan_in, gain, expected", [
    (640, 1.0, 1 / math.sqrt(640)),
    (4, 1.0, 0.5),
    (2, 2.0**0.5, 1.0),          # He: sqrt(2 / fan_in)
    (100, 1.0, 0.1),
])
def test_init_std(fan_in, gain, expected):
    assert lc.init_std(fan_in, gain=gain) == pytest.approx(expected, rel=1e-15)


def test_init_std_keeps_signal_variance():
    rng = np.random.default_rng(0)
    fan_in = 512
    x = rng.normal(size=(2000, fan_in))
    w = rng.normal(scale=lc.init_std(fan_in), size=(fan_in, 64))
    assert (x @ w).var() == pytest.approx(1.0, rel=0.05)


@pytest.mark.parametrize("w, g, lr, expected", [(1.0, 0.5, 0.1, 0.95), (0.0, -2.0, 0.5, 1.0), (3.0, 7.0, 0.0, 3.0)])
def test_sgd_step(w, g, lr, expected):
    assert lc.sgd_step(w, g, lr=lr) == pytest.approx(expected, rel=1e-15)


def test_ema_converges_with_the_bias_the_docs_describe():
    average = 0.0
    for step in range(1, 30):
        average = lc.ema_update(average, 1.0, beta=0.9)
        assert average == pytest.approx(1 - 0.9**step, rel=1e-12)
    assert lc.ema_update(np.array([0.0, 10.0]), np.array([1.0, 0.0]), beta=0.5).tolist() == [0.5, 5.0]


def _adam_reference(grads_per_step, lr, beta1, beta2, eps):
    """Algorithm 1 of Kingma and Ba (2015), one scalar parameter, starting at 0."""
    theta, m, v = 0.0, 0.0, 0.0
    for t, g in enumerate(grads_per_step, start=1):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1**t)
        v_hat = v / (1 - beta2**t)
        theta = theta - lr * m_hat / (math.sqrt(v_hat) + eps)
    return theta, m, v


@pytest.mark.parametrize("grads", [[1.0], [100.0, 0.01, -3.0], [0.5] * 10, [1e-6, -1e-6, 2e-6, 0.0]])
def test_adam_matches_the_paper_over_several_steps(grads):
    theta, m, v = 0.0, 0.0, 0.0
    for t, g in enumerate(grads, start=1):
        update, m, v = lc.adam_update(g, m, v, step=t, lr=1e-3)
        theta -= update
    assert (theta, m, v) == pytest.approx(_adam_reference(grads, 1e-3, 0.9, 0.999, 1e-8), rel=1e-12, abs=1e-18)


def test_adam_first_step_is_lr_whatever_the_gradient_scale():
    update, m, v = lc.adam_update(np.array([100.0, 0.01, -5.0]), lr=1e-3)
    np.testing.assert_allclose(update, [1e-3, 1e-3, -1e-3], rtol=1e-5)
    np.testing.assert_allclose(m, [10.0, 0.001, -0.5])
    np.testing.assert_allclose(v, [10.0, 1e-7, 0.025])


@pytest.mark.parametrize("w, lr, decay, expected", [(1.0, 0.01, 0.1, 0.999), (-2.0, 0.1, 0.5, -1.9), (5.0, 0.0, 1.0, 5.0)])
def test_decoupled_weight_decay_is_torch_adamw_multiplier(w, lr, decay, expected):
    # torch.optim.AdamW: param.mul_(1 - lr * weight_decay)
    assert lc.decoupled_weight_decay(w, lr=lr, weight_decay=decay) == pytest.approx(expected, rel=1e-15)
    assert lc.decoupled_weight_decay(w, lr=lr, weight_decay=decay) == pytest.approx(w * (1 - lr * decay), rel=1e-15)


def test_accumulated_gradient_equals_full_batch_gradient():
    # Linear regression y = 3x: per-example gradient of (w x - y)**2 is 2 (w x - y) x.
    rng = np.random.default_rng(2)
    x = rng.normal(size=11)
    per_example = 2 * (0.5 * x - 3 * x) * x
    full = per_example.mean()
    parts = np.split(per_example, [3, 7])            # unequal micro-batches: 3, 4, 4 examples
    means = np.array([p.mean() for p in parts])
    sizes = np.array([len(p) for p in parts])
    assert lc.accumulated_gradient(means, sizes) == pytest.approx(full, rel=1e-13)
    equal = np.split(per_example[:10], 2)
    assert lc.accumulated_gradient(np.array([p.mean() for p in equal])) == pytest.approx(per_example[:10].mean())


def test_accumulated_gradient_of_gradient_vectors():
    grads = np.array([[1.0, 2.0], [3.0, 6.0]])
    assert lc.accumulated_gradient(grads).tolist() == [2.0, 4.0]
    assert lc.accumulated_gradient(grads, np.array([3, 1])).tolist() == [1.5, 3.0]


def test_inverted_dropout_keeps_the_expected_value():
    rng = np.random.default_rng(3)
    x = np.full(200_000, 2.0)
    out = lc.inverted_dropout(x, rng.random(x.size) >= 0.3, p=0.3)
    assert set(np.unique(out)) == {0.0, 2.0 / 0.7}
    assert out.mean() == pytest.approx(2.0, rel=0.01)


@pytest.mark.parametrize("call, error, message", [
    (lambda: lc.init_std(0), ValueError, r"fan_in must be an integer in \[1, .*\]; got 0"),
    (lambda: lc.init_std(64, gain=0.0), ValueError, r"gain must be a finite number > 0; got 0\.0"),
    (lambda: lc.sgd_step(1.0, 0.5, lr=-0.1), ValueError, r"lr must be a finite number >= 0; got -0\.1"),
    (lambda: lc.sgd_step(np.ones(2), np.ones(3), lr=0.1), ValueError, r"weights \(2,\), grads \(3,\)"),
    (lambda: lc.ema_update(0.0, 1.0, beta=1.0), ValueError, r"beta must be a finite number in \[0, 1\); got 1\.0"),
    (lambda: lc.adam_update(1.0, step=0), ValueError, r"step must be an integer in \[1, .*\]; got 0"),
    (lambda: lc.adam_update(1.0, v=-1.0), ValueError, r"v must be >= 0"),
    (lambda: lc.adam_update(1.0, eps=0.0), ValueError, r"eps must be a finite number > 0; got 0\.0"),
    (lambda: lc.adam_update(np.array([1.0, np.inf])), ValueError, r"grads must be a finite real array; got inf \(at index 1\)"),
    (lambda: lc.decoupled_weight_decay(1.0, lr=1.0, weight_decay=2.0), ValueError, r"lr \* weight_decay must be <= 1"),
    (lambda: lc.accumulated_gradient(np.array([])), ValueError, r"at least one micro-batch"),
    (lambda: lc.accumulated_gradient(np.array([1.0, 2.0]), np.array([1, 2, 3])), ValueError, r"one size per micro-batch"),
    (lambda: lc.accumulated_gradient(np.array([1.0, 2.0]), np.array([1, 0])), ValueError, r"micro_batch_sizes .*got 0 \(at index 1\)"),
    (lambda: lc.inverted_dropout(np.ones(2), np.array([1, 0]), p=0.5), TypeError, r"keep must be a boolean array"),
    (lambda: lc.inverted_dropout(np.ones(2), np.array([True, False]), p=1.0), ValueError, r"p must be a finite number in \[0, 1\); got 1\.0"),
])
def test_training_rejects(call, error, message):
    with pytest.raises(error, match=message):
        call()


@settings(max_examples=600, deadline=None)
@given(a=JUNK, b=JUNK, which=st.integers(0, 10))
def test_training_raises_only_value_or_type_errors(a, b, which):
    calls = [
        lambda: lc.init_std(a, gain=b),
        lambda: lc.sgd_step(a, b, lr=0.1),
        lambda: lc.sgd_step(1.0, 1.0, lr=a),
        lambda: lc.ema_update(a, b, beta=0.9),
        lambda: lc.ema_update(1.0, 1.0, beta=a),
        lambda: lc.adam_update(a, b, b),
        lambda: lc.adam_update(1.0, step=a, lr=b),
        lambda: lc.decoupled_weight_decay(a, lr=b, weight_decay=0.1),
        lambda: lc.accumulated_gradient(a, b),
        lambda: lc.inverted_dropout(a, b, p=0.5),
        lambda: lc.inverted_dropout(np.ones(2), np.ones(2, dtype=bool), p=a),
    ]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            calls[which]()
        except (ValueError, TypeError):
            pass
