"""Quantized checkpoints read from their ``config.json``: which layers a ``quantization_config`` converts, and the
bytes of every tensor as the checkpoint stores them.

Each layout is read from the code that writes or loads it, at the release named:

* ``fbgemm_fp8`` (transformers 5.24 ``integrations/fbgemm_fp8.py``, ``FbgemmFp8Linear``): an e4m3 byte per
  weight, an fp32 ``weight_scale`` per output row, an fp32 bias.  Meta's Llama 3.1 405B FP8 release lists its
  BF16 layers in ``modules_to_not_convert``.
* ``fp8`` (transformers 5.24 ``integrations/finegrained_fp8.py``, ``FP8Linear``): an e4m3 byte per weight and an
  fp32 ``weight_scale_inv`` per ``weight_block_size`` block (rounded up on both sides), or one per tensor without
  a block size; with ``activation_scheme: static`` an fp32 ``activation_scale`` per layer; ``scale_fmt: ue8m0``
  stores the scales in one byte.
* ``compressed-tensors`` (compressed-tensors 0.20.1 ``quantization/lifecycle/initialize.py`` and
  ``compressors/``): the scales in the model's 16-bit dtype, one per tensor, output channel, group of
  ``group_size`` inputs or block; ``float-quantized`` keeps an e4m3 byte per weight, ``naive-quantized`` and
  ``int-quantized`` an int8, ``pack-quantized`` packs ``num_bits`` codes into int32 along the input
  (``ceil(d_in * bits / 32)`` words a row) with the 2 x int64 ``weight_shape``, and packs asymmetric zero points
  along the output; ``actorder: group`` adds an int32 ``weight_g_idx`` per input; a static input scale is one
  16-bit value per layer.
* ``awq`` (AutoAWQ 0.2.9, whose layouts transformers 5.24 loads through gptqmodel): GEMM (``WQLinear_GEMM``) int32
  ``qweight (d_in, d_out / 8)``, int32 ``qzeros (d_in / group, d_out / 8)``, fp16 ``scales (d_in / group, d_out)``;
  GEMV (``WQLinear_GEMV``) the same per output row, the groups rounded up by ``calculate_zeros_width``.
* ``gptq`` (gptqmodel 7.7.0 ``_register_gptq_buffers``): int32 ``qweight (d_in * bits / 32, d_out)``, int32
  ``qzeros (groups, d_out * bits / 32)``, fp16 ``scales (groups, d_out)``, int32 ``g_idx (d_in,)``, for 2, 3, 4
  and 8 bits; ``group_size: -1`` is one group.
* bitsandbytes: the ``int8``, ``nf4`` and ``nf4-dq`` formats of :mod:`llmcalc.weightformats` (FP4 stores the same
  bytes as NF4: a 16-entry table).
* ``mxfp4`` (transformers 5.25 ``integrations/mxfp4.py``, ``Mxfp4GptOssExperts``; gpt-oss only): the routed experts'
  gate/up and down weights as ``*_blocks``, two 4-bit (E2M1) codes a byte, and ``*_scales``, one E8M0 byte per 32
  inputs: 17 bytes per 32 weights; their biases and every other tensor stay BF16.  This is the checkpoint as stored;
  transformers keeps it so only where its MXFP4 kernels load (``quantizers/quantizer_mxfp4.py``), and otherwise
  dequantizes the experts to BF16.

Which modules a method converts follows the loader: transformers 5.24's ``should_convert_module`` for
``modules_to_not_convert`` and ``llm_int8_skip_modules`` (a pattern matches from the start of a module's name up to
a module boundary, as a regular expression, or as a suffix); compressed-tensors' ``targets`` and ``ignore`` (a
``re:`` pattern matched from the start, else the exact name, or ``Linear`` for every linear layer).  AWQ and GPTQ
convert the decoder blocks' linear layers only.  Embeddings, norms and biases stay 16-bit.

A key or value that changes the stored bytes and is not modelled here is refused by name, never approximated.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .config import ModelConfig, checks_model
from .errors import refusal
from .params import Linear, linear_modules, param_count

__all__ = ["BLOCK_PREFIX", "HEAD_NAME", "MAX_NAMED_COPIES", "QUANT_METHODS", "Checkpoint", "CheckpointFormat",
           "checkpoint_from_hf", "checkpoint_weight_bytes", "converts", "describe", "is_qlora_base", "kept_in_16_bits",
           "quantization_from_hf", "stored_bytes"]

QUANT_METHODS = ("fbgemm_fp8", "fp8", "compressed-tensors", "awq", "gptq", "bitsandbytes", "mxfp4")
"""The ``quant_method`` values llmcalc sizes, in the order its messages list them."""

BLOCK_PREFIX = {"gpt2": "transformer.h", "falcon": "transformer.h", "gpt_neox": "gpt_neox.layers"}
"""Where a checkpoint's tensors name block ``i`` (``<prefix>.<i>.``), by layout; ``model.layers`` otherwise."""
HEAD_NAME = {"gpt_neox": "embed_out"}
"""The output head's module name, by layout; ``lm_head`` otherwise."""
_BOUNDARY = r"(?:(?<=\.)|(?=\.|$))"


