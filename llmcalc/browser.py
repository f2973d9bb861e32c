"""Everything the browser's copy of llmcalc reads: ``modelconfig.js``, ``modelcounts.js`` and ``planner.js``.

The JavaScript ports the *rules* of :mod:`llmcalc.hf`, :mod:`llmcalc.config`,
:mod:`llmcalc.params` and :mod:`llmcalc.lora`; the *data* those rules read (class
defaults, aliases, module names, choices) stays here, in one place, since a table
retyped in JavaScript would drift from Python unnoticed.  It reaches the page as
JSON (``glossary_html.inline_json("modelconfig-tables", browser_data())``);
nothing in it depends on the order of an object's keys, so sorted keys are fine.
:func:`planner_tables` is the same for the planner's own rules (limits, cards,
optimizer and precision tables, weight formats, parallelism, the MoE routing
settings, vLLM's constants), written into the widget's ``data-tables``.

Both carry :data:`SPEC_VERSION`, which the scripts compare with the version they were
written for before they read anything else: a page whose tables and scripts disagree
says so instead of computing numbers.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

from . import (
    activations,
    checkpoints,
    config,
    costcli,
    engines,
    errors,
    formats,
    hf,
    lora,
    memory,
    params,
    planner,
    ranking,
    trainers,
    weightformats,
)
from .cli import DEFAULT_CONTEXT, DEFAULT_SEQ_LEN

__all__ = ["SPEC_VERSION", "browser_data", "planner_tables"]

SPEC_VERSION = 2
"""The version of the tables' layout, raised with every change a script must follow (a table added, renamed or
reshaped); ``modelconfig.js`` and ``planner.js`` each name the version they read, and refuse any other.
Version 1 was the unversioned layout; 2 added llmcalc.activations' family traits, the ranking's GPU counts and the
cost field's largest power of ten."""


def browser_data() -> dict[str, Any]:
    """Every table ``modelconfig.js`` reads, as a JSON-serialisable dict.

    Examples
    --------
    >>> import json
    >>> tables = browser_data()
    >>> tables["supportedModelTypes"][:3], tables["aliases"]
    (['llama', 'mistral', 'mixtral'], {'qwen3_moe': {'num_experts': 'num_local_experts'}})
    >>> json.loads(json.dumps(tables)) == tables
    True
    """
    return {
        "spec_version": SPEC_VERSION,
        # The codes a refusal may carry (llmcalc.errors): the page's message catalogue covers each (tested).
        "refusalCodes": sorted(errors.MESSAGES),
        "supportedModelTypes": list(hf.SUPPORTED_MODEL_TYPES),
        "defaults": hf.CLASS_DEFAULTS,
        "aliases": hf.KEY_ALIASES,
        "readSizeKeys": {model_type: sorted(keys) for model_type, keys in hf.READ_SIZE_KEYS.items()},
        "attentionBias": list(hf.ATTENTION_BIAS),
        "fields": [
            {"name": item.name, "type": str(item.type), "default": None if item.default is MISSING else item.default}
            for item in fields(config.ModelConfig)
        ],
        "atLeastOne": list(config.AT_LEAST_ONE),
        "choices": {name: list(options) for name, options in config.FIELD_CHOICES.items()},
        "layoutFfn": config.LAYOUT_FFN,
        "attention": {
            layout: {"prefix": prefix, "names": names} for layout, (prefix, names) in params.ATTENTION_MODULES.items()
        },
        "mlp": params.MLP_MODULES,
        "routerNames": params.ROUTER_NAMES,
        "allLinear": lora.ALL_LINEAR,
        "fusedInto": lora.FUSED_INTO,
        # llmcalc.checkpoints: the quantization methods it sizes.
        "quantMethods": list(checkpoints.QUANT_METHODS),
        "quantAccepted": checkpoints.ACCEPTED,
        # Pairs, not an object: the order of peft's names shows in a message, and JSON objects may be re-sorted.
        "peftMoeNames": {
            model_type: [list(pair) for pair in names.items()] for model_type, names in lora.PEFT_MOE_NAMES.items()
        },
    }


