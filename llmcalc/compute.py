"""Compute budgets and scaling rules of thumb.

These are estimates, not exact counts: the functions take real numbers and
return floats.  Each docstring states the approximation it makes.
"""

from __future__ import annotations

import numpy as np

from . import _validate as check


def forward_flops_per_token(n_params: float | np.ndarray) -> float | np.ndarray:
    """Forward-pass FLOPs per token: ``2 * N``.

    Every weight takes part in one multiply and one add per token.  Ignores
    the attention score computation (grows with context length; small next to
    ``2N`` while the context is short compared with ``12 * d_model``) and
    counts for a MoE model only its *active* parameters, which the caller passes.

    Examples
    --------
    >>> forward_flops_per_token(7e9)
    14000000000.0
    """
    n = check.real("n_params", n_params, minimum=0, min_inclusive=False)
    return check.float_result("forward_flops_per_token", lambda: np.multiply(2.0, n))


def training_flops(n_params: float | np.ndarray, n_tokens: float | np.ndarray) -> float | np.ndarray:
    """Training compute: ``6 * N * D`` FLOPs for ``N`` parameters and ``D`` tokens.

    2N for the forward pass plus about 4N for the backward pass (gradients
    with respect to both activations and weights), per token.  Same caveats
    as :func:`forward_flops_per_token`; activation recomputation would add
    another forward pass (8ND).

    Examples
    --------
    The reference model (~180M) on 3.6B tokens:

    >>> f"{training_flops(179_594_880, 3.6e9):.3e}"
    '3.879e+18'
    >>> (training_flops(np.array([1e9, 7e9]), 2e12) / 1e21).round(6).tolist()  # zettaFLOPs
    [12.0, 84.0]
    """
    n = check.real("n_params", n_params, minimum=0, min_inclusive=False)
    d = check.real("n_tokens", n_tokens, minimum=0, min_inclusive=False)
    check.broadcastable(n_params=n, n_tokens=d)
    return check.float_result("training_flops", lambda: 6.0 * np.multiply(n, d))


def chinchilla_tokens(n_params: float | np.ndarray, tokens_per_param: float | np.ndarray = 20) -> float | np.ndarray:
    """Compute-optimal training tokens: about ``20`` tokens per parameter.

    The rule of thumb from Hoffmann et al. (2022, "Chinchilla"): for a fixed
    compute budget, loss is lowest when tokens grow in proportion to
    parameters, at roughly 20 to 1.  Models meant for cheap inference are
    deliberately trained far past it (Llama-3-8B saw ~15T tokens, ~1900 per parameter).

    Examples
    --------
    >>> chinchilla_tokens(179_594_880) / 1e9  # billions of tokens
    3.5918976
    >>> chinchilla_tokens(70e9)
    1400000000000.0
    """
    n = check.real("n_params", n_params, minimum=0, min_inclusive=False)
    ratio = check.real("tokens_per_param", tokens_per_param, minimum=0, min_inclusive=False)
    check.broadcastable(n_params=n, tokens_per_param=ratio)
    return check.float_result("chinchilla_tokens", lambda: np.multiply(n, ratio))


def effective_batch_size(
    micro_batch: int | np.ndarray,
    grad_accum_steps: int | np.ndarray = 1,
    data_parallel: int | np.ndarray = 1,
    seq_len: int | np.ndarray | None = None,
) -> int | np.ndarray:
    """Sequences (or tokens, given ``seq_len``) per optimizer step.

    ``micro_batch * grad_accum_steps * data_parallel`` sequences: each of the
    ``data_parallel`` replicas processes ``micro_batch`` sequences per
    forward/backward pass and accumulates gradients over ``grad_accum_steps``
    passes before one update.  Multiplied by ``seq_len`` it is tokens per step
    (assuming packed sequences without padding).  Exact integer.

    Examples
    --------
    >>> effective_batch_size(4, grad_accum_steps=8, data_parallel=2)
    64
    >>> effective_batch_size(4, 8, 2, seq_len=2048)
    131072
    """
    factors = {
        "micro_batch": check.integer("micro_batch", micro_batch),
        "grad_accum_steps": check.integer("grad_accum_steps", grad_accum_steps),
        "data_parallel": check.integer("data_parallel", data_parallel),
    }
    if seq_len is not None:
        factors["seq_len"] = check.integer("seq_len", seq_len)
    values = list(factors.values())
    if check.is_scalar(*values):
        result = 1
        for value in values:
            result *= value
        return result
    check.broadcastable(**factors)
    bound = 1
    for value in values:
        bound *= check.magnitude(value)
    check.checked_int64(bound, "effective_batch_size")
    return check.as_result_int(np.prod(np.broadcast_arrays(*values), axis=0))


