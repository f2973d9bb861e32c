"""llmcalc's refusals: a stable code and its parameters, with the English message formatted from them.

Every input llmcalc refuses raises a :class:`RefusalValueError` (right kind of value, outside what is accepted or
modelled) or a :class:`RefusalTypeError` (wrong kind of value).  Both are :class:`Refusal`: ``.code`` is one of
:data:`MESSAGES`' keys and never changes meaning, ``.params`` holds the values the message names (JSON-like:
str, int, float, bool, None and lists of them).  The English text is ``MESSAGES[code]`` filled in with the
parameters; the browser's planner fills in its own translated template for the same code instead (the
catalogue is the widget's label list, see ``docs/_ext/llmglossary/calculators/labels.py``), so no English
detail reaches a translated page.  A parameter ``config`` (a ``model_type``) prefixes the message with
``"<model_type> config: "``.

Examples
--------
>>> from llmcalc import ModelConfig
>>> try:
...     ModelConfig(vocab_size=1000, d_model=64, n_layers=2, n_heads=6, d_ff=256)
... except Refusal as error:
...     print(error.code, error.params, isinstance(error, ValueError))
heads_do_not_divide {'n_heads': 6, 'd_model': 64} True
"""

from __future__ import annotations

import string
from typing import Any

__all__ = ["MESSAGES", "Refusal", "RefusalTypeError", "RefusalValueError", "refusal"]