def planner_tables() -> dict[str, Any]:
    """Every table ``planner.js`` reads, as a JSON-serialisable dict.

    Examples
    --------
    >>> import json
    >>> tables = planner_tables()
    >>> tables["cards"]["t4"] // 2**20, tables["zero3"]["reduce_bucket_size"], tables["parallel"]["vocab_padding"]
    (14909, 500000000, 64)
    >>> tables["card_totals"]["t4"]["field"], tables["card_totals"]["a10g"]["field"]
    ('14.56 GiB', '22147 MiB')
    >>> json.loads(json.dumps(tables)) == json.loads(json.dumps(planner_tables()))
    True
    """
    return {
        "spec_version": SPEC_VERSION,
        "limits": {"max_params": planner.MAX_PARAMS, "max_tokens": planner.MAX_TOKENS,
                   "max_batch": planner.MAX_BATCH, "max_gpus": planner.MAX_GPUS, "reserve": planner.RESERVE,
                   "min_gpu_bytes": planner.MIN_GPU_BYTES, "max_gpu_bytes": planner.MAX_GPU_BYTES},
        "cards": {card.key: card.total_bytes for card in planner.CARDS},
        "card_totals": {card.key: {"field": card.field, "reported_mib": card.reported_mib, "tool": card.tool,
                                   "estimated": card.estimated, "source": card.process_source}
                        for card in planner.CARDS},
        "process_estimate_mib": planner.PROCESS_ESTIMATE_MIB,
        "process_estimate_error_mib": planner.PROCESS_ESTIMATE_ERROR_MIB,
        "memory_units": dict(planner.MEMORY_UNITS),
        "dtype_bits": dict(formats.DTYPE_BITS),
        "optimizers": {name: memory.OPTIMIZER_STATES[name] for name in planner.OPTIMIZERS},
        "precisions": {name: memory.PRECISION_BYTES[name] for name in ("mixed", "fp32", "bf16")},
        "full_precisions": planner.PRECISIONS,
        "tasks": list(planner.TASKS),
        "plan_parts": [item.name for item in fields(planner.MemoryPlan)],
        "precision_recipes": dict(planner.PRECISION_RECIPES),
        "qlora_preparations": planner.QLORA_PREPARATIONS,
        "adapter_dtypes": planner.ADAPTER_DTYPES,
        "setups": [{field: getattr(setup, field) for field in ("key", "qlora_preparation", "lora_adapter_dtype",
                                                              "qlora_adapter_dtype", "optimizer", "checkpointing",
                                                              "rank", "lora_dropout", "targets")}
                   for setup in trainers.SETUPS],
        "axolotl_restored_layouts": trainers.AXOLOTL_RESTORED_LAYOUTS,
        "bnb_optimizer": {"min_8bit_size": planner.BNB_MIN_8BIT_SIZE, "block": planner.BNB_OPTIMIZER_BLOCK,
                          "maps": planner.BNB_QUANTIZATION_MAPS},
        "zero_sharded": [sorted(parts) for parts in memory.ZERO_SHARDED],
        "weight_formats": formats.WEIGHT_FORMATS,
        "fp32_routers": weightformats.FP32_ROUTERS,
        "no_gptq_layouts": weightformats.NO_GPTQ_LAYOUTS,
        "parallel": {"vocab_padding": planner.VLLM_VOCAB_PADDING, "column": planner.COLUMN_PARALLEL,
                     "row": planner.ROW_PARALLEL},
        "lora_defaults": {"peft_version": lora.PEFT_VERSION, "seq_len": DEFAULT_SEQ_LEN, "context": DEFAULT_CONTEXT,
                          "targets": {kind: list(names) for kind, names in lora.PEFT_DEFAULT_TARGETS.items()},
                          "moe_converted": sorted(lora.PEFT_MOE_NAMES)},
        "zero3": {"max_live_parameters": planner.ZERO3_MAX_LIVE_PARAMETERS,
                  "prefetch_bucket_size": planner.ZERO3_PREFETCH_BUCKET_SIZE,
                  "reduce_bucket_size": planner.ZERO3_REDUCE_BUCKET_SIZE},
        "activations_moe": {
            "families": activations.MOE_FAMILIES,
            "renormalized": sorted(activations.RENORMALIZED_ROUTING),
            "fp32_routing_weights": sorted(activations.FP32_ROUTING_WEIGHTS),
            "fp32_router": sorted(activations.FP32_ROUTER_INPUT),
            "v3_groups": activations.V3_GROUPS, "v3_kept_groups": activations.V3_KEPT_GROUPS,
            "peft_moe_names": lora.PEFT_MOE_NAMES,
        },
        # The family traits llmcalc.activations' rules read (its own tables, by their names there).
        "activations_traits": activations.FAMILY_TRAITS,
        "ranking": {"gpu_counts": list(ranking.GPU_COUNTS), "utilization_step": ranking.UTILIZATION_STEP},
        "run_cost": {"max_power": costcli.MAX_POWER},
        "checkpoints": {"block_prefix": checkpoints.BLOCK_PREFIX, "head_name": checkpoints.HEAD_NAME,
                        "max_named_copies": checkpoints.MAX_NAMED_COPIES},
        "engines": {"block_size": engines.VLLM_BLOCK_SIZE, "non_torch": engines.VLLM_NON_TORCH,
                    "extensible_block_size": engines.VLLM_EXTENSIBLE_BLOCK_SIZE,
                    "extensible_margin_floor": engines.VLLM_EXTENSIBLE_MARGIN_FLOOR,
                    "extensible_margin_floor_rocm": engines.VLLM_EXTENSIBLE_MARGIN_FLOOR_ROCM,
                    "extensible_granule": engines.VLLM_EXTENSIBLE_GRANULE,
                    "activation_bytes": engines.ACTIVATION_BYTES, "max_num_seqs": engines.VLLM_MAX_NUM_SEQS,
                    "fp32_bytes": engines.FP32_BYTES, "torch_sort_small_row": engines.TORCH_SORT_SMALL_ROW,
                    "versions": engines.VLLM_VERSIONS,
                    "version_sampler_filters": engines.VLLM_VERSION_SAMPLER_FILTERS,
                    "fused_moe_chunk": engines.VLLM_FUSED_MOE_CHUNK,
                    "sampler_filters": list(engines.VLLM_SAMPLER_FILTERS),
                    "triton_filter_min_rows": engines.VLLM_TRITON_FILTER_MIN_ROWS,
                    "mxfp4_cards": list(engines.VLLM_MXFP4_CARDS)},
    }
