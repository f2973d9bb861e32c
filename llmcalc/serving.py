"""Serving arithmetic: request latency, paged KV-cache blocks, and how many sequences fit in memory.

Times are in seconds and memory in bytes; arguments broadcast.
"""

from __future__ import annotations

import numpy as np

from . import _validate as check
from .config import ModelConfig
from .memory import kv_cache_bytes


def request_latency(
    ttft: float | np.ndarray, tpot: float | np.ndarray, n_tokens: int | np.ndarray
) -> float | np.ndarray:
    """End-to-end latency of one streamed reply: ``ttft + (n_tokens - 1) * tpot``.

    The first token arrives after the time to first token (TTFT: queueing
    plus prefill); each of the remaining ``n_tokens - 1`` follows one time
    per output token (TPOT, a decode step) later.  Assumes a steady TPOT.

    Examples
    --------
    >>> round(request_latency(0.2, 0.02, 101), 2)
    2.2
    >>> request_latency(0.2, np.array([0.01, 0.02, 0.05]), 101).round(2)
    array([1.2, 2.2, 5.2])
    """
    first = check.real("ttft", ttft, minimum=0)
    per_token = check.real("tpot", tpot, minimum=0)
    n = check.integer("n_tokens", n_tokens, maximum=check.FLOAT_EXACT_INT)
    check.broadcastable(ttft=first, tpot=per_token, n_tokens=n)
    return check.float_result("request_latency", lambda: np.add(first, np.multiply(np.subtract(n, 1), per_token)))


def paged_kv_blocks(tokens: int | np.ndarray, block_size: int | np.ndarray = 16) -> int | np.ndarray:
    """KV-cache blocks (pages) a sequence of ``tokens`` occupies: ``ceil(tokens / block_size)``.

    Paged attention (vLLM; default block of 16 tokens) allocates the cache
    in fixed-size blocks as a sequence grows, so only the last block can be
    partly empty.  Exact integer.

    Examples
    --------
    >>> paged_kv_blocks(1_000, 16)
    63
    >>> paged_kv_blocks(np.array([0, 1, 16, 17]), 16)
    array([0, 1, 1, 2])
    """
    n = check.integer("tokens", tokens, minimum=0)
    size = check.integer("block_size", block_size)
    if check.is_scalar(n, size):
        return -(-n // size)
    check.broadcastable(tokens=n, block_size=size)
    return check.as_result_int(-(-np.asarray(n) // np.asarray(size)))


def paged_kv_idle_slots(tokens: int | np.ndarray, block_size: int | np.ndarray = 16) -> int | np.ndarray:
    """Token slots allocated but unused in the last block: ``blocks * block_size - tokens``.

    Always below ``block_size``: the whole waste of paging, per sequence.

    Examples
    --------
    >>> paged_kv_idle_slots(1_000, 16)
    8
    >>> paged_kv_idle_slots(np.array([16, 17, 31]), 16)
    array([ 0, 15,  1])
    """
    blocks = paged_kv_blocks(tokens, block_size)
    if check.is_scalar(blocks):
        return blocks * int(block_size) - int(tokens)
    # blocks * block_size < tokens + block_size, so this bound keeps the product inside int64.
    check.checked_int64(check.magnitude(tokens) + check.magnitude(block_size), "paged_kv_idle_slots")
    return check.as_result_int(np.subtract(np.multiply(blocks, block_size), tokens))


def kv_cache_max_sequences(
    cfg: ModelConfig,
    tokens: int | np.ndarray,
    memory_bytes: int | np.ndarray,
    *,
    reserved_bytes: int | np.ndarray = 0,
    dtype: str = "bf16",
) -> int | np.ndarray:
    """How many sequences of ``tokens`` tokens fit their KV cache in memory.

    ``(memory_bytes - reserved_bytes) // kv_cache_bytes(cfg, tokens)``, where
    ``reserved_bytes`` is what is already taken (usually the weights).
    Activations, the engine's own buffers and fragmentation are not counted,
    so the real figure is lower; 0 means not even one sequence fits.

    Examples
    --------
    Llama-3-8B in bf16 on an 80 GB card, 8,192-token conversations:

    >>> from llmcalc import GB, get_preset, param_count, weight_bytes
    >>> cfg = get_preset("llama-3-8b")
    >>> kv_cache_max_sequences(cfg, 8_192, 80 * GB, reserved_bytes=weight_bytes(param_count(cfg), "bf16"))
    59
    >>> kv_cache_max_sequences(cfg, np.array([2_048, 8_192, 32_768]), 24 * GB)
    array([89, 22,  5])
    """
    per_sequence = kv_cache_bytes(cfg, tokens, dtype=dtype)
    memory = check.integer("memory_bytes", memory_bytes, minimum=0)
    reserved = check.integer("reserved_bytes", reserved_bytes, minimum=0)
    check.broadcastable(tokens=per_sequence, memory_bytes=memory, reserved_bytes=reserved)
    empty = np.asarray(per_sequence) == 0
    if empty.any():
        raise ValueError("tokens must be an integer >= 1 (an empty sequence needs no cache); got 0")
    over = np.asarray(np.greater(reserved, memory))
    if over.any():
        index = tuple(int(i) for i in np.argwhere(over)[0]) if over.ndim else ()
        # int(), not .item(): a Python int beyond int64 sits in an object array and has no .item().
        m, r = (int(np.broadcast_to(np.asarray(v), over.shape)[index]) for v in (memory, reserved))
        raise ValueError(f"reserved_bytes must not exceed memory_bytes; got reserved_bytes={r}, memory_bytes={m}")
    if check.is_scalar(per_sequence, memory, reserved):
        return (memory - reserved) // per_sequence
    # A scalar beside arrays may still be a Python int beyond int64; numpy would overflow.
    bound = max(check.magnitude(v) for v in (per_sequence, memory, reserved))
    check.checked_int64(bound, "kv_cache_max_sequences")
    return check.as_result_int(np.floor_divide(np.subtract(memory, reserved), per_sequence))
