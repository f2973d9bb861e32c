"""Ready-made configurations of well-known models and of the glossary's reference model.

Every preset's parameter count has been checked once against the real
implementation (Hugging Face ``transformers`` building the model on the meta
device; see ``tools/verify_presets.py``), and the tests pin the counts it
reported.  Hyperparameters come from each model's published ``config.json``, and so
does ``trained_context`` (its ``max_position_embeddings``; the glossary's own reference
model has none, 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import _validate as check
from .config import ModelConfig

__all__ = ["PRESETS", "REFERENCE", "get_preset"]

PRESETS: Mapping[str, ModelConfig] = MappingProxyType({
    # The glossary's throughline model: small, but with every modern ingredient
    # (RMSNorm, SwiGLU, GQA with 10 query heads sharing 2 KV heads, untied head).
    # d_ff = 3072 (4.8 x d_model) brings the total to 179,594,880, i.e. ~180M.
    "reference": ModelConfig(vocab_size=32768, d_model=640, n_layers=20, n_heads=10, n_kv_heads=2,
                             head_dim=64, d_ff=3072),
    "gpt2": ModelConfig(vocab_size=50257, d_model=768, n_layers=12, n_heads=12, d_ff=3072, ffn="mlp",
                        tie_embeddings=True, qkv_bias=True, out_bias=True, mlp_bias=True,
                        norm="layernorm", learned_positions=1024, layout="gpt2", trained_context=1024),
    "llama-2-7b": ModelConfig(vocab_size=32000, d_model=4096, n_layers=32, n_heads=32, d_ff=11008,
                              trained_context=4096),
    "llama-2-70b": ModelConfig(vocab_size=32000, d_model=8192, n_layers=80, n_heads=64, n_kv_heads=8,
                               d_ff=28672, trained_context=4096),
    "llama-3-8b": ModelConfig(vocab_size=128256, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
                              d_ff=14336, trained_context=8192),
    # Llama 3.1 8B: Llama 3 8B's shapes, trained on 131,072 positions (its config's max_position_embeddings; the
    # "llama3" RoPE scaling stretches the original 8,192 by 8, which reaches 65,536 and so extends nothing further).
    "llama-3.1-8b": ModelConfig(vocab_size=128256, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
                                d_ff=14336, model_type="llama", trained_context=131072),
    "mistral-7b": ModelConfig(vocab_size=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
                              d_ff=14336, sliding_window=4096, model_type="mistral", trained_context=32768),
    "qwen2.5-0.5b": ModelConfig(vocab_size=151936, d_model=896, n_layers=24, n_heads=14, n_kv_heads=2,
                                d_ff=4864, qkv_bias=True, tie_embeddings=True, trained_context=32768),
    "mixtral-8x7b": ModelConfig(vocab_size=32000, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
                                d_ff=14336, n_experts=8, experts_per_token=2, model_type="mixtral",
                                trained_context=32768),
    "llama-2-13b": ModelConfig(vocab_size=32000, d_model=5120, n_layers=40, n_heads=40, d_ff=13824,
                               trained_context=4096),
    "llama-3.1-70b": ModelConfig(vocab_size=128256, d_model=8192, n_layers=80, n_heads=64, n_kv_heads=8,
                                 d_ff=28672, trained_context=131072),
    # Qwen2.5 base models: biases on q/k/v, untied head from 7B up; their sliding window is switched off
    # (use_sliding_window false).
    "qwen2.5-7b": ModelConfig(vocab_size=152064, d_model=3584, n_layers=28, n_heads=28, n_kv_heads=4,
                              d_ff=18944, qkv_bias=True, model_type="qwen2", trained_context=131072),
    "qwen2.5-14b": ModelConfig(vocab_size=152064, d_model=5120, n_layers=48, n_heads=40, n_kv_heads=8,
                               d_ff=13824, qkv_bias=True, model_type="qwen2", trained_context=131072),
    "qwen2.5-32b": ModelConfig(vocab_size=152064, d_model=5120, n_layers=64, n_heads=40, n_kv_heads=8,
                               d_ff=27648, qkv_bias=True, model_type="qwen2", trained_context=131072),
    "qwen2.5-72b": ModelConfig(vocab_size=152064, d_model=8192, n_layers=80, n_heads=64, n_kv_heads=8,
                               d_ff=29568, qkv_bias=True, model_type="qwen2", trained_context=131072),
    # Gemma 2: four norms per block (before and after attention and FFN), tied embedding, a gated FFN
    # (GeGLU: as many weights as SwiGLU), a 4,096-token window on every other layer.
    "gemma-2-9b": ModelConfig(vocab_size=256000, d_model=3584, n_layers=42, n_heads=16, n_kv_heads=8,
                              head_dim=256, d_ff=14336, tie_embeddings=True, norms_per_layer=4,
                              sliding_window=4096, sliding_window_layers=21, model_type="gemma2",
                              trained_context=8192),
    "gemma-2-27b": ModelConfig(vocab_size=256000, d_model=4608, n_layers=46, n_heads=32, n_kv_heads=16,
                               head_dim=128, d_ff=36864, tie_embeddings=True, norms_per_layer=4,
                               sliding_window=4096, sliding_window_layers=23, model_type="gemma2",
                               trained_context=8192),
    # Phi-2: attention and MLP run in parallel off ONE LayerNorm per block;
    # biases on q/k/v, on the output projection ("dense"), in the MLP and on the LM head.
    "phi-2": ModelConfig(vocab_size=51200, d_model=2560, n_layers=32, n_heads=32, d_ff=10240, ffn="mlp",
                         qkv_bias=True, out_bias=True, mlp_bias=True, lm_head_bias=True,
                         norm="layernorm", norms_per_layer=1, layout="phi", trained_context=2048),
    # From here on, each preset is read from a Hub config.json committed in tests/data/hub_configs (the file named
    # beside it), and trained_context is the file's max_position_embeddings.
    # Llama 3.2 (llama-3.2-1b-instruct.json, llama-3.2-3b.json): tied embedding, GQA with 8 KV heads.
    "llama-3.2-1b": ModelConfig(vocab_size=128256, d_model=2048, n_layers=16, n_heads=32, n_kv_heads=8,
                                head_dim=64, d_ff=8192, tie_embeddings=True, model_type="llama",
                                trained_context=131072),
    "llama-3.2-3b": ModelConfig(vocab_size=128256, d_model=3072, n_layers=28, n_heads=24, n_kv_heads=8,
                                head_dim=128, d_ff=8192, tie_embeddings=True, model_type="llama",
                                trained_context=131072),
    # Qwen3 (qwen3-*.json): an RMSNorm of head_dim values on each query and key head, no q/k/v biases.
    "qwen3-4b": ModelConfig(vocab_size=151936, d_model=2560, n_layers=36, n_heads=32, n_kv_heads=8, head_dim=128,
                            d_ff=9728, tie_embeddings=True, qk_norm="per-head", model_type="qwen3",
                            trained_context=40960),
    "qwen3-8b": ModelConfig(vocab_size=151936, d_model=4096, n_layers=36, n_heads=32, n_kv_heads=8, head_dim=128,
                            d_ff=12288, qk_norm="per-head", model_type="qwen3", trained_context=40960),
    "qwen3-14b": ModelConfig(vocab_size=151936, d_model=5120, n_layers=40, n_heads=40, n_kv_heads=8, head_dim=128,
                             d_ff=17408, qk_norm="per-head", model_type="qwen3", trained_context=40960),
    "qwen3-32b": ModelConfig(vocab_size=151936, d_model=5120, n_layers=64, n_heads=64, n_kv_heads=8, head_dim=128,
                             d_ff=25600, qk_norm="per-head", model_type="qwen3", trained_context=40960),
    # 128 experts of width 768 per layer, 8 used per token.
    "qwen3-30b-a3b": ModelConfig(vocab_size=151936, d_model=2048, n_layers=48, n_heads=32, n_kv_heads=4,
                                 head_dim=128, d_ff=6144, n_experts=128, experts_per_token=8, expert_d_ff=768,
                                 qk_norm="per-head", model_type="qwen3_moe", trained_context=40960),
    # Gemma 3 1B (gemma-3-1b-it.json): Gemma 2's four norms per block plus a per-head q/k norm; a 512-token window
    # on 5 layers in 6 (22 of 26).
    "gemma-3-1b": ModelConfig(vocab_size=262144, d_model=1152, n_layers=26, n_heads=4, n_kv_heads=1, head_dim=256,
                              d_ff=6912, tie_embeddings=True, norms_per_layer=4, qk_norm="per-head",
                              sliding_window=512, sliding_window_layers=22, model_type="gemma3_text",
                              trained_context=32768),
    # Phi-3.5-mini and Phi-4 (phi-3.5-mini-instruct.json, phi-4-mini-instruct.json, phi-4.json): fused qkv_proj and
    # gate_up_proj.  The mini files declare a 262,144-token window, longer than their context: it never applies,
    # so the presets have none.
    "phi-3.5-mini": ModelConfig(vocab_size=32064, d_model=3072, n_layers=32, n_heads=32, d_ff=8192,
                                layout="phi3", model_type="phi3", trained_context=131072),
    "phi-4-mini": ModelConfig(vocab_size=200064, d_model=3072, n_layers=32, n_heads=24, n_kv_heads=8,
                              head_dim=128, d_ff=8192, tie_embeddings=True, layout="phi3", model_type="phi3",
                              trained_context=131072),
    "phi-4": ModelConfig(vocab_size=100352, d_model=5120, n_layers=40, n_heads=40, n_kv_heads=10, head_dim=128,
                         d_ff=17920, layout="phi3", model_type="phi3", trained_context=16384),
    # Mistral Small 3 (mistral-small-24b-instruct-2501.json; the base model has the same shapes): 32 query heads of
    # 128 values on a 5,120-wide model (4,096 < 5,120), no sliding window, untied head.
    "mistral-small-24b": ModelConfig(vocab_size=131072, d_model=5120, n_layers=40, n_heads=32, n_kv_heads=8,
                                     head_dim=128, d_ff=32768, model_type="mistral", trained_context=32768),
    # gpt-oss (gpt-oss-20b.json, gpt-oss-120b.json, without their MXFP4 quantization_config: the BF16 model the
    # checkpoint stores; llmcalc.checkpoints sizes the file itself): biases on q, k, v and o, on the router and on
    # each expert's projections, a learned attention sink per query head, a 128-token window on every other layer,
    # and 131,072 positions (YaRN: 4,096 x 32).
    "gpt-oss-20b": ModelConfig(vocab_size=201088, d_model=2880, n_layers=24, n_heads=64, n_kv_heads=8, head_dim=64,
                               d_ff=2880, n_experts=32, experts_per_token=4, qkv_bias=True, out_bias=True,
                               mlp_bias=True, router_bias=True, attention_sinks=True, sliding_window=128,
                               sliding_window_layers=12, model_type="gpt_oss", trained_context=131072),
    "gpt-oss-120b": ModelConfig(vocab_size=201088, d_model=2880, n_layers=36, n_heads=64, n_kv_heads=8, head_dim=64,
                                d_ff=2880, n_experts=128, experts_per_token=4, qkv_bias=True, out_bias=True,
                                mlp_bias=True, router_bias=True, attention_sinks=True, sliding_window=128,
                                sliding_window_layers=18, model_type="gpt_oss", trained_context=131072),
})

REFERENCE: ModelConfig = PRESETS["reference"]


def get_preset(name: str) -> ModelConfig:
    """Return the preset called ``name``.

    Examples
    --------
    >>> get_preset("mistral-7b").n_kv_heads
    8
    >>> get_preset("llama-4")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: name must be one of 'reference', 'gpt2', ... got 'llama-4'
    >>> get_preset("Llama-2-7B")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: name must be one of ... got 'Llama-2-7B' (did you mean 'llama-2-7b'?)
    """
    return PRESETS[check.choice("name", name, PRESETS)]
