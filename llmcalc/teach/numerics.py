"""Floating-point formats: their limits from the bit layout, and rounding to bfloat16.

A binary float with ``e`` exponent bits and ``m`` stored mantissa bits
(IEEE-style: the top exponent code is reserved for inf/NaN) has largest
finite value ``(2 - 2**-m) * 2**(2**(e-1) - 1)``, machine epsilon ``2**-m``
and smallest normal value ``2**(2 - 2**(e-1))``.  bfloat16 keeps float32's
8 exponent bits (same range) but only 7 mantissa bits; float16 has 5 and 10.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .. import _validate as check

__all__ = ["FloatLimits", "bf16_round", "float_limits"]

# Format name -> (exponent bits, stored mantissa bits); the sign takes one more bit.
_LAYOUTS = {"fp32": (8, 23), "fp16": (5, 10), "bf16": (8, 7)}


class FloatLimits(NamedTuple):
    """Limits of a floating-point format."""

    max: float
    eps: float
    smallest_normal: float


def float_limits(fmt: str) -> FloatLimits:
    """Largest finite value, machine epsilon and smallest normal value of ``fmt`` (fp32, fp16 or bf16).

    Examples
    --------
    >>> float_limits("fp16")
    FloatLimits(max=65504.0, eps=0.0009765625, smallest_normal=6.103515625e-05)
    >>> f"{float_limits('bf16').max:.3e}", f"{float_limits('fp32').max:.3e}"  # same range
    ('3.390e+38', '3.403e+38')
    """
    exponent_bits, mantissa_bits = _LAYOUTS[check.choice("fmt", fmt, _LAYOUTS)]
    bias = 2 ** (exponent_bits - 1) - 1
    return FloatLimits(
        max=(2.0 - 2.0**-mantissa_bits) * 2.0**bias, eps=2.0**-mantissa_bits, smallest_normal=2.0 ** (1 - bias)
    )


def bf16_round(x: npt.ArrayLike) -> np.ndarray:
    """The bfloat16 values nearest to ``x`` (ties to even), as a float64 array.

    bfloat16 is the upper half of a float32.  ``x`` is first converted to
    float32 (as when a framework casts an fp32 tensor), then the low 16 bits
    are rounded away to nearest with ties to even, as PyTorch and JAX do for
    ``.to(bfloat16)``; plain truncation would always round towards zero.
    Values that would round to infinity are refused.

    Examples
    --------
    >>> bf16_round([1 + 2**-8, 1 + 3 * 2**-9, 0.1])  # halfway -> even 1.0; above halfway -> up
    array([1.        , 1.0078125 , 0.10009766])
    """
    values = check.values("x", x)
    with np.errstate(over="ignore"):
        bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    # Adding 0x7FFF plus the lowest kept bit, then dropping 16 bits, rounds to nearest with ties to even.
    lowest_kept = (bits >> np.uint64(16)) & np.uint64(1)
    rounded_bits = ((bits + np.uint64(0x7FFF) + lowest_kept) & np.uint64(0xFFFF0000)).astype(np.uint32)
    rounded = rounded_bits.view(np.float32).astype(np.float64)
    overflowed = ~np.isfinite(rounded)
    if overflowed.any():
        first = float(values[overflowed].flat[0])
        raise ValueError(
            f"x must lie within the bf16 range (about ±{float_limits('bf16').max:.4g}); got {first!r}, "
            "which rounds to infinity"
        )
    return rounded