@dataclass(frozen=True)
class CheckpointFormat:
    """How a quantized checkpoint stores its converted linear layers, as its ``quantization_config`` says.

    ``codes``: ``"fp8"`` (a byte per weight), ``"int8"`` (a byte per weight), ``"packed"`` (compressed-tensors'
    int32 rows), ``"gptq"``, ``"awq"``, or a bitsandbytes format (``"bnb-int8"``, ``"bnb-nf4"``, ``"bnb-nf4-dq"``).
    ``scales``: one scale per ``"tensor"``, ``"channel"`` (output row), ``"group"`` of ``group_size`` inputs,
    or ``"block"`` of ``block`` (rows, columns), of ``scale_bytes`` each.  ``skip`` lists the patterns of the
    modules kept in 16 bits (``matcher`` says whose rule reads them); ``targets`` the compressed-tensors targets.
    """

    method: str
    codes: str
    bits: int = 8
    scales: str = "channel"
    group_size: int = 0
    block: tuple[int, int] = (0, 0)
    scale_bytes: int = 4
    zero_points: bool = False
    group_index: bool = False
    input_scale_bytes: int = 0
    bias_bytes: int = 2
    skip: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    matcher: str = "transformers"
    blocks_only: bool = False
    kv_scale_bytes: int = 0
    description: str = field(default="", compare=False)


@dataclass(frozen=True)
class Checkpoint:
    """A ``config.json`` read whole: the model, and how its checkpoint stores the weights (``None``: 16-bit)."""

    config: ModelConfig
    weight_format: CheckpointFormat | None


