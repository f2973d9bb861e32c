"""Number formats: the names llmcalc accepts for stored values, model weights and the KV cache.

One vocabulary for the whole package, three views of it:

* :data:`~llmcalc.DTYPE_BITS`: a plain number format and its bits per value, what
  :func:`~llmcalc.weight_bytes` and :func:`~llmcalc.kv_cache_bytes` multiply by;
* :data:`WEIGHT_FORMATS`: the libraries' weight recipes the planner stores a model in,
  each counted tensor by tensor, with its scales, by
  :func:`~llmcalc.weightformats.weight_format_bytes`;
* :data:`KV_FORMATS`: the number formats the planner offers for the KV cache.

llama.cpp's block formats (Q4_K, Q8_0, …) are :data:`llmcalc.gguf.GGML_TYPES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import _validate as check

__all__ = ["DTYPE_BITS", "KV_FORMATS", "WEIGHT_FORMATS", "dtype_bits"]

DTYPE_BITS: Mapping[str, int] = MappingProxyType(
    {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8, "int4": 4, "nf4": 4}
)
"""Bits per stored value for each supported number format."""

WEIGHT_FORMATS = ("bf16", "fp8", "int8", "int4", "nf4", "nf4-dq")
"""The weight formats of :func:`~llmcalc.weightformats.weight_format_bytes`, least lossy first."""

KV_FORMATS = ("bf16", "fp16", "fp8", "fp32")
"""The number formats the planner offers for the KV cache (each a key of :data:`~llmcalc.DTYPE_BITS`)."""


def dtype_bits(dtype: str) -> int:
    """Bits per value of the number format ``dtype``, or a refusal naming the formats there are.

    Examples
    --------
    >>> dtype_bits("bf16"), dtype_bits("nf4")
    (16, 4)
    """
    return DTYPE_BITS[check.choice("dtype", dtype, DTYPE_BITS)]
