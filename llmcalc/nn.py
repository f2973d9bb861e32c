"""The small pieces of neural-network math that the glossary explains, in plain numpy.

Everything here is float64 and works on batches: leading axes are carried
along unchanged.
"""

from __future__ import annotations

import math
from typing import Any

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


def sliding_window_mask(n: int, window: int) -> np.ndarray:
    """Boolean ``n x n`` mask for sliding-window attention: query ``i`` sees keys ``i - window + 1 .. i``.

    The causal mask (:func:`causal_mask`) with everything more than
    ``window - 1`` positions back removed, so each row has at most
    ``window`` True entries.  ``window >= n`` gives the plain causal mask.

    Examples
    --------
    >>> sliding_window_mask(4, 2).astype(int)
    array([[1, 0, 0, 0],
           [1, 1, 0, 0],
           [0, 1, 1, 0],
           [0, 0, 1, 1]])
    """
    mask = causal_mask(n)
    width = check.integer("window", window)
    if not isinstance(width, int):
        raise TypeError(f"window must be a single integer >= 1; got an array of shape {np.shape(width)}")
    return mask & np.triu(np.ones_like(mask), k=-(min(width, mask.shape[0]) - 1))


def rope_wavelengths(head_dim: int, *, base: float = 10000.0) -> np.ndarray:
    """Wavelength in positions of each RoPE dimension pair: ``2 * pi * base**(2i / head_dim)``.

    Pair ``i`` turns by ``base**(-2i/head_dim)`` radians per position
    (:func:`rope_rotate`), so it completes one full turn every
    ``2 * pi * base**(2i/head_dim)`` positions: about 6 positions for the
    first pair, up to nearly ``2 * pi * base`` for the last.  Context
    extension methods such as YaRN decide per pair from this wavelength
    whether to leave it alone or to interpolate it.

    Examples
    --------
    >>> rope_wavelengths(4, base=100.0).round(2)  # pairs turn 1 and 0.1 rad per position
    array([ 6.28, 62.83])
    >>> int((rope_wavelengths(128) > 4096).sum())  # Llama 2 pairs that never finish a turn in 4k positions
    18
    """
    d = check.integer("head_dim", head_dim, maximum=MAX_MASK_SIZE)
    if not isinstance(d, int) or d % 2:
        raise ValueError(f"head_dim must be a single even integer in [2, {MAX_MASK_SIZE}]; got {head_dim!r}")
    theta = check.real("base", base, minimum=1, min_inclusive=False)
    if not isinstance(theta, float):
        raise TypeError(f"base must be a single number > 1; got an array of shape {np.shape(theta)}")
    return check.float_result("rope_wavelengths", lambda: 2 * np.pi * theta ** (np.arange(0, d, 2) / d))


def _activation_input(x: Any) -> float | np.ndarray:
    array = check.finite_array("x", x)
    return float(array) if array.ndim == 0 else array


def sigmoid(x: float | np.ndarray) -> float | np.ndarray:
    """Logistic sigmoid ``1 / (1 + e**-x)``: squashes any number into ``(0, 1)``.

    ``sigmoid(x)`` equals the first entry of ``softmax([x, 0])``, so it is
    the two-way softmax.  Computed without overflow for large ``|x|``.

    Examples
    --------
    >>> sigmoid(0.0)
    0.5
    >>> sigmoid(np.array([-2.0, 2.0])).round(3)
    array([0.119, 0.881])
    >>> sigmoid(-1000.0)  # no overflow warning
    0.0
    """
    z = _activation_input(x)

    def logistic() -> np.ndarray:
        # e**-|x| never overflows; the two branches are the same function rearranged.
        small = np.exp(-np.abs(z))
        return np.where(np.asarray(z) >= 0, 1.0 / (1.0 + small), small / (1.0 + small))

    return check.float_result("sigmoid", logistic)


