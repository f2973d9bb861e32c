"""One-off maintainer script: count every llmcalc preset with the real libraries.

This script is NOT run by the tests and torch/transformers/peft are NOT
dependencies of llmcalc.  It exists so anyone can re-derive the reference
numbers stored in ``tests/data/llmcalc_preset_counts.json``, which the tests
compare llmcalc against.

How to re-run (in a throwaway virtual environment, never the project's)::

    python3 -m venv /tmp/verify-venv
    /tmp/verify-venv/bin/pip install torch transformers peft
    /tmp/verify-venv/bin/python tools/verify_presets.py --write

Every model is built on PyTorch's ``meta`` device from a configuration written
out here from the published hyperparameters, so nothing is downloaded from a
model hub and no memory is allocated for the weights.  The script counts:

* total parameters (``sum(p.numel())`` over ``model.parameters()``, which
  counts a tied embedding/LM-head matrix once);
* a per-component breakdown, by classifying parameter names;
* active parameters per token for mixture-of-experts models (experts scaled by
  ``experts_per_token / n_experts``);
* trainable parameters after wrapping with ``peft.LoraConfig`` for a few
  rank/target combinations.

Without ``--write`` it only prints the numbers (and, if llmcalc is importable,
whether llmcalc agrees).
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import platform
import re

import peft
import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "llmcalc_preset_counts.json"

# Published hyperparameters, written out so that no hub download is needed.
# (model_type, keyword arguments for AutoConfig.for_model, source)
HF_CONFIGS: dict[str, tuple[str, dict, str]] = {
    "reference": (
        "llama",
        dict(vocab_size=32768, hidden_size=640, intermediate_size=3072, num_hidden_layers=20,
             num_attention_heads=10, num_key_value_heads=2, head_dim=64, tie_word_embeddings=False),
        "the glossary's own reference model (Llama-style, SwiGLU, GQA 10/2)",
    ),
    "gpt2": (
        "gpt2",
        dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12),
        "openai-community/gpt2 config.json",
    ),
    "llama-2-7b": (
        "llama",
        dict(vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
             num_attention_heads=32, num_key_value_heads=32, tie_word_embeddings=False),
        "meta-llama/Llama-2-7b-hf config.json",
    ),
    "llama-2-70b": (
        "llama",
        dict(vocab_size=32000, hidden_size=8192, intermediate_size=28672, num_hidden_layers=80,
             num_attention_heads=64, num_key_value_heads=8, tie_word_embeddings=False),
        "meta-llama/Llama-2-70b-hf config.json",
    ),
    "llama-3-8b": (
        "llama",
        dict(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
             num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=False),
        "meta-llama/Meta-Llama-3-8B config.json",
    ),
    "llama-3.1-8b": (
        "llama",
        dict(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
             num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=False, max_position_embeddings=131072,
             rope_scaling={"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                           "original_max_position_embeddings": 8192, "rope_type": "llama3"}),
        "meta-llama/Llama-3.1-8B config.json (tests/data/hub_configs/llama-3.1-8b.json)",
    ),
    "mistral-7b": (
        "mistral",
        dict(vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
             num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=False),
        "mistralai/Mistral-7B-v0.1 config.json",
    ),
    "qwen2.5-0.5b": (
        "qwen2",
        dict(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
             num_attention_heads=14, num_key_value_heads=2, tie_word_embeddings=True),
        "Qwen/Qwen2.5-0.5B config.json",
    ),
    "mixtral-8x7b": (
        "mixtral",
        dict(vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
             num_attention_heads=32, num_key_value_heads=8, num_local_experts=8,
             num_experts_per_tok=2, tie_word_embeddings=False),
        "mistralai/Mixtral-8x7B-v0.1 config.json",
    ),
    "phi-2": (
        "phi",
        dict(vocab_size=51200, hidden_size=2560, intermediate_size=10240, num_hidden_layers=32,
             num_attention_heads=32, num_key_value_heads=32, partial_rotary_factor=0.4,
             tie_word_embeddings=False),
        "microsoft/phi-2 config.json",
    ),
    "llama-2-13b": (
        "llama",
        dict(vocab_size=32000, hidden_size=5120, intermediate_size=13824, num_hidden_layers=40,
             num_attention_heads=40, num_key_value_heads=40, tie_word_embeddings=False),
        "meta-llama/Llama-2-13b-hf config.json (values as quoted verbatim in public repositories)",
    ),
    "llama-3.1-70b": (
        "llama",
        dict(vocab_size=128256, hidden_size=8192, intermediate_size=28672, num_hidden_layers=80,
             num_attention_heads=64, num_key_value_heads=8, tie_word_embeddings=False),
        "meta-llama/Llama-3.1-70B config.json (as tabled in oumi configs/recipes/llama3_1/README.md)",
    ),
    "qwen2.5-7b": (
        "qwen2",
        dict(vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
             num_attention_heads=28, num_key_value_heads=4, tie_word_embeddings=False),
        "Qwen/Qwen2.5-7B config.json (copy: citsjtu2020/LLM-Prof sglang/Model_Config.md @8434c8d)",
    ),
    "qwen2.5-14b": (
        "qwen2",
        dict(vocab_size=152064, hidden_size=5120, intermediate_size=13824, num_hidden_layers=48,
             num_attention_heads=40, num_key_value_heads=8, tie_word_embeddings=False),
        "Qwen/Qwen2.5-14B config.json (copy: citsjtu2020/LLM-Prof sglang/Model_Config.md @8434c8d)",
    ),
    "qwen2.5-32b": (
        "qwen2",
        dict(vocab_size=152064, hidden_size=5120, intermediate_size=27648, num_hidden_layers=64,
             num_attention_heads=40, num_key_value_heads=8, tie_word_embeddings=False),
        "Qwen/Qwen2.5-32B config.json (copy: citsjtu2020/LLM-Prof sglang/Model_Config.md @8434c8d)",
    ),
    "qwen2.5-72b": (
        "qwen2",
        dict(vocab_size=152064, hidden_size=8192, intermediate_size=29568, num_hidden_layers=80,
             num_attention_heads=64, num_key_value_heads=8, tie_word_embeddings=False),
        "Qwen/Qwen2.5-72B config.json (values as quoted in public repositories)",
    ),
    "gemma-2-9b": (
        "gemma2",
        dict(vocab_size=256000, hidden_size=3584, intermediate_size=14336, num_hidden_layers=42,
             num_attention_heads=16, num_key_value_heads=8, head_dim=256, tie_word_embeddings=True),
        "google/gemma-2-9b config.json (as in maxtext hf_model_configs.py @028cf2f; vocabulary 256000)",
    ),
    "gemma-2-27b": (
        "gemma2",
        dict(vocab_size=256000, hidden_size=4608, intermediate_size=36864, num_hidden_layers=46,
             num_attention_heads=32, num_key_value_heads=16, head_dim=128, tie_word_embeddings=True),
        "google/gemma-2-27b config.json (as in maxtext hf_model_configs.py @028cf2f; vocabulary 256000)",
    ),
}

HUB_CONFIGS = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "hub_configs"
# Presets read from a committed Hub config.json (tests/data/hub_configs/SOURCES.tsv names where each was taken).
HUB_PRESETS = {
    "llama-3.2-1b": "llama-3.2-1b-instruct.json",
    "llama-3.2-3b": "llama-3.2-3b.json",
    "qwen3-4b": "qwen3-4b.json",
    "qwen3-8b": "qwen3-8b.json",
    "qwen3-14b": "qwen3-14b.json",
    "qwen3-32b": "qwen3-32b.json",
    "qwen3-30b-a3b": "qwen3-30b-a3b.json",
    "gemma-3-1b": "gemma-3-1b-it.json",
    "phi-3.5-mini": "phi-3.5-mini-instruct.json",
    "phi-4-mini": "phi-4-mini-instruct.json",
    "phi-4": "phi-4.json",
    "mistral-small-24b": "mistral-small-24b-instruct-2501.json",
    "gpt-oss-20b": "gpt-oss-20b.json",
    "gpt-oss-120b": "gpt-oss-120b.json",
}
for _name, _file in HUB_PRESETS.items():
    _data = json.loads((HUB_CONFIGS / _file).read_text(encoding="utf-8"))
    # gpt-oss's MXFP4 quantization_config: from_config never applies it; the preset is the BF16 model it stores.
    _data.pop("quantization_config", None)
    HF_CONFIGS[_name] = (_data.pop("model_type"), _data, f"tests/data/hub_configs/{_file}")

# llmcalc target name -> module names used by each architecture.
LORA_MODULE_NAMES = {
    "llama": dict(q="q_proj", k="k_proj", v="v_proj", o="o_proj", gate="gate_proj", up="up_proj", down="down_proj"),
    "mistral": dict(q="q_proj", k="k_proj", v="v_proj", o="o_proj", gate="gate_proj", up="up_proj", down="down_proj"),
    "qwen2": dict(q="q_proj", k="k_proj", v="v_proj", o="o_proj", gate="gate_proj", up="up_proj", down="down_proj"),
    "phi": dict(q="q_proj", k="k_proj", v="v_proj", o="dense", up="fc1", down="fc2"),
}

# (preset, rank, llmcalc targets); "all-linear" is passed to peft as is.
LORA_CASES = [
    ("llama-2-7b", 8, ("q", "v")),
    ("llama-2-7b", 16, ("q", "k", "v", "o")),
    ("llama-2-7b", 64, "all-linear"),
    ("llama-3-8b", 16, "all-linear"),
    ("llama-3-8b", 8, ("q", "v")),
    ("llama-3.1-8b", 16, ("q", "v")),
    ("mistral-7b", 32, ("q", "k", "v", "o", "gate", "up", "down")),
    ("qwen2.5-0.5b", 8, ("q", "v")),
    ("qwen2.5-0.5b", 4, "all-linear"),
    ("phi-2", 16, ("q", "k", "v", "o")),
    ("phi-2", 8, "all-linear"),
    ("reference", 8, ("q", "v")),
    ("reference", 16, "all-linear"),
    ("llama-2-13b", 16, ("q", "v")),
    ("qwen2.5-7b", 16, "all-linear"),
]

# Parameter-name patterns -> llmcalc breakdown key.  Order matters: first match wins.
COMPONENT_PATTERNS = [
    ("positions", r"(^|\.)wpe\."),
    ("embedding", r"(^|\.)(wte|embed_tokens)\."),
    ("lm_head", r"^lm_head\."),
    ("router", r"\.mlp\.gate\.weight$|block_sparse_moe\.gate\.|\.mlp\.router\."),
    ("norms", r"(ln_\d|ln_f|layernorm|layer_norm|norm)\.(weight|bias)$"),
    ("attention", r"\.(attn|self_attn)\."),
    ("ffn", r"\.mlp\."),
]


def build(name: str) -> torch.nn.Module:
    model_type, kwargs, _ = HF_CONFIGS[name]
    config = AutoConfig.for_model(model_type, **kwargs)
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(config)


def breakdown(model: torch.nn.Module) -> dict[str, int]:
    parts = {key: 0 for key, _ in COMPONENT_PATTERNS}
    for param_name, param in model.named_parameters():
        for key, pattern in COMPONENT_PATTERNS:
            if re.search(pattern, param_name):
                parts[key] += param.numel()
                break
        else:
            raise RuntimeError(f"unclassified parameter {param_name}")
    return parts


def active_count(model: torch.nn.Module, name: str) -> int:
    kwargs = HF_CONFIGS[name][1]
    total = sum(p.numel() for p in model.parameters())
    n_experts = kwargs.get("num_local_experts", kwargs.get("num_experts", 1))
    if n_experts == 1:
        return total
    expert_params = sum(p.numel() for n, p in model.named_parameters() if ".experts." in n)
    per_token = kwargs["num_experts_per_tok"]
    return total - expert_params + expert_params * per_token // n_experts


def lora_trainable(name: str, rank: int, targets) -> int:
    model = build(name)
    model_type = HF_CONFIGS[name][0]
    if targets == "all-linear":
        target_modules = "all-linear"
    else:
        target_modules = [LORA_MODULE_NAMES[model_type][t] for t in targets]
    config = peft.LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=target_modules, lora_dropout=0.0)
    wrapped = peft.get_peft_model(model, config)
    return sum(p.numel() for p in wrapped.parameters() if p.requires_grad)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUTPUT.name}")
    args = parser.parse_args()

    presets = {}
    for name, (model_type, kwargs, source) in HF_CONFIGS.items():
        model = build(name)
        total = sum(p.numel() for p in model.parameters())
        presets[name] = {
            "param_count": total,
            "active_param_count": active_count(model, name),
            "breakdown": breakdown(model),
            "hf_model_type": model_type,
            "hf_config": kwargs,
            "hyperparameter_source": source,
            "hf_class": type(model).__name__,
        }
        print(f"{name:14s} total={total:>16,d} active={presets[name]['active_param_count']:>16,d}")
        del model

    lora = []
    for name, rank, targets in LORA_CASES:
        trainable = lora_trainable(name, rank, targets)
        lora.append({"preset": name, "rank": rank,
                     "targets": targets if isinstance(targets, str) else list(targets),
                     "trainable": trainable})
        print(f"LoRA {name:14s} r={rank:<3d} {targets!s:40s} trainable={trainable:>12,d}")

    result = {
        "provenance": {
            "script": "tools/verify_presets.py",
            "date": datetime.date.today().isoformat(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "peft": peft.__version__,
            "method": "AutoModelForCausalLM.from_config on the meta device; "
                      "sum(p.numel() for p in model.parameters()); peft trainable parameters",
        },
        "presets": presets,
        "lora": lora,
    }

    try:
        import llmcalc
    except ImportError:
        print("llmcalc not importable here; skipping the comparison")
    else:
        for name, counts in presets.items():
            ours = llmcalc.param_count(llmcalc.get_preset(name))
            status = "OK " if ours == counts["param_count"] else "MISMATCH"
            print(f"{status} {name}: llmcalc {ours:,d} vs library {counts['param_count']:,d}")
        for case in lora:
            targets = case["targets"] if isinstance(case["targets"], str) else tuple(case["targets"])
            ours = llmcalc.lora_model_params(llmcalc.get_preset(case["preset"]), case["rank"], targets)
            status = "OK " if ours == case["trainable"] else "MISMATCH"
            print(f"{status} LoRA {case['preset']} r={case['rank']} {targets}: "
                  f"llmcalc {ours:,d} vs peft {case['trainable']:,d}")

    if args.write:
        OUTPUT.parent.mkdir(parents=True, exist_ok=True)
        OUTPUT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
