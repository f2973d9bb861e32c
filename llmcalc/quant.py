"""Absmax (symmetric, per-tensor) integer quantization and the error it introduces.

``scale = max|x| / (2**(bits-1) - 1)``, ``code = round(x / scale)``,
``x_hat = code * scale``.  The largest value maps exactly onto the largest
code; everything else is rounded to the nearest multiple of ``scale``, so the
round-trip error is at most ``scale / 2``.  One outlier inflates the scale
for the whole tensor, which is why real schemes (NF4, GPTQ, AWQ) quantize
in small blocks with one scale each.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from . import _validate as check


def _code_dtype(bits: int) -> type:
    return np.int8 if bits <= 8 else np.int16


def absmax_quantize(x: np.ndarray, bits: int = 8) -> tuple[np.ndarray, float]:
    """Quantize ``x`` to signed ``bits``-bit integer codes with one absmax scale.

    Codes lie in ``[-(2**(bits-1) - 1), 2**(bits-1) - 1]`` (symmetric: the
    most negative code is unused).  An all-zero tensor gets scale 1.0.

    Returns
    -------
    codes : ndarray of int8 (bits <= 8) or int16
    scale : float

    Examples
    --------
    >>> codes, scale = absmax_quantize(np.array([0.5, -1.27, 0.003]))
    >>> codes, scale
    (array([  50, -127,    0], dtype=int8), 0.01)
    >>> absmax_quantize(np.array([0.5, -1.0, 0.26]), bits=4)[0]
    array([ 4, -7,  2], dtype=int8)
    """
    values = check.finite_array("x", x)
    n_bits = check.integer("bits", bits, minimum=2, maximum=16)
    if not isinstance(n_bits, int):
        raise TypeError(f"bits must be a single integer in [2, 16]; got an array of shape {np.shape(n_bits)}")
    q_max = 2 ** (n_bits - 1) - 1
    peak = float(np.abs(values).max()) if values.size else 0.0
    scale = peak / q_max if peak > 0 else 1.0
    ratios = check.float_result("absmax_quantize", lambda: np.round(values / scale))
    codes = np.clip(ratios, -q_max, q_max).astype(_code_dtype(n_bits))
    return codes, scale


def dequantize(codes: np.ndarray, scale: float) -> np.ndarray:
    """Map integer codes back to real values: ``codes * scale``.

    Examples
    --------
    >>> dequantize(np.array([50, -127, 0]), 0.01)
    array([ 0.5 , -1.27,  0.  ])
    """
    q = check.integer("codes", codes, minimum=-(2**15), maximum=2**15 - 1)
    s = check.real("scale", scale, minimum=0, min_inclusive=False)
    if not isinstance(s, float):
        raise TypeError(f"scale must be a single positive number; got an array of shape {np.shape(s)}")
    return check.float_result("dequantize", lambda: np.asarray(q, dtype=np.float64) * s)


def quantization_error(x: np.ndarray, bits: int = 8) -> float:
    """Largest absolute round-trip error ``max|x - dequantize(quantize(x))|``; at most ``scale / 2``.

    Examples
    --------
    >>> x = np.array([0.5, -1.27, 0.003, 0.777])
    >>> round(quantization_error(x, 8), 6)
    0.003
    >>> round(quantization_error(x, 4), 6)  # scale 1.27/7; 0.777 -> code 4 -> 0.7257
    0.051286
    """
    codes, scale = absmax_quantize(x, bits)
    values = np.asarray(x, dtype=np.float64)
    return float(np.abs(values - codes.astype(np.float64) * scale).max()) if values.size else 0.0


def scale_overhead_bits(
    block_size: int | np.ndarray,
    scale_bits: int | np.ndarray = 32,
    *,
    double_quant_block: int | np.ndarray | None = None,
    quantized_scale_bits: int | np.ndarray = 8,
) -> float | np.ndarray:
    """Extra bits per weight spent on quantization scales: ``scale_bits / block_size``.

    One ``scale_bits`` constant per block of ``block_size`` weights.  With
    double quantization (QLoRA) the constants are themselves stored in
    ``quantized_scale_bits`` bits, with one ``scale_bits`` constant per
    ``double_quant_block`` of them::

        quantized_scale_bits / block_size + scale_bits / (block_size * double_quant_block)

    Zero-points, when a scheme has them, are not counted.

    Examples
    --------
    QLoRA's NF4 setup: 64-weight blocks, constants double-quantized in groups of 256.

    >>> scale_overhead_bits(64)
    0.5
    >>> round(scale_overhead_bits(64, double_quant_block=256), 3)
    0.127
    """
    block = check.integer("block_size", block_size, maximum=check.FLOAT_EXACT_INT)
    bits = check.integer("scale_bits", scale_bits, maximum=64)
    if double_quant_block is None:
        check.broadcastable(block_size=block, scale_bits=bits)
        return check.float_result("scale_overhead_bits", lambda: np.divide(bits, block, dtype=np.float64))
    group = check.integer("double_quant_block", double_quant_block, maximum=check.FLOAT_EXACT_INT)
    code_bits = check.integer("quantized_scale_bits", quantized_scale_bits, maximum=64)
    check.broadcastable(block_size=block, scale_bits=bits, double_quant_block=group, quantized_scale_bits=code_bits)
    block_f = np.asarray(block, dtype=np.float64)
    group_f = np.asarray(group, dtype=np.float64)
    return check.float_result("scale_overhead_bits", lambda: code_bits / block_f + np.divide(bits, block_f * group_f))


GGUF_BLOCKS: Mapping[str, tuple[int, int]] = MappingProxyType({
    # name: (weights per block, bytes per block), from the block structs in ggml's ggml-common.h
    "F32": (1, 4),
    "F16": (1, 2),
    "BF16": (1, 2),
    "Q8_0": (32, 34),     # 32 int8 codes + one fp16 scale
    "Q5_1": (32, 24),     # fp16 scale and min + 32 high bits + 32 4-bit low parts
    "Q5_0": (32, 22),     # fp16 scale + 32 high bits + 32 4-bit low parts
    "Q4_1": (32, 20),     # fp16 scale and min + 32 4-bit codes
    "Q4_0": (32, 18),     # fp16 scale + 32 4-bit codes
    "Q6_K": (256, 210),   # 6-bit codes + 16 int8 sub-block scales + fp16 super-block scale
    "Q5_K": (256, 176),   # 5-bit codes + 8 x (6-bit scale, 6-bit min) + fp16 scale and min
    "Q4_K": (256, 144),   # 4-bit codes + 8 x (6-bit scale, 6-bit min) + fp16 scale and min
    "Q3_K": (256, 110),   # 3-bit codes + 16 6-bit scales + fp16 scale
    "Q2_K": (256, 84),    # 2-bit codes + 16 x (4-bit scale, 4-bit min) + fp16 scale and min
})
"""GGUF tensor types: weights per block and bytes per block (codes plus the block's constants)."""


def _gguf_block(kind: str) -> tuple[int, int]:
    return GGUF_BLOCKS[check.choice("kind", kind, GGUF_BLOCKS)]


def gguf_bits_per_weight(kind: str) -> float:
    """Average bits per weight of a GGUF tensor type: ``8 * bytes per block / weights per block``.

    Includes the block's scales (and mins), which is why Q8_0 costs 8.5
    bits, not 8.  See :data:`GGUF_BLOCKS` for the layouts.

    Examples
    --------
    >>> gguf_bits_per_weight("Q8_0"), gguf_bits_per_weight("Q4_0"), gguf_bits_per_weight("Q4_K")
    (8.5, 4.5, 4.5)
    >>> gguf_bits_per_weight("Q6_K")
    6.5625
    """
    weights, size = _gguf_block(kind)
    return 8 * size / weights


def gguf_weight_bytes(n_params: int | np.ndarray, kind: str) -> int | np.ndarray:
    """Bytes of ``n_params`` weights stored as GGUF type ``kind``: ``ceil(n_params / block) * block_bytes``.

    Treats the weights as one tensor in one type.  Real GGUF files round up
    per tensor and keep some tensors (norms, often the embedding or output
    matrix) in another type, so a file differs from this by those tensors
    plus its metadata.

    Examples
    --------
    >>> gguf_weight_bytes(32, "Q8_0"), gguf_weight_bytes(33, "Q8_0")
    (34, 68)
    >>> gguf_weight_bytes(np.array([256, 512]), "Q4_K")
    array([144, 288])
    """
    weights, size = _gguf_block(kind)
    count = check.integer("n_params", n_params, minimum=0)
    if check.is_scalar(count):
        return -(-count // weights) * size
    check.checked_int64(check.magnitude(count) * size, "gguf_weight_bytes")
    return check.as_result_int(-(-count // weights) * size)
