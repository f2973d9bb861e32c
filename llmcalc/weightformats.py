"""Bytes of a model's weights in each inference weight format, as the libraries hold them in memory.

Each format is a library recipe, counted tensor by tensor as transformers 5.24 loads it
(measured: ``tools/measure_quantized.py``; the memory a kernel adds at run time is not counted):

* ``bf16``: every parameter in 2 bytes.
* ``int8``: bitsandbytes LLM.int8 (``BitsAndBytesConfig(load_in_8bit=True)``): an int8 code
  per weight, an fp32 scale per output row (``SCB``).
* ``nf4``: bitsandbytes ``load_in_4bit=True, bnb_4bit_quant_type="nf4"`` (blocksize 64, its default
  on CUDA; on ROCm it defaults to 128, half these absmax): two codes a byte, an fp32 absmax per 64
  weights, a 16-entry fp32 code table per tensor (``get_4bit_type``).
* ``nf4-dq``: the same with ``bnb_4bit_use_double_quant=True``: uint8 absmax, an fp32 absmax per 256
  of them, an fp32 offset, and a 256-entry fp32 table copied per tensor (``quantize_blockwise``).
* ``fp8``: transformers' ``FineGrainedFP8Config`` (DeepSeek-V3 style): an e4m3 byte per weight, an
  fp32 ``weight_scale_inv`` per 128x128 block, rounded up on both sides (``FP8Linear``); routed
  experts (``FP8Experts``) stack gate and up as one matrix with at least 2 block rows of scales.
* ``int4``: GPTQ, 4 bits, group size 128 (gptqmodel ``GPTQQuantLinear._register_gptq_buffers``):
  ``qweight`` int32 ``(ceil(d_in / 8), d_out)``, ``qzeros`` int32 ``(ceil(d_in / 128), ceil(d_out / 8))``,
  ``scales`` fp16 ``(ceil(d_in / 128), d_out)``, ``g_idx`` int32 ``(d_in,)``.

Converted: by bitsandbytes every ``nn.Linear`` and GPT-2 ``Conv1D``; by FP8 exact ``nn.Linear``
and routed experts; by GPTQ the blocks' linear layers.  16-bit: the head and the last parameter
(``get_keys_to_not_convert``), embeddings, norms, biases, routers (fp32 in DeepSeek-V2/V3),
bitsandbytes' routed experts (3-D parameters in transformers 5), Falcon (``FalconLinear`` is a
subclass, which none converts).  GPTQ is refused for MoE, Falcon and GPT-2 (with gptqmodel 7.7,
GPT-2's weight init reads ``c_proj.weight``): a real checkpoint's tensors would find no module.
"""

from __future__ import annotations

from . import _validate as check
from .checkpoints import CheckpointFormat, checkpoint_weight_bytes, kept_in_16_bits
from .config import ModelConfig, checks_model
from .errors import refusal
from .formats import WEIGHT_FORMATS
from .params import Linear, linear_modules, param_count

__all__ = ["FP32_ROUTERS", "NO_GPTQ_LAYOUTS", "WeightFormat", "codes_and_constants", "is_converted",
           "kept_linear_modules", "lighter_weight_formats", "modelled_weight_formats", "weight_format_bytes"]

WeightFormat = str | CheckpointFormat
"""A weight format: a preset name of :data:`~llmcalc.formats.WEIGHT_FORMATS`, or a quantized checkpoint's layout
read from its ``config.json`` (:func:`~llmcalc.checkpoints.checkpoint_from_hf`)."""

FP32_ROUTERS = ("deepseek_v2", "deepseek_v3")
"""The model types whose MoE routers stay in fp32 (their ``_keep_in_fp32_modules_strict`` holds ``gate.weight``)."""
NO_GPTQ_LAYOUTS = {"gpt2": "GPT-2's Conv1D", "falcon": "Falcon's FalconLinear"}
"""The layouts whose GPTQ (``int4``) size is refused, and why."""


