"""Float formats: limits from the bit layout against numpy.finfo, and bf16 rounding against an exact reference."""

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcalc.teach.numerics import bf16_round, float_limits


@pytest.mark.parametrize("fmt, numpy_type", [("fp32", np.float32), ("fp16", np.float16)])
def test_limits_agree_with_numpy_finfo(fmt, numpy_type):
    info = np.finfo(numpy_type)
    limits = float_limits(fmt)
    assert limits.max == float(info.max)
    assert limits.eps == float(info.eps)
    assert limits.smallest_normal == float(info.smallest_normal)


def test_bf16_limits_published_values():
    # bfloat16: max 0x7F7F = 3.38953139e38, eps 2**-7, smallest normal 0x0080 = 2**-126.
    limits = float_limits("bf16")
    assert limits.max == struct.unpack(">f", bytes.fromhex("7f7f0000"))[0]
    assert f"{limits.max:.8e}" == "3.38953139e+38"
    assert limits.eps == 0.0078125
    assert limits.smallest_normal == 2.0**-126


def _bf16_reference(value: float) -> float:
    """Nearest bfloat16 to a float32 value, ties to even, by comparing the two neighbours exactly."""
    bits = struct.unpack(">I", struct.pack(">f", value))[0]
    low_bits = bits & 0xFFFF0000
    high_bits = low_bits + 0x10000
    low = struct.unpack(">f", struct.pack(">I", low_bits))[0]
    # Past the largest finite value the next step up would be 2**128: rounding there means overflow (IEEE 754).
    high = struct.unpack(">f", struct.pack(">I", high_bits))[0] if (high_bits >> 23) & 0xFF != 0xFF else 2.0**128
    exact = struct.unpack(">f", struct.pack(">f", value))[0]
    gap_low, gap_high = abs(exact - low), abs(high - exact)
    if gap_low < gap_high or (gap_low == gap_high and (low_bits >> 16) % 2 == 0):
        return low
    return high if high < 2.0**128 else math.inf


@pytest.mark.parametrize("x, expected", [
    (1.0, 1.0),
    (1 + 2**-8, 1.0),                 # halfway between 1 and 1 + 2**-7: ties to the even 1.0
    (1 + 3 * 2**-8, 1 + 2**-6),        # halfway between odd 1 + 2**-7 and even 1 + 2**-6
    (1 + 2**-8 + 2**-20, 1 + 2**-7),   # just above halfway
    (1 + 2**-6, 1 + 2**-6),            # representable: unchanged
    (-(1 + 3 * 2**-8), -(1 + 2**-6)),  # symmetric for negatives
    (0.1, 0.10009765625),
    (3.14159265, 3.140625),
    (256.5, 256.0),                    # spacing 2 above 256
    (0.0, 0.0),
    (1e-40, 2.0**-133),                # float32 subnormal 0x000116C2 -> bf16 0x0001
])
def test_bf16_round_hand_cases(x, expected):
    assert bf16_round(x) == expected


@settings(max_examples=2000, deadline=None)
@given(x=st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_bf16_round_matches_exact_reference(x):
    expected = _bf16_reference(abs(x))
    if math.isinf(expected):
        with pytest.raises(ValueError, match="rounds to infinity"):
            bf16_round(x)
    else:
        assert bf16_round(x) == math.copysign(expected, x)


def test_bf16_round_keeps_shape_and_is_idempotent():
    x = np.random.default_rng(1).normal(size=(3, 4))
    once = bf16_round(x)
    assert once.shape == (3, 4) and once.dtype == np.float64
    np.testing.assert_array_equal(bf16_round(once), once)
    assert np.all(np.abs(once - x) <= np.abs(x) * 2.0**-8 * (1 + 1e-6))   # within half a step


@pytest.mark.parametrize("call, message", [
    (lambda: bf16_round(3.4e38), r"x must lie within the bf16 range .*got 3\.4e\+38, which rounds to infinity"),
    (lambda: bf16_round(np.array([1.0, -1e39])), r"got -1e\+39, which rounds to infinity"),
    (lambda: bf16_round(np.nan), r"x must be a finite real array"),
    (lambda: float_limits("fp64"), r"fmt must be one of 'fp32', 'fp16', 'bf16'; got 'fp64'"),
])
def test_numerics_reject(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_bf16_overflow_threshold_is_half_a_step_above_the_maximum():
    largest = float_limits("bf16").max
    half_step = 2.0**127 * 2.0**-8
    below = float(np.nextafter(np.float32(largest + half_step), np.float32(0)))
    assert bf16_round(below) == largest
    with pytest.raises(ValueError, match="rounds to infinity"):
        bf16_round(largest + half_step)   # a tie, and the maximum's last mantissa bit is odd
