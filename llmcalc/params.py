"""Exact parameter counts of a :class:`~llmcalc.config.ModelConfig`, as transformers instantiates the model.

The count is the number of stored values, component by component:

* embedding ``vocab_size * d_model``; positions ``learned_positions * d_model``
* attention: Q, K, V and output projections (fused or not, the same count), or
  latent attention's down- and up-projections, plus biases and, where the model has them, ``n_heads`` attention
  sinks a layer
* ffn: a dense FFN (SwiGLU ``3 * d_model * d_ff``, classic MLP ``2 * d_model * d_ff``),
  or every routed expert plus the shared expert, plus biases
* router: ``d_model * n_experts`` per MoE layer (+ bias), plus the shared expert's gate
* norms: ``n_layers * norms_per_layer + 1`` norms of ``d_model`` (RMSNorm),
  ``2 * d_model`` (LayerNorm) or none, plus QK-norm and latent-attention norms
* lm_head: ``vocab_size * d_model`` (+ bias), or 0 when tied

Buffers are not counted (DeepSeek-V3's router score-correction bias, rotary
tables), as in ``model.parameters()``.  Results are exact Python ints.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from . import _validate as check
from .config import ModelConfig, checks_model

__all__ = [
    "ATTENTION_MODULES",
    "MLP_MODULES",
    "ROUTER_NAMES",
    "Linear",
    "active_param_count",
    "linear_modules",
    "param_breakdown",
    "param_count"
]

# Module paths inside one block, per layout: (attention prefix, names by role; MLP prefix, names by role).
ATTENTION_MODULES = {
    "llama": ("self_attn", {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj"}),
    "starcoder2": ("self_attn", {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj"}),
    "phi": ("self_attn", {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "dense"}),
    "phi3": ("self_attn", {"qkv": "qkv_proj", "o": "o_proj"}),
    "gpt2": ("attn", {"qkv": "c_attn", "o": "c_proj"}),
    "gpt_neox": ("attention", {"qkv": "query_key_value", "o": "dense"}),
    "falcon": ("self_attention", {"qkv": "query_key_value", "o": "dense"}),
}
MLP_MODULES = {
    "llama": {"gate": "gate_proj", "up": "up_proj", "down": "down_proj"},
    "starcoder2": {"up": "c_fc", "down": "c_proj"},
    "phi": {"up": "fc1", "down": "fc2"},
    "phi3": {"gate_up": "gate_up_proj", "down": "down_proj"},
    "gpt2": {"up": "c_fc", "down": "c_proj"},
    "gpt_neox": {"up": "dense_h_to_4h", "down": "dense_4h_to_h"},
    "falcon": {"up": "dense_h_to_4h", "down": "dense_4h_to_h"},
}

ROUTER_NAMES = {"gpt_oss": "router"}
"""The router's module name in an MoE block, by ``model_type``, where it is not ``gate``."""


@dataclass(frozen=True)
class Linear:
    """One linear (or GPT-2 ``Conv1D``) module, repeated ``copies`` times.

    ``path``: its name in a block (``self_attn.q_proj``) or the model (``lm_head``);
    ``role``: what it computes (``q``, ``kv_b``, ``down``, ``router``...);
    ``component``: its :func:`~llmcalc.param_breakdown` key.  ``adaptable`` is False for
    weights transformers 5 does not build as ``nn.Linear`` (stacked routed experts, routers).
    """

    path: str
    role: str
    component: str
    d_in: int
    d_out: int
    bias: bool
    copies: int
    adaptable: bool = True

    @property
    def params(self) -> int:
        return self.copies * (self.d_in * self.d_out + (self.d_out if self.bias else 0))


def _norm_size(cfg: ModelConfig, width: int) -> int:
    return {"rmsnorm": width, "layernorm": 2 * width, "parameter-free": 0}[cfg.norm]


