"""Absmax (symmetric, per-tensor) integer quantization and the error it introduces.

``scale = max|x| / (2**(bits-1) - 1)``, ``code = round(x / scale)``,
``x_hat = code * scale``.  The largest value maps exactly onto the largest
code; everything else is rounded to the nearest multiple of ``scale``, so the
round-trip error is at most ``scale / 2``.  One outlier inflates the scale
for the whole tensor, which is why real schemes (NF4, GPTQ, AWQ) quantize
in small blocks with one scale each.
"""

from __future__ import annotations

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
