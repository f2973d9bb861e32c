"""Write small real .gguf files of a tiny random Llama with the ``gguf`` package (the ``test`` dependency group).

Usage: ``python tools/make_gguf_fixtures.py OUT_DIR [RECIPE ...]`` (default: Q8_0 Q4_0, the files
committed under ``tests/data/gguf/``).  Each file holds the tensors llama.cpp's ``llama-quantize``
would write for the recipe (``llmcalc.gguf.recipe_tensor_types``).  Q8_0, Q4_0, Q4_1, Q5_0, Q5_1
tensors are real quantizations by ``gguf.quants``; the package cannot quantize K or IQ types, so
those tensors hold random bytes of the right block layout (the header, which is what llmcalc
reads, is the same either way).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import gguf
import numpy as np

from llmcalc import ModelConfig
from llmcalc.gguf import GGML_TYPES, recipe_tensor_types

_QUANTIZABLE = {"F32", "F16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0"}
_FTYPES = {"Q8_0": 7, "Q4_0": 2, "Q4_K_M": 15, "Q5_K_M": 17, "Q6_K": 18, "IQ4_XS": 30, "IQ4_NL": 25}


def tiny_llama(d_model: int = 64, n_layers: int = 2) -> ModelConfig:
    """A Llama-shaped model small enough to commit: 4 query heads sharing 2 KV heads of d_model / 4."""
    return ModelConfig(vocab_size=32, d_model=d_model, n_layers=n_layers, n_heads=4, n_kv_heads=2,
                       d_ff=2 * d_model, model_type="llama", trained_context=2048)


def write_gguf(path: Path, cfg: ModelConfig, recipe: str, seed: int = 0) -> None:
    """Write ``cfg`` with random weights as llama.cpp's ``recipe`` would store it."""
    rng = np.random.default_rng(seed)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name(f"tiny-llama-{recipe}")
    writer.add_block_count(cfg.n_layers)
    writer.add_context_length(cfg.trained_context)
    writer.add_embedding_length(cfg.d_model)
    writer.add_feed_forward_length(cfg.d_ff)
    writer.add_head_count(cfg.n_heads)
    writer.add_head_count_kv(cfg.n_kv_heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(_FTYPES[recipe])
    writer.add_token_list([f"t{i}" for i in range(cfg.vocab_size)])
    for tensor in recipe_tensor_types(cfg, recipe):
        name = tensor.name.replace("norm_0", "attn_norm").replace("norm_1", "ffn_norm")
        shape = tuple(reversed(tensor.shape))  # numpy puts ggml's ne0 last
        weights = rng.standard_normal(shape).astype(np.float32)
        kind = gguf.GGMLQuantizationType[tensor.type_name]
        if tensor.type_name == "F32":
            writer.add_tensor(name, weights)
        elif tensor.type_name in _QUANTIZABLE:
            writer.add_tensor(name, gguf.quants.quantize(weights, kind), raw_dtype=kind)
        else:
            ggml_type = GGML_TYPES[tensor.type_name]
            row = tensor.shape[0] // ggml_type.block_weights * ggml_type.block_bytes
            raw = rng.integers(0, 256, size=(*shape[:-1], row), dtype=np.uint8)
            writer.add_tensor(name, raw, raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def write_header_keys(path: Path, keys: dict[str, Any], n_vocab: int = 8) -> Path:
    """Write a .gguf file with the metadata ``keys`` (numbers as u32, lists as arrays) and a small F32 token
    embedding of ``{arch}.embedding_length``: what llmcalc.gguf needs to plan a KV cache, as a load log lists it."""
    arch = str(keys["general.architecture"])
    writer = gguf.GGUFWriter(str(path), arch)
    for key, value in keys.items():
        if key == "general.architecture":
            continue
        if isinstance(value, list):
            writer.add_array(key, value)
        else:
            writer.add_uint32(key, value)
    writer.add_tensor("token_embd.weight", np.zeros((n_vocab, int(keys[f"{arch}.embedding_length"])), np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def main(argv: list[str]) -> None:
    out = Path(argv[0])
    for recipe in argv[1:] or ["Q8_0", "Q4_0"]:
        write_gguf(out / f"tiny-llama-{recipe}.gguf", tiny_llama(), recipe)


if __name__ == "__main__":
    main(sys.argv[1:])
