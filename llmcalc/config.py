"""Description of a decoder-only transformer, precise enough to count its parameters.

A :class:`ModelConfig` records only the hyperparameters that change the number
of stored values: matrix shapes, which layers carry biases, how many norms
there are and whether the output head shares the embedding matrix.  Things that
do not change the count (RoPE base, dropout, activation choice within a family,
context length when positions are rotary) are deliberately absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from . import _validate as check

FFN_KINDS = ("swiglu", "mlp")
NORM_KINDS = ("rmsnorm", "layernorm")


@dataclass(frozen=True)
class ModelConfig:
    """Shape of a decoder-only transformer language model.

    Parameters
    ----------
    vocab_size : int
        Number of tokens in the vocabulary (rows of the embedding matrix).
    d_model : int
        Width of the residual stream (hidden size).
    n_layers : int
        Number of transformer blocks.
    n_heads : int
        Number of query heads.
    n_kv_heads : int, optional
        Number of key/value heads; ``None`` means ``n_heads`` (plain multi-head
        attention).  Fewer KV heads than query heads is grouped-query attention
        (GQA); ``1`` is multi-query attention.  Must divide ``n_heads``.
    head_dim : int, optional
        Size of one head; ``None`` means ``d_model // n_heads`` and then
        ``n_heads`` must divide ``d_model``.
    d_ff : int
        Inner width of the feed-forward block (per expert for MoE models).
    ffn : {"swiglu", "mlp"}
        ``"swiglu"``: gated FFN with three matrices (gate, up, down), as in
        Llama.  ``"mlp"``: classic two-matrix FFN (up, down), as in GPT-2.
    n_experts, experts_per_token : int
        Mixture of experts: each layer holds ``n_experts`` copies of the FFN
        plus a router (a ``d_model x n_experts`` matrix without bias), and
        each token uses ``experts_per_token`` of them.  ``1, 1`` is a dense model.
    tie_embeddings : bool
        The output head reuses the embedding matrix (no separate LM head).
    qkv_bias, out_bias, mlp_bias, lm_head_bias : bool
        Which linear layers carry a bias vector.
    norm : {"rmsnorm", "layernorm"}
        RMSNorm stores one scale vector (``d_model`` values); LayerNorm stores
        a scale and a bias (``2 * d_model``).
    norms_per_layer : int
        Norms inside each block: 2 for the usual pre-norm block, 1 for a
        parallel attention+FFN block such as Phi-2's.  The final norm before
        the head is always counted, once.
    learned_positions : int
        Rows of a learned absolute-position table (GPT-2: 1024); 0 for rotary
        or other parameter-free position schemes.

    Notes
    -----
    ``n_kv_heads`` and ``head_dim`` are resolved to integers when the object
    is created, so ``dataclasses.replace(cfg, n_heads=...)`` keeps the old
    resolved values: pass them again explicitly when changing head counts.

    Examples
    --------
    >>> cfg = ModelConfig(vocab_size=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256)
    >>> cfg.n_kv_heads, cfg.head_dim
    (4, 16)
    >>> ModelConfig(vocab_size=1000, d_model=64, n_layers=2, n_heads=6, d_ff=256)
    Traceback (most recent call last):
    ...
    ValueError: n_heads=6 does not divide d_model=64; pass head_dim explicitly or choose n_heads among the divisors of d_model
    """

    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int | None = None
    head_dim: int | None = None
    d_ff: int = 0
    ffn: Literal["swiglu", "mlp"] = "swiglu"
    n_experts: int = 1
    experts_per_token: int = 1
    tie_embeddings: bool = False
    qkv_bias: bool = False
    out_bias: bool = False
    mlp_bias: bool = False
    lm_head_bias: bool = False
    norm: Literal["rmsnorm", "layernorm"] = "rmsnorm"
    norms_per_layer: int = 2
    learned_positions: int = 0

    def __post_init__(self) -> None:
        def scalar_int(name: str, minimum: int) -> int:
            value = getattr(self, name)
            if not _is_integer_scalar(value):
                raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r} ({type(value).__name__})")
            number = check.integer(name, value, minimum=minimum)
            object.__setattr__(self, name, number)
            return number

        for name in ("vocab_size", "d_model", "n_layers", "n_heads", "d_ff", "n_experts", "experts_per_token"):
            scalar_int(name, 1)
        for name in ("norms_per_layer", "learned_positions"):
            scalar_int(name, 0)
        check.choice("ffn", self.ffn, FFN_KINDS)
        check.choice("norm", self.norm, NORM_KINDS)
        for name in ("tie_embeddings", "qkv_bias", "out_bias", "mlp_bias", "lm_head_bias"):
            object.__setattr__(self, name, check.flag(name, getattr(self, name)))

        if self.head_dim is None:
            if self.d_model % self.n_heads:
                raise ValueError(
                    f"n_heads={self.n_heads} does not divide d_model={self.d_model}; pass head_dim explicitly "
                    "or choose n_heads among the divisors of d_model"
                )
            object.__setattr__(self, "head_dim", self.d_model // self.n_heads)
        else:
            scalar_int("head_dim", 1)

        if self.n_kv_heads is None:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        else:
            kv_heads = scalar_int("n_kv_heads", 1)
            if kv_heads > self.n_heads or self.n_heads % kv_heads:
                raise ValueError(
                    f"n_kv_heads must divide n_heads={self.n_heads} (each KV head serves a whole group of "
                    f"query heads); got n_kv_heads={kv_heads}"
                )

        if self.experts_per_token > self.n_experts:
            raise ValueError(
                f"experts_per_token must be in [1, n_experts={self.n_experts}]; got {self.experts_per_token}"
            )

    @property
    def is_moe(self) -> bool:
        """True when the FFN is a mixture of experts (more than one expert)."""
        return self.n_experts > 1

    @property
    def q_dim(self) -> int:
        """Width of all query heads together: ``n_heads * head_dim``."""
        return self.n_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of all key (or value) heads together: ``n_kv_heads * head_dim``."""
        return self.n_kv_heads * self.head_dim


def _is_integer_scalar(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