class _Formatter(string.Formatter):
    """``str.format`` plus two list styles: ``{x:repr_list}`` ('a', 'b') and ``{x:list}`` (a, b)."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == "repr_list":
            return ", ".join(repr(item) for item in value)
        if format_spec == "list":
            return ", ".join(str(item) for item in value)
        if format_spec == "count" and value is None:
            return "missing"
        if format_spec == "count":
            return repr(value)
        return str(super().format_field(value, format_spec))


_FORMAT = _Formatter()


def _range(params: dict[str, Any]) -> str:
    minimum, maximum = params["minimum"], params.get("maximum")
    return f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"


def _bounds(params: dict[str, Any]) -> str:
    bounds = []
    if params.get("minimum") is not None:
        bounds.append(f"{'>=' if params['min_inclusive'] else '>'} {params['minimum']:g}")
    if params.get("maximum") is not None:
        bounds.append(f"{'<=' if params['max_inclusive'] else '<'} {params['maximum']:g}")
    return "a finite number" + (" " + " and ".join(bounds) if bounds else "")


# code -> English template.  ``{range}`` (an integer's accepted range) and ``{bounds}`` (a number's) are derived
# from minimum/maximum; ``{suggestion_hint}``, ``{int_hint}``, ``{multimodal_hint}`` and ``{fused_hint}`` from an
# optional parameter; a translated catalogue derives the same pieces in its own words.
MESSAGES: dict[str, str] = {
    # _validate: any parameter of any function
    "not_one_of": "{name} must be one of {options:repr_list}; got {value!r}{suggestion_hint}",
    "not_one_of_type": "{name} must be one of {options:repr_list}; got {value!r} ({type})",
    "not_a_flag": "{name} must be True or False; got {value!r} ({type})",
    "not_an_integer": "{name} must be {range}; got {value!r} ({type}){int_hint}",
    "integer_out_of_range": "{name} must be {range}; got {value!r}",
    "not_a_number": "{name} must be {bounds}; got {value!r} ({type})",
    "number_too_large": "{name} must be {bounds}; got {value!r}, too large for a float",
    "number_out_of_range": "{name} must be {bounds}; got {value!r}",
    "not_an_array": "{name} must be a finite real array{neg_inf_hint}; got {value!r}, which is not a number or array",
    "array_dtype": "{name} must be a finite real array{neg_inf_hint}; got dtype {dtype}",
    "array_dimensions": "{name} must have at least {min_ndim} dimension(s); got shape {shape}",
    "array_not_finite": "{name} must be a finite real array{neg_inf_hint}; got {value!r} (at index {index})",
    "not_probabilities": "{name} must hold probabilities in [0, 1]; got {value!r} (at index {index})",
    "not_normalised": "{name} must sum to 1 along the last axis (within {atol:g}); got a sum of {total:.6g}",
    "not_a_str": "{name} must be a str; got {value!r} ({type})",
    # config: ModelConfig's consistency rules
    "not_a_model_config": "cfg must be a ModelConfig (see llmcalc.get_preset or ModelConfig.from_hf_config); "
                          "got {type}",
    "heads_do_not_divide": "n_heads={n_heads} does not divide d_model={d_model}; pass head_dim explicitly or choose "
                           "n_heads among the divisors of d_model",
    "kv_heads_do_not_divide": "n_kv_heads must divide n_heads={n_heads} (each KV head serves a whole group of query "
                              "heads); got n_kv_heads={n_kv_heads}",
    "too_many_active_experts": "experts_per_token must be in [1, n_experts={n_experts}]; got {experts_per_token}",
    "missing_d_ff": "d_ff must be an integer >= 1 (the FFN inner width); got 0",
    "dense_layers_out_of_range": "dense_layers must be in [0, n_layers-1={max_dense_layers}] and needs n_experts > 1; "
                                 "got {dense_layers} with n_experts={n_experts}",
    "moe_only_field": "{name}={value} describes a mixture of experts; set n_experts > 1 or leave it 0",
    "shared_gate_without_expert": "shared_expert_gate=True needs a shared expert: set shared_expert_d_ff",
    "window_layers_out_of_range": "sliding_window_layers must be in [0, n_layers={n_layers}] and needs a "
                                  "sliding_window; got {sliding_window_layers} with sliding_window={sliding_window}",
    "layout_ffn_mismatch": "layout={layout!r} builds ffn={needs!r} blocks; got ffn={ffn!r}",
    "latent_only_field": "{name}={value} describes latent attention; set kv_lora_rank > 0 or leave it 0",
    "rope_head_dim_out_of_range": "rope_head_dim must be in [1, head_dim-1={max_rope_head_dim}] with latent "
                                  "attention (the rotary part of each query/key head); got {rope_head_dim}",
    "latent_attention_layout": "latent attention (kv_lora_rank > 0) is modelled with layout='llama', qk_norm='none' "
                               "and n_kv_heads = n_heads; got layout={layout!r}, qk_norm={qk_norm!r}, "
                               "n_kv_heads={n_kv_heads}",
    "lm_head_bias_tied": "lm_head_bias=True needs an untied head (tie_embeddings=False): a tied one has no bias",
    # hf: reading a config.json
    "config_source_type": "source must be a dict or a path to a config.json; got {type}",
    "unreadable_file": "cannot read {path!r}: {reason}",
    "invalid_json": "{path!r} is not valid JSON: {reason} at line {line}, column {column}",
    "too_deeply_nested": "{path!r} nests lists or objects too deeply to read",
    "number_too_long": "{path!r} holds an integer of more than {max_digits} digits",
    "not_a_json_object": "{path!r} must hold a JSON object (a config); got a {type}",
    "unsupported_model_type": "model_type {model_type_shown} is not supported{multimodal_hint}; "
                              "supported: {supported:list}",
    "quantized_checkpoint": "quantization_config describes a quantized checkpoint, whose stored tensors transformers "
                            "packs differently; remove it to count the model it was quantized from",
    "quantization_unmodelled": "quantization_config: {key} = {value!r} is not modelled for {method}; "
                               "accepted: {accepted}",
    "quantized_training": "a quantized checkpoint ({method}): training plans start from the model it was "
                          "quantized from; give that model's config.json",
    "key_not_a_count": "{key} must be an integer >= {minimum}; got {value:count}",
    "key_not_a_flag": "{key} must be true or false; got {value!r}",
    "contradicting_keys": "{key}={value!r} contradicts {alias}={alias_value!r}",
    "layer_types_length": "layer_types must list one type per layer ({n_layers}); got {got}",
    "layer_types_unknown": "layer_types {types!r} are not modelled (only full_attention and sliding_attention)",
    "sliding_window_invalid": "sliding_window must be an integer >= 2 for windowed layers; got {value!r}",
    "sparse_step_unmodelled": "{key}={value!r} makes only every n-th layer an MoE layer; llmcalc does not model it",
    "dense_layers_unmodelled": "{key}={value!r} makes some layers dense; llmcalc does not model it",
    "new_decoder_unmodelled": "{key}={value!r} (Falcon-40B/180B) makes transformers cache keys and values expanded "
                              "to every query head; llmcalc does not model it",
    "bidirectional_unmodelled": "{key}={value!r} changes the window (embedding models); llmcalc does not model it",
    "cross_attention_unmodelled": "{key}={value!r} adds cross-attention layers; llmcalc does not model it",
    "unknown_size_key": "unknown key {key!r} (value {value!r}) may change the parameter count or the KV cache; "
                        "llmcalc does not model it, so it refuses rather than guess",
    # lora
    "rank_above_matrix": "rank must be an integer in [1, min(d_in, d_out)={max_rank}]; got {rank}",
    "targets_not_a_sequence": "targets must be 'all-linear' or a sequence of module names; got {value!r}",
    "targets_empty": "targets must be 'all-linear' or a non-empty sequence of module names; got {value!r}",
    "target_not_a_str": "targets must hold module names (str); got {value!r} ({type})",
    "target_matches_nothing": "target {target!r} matches no module of this model{fused_hint}; adaptable modules: "
                              "{modules:list}",
    "experts_need_fused_pair": "targets {targets!r} need {needed!r} together: peft fuses them into the experts' "
                               "gate_up_proj",
    "no_default_targets": "peft {peft_version} has no default LoRA targets for model_type {model_type!r} "
                          "(get_peft_model with LoraConfig() raises); name them (CLI: --targets); adaptable "
                          "modules: {modules:list}",
    "all_linear_needs_model_type": "'all-linear' on a mixture of experts depends on the model_type in peft; set "
                                   "model_type (one of {model_types:list}) or name the targets",
    # token lists (llmcalc.teach.metrics)
    "tokens_a_string": "{name} must be a non-empty list of string tokens; got the string {value!r}; split it first, "
                       "e.g. text.split()",
    "tokens_not_a_sequence": "{name} must be a non-empty list of string tokens; got {type}",
    "tokens_empty": "{name} must be a non-empty list of string tokens; got an empty sequence",
    "token_not_a_str": "{name} must be a non-empty list of string tokens; got the token {value!r} ({type})",
    # weight formats, activations and the planner
    "weight_format_unmeasured": "weight_format {weight_format!r} is not modelled for a model with attention sinks and "
                                "expert biases (model_type {model_type!r}): no format recipe was measured on one; use "
                                "one of {formats:repr_list}, or plan the published checkpoint from its config.json",
    "gptq_not_modelled": "weight_format 'int4' (GPTQ) is not modelled for {why}; use one of {formats:repr_list}",
    "activations_unmeasured_feature": "activation memory is not modelled for {feature}: {name} must be "
                                      "{measured!r}; got {value!r} (what was measured is listed in "
                                      "tools/measure_activations.py)",
    "lora_dropout_on_stacked_experts": "peft adapts the stacked experts and the router of this model with "
                                       "ParamWrapper, which does not work with lora_dropout != 0 "
                                       "(lora_targets={targets!r}); got lora_dropout={lora_dropout}",
    "activations_llama_blocks": "activation memory is modelled for layout='llama' with ffn='swiglu', an RMSNorm and "
                                "rotary positions; got ffn={ffn!r}, norm={norm!r}, "
                                "learned_positions={learned_positions}",
    "activations_gpt2_blocks": "activation memory is modelled for layout='gpt2' with ffn='mlp' and "
                               "norm='layernorm'; got ffn={ffn!r}, norm={norm!r}",
    "activations_layout": "activation memory is modelled for layout 'llama' or 'gpt2'; got layout={layout!r}",
    "lora_activations_setup": "LoRA activation memory was measured with dtype='bf16' and attention='sdpa' (Gemma 2: "
                              "'eager') only; got dtype={dtype!r}, attention={attention!r}",
    "attention_unsupported": "transformers 5.24 does not run model_type {model_type!r} with attention={attention!r} "
                             "(it refuses attn_implementation='sdpa' for it); use attention='eager'",
    "lora_on_lm_head": "LoRA on the LM head was not measured; got lora_targets={targets!r}",
    "lora_without_qkv": "LoRA activation memory is modelled when a query, key or value projection is adapted (from "
                        "there on every block input needs a gradient); got lora_targets={targets!r}",
    "seq_len_beyond_positions": "seq_len must be in [1, {positions}] (the model learned {positions} positions); "
                                "got {seq_len}",
    "lora_options_without_targets": "lora_rank and lora_dropout apply only with lora_targets; got "
                                    "lora_rank={lora_rank!r}, lora_dropout={lora_dropout!r} and lora_targets=None "
                                    "(full fine-tuning)",
    "gpu_memory_type": "GPU memory must be a str such as '22.49' or '23034 MiB'; got {value!r} ({type})",
    "unified_memory_plan": "{card} is Apple silicon's unified memory, planned for llama.cpp only (llmcalc gguf --gpu "
                           "{card}): vLLM has no Metal backend, and training or running a model with PyTorch on "
                           "Apple's GPU (MPS) is not modelled",
    "gpu_memory_unreadable": "GPU memory must be a size from 1 MiB to 100,000 GiB: a number of GiB (22.49), one with "
                             "a unit MiB, GiB or GB (23034 MiB, 24 GB), or a listed card ({cards:list}); got {value!r}",
    "gpu_memory_out_of_range": "GPU memory must be from 1 MiB to 100,000 GiB; got {value!r} ({size:,} bytes)",
    "model_too_large": "the model has {params:,} parameters; the planner takes models of up to {max_params:,}",
    "tensor_parallel_does_not_divide": "tensor_parallel_size must divide the {n_heads} attention heads, the "
                                       "{n_kv_heads} KV heads (or be a multiple of them), the MLP width {d_ff} and "
                                       "the padded vocabulary {vocab}, as vLLM requires; got {value}; valid sizes: "
                                       "{sizes:list}",
    "pipeline_parallel_out_of_range": "pipeline_parallel_size must be from 1 to the model's {n_layers} layers; "
                                      "got {value}",
    "parallel_needs_dense": "tensor and pipeline parallelism are planned for dense models only (no mixture of "
                            "experts or latent attention); got model_type {model_type!r}",
    "qlora_zero3_one_dtype": "QLoRA under ZeRO stage {zero_stage} (or FSDP's full shard) needs every parameter in "
                             "one floating dtype (bnb_4bit_quant_storage=bfloat16, the rest in bf16); "
                             "qlora_preparation='kbit' upcasts them to fp32: choose qlora_preparation='none'",
    "engine_needs_dense": "the engine plans model dense full-attention models only (no mixture of experts, latent "
                          "attention or sliding window); got model_type {model_type!r}",
    "vllm_engine_unmodelled": "the vLLM engine plans dense models and mixtures of routed experts only (no latent "
                              "attention, shared experts or leading dense layers, which it has not been checked "
                              "on); got model_type {model_type!r}",
    "vllm_sinks_unchecked": "the vLLM engine plans a model with attention sinks (gpt-oss) only as checked against "
                            "vLLM 0.19.0's start-up logs: from its MXFP4 checkpoint (read its config.json), with the "
                            "hybrid KV-cache manager and the Triton sampler filter (vLLM 0.19, or --vllm-version "
                            "0.20+), its experts as the Triton MXFP4 backend lays them out on Hopper; got weights "
                            "{weight_format}, hybrid KV cache {hybrid_kv_cache}, sampler filter {sampler_filter} "
                            "(model_type {model_type!r})",
    "vllm_mxfp4_card_unchecked": "vLLM's gpt-oss plan holds on Hopper cards only ({cards}), where vLLM 0.19 runs "
                                 "its MXFP4 experts with the Triton backend modelled; elsewhere it picks another "
                                 "backend (Marlin on Ampere and Ada, FlashInfer on Blackwell, AITER on AMD; none "
                                 "below compute capability 8.0), whose layout is not modelled; got card {card}",
    "mxfp4_layout_unmodelled": "transformers 5.25 keeps gpt-oss's MXFP4 experts only where its kernels load (compute "
                               "capability 7.5 or more, Triton 3.4, the kernels package), in a layout its kernels "
                               "choose for the GPU's generation, which the planner does not model; elsewhere it "
                               "dequantizes them to BF16, which the presets gpt-oss-20b and gpt-oss-120b plan (the "
                               "vLLM engine plans the file on a Hopper card); got quant_method {method!r}",
    "vllm_extensible_unread": "vLLM 0.34's extensible KV cache is planned for dense models with full attention on "
                              "every layer, the case read in its 0.34.0 source; for experts and sliding windows "
                              "0.34 was not re-read: plan the model as vLLM 0.20+; got model_type {model_type!r}",
    "vllm_window_pattern_unchecked": "the vLLM engine plans a sliding window on every layer or on every other layer "
                                     "(Mistral, Gemma 2), the patterns checked against vLLM's code; got {windowed} "
                                     "windowed and {full} full-attention layers (model_type {model_type!r})",
    "precision_needs_full": "precision applies to full fine-tuning only; got precision={precision!r} with "
                            "task={task!r}",
    "qlora_preparation_needs_qlora": "qlora_preparation applies to QLoRA only; got "
                                     "qlora_preparation={qlora_preparation!r} with task={task!r}",
    "offload_needs_stage": "offload {offload!r} needs zero_stage {stages}; got zero_stage {zero_stage}",
    "setup_not_modelled": "the training set-up {setup!r} is not modelled: {reason}",
    # datasheets: a card's bandwidth and tensor rates
    "no_datasheet_figures": "no datasheet figures for card {card!r}; cards with figures: {cards:list}",
    "no_datasheet_figure": "no datasheet {figure} tensor figure for card {card!r}; it gives: {given}",
    "no_bf16_tensor_cores": "card {card!r} has no BF16 tensor cores (compute capability below 8.0): its datasheet's "
                            "{tflops:g} TFLOPS are an FP16 rate",
    # speed: where llama.cpp's speed was not measured
    "speed_hardware_unmeasured": "no llama.cpp speed was measured on {hardware!r} ({vendor}); measured: NVIDIA cards "
                                 "(CUDA) and Apple silicon (Metal)",
    "speed_batch_unmeasured": "batch must be 1: no published llama.cpp run decoded several sequences together on a "
                              "listed card, and on runs that put several tokens a step through the weights the "
                              "held-out median error of the roofline was {low} to {high} by source; got {batch}",
    "vllm_speed_model_unmeasured": "no vLLM speed was measured for a mixture of experts or a sliding window "
                                   "({model_type}); measured: dense models with full attention (Llama 2 7B, "
                                   "Llama 3 8B)",
    "vllm_speed_hardware_unmeasured": "no vLLM speed was measured on {hardware!r} ({vendor}); measured: NVIDIA "
                                      "cards (CUDA)",
    "vllm_speed_format_unmeasured": "no vLLM speed was measured with {weight_format} weights; measured: 16-bit "
                                    "(BF16/FP16) weights, --format F16",
    "vllm_speed_context_too_long": "the prompt and the tokens generated ({context:,}) are past the {limit:,} "
                                   "positions of the model",
    "vllm_speed_no_tensor_rate": "{hardware!r} publishes no dense FP16 tensor rate for the roofline of a vLLM step",
    "vllm_speed_preempted": "the KV pool of vLLM on {hardware} holds {pool:,} tokens, {fits:,} sequence(s) of "
                            "{context:,} tokens: a batch of {batch:,} would be preempted and recomputed, which is not "
                            "modelled",
    "speed_window_unmeasured": "no llama.cpp speed was measured for sliding-window attention ({model_type}: "
                               "{layers} layers with a {window}-token window), whose KV-cache reads stop at the window",
    "setup_leaves_fp32": "the {setup} set-up is modelled for dense models whose norms are named '*norm*' only: for "
                         "a {model_type} model it leaves parameters in fp32 after prepare_model_for_kbit_training "
                         "that the planner does not count (axolotl 0.19.0 casts back only modules named '*norm*', "
                         "the embedding and the head; stacked experts stay upcast)",
    "chosen_by_ranking": "{name} is chosen by the ranking, which plans 1, 2, 4 and 8 GPUs; leave it out",
    "concurrency_needs_vllm": "concurrency applies to inference with the vLLM engine (requests its pool holds at "
                              "once); got concurrency={concurrency} (without vLLM, give batch)",
    "ranking_needs_tokens": "a ranking needs {name}, the tokens per sequence every card is planned at",
    "ranking_split_incomplete": "a ranking's speed needs both prompt_tokens and generated_tokens (the split of "
                                "each request's tokens); got only {name}",
    "ranking_split_past_context": "prompt_tokens + generated_tokens ({prompt:,} + {generated:,} = {total:,}) must be "
                                  "at most the context every card is planned at ({context:,})",
    "ranking_speed_unmodelled": "a ranking's speed is estimated for inference with the vLLM engine (llama.cpp: "
                                "llmcalc gguf --gpu all); got task {task!r}, engine {engine!r}",
    "ranking_price_needs_speed": "a card's price gives the cost per million output tokens, which needs the speed: "
                                 "give prompt_tokens and generated_tokens too",
    "ranking_price_syntax": "a price is CARD=PRICE, the card's key and what one of it costs an hour "
                            "(h100-sxm=2.49); got {text!r}",
    "ranking_price_unknown_card": "no listed card has the key {card!r}; listed: {cards:list}",
    "ranking_price_twice": "card {card!r} is priced twice; give each card's price once",
    "ranking_sort_needs_price": "sorting by cost needs a price for at least one card (CARD=PRICE per GPU-hour)",
    "ranking_speed_does_not_fit": "the plan does not fit, so it does not run as planned",
    "ranking_gguf_speed_needs_preset": "a llama.cpp ranking's speed is estimated for a preset with a recipe (the "
                                       "estimate needs the model's shapes); a .gguf file's header gives none",
    "speed_cache_type_unmeasured": "no llama.cpp speed was measured with a {cache_type} KV cache; measured: f16",
    "speed_imatrix_weights": "the llama.cpp speed estimate reads {recipe}'s weights as made without an importance "
                             "matrix ({estimated:,} bytes); with one they are {actual:,}",
    "vllm_speed_tensor_parallel": "no vLLM speed was measured with tensor parallelism ({gpus} GPUs); measured: "
                                  "one GPU",
    "vllm_speed_kv_format_unmeasured": "no vLLM speed was measured with a {kv_format} KV cache; measured: a 16-bit "
                                       "(BF16/FP16) KV cache",
}
"""Each refusal code and its English template, filled in with the refusal's parameters."""

