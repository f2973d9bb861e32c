"""Record what transformers and peft build for real model configurations.

This maintainer script is NOT run by the tests, and torch/transformers/peft are
NOT dependencies of the project.  It regenerates, deterministically, every file
in ``tests/data/hf_models/``: the independent oracle that
``llmcalc``'s Hugging Face ``config.json`` reader is compared against.

How to re-run (in a virtual environment outside the repository)::

    python3 -m venv /work/venv-hf
    /work/venv-hf/bin/pip install torch==2.13.0 transformers peft
    /work/venv-hf/bin/python tools/verify_hf_models.py

No weights or configurations are downloaded: each configuration below is
written out from the model's published ``config.json``.  For every model the
script writes

* ``<name>.full.json``: ``config.to_dict()``, every attribute of the config;
* ``<name>.json``: the bytes ``config.save_pretrained`` writes (only the keys
  that differ from the base ``PreTrainedConfig`` defaults, plus all
  model-specific keys);

and records in ``_reference.json``

* the total parameter count of ``AutoModelForCausalLM.from_config`` built on
  the meta device (tied matrices counted once), with the parameters of one
  decoder layer of each kind listed by name, plus the embedding, final norm
  and LM head, and the buffers that are not parameters;
* for mixture-of-experts models, the active parameters per token:
  ``total - n_moe_layers * (n_routed - top_k) * numel(one routed expert)``,
  where one routed expert's numel is read from the library's expert tensors;
* LoRA trainable parameters from ``peft.get_peft_model`` for r=8 on the
  query and value projections and r=16 on ``"all-linear"``, with the modules
  peft wrapped;
* KV-cache bytes measured on a real float32 forward pass of a reduced copy
  (same attention shapes, few layers, few experts, small vocabulary and
  feed-forward width, random weights) for several sequence lengths, and the
  per-token bytes per layer kind extrapolated to the full depth at T=4096.

``llmcalc/data/hf_class_defaults.json`` (package data, llmcalc's only source of them) holds, per
``model_type``, the size-relevant keyword defaults of ``ConfigClass.__init__``: what an absent key in a
``config.json`` means (``None`` where the class derives the value from others, as ``head_dim``).
"""

from __future__ import annotations

import argparse
import inspect
import json
import pathlib
import platform
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import peft
import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig

OUTPUT_DIR = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "hf_models"
CLASS_DEFAULTS_FILE = pathlib.Path(__file__).resolve().parent.parent / "llmcalc" / "data" / "hf_class_defaults.json"

EXTRAPOLATION_TOKENS = 4096
MEASURED_LENGTHS = (1, 7, 64)
REDUCED_SLIDING_WINDOW = 16
REDUCED_VOCAB = 512
REDUCED_FFN = 64
SEED = 0
BF16_BYTES = 2
FP32_BYTES = 4


@dataclass(frozen=True)
class ModelSpec:
    """One published model: its ``config.json`` values and how to shrink it.

    ``published`` holds the keys of the model's ``config.json`` (without
    ``transformers_version`` and ``auto_map``, which describe the writer,
    not the model).  ``reduced`` overrides keys for the KV-cache run; only
    keys that do not change the cache's per-token shape may be changed there,
    plus ``sliding_window`` (its real value is recorded next to it).
    ``lora_qv`` names the modules holding the query and value projections.
    """

    name: str
    source: str
    published: dict[str, Any]
    reduced: dict[str, Any]
    lora_qv: tuple[str, ...]
    note: str = ""
    dropped_keys: tuple[str, ...] = ()


def hub(repo: str) -> str:
    return f"{repo} config.json (Hugging Face Hub), values written out by hand from the published file"


# Qwen/Qwen3-8B config.json; Qwen3-0.6B differs from it only in width, depth and tied embeddings.
QWEN3_8B: dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 12288,
    "max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
    "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
}

