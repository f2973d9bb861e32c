"""Memory footprints: weights, KV cache and training state, in exact bytes.

Every function takes Python ints and returns Python ints.  What is *not*
included is stated in each function; activations and framework overhead
(CUDA context, allocator fragmentation) are never included here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import _validate as check
from .config import ModelConfig, checks_model
from .formats import dtype_bits

__all__ = [
    "OPTIMIZER_STATES", "PRECISION_BYTES", "ZERO_SHARDED", "kv_cache_bytes", "kv_cache_bytes_per_token",
    "training_memory", "weight_bytes", "zero_memory_per_gpu"
]

OPTIMIZER_STATES: Mapping[str, tuple[int, int | None]] = MappingProxyType({
    "adamw": (2, None),      # first and second moment
    "adam": (2, None),
    "adamw-8bit": (2, 1),    # bitsandbytes' 8-bit states; their per-block scales are not counted
    "adamw-32bit": (2, 4),   # bitsandbytes' 32-bit AdamW, paged or not: fp32 states whatever the parameters' dtype
    "lion": (1, None),       # momentum only
    "sgd-momentum": (1, None),
    "sgd": (0, None),
})
"""Optimizer -> (state values per parameter, bytes per state value or ``None`` to follow the precision recipe)."""

PRECISION_BYTES: Mapping[str, tuple[int, int, int, int]] = MappingProxyType({
    "mixed": (2, 2, 4, 4),   # bf16/fp16 compute copy + fp32 master and states
    "fp32": (4, 4, 0, 4),
    "bf16": (2, 2, 0, 2),    # pure bf16: no master copy, states in bf16
})
"""Precision recipe -> bytes per parameter of (weights, gradients, fp32 master weights, each optimizer state value)."""

ZERO_SHARDED: tuple[frozenset[str], ...] = (
    frozenset(),
    frozenset({"optimizer_states", "master_weights"}),
    frozenset({"optimizer_states", "master_weights", "gradients"}),
    frozenset({"optimizer_states", "master_weights", "gradients", "weights"}),
)
"""The training-state parts each ZeRO stage (the index) splits across the data-parallel GPUs; stage 0 is plain data
parallelism."""


def weight_bytes(n_params: int, dtype: str = "bf16") -> int:
    """Bytes needed to store ``n_params`` weights in ``dtype``.

    ``n_params * bits / 8``, rounded up to a whole byte.  Counted: the weight
    values only, not quantization scales (NF4 with one fp32 scale per 64 weights
    adds 0.5 bits per weight), the KV cache, activations or framework overhead.

    Examples
    --------
    >>> from llmcalc import get_preset, param_count
    >>> n = param_count(get_preset("llama-2-7b"))
    >>> weight_bytes(n, "bf16")
    13476831232
    >>> weight_bytes(n, "nf4")
    3369207808
    >>> weight_bytes(7_000_000_000, "fp64")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: dtype must be one of 'fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4', 'nf4'; ...
    """
    bits = dtype_bits(dtype)
    return -(-check.count("n_params", n_params, minimum=0) * bits // 8)


def _kv_values_per_token_per_layer(cfg: ModelConfig) -> int:
    if cfg.uses_latent_attention:
        # Latent attention caches the compressed latent and one shared rotary key, not per-head keys and values.
        return cfg.kv_lora_rank + cfg.rope_head_dim
    return 2 * cfg.n_kv_heads * cfg.head_dim


@checks_model
def kv_cache_bytes_per_token(cfg: ModelConfig, dtype: str = "bf16") -> int:
    """KV-cache bytes one more token adds while the context is shorter than every sliding window.

    ``2 * n_layers * n_kv_heads * head_dim * bytes``: one key and one value
    vector per KV head per layer (latent attention: ``kv_lora_rank +
    rope_head_dim`` values per layer).  Past a sliding window see :func:`kv_cache_bytes`.

    Examples
    --------
    Llama-2-7B (32 layers, 32 KV heads of 128) in bf16: half a MiB per token.

    >>> from llmcalc import get_preset
    >>> kv_cache_bytes_per_token(get_preset("llama-2-7b"))
    524288
    >>> kv_cache_bytes_per_token(get_preset("reference"))
    10240
    """
    # 2 * bits is a multiple of 8 for every supported dtype except a 4-bit latent, hence the rounding up.
    return -(-cfg.n_layers * _kv_values_per_token_per_layer(cfg) * dtype_bits(dtype) // 8)


@checks_model
def kv_cache_bytes(cfg: ModelConfig, tokens: int, *, batch: int = 1, dtype: str = "bf16") -> int:
    """KV-cache bytes that ``batch`` sequences of ``tokens`` tokens each leave in memory.

    Each layer stores ``2 * n_kv_heads * head_dim`` values per cached token
    (latent attention: ``kv_lora_rank + rope_head_dim``).  A full-attention
    layer caches all ``tokens``; a sliding-window layer with window ``W``
    caches ``min(tokens, W - 1)``: the next token attends to those ``W - 1``
    and itself, which is exactly what transformers' ``DynamicSlidingWindowLayer``
    keeps.  Not counted: paging waste, the cache's preallocation if a static
    cache is used, and activations.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB, MiB
    >>> kv_cache_bytes(get_preset("llama-2-7b"), 4096)  # 2 GiB for one 4k context
    2147483648
    >>> kv_cache_bytes(get_preset("llama-2-70b"), 4096, batch=8) / GiB
    10.0
    >>> [kv_cache_bytes(get_preset("mistral-7b"), t, dtype="fp8") // MiB for t in (1024, 4096, 32768)]  # window 4,096
    [64, 255, 255]
    """
    n_tokens = check.count("tokens", tokens, minimum=0)
    n_batch = check.count("batch", batch)
    bits = dtype_bits(dtype)
    windowed = cfg.sliding_window_layers
    cached = (cfg.n_layers - windowed) * n_tokens + windowed * min(n_tokens, max(cfg.sliding_window - 1, 0))
    return -(-cached * _kv_values_per_token_per_layer(cfg) * bits * n_batch // 8)


def training_memory(n_params: int, optimizer: str = "adamw", precision: str = "mixed") -> dict[str, int]:
    """Training-state bytes by part: weights, gradients, optimizer states, master weights.

    Mixed precision with AdamW: 2 (bf16 weights) + 2 (bf16 gradients) + 4 + 4
    (fp32 moments) + 4 (fp32 master weights) = 16 bytes per parameter.
    Optimizers: ``adamw``, ``adam``, ``adamw-8bit`` (1-byte states), ``lion``,
    ``sgd-momentum``, ``sgd``; precisions: ``mixed``, ``fp32``, ``bf16`` (no
    master copy).  Every parameter trained, nothing sharded or offloaded; no activations.

    Examples
    --------
    >>> from llmcalc import get_preset, param_count, GB
    >>> parts = training_memory(param_count(get_preset("reference")))
    >>> parts
    {'weights': 359189760, 'gradients': 359189760, 'optimizer_states': 1436759040, 'master_weights': 718379520}
    >>> round(sum(parts.values()) / GB, 2)
    2.87
    >>> sum(training_memory(1, "adamw-8bit").values()), sum(training_memory(1, "sgd", "fp32").values())
    (10, 8)
    """
    n = check.count("n_params", n_params, minimum=0)
    n_states, state_bytes = OPTIMIZER_STATES[check.choice("optimizer", optimizer, OPTIMIZER_STATES)]
    recipe = check.choice("precision", precision, PRECISION_BYTES)
    weights, gradients, master, recipe_state_bytes = PRECISION_BYTES[recipe]
    per_state = recipe_state_bytes if state_bytes is None else state_bytes
    return {
        "weights": weights * n,
        "gradients": gradients * n,
        "optimizer_states": n_states * per_state * n,
        "master_weights": master * n,
    }


def zero_memory_per_gpu(
    n_params: int, stage: int, n_gpus: int, optimizer: str = "adamw", precision: str = "mixed"
) -> dict[str, int]:
    """Training-state bytes per GPU under ZeRO data parallelism, by part (as :func:`training_memory`).

    Stage 0 is plain data parallelism: every GPU holds everything.  Stage 1
    splits the optimizer states (with the fp32 master weights) across the
    ``n_gpus`` data-parallel GPUs, stage 2 also the gradients, stage 3 also
    the weights (Rajbhandari et al., 2020; PyTorch FSDP corresponds to
    stage 3).  A split part costs ``ceil(n_params / n_gpus)`` parameters'
    worth of bytes per GPU (DeepSpeed's padded shards).  Not counted: activations
    and the gather and communication buffers.

    Examples
    --------
    A 7B model, mixed-precision AdamW, 8 GPUs:

    >>> for stage in range(4):
    ...     print(stage, sum(zero_memory_per_gpu(7_000_000_000, stage, 8).values()) / 10**9)
    0 112.0
    1 38.5
    2 26.25
    3 14.0
    """
    level = check.count("stage", stage, minimum=0, maximum=3)
    n = check.count("n_params", n_params, minimum=0)
    shard = -(-n // check.count("n_gpus", n_gpus))
    full = training_memory(n, optimizer, precision)
    split = training_memory(shard, optimizer, precision)
    return {part: split[part] if part in ZERO_SHARDED[level] else full[part] for part in full}