def _ceil(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def stored_bytes(fmt: CheckpointFormat, d_in: int, d_out: int) -> tuple[int, int]:
    """Bytes of one converted ``d_in -> d_out`` linear layer as ``fmt`` stores it: its codes and what decodes them.

    Examples
    --------
    Meta's FP8 (fbgemm): a byte a weight and an fp32 scale per output row; GPTQ 4-bit, group 128:

    >>> fbgemm = CheckpointFormat("fbgemm_fp8", "fp8", scales="channel", scale_bytes=4)
    >>> stored_bytes(fbgemm, 4096, 4096)
    (16777216, 16384)
    >>> gptq = CheckpointFormat("gptq", "gptq", bits=4, scales="group", group_size=128, scale_bytes=2)
    >>> stored_bytes(gptq, 4096, 4096)
    (8388608, 344064)
    >>> 4 * 32 * 4096 // 8 + 2 * 32 * 4096 + 4 * 4096
    344064
    """
    if fmt.codes.startswith("bnb-"):
        from .weightformats import codes_and_constants

        return codes_and_constants(fmt.codes.removeprefix("bnb-"), d_in, d_out)
    if fmt.codes == "mxfp4":  # per row, ceil(d_in / 32) blocks of 16 code bytes and one scale byte
        blocks = d_out * _ceil(d_in, fmt.group_size)
        return blocks * fmt.group_size * fmt.bits // 8, blocks * fmt.scale_bytes
    groups = _ceil(d_in, fmt.group_size) if fmt.group_size else 1
    if fmt.codes == "gptq":
        return 4 * _ceil(d_in * fmt.bits, 32) * d_out, (4 * groups * _ceil(d_out * fmt.bits, 32) + 2 * groups * d_out
                                                      + 4 * d_in)
    if fmt.codes == "awq":
        return 4 * d_in * _ceil(d_out, 8), 4 * groups * _ceil(d_out, 8) + 2 * groups * d_out
    if fmt.codes == "awq-gemv":  # calculate_zeros_width: the groups rounded up to whole int32 words, then to 1, 2, 4
        words = _ceil(groups, 8)
        per_word = {32: 4, 64: 2}.get(fmt.group_size, 1)
        width = _ceil(words, per_word) * per_word
        return 4 * d_out * (d_in // 8), 4 * d_out * width + 2 * d_out * width * 8
    count = {"tensor": 1, "channel": d_out, "group": d_out * groups,
             "block": _ceil(d_out, fmt.block[0]) * _ceil(d_in, fmt.block[1]) if fmt.block[0] else 1}[fmt.scales]
    constants = fmt.scale_bytes * count + fmt.input_scale_bytes + (4 * d_in if fmt.group_index else 0)
    if fmt.codes == "packed":
        codes = 4 * _ceil(d_in * fmt.bits, 32) * d_out
        constants += 2 * 8  # weight_shape: two int64
        if fmt.zero_points:
            rows, cols = (_ceil(d_out * fmt.bits, 32), groups) if fmt.scales == "group" else (
                _ceil(d_out * fmt.bits, 32), 1)
            constants += 4 * rows * cols
        return codes, constants
    if fmt.zero_points:
        constants += count  # an int8 zero point beside each scale
    return d_in * d_out, constants


def _module_names(cfg: ModelConfig, module: Linear) -> Iterator[str]:
    """The checkpoint's name of every copy of ``module``."""
    if module.role == "lm_head":
        yield HEAD_NAME.get(cfg.layout, "lm_head")
        return
    prefix = BLOCK_PREFIX.get(cfg.layout, "model.layers")
    dense = cfg.n_layers - cfg.moe_layers
    routed = module.path.startswith("mlp.experts.")
    on_moe_layer = routed or module.component == "router" or ".shared_expert" in module.path
    layers = range(dense, cfg.n_layers) if on_moe_layer else range(cfg.n_layers)
    if module.component == "ffn" and not on_moe_layer:
        layers = range(dense)
    for layer in layers:
        if routed:
            name = module.path.removeprefix("mlp.experts.")
            for expert in range(cfg.n_experts):
                yield f"{prefix}.{layer}.mlp.experts.{expert}.{name}"
        else:
            yield f"{prefix}.{layer}.{module.path}"


@functools.lru_cache(maxsize=16)
def _matcher(fmt: CheckpointFormat) -> Callable[[str], bool]:
    """A function telling whether ``fmt`` converts a linear module of a given name (and kind)."""
    if fmt.matcher == "compressed-tensors":
        def matches(patterns: tuple[str, ...], name: str) -> bool:
            return any(re.match(p[3:], name) if p.startswith("re:") else p in (name, "Linear") for p in patterns)

        return lambda name: matches(fmt.targets, name) and not matches(
            tuple(p for p in fmt.skip if p != "Linear"), name)
    if not fmt.skip:
        return lambda name: True
    plain = tuple(fmt.skip)
    exact = frozenset(plain)
    patterns = [re.compile(f"(?:{p}){_BOUNDARY}") for p in plain]
    return lambda name: not (name in exact or name.endswith(plain) or any(p.match(name) for p in patterns))


def _eligible(cfg: ModelConfig, fmt: CheckpointFormat, module: Linear) -> bool:
    """Whether ``fmt``'s loader converts a module of this kind at all (before its skip list)."""
    if module.component == "router" or (module.role == "lm_head" and fmt.blocks_only):
        return False
    if fmt.codes == "mxfp4":  # replace_with_mxfp4_linear swaps only the experts of each GptOssMLP
        return module.path.startswith("mlp.experts.")
    if fmt.codes.startswith("bnb-") and not module.adaptable:
        return False  # bitsandbytes converts nn.Linear; transformers 5 stacks routed experts as 3-D tensors
    # FalconLinear and GPT-2's Conv1D are not nn.Linear: only GPTQ and AWQ (refused for them) would convert them
    return cfg.layout not in ("falcon", "gpt2")


MAX_NAMED_COPIES = 2**20
"""The most copies of one module a skip list is matched against, name by name (a 671B MoE has 15,000)."""


def _converted_copies(cfg: ModelConfig, fmt: CheckpointFormat) -> Iterator[tuple[Linear, int]]:
    """Each linear module with the number of its copies ``fmt`` converts."""
    matches = _matcher(fmt)
    for module in linear_modules.unchecked(cfg):
        if not _eligible(cfg, fmt, module):
            yield module, 0
        elif fmt.skip or fmt.targets:
            if module.copies > MAX_NAMED_COPIES:
                _check(fmt.method, False, f"{module.path} copies", module.copies, "named_copies")
            yield module, sum(1 for name in _module_names(cfg, module) if matches(name))
        else:
            yield module, module.copies


def converts(cfg: ModelConfig, fmt: CheckpointFormat, module: Linear, layer: int) -> bool:
    """Whether ``fmt`` stores ``module`` of block ``layer`` quantized (a dense model's module; the head ignores
    ``layer``)."""
    if not _eligible(cfg, fmt, module):
        return False
    if module.role == "lm_head":
        return _matcher(fmt)(HEAD_NAME.get(cfg.layout, "lm_head"))
    return bool(_matcher(fmt)(f"{BLOCK_PREFIX.get(cfg.layout, 'model.layers')}.{layer}.{module.path}"))


@checks_model
def checkpoint_weight_bytes(cfg: ModelConfig, fmt: CheckpointFormat) -> dict[str, int]:
    """Bytes of the model's weights as the checkpoint that ``fmt`` describes stores them, by part; the parts sum to the
    total.

    ``quantized``: codes of converted weights; ``constants``: scales, zero points, group indices and the like;
    ``unquantized``: every parameter kept in 16 bits (DeepSeek's routers: 32), plus the converted layers' biases.
    """
    from .weightformats import FP32_ROUTERS

    quantized = constants = converted_weights = fp32 = 0
    for module, copies in _converted_copies(cfg, fmt):
        if module.role == "router" and cfg.model_type in FP32_ROUTERS:
            fp32 += module.params
        if not copies:
            continue
        codes, decode = stored_bytes(fmt, module.d_in, module.d_out)
        quantized += copies * codes
        constants += copies * (decode + (fmt.bias_bytes - 2) * (module.d_out if module.bias else 0))
        converted_weights += copies * module.d_in * module.d_out
    constants += fmt.kv_scale_bytes * cfg.n_layers
    return {"quantized": quantized, "constants": constants,
            "unquantized": 2 * (param_count.unchecked(cfg) - converted_weights + fp32)}


@checks_model
def kept_in_16_bits(cfg: ModelConfig, fmt: CheckpointFormat) -> list[tuple[str, int, int]]:
    """The linear modules ``fmt`` leaves in 16 bits, as ``(path, kept copies, all copies)``; embeddings and norms
    always stay.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> fmt = CheckpointFormat("fbgemm_fp8", "fp8", skip=("lm_head", "model.layers.0.mlp.down_proj"))
    >>> kept_in_16_bits(get_preset("llama-2-7b"), fmt)
    [('mlp.down_proj', 1, 32), ('lm_head', 1, 1)]
    """
    return [(module.path, module.copies - copies, module.copies) for module, copies in _converted_copies(cfg, fmt)
            if copies < module.copies]


ACCEPTED = {
    "integer": "an integer >= 1",
    "group": "-1 or an integer >= 1",
    "gemv_group": "32, 64 or at least 128 for gemv; -1 or at least 1 for gemm",
    "names": "a list of module names",
    "patterns": "module names or regular expressions",
    "targets": "a list of names, re: patterns or Linear",
    "block": "two integers >= 1, or null",
    "block_structure": "two integers >= 1",
    "object": "an object",
    "one_group": "exactly one group (a mixed-precision checkpoint is not modelled)",
    "dense_weights": "null (dense weights)",
    "no_fp8_embeddings": "null (FP8 embeddings are not modelled)",
    "every_block_layer": "null (every linear layer of the blocks)",
    "float_format": "float-quantized for float weights",
    "eight_bits": "8 for naive-quantized and int-quantized",
    "static_tensor": "tensor for a static input scale",
    "dense_model": "a dense model (routed experts are stored per expert, which transformers 5 stacks)",
    "linear_blocks": "a model whose blocks are nn.Linear",
    "load_in": "true, or load_in_8bit true",
    "named_copies": f"at most {MAX_NAMED_COPIES:,}",
    "gpt_oss_only": "gpt_oss (transformers 5.25 stores only gpt-oss's experts in MXFP4)",
}
"""What a quantization_config refusal accepts, where that is a description rather than a list of values: the
refusal carries its key as ``accepted_id`` (the planner words it in the page's language) and its English as
``accepted``."""


def is_qlora_base(fmt: CheckpointFormat) -> bool:
    """Whether ``fmt`` stores the weights as a QLoRA plan loads its base (bitsandbytes NF4 or FP4 with double
    quantization, the head kept): the plan of that task then holds for the checkpoint as it is.

    Examples
    --------
    >>> is_qlora_base(CheckpointFormat("bitsandbytes", "bnb-nf4-dq", bits=4, skip=("lm_head", "embed_out")))
    True
    """
    return fmt.codes == "bnb-nf4-dq" and fmt.skip == ("lm_head", "embed_out")


def describe(fmt: CheckpointFormat) -> str:
    """A short account of how ``fmt`` stores a converted layer, for a plan's notes.

    Examples
    --------
    >>> describe(CheckpointFormat("gptq", "gptq", bits=4, scales="group", group_size=128, scale_bytes=2))
    'gptq: 4-bit codes, a 16-bit scale per 128 inputs'
    """
    if fmt.codes.startswith("bnb-"):
        return f"{fmt.method}: {fmt.codes.removeprefix('bnb-')}"
    codes = {"fp8": "FP8 (e4m3) codes", "int8": "int8 codes", "mxfp4": "FP4 (e2m1) codes"}.get(
        fmt.codes, f"{fmt.bits}-bit codes")
    per = {"tensor": "per tensor", "channel": "per output channel", "group": f"per {fmt.group_size} inputs",
           "block": f"per {fmt.block[0]}x{fmt.block[1]} block"}[fmt.scales]
    if fmt.scales == "group" and not fmt.group_size:
        per = "per output channel"
    return f"{fmt.method}: {codes}, a {8 * fmt.scale_bytes}-bit scale {per}"


def _check(method: str, ok: bool, key: str, value: Any, accepted: str) -> None:
    if not ok:
        raise refusal("quantization_unmodelled", method=method, key=key, value=value,
                      accepted=ACCEPTED.get(accepted, accepted), accepted_id=accepted if accepted in ACCEPTED else None)


def _int(method: str, data: Mapping[str, Any], key: str, default: Any, accepted: tuple[int, ...] | None = None,
         minimum: int = 1) -> int:
    value = data.get(key, default)
    fine = isinstance(value, int) and not isinstance(value, bool) and (
        value in accepted if accepted else value >= minimum)
    _check(method, fine, key, value, ", ".join(map(str, accepted)) if accepted else (
        "integer" if minimum == 1 else "group"))
    return int(value)


# get_keys_to_not_convert: the output head (named lm_head, or embed_out in GPT-NeoX) when no list is given.
_DEFAULT_SKIP = ("lm_head", "embed_out")


def _names(method: str, data: Mapping[str, Any], key: str, *, head_by_default: bool = False) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return _DEFAULT_SKIP if head_by_default else ()
    _check(method, isinstance(value, list) and all(isinstance(v, str) for v in value), key, value, "names")
    for name in value:
        pattern = name[3:] if key == "ignore" and name.startswith("re:") else None if key == "ignore" else (
            f"(?:{name}){_BOUNDARY}")
        try:
            re.compile(pattern or "")
        except re.error:
            _check(method, False, key, name, "patterns")
    return tuple(value)


def _fp8(data: Mapping[str, Any], method: str) -> CheckpointFormat:
    # FineGrainedFP8Config reads vLLM's name for the list, ignored_layers, when modules_to_not_convert is absent.
    alias = "ignored_layers" if data.get("modules_to_not_convert") is None and "ignored_layers" in data else None
    skip = _names(method, data, alias or "modules_to_not_convert", head_by_default=True)
    _check(method, not data.get("modules_to_convert"), "modules_to_convert", data.get("modules_to_convert"),
           "no_fp8_embeddings")
    if method == "fbgemm_fp8":
        return CheckpointFormat(method, "fp8", scales="channel", scale_bytes=4, bias_bytes=4, skip=skip)
    block = data.get("weight_block_size")
    scheme = data.get("activation_scheme", "dynamic")
    _check(method, scheme in ("dynamic", "static"), "activation_scheme", scheme, "dynamic, static")
    scale_fmt = data.get("scale_fmt", "float")
    _check(method, scale_fmt in ("float", "ue8m0", None), "scale_fmt", scale_fmt, "float, ue8m0")
    _check(method, data.get("fmt", "e4m3") == "e4m3", "fmt", data.get("fmt"), "e4m3")
    if block is not None:
        fine = (isinstance(block, list) and len(block) == 2
                and all(isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in block))
        _check(method, fine, "weight_block_size", block, "block")
    return CheckpointFormat(method, "fp8", scales="block" if block else "tensor",
                            block=(block[0], block[1]) if block else (0, 0),
                            scale_bytes=1 if scale_fmt == "ue8m0" else 4,
                            input_scale_bytes=4 if scheme == "static" else 0, skip=skip)


def _compressed(data: Mapping[str, Any], cfg: ModelConfig) -> CheckpointFormat:
    method = "compressed-tensors"
    for key in ("sparsity_config", "transform_config"):
        _check(method, not data.get(key), key, data.get(key), "dense_weights")
    groups: Any = data.get("config_groups")
    _check(method, isinstance(groups, dict) and len(groups) == 1, "config_groups", groups,
           "one_group")
    [group] = groups.values()
    _check(method, isinstance(group, dict), "config_groups", groups, "object")
    weights = group.get("weights")
    _check(method, isinstance(weights, dict), "weights", weights, "object")
    kind = weights.get("type", "int")
    _check(method, kind in ("int", "float"), "weights.type", kind, "int, float")
    bits = _int(method, weights, "num_bits", None, (8,) if kind == "float" else (2, 4, 8))
    strategy = weights.get("strategy", "tensor")
    _check(method, strategy in ("tensor", "channel", "group", "block"), "weights.strategy", strategy,
           "tensor, channel, group, block")
    _check(method, weights.get("dynamic", False) is False, "weights.dynamic", weights.get("dynamic"), "false")
    group_size = _int(method, weights, "group_size", None) if strategy == "group" else 0
    block = weights.get("block_structure") if strategy == "block" else None
    if strategy == "block":
        fine = isinstance(block, list) and len(block) == 2 and all(
            isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in block)
        _check(method, fine, "weights.block_structure", block, "block_structure")
    actorder = weights.get("actorder")
    _check(method, actorder in (None, "group", "weight", "static", "dynamic"), "weights.actorder", actorder,
           "null, group, weight, static, dynamic")
    fmt_name = group.get("format") or data.get("format")
    formats = {"float-quantized": "fp8", "naive-quantized": "int8", "int-quantized": "int8", "pack-quantized": "packed"}
    _check(method, isinstance(fmt_name, str) and fmt_name in formats, "format", fmt_name, ", ".join(formats))
    codes = formats[str(fmt_name)]
    _check(method, codes != "fp8" or kind == "float", "format", fmt_name, "float_format")
    _check(method, codes != "int8" or bits == 8, "weights.num_bits", bits, "eight_bits")
    inputs = group.get("input_activations")
    static_input = isinstance(inputs, dict) and inputs.get("dynamic") is False
    _check(method, not static_input or inputs.get("strategy", "tensor") == "tensor", "input_activations.strategy",
           inputs.get("strategy") if isinstance(inputs, dict) else None, "static_tensor")
    targets = group.get("targets")
    _check(method, isinstance(targets, list) and all(isinstance(t, str) for t in targets), "targets", targets,
           "targets")
    _names(method, {"ignore": targets}, "ignore")  # its re: patterns compile
    _check(method, not cfg.is_moe, "model_type", cfg.model_type,
           "dense_model")
    kv = data.get("kv_cache_scheme")
    return CheckpointFormat(method, codes, bits=bits, scales=strategy, group_size=group_size,
                            block=(block[0], block[1]) if block else (0, 0), scale_bytes=2,
                            zero_points=not weights.get("symmetric", True), group_index=actorder == "group",
                            input_scale_bytes=2 if static_input else 0, skip=_names(method, data, "ignore"),
                            targets=tuple(targets), matcher="compressed-tensors",
                            kv_scale_bytes=4 if isinstance(kv, dict) else 0)


def _gptq_awq(data: Mapping[str, Any], cfg: ModelConfig, method: str) -> CheckpointFormat:
    _check(method, not cfg.is_moe, "model_type", cfg.model_type,
           "dense_model")
    if method == "awq":
        bits = _int(method, data, "bits", 4, (4,))
        version = data.get("version", "gemm")
        _check(method, str(version).lower() in ("gemm", "gemv"), "version", version, "gemm, gemv")
        gemv = str(version).lower() == "gemv"
        group = _int(method, data, "group_size", 128, minimum=-1)
        _check(method, group != 0 and not (gemv and (group < 0 or (group < 128 and group not in (32, 64)))),
               "group_size", group, "gemv_group")
        return CheckpointFormat(method, "awq-gemv" if gemv else "awq", bits=bits, scales="group",
                                group_size=group if group > 0 else 0, scale_bytes=2,
                                skip=_names(method, data, "modules_to_not_convert"), blocks_only=True)
    bits = _int(method, data, "bits", 4, (2, 3, 4, 8))
    group = _int(method, data, "group_size", 128, minimum=-1)
    _check(method, group != 0, "group_size", group, "group")
    for key in ("dynamic", "modules_in_block_to_quantize"):
        _check(method, not data.get(key), key, data.get(key), "every_block_layer")
    _check(method, not data.get("lm_head", False), "lm_head", data.get("lm_head"), "false")
    fmt = data.get("checkpoint_format", "gptq")
    _check(method, fmt in ("gptq", "gptq_v2"), "checkpoint_format", fmt, "gptq, gptq_v2")
    return CheckpointFormat(method, "gptq", bits=bits, scales="group", group_size=group if group > 0 else 0,
                            scale_bytes=2, group_index=True, blocks_only=True)


def _bitsandbytes(data: Mapping[str, Any]) -> CheckpointFormat:
    method = "bitsandbytes"
    skip = _names(method, data, "llm_int8_skip_modules", head_by_default=True)
    if data.get("load_in_8bit"):
        return CheckpointFormat(method, "bnb-int8", skip=skip)
    _check(method, bool(data.get("load_in_4bit")), "load_in_4bit", data.get("load_in_4bit"),
           "load_in")
    kind = data.get("bnb_4bit_quant_type", "fp4")
    _check(method, kind in ("nf4", "fp4"), "bnb_4bit_quant_type", kind, "nf4, fp4")
    double = data.get("bnb_4bit_use_double_quant", False)
    _check(method, isinstance(double, bool), "bnb_4bit_use_double_quant", double, "true, false")
    return CheckpointFormat(method, "bnb-nf4-dq" if double else "bnb-nf4", bits=4, skip=skip)


def _mxfp4(data: Mapping[str, Any], cfg: ModelConfig) -> CheckpointFormat:
    method = "mxfp4"
    _check(method, cfg.model_type == "gpt_oss", "model_type", cfg.model_type, "gpt_oss_only")
    _check(method, data.get("dequantize", False) is False, "dequantize", data.get("dequantize"), "false")
    return CheckpointFormat(method, "mxfp4", bits=4, scales="group", group_size=32, scale_bytes=1,
                            skip=_names(method, data, "modules_to_not_convert"))


def quantization_from_hf(quantization: Any, cfg: ModelConfig) -> CheckpointFormat:
    """The :class:`CheckpointFormat` a ``quantization_config`` describes for the model ``cfg``, or a refusal."""
    if not isinstance(quantization, Mapping):
        _check("a checkpoint", False, "quantization_config", quantization, "object")
    method = quantization.get("quant_method", "bitsandbytes" if any(
        k in quantization for k in ("load_in_4bit", "load_in_8bit")) else None)
    if method not in QUANT_METHODS:
        _check("llmcalc", False, "quant_method", method, ", ".join(QUANT_METHODS))
    if method in ("fbgemm_fp8", "fp8"):
        fmt = _fp8(quantization, str(method))
    elif method == "compressed-tensors":
        fmt = _compressed(quantization, cfg)
    elif method in ("awq", "gptq"):
        fmt = _gptq_awq(quantization, cfg, str(method))
    elif method == "mxfp4":
        fmt = _mxfp4(quantization, cfg)
    else:
        fmt = _bitsandbytes(quantization)
    # GPT-2's Conv1D and FalconLinear are not the nn.Linear these quantizers replace: a checkpoint's tensors would
    # find no module, so what transformers loads is not modelled.
    if (fmt.blocks_only or fmt.matcher == "compressed-tensors") and cfg.layout in ("gpt2", "falcon"):
        _check(str(method), False, "model_type", cfg.model_type, "linear_blocks")
    return fmt


def checkpoint_from_hf(source: Mapping[str, Any] | str | os.PathLike[str]) -> Checkpoint:
    """Read a ``config.json`` whole: the model and, when it has a ``quantization_config``, how its weights are stored.

    Examples
    --------
    A GPTQ 4-bit checkpoint of Llama 2 7B (group size 128): 3.63 GiB of weights, where BF16 takes 12.55.

    >>> from llmcalc import GiB
    >>> data = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
    ...         "num_hidden_layers": 32, "num_attention_heads": 32, "max_position_embeddings": 4096,
    ...         "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False}}
    >>> checkpoint = checkpoint_from_hf(data)
    >>> round(sum(checkpoint_weight_bytes(checkpoint.config, checkpoint.weight_format).values()) / GiB, 2)
    3.63
    >>> checkpoint_from_hf({**data, "quantization_config": {"quant_method": "hqq"}})
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: quantization_config: quant_method = 'hqq' is not modelled for llmcalc; ...
    """
    from .hf import config_from_hf, read_config

    data = read_config(source)
    if "quantization_config" not in data:
        return Checkpoint(config_from_hf(data), None)
    cfg = config_from_hf({key: value for key, value in data.items() if key != "quantization_config"})
    return Checkpoint(cfg, quantization_from_hf(data["quantization_config"], cfg))