MODELS: tuple[ModelSpec, ...] = (
    ModelSpec(
        name="llama-3.1-8b",
        source=hub("meta-llama/Llama-3.1-8B"),
        published={
            "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096,
            "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072,
            "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
            "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
            "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                             "original_max_position_embeddings": 8192, "rope_type": "llama3"},
            "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
            "use_cache": True, "vocab_size": 128256,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="mistral-7b-v0.1",
        source=hub("mistralai/Mistral-7B-v0.1"),
        published={
            "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
            "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
            "max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32,
            "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
            "sliding_window": 4096, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
            "vocab_size": 32000,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN, "sliding_window": REDUCED_SLIDING_WINDOW},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="mixtral-8x7b-v0.1",
        source=hub("mistralai/Mixtral-8x7B-v0.1"),
        published={
            "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
            "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
            "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mixtral",
            "num_attention_heads": 32, "num_experts_per_tok": 2, "num_hidden_layers": 32,
            "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": False,
            "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02, "sliding_window": None,
            "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 32000,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN, "num_local_experts": 4},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="qwen2.5-7b",
        source=hub("Qwen/Qwen2.5-7B"),
        published={
            "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
            "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
            "intermediate_size": 18944, "max_position_embeddings": 131072, "max_window_layers": 28,
            "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
            "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072,
            "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
            "use_sliding_window": False, "vocab_size": 152064,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="qwen1.5-moe-a2.7b",
        source=hub("Qwen/Qwen1.5-MoE-A2.7B"),
        published={
            "architectures": ["Qwen2MoeForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
            "decoder_sparse_step": 1, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 2048,
            "initializer_range": 0.02, "intermediate_size": 5632, "max_position_embeddings": 8192,
            "max_window_layers": 21, "model_type": "qwen2_moe", "moe_intermediate_size": 1408,
            "norm_topk_prob": False, "num_attention_heads": 16, "num_experts": 60, "num_experts_per_tok": 4,
            "num_hidden_layers": 24, "num_key_value_heads": 16, "output_router_logits": False,
            "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
            "shared_expert_intermediate_size": 5632, "sliding_window": 32768, "tie_word_embeddings": False,
            "torch_dtype": "bfloat16", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN, "moe_intermediate_size": REDUCED_FFN,
                 "shared_expert_intermediate_size": REDUCED_FFN, "num_experts": 4, "num_experts_per_tok": 2},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="qwen3-8b",
        source=hub("Qwen/Qwen3-8B"),
        published=QWEN3_8B,
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="qwen3-0.6b",
        source=hub("Qwen/Qwen3-0.6B"),
        published={**QWEN3_8B, "hidden_size": 1024, "intermediate_size": 3072, "max_window_layers": 28,
                   "num_attention_heads": 16, "num_hidden_layers": 28, "tie_word_embeddings": True},
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("q_proj", "v_proj"),
        note="a second qwen3 model: tied embeddings, and head_dim*heads (2048) != hidden_size (1024)",
    ),
    ModelSpec(
        name="qwen3-30b-a3b",
        source=hub("Qwen/Qwen3-30B-A3B"),
        published={
            "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
            "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
            "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [],
            "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True,
            "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48,
            "num_key_value_heads": 4, "output_router_logits": False, "rms_norm_eps": 1e-06, "rope_scaling": None,
            "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": None,
            "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True,
            "use_sliding_window": False, "vocab_size": 151936,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN, "moe_intermediate_size": REDUCED_FFN,
                 "num_experts": 4, "num_experts_per_tok": 2},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="gemma-7b",
        source=hub("google/gemma-7b"),
        published={
            "architectures": ["GemmaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": 2, "eos_token_id": 1, "head_dim": 256, "hidden_act": "gelu", "hidden_size": 3072,
            "initializer_range": 0.02, "intermediate_size": 24576, "max_position_embeddings": 8192,
            "model_type": "gemma", "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 16,
            "pad_token_id": 0, "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 10000.0,
            "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 256000,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("q_proj", "v_proj"),
        note="tie_word_embeddings is absent from the published file: the class default (True) applies",
    ),
    ModelSpec(
        name="gemma-2-9b",
        source=hub("google/gemma-2-9b"),
        published={
            "architectures": ["Gemma2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid",
            "eos_token_id": 1, "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
            "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "initializer_range": 0.02,
            "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "gemma2",
            "num_attention_heads": 16, "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0,
            "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096,
            "sliding_window_size": 4096, "torch_dtype": "float32", "use_cache": True, "vocab_size": 256000,
        },
        reduced={"num_hidden_layers": 2, "intermediate_size": REDUCED_FFN, "sliding_window": REDUCED_SLIDING_WINDOW,
                 "sliding_window_size": REDUCED_SLIDING_WINDOW},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="gemma-3-1b-pt",
        source=hub("google/gemma-3-1b-pt"),
        published={
            "architectures": ["Gemma3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "attn_logit_softcapping": None, "bos_token_id": 2, "cache_implementation": "hybrid",
            "eos_token_id": 1, "final_logit_softcapping": None, "head_dim": 256,
            "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152, "initializer_range": 0.02,
            "intermediate_size": 6912, "max_position_embeddings": 32768, "model_type": "gemma3_text",
            "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1, "pad_token_id": 0,
            "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
            "rope_scaling": None, "rope_theta": 1000000, "sliding_window": 512, "sliding_window_pattern": 6,
            "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 262144,
        },
        reduced={"num_hidden_layers": 2, "intermediate_size": REDUCED_FFN, "sliding_window": REDUCED_SLIDING_WINDOW,
                 "layer_types": ["sliding_attention", "full_attention"]},
        lora_qv=("q_proj", "v_proj"),
        note="the published file has no layer_types: they follow from sliding_window_pattern=6 "
             "(every 6th layer full)",
    ),
    ModelSpec(
        name="phi-2",
        source=hub("microsoft/phi-2"),
        published={
            "architectures": ["PhiForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 50256,
            "embd_pdrop": 0.0, "eos_token_id": 50256, "hidden_act": "gelu_new", "hidden_size": 2560,
            "initializer_range": 0.02, "intermediate_size": 10240, "layer_norm_eps": 1e-05,
            "max_position_embeddings": 2048, "model_type": "phi", "num_attention_heads": 32,
            "num_hidden_layers": 32, "num_key_value_heads": 32, "partial_rotary_factor": 0.4,
            "qk_layernorm": False, "resid_pdrop": 0.1, "rope_scaling": None, "rope_theta": 10000.0,
            "tie_word_embeddings": False, "torch_dtype": "float16", "use_cache": True, "vocab_size": 51200,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="phi-3-mini-4k-instruct",
        source=hub("microsoft/Phi-3-mini-4k-instruct"),
        published={
            "architectures": ["Phi3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": 1, "embd_pdrop": 0.0, "eos_token_id": 32000, "hidden_act": "silu",
            "hidden_size": 3072, "initializer_range": 0.02, "intermediate_size": 8192,
            "max_position_embeddings": 4096, "model_type": "phi3", "num_attention_heads": 32,
            "num_hidden_layers": 32, "num_key_value_heads": 32, "original_max_position_embeddings": 4096,
            "pad_token_id": 32000, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05, "rope_scaling": None,
            "rope_theta": 10000.0, "sliding_window": 2047, "tie_word_embeddings": False,
            "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 32064,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN, "sliding_window": REDUCED_SLIDING_WINDOW},
        lora_qv=("qkv_proj",),
        note="q, k and v are one fused module (qkv_proj); LoRA on it adapts all three",
    ),
    ModelSpec(
        name="falcon-7b",
        source=hub("tiiuae/falcon-7b"),
        published={
            "alibi": False, "apply_residual_connection_post_layernorm": False,
            "architectures": ["FalconForCausalLM"], "attention_dropout": 0.0, "bias": False,
            "bos_token_id": 11, "eos_token_id": 11, "hidden_dropout": 0.0, "hidden_size": 4544,
            "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "falcon", "multi_query": True,
            "new_decoder_architecture": False, "num_attention_heads": 71, "num_hidden_layers": 32,
            "parallel_attn": True, "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 65024,
        },
        reduced={"num_hidden_layers": 1, "ffn_hidden_size": REDUCED_FFN},
        lora_qv=("query_key_value",),
        note="q, k and v are one fused module (query_key_value); multi_query=True gives one KV head",
    ),
    ModelSpec(
        name="gpt2",
        source=hub("openai-community/gpt2"),
        published={
            "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
            "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
            "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12,
            "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": None,
            "summary_first_dropout": 0.1, "summary_proj_to_labels": True, "summary_type": "cls_index",
            "summary_use_proj": True, "vocab_size": 50257,
            "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
        },
        reduced={"n_layer": 1, "n_inner": REDUCED_FFN},
        lora_qv=("c_attn",),
        note="q, k and v are one fused Conv1D (c_attn); peft sets fan_in_fan_out for it",
    ),
    ModelSpec(
        name="pythia-1.4b",
        source=hub("EleutherAI/pythia-1.4b"),
        published={
            "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
            "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192, "layer_norm_eps": 1e-05,
            "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 16,
            "num_hidden_layers": 24, "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": False,
            "torch_dtype": "float16", "use_cache": True, "use_parallel_residual": True, "vocab_size": 50304,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("query_key_value",),
        note="q, k and v are one fused module (query_key_value)",
    ),
    ModelSpec(
        name="starcoder2-3b",
        source=hub("bigcode/starcoder2-3b"),
        published={
            "architectures": ["Starcoder2ForCausalLM"], "attention_dropout": 0.1, "bos_token_id": 0,
            "embedding_dropout": 0.1, "eos_token_id": 0, "hidden_act": "gelu_pytorch_tanh", "hidden_size": 3072,
            "initializer_range": 0.018042, "intermediate_size": 12288, "max_position_embeddings": 16384,
            "mlp_type": "default", "model_type": "starcoder2", "norm_epsilon": 1e-05, "num_attention_heads": 24,
            "num_hidden_layers": 30, "num_key_value_heads": 2, "residual_dropout": 0.1,
            "rope_theta": 999999.4420358813, "sliding_window": 4096, "torch_dtype": "bfloat16", "use_bias": True,
            "use_cache": True, "vocab_size": 49152,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN, "sliding_window": REDUCED_SLIDING_WINDOW},
        lora_qv=("q_proj", "v_proj"),
        note="tie_word_embeddings is absent from the published file: the class default (True) applies",
    ),
    ModelSpec(
        name="olmo-1b-hf",
        source=hub("allenai/OLMo-1B-hf"),
        published={
            "architectures": ["OlmoForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": None, "clip_qkv": None, "eos_token_id": 50279, "hidden_act": "silu",
            "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192,
            "max_position_embeddings": 2048, "model_type": "olmo", "num_attention_heads": 16,
            "num_hidden_layers": 16, "num_key_value_heads": 16, "pad_token_id": 1, "pretraining_tp": 1,
            "rope_scaling": None, "rope_theta": 10000.0, "tie_word_embeddings": True, "torch_dtype": "float32",
            "use_cache": True, "vocab_size": 50304,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="olmo-2-1124-7b",
        source=hub("allenai/OLMo-2-1124-7B"),
        published={
            "architectures": ["Olmo2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "eos_token_id": 100257, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
            "intermediate_size": 11008, "max_position_embeddings": 4096, "model_type": "olmo2",
            "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "pad_token_id": 100277,
            "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 500000, "tie_word_embeddings": False,
            "torch_dtype": "float32", "use_cache": True, "vocab_size": 100352,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="olmoe-1b-7b-0924",
        source=hub("allenai/OLMoE-1B-7B-0924"),
        published={
            "architectures": ["OlmoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "clip_qkv": None, "eos_token_id": 50279, "hidden_act": "silu", "hidden_size": 2048,
            "initializer_range": 0.02, "intermediate_size": 1024, "max_position_embeddings": 4096,
            "model_type": "olmoe", "norm_topk_prob": False, "num_attention_heads": 16, "num_experts": 64,
            "num_experts_per_tok": 8, "num_hidden_layers": 16, "num_key_value_heads": 16,
            "output_router_logits": False, "pad_token_id": 1, "rms_norm_eps": 1e-05, "rope_scaling": None,
            "rope_theta": 10000.0, "router_aux_loss_coef": 0.01, "tie_word_embeddings": False,
            "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 50304,
        },
        reduced={"num_hidden_layers": 1, "intermediate_size": REDUCED_FFN, "num_experts": 4,
                 "num_experts_per_tok": 2},
        lora_qv=("q_proj", "v_proj"),
    ),
    ModelSpec(
        name="deepseek-v2-lite",
        source=hub("deepseek-ai/DeepSeek-V2-Lite"),
        published={
            "architectures": ["DeepseekV2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "aux_loss_alpha": 0.001, "bos_token_id": 100000, "eos_token_id": 100001, "ep_size": 1,
            "first_k_dense_replace": 1, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
            "intermediate_size": 10944, "kv_lora_rank": 512, "max_position_embeddings": 163840,
            "model_type": "deepseek_v2", "moe_intermediate_size": 1408, "moe_layer_freq": 1, "n_group": 1,
            "n_routed_experts": 64, "n_shared_experts": 2, "norm_topk_prob": False, "num_attention_heads": 16,
            "num_experts_per_tok": 6, "num_hidden_layers": 27, "num_key_value_heads": 16, "pretraining_tp": 1,
            "q_lora_rank": None, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "rms_norm_eps": 1e-06,
            "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707,
                             "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096, "type": "yarn"},
            "rope_theta": 10000, "routed_scaling_factor": 1.0, "scoring_func": "softmax", "seq_aux": True,
            "tie_word_embeddings": False, "topk_group": 1, "topk_method": "greedy", "torch_dtype": "bfloat16",
            "use_cache": True, "v_head_dim": 128, "vocab_size": 102400,
        },
        reduced={"num_hidden_layers": 2, "intermediate_size": REDUCED_FFN, "moe_intermediate_size": REDUCED_FFN,
                 "n_routed_experts": 4, "num_experts_per_tok": 2},
        lora_qv=("q_proj", "kv_b_proj"),
        note="MLA without a query low-rank (q_lora_rank null): the query is q_proj; the value lives in "
             "kv_b_proj (the up-projection from the KV latent to per-head K-nope and V)",
    ),
    ModelSpec(
        name="deepseek-v3",
        source=hub("deepseek-ai/DeepSeek-V3"),
        published={
            "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "aux_loss_alpha": 0.001, "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1,
            "first_k_dense_replace": 3, "hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02,
            "intermediate_size": 18432, "kv_lora_rank": 512, "max_position_embeddings": 163840,
            "model_type": "deepseek_v3", "moe_intermediate_size": 2048, "moe_layer_freq": 1, "n_group": 8,
            "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": True, "num_attention_heads": 128,
            "num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
            "num_nextn_predict_layers": 1, "pretraining_tp": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64, "rms_norm_eps": 1e-06,
            "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                             "original_max_position_embeddings": 4096, "type": "yarn"},
            "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "seq_aux": True,
            "tie_word_embeddings": False, "topk_group": 4, "topk_method": "noaux_tc", "torch_dtype": "bfloat16",
            "use_cache": True, "v_head_dim": 128, "vocab_size": 129280,
        },
        reduced={"num_hidden_layers": 2, "first_k_dense_replace": 1, "intermediate_size": REDUCED_FFN,
                 "moe_intermediate_size": REDUCED_FFN, "n_routed_experts": 8, "num_experts_per_tok": 2,
                 "n_group": 2, "topk_group": 1},
        lora_qv=("q_b_proj", "kv_b_proj"),
        note="MLA with a query low-rank: the query up-projection is q_b_proj (q_a_proj is the down-projection); "
             "the value lives in kv_b_proj. transformers does not build the multi-token-prediction layer "
             "(num_nextn_predict_layers=1), so the published 685B checkpoint has more tensors than the model",
        dropped_keys=("quantization_config",),
    ),
    ModelSpec(
        name="gpt-oss-20b",
        source=hub("openai/gpt-oss-20b"),
        published={
            "architectures": ["GptOssForCausalLM"], "attention_bias": True, "attention_dropout": 0.0,
            "eos_token_id": 200002, "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu",
            "hidden_size": 2880, "initial_context_length": 4096, "initializer_range": 0.02,
            "intermediate_size": 2880, "layer_types": ["sliding_attention", "full_attention"] * 12,
            "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64,
            "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 8, "num_local_experts": 32,
            "output_router_logits": False, "pad_token_id": 199999, "rms_norm_eps": 1e-05,
            "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                             "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False},
            "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0,
            "tie_word_embeddings": False, "use_cache": True, "vocab_size": 201088,
        },
        reduced={"num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
                 "intermediate_size": REDUCED_FFN, "num_local_experts": 4, "num_experts_per_tok": 2,
                 "sliding_window": REDUCED_SLIDING_WINDOW},
        lora_qv=("q_proj", "v_proj"),
        note="a learned attention sink per query head (self_attn.sinks), biases on every attention projection, "
             "on the router and on each expert's fused gate/up and down projections; the published checkpoint "
             "stores the experts in MXFP4 (quantization_config, not passed: from_config builds BF16)",
        dropped_keys=("quantization_config",),
    ),
)

# Keys of ConfigClass().to_dict() that bear on parameter counts, LoRA or the KV cache.
SIZE_KEY_PATTERN = re.compile(
    r"vocab|hidden_size|n_embd|n_inner|intermediate|ffn|layers|n_layer|heads|n_head|head_dim|tie_word|bias|"
    r"norm|expert|moe|topk|top_k|n_group|router|sliding|window|layer_types|lora|rope_dim|nope|rotary|partial|"
    r"parallel|multi_query|alibi|new_decoder|decoder_sparse|dense|mlp|qk_|v_head|clip_qkv|n_positions|"
    r"max_position|rope_parameters|use_bias|num_kv|softcap|query_pre_attn|nextn|shared|cross_attention|bidirectional"
)
NOT_SIZE_KEYS = {"output_router_logits", "router_aux_loss_coef", "router_jitter_noise", "initializer_range"}


def build_config(spec: ModelSpec, overrides: dict[str, Any] | None = None) -> PretrainedConfig:
    """The config object transformers makes from the published keys, as ``from_pretrained`` would."""
    values = dict(spec.published)
    model_type = values.pop("model_type")
    values.update(overrides or {})
    return AutoConfig.for_model(model_type, **values)


def build_meta_model(config: PretrainedConfig) -> torch.nn.Module:
    """The full model with every tensor on the meta device: shapes only, no memory."""
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(config)


def count(params: Iterator[torch.nn.Parameter]) -> int:
    return sum(p.numel() for p in params)


def dump(data: Any) -> str:
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def layer_pattern(name: str) -> str:
    """``model.layers.3.mlp.experts.5.w1`` -> ``model.layers.{i}.mlp.experts.{i}.w1``."""
    return re.sub(r"\.\d+(?=\.|$)", ".{i}", name)


def decoder_layers(model: torch.nn.Module) -> torch.nn.ModuleList:
    """The stack of decoder layers, whatever the architecture calls it (``layers``, ``h``)."""
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) == model.config.num_hidden_layers:
            return module
    raise RuntimeError(f"no decoder layer list of length {model.config.num_hidden_layers} in {type(model).__name__}")


def layer_types_of(config: PretrainedConfig) -> list[str]:
    """The config's ``layer_types``; without them, a set ``sliding_window`` makes every layer sliding.

    ``kv_rule`` checks this reading against the cache layer classes transformers creates.
    """
    layer_types = getattr(config, "layer_types", None)
    if layer_types:
        return list(layer_types)
    uniform = "sliding_attention" if getattr(config, "sliding_window", None) else "full_attention"
    return [uniform] * config.num_hidden_layers


def is_routed_expert(param_name: str) -> bool:
    """``mlp.experts.gate_up_proj`` is; ``mlp.shared_expert.up_proj.weight`` and ``mlp.shared_experts...`` are not."""
    return re.search(r"(^|\.)experts\.", param_name) is not None and "shared_expert" not in param_name


def layer_kind(config: PretrainedConfig, index: int, layer: torch.nn.Module) -> str:
    """``<attention type>/<dense|moe>``, e.g. ``sliding_attention/dense``."""
    ffn = "moe" if any(is_routed_expert(n) for n, _ in layer.named_parameters()) else "dense"
    return f"{layer_types_of(config)[index]}/{ffn}"


def parameter_breakdown(model: torch.nn.Module) -> dict[str, Any]:
    """Per-kind numel of one decoder layer, by parameter name, and the rest of the model."""
    config = model.config
    layers = decoder_layers(model)
    kinds: dict[str, dict[str, Any]] = {}
    for index, layer in enumerate(layers):
        kind = layer_kind(config, index, layer)
        by_name = {name: p.numel() for name, p in layer.named_parameters()}
        shapes = {name: list(p.shape) for name, p in layer.named_parameters()}
        if kind not in kinds:
            kinds[kind] = {"first_layer": index, "n_layers": 0, "params_by_name": by_name,
                           "shapes_by_name": shapes, "layer_total": sum(by_name.values())}
        elif by_name != kinds[kind]["params_by_name"]:
            raise RuntimeError(f"layer {index} of kind {kind} differs from layer {kinds[kind]['first_layer']}")
        kinds[kind]["n_layers"] += 1
    layer_param_ids = {id(p) for p in layers.parameters()}
    outside = {name: p.numel() for name, p in model.named_parameters() if id(p) not in layer_param_ids}
    total = count(model.parameters())
    assembled = sum(outside.values()) + sum(k["n_layers"] * k["layer_total"] for k in kinds.values())
    if assembled != total:
        raise RuntimeError(f"breakdown sums to {assembled}, model has {total}")
    embedding = model.get_input_embeddings().weight
    head = model.get_output_embeddings().weight
    return {
        "layer_kinds": kinds,
        "outside_layers_by_name": outside,
        "lm_head_tied_to_embedding": head is embedding,
    }


def buffer_summary(model: torch.nn.Module) -> dict[str, Any]:
    """Buffers (not parameters), grouped by name pattern; persistent ones are saved in checkpoints."""
    persistent = set(model.state_dict().keys())
    summary: dict[str, Any] = {}
    for name, buffer in model.named_buffers():
        entry = summary.setdefault(layer_pattern(name), {
            "count": 0, "numel_each": buffer.numel(), "shape": list(buffer.shape),
            "dtype": str(buffer.dtype), "persistent": name in persistent})
        entry["count"] += 1
    return summary


def active_parameters(model: torch.nn.Module, breakdown: dict[str, Any]) -> dict[str, Any] | None:
    """Total minus the routed experts a token does not use, from the library's own expert tensors."""
    moe_kinds = {k: v for k, v in breakdown["layer_kinds"].items() if k.endswith("/moe")}
    if not moe_kinds:
        return None
    config = model.config
    top_k = config.num_experts_per_tok
    total = count(model.parameters())
    inactive = 0
    per_kind = {}
    for kind, info in moe_kinds.items():
        expert_params = {n: s for n, s in info["shapes_by_name"].items() if is_routed_expert(n)}
        # Weights are 3-D (experts, in, out); gpt-oss's per-expert biases 2-D (experts, out): one leading size.
        leading = {shape[0] for shape in expert_params.values()}
        if len(leading) != 1 or not any(len(shape) == 3 for shape in expert_params.values()) or any(
                len(shape) not in (2, 3) for shape in expert_params.values()):
            raise RuntimeError(f"{kind}: expected routed experts stacked as 3-D tensors, got {expert_params}")
        n_routed = leading.pop()
        expert_numel = sum(info["params_by_name"][n] for n in expert_params)
        if expert_numel % n_routed:
            raise RuntimeError(f"{kind}: {expert_numel} expert parameters do not split over {n_routed} experts")
        one_expert = expert_numel // n_routed
        inactive += info["n_layers"] * (n_routed - top_k) * one_expert
        per_kind[kind] = {"n_moe_layers": info["n_layers"], "n_routed": n_routed, "top_k": top_k,
                          "routed_expert_tensors": sorted(expert_params), "numel_one_routed_expert": one_expert}
    return {
        "active": total - inactive,
        "derivation": "active = total - n_moe_layers * (n_routed - top_k) * numel_one_routed_expert; "
                      "shared experts, routers, attention, norms, embeddings and dense layers count in full",
        "per_moe_kind": per_kind,
    }


def lora_record(spec: ModelSpec, rank: int, targets: list[str] | str) -> dict[str, Any]:
    """Wrap a fresh meta-device model with LoRA and record what peft trains and which modules it wrapped.

    The wrapped modules' LoRA weights must add up to peft's own trainable count.
    """
    model = build_meta_model(build_config(spec))
    lora_config = peft.LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=targets, lora_dropout=0.0)
    wrapped = peft.get_peft_model(model, lora_config)
    trainable, all_params = wrapped.get_nb_trainable_parameters()
    matched: dict[str, dict[str, Any]] = {}
    for name, module in wrapped.named_modules():
        if isinstance(module, peft.tuners.lora.LoraLayer) and "default" in module.lora_A:
            lora_a = module.lora_A["default"].weight
            lora_b = module.lora_B["default"].weight
            pattern = layer_pattern(name.removeprefix("base_model.model."))
            parameter = getattr(module, "parameter_name", None)
            entry = matched.setdefault(f"{pattern}[{parameter}]" if parameter else pattern, {
                "count": 0, "base_class": type(module.get_base_layer()).__name__, "wrapper": type(module).__name__,
                "lora_A_shape": list(lora_a.shape), "lora_B_shape": list(lora_b.shape),
                "rank": module.r["default"], "lora_numel_each": lora_a.numel() + lora_b.numel()})
            entry["count"] += 1
    lora_sum = sum(e["count"] * e["lora_numel_each"] for e in matched.values())
    if lora_sum != trainable:
        raise RuntimeError(f"{spec.name}: LoRA modules hold {lora_sum}, peft reports {trainable} trainable")
    resolved_config = wrapped.peft_config["default"]
    resolved = resolved_config.target_modules
    return {
        "target_parameters_added_by_peft": sorted(resolved_config.target_parameters or []),
        "rank_pattern": dict(sorted(resolved_config.rank_pattern.items())),
        "rank": rank,
        "targets_requested": targets,
        "targets_resolved": sorted(resolved) if isinstance(resolved, (set, list)) else resolved,
        "trainable": trainable,
        "all_params_with_lora": all_params,
        "matched_modules": matched,
    }


def nbytes(tensor: torch.Tensor) -> int:
    return tensor.numel() * tensor.element_size()


def tensors_held(cache_layer: Any) -> dict[str, torch.Tensor]:
    """Every tensor attribute of one cache layer: keys, values and any bookkeeping tensor."""
    return {name: value for name, value in sorted(vars(cache_layer).items()) if isinstance(value, torch.Tensor)}


def reduced_overrides(spec: ModelSpec) -> dict[str, Any]:
    """Keys changed for the KV-cache run; token ids are cleared as they may not fit the small vocabulary."""
    return {"vocab_size": REDUCED_VOCAB, "pad_token_id": None, "bos_token_id": None, "eos_token_id": None,
            "dtype": "float32", **spec.reduced}


def measured_lengths(window: int | None) -> list[int]:
    """Sequence lengths to run: a few fixed ones, and around the reduced sliding window if there is one."""
    lengths = set(MEASURED_LENGTHS)
    if window:
        lengths |= {window - 1, window, window + 1, 2 * window + 3}
    return sorted(lengths)


def kv_cache_record(spec: ModelSpec, full_config: PretrainedConfig) -> dict[str, Any]:
    """Run the reduced copy and measure the cache it returns, per layer."""
    config = build_config(spec, reduced_overrides(spec))
    torch.manual_seed(SEED)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()
    reduced_window = getattr(config, "sliding_window", None)
    runs: dict[str, Any] = {}
    layer_classes: list[str] = []
    last_shapes: dict[str, Any] = {}
    for length in measured_lengths(reduced_window if is_any_sliding(config) else None):
        input_ids = torch.randint(0, REDUCED_VOCAB, (1, length), generator=torch.Generator().manual_seed(length))
        with torch.no_grad():
            output = model(input_ids, use_cache=True)
        cache = output.cache if "cache" in output else output.past_key_values
        kv_bytes, other_bytes = [], []
        layer_classes = []
        last_shapes = {}
        for index, cache_layer in enumerate(cache.layers):
            held = tensors_held(cache_layer)
            kv_bytes.append(sum(nbytes(t) for t in held.values() if t.dim() >= 3))
            other_bytes.append(sum(nbytes(t) for t in held.values() if t.dim() < 3))
            layer_classes.append(type(cache_layer).__name__)
            last_shapes[str(index)] = {name: {"shape": list(t.shape), "dtype": str(t.dtype)}
                                       for name, t in held.items()}
        runs[str(length)] = {"kv_bytes_per_layer": kv_bytes, "bookkeeping_bytes_per_layer": other_bytes,
                             "bytes_total": sum(kv_bytes) + sum(other_bytes)}
    kinds = [layer_kind(config, i, layer) for i, layer in enumerate(decoder_layers(model))]
    return {
        "dtype": "float32",
        "attn_implementation": model.config._attn_implementation,
        "reduced_overrides": {k: v for k, v in sorted(reduced_overrides(spec).items())},
        "reduced_sliding_window": reduced_window if is_any_sliding(config) else None,
        "real_sliding_window": getattr(full_config, "sliding_window", None),
        "reduced_layer_kinds": kinds,
        "cache_layer_classes": layer_classes,
        "tensors_at_longest_run": last_shapes,
        "runs": runs,
    }


def is_any_sliding(config: PretrainedConfig) -> bool:
    return any("sliding" in t for t in layer_types_of(config))


def kv_rule(kv: dict[str, Any], full_config: PretrainedConfig) -> dict[str, Any]:
    """Per-token bytes per attention kind, the tokens a sliding layer keeps, and the T=4096 extrapolation."""
    runs = {int(t): r for t, r in kv["runs"].items()}
    one_token = runs[1]["kv_bytes_per_layer"]
    per_kind_fp32: dict[str, int] = {}
    kept_rule: dict[str, Any] = {}
    for index, cache_class in enumerate(kv["cache_layer_classes"]):
        attention = "sliding" if "Sliding" in cache_class else "full"
        if not kv["reduced_layer_kinds"][index].startswith(attention):
            raise RuntimeError(f"layer {index}: config says {kv['reduced_layer_kinds'][index]}, "
                               f"transformers made a {cache_class}")
        per_token = one_token[index]
        if per_kind_fp32.setdefault(attention, per_token) != per_token:
            raise RuntimeError(f"layer {index}: {per_token} bytes per token, another {attention} layer has "
                               f"{per_kind_fp32[attention]}")
        kept = {t: r["kv_bytes_per_layer"][index] // per_token for t, r in sorted(runs.items())}
        if any(r["kv_bytes_per_layer"][index] % per_token for r in runs.values()):
            raise RuntimeError(f"layer {index}: cache bytes are not a multiple of the one-token bytes")
        if attention == "full":
            if any(kept[t] != t for t in kept):
                raise RuntimeError(f"full layer {index} keeps {kept}")
            continue
        window = kv["reduced_sliding_window"]
        for offset in (0, -1):
            if all(kept[t] == min(t, window + offset) for t in kept):
                kept_rule = {"offset": offset, "rule": f"kept tokens = min(T, W{offset:+d})" if offset else
                             "kept tokens = min(T, W)", "observed_kept_by_T": {str(t): k for t, k in kept.items()}}
                break
        else:
            raise RuntimeError(f"sliding layer {index} keeps {kept} with window {window}: neither min(T, W) "
                               "nor min(T, W-1)")
    full_types = layer_types_of(full_config)
    n_layers = {"full": sum("sliding" not in t for t in full_types),
                "sliding": sum("sliding" in t for t in full_types)}
    window = getattr(full_config, "sliding_window", None)
    tokens = EXTRAPOLATION_TOKENS
    kept_sliding = min(tokens, window + kept_rule["offset"]) if n_layers["sliding"] else 0
    per_kind_bf16 = {k: v * BF16_BYTES // FP32_BYTES for k, v in per_kind_fp32.items()}
    bytes_4096 = (n_layers["full"] * per_kind_bf16.get("full", 0) * tokens
                  + n_layers["sliding"] * per_kind_bf16.get("sliding", 0) * kept_sliding)
    formula = f"n_full({n_layers['full']}) * bf16_per_token_full * T"
    if n_layers["sliding"]:
        formula += (f" + n_sliding({n_layers['sliding']}) * bf16_per_token_sliding * "
                    f"min(T, W{kept_rule['offset']:+d}) with W={window}")
    return {
        "bytes_per_token_per_layer_fp32": per_kind_fp32,
        "bytes_per_token_per_layer_bf16": per_kind_bf16,
        "sliding_rule": kept_rule or None,
        "full_depth_layers_by_attention": n_layers,
        "full_depth_bf16_bytes_at_T4096": bytes_4096,
        "full_depth_bf16_formula": formula + f", T={tokens}",
    }


def class_defaults() -> dict[str, dict[str, Any]]:
    """Per model_type, the size-relevant keyword defaults of the config class's ``__init__``.

    The signature, not ``ConfigClass().to_dict()``: what an absent key means is the argument's default, before
    ``__init__`` derives anything from it (``head_dim=None`` becomes ``hidden_size // num_attention_heads``).
    """
    defaults = {}
    for model_type in sorted({spec.published["model_type"] for spec in MODELS}):
        config_class = transformers.CONFIG_MAPPING[model_type]
        parameters = inspect.signature(config_class.__init__).parameters.values()
        defaults[model_type] = {
            "class": config_class.__name__,
            "init_defaults": {p.name: p.default for p in sorted(parameters, key=lambda p: p.name)
                              if p.default is not inspect.Parameter.empty and SIZE_KEY_PATTERN.search(p.name)
                              and p.name not in NOT_SIZE_KEYS},
        }
    return defaults


def saved_config_text(config: PretrainedConfig) -> str:
    """The ``config.json`` that ``save_pretrained`` writes, byte for byte."""
    with tempfile.TemporaryDirectory() as directory:
        config.save_pretrained(directory)
        return (pathlib.Path(directory) / "config.json").read_text(encoding="utf-8")


def record_model(spec: ModelSpec) -> dict[str, Any]:
    config = build_config(spec)
    full = config.to_dict()
    short_text = saved_config_text(config)
    short = json.loads(short_text)
    (OUTPUT_DIR / f"{spec.name}.full.json").write_text(dump(full), encoding="utf-8")
    (OUTPUT_DIR / f"{spec.name}.json").write_text(short_text, encoding="utf-8")

    model = build_meta_model(config)
    total = count(model.parameters())
    breakdown = parameter_breakdown(model)
    active = active_parameters(model, breakdown)
    buffers = buffer_summary(model)
    model_class = type(model).__name__
    del model

    lora_qv = lora_record(spec, 8, list(spec.lora_qv))
    lora_all = lora_record(spec, 16, "all-linear")
    kv = kv_cache_record(spec, config)
    rule = kv_rule(kv, config)
    print(f"{spec.name:24s} total={total:>16,d} active={(active or {}).get('active', total):>16,d} "
          f"lora8={lora_qv['trainable']:>11,d} lora16all={lora_all['trainable']:>12,d} "
          f"kv_bf16/token/layer={rule['bytes_per_token_per_layer_bf16']}", flush=True)
    return {
        "model_type": spec.published["model_type"],
        "model_class": model_class,
        "source": spec.source,
        "note": spec.note,
        "published_keys_not_passed": list(spec.dropped_keys),
        "config_files": {"full": f"{spec.name}.full.json", "short": f"{spec.name}.json"},
        "short_form_omits": sorted(set(full) - set(short)),
        "published_keys_renamed_or_dropped_by_transformers": sorted(set(spec.published) - set(full)),
        "total": total,
        "active": active,
        "components": breakdown,
        "buffers": buffers,
        "lora_qv_r8": lora_qv,
        "lora_all_linear_r16": lora_all,
        "kv_cache": {**kv, **rule},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=[spec.name for spec in MODELS],
                        help="record only these models and leave the summary files untouched (for debugging)")
    args = parser.parse_args()
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    transformers.logging.set_verbosity_error()
    chosen = [spec for spec in MODELS if not args.only or spec.name in args.only]
    models = {spec.name: record_model(spec) for spec in chosen}
    if args.only:
        print(dump(models))
        return
    reference = {
        "provenance": {
            "script": "tools/verify_hf_models.py",
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "peft": peft.__version__,
            "method": "configs from published values via AutoConfig.for_model; parameters of "
                      "AutoModelForCausalLM.from_config on the meta device; LoRA via peft.get_peft_model and "
                      "get_nb_trainable_parameters; KV cache from the tensors held by the cache returned by a "
                      "float32 CPU forward pass of a reduced copy",
        },
        "models": models,
    }
    (OUTPUT_DIR / "_reference.json").write_text(dump(reference), encoding="utf-8")
    CLASS_DEFAULTS_FILE.write_text(
        dump({"transformers": transformers.__version__, "model_types": class_defaults()}), encoding="utf-8")
    print(f"wrote {len(models)} models to {OUTPUT_DIR}")


if __name__ == "__main__":
    main()
