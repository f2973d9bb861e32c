"""llmcalc: exact parameter, memory and compute figures for LLMs, and the small math behind them.

Every figure in the glossary comes from here.  Exact quantities (parameter
counts, byte counts) are Python ints; estimates (FLOPs, speeds) are floats
and say what they assume.  Array arguments broadcast.

Examples
--------
>>> import llmcalc as lc
>>> cfg = lc.REFERENCE
>>> lc.param_count(cfg)
179594880
>>> lc.kv_cache_bytes(cfg, 4096) / lc.MiB
40.0
"""

from .compute import (
    chinchilla_tokens,
    effective_batch_size,
    forward_flops_per_token,
    matmul_arithmetic_intensity,
    matmul_flops,
    model_flops_utilization,
    training_flops,
    training_seconds,
)
from .config import FFN_KINDS, NORM_KINDS, ModelConfig
from .fmt import format_bytes, format_count
from .inference import (
    gqa_cache_reduction,
    kv_cache_positions,
    mla_cache_reduction,
    speculative_expected_tokens,
    speculative_speedup,
)
from .lora import (
    ALL_LINEAR,
    TARGETS,
    bottleneck_adapter_model_params,
    bottleneck_adapter_params,
    lora_model_params,
    lora_model_share,
    lora_params,
    lora_scaling,
    lora_share,
    prefix_tuning_params,
    prompt_tuning_params,
)
from .memory import (
    DTYPE_BITS,
    DTYPE_BYTES,
    OPTIMIZERS,
    PRECISIONS,
    decode_tokens_per_second_bound,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    training_bytes_per_param,
    ZERO_STAGES,
    training_memory,
    weight_bytes,
    weight_bytes_at_bits,
    zero_memory_per_gpu,
)
from .metrics import (
    ConfusionCounts,
    accuracy,
    bert_score,
    bleu_unigram_precision,
    confusion_counts,
    cosine_similarity,
    f1_score,
    jaccard_similarity,
    precision,
    recall,
    rouge1_recall,
    unigram_overlap,
    win_rate,
    win_rate_margin,
    win_rate_standard_error,
)
from .moe import expert_bias_update, load_balancing_loss
from .nn import (
    GELU_APPROXIMATIONS,
    attention_scale,
    causal_mask,
    cross_entropy,
    cross_entropy_gradient,
    gelu,
    initial_loss,
    kl_divergence,
    layer_norm,
    perplexity,
    relu,
    rms_norm,
    rope_rotate,
    rope_wavelengths,
    scaled_dot_product_attention,
    sigmoid,
    silu,
    sliding_window_mask,
    softmax,
)
from .numerics import FLOAT_FORMATS, FloatLimits, bf16_round, float_limits, fp16_round
from .params import COMPONENTS, active_param_count, param_breakdown, param_count
from .presets import PRESETS, REFERENCE, get_preset
from .preference import dpo_loss, group_advantages, pairwise_preference_loss
from .quant import (
    GGUF_BLOCKS,
    absmax_quantize,
    dequantize,
    gguf_bits_per_weight,
    gguf_weight_bytes,
    quantization_error,
    scale_overhead_bits,
)
from .sampling import top_k_filter, top_p_filter
from .schedules import cosine_schedule, linear_warmup
from .serving import kv_cache_max_sequences, paged_kv_blocks, paged_kv_idle_slots, request_latency
from .tokenize import bpe_encode, bpe_train
from .training import (
    accumulated_gradient,
    adam_update,
    decoupled_weight_decay,
    ema_update,
    init_std,
    inverted_dropout,
    sgd_step,
)
from .units import GB, KB, MB, TB, GiB, KiB, MiB, TiB

__all__ = [
    "ALL_LINEAR", "COMPONENTS", "ConfusionCounts", "DTYPE_BITS", "DTYPE_BYTES", "FFN_KINDS", "FLOAT_FORMATS",
    "FloatLimits", "GB", "GELU_APPROXIMATIONS", "GGUF_BLOCKS", "GiB", "KB", "KiB", "MB", "MiB", "ModelConfig",
    "NORM_KINDS", "OPTIMIZERS", "PRECISIONS", "PRESETS", "REFERENCE", "TARGETS", "TB", "TiB", "ZERO_STAGES",
    "absmax_quantize", "accumulated_gradient", "accuracy", "active_param_count", "adam_update", "attention_scale",
    "bert_score", "bf16_round", "bleu_unigram_precision", "bottleneck_adapter_model_params",
    "bottleneck_adapter_params", "bpe_encode", "bpe_train", "causal_mask", "chinchilla_tokens", "confusion_counts",
    "cosine_schedule", "cosine_similarity", "cross_entropy", "cross_entropy_gradient",
    "decode_tokens_per_second_bound", "decoupled_weight_decay", "dequantize", "dpo_loss", "effective_batch_size",
    "ema_update", "expert_bias_update", "f1_score", "float_limits", "format_bytes", "format_count",
    "forward_flops_per_token", "fp16_round", "gelu", "get_preset", "gguf_bits_per_weight", "gguf_weight_bytes",
    "gqa_cache_reduction", "group_advantages", "init_std", "initial_loss", "inverted_dropout", "jaccard_similarity",
    "kl_divergence", "kv_cache_bytes", "kv_cache_bytes_per_token", "kv_cache_max_sequences", "kv_cache_positions",
    "layer_norm", "linear_warmup", "load_balancing_loss", "lora_model_params", "lora_model_share", "lora_params",
    "lora_scaling", "lora_share", "matmul_arithmetic_intensity", "matmul_flops", "mla_cache_reduction",
    "model_flops_utilization", "paged_kv_blocks", "paged_kv_idle_slots", "pairwise_preference_loss",
    "param_breakdown", "param_count", "perplexity", "precision", "prefix_tuning_params", "prompt_tuning_params",
    "quantization_error", "recall", "relu", "request_latency", "rms_norm", "rope_rotate", "rope_wavelengths",
    "rouge1_recall", "scale_overhead_bits", "scaled_dot_product_attention", "sgd_step", "sigmoid", "silu",
    "sliding_window_mask", "softmax", "speculative_expected_tokens", "speculative_speedup", "top_k_filter",
    "top_p_filter", "training_bytes_per_param", "training_flops", "training_memory", "training_seconds", "unigram_overlap",
    "weight_bytes", "weight_bytes_at_bits", "win_rate", "win_rate_margin", "win_rate_standard_error",
    "zero_memory_per_gpu",
]
