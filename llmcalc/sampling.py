"""Choosing the next token from a probability distribution: top-k and top-p (nucleus) filtering.

Temperature lives in :func:`llmcalc.nn.softmax`.  Filters work on the last
axis and return a renormalised distribution of the same shape.
"""

from __future__ import annotations

import numpy as np

from . import _validate as check


def _probabilities(probs: np.ndarray) -> np.ndarray:
    p = check.finite_array("probs", probs, min_ndim=1)
    if p.shape[-1] == 0:
        raise ValueError(f"probs must have a non-empty last axis; got shape {p.shape}")
    if (p < 0).any():
        raise ValueError(f"probs must be non-negative; got minimum {p.min()!r}")
    totals = p.sum(axis=-1, keepdims=True)
    if not np.allclose(totals, 1.0, rtol=0, atol=1e-6):
        raise ValueError(f"probs must sum to 1 along the last axis (within 1e-6); got sums {totals[..., 0]!r}")
    return p


def _keep_and_renormalise(p: np.ndarray, keep: np.ndarray) -> np.ndarray:
    kept = np.where(keep, p, 0.0)
    return kept / kept.sum(axis=-1, keepdims=True)


def _descending_order(p: np.ndarray) -> np.ndarray:
    # Stable sort of -p: among equal probabilities the lower token id comes first.
    return np.argsort(-p, axis=-1, kind="stable")


def top_k_filter(probs: np.ndarray, k: int) -> np.ndarray:
    """Keep the ``k`` most probable tokens and renormalise; ties go to the lower token id.

    Examples
    --------
    >>> top_k_filter(np.array([0.1, 0.5, 0.15, 0.25]), 2).round(4)
    array([0.    , 0.6667, 0.    , 0.3333])
    """
    p = _probabilities(probs)
    keep_count = check.integer("k", k, minimum=1, maximum=p.shape[-1])
    if not isinstance(keep_count, int):
        raise TypeError(f"k must be a single integer; got an array of shape {np.shape(keep_count)}")
    order = _descending_order(p)
    keep = np.zeros(p.shape, dtype=bool)
    np.put_along_axis(keep, order[..., :keep_count], True, axis=-1)
    return _keep_and_renormalise(p, keep)


def top_p_filter(probs: np.ndarray, p: float) -> np.ndarray:
    """Nucleus filtering: keep the smallest set of most-probable tokens whose total is ``>= p``, renormalised.

    Tokens are taken in order of decreasing probability (ties: lower id
    first) until the running total reaches ``p``; the token that crosses the
    threshold is kept.  ``p = 1`` keeps every token with non-zero probability.

    Examples
    --------
    >>> probs = np.array([0.1, 0.5, 0.15, 0.25])
    >>> top_p_filter(probs, 0.7).round(4)  # 0.5 + 0.25 = 0.75 >= 0.7
    array([0.    , 0.6667, 0.    , 0.3333])
    >>> top_p_filter(probs, 0.5)  # the top token alone reaches 0.5
    array([0., 1., 0., 0.])
    """
    dist = _probabilities(probs)
    threshold = check.real("p", p, minimum=0, maximum=1, min_inclusive=False)
    if not isinstance(threshold, float):
        raise TypeError(f"p must be a single number in (0, 1]; got an array of shape {np.shape(threshold)}")
    order = _descending_order(dist)
    sorted_p = np.take_along_axis(dist, order, axis=-1)
    before = np.cumsum(sorted_p, axis=-1) - sorted_p
    # Keep a token while the mass *before* it is still short of p (tiny tolerance
    # so that 0.5 + 0.25 counts as reaching 0.75 despite rounding).
    keep_sorted = (before < threshold - 1e-12) & (sorted_p > 0)
    keep_sorted[..., 0] = True
    keep = np.zeros(dist.shape, dtype=bool)
    np.put_along_axis(keep, order, keep_sorted, axis=-1)
    return _keep_and_renormalise(dist, keep)
