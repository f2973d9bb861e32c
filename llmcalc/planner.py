"""Will it fit?  GPU memory of inference and fine-tuning, by part, against a GPU.

One source of truth for the planner widget: its JavaScript repeats these rules
and the browser tests compare it with this module byte for byte.

A plan adds up parts computed from the shapes and number formats for a named
software set-up (weights, KV cache, gradients, optimizer state, from
``llmcalc.memory``, ``llmcalc.weightformats`` and ``llmcalc.lora``; see
:func:`plan_training` for the set-up each task assumes) and one that is a
measured model (activations:
:mod:`llmcalc.activations`), plus a
stated fixed :data:`RESERVE` for what no formula here counts: the CUDA context,
the caching allocator's rounding and fragmentation, temporary buffers of
kernels.  It answers for one GPU: under ZeRO, the per-GPU share.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

from . import _validate as check
from .activations import activation_memory, planner_attention
from .config import ModelConfig, as_model_config
from .errors import refusal
from .lora import lora_model_params, lora_targets
from .memory import kv_cache_bytes, training_memory, zero_memory_per_gpu
from .params import Linear, linear_modules, param_breakdown, param_count
from .units import GB, GiB, MiB
from .weightformats import WEIGHT_FORMATS, _converted, weight_format_bytes

RESERVE = GiB
"""The 1 GiB every plan sets aside for the CUDA context and the allocator, an assumption, not a measurement.

A process cannot use the whole of a card's reported total: before it allocates
a tensor, the CUDA context (kernels, cuBLAS/cuDNN workspaces, the driver's own
bookkeeping) takes a few hundred MiB, more on newer cards and drivers; we
assume it takes at most 0.5 GiB of this reserve.  The rest covers the caching
allocator's rounding and fragmentation and kernels' temporary buffers, which
depend on the workload.
"""


@dataclass(frozen=True)
class GpuCard:
    """A listed card: its memory as the driver reports it, and where that figure was read.

    ``reported_mib`` is ``memory.total`` as ``nvidia-smi`` prints it (MiB,
    ECC on where the card has it), quoted in the public ``source`` and read on
    ``checked``.
    """

    key: str
    name: str
    reported_mib: int
    source: str
    checked: str

    @property
    def total_bytes(self) -> int:
        """The reported total in bytes."""
        return self.reported_mib * MiB

    @property
    def label(self) -> str:
        """The name a list shows, the vendor's nominal size and then the reported MiB."""
        return f"{self.name}: {self.reported_mib:,} MiB"


_CHECKED = "2026-12-01"
CARDS: tuple[GpuCard, ...] = (
    GpuCard("rtx-3060", "RTX 3060 (12 GB)", 12_288,
            "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/790", _CHECKED),
    GpuCard("t4", "T4 (16 GB)", 15_360, "https://github.com/modal-labs/modal-client/pull/2797", _CHECKED),
    GpuCard("a10g", "A10G (24 GB)", 23_028, "https://github.com/NVIDIA/DCGM/issues/232", _CHECKED),
    GpuCard("l4", "L4 (24 GB)", 23_034, "https://github.com/modal-labs/modal-client/pull/2797", _CHECKED),
    GpuCard("rtx-3090", "RTX 3090 (24 GB)", 24_576, "https://github.com/noonghunna/club-3090/issues/1127", _CHECKED),
    GpuCard("rtx-4090", "RTX 4090 (24 GB)", 24_564, "https://github.com/RLinf/RLinf/issues/255", _CHECKED),
    GpuCard("rtx-5090", "RTX 5090 (32 GB)", 32_607, "https://github.com/noonghunna/club-3090/issues/617", _CHECKED),
    GpuCard("a100-40gb", "A100 (40 GB)", 40_960, "https://github.com/modal-labs/modal-client/pull/2797", _CHECKED),
    GpuCard("l40s", "L40S (48 GB)", 46_068, "https://github.com/akash-network/provider-configs/pull/99", _CHECKED),
    GpuCard("a100-80gb", "A100 (80 GB)", 81_920, "https://github.com/modal-labs/modal-client/pull/2797", _CHECKED),
    GpuCard("h100-sxm", "H100 SXM (80 GB)", 81_559, "https://github.com/NVIDIA/nccl/issues/1264", _CHECKED),
    GpuCard("h100-nvl", "H100 NVL (94 GB)", 95_830, "https://github.com/wilicc/gpu-burn/issues/141", _CHECKED),
    GpuCard("h200", "H200 (141 GB)", 143_771, "https://github.com/sgl-project/sglang/issues/3196", _CHECKED),
    GpuCard("b200", "B200 (180 GB)", 183_359, "https://github.com/NVIDIA/TensorRT-LLM/issues/10278", _CHECKED),
)
"""Cards a buyer rents or owns today, with ``memory.total`` as ``nvidia-smi`` reports it, each from a public source.

The vendor's "GB" is a nominal figure: a T4 sold as 16 GB reports 15,360 MiB
(15.00 GiB), an L4 sold as 24 GB 23,034 MiB, an L40S sold as 48 GB 46,068 MiB.
Cards whose reported total we found no public driver output for (H100 PCIe,
AMD's MI300X under ``rocm-smi``) are left out rather than guessed: give the
planner your card's own figure.
"""

