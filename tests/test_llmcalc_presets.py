"""Preset counts pinned against the real libraries.

Expected values were produced by ``tools/verify_presets.py`` (transformers building each model on the meta
device, peft wrapping it for LoRA) and are stored with their provenance in ``tests/data/llmcalc_preset_counts.json``.
"""

import dataclasses
import json
import pathlib

import pytest

import llmcalc as lc
from llmcalc.errors import Refusal

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


# Presets read from a Hub config.json committed in tests/data/hub_configs (SOURCES.tsv names where each file was taken).
HUB = pathlib.Path(__file__).parent / "data" / "hub_configs"
HUB_PRESETS = {
    "llama-3.2-1b": "llama-3.2-1b-instruct.json", "llama-3.2-3b": "llama-3.2-3b.json", "qwen3-4b": "qwen3-4b.json",
    "qwen3-8b": "qwen3-8b.json", "qwen3-14b": "qwen3-14b.json", "qwen3-32b": "qwen3-32b.json",
    "qwen3-30b-a3b": "qwen3-30b-a3b.json", "gemma-3-1b": "gemma-3-1b-it.json",
    "phi-3.5-mini": "phi-3.5-mini-instruct.json", "phi-4-mini": "phi-4-mini-instruct.json", "phi-4": "phi-4.json",
    "mistral-small-24b": "mistral-small-24b-instruct-2501.json",
}


@pytest.mark.parametrize("name", HUB_PRESETS)
def test_a_hub_preset_is_its_published_config(name):
    """The preset is what llmcalc reads from the committed file, its context the file's ``max_position_embeddings``,
    except a window at least as long as that context, which never applies and is dropped (Phi-3.5-mini, Phi-4-mini).
    The file's own count is transformers' (``_transformers_counts.json``).
    """
    data = json.loads((HUB / HUB_PRESETS[name]).read_text("utf-8"))
    read = lc.ModelConfig.from_hf_config(data)
    assert read.trained_context == data["max_position_embeddings"]
    window = {} if read.sliding_window < read.trained_context else {"sliding_window": 0, "sliding_window_layers": 0}
    assert lc.get_preset(name) == dataclasses.replace(read, **window)
    counted = json.loads((HUB / "_transformers_counts.json").read_text("utf-8"))["models"][HUB_PRESETS[name]]
    assert lc.param_count(lc.get_preset(name)) == counted == PRESETS[name]["param_count"]


@pytest.mark.parametrize("name, total", [("gpt-oss-20b", 20_914_757_184), ("gpt-oss-120b", 116_829_156_672)])
def test_gpt_oss_is_its_published_config_as_transformers_builds_it(name, total):
    """transformers 5.25 builds gpt-oss with self_attn.sinks (64 per layer), biases on q, k, v and o, mlp.router.bias
    and experts.gate_up_proj_bias / down_proj_bias; the model card gives 20.9B and 116.8B parameters.  The published
    file declares MXFP4 experts, so it is refused as a ModelConfig and read whole by llmcalc.checkpoints; without
    that key it is the preset."""
    data = json.loads((HUB / f"{name}.json").read_text("utf-8"))
    with pytest.raises(Refusal) as refused:
        lc.ModelConfig.from_hf_config(data)
    assert refused.value.code == "quantized_checkpoint"
    read = lc.ModelConfig.from_hf_config({key: value for key, value in data.items() if key != "quantization_config"})
    preset = lc.get_preset(name)
    assert preset == read and (preset.sliding_window, preset.sliding_window_layers) == (128, preset.n_layers // 2)
    counted = json.loads((HUB / "_transformers_counts.json").read_text("utf-8"))["models"][f"{name}.json"]
    assert lc.param_count(preset) == counted == PRESETS[name]["param_count"] == total
    without_sinks = dataclasses.replace(preset, attention_sinks=False, router_bias=False)
    assert total - lc.param_count(without_sinks) == preset.n_layers * (64 + preset.n_experts)
    # The card's active parameters (3.6B and 5.1B) are the active count without the input embedding, a lookup.
    active = lc.active_param_count(preset) - lc.param_breakdown(preset)["embedding"]
    assert round(active / 1e9, 1) == {"gpt-oss-20b": 3.6, "gpt-oss-120b": 5.1}[name]
def test_llama_3_1_8b_is_its_committed_config():
    """The preset is what llmcalc reads from Meta's published config.json, trained context from its RoPE scaling
    included; its count is the one transformers built from that file (tests/data/hub_configs)."""
    hub = pathlib.Path(__file__).parent / "data" / "hub_configs"
    preset = lc.get_preset("llama-3.1-8b")
    assert lc.ModelConfig.from_hf_config(hub / "llama-3.1-8b.json") == preset
    assert preset.trained_context == 131072
    counted = json.loads((hub / "_transformers_counts.json").read_text("utf-8"))["models"]["llama-3.1-8b.json"]
    assert lc.param_count(preset) == counted == 8_030_261_248
