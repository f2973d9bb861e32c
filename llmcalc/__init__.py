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

from .compute import chinchilla_tokens, effective_batch_size, forward_flops_per_token, training_flops
from .config import FFN_KINDS, NORM_KINDS, ModelConfig
from .fmt import format_bytes, format_count
from .inference import (
    gqa_cache_reduction,
    mla_cache_reduction,
    speculative_expected_tokens,
    speculative_speedup,
)
from .lora import ALL_LINEAR, TARGETS, lora_model_params, lora_model_share, lora_params, lora_share
from .memory import (
    DTYPE_BITS,
    DTYPE_BYTES,
    OPTIMIZERS,
    PRECISIONS,
    decode_tokens_per_second_bound,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    training_bytes_per_param,
    training_memory,
    weight_bytes,
)
from .nn import (
    attention_scale,
    causal_mask,
    cross_entropy,
    initial_loss,
    perplexity,
    rope_rotate,
    scaled_dot_product_attention,
    softmax,
)
from .params import COMPONENTS, active_param_count, param_breakdown, param_count
from .presets import PRESETS, REFERENCE, get_preset
from .quant import absmax_quantize, dequantize, quantization_error
from .sampling import top_k_filter, top_p_filter
from .tokenize import bpe_encode, bpe_train
from .units import GB, KB, MB, TB, GiB, KiB, MiB, TiB

__all__ = [
    "ALL_LINEAR", "COMPONENTS", "DTYPE_BITS", "DTYPE_BYTES", "FFN_KINDS", "GB", "GiB", "KB", "KiB", "MB",
    "MiB", "ModelConfig", "NORM_KINDS", "OPTIMIZERS", "PRECISIONS", "PRESETS", "REFERENCE", "TARGETS", "TB",
    "TiB", "absmax_quantize", "active_param_count", "attention_scale", "bpe_encode", "bpe_train",
    "causal_mask", "chinchilla_tokens", "cross_entropy", "decode_tokens_per_second_bound", "dequantize",
    "effective_batch_size", "format_bytes", "format_count", "forward_flops_per_token", "get_preset",
    "gqa_cache_reduction", "initial_loss", "kv_cache_bytes", "kv_cache_bytes_per_token", "lora_model_params",
    "lora_model_share", "lora_params", "lora_share", "mla_cache_reduction", "param_breakdown", "param_count",
    "perplexity", "quantization_error", "rope_rotate", "scaled_dot_product_attention", "softmax",
    "speculative_expected_tokens", "speculative_speedup", "top_k_filter", "top_p_filter", "training_bytes_per_param",
    "training_flops", "training_memory", "weight_bytes",
]