GPUS: Mapping[str, int] = MappingProxyType({card.label: card.total_bytes for card in CARDS})
"""Each listed card's label and its reported total in bytes (from :data:`CARDS`)."""

MIN_GPU_BYTES = MiB
MAX_GPU_BYTES = 100_000 * GiB
# A memory size: a decimal number, then an optional unit; no unit means GiB (what nvidia-smi's totals convert to).
# ASCII only, so that the widget's JavaScript reads every text alike (Python's \d and \s take other scripts' digits
# and spaces).
_SPACE = " \t\n\r\f\v"
_MEMORY = re.compile(r"[ \t\n\r\f\v]*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t\n\r\f\v]*([A-Za-z]*)[ \t\n\r\f\v]*")
MEMORY_UNITS: Mapping[str, int] = MappingProxyType({"": GiB, "gib": GiB, "gb": GB, "mib": MiB})
"""The units a GPU memory size may carry, in any case, and their bytes.

None or ``GiB`` is ``2**30`` bytes, ``GB`` the vendor's ``10**9``, ``MiB`` ``2**20``.
"""


def gpu_memory(text: str) -> int:
    """Bytes of GPU memory from what a user types: ``22.49``, ``23034 MiB``, ``24GB``, ``44.99 GiB`` or a card's key.

    A bare number is GiB; ``GB`` is the vendor's decimal gigabyte (``10**9``
    bytes); fractions are exact and rounded down to whole bytes.  A key of
    :data:`CARDS` (``l4``, ``h100-sxm``) gives that card's reported total.

    Examples
    --------
    >>> gpu_memory("22.49"), gpu_memory("23034 MiB"), gpu_memory("24GB"), gpu_memory("l40s") // 2**20
    (24148453621, 24152899584, 24000000000, 46068)
    >>> gpu_memory("24 TB")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: GPU memory must be a size from 1 MiB to 100,000 GiB: a number of GiB ...
    """
    if not isinstance(text, str):
        raise refusal("gpu_memory_type", value=text, type=type(text).__name__)
    cards = {card.key: card for card in CARDS}
    key = text.strip(_SPACE).lower()
    if key in cards:
        return cards[key].total_bytes
    match = _MEMORY.fullmatch(text)
    if not match or match.group(2).lower() not in MEMORY_UNITS:
        raise refusal("gpu_memory_unreadable", cards=list(cards), value=text)
    number, unit = match.groups()
    whole, _, fraction = number.partition(".")
    size: int = int((whole + fraction) or "0") * MEMORY_UNITS[unit.lower()] // 10 ** len(fraction)
    if not MIN_GPU_BYTES <= size <= MAX_GPU_BYTES:
        raise refusal("gpu_memory_out_of_range", value=text, size=size)
    return size

