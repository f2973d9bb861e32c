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
