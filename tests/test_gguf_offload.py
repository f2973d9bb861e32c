"""llama.cpp's partial offload (``-ngl``) against published load logs that print each device's buffer.

The oracle: three llama.cpp load logs of Mixtral 8x7B with some of its 33 layers offloaded, each
printing the GPU's model buffer (``CUDA0 buffer size``, or ``VRAM used`` in the older build) and,
where given, the KV cache split between the GPU and the host.  The model is counted tensor by
tensor as its file holds it: Mixtral's 32 layers (attention, a router in F16, eight experts of three
matrices, two F32 norms; llama.cpp issue 1585 lists a Mixtral file's tensors with these shapes),
every matrix in the file type, except that llama-quantize stores ``attn_k`` and ``attn_v`` of an
eight-expert model in Q8_0 (src/llama-quant.cpp) and never quantizes the router.
"""

import json

import pytest

from llmcalc import get_preset
from llmcalc.cli import main
from llmcalc.gguf import GgufModel, GgufTensor, layer_split, model_from_config, most_gpu_layers, plan_gguf
from llmcalc.units import MiB

D_MODEL, D_FF, VOCAB, LAYERS = 4096, 14336, 32000, 32


def mixtral(file_type: str, output_type: str) -> GgufModel:
    """Mixtral 8x7B as llama-quantize writes it with ``file_type`` (Q8_0 or Q4_0)."""
    tensors = [GgufTensor("token_embd.weight", (D_MODEL, VOCAB), file_type)]
    for i in range(LAYERS):
        tensors += [GgufTensor(f"blk.{i}.attn_q.weight", (D_MODEL, D_MODEL), file_type),
                    GgufTensor(f"blk.{i}.attn_k.weight", (D_MODEL, 1024), "Q8_0"),
                    GgufTensor(f"blk.{i}.attn_v.weight", (D_MODEL, 1024), "Q8_0"),
                    GgufTensor(f"blk.{i}.attn_output.weight", (D_MODEL, D_MODEL), file_type),
                    GgufTensor(f"blk.{i}.ffn_gate_inp.weight", (D_MODEL, 8), "F16"),
                    GgufTensor(f"blk.{i}.attn_norm.weight", (D_MODEL,), "F32"),
                    GgufTensor(f"blk.{i}.ffn_norm.weight", (D_MODEL,), "F32")]
        for expert in range(8):
            tensors += [GgufTensor(f"blk.{i}.ffn_gate.{expert}.weight", (D_MODEL, D_FF), file_type),
                        GgufTensor(f"blk.{i}.ffn_up.{expert}.weight", (D_MODEL, D_FF), file_type),
                        GgufTensor(f"blk.{i}.ffn_down.{expert}.weight", (D_FF, D_MODEL), file_type)]
    tensors += [GgufTensor("output_norm.weight", (D_MODEL,), "F32"),
                GgufTensor("output.weight", (D_MODEL, VOCAB), output_type)]
    layers, output = layer_split(tensors, LAYERS, tied=False)
    return GgufModel("llama", LAYERS, 1024, 1024, 32768, sum(t.n_bytes for t in tensors), n_embd=D_MODEL,
                     n_head=32, n_ff=D_FF, n_vocab=VOCAB, embedding_bytes=tensors[0].n_bytes, layer_bytes=layers,
                     output_bytes=output)


# (source, file type, output type, -ngl, context, printed GPU model buffer MiB, printed KV MiB on GPU and host)
LOGS = [
    ("https://github.com/ggml-org/llama.cpp/pull/4957", "Q8_0", "Q8_0", 10, 512, 14705.94, (20, 44)),
    ("https://github.com/ggml-org/llama.cpp/issues/4381", "Q8_0", "Q8_0", 22, 512, 32353.06, (44, None)),
    ("https://github.com/ollama/ollama/issues/3301", "Q4_0", "Q6_K", 23, None, 17999.66, None),
]