TASKS = ("inference", "full", "lora", "qlora")
OPTIMIZERS = ("adamw", "adamw-8bit", "sgd-momentum")
PRECISIONS = ("bf16", "amp", "mixed")
"""Full fine-tuning's precision regimes (see :func:`plan_training`); the first is the default.

``bf16``: the model trained in its checkpoint's bfloat16, as transformers 5 loads it
(``from_pretrained``'s ``dtype="auto"``), torch's AdamW keeping its moments in the
parameters' dtype: 2 + 2 + 4 = 8 bytes per parameter.  ``amp``: PyTorch automatic
mixed precision on an fp32 model: fp32 weights, gradients and moments, 4 + 4 + 8 = 16.
``mixed``: DeepSpeed ZeRO's and Megatron's mixed precision: bf16 weights and gradients,
an fp32 master copy and fp32 moments, 2 + 2 + 4 + 8 = 16.
"""
_PRECISION_RECIPES: Mapping[str, str] = MappingProxyType({"bf16": "bf16", "amp": "fp32", "mixed": "mixed"})
QLORA_PREPARATIONS = ("kbit", "none")
"""How a QLoRA plan prepares its base; ``kbit`` (default) runs peft's ``prepare_model_for_kbit_training``,
``none`` does not."""
# bitsandbytes 0.50.2, bitsandbytes/optim/optimizer.py, Optimizer2State.init_state: a tensor of fewer than
# min_8bit_size (4096) values keeps two fp32 states; a larger one two uint8 states and one fp32 absmax per 256
# values for each; the optimizer's two 256-entry fp32 quantization maps ("dynamic", "udynamic") are shared.
BNB_MIN_8BIT_SIZE = 4096
BNB_OPTIMIZER_BLOCK = 256
BNB_QUANTIZATION_MAPS = 2 * 256 * 4
KV_FORMATS = ("bf16", "fp16", "fp8", "fp32")
# Largest inputs the planner takes: beyond them a plan describes no machine that exists.
MAX_PARAMS = 10**13
MAX_TOKENS = 2**24
MAX_BATCH = 2**16
MAX_GPUS = 2**16


@dataclass(frozen=True)
class MemoryPlan:
    """Bytes on one GPU, by part.  ``optimizer_states`` includes the fp32 master weights of mixed precision."""

    weights: int
    kv_cache: int
    gradients: int
    optimizer_states: int
    activations: int
    reserve: int

    @property
    def total(self) -> int:
        """All parts together."""
        return sum(getattr(self, part.name) for part in fields(self))

    def fits(self, gpu_bytes: int) -> bool:
        """Whether the plan fits in ``gpu_bytes`` of GPU memory."""
        return self.total <= check.count("gpu_bytes", gpu_bytes)


def _checked_model(cfg: ModelConfig) -> tuple[ModelConfig, int]:
    """The config and its parameter count, refused beyond :data:`MAX_PARAMS`."""
    cfg = as_model_config(cfg)
    n = param_count(cfg)
    if n > MAX_PARAMS:
        raise refusal("model_too_large", params=n, max_params=MAX_PARAMS)
    return cfg, n


def context_limit(cfg: ModelConfig) -> int:
    """The most tokens per sequence a plan takes: ``MAX_TOKENS`` (``2**24``), or a learned position table's length.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> context_limit(get_preset("llama-2-7b")), context_limit(get_preset("gpt2"))
    (16777216, 1024)
    """
    return min(as_model_config(cfg).learned_positions or MAX_TOKENS, MAX_TOKENS)


def trained_context(cfg: ModelConfig) -> int | None:
    """The positions ``cfg`` was trained on (:attr:`~llmcalc.ModelConfig.trained_context`), or None when unknown.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> trained_context(get_preset("llama-3-8b")), trained_context(get_preset("reference"))
    (8192, None)
    """
    return as_model_config(cfg).trained_context or None


def context_search_limit(cfg: ModelConfig, *, beyond_trained: bool = False) -> int:
    """Where a search for the longest context that fits stops: the trained context, or, if ``beyond_trained``
    (or the trained context is unknown), :func:`context_limit`.

    A context past the trained one may fit in memory, but the model was never
    trained on those positions; going there is the reader's explicit choice.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> cfg = get_preset("llama-3-8b")
    >>> context_search_limit(cfg), context_search_limit(cfg, beyond_trained=True)
    (8192, 16777216)
    """
    limit = context_limit(cfg)
    trained = trained_context(cfg)
    if check.flag("beyond_trained", beyond_trained) or trained is None:
        return limit
    return min(trained, limit)


def _tokens(cfg: ModelConfig, name: str, value: int) -> int:
    return check.count(name, value, maximum=context_limit(cfg))


