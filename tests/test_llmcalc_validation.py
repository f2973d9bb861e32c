"""Bad input: every rejection is a ValueError/TypeError that names the parameter, the value and what is accepted."""

import math

import numpy as np
import pytest

import llmcalc as lc

BASE = dict(vocab_size=100, d_model=64, n_layers=2, n_heads=4, d_ff=128)


# (overrides, exception, regex the message must match)
CONFIG_ERRORS = [
    ({"vocab_size": 0}, ValueError, r"vocab_size must be an integer >= 1; got 0"),
    ({"d_model": -64}, ValueError, r"d_model must be an integer >= 1; got -64"),
    ({"n_layers": 2.0}, TypeError, r"n_layers must be an integer >= 1; got 2\.0"),
    ({"n_layers": True}, TypeError, r"n_layers must be an integer >= 1; got True"),
    ({"n_heads": "4"}, TypeError, r"n_heads must be an integer >= 1; got '4'"),
    ({"d_ff": float("nan")}, TypeError, r"d_ff must be an integer >= 1; got nan"),
    ({"d_ff": 0}, ValueError, r"d_ff must be an integer >= 1; got 0"),
    ({"n_heads": 6}, ValueError, r"n_heads=6 does not divide d_model=64; pass head_dim explicitly"),
    ({"n_kv_heads": 3}, ValueError, r"n_kv_heads must divide n_heads=4.*got n_kv_heads=3"),
    ({"n_kv_heads": 8}, ValueError, r"n_kv_heads must divide n_heads=4.*got n_kv_heads=8"),
    ({"n_kv_heads": 0}, ValueError, r"n_kv_heads must be an integer >= 1; got 0"),
    ({"head_dim": 0}, ValueError, r"head_dim must be an integer >= 1; got 0"),
    ({"n_experts": 2, "experts_per_token": 3}, ValueError, r"experts_per_token must be in \[1, n_experts=2\]; got 3"),
    ({"experts_per_token": 0}, ValueError, r"experts_per_token must be an integer >= 1; got 0"),
    ({"ffn": "geglu"}, ValueError, r"ffn must be one of 'swiglu', 'mlp'; got 'geglu'"),
    ({"norm": "batchnorm"}, ValueError, r"norm must be one of 'rmsnorm', 'layernorm'; got 'batchnorm'"),
    ({"norm": None}, TypeError, r"norm must be one of 'rmsnorm', 'layernorm'; got None"),
    ({"tie_embeddings": 1}, TypeError, r"tie_embeddings must be True or False; got 1"),
    ({"qkv_bias": "yes"}, TypeError, r"qkv_bias must be True or False; got 'yes'"),
    ({"norms_per_layer": -1}, ValueError, r"norms_per_layer must be an integer >= 0; got -1"),
    ({"learned_positions": 1.5}, TypeError, r"learned_positions must be an integer >= 0; got 1\.5"),
    ({"d_model": np.array([64, 128])}, TypeError, r"d_model must be an integer >= 1; got array"),
]


@pytest.mark.parametrize("overrides, error, message", CONFIG_ERRORS)
def test_model_config_rejects(overrides, error, message):
    with pytest.raises(error, match=message):
        lc.ModelConfig(**{**BASE, **overrides})


def test_numpy_integers_are_accepted_and_normalised():
    cfg = lc.ModelConfig(**{**BASE, "d_model": np.int64(64), "tie_embeddings": np.bool_(True)})
    assert type(cfg.d_model) is int and cfg.d_model == 64
    assert cfg.tie_embeddings is True


def test_config_is_frozen():
    cfg = lc.ModelConfig(**BASE)
    with pytest.raises(AttributeError):
        cfg.d_model = 128


CFG = lc.ModelConfig(**BASE)
GPT2 = lc.get_preset("gpt2")