def relu(x: float | np.ndarray) -> float | np.ndarray:
    """Rectified linear unit ``max(0, x)``, element by element.

    Integer input gives an integer result (the operation is exact); real
    input gives float64.

    Examples
    --------
    >>> relu(np.array([-2, 0, 3]))
    array([0, 0, 3])
    >>> relu(np.array([-1.5, 2.5]))
    array([0. , 2.5])
    >>> relu(-4)
    0
    """
    exact = isinstance(x, np.ndarray) and x.dtype.kind in "iu"
    if exact or (isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))):
        n = check.integer("x", x, minimum=-check.INT64_MAX - 1)
        return max(0, n) if isinstance(n, int) else np.maximum(n, 0)
    z = _activation_input(x)
    return check.float_result("relu", lambda: np.maximum(z, 0.0))


def silu(x: float | np.ndarray) -> float | np.ndarray:
    """SiLU (also called swish): ``x * sigmoid(x)``.

    Smooth, slightly negative for small negative inputs (minimum about
    -0.278 at ``x = -1.278``) and close to ReLU far from 0.  The gate of the
    SwiGLU feed-forward block.

    Examples
    --------
    >>> silu(np.array([-1.0, 0.0, 1.0])).round(3)
    array([-0.269,  0.   ,  0.731])
    """
    z = _activation_input(x)
    gate = sigmoid(z)
    return check.float_result("silu", lambda: np.multiply(z, gate))


GELU_APPROXIMATIONS = ("none", "tanh")

# Vectorised math.erf: numpy has no erf, and scipy is not a dependency.
_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x: float | np.ndarray, *, approximate: str = "none") -> float | np.ndarray:
    """GELU ``x * Phi(x)``, with ``Phi`` the standard normal CDF.

    ``approximate="none"`` (the default, as in PyTorch) uses the exact CDF
    ``Phi(x) = (1 + erf(x / sqrt(2))) / 2``.  ``approximate="tanh"`` is the
    approximation of Hendrycks and Gimpel (2016) used by GPT-2 and BERT::

        0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))

    The two differ by less than 0.001 everywhere.

    Examples
    --------
    >>> gelu(np.array([-1.0, 0.0, 1.0])).round(4)
    array([-0.1587,  0.    ,  0.8413])
    >>> gelu(np.array([-1.0, 0.0, 1.0]), approximate="tanh").round(4)
    array([-0.1588,  0.    ,  0.8412])
    """
    z = _activation_input(x)
    kind = check.choice("approximate", approximate, GELU_APPROXIMATIONS)
    if kind == "tanh":
        # For huge |x| the cube overflows to inf; tanh(+-inf) = +-1 is then the right limit.
        return check.float_result(
            "gelu",
            lambda: 0.5 * np.asarray(z) * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * np.power(z, 3)))),
        )
    return check.float_result("gelu", lambda: 0.5 * np.asarray(z) * (1.0 + _erf(np.asarray(z) / math.sqrt(2.0))))


def _normalisable(x: Any, eps: Any) -> tuple[np.ndarray, float]:
    values = check.finite_array("x", x, min_ndim=1)
    if values.shape[-1] == 0:
        raise ValueError(f"x must have a non-empty last axis (the features to normalise); got shape {values.shape}")
    epsilon = check.real("eps", eps, minimum=0)
    if not isinstance(epsilon, float):
        raise TypeError(f"eps must be a single number >= 0; got an array of shape {np.shape(epsilon)}")
    return values, epsilon


def layer_norm(x: np.ndarray, *, eps: float = 1e-5) -> np.ndarray:
    """LayerNorm without its learned scale and bias: ``(x - mean) / sqrt(var + eps)`` along the last axis.

    ``var`` is the population variance (divided by the number of
    features, not that minus 1), as in PyTorch.  ``eps`` (PyTorch's
    default 1e-5) keeps a constant vector from dividing by zero.  The
    learned per-feature scale and bias are applied afterwards.

    Examples
    --------
    >>> layer_norm(np.array([1.0, 2.0, 3.0]), eps=0.0).round(4)
    array([-1.2247,  0.    ,  1.2247])
    """
    values, epsilon = _normalisable(x, eps)
    centred = values - values.mean(axis=-1, keepdims=True)
    variance = np.mean(centred**2, axis=-1, keepdims=True)
    if epsilon == 0 and (variance == 0).any():
        raise ValueError("layer_norm with eps=0 needs features that are not all equal; got a constant vector")
    return check.float_result("layer_norm", lambda: centred / np.sqrt(variance + epsilon))


