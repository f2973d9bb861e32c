"""Learning-rate schedules: hand-computed points, the Optax/HF conventions, and bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_llmcalc_properties import JUNK

import llmcalc as lc

PEAK = 3e-4


@pytest.mark.parametrize("step, expected", [
    (0, 0.0),
    (1, PEAK / 100),
    (50, PEAK / 2),
    (99, PEAK * 0.99),
    (100, PEAK),     # the peak is reached at step == warmup_steps
    (200, PEAK),     # and held
    (10**6, PEAK),
])
def test_linear_warmup_points(step, expected):
    assert lc.linear_warmup(step, peak_lr=PEAK, warmup_steps=100) == pytest.approx(expected, rel=1e-15, abs=0)


def test_linear_warmup_without_warmup_is_constant():
    assert lc.linear_warmup(np.array([0, 5]), peak_lr=PEAK, warmup_steps=0).tolist() == [PEAK, PEAK]
    assert lc.linear_warmup(0, peak_lr=PEAK, warmup_steps=0) == PEAK


# Cosine decay without warmup: (1 + cos(pi * s / T)) / 2 at hand-known angles.
@pytest.mark.parametrize("step, fraction", [
    (0, 1.0),
    (250, (1 + math.sqrt(0.5)) / 2),
    (500, 0.5),
    (750, (1 - math.sqrt(0.5)) / 2),
    (1000, 0.0),
    (1500, 0.0),     # after total_steps the rate stays at min_lr
])
def test_cosine_points(step, fraction):
    assert lc.cosine_schedule(step, peak_lr=PEAK, total_steps=1000) == pytest.approx(PEAK * fraction, abs=1e-18)


# Warmup 100 of 1100 total steps, floor 0.1 of the peak (peak 1): decay spans 1000 steps.
@pytest.mark.parametrize("step, expected", [
    (0, 0.0),
    (25, 0.25),
    (100, 1.0),
    (600, 0.1 + 0.9 * 0.5),
    (1100, 0.1),
    (5000, 0.1),
])
def test_cosine_with_warmup_and_floor(step, expected):
    result = lc.cosine_schedule(step, peak_lr=1.0, total_steps=1100, warmup_steps=100, min_lr=0.1)
    assert result == pytest.approx(expected, rel=1e-14, abs=1e-15)


def test_cosine_matches_huggingface_lambda():
    # transformers.get_cosine_schedule_with_warmup's multiplier, written out independently.
    warmup, total = 10, 110

    def hf(step):
        if step < warmup:
            return step / max(1, warmup)
        progress = (step - warmup) / max(1, total - warmup)
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)))

    steps = np.arange(0, total + 1)
    expected = [2e-4 * hf(int(s)) for s in steps]
    np.testing.assert_allclose(lc.cosine_schedule(steps, peak_lr=2e-4, total_steps=total, warmup_steps=warmup),
                               expected, rtol=1e-12, atol=1e-20)


def test_schedules_broadcast_over_step_shape():
    steps = np.array([[0, 10], [20, 30]])
    assert lc.cosine_schedule(steps, peak_lr=1.0, total_steps=30).shape == (2, 2)
    assert lc.linear_warmup(steps, peak_lr=1.0, warmup_steps=20).tolist() == [[0.0, 0.5], [1.0, 1.0]]


@settings(max_examples=200, deadline=None)
@given(total=st.integers(1, 10_000), data=st.data())
def test_cosine_is_bounded_and_never_rises_after_warmup(total, data):
    warmup = data.draw(st.integers(0, total - 1))
    floor = data.draw(st.floats(0, 1))
    steps = np.arange(0, total + 3)
    lr = lc.cosine_schedule(steps, peak_lr=1.0, total_steps=total, warmup_steps=warmup, min_lr=floor)
    assert ((lr >= 0) & (lr <= 1.0 + 1e-15)).all()
    after = lr[warmup:]
    assert (np.diff(after) <= 1e-15).all()
    assert after[-1] == pytest.approx(floor)


@pytest.mark.parametrize("call, error, message", [
    (lambda: lc.linear_warmup(-1, peak_lr=1.0, warmup_steps=10), ValueError, r"step must be an integer in \[0, .*\]; got -1"),
    (lambda: lc.linear_warmup(1.5, peak_lr=1.0, warmup_steps=10), TypeError, r"step must be an integer .*got 1\.5"),
    (lambda: lc.linear_warmup(1, peak_lr=0.0, warmup_steps=10), ValueError, r"peak_lr must be a finite number > 0; got 0\.0"),
    (lambda: lc.linear_warmup(1, peak_lr=np.array([1.0]), warmup_steps=10), TypeError, r"peak_lr must be a single number"),
    (lambda: lc.cosine_schedule(1, peak_lr=1.0, total_steps=0), ValueError, r"total_steps must be an integer in \[1, .*\]; got 0"),
    (lambda: lc.cosine_schedule(1, peak_lr=1.0, total_steps=100, warmup_steps=100), ValueError,
     r"warmup_steps must be an integer in \[0, 99\]; got 100"),
    (lambda: lc.cosine_schedule(1, peak_lr=1.0, total_steps=100, min_lr=2.0), ValueError,
     r"min_lr must be a finite number in \[0, 1\]; got 2\.0"),
    (lambda: lc.cosine_schedule(np.array([1, -3]), peak_lr=1.0, total_steps=10), ValueError, r"step .*got -3 \(at index 1\)"),
])
def test_schedule_rejects(call, error, message):
    with pytest.raises(error, match=message):
        call()


@settings(max_examples=300, deadline=None)
@given(a=JUNK, b=JUNK, which=st.integers(0, 3))
def test_schedules_raise_only_value_or_type_errors(a, b, which):
    calls = [
        lambda: lc.linear_warmup(a, peak_lr=1e-3, warmup_steps=b),
        lambda: lc.cosine_schedule(a, peak_lr=b, total_steps=100),
        lambda: lc.cosine_schedule(5, peak_lr=1.0, total_steps=a, warmup_steps=b),
        lambda: lc.cosine_schedule(5, peak_lr=1.0, total_steps=100, min_lr=a),
    ]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            calls[which]()
        except (ValueError, TypeError):
            pass
