"""Absmax quantization (codes, scale, round-trip error) and GGUF block sizes from ggml's structs."""

import numpy as np
import pytest

import llmcalc as lc
from llmcalc.teach.quant import absmax_quantize

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("x, bits, codes, scale", [
    ([1.27, -0.635, 0.0], 8, [127, -64, 0], 0.01),      # -63.5 rounds half to even -> -64
    ([2.0, -1.0, 0.5], 4, [7, -4, 2], 2 / 7),
    ([-3.0, 1.0], 2, [-1, 0], 3.0),
    ([0.0, 0.0], 8, [0, 0], 1.0),
    ([1.0, 0.5], 16, [32767, 16384], 1 / 32767),
])
def test_absmax_codes_and_scale(x, bits, codes, scale):
    got_codes, got_scale = absmax_quantize(np.array(x), bits)
    assert got_codes.tolist() == codes
    assert got_scale == pytest.approx(scale, rel=1e-15)
    assert type(got_scale) is float


@pytest.mark.parametrize("bits, dtype", [(2, np.int8), (8, np.int8), (9, np.int16), (16, np.int16)])
def test_code_dtype(bits, dtype):
    assert absmax_quantize(np.array([1.0]), bits)[0].dtype == dtype


@pytest.mark.parametrize("bits", [2, 4, 8, 16])
def test_error_bounded_by_half_scale(bits):
    x = RNG.normal(size=1000)
    codes, scale = absmax_quantize(x, bits)
    assert np.abs(x - codes * scale).max() <= scale / 2 + 1e-15
    assert np.abs(codes).max() == 2 ** (bits - 1) - 1


def _round_trip_error(x, bits):
    codes, scale = absmax_quantize(x, bits)
    return float(np.abs(x - codes * scale).max())


def test_outlier_inflates_error():
    x = RNG.normal(size=1000)
    assert _round_trip_error(np.append(x, 100.0), 8) > 10 * _round_trip_error(x, 8)


def test_more_bits_less_error():
    x = RNG.normal(size=1000)
    errors = [_round_trip_error(x, bits) for bits in (2, 4, 8, 16)]
    assert errors == sorted(errors, reverse=True)


# Block sizes from the structs in ggml's ggml-common.h; bits per weight as stated there.
@pytest.mark.parametrize("kind, weights, size, bits", [
    ("F16", 1, 2, 16.0),
    ("Q8_0", 32, 2 + 32, 8.5),
    ("Q5_1", 32, 2 + 2 + 4 + 16, 6.0),
    ("Q5_0", 32, 2 + 4 + 16, 5.5),
    ("Q4_1", 32, 2 + 2 + 16, 5.0),
    ("Q4_0", 32, 2 + 16, 4.5),
    ("Q6_K", 256, 128 + 64 + 16 + 2, 6.5625),
    ("Q5_K", 256, 2 + 2 + 12 + 32 + 128, 5.5),
    ("Q4_K", 256, 2 + 2 + 12 + 128, 4.5),
    ("Q3_K", 256, 32 + 64 + 12 + 2, 3.4375),
    ("Q2_K", 256, 16 + 64 + 2 + 2, 2.625),
])
def test_gguf_blocks(kind, weights, size, bits):
    assert lc.gguf_bits_per_weight(kind) == bits
    assert lc.gguf_weight_bytes(weights * 1000, kind) == size * 1000


def test_gguf_weight_bytes_rounds_up_to_whole_blocks():
    assert lc.gguf_weight_bytes(0, "Q4_K") == 0
    assert lc.gguf_weight_bytes(1, "Q4_K") == 144
    assert [lc.gguf_weight_bytes(n, "Q8_0") for n in (31, 32, 33)] == [34, 34, 68]
    n = 6_738_415_616   # Llama-2-7B, a multiple of 256
    assert lc.gguf_weight_bytes(n, "Q8_0") == lc.weight_bytes(n, "int8") + n // 32 * lc.weight_bytes(1, "fp16")
    with pytest.raises(ValueError, match=r"kind must be one of 'F32', .*; got 'Q4_K_M'"):
        lc.gguf_weight_bytes(n, "Q4_K_M")