_TYPE_ERRORS = frozenset({"not_one_of_type", "not_a_flag", "not_an_integer", "not_a_number", "not_an_array",
                          "array_dtype", "not_a_str", "not_a_model_config", "config_source_type",
                          "targets_not_a_sequence", "target_not_a_str", "gpu_memory_type", "tokens_a_string",
                          "tokens_not_a_sequence", "token_not_a_str"})


def _derived(params: dict[str, Any]) -> dict[str, Any]:
    """The English pieces some templates name beside the parameters themselves."""
    pieces: dict[str, Any] = {}
    if "minimum" in params and "min_inclusive" not in params:
        pieces["range"] = _range(params)
    if "min_inclusive" in params:
        pieces["bounds"] = _bounds(params)
    suggestion = params.get("suggestion")
    pieces["suggestion_hint"] = f" (did you mean {suggestion!r}?)" if suggestion else ""
    pieces["int_hint"] = f"; pass an int, e.g. int({params['value']!r})" if params.get("integral") else ""
    pieces["neg_inf_hint"] = " (-inf allowed for masked entries)" if params.get("allow_neg_inf") else ""
    pieces["multimodal_hint"] = " (a multimodal config: pass its text_config)" if params.get("multimodal") else ""
    model_type = params.get("model_type")
    pieces["model_type_shown"] = "missing" if model_type is None else repr(model_type)
    if "entries" in params:
        entries = params["entries"]
        pieces["got"] = repr(params.get("value")) if entries is None else f"{entries} entries"
    fused = params.get("fused_into")
    pieces["fused_hint"] = f" (it fuses {params.get('target')!r} into {fused!r}: target that)" if fused else ""
    return pieces


