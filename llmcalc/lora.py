"""LoRA sizes, counted the way peft counts them.

LoRA freezes a weight matrix ``W`` (``d_out x d_in``) and learns a low-rank
update ``B @ A`` with ``A`` of shape ``rank x d_in`` and ``B`` of shape
``d_out x rank``: ``rank * (d_in + d_out)`` trainable values instead of
``d_in * d_out``.

Model-level counts follow ``peft.LoraConfig(target_modules=...)`` (checked with
transformers 5.25 and peft 0.22.0 in ``tests/data/hf_models/``): a target names a
module as peft matches it (its name or a dotted suffix of its path: ``q_proj``,
``query_key_value``, ``c_attn``, ``self_attn.o_proj``), or a role ``q``, ``k``,
``v``, ``o``, ``gate``, ``up``, ``down``.  ``"all-linear"`` is every linear module
but the output head.

Mixture-of-experts models follow peft 0.22.0 on transformers 5.25 exactly, a
convention that differs between library versions.  In transformers 5 the routed
experts are stacked 3-D weights and the router a plain weight, not ``nn.Linear``
modules.  For Mixtral, Qwen-MoE, Qwen3-MoE, OLMoE and DeepSeek-V2/V3 peft maps the
transformers-4 names onto them (``gate``, ``gate_proj``/``up_proj``/``down_proj``
or ``w1``/``w3``/``w2``): the router gets an adapter of ``rank * (d_model +
n_experts)``, the stacked experts one of rank ``rank * n_experts`` on the down
projection and ``2 * rank * n_experts`` on the fused gate/up projection, and
linear modules with those names elsewhere (shared experts, DeepSeek's dense
layers) are adapted as well.  peft 0.21.2 differed twice: it left those linear
modules out, and it did not convert Qwen-MoE (``qwen2_moe``), adapting only its
linear modules; Qwen1.5-MoE-A2.7B under ``"all-linear"`` at rank 16 trained
15,925,632 parameters there and 320,494,464 in 0.22.0, DeepSeek-V2-Lite
358,994,944 and 365,688,832.  No bias is trained and no module is fully
fine-tuned.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import _validate as check
from .config import ModelConfig, checks_model
from .errors import refusal
from .params import Linear, linear_modules, param_count

__all__ = [
    "ALL_LINEAR", "FUSED_INTO", "PEFT_DEFAULT_TARGETS", "PEFT_MOE_NAMES", "PEFT_VERSION", "default_lora_targets",
    "largest_low_rank", "linear_target_names", "lora_model_params", "lora_model_share", "lora_params", "lora_targets"
]

ALL_LINEAR = "all-linear"
# Roles a fused module computes together: naming the part cannot select the fused module.
FUSED_INTO = {"q": "qkv", "k": "qkv", "v": "qkv", "gate": "gate_up", "up": "gate_up"}

# peft 0.22.0's transformers-5 MoE conversion (utils/transformers_weight_conversion.py): model_type ->
# {transformers-4 module name: stacked weight it adapts}.
_QWEN_NAMES = {"gate": "router", "gate_proj": "gate_up", "up_proj": "gate_up", "down_proj": "down"}
PEFT_MOE_NAMES: dict[str, dict[str, str]] = {
    "mixtral": {"gate": "router", "w1": "gate_up", "w3": "gate_up", "w2": "down"},
    **dict.fromkeys(("qwen2_moe", "qwen3_moe", "olmoe", "deepseek_v2", "deepseek_v3"), _QWEN_NAMES),
}


PEFT_VERSION = "0.22.0"
"""The peft release whose defaults and counts llmcalc follows."""

# What LoraConfig() (target_modules=None) adapts, per model_type: the entries of peft 0.22.0's
# TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING (src/peft/utils/constants.py) for the model types llmcalc reads;
# the other model types llmcalc reads have no entry, and peft then raises "Please specify `target_modules`"
# (BaseTuner._prepare_adapter_config).  tests/data/hub_configs/_peft_defaults.json records the whole table and
# get_peft_model(model, LoraConfig()) on every committed Hub config (tools/verify_peft_defaults.py).
PEFT_DEFAULT_TARGETS: dict[str, tuple[str, ...]] = {
    "gpt2": ("c_attn",), "gpt_neox": ("query_key_value",), "falcon": ("query_key_value",),
    "llama": ("q_proj", "v_proj"), "mistral": ("q_proj", "v_proj"), "mixtral": ("q_proj", "v_proj"),
    "phi": ("q_proj", "v_proj", "fc1", "fc2"), "gemma": ("q_proj", "v_proj"), "gemma2": ("q_proj", "v_proj"),
    "gemma3_text": ("q_proj", "v_proj"), "qwen2": ("q_proj", "v_proj"), "qwen3": ("q_proj", "v_proj"),
}


@checks_model
def default_lora_targets(cfg: ModelConfig) -> list[str]:
    """The modules peft adapts when ``LoraConfig`` names none, for ``cfg``'s ``model_type`` (peft 0.22.0).

    A config without a ``model_type`` (a preset, or fields typed by hand) takes that of its
    ``layout``: a Llama-layout preset gets Llama's default.  Where peft has no default,
    the refusal lists the adaptable modules to choose from.  On transformers 5 peft first
    converts the targets of the mixtures of experts whose experts it maps
    (:data:`PEFT_MOE_NAMES`, Mixtral among them), which turns a missing ``target_modules``
    into an empty set before the table is read: ``get_peft_model`` then raises even for
    Mixtral, which the table lists, and so does this function.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> default_lora_targets(get_preset("llama-2-7b")), default_lora_targets(get_preset("gpt2"))
    (['q_proj', 'v_proj'], ['c_attn'])
    >>> default_lora_targets(get_preset("mixtral-8x7b"))
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: peft 0.22.0 has no default LoRA targets for model_type 'mixtral' ...
    """
    model_type = cfg.model_type or cfg.layout
    names = PEFT_DEFAULT_TARGETS.get(model_type)
    if names is None or (cfg.is_moe and model_type in PEFT_MOE_NAMES):
        modules = list(dict.fromkeys(m.path for m in linear_modules.unchecked(cfg) if m.adaptable))
        raise refusal("no_default_targets", peft_version=PEFT_VERSION, model_type=model_type, modules=modules)
    return list(names)


def lora_params(d_in: int, d_out: int, rank: int) -> int:
    """Trainable parameters of one LoRA adapter: ``rank * (d_in + d_out)``.

    ``rank`` may not exceed ``min(d_in, d_out)`` (beyond that the update is
    no longer low-rank).

    Examples
    --------
    >>> lora_params(4096, 4096, 8)
    65536
    >>> [lora_params(4096, 4096, r) for r in (4, 8, 16, 64)]
    [32768, 65536, 131072, 524288]
    >>> lora_params(16, 32, 20)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: rank must be an integer in [1, min(d_in, d_out)=16]; got 20
    """
    fan_in, fan_out = check.count("d_in", d_in), check.count("d_out", d_out)
    r = check.count("rank", rank)
    if r > min(fan_in, fan_out):
        raise refusal("rank_above_matrix", max_rank=min(fan_in, fan_out), rank=r)
    return r * (fan_in + fan_out)


def _matches(module: Linear, target: str) -> bool:
    return target == module.role or module.path == target or module.path.endswith("." + target)


@checks_model
def lora_targets(cfg: ModelConfig, targets: str | Iterable[str] = ("q", "v")) -> list[Linear]:
    """The linear modules that ``targets`` selects, as peft would match them.

    A target that matches nothing raises ``ValueError`` listing the modules
    the model has, and naming the fused module a role is part of.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> [m.path for m in lora_targets(get_preset("gpt2"), ["c_proj"])]  # peft matches both c_proj
    ['attn.c_proj', 'mlp.c_proj']
    >>> lora_targets(get_preset("gpt2"), ["q", "v"])
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: target 'q' matches no module of this model (it fuses 'q' into ...
    """
    modules = linear_modules.unchecked(cfg)
    adaptable = [m for m in modules if m.adaptable]
    if isinstance(targets, str) and targets == ALL_LINEAR:
        return [m for m in adaptable if m.role != "lm_head"]
    names = check.targets(targets)
    chosen: list[Linear] = []
    for name in names:
        hits = [m for m in adaptable if _matches(m, name)]
        if not hits:
            fused = next((m for m in adaptable if m.role == FUSED_INTO.get(name)), None)
            raise refusal("target_matches_nothing", target=name, fused_into=fused.path if fused else None,
                          modules=list(dict.fromkeys(m.path for m in adaptable)))
        chosen += [m for m in hits if m not in chosen]
    return chosen


def _stacked_expert_params(cfg: ModelConfig, rank: int, names: list[str]) -> tuple[int, list[str]]:
    """peft's adapters on stacked expert weights for ``names``, and the names left to match linear modules."""
    conversion = PEFT_MOE_NAMES.get(cfg.model_type) if cfg.is_moe else None
    if not conversion:
        return 0, names
    mapped: dict[str, list[str]] = {}
    for name in names:
        if name in conversion:
            mapped.setdefault(conversion[name], []).append(name)
    fused_sources = [name for name, weight in conversion.items() if weight == "gate_up"]
    if 0 < len(mapped.get("gate_up", [])) < len(fused_sources):
        raise refusal("experts_need_fused_pair", targets=mapped["gate_up"], needed=fused_sources)
    d, width, experts = cfg.d_model, cfg.routed_expert_d_ff, cfg.n_experts
    per_layer = {
        "router": rank * (d + experts),
        "gate_up": 2 * rank * experts * (d + 2 * width),
        "down": rank * experts * (width + d),
    }
    total = cfg.moe_layers * sum(per_layer[weight] for weight in mapped)
    return total, linear_target_names(cfg, names)


def linear_target_names(cfg: ModelConfig, names: list[str]) -> list[str]:
    """The names in ``names`` that still select linear modules once peft has converted the MoE names.

    peft 0.22.0 keeps a converted name as a module target where every module it names is
    ``nn.Linear`` (a shared expert's or a dense layer's ``gate_proj``), besides the stacked
    weight it maps to; a name that names no linear module (``w1``, the router's ``gate``) only
    selects the stacked weight.
    """
    conversion = PEFT_MOE_NAMES.get(cfg.model_type, {}) if cfg.is_moe else {}
    paths = [m.path for m in linear_modules.unchecked(cfg) if m.adaptable]
    return [name for name in names
            if name not in conversion or any(path == name or path.endswith("." + name) for path in paths)]


@checks_model
def lora_model_params(cfg: ModelConfig, rank: int, targets: str | Iterable[str] = ("q", "v")) -> int:
    """Trainable LoRA parameters when adapting ``targets`` in every layer, as peft counts them.

    Each matched linear module gets ``rank * (d_in + d_out)`` parameters in
    every copy; for mixtures of experts see the module docstring.  peft accepts
    any rank, even above a module's smaller side (Qwen-MoE's ``d_model x 1``
    shared-expert gate under ``"all-linear"``), and so does this count.

    Examples
    --------
    The classic recipe, rank 8 on q and v of Llama-2-7B (peft agrees):

    >>> from llmcalc import get_preset
    >>> lora_model_params(get_preset("llama-2-7b"), 8)
    4194304
    >>> [lora_model_params(get_preset("reference"), r, "all-linear") for r in (4, 8, 16)]
    [1218560, 2437120, 4874240]
    >>> lora_model_params(get_preset("gpt2"), 8, ["c_attn"])  # the fused q, k, v: 8 * (768 + 2304) per layer
    294912
    """
    r = check.count("rank", rank)
    if isinstance(targets, str) and targets == ALL_LINEAR:
        if cfg.is_moe and not cfg.model_type:
            raise refusal("all_linear_needs_model_type", model_types=sorted({"qwen2_moe", *PEFT_MOE_NAMES}))
        # peft resolves "all-linear" to the leaf names of the linear modules, then maps MoE names as for a list.
        names = list(dict.fromkeys(m.path.rsplit(".", 1)[-1] for m in lora_targets.unchecked(cfg, ALL_LINEAR)))
        names += [name for name in PEFT_MOE_NAMES.get(cfg.model_type, {}) if cfg.is_moe and name not in names]
    else:
        names = check.targets(targets)
    stacked, module_names = _stacked_expert_params(cfg, r, names)
    chosen = lora_targets.unchecked(cfg, module_names) if module_names else []
    return stacked + r * sum(m.copies * (m.d_in + m.d_out) for m in chosen)


@checks_model
def largest_low_rank(cfg: ModelConfig, targets: str | Iterable[str]) -> tuple[int, str] | None:
    """The largest rank that stays low-rank on every linear module ``targets`` adapts, and the module that sets it.

    That is the smallest ``min(d_in, d_out)`` among the adapted modules.  peft 0.22.0
    accepts any rank (``LoraConfig(r=100)`` on a 32-wide layer trains, with a 100 x 32
    ``lora_A``), so a rank above it is counted, not refused; the CLI says that the update
    is then no longer low-rank.  Stacked experts and routers (:data:`PEFT_MOE_NAMES`) are
    not linear modules and are left out; None when ``targets`` adapts none.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> largest_low_rank(get_preset("llama-2-7b"), ["q_proj", "v_proj"])
    (4096, 'self_attn.q_proj')
    >>> largest_low_rank(get_preset("llama-3-8b"), ["q", "v"])  # 8 KV heads of 128: v_proj is 4096 x 1024
    (1024, 'self_attn.v_proj')
    """
    if isinstance(targets, str) and targets == ALL_LINEAR:
        modules = lora_targets.unchecked(cfg, ALL_LINEAR)
    else:
        names = linear_target_names(cfg, check.targets(targets))
        modules = lora_targets.unchecked(cfg, names) if names else []
    if not modules:
        return None
    narrowest = min(modules, key=lambda m: min(m.d_in, m.d_out))
    return min(narrowest.d_in, narrowest.d_out), narrowest.path


@checks_model
def lora_model_share(cfg: ModelConfig, rank: int, targets: str | Iterable[str] = ("q", "v")) -> float:
    """LoRA trainable parameters as a fraction of the frozen model's total.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> round(100 * lora_model_share(get_preset("llama-2-7b"), 8), 3)  # percent
    0.062
    """
    return lora_model_params.unchecked(cfg, rank, targets) / param_count.unchecked(cfg)

