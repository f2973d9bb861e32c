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

from .attention import causal_mask, rope_rotate, scaled_dot_product_attention, softmax
from .config import FFN_KINDS, NORM_KINDS, ModelConfig
from .flops import matmul_params
from .fmt import format_bytes, format_count
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
from .metrics import unigram_overlap
from .numerics import bf16_round, float_limits
from .params import COMPONENTS, active_param_count, param_breakdown, param_count
from .presets import PRESETS, REFERENCE, get_preset
from .quant import absmax_quantize, gguf_bits_per_weight, gguf_weight_bytes
from .sampling import top_k_filter, top_p_filter
from .tokenize import bpe_encode, bpe_train
from .training import adam_update, cosine_schedule, cross_entropy
from .units import GB, KB, MB, TB, GiB, KiB, MiB, TiB

__all__ = [
    "ALL_LINEAR",
    "COMPONENTS",
    "DTYPE_BITS",
    "DTYPE_BYTES",
    "FFN_KINDS",
    "GB",
    "GiB",
    "KB",
    "KiB",
    "MB",
    "MiB",
    "ModelConfig",
    "NORM_KINDS",
    "OPTIMIZERS",
    "PRECISIONS",
    "PRESETS",
    "REFERENCE",
    "TARGETS",
    "TB",
    "TiB",
    "ZERO_STAGES",
    "absmax_quantize",
    "active_param_count",
    "adam_update",
    "bf16_round",
    "bottleneck_adapter_model_params",
    "bottleneck_adapter_params",
    "bpe_encode",
    "bpe_train",
    "causal_mask",
    "cosine_schedule",
    "cross_entropy",
    "decode_tokens_per_second_bound",
    "float_limits",
    "format_bytes",
    "format_count",
    "get_preset",
    "gguf_bits_per_weight",
    "gguf_weight_bytes",
    "kv_cache_bytes",
    "kv_cache_bytes_per_token",
    "lora_model_params",
    "lora_model_share",
    "lora_params",
    "lora_scaling",
    "lora_share",
    "matmul_params",
    "param_breakdown",
    "param_count",
    "prefix_tuning_params",
    "prompt_tuning_params",
    "rope_rotate",
    "scaled_dot_product_attention",
    "softmax",
    "top_k_filter",
    "top_p_filter",
    "training_bytes_per_param",
    "training_memory",
    "unigram_overlap",
    "weight_bytes",
    "weight_bytes_at_bits",
    "zero_memory_per_gpu",
]
