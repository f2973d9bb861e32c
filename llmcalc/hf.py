"""Read a Hugging Face ``config.json`` into a :class:`~llmcalc.config.ModelConfig`, or refuse it.

Written here rather than taken from ``transformers`` because the glossary's
promise is exact counts offline, without a 2 GB install: the rules below are the
ones ``transformers`` 5.25 applies, and ``tests/data/hf_models/`` checks them against
it for every supported ``model_type`` in both forms a user meets (the full
``config.to_dict()`` and the shorter ``save_pretrained`` file, where an absent key
means the config class's default).

What llmcalc cannot model is refused with a ``ValueError`` naming the key: an
unknown ``model_type``, a setting that changes what is stored in a way not
modelled (Qwen-MoE's ``mlp_only_layers``, Falcon's new decoder architecture,
a quantized checkpoint), or a key transformers reads that may change a size and llmcalc does not model.
Keys transformers never reads are ignored, whatever their names: real checkpoints carry many, written by
their training code.  Never a silent approximation.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from .config import ModelConfig
from .errors import Refusal, refusal

__all__ = [
    "ATTENTION_BIAS", "CLASS_DEFAULTS", "KEY_ALIASES", "READ_SIZE_KEYS", "SUPPORTED_MODEL_TYPES",
    "config_from_hf", "read_config"
]

SUPPORTED_MODEL_TYPES = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2",
                         "gemma3_text", "phi", "phi3", "falcon", "gpt2", "gpt_neox", "starcoder2", "olmo", "olmo2",
                         "olmoe", "deepseek_v2", "deepseek_v3", "gpt_oss")
"""The model types (``model_type``) llmcalc reads, in the order its messages list them."""


def _recorded_class_defaults() -> dict[str, dict[str, Any]]:
    record = json.loads(resources.files("llmcalc").joinpath("data/hf_class_defaults.json").read_text("utf-8"))
    recorded: dict[str, dict[str, Any]] = record["model_types"]
    return {model_type: recorded[model_type]["init_defaults"] for model_type in SUPPORTED_MODEL_TYPES}


CLASS_DEFAULTS: dict[str, dict[str, Any]] = _recorded_class_defaults()
"""What an absent key means: each class's size-related ``__init__`` defaults in transformers 5.25, by ``model_type``.

