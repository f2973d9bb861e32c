"""llmcalc against transformers 5.25 and peft 0.22.0 on 22 real model configurations, in both config forms.

The oracle is ``tests/data/hf_models/``, written by ``tools/verify_hf_models.py`` from the libraries themselves
(models built on the meta device, peft adapters counted, KV caches measured after real forward passes).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import llmcalc as lc
from llmcalc import hf
from llmcalc.errors import Refusal
from llmcalc.hf import CLASS_DEFAULTS, SUPPORTED_MODEL_TYPES

DATA = Path(__file__).parent / "data" / "hf_models"
RECORDED = json.loads((DATA / "_reference.json").read_text())["models"]
FORMS = ("full", "short")
CASES = [(name, form) for name in RECORDED for form in FORMS]


def load(name: str, form: str) -> lc.ModelConfig:
    return lc.ModelConfig.from_hf_config(DATA / RECORDED[name]["config_files"][form])


def test_every_supported_model_type_has_a_recorded_model():
    files = [DATA / r["config_files"]["full"] for r in RECORDED.values()]
    recorded_types = {json.loads(path.read_text())["model_type"] for path in files}
    assert recorded_types == set(SUPPORTED_MODEL_TYPES)


@pytest.mark.parametrize("name, form", CASES)
def test_parameters_match_transformers(name, form):
    cfg, recorded = load(name, form), RECORDED[name]
    assert lc.param_count(cfg) == recorded["total"]
    active = recorded["active"]["active"] if recorded["active"] else recorded["total"]
    assert lc.active_param_count(cfg) == active


@pytest.mark.parametrize("name, form", CASES)
def test_lora_matches_peft(name, form):
    cfg, recorded = load(name, form), RECORDED[name]
    qv = recorded["lora_qv_r8"]
    assert lc.lora_model_params(cfg, 8, qv["targets_requested"]) == qv["trainable"]
    assert lc.lora_model_params(cfg, 16, "all-linear") == recorded["lora_all_linear_r16"]["trainable"]


@pytest.mark.parametrize("name", RECORDED)
def test_kv_cache_matches_a_real_forward_pass(name):
    """The reduced copy's cache, measured after forward passes of T tokens (below, at and past any window)."""
    kv = RECORDED[name]["kv_cache"]
    published = json.loads((DATA / RECORDED[name]["config_files"]["short"]).read_text())
    overrides = {k: v for k, v in kv["reduced_overrides"].items() if not k.endswith("token_id") and k != "dtype"}
    if "num_experts" in overrides:  # the same keyword transformers maps onto num_local_experts
        published.pop("num_local_experts", None)
    if "layer_types" not in overrides:  # the reduced copy was built from the published values, without them
        published.pop("layer_types", None)
    reduced = lc.ModelConfig.from_hf_config({**published, **overrides})
    for tokens, run in kv["runs"].items():
        assert lc.kv_cache_bytes(reduced, int(tokens), dtype="fp32") == sum(run["kv_bytes_per_layer"]), tokens
    assert lc.kv_cache_bytes(load(name, "full"), 4096) == kv["full_depth_bf16_bytes_at_T4096"]


def test_class_defaults_are_the_recorded_init_defaults_shipped_with_the_package():
    """An absent key means the class's __init__ default, as tools/verify_hf_models.py recorded it (package data)."""
    recorded = json.loads((Path(lc.__file__).parent / "data" / "hf_class_defaults.json").read_text("utf-8"))
    assert recorded["transformers"] == "5.25.0"
    assert set(recorded["model_types"]) == set(SUPPORTED_MODEL_TYPES) == set(CLASS_DEFAULTS)
    for model_type, defaults in CLASS_DEFAULTS.items():
        assert defaults == recorded["model_types"][model_type]["init_defaults"], model_type
    # Spot checks against transformers 5.25's signatures (LlamaConfig.__init__, MistralConfig.__init__, ...).
    assert CLASS_DEFAULTS["llama"]["vocab_size"] == 32000 and CLASS_DEFAULTS["llama"]["head_dim"] is None
    assert CLASS_DEFAULTS["mistral"]["max_position_embeddings"] == 4096 * 32
    assert CLASS_DEFAULTS["qwen2"]["sliding_window"] == 4096  # the argument, before use_sliding_window clears it