def plan_inference(
    cfg: ModelConfig, *, context: int, batch: int = 1, weight_format: str = "bf16", kv_format: str = "bf16"
) -> MemoryPlan:
    """Memory to generate with ``cfg``: weights, the KV cache of ``batch`` sequences of ``context`` tokens, reserve.

    Weights as :func:`~llmcalc.weightformats.weight_format_bytes` stores them
    in ``weight_format`` (quantization constants and the tensors kept in 16
    bits included), the KV cache as :func:`~llmcalc.kv_cache_bytes` in
    ``kv_format``.  Not counted: the activations of one forward pass (freed
    layer by layer; for a long prompt processed at once they can matter),
    the logits, and a serving engine's preallocated cache pool.

    Examples
    --------
    Llama-2-7B in bf16 at a 4,096-token context: 12.6 GiB of weights, 2 GiB of KV cache.

    >>> from llmcalc import get_preset, GiB
    >>> plan = plan_inference(get_preset("llama-2-7b"), context=4096)
    >>> plan.weights, plan.kv_cache, plan.total
    (13476831232, 2147483648, 16698056704)
    >>> plan.fits(12 * GiB), plan.fits(16 * GiB)
    (False, True)
    """
    cfg, _ = _checked_model(cfg)
    tokens = _tokens(cfg, "context", context)
    sequences = check.count("batch", batch, maximum=MAX_BATCH)
    kv = kv_cache_bytes(cfg, tokens, batch=sequences, dtype=check.choice("kv_format", kv_format, KV_FORMATS))
    weights = sum(weight_format_bytes(cfg, weight_format).values())
    return MemoryPlan(weights, kv, 0, 0, 0, RESERVE)


def _trained_tensors(cfg: ModelConfig) -> list[tuple[int, int]]:
    """Every parameter tensor of ``cfg`` as ``(values, copies)``: linear weights and biases, embeddings, norms.

    Stacked routed experts (one 3-D tensor per layer in transformers 5) are listed per expert; that changes
    only how 8-bit AdamW's last block of each tensor rounds.
    """
    tensors: list[tuple[int, int]] = []
    for module in linear_modules(cfg):
        tensors.append((module.d_in * module.d_out, module.copies))
        if module.bias:
            tensors.append((module.d_out, module.copies))
    parts = param_breakdown(cfg)
    tensors += [(parts["embedding"], 1), (parts["positions"], 1)]
    norm_tensors = {"rmsnorm": 1, "layernorm": 2, "parameter-free": 0}[cfg.norm]
    widths = [cfg.d_model] * cfg.norms_per_layer
    if cfg.qk_norm == "per-head":
        widths += [cfg.head_dim, cfg.head_dim]
    elif cfg.qk_norm == "per-projection":
        widths += [cfg.q_dim, cfg.kv_dim]
    if cfg.uses_latent_attention:
        widths += [cfg.kv_lora_rank] + ([cfg.q_lora_rank] if cfg.q_lora_rank else [])
    tensors += [(width, cfg.n_layers * norm_tensors) for width in widths]
    tensors.append((cfg.d_model, norm_tensors))
    return [(values, copies) for values, copies in tensors if values and copies]


def _adapter_tensors(cfg: ModelConfig, rank: int, targets: str | Iterable[str]) -> list[tuple[int, int]]:
    """peft's LoRA tensors for ``targets``: ``lora_A`` (``rank x d_in``) and ``lora_B`` (``d_out x rank``)."""
    modules: list[Linear] = lora_targets(cfg, targets)
    return [t for m in modules for t in ((rank * m.d_in, m.copies), (m.d_out * rank, m.copies))]


