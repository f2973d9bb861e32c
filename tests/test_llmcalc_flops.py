"""The N of the 2N / 6ND FLOP rules, against the Hugging Face counts and Kaplan et al.'s 12 * layers * d_model**2."""

import json
import pathlib

import pytest

import llmcalc as lc

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "llmcalc_preset_counts.json").read_text("utf-8"))


@pytest.mark.parametrize("name", sorted(DATA["presets"]))
def test_lookup_tables_are_left_out_of_the_counts_transformers_reports(name):
    recorded = DATA["presets"][name]
    parts = recorded["breakdown"]
    tied = parts["lm_head"] == 0   # a tied head's matrix is stored once, under the embedding
    lookups = parts["positions"] + (0 if tied else parts["embedding"])
    assert lc.matmul_params(lc.get_preset(name)) == recorded["active_param_count"] - lookups


def test_gpt2_is_kaplans_twelve_layer_d_squared_plus_its_tied_head_biases_and_norms():
    # Kaplan et al. (2020), table 1: N = 2 * d_model * n_layer * (2 * d_attn + d_ff) = 12 * n_layer * d_model**2.
    layers, d, vocab = 12, 768, 50257
    biases_and_norms = layers * (3 * d + d + 4 * d + d + 2 * 2 * d) + 2 * d
    assert lc.matmul_params(lc.get_preset("gpt2")) == 12 * layers * d**2 + vocab * d + biases_and_norms


def test_a_mixture_of_experts_counts_only_the_active_experts():
    mixtral = lc.get_preset("mixtral-8x7b")
    assert lc.matmul_params(mixtral) == lc.active_param_count(mixtral) - mixtral.vocab_size * mixtral.d_model
    assert lc.matmul_params(mixtral) < lc.param_count(mixtral) / 3


def test_anything_but_a_model_config_is_refused():
    with pytest.raises(TypeError, match=r"cfg must be a ModelConfig .*; got str"):
        lc.matmul_params("llama-2-7b")