def _attention(cfg: ModelConfig) -> list[Linear]:
    layers, d = cfg.n_layers, cfg.d_model
    if cfg.uses_latent_attention:
        v_head = cfg.v_head_dim or cfg.head_dim
        modules = []
        if cfg.q_lora_rank:
            modules += [
                Linear("self_attn.q_a_proj", "q_a", "attention", d, cfg.q_lora_rank, cfg.qkv_bias, layers),
                Linear("self_attn.q_b_proj", "q", "attention", cfg.q_lora_rank, cfg.q_dim, False, layers),
            ]
        else:
            modules.append(Linear("self_attn.q_proj", "q", "attention", d, cfg.q_dim, False, layers))
        kv_latent = cfg.kv_lora_rank + cfg.rope_head_dim
        kv_b_out = cfg.n_heads * (cfg.head_dim - cfg.rope_head_dim + v_head)
        return [
            *modules,
            Linear("self_attn.kv_a_proj_with_mqa", "kv_a", "attention", d, kv_latent, cfg.qkv_bias, layers),
            Linear("self_attn.kv_b_proj", "kv_b", "attention", cfg.kv_lora_rank, kv_b_out, False, layers),
            Linear("self_attn.o_proj", "o", "attention", cfg.n_heads * v_head, d, cfg.out_bias, layers),
        ]
    prefix, names = ATTENTION_MODULES[cfg.layout]
    widths = {"q": cfg.q_dim, "k": cfg.kv_dim, "v": cfg.kv_dim, "qkv": cfg.q_dim + 2 * cfg.kv_dim}
    modules = [
        Linear(f"{prefix}.{names[role]}", role, "attention", d, widths[role], cfg.qkv_bias, layers)
        for role in ("q", "k", "v", "qkv")
        if role in names
    ]
    return [*modules, Linear(f"{prefix}.{names['o']}", "o", "attention", cfg.q_dim, d, cfg.out_bias, layers)]


def _ffn(cfg: ModelConfig, prefix: str, width: int, copies: int, *, adaptable: bool = True) -> list[Linear]:
    names = MLP_MODULES[cfg.layout]
    d, bias = cfg.d_model, cfg.mlp_bias
    if cfg.ffn == "mlp":
        ups = [("up", width)]
    elif "gate_up" in names:
        ups = [("gate_up", 2 * width)]
    else:
        ups = [("gate", width), ("up", width)]
    return [
        *(Linear(f"{prefix}.{names[role]}", role, "ffn", d, out, bias, copies, adaptable) for role, out in ups),
        Linear(f"{prefix}.{names['down']}", "down", "ffn", width, d, bias, copies, adaptable),
    ]


@checks_model
def linear_modules(cfg: ModelConfig) -> list[Linear]:
    """Every linear module of the model with its shape and number of copies.

    This is what :func:`~llmcalc.param_breakdown` and :func:`llmcalc.lora_model_params`
    both count, so the two always describe the same model.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> for m in linear_modules(get_preset("gpt2")):
    ...     print(f"{m.path:12s} {m.d_in:5d} -> {m.d_out:5d} x{m.copies}")
    attn.c_attn    768 ->  2304 x12
    attn.c_proj    768 ->   768 x12
    mlp.c_fc       768 ->  3072 x12
    mlp.c_proj    3072 ->   768 x12

    GPT-2's head is tied to the embedding, so it has no ``lm_head`` of its own here.
    """
    return list(_linear_modules(cfg))


