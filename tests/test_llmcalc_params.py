"""Parameter counts of tiny configurations, each expected value derived by hand.

Each expectation is written as the explicit sum of its matrices so a reader
can check it without running anything.
"""

import dataclasses

import pytest

import llmcalc as lc

BASE = dict(vocab_size=10, d_model=8, n_layers=2, n_heads=2, d_ff=16)

# (overrides of BASE, expected breakdown)
CASES = [
    pytest.param({}, dict(
        embedding=10 * 8, positions=0,
        attention=2 * (8 * 8 + 8 * 8 + 8 * 8 + 8 * 8),
        ffn=2 * (3 * 8 * 16), router=0, norms=(2 * 2 + 1) * 8, lm_head=10 * 8), id="dense-swiglu"),
    pytest.param({"tie_embeddings": True}, dict(
        embedding=80, positions=0, attention=512, ffn=768, router=0, norms=40, lm_head=0), id="tied"),
    pytest.param({"n_kv_heads": 1}, dict(
        embedding=80, positions=0, attention=2 * (8 * 8 + 8 * 4 + 8 * 4 + 8 * 8),
        ffn=768, router=0, norms=40, lm_head=80), id="mqa"),
    pytest.param({"head_dim": 6}, dict(
        embedding=80, positions=0, attention=2 * (8 * 12 + 8 * 12 + 8 * 12 + 12 * 8),
        ffn=768, router=0, norms=40, lm_head=80), id="explicit-head-dim"),
    pytest.param({"qkv_bias": True}, dict(
        embedding=80, positions=0, attention=512 + 2 * (8 + 8 + 8), ffn=768, router=0, norms=40, lm_head=80),
        id="qkv-bias"),
    pytest.param({"out_bias": True}, dict(
        embedding=80, positions=0, attention=512 + 2 * 8, ffn=768, router=0, norms=40, lm_head=80), id="out-bias"),
    pytest.param({"ffn": "mlp"}, dict(
        embedding=80, positions=0, attention=512, ffn=2 * (2 * 8 * 16), router=0, norms=40, lm_head=80), id="mlp"),
    pytest.param({"ffn": "mlp", "mlp_bias": True}, dict(
        embedding=80, positions=0, attention=512, ffn=2 * (2 * 8 * 16 + 16 + 8), router=0, norms=40, lm_head=80),
        id="mlp-bias"),
    pytest.param({"mlp_bias": True}, dict(
        embedding=80, positions=0, attention=512, ffn=2 * (3 * 8 * 16 + 16 + 16 + 8), router=0, norms=40,
        lm_head=80), id="swiglu-bias"),
    pytest.param({"norm": "layernorm"}, dict(
        embedding=80, positions=0, attention=512, ffn=768, router=0, norms=5 * 16, lm_head=80), id="layernorm"),
    pytest.param({"norms_per_layer": 1}, dict(
        embedding=80, positions=0, attention=512, ffn=768, router=0, norms=3 * 8, lm_head=80), id="one-norm"),
    pytest.param({"norms_per_layer": 0}, dict(
        embedding=80, positions=0, attention=512, ffn=768, router=0, norms=8, lm_head=80), id="final-norm-only"),
    pytest.param({"learned_positions": 32}, dict(
        embedding=80, positions=32 * 8, attention=512, ffn=768, router=0, norms=40, lm_head=80), id="positions"),
    pytest.param({"lm_head_bias": True}, dict(
        embedding=80, positions=0, attention=512, ffn=768, router=0, norms=40, lm_head=80 + 10), id="head-bias"),
    pytest.param({"n_experts": 4, "experts_per_token": 2}, dict(
        embedding=80, positions=0, attention=512, ffn=2 * 4 * (3 * 8 * 16), router=2 * 8 * 4, norms=40,
        lm_head=80), id="moe"),
]


@pytest.mark.parametrize("overrides, expected", CASES)
def test_breakdown_by_hand(overrides, expected):
    cfg = lc.ModelConfig(**{**BASE, **overrides})
    assert lc.param_breakdown(cfg) == expected
    assert lc.param_count(cfg) == sum(expected.values())
    assert list(lc.param_breakdown(cfg)) == list(lc.COMPONENTS)


@pytest.mark.parametrize("n_experts, per_token, expected_active", [
    (1, 1, 80 + 512 + 768 + 40 + 80),
    (4, 1, 80 + 512 + 2 * 1 * 384 + 2 * 8 * 4 + 40 + 80),
    (4, 2, 80 + 512 + 2 * 2 * 384 + 2 * 8 * 4 + 40 + 80),
    (4, 4, 80 + 512 + 2 * 4 * 384 + 2 * 8 * 4 + 40 + 80),
])
def test_active_params_use_only_routed_experts(n_experts, per_token, expected_active):
    cfg = lc.ModelConfig(**BASE, n_experts=n_experts, experts_per_token=per_token)
    assert lc.active_param_count(cfg) == expected_active
    assert sum(lc.param_breakdown(cfg, active=True).values()) == expected_active


def test_trillion_parameter_model_is_exact():
    # 128 layers, d_model 32768, d_ff 131072: no float rounding anywhere.
    cfg = lc.ModelConfig(vocab_size=256000, d_model=32768, n_layers=128, n_heads=256, d_ff=131072)
    layer = 4 * 32768 * 32768 + 3 * 32768 * 131072 + 2 * 32768
    expected = 2 * 256000 * 32768 + 128 * layer + 32768
    assert lc.param_count(cfg) == expected
    assert expected > 10**12
    assert type(lc.param_count(cfg)) is int


def test_breakdown_rejects_non_config():
    with pytest.raises(TypeError, match="cfg must be a ModelConfig; got dict"):
        lc.param_count(BASE)


def test_replace_revalidates():
    cfg = lc.ModelConfig(**BASE)
    with pytest.raises(ValueError, match="n_kv_heads must divide n_heads=3"):
        dataclasses.replace(cfg, n_heads=3, head_dim=4)
