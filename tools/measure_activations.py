"""Measure the bytes a causal-LM training step keeps for backward, for llmcalc's activation model.

This script is NOT run by the tests, and torch/transformers are NOT llmcalc
dependencies.  It writes ``tests/data/activations/recordings.json``, which
``tests/test_llmcalc_activations.py`` compares ``llmcalc.activations.activation_memory(...).saved``
against.

How to re-run (in a throwaway virtual environment, never the project's)::

    python3 -m venv /tmp/act-venv
    /tmp/act-venv/bin/pip install torch transformers peft bitsandbytes
    /tmp/act-venv/bin/python tools/measure_activations.py --write

``--write`` adds to the recordings file: a record replaces only the record of
the same setting, and each architecture lists the runs that recorded it, so a
run for one family (``--arch mistral``) or one setting (``--lora-setting 6``)
leaves the rest as it was.  Keep a run to one family: on a 2-core machine a
long run also grows in memory.

What is measured.  Each model is built from a configuration written out here
(no hub download, random weights), cast to bfloat16 (the whole model, not
autocast, so every saved tensor has the dtype the model code gives it), put in
train mode with every dropout probability 0, and run forward once on random
token ids with ``labels=input_ids`` (transformers' causal-LM loss: logits
upcast to fp32, cross-entropy over the sequence).  No backward pass is needed:
what backward will read is fixed when the forward ends.

* ``torch.autograd.graph.saved_tensors_hooks`` sees every tensor an operation
  saves for backward.  Bytes are counted once per storage
  (``untyped_storage().data_ptr()``; a view counts its whole storage) and
  storages of parameters and buffers are left out.
* With activation checkpointing (``gradient_checkpointing_enable`` with
  ``use_reentrant=False``) the tensors saved inside a checkpointed layer are
  dropped by torch, and what stays is what the checkpoint keeps to recompute
  the layer: its tensor arguments.  Those are recorded by wrapping each
  layer's checkpoint function and deduplicated with the rest, in the same way.
  The recompute during backward (one layer's activations at a time) is not in
  these numbers: it is transient, and equals one layer of the run without
  checkpointing.

Each point is recorded with ``attn_implementation="eager"`` and ``"sdpa"``
(Gemma 2: eager only, as transformers 5.24 refuses SDPA for it).  The dense
families of issue 25 (Mistral, Gemma 1 to 3, Qwen3, OLMo 1 and 2, Phi-2,
GPT-NeoX, Falcon, Phi-3, StarCoder2) are 2-layer models with their families'
ratios, windows of 256 tokens so that the points cross them.

``--peak`` runs forward and backward instead, under torch's ``MemTracker``
(``torch.distributed._tools.mem_tracker``, which follows every storage the
step allocates and frees, on CPU too), and writes ``peaks.json`` beside the
recordings: live activation bytes at the end of the forward pass, and
activations plus backward temporaries at the step's peak.  It was run for the
Llama-style model with SDPA (``--peak --arch llama --attention sdpa --write``).

``--lora`` measures LoRA and QLoRA fine-tuning instead (SDPA only; needs
``peft``, and ``bitsandbytes`` for QLoRA) and writes ``lora.json``: for each
architecture, point and checkpointing setting, peft's ``get_peft_model`` with
rank 16 on peft's default targets for the model type (``q_proj``/``v_proj``,
GPT-2's fused ``c_attn``) and on ``"all-linear"``, ``lora_dropout`` 0 (peft's
default) and 0.05; peft's defaults otherwise, so the adapters are upcast to
fp32 (``autocast_adapter_dtype=True``).  The QLoRA base is loaded with
``BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
bnb_4bit_compute_dtype=bfloat16)`` from a saved copy of the random bf16 model,
its other parameters kept in bf16, or, for the settings marked ``prepared``,
upcast to fp32 by ``peft.prepare_model_for_kbit_training`` (peft's own set-up),
or, for the settings marked ``bf16``, with the adapters cast to bfloat16 as TRL
1.16's ``SFTTrainer`` casts them.  The dense families take settings 0 and 3 of ``LORA_SETTINGS`` (peft's
default targets without dropout, ``"all-linear"`` with 0.05); where peft has
no default targets for the model type the query and value projections are
named (``QV_TARGETS``).  Each (configuration,
checkpointing) pair gets a freshly built model, because enabling
checkpointing also registers transformers' ``enable_input_require_grads``
hook on the embedding, which disabling it does not remove.

``--moe`` measures the mixture-of-experts and latent-attention models instead
(``MOE_ARCHITECTURES``: Mixtral, Qwen1.5-MoE, Qwen3-MoE, OLMoE, DeepSeek-V2-Lite
and DeepSeek-V3 at width 512 with two layers, a few experts and the family's
ratios) and writes ``moe.json`` (``moe-lora.json`` with ``--lora``,
``moe-peaks.json`` with ``--peak``); a run of
some of them with ``--arch`` keeps the others' records.  They run
transformers 5's default ``grouped_mm`` experts.  Their LoRA settings are
``MOE_LORA_SETTINGS`` on ``MOE_QUERY_VALUE`` (peft 0.21.2 has a default target
list only for Mixtral) and on ``"all-linear"``, which for Mixtral, Qwen3-MoE,
OLMoE and DeepSeek adapts the stacked experts and the router (peft refuses
``lora_dropout`` there, so it is measured with 0 only).  Run as recorded::

    python tools/measure_activations.py --moe --write --detail --point 1 512 --point 2 128 --point 4 256
    python tools/measure_activations.py --moe --lora --write --detail --point 1 256 --point 2 64 --point 4 128
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import platform
import sys
import tempfile
from collections import defaultdict
from typing import Any

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "activations" / "recordings.json"
PEAKS = OUTPUT.with_name("peaks.json")
LORA = OUTPUT.with_name("lora.json")
MOE_OUTPUT = OUTPUT.with_name("moe.json")
MOE_LORA = OUTPUT.with_name("moe-lora.json")
MOE_PEAKS = OUTPUT.with_name("moe-peaks.json")

NO_DROPOUT = {
    "llama": dict(attention_dropout=0.0),
    "qwen2": dict(attention_dropout=0.0),
    "gpt2": dict(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, summary_first_dropout=0.0),
    **{model_type: dict(attention_dropout=0.0)
       for model_type in ("mixtral", "qwen2_moe", "qwen3_moe", "olmoe", "deepseek_v2", "deepseek_v3")},
    "mistral": dict(attention_dropout=0.0),
    "gemma": dict(attention_dropout=0.0),
    "gemma2": dict(attention_dropout=0.0),
    "gemma3_text": dict(attention_dropout=0.0),
    "qwen3": dict(attention_dropout=0.0),
    "olmo": dict(attention_dropout=0.0),
    "olmo2": dict(attention_dropout=0.0),
    "phi": dict(attention_dropout=0.0, resid_pdrop=0.0, embd_pdrop=0.0),
    "gpt_neox": dict(attention_dropout=0.0, hidden_dropout=0.0),
    "falcon": dict(attention_dropout=0.0, hidden_dropout=0.0),
    "phi3": dict(attention_dropout=0.0, resid_pdrop=0.0, embd_pdrop=0.0),
    "starcoder2": dict(attention_dropout=0.0, residual_dropout=0.0, embedding_dropout=0.0),
}

# name -> (model_type, AutoConfig keyword arguments, what it is)
ARCHITECTURES: dict[str, tuple[str, dict[str, Any], str]] = {
    "llama": (
        "llama",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=1792, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=2, head_dim=64, tie_word_embeddings=False),
        "Llama 3 block (RMSNorm, SwiGLU, GQA 4:1, RoPE) scaled to width 512 with Llama 3 8B's ratios "
        "(d_ff = 3.5 d_model, head_dim 64), 2 layers, Llama 2's 32000-token vocabulary",
    ),
    "gpt2": (
        "gpt2",
        dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=2, n_head=12),
        "GPT-2 small (LayerNorm, GELU MLP with biases, learned positions, tied head) with 2 of its 12 layers",
    ),
    "qwen2": (
        "qwen2",
        dict(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=2,
             num_attention_heads=14, num_key_value_heads=2, head_dim=64, tie_word_embeddings=True),
        "Qwen2.5-0.5B (RMSNorm, SwiGLU, GQA 7:1, Q/K/V biases, tied head, 151936-token vocabulary) "
        "with 2 of its 24 layers",
    ),
    # Mixtures of experts and latent attention (written to MOE_OUTPUT, MOE_LORA with --moe): width 512, the
    # family's ratios, a few experts, Llama 2's 32000-token vocabulary; router jitter and aux loss off (defaults).
    "mixtral": (
        "mixtral",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=1792, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=2, head_dim=64, num_local_experts=4,
             num_experts_per_tok=2, sliding_window=None, tie_word_embeddings=False),
        "Mixtral 8x7B block (GQA 4:1, expert d_ff = 3.5 d_model, top-2 softmax router renormalized) at width 512 "
        "with 4 experts, 2 layers",
    ),
    "qwen2_moe": (
        "qwen2_moe",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=1408, moe_intermediate_size=352,
             shared_expert_intermediate_size=1408, num_hidden_layers=2, num_attention_heads=8,
             num_key_value_heads=8, num_experts=8, num_experts_per_tok=4, norm_topk_prob=False, qkv_bias=True,
             decoder_sparse_step=1, mlp_only_layers=[], tie_word_embeddings=False),
        "Qwen1.5-MoE-A2.7B block (MHA with Q/K/V biases, expert d_ff = 0.6875 d_model, shared expert 2.75 d_model "
        "with its sigmoid gate, top-4 softmax, not renormalized) at width 512 with 8 experts, 2 layers",
    ),
    "qwen3_moe": (
        "qwen3_moe",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=1536, moe_intermediate_size=192,
             num_hidden_layers=2, num_attention_heads=16, num_key_value_heads=2, head_dim=64, num_experts=16,
             num_experts_per_tok=4, norm_topk_prob=True, decoder_sparse_step=1, mlp_only_layers=[],
             tie_word_embeddings=False),
        "Qwen3-30B-A3B block (GQA 8:1, q width 2 d_model, per-head QK-norm, expert d_ff = 0.375 d_model, "
        "top-k softmax renormalized) at width 512 with 16 experts, top 4, 2 layers",
    ),
    "olmoe": (
        "olmoe",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=256, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=8, num_experts=16, num_experts_per_tok=4,
             norm_topk_prob=False, tie_word_embeddings=False),
        "OLMoE-1B-7B block (MHA, QK-norm over the whole q and k projections, expert d_ff = 0.5 d_model, "
        "top-k softmax, not renormalized) at width 512 with 16 experts, top 4, 2 layers",
    ),
    "deepseek_v2": (
        "deepseek_v2",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=2736, moe_intermediate_size=352,
             num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=8, q_lora_rank=None,
             kv_lora_rank=128, qk_rope_head_dim=32, qk_nope_head_dim=64, v_head_dim=64, head_dim=32,
             n_routed_experts=8, num_experts_per_tok=2, n_shared_experts=2, first_k_dense_replace=1,
             topk_method="greedy", n_group=1, topk_group=1, tie_word_embeddings=False),
        "DeepSeek-V2-Lite block (MLA without a query bottleneck, kv_lora_rank 0.25 d_model, q/k heads of 64 + 32 "
        "rotary, values 64, 2 shared experts, softmax greedy top-k) at width 512 with 8 heads, 8 experts, top 2; "
        "layer 0 dense (first_k_dense_replace 1), layer 1 MoE",
    ),
    "deepseek_v3": (
        "deepseek_v3",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=1312, moe_intermediate_size=144,
             num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=8, q_lora_rank=128,
             kv_lora_rank=64, qk_rope_head_dim=32, qk_nope_head_dim=64, v_head_dim=64, head_dim=32,
             n_routed_experts=16, num_experts_per_tok=4, n_shared_experts=1, first_k_dense_replace=1,
             n_group=8, topk_group=4, norm_topk_prob=True, routed_scaling_factor=2.5, rope_interleave=True,
             tie_word_embeddings=False),
        "DeepSeek-V3 block (MLA with q_lora_rank and kv_lora_rank, interleaved rotary, 1 shared expert, sigmoid "
        "router with correction bias and V3's 8 groups of which 4 are kept, top 4 of 16, renormalized, scaled 2.5) at "
        "width 512 with 8 heads; layer 0 dense (first_k_dense_replace 1), layer 1 MoE",
    ),
    # The dense families of issue 25, each as a 2-layer model with its family's ratios.  Windows are 256 tokens
    # (the real ones, 2047 to 4096, are longer than the points) so that the points at 512 and 1024 tokens cross
    # them; large vocabularies are cut to 32000 (the loss is the same code for every family).
    "mistral": (
        "mistral",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=1792, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=2, head_dim=64, sliding_window=256,
             tie_word_embeddings=False),
        "Mistral 7B block (Llama's with a sliding window; d_ff = 3.5 d_model, GQA 4:1) at width 512, window 256",
    ),
    "gemma": (
        "gemma",
        dict(vocab_size=32000, hidden_size=384, intermediate_size=3072, num_hidden_layers=2,
             num_attention_heads=6, num_key_value_heads=6, head_dim=64, hidden_activation="gelu_pytorch_tanh",
             tie_word_embeddings=True),
        "Gemma 7B block (GeGLU with tanh GELU, d_ff = 8 d_model, MHA, scaled embeddings, tied head, "
        "RMSNorm with 1 + weight) at width 384, 32000-token vocabulary",
    ),
    "gemma2": (
        "gemma2",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=2048, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=4, head_dim=64, query_pre_attn_scalar=64,
             hidden_activation="gelu_pytorch_tanh", sliding_window=256, attn_logit_softcapping=50.0,
             final_logit_softcapping=30.0, layer_types=["sliding_attention", "full_attention"],
             tie_word_embeddings=True),
        "Gemma 2 9B block (four norms, GeGLU, GQA 2:1, attention and final soft-capping, alternating "
        "sliding/global layers, tied head) at width 512, window 256, 32000-token vocabulary",
    ),
    "gemma3": (
        "gemma3_text",
        dict(vocab_size=32000, hidden_size=384, intermediate_size=2304, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=1, head_dim=64, query_pre_attn_scalar=64,
             hidden_activation="gelu_pytorch_tanh", sliding_window=256,
             layer_types=["sliding_attention", "full_attention"], tie_word_embeddings=True),
        "Gemma 3 1B block (four norms, per-head QK-norm, GeGLU, d_ff = 6 d_model, MQA, sliding and global "
        "layers) at width 384, window 256, 32000-token vocabulary",
    ),
    "qwen3": (
        "qwen3",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=1536, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=4, head_dim=128, tie_word_embeddings=True),
        "Qwen3 0.6B block (per-head QK-norm, SwiGLU d_ff = 3 d_model, head_dim 128 so q is 2 d_model wide, "
        "GQA 2:1, tied head) at width 512, 32000-token vocabulary",
    ),
    "olmo2": (
        "olmo2",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=1376, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=8, tie_word_embeddings=False),
        "OLMo 2 7B block (RMSNorm over the whole q and k projections, norms after attention and FFN, "
        "SwiGLU d_ff = 2.69 d_model, MHA) at width 512, 32000-token vocabulary",
    ),
    "olmo": (
        "olmo",
        dict(vocab_size=32000, hidden_size=512, intermediate_size=2048, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=8, tie_word_embeddings=True),
        "OLMo 1B block (parameter-free LayerNorm, SwiGLU d_ff = 4 d_model, MHA, tied head) at width 512, "
        "32000-token vocabulary",
    ),
    "phi": (
        "phi",
        dict(vocab_size=51200, hidden_size=640, intermediate_size=2560, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=8, hidden_act="gelu_new", partial_rotary_factor=0.4,
             tie_word_embeddings=False),
        "Phi-2 block (one LayerNorm, attention and gelu_new MLP in parallel, head_dim 80 with 40 % rotary, "
        "biases, LM head with bias) at width 640, Phi-2's 51200-token vocabulary",
    ),
    "gpt_neox": (
        "gpt_neox",
        dict(vocab_size=50304, hidden_size=512, intermediate_size=2048, num_hidden_layers=2,
             num_attention_heads=4, hidden_act="gelu", rotary_pct=0.25, partial_rotary_factor=0.25,
             use_parallel_residual=True, tie_word_embeddings=False),
        "Pythia 1.4B block (GPT-NeoX: two LayerNorms, attention and GELU MLP in parallel, fused QKV, head_dim "
        "128 with 25 % rotary, biases) at width 512, Pythia's 50304-token vocabulary",
    ),
    "falcon": (
        "falcon",
        dict(vocab_size=65024, hidden_size=512, ffn_hidden_size=2048, num_hidden_layers=2, num_attention_heads=8,
             multi_query=True, parallel_attn=True, bias=False, alibi=False, new_decoder_architecture=False,
             tie_word_embeddings=True),
        "Falcon 7B block (one LayerNorm, attention and GELU MLP in parallel, multi-query, fused QKV, no biases, "
        "tied head) at width 512, Falcon's 65024-token vocabulary",
    ),
    "phi3": (
        "phi3",
        dict(vocab_size=32064, hidden_size=512, intermediate_size=1368, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=8, sliding_window=256, tie_word_embeddings=False),
        "Phi-3 mini block (fused qkv_proj and gate_up_proj, SwiGLU d_ff = 2.67 d_model, MHA, sliding window) "
        "at width 512, window 256, Phi-3's 32064-token vocabulary",
    ),
    "starcoder2": (
        "starcoder2",
        dict(vocab_size=49152, hidden_size=512, intermediate_size=2048, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, use_bias=True, hidden_act="gelu_pytorch_tanh",
             sliding_window=256, tie_word_embeddings=True),
        "StarCoder2 3B block (LayerNorm, biases, tanh-GELU MLP d_ff = 4 d_model, head_dim 128, GQA, sliding "
        "window, tied head) at width 512, window 256, StarCoder2's 49152-token vocabulary",
    ),
}
MOE_ARCHITECTURES = ("mixtral", "qwen2_moe", "qwen3_moe", "olmoe", "deepseek_v2", "deepseek_v3")

POINTS = ((1, 1024), (2, 256), (4, 512))
ATTENTIONS = ("eager", "sdpa")
# transformers 5.24 refuses SDPA for Gemma 2 ("does not support an attention implementation through
# torch.nn.functional.scaled_dot_product_attention yet"): its soft-capped scores need eager (or flash-attention 2).
EAGER_ONLY = {"gemma2"}
LORA_POINTS = ((1, 512), (2, 128), (4, 256))
LORA_RANK = 16
# (targets, lora_dropout, quantized base, prepare_model_for_kbit_training): None targets = peft's default for the
# model type.  The first six were recorded for the first three architectures; the dense families of issue 25 take
# LORA_FAMILY_SETTINGS (a 2-core machine shared by eight), and the prepared QLoRA path (issue 24) the last two.
LORA_SETTINGS = (
    (None, 0.0, False, False), (None, 0.05, False, False), ("all-linear", 0.0, False, False),
    ("all-linear", 0.05, False, False), (None, 0.0, True, False), ("all-linear", 0.05, True, False),
    (None, 0.0, True, True), ("all-linear", 0.05, True, True),
    (None, 0.0, True, False, "bf16"), ("all-linear", 0.0, True, False, "bf16"),
    ("all-linear", 0.05, True, False, "bf16"), (None, 0.0, True, True, "bf16"),
)
# A fifth item "bf16": the adapters cast to bfloat16 after get_peft_model, as TRL 1.16's SFTTrainer does on a
# quantized base (trl/trainer/sft_trainer.py:908-911: every trainable parameter, DoRA's magnitude aside).
LORA_FAMILY_SETTINGS = (0, 3, 6)
# peft 0.21.2 has no default targets for these model types (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING):
# their "default" records name the query and value projections, as the others' defaults do.
QV_TARGETS = {"olmo": ["q_proj", "v_proj"], "olmo2": ["q_proj", "v_proj"], "starcoder2": ["q_proj", "v_proj"],
              "phi3": ["qkv_proj"]}
# The MoE models (--moe): peft 0.21.2 has a default only for Mixtral, so None means the query and value
# projections named here (DeepSeek: the query projection and kv_b_proj, which rebuilds keys and values).
# "all-linear" with lora_dropout > 0 is not measured: peft refuses dropout on the stacked experts it adapts
# (ParamWrapper: "does not work with lora_dropout != 0").
MOE_LORA_SETTINGS = (
    (None, 0.0, False, False), (None, 0.05, False, False), ("all-linear", 0.0, False, False),
    (None, 0.0, True, False), ("all-linear", 0.0, True, False), (None, 0.0, True, True),
    (None, 0.0, True, False, "bf16"),
)
MOE_QUERY_VALUE = {
    **{arch: ["q_proj", "v_proj"] for arch in ("mixtral", "qwen2_moe", "qwen3_moe", "olmoe")},
    "deepseek_v2": ["q_proj", "kv_b_proj"], "deepseek_v3": ["q_b_proj", "kv_b_proj"],
}


def build(arch: str, attention: str) -> torch.nn.Module:
    model_type, kwargs, _ = ARCHITECTURES[arch]
    config = AutoConfig.for_model(model_type, **kwargs, **NO_DROPOUT[model_type])
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, attn_implementation=attention, dtype=torch.bfloat16)
    return model.train()


def build_lora(arch: str, targets: str | list[str] | None, dropout: float, quantized: bool,
               prepared: bool = False, adapters: str = "fp32") -> tuple[torch.nn.Module, list[str]]:
    """A peft LoRA model over the bf16 model (or its 4-bit copy) and the module names peft adapted.

    ``prepared``: peft's ``prepare_model_for_kbit_training`` runs on the 4-bit base before the adapters are added,
    as peft's own set-up leaves it: every bf16 parameter (embedding, norms, LM head) is upcast to fp32.  Its
    checkpointing is left to ``measure`` (``use_gradient_checkpointing=False``), which turns it on or off per record.
    """
    from peft import LoraConfig, get_peft_model

    base = build(arch, "eager" if arch in EAGER_ONLY else "sdpa")
    if quantized:
        from transformers import BitsAndBytesConfig

        quantization = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                          bnb_4bit_compute_dtype=torch.bfloat16)
        with tempfile.TemporaryDirectory() as saved:  # quantization happens while loading, so save first
            base.save_pretrained(saved)
            base = AutoModelForCausalLM.from_pretrained(saved, quantization_config=quantization, dtype=torch.bfloat16,
                                                        attn_implementation="eager" if arch in EAGER_ONLY else "sdpa",
                                                        device_map="cpu").train()
        if prepared:
            from peft import prepare_model_for_kbit_training

            base = prepare_model_for_kbit_training(base, use_gradient_checkpointing=False)
    config = LoraConfig(r=LORA_RANK, lora_alpha=2 * LORA_RANK, lora_dropout=dropout, target_modules=targets,
                        task_type="CAUSAL_LM")
    model = get_peft_model(base, config).train()
    if adapters == "bf16":
        for param in model.parameters():
            if param.requires_grad:
                param.data = param.data.to(torch.bfloat16)
    adapted = sorted({name.rsplit(".", 1)[-1] for name, module in model.named_modules() if hasattr(module, "lora_A")
                      and len(getattr(module, "lora_A", {})) > 0})
    return model, adapted


def storage_key(tensor: torch.Tensor) -> int:
    return tensor.untyped_storage().data_ptr()


def measure(model: torch.nn.Module, batch: int, seq_len: int, checkpointing: bool, *, detail: bool) -> dict[str, Any]:
    excluded = {storage_key(t) for t in [*model.parameters(), *model.buffers()]}
    kept: dict[int, tuple[int, str]] = {}  # storage -> (bytes, what kept it)

    def keep(tensor: torch.Tensor, why: str) -> None:
        key = storage_key(tensor)
        nbytes = tensor.untyped_storage().nbytes()
        if nbytes and key not in excluded and key not in kept:
            kept[key] = (nbytes, why)

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        grad_fn = tensor.grad_fn.name() if tensor.grad_fn is not None else "leaf"
        keep(tensor, f"saved {tuple(tensor.shape)} {str(tensor.dtype).removeprefix('torch.')} (from {grad_fn})")
        return tensor

    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        for module in model.modules():
            checkpoint = getattr(module, "_gradient_checkpointing_func", None)
            if checkpoint is None:
                continue

            def recording(function: Any, *args: Any, _checkpoint: Any = checkpoint) -> Any:
                arguments = [*args, *getattr(function, "keywords", {}).values()]
                for value in arguments:
                    if isinstance(value, torch.Tensor):
                        keep(value, f"checkpoint input {tuple(value.shape)} {str(value.dtype).removeprefix('torch.')}")
                    elif isinstance(value, tuple):  # rotary (cos, sin)
                        for item in value:
                            if isinstance(item, torch.Tensor):
                                kind = str(item.dtype).removeprefix("torch.")
                                keep(item, f"checkpoint input {tuple(item.shape)} {kind}")
                return _checkpoint(function, *args)

            module._gradient_checkpointing_func = recording
    else:
        model.gradient_checkpointing_disable()

    generator = torch.Generator().manual_seed(batch * 100003 + seq_len)
    input_ids = torch.randint(0, model.config.vocab_size, (batch, seq_len), generator=generator)
    torch.manual_seed(batch * 100003 + seq_len)  # the dropout masks of LoRA runs
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        output = model(input_ids=input_ids, labels=input_ids, use_cache=False)
    assert output.loss.requires_grad and torch.isfinite(output.loss)
    del output
    total = sum(nbytes for nbytes, _ in kept.values())
    record: dict[str, Any] = {"saved_bytes": total, "storages": len(kept)}
    if detail:
        summary: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for nbytes, why in kept.values():
            summary[why][0] += 1
            summary[why][1] += nbytes
        biggest_first = sorted(summary.items(), key=lambda kv: -kv[1][1])
        record["detail"] = {why: {"count": n, "bytes": b} for why, (n, b) in biggest_first}
    return record


def measure_peak(model: torch.nn.Module, batch: int, seq_len: int, checkpointing: bool) -> dict[str, Any]:
    """Run forward and backward under torch's ``MemTracker`` and return its activation figures.

    ``MemTracker`` follows every storage the step allocates and frees (on CPU
    too), sorted into parameters, gradients, activations (created in the
    forward pass) and temporaries (created in the backward pass).  The peak is
    the moment the total is largest.
    """
    from torch.distributed._tools.mem_tracker import MemTracker

    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    else:
        model.gradient_checkpointing_disable()
    model.zero_grad(set_to_none=True)
    generator = torch.Generator().manual_seed(batch * 100003 + seq_len)
    input_ids = torch.randint(0, model.config.vocab_size, (batch, seq_len), generator=generator)
    tracker = MemTracker()
    tracker.track_external(model)
    with tracker:
        output = model(input_ids=input_ids, labels=input_ids, use_cache=False)
        after_forward = tracker.get_tracker_snapshot()[torch.device("cpu")]
        output.loss.backward()
        peak = tracker.get_tracker_snapshot("peak")[torch.device("cpu")]
    del output
    model.zero_grad(set_to_none=True)
    by_name = {str(getattr(key, "value", key)): value for key, value in peak.items()}
    after = {str(getattr(key, "value", key)): value for key, value in after_forward.items()}
    return {
        "live_activations_after_forward": after["Activation"],
        "peak_activations_and_temporaries": by_name["Activation"] + by_name["Temp"],
        "gradients_at_peak": by_name["Gradient"],
    }


def document(records: list[dict[str, Any]], *, peak: bool, command: str, lora: bool = False) -> dict[str, Any]:
    """The recordings with their provenance, as written to ``recordings.json``, ``peaks.json`` or ``lora.json``."""
    if peak:
        counted = {
            "counted": "torch.distributed._tools.mem_tracker.MemTracker over one forward and backward: "
                       "live activation bytes at the end of the forward pass (saved tensors, the returned "
                       "logits and loss), and activations plus backward temporaries at the step's peak",
        }
    else:
        counted = {
            "loss": "transformers' causal-LM loss, labels = input_ids (logits upcast to fp32)",
            "counted": "unique storages of tensors saved for backward (saved_tensors_hooks) that are not "
                       "parameters or buffers, plus, with checkpointing (use_reentrant=False), the tensor "
                       "inputs each checkpointed layer keeps; at the end of the forward pass",
            "not counted": "the backward recompute of one checkpointed layer (transient), gradients, "
                           "temporaries freed during the forward pass",
        }
    if lora:
        import bitsandbytes
        import peft

        counted |= {
            "peft": peft.__version__,
            "bitsandbytes": bitsandbytes.__version__,
            "lora": f"peft.get_peft_model with LoraConfig(r={LORA_RANK}, lora_alpha={2 * LORA_RANK}, "
                    "target_modules=<targets>, lora_dropout=<lora_dropout>, task_type='CAUSAL_LM'), peft's other "
                    "defaults (adapters upcast to fp32: autocast_adapter_dtype=True); targets null = peft's default "
                    "for the model type; 'adapted' lists the module names peft adapted",
            "qlora": "quantized_base true: the same random bf16 model saved and reloaded with "
                     "BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4', "
                     "bnb_4bit_compute_dtype=bfloat16) on CPU (transformers leaves the LM head unquantized); "
                     "prepare_model_for_kbit_training not applied unless the record says prepared: true (peft's "
                     "prepare_model_for_kbit_training(model, use_gradient_checkpointing=False) on the 4-bit base "
                     "before get_peft_model: embedding, norms and LM head upcast to fp32)",
            "checkpointing": "a fresh model per (configuration, checkpointing); gradient_checkpointing_enable "
                             "also makes the embedding output require grad (enable_input_require_grads)",
        }
    return {
        "provenance": {
            "script": "tools/measure_activations.py",
            "command": command,
            "date": datetime.date.today().isoformat(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "device": "cpu",
            "dtype": "bf16: the whole model cast to torch.bfloat16 (no autocast)",
            "dropout": "train mode, every dropout probability 0",
            **counted,
            "attention": {"eager": "attn_implementation='eager' (softmax probabilities kept)",
                          "sdpa": "attn_implementation='sdpa' (torch's CPU flash kernel: keeps queries, keys, "
                                  "values, output and log-sum-exp, no score matrix)"},
        },
        "architectures": {
            arch: {"model_type": model_type, "config": kwargs, "description": what}
            for arch, (model_type, kwargs, what) in ARCHITECTURES.items()
            if any(record["arch"] == arch for record in records)
        },
        "records": records,
    }


_MEASURED = ("saved_bytes", "storages", "adapted", "live_activations_after_forward",
             "peak_activations_and_temporaries", "gradients_at_peak")
_RUN_KEYS = ("command", "date", "torch", "transformers", "peft", "bitsandbytes")


def merged(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """``current``'s records added to a recordings file, replacing only records of the same setting.

    The file's run keys (command, date, versions) stay; its descriptions take ``current``'s.  Each architecture
    lists under ``measured`` the command, date and versions of every run that recorded it, so a run for one
    family (or one more setting) adds to the file and rewrites nothing else.
    """
    def setting(record: dict[str, Any]) -> str:
        return json.dumps({key: value for key, value in record.items() if key not in _MEASURED}, sort_keys=True)

    run = {key: current["provenance"][key] for key in _RUN_KEYS if key in current["provenance"]}
    provenance = {**previous["provenance"],
                  **{key: value for key, value in current["provenance"].items() if key not in _RUN_KEYS}}
    architectures = dict(previous["architectures"])
    for arch, entry in current["architectures"].items():
        before = architectures.get(arch, entry)
        runs = [item for item in before.get("measured", []) if item != run]
        architectures[arch] = {**before, "measured": [*runs, run]}
    replaced = {setting(record) for record in current["records"]}
    records = [record for record in previous["records"] if setting(record) not in replaced]
    return {"provenance": provenance, "architectures": architectures, "records": records + current["records"]}


def measure_lora(arches: list[str], points: Any, records: list[dict[str, Any]], save: Any, *, detail: bool,
                 settings: Any = LORA_SETTINGS) -> None:
    """Record the LoRA ``settings`` for ``arches`` at ``points``, saving after each point."""
    for arch in arches:
        for default_or_named, dropout, quantized, prepared, *cast in settings:
            adapters = cast[0] if cast else "fp32"
            targets = default_or_named or MOE_QUERY_VALUE.get(arch) or QV_TARGETS.get(ARCHITECTURES[arch][0])
            for checkpointing in (False, True):
                model, adapted = build_lora(arch, targets, dropout, quantized, prepared, adapters)
                for batch, seq_len in points:
                    record = measure(model, batch, seq_len, checkpointing, detail=detail)
                    details = record.pop("detail", None)
                    attention = "eager" if arch in EAGER_ONLY else "sdpa"
                    records.append({"arch": arch, "attention": attention, "batch": batch, "seq_len": seq_len,
                                    "checkpointing": checkpointing, "targets": targets, "adapted": adapted,
                                    "rank": LORA_RANK, "lora_dropout": dropout, "quantized_base": quantized,
                                    **({"prepared": True} if prepared else {}),
                                    **({"adapter_dtype": adapters} if adapters != "fp32" else {}),
                                    **record})
                    shown = str(targets or "default")
                    print(f"{arch:6} {shown:10} p={dropout} q={quantized!s:5} prep={prepared!s:5} {adapters} b={batch} "
                          f"s={seq_len:5} ckpt={checkpointing!s:5} {record['saved_bytes']:>14,d} B "
                          f"in {record['storages']} storages", flush=True)
                    for why, item in (details or {}).items():
                        print(f"      {item['bytes']:>13,d} B  {item['count']:3d} x {why}")
                    save(records)
                del model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUTPUT.relative_to(OUTPUT.parents[3])}")
    parser.add_argument("--arch", choices=sorted(ARCHITECTURES), action="append", help="only these architectures")
    parser.add_argument("--detail", action="store_true", help="print what kept each storage")
    parser.add_argument("--peak", action="store_true",
                        help=f"run forward and backward under MemTracker instead; --write writes {PEAKS.name}")
    parser.add_argument("--moe", action="store_true",
                        help=f"the mixture-of-experts and latent-attention models; --write writes {MOE_OUTPUT.name} "
                             f"({MOE_LORA.name} with --lora)")
    parser.add_argument("--lora", action="store_true",
                        help=f"measure LoRA and QLoRA (SDPA) instead; --write writes {LORA.name}")
    parser.add_argument("--lora-setting", type=int, action="append", choices=range(len(LORA_SETTINGS)),
                        help="with --lora: only these indices of LORA_SETTINGS (MOE_LORA_SETTINGS with --moe)")
    parser.add_argument("--attention", choices=ATTENTIONS, action="append", help="only these attention implementations")
    parser.add_argument("--point", type=int, nargs=2, action="append", metavar=("BATCH", "SEQ_LEN"),
                        help="only these (batch, seq_len) points")
    args = parser.parse_args()
    torch.set_num_threads(2)
    if args.lora and args.peak:
        parser.error("--peak and --lora are separate runs")
    if args.moe:
        path = MOE_LORA if args.lora else MOE_PEAKS if args.peak else MOE_OUTPUT
    else:
        path = LORA if args.lora else PEAKS if args.peak else OUTPUT
    dense = [arch for arch in ARCHITECTURES if arch not in MOE_ARCHITECTURES]
    arches = args.arch or (list(MOE_ARCHITECTURES) if args.moe else dense)
    command = " ".join(["python tools/measure_activations.py", *sys.argv[1:]])

    previous = json.loads(path.read_text("utf-8")) if args.write and path.exists() else None

    def save(records: list[dict[str, Any]]) -> None:
        # After every point, so that a run cut short still leaves what it measured.
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            document_ = document(records, peak=args.peak, command=command, lora=args.lora)
            if previous is not None:
                document_ = merged(previous, document_)
            path.write_text(json.dumps(document_, indent=1) + "\n")

    records = []
    if args.lora:
        table = MOE_LORA_SETTINGS if args.moe else LORA_SETTINGS
        if any(index >= len(table) for index in args.lora_setting or ()):
            parser.error(f"--lora-setting: {'MOE_LORA_SETTINGS' if args.moe else 'LORA_SETTINGS'} has indices "
                         f"0 to {len(table) - 1}; got {args.lora_setting}")
        settings = [table[index] for index in args.lora_setting] if args.lora_setting else table
        measure_lora(arches, args.point or LORA_POINTS, records, save, detail=args.detail,
                     settings=settings)
        return
    for arch in arches:
        for attention in args.attention or ATTENTIONS:
            if arch in EAGER_ONLY and attention != "eager":
                continue
            model = build(arch, attention)
            for batch, seq_len in args.point or POINTS:
                for checkpointing in (False, True):
                    if args.peak:
                        peak = measure_peak(model, batch, seq_len, checkpointing)
                        records.append({"arch": arch, "attention": attention, "batch": batch, "seq_len": seq_len,
                                        "checkpointing": checkpointing, **peak})
                        print(f"{arch:6} {attention:5} b={batch} s={seq_len:5} ckpt={checkpointing!s:5} "
                              + " ".join(f"{key}={value:,d}" for key, value in peak.items()), flush=True)
                        save(records)
                        continue
                    record = measure(model, batch, seq_len, checkpointing, detail=args.detail)
                    detail = record.pop("detail", None)
                    records.append({"arch": arch, "attention": attention, "batch": batch, "seq_len": seq_len,
                                     "checkpointing": checkpointing, **record})
                    print(f"{arch:6} {attention:5} b={batch} s={seq_len:5} ckpt={checkpointing!s:5} "
                          f"{record['saved_bytes']:>14,d} B in {record['storages']} storages", flush=True)
                    for why, item in (detail or {}).items():
                        print(f"      {item['bytes']:>13,d} B  {item['count']:3d} x {why}")
                    save(records)
            del model


if __name__ == "__main__":
    main()