@functools.lru_cache(maxsize=64)
def _linear_modules(cfg: ModelConfig) -> tuple[Linear, ...]:
    """:func:`linear_modules` of a checked config, built once a config: a plan reads them many times."""
    mlp_prefix = "mlp"
    modules = _attention(cfg)
    dense = cfg.n_layers - cfg.moe_layers
    if dense:
        modules += _ffn(cfg, mlp_prefix, cfg.d_ff, dense)
    if cfg.is_moe:
        moe = cfg.moe_layers
        router = f"{mlp_prefix}.{ROUTER_NAMES.get(cfg.model_type, 'gate')}"
        modules.append(Linear(router, "router", "router", cfg.d_model, cfg.n_experts, cfg.router_bias, moe, False))
        modules += _ffn(cfg, f"{mlp_prefix}.experts", cfg.routed_expert_d_ff, moe * cfg.n_experts, adaptable=False)
        if cfg.shared_expert_d_ff:
            shared = f"{mlp_prefix}.shared_experts" if cfg.uses_latent_attention else f"{mlp_prefix}.shared_expert"
            modules += _ffn(cfg, shared, cfg.shared_expert_d_ff, moe)
        if cfg.shared_expert_gate:
            gate = Linear(f"{mlp_prefix}.shared_expert_gate", "shared_gate", "router", cfg.d_model, 1, False, moe)
            modules.append(gate)
    if not cfg.tie_embeddings:  # ModelConfig refuses a bias on a tied head
        modules.append(Linear("lm_head", "lm_head", "lm_head", cfg.d_model, cfg.vocab_size, cfg.lm_head_bias, 1))
    return tuple(modules)


def _norms(cfg: ModelConfig) -> int:
    per_layer = cfg.norms_per_layer * _norm_size(cfg, cfg.d_model)
    if cfg.qk_norm == "per-head":
        per_layer += 2 * _norm_size(cfg, cfg.head_dim)
    elif cfg.qk_norm == "per-projection":
        per_layer += _norm_size(cfg, cfg.q_dim) + _norm_size(cfg, cfg.kv_dim)
    if cfg.uses_latent_attention:
        per_layer += _norm_size(cfg, cfg.kv_lora_rank) + (_norm_size(cfg, cfg.q_lora_rank) if cfg.q_lora_rank else 0)
    return cfg.n_layers * per_layer + _norm_size(cfg, cfg.d_model)


@checks_model
def param_breakdown(cfg: ModelConfig, *, active: bool = False) -> dict[str, int]:
    """Parameters per component; the values sum to :func:`param_count`.

    Parameters
    ----------
    cfg : ModelConfig
    active : bool
        Count only what one token uses: in each MoE layer the routed experts
        shrink to ``experts_per_token`` of them (see :func:`active_param_count`).

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
    used_share = (cfg.experts_per_token, cfg.n_experts) if check.flag("active", active) else (1, 1)
    parts = dict.fromkeys(("embedding", "positions", "attention", "ffn", "router", "norms", "lm_head"), 0)
    parts["embedding"] = cfg.vocab_size * cfg.d_model
    parts["positions"] = cfg.learned_positions * cfg.d_model
    for module in _linear_modules(cfg):
        routed = module.path.startswith("mlp.experts.")
        parts[module.component] += module.params * used_share[0] // used_share[1] if routed else module.params
    parts["attention"] += cfg.n_layers * cfg.n_heads if cfg.attention_sinks else 0
    parts["norms"] = _norms(cfg)
    return parts


@checks_model
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
    return _param_count(cfg)


@functools.lru_cache(maxsize=64)
def _param_count(cfg: ModelConfig) -> int:
    """:func:`param_count` of a checked config, counted once a config: every plan starts from it."""
    return sum(param_breakdown.unchecked(cfg).values())


@checks_model
def active_param_count(cfg: ModelConfig) -> int:
    """Parameters used to process one token (exact; equals :func:`param_count` for dense models).

    In each MoE layer only ``experts_per_token`` of the ``n_experts`` routed
    experts run for a token; everything else counts in full, the embedding
    matrix included (a token reads one row of it), as Mixtral's published
    "12.9B active" counts it.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> mixtral = get_preset("mixtral-8x7b")
    >>> param_count(mixtral), active_param_count(mixtral)
    (46702792704, 12879925248)
    """
    return sum(param_breakdown.unchecked(cfg, active=True).values())
