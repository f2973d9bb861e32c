"""The small pieces of neural-network math that the glossary explains, in plain numpy.

Everything here is float64 and works on batches: leading axes are carried
along unchanged.
"""

from __future__ import annotations

import math

import numpy as np

from . import _validate as check

MAX_MASK_SIZE = 16384
# Beyond 2**53 float64 positions are no longer exact integers.
MAX_POSITION = 2.0**53


def softmax(logits: np.ndarray, *, temperature: float = 1.0, axis: int = -1) -> np.ndarray:
    """Probabilities from scores: ``exp(z_i / T) / sum_j exp(z_j / T)``.

    Temperature ``T`` divides the logits first: ``T < 1`` sharpens the
    distribution, ``T > 1`` flattens it.  Computed stably (the maximum is
    subtracted before exponentiating).  ``-inf`` logits (masked positions)
    get probability 0; a slice that is entirely ``-inf`` is refused.

    Examples
    --------
    >>> softmax(np.array([2.0, 1.0, 0.0])).round(3)
    array([0.665, 0.245, 0.09 ])
    >>> softmax(np.array([2.0, 1.0, 0.0]), temperature=0.5).round(3)
    array([0.867, 0.117, 0.016])
    >>> softmax(np.array([1000.0, 1000.0]))  # no overflow
    array([0.5, 0.5])
    """
    z = check.finite_array("logits", logits, allow_neg_inf=True, min_ndim=1)
    t = check.real("temperature", temperature, minimum=0, min_inclusive=False)
    if not isinstance(t, float):
        raise TypeError(f"temperature must be a single positive number; got an array of shape {np.shape(t)}")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)) or not -z.ndim <= axis < z.ndim:
        raise ValueError(
            f"axis must be an integer in [{-z.ndim}, {z.ndim - 1}] for logits of shape {z.shape}; got {axis!r}"
        )
    top = z.max(axis=axis, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError(
            "logits must have at least one finite entry along the softmax axis; got a slice that is all -inf"
        )
    # After subtracting the maximum every exponent is <= 0, so exp cannot overflow;
    # a gap too large for float64 (z - top = -inf) correctly underflows to probability 0.
    with np.errstate(over="ignore", under="ignore"):
        e = np.exp((z - top) / t)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(n: int) -> np.ndarray:
    """Boolean ``n x n`` mask, True where query ``i`` may attend to key ``j`` (``j <= i``).

    ``n`` is capped at 16384 (a 256 MiB mask): the mask is for illustration,
    and real kernels never materialise it at long context lengths.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    size = check.integer("n", n, minimum=1, maximum=MAX_MASK_SIZE)
    if not isinstance(size, int):
        raise TypeError(f"n must be a single integer in [1, {MAX_MASK_SIZE}]; got an array of shape {np.shape(size)}")
    return np.tril(np.ones((size, size), dtype=bool))


def attention_scale(head_dim: int | np.ndarray) -> float | np.ndarray:
    """Score scale ``1 / sqrt(head_dim)``.

    The dot product of two random unit-variance vectors of length ``d`` has
    variance ``d``; dividing by ``sqrt(d)`` brings it back to about 1, so the
    softmax does not saturate as heads get wider.

    Examples
    --------
    >>> attention_scale(64)
    0.125
    """
    d = check.integer("head_dim", head_dim, maximum=check.FLOAT_EXACT_INT)
    return check.float_result("attention_scale", lambda: 1.0 / np.sqrt(np.asarray(d, dtype=np.float64)))


def scaled_dot_product_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, *, causal: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Attention: ``softmax(q @ k.T / sqrt(d)) @ v``, returning ``(output, weights)``.

    Shapes: ``q`` is ``(..., n_q, d)``, ``k`` is ``(..., n_k, d)``, ``v`` is
    ``(..., n_k, d_v)``; leading axes (batch, heads) broadcast.  With
    ``causal=True`` query ``i`` sees keys up to position ``i + n_k - n_q``:
    the queries are taken to be the *last* ``n_q`` positions, which is the
    square causal mask when ``n_q == n_k`` and the cached-decoding case
    otherwise.

    Examples
    --------
    >>> q = k = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> v = np.array([[10.0], [20.0]])
    >>> out, w = scaled_dot_product_attention(q, k, v, causal=True)
    >>> w.round(3).tolist()  # second row: softmax([0, 1/sqrt(2)])
    [[1.0, 0.0], [0.33, 0.67]]
    >>> out.round(2).tolist()
    [[10.0], [16.7]]
    """
    qa = check.finite_array("q", q, min_ndim=2)
    ka = check.finite_array("k", k, min_ndim=2)
    va = check.finite_array("v", v, min_ndim=2)
    if qa.shape[-1] != ka.shape[-1]:
        raise ValueError(f"q and k must have the same last dimension (head_dim); got shapes {qa.shape} and {ka.shape}")
    if ka.shape[-2] != va.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of positions (axis -2); got shapes {ka.shape} and {va.shape}"
        )
    if qa.shape[-1] == 0 or ka.shape[-2] == 0 or qa.shape[-2] == 0:
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
    scores = check.float_result("attention scores q.k", lambda: qa @ np.swapaxes(ka, -1, -2) / math.sqrt(qa.shape[-1]))
    if causal:
        allowed = np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
        scores = np.where(allowed, scores, -np.inf)
    weights = softmax(scores)
    return check.float_result("attention output", lambda: weights @ va), weights


