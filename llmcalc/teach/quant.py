"""Quantization: absmax integer codes.

Absmax (symmetric, per-tensor): ``scale = max|x| / (2**(bits-1) - 1)``,
``code = round(x / scale)``, ``x_hat = code * scale``.  The largest value
maps exactly onto the largest code and every other value is rounded to the
nearest multiple of ``scale``, so the round-trip error is at most
``scale / 2``.  One outlier inflates the scale for the whole tensor, which is
why real schemes (NF4, GPTQ, AWQ, GGUF) quantize in small blocks with one
scale each (:func:`llmcalc.gguf_bits_per_weight` counts what GGUF's blocks cost).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import _validate as check

__all__ = ["absmax_quantize"]


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