def rms_norm(x: np.ndarray, *, eps: float = 1e-5) -> np.ndarray:
    """RMSNorm without its learned scale: ``x / sqrt(mean(x**2) + eps)`` along the last axis.

    Unlike :func:`layer_norm` it does not subtract the mean, which saves a
    reduction.  ``eps`` 1e-5 is Llama 2's setting; the learned
    per-feature scale is applied afterwards.

    Examples
    --------
    >>> rms_norm(np.array([1.0, 2.0, 3.0]), eps=0.0).round(3)  # RMS = sqrt(14/3) = 2.160
    array([0.463, 0.926, 1.389])
    """
    values, epsilon = _normalisable(x, eps)
    # Scaling by the largest entry first keeps the squares inside float64.
    peak = np.abs(values).max(axis=-1, keepdims=True)
    if epsilon == 0 and (peak == 0).any():
        raise ValueError("rms_norm with eps=0 needs a vector that is not all zeros")

    def normalise() -> np.ndarray:
        if epsilon == 0:
            unit = values / peak
            return unit / np.sqrt(np.mean(unit**2, axis=-1, keepdims=True))
        return values / np.sqrt(np.mean(values**2, axis=-1, keepdims=True) + epsilon)

    return check.float_result("rms_norm", normalise)


def _distribution(name: str, value: Any) -> np.ndarray:
    p = check.finite_array(name, value, min_ndim=1)
    if p.shape[-1] == 0:
        raise ValueError(f"{name} must have a non-empty last axis; got shape {p.shape}")
    if (p < 0).any():
        raise ValueError(f"{name} must be non-negative (probabilities); got minimum {p.min().item()!r}")
    totals = p.sum(axis=-1)
    if not np.allclose(totals, 1.0, rtol=0, atol=1e-6):
        raise ValueError(f"{name} must sum to 1 along the last axis (within 1e-6); got sums {totals!r}")
    return p


def kl_divergence(p: np.ndarray, q: np.ndarray) -> float | np.ndarray:
    """Kullback-Leibler divergence ``KL(p || q) = sum_i p_i ln(p_i / q_i)`` in nats, along the last axis.

    How much extra surprise, on average, ``q`` gives to outcomes drawn from
    ``p``.  Zero only when the distributions are equal, never negative, and
    not symmetric: ``KL(p || q) != KL(q || p)`` in general.  Terms with
    ``p_i = 0`` contribute 0; a ``q_i = 0`` where ``p_i > 0`` makes the
    divergence infinite, which is refused rather than returned.  Leading
    axes broadcast (one KL per position).

    Examples
    --------
    >>> round(kl_divergence(np.array([0.9, 0.1]), np.array([0.5, 0.5])), 3)
    0.368
    >>> round(kl_divergence(np.array([0.5, 0.5]), np.array([0.9, 0.1])), 3)
    0.511
    >>> kl_divergence(np.array([1.0, 0.0]), np.array([0.5, 0.5])) == math.log(2)
    True
    """
    pa = _distribution("p", p)
    qa = _distribution("q", q)
    if pa.shape[-1] != qa.shape[-1]:
        raise ValueError(f"p and q must have the same last dimension (outcomes); got shapes {pa.shape} and {qa.shape}")
    try:
        pb, qb = np.broadcast_arrays(pa, qa)
    except ValueError:
        raise ValueError(f"leading axes of p and q must broadcast; got shapes {pa.shape} and {qa.shape}") from None
    impossible = (qb == 0) & (pb > 0)
    if impossible.any():
        index = tuple(int(i) for i in np.argwhere(impossible)[0])
        where = index[0] if len(index) == 1 else index
        raise ValueError(
            f"KL(p || q) is infinite: q is 0 where p is {pb[index].item()!r} (at index {where}); "
            "q must be > 0 wherever p > 0"
        )

    def divergence() -> np.ndarray:
        # p_i = 0 terms are 0 by convention; the safe ratio avoids log(0) in discarded entries.
        terms = np.where(pb > 0, pb * np.log(np.where(pb > 0, pb, 1.0) / np.where(pb > 0, qb, 1.0)), 0.0)
        return terms.sum(axis=-1)

    return check.float_result("kl_divergence", divergence)