class Refusal(Exception):
    """An input llmcalc refuses: ``code`` (a key of :data:`MESSAGES`) and ``params``; ``str()`` is the English."""

    code: str
    params: dict[str, Any]

    def __init__(self, code: str, params: dict[str, Any]) -> None:
        self.code, self.params = code, params
        message = _FORMAT.vformat(MESSAGES[code], (), {**_derived(params), **params})
        if params.get("config") is not None:
            message = f"{params['config']} config: {message}"
        super().__init__(message)


class RefusalValueError(Refusal, ValueError):
    """A value of the right kind that llmcalc does not accept or does not model."""


class RefusalTypeError(Refusal, TypeError):
    """A value of the wrong kind."""


def refusal(code: str, **params: Any) -> Refusal:
    """The exception for ``code`` (a :class:`RefusalTypeError` or :class:`RefusalValueError`), to raise.

    Examples
    --------
    >>> error = refusal("integer_out_of_range", name="rank", value=0, minimum=1)
    >>> str(error), isinstance(error, ValueError)
    ('rank must be an integer >= 1; got 0', True)
    """
    if code not in MESSAGES:
        raise KeyError(f"no llmcalc refusal has the code {code!r}")
    kind = RefusalTypeError if code in _TYPE_ERRORS else RefusalValueError
    return kind(code, params)
