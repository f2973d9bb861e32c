"""Inference-time savings: smaller KV caches (GQA, MLA) and speculative decoding.

The cache ratios compare per-token, per-layer KV-cache sizes with plain
multi-head attention (MHA), which caches ``2 * n_heads * head_dim`` values.
"""

from __future__ import annotations

import numpy as np

from . import _validate as check


def gqa_cache_reduction(n_heads: int | np.ndarray, n_kv_heads: int | np.ndarray) -> float | np.ndarray:
    """How many times smaller the KV cache is with GQA: ``n_heads / n_kv_heads``.

    Grouped-query attention lets each group of ``n_heads / n_kv_heads`` query
    heads share one key/value head, so only ``n_kv_heads`` heads are cached.
    ``n_kv_heads`` must divide ``n_heads``; ``n_kv_heads = 1`` is multi-query
    attention.

    Examples
    --------
    >>> gqa_cache_reduction(10, 2)  # the reference model
    5.0
    >>> gqa_cache_reduction(64, np.array([64, 8, 1]))
    array([ 1.,  8., 64.])
    """
    heads = check.integer("n_heads", n_heads, maximum=check.FLOAT_EXACT_INT)
    kv_heads = check.integer("n_kv_heads", n_kv_heads, maximum=check.FLOAT_EXACT_INT)
    check.broadcastable(n_heads=heads, n_kv_heads=kv_heads)
    bad = np.asarray(np.mod(heads, kv_heads) != 0) | np.asarray(np.greater(kv_heads, heads))
    if bad.any():
        h, kv = np.broadcast_arrays(np.asarray(heads), np.asarray(kv_heads))
        index = tuple(int(i) for i in np.argwhere(np.broadcast_to(bad, h.shape))[0])
        raise ValueError(f"n_kv_heads must divide n_heads; got n_heads={int(h[index])}, n_kv_heads={int(kv[index])}")
    return check.float_result("gqa_cache_reduction", lambda: np.divide(heads, kv_heads, dtype=np.float64))


def mla_cache_reduction(
    n_heads: int | np.ndarray,
    head_dim: int | np.ndarray,
    latent_dim: int | np.ndarray,
    *,
    rope_dim: int | np.ndarray = 0,
) -> float | np.ndarray:
    """How many times smaller the KV cache is with multi-head latent attention than with MHA.

    ``2 * n_heads * head_dim / (latent_dim + rope_dim)``.  MLA caches one
    compressed latent vector per token and layer (``latent_dim`` values) and
    rebuilds every head's keys and values from it; DeepSeek-V2/V3 also cache
    a small decoupled RoPE key of ``rope_dim`` values, shared by all heads.

    Examples
    --------
    DeepSeek-V2 (128 heads of 128, latent 512, RoPE key 64):

    >>> round(mla_cache_reduction(128, 128, 512, rope_dim=64), 1)
    56.9
    """
    heads = check.integer("n_heads", n_heads, maximum=check.FLOAT_EXACT_INT)
    dim = check.integer("head_dim", head_dim, maximum=check.FLOAT_EXACT_INT)
    latent = check.integer("latent_dim", latent_dim, maximum=check.FLOAT_EXACT_INT)
    rope = check.integer("rope_dim", rope_dim, minimum=0, maximum=check.FLOAT_EXACT_INT)
    check.broadcastable(n_heads=heads, head_dim=dim, latent_dim=latent, rope_dim=rope)
    return check.float_result(
        "mla_cache_reduction",
        lambda: 2.0 * np.multiply(heads, dim, dtype=np.float64) / np.add(latent, rope, dtype=np.float64),
    )


