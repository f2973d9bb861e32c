"""Preset counts pinned against the real libraries.

Expected values were produced by ``tools/verify_presets.py`` (transformers building each model on the meta
device, peft wrapping it for LoRA) and are stored with their provenance in ``tests/data/llmcalc_preset_counts.json``.
"""

import json
import pathlib

import pytest

import llmcalc as lc

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "llmcalc_preset_counts.json").read_text("utf-8"))
PRESETS = DATA["presets"]


def test_every_preset_is_pinned():
    assert set(PRESETS) == set(lc.PRESETS)


@pytest.mark.parametrize("name", PRESETS)
def test_counts_match_library(name):
    cfg, recorded = lc.get_preset(name), PRESETS[name]
    assert lc.param_count(cfg) == recorded["param_count"]
    assert lc.active_param_count(cfg) == recorded["active_param_count"]
    assert lc.param_breakdown(cfg) == recorded["breakdown"]


@pytest.mark.parametrize("name", PRESETS)
def test_preset_counts_what_its_published_config_describes(name):
    """Reading the model's config.json values gives the same counts as the hand-written preset."""
    recorded = PRESETS[name]
    loaded = lc.ModelConfig.from_hf_config({"model_type": recorded["hf_model_type"], **recorded["hf_config"]})
    assert lc.param_breakdown(loaded) == lc.param_breakdown(lc.get_preset(name))


@pytest.mark.parametrize("case", DATA["lora"], ids=lambda c: f"{c['preset']}-r{c['rank']}")
def test_lora_model_params_matches_peft(case):
    targets = case["targets"] if isinstance(case["targets"], str) else tuple(case["targets"])
    assert lc.lora_model_params(lc.get_preset(case["preset"]), case["rank"], targets) == case["trainable"]


def test_unknown_preset_suggests_the_closest_name():
    with pytest.raises(ValueError, match=r"name must be one of 'reference', .*got 'gpt-2' \(did you mean 'gpt2'\?\)"):
        lc.get_preset("gpt-2")


def test_llama_3_1_8b_is_its_committed_config():
    """The preset is what llmcalc reads from Meta's published config.json, trained context from its RoPE scaling
    included; its count is the one transformers built from that file (tests/data/hub_configs)."""
    hub = pathlib.Path(__file__).parent / "data" / "hub_configs"
    preset = lc.get_preset("llama-3.1-8b")
    assert lc.ModelConfig.from_hf_config(hub / "llama-3.1-8b.json") == preset
    assert preset.trained_context == 131072
    counted = json.loads((hub / "_transformers_counts.json").read_text("utf-8"))["models"]["llama-3.1-8b.json"]
    assert lc.param_count(preset) == counted == 8_030_261_248
