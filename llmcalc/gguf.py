"""llama.cpp and GGUF: a model's bytes as llama.cpp holds them, from a quantization recipe or a file's header.

Three parts, each from a stated source (llama.cpp at commit ``007dbbf3fd17``, in full
:data:`LLAMA_CPP_COMMIT`; the ``gguf`` Python package 0.19.0):

* **Tensor types.** :data:`GGML_TYPES`: each ggml type's id, weights per block and bytes per
  block, from the block structs of ``ggml/src/ggml-common.h`` (the ``gguf`` package's
  ``GGML_QUANT_SIZES`` repeats them; the tests compare the two).  A tensor of ``n`` weights in a
  row of ``ne0`` takes ``n / block * bytes`` (ggml's ``ggml_nbytes``); a row must hold whole blocks.
* **Recipes.** :func:`recipe_tensor_types` repeats ``llama_tensor_get_type_impl`` in
  ``src/llama-quant.cpp`` for the file types :data:`RECIPES` (Q8_0 down to Q2_K) and a dense
  model with separate ``attn_q``/``attn_k``/``attn_v`` tensors (no imatrix unless asked, no
  ``--pure``, no per-tensor overrides): the output matrix (or a tied embedding) in Q6_K unless
  the recipe is Q8_0; ``attn_v`` and ``ffn_down`` one type up in the layers ``use_more_bits``
  picks (Q4_K_M, Q5_K_M: Q6_K); Q4_K_S's first four ``attn_v`` and first eighth of ``ffn_down``
  in Q5_K; Q3_K_M's ``attn_v`` in Q5_K in the first two layers and Q4_K after, its
  ``attn_output`` in Q4_K and ``ffn_down`` in Q5_K in the first sixteenth, Q4_K after; Q3_K_L's
  three in Q5_K; Q2_K's ``attn_output`` and ``ffn_down`` in Q3_K and ``attn_v`` in Q4_K (Q3_K
  when fewer than four query heads share a KV head); IQ4_XS/IQ4_NL's ``attn_v`` in Q5_K when
  four or more query heads share a KV head and ``ffn_down`` of the first eighth of layers in
  Q5_K without an imatrix; a 70B Llama's Q3_K or Q4_K ``attn_v`` in Q5_K; a row that holds no
  whole block falls back as ``tensor_type_fallback`` says.  One-dimensional tensors (norms,
  biases) are not quantized: ``convert_hf_to_gguf.py`` writes them in F32.
* **The KV cache.** llama.cpp's cache holds ``n_ctx`` cells of K and V for every layer, each a
  row of ``n_head_kv * head_dim`` elements in the cache type (``--cache-type-k/-v``: f16, q8_0,
  q4_0, :data:`KV_CACHE_TYPES`), so ``n_ctx * n_layer * 2 * ggml_row_size(type, n_head_kv * head_dim)``
  when K and V have the same width.  A quantized V cache needs flash attention (``-fa``).
  Models with sliding-window (SWA) layers keep two caches (:func:`kv_caches`): ``n_ctx`` cells
  for the full-attention layers and about ``n_swa + n_ubatch`` cells for the SWA layers
  (:func:`swa_cache_cells`), as llama.cpp's ``llama_kv_cache_iswa`` makes them for the
  architectures of :data:`SWA_ARCHITECTURES`; ``--swa-full`` gives the SWA layers ``n_ctx`` too.
* **Where it lives.** ``token_embd`` stays in host memory and every other tensor goes to the GPU
  with every layer offloaded (:func:`host_buffers`).  The **compute buffer** (the graph's working
  memory, sized by ``ggml_gallocr`` when the context is made and printed as ``compute buffer
  size``) is an estimate, :func:`compute_buffer_estimate`, checked against published load logs;
  a plan takes the reader's measured figure instead when given one.  With ``-ngl`` below the layer
  count (:func:`plan_gguf`'s ``n_gpu_layers``) the first layers stay in host memory.
"""

from __future__ import annotations

import argparse
import os
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from . import _validate as check
from ._search import largest_holding
from .config import ModelConfig, checks_model
from .params import linear_modules, param_count
from .units import GiB, MiB

__all__ = [
    "CONTEXT_PADDING",
    "GGML_TYPES",
    "GGUF_MAGIC",
    "GGUF_VERSIONS",
    "KV_CACHE_TYPES",
    "LLAMA_CPP_COMMIT",
    "LLAMA_CPP_SWA_SOURCE",
    "LLAMA_SERVER_SLOTS",
    "MAX_COMPUTE_BUFFER_MIB",
    "MAX_CONTEXT",
    "MAX_HEADER_BYTES",
    "MAX_KEYS",
    "MAX_PARALLEL",
    "MAX_TENSORS",
    "MAX_UBATCH",
    "READ_CHUNK",
    "RECIPES",
    "RESERVE",
    "SWA_ARCHITECTURES",
    "SWA_NOT_MODELLED",
    "UBATCH",
    "WINDOW_NOT_APPLIED",
    "GgmlType",
    "GgufError",
    "GgufHeader",
    "GgufModel",
    "GgufPlan",
    "GgufTensor",
    "KvCache",
    "add_cli_arguments",
    "cache_streams",
    "compute_buffer_bytes",
    "compute_buffer_estimate",
    "gguf_bits_per_weight",
    "gguf_model",
    "gguf_weight_bytes",
    "host_buffers",
    "kv_cache_type_bytes",
    "kv_caches",
    "largest_context",
    "layer_split",
    "llama_server_slots",
    "model_from_config",
    "most_gpu_layers",
    "plan_gguf",
    "plan_report",
    "read_gguf_header",
    "recipe_tensor_types",
    "recipe_weight_bytes",
    "run_cli",
    "swa_cache_cells",
    "swa_layer_flags",
]

LLAMA_CPP_COMMIT = "007dbbf3fd17eefe9b47fee45f48f7ba5e62b714"
"""The llama.cpp commit whose sources the rules here repeat."""
LLAMA_CPP_SWA_SOURCE = "6c8dcaa7ae41fa9f4aa2b3b68ee82cb8b2a03632"
"""The llama.cpp commit (build b10256) whose sliding-window cache the SWA rules repeat.

Its ``src/llama-kv-cache-iswa.cpp``, ``src/llama-hparams.cpp``, ``src/llama-model.cpp``
(``create_memory``), ``src/llama-context.cpp`` and ``src/models/*.cpp`` (``load_arch_hparams``)
were read as mybigday/llama.rn vendors them (its ``cpp/`` at commit 638383c, submodule
``third_party/llama.cpp`` at this commit); the same files at :data:`LLAMA_CPP_COMMIT` are not
in the source index this was checked with.
"""


@dataclass(frozen=True)
class GgmlType:
    """One ggml tensor type: its id in a GGUF file, weights per block and bytes per block."""

    name: str
    type_id: int
    block_weights: int
    block_bytes: int

    def row_bytes(self, n_weights: int) -> int:
        """Bytes of a row of ``n_weights`` (ggml's ``ggml_row_size``); refused if the row holds no whole blocks."""
        if n_weights % self.block_weights:
            raise ValueError(f"a {self.name} row holds whole blocks of {self.block_weights} weights; "
                             f"got a row of {n_weights:,}")
        return n_weights // self.block_weights * self.block_bytes


GGML_TYPES: Mapping[str, GgmlType] = {t.name: t for t in (
    GgmlType("F32", 0, 1, 4),
    GgmlType("F16", 1, 1, 2),
    GgmlType("Q4_0", 2, 32, 18),      # fp16 scale + 16 bytes of 4-bit codes
    GgmlType("Q4_1", 3, 32, 20),      # fp16 scale and min + 16 bytes of codes
    GgmlType("Q5_0", 6, 32, 22),      # fp16 scale + 4 bytes of high bits + 16 of low nibbles
    GgmlType("Q5_1", 7, 32, 24),
    GgmlType("Q8_0", 8, 32, 34),      # fp16 scale + 32 int8 codes
    GgmlType("Q8_1", 9, 32, 40),
    GgmlType("Q2_K", 10, 256, 84),
    GgmlType("Q3_K", 11, 256, 110),
    GgmlType("Q4_K", 12, 256, 144),   # fp16 d, dmin + 12 bytes of 6-bit scales/mins + 128 of codes
    GgmlType("Q5_K", 13, 256, 176),
    GgmlType("Q6_K", 14, 256, 210),   # 128 low + 64 high bytes + 16 int8 scales + fp16 d
    GgmlType("Q8_K", 15, 256, 292),
    GgmlType("IQ2_XXS", 16, 256, 66),
    GgmlType("IQ2_XS", 17, 256, 74),
    GgmlType("IQ3_XXS", 18, 256, 98),
    GgmlType("IQ1_S", 19, 256, 50),
    GgmlType("IQ4_NL", 20, 32, 18),   # fp16 scale + 16 bytes of 4-bit indices into a fixed table
    GgmlType("IQ3_S", 21, 256, 110),
    GgmlType("IQ2_S", 22, 256, 82),
    GgmlType("IQ4_XS", 23, 256, 136),  # fp16 d + 2 bytes high scale bits + 4 low + 128 of indices
    GgmlType("I8", 24, 1, 1),
    GgmlType("I16", 25, 1, 2),
    GgmlType("I32", 26, 1, 4),
    GgmlType("I64", 27, 1, 8),
    GgmlType("F64", 28, 1, 8),
    GgmlType("IQ1_M", 29, 256, 56),
    GgmlType("BF16", 30, 1, 2),
    GgmlType("TQ1_0", 34, 256, 54),
    GgmlType("TQ2_0", 35, 256, 66),
    GgmlType("MXFP4", 39, 32, 17),
)}
"""Every ggml tensor type by name, with its id (``enum ggml_type`` in ``ggml.h``) and its block (``ggml-common.h``)."""
_TYPES_BY_ID = {t.type_id: t for t in GGML_TYPES.values()}


def gguf_bits_per_weight(kind: str) -> float:
    """Average bits per weight of a GGUF tensor type: ``8 * bytes per block / weights per block``.

    Includes each block's scales (and mins), which is why Q8_0 costs 8.5
    bits, not 8.

    Examples
    --------
    >>> gguf_bits_per_weight("Q8_0"), gguf_bits_per_weight("Q4_K"), gguf_bits_per_weight("Q6_K")
    (8.5, 4.5, 6.5625)
    """
    ggml_type = GGML_TYPES[check.choice("kind", kind, GGML_TYPES)]
    return 8 * ggml_type.block_bytes / ggml_type.block_weights