# (callable, exception, regex)
FUNCTION_ERRORS = [
    (lambda: lc.weight_bytes(-1, "bf16"), ValueError, r"n_params must be an integer >= 0; got -1"),
    (lambda: lc.weight_bytes(7e9, "bf16"), TypeError, r"n_params must be an integer >= 0; got 7000000000\.0 \(a float\)"),
    (lambda: lc.weight_bytes(True, "bf16"), TypeError, r"n_params must be an integer >= 0; got True \(a bool\)"),
    (lambda: lc.weight_bytes(10, "float8"), ValueError, r"dtype must be one of 'fp32', .*'nf4'; got 'float8'"),
    (lambda: lc.weight_bytes(10, 16), TypeError, r"dtype must be one of .*got 16"),
    (lambda: lc.weight_bytes(np.array([1, -5]), "bf16"), ValueError, r"n_params must be an integer >= 0; got -5 \(at index 1\)"),
    (lambda: lc.weight_bytes(np.array([1.0, 2.0]), "bf16"), TypeError, r"n_params must be an integer >= 0 or an integer array; got dtype float64"),
    (lambda: lc.weight_bytes(np.array([2**62]), "fp32"), ValueError, r"weight_bytes would exceed the int64 range"),
    (lambda: lc.kv_cache_bytes(CFG, -1), ValueError, r"tokens must be an integer >= 0; got -1"),
    (lambda: lc.kv_cache_bytes(CFG, 10, batch=0), ValueError, r"batch must be an integer >= 1; got 0"),
    (lambda: lc.kv_cache_bytes(CFG, 10, dtype="int2"), ValueError, r"dtype must be one of .*got 'int2'"),
    (lambda: lc.kv_cache_bytes(CFG, np.array([1, 2]), batch=np.array([1, 2, 3])), ValueError,
     r"array arguments must broadcast together; got shapes tokens \(2,\), batch \(3,\)"),
    (lambda: lc.kv_cache_bytes(BASE, 10), TypeError, r"cfg must be a ModelConfig; got dict"),
    (lambda: lc.training_memory(10, optimizer="adagrad"), ValueError, r"optimizer must be one of 'adamw', .*got 'adagrad'"),
    (lambda: lc.training_memory(10, precision="fp8"), ValueError, r"precision must be one of 'mixed', 'fp32', 'bf16'; got 'fp8'"),
    (lambda: lc.decode_tokens_per_second_bound(0, 1e12), ValueError, r"weight_bytes_total must be a finite number > 0; got 0\.0"),
    (lambda: lc.decode_tokens_per_second_bound(1e9, math.inf), ValueError, r"bandwidth_bytes_per_s must be a finite number > 0; got inf"),
    (lambda: lc.lora_params(16, 32, 17), ValueError, r"rank must be an integer in \[1, min\(d_in, d_out\)=16\]; got 17"),
    (lambda: lc.lora_params(16, 32, 0), ValueError, r"rank must be an integer >= 1; got 0"),
    (lambda: lc.lora_params(16, 32, 2.5), TypeError, r"rank must be an integer >= 1; got 2\.5 \(a float\)"),
    (lambda: lc.lora_params(0, 32, 1), ValueError, r"d_in must be an integer >= 1; got 0"),
    (lambda: lc.lora_params(16, 32, np.array([4, 8, 64])), ValueError, r"rank must be .*=16\]; got 64 \(at index 2\)"),
    (lambda: lc.lora_model_params(CFG, 8, ("q", "x")), ValueError, r"targets must be 'all-linear' or a sequence of names among 'q', 'k', 'v', 'o', 'gate', 'up', 'down'; got 'x'"),
    (lambda: lc.lora_model_params(CFG, 8, ()), ValueError, r"targets must be .*; got an empty sequence"),
    (lambda: lc.lora_model_params(CFG, 8, ("q", "q")), ValueError, r"targets must not repeat a name; got \('q', 'q'\)"),
    (lambda: lc.lora_model_params(CFG, 8, 5), TypeError, r"targets must be .*; got 5"),
    (lambda: lc.lora_model_params(GPT2, 8, ("gate",)), ValueError, r"got 'gate' \(an ffn='mlp' model has no gate matrix\)"),
    (lambda: lc.lora_model_params(CFG, 65, "all-linear"), ValueError, r"rank must be an integer in \[1, smallest targeted matrix side=64\]; got 65"),
    (lambda: lc.training_flops(-1, 1e9), ValueError, r"n_params must be a finite number > 0; got -1\.0"),
    (lambda: lc.training_flops(1e9, math.nan), ValueError, r"n_tokens must be a finite number > 0; got nan"),
    (lambda: lc.training_flops("1e9", 1e9), TypeError, r"n_params must be a finite number > 0; got dtype <U3"),
    (lambda: lc.chinchilla_tokens(1e9, tokens_per_param=0), ValueError, r"tokens_per_param must be a finite number > 0; got 0\.0"),
    (lambda: lc.effective_batch_size(0), ValueError, r"micro_batch must be an integer >= 1; got 0"),
    (lambda: lc.effective_batch_size(4, seq_len=0.5), TypeError, r"seq_len must be an integer >= 1; got 0\.5"),
    (lambda: lc.softmax(np.array([1.0, math.nan])), ValueError, r"logits must be a finite real array.*got nan \(at index 1\)"),
    (lambda: lc.softmax(np.array([1.0, 2.0]), temperature=0), ValueError, r"temperature must be a finite number > 0; got 0\.0"),
    (lambda: lc.softmax(np.array([-math.inf, -math.inf])), ValueError, r"at least one finite entry"),
    (lambda: lc.softmax(np.array([1.0, 2.0]), axis=3), ValueError, r"axis must be an integer in \[-1, 0\]"),
    (lambda: lc.softmax(3.0), ValueError, r"logits must have at least 1 dimension"),
    (lambda: lc.causal_mask(0), ValueError, r"n must be an integer in \[1, 16384\]; got 0"),
    (lambda: lc.causal_mask(10**6), ValueError, r"n must be an integer in \[1, 16384\]; got 1000000"),
    (lambda: lc.attention_scale(0), ValueError, r"head_dim must be an integer in \[1, 9007199254740992\]; got 0"),
    (lambda: lc.scaled_dot_product_attention(np.ones((2, 4)), np.ones((3, 5)), np.ones((3, 4))), ValueError,
     r"q and k must have the same last dimension"),
    (lambda: lc.scaled_dot_product_attention(np.ones((2, 4)), np.ones((3, 4)), np.ones((2, 4))), ValueError,
     r"k and v must have the same number of positions"),
    (lambda: lc.scaled_dot_product_attention(np.ones((3, 4)), np.ones((2, 4)), np.ones((2, 4)), causal=True),
     ValueError, r"causal attention needs at least as many keys as queries"),
    (lambda: lc.rope_rotate(np.ones((2, 3)), [0, 1]), ValueError, r"x must have an even, non-zero last dimension"),
    (lambda: lc.rope_rotate(np.ones((2, 4)), [0, 1, 2]), ValueError, r"positions of shape \(3,\) must match the rows of x"),
    (lambda: lc.rope_rotate(np.ones((2, 4)), [0, 1], base=1.0), ValueError, r"base must be a finite number > 1; got 1\.0"),
    (lambda: lc.cross_entropy(np.zeros(4), 4), ValueError, r"target must be an integer in \[0, 3\]; got 4"),
    (lambda: lc.cross_entropy(np.zeros((2, 4)), 1), ValueError, r"target must have shape \(2,\)"),
    (lambda: lc.initial_loss(0), ValueError, r"vocab_size must be an integer in \[1, 9007199254740992\]; got 0"),
    (lambda: lc.perplexity(-0.1), ValueError, r"loss must be a finite number in \[0, 709\]; got -0\.1"),
    (lambda: lc.perplexity(math.inf), ValueError, r"loss must be a finite number in \[0, 709\]; got inf"),
    (lambda: lc.top_p_filter(np.array([0.5, 0.5]), 0), ValueError, r"p must be a finite number in \(0, 1\]; got 0\.0"),
    (lambda: lc.top_p_filter(np.array([0.5, 0.6]), 0.9), ValueError, r"probs must sum to 1"),
    (lambda: lc.top_p_filter(np.array([1.5, -0.5]), 0.9), ValueError, r"probs must be non-negative"),
    (lambda: lc.top_k_filter(np.array([0.5, 0.5]), 3), ValueError, r"k must be an integer in \[1, 2\]; got 3"),
    (lambda: lc.absmax_quantize(np.array([1.0, math.inf])), ValueError, r"x must be a finite real array; got inf"),
    (lambda: lc.absmax_quantize(np.array([1.0]), bits=1), ValueError, r"bits must be an integer in \[2, 16\]; got 1"),
    (lambda: lc.dequantize(np.array([1, 2]), 0.0), ValueError, r"scale must be a finite number > 0; got 0\.0"),
    (lambda: lc.gqa_cache_reduction(10, 3), ValueError, r"n_kv_heads must divide n_heads; got n_heads=10, n_kv_heads=3"),
    (lambda: lc.gqa_cache_reduction(8, np.array([1, 16])), ValueError, r"n_kv_heads must divide n_heads; got n_heads=8, n_kv_heads=16"),
    (lambda: lc.mla_cache_reduction(128, 128, 0), ValueError, r"latent_dim must be an integer in \[1, 9007199254740992\]; got 0"),
    (lambda: lc.speculative_expected_tokens(1.2, 4), ValueError, r"acceptance_rate must be a finite number in \[0, 1\]; got 1\.2"),
    (lambda: lc.speculative_expected_tokens(0.5, 0), ValueError, r"draft_tokens must be an integer in \[1, 9007199254740992\]; got 0"),
    (lambda: lc.speculative_speedup(0.5, 4, -1), ValueError, r"cost_ratio must be a finite number >= 0; got -1\.0"),
    (lambda: lc.bpe_train("low lower", 3), TypeError, r"words must be a list of non-empty strings; got str"),
    (lambda: lc.bpe_train(["low", ""], 3), ValueError, r"words must be a list of non-empty strings; got element ''"),
    (lambda: lc.bpe_train(["low"], -1), ValueError, r"n_merges must be an integer >= 0; got -1"),
    (lambda: lc.bpe_encode("", []), ValueError, r"word must be a non-empty string"),
    (lambda: lc.bpe_encode("low", [("l",)]), TypeError, r"merges must be a list of \(str, str\) pairs; got element \('l',\)"),
    (lambda: lc.gqa_cache_reduction(2**64, 1), ValueError, r"n_heads must be an integer in \[1, 9007199254740992\]; got 18446744073709551616"),
    (lambda: lc.kv_cache_bytes(CFG, np.array([0]), batch=2**64), ValueError, r"kv_cache_bytes would exceed the int64 range"),
    (lambda: lc.training_flops(1e200, 1e200), ValueError, r"training_flops: the result overflows the float64 range"),
    (lambda: lc.decode_tokens_per_second_bound(1e-320, 1e12), ValueError, r"decode_tokens_per_second_bound: the result overflows"),
    (lambda: lc.scaled_dot_product_attention(np.full((1, 2), 1e200), np.full((1, 2), 1e200), np.ones((1, 2))),
     ValueError, r"attention scores q\.k: the result overflows"),
    (lambda: lc.format_count(math.nan), ValueError, r"n must be a finite real number; got nan"),
    (lambda: lc.sigmoid(np.array([0.0, math.inf])), ValueError, r"x must be a finite real array; got inf \(at index 1\)"),
    (lambda: lc.relu("3"), TypeError, r"x must be a finite real array; got dtype <U1"),
    (lambda: lc.gelu(1.0, approximate="erf"), ValueError, r"approximate must be one of 'none', 'tanh'; got 'erf'"),
    (lambda: lc.layer_norm(np.ones(3), eps=-1e-5), ValueError, r"eps must be a finite number >= 0; got -1e-05"),
    (lambda: lc.rms_norm(np.zeros(3), eps=0.0), ValueError, r"rms_norm with eps=0 needs a vector that is not all zeros"),
    (lambda: lc.sliding_window_mask(6, 0), ValueError, r"window must be an integer >= 1; got 0"),
    (lambda: lc.rope_wavelengths(63), ValueError, r"head_dim must be a single even integer in \[2, 16384\]; got 63"),
    (lambda: lc.kl_divergence(np.array([0.5, 0.5]), np.array([0.2, 0.3, 0.5])), ValueError,
     r"p and q must have the same last dimension"),
    (lambda: lc.kl_divergence(np.array([1.2, -0.2]), np.array([0.5, 0.5])), ValueError,
     r"p must be non-negative \(probabilities\); got minimum -0\.2"),
    (lambda: lc.dpo_loss(1.0, 0.0, beta=-0.1), ValueError, r"beta must be a finite number > 0; got -0\.1"),
    (lambda: lc.group_advantages(np.array([1.0, 0.0]), ddof=2), ValueError, r"ddof must be an integer in \[0, 1\]; got 2"),
    (lambda: lc.load_balancing_loss(np.array([0.5, 0.5]), np.array([0.5, math.nan])), ValueError,
     r"mean_probability must be a finite real array; got nan \(at index 1\)"),
    (lambda: lc.weight_bytes_at_bits(-1, 4.5), ValueError, r"n_params must be a finite number >= 0; got -1\.0"),
    (lambda: lc.weight_bytes_at_bits(10, 65), ValueError, r"bits_per_weight must be a finite number in \[0, 64\]; got 65\.0"),
    (lambda: lc.zero_memory_per_gpu(10, 4, 8), ValueError, r"stage must be an integer in \[0, 3\]; got 4"),
    (lambda: lc.zero_memory_per_gpu(10, 1, 0), ValueError, r"n_gpus must be an integer >= 1; got 0"),
    (lambda: lc.gguf_bits_per_weight("q4_k"), ValueError, r"kind must be one of 'F32', .*'Q2_K'; got 'q4_k'"),
    (lambda: lc.gguf_weight_bytes(-1, "Q8_0"), ValueError, r"n_params must be an integer >= 0; got -1"),
    (lambda: lc.lora_scaling(0, 8), ValueError, r"alpha must be a finite number > 0; got 0\.0"),
    (lambda: lc.lora_scaling(16, 8, rslora=1), TypeError, r"rslora must be True or False; got 1"),
    (lambda: lc.bottleneck_adapter_params(640, 0), ValueError, r"bottleneck must be an integer >= 1; got 0"),
    (lambda: lc.prefix_tuning_params(CFG, 0), ValueError, r"n_virtual_tokens must be an integer >= 1; got 0"),
    (lambda: lc.prompt_tuning_params(BASE, 20), TypeError, r"cfg must be a ModelConfig; got dict"),
    (lambda: lc.kv_cache_positions(8192, n_layers=20, n_global_layers=21, window=512), ValueError,
     r"n_global_layers must be an integer in \[0, 20\]; got 21"),
    (lambda: lc.kv_cache_positions(8192, n_layers=20, n_global_layers=5), ValueError,
     r"n_global_layers needs a window for the other layers; got n_global_layers=5"),
    (lambda: lc.jaccard_similarity("write a haiku", ["write"]), TypeError, r"a must be a non-empty list of string tokens; got the string"),
]


@pytest.mark.parametrize("call, error, message", FUNCTION_ERRORS)
def test_functions_reject_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
