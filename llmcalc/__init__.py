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
from .config import ModelConfig
from .fmt import format_bytes, format_count
from .inference import (
    gqa_cache_reduction,
    kv_cache_positions,
    mla_cache_reduction,
    speculative_expected_tokens,
    speculative_speedup,
)
from .lora import lora_model_params, lora_model_share, lora_params, lora_targets
from .memory import (
    DTYPE_BITS,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    training_memory,
    weight_bytes,
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
from .params import active_param_count, param_breakdown, param_count
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
from .units import GB, MB, TB, GiB, KiB, MiB

__all__ = [
    "DTYPE_BITS",
    "GB",
    "MB",
    "PRESETS",
    "REFERENCE",
    "TB",
    "GiB",
    "KiB",
    "MiB",
    "ModelConfig",
    "active_param_count",
    "format_bytes",
    "format_count",
    "get_preset",
    "kv_cache_bytes",
    "kv_cache_bytes_per_token",
    "lora_model_params",
    "lora_model_share",
    "lora_params",
    "lora_targets",
    "param_breakdown",
    "param_count",
    "training_memory",
    "weight_bytes",
    "zero_memory_per_gpu",
]
