"""Preference losses and GRPO advantages against the formulas of the papers, written out with the math module."""

import math

import numpy as np
import pytest

import llmcalc as lc


def _neg_log_sigmoid(z):
    return -math.log(1 / (1 + math.exp(-z)))


@pytest.mark.parametrize("chosen, rejected", [(1.3, 0.4), (0.0, 0.0), (-2.0, 3.0), (10.0, -10.0), (100.5, 100.0)])
def test_pairwise_preference_loss_is_bradley_terry(chosen, rejected):
    expected = _neg_log_sigmoid(chosen - rejected)
    assert lc.pairwise_preference_loss(chosen, rejected) == pytest.approx(expected, rel=1e-12)


def test_pairwise_preference_loss_depends_only_on_the_margin_and_stays_finite():
    assert lc.pairwise_preference_loss(1e6 + 1.0, 1e6) == pytest.approx(_neg_log_sigmoid(1.0), rel=1e-9)
    assert lc.pairwise_preference_loss(0.0, 1000.0) == pytest.approx(1000.0, rel=1e-15)   # -ln sigmoid(-1000)
    assert lc.pairwise_preference_loss(1000.0, 0.0) == 0.0


@pytest.mark.parametrize("chosen, rejected, beta, expected", [
    (1.5, -0.5, 0.1, _neg_log_sigmoid(0.2)),
    (1.5, -0.5, 1.0, _neg_log_sigmoid(2.0)),
    (0.0, 0.0, 0.1, math.log(2)),                     # model == reference
    (-3.0, 2.0, 0.5, _neg_log_sigmoid(-2.5)),         # rejected answer favoured: loss above ln 2
])
def test_dpo_loss(chosen, rejected, beta, expected):
    assert lc.dpo_loss(chosen, rejected, beta=beta) == pytest.approx(expected, rel=1e-12)


def test_dpo_loss_broadcasts_over_beta_and_pairs():
    betas = np.array([0.05, 0.1, 0.5, 1.0])
    np.testing.assert_allclose(lc.dpo_loss(1.5, -0.5, beta=betas), [_neg_log_sigmoid(2 * b) for b in betas], rtol=1e-12)
    pairs = lc.dpo_loss(np.array([1.0, 2.0]), np.array([0.0, 0.0]), beta=0.1)
    np.testing.assert_allclose(pairs, [_neg_log_sigmoid(0.1), _neg_log_sigmoid(0.2)], rtol=1e-12)


@pytest.mark.parametrize("rewards, ddof, expected", [
    ([1.0, 0.0, 0.0, 1.0], 0, [1.0, -1.0, -1.0, 1.0]),
    ([1.0, 0.0, 0.0, 0.0], 0, [math.sqrt(3), -1 / math.sqrt(3), -1 / math.sqrt(3), -1 / math.sqrt(3)]),
    ([1.0, 0.0, 0.0, 0.0], 1, [1.5, -0.5, -0.5, -0.5]),     # sample std sqrt(1/3), as in TRL
    ([2.0, 4.0], 0, [-1.0, 1.0]),
    ([0.1, 0.1, 0.1], 0, [0.0, 0.0, 0.0]),                  # equal rewards: no signal (their float mean is not 0.1)
    ([7.0], 0, [0.0]),
])
def test_group_advantages(rewards, ddof, expected):
    np.testing.assert_allclose(lc.group_advantages(np.array(rewards), ddof=ddof), expected, rtol=1e-14, atol=1e-15)


def test_group_advantages_rows_are_independent_groups_and_scale_free():
    groups = np.array([[1.0, 0.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0], [3e200, 1e200, 2e200, 2e200]])
    result = lc.group_advantages(groups)
    np.testing.assert_allclose(result[0], lc.group_advantages(groups[0]))
    np.testing.assert_array_equal(result[1], 0.0)
    np.testing.assert_allclose(result[2], [math.sqrt(2), -math.sqrt(2), 0.0, 0.0], atol=1e-14)
    np.testing.assert_allclose(result.mean(axis=-1), 0.0, atol=1e-15)


def test_preference_rejects():
    with pytest.raises(ValueError, match=r"beta must be a finite number > 0; got 0\.0"):
        lc.dpo_loss(1.0, 0.0, beta=0.0)
    with pytest.raises(ValueError, match=r"rewards must hold more than ddof=1 answers per group"):
        lc.group_advantages(np.array([1.0]), ddof=1)
    with pytest.raises(ValueError, match=r"chosen_score must be a finite real array; got nan"):
        lc.pairwise_preference_loss(math.nan, 0.0)