@pytest.mark.parametrize("source, file_type, output_type, layers, context, printed, kv", LOGS)
def test_the_gpu_model_buffer_is_within_10_percent_of_the_printed_one(source, file_type, output_type, layers,
                                                                      context, printed, kv) -> None:
    plan = plan_gguf(mixtral(file_type, output_type), context=context or 2048, n_gpu_layers=layers)
    assert plan.gpu_layers == layers
    assert abs(plan.weights / MiB / printed - 1) < 0.10, source
    assert round(plan.weights / MiB, 2) == printed, source  # in fact to the printed 0.01 MiB
    if kv is not None:
        on_gpu, on_host = kv
        assert plan.kv_cache / MiB == on_gpu
        assert on_host is None or plan.host["kv_cache"] / MiB == on_host


def test_the_output_layer_goes_to_the_gpu_only_past_the_repeating_layers() -> None:
    """``offloaded 32/33 layers`` keeps the output matrix on the host; 33/33 is the full offload."""
    model = model_from_config(get_preset("llama-3-8b"), "Q4_K_M")
    all_repeating, everything = (plan_gguf(model, context=4096, n_gpu_layers=n) for n in (32, 33))
    assert everything.weights == plan_gguf(model, context=4096).weights == model.gpu_weight_bytes
    assert everything.weights - all_repeating.weights == model.output_bytes
    assert all_repeating.host["layers"] == model.output_bytes
    # The printed full offload: CUDA0 model buffer size = 4403.49 MiB (the page's developer0hye run).
    assert round(everything.weights / MiB, 2) == 4403.49
    assert plan_gguf(model, context=4096, n_gpu_layers=999).weights == everything.weights
    nothing = plan_gguf(model, context=4096, n_gpu_layers=0)
    assert nothing.weights == 0 and nothing.kv_cache == 0
    assert nothing.host["layers"] == model.gpu_weight_bytes


def test_the_most_layers_that_fit_is_the_edge_of_fitting() -> None:
    model = model_from_config(get_preset("llama-3.1-70b"), "Q4_K_M")
    budget = 24 * 1024 * MiB
    most = most_gpu_layers(model, budget, context=8192)
    assert 0 < most < model.offloadable_layers
    assert plan_gguf(model, context=8192, n_gpu_layers=most).total <= budget
    assert plan_gguf(model, context=8192, n_gpu_layers=most + 1).total > budget


def test_a_model_without_per_layer_bytes_is_refused_partial_offload() -> None:
    bare = GgufModel("llama", 32, 1024, 1024, 0, 10**9, n_embd=4096, n_head=32, n_ff=14336, n_vocab=32000,
                     embedding_bytes=10**6)
    with pytest.raises(ValueError, match="partial offload needs each layer's bytes"):
        plan_gguf(bare, context=512, n_gpu_layers=4)
    with pytest.raises(ValueError, match="n_gpu_layers must be an integer >= 0; got -1"):
        plan_gguf(model_from_config(get_preset("llama-3-8b"), "Q4_0"), context=512, n_gpu_layers=-1)


def test_the_cli_prints_the_split_and_the_most_layers_that_fit(capsys) -> None:
    assert main(["gguf", "llama-3-8b", "--recipe", "Q4_K_M", "--context", "8192", "-ngl", "16", "--gpu", "4",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    plan = plan_gguf(model_from_config(get_preset("llama-3-8b"), "Q4_K_M"), context=8192, n_gpu_layers=16)
    assert result["n_gpu_layers"] == 16 and result["total"] == plan.total
    assert result["host"]["layers"] == plan.host["layers"] and result["most_gpu_layers"] == 19
    assert main(["gguf", "llama-3-8b", "--recipe", "Q4_K_M", "--context", "8192", "-ngl", "16", "--gpu", "4"]) == 0
    text = capsys.readouterr().out
    assert "16 of 33 layers on one GPU (-ngl 16)" in text and "most layers that fit at this context: -ngl 19" in text
