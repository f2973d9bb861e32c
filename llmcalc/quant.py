"""Quantization: absmax integer codes, and the block layouts of GGUF files.

Absmax (symmetric, per-tensor): ``scale = max|x| / (2**(bits-1) - 1)``,
``code = round(x / scale)``, ``x_hat = code * scale``.  The largest value
maps exactly onto the largest code and every other value is rounded to the
nearest multiple of ``scale``, so the round-trip error is at most
``scale / 2``.  One outlier inflates the scale for the whole tensor, which is
why real schemes (NF4, GPTQ, AWQ, GGUF) quantize in small blocks with one
scale each.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import _validate as check

# GGUF tensor type -> (weights per block, bytes per block), from the block structs in ggml's ggml-common.h.
_GGUF_BLOCKS = {
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
}


def absmax_quantize(x: npt.ArrayLike, bits: int = 8) -> tuple[np.ndarray, float]:
    """Quantize ``x`` to signed ``bits``-bit integer codes with one absmax scale: ``(codes, scale)``.

    Codes lie in ``[-(2**(bits-1) - 1), 2**(bits-1) - 1]`` (symmetric: the
    most negative code is unused) and are int8 up to 8 bits, int16 above.
    An all-zero tensor gets scale 1.0.  ``codes * scale`` dequantizes.

    Examples
    --------
    >>> absmax_quantize(np.array([0.5, -1.27, 0.003]))
    (array([  50, -127,    0], dtype=int8), 0.01)
    >>> absmax_quantize(np.array([0.5, -1.0, 0.26]), bits=4)[0]
    array([ 4, -7,  2], dtype=int8)
    """
    values = check.values("x", x)
    n_bits = check.count("bits", bits, minimum=2, maximum=16)
    q_max = 2 ** (n_bits - 1) - 1
    peak = float(np.abs(values).max()) if values.size else 0.0
    scale = peak / q_max if peak > 0 else 1.0
    codes = np.clip(np.round(values / scale), -q_max, q_max).astype(np.int8 if n_bits <= 8 else np.int16)
    return codes, scale


def gguf_bits_per_weight(kind: str) -> float:
    """Average bits per weight of a GGUF tensor type: ``8 * bytes per block / weights per block``.

    Includes each block's scales (and mins), which is why Q8_0 costs 8.5
    bits, not 8.

    Examples
    --------
    >>> gguf_bits_per_weight("Q8_0"), gguf_bits_per_weight("Q4_K"), gguf_bits_per_weight("Q6_K")
    (8.5, 4.5, 6.5625)
    """
    weights, size = _GGUF_BLOCKS[check.choice("kind", kind, _GGUF_BLOCKS)]
    return 8 * size / weights


def gguf_weight_bytes(n_params: int, kind: str) -> int:
    """Bytes of ``n_params`` weights stored as GGUF type ``kind``: whole blocks, ``ceil(n / block) * block_bytes``.

    Treats the weights as one tensor in one type.  Real files round up per
    tensor and keep some tensors (norms, often the embedding or output
    matrix) in another type, so a file differs by those plus its metadata.

    Examples
    --------
    >>> gguf_weight_bytes(32, "Q8_0"), gguf_weight_bytes(33, "Q8_0")
    (34, 68)
    """
    count = check.count("n_params", n_params, minimum=0)
    weights, size = _GGUF_BLOCKS[check.choice("kind", kind, _GGUF_BLOCKS)]
    return -(-count // weights) * size
