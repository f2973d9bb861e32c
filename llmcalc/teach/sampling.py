"""Choosing the next token: top-k and top-p (nucleus) filtering of a probability distribution.

Temperature lives in :func:`llmcalc.teach.attention.softmax`.  Both filters work on the last
axis and return a renormalised distribution of the same shape; among equal
probabilities the lower token id ranks first.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as check

__all__ = ["top_k_filter", "top_p_filter"]


def _keep_most_probable(dist: np.ndarray, keep_sorted: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Zero every token not kept, then renormalise; ``keep_sorted`` is in ``order``, most probable first."""
    keep = np.zeros(dist.shape, dtype=bool)
    np.put_along_axis(keep, order, keep_sorted, axis=-1)
    kept = np.where(keep, dist, 0.0)
    result: np.ndarray = kept / kept.sum(axis=-1, keepdims=True)
    return result


def top_k_filter(probs: np.ndarray, k: int) -> np.ndarray:
    """Keep the ``k`` most probable tokens and renormalise.

    Examples
    --------
    >>> top_k_filter(np.array([0.1, 0.5, 0.15, 0.25]), 2).round(4)
    array([0.    , 0.6667, 0.    , 0.3333])
    """
    dist = check.probabilities("probs", probs)
    keep_count = check.count("k", k, maximum=dist.shape[-1])
    order = np.argsort(-dist, axis=-1, kind="stable")
    return _keep_most_probable(dist, np.arange(dist.shape[-1]) < keep_count, order)


def top_p_filter(probs: np.ndarray, p: float) -> np.ndarray:
    """Nucleus filtering: keep the smallest set of most probable tokens whose total reaches ``p``, renormalised.

    Tokens are taken in order of decreasing probability until the running
    total reaches ``p``; the token that crosses the threshold is kept.
    ``p = 1`` keeps every token with non-zero probability.

    Examples
    --------
    >>> probs = np.array([0.1, 0.5, 0.15, 0.25])
    >>> top_p_filter(probs, 0.7).round(4)  # 0.5 + 0.25 = 0.75 >= 0.7
    array([0.    , 0.6667, 0.    , 0.3333])
    >>> top_p_filter(probs, 0.5)  # the top token alone reaches 0.5
    array([0., 1., 0., 0.])
    """
    dist = check.probabilities("probs", probs)
    threshold = check.number("p", p, minimum=0, maximum=1, min_inclusive=False)
    order = np.argsort(-dist, axis=-1, kind="stable")
    sorted_p = np.take_along_axis(dist, order, axis=-1)
    before = np.cumsum(sorted_p, axis=-1) - sorted_p
    # Keep a token while the mass before it is short of p; the tolerance lets 0.5 + 0.25 reach 0.75 despite rounding.
    keep_sorted = (before < threshold - 1e-12) & (sorted_p > 0)
    keep_sorted[..., 0] = True
    return _keep_most_probable(dist, keep_sorted, order)