def rope_rotate(x: np.ndarray, positions: np.ndarray | int, *, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding: rotate each pair of dimensions by a position-dependent angle.

    ``x`` has shape ``(..., seq, d)`` with ``d`` even and ``positions`` gives
    one position per row (shape ``(seq,)``, or anything broadcasting to the
    leading axes).  Pair ``i`` (dimensions ``2i`` and ``2i+1``) turns by
    ``position * base**(-2i/d)``: fast rotation in the first pairs, slow in
    the last.  Rotation keeps vector lengths, and the dot product of two
    rotated vectors depends only on their *relative* position.

    Pairs are interleaved as in the RoFormer paper; Hugging Face's Llama code
    pairs dimension ``i`` with ``i + d/2`` instead, the same rotation applied
    to a permuted vector.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0, 1.0, 0.0]])
    >>> rope_rotate(x, [1], base=100.0).round(4)  # pair 0 turns 1 rad, pair 1 turns 0.1 rad
    array([[0.5403, 0.8415, 0.995 , 0.0998]])
    >>> q, k = np.array([[0.3, -1.2]]), np.array([[0.8, 0.5]])
    >>> a = (rope_rotate(q, [5]) @ rope_rotate(k, [2]).T).item()
    >>> b = (rope_rotate(q, [13]) @ rope_rotate(k, [10]).T).item()
    >>> round(a, 12) == round(b, 12)  # same distance 3 -> same score
    True
    """
    xa = check.finite_array("x", x, min_ndim=2)
    d = xa.shape[-1]
    if d == 0 or d % 2:
        raise ValueError(
            f"x must have an even, non-zero last dimension (pairs of dims are rotated); got shape {xa.shape}"
        )
    pos = check.real("positions", positions, minimum=-MAX_POSITION, maximum=MAX_POSITION)
    theta = check.real("base", base, minimum=1, min_inclusive=False)
    if not isinstance(theta, float):
        raise TypeError(f"base must be a single number > 1; got an array of shape {np.shape(theta)}")
    frequencies = theta ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    try:
        angles = np.asarray(pos)[..., None] * frequencies
        np.broadcast_shapes(angles.shape, xa.shape[:-1] + (d // 2,))
    except ValueError:
        raise ValueError(f"positions of shape {np.shape(pos)} must match the rows of x (shape {xa.shape})") from None
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = xa[..., 0::2], xa[..., 1::2]

    def rotate() -> np.ndarray:
        out = np.empty(np.broadcast_shapes(xa.shape, angles.shape[:-1] + (d,)), dtype=np.float64)
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
        return out

    return check.float_result("rope_rotate", rotate)


def cross_entropy(logits: np.ndarray, target: int | np.ndarray) -> float:
    """Mean negative log-probability of the ``target`` tokens: ``-mean(log softmax(logits)[target])``.

    ``logits`` is ``(..., vocab)`` and ``target`` holds one token id per
    leading position.  This is the training loss of a language model.

    Examples
    --------
    >>> round(cross_entropy(np.zeros(32768), 7), 4)  # uniform guess = ln V
    10.3972
    >>> round(cross_entropy(np.array([[2.0, 0.0], [0.0, 2.0]]), np.array([0, 0])), 4)  # ln(1+e^-2), ln(1+e^2)
    1.1269
    """
    z = check.finite_array("logits", logits, min_ndim=1)
    vocab = z.shape[-1]
    if vocab == 0:
        raise ValueError(f"logits must have a non-empty vocabulary axis; got shape {z.shape}")
    ids = check.integer("target", target, minimum=0, maximum=vocab - 1)
    ids_array = np.asarray(ids)
    if ids_array.shape != z.shape[:-1]:
        raise ValueError(
            f"target must have shape {z.shape[:-1]} (one id per row of logits); got shape {ids_array.shape}"
        )
    def mean_loss() -> float:
        top = z.max(axis=-1, keepdims=True)
        log_norm = (top + np.log(np.exp(z - top).sum(axis=-1, keepdims=True)))[..., 0]
        picked = np.take_along_axis(z, ids_array[..., None], axis=-1)[..., 0]
        return np.mean(log_norm - picked)

    return check.float_result("cross_entropy", mean_loss)


def cross_entropy_gradient(logits: np.ndarray, target: int | np.ndarray) -> np.ndarray:
    """Gradient of :func:`cross_entropy` with respect to the logits: ``(softmax(logits) - one_hot(target)) / n``.

    For one position (``n = 1``) it is simply predicted probabilities minus
    the one-hot target: negative for the right token (raise its score),
    positive for every other token in proportion to its probability.  With
    ``n`` positions each row is divided by ``n`` because the loss is a mean.

    Examples
    --------
    >>> cross_entropy_gradient(np.array([1.0, 2.0, 0.0]), 0).round(3)
    array([-0.755,  0.665,  0.09 ])
    >>> abs(float(cross_entropy_gradient(np.array([1.0, 2.0, 0.0]), 0).sum())) < 1e-12  # both terms sum to 1
    True
    """
    z = check.finite_array("logits", logits, min_ndim=1)
    vocab = z.shape[-1]
    if vocab == 0:
        raise ValueError(f"logits must have a non-empty vocabulary axis; got shape {z.shape}")
    ids = np.asarray(check.integer("target", target, minimum=0, maximum=vocab - 1))
    if ids.shape != z.shape[:-1]:
        raise ValueError(f"target must have shape {z.shape[:-1]} (one id per row of logits); got shape {ids.shape}")
    gradient = softmax(z)
    np.put_along_axis(gradient, ids[..., None], np.take_along_axis(gradient, ids[..., None], axis=-1) - 1.0, axis=-1)
    return gradient / max(1, ids.size)


def initial_loss(vocab_size: int | np.ndarray) -> float | np.ndarray:
    """Expected loss of an untrained model: ``ln(vocab_size)``.

    A freshly initialised model spreads probability about evenly over the
    vocabulary, so each token costs ``-ln(1/V)``.  A first-step loss far
    above this points at a broken initialisation.

    Examples
    --------
    >>> round(initial_loss(32768), 3)
    10.397
    """
    v = check.integer("vocab_size", vocab_size, maximum=check.FLOAT_EXACT_INT)
    return check.float_result("initial_loss", lambda: np.log(np.asarray(v, dtype=np.float64)))


def perplexity(loss: float | np.ndarray) -> float | np.ndarray:
    """Perplexity ``e**loss``: the number of equally likely tokens the model is hesitating between.

    Examples
    --------
    >>> round(perplexity(initial_loss(32768)))  # untrained: the whole vocabulary
    32768
    >>> round(perplexity(2.0), 2)
    7.39
    """
    value = check.real("loss", loss, minimum=0, maximum=709)  # e**709.8 overflows float64
    return check.float_result("perplexity", lambda: np.exp(value))
