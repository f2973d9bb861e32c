"""Attention in plain numpy: softmax, the causal mask, scaled dot-product attention and RoPE.

Everything is float64 and works on batches: leading axes (batch, heads) are
carried along unchanged.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validate as check

__all__ = ["MAX_MASK_SIZE", "causal_mask", "rope_rotate", "scaled_dot_product_attention", "softmax"]

MAX_MASK_SIZE = 16384
"""The largest side :func:`causal_mask` builds, for illustration (256 MiB of booleans); real kernels never build one."""


def softmax(logits: np.ndarray, *, temperature: float = 1.0, axis: int = -1) -> np.ndarray:
    """Probabilities from scores: ``exp(z_i / T) / sum_j exp(z_j / T)``.

    Temperature ``T`` divides the logits first: ``T < 1`` sharpens the
    distribution, ``T > 1`` flattens it.  The maximum is subtracted before
    exponentiating, so large logits cannot overflow.  ``-inf`` logits
    (masked positions) get probability 0; a slice that is all ``-inf`` is
    refused.

    Examples
    --------
    >>> softmax(np.array([2.0, 1.0, 0.0])).round(3)
    array([0.665, 0.245, 0.09 ])
    >>> softmax(np.array([2.0, 1.0, 0.0]), temperature=0.5).round(3)
    array([0.867, 0.117, 0.016])
    >>> softmax(np.array([1000.0, 1000.0]))
    array([0.5, 0.5])
    """
    z = check.values("logits", logits, allow_neg_inf=True, min_ndim=1)
    t = check.number("temperature", temperature, minimum=0, min_inclusive=False)
    along = check.count("axis", axis, minimum=-z.ndim, maximum=z.ndim - 1)
    top = z.max(axis=along, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("logits must have at least one finite entry along the softmax axis; got an all -inf slice")
    # Every exponent is <= 0 after subtracting the maximum; a gap beyond float64 underflows to 0, as it should.
    with np.errstate(under="ignore"):
        e = np.exp((z - top) / t)
    result: np.ndarray = e / e.sum(axis=along, keepdims=True)
    return result


def causal_mask(n: int) -> np.ndarray:
    """Boolean ``n x n`` mask, True where query ``i`` may attend to key ``j`` (``j <= i``).

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    size = check.count("n", n, maximum=MAX_MASK_SIZE)
    return np.tril(np.ones((size, size), dtype=bool))


def scaled_dot_product_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, *, causal: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Attention ``softmax(q @ k.T / sqrt(d)) @ v``, returning ``(output, weights)``.

    Shapes: ``q`` is ``(..., n_q, d)``, ``k`` is ``(..., n_k, d)``, ``v`` is
    ``(..., n_k, d_v)``; leading axes broadcast.  With ``causal=True`` the
    queries are the *last* ``n_q`` positions, so query ``i`` sees keys up to
    ``i + n_k - n_q``: the square causal mask when ``n_q == n_k``, cached
    decoding otherwise.

    Examples
    --------
    >>> q = k = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> out, w = scaled_dot_product_attention(q, k, np.array([[10.0], [20.0]]), causal=True)
    >>> w.round(3).tolist()  # second row: softmax([0, 1/sqrt(2)])
    [[1.0, 0.0], [0.33, 0.67]]
    >>> out.round(2).tolist()
    [[10.0], [16.7]]
    """
    qa, ka, va = (check.values(name, array, min_ndim=2) for name, array in (("q", q), ("k", k), ("v", v)))
    if qa.shape[-1] != ka.shape[-1]:
        raise ValueError(f"q and k must have the same last dimension (head_dim); got shapes {qa.shape} and {ka.shape}")
    if ka.shape[-2] != va.shape[-2]:
        raise ValueError(f"k and v must have as many positions (axis -2) as each other; got {ka.shape} and {va.shape}")
    if 0 in (qa.shape[-1], qa.shape[-2], ka.shape[-2]):
        raise ValueError(f"q, k and v must be non-empty; got shapes {qa.shape}, {ka.shape}, {va.shape}")
    try:
        np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2], va.shape[:-2])
    except ValueError:
        raise ValueError(
            f"leading (batch/head) axes of q, k, v must broadcast; got shapes {qa.shape}, {ka.shape}, {va.shape}"
        ) from None
    n_q, n_k = qa.shape[-2], ka.shape[-2]
    if check.flag("causal", causal) and n_q > n_k:
        raise ValueError(f"causal attention needs at least as many keys as queries; got n_q={n_q}, n_k={n_k}")
    scores = qa @ np.swapaxes(ka, -1, -2) / math.sqrt(qa.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q), scores, -np.inf)
    weights = softmax(scores)
    return weights @ va, weights


def rope_rotate(x: np.ndarray, positions: np.ndarray | list[int] | int, *, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding: turn each pair of dimensions by a position-dependent angle.

    ``x`` is ``(..., seq, d)`` with ``d`` even; ``positions`` holds one
    position per row.  Pair ``i`` (dimensions ``2i`` and ``2i+1``, interleaved
    as in the RoFormer paper) turns by ``position * base**(-2i/d)``.  Rotation
    keeps lengths, and the dot product of two rotated vectors depends only on
    their *relative* position.

    Examples
    --------
    >>> rope_rotate(np.array([[1.0, 0.0, 1.0, 0.0]]), [1], base=100.0).round(4)  # 1 rad and 0.1 rad
    array([[0.5403, 0.8415, 0.995 , 0.0998]])
    """
    xa = check.values("x", x, min_ndim=2)
    d = xa.shape[-1]
    if d == 0 or d % 2:
        raise ValueError(f"x must have an even, non-zero last dimension (pairs are rotated); got shape {xa.shape}")
    pos = check.values("positions", positions)
    theta = check.number("base", base, minimum=1, min_inclusive=False)
    angles = pos[..., None] * theta ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    try:
        shape = np.broadcast_shapes(xa.shape, (*angles.shape[:-1], d))
    except ValueError:
        raise ValueError(f"positions of shape {pos.shape} must match the rows of x (shape {xa.shape})") from None
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = xa[..., 0::2], xa[..., 1::2]
    out = np.empty(shape)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out
