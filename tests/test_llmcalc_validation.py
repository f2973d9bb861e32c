"""Bad input to the count and memory functions: a ValueError/TypeError naming the parameter, the value, the range."""

import dataclasses
import math

import numpy as np
import pytest

import llmcalc as lc

BASE = dict(vocab_size=100, d_model=64, n_layers=2, n_heads=4, d_ff=128)
REF = lc.REFERENCE

CONFIG_ERRORS = [
    ({"vocab_size": 0}, ValueError, "vocab_size must be an integer >= 1; got 0"),
    ({"d_model": -64}, ValueError, "d_model must be an integer >= 1; got -64"),
    ({"n_layers": 2.0}, TypeError, "n_layers must be an integer >= 1; got 2.0 (a float); pass an int, e.g. int(2.0)"),
    ({"n_layers": True}, TypeError, "n_layers must be an integer >= 1; got True (a bool)"),
    ({"n_heads": "4"}, TypeError, "n_heads must be an integer >= 1; got '4' (str)"),
    ({"d_ff": math.nan}, TypeError, "d_ff must be an integer >= 0; got nan (a float)"),
    ({"d_ff": 0}, ValueError, "d_ff must be an integer >= 1 (the FFN inner width); got 0"),
    ({"n_heads": 6}, ValueError, "n_heads=6 does not divide d_model=64; pass head_dim explicitly"),
    ({"n_kv_heads": 3}, ValueError, "n_kv_heads must divide n_heads=4"),
    ({"n_kv_heads": -1}, ValueError, "n_kv_heads must be an integer >= 0; got -1"),
    ({"n_experts": 2, "experts_per_token": 3}, ValueError, "experts_per_token must be in [1, n_experts=2]; got 3"),
    ({"expert_d_ff": 32}, ValueError, "expert_d_ff=32 describes a mixture of experts; set n_experts > 1"),
    ({"n_experts": 4, "dense_layers": 2}, ValueError, "dense_layers must be in [0, n_layers-1=1]"),
    ({"shared_expert_gate": True}, ValueError, "shared_expert_gate=True needs a shared expert"),
    ({"rope_head_dim": 8}, ValueError, "rope_head_dim=8 describes latent attention; set kv_lora_rank > 0"),
    ({"kv_lora_rank": 32, "rope_head_dim": 16}, ValueError, "rope_head_dim must be in [1, head_dim-1=15]"),
    ({"sliding_window_layers": 1}, ValueError, "sliding_window_layers must be in [0, n_layers=2] and needs a slid"),
    ({"layout": "gpt2"}, ValueError, "layout='gpt2' builds ffn='mlp' blocks; got ffn='swiglu'"),
    ({"ffn": "geglu"}, ValueError, "ffn must be one of 'swiglu', 'mlp'; got 'geglu'"),
    ({"norm": "rmsnrom"}, ValueError, "got 'rmsnrom' (did you mean 'rmsnorm'?)"),
    ({"norm": None}, TypeError, "norm must be one of 'rmsnorm', 'layernorm', 'parameter-free'; got None (NoneType)"),
    ({"tie_embeddings": 1}, TypeError, "tie_embeddings must be True or False; got 1 (int)"),
    ({"model_type": 3}, TypeError, "model_type must be a str; got 3 (int)"),
    ({"d_model": np.array([64, 128])}, TypeError, "d_model must be an integer >= 1; got array([ 64, 128]) (ndarray)"),
]


@pytest.mark.parametrize("overrides, error, message", CONFIG_ERRORS)
def test_model_config_rejects(overrides, error, message):
    with pytest.raises(error) as caught:
        lc.ModelConfig(**{**BASE, **overrides})
    assert message in str(caught.value)


def test_numpy_integers_are_accepted_and_normalised():
    cfg = lc.ModelConfig(**{**BASE, "d_model": np.int64(64), "tie_embeddings": np.bool_(True)})
    assert type(cfg.d_model) is int and cfg.d_model == 64
    assert cfg.tie_embeddings is True


CALL_ERRORS = [
    (lambda: lc.weight_bytes(-1), ValueError, "n_params must be an integer >= 0; got -1"),
    (lambda: lc.weight_bytes(7e9), TypeError, "n_params must be an integer >= 0; got 7000000000.0 (a float)"),
    (lambda: lc.weight_bytes(10, "fp64"), ValueError, "dtype must be one of 'fp32'"),
    (lambda: lc.kv_cache_bytes(REF, math.inf), TypeError, "tokens must be an integer >= 0; got inf (a float)"),
    (lambda: lc.kv_cache_bytes(REF, 10, batch=0), ValueError, "batch must be an integer >= 1; got 0"),
    (lambda: lc.kv_cache_bytes(REF, np.array([1, 2])), TypeError, "tokens must be an integer >= 0; got array"),
    (lambda: lc.kv_cache_bytes(dataclasses.asdict(REF), 10), TypeError, "cfg must be a ModelConfig"),
    (lambda: lc.kv_cache_bytes_per_token(REF, "bf8"), ValueError, "dtype must be one of"),
    (lambda: lc.lora_params(16, 16, 0), ValueError, "rank must be an integer >= 1; got 0"),
    (lambda: lc.lora_params(16, True, 1), TypeError, "d_out must be an integer >= 1; got True (a bool)"),
    (lambda: lc.lora_model_params(REF, 8.5), TypeError, "rank must be an integer >= 1; got 8.5 (a float)"),
    (lambda: lc.training_memory(100, "adafactor"), ValueError, "optimizer must be one of 'adamw'"),
    (lambda: lc.training_memory(100, "adamw", "fp8"), ValueError, "precision must be one of 'mixed', 'fp32', 'bf16'"),
    (lambda: lc.zero_memory_per_gpu(100, 4, 8), ValueError, "stage must be an integer in [0, 3]; got 4"),
    (lambda: lc.zero_memory_per_gpu(100, 1, 0), ValueError, "n_gpus must be an integer >= 1; got 0"),
    (lambda: lc.param_breakdown(REF, active="yes"), TypeError, "active must be True or False; got 'yes' (str)"),
    (lambda: lc.format_bytes(math.nan), ValueError, "n must be a finite number >= 0; got nan"),
    (lambda: lc.format_count(10, 13), ValueError, "digits must be an integer in [0, 12]; got 13"),
    (lambda: lc.get_preset(None), TypeError, "name must be one of 'reference'"),
]


@pytest.mark.parametrize("call, error, message", CALL_ERRORS)
def test_functions_reject_bad_values(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert message in str(caught.value)


def test_huge_counts_stay_exact():
    """No float anywhere: a 10^15-parameter model's bytes are exact."""
    assert lc.weight_bytes(10**15 + 1, "int4") == (10**15 + 2) // 2
    assert lc.kv_cache_bytes(REF, 10**12, batch=10**6) == 10_240 * 10**18
