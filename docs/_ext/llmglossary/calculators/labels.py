"""The keyed-label protocol of the calculators: which labels each widget needs, and how they are checked.

Exists so that a translator can reword a widget without moving a label onto the wrong field.
A calculator's labels are one bullet list of ``key: label`` items in the page's source (and
so in its ``.po``); this module says which keys each kind of widget needs (:data:`LABELS`)
and what is wrong with a list (:func:`label_problems`).  The directives check the English
source with it, and the translated list again once the document is resolved.
"""

from __future__ import annotations

from docutils import nodes

# The planner's catalogue of llmcalc's refusals (llmcalc.errors): one label per code the browser's copy can raise
# (``refusal_<code>``, its placeholders named after the refusal's parameters), the message for a model not loaded
# yet, and the pieces some messages add (a config's name, a missing value, hints, where a JSON error is).
REFUSAL_LABELS: tuple[str, ...] = (
    "no_config", "config_prefix", "missing", "hint_multimodal", "hint_fused", "json_where", "refusal_not_a_flag",
    "refusal_not_an_integer", "refusal_integer_out_of_range", "refusal_number_out_of_range", "refusal_not_a_number",
    "refusal_not_one_of",
    "refusal_not_one_of_type",
    "refusal_not_a_str", "refusal_not_a_model_config", "refusal_heads_do_not_divide",
    "refusal_kv_heads_do_not_divide", "refusal_too_many_active_experts", "refusal_missing_d_ff",
    "refusal_dense_layers_out_of_range", "refusal_moe_only_field", "refusal_shared_gate_without_expert",
    "refusal_window_layers_out_of_range", "refusal_layout_ffn_mismatch", "refusal_latent_only_field",
    "refusal_rope_head_dim_out_of_range", "refusal_latent_attention_layout", "refusal_lm_head_bias_tied",
    "refusal_config_source_type", "refusal_invalid_json", "refusal_too_deeply_nested", "refusal_number_too_long",
    "refusal_not_a_json_object", "refusal_unsupported_model_type", "refusal_quantized_checkpoint",
    "refusal_quantization_unmodelled", "refusal_quantized_training", "refusal_vllm_mxfp4_card_unchecked",
    # What a quantization_config refusal accepts, where llmcalc describes it (llmcalc.checkpoints.ACCEPTED).
    "accepted_integer", "accepted_group", "accepted_gemv_group", "accepted_names", "accepted_patterns",
    "accepted_targets", "accepted_block", "accepted_block_structure", "accepted_object", "accepted_one_group",
    "accepted_dense_weights", "accepted_no_fp8_embeddings", "accepted_every_block_layer", "accepted_float_format",
    "accepted_eight_bits", "accepted_static_tensor", "accepted_dense_model", "accepted_linear_blocks",
    "accepted_load_in", "accepted_named_copies", "accepted_gpt_oss_only",
    "refusal_key_not_a_count", "refusal_key_not_a_flag", "refusal_contradicting_keys",
    "refusal_layer_types_length", "refusal_layer_types_unknown", "refusal_sliding_window_invalid",
    "refusal_sparse_step_unmodelled", "refusal_dense_layers_unmodelled", "refusal_new_decoder_unmodelled",
    "refusal_bidirectional_unmodelled", "refusal_cross_attention_unmodelled", "refusal_unknown_size_key",
    "refusal_targets_not_a_sequence", "refusal_targets_empty", "refusal_target_not_a_str",
    "refusal_target_matches_nothing", "refusal_experts_need_fused_pair", "refusal_all_linear_needs_model_type",
    "refusal_gptq_not_modelled", "refusal_weight_format_unmeasured", "refusal_activations_unmeasured_feature",
    "refusal_activations_llama_blocks",
    "refusal_activations_gpt2_blocks", "refusal_activations_layout", "refusal_seq_len_beyond_positions",
    "refusal_lora_on_lm_head", "refusal_lora_without_qkv", "refusal_lora_dropout_on_stacked_experts",
    "refusal_model_too_large", "refusal_no_default_targets",
    "refusal_engine_needs_dense", "refusal_tensor_parallel_does_not_divide", "refusal_pipeline_parallel_out_of_range",
    "refusal_parallel_needs_dense", "refusal_qlora_zero3_one_dtype", "refusal_setup_leaves_fp32",
    "refusal_vllm_engine_unmodelled", "refusal_vllm_window_pattern_unchecked", "refusal_vllm_sinks_unchecked",
    "refusal_mxfp4_layout_unmodelled", "refusal_vllm_extensible_unread",
    # The vLLM ranking's speed refusals (llmcalc.ranking's rows, llmcalc.vllmspeed.estimate_vllm_speed's).
    "refusal_vllm_speed_hardware_unmeasured", "refusal_vllm_speed_no_tensor_rate", "refusal_vllm_speed_tensor_parallel",
    "refusal_ranking_speed_does_not_fit", "refusal_vllm_speed_format_unmeasured",
    "refusal_vllm_speed_kv_format_unmeasured", "refusal_vllm_speed_model_unmeasured",
    "refusal_vllm_speed_context_too_long", "refusal_vllm_speed_preempted",
    # A setting's yes or no (such as the hybrid KV-cache manager) and a model type as a refusal names them.
    "flag_true", "flag_false", "quoted_name",
)
# plannercost.js's messages: the run's FLOPs (full or LoRA), time and price, its basis, where the peak came from,
# and its refusals.
RUN_MESSAGES: tuple[str, ...] = (
    "run_flops_full", "run_flops_lora", "run_time", "run_price", "run_note", "run_peak_datasheet", "run_peak_given",
    "run_needs_peak", "run_tokens_error", "run_mfu_error", "run_positive_error", "run_no_bf16",
)
# plannerrank.js: every listed card at once (llmcalc.ranking), its field, the table's columns and its notes.
RANK_LABELS: tuple[str, ...] = (
    "rank_all", "rank_concurrency", "rank_caption", "rank_col_rank", "rank_col_card", "rank_col_gpus",
    "rank_col_verdict", "rank_col_headroom", "rank_col_context", "rank_col_batch", "rank_col_requests",
    "rank_col_micro_batch", "rank_col_change", "rank_fits", "rank_no_fit", "rank_totals_note", "rank_mxfp4_refused",
    # The vLLM ranking's speed and cost (llmcalc.ranking.RowSpeed, speed_table): the split, the prices, the columns,
    # each refusal's footnote and each note, the basis.
    "rank_prompt", "rank_generated", "rank_prices", "rank_price_card", "rank_col_aggregate", "rank_col_each",
    "rank_col_first", "rank_col_cost", "rank_na", "rank_na_mark", "rank_no_price", "rank_no_speed", "rank_card_note",
    "rank_speed_basis", "rank_memory_only", "rank_split_incomplete", "rank_split_past_context", "rank_bad_price",
    "rank_price_needs_speed", "rank_bad_tokens", "rank_no_datasheet", "rank_note_batch", "rank_note_context_tokens",
    "rank_note_weight_bytes", "rank_note_hardware", "rank_note_compute",
    "rank_note_prefill",
)
LABELS: dict[str, tuple[str, ...]] = {
    "lora": ("rank", "d_in", "d_out", "trainable", "original", "share", "formula", "error"),
    "memory": ("preset", "reference_model", "custom", "params", "precision", "gb", "gib", "error"),
    "kvcache": (
        "preset", "reference_model", "custom", "layers", "kv_heads", "heads", "head_dim", "tokens", "batch", "dtype",
        "total", "per_token", "mha", "saving", "error", "divisor_error",
    ),
    "planner": (
        "model", "preset", "reference_model", "config_own", "config_file", "config_paste", "config_use",
        "params", "active",
        "task", "task_inference", "task_full", "task_lora", "task_qlora",
        "weight_format", "kv_format", "context", "batch",
        "optimizer", "opt_adamw", "opt_adamw8", "opt_sgd", "opt_adamw32", "micro_batch", "seq_len", "checkpointing",
        "zero_stage", "n_gpus", "tensor_parallel", "pipeline_parallel", "rank", "targets", "targets_default",
        "targets_qv", "targets_qkvo", "targets_attention_mlp", "targets_all", "targets_note", "rank_note",
        "beyond_trained", "gpu", "gpu_custom", "gpu_gib",
        "precision", "prec_bf16", "prec_amp", "prec_mixed", "qlora_preparation", "prep_kbit", "prep_none",
        "prep_norms", "setup", "setup_trl_sft", "setup_llama_factory", "setup_axolotl", "setup_qlora_script",
        "adapter_dtype", "adapter_fp32", "adapter_bf16",
        "lora_dropout", "dropout_error",
        "weights", "kv_cache", "gradients", "optimizer_states", "activations", "reserve", "total",
        "fits", "no_fit", "largest_context", "largest_micro_batch", "none_fits",
        "at_trained", "beyond_trained_note", "context_note",
        "error", "memory_error", "config_error", "plan_error",
        "spec_mismatch",  # plannerwidget.js: tables and scripts of different llmcalc.browser.SPEC_VERSION
        "engine", "engine_sum", "engine_generate", "engine_vllm", "attention", "gpu_memory_utilization",
        "max_num_batched_tokens", "cuda_graphs_mib", "vllm_starts", "vllm_no_start", "vllm_graphs_note",
        "vllm_version", "vllm_before_020", "vllm_020_later", "vllm_034_later", "sampler_filter", "sampler_sort",
        "sampler_triton", "max_num_seqs", "non_torch_gib", "non_torch_error", "startup_used_gib",
        "vllm_extensible_note", "vllm_startup_note", "vllm_graphs_twice_note",
        "vllm_before_note", "vllm_window_hybrid_note", "vllm_window_full_note", "vllm_experts_note",
        "vllm_mxfp4_note", "largest_max_model_len", "per_gpu_busiest", "per_gpu_each",
        "vllm_profile_peak", "vllm_non_torch", "vllm_budget", "sum_note", "gpu_process", "gpu_estimate", "gpu_typed",
        # A quantized format's note: how it stores the weights, and the linear layers it keeps in 16 bits.
        "weights_note", "weights_checkpoint", "weights_format", "kept_some", "kept_list",
        # The page's separators: between the items of a list, and between sentences; a name and its value, and
        # two such pairs.
        "list_join", "sentence_join", "setting_value", "pair_join",
        *REFUSAL_LABELS,
        # plannershare.js and plannerchart.js: the share link, a second card and the chart.
        "gpu_compare", "gpu_compare_none", "share_copy", "share_copied", "share_copy_failed", "share_bad",
        "chart_context", "chart_micro_batch", "chart_summary", "chart_table",
        # plannercost.js: a training run's time and price.
        *("train_tokens", "mfu", "price_per_gpu_hour", "peak_tflops"), *RUN_MESSAGES,
        # planneroffload.js: CPU offload for training (llmcalc.offload).
        "offload", "offload_none", "offload_fsdp", "offload_zero", "offload_result", "offload_hint",
        "offload_stage_fsdp", "offload_stage_zero",
        *RANK_LABELS,
    ),
}
"""Label keys per calculator, each given once in the directive's keyed bullet list.

``error`` is a message template with ``{label}``, ``{min}`` and ``{max}`` placeholders;
``divisor_error`` says that the query heads must be a multiple of the KV heads.  The
planner's part labels (``weights`` ... ``reserve``) may be term links: the widget's legend
links to the same entries.  Its ``fits`` and ``no_fit`` take ``{bytes}``; ``config_error``
and ``plan_error`` take ``{detail}``, the refusal worded from :data:`REFUSAL_LABELS` in the
page's language; ``memory_error`` takes ``{label}`` and ``{value}`` (what was typed); ``at_trained`` and
``beyond_trained_note`` take ``{trained}``, the positions the model was trained on;
``context_note`` takes ``{context}`` and ``{trained}``; ``dropout_error`` takes ``{label}`` and
``{value}``; ``vllm_starts`` takes ``{tokens}``, ``{context}`` and ``{concurrency}``, ``vllm_no_start``
``{tokens}`` and ``{context}``; ``vllm_graphs_note`` (a plan of vLLM 0.20 and later given no CUDA graphs) and
``vllm_before_note`` (a plan of vLLM before 0.20) take nothing, and so do ``vllm_startup_note`` and
``vllm_graphs_twice_note`` (a plan of vLLM 0.34 given no memory in use at start-up, no CUDA graphs);
``vllm_extensible_note`` (every plan of vLLM 0.34) takes ``{margin}``, in GiB; ``vllm_window_hybrid_note`` takes
``{windowed}``, ``{layers}``, ``{window}``, ``{span}``, ``{blocks}`` and ``{full}``, ``vllm_window_full_note``
``{windowed}``, ``{layers}`` and ``{window}``, ``vllm_experts_note`` ``{experts}`` and ``{active}``: how a
windowed model's pool and a mixture of experts were counted; ``non_torch_error`` takes ``{label}``, ``{value}``
(what was typed) and ``{max}`` (the card's GiB);
``vllm_profile_peak``, ``vllm_non_torch`` and ``vllm_budget`` name the activations, reserve and total rows
for the vLLM engine; ``sum_note`` (the engine that adds no working memory) takes nothing; ``gpu_process`` takes
``{total}``, ``{source}``, ``{tool}`` and ``{reported}``, ``gpu_estimate`` ``{total}``, ``{tool}``,
``{reported}``, ``{margin}``, ``{over}`` and ``{under}`` (the estimate's error, in MiB), ``gpu_typed``
nothing: which total the plan used;
``share_bad`` takes ``{label}`` and ``{value}`` (the link's bad part);
``chart_summary`` takes ``{first}``, ``{x_first}``, ``{last}``, ``{x_last}`` (the chart's first and last
totals in GiB and where they are) and ``{cards}`` (each card with its memory); ``per_gpu_busiest``
(inference on several GPUs) takes ``{gpus}``, ``{tp}`` and ``{pp}``, ``per_gpu_each`` (training under
ZeRO) ``{gpus}`` and ``{stage}``;
``run_flops_full`` and ``run_flops_lora`` take ``{tokens}``, ``{per_token}``, ``{seq_len}`` and ``{flops}``,
``run_time`` ``{gpus}``, ``{peak}``, ``{source}`` (``run_peak_datasheet`` or ``run_peak_given``), ``{mfu}``,
``{gpu_hours}`` and ``{wall_hours}``, ``run_price`` ``{price_per_hour}`` and ``{price}``, the three refusals
``run_*_error`` ``{label}`` and ``{value}``, ``run_no_bf16`` ``{card}``, ``{precision}`` and ``{tflops}`` (a card
without BF16 tensor cores, the plan's precision and the card's FP16 TFLOPS); ``offload_result`` takes ``{offload}``
(``offload_fsdp`` or
``offload_zero``), ``{total}``, ``{verdict}`` (``fits`` or ``no_fit`` filled in), ``{host}``, ``{host_total}`` and
``{gpus}``, ``offload_hint`` ``{total}`` and ``{host_total}``; ``offload_stage_fsdp`` and ``offload_stage_zero`` take
nothing; ``kept_list`` takes ``{modules}``; ``list_join``, ``sentence_join`` and ``pair_join`` (between
two ``setting_value``) are ``{first}`` and ``{next}`` with the language's separator between them; ``setting_value`` (a
field or card and its value: the ranking's change, the chart's cards) takes ``{label}`` and ``{value}``;
``quoted_name`` takes ``{name}``.
"""