def keys_llmcalc_reads() -> dict[str, set[str]]:
    """Per model_type, the keys llmcalc's reader looks up in the recorded configs (both forms)."""
    used: dict[str, set[str]] = {}
    original = hf._Reader

    class Recorder(original):  # type: ignore[misc,valid-type]
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            readers.append(self)

    readers: list[hf._Reader] = []
    hf._Reader = Recorder
    try:
        for name, form in CASES:
            load(name, form)
    finally:
        hf._Reader = original
    for reader in readers:
        used.setdefault(reader.model_type, set()).update(reader.used)
    return used


@pytest.mark.parametrize("data, message", [
    ({"model_type": "bert"}, "model_type 'bert' is not supported; supported: llama, mistral"),
    ({"hidden_size": 64}, "model_type missing is not supported"),
    ({"model_type": "gemma3", "text_config": {}}, "a multimodal config: pass its text_config"),
    ({"model_type": "llama", "quantization_config": {}}, "quantization_config describes a quantized checkpoint"),
    ({"model_type": "qwen2_moe", "mlp_only_layers": [0, 5]}, "mlp_only_layers=[0, 5] makes some layers dense"),
    ({"model_type": "qwen2_moe", "decoder_sparse_step": 2}, "decoder_sparse_step=2 makes only every n-th layer"),
    ({"model_type": "falcon", "new_decoder_architecture": True}, "new_decoder_architecture=True (Falcon-40B/180B)"),
    ({"model_type": "gpt2", "add_cross_attention": True}, "add_cross_attention=True adds cross-attention layers"),
    ({"model_type": "falcon", "head_dim": 128}, "unknown key 'head_dim' (value 128) may change"),
    ({"model_type": "llama", "hidden_size": "4096"}, "hidden_size must be an integer >= 1; got '4096'"),
    ({"model_type": "llama", "num_attention_heads": 0}, "num_attention_heads must be an integer >= 1; got 0"),
    ({"model_type": "llama", "hidden_size": float("nan")}, "hidden_size must be an integer >= 1; got nan"),
    ({"model_type": "llama", "tie_word_embeddings": "no"}, "tie_word_embeddings must be true or false; got 'no'"),
    ({"model_type": "llama", "num_key_value_heads": 5}, "llama config: n_kv_heads must divide n_heads=32"),
    ({"model_type": "gemma2", "layer_types": ["full_attention"]}, "one type per layer (26); got 1 entries"),
    ({"model_type": "qwen3_moe", "num_experts": 8, "num_local_experts": 16}, "num_experts=8 contradicts num_local"),
    ({"model_type": "deepseek_v2"}, "num_experts_per_tok must be an integer >= 1; got missing"),
])
def test_unmodelled_or_malformed_configs_are_refused(data, message):
    with pytest.raises(ValueError) as error:
        lc.ModelConfig.from_hf_config(data)
    assert message in str(error.value)


def test_file_errors_name_the_file(tmp_path):
    broken = tmp_path / "config.json"
    broken.write_text('{"model_type": "llama",\n "hidden_size": }')
    with pytest.raises(ValueError, match=r"config.json' is not valid JSON: Expecting value at line 2, column 17"):
        lc.ModelConfig.from_hf_config(broken)
    broken.write_text("[1, 2]")
    with pytest.raises(ValueError, match="must hold a JSON object"):
        lc.ModelConfig.from_hf_config(broken)
    with pytest.raises(ValueError, match=r"cannot read .*missing\.json"):
        lc.ModelConfig.from_hf_config(tmp_path / "missing.json")
    with pytest.raises(TypeError, match=r"source must be a dict or a path to a config\.json; got int"):
        lc.ModelConfig.from_hf_config(7)  # type: ignore[arg-type]


