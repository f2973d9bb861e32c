"""Preset counts pinned against the real libraries.

Expected values were produced by ``tools/verify_presets.py`` (transformers
building each model on the meta device, peft wrapping it for LoRA) and are
stored with their provenance in ``tests/data/llmcalc_preset_counts.json``.
The tables below repeat them so a failure shows the number at a glance; a
test checks that table and file agree.
"""

import json
import pathlib

import pytest

import llmcalc as lc

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "llmcalc_preset_counts.json").read_text("utf-8"))

# preset -> (total, active per token), from transformers 5.24.0 / torch 2.13.0.
LIBRARY_COUNTS = {
    "reference": (179_594_880, 179_594_880),
    "gpt2": (124_439_808, 124_439_808),
    "llama-2-7b": (6_738_415_616, 6_738_415_616),
    "llama-2-70b": (68_976_648_192, 68_976_648_192),
    "llama-3-8b": (8_030_261_248, 8_030_261_248),
    "mistral-7b": (7_241_732_096, 7_241_732_096),
    "qwen2.5-0.5b": (494_032_768, 494_032_768),
    "mixtral-8x7b": (46_702_792_704, 12_879_925_248),
    "phi-2": (2_779_683_840, 2_779_683_840),
}

# (preset, rank, targets, trainable parameters reported by peft 0.21.2)
PEFT_COUNTS = [
    ("llama-2-7b", 8, ("q", "v"), 4_194_304),
    ("llama-2-7b", 16, ("q", "k", "v", "o"), 16_777_216),
    ("llama-2-7b", 64, "all-linear", 159_907_840),
    ("llama-3-8b", 16, "all-linear", 41_943_040),
    ("llama-3-8b", 8, ("q", "v"), 3_407_872),
    ("mistral-7b", 32, ("q", "k", "v", "o", "gate", "up", "down"), 83_886_080),
    ("qwen2.5-0.5b", 8, ("q", "v"), 540_672),
    ("qwen2.5-0.5b", 4, "all-linear", 2_199_552),
    ("phi-2", 16, ("q", "k", "v", "o"), 10_485_760),
    ("phi-2", 8, "all-linear", 11_796_480),
    ("reference", 8, ("q", "v"), 327_680),
    ("reference", 16, "all-linear", 4_874_240),
]


def test_every_preset_is_pinned():
    assert set(LIBRARY_COUNTS) == set(lc.PRESETS)


@pytest.mark.parametrize("name, counts", LIBRARY_COUNTS.items())
def test_param_count_matches_library(name, counts):
    total, active = counts
    cfg = lc.get_preset(name)
    assert lc.param_count(cfg) == total
    assert type(lc.param_count(cfg)) is int
    assert lc.active_param_count(cfg) == active


@pytest.mark.parametrize("name", LIBRARY_COUNTS)
def test_breakdown_matches_library_by_component(name):
    assert lc.param_breakdown(lc.get_preset(name)) == DATA["presets"][name]["breakdown"]


@pytest.mark.parametrize("name", LIBRARY_COUNTS)
def test_table_agrees_with_recorded_library_output(name):
    recorded = DATA["presets"][name]
    assert (recorded["param_count"], recorded["active_param_count"]) == LIBRARY_COUNTS[name]


def test_peft_table_agrees_with_recorded_library_output():
    recorded = [(c["preset"], c["rank"], c["targets"] if isinstance(c["targets"], str) else tuple(c["targets"]),
                 c["trainable"]) for c in DATA["lora"]]
    assert recorded == PEFT_COUNTS


@pytest.mark.parametrize("name, rank, targets, trainable", PEFT_COUNTS)
def test_lora_model_params_matches_peft(name, rank, targets, trainable):
    assert lc.lora_model_params(lc.get_preset(name), rank, targets) == trainable


# Published architecture facts each preset must carry.
@pytest.mark.parametrize("name, field, value", [
    ("llama-2-70b", "n_kv_heads", 8),
    ("llama-3-8b", "vocab_size", 128256),
    ("llama-3-8b", "n_kv_heads", 8),
    ("llama-3-8b", "d_ff", 14336),
    ("mistral-7b", "d_ff", 14336),
    ("mistral-7b", "vocab_size", 32000),
    ("mistral-7b", "n_kv_heads", 8),
    ("qwen2.5-0.5b", "qkv_bias", True),
    ("qwen2.5-0.5b", "tie_embeddings", True),
    ("qwen2.5-0.5b", "n_kv_heads", 2),
    ("qwen2.5-0.5b", "head_dim", 64),
    ("phi-2", "norms_per_layer", 1),
    ("phi-2", "norm", "layernorm"),
    ("phi-2", "ffn", "mlp"),
    ("phi-2", "lm_head_bias", True),
    ("phi-2", "tie_embeddings", False),
    ("gpt2", "learned_positions", 1024),
    ("gpt2", "tie_embeddings", True),
    ("mixtral-8x7b", "n_experts", 8),
    ("mixtral-8x7b", "experts_per_token", 2),
    ("reference", "vocab_size", 32768),
    ("reference", "d_model", 640),
    ("reference", "n_layers", 20),
    ("reference", "n_heads", 10),
    ("reference", "head_dim", 64),
    ("reference", "n_kv_heads", 2),
    ("reference", "ffn", "swiglu"),
])
def test_preset_architecture_facts(name, field, value):
    assert getattr(lc.get_preset(name), field) == value


def test_reference_is_about_180m_and_exported():
    assert lc.REFERENCE is lc.PRESETS["reference"]
    assert abs(lc.param_count(lc.REFERENCE) - 180e6) / 180e6 < 0.01


def test_mixtral_headline_figures():
    cfg = lc.get_preset("mixtral-8x7b")
    assert round(lc.param_count(cfg) / 1e9, 1) == 46.7
    assert round(lc.active_param_count(cfg) / 1e9, 1) == 12.9


def test_unknown_preset_lists_valid_names():
    with pytest.raises(ValueError, match=r"name must be one of 'reference', 'gpt2'.*got 'gpt-5'"):
        lc.get_preset("gpt-5")


def test_presets_are_read_only():
    with pytest.raises(TypeError):
        lc.PRESETS["mine"] = lc.REFERENCE
