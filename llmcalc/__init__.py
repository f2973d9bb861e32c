"""llmcalc: exact parameter, memory and compute figures for LLMs, and the small math behind them.

Every figure in the glossary comes from here.  Counts and byte sizes are
exact Python ints for real models (read one with
:meth:`ModelConfig.from_hf_config`); the few numeric helpers several pages
share (softmax, attention, number formats, quantization) work on numpy arrays.

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
from .config import ModelConfig
from .flops import matmul_params
from .fmt import format_bytes, format_count
from .lora import lora_model_params, lora_model_share, lora_params
from .loss import cross_entropy
from .memory import (
    DTYPE_BITS,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    training_memory,
    weight_bytes,
    zero_memory_per_gpu,
)
from .metrics import unigram_overlap
from .numerics import bf16_round, float_limits
from .params import active_param_count, param_breakdown, param_count
from .presets import PRESETS, REFERENCE, get_preset
from .quant import absmax_quantize, gguf_bits_per_weight, gguf_weight_bytes
from .sampling import top_k_filter, top_p_filter
from .tokenize import bpe_encode, bpe_train
from .units import GB, MB, TB, GiB, KiB, MiB

__all__ = [
    "DTYPE_BITS", "GB", "MB", "PRESETS", "REFERENCE", "TB", "GiB", "KiB", "MiB", "ModelConfig", "absmax_quantize",
    "active_param_count", "bf16_round", "bpe_encode", "bpe_train", "causal_mask", "cross_entropy", "float_limits",
    "format_bytes", "format_count", "get_preset", "gguf_bits_per_weight", "gguf_weight_bytes", "kv_cache_bytes",
    "kv_cache_bytes_per_token", "lora_model_params", "lora_model_share", "lora_params", "matmul_params",
    "param_breakdown", "param_count", "rope_rotate", "scaled_dot_product_attention", "softmax", "top_k_filter",
    "top_p_filter", "training_memory", "unigram_overlap", "weight_bytes", "zero_memory_per_gpu",
]