# The planner's messages that fill in a {detail} or {bytes}, or name what fits.
PLANNER_MESSAGES = ("config_error", "plan_error", "spec_mismatch", "fits", "no_fit", "none_fits",
                    "largest_context", "largest_micro_batch", "memory_error", "at_trained", "context_note",
                    "dropout_error", "vllm_starts", "vllm_no_start", "vllm_graphs_note", "vllm_before_note",
                    "vllm_window_hybrid_note", "vllm_window_full_note", "vllm_experts_note", "vllm_mxfp4_note",
                    "vllm_extensible_note", "vllm_startup_note", "vllm_graphs_twice_note",
                    "non_torch_error", "largest_max_model_len",
                    "share_copied", "share_copy_failed", "share_bad", "chart_context", "chart_micro_batch",
                    "chart_summary", "chart_table", "per_gpu_busiest", "per_gpu_each", "sum_note", "gpu_process",
                    "gpu_estimate", "gpu_typed", "targets_note", "rank_note",
                    "weights_note", "weights_checkpoint", "weights_format", "kept_some", "kept_list",
                    "list_join", "sentence_join", "setting_value", "pair_join", *RUN_MESSAGES,
                    "offload_fsdp", "offload_zero", "offload_result", "offload_hint", "offload_stage_fsdp",
                    "offload_stage_zero")