def speculative_expected_tokens(
    acceptance_rate: float | np.ndarray, draft_tokens: int | np.ndarray
) -> float | np.ndarray:
    """Expected tokens produced per target-model pass: ``(1 - a**(k+1)) / (1 - a)``.

    A draft model proposes ``k`` tokens; the target model checks them in one
    pass, accepts each with probability ``a`` (independently, the standard
    simplification of Leviathan et al., 2023) up to the first rejection, and
    always contributes one token of its own.  ``a = 1`` gives ``k + 1``.

    Examples
    --------
    >>> round(speculative_expected_tokens(0.8, 4), 4)
    3.3616
    >>> speculative_expected_tokens(np.array([0.0, 1.0]), 4)
    array([1., 5.])
    """
    a = check.real("acceptance_rate", acceptance_rate, minimum=0, maximum=1)
    k = check.integer("draft_tokens", draft_tokens, maximum=check.FLOAT_EXACT_INT)
    check.broadcastable(acceptance_rate=a, draft_tokens=k)
    a_arr, k_arr = np.asarray(a, dtype=np.float64), np.asarray(k, dtype=np.float64)
    # At a = 1 the geometric formula is 0/0; np.where picks the limit k + 1 there.
    return check.float_result(
        "speculative_expected_tokens",
        lambda: np.where(a_arr == 1.0, k_arr + 1.0, (1.0 - a_arr ** (k_arr + 1.0)) / (1.0 - a_arr)),
    )


def speculative_speedup(
    acceptance_rate: float | np.ndarray, draft_tokens: int | np.ndarray, cost_ratio: float | np.ndarray
) -> float | np.ndarray:
    """Expected wall-time speed-up of speculative decoding: ``E[tokens] / (k * c + 1)``.

    ``c`` is the cost of one draft-model step relative to one target-model
    step.  Each round costs ``k`` draft steps plus one target pass (assumed to
    cost the same as one ordinary decoding step, which holds while decoding
    is memory-bound) and yields :func:`speculative_expected_tokens` tokens.
    A result below 1 means the draft model is a net loss.

    Examples
    --------
    >>> round(speculative_speedup(0.8, 4, 0.05), 2)
    2.8
    >>> round(speculative_speedup(0.3, 8, 0.2), 2)  # poor acceptance, costly draft
    0.55
    """
    c = check.real("cost_ratio", cost_ratio, minimum=0)
    tokens = speculative_expected_tokens(acceptance_rate, draft_tokens)
    check.broadcastable(acceptance_rate=np.asarray(acceptance_rate), cost_ratio=c)
    return check.float_result("speculative_speedup", lambda: tokens / (np.multiply(draft_tokens, c) + 1.0))


def kv_cache_positions(
    tokens: int | np.ndarray,
    *,
    n_layers: int,
    window: int | np.ndarray | None = None,
    n_global_layers: int = 0,
) -> int | np.ndarray:
    """Token positions held in the KV cache, summed over layers, with optional sliding-window layers.

    ``n_global_layers * tokens + (n_layers - n_global_layers) * min(window, tokens)``.
    Full-attention ("global") layers cache every position; sliding-window
    layers keep only the last ``window`` positions.  ``window=None`` means
    every layer is global.  Multiply by the bytes per position and layer
    (``2 * n_kv_heads * head_dim * bytes``) for the cache size.

    Examples
    --------
    Gemma-style 1 global layer in 4, window 512, 20 layers, 8k context:

    >>> kv_cache_positions(8192, n_layers=20, window=512, n_global_layers=5)
    48640
    >>> kv_cache_positions(8192, n_layers=20)
    163840
    >>> kv_cache_positions(np.array([256, 1024]), n_layers=2, window=512)  # short contexts fit the window
    array([ 512, 1024])
    """
    n_tokens = check.integer("tokens", tokens, minimum=0)
    layers = check.integer("n_layers", n_layers)
    if not isinstance(layers, int):
        raise TypeError(f"n_layers must be a single integer >= 1; got an array of shape {np.shape(layers)}")
    n_global = check.integer("n_global_layers", n_global_layers, minimum=0, maximum=layers)
    if not isinstance(n_global, int):
        raise TypeError(f"n_global_layers must be a single integer in [0, {layers}]; got an array")
    if window is None:
        if n_global:
            raise ValueError(f"n_global_layers needs a window for the other layers; got n_global_layers={n_global}")
        n_global = layers
    width = n_tokens if window is None else check.integer("window", window)
    if check.is_scalar(n_tokens, width):
        return n_global * n_tokens + (layers - n_global) * min(width, n_tokens)
    check.broadcastable(tokens=n_tokens, window=width)
    check.checked_int64(layers * check.magnitude(n_tokens), "kv_cache_positions")
    return check.as_result_int(n_global * np.asarray(n_tokens) + (layers - n_global) * np.minimum(width, n_tokens))