def gguf_weight_bytes(n_params: int, kind: str) -> int:
    """Bytes of ``n_params`` weights stored as GGUF type ``kind``: whole blocks, ``ceil(n / block) * block_bytes``.

    Treats the weights as one tensor in one type.  Real files round up per
    tensor and keep some tensors (norms, often the embedding or output
    matrix) in another type, so a file differs by those plus its metadata
    (:func:`~llmcalc.gguf.recipe_weight_bytes` counts a recipe tensor by tensor).

    Examples
    --------
    >>> gguf_weight_bytes(32, "Q8_0"), gguf_weight_bytes(33, "Q8_0")
    (34, 68)
    """
    count = check.count("n_params", n_params, minimum=0)
    ggml_type = GGML_TYPES[check.choice("kind", kind, GGML_TYPES)]
    return -(-count // ggml_type.block_weights) * ggml_type.block_bytes

# The recipe a file type starts from (llama_ftype_get_default_type's default_type), per llama.cpp's ftype name.
RECIPES: Mapping[str, str] = {
    "Q8_0": "Q8_0", "Q6_K": "Q6_K", "Q5_K_M": "Q5_K", "Q5_K_S": "Q5_K", "Q5_1": "Q5_1", "Q5_0": "Q5_0",
    "Q4_K_M": "Q4_K", "Q4_K_S": "Q4_K", "Q4_1": "Q4_1", "Q4_0": "Q4_0", "IQ4_XS": "IQ4_XS", "IQ4_NL": "IQ4_NL",
    "Q3_K_L": "Q3_K", "Q3_K_M": "Q3_K", "Q3_K_S": "Q3_K", "Q2_K": "Q2_K",
}
"""The llama-quantize file types planned here, and the tensor type each starts from (``default_type``)."""
KV_CACHE_TYPES = ("f16", "q8_0", "q4_0")
"""The KV-cache types (``--cache-type-k``, ``--cache-type-v``) a plan offers."""
# tensor_type_fallback: a type whose block does not divide a row's length becomes this one.
_FALLBACK = {"IQ4_XS": "IQ4_NL", "Q2_K": "Q4_0", "Q3_K": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}


def _use_more_bits(i_layer: int, n_layers: int) -> bool:
    # llama-quant.cpp's use_more_bits: the first and last eighth, and every third layer between.
    return i_layer < n_layers // 8 or i_layer >= 7 * n_layers // 8 or (i_layer - n_layers // 8) % 3 == 2


def _with_fallback(type_name: str, n_cols: int) -> str:
    if n_cols % GGML_TYPES[type_name].block_weights == 0:
        return type_name
    fallback = _FALLBACK.get(type_name, "F16")
    return fallback if n_cols % GGML_TYPES[fallback].block_weights == 0 else "F16"


def _attn_v_type(kind: str, base: str, i: int, n_layers: int, gqa: int) -> str:
    # llama_tensor_get_type_impl, the attn_v branch (before the 70B bump), for a dense model.
    if kind == "Q2_K":
        return "Q4_K" if gqa >= 4 else "Q3_K"
    if kind in ("IQ4_NL", "IQ4_XS") and gqa >= 4:
        return "Q5_K"
    rules = {"Q3_K_M": "Q5_K" if i < 2 else "Q4_K", "Q3_K_L": "Q5_K",
             "Q4_K_M": "Q6_K" if _use_more_bits(i, n_layers) else base,
             "Q5_K_M": "Q6_K" if _use_more_bits(i, n_layers) else base,
             "Q4_K_S": "Q5_K" if i < 4 else base}
    return rules.get(kind, base)


def _ffn_down_type(kind: str, base: str, i: int, n_layers: int, imatrix: bool) -> str:
    # llama_tensor_get_type_impl, the ffn_down branch, for a dense model that is not Falcon.
    first_eighth = i < n_layers // 8
    if kind == "Q2_K":
        return "Q3_K"
    if kind == "Q3_K_M":
        return "Q5_K" if i < n_layers // 16 else "Q4_K"
    if kind == "Q3_K_L":
        return "Q5_K"
    if kind in ("Q4_K_M", "Q5_K_M"):
        return "Q6_K" if _use_more_bits(i, n_layers) else base
    if kind in ("IQ4_NL", "IQ4_XS"):
        return "Q5_K" if first_eighth and not imatrix else base
    if kind == "Q4_K_S":
        return "Q5_K" if first_eighth else base
    if kind in ("Q4_0", "Q5_0") and imatrix and first_eighth:
        return "Q4_1" if kind == "Q4_0" else "Q5_1"
    return base


@dataclass(frozen=True)
class GgufTensor:
    """One tensor of a GGUF file: its llama.cpp name, shape (``ne0`` first, as ggml orders it) and type."""

    name: str
    shape: tuple[int, ...]
    type_name: str

    @property
    def n_weights(self) -> int:
        """Elements in the tensor."""
        count = 1
        for dim in self.shape:
            count *= dim
        return count

    @property
    def n_bytes(self) -> int:
        """Bytes of its data (ggml's ``ggml_nbytes``), whole blocks per row."""
        ggml_type = GGML_TYPES[self.type_name]
        return ggml_type.row_bytes(self.shape[0]) * (self.n_weights // self.shape[0])


_ROLE_TENSORS = {"q": "attn_q", "k": "attn_k", "v": "attn_v", "o": "attn_output",
                 "gate": "ffn_gate", "up": "ffn_up", "down": "ffn_down"}


def _refuse_recipe(cfg: ModelConfig) -> str | None:
    if cfg.is_moe:
        return "mixture-of-experts models (expert tensors and per-expert rules)"
    if cfg.uses_latent_attention:
        return "multi-head latent attention"
    if cfg.layout != "llama":
        return f"the {cfg.layout!r} layout (llama.cpp fuses or names its tensors differently)"
    roles = {module.role for module in linear_modules.unchecked(cfg)} - {"lm_head"}
    if roles != set(_ROLE_TENSORS):
        return f"blocks with the linear layers {sorted(roles)}"
    return None


@checks_model
def recipe_tensor_types(cfg: ModelConfig, recipe: str, *, imatrix: bool = False) -> list[GgufTensor]:
    """Every tensor llama.cpp's ``llama-quantize`` writes for ``cfg`` with file type ``recipe``, with its type.

    Parameters
    ----------
    cfg : llmcalc.ModelConfig
        A dense model with separate q, k, v projections (the ``llama`` layout:
        Llama, Mistral, Qwen2, ...); others are refused with the reason.
    recipe : str
        A llama-quantize file type, one of :data:`RECIPES` (Q8_0 down to Q2_K).
    imatrix : bool
        Whether an importance matrix was given (it changes IQ4_XS/IQ4_NL's first ``ffn_down``
        layers and Q4_0's).

    Examples
    --------
    Llama-3-8B as Q4_K_M: 32 layers, ``attn_v`` and ``ffn_down`` in Q6_K in 16 of them.

    >>> from collections import Counter
    >>> from llmcalc import get_preset
    >>> tensors = recipe_tensor_types(get_preset("llama-3-8b"), "Q4_K_M")
    >>> sorted(Counter(t.type_name for t in tensors).items())
    [('F32', 65), ('Q4_K', 193), ('Q6_K', 33)]
    """
    kind = check.choice("recipe", recipe, RECIPES)
    check.flag("imatrix", imatrix)
    refused = _refuse_recipe(cfg)
    if refused:
        raise ValueError(f"GGUF recipes are modelled for dense models with separate q, k, v projections, "
                         f"not {refused}; read the model's .gguf file instead")
    base = RECIPES[kind]
    n_layers = cfg.n_layers
    gqa = cfg.n_heads // cfg.n_kv_heads
    # llama-model.cpp: a llama with 80 layers and grouped KV heads is LLM_TYPE_70B (presets leave model_type empty)
    is_70b = cfg.model_type in ("llama", "") and n_layers == 80 and gqa > 1

    def layer_type(tensor: str, i: int, n_cols: int) -> str:
        chosen = base
        if tensor == "attn_v":
            chosen = _attn_v_type(kind, base, i, n_layers, gqa)
            if is_70b and chosen in ("Q3_K", "Q4_K"):
                chosen = "Q5_K"
        elif tensor == "ffn_down":
            chosen = _ffn_down_type(kind, base, i, n_layers, imatrix)
        elif tensor == "attn_output":
            chosen = {"Q2_K": "Q3_K", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K"}.get(kind, base)
        return _with_fallback(chosen, n_cols)

    def output_type(n_cols: int) -> str:
        if n_cols % GGML_TYPES[base].block_weights:
            return "Q8_0"
        return _with_fallback(base if base == "Q8_0" else "Q6_K", n_cols)

    d = cfg.d_model
    tensors: list[GgufTensor] = []
    embed_type = output_type(d) if cfg.tie_embeddings else _with_fallback(base, d)
    tensors.append(GgufTensor("token_embd.weight", (d, cfg.vocab_size), embed_type))
    modules = [m for m in linear_modules.unchecked(cfg) if m.role != "lm_head"]
    for i in range(n_layers):
        for module in modules:
            tensor = _ROLE_TENSORS[module.role]
            shape = (module.d_in, module.d_out)
            tensors.append(GgufTensor(f"blk.{i}.{tensor}.weight", shape, layer_type(tensor, i, module.d_in)))
            if module.bias:
                tensors.append(GgufTensor(f"blk.{i}.{tensor}.bias", (module.d_out,), "F32"))
    if not cfg.tie_embeddings:
        tensors.append(GgufTensor("output.weight", (d, cfg.vocab_size), output_type(d)))
    # Norms (and anything else one-dimensional) are not quantized: F32, one row of d_model per norm.
    rest = param_count.unchecked(cfg) - sum(m.params for m in linear_modules.unchecked(cfg)) - d * cfg.vocab_size
    if rest == (cfg.norms_per_layer * n_layers + 1) * d:
        for i in range(n_layers):
            tensors += [GgufTensor(f"blk.{i}.norm_{j}.weight", (d,), "F32") for j in range(cfg.norms_per_layer)]
        tensors.append(GgufTensor("output_norm.weight", (d,), "F32"))
    elif rest > 0:
        tensors.append(GgufTensor("norms.weight", (rest,), "F32"))
    return tensors


@checks_model
def recipe_weight_bytes(cfg: ModelConfig, recipe: str, *, imatrix: bool = False) -> int:
    """Bytes of every tensor :func:`recipe_tensor_types` lists: what llama.cpp prints as ``model size``.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> for recipe in RECIPES:
    ...     print(f"{recipe:7s} {recipe_weight_bytes(get_preset('llama-3-8b'), recipe) / GiB:.2f} GiB")
    Q8_0    7.95 GiB
    Q6_K    6.14 GiB
    Q5_K_M  5.33 GiB
    Q5_K_S  5.21 GiB
    Q5_1    5.64 GiB
    Q5_0    5.21 GiB
    Q4_K_M  4.58 GiB
    Q4_K_S  4.36 GiB
    Q4_1    4.77 GiB
    Q4_0    4.33 GiB
    IQ4_XS  4.17 GiB
    IQ4_NL  4.38 GiB
    Q3_K_L  4.02 GiB
    Q3_K_M  3.74 GiB
    Q3_K_S  3.41 GiB
    Q2_K    2.95 GiB
    """
    return sum(tensor.n_bytes for tensor in recipe_tensor_types.unchecked(cfg, recipe, imatrix=imatrix))


def kv_cache_type_bytes(n_ctx: int, n_layers: int, k_width: int, v_width: int, cache_type_k: str = "f16",
                        cache_type_v: str = "f16") -> dict[str, int]:
    """llama.cpp's K and V cache bytes: ``n_ctx * n_layers`` rows of ``k_width`` (``v_width``) elements each.

    ``k_width`` is ``n_head_kv * head_dim_k``; each row is stored in blocks of its type (q8_0,
    q4_0: 32 elements in 34, 18 bytes).

    Examples
    --------
    Llama-3-8B (32 layers, 8 KV heads of 128) at 8,192 tokens:

    >>> [sum(kv_cache_type_bytes(8192, 32, 1024, 1024, t, t).values()) // MiB for t in KV_CACHE_TYPES]
    [1024, 544, 288]
    """
    tokens = check.count("n_ctx", n_ctx)
    layers = check.count("n_layers", n_layers)
    parts = {}
    for part, width, kind in (("k", k_width, cache_type_k), ("v", v_width, cache_type_v)):
        ggml_type = GGML_TYPES[check.choice(f"cache_type_{part}", kind, KV_CACHE_TYPES).upper()]
        parts[part] = tokens * layers * ggml_type.row_bytes(check.count(f"{part}_width", width, minimum=0))
    return parts


# --- reading a .gguf file's header ---------------------------------------------------------------

GGUF_MAGIC = b"GGUF"
"""The four bytes a GGUF file starts with."""
GGUF_VERSIONS = (2, 3)
"""The GGUF versions :func:`read_gguf_header` reads."""
MAX_HEADER_BYTES = 256 * MiB
"""The most header bytes :func:`read_gguf_header` reads before it gives up (real headers hold a few MiB)."""
MAX_TENSORS = 1 << 20
"""The most tensors a header may declare; more is taken for a damaged file."""
MAX_KEYS = 1 << 20
"""The most metadata keys a header may declare; more is taken for a damaged file."""
READ_CHUNK = MiB
"""The header is read in slices of this size, so at most this much past its end is read, never the whole file."""
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


class GgufError(ValueError):
    """A file that is not a GGUF header llmcalc can read; the message says what and where."""


@dataclass(frozen=True)
class GgufHeader:
    """What a GGUF file's header says: version, metadata, tensor infos, and where the tensor data starts."""

    version: int
    metadata: Mapping[str, object]
    tensors: tuple[GgufTensor, ...]
    data_offset: int
    file_size: int

    @property
    def architecture(self) -> str:
        """``general.architecture``."""
        return str(self.metadata.get("general.architecture", ""))

    @property
    def weight_bytes(self) -> int:
        """Bytes of every tensor's data, what llama.cpp prints as ``model size``."""
        return sum(tensor.n_bytes for tensor in self.tensors)

    def type_counts(self) -> dict[str, int]:
        """Tensors per type, as llama.cpp's loader lists them (``- type q4_K: 193 tensors``)."""
        counts: dict[str, int] = {}
        for tensor in self.tensors:
            counts[tensor.type_name] = counts.get(tensor.type_name, 0) + 1
        return dict(sorted(counts.items()))


class _Reader:
    """Reads a byte stream front to back in :data:`READ_CHUNK` slices, never past :data:`MAX_HEADER_BYTES`."""

    def __init__(self, read_at: Callable[[int, int], bytes], file_size: int) -> None:
        self._read_at = read_at
        self.file_size = file_size
        self._buffer = b""
        self._start = 0
        self.position = 0
        self.bytes_read = 0

    def take(self, n: int, what: str) -> bytes:
        end = self.position + n
        if end > self.file_size:
            raise GgufError(f"the file is truncated: {what} at byte {self.position:,} needs {n:,} bytes, "
                            f"the file has {self.file_size:,}")
        if end > MAX_HEADER_BYTES:
            raise GgufError(f"the header is larger than {MAX_HEADER_BYTES // MiB} MiB ({what} at byte "
                            f"{self.position:,} needs {n:,} bytes); llmcalc reads headers of up to that size")
        while end > self._start + len(self._buffer):
            offset = self._start + len(self._buffer)
            size = min(max(READ_CHUNK, end - offset), self.file_size - offset)
            chunk = self._read_at(offset, size)
            if len(chunk) != size:
                raise GgufError(f"the file is truncated: could read {len(chunk):,} of {size:,} bytes at {offset:,}")
            self.bytes_read += size
            keep = self.position - self._start
            self._buffer = self._buffer[keep:] + chunk
            self._start += keep
        data = self._buffer[self.position - self._start:end - self._start]
        self.position = end
        return data

    def scalar(self, fmt: str, what: str) -> int | float | bool:
        value: int | float | bool = struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]
        return value

    def u32(self, what: str) -> int:
        return int(self.scalar("<I", what))

    def u64(self, what: str) -> int:
        return int(self.scalar("<Q", what))

    def string(self, what: str) -> str:
        length = self.u64(f"the length of {what}")
        if length > self.file_size - self.position:
            raise GgufError(f"{what} claims {length:,} bytes at byte {self.position:,}; the file has "
                            f"{self.file_size - self.position:,} left")
        try:
            return self.take(length, what).decode("utf-8")
        except UnicodeDecodeError as error:
            raise GgufError(f"{what} is not UTF-8 text ({error.reason} at byte {self.position:,})") from None


def _value(reader: _Reader, value_type: int, key: str, depth: int = 0) -> object:
    if value_type in _SCALARS:
        return reader.scalar(_SCALARS[value_type], f"the value of {key!r}")
    if value_type == _STRING:
        return reader.string(f"the value of {key!r}")
    if value_type == _ARRAY and depth == 0:
        item_type = reader.u32(f"the item type of {key!r}")
        count = reader.u64(f"the length of {key!r}")
        smallest = struct.calcsize(_SCALARS[item_type]) if item_type in _SCALARS else 8
        if item_type not in _SCALARS and item_type != _STRING:
            raise GgufError(f"{key!r} is an array of type {item_type}; GGUF arrays hold types 0-12 except arrays")
        if count * smallest > reader.file_size - reader.position:
            raise GgufError(f"{key!r} claims {count:,} items at byte {reader.position:,}; the file has "
                            f"{reader.file_size - reader.position:,} bytes left")
        if item_type in _SCALARS:
            fmt = _SCALARS[item_type]
            raw = reader.take(count * struct.calcsize(fmt), f"the items of {key!r}")
            return list(struct.unpack(f"<{count}{fmt[1:]}", raw))
        return [reader.string(f"item {i} of {key!r}") for i in range(count)]
    raise GgufError(f"{key!r} has value type {value_type}; GGUF value types are 0-12")


def _parse(reader: _Reader) -> GgufHeader:
    magic = reader.take(4, "the magic bytes")
    if magic != GGUF_MAGIC:
        raise GgufError(f"not a GGUF file: it starts with {magic!r}, a GGUF file with b'GGUF'")
    version = reader.u32("the version")
    if version not in GGUF_VERSIONS:
        newer = " (newer than llmcalc knows)" if version > GGUF_VERSIONS[-1] else ""
        raise GgufError(f"GGUF version {version}{newer}; llmcalc reads versions "
                        f"{', '.join(map(str, GGUF_VERSIONS))}")
    n_tensors = reader.u64("the tensor count")
    n_keys = reader.u64("the metadata count")
    if n_tensors > MAX_TENSORS or n_keys > MAX_KEYS:
        raise GgufError(f"the header claims {n_tensors:,} tensors and {n_keys:,} metadata keys; llmcalc reads "
                        f"up to {MAX_TENSORS:,} of each")
    metadata: dict[str, object] = {}
    for index in range(n_keys):
        key = reader.string(f"metadata key {index}")
        metadata[key] = _value(reader, reader.u32(f"the type of {key!r}"), key)
    tensors = []
    for index in range(n_tensors):
        name = reader.string(f"the name of tensor {index}")
        n_dims = reader.u32(f"the dimensions of {name!r}")
        if not 1 <= n_dims <= 4:
            raise GgufError(f"tensor {name!r} has {n_dims} dimensions; ggml's tensors have 1 to 4")
        shape = tuple(reader.u64(f"a dimension of {name!r}") for _ in range(n_dims))
        type_id = reader.u32(f"the type of {name!r}")
        offset = reader.u64(f"the offset of {name!r}")
        if type_id not in _TYPES_BY_ID:
            raise GgufError(f"tensor {name!r} has ggml type {type_id}, which llmcalc does not know "
                            f"(known: {', '.join(str(i) for i in sorted(_TYPES_BY_ID))})")
        tensor = GgufTensor(name, shape, _TYPES_BY_ID[type_id].name)
        if min(shape) < 1 or tensor.n_weights > 1 << 50:
            raise GgufError(f"tensor {name!r} has shape {list(shape)}; each dimension must be 1 or more, "
                            "and the tensor at most 2**50 elements")
        try:
            size = tensor.n_bytes
        except ValueError as error:
            raise GgufError(f"tensor {name!r}: {error}") from None
        tensors.append((tensor, offset, size))
    alignment = metadata.get("general.alignment", 32)
    if not isinstance(alignment, int) or isinstance(alignment, bool) or alignment < 1 or alignment & (alignment - 1):
        raise GgufError(f"general.alignment is {alignment!r}; it must be a power of two")
    data_offset = -(-reader.position // alignment) * alignment
    for tensor, offset, size in tensors:
        end = data_offset + offset + size
        if end > reader.file_size:
            raise GgufError(f"the file is truncated: tensor {tensor.name!r} ends at byte {end:,}, "
                            f"the file has {reader.file_size:,}")
    return GgufHeader(version, metadata, tuple(t for t, _, _ in tensors), data_offset, reader.file_size)


def read_gguf_header(source: str | os.PathLike[str] | BinaryIO) -> GgufHeader:
    """Read a ``.gguf`` file's header only: its metadata and tensor infos, never its tensor data.

    The header is read in :data:`READ_CHUNK` slices up to :data:`MAX_HEADER_BYTES`; every count
    and length is checked against the bytes the file has left before anything is read, so a
    truncated, foreign, newer or absurd file is refused at once (:class:`GgufError`).

    Examples
    --------
    >>> import io
    >>> read_gguf_header(io.BytesIO(b"PK\\x03\\x04 a zip file"))
    Traceback (most recent call last):
    ...
    llmcalc.gguf.GgufError: not a GGUF file: it starts with b'PK\\x03\\x04', a GGUF file with b'GGUF'
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as opened:
            return read_gguf_header(opened)
    handle: BinaryIO = source
    size = handle.seek(0, os.SEEK_END)

    def read_at(offset: int, n: int) -> bytes:
        handle.seek(offset)
        return handle.read(n)

    return _parse(_Reader(read_at, size))


# --- the plan -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GgufModel:
    """What a plan needs from a GGUF model: its shape, trained context and tensor bytes.

    ``embedding_bytes`` is ``token_embd``'s share of ``weight_bytes``: llama.cpp keeps that
    tensor in host memory (see :func:`plan_gguf`).  ``layer_bytes`` holds each repeating layer's
    tensors (``blk.N.*``) and ``output_bytes`` the output layer's (every other tensor but
    ``token_embd``, and ``token_embd`` again when tied), as :func:`layer_split` counts them; a
    model without them is planned with every layer on the GPU only.  ``tied_embeddings``: the model has no
    ``output.weight`` and llama.cpp loads ``token_embd`` a second time as the output matrix, on
    the GPU.  ``n_embd``, ``n_head``, ``n_ff`` and ``n_vocab`` size the compute buffer
    (:func:`compute_buffer_estimate`).  ``sliding_window`` is llama.cpp's ``n_swa`` where its
    architecture keeps a separate cache for the sliding-window layers, which ``swa_layers`` marks
    (one flag per layer with a cache, :func:`swa_layer_flags`); ``window_not_applied`` is a window the
    model has but llama.cpp's architecture ignores (:data:`WINDOW_NOT_APPLIED`).
    """

    architecture: str
    n_layers: int
    k_width: int
    v_width: int
    trained_context: int
    weight_bytes: int
    n_embd: int
    n_head: int
    n_ff: int
    n_vocab: int
    embedding_bytes: int
    tied_embeddings: bool = False
    layer_bytes: tuple[int, ...] = ()
    output_bytes: int = 0
    sliding_window: int = 0
    swa_layers: tuple[bool, ...] = ()
    window_not_applied: int = 0

    @property
    def gpu_weight_bytes(self) -> int:
        """Bytes llama.cpp puts on the GPU with every layer offloaded, every tensor but the input embedding."""
        return self.weight_bytes - (0 if self.tied_embeddings else self.embedding_bytes)

    @property
    def offloadable_layers(self) -> int:
        """What ``-ngl`` counts: the repeating layers and the output layer (llama.cpp's "offloaded 33/33 layers")."""
        return len(self.layer_bytes) + 1


def gguf_model(header: GgufHeader) -> GgufModel:
    """The plan's view of a header: llama.cpp's ``{arch}.*`` hyper-parameters; refuses caches it does not model.

    The KV width is ``head_count_kv * key_length`` (``key_length`` defaults to
    ``embedding_length / head_count``, as llama.cpp's ``llama_hparams`` does); per-layer head counts
    (arrays) are summed layer by layer.  A sliding window (``attention.sliding_window``) is planned
    for the architectures of :data:`SWA_ARCHITECTURES` (two caches) and :data:`WINDOW_NOT_APPLIED`
    (one, as llama.cpp ignores the window) and refused for the others; latent-attention
    (``kv_lora_rank``) and recurrent (``ssm``) caches are refused: llama.cpp sizes them differently.
    """
    meta = header.metadata
    arch = header.architecture
    if not arch:
        raise GgufError("the header has no general.architecture")

    def key(name: str, default: object = None) -> object:
        value = meta.get(f"{arch}.{name}", default)
        if value is None:
            raise GgufError(f"the header has no {arch}.{name}")
        return value

    unsupported_caches = (("attention.kv_lora_rank", "latent attention (MLA)"), ("ssm.state_size", "a recurrent state"))
    window_key = f"{arch}.attention.sliding_window"
    if arch in SWA_NOT_MODELLED:
        raise GgufError(f"{arch} may use sliding-window attention with or without {window_key}; llmcalc does not "
                        "model llama.cpp's cache for it")
    if window_key in meta and arch not in SWA_ARCHITECTURES and arch not in WINDOW_NOT_APPLIED:
        raise GgufError(f"{arch} uses sliding-window attention ({window_key}); llmcalc models llama.cpp's cache for "
                        f"it in {', '.join(SWA_ARCHITECTURES)} (and {', '.join(WINDOW_NOT_APPLIED)}, which ignore it), "
                        f"not in {arch}")
    for unsupported, why in unsupported_caches:
        if f"{arch}.{unsupported}" in meta:
            raise GgufError(f"{arch} uses {why} ({arch}.{unsupported}); llmcalc does not model llama.cpp's cache "
                            "for it")
    n_layers = int(key("block_count"))  # type: ignore[call-overload]
    n_embd = int(key("embedding_length"))  # type: ignore[call-overload]
    heads = key("attention.head_count")
    kv_heads = key("attention.head_count_kv", heads)

    def per_layer(value: object) -> list[int]:
        values = [int(v) for v in value] if isinstance(value, list) else [int(value)] * n_layers  # type: ignore[call-overload]
        if len(values) != n_layers:
            raise GgufError(f"{arch} lists {len(values)} per-layer head counts for {n_layers} layers")
        return values

    head_counts, kv_counts = per_layer(heads), per_layer(kv_heads)
    if max(head_counts) < 1:
        raise GgufError(f"{arch}.attention.head_count is {heads!r}")
    head_k = int(meta.get(f"{arch}.attention.key_length", n_embd // max(head_counts)))  # type: ignore[call-overload]
    head_v = int(meta.get(f"{arch}.attention.value_length", head_k))  # type: ignore[call-overload]
    kv_layers = [n for n in kv_counts if n]  # layers without KV heads keep no cache
    if len(set(kv_layers)) > 1:
        raise GgufError(f"{arch} has different KV head counts per layer; llmcalc plans one width for all layers")
    width = kv_layers[0] if kv_layers else 0
    context = int(meta.get(f"{arch}.context_length", 0))  # type: ignore[call-overload]
    by_name = {tensor.name: tensor for tensor in header.tensors}
    embedding = by_name.get("token_embd.weight")
    if embedding is None or len(embedding.shape) != 2:
        raise GgufError("the header has no two-dimensional token_embd.weight; llmcalc plans llama.cpp's "
                        "text models, which read their input through it")
    n_ff = max(per_layer(key("feed_forward_length")))
    tied = "output.weight" not in by_name
    layers, output = layer_split(header.tensors, n_layers, tied=tied)
    window, swa_layers = _header_window(meta, arch, n_layers)
    if swa_layers and len(kv_layers) != n_layers:
        raise GgufError(f"{arch} has layers without a KV cache and sliding-window layers; llmcalc plans one or the "
                        "other")
    return GgufModel(arch, len(kv_layers), width * head_k, width * head_v, context, header.weight_bytes,
                     n_embd=n_embd, n_head=max(head_counts), n_ff=n_ff, n_vocab=embedding.shape[1],
                     embedding_bytes=embedding.n_bytes, tied_embeddings=tied, layer_bytes=layers,
                     output_bytes=output, sliding_window=window, swa_layers=swa_layers,
                     window_not_applied=_int_value(meta.get(f"{arch}.attention.sliding_window", 0), arch)
                     if arch in WINDOW_NOT_APPLIED else 0)


def _int_value(value: object, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GgufError(f"{key} is {value!r}; it must be a whole number of 0 or more")
    return value


def _header_window(meta: Mapping[str, object], arch: str, n_layers: int) -> tuple[int, tuple[bool, ...]]:
    """llama.cpp's ``n_swa`` and SWA layers for a header (``load_arch_hparams``): (0, ()) without SWA."""
    if arch not in SWA_ARCHITECTURES:
        return 0, ()
    period, default_window, required = SWA_ARCHITECTURES[arch]
    key = f"{arch}.attention.sliding_window"
    if key not in meta and required:
        raise GgufError(f"the header has no {key}, which llama.cpp requires for {arch}")
    window = _int_value(meta.get(key, default_window), key)
    if not window:
        if not required:
            return 0, ()
        raise GgufError(f"{key} is 0; llama.cpp's {arch} keeps a sliding-window cache, whose window must be 1 or more")
    # get_key_or_arr into a number: an array pattern is passed over and the default period stays
    pattern = meta.get(f"{arch}.attention.sliding_window_pattern", period)
    flags = swa_layer_flags(n_layers, _int_value(pattern, f"{arch}.attention.sliding_window_pattern")
                            if not isinstance(pattern, list) else period)
    if not any(flags):
        raise GgufError(f"{arch}.attention.sliding_window_pattern {pattern!r} leaves no sliding-window layer; "
                        "llama.cpp stops on such a file")
    return window, flags


def layer_split(tensors: Iterable[GgufTensor], n_blocks: int, *, tied: bool) -> tuple[tuple[int, ...], int]:
    """Bytes of each repeating layer (the tensors named ``blk.N.*``) and of the output layer.

    The output layer is every other tensor but ``token_embd`` (the output matrix, the final norm),
    plus ``token_embd`` once more when the model is ``tied``: llama.cpp then loads it a second
    time as the output matrix, where the output layer goes (src/llama-model.cpp at 0034230,
    ``load_tensors``).

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> layers, output = layer_split(recipe_tensor_types(get_preset("llama-3-8b"), "Q4_K_M"), 32, tied=False)
    >>> len(layers), layers[0] // 1024, layers[4] // 1024, output // 1024
    (32, 135680, 119840, 420856)
    """
    layers = [0] * check.count("n_blocks", n_blocks)
    output = 0
    for tensor in tensors:
        name = tensor.name
        if name.startswith("blk."):
            index = name.split(".", 2)[1]
            if not index.isdigit() or int(index) >= n_blocks:
                raise GgufError(f"the tensor {name!r} names a layer beyond the {n_blocks} of the header")
            layers[int(index)] += tensor.n_bytes
        elif name != "token_embd.weight" or tied:
            output += tensor.n_bytes
    return tuple(layers), output


RESERVE = 512 * MiB
"""What the plan sets aside for the CUDA context and llama.cpp's small host-visible buffers, an assumption."""
CONTEXT_PADDING = 256
"""llama.cpp pads the context to a multiple of this many cells (``GGML_PAD(n_ctx, 256)``)."""
UBATCH = 512
"""llama.cpp's default micro-batch (``-ub``, ``n_ubatch``), the tokens of the graph it reserves memory for."""
MAX_UBATCH = 1 << 16
"""The largest micro-batch a plan takes."""
MAX_PARALLEL = 256
"""The most sequences (``-np``) a plan takes: llama.cpp's ``LLAMA_MAX_SEQ`` (src/llama-cparams.h at 6c8dcaa)."""
LLAMA_SERVER_SLOTS = 4
"""The slots llama-server starts without ``-np``, sharing one unified cache (:func:`llama_server_slots`)."""
_F32 = 4


def llama_server_slots(parallel: int | None, *, kv_unified: bool = False) -> tuple[int, bool]:
    """The sequences and the cache layout llama-server runs for the ``-np`` and ``--kv-unified`` it is started with.

    Without ``-np`` (``None``: llama-server's default ``-1``, "auto") it runs :data:`LLAMA_SERVER_SLOTS` slots in
    one unified cache, whatever ``--kv-unified`` says; with ``-np N`` it runs ``N`` slots, each with a stream of
    its own unless ``--kv-unified`` (tools/server/server.cpp since llama.cpp PR 17997, merged December 2025: "if
    (params.n_parallel < 0)"; the same in builds b9265 and b10621, on either side of :data:`LLAMA_CPP_SWA_SOURCE`'s
    b10256).  The builds from PR 16736 to PR 17997 (b7079 to b7342 among them) did it to an ``-np`` of 1 instead,
    given or not, unless ``--kv-unified`` or a draft model for speculative decoding, which no plan holds.

    Examples
    --------
    >>> llama_server_slots(None), llama_server_slots(None, kv_unified=False), llama_server_slots(1)
    ((4, True), (4, True), (1, False))
    >>> llama_server_slots(4), llama_server_slots(4, kv_unified=True)
    ((4, False), (4, True))
    """
    unified = check.flag("kv_unified", kv_unified)
    if parallel is None:
        return LLAMA_SERVER_SLOTS, True
    return check.count("parallel", parallel, maximum=MAX_PARALLEL), unified


def _ggml_pad(value: int) -> int:
    """``GGML_PAD(value, 256)``: ``value`` rounded up to a multiple of :data:`CONTEXT_PADDING`."""
    return -(-value // CONTEXT_PADDING) * CONTEXT_PADDING


SWA_ARCHITECTURES: Mapping[str, tuple[int, int, bool]] = {
    "gemma2": (2, 4096, False), "gemma3": (6, 0, False), "cohere2": (4, 0, True), "gpt-oss": (2, 0, True)}
"""The llama.cpp architectures whose sliding-window (SWA) cache a plan models, with three rules each.

The SWA period (``set_swa_pattern``'s ``n_pattern``, which ``{arch}.attention.sliding_window_pattern``
replaces when it is a number), the window when ``{arch}.attention.sliding_window`` is absent (Gemma 2:
4,096), and whether llama.cpp requires that key (a file without it, or with 0, is refused; where it is
optional, no window means no SWA cache, as for a Gemma 3 file without one), as ``load_arch_hparams`` in
``src/models/*.cpp`` at :data:`LLAMA_CPP_SWA_SOURCE` sets them."""
WINDOW_NOT_APPLIED = ("llama", "phi3")
"""The llama.cpp architectures that keep every layer's full cache although the model has a window.

``llama`` (Mistral 7B's ``MistralForCausalLM`` converts to it) never reads ``sliding_window``; ``phi3``
reads it and switches it off ("Phi SWA is currently disabled")."""
SWA_NOT_MODELLED = ("exaone4", "llama4")
"""The llama.cpp architectures that may keep a sliding-window cache without ``{arch}.attention.sliding_window``.

Llama 4's chunked attention (a window of 8,192 unless the key says 0) and EXAONE 4's 32B (a window of 4,096
by its layer count) are not modelled: their files are refused by name, window key or not."""
# transformers' model_type -> the llama.cpp architecture convert_hf_to_gguf.py writes, for presets with a window
_LLAMA_CPP_ARCH = {"gemma2": "gemma2", "gemma3": "gemma3", "gemma3_text": "gemma3", "cohere2": "cohere2",
                   "gpt_oss": "gpt-oss", "mistral": "llama", "llama": "llama", "": "llama", "phi3": "phi3"}


def swa_layer_flags(n_layers: int, period: int) -> tuple[bool, ...]:
    """Which layers llama.cpp treats as sliding-window layers (``llama_hparams::set_swa_pattern``).

    Layer ``il`` is an SWA layer when ``il % period < period - 1``: the last layer of each
    ``period`` attends to the whole context; a period of 0 makes every layer an SWA layer.

    Examples
    --------
    Gemma 3 (period 6) with 26 layers: full attention in layers 5, 11, 17 and 23.

    >>> flags = swa_layer_flags(26, 6)
    >>> sum(flags), [il for il, swa in enumerate(flags) if not swa]
    (22, [5, 11, 17, 23])
    """
    layers = check.count("n_layers", n_layers)
    pattern = check.count("period", period, minimum=0)
    return tuple(pattern == 0 or il % pattern < pattern - 1 for il in range(layers))


def swa_cache_cells(cells: int, window: int, *, ubatch: int = UBATCH, swa_full: bool = False,
                    parallel: int = 1, kv_unified: bool = False) -> int:
    """Cells of llama.cpp's SWA cache (per stream): ``GGML_PAD(min(n_ctx_seq, n_swa + n_ubatch), 256)``.

    ``cells`` is the full cache's size per stream (:func:`cache_streams`), ``ubatch`` the
    micro-batch llama.cpp uses, at most the context.  A unified cache (``--kv-unified``) shared by
    ``parallel`` sequences keeps a window for each: ``n_swa * n_seq_max + n_ubatch``; without it
    each sequence has its own stream and window.  ``--swa-full`` gives the SWA layers ``cells``
    (``llama_kv_cache_iswa``'s constructor, src/llama-kv-cache-iswa.cpp at :data:`LLAMA_CPP_SWA_SOURCE`).

    Examples
    --------
    Gemma 3 1B's 512-token window at a 32,768-token context, and Gemma 2's 4,096 at 8,192:

    >>> swa_cache_cells(32768, 512), swa_cache_cells(8192, 4096), swa_cache_cells(32768, 512, swa_full=True)
    (1024, 4608, 32768)

    gpt-oss's 128-token window, micro-batch 1,024, for 2 sequences with separate streams and for
    4 sharing a unified cache:

    >>> swa_cache_cells(131072, 128, ubatch=1024, parallel=2), swa_cache_cells(131072, 128, parallel=4, kv_unified=True)
    (1280, 1024)
    """
    size = check.count("cells", cells)
    check.flag("swa_full", swa_full)
    sequences = check.count("parallel", parallel, maximum=MAX_PARALLEL)
    if swa_full:
        return size
    windows = check.count("window", window) * (sequences if check.flag("kv_unified", kv_unified) else 1)
    wanted = windows + check.count("ubatch", ubatch, maximum=MAX_UBATCH)
    return _ggml_pad(min(size, wanted))


def cache_streams(context: int, *, parallel: int = 1, kv_unified: bool = False) -> tuple[int, int]:
    """llama.cpp's cells per stream (``n_ctx_seq``) and streams for ``context`` tokens and ``parallel`` sequences.

    llama.cpp pads the context to 256 cells; a unified cache is one stream of them, otherwise each
    of the ``n_seq_max`` sequences gets its own stream of ``GGML_PAD(n_ctx / n_seq_max, 256)``
    cells (``llama_context``'s constructor, src/llama-context.cpp at :data:`LLAMA_CPP_SWA_SOURCE`).
    ``parallel`` is llama-server's ``-np`` (``n_seq_max``), 1 to :data:`MAX_PARALLEL`.

    Examples
    --------
    >>> cache_streams(262144, parallel=2), cache_streams(262144, parallel=2, kv_unified=True)
    ((131072, 2), (262144, 1))
    >>> cache_streams(4096, parallel=3)
    (1536, 3)
    """
    tokens = check.count("context", context, maximum=MAX_CONTEXT)
    sequences = check.count("parallel", parallel, maximum=MAX_PARALLEL)
    cells = _ggml_pad(tokens)  # llama-context.cpp: GGML_PAD(cparams.n_ctx, 256)
    if check.flag("kv_unified", kv_unified) or sequences == 1:
        return cells, 1
    return _ggml_pad(cells // sequences), sequences


@dataclass(frozen=True)
class KvCache:
    """One of llama.cpp's KV caches: cells per stream, the layers that keep it, its bytes (of every stream) and streams.

    ``window`` 0 is the full-attention cache; ``streams`` is 1 but for ``-np`` sequences without a
    unified cache (:func:`cache_streams`).
    """

    window: int
    cells: int
    layers: int
    bytes: int
    streams: int = 1

    def as_dict(self) -> dict[str, int]:
        """The cache as the CLI's ``--json`` gives it."""
        return {"window": self.window, "cells": self.cells, "layers": self.layers, "bytes": self.bytes,
                "streams": self.streams}


def kv_caches(model: GgufModel, context: int, *, cache_type_k: str = "f16", cache_type_v: str = "f16",
              ubatch: int = UBATCH, swa_full: bool = False, parallel: int = 1,
              kv_unified: bool = False) -> tuple[KvCache, ...]:
    """llama.cpp's KV caches for ``model`` at ``context`` tokens: one, or the full and the SWA cache.

    Every cache holds ``streams * cells * layers * (K row + V row)`` bytes (:func:`kv_cache_type_bytes`).
    The full cache has the context padded to 256 cells, split into ``parallel`` streams unless
    ``kv_unified`` (:func:`cache_streams`); a model with sliding-window layers keeps
    theirs in a second cache of :func:`swa_cache_cells` (``llama_kv_cache_iswa``), whose
    micro-batch is ``min(context, ubatch)`` (llama.cpp caps ``n_batch``, and so ``n_ubatch``, at
    the context asked for).

    Examples
    --------
    Gemma 3 1B as Q4_K_M at 32,768 tokens: 4 full-attention layers keep 32,768 cells, the 22
    sliding-window layers 1,024 (a 512-token window and a 512-token micro-batch):

    >>> from llmcalc import get_preset
    >>> gemma = model_from_config(get_preset("gemma-3-1b"), "Q4_K_M")
    >>> [(c.window, c.cells, c.layers, c.bytes // MiB) for c in kv_caches(gemma, 32768)]
    [(0, 32768, 4, 128), (512, 1024, 22, 22)]

    Four slots sharing a unified cache: the SWA layers keep 4 windows (4 x 512 + 512 cells);
    four slots with a stream each keep 4 x 8,192 cells and 4 x 1,024:

    >>> [(c.cells, c.streams) for c in kv_caches(gemma, 32768, parallel=4, kv_unified=True)]
    [(32768, 1), (2560, 1)]
    >>> [(c.cells, c.streams) for c in kv_caches(gemma, 32768, parallel=4)]
    [(8192, 4), (1024, 4)]
    """
    tokens = check.count("context", context, maximum=MAX_CONTEXT)
    cells, streams = cache_streams(tokens, parallel=parallel, kv_unified=kv_unified)
    row = sum(kv_cache_type_bytes(1, 1, model.k_width, model.v_width, cache_type_k, cache_type_v).values())
    n_swa = sum(model.swa_layers)
    full = KvCache(0, cells, model.n_layers - n_swa, streams * cells * (model.n_layers - n_swa) * row, streams)
    if not n_swa:
        return (full,)
    swa_cells = swa_cache_cells(cells, model.sliding_window, ubatch=min(tokens, ubatch), swa_full=swa_full,
                                parallel=parallel, kv_unified=kv_unified)
    return full, KvCache(model.sliding_window, swa_cells, n_swa, streams * swa_cells * n_swa * row, streams)



def compute_buffer_estimate(model: GgufModel, cells: int, *, ubatch: int = UBATCH,
                            flash_attention: bool = False) -> int:
    """An estimate of llama.cpp's GPU compute buffer: the largest set of tensors its worst-case graph keeps at once.

    llama.cpp sizes the buffer by building the graph of a full micro-batch (``min(n_ctx, n_ubatch)``
    tokens, every one an output) against a full cache (``n_kv`` = the context's cells) and letting
    ``ggml_gallocr`` place its tensors, reusing memory once a tensor's last reader has run
    (``llama_context::sched_reserve``, src/llama-context.cpp at 001d906).  This function does not
    replay the allocator; it takes the largest of three moments of that graph, each counted in
    F32 activations of ``u`` tokens:

    * **attention**: the scores ``KQ`` (``n_kv × u × n_head``, absent with flash attention), the
      KQ mask copied to the GPU (``n_kv × u``, F32, plus its F16 cast with flash attention) and
      four ``u × n_embd`` activations (the residual, the normed input, Q, the attention output);
    * **output**: the logits of every token (``n_vocab × u``) and the final normed activations;
    * **feed-forward**: gate and up (``2 × u × n_ff``) and two ``u × n_embd`` activations.

    It is an estimate.  On the published load logs of ``tests/data/llamacpp_runs.json`` (CUDA,
    every layer offloaded, 512 to 32,768 tokens) it gives the printed ``CUDA0 compute buffer size``
    to the 0.01 MiB in the six runs without flash attention and in one of the two with it; for
    GLM-Z1 32B with flash attention it gives 308 MiB where llama.cpp printed 353 (−12.7 %).

    Examples
    --------
    Mistral 7B v0.2 at 32,000 tokens, micro-batch 512, no flash attention: llama.cpp b2961
    printed ``CUDA0 compute buffer size = 2094.50 MiB`` (llama.cpp issue 7450).

    >>> mistral = GgufModel("llama", 32, 1024, 1024, 32768, 0, n_embd=4096, n_head=32, n_ff=14336,
    ...                     n_vocab=32000, embedding_bytes=0)
    >>> compute_buffer_estimate(mistral, 32000) / MiB
    2094.5
    """
    tokens = min(cells, check.count("ubatch", ubatch, maximum=MAX_UBATCH))
    activation = tokens * model.n_embd * _F32
    mask = cells * tokens * (_F32 + (2 if flash_attention else 0))
    scores = 0 if flash_attention else cells * tokens * model.n_head * _F32
    attention = scores + mask + 4 * activation
    output = model.n_vocab * tokens * _F32 + activation
    feed_forward = 2 * tokens * model.n_ff * _F32 + 2 * activation
    return max(attention, output, feed_forward)


def host_buffers(model: GgufModel, cells: int, *, ubatch: int = UBATCH, parallel: int = 1) -> dict[str, int]:
    """Host memory llama.cpp takes besides the mapped file: the input embedding, its compute buffer, the outputs.

    ``token_embd`` stays in host memory (src/llama-model.cpp at 0034230, ``load_tensors``: "there is
    very little benefit to offloading the input layer, so always keep it on the CPU"); it is printed
    as ``CPU buffer size`` (or ``CPU_Mapped model buffer size``).  The host compute buffer holds
    the graph's inputs, which llama.cpp's scheduler keeps on the CPU: the KQ mask (F32), the
    embedding rows ``get_rows`` reads there, and the token, position and output ids (an estimate,
    as :func:`compute_buffer_estimate`).  The output buffer holds a row of logits for each of the
    ``parallel`` sequences at start (``n_outputs_max = n_seq_max``).

    Examples
    --------
    >>> m = GgufModel("llama", 32, 1024, 1024, 32768, 0, n_embd=4096, n_head=32, n_ff=14336, n_vocab=32000,
    ...               embedding_bytes=43_008_000)
    >>> {part: round(size / MiB, 2) for part, size in host_buffers(m, 2048).items()}
    {'token_embd': 41.02, 'compute_buffer': 12.01, 'output_buffer': 0.12}
    """
    tokens = min(cells, check.count("ubatch", ubatch, maximum=MAX_UBATCH))
    inputs = cells * tokens * _F32 + tokens * model.n_embd * _F32 + 3 * tokens * 4  # mask, rows, i32 ids
    outputs = check.count("parallel", parallel, maximum=MAX_PARALLEL)
    return {"token_embd": model.embedding_bytes, "compute_buffer": inputs,
            "output_buffer": outputs * model.n_vocab * _F32}


@dataclass(frozen=True)
class GgufPlan:
    """Bytes of a llama.cpp run: the GPU's parts and the host's.

    ``compute_estimated`` says whether ``compute_buffer`` is :func:`compute_buffer_estimate`'s
    figure (True) or one the reader gave (False).  ``gpu_layers`` is what llama.cpp prints as
    "offloaded N/M layers" (``None``: every layer, the output layer included).  ``kv_caches`` are
    the caches of every layer (:func:`kv_caches`), ``kv_cache`` the part of them on the GPU.
    """

    weights: int
    kv_cache: int
    compute_buffer: int
    reserve: int
    compute_estimated: bool
    host: Mapping[str, int]
    gpu_layers: int | None = None
    kv_caches: tuple[KvCache, ...] = ()

    @property
    def total(self) -> int:
        """The GPU's parts together."""
        return self.weights + self.kv_cache + self.compute_buffer + self.reserve

    @property
    def host_total(self) -> int:
        """The host's parts together (the file itself is mapped, not counted)."""
        return sum(self.host.values())


def plan_gguf(model: GgufModel, *, context: int, cache_type_k: str = "f16", cache_type_v: str = "f16",
              flash_attention: bool = False, compute_buffer: int | None = None, ubatch: int = UBATCH,
              n_gpu_layers: int | None = None, swa_full: bool = False, parallel: int = 1,
              kv_unified: bool = False) -> GgufPlan:
    """Memory of a llama.cpp run: the model's tensors but its input embedding, the KV cache, a compute buffer, reserve.

    llama.cpp rounds the context up to a multiple of :data:`CONTEXT_PADDING` (256) before it makes
    the cache (``src/llama-context.cpp``, commit 001d906: ``cparams.n_ctx = GGML_PAD(cparams.n_ctx,
    256)``), so ``-c 5000`` holds 5,120 cells; and it refuses a quantized V cache without flash
    attention (the same file).  The token embedding stays on the host (:func:`host_buffers`); a
    model without ``output.weight`` loads it again on the GPU as its output matrix.  Without a
    ``compute_buffer`` the plan takes :func:`compute_buffer_estimate`'s.

    ``n_gpu_layers`` is llama.cpp's ``-ngl`` (``None``: every layer).  llama.cpp puts the last
    ``n_gpu_layers`` repeating layers on the GPU, and the output layer too once ``n_gpu_layers``
    exceeds the repeating layers (src/llama-model.cpp at 0034230, ``load_tensors``: ``i_gpu_start
    = n_layer - n_gpu_layers``; the output layer is "layer" ``n_layer``); the rest stays in host
    memory, and so does the KV cache of the layers left there (``offload_kqv``, on by default,
    keeps each layer's cache with the layer).  The compute buffer is estimated as for a full
    offload (checked on full offloads only); with partial offload llama.cpp adds a host compute
    buffer that the plan does not count.

    ``parallel`` is llama-server's ``-np`` (its sequences, ``n_seq_max``) and ``kv_unified`` its
    ``--kv-unified``; they size the caches (:func:`kv_caches`) and the outputs; the compute buffer
    is estimated for one stream's cells (checked with one sequence only).

    Mixtral 8x7B in Q8_0 with 10 of 33 layers on the GPU: llama.cpp printed ``CUDA0 buffer size =
    14705.94 MiB`` (llama.cpp pull request 4957; tests/test_gguf_offload.py counts its tensors).

    Examples
    --------
    >>> m = GgufModel("llama", 32, 1024, 1024, 8192, 4_920_733_696, n_embd=4096, n_head=32, n_ff=14336,
    ...               n_vocab=128256, embedding_bytes=295_501_824)
    >>> p = plan_gguf(m, context=8192, cache_type_k="q8_0", cache_type_v="q8_0", flash_attention=True)
    >>> p.kv_cache // MiB, p.compute_buffer / MiB, p.compute_estimated, round(p.total / GiB, 2)
    (544, 258.5, True, 5.59)
    >>> plan_gguf(m, context=8192, cache_type_v="q4_0")
    Traceback (most recent call last):
    ...
    ValueError: cache_type_v 'q4_0' needs flash attention (llama.cpp refuses a quantized V cache without -fa)

    With ``-ngl 16`` Llama 3 8B in Q4_K_M keeps its last 16 layers on the GPU and the first 16,
    their cache and the output matrix on the host:

    >>> from llmcalc import get_preset
    >>> llama3 = model_from_config(get_preset("llama-3-8b"), "Q4_K_M")
    >>> half = plan_gguf(llama3, context=8192, n_gpu_layers=16)
    >>> half.gpu_layers, round(half.weights / MiB, 2), half.kv_cache // MiB, round(half.host["layers"] / MiB, 2)
    (16, 1996.25, 512, 2407.24)
    """
    tokens = check.count("context", context, maximum=MAX_CONTEXT)
    check.flag("flash_attention", flash_attention)
    if cache_type_v != "f16" and not flash_attention:
        raise ValueError(f"cache_type_v {cache_type_v!r} needs flash attention "
                         "(llama.cpp refuses a quantized V cache without -fa)")
    caches = kv_caches(model, tokens, cache_type_k=cache_type_k, cache_type_v=cache_type_v, ubatch=ubatch,
                       swa_full=swa_full, parallel=parallel, kv_unified=kv_unified)
    cells = caches[0].cells  # one stream of the full cache: what the compute buffer and the outputs are sized for
    kv = sum(cache.bytes for cache in caches)
    estimated = compute_buffer is None
    buffer = compute_buffer_estimate(model, cells, ubatch=ubatch, flash_attention=flash_attention) \
        if compute_buffer is None else check.count("compute_buffer", compute_buffer, minimum=0)
    host = {**host_buffers(model, cells, ubatch=ubatch, parallel=parallel), "layers": 0, "kv_cache": 0}
    if n_gpu_layers is None:
        return GgufPlan(model.gpu_weight_bytes, kv, buffer, RESERVE, estimated, host, kv_caches=caches)
    if not model.layer_bytes:
        raise ValueError("partial offload needs each layer's bytes, which this model does not give; "
                         "read its .gguf file or plan it from a preset and a recipe")
    gpu_layers = min(check.count("n_gpu_layers", n_gpu_layers, minimum=0), model.offloadable_layers)
    n_blocks = len(model.layer_bytes)
    first_on_gpu = n_blocks - min(gpu_layers, n_blocks)
    on_gpu = sum(model.layer_bytes[first_on_gpu:]) + (model.output_bytes if gpu_layers > n_blocks else 0)
    on_host = sum(model.layer_bytes[:first_on_gpu]) + (0 if gpu_layers > n_blocks else model.output_bytes)
    # Each layer's cache stays with the layer; an SWA layer's is the SWA cache's share.
    full, *swa = caches
    layer_cache = {False: full.bytes // max(1, full.layers), True: swa[0].bytes // swa[0].layers if swa else 0}
    flags = model.swa_layers or (False,) * model.n_layers
    kv_on_gpu = sum(layer_cache[flag] for flag in flags[model.n_layers - min(gpu_layers, model.n_layers):])
    host.update(layers=on_host, kv_cache=kv - kv_on_gpu)
    return GgufPlan(on_gpu, kv_on_gpu, buffer, RESERVE, estimated, host, gpu_layers, caches)


def most_gpu_layers(model: GgufModel, gpu_bytes: int, **options: object) -> int:
    """The largest ``-ngl`` whose :func:`plan_gguf` fits ``gpu_bytes`` (0 when not even none does)."""
    for layers in range(model.offloadable_layers, -1, -1):
        if plan_gguf(model, n_gpu_layers=layers, **options).total <= gpu_bytes:  # type: ignore[arg-type]
            return layers
    return 0


MAX_CONTEXT = 1 << 24
"""The longest context a plan takes, in tokens."""
MAX_COMPUTE_BUFFER_MIB = 1_000_000
"""The largest compute buffer :func:`compute_buffer_bytes` accepts, in MiB."""


def compute_buffer_bytes(text: str) -> int:
    """Bytes of a compute buffer typed in MiB as llama.cpp prints it (``560.25``): exact, rounded down.

    Examples
    --------
    >>> compute_buffer_bytes("672.01"), compute_buffer_bytes("0")
    (704653557, 0)
    """
    number = text.strip()
    whole, dot, fraction = number.partition(".")
    if not (whole or fraction) or not (whole + fraction).isascii() or not (whole + fraction).isdigit() or \
            (dot and not fraction and not whole):
        raise ValueError(f"the compute buffer must be a number of MiB from 0 to {MAX_COMPUTE_BUFFER_MIB:,} "
                         f"(560.25), as llama.cpp prints it; got {text!r}")
    size: int = int((whole + fraction) or "0") * MiB // 10 ** len(fraction)
    if size > MAX_COMPUTE_BUFFER_MIB * MiB:
        raise ValueError(f"the compute buffer must be from 0 to {MAX_COMPUTE_BUFFER_MIB:,} MiB; got {text!r}")
    return size


def largest_context(model: GgufModel, gpu_bytes: int, *, beyond_trained: bool = False, **options: object) -> int:
    """The longest context whose :func:`plan_gguf` fits ``gpu_bytes``; stops at the trained context unless asked."""
    limit = MAX_CONTEXT if beyond_trained or not model.trained_context else min(model.trained_context, MAX_CONTEXT)
    return largest_holding(lambda n: plan_gguf(model, context=n, **options).total <= gpu_bytes,  # type: ignore[arg-type]
                           limit)


@checks_model
def model_from_config(cfg: ModelConfig, recipe: str, *, imatrix: bool = False) -> GgufModel:
    """A :class:`GgufModel` for ``cfg`` quantized by ``llama-quantize`` with ``recipe`` (no file needed).

    A sliding window is kept as llama.cpp's architecture for ``cfg.model_type`` keeps it: Gemma 2
    and 3 with the SWA layers of their period (:data:`SWA_ARCHITECTURES`), which must be the
    config's ``sliding_window_layers``; Mistral's window is not applied (:data:`WINDOW_NOT_APPLIED`).

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> gemma, mistral = (model_from_config(get_preset(name), "Q4_K_M") for name in ("gemma-2-9b", "mistral-7b"))
    >>> gemma.sliding_window, sum(gemma.swa_layers), mistral.sliding_window, mistral.window_not_applied
    (4096, 21, 0, 4096)
    """
    tensors = recipe_tensor_types.unchecked(cfg, recipe, imatrix=imatrix)
    embedding = next(tensor for tensor in tensors if tensor.name == "token_embd.weight")
    width = cfg.n_kv_heads * cfg.head_dim
    layers, output = layer_split(tensors, cfg.n_layers, tied=cfg.tie_embeddings)
    window, swa_layers, ignored = _config_window(cfg)
    return GgufModel(cfg.model_type or "llama", cfg.n_layers, width, width, cfg.trained_context,
                     sum(tensor.n_bytes for tensor in tensors), n_embd=cfg.d_model, n_head=cfg.n_heads, n_ff=cfg.d_ff,
                     n_vocab=cfg.vocab_size, embedding_bytes=embedding.n_bytes, tied_embeddings=cfg.tie_embeddings,
                     layer_bytes=layers, output_bytes=output, sliding_window=window, swa_layers=swa_layers,
                     window_not_applied=ignored)


def _config_window(cfg: ModelConfig) -> tuple[int, tuple[bool, ...], int]:
    """(n_swa, SWA layers, ignored window) of ``cfg`` as llama.cpp's architecture for its model_type keeps them."""
    if not cfg.sliding_window:
        return 0, (), 0
    arch = _LLAMA_CPP_ARCH.get(cfg.model_type, "")
    if arch in WINDOW_NOT_APPLIED:
        return 0, (), cfg.sliding_window
    if arch not in SWA_ARCHITECTURES:
        raise ValueError(f"a sliding window in model_type {cfg.model_type!r}: llmcalc models llama.cpp's cache for "
                         f"windows in {', '.join(sorted(t for t in _LLAMA_CPP_ARCH if t))}")
    flags = swa_layer_flags(cfg.n_layers, SWA_ARCHITECTURES[arch][0])
    if sum(flags) != cfg.sliding_window_layers:
        raise ValueError(f"llama.cpp's {arch} makes {sum(flags)} of {cfg.n_layers} layers sliding-window layers; the "
                         f"config says {cfg.sliding_window_layers}")
    return cfg.sliding_window, flags, 0


def plan_report(model: GgufModel, *, context: int, cache_type_k: str, cache_type_v: str, flash_attention: bool,
                compute_buffer: int | None, gpu_bytes: int | None, beyond_trained: bool = False,
                ubatch: int = UBATCH, n_gpu_layers: int | None = None,
                swa_full: bool = False, parallel: int = 1,
                kv_unified: bool = False, server_slots: bool = False) -> tuple[dict[str, object], str]:
    """The plan as the CLI prints it (and as the widget shows it): a JSON-able result and its text.

    ``server_slots`` says that ``parallel`` and ``kv_unified`` are llama-server's automatic slots
    (:func:`llama_server_slots` without ``-np``), which the text then says."""
    options = {"cache_type_k": cache_type_k, "cache_type_v": cache_type_v, "flash_attention": flash_attention,
               "compute_buffer": compute_buffer, "ubatch": ubatch, "n_gpu_layers": n_gpu_layers,
               "swa_full": swa_full, "parallel": parallel, "kv_unified": kv_unified}
    plan = plan_gguf(model, context=context, **options)  # type: ignore[arg-type]
    parts = {"weights": plan.weights, "kv_cache": plan.kv_cache, "compute_buffer": plan.compute_buffer,
             "reserve": plan.reserve}
    where = "every layer on one GPU" if plan.gpu_layers is None else \
        f"{plan.gpu_layers} of {model.offloadable_layers} layers on one GPU (-ngl {plan.gpu_layers})"
    lines = [f"llama.cpp, {where}: {model.architecture}, {model.n_layers} layers, "
             f"KV {model.k_width}+{model.v_width} per token and layer, trained context "
             f"{model.trained_context or 'unknown'}"]
    names = {"weights": "weights (all but token_embd)" if plan.gpu_layers is None else "weights (layers on the GPU)",
             "compute_buffer": "compute buffer (estimate)" if plan.compute_estimated else "compute buffer (given)"}
    for name, value in parts.items():
        lines.append(f"{names.get(name, name.replace('_', ' ')):29s} {value:>16,d}  {value / GiB:8.2f} GiB")
        if name == "kv_cache" and len(plan.kv_caches) > 1:
            for cache in plan.kv_caches:
                cells = f"{cache.cells:,} x {cache.streams} seqs" if cache.streams > 1 else f"{cache.cells:,} cells"
                label = f"  {'SWA' if cache.window else 'full'} {cache.layers} x {cells}"
                lines.append(f"{label:29s} {cache.bytes:>16,d}  {cache.bytes / GiB:8.2f} GiB")
    lines.append(f"{'GPU total':29s} {plan.total:>16,d}  {plan.total / GiB:8.2f} GiB")
    host_rows = [("host: token_embd", plan.host["token_embd"]), ("host: layers on the CPU", plan.host["layers"]),
                 ("host: their KV cache", plan.host["kv_cache"]),
                 ("host: buffers (estimate)", plan.host["compute_buffer"] + plan.host["output_buffer"]),
                 ("host total", plan.host_total)]
    for name, value in host_rows:
        if value or name in ("host: token_embd", "host total"):
            lines.append(f"{name:29s} {value:>16,d}  {value / GiB:8.2f} GiB")
    result: dict[str, object] = {"architecture": model.architecture, "context": context, "parallel": parallel,
                                 "kv_unified": kv_unified, "parts": parts,
                                 "total": plan.total, "compute_buffer_estimated": plan.compute_estimated,
                                 "host": {**plan.host, "total": plan.host_total}}
    if plan.gpu_layers is not None:
        result.update(n_gpu_layers=plan.gpu_layers, offloadable_layers=model.offloadable_layers)
    if len(plan.kv_caches) > 1:
        result.update(kv_caches=[cache.as_dict() for cache in plan.kv_caches], swa_full=swa_full)
    if gpu_bytes is not None:
        fits = plan.total <= gpu_bytes
        longest = largest_context(model, gpu_bytes, beyond_trained=beyond_trained, **options)
        result.update(gpu_bytes=gpu_bytes, fits=fits, largest_context=longest)
        lines.append("")
        lines.append(f"{'fits' if fits else 'does not fit'} in {gpu_bytes / GiB:.2f} GiB "
                     f"({abs(gpu_bytes - plan.total) / GiB:.2f} GiB {'to spare' if fits else 'over'}); "
                     f"longest context that fits: {longest:,}")
        if model.layer_bytes:
            most = most_gpu_layers(model, gpu_bytes, context=context,
                                   **{k: v for k, v in options.items() if k != "n_gpu_layers"})
            result.update(most_gpu_layers=most)
            lines.append(f"most layers that fit at this context: -ngl {most} of {model.offloadable_layers}")
    if len(plan.kv_caches) > 1:
        lines.append(f"KV cache: llama.cpp keeps one cache for the full-attention layers (layers x cells) and one "
                     f"for the sliding-window (SWA) layers, whose {model.sliding_window:,}-token window needs "
                     + ("the whole context with --swa-full" if swa_full else
                        "the window and a micro-batch, padded to 256 cells (--swa-full: the whole context)")
                     + f"; the two lines count every layer's cache, for {parallel} sequence"
                     + ("s in one unified cache (a window each)" if kv_unified and parallel > 1 else
                        "s, a stream each" if parallel > 1 else " (-np 1)"))
    if server_slots:
        result.update(llama_server_slots=True)
        lines.append(f"llama-server started without -np runs {parallel} slots sharing one unified cache (llama.cpp PR "
                     "17997 and later; -np N runs N, a stream each unless --kv-unified); speculative decoding's draft "
                     "model is not planned")
    if model.window_not_applied:
        result.update(window_not_applied=model.window_not_applied)
        lines.append(f"llama.cpp does not apply the model's {model.window_not_applied:,}-token sliding window (its "
                     "architecture for the model ignores it): every layer keeps the full cache")
    if plan.compute_estimated:
        lines.append("the compute buffer is an estimate from the graph's largest tensors (page 19 compares it with "
                     "published load logs); --compute-buffer takes the figure llama.cpp printed")
    return result, "\n".join(lines)


def add_cli_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``llmcalc gguf`` command's arguments."""
    from .ranking import SORTS  # imported here: llmcalc.ranking imports this module

    parser.add_argument("model", metavar="MODEL",
                        help="a .gguf file (only its header is read) or a preset name with --recipe")
    parser.add_argument("--recipe", choices=list(RECIPES),
                        help="for a preset: the llama-quantize file type whose per-tensor types to count")
    parser.add_argument("--imatrix", action="store_true", help="for a preset: quantized with an importance matrix")
    parser.add_argument("--context", type=int, default=4096, metavar="N", help="llama.cpp's -c, in tokens")
    parser.add_argument("--ubatch", type=int, default=UBATCH, metavar="N",
                        help=f"llama.cpp's -ub, the micro-batch the compute buffer is sized for (default {UBATCH})")
    parser.add_argument("--cache-type-k", choices=KV_CACHE_TYPES, default="f16", help="llama.cpp's -ctk")
    parser.add_argument("--cache-type-v", choices=KV_CACHE_TYPES, default="f16",
                        help="llama.cpp's -ctv (q8_0, q4_0 need --flash-attn)")
    parser.add_argument("--flash-attn", action="store_true", help="llama.cpp's -fa")
    parser.add_argument("--compute-buffer", metavar="MIB",
                        help="the 'compute buffer size' llama.cpp printed for this model and settings, in MiB; "
                        "without it the plan estimates it")
    parser.add_argument("--beyond-trained-context", action="store_true",
                        help="search for the longest context past the model's trained context")
    parser.add_argument("--swa-full", action="store_true",
                        help="llama.cpp's --swa-full: sliding-window layers keep the whole context's cache, not only "
                        "their window's")
    parser.add_argument("-np", "--parallel", type=int, metavar="N",
                        help=f"llama-server's -np: sequences (slots) served at once, 1 to {MAX_PARALLEL} (default 1; "
                        f"with --llama-server, its automatic {LLAMA_SERVER_SLOTS} in one unified cache)")
    parser.add_argument("--llama-server", action="store_true",
                        help=f"plan as llama-server starts: without -np, {LLAMA_SERVER_SLOTS} slots sharing one "
                        "unified cache whatever --kv-unified says; -np N keeps N (llama.cpp PR 17997 and later)")
    parser.add_argument("--kv-unified", action=argparse.BooleanOptionalAction, default=False,
                        help="llama.cpp's --kv-unified: the sequences share one cache (a window each in the "
                        "sliding-window layers) instead of a stream each of context / N cells (default: off)")
    parser.add_argument("--prompt-tokens", type=int, metavar="N",
                        help="with --gpu all and a preset: tokens of the prompt; with --generated-tokens (at most "
                        "--context together) each card's row gets llama.cpp's estimated speed (default: none, memory "
                        "only)")
    parser.add_argument("--generated-tokens", type=int, metavar="N",
                        help="with --gpu all and a preset: tokens generated after the prompt, at least 2")
    parser.add_argument("--price", action="append", metavar="CARD=PRICE",
                        help="with --gpu all: what one GPU-hour of a listed card costs you, any currency (none is "
                        "shipped: prices date); repeat for each card; gives its cost per million output tokens")
    parser.add_argument("--sort", choices=SORTS, default="fit",
                        help="with --gpu all: fit (fits first, least memory) or cost (lowest cost per million output "
                        "tokens at your prices first)")
    parser.add_argument("-ngl", "--n-gpu-layers", type=int, metavar="N",
                        help="llama.cpp's -ngl: the last N repeating layers on the GPU, the output layer too when N "
                        "exceeds them; the rest and their KV cache in host memory (default: every layer)")


def run_cli(args: argparse.Namespace, gpu_bytes: int | None) -> tuple[dict[str, object], str]:
    """``llmcalc gguf``: a plan from a .gguf header or from a preset and a recipe."""
    from .presets import PRESETS, get_preset

    path = Path(args.model)
    if args.model in PRESETS:
        if args.recipe is None:
            raise ValueError(f"a preset needs --recipe, one of {', '.join(RECIPES)}")
        model, label = model_from_config(get_preset(args.model), args.recipe, imatrix=args.imatrix), \
            f"{args.model} as {args.recipe}"
    elif path.is_file():
        if args.recipe is not None or args.imatrix:
            raise ValueError("--recipe and --imatrix apply to a preset; a .gguf file's header gives its tensor types")
        header = read_gguf_header(path)
        model, label = gguf_model(header), f"{path.name} (GGUF v{header.version}, {len(header.tensors):,} tensors)"
    else:
        raise ValueError(f"MODEL must be a .gguf file or a preset ({', '.join(PRESETS)}); got {args.model!r}")
    buffer = None if args.compute_buffer is None else compute_buffer_bytes(args.compute_buffer)
    server_slots = args.llama_server and args.parallel is None
    if args.llama_server:
        args.parallel, args.kv_unified = llama_server_slots(args.parallel, kv_unified=args.kv_unified)
    elif args.parallel is None:
        args.parallel = 1
    ranking_only = [flag for flag, value in (("--prompt-tokens", args.prompt_tokens),
                                             ("--generated-tokens", args.generated_tokens), ("--price", args.price),
                                             ("--sort", None if args.sort == "fit" else args.sort))
                    if value is not None]
    if ranking_only and getattr(args, "gpu", None) != "all":
        raise ValueError(f"{ranking_only[0]} applies to --gpu all, the ranking of every card (one card's speed: "
                         "llmcalc speed)")
    if getattr(args, "gpu", None) == "all":  # every listed card ranked (llmcalc.ranking)
        from .cli import text_table
        from .ranking import gguf_ranking

        return gguf_ranking(model, label, args, buffer, text_table)
    result, text = plan_report(model, context=check.count("context", args.context, maximum=MAX_CONTEXT),
                               cache_type_k=args.cache_type_k, cache_type_v=args.cache_type_v,
                               flash_attention=args.flash_attn, compute_buffer=buffer, gpu_bytes=gpu_bytes,
                               beyond_trained=args.beyond_trained_context,
                               ubatch=check.count("ubatch", args.ubatch, maximum=MAX_UBATCH),
                               n_gpu_layers=None if args.n_gpu_layers is None
                               else check.count("n_gpu_layers", args.n_gpu_layers, minimum=0),
                               swa_full=args.swa_full,
                               parallel=check.count("parallel", args.parallel, maximum=MAX_PARALLEL),
                               kv_unified=args.kv_unified, server_slots=server_slots)
    return {"model": label, **result}, f"{label}\n\n{text}"