def split_label(text: str) -> tuple[str, str]:
    """``"rank: Rank r"`` -> ``("rank", "Rank r")``; an item without a key gives ``("", text)``.

    >>> split_label("error: {label} must be from {min} to {max}.")
    ('error', '{label} must be from {min} to {max}.')
    >>> split_label("Rank r")
    ('', 'Rank r')
    """
    key, colon, label = text.partition(":")
    if not colon or not key.strip().isidentifier():
        return "", text.strip()
    return key.strip(), label.strip()


def label_problems(kind: str, keys: list[str]) -> list[str]:
    """What is wrong with a calculator's label keys (empty when each key appears once).

    >>> label_problems("memory", ["preset", "reference_model", "custom", "params", "precision", "gb", "gib", "error"])
    []
    >>> label_problems("memory", ["preset", "preset", "size", "precision", "gb", "gib", "error"])
    ['missing: reference_model, custom, params', 'unknown: size', 'repeated: preset']
    """
    return keyed_problems(LABELS[kind], keys)


def keyed_problems(expected: tuple[str, ...], keys: list[str]) -> list[str]:
    """What is wrong with a keyed label list given the keys it must give once each (empty when nothing is).

    >>> keyed_problems(("alt", "table"), ["alt", "alt", "x"])
    ['missing: table', 'unknown: x', 'repeated: alt']
    """
    problems = []
    missing = [key for key in expected if key not in keys]
    unknown = [key or "(no key)" for key in keys if key not in expected]
    repeated = sorted({key for key in keys if key in expected and keys.count(key) > 1})
    for name, found in (("missing", missing), ("unknown", unknown), ("repeated", repeated)):
        if found:
            problems.append(f"{name}: {', '.join(found)}")
    return problems


def label_list(node: nodes.Element) -> nodes.bullet_list:
    """The widget's keyed bullet list (the directive marked it with the ``calculator-labels`` class)."""
    return next(
        child for child in node.children
        if isinstance(child, nodes.bullet_list) and "calculator-labels" in child["classes"]
    )


def label_items(labels: nodes.bullet_list) -> list[tuple[str, str]]:
    """(key, label) of every item, in order."""
    return [split_label(item.astext()) for item in labels.children]


def label_links(labels: nodes.bullet_list) -> dict[str, str]:
    """Key -> address of the first resolved link in that label (a term link), for labels that have one."""
    links = {}
    for item in labels.children:
        key, _label = split_label(item.astext())
        reference = next(item.findall(nodes.reference), None)
        if key and reference is not None and reference.get("refuri"):
            links[key] = reference["refuri"]
    return links
