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
    # Qwen-MoE style: routed experts of width 4, a shared expert of width 12 with a 1-output sigmoid gate.
    pytest.param({"n_experts": 4, "experts_per_token": 2, "expert_d_ff": 4, "shared_expert_d_ff": 12,
                  "shared_expert_gate": True}, dict(
        embedding=80, positions=0, attention=512, ffn=2 * (4 * 3 * 8 * 4 + 3 * 8 * 12), router=2 * (8 * 4 + 8),
        norms=40, lm_head=80), id="shared-expert"),
    # DeepSeek style: the first layer dense (d_ff 16), the second MoE.
    pytest.param({"n_experts": 4, "experts_per_token": 2, "expert_d_ff": 4, "dense_layers": 1}, dict(
        embedding=80, positions=0, attention=512, ffn=3 * 8 * 16 + 4 * 3 * 8 * 4, router=8 * 4, norms=40,
        lm_head=80), id="dense-first-layer"),
    pytest.param({"qk_norm": "per-head"}, dict(
        embedding=80, positions=0, attention=512, ffn=768, router=0, norms=40 + 2 * (4 + 4), lm_head=80),
        id="qk-norm-per-head"),
    pytest.param({"qk_norm": "per-projection", "n_kv_heads": 1}, dict(
        embedding=80, positions=0, attention=2 * (8 * 8 + 8 * 4 + 8 * 4 + 8 * 8), ffn=768, router=0,
        norms=40 + 2 * (8 + 4), lm_head=80), id="qk-norm-per-projection"),
    pytest.param({"norm": "parameter-free"}, dict(
        embedding=80, positions=0, attention=512, ffn=768, router=0, norms=0, lm_head=80), id="olmo-norms"),
    pytest.param({"layout": "phi3"}, dict(
        embedding=80, positions=0, attention=512, ffn=768, router=0, norms=40, lm_head=80), id="fused-same-count"),
    # Latent attention, 2 heads of 6 (4 + 2 rotary), q bottleneck 3, latent 5, value heads 3:
    # q_a 8x3, q_b 3x12, kv_a 8x(5+2), kv_b 5x(2*(4+3)), o 6x8; norms of the q and kv latents.
    pytest.param({"head_dim": 6, "q_lora_rank": 3, "kv_lora_rank": 5, "rope_head_dim": 2, "v_head_dim": 3}, dict(
        embedding=80, positions=0, attention=2 * (8 * 3 + 3 * 12 + 8 * 7 + 5 * 14 + 6 * 8), ffn=768, router=0,
        norms=40 + 2 * (3 + 5), lm_head=80), id="latent-attention"),
]


@pytest.mark.parametrize("overrides, expected", CASES)
def test_breakdown_by_hand(overrides, expected):
    cfg = lc.ModelConfig(**{**BASE, **overrides})
    assert lc.param_breakdown(cfg) == expected
    assert lc.param_count(cfg) == sum(expected.values())
    assert list(lc.param_breakdown(cfg)) == ["embedding", "positions", "attention", "ffn", "router", "norms", "lm_head"]


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
    with pytest.raises(TypeError, match=r"cfg must be a ModelConfig \(see .*\); got dict"):
        lc.param_count(BASE)


def test_replace_revalidates_stated_fields():
    cfg = lc.ModelConfig(**BASE, n_kv_heads=2)
    with pytest.raises(ValueError, match="n_kv_heads must divide n_heads=3"):
        dataclasses.replace(cfg, n_heads=3, head_dim=4)


def test_derived_fields_are_derived_again_after_replace():
    """A head size llmcalc derived follows the new width; one the caller stated stays."""
    derived = lc.ModelConfig(**BASE)
    assert (derived.head_dim, derived.n_kv_heads) == (4, 2)
    wider = dataclasses.replace(derived, d_model=16, n_heads=4)
    assert (wider.head_dim, wider.n_kv_heads) == (4, 4)
    assert lc.param_count(wider) == lc.param_count(lc.ModelConfig(**{**BASE, "d_model": 16, "n_heads": 4}))
    stated = lc.ModelConfig(**BASE, head_dim=6, n_kv_heads=1)
    assert dataclasses.replace(stated, d_model=16).head_dim == 6
    assert dataclasses.replace(stated, n_heads=4).n_kv_heads == 1
    llama3 = lc.get_preset("llama-3-8b")
    seventy = dataclasses.replace(llama3, d_model=8192, n_layers=80, n_heads=64, d_ff=28672)
    assert (seventy.n_kv_heads, seventy.head_dim, lc.param_count(seventy)) == (8, 128, 70_553_706_496)