def _ceil(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def is_converted(module: Linear, weight_format: str, cfg: ModelConfig) -> bool:
    """Whether ``weight_format`` quantizes ``module`` of ``cfg``; a module it does not convert stays 16-bit."""
    if weight_format == "bf16" or module.role == "lm_head" or cfg.layout == "falcon":
        return False
    if weight_format == "fp8":
        return module.path.startswith("mlp.experts.") or (module.adaptable and cfg.layout != "gpt2")
    return module.adaptable


def codes_and_constants(weight_format: str, d_in: int, d_out: int, min_block_rows: int = 1) -> tuple[int, int]:
    """Bytes of one quantized ``d_in -> d_out`` weight matrix: its codes and what decodes them.

    ``min_block_rows`` is the fewest 128-row blocks an fp8 matrix is scaled in (2 for a
    gate and up projection stacked into one matrix).

    Examples
    --------
    int8 keeps a byte per weight and an fp32 scale per output row; NF4 half a byte per
    weight, an fp32 absmax per 64-weight block and its 16-entry fp32 table:

    >>> codes_and_constants("int8", 4096, 4096), codes_and_constants("nf4", 4096, 4096)
    ((16777216, 16384), (8388608, 1048640))
    >>> 4096 * 4096 // 64 * 4 + 16 * 4
    1048640
    """
    weights = d_in * d_out
    if weight_format == "int8":
        return weights, 4 * d_out
    if weight_format == "fp8":
        return weights, 4 * max(_ceil(d_out, 128), min_block_rows) * _ceil(d_in, 128)
    if weight_format == "int4":
        groups = _ceil(d_in, 128)
        return 4 * _ceil(d_in, 8) * d_out, 4 * groups * _ceil(d_out, 8) + 2 * groups * d_out + 4 * d_in
    blocks = _ceil(weights, 64)
    nf4_table = 16 * 4
    if weight_format == "nf4":
        return _ceil(weights, 2), 4 * blocks + nf4_table
    dynamic_table, offset = 256 * 4, 4
    return _ceil(weights, 2), blocks + 4 * _ceil(blocks, 256) + offset + nf4_table + dynamic_table


@checks_model
def modelled_weight_formats(cfg: ModelConfig) -> tuple[str, ...]:
    """The preset weight formats :func:`weight_format_bytes` sizes for ``cfg``, in
    :data:`~llmcalc.formats.WEIGHT_FORMATS` order: all but GPTQ (``int4``) for a mixture of experts or a layout
    of :data:`NO_GPTQ_LAYOUTS`, whose GPTQ sizes are not modelled; ``bf16`` alone for a model with attention sinks
    or a router bias (gpt-oss), on which no recipe was measured (its published MXFP4 checkpoint is read from its
    ``config.json``: :mod:`llmcalc.checkpoints`).

    A search for a lighter format (the planner's "smallest change") passes over the formats left out here rather
    than stopping at their refusal.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> modelled_weight_formats(get_preset("mixtral-8x7b"))
    ('bf16', 'fp8', 'int8', 'nf4', 'nf4-dq')
    >>> len(modelled_weight_formats(get_preset("llama-3-8b")))
    6
    """
    if cfg.attention_sinks or cfg.router_bias:  # gpt-oss: no recipe was measured on sinks and expert biases
        return ("bf16",)
    no_gptq = cfg.is_moe or cfg.layout in NO_GPTQ_LAYOUTS
    return tuple(name for name in WEIGHT_FORMATS if not (no_gptq and name == "int4"))


@checks_model
def lighter_weight_formats(cfg: ModelConfig, weight_format: WeightFormat) -> tuple[str, ...]:
    """The formats of :func:`modelled_weight_formats` after ``weight_format`` in
    :data:`~llmcalc.formats.WEIGHT_FORMATS` order, least lossy first: what a search for a lighter format tries;
    none after a quantized checkpoint's own layout.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> lighter_weight_formats(get_preset("mixtral-8x7b"), "int8")
    ('nf4', 'nf4-dq')
    """
    if not isinstance(weight_format, str) or weight_format not in WEIGHT_FORMATS:
        return ()
    later = WEIGHT_FORMATS[WEIGHT_FORMATS.index(weight_format) + 1:]
    return tuple(name for name in modelled_weight_formats.unchecked(cfg) if name in later)


@checks_model
def weight_format_bytes(cfg: ModelConfig, weight_format: WeightFormat) -> dict[str, int]:
    """Bytes of the model's weights in ``weight_format``, by part; the parts sum to the total.

    ``quantized``: codes of converted weights; ``constants``: what decodes them; ``unquantized``:
    every parameter left in 16-bit (DeepSeek's routers: 32-bit).

    Parameters
    ----------
    cfg : llmcalc.ModelConfig
    weight_format : {"bf16", "fp8", "int8", "int4", "nf4", "nf4-dq"} or llmcalc.checkpoints.CheckpointFormat
        A preset, or a checkpoint's own layout (:func:`~llmcalc.checkpoints.checkpoint_weight_bytes`).

    Examples
    --------
    Llama-2-7B: 224 linear layers hold 6,476,005,376 weights; embedding, head and norms stay 16-bit.

    >>> from llmcalc import get_preset
    >>> llama = get_preset("llama-2-7b")
    >>> for weight_format in WEIGHT_FORMATS:
    ...     parts = weight_format_bytes(llama, weight_format)
    ...     print(f"{weight_format:6s}", " ".join(f"{n:>14,d}" for n in parts.values()), f"{sum(parts.values()):>15,d}")
    bf16                0              0 13,476,831,232  13,476,831,232
    fp8     6,476,005,376      1,581,056    524,820,480   7,002,406,912
    int8    6,476,005,376      5,439,488    524,820,480   7,006,265,344
    int4    3,238,002,688    131,039,232    524,820,480   3,893,862,400
    nf4     3,238,002,688    404,764,672    524,820,480   4,167,587,840
    nf4-dq  3,238,002,688    103,013,248    524,820,480   3,865,836,416
    """
    if isinstance(weight_format, CheckpointFormat):
        return checkpoint_weight_bytes.unchecked(cfg, weight_format)
    check.choice("weight_format", weight_format, WEIGHT_FORMATS)
    if weight_format not in modelled_weight_formats.unchecked(cfg):
        if cfg.attention_sinks or cfg.router_bias:
            raise refusal("weight_format_unmeasured", weight_format=weight_format,
                          model_type=cfg.model_type or "custom", formats=list(modelled_weight_formats.unchecked(cfg)))
        why = "an MoE model" if cfg.is_moe else NO_GPTQ_LAYOUTS[cfg.layout]
        raise refusal("gptq_not_modelled", why=why, formats=[f for f in WEIGHT_FORMATS if f != "int4"])
    modules = linear_modules.unchecked(cfg)
    # get_keys_to_not_convert skips the last parameter: the last block's last linear if tied and norms are weightless
    last_kept = weight_format not in ("bf16", "int4") and cfg.tie_embeddings and cfg.norm == "parameter-free"
    quantized = constants = converted_weights = fp32_weights = 0
    for module in modules:
        copies = module.copies - (1 if last_kept and module is modules[-1] else 0)
        if module.role == "router" and cfg.model_type in FP32_ROUTERS:
            fp32_weights += module.params
        routed_gate_or_up = module.path.startswith("mlp.experts.") and module.role in ("gate", "up")
        stacked = weight_format == "fp8" and cfg.ffn == "swiglu" and routed_gate_or_up
        if not is_converted(module, weight_format, cfg) or (stacked and module.role == "up"):
            continue  # FP8Experts stacks each routed expert's gate and up as one matrix: counted with the gate
        rows = 2 * module.d_out if stacked else module.d_out
        codes, decode = codes_and_constants(weight_format, module.d_in, rows, min_block_rows=2 if stacked else 1)
        quantized += copies * codes
        constants += copies * decode
        converted_weights += copies * module.d_in * rows
    unquantized = 2 * (param_count.unchecked(cfg) - converted_weights + fp32_weights)  # fp32 routers: 2 more bytes each
    return {"quantized": quantized, "constants": constants, "unquantized": unquantized}


@checks_model
def kept_linear_modules(cfg: ModelConfig, weight_format: WeightFormat) -> list[tuple[str, int, int]]:
    """The linear modules ``weight_format`` leaves in 16 bits (32 for DeepSeek's routers), as
    ``(path, kept copies, all copies)``; embeddings, norms and biases always stay.

    Examples
    --------
    The ``fp8`` preset converts every block's linear layers and keeps the head:

    >>> from llmcalc import get_preset
    >>> kept_linear_modules(get_preset("llama-2-7b"), "fp8")
    [('lm_head', 1, 1)]
    """
    if isinstance(weight_format, CheckpointFormat):
        return kept_in_16_bits.unchecked(cfg, weight_format)
    weight_format_bytes.unchecked(cfg, weight_format)  # its refusals
    modules = linear_modules.unchecked(cfg)
    last_kept = weight_format not in ("bf16", "int4") and cfg.tie_embeddings and cfg.norm == "parameter-free"
    kept = []
    for module in modules:
        if not is_converted(module, weight_format, cfg):
            kept.append((module.path, module.copies, module.copies))
        elif last_kept and module is modules[-1]:
            kept.append((module.path, 1, module.copies))
    return kept
