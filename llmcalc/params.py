"""Exact parameter counts of a :class:`~llmcalc.config.ModelConfig`.

The count is the number of stored values, component by component:

* embedding: ``vocab_size * d_model``
* positions: ``learned_positions * d_model`` (0 for rotary models)
* attention, per layer: Q ``d_model * n_heads*head_dim``, K and V
  ``d_model * n_kv_heads*head_dim`` each, output ``n_heads*head_dim * d_model``,
  plus biases where the config says so
* ffn, per layer and expert: SwiGLU ``3 * d_model * d_ff``, classic MLP
  ``2 * d_model * d_ff``, plus biases (``d_ff`` per up/gate, ``d_model`` for down)
* router, per MoE layer: ``d_model * n_experts`` (no bias)
* norms: ``(n_layers * norms_per_layer + 1)`` norms of ``d_model`` values
  (RMSNorm) or ``2 * d_model`` (LayerNorm: scale and bias)
* lm_head: ``vocab_size * d_model`` (+ ``vocab_size`` bias), or 0 when tied

All results are Python ints, so even a 10^12-parameter model is exact.
"""

from __future__ import annotations

from . import _validate as check
from .config import ModelConfig

COMPONENTS = ("embedding", "positions", "attention", "ffn", "router", "norms", "lm_head")


def _attention_per_layer(cfg: ModelConfig) -> int:
    weights = cfg.d_model * cfg.q_dim + 2 * cfg.d_model * cfg.kv_dim + cfg.q_dim * cfg.d_model
    biases = (cfg.q_dim + 2 * cfg.kv_dim if cfg.qkv_bias else 0) + (cfg.d_model if cfg.out_bias else 0)
    return weights + biases


def _ffn_per_expert(cfg: ModelConfig) -> int:
    up_matrices = 2 if cfg.ffn == "swiglu" else 1
    weights = (up_matrices + 1) * cfg.d_model * cfg.d_ff
    biases = up_matrices * cfg.d_ff + cfg.d_model if cfg.mlp_bias else 0
    return weights + biases


def param_breakdown(cfg: ModelConfig, *, active: bool = False) -> dict[str, int]:
    """Parameters per component; the values sum to :func:`param_count`.

    Parameters
    ----------
    cfg : ModelConfig
    active : bool
        Count only what one token uses: for a mixture of experts the FFN
        shrinks to ``experts_per_token`` experts (see :func:`active_param_count`).

    Examples
    --------
    GPT-2 small, every component by hand: embedding ``50257*768``, learned
    positions ``1024*768``, tied head (0).

    >>> from llmcalc import get_preset
    >>> parts = param_breakdown(get_preset("gpt2"))
    >>> for name, count in parts.items():
    ...     print(f"{name:9s} {count:>10,d}")
    embedding 38,597,376
    positions    786,432
    attention 28,348,416
    ffn       56,669,184
    router             0
    norms         38,400
    lm_head            0
    >>> sum(parts.values())
    124439808
    """
    if not isinstance(cfg, ModelConfig):
        raise TypeError(f"cfg must be a ModelConfig; got {type(cfg).__name__}")
    experts = cfg.experts_per_token if check.flag("active", active) else cfg.n_experts
    norm_size = cfg.d_model if cfg.norm == "rmsnorm" else 2 * cfg.d_model
    lm_head = 0 if cfg.tie_embeddings else cfg.vocab_size * cfg.d_model + (cfg.vocab_size if cfg.lm_head_bias else 0)
    return {
        "embedding": cfg.vocab_size * cfg.d_model,
        "positions": cfg.learned_positions * cfg.d_model,
        "attention": cfg.n_layers * _attention_per_layer(cfg),
        "ffn": cfg.n_layers * experts * _ffn_per_expert(cfg),
        "router": cfg.n_layers * cfg.d_model * cfg.n_experts if cfg.is_moe else 0,
        "norms": (cfg.n_layers * cfg.norms_per_layer + 1) * norm_size,
        "lm_head": lm_head,
    }


def param_count(cfg: ModelConfig) -> int:
    """Total number of parameters stored by the model (exact).

    A tied embedding/LM-head matrix is counted once, like PyTorch's
    ``sum(p.numel() for p in model.parameters())``.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> param_count(get_preset("llama-2-7b"))
    6738415616
    >>> param_count(get_preset("reference"))
    179594880
    """
    return sum(param_breakdown(cfg).values())


def active_param_count(cfg: ModelConfig) -> int:
    """Parameters used to process one token (exact; equals :func:`param_count` for dense models).

    For a mixture of experts only ``experts_per_token`` of the ``n_experts``
    FFNs run for a given token.  Everything else is counted in full: the
    attention, the router, the norms, the LM head and the embedding matrix
    (conventionally, although a token only looks up one row of it), which is
    how the published "12.9B active" figure for Mixtral-8x7B is counted.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> mixtral = get_preset("mixtral-8x7b")
    >>> param_count(mixtral), active_param_count(mixtral)
    (46702792704, 12879925248)
    """
    return sum(param_breakdown(cfg, active=True).values())
