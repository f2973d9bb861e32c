"""Description of a decoder-only transformer, precise enough to count what it stores.

A :class:`ModelConfig` records only the hyperparameters that change the number
of stored values (matrix shapes, biases, norms, experts, the tied head) or the
size of the KV cache (KV heads, latent attention, sliding windows), and the
context the model was trained on.  What changes neither (RoPE base, partial
rotary embeddings, dropout, activation choice within a family, soft-capping)
is deliberately absent.

Fields left at 0 are derived: ``n_kv_heads`` = ``n_heads``, ``head_dim`` =
``d_model // n_heads``, ``sliding_window_layers`` = every layer.  A derived value
remembers it, so ``dataclasses.replace(cfg, d_model=2048)`` derives it anew.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Concatenate, Literal, ParamSpec, Protocol, TypeVar, cast, get_args

from . import _validate as check
from .errors import refusal

__all__ = [
    "AT_LEAST_ONE",
    "FIELD_CHOICES",
    "LAYOUT_FFN",
    "Derived",
    "Ffn",
    "Layout",
    "ModelConfig",
    "ModelFunction",
    "Norm",
    "QKNorm",
    "as_model_config",
    "checks_model"
]

Ffn = Literal["swiglu", "mlp"]
Norm = Literal["rmsnorm", "layernorm", "parameter-free"]
QKNorm = Literal["none", "per-head", "per-projection"]
Layout = Literal["llama", "gpt2", "gpt_neox", "falcon", "phi", "phi3", "starcoder2"]


# The FFN each layout's implementation builds (Llama's naming is used for both kinds).
LAYOUT_FFN = {"phi3": "swiglu", "gpt2": "mlp", "gpt_neox": "mlp", "falcon": "mlp", "phi": "mlp", "starcoder2": "mlp"}
AT_LEAST_ONE = ("vocab_size", "d_model", "n_layers", "n_heads", "n_experts", "experts_per_token")
FIELD_CHOICES = {"Ffn": get_args(Ffn), "Norm": get_args(Norm), "QKNorm": get_args(QKNorm), "Layout": get_args(Layout)}


class Derived(int):
    """An int that llmcalc derived rather than the caller gave; ``replace`` derives it anew."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """Shape of a decoder-only transformer language model.

    Parameters
    ----------
    vocab_size : int
        Tokens in the vocabulary: the rows of the embedding matrix.
    d_model : int
        Width of the residual stream (``hidden_size``).
    n_layers : int
        Transformer blocks.
    n_heads : int
        Query heads.
    n_kv_heads : int
        Key/value heads; 0 means ``n_heads`` (multi-head attention), fewer is
        grouped-query attention, 1 multi-query attention.  Must divide ``n_heads``.
    head_dim : int
        Size of one query/key head, rotary part included; 0 means ``d_model // n_heads``.
    d_ff : int
        Inner width of a dense FFN (and of each expert unless ``expert_d_ff`` is set).
    ffn : {"swiglu", "mlp"}
        Gated FFN with gate, up and down matrices (Llama), or two matrices (GPT-2).
    n_experts : int
        Routed experts per mixture-of-experts layer; 1 is a dense model.
    experts_per_token : int
        Routed experts each token uses; 1 in a dense model.
    expert_d_ff : int
        Inner width of one routed expert; 0 means ``d_ff``.
    shared_expert_d_ff : int
        Inner width of the FFN every token also passes through (DeepSeek's shared
        experts summed, Qwen-MoE's shared expert); 0: none.
    shared_expert_gate : bool
        A learned sigmoid gate (``d_model`` weights) scales the shared expert (Qwen-MoE).
    dense_layers : int
        Leading layers whose FFN is dense (width ``d_ff``) in an MoE model (DeepSeek).
    tie_embeddings : bool
        The output head reuses the embedding matrix.
    qkv_bias : bool
        The query, key and value projections carry a bias vector.
    out_bias : bool
        The attention output projection carries a bias vector.
    mlp_bias : bool
        The FFN's linear layers carry a bias vector.
    lm_head_bias : bool
        The output head carries a bias vector.
    norm : {"rmsnorm", "layernorm", "parameter-free"}
        RMSNorm stores ``d_model`` values, LayerNorm ``2 * d_model``, OLMo's LayerNorm none.
    norms_per_layer : int
        Norms of width ``d_model`` in each block: 2 in a pre-norm block, 1 where
        attention and FFN run in parallel off one norm (Phi-2, Falcon-7B), 4 with
        post-norms (Gemma 2 and 3).  The final norm is always counted, once.
    qk_norm : {"none", "per-head", "per-projection"}
        RMSNorm on queries and keys: a ``head_dim`` scale each (Qwen3, Gemma 3), or
        one over the whole query and key projections (OLMo 2, OLMoE).
    learned_positions : int
        Rows of a learned absolute-position table (GPT-2: 1024); 0 for rotary.
    q_lora_rank : int
        Latent attention: width of the query bottleneck; 0: none (a full query projection).
    kv_lora_rank : int
        Latent attention: width of the cached latent; 0: none.  Above 0 the model uses
        multi-head latent attention (DeepSeek): keys and values are rebuilt from this
        latent plus one shared ``rope_head_dim`` rotary key, and only those are cached.
    rope_head_dim : int
        Latent attention: the rotary part of each query and key head.
    v_head_dim : int
        Latent attention: size of a value head; 0 means ``head_dim``.
    sliding_window : int
        Attention window in tokens; 0: none.
    sliding_window_layers : int
        Layers that use the window; 0: all of them, when there is one.
    layout : {"llama", "gpt2", "gpt_neox", "falcon", "phi", "phi3", "starcoder2"}
        Module names and fusions as the implementation builds them: fused Q/K/V
        (``c_attn``, ``query_key_value``, ``qkv_proj``) and gate/up (``gate_up_proj``)
        change what a LoRA adapter costs, not the parameter count.
    model_type : str
        The Hugging Face ``model_type``, where known; peft adapts MoE experts by it.
    trained_context : int
        Positions the model was trained on (``max_position_embeddings``, extended by a RoPE scaling that
        declares its original length; see :mod:`llmcalc.hf`); 0: unknown.  It stores nothing: the planner
        stops its search for the longest context there unless asked to go beyond.
    attention_sinks : bool
        Each query head of each layer has a learned sink logit, a column the softmax adds and drops (gpt-oss's
        ``self_attn.sinks``): ``n_heads`` values a layer, nothing in the KV cache.
    router_bias : bool
        The MoE router carries a bias, ``n_experts`` values per MoE layer (gpt-oss's ``mlp.router.bias``).

    Examples
    --------
    >>> cfg = ModelConfig(vocab_size=1000, d_model=64, n_layers=2, n_heads=4, d_ff=256)
    >>> cfg.n_kv_heads, cfg.head_dim
    (4, 16)
    >>> import dataclasses
    >>> dataclasses.replace(cfg, d_model=128).head_dim  # derived again, not kept at 16
    32
    >>> ModelConfig(vocab_size=1000, d_model=64, n_layers=2, n_heads=6, d_ff=256)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: n_heads=6 does not divide d_model=64; pass head_dim explicitly or choose ...
    """

    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int = 0
    head_dim: int = 0
    d_ff: int = 0
    ffn: Ffn = "swiglu"
    n_experts: int = 1
    experts_per_token: int = 1
    tie_embeddings: bool = False
    qkv_bias: bool = False
    out_bias: bool = False
    mlp_bias: bool = False
    lm_head_bias: bool = False
    norm: Norm = "rmsnorm"
    norms_per_layer: int = 2
    learned_positions: int = 0
    expert_d_ff: int = 0
    shared_expert_d_ff: int = 0
    shared_expert_gate: bool = False
    dense_layers: int = 0
    qk_norm: QKNorm = "none"
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    rope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    sliding_window_layers: int = 0
    layout: Layout = "llama"
    model_type: str = ""
    trained_context: int = 0
    attention_sinks: bool = False
    router_bias: bool = False

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if item.type == "bool":
                value = check.flag(item.name, value)
            elif item.type == "str" and not isinstance(value, str):
                raise refusal("not_a_str", name=item.name, value=value, type=type(value).__name__)
            elif item.type == "int" and not isinstance(value, Derived):
                required = item.name in AT_LEAST_ONE
                value = check.count(item.name, 0 if value is None and not required else value, minimum=int(required))
            elif item.type not in ("int", "str"):
                value = check.choice(item.name, value, FIELD_CHOICES[str(item.type)])
            object.__setattr__(self, item.name, value)

        def unset(value: int) -> bool:
            return isinstance(value, Derived) or value == 0

        if unset(self.head_dim):
            if self.d_model % self.n_heads:
                raise refusal("heads_do_not_divide", n_heads=self.n_heads, d_model=self.d_model)
            object.__setattr__(self, "head_dim", Derived(self.d_model // self.n_heads))
        if unset(self.n_kv_heads):
            object.__setattr__(self, "n_kv_heads", Derived(self.n_heads))
        if unset(self.sliding_window_layers):
            object.__setattr__(self, "sliding_window_layers", Derived(self.n_layers if self.sliding_window else 0))
        needs = LAYOUT_FFN.get(self.layout, self.ffn)
        latent = {"q_lora_rank": self.q_lora_rank, "rope_head_dim": self.rope_head_dim, "v_head_dim": self.v_head_dim}
        problems: list[tuple[object, str, dict[str, Any]]] = [
            (self.n_heads % self.n_kv_heads, "kv_heads_do_not_divide",
             {"n_heads": self.n_heads, "n_kv_heads": self.n_kv_heads}),
            (self.experts_per_token > self.n_experts, "too_many_active_experts",
             {"n_experts": self.n_experts, "experts_per_token": self.experts_per_token}),
            (self.d_ff == 0 and (not self.is_moe or not self.expert_d_ff or self.dense_layers), "missing_d_ff", {}),
            (self.dense_layers >= self.n_layers or (self.dense_layers and not self.is_moe), "dense_layers_out_of_range",
             {"max_dense_layers": self.n_layers - 1, "dense_layers": self.dense_layers, "n_experts": self.n_experts}),
            *((value and not self.is_moe, "moe_only_field", {"name": name, "value": value})
              for name, value in (("expert_d_ff", self.expert_d_ff), ("shared_expert_d_ff", self.shared_expert_d_ff),
                                  ("router_bias", self.router_bias))),
            (self.shared_expert_gate and not self.shared_expert_d_ff, "shared_gate_without_expert", {}),
            ((not self.sliding_window and self.sliding_window_layers) or self.sliding_window_layers > self.n_layers,
             "window_layers_out_of_range", {"n_layers": self.n_layers, "sliding_window_layers":
                                            self.sliding_window_layers, "sliding_window": self.sliding_window}),
            (needs != self.ffn, "layout_ffn_mismatch", {"layout": self.layout, "needs": needs, "ffn": self.ffn}),
            *((value and not self.kv_lora_rank, "latent_only_field", {"name": name, "value": value})
              for name, value in latent.items()),
            (self.kv_lora_rank and not 0 < self.rope_head_dim < self.head_dim, "rope_head_dim_out_of_range",
             {"max_rope_head_dim": self.head_dim - 1, "rope_head_dim": self.rope_head_dim}),
            (self.kv_lora_rank and (self.layout, self.qk_norm, self.n_kv_heads) != ("llama", "none", self.n_heads),
             "latent_attention_layout",
             {"layout": self.layout, "qk_norm": self.qk_norm, "n_kv_heads": self.n_kv_heads}),
            (self.lm_head_bias and self.tie_embeddings, "lm_head_bias_tied", {}),
        ]
        for failed, code, params in problems:
            if failed:
                raise refusal(code, **params)

    @classmethod
    def from_hf_config(cls, source: dict[str, Any] | str | os.PathLike[str]) -> ModelConfig:
        """Read a Hugging Face ``config.json`` (a dict, or a path to the file); see :mod:`llmcalc.hf`.

        Both the full ``config.to_dict()`` and the shorter file ``save_pretrained``
        writes are accepted.  What llmcalc does not model raises ``ValueError`` naming it.

        Examples
        --------
        >>> cfg = ModelConfig.from_hf_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
        ...     "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32})
        >>> cfg.n_kv_heads, cfg.head_dim, cfg.tie_embeddings
        (32, 128, False)
        """
        from .hf import config_from_hf

        return config_from_hf(source)

    @property
    def is_moe(self) -> bool:
        """True when the FFN is a mixture of experts (more than one expert)."""
        return self.n_experts > 1

    @property
    def uses_latent_attention(self) -> bool:
        """True for multi-head latent attention (``kv_lora_rank > 0``)."""
        return self.kv_lora_rank > 0

    @property
    def q_dim(self) -> int:
        """Width of all query heads together, ``n_heads * head_dim``."""
        return self.n_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of all key (or value) heads together, ``n_kv_heads * head_dim``."""
        return self.n_kv_heads * self.head_dim

    @property
    def moe_layers(self) -> int:
        """Layers whose FFN is a mixture of experts (0 for a dense model)."""
        return self.n_layers - self.dense_layers if self.is_moe else 0

    @property
    def routed_expert_d_ff(self) -> int:
        """Inner width of one routed expert."""
        return self.expert_d_ff or self.d_ff


def as_model_config(cfg: object) -> ModelConfig:
    """Return ``cfg`` if it is a :class:`ModelConfig`, else raise a ``TypeError`` naming what it is."""
    if not isinstance(cfg, ModelConfig):
        raise refusal("not_a_model_config", type=type(cfg).__name__)
    return cfg


P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class ModelFunction(Protocol[P, R_co]):
    """A function made by :func:`checks_model`: called, it checks its ``cfg``; its ``unchecked`` body takes a
    config already checked."""

    @property
    def unchecked(self) -> Callable[Concatenate[ModelConfig, P], R_co]: ...

    def __call__(self, cfg: ModelConfig, *args: P.args, **kwargs: P.kwargs) -> R_co: ...


def checks_model(unchecked: Callable[Concatenate[ModelConfig, P], R]) -> ModelFunction[P, R]:
    """A decorator: the function checks that its first argument is a :class:`ModelConfig` (:func:`as_model_config`).

    The check is made once, where a call enters llmcalc: inside, a function that holds a checked config calls
    another's ``unchecked`` body, so a plan checks its model once however many counts it is made of.
    """

    @functools.wraps(unchecked)
    def checked(cfg: object, *args: P.args, **kwargs: P.kwargs) -> R:
        return unchecked(as_model_config(cfg), *args, **kwargs)

    vars(checked)["unchecked"] = unchecked  # an attribute of the function, which mypy knows through ModelFunction
    return cast("ModelFunction[P, R]", checked)
