"""The N of the FLOP rules of thumb: the parameters one token multiplies through."""

from __future__ import annotations

from .config import ModelConfig, checks_model
from .params import active_param_count

__all__ = ["matmul_params"]


@checks_model
def matmul_params(cfg: ModelConfig) -> int:
    """Parameters that take part in a matrix multiplication for each token: the N of ``2N`` and ``6ND``.

    Each such weight does one multiply-accumulate per token, 2 FLOPs, so a
    forward pass costs about ``2 * N`` FLOPs per token and training about
    ``6 * N`` (the backward pass costs twice the forward).  The input
    embedding table and a learned position table are lookups, not
    multiplications, so they are left out (Kaplan et al. 2020, section 2.1,
    count non-embedding parameters).  An untied LM head counts; a tied one
    counts once, since its matrix is used as the head.  For a mixture of
    experts only the active experts count.  Attention-score FLOPs, which grow
    with the context, come on top.

    Examples
    --------
    >>> from llmcalc import get_preset, param_count
    >>> llama = get_preset("llama-2-7b")                   # untied: the 32000 x 4096 embedding drops out
    >>> param_count(llama) - matmul_params(llama) == 32000 * 4096
    True
    >>> gpt2 = get_preset("gpt2")                           # tied head; the 1024 x 768 position table drops out
    >>> param_count(gpt2) - matmul_params(gpt2) == 1024 * 768
    True
    """
    lookups = cfg.learned_positions * cfg.d_model
    if not cfg.tie_embeddings:
        lookups += cfg.vocab_size * cfg.d_model
    return active_param_count.unchecked(cfg) - lookups
