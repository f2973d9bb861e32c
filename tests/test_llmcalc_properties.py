"""Property-based tests: no exception but ValueError/TypeError escapes, and counts move the right way."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import llmcalc as lc

# Anything a caller might plausibly (or implausibly) pass.
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(min_value=-5, max_value=5), max_size=3),
    hnp.arrays(st.sampled_from([np.int64, np.float64, np.bool_, np.uint64]), hnp.array_shapes(max_dims=2, max_side=3)),
)

SMALL = st.integers(min_value=1, max_value=64)


@st.composite
def configs(draw):
    n_kv_heads = draw(st.integers(min_value=1, max_value=8))
    n_heads = n_kv_heads * draw(st.integers(min_value=1, max_value=4))
    n_experts = draw(st.integers(min_value=1, max_value=8))
    return lc.ModelConfig(
        vocab_size=draw(st.integers(min_value=1, max_value=300_000)),
        d_model=draw(st.integers(min_value=1, max_value=16384)),
        n_layers=draw(st.integers(min_value=1, max_value=200)),
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        head_dim=draw(st.integers(min_value=1, max_value=256)),
        d_ff=draw(st.integers(min_value=1, max_value=65536)),
        ffn=draw(st.sampled_from(lc.FFN_KINDS)),
        n_experts=n_experts,
        experts_per_token=draw(st.integers(min_value=1, max_value=n_experts)),
        tie_embeddings=draw(st.booleans()),
        qkv_bias=draw(st.booleans()),
        out_bias=draw(st.booleans()),
        mlp_bias=draw(st.booleans()),
        lm_head_bias=draw(st.booleans()),
        norm=draw(st.sampled_from(lc.NORM_KINDS)),
        norms_per_layer=draw(st.integers(min_value=0, max_value=3)),
        learned_positions=draw(st.integers(min_value=0, max_value=8192)),
    )


FIELDS = [field.name for field in dataclasses.fields(lc.ModelConfig)]


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(FIELDS), value=JUNK)
def test_config_rejects_junk_cleanly(field, value):
    base = dict(vocab_size=100, d_model=64, n_layers=2, n_heads=4, d_ff=128)
    try:
        lc.ModelConfig(**{**base, field: value})
    except (ValueError, TypeError) as error:
        assert field in str(error) or "n_heads" in str(error)


@settings(max_examples=200, deadline=None)
@given(cfg=configs())
def test_counts_are_consistent(cfg):
    total = lc.param_count(cfg)
    assert type(total) is int
    assert total == sum(lc.param_breakdown(cfg).values())
    assert all(value >= 0 for value in lc.param_breakdown(cfg).values())
    assert 0 < lc.active_param_count(cfg) <= total
    assert (lc.active_param_count(cfg) == total) == (cfg.experts_per_token == cfg.n_experts)


@settings(max_examples=200, deadline=None)
@given(cfg=configs(), field=st.sampled_from(["vocab_size", "d_model", "n_layers", "d_ff", "head_dim",
                                             "learned_positions", "norms_per_layer"]),
       step=st.integers(min_value=1, max_value=1000))
def test_param_count_monotone_in_sizes(cfg, field, step):
    bigger = dataclasses.replace(cfg, **{field: getattr(cfg, field) + step})
    assert lc.param_count(bigger) > lc.param_count(cfg)
    assert lc.active_param_count(bigger) > lc.active_param_count(cfg)


@settings(max_examples=100, deadline=None)
@given(cfg=configs(), flag=st.sampled_from(["qkv_bias", "out_bias", "mlp_bias", "lm_head_bias"]))
def test_adding_a_bias_never_shrinks_the_count(cfg, flag):
    with_bias = dataclasses.replace(cfg, **{flag: True})
    without = dataclasses.replace(cfg, **{flag: False})
    assert lc.param_count(with_bias) >= lc.param_count(without)


@settings(max_examples=100, deadline=None)
@given(cfg=configs())
def test_untying_adds_exactly_the_head(cfg):
    untied = dataclasses.replace(cfg, tie_embeddings=False, lm_head_bias=False)
    tied = dataclasses.replace(cfg, tie_embeddings=True, lm_head_bias=False)
    assert lc.param_count(untied) - lc.param_count(tied) == cfg.vocab_size * cfg.d_model


@settings(max_examples=200, deadline=None)
@given(cfg=configs(), tokens=st.integers(min_value=0, max_value=10**7), batch=st.integers(min_value=1, max_value=512),
       dtype=st.sampled_from(list(lc.DTYPE_BYTES)))
def test_kv_cache_formula_and_monotone(cfg, tokens, batch, dtype):
    result = lc.kv_cache_bytes(cfg, tokens, batch=batch, dtype=dtype)
    bits = lc.DTYPE_BITS[dtype]
    assert result * 8 == 2 * cfg.n_layers * cfg.n_kv_heads * cfg.head_dim * bits * tokens * batch
    assert lc.kv_cache_bytes(cfg, tokens + 1, batch=batch, dtype=dtype) > result


@settings(max_examples=200, deadline=None)
@given(d_in=SMALL, d_out=SMALL, data=st.data())
def test_lora_monotone_in_rank(d_in, d_out, data):
    rank = data.draw(st.integers(min_value=1, max_value=min(d_in, d_out)))
    assert lc.lora_params(d_in, d_out, rank) == rank * (d_in + d_out)
    if rank < min(d_in, d_out):
        assert lc.lora_params(d_in, d_out, rank + 1) > lc.lora_params(d_in, d_out, rank)


@settings(max_examples=100, deadline=None)
@given(cfg=configs(), ranks=st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=6))
def test_vectorized_equals_scalar(cfg, ranks):
    targets = "all-linear" if cfg.ffn == "swiglu" else ("q", "v")
    sides = [cfg.d_model, cfg.q_dim, cfg.kv_dim] + ([cfg.d_ff] if targets == "all-linear" else [])
    if max(ranks) <= min(sides):
        vector = lc.lora_model_params(cfg, np.array(ranks), targets)
        assert vector.tolist() == [lc.lora_model_params(cfg, r, targets) for r in ranks]
    else:
        with pytest.raises(ValueError, match="rank must be an integer in"):
            lc.lora_model_params(cfg, np.array(ranks), targets)
    tokens = np.array(ranks) * 1000
    assert lc.kv_cache_bytes(cfg, tokens).tolist() == [lc.kv_cache_bytes(cfg, int(t)) for t in tokens]


PUBLIC_CALLS = [
    lambda a, b: lc.weight_bytes(a, "bf16"),
    lambda a, b: lc.weight_bytes(10, a),
    lambda a, b: lc.kv_cache_bytes(lc.REFERENCE, a, batch=b),
    lambda a, b: lc.kv_cache_bytes_per_token(lc.REFERENCE, a),
    lambda a, b: lc.training_memory(a),
    lambda a, b: lc.training_memory(10, a, b),
    lambda a, b: lc.training_bytes_per_param(a, b),
    lambda a, b: lc.decode_tokens_per_second_bound(a, b),
    lambda a, b: lc.lora_params(a, b, 4),
    lambda a, b: lc.lora_params(64, a, b),
    lambda a, b: lc.lora_share(a, 64, b),
    lambda a, b: lc.lora_model_params(lc.REFERENCE, a, b),
    lambda a, b: lc.lora_model_params(lc.REFERENCE, a),
    lambda a, b: lc.training_flops(a, b),
    lambda a, b: lc.forward_flops_per_token(a),
    lambda a, b: lc.chinchilla_tokens(a, b),
    lambda a, b: lc.effective_batch_size(a, b),
    lambda a, b: lc.effective_batch_size(4, 2, a, seq_len=b),
    lambda a, b: lc.softmax(a, temperature=b),
    lambda a, b: lc.causal_mask(a),
    lambda a, b: lc.attention_scale(a),
    lambda a, b: lc.scaled_dot_product_attention(a, b, b),
    lambda a, b: lc.rope_rotate(a, b),
    lambda a, b: lc.cross_entropy(a, b),
    lambda a, b: lc.initial_loss(a),
    lambda a, b: lc.perplexity(a),
    lambda a, b: lc.top_p_filter(a, b),
    lambda a, b: lc.top_k_filter(a, b),
    lambda a, b: lc.absmax_quantize(a, b),
    lambda a, b: lc.dequantize(a, b),
    lambda a, b: lc.quantization_error(a, b),
    lambda a, b: lc.gqa_cache_reduction(a, b),
    lambda a, b: lc.mla_cache_reduction(a, b, 16, rope_dim=4),
    lambda a, b: lc.speculative_expected_tokens(a, b),
    lambda a, b: lc.speculative_speedup(a, 4, b),
    lambda a, b: lc.matmul_flops(a, b, 4),
    lambda a, b: lc.matmul_arithmetic_intensity(a, 8, 8, b),
    lambda a, b: lc.model_flops_utilization(a, b, 1e12),
    lambda a, b: lc.scale_overhead_bits(a, b),
    lambda a, b: lc.scale_overhead_bits(64, double_quant_block=a, quantized_scale_bits=b),
    lambda a, b: lc.cross_entropy_gradient(a, b),
    lambda a, b: lc.bpe_train(a, b),
    lambda a, b: lc.bpe_encode(a, b),
    lambda a, b: lc.format_count(a, b),
    lambda a, b: lc.format_bytes(a),
    lambda a, b: lc.get_preset(a),
    lambda a, b: lc.sigmoid(a),
    lambda a, b: lc.relu(a),
    lambda a, b: lc.silu(a),
    lambda a, b: lc.gelu(a, approximate=b),
    lambda a, b: lc.gelu(a, approximate="tanh"),
    lambda a, b: lc.layer_norm(a, eps=b),
    lambda a, b: lc.rms_norm(a, eps=b),
    lambda a, b: lc.sliding_window_mask(a, b),
    lambda a, b: lc.rope_wavelengths(a, base=b),
    lambda a, b: lc.kl_divergence(a, b),
    lambda a, b: lc.pairwise_preference_loss(a, b),
    lambda a, b: lc.dpo_loss(a, 0.0, beta=b),
    lambda a, b: lc.group_advantages(a, ddof=b),
    lambda a, b: lc.load_balancing_loss(a, b),
    lambda a, b: lc.expert_bias_update(a, b, rate=0.01),
    lambda a, b: lc.weight_bytes_at_bits(a, b),
    lambda a, b: lc.zero_memory_per_gpu(a, 2, b),
    lambda a, b: lc.zero_memory_per_gpu(10, a, 8, b),
    lambda a, b: lc.gguf_weight_bytes(a, b),
    lambda a, b: lc.gguf_bits_per_weight(a),
    lambda a, b: lc.lora_scaling(a, b),
    lambda a, b: lc.bottleneck_adapter_params(a, b),
    lambda a, b: lc.bottleneck_adapter_model_params(lc.REFERENCE, a, adapters_per_layer=b),
    lambda a, b: lc.prefix_tuning_params(lc.REFERENCE, a),
    lambda a, b: lc.prompt_tuning_params(a, b),
    lambda a, b: lc.kv_cache_positions(a, n_layers=20, window=b, n_global_layers=5),
    lambda a, b: lc.jaccard_similarity(a, b),
    lambda a, b: lc.training_seconds(a, b),
    lambda a, b: lc.training_seconds(1e21, 1e12, n_gpus=a),
]


@settings(max_examples=1500, deadline=None)
@given(call=st.sampled_from(PUBLIC_CALLS), a=JUNK, b=JUNK)
def test_no_other_exception_escapes(call, a, b):
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # a silent inf/NaN would surface here
        try:
            call(a, b)
        except (ValueError, TypeError):
            pass
