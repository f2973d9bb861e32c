"""Memory footprints: weights, KV cache, training state, and the decode-speed bound they imply.

Byte counts are exact integers computed from exact parameter counts.  What is
*not* included is stated in each function; activations, framework overhead
(CUDA context, allocator fragmentation) and quantization metadata are never
included.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from . import _validate as check
from .config import ModelConfig
from .units import GB, KB, MB, TB, GiB, KiB, MiB, TiB  # noqa: F401  (re-exported for convenience)

DTYPE_BITS: Mapping[str, int] = MappingProxyType(
    {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8, "int4": 4, "nf4": 4}
)
"""Bits per stored value for each supported number format."""

DTYPE_BYTES: Mapping[str, int | float] = MappingProxyType(
    {name: bits // 8 if bits % 8 == 0 else bits / 8 for name, bits in DTYPE_BITS.items()}
)
"""Bytes per stored value: fp32 4, fp16/bf16 2, fp8/int8 1, int4/nf4 0.5."""

# Optimizer -> (number of per-parameter state tensors, bytes per state value or
# None to follow the precision recipe).  8-bit optimizers store states in 1 byte.
OPTIMIZERS: Mapping[str, tuple[int, int | None]] = MappingProxyType({
    "adamw": (2, None),      # first and second moment
    "adam": (2, None),
    "adamw-8bit": (2, 1),    # bitsandbytes-style; block scales not counted
    "lion": (1, None),       # momentum only
    "sgd-momentum": (1, None),
    "sgd": (0, None),
})

# Precision recipe -> bytes per parameter for (weights, gradients, fp32 master
# weights, each optimizer state value).
PRECISIONS: Mapping[str, tuple[int, int, int, int]] = MappingProxyType({
    "mixed": (2, 2, 4, 4),   # bf16/fp16 compute copy + fp32 master and states
    "fp32": (4, 4, 0, 4),
    "bf16": (2, 2, 0, 2),    # pure bf16: no master copy, states in bf16
})


def _dtype_bits(dtype: str) -> int:
    return DTYPE_BITS[check.choice("dtype", dtype, DTYPE_BITS)]


def weight_bytes(n_params: int | np.ndarray, dtype: str = "bf16") -> int | np.ndarray:
    """Bytes needed to store ``n_params`` weights in ``dtype``.

    ``n_params * bits / 8``, rounded up to a whole byte (two 4-bit values
    share a byte, so an odd count needs one extra half-used byte).

    Counted: the weight values only.  Not counted: quantization scales and
    zero-points (e.g. NF4/int4 with one fp16 scale per 64 weights adds about
    0.25 bits per weight), the KV cache (:func:`kv_cache_bytes`), activations,
    and framework overhead.

    Examples
    --------
    >>> from llmcalc import get_preset, param_count
    >>> n = param_count(get_preset("llama-2-7b"))
    >>> weight_bytes(n, "bf16")
    13476831232
    >>> weight_bytes(n, "nf4") / GiB  # doctest: +ELLIPSIS
    3.137...
    >>> weight_bytes(np.array([1, 2, 3]), "int4")
    array([1, 1, 2])
    >>> weight_bytes(7_000_000_000, "fp64")
    Traceback (most recent call last):
    ...
    ValueError: dtype must be one of 'fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4', 'nf4'; got 'fp64'
    """
    bits = _dtype_bits(dtype)
    count = check.integer("n_params", n_params, minimum=0)
    if check.is_scalar(count):
        return -(-count * bits // 8)
    check.checked_int64(check.magnitude(count) * bits + 7, "weight_bytes")
    return (count * bits + 7) // 8


def kv_cache_bytes_per_token(cfg: ModelConfig, dtype: str = "bf16") -> int:
    """KV-cache bytes added by one token: ``2 * n_layers * n_kv_heads * head_dim * bytes``.

    The 2 is one key and one value vector per KV head per layer.  With GQA,
    only the ``n_kv_heads`` shared heads are cached, not every query head.

    Examples
    --------
    Llama-2-7B (32 layers, 32 KV heads of 128) in bf16: half a MiB per token.

    >>> from llmcalc import get_preset
    >>> kv_cache_bytes_per_token(get_preset("llama-2-7b"))
    524288
    >>> kv_cache_bytes_per_token(get_preset("reference"))
    10240
    """
    if not isinstance(cfg, ModelConfig):
        raise TypeError(f"cfg must be a ModelConfig; got {type(cfg).__name__}")
    # 2 * bits is a multiple of 8 for every supported dtype, so this is exact.
    return 2 * cfg.n_layers * cfg.n_kv_heads * cfg.head_dim * _dtype_bits(dtype) // 8


def kv_cache_bytes(
    cfg: ModelConfig, tokens: int | np.ndarray, *, batch: int | np.ndarray = 1, dtype: str = "bf16"
) -> int | np.ndarray:
    """KV-cache bytes for ``batch`` sequences of ``tokens`` tokens each.

    ``2 * n_layers * n_kv_heads * head_dim * bytes(dtype) * tokens * batch``.
    Assumes full attention over the whole context (no sliding window, no
    paging waste); ``tokens`` and ``batch`` broadcast.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> kv_cache_bytes(get_preset("llama-2-7b"), 4096)  # 2 GiB for one 4k context
    2147483648
    >>> kv_cache_bytes(get_preset("llama-2-70b"), 4096, batch=8) / GiB
    10.0
    >>> kv_cache_bytes(get_preset("mistral-7b"), np.array([1024, 8192, 32768]), dtype="fp8") // MiB
    array([  64,  512, 2048])
    """
    per_token = kv_cache_bytes_per_token(cfg, dtype)
    n_tokens = check.integer("tokens", tokens, minimum=0)
    n_batch = check.integer("batch", batch, minimum=1)
    if check.is_scalar(n_tokens, n_batch):
        return per_token * n_tokens * n_batch
    check.broadcastable(tokens=n_tokens, batch=n_batch)
    check.checked_int64(per_token * check.magnitude(n_tokens) * check.magnitude(n_batch), "kv_cache_bytes")
    return check.as_result_int(per_token * np.multiply(n_tokens, n_batch))


def training_bytes_per_param(optimizer: str = "adamw", precision: str = "mixed") -> int:
    """Bytes of training state per parameter, before activations.

    Mixed precision with AdamW: 2 (bf16 weights) + 2 (bf16 gradients)
    + 4 (fp32 master weights) + 4 + 4 (fp32 first and second moments) = 16.
    See :data:`OPTIMIZERS` and :data:`PRECISIONS` for the accepted names.

    Examples
    --------
    >>> training_bytes_per_param()
    16
    >>> training_bytes_per_param("adamw-8bit"), training_bytes_per_param("sgd", "fp32")
    (10, 8)
    """
    return sum(_training_parts(1, optimizer, precision).values())


def _training_parts(n: int | np.ndarray, optimizer: str, precision: str) -> dict[str, int | np.ndarray]:
    n_states, state_bytes = OPTIMIZERS[check.choice("optimizer", optimizer, OPTIMIZERS)]
    weights, gradients, master, precision_state_bytes = PRECISIONS[check.choice("precision", precision, PRECISIONS)]
    per_state = precision_state_bytes if state_bytes is None else state_bytes
    return {
        "weights": weights * n,
        "gradients": gradients * n,
        "optimizer_states": n_states * per_state * n,
        "master_weights": master * n,
    }


def training_memory(
    n_params: int | np.ndarray, optimizer: str = "adamw", precision: str = "mixed"
) -> dict[str, int | np.ndarray]:
    """Training-state bytes by part: weights, gradients, optimizer states, master weights.

    Assumes every parameter is trained and nothing is sharded (no ZeRO/FSDP)
    or offloaded.  Not counted: activations (they depend on batch, sequence
    length and checkpointing), temporary buffers and framework overhead.

    Examples
    --------
    >>> from llmcalc import get_preset, param_count
    >>> parts = training_memory(param_count(get_preset("reference")))
    >>> parts
    {'weights': 359189760, 'gradients': 359189760, 'optimizer_states': 1436759040, 'master_weights': 718379520}
    >>> round(sum(parts.values()) / GB, 2)
    2.87
    """
    count = check.integer("n_params", n_params, minimum=0)
    if not check.is_scalar(count):
        check.checked_int64(check.magnitude(count) * 32, "training_memory")
    return _training_parts(count, optimizer, precision)


def decode_tokens_per_second_bound(
    weight_bytes_total: float | np.ndarray,
    bandwidth_bytes_per_s: float | np.ndarray,
    *,
    kv_cache_bytes: float | np.ndarray = 0,
) -> float | np.ndarray:
    """Upper bound on batch-1 decoding speed set by memory bandwidth.

    ``bandwidth / (weight_bytes_total + kv_cache_bytes)``: generating one
    token reads every weight (and the KV cache so far) from memory once, so
    no implementation can beat this at batch size 1.  Real systems reach
    perhaps 60-80% of it; compute, kernel launches and sampling are ignored.

    Examples
    --------
    Llama-2-7B in bf16 on a GPU with 1 TB/s of memory bandwidth:

    >>> round(decode_tokens_per_second_bound(13_476_831_232, 1e12), 1)
    74.2
    """
    weights = check.real("weight_bytes_total", weight_bytes_total, minimum=0, min_inclusive=False)
    bandwidth = check.real("bandwidth_bytes_per_s", bandwidth_bytes_per_s, minimum=0, min_inclusive=False)
    cache = check.real("kv_cache_bytes", kv_cache_bytes, minimum=0)
    check.broadcastable(weight_bytes_total=weights, bandwidth_bytes_per_s=bandwidth, kv_cache_bytes=cache)
    return check.float_result("decode_tokens_per_second_bound", lambda: np.divide(bandwidth, np.add(weights, cache)))


def weight_bytes_at_bits(n_params: float | np.ndarray, bits_per_weight: float | np.ndarray) -> float | np.ndarray:
    """Bytes for ``n_params`` values at an average of ``bits_per_weight`` bits each: ``n_params * bits / 8``.

    For formats whose cost per weight is not a whole dtype: block-quantized
    files (4.5 bits per weight for GGUF Q4_K, see
    :func:`llmcalc.gguf_bits_per_weight`) or the scale overhead of
    :func:`llmcalc.scale_overhead_bits` on its own.  A float, not rounded to
    whole bytes: the bits are an average over blocks.  For a plain dtype use
    :func:`weight_bytes`, which is exact.

    Examples
    --------
    >>> weight_bytes_at_bits(7_000_000_000, 4.5) / GB
    3.9375
    >>> weight_bytes_at_bits(64, np.array([0.5, 16.0]))
    array([  4., 128.])
    """
    count = check.real("n_params", n_params, minimum=0)
    bits = check.real("bits_per_weight", bits_per_weight, minimum=0, maximum=64)
    check.broadcastable(n_params=count, bits_per_weight=bits)
    return check.float_result("weight_bytes_at_bits", lambda: np.multiply(count, bits) / 8.0)


ZERO_STAGES = (0, 1, 2, 3)
# Training-state parts each ZeRO stage splits across the data-parallel GPUs (stage 0 is plain data parallelism).
_ZERO_SHARDED = {
    0: frozenset(),
    1: frozenset({"optimizer_states", "master_weights"}),
    2: frozenset({"optimizer_states", "master_weights", "gradients"}),
    3: frozenset({"optimizer_states", "master_weights", "gradients", "weights"}),
}


def zero_memory_per_gpu(
    n_params: int | np.ndarray,
    stage: int,
    n_gpus: int | np.ndarray,
    optimizer: str = "adamw",
    precision: str = "mixed",
) -> dict[str, int | np.ndarray]:
    """Training-state bytes per GPU under ZeRO data parallelism, by part (as :func:`training_memory`).

    Stage 0 is plain data parallelism: every GPU holds everything.  Stage 1
    splits the optimizer states (with the fp32 master weights) across the
    ``n_gpus`` data-parallel GPUs, stage 2 also the gradients, stage 3 also
    the weights (Rajbhandari et al., 2020; PyTorch FSDP corresponds to
    stage 3).  A split part costs ``ceil(n_params / n_gpus)`` parameters'
    worth of bytes per GPU, the padded equal shards DeepSpeed uses.  Not
    counted, as in :func:`training_memory`: activations, the temporary
    full-size buffers that stage 3 gathers layer by layer, and
    communication buffers.

    Examples
    --------
    A 7B model, mixed-precision AdamW, 8 GPUs:

    >>> for stage in ZERO_STAGES:
    ...     print(stage, sum(zero_memory_per_gpu(7_000_000_000, stage, 8).values()) / GB)
    0 112.0
    1 38.5
    2 26.25
    3 14.0
    """
    level = check.integer("stage", stage, minimum=0, maximum=3)
    if not isinstance(level, int):
        raise TypeError(f"stage must be a single integer in [0, 3]; got an array of shape {np.shape(level)}")
    count = check.integer("n_params", n_params, minimum=0)
    gpus = check.integer("n_gpus", n_gpus)
    check.broadcastable(n_params=count, n_gpus=gpus)
    if check.is_scalar(count, gpus):
        shard = -(-count // gpus)
    else:
        check.checked_int64(check.magnitude(count) * 32, "zero_memory_per_gpu")
        shard = check.as_result_int(-(-np.asarray(count) // np.asarray(gpus)))
    full = training_memory(count, optimizer, precision)
    per_shard = _training_parts(shard, optimizer, precision)
    parts = {part: per_shard[part] if part in _ZERO_SHARDED[level] else full[part] for part in full}
    if check.is_scalar(count, gpus):
        return parts
    # Unsharded parts follow n_params' shape only; give every part the full broadcast shape.
    shape = np.broadcast_shapes(np.shape(count), np.shape(gpus))
    return {part: np.broadcast_to(value, shape).astype(np.int64) for part, value in parts.items()}
