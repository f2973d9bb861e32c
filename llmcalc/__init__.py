"""llmcalc: exact parameter, memory and compute figures for LLMs.

Every figure in the glossary comes from here.  Counts and byte sizes are
exact Python ints for real models (read one with
:meth:`ModelConfig.from_hf_config`).  The API has two tiers, each declared in an
``__all__``: the names below, and the submodules named in ``__all__`` (the memory
planner, its weight formats, activation model and inference engines, llama.cpp's
GGUF sizes, the refusals), each with its own ``__all__``.  The small numeric
helpers the pages demonstrate live apart, in :mod:`llmcalc.teach`; they need
numpy (the ``teach`` extra), which ``import llmcalc`` never loads.

Examples
--------
>>> import llmcalc as lc
>>> cfg = lc.REFERENCE
>>> lc.param_count(cfg)
179594880
>>> lc.kv_cache_bytes(cfg, 4096) / lc.MiB
40.0
"""

from . import activations, engines, errors, formats, gguf, planner, weightformats
from .config import ModelConfig
from .flops import matmul_params
from .fmt import format_bytes, format_count
from .formats import DTYPE_BITS
from .gguf import gguf_bits_per_weight, gguf_weight_bytes
from .lora import lora_model_params, lora_model_share, lora_params
from .memory import kv_cache_bytes, kv_cache_bytes_per_token, training_memory, weight_bytes, zero_memory_per_gpu
from .params import active_param_count, param_breakdown, param_count
from .presets import PRESETS, REFERENCE, get_preset
from .units import GB, MB, TB, GiB, KiB, MiB

__version__ = "0.1.0"
"""The release of the distribution ``llm-glossary-calc`` this is (pyproject.toml reads it from here)."""

# The first tier (names) and the second (submodules, each with its own __all__), in one sorted list.

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
    "activations",
    "active_param_count",
    "engines",
    "errors",
    "format_bytes",
    "format_count",
    "formats",
    "get_preset",
    "gguf",
    "gguf_bits_per_weight",
    "gguf_weight_bytes",
    "kv_cache_bytes",
    "kv_cache_bytes_per_token",
    "lora_model_params",
    "lora_model_share",
    "lora_params",
    "matmul_params",
    "param_breakdown",
    "param_count",
    "planner",
    "training_memory",
    "weight_bytes",
    "weightformats",
    "zero_memory_per_gpu",
]