Read from ``llmcalc/data/hf_class_defaults.json`` (package data), which ``tools/verify_hf_models.py`` records
from the classes' signatures; ``None`` means the class derives the value (``num_key_value_heads`` from
``num_attention_heads``, ``head_dim`` from the width and heads).
"""
# A second name for the same setting: transformers 5 writes Qwen3-MoE's num_experts as num_local_experts.
KEY_ALIASES = {"qwen3_moe": {"num_experts": "num_local_experts"}}

# Keys whose names sound like sizes but change nothing llmcalc counts (epsilons, routing arithmetic, the label count
# only a sequence-classification head reads), or that transformers 5 no longer reads (Gemma 2's sliding_window_size).
_IRRELEVANT = frozenset("""
_sliding_window_pattern apply_residual_connection_post_layernorm chunk_size_feed_forward clip_qkv
cross_attention_hidden_size ep_size layer_norm_eps layer_norm_epsilon moe_layer_freq n_ctx n_group norm_epsilon
norm_topk_prob num_nextn_predict_layers pruned_heads qk_head_dim rms_norm_eps rotary_dim
scale_attn_by_inverse_layer_idx sliding_window_pattern sliding_window_size summary_proj_to_labels summary_use_proj
tie_encoder_decoder use_parallel_residual topk_group num_labels
""".split())
_SIZE_WORDS = re.compile(r"size|dim|layer|head|expert|rank|vocab|bias|norm|tie|window|lora|moe|shared|dense|"
                         r"intermediate|proj|qk|kv|parallel|fused|mtp|nextn|^num_|^n_")
# The keys each model_type's transformers 5.25 code reads (its modelling module, its config class's own methods, the
# shared RoPE, cache and masking code) whose names match _SIZE_WORDS, outside the class defaults above, the keys the
# rules below read and _IRRELEVANT: derived by tools/derive_config_keys.py, recorded in
# tests/data/hf_models/_read_keys.json (the test checks this table against the recording).  A config.json key
# transformers never reads cannot change what it builds, whatever its name (a checkpoint's training-code leftovers
# such as ep_size or num_nextn_predict_layers): ignored.
# A key listed here that llmcalc did not read is refused (Falcon's head_dim, a GPT-2 file's hidden_size alias).
READ_SIZE_KEYS: dict[str, frozenset[str]] = {model_type: frozenset() for model_type in CLASS_DEFAULTS} | {
    "deepseek_v2": frozenset({"num_experts"}), "deepseek_v3": frozenset({"num_local_experts"}),
    "falcon": frozenset({"head_dim"}), "gpt2": frozenset({"hidden_size", "num_attention_heads", "num_hidden_layers"}),
    "olmoe": frozenset({"num_local_experts", "sliding_window"}),
}


class _Reader:
    """Looks keys up in the file first, then in the class defaults of its ``model_type``."""

    def __init__(self, data: Mapping[str, Any], model_type: str) -> None:
        self.data, self.model_type, self.defaults = data, model_type, CLASS_DEFAULTS[model_type]
        self.used: set[str] = {"model_type"}

    def __call__(self, key: str) -> Any:
        alias = KEY_ALIASES.get(self.model_type, {}).get(key, key)
        self.used |= {key, alias}
        # Only a second name can contradict: a value is not compared with itself (NaN != NaN).
        if alias != key and key in self.data and alias in self.data and self.data[key] != self.data[alias]:
            raise self.fail("contradicting_keys", key=key, value=self.data[key], alias=alias,
                            alias_value=self.data[alias])
        for name in (key, alias):
            if name in self.data:
                return self.data[name]
        return self.defaults.get(key)

    def fail(self, code: str, **params: Any) -> Refusal:
        return refusal(code, config=self.model_type, **params)

    def refuse_unless(self, key: str, accepted: Callable[[Any], bool], code: str) -> None:
        value = self(key)
        if not accepted(value):
            raise self.fail(code, key=key, value=value)

    def check_rest(self) -> None:
        for key in self.data:
            if key in READ_SIZE_KEYS[self.model_type] and key not in self.used:
                raise self.fail("unknown_size_key", key=key, value=self.data[key])


def read_config(source: Mapping[str, Any] | str | os.PathLike[str]) -> Mapping[str, Any]:
    """A ``config.json``'s object as read (a mapping is returned as given), or a refusal naming the file's problem."""
    return _load(source)


def _load(source: Mapping[str, Any] | str | os.PathLike[str]) -> Mapping[str, Any]:
    if isinstance(source, Mapping):
        return source
    if not isinstance(source, (str, os.PathLike)):
        raise refusal("config_source_type", type=type(source).__name__)
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise refusal("unreadable_file", path=str(path), reason=error.strerror or str(error)) from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise refusal("too_deeply_nested", path=str(path)) from None
    except json.JSONDecodeError as error:
        raise refusal("invalid_json", path=str(path), reason=error.msg, line=error.lineno,
                      column=error.colno) from None
    except ValueError:  # an integer literal beyond sys.get_int_max_str_digits() (4,300 digits by default)
        raise refusal("number_too_long", path=str(path), max_digits=sys.get_int_max_str_digits()) from None
    if not isinstance(data, dict):
        raise refusal("not_a_json_object", path=str(path), type=type(data).__name__)
    return data


def _positive(read: _Reader, key: str, *, zero: bool = False) -> int:
    value = read(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
        raise read.fail("key_not_a_count", key=key, minimum=0 if zero else 1, value=value)
    return value


def _flag(read: _Reader, key: str) -> bool:
    value = read(key)
    if not isinstance(value, bool):
        raise read.fail("key_not_a_flag", key=key, value=value)
    return value


def _sliding(read: _Reader, n_layers: int, *, every_layer_when_no_types: bool) -> dict[str, int]:
    """Window and windowed-layer count, from ``layer_types`` when given (as transformers' cache reads it)."""
    window = read("sliding_window")
    types = read("layer_types")
    if types is not None:
        if not isinstance(types, list) or len(types) != n_layers:
            raise read.fail("layer_types_length", n_layers=n_layers, value=types,
                            entries=len(types) if isinstance(types, list) else None)
        # In order of first appearance: the entries may be of any JSON kind, which neither hash nor sort.
        unknown: list[Any] = []
        for item in types:
            if item not in ("full_attention", "sliding_attention") and item not in unknown:
                unknown.append(item)
        if unknown:
            raise read.fail("layer_types_unknown", types=unknown)
        windowed = types.count("sliding_attention")
    else:
        windowed = n_layers if every_layer_when_no_types and window else 0
    if windowed and not (isinstance(window, int) and not isinstance(window, bool) and window >= 2):
        raise read.fail("sliding_window_invalid", value=window)
    return {"sliding_window": window if windowed else 0, "sliding_window_layers": windowed}


def _layer_types(read: _Reader, n_layers: int, sliding: Callable[[int], bool]) -> None:
    """Fill in transformers' own default ``layer_types`` rule when the file has none."""
    if read("layer_types") is None:
        types = ["sliding_attention" if sliding(i) else "full_attention" for i in range(n_layers)]
        read.data = {**read.data, "layer_types": types}


def _common(read: _Reader) -> dict[str, Any]:
    d, heads = _positive(read, "hidden_size"), _positive(read, "num_attention_heads")
    kv_heads = read("num_key_value_heads")
    head_dim = read("head_dim")
    return {
        "vocab_size": _positive(read, "vocab_size"),
        "d_model": d,
        "n_layers": _positive(read, "num_hidden_layers"),
        "n_heads": heads,
        "n_kv_heads": heads if kv_heads is None else _positive(read, "num_key_value_heads"),
        "head_dim": d // heads if head_dim is None else _positive(read, "head_dim"),
        "tie_embeddings": _flag(read, "tie_word_embeddings"),
    }


# model_types whose attention_bias puts a bias on q, k, v and the output projection (or on MLA's down-projections).
ATTENTION_BIAS = ("llama", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3_text", "olmo", "olmo2", "olmoe",
                   "deepseek_v2", "deepseek_v3", "gpt_oss")


def _llama_like(read: _Reader) -> dict[str, Any]:
    cfg = _common(read)
    cfg["d_ff"] = _positive(read, "intermediate_size")
    mt = read.model_type
    if mt in ATTENTION_BIAS:
        cfg["qkv_bias"] = cfg["out_bias"] = _flag(read, "attention_bias")
    if mt in ("llama", "deepseek_v2"):
        cfg["mlp_bias"] = _flag(read, "mlp_bias")
    if mt == "qwen2":
        cfg["qkv_bias"] = True  # Qwen2's q, k and v projections always carry a bias, the output projection none
    if mt == "qwen2_moe":
        cfg["qkv_bias"] = _flag(read, "qkv_bias")
    return cfg


def _moe(read: _Reader, cfg: dict[str, Any], experts_key: str, width_key: str | None) -> None:
    if "decoder_sparse_step" in read.defaults:
        read.refuse_unless("decoder_sparse_step", lambda v: v == 1, "sparse_step_unmodelled")
        read.refuse_unless("mlp_only_layers", lambda v: v in (None, []), "dense_layers_unmodelled")
    cfg["n_experts"] = _positive(read, experts_key)
    cfg["experts_per_token"] = _positive(read, "num_experts_per_tok")
    if width_key:
        cfg["expert_d_ff"] = _positive(read, width_key)


def _qwen_sliding(read: _Reader, n_layers: int) -> dict[str, int]:
    """Qwen's ``use_sliding_window`` and ``max_window_layers``, with each config class's own layer rule."""
    mt, use = read.model_type, _flag(read, "use_sliding_window")
    if mt == "qwen3_moe":  # no layer_types: transformers' cache windows every layer once the window is on
        return _sliding(read, n_layers, every_layer_when_no_types=use)
    first = _positive(read, "max_window_layers", zero=True)
    if mt == "qwen2_moe":
        _layer_types(read, n_layers, lambda i: use and bool((i + 1) % 2) and i < first)
    else:
        _layer_types(read, n_layers, lambda i: use and read("sliding_window") is not None and i >= first)
    return _sliding(read, n_layers, every_layer_when_no_types=False)


def _build(read: _Reader) -> dict[str, Any]:
    mt = read.model_type
    if mt == "gpt2":
        read.refuse_unless("add_cross_attention", lambda v: not v, "cross_attention_unmodelled")
        d = _positive(read, "n_embd")
        inner = read("n_inner")
        return {"vocab_size": _positive(read, "vocab_size"), "d_model": d, "n_layers": _positive(read, "n_layer"),
                "n_heads": _positive(read, "n_head"), "d_ff": 4 * d if inner is None else _positive(read, "n_inner"),
                "ffn": "mlp", "tie_embeddings": _flag(read, "tie_word_embeddings"), "qkv_bias": True, "out_bias": True,
                "mlp_bias": True, "norm": "layernorm", "learned_positions": _positive(read, "n_positions"),
                "layout": "gpt2"}
    if mt == "falcon":
        read.refuse_unless("new_decoder_architecture", lambda v: not v, "new_decoder_unmodelled")
        d, heads = _positive(read, "hidden_size"), _positive(read, "num_attention_heads")
        ffn = read("ffn_hidden_size")
        bias = _flag(read, "bias")
        two_norms = not _flag(read, "parallel_attn") or read("num_ln_in_parallel_attn") == 2
        # The old decoder architecture builds Q, K and V for every head unless multi_query: num_kv_heads is unused.
        multi_query = _flag(read, "multi_query")
        kv_heads = 1 if multi_query else heads
        # transformers 5.25 derives num_key_value_heads, the heads its cache code sizes, and saves it; a file's value
        # replaces the derived one, so only the number the attention layers build is accepted.
        if read("num_key_value_heads") is not None and _positive(read, "num_key_value_heads") != kv_heads:
            raise read.fail("contradicting_keys", key="num_key_value_heads", value=read("num_key_value_heads"),
                            alias="multi_query", alias_value=multi_query)
        return {"vocab_size": _positive(read, "vocab_size"), "d_model": d, "n_heads": heads,
                "n_layers": _positive(read, "num_hidden_layers"),
                "n_kv_heads": kv_heads,
                "d_ff": 4 * d if ffn is None else _positive(read, "ffn_hidden_size"), "ffn": "mlp",
                "tie_embeddings": _flag(read, "tie_word_embeddings"), "qkv_bias": bias, "out_bias": bias,
                "mlp_bias": bias, "norm": "layernorm", "norms_per_layer": 2 if two_norms else 1,
                "layout": "falcon"}
    if mt in ("gpt_neox", "phi", "starcoder2"):  # classic two-matrix MLP with LayerNorm
        cfg = {**_common(read), "d_ff": _positive(read, "intermediate_size"), "ffn": "mlp", "norm": "layernorm",
               "layout": mt, "mlp_bias": True}
        bias_key = {"gpt_neox": "attention_bias", "starcoder2": "use_bias"}.get(mt)
        cfg["qkv_bias"] = cfg["out_bias"] = _flag(read, bias_key) if bias_key else True
        if mt == "phi":
            qk_norm = "per-head" if _flag(read, "qk_layernorm") else "none"
            cfg.update(lm_head_bias=True, norms_per_layer=1, qk_norm=qk_norm)
        if mt == "starcoder2":
            cfg.update(mlp_bias=cfg["qkv_bias"], **_sliding(read, cfg["n_layers"], every_layer_when_no_types=True))
        return cfg

    cfg = _llama_like(read)
    n_layers = cfg["n_layers"]
    if mt in ("mistral", "mixtral", "phi3"):
        cfg.update(_sliding(read, n_layers, every_layer_when_no_types=True))
    if mt in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        cfg.update(_qwen_sliding(read, n_layers))
    if mt == "gemma2":
        _layer_types(read, n_layers, lambda i: bool((i + 1) % 2))
        cfg.update(_sliding(read, n_layers, every_layer_when_no_types=False), norms_per_layer=4)
    if mt == "gemma3_text":
        read.refuse_unless("use_bidirectional_attention", lambda v: not v, "bidirectional_unmodelled")
        pattern_key = next((k for k in ("sliding_window_pattern", "_sliding_window_pattern") if k in read.data), None)
        pattern = _positive(read, pattern_key) if pattern_key else 6
        _layer_types(read, n_layers, lambda i: bool((i + 1) % pattern))
        cfg.update(_sliding(read, n_layers, every_layer_when_no_types=False), norms_per_layer=4, qk_norm="per-head")
    if mt == "gpt_oss":  # a 128-token window on every other layer, from layer 0
        _layer_types(read, n_layers, lambda i: bool((i + 1) % 2))
        cfg.update(_sliding(read, n_layers, every_layer_when_no_types=False))
        _moe(read, cfg, "num_local_experts", None)
        cfg.update(mlp_bias=True, router_bias=True, attention_sinks=True)
    if mt in ("qwen3", "qwen3_moe"):
        cfg["qk_norm"] = "per-head"
    if mt == "olmo":
        cfg["norm"] = "parameter-free"
    if mt in ("olmo2", "olmoe"):
        cfg["qk_norm"] = "per-projection"
    if mt == "phi3":
        cfg["layout"] = "phi3"
    if mt == "mixtral":
        _moe(read, cfg, "num_local_experts", None)
    if mt == "olmoe":
        _moe(read, cfg, "num_experts", None)
    if mt in ("qwen2_moe", "qwen3_moe"):
        _moe(read, cfg, "num_experts", "moe_intermediate_size")
    if mt == "qwen2_moe":
        cfg["shared_expert_d_ff"] = _positive(read, "shared_expert_intermediate_size")
        cfg["shared_expert_gate"] = True
    if mt in ("deepseek_v2", "deepseek_v3"):
        _moe(read, cfg, "n_routed_experts", "moe_intermediate_size")
        nope, rope = _positive(read, "qk_nope_head_dim"), _positive(read, "qk_rope_head_dim")
        q_rank = read("q_lora_rank")
        cfg.update(head_dim=nope + rope, rope_head_dim=rope, v_head_dim=_positive(read, "v_head_dim"),
                   kv_lora_rank=_positive(read, "kv_lora_rank"),
                   q_lora_rank=0 if q_rank is None else _positive(read, "q_lora_rank"),
                   n_kv_heads=cfg["n_heads"], dense_layers=_positive(read, "first_k_dense_replace", zero=True),
                   shared_expert_d_ff=_positive(read, "n_shared_experts", zero=True) * cfg["expert_d_ff"])
    return cfg


def _rope_scalings(read: _Reader) -> list[Mapping[str, Any]]:
    """The RoPE scaling dicts a config declares: transformers 5's ``rope_parameters`` (one per layer type for
    Gemma 3) and the older ``rope_scaling``."""
    found: list[Mapping[str, Any]] = []
    for key in ("rope_parameters", "rope_scaling"):
        value = read(key)
        if isinstance(value, Mapping):
            nested = [item for item in value.values() if isinstance(item, Mapping)]
            found += nested or [value]
    return found


def _trained_context(read: _Reader) -> int:
    """Positions the model was trained on: ``max_position_embeddings`` (GPT-2: ``n_positions``), or longer.

    A RoPE scaling that declares the length it extends (``original_max_position_embeddings``, in the scaling or at
    the top level) and a ``factor`` reaches ``original * factor`` (Qwen2.5's YaRN: 32,768 x 4); the larger of the
    two counts.  A factor without its original length is not applied: Gemma 3 declares linear scaling 8 beside a
    ``max_position_embeddings`` that is already the extended 131,072.  Nor is Llama 3.1 and 3.2's ``llama3``
    scaling: its factor (8, or 32 for 3.2) rescales the long wavelengths of a model whose
    ``max_position_embeddings`` is already its 131,072-token context, and 8,192 x 32 would claim 262,144.
    """
    if read.model_type == "gpt2":
        return _positive(read, "n_positions")
    positions = _positive(read, "max_position_embeddings")
    top_original = read("original_max_position_embeddings")
    longest = positions
    for scaling in _rope_scalings(read):
        if scaling.get("rope_type", scaling.get("type")) == "llama3":
            continue
        factor = scaling.get("factor")
        original = scaling.get("original_max_position_embeddings", top_original)
        if isinstance(original, bool) or not isinstance(original, int) or not 1 <= original <= 2**53:
            continue
        if isinstance(factor, int) and not isinstance(factor, bool) and factor > 1:
            longest = max(longest, original * factor)
        elif isinstance(factor, float) and math.isfinite(factor) and factor > 1 and math.isfinite(original * factor):
            longest = max(longest, int(original * factor))
    return longest


def config_from_hf(source: Mapping[str, Any] | str | os.PathLike[str]) -> ModelConfig:
    """Build a :class:`ModelConfig` from a ``config.json`` (see :meth:`ModelConfig.from_hf_config`).

    Examples
    --------
    >>> config_from_hf({"model_type": "bert"})
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: model_type 'bert' is not supported; supported: llama, mistral, mixtral, ...
    >>> config_from_hf({"model_type": "llama", "quantization_config": {"bits": 4}})
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: llama config: quantization_config describes a quantized checkpoint, ...
    """
    data = _load(source)
    model_type = data.get("model_type")
    if not isinstance(model_type, str) or model_type not in CLASS_DEFAULTS:
        raise refusal("unsupported_model_type", model_type=model_type, supported=list(SUPPORTED_MODEL_TYPES),
                      multimodal=isinstance(data.get("text_config"), dict))
    if "quantization_config" in data:
        raise refusal("quantized_checkpoint", config=model_type)
    read = _Reader(data, model_type)
    fields = _build(read)
    fields["trained_context"] = _trained_context(read)
    read.check_rest()
    fields["model_type"] = model_type
    try:
        return ModelConfig(**fields)
    except Refusal as error:
        raise refusal(error.code, **{**error.params, "config": model_type}) from None