def test_sliding_window_layers_follow_layer_types():
    """Gemma 3's 5:1 local/global pattern and Mistral's window on every layer, as transformers' cache sees them."""
    gemma3 = load("gemma-3-1b-pt", "short")
    assert (gemma3.n_layers, gemma3.sliding_window_layers) == (26, 22)
    mistral = load("mistral-7b-v0.1", "short")
    assert (mistral.sliding_window, mistral.sliding_window_layers) == (4096, 32)
    per_token = lc.kv_cache_bytes_per_token(mistral)
    assert lc.kv_cache_bytes(mistral, 100_000) == per_token * 4095  # capped at W - 1 tokens on every layer


def test_the_keys_refused_are_those_transformers_reads_as_recorded() -> None:
    """llmcalc's table is the recording of tools/derive_config_keys.py (transformers' own source), filtered."""
    recording = json.loads((DATA / "_read_keys.json").read_text(encoding="utf-8"))
    assert recording["transformers"] == "5.25.0"
    assert set(recording["models"]) == set(hf.SUPPORTED_MODEL_TYPES)
    read = keys_llmcalc_reads()
    derived = {
        model_type: frozenset(key for key in model["read"] if hf._SIZE_WORDS.search(key) and key not in hf._IRRELEVANT
                              and key not in hf.CLASS_DEFAULTS[model_type] and key not in read[model_type])
        for model_type, model in recording["models"].items()
    }
    assert hf.READ_SIZE_KEYS == derived


def test_keys_transformers_never_reads_are_ignored_and_a_read_one_is_refused() -> None:
    base = json.loads((DATA / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    assert lc.ModelConfig.from_hf_config({**base, "num_mtp_modules": 2, "fused_head_dim": 7}) == \
        lc.ModelConfig.from_hf_config(base)
    gpt2 = json.loads((DATA / "gpt2.json").read_text(encoding="utf-8"))
    with pytest.raises(Refusal) as refused:
        lc.ModelConfig.from_hf_config({**gpt2, "hidden_size": 1024})
    assert (refused.value.code, refused.value.params["key"]) == ("unknown_size_key", "hidden_size")


def test_falcon_saved_by_transformers_5_25_names_its_kv_heads_and_a_contradiction_is_refused() -> None:
    """transformers 5.25 derives num_key_value_heads for Falcon (1 under multi_query) and saves it, as the recorded
    file shows; a file's value replaces the derived one for the cache code, so another value is refused."""
    saved = json.loads((DATA / "falcon-7b.json").read_text(encoding="utf-8"))
    assert (saved["multi_query"], saved["num_key_value_heads"]) == (True, 1)
    without = {key: value for key, value in saved.items() if key != "num_key_value_heads"}
    assert lc.ModelConfig.from_hf_config(saved) == lc.ModelConfig.from_hf_config(without)
    assert lc.ModelConfig.from_hf_config(saved).n_kv_heads == 1
    with pytest.raises(Refusal) as refused:
        lc.ModelConfig.from_hf_config({**saved, "num_key_value_heads": 71})
    assert (refused.value.code, refused.value.params["key"], refused.value.params["value"]) == (
        "contradicting_keys", "num_key_value_heads", 71)
    assert str(refused.value) == "falcon config: num_key_value_heads=71 contradicts multi_query=True"


def test_a_tied_head_with_a_bias_is_refused_when_read_not_when_counted():
    """Phi-2 ties nothing; told to tie, its head would keep a bias llmcalc does not model: refused by ModelConfig."""
    phi = json.loads((DATA / "phi-2.json").read_text(encoding="utf-8"))
    with pytest.raises(Refusal) as refused:
        lc.ModelConfig.from_hf_config({**phi, "tie_word_embeddings": True})
    assert refused.value.code == "lm_head_bias_tied"
    with pytest.raises(ValueError, match="lm_head_bias=True needs an untied head"):
        lc.ModelConfig(vocab_size=10, d_model=8, n_layers=1, n_heads=2, d_ff=8, tie_embeddings=True, lm_head_bias=True)