def matmul_flops(m: int | np.ndarray, k: int | np.ndarray, n: int | np.ndarray) -> int | np.ndarray:
    """FLOPs of an ``(m x k) @ (k x n)`` matrix product: ``2 * m * k * n``.

    Each of the ``m * n`` outputs takes ``k`` multiplications and ``k``
    additions (counting the first add into zero, as every FLOP count does).
    Exact integer.

    Examples
    --------
    >>> f"{matmul_flops(4096, 4096, 4096):,}"
    '137,438,953,472'
    >>> matmul_flops(np.array([1, 8]), 4096, 4096)  # batch-1 vs batch-8 token
    array([ 33554432, 268435456])
    """
    dims = {"m": check.integer("m", m), "k": check.integer("k", k), "n": check.integer("n", n)}
    if check.is_scalar(*dims.values()):
        return 2 * dims["m"] * dims["k"] * dims["n"]
    check.broadcastable(**dims)
    check.checked_int64(2 * check.magnitude(dims["m"]) * check.magnitude(dims["k"]) * check.magnitude(dims["n"]),
                        "matmul_flops")
    return check.as_result_int(2 * np.multiply(np.multiply(dims["m"], dims["k"]), dims["n"]))


def matmul_arithmetic_intensity(
    m: int | np.ndarray, k: int | np.ndarray, n: int | np.ndarray, bytes_per_value: float | np.ndarray = 2
) -> float | np.ndarray:
    """FLOPs per byte moved by an ``(m x k) @ (k x n)`` product: ``2mkn / (bytes * (mk + kn + mn))``.

    Assumes each input is read from memory once and the output written once
    (ideal caching).  Compare with the hardware's FLOPs-per-byte ratio: far
    below it the product is memory-bound, far above it compute-bound.  A
    square product has intensity ``n / 3`` at 2 bytes per value; a
    matrix-vector product (decoding one token) about 1.

    Examples
    --------
    >>> round(matmul_arithmetic_intensity(4096, 4096, 4096), 1)
    1365.3
    >>> round(matmul_arithmetic_intensity(4096, 4096, 1), 2)  # weight matrix times one vector
    1.0
    """
    dims = [check.integer(name, value, maximum=check.FLOAT_EXACT_INT) for name, value in (("m", m), ("k", k), ("n", n))]
    size = check.real("bytes_per_value", bytes_per_value, minimum=0, min_inclusive=False)
    check.broadcastable(m=dims[0], k=dims[1], n=dims[2], bytes_per_value=size)
    rows, inner, cols = (np.asarray(d, dtype=np.float64) for d in dims)
    return check.float_result(
        "matmul_arithmetic_intensity",
        lambda: 2.0 * rows * inner * cols / (np.multiply(size, rows * inner + inner * cols + rows * cols)),
    )


def model_flops_utilization(
    n_params: float | np.ndarray, tokens_per_second: float | np.ndarray, peak_flops_per_s: float | np.ndarray
) -> float | np.ndarray:
    """Model FLOPs utilization (MFU): ``6 * N * tokens_per_second / peak_flops_per_s``.

    The share of the hardware's peak that goes into the model's own training
    arithmetic (:func:`training_flops` per second).  Recomputed activations
    and other overheads do not count as useful work, so MFU is comparable
    across implementations (Chowdhery et al., 2022).  Good large runs reach
    about 0.4-0.6.

    Examples
    --------
    The reference model at 100,000 tokens per second on a 300-TFLOPS accelerator:

    >>> f"{model_flops_utilization(179_594_880, 100_000, 300e12):.1%}"
    '35.9%'
    """
    rate = check.real("tokens_per_second", tokens_per_second, minimum=0)
    peak = check.real("peak_flops_per_s", peak_flops_per_s, minimum=0, min_inclusive=False)
    n = check.real("n_params", n_params, minimum=0, min_inclusive=False)
    check.broadcastable(n_params=n, tokens_per_second=rate, peak_flops_per_s=peak)
    return check.float_result("model_flops_utilization", lambda: 6.0 * np.multiply(n, rate) / peak)


def training_seconds(
    total_flops: float | np.ndarray, flops_per_s_per_gpu: float | np.ndarray, *, n_gpus: int | np.ndarray = 1
) -> float | np.ndarray:
    """Wall-clock seconds to do ``total_flops`` of work: ``total_flops / (flops_per_s_per_gpu * n_gpus)``.

    ``flops_per_s_per_gpu`` is the *sustained* rate, i.e. peak times MFU
    (:func:`model_flops_utilization`), not the datasheet peak.  Assumes
    perfect scaling across GPUs; communication, failures and restarts make
    real runs longer.

    Examples
    --------
    A compute-optimal 7B run (5.88e21 FLOPs) at a sustained 400 TFLOPS:

    >>> flops = training_flops(7e9, chinchilla_tokens(7e9))
    >>> round(training_seconds(flops, 400e12) / 86_400, 1)  # days on one GPU
    170.1
    >>> round(training_seconds(flops, 400e12, n_gpus=1_024) / 3_600, 1)  # hours on 1,024 GPUs
    4.0
    """
    work = check.real("total_flops", total_flops, minimum=0)
    rate = check.real("flops_per_s_per_gpu", flops_per_s_per_gpu, minimum=0, min_inclusive=False)
    gpus = check.integer("n_gpus", n_gpus, maximum=check.FLOAT_EXACT_INT)
    check.broadcastable(total_flops=work, flops_per_s_per_gpu=rate, n_gpus=gpus)
    return check.float_result("training_seconds", lambda: np.divide(work, np.multiply(rate, gpus, dtype=np.float64)))
