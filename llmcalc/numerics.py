"""Floating-point formats: their limits, and rounding values to bfloat16 and float16.

A binary float with ``e`` exponent bits and ``m`` stored mantissa bits
(IEEE-style: the top exponent code is reserved for inf/NaN) has

* largest finite value ``(2 - 2**-m) * 2**(2**(e-1) - 1)``,
* machine epsilon (gap between 1 and the next value) ``2**-m``,
* smallest normal value ``2**(2 - 2**(e-1))``.

bfloat16 keeps float32's 8 exponent bits (same range) but only 7 mantissa
bits (about 2-3 significant digits); float16 has 5 and 10.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from . import _validate as check

FLOAT_FORMATS: Mapping[str, tuple[int, int]] = MappingProxyType({
    "fp32": (8, 23),
    "fp16": (5, 10),
    "bf16": (8, 7),
})
"""Format name -> (exponent bits, stored mantissa bits); the sign takes one more bit."""


class FloatLimits(NamedTuple):
    """Limits of a floating-point format."""

    max: float
    eps: float
    smallest_normal: float


def float_limits(fmt: str) -> FloatLimits:
    """Largest finite value, machine epsilon and smallest normal value of ``fmt``.

    Computed from the bit layout (see the module docstring); agrees with
    ``numpy.finfo`` for float32 and float16.

    Examples
    --------
    >>> float_limits("fp16")
    FloatLimits(max=65504.0, eps=0.0009765625, smallest_normal=6.103515625e-05)
    >>> f"{float_limits('bf16').max:.3e}", f"{float_limits('fp32').max:.3e}"  # same range
    ('3.390e+38', '3.403e+38')
    >>> float_limits("bf16").eps  # but far coarser steps
    0.0078125
    """
    exponent_bits, mantissa_bits = FLOAT_FORMATS[check.choice("fmt", fmt, FLOAT_FORMATS)]
    bias = 2 ** (exponent_bits - 1) - 1
    return FloatLimits(
        max=(2.0 - 2.0**-mantissa_bits) * 2.0**bias,
        eps=2.0**-mantissa_bits,
        smallest_normal=2.0 ** (1 - bias),
    )


def _overflow_error(name: str, fmt: str, values: np.ndarray, overflowed: np.ndarray) -> ValueError:
    index = tuple(int(i) for i in np.argwhere(overflowed)[0])
    where = "" if not index else f" (at index {index[0] if len(index) == 1 else index})"
    return ValueError(
        f"{name} must lie within the {fmt} range (values up to about ±{float_limits(fmt).max:.4g} "
        f"round to a finite {fmt}); got {values[index].item()!r}{where}, which rounds to infinity"
    )


def _as_result(rounded: np.ndarray) -> float | np.ndarray:
    return float(rounded) if rounded.ndim == 0 else rounded


def bf16_round(x: float | np.ndarray) -> float | np.ndarray:
    """The bfloat16 value nearest to ``x`` (ties to even), returned as float64.

    bfloat16 is the upper half of a float32: sign, 8 exponent bits and the
    top 7 mantissa bits.  ``x`` is first converted to float32 (as when a
    framework casts an fp32 tensor), then the low 16 bits are rounded away
    with round-to-nearest-even, the rounding PyTorch and JAX use for
    ``.to(bfloat16)``.  Plain truncation (just dropping the low bits) would
    always round towards zero.  The result is exactly representable in
    float64.  Values that would round to infinity are refused.

    Examples
    --------
    >>> bf16_round(np.array([1 + 2**-8, 1 + 2**-6]))  # halfway -> even (1.0); exact stays
    array([1.      , 1.015625])
    >>> bf16_round(1 + 3 * 2**-9)  # above halfway: up to the next step of 2**-7
    1.0078125
    >>> bf16_round(0.1)
    0.10009765625
    >>> bf16_round(1.0 + 1e-3)  # an update below half a step is lost
    1.0
    """
    values = check.finite_array("x", x)
    with np.errstate(over="ignore"):
        single = values.astype(np.float32)
    bits = single.view(np.uint32).astype(np.uint64)
    # Adding 0x7FFF plus the lowest kept bit, then dropping 16 bits, rounds to nearest with ties to even.
    lowest_kept = (bits >> np.uint64(16)) & np.uint64(1)
    rounded_bits = ((bits + np.uint64(0x7FFF) + lowest_kept) & np.uint64(0xFFFF0000)).astype(np.uint32)
    rounded = rounded_bits.view(np.float32).astype(np.float64)
    overflowed = ~np.isfinite(rounded)
    if overflowed.any():
        raise _overflow_error("x", "bf16", values, overflowed)
    return _as_result(rounded)


def fp16_round(x: float | np.ndarray) -> float | np.ndarray:
    """The IEEE float16 value nearest to ``x`` (ties to even), returned as float64.

    Uses numpy's ``float16`` conversion.  float16 has more mantissa bits
    than bfloat16 (10 against 7) but a far smaller range: values beyond
    about 65504 are refused here rather than turned into infinity, and
    values below about 6e-8 flush to zero.

    Examples
    --------
    >>> fp16_round(0.1)
    0.0999755859375
    >>> fp16_round(np.array([2048.0, 2049.0, 2051.0]))  # steps of 2 above 2048
    array([2048., 2048., 2052.])
    >>> fp16_round(70000.0)
    Traceback (most recent call last):
    ...
    ValueError: x must lie within the fp16 range (values up to about ±6.55e+04 round to a finite fp16); got 70000.0, which rounds to infinity
    """
    values = check.finite_array("x", x)
    with np.errstate(over="ignore"):
        rounded = values.astype(np.float16).astype(np.float64)
    overflowed = ~np.isfinite(rounded)
    if overflowed.any():
        raise _overflow_error("x", "fp16", values, overflowed)
    return _as_result(rounded)
