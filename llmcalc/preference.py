"""Preference tuning and RL for LLMs: the reward-model loss, DPO and GRPO's group advantages.

Scores, log-ratios and rewards are float arrays (or numbers) that
broadcast; ``beta`` may broadcast too, so a sweep is one call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _validate as check


def _scores(name: str, value: Any) -> float | np.ndarray:
    array = check.finite_array(name, value)
    return float(array) if array.ndim == 0 else array


def pairwise_preference_loss(
    chosen_score: float | np.ndarray, rejected_score: float | np.ndarray
) -> float | np.ndarray:
    """Bradley-Terry loss of a reward model on one preference pair: ``-ln sigmoid(chosen - rejected)``.

    The two scores are treated as logits of a two-way softmax; the
    probability that the chosen response wins is ``sigmoid(chosen -
    rejected)``, and the loss is the cross-entropy of that probability,
    computed as ``logsumexp(chosen, rejected) - chosen``.  Only the margin
    matters: adding a constant to both scores changes nothing.  Equal
    scores give ``ln 2``.

    Examples
    --------
    >>> round(pairwise_preference_loss(1.3, 0.4), 3)
    0.341
    >>> pairwise_preference_loss(np.array([0.0, 5.0]), np.array([0.0, 5.0])).round(4)  # ties: ln 2
    array([0.6931, 0.6931])
    """
    chosen = _scores("chosen_score", chosen_score)
    rejected = _scores("rejected_score", rejected_score)
    check.broadcastable(chosen_score=chosen, rejected_score=rejected)
    return check.float_result(
        "pairwise_preference_loss", lambda: np.logaddexp(chosen, rejected) - np.asarray(chosen)
    )


def dpo_loss(
    chosen_log_ratio: float | np.ndarray, rejected_log_ratio: float | np.ndarray, *, beta: float | np.ndarray = 0.1
) -> float | np.ndarray:
    """DPO loss of one preference pair: ``-ln sigmoid(beta * (chosen_log_ratio - rejected_log_ratio))``.

    A log-ratio is ``ln pi(y|x) - ln pi_ref(y|x)``: how much more likely the
    model being tuned makes response ``y`` than the frozen reference model
    does, summed over the response's tokens (Rafailov et al., 2023).  The
    loss is :func:`pairwise_preference_loss` with the implicit rewards
    ``beta * log_ratio`` as the two scores.  At the start of training both
    log-ratios are 0 and the loss is ``ln 2``.

    Examples
    --------
    >>> round(dpo_loss(1.5, -0.5, beta=0.1), 3)
    0.598
    >>> dpo_loss(1.5, -0.5, beta=np.array([0.05, 1.0])).round(3)
    array([0.644, 0.127])
    """
    chosen = _scores("chosen_log_ratio", chosen_log_ratio)
    rejected = _scores("rejected_log_ratio", rejected_log_ratio)
    strength = check.real("beta", beta, minimum=0, min_inclusive=False)
    check.broadcastable(chosen_log_ratio=chosen, rejected_log_ratio=rejected, beta=strength)
    chosen_reward = check.float_result("dpo_loss", lambda: np.multiply(strength, chosen))
    rejected_reward = check.float_result("dpo_loss", lambda: np.multiply(strength, rejected))
    return pairwise_preference_loss(chosen_reward, rejected_reward)


def group_advantages(rewards: np.ndarray, *, ddof: int = 0) -> np.ndarray:
    """GRPO advantages: each reward minus its group's mean, divided by the group's standard deviation.

    ``rewards`` holds one group of answers to the same prompt along the
    last axis (leading axes are separate groups).  The standard deviation
    divides by ``n - ddof``: ``ddof=0`` (the default) is the population
    value written in the DeepSeekMath paper; Hugging Face TRL uses the
    sample value, ``ddof=1``, and adds a small epsilon.  A group whose
    rewards are all equal carries no signal and gets advantages of 0 (the
    limit that the epsilon gives).

    Examples
    --------
    >>> group_advantages(np.array([1.0, 0.0, 0.0, 1.0]))
    array([ 1., -1., -1.,  1.])
    >>> group_advantages(np.array([1.0, 0.0, 0.0, 0.0])).round(3)  # a lone success gets a big push
    array([ 1.732, -0.577, -0.577, -0.577])
    >>> group_advantages(np.array([[1.0, 1.0], [0.0, 2.0]]))  # two groups; the first teaches nothing
    array([[ 0.,  0.],
           [-1.,  1.]])
    """
    values = check.finite_array("rewards", rewards, min_ndim=1)
    size = values.shape[-1]
    correction = check.integer("ddof", ddof, minimum=0, maximum=1)
    if not isinstance(correction, int):
        raise TypeError(f"ddof must be 0 or 1; got an array of shape {np.shape(correction)}")
    if size <= correction:
        raise ValueError(
            f"rewards must hold more than ddof={correction} answers per group (last axis); got shape {values.shape}"
        )

    def advantages() -> np.ndarray:
        # Scaling by the largest |reward| first keeps the squares inside float64; the ratio is unchanged.
        peak = np.abs(values).max(axis=-1, keepdims=True)
        scaled = values / np.where(peak > 0, peak, 1.0)
        centred = scaled - scaled.mean(axis=-1, keepdims=True)
        spread = np.sqrt(np.sum(centred**2, axis=-1, keepdims=True) / (size - correction))
        # Equal rewards are tested directly: their float mean can miss them by an ulp and fake a spread.
        constant = (values == values[..., :1]).all(axis=-1, keepdims=True)
        return np.where(constant, 0.0, centred / np.where(constant, 1.0, spread))

    return check.float_result("group_advantages", advantages)