def adamw_8bit_state_bytes(tensors: Iterable[tuple[int, int]]) -> int:
    """Bytes bitsandbytes' ``AdamW8bit`` keeps for tensors given as ``(values, copies)``, block constants included.

    A tensor of at least 4,096 values keeps two uint8 states and, for each, one
    fp32 ``absmax`` per block of 256 values (the last block partial); a smaller
    one keeps two fp32 states; the optimizer adds its two 256-entry fp32
    quantization maps once (bitsandbytes 0.50.2, ``Optimizer2State.init_state``).

    Examples
    --------
    One 4096 x 4096 matrix: 2 bytes a value, plus 2 x 65,536 absmax of 4 bytes
    and the 2 KiB of maps; a 4,095-value vector keeps fp32 states, 8 bytes a value.

    >>> adamw_8bit_state_bytes([(4096 * 4096, 1)]) - 2 * 4096 * 4096
    526336
    >>> adamw_8bit_state_bytes([(4095, 1)])
    32760
    """
    total = 0
    any_8bit = False
    for values, copies in tensors:
        if values < BNB_MIN_8BIT_SIZE:
            total += copies * 8 * values
        else:
            any_8bit = True
            total += copies * (2 * values + 2 * 4 * -(-values // BNB_OPTIMIZER_BLOCK))
    return total + (BNB_QUANTIZATION_MAPS if any_8bit else 0)


def training_state_bytes(
    cfg: ModelConfig,
    *,
    task: str = "full",
    precision: str = "bf16",
    optimizer: str = "adamw",
    rank: int = 16,
    targets: str | Iterable[str] = ("q", "v"),
    qlora_preparation: str = "kbit",
) -> dict[str, int]:
    """Weights, gradients and optimizer state (master weights included) of one GPU without ZeRO, in exact bytes.

    ``task`` ``"full"``: every parameter trained in ``precision`` (:data:`PRECISIONS`).
    ``"lora"``: a bf16 base and fp32 adapters.  ``"qlora"``: an NF4 base with double
    quantization; with ``qlora_preparation="kbit"`` (default; QLoRA recipes call it before
    adding the adapters) peft's ``prepare_model_for_kbit_training`` has upcast every
    parameter left in 16 bits to fp32 except the biases of 4-bit layers, which
    bitsandbytes' ``Linear4bit`` casts back to its compute dtype at the first forward.
    ``"adamw-8bit"`` counts bitsandbytes' block constants (:func:`adamw_8bit_state_bytes`).
    Not counted: torch's 4-byte ``step`` scalar per trained tensor.

    Examples
    --------
    Llama 2 7B: the fp32 upcast adds 0.49 GiB to QLoRA's weights; full fine-tuning in
    bf16 keeps 8 bytes a parameter, PyTorch AMP and DeepSpeed's mixed precision 16.

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-7b")
    >>> kbit, plain = (training_state_bytes(cfg, task="qlora", qlora_preparation=p) for p in QLORA_PREPARATIONS)
    >>> round((kbit["weights"] - plain["weights"]) / GiB, 2)
    0.49
    >>> [round(sum(training_state_bytes(cfg, precision=p).values()) / GiB, 1) for p in PRECISIONS]
    [50.2, 100.4, 100.4]
    """
    cfg, n_params = _checked_model(cfg)
    kind = check.choice("task", task, TASKS[1:])
    optimizer = check.choice("optimizer", optimizer, OPTIMIZERS)
    if kind == "full":
        recipe = _PRECISION_RECIPES[check.choice("precision", precision, PRECISIONS)]
        parts = training_memory(n_params, optimizer, recipe)
        if optimizer == "adamw-8bit":
            parts["optimizer_states"] = adamw_8bit_state_bytes(_trained_tensors(cfg))
        return {"weights": parts["weights"], "gradients": parts["gradients"],
                "optimizer_states": parts["optimizer_states"] + parts["master_weights"]}
    if precision != "bf16":
        raise refusal("precision_needs_full", precision=precision, task=kind)
    preparation = check.choice("qlora_preparation", qlora_preparation, QLORA_PREPARATIONS)
    if kind == "lora" and preparation != "kbit":
        raise refusal("qlora_preparation_needs_qlora", qlora_preparation=preparation, task=kind)
    count = check.count("rank", rank)
    base_parts = weight_format_bytes(cfg, "nf4-dq" if kind == "qlora" else "bf16")
    base = sum(base_parts.values())
    if kind == "qlora" and preparation == "kbit":
        quantized_biases = sum(2 * m.d_out * m.copies for m in linear_modules(cfg)
                               if m.bias and _converted(m, "nf4-dq", cfg))
        base += base_parts["unquantized"] - quantized_biases  # 16-bit parameters made fp32: 2 more bytes each
    adapters = training_memory(lora_model_params(cfg, count, targets), optimizer, "fp32")
    states = adapters["optimizer_states"]
    if optimizer == "adamw-8bit":
        states = adamw_8bit_state_bytes(_adapter_tensors(cfg, count, targets))
    return {"weights": base + adapters["weights"], "gradients": adapters["gradients"], "optimizer_states": states}


def plan_training(
    cfg: ModelConfig,
    *,
    task: str = "full",
    seq_len: int,
    micro_batch: int = 1,
    optimizer: str = "adamw",
    checkpointing: bool = False,
    zero_stage: int = 0,
    n_gpus: int = 1,
    rank: int = 16,
    targets: str | Iterable[str] = ("q", "v"),
    precision: str = "bf16",
    qlora_preparation: str = "kbit",
    lora_dropout: float = 0.0,
) -> MemoryPlan:
    """Memory on one GPU for a training step of ``task``: ``"full"``, ``"lora"`` or ``"qlora"``.

    Weights, gradients and optimizer state are :func:`training_state_bytes`:

    * ``"full"``: every parameter trained in ``precision`` (:data:`PRECISIONS`):
      ``"bf16"`` (default, what the Hugging Face Trainer does with transformers 5,
      which loads a checkpoint in its stored bf16; torch's AdamW keeps bf16 moments):
      8 bytes per parameter with AdamW; ``"amp"`` (PyTorch AMP on an fp32 model) and
      ``"mixed"`` (DeepSpeed ZeRO, Megatron: bf16 weights and gradients, fp32 master
      and moments): 16.  Split across ``n_gpus`` by ZeRO ``zero_stage`` as
      :func:`~llmcalc.zero_memory_per_gpu`.
    * ``"lora"``: the frozen base in bf16, and the adapters of
      :func:`~llmcalc.lora_model_params` (``rank``, ``targets``) trained in
      fp32, as peft keeps them by default (``autocast_adapter_dtype``): 4
      bytes of weights, 4 of gradients and the optimizer's states each (fp32,
      or 1 byte a state plus block constants with 8-bit AdamW); no master copy.
    * ``"qlora"``: as ``"lora"`` with the base in NF4 with double quantization,
      by default prepared by peft's ``prepare_model_for_kbit_training``
      (``qlora_preparation="kbit"``, as QLoRA recipes do): embedding, head and
      norms upcast to fp32; ``"none"`` leaves them in 16 bits.  A paged
      optimizer's states are counted in GPU memory, since paging only moves them
      out under pressure.

    Activations are :func:`~llmcalc.activations.activation_memory`'s ``peak``
    (SDPA attention, eager for Gemma 2, for which transformers 5.24 refuses SDPA;
    bf16) for ``micro_batch`` sequences of ``seq_len``
    tokens, with the adapters of LoRA and QLoRA and their ``lora_dropout``
    (peft's default 0; a dropout keeps each adapter's dropped-out input and
    mask); ZeRO does not split them.  Not counted: ZeRO's gather and
    communication buffers, and the bf16 weight copies autocast keeps under
    ``"amp"``.  A ``"kbit"``-prepared QLoRA base runs its residual stream in
    fp32, and its activations are counted so (measured with peft 0.21.2).

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-7b")
    >>> plan = plan_training(cfg, seq_len=2048)
    >>> plan.weights // GiB, plan.gradients // GiB, plan.optimizer_states // GiB
    (12, 12, 25)
    >>> mixed = plan_training(cfg, seq_len=2048, precision="mixed")
    >>> mixed.optimizer_states // GiB
    75
    >>> plan_training(cfg, seq_len=2048, precision="fp8")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: precision must be one of 'bf16', 'amp', 'mixed'; got 'fp8'
    >>> plan_training(get_preset("llama-2-7b"), task="sft", seq_len=2048)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: task must be one of 'full', 'lora', 'qlora'; got 'sft'
    """
    cfg, n_params = _checked_model(cfg)
    kind = check.choice("task", task, TASKS[1:])
    tokens = _tokens(cfg, "seq_len", seq_len)
    sequences = check.count("micro_batch", micro_batch, maximum=MAX_BATCH)
    optimizer = check.choice("optimizer", optimizer, OPTIMIZERS)
    if kind == "full":
        recipe = _PRECISION_RECIPES[check.choice("precision", precision, PRECISIONS)]
        activations = activation_memory(cfg, sequences, tokens, checkpointing=checkpointing,
                                        attention=planner_attention(cfg)).peak
        gpus = check.count("n_gpus", n_gpus, maximum=MAX_GPUS)
        stage = check.count("zero_stage", zero_stage, minimum=0, maximum=3)
        parts = zero_memory_per_gpu(n_params, stage, gpus, optimizer, recipe)
        states = parts["optimizer_states"]
        if optimizer == "adamw-8bit":
            # Unsharded, bitsandbytes' per-tensor states; sharded, one flat shard per GPU with its block constants.
            states = (training_state_bytes(cfg, precision=precision, optimizer=optimizer)["optimizer_states"]
                      - parts["master_weights"] if stage == 0
                      else adamw_8bit_state_bytes([(-(-n_params // gpus), 1)]))
        return MemoryPlan(parts["weights"], 0, parts["gradients"], states + parts["master_weights"], activations,
                          RESERVE)
    if zero_stage != 0 or n_gpus != 1:
        raise refusal("zero_needs_full", task=kind, zero_stage=zero_stage, n_gpus=n_gpus)
    # QLoRA's 4-bit base keeps its weight, not its input, for backward: measured the same bytes as LoRA, unless
    # prepare_model_for_kbit_training made the residual stream fp32 (measured too).
    activations = activation_memory(cfg, sequences, tokens, checkpointing=checkpointing, lora_targets=targets,
                                    lora_rank=rank, lora_dropout=lora_dropout, attention=planner_attention(cfg),
                                    qlora_preparation=qlora_preparation if kind == "qlora" else None).peak
    state = training_state_bytes(cfg, task=kind, precision=precision, optimizer=optimizer, rank=rank,
                                 targets=targets, qlora_preparation=qlora_preparation)
    return MemoryPlan(state["weights"], 0, state["gradients"], state["optimizer_states"], activations, RESERVE)


def largest_fitting(plan: Callable[[int], MemoryPlan], gpu_bytes: int, *, limit: int) -> int:
    """The largest ``n`` in ``[1, limit]`` with ``plan(n).fits(gpu_bytes)``, or 0 if not even ``n = 1`` fits.

    ``plan`` must grow with ``n`` (a context length, a batch), as every plan
    here does; a binary search, so about ``log2(limit)`` plans.

    Examples
    --------
    The longest context Llama-2-7B in bf16 can hold in 24 GiB: 4,096, the
    positions it was trained on, where :func:`context_search_limit` stops;
    searched past them, 21,398 tokens would fit in memory:

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-7b")
    >>> largest_fitting(lambda t: plan_inference(cfg, context=t), 24 * GiB, limit=context_search_limit(cfg))
    4096
    >>> largest_fitting(lambda t: plan_inference(cfg, context=t), 24 * GiB, limit=MAX_TOKENS)
    21398
    """
    budget = check.count("gpu_bytes", gpu_bytes)
    low, high = 0, check.count("limit", limit)
    while low < high:
        middle = (low + high + 1) // 2
        if plan(middle).fits(budget):
            low = middle
        else:
            high = middle - 1
    return low


@dataclass(frozen=True)
class FitChange:
    """One setting changed from a plan that does not fit, and the plan that change gives.

    ``setting`` is the keyword of :func:`plan_training` or :func:`plan_inference` (or ``"gpu"``, a listed card's
    key from :data:`CARDS`), ``value`` its new value, ``gpu_bytes`` the memory the new plan is checked against.
    """

    setting: str
    value: str | int | bool
    plan: MemoryPlan
    gpu_bytes: int


def _cheapest_card(plan: MemoryPlan, gpu_bytes: int) -> GpuCard | None:
    """The listed card with the least memory above ``gpu_bytes`` on which ``plan`` fits."""
    larger = sorted((card for card in CARDS if card.total_bytes > gpu_bytes), key=lambda card: card.total_bytes)
    return next((card for card in larger if plan.fits(card.total_bytes)), None)


def _smaller_that_fits(
    planned: Callable[..., MemoryPlan], setting: str, given: int, budget: int
) -> FitChange | None:
    """The largest value of ``setting`` below ``given`` whose plan fits ``budget``, or None."""
    if given <= 1:
        return None

    def vary(n: int) -> MemoryPlan:
        return planned(**{setting: n})

    largest = largest_fitting(vary, budget, limit=given - 1)
    return FitChange(setting, largest, vary(largest), budget) if largest else None


def training_changes_that_fit(cfg: ModelConfig, gpu_bytes: int, **settings: Any) -> list[FitChange]:
    """Each single change of a training set-up that makes :func:`plan_training` fit ``gpu_bytes``, smallest first.

    ``settings`` are :func:`plan_training`'s keywords as given (``seq_len`` among them).  Tried in this order, and
    kept when the plan then fits: activation checkpointing on; the largest smaller micro-batch; the longest
    shorter sequence; 8-bit AdamW states (for ``optimizer="adamw"``); a 4-bit NF4 base (LoRA becomes QLoRA);
    the smallest listed card with more memory.  Empty when nothing single does it, or the plan already fits.

    Examples
    --------
    QLoRA of Llama-2-13B on a 24 GiB card needs 25.09 GiB; checkpointing brings it to 10.19 GiB, sequences of
    1,912 tokens to 23.99 GiB, and an RTX 5090 holds it as it is:

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-13b")
    >>> plan_training(cfg, task="qlora", seq_len=2048).fits(24 * GiB)
    False
    >>> [(c.setting, c.value, round(c.plan.total / GiB, 2))
    ...  for c in training_changes_that_fit(cfg, 24 * GiB, task="qlora", seq_len=2048)]
    [('checkpointing', True, 10.19), ('seq_len', 1912, 23.99), ('gpu', 'rtx-5090', 25.09)]
    """
    budget = check.count("gpu_bytes", gpu_bytes)

    def plan(**changed: Any) -> MemoryPlan:
        return plan_training(cfg, **{**settings, **changed})

    current = plan()
    if current.fits(budget):
        return []
    found: list[FitChange] = []

    def keep(setting: str, value: str | int | bool, changed: MemoryPlan) -> None:
        if changed.fits(budget):
            found.append(FitChange(setting, value, changed, budget))

    if not settings.get("checkpointing", False):
        keep("checkpointing", True, plan(checkpointing=True))
    for setting in ("micro_batch", "seq_len"):
        smaller = _smaller_that_fits(plan, setting, check.count(setting, settings.get(setting, 1)), budget)
        if smaller is not None:
            found.append(smaller)
    if settings.get("optimizer", "adamw") == "adamw":
        keep("optimizer", "adamw-8bit", plan(optimizer="adamw-8bit"))
    if settings.get("task", "full") == "lora":
        keep("task", "qlora", plan(task="qlora"))
    card = _cheapest_card(current, budget)
    if card is not None:
        found.append(FitChange("gpu", card.key, current, card.total_bytes))
    return found


def inference_changes_that_fit(
    cfg: ModelConfig, gpu_bytes: int, plan: Callable[..., MemoryPlan] | None = None, **settings: Any
) -> list[FitChange]:
    """Each single change of an inference set-up that makes its plan fit ``gpu_bytes``, smallest first.

    ``plan`` builds the plan from keywords (default :func:`plan_inference`); ``settings`` are those given
    (``context`` among them).  Tried in this order, and kept when the plan then fits: the largest smaller batch;
    the longest shorter context; an fp8 KV cache (where ``kv_format`` is a setting); the first weight format in
    :data:`~llmcalc.weightformats.WEIGHT_FORMATS` order, least lossy first, that fits; the smallest listed card
    with more memory.  Empty when nothing single does it, or the plan already fits.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-13b")
    >>> [(c.setting, c.value) for c in inference_changes_that_fit(cfg, 24 * GiB, context=4096)]
    [('weight_format', 'fp8'), ('gpu', 'rtx-5090')]
    """
    budget = check.count("gpu_bytes", gpu_bytes)
    build = plan or plan_inference

    def planned(**changed: Any) -> MemoryPlan:
        return build(cfg, **{**settings, **changed})

    current = planned()
    if current.fits(budget):
        return []
    found: list[FitChange] = []
    for setting in ("batch", "context"):
        smaller = _smaller_that_fits(planned, setting, check.count(setting, settings.get(setting, 1)), budget)
        if smaller is not None:
            found.append(smaller)
    if "kv_format" in settings and settings["kv_format"] != "fp8":
        changed = planned(kv_format="fp8")
        if changed.fits(budget):
            found.append(FitChange("kv_format", "fp8", changed, budget))
    given = settings.get("weight_format", "bf16")
    for weight_format in WEIGHT_FORMATS[WEIGHT_FORMATS.index(str(given)) + 1:] if given in WEIGHT_FORMATS else ():
        changed = planned(weight_format=weight_format)
        if changed.fits(budget):
            found.append(FitChange("weight_format", weight_format, changed, budget))
            break
    card = _cheapest_card(current, budget)
    if card is not None:
        found.append(FitChange("gpu", card.key, current, card.total_bytes))
    return found
