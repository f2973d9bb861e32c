"""Will it fit?  GPU memory of inference and fine-tuning, by part, against a GPU.

One source of truth for the planner widget: its JavaScript repeats these rules
and the browser tests compare it with this module byte for byte.

A plan adds up parts that are exact by construction (weights, KV cache,
gradients, optimizer state, from ``llmcalc.memory``, ``llmcalc.weightformats`` and
``llmcalc.lora``) and one that is a measured model (activations:
:mod:`llmcalc.activations`), plus a
stated fixed :data:`RESERVE` for what no formula here counts: the CUDA context,
the caching allocator's rounding and fragmentation, temporary buffers of
kernels.  It answers for one GPU: under ZeRO, the per-GPU share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType

from . import _validate as check
from .activations import activation_memory
from .config import ModelConfig, as_model_config
from .lora import lora_model_params
from .memory import kv_cache_bytes, training_memory, zero_memory_per_gpu
from .params import param_count
from .units import GiB
from .weightformats import weight_format_bytes

RESERVE = GiB
"""The 1 GiB every plan sets aside for the CUDA context and the allocator, an assumption, not a measurement.

A PyTorch process holds a few hundred MiB of CUDA context before it allocates
a tensor, more with cuBLAS workspaces, and the caching allocator rounds
blocks up and fragments; how much depends on the driver, the card and the
workload.
"""

GPUS: Mapping[str, int] = MappingProxyType({
    "RTX 3060 (12 GB)": 12 * GiB,
    "T4 (16 GB)": 16 * GiB,
    "L4 (24 GB)": 24 * GiB,
    "RTX 4090 (24 GB)": 24 * GiB,
    "RTX 5090 (32 GB)": 32 * GiB,
    "A100 (40 GB)": 40 * GiB,
    "L40S (48 GB)": 48 * GiB,
    "A100 (80 GB)": 80 * GiB,
    "H100 (80 GB)": 80 * GiB,
    "H200 (141 GB)": 141 * GiB,
    "MI300X (192 GB)": 192 * GiB,
})
"""Common cards (as of 2026-11) and their memory as the vendor states it, read as GiB.

``nvidia-smi`` shows less on most cards, after ECC and firmware reservations:
about 6 % less on the data-centre cards with GDDR memory (a T4 shows 15,360
MiB, an L4 23,034 MiB, an L40S 46,068 MiB), a few hundred MiB less on HBM
cards (an H100 81,559 MiB, an H200 143,771 MiB).  Give the planner your
card's own figure when it matters.
"""

TASKS = ("inference", "full", "lora", "qlora")
OPTIMIZERS = ("adamw", "adamw-8bit", "sgd-momentum")
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
        raise ValueError(f"the model has {n:,} parameters; the planner takes models of up to {MAX_PARAMS:,}")
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
) -> MemoryPlan:
    """Memory on one GPU for a training step of ``task``: ``"full"``, ``"lora"`` or ``"qlora"``.

    * ``"full"``: mixed precision (bf16 weights and gradients, fp32 master
      weights and optimizer states: 16 bytes per parameter with AdamW), split
      across ``n_gpus`` by ZeRO ``zero_stage`` as :func:`~llmcalc.zero_memory_per_gpu`.
    * ``"lora"``: the frozen base in bf16, and the adapters of
      :func:`~llmcalc.lora_model_params` (``rank``, ``targets``) trained in
      fp32, as peft keeps them by default (``autocast_adapter_dtype``): 4
      bytes of weights, 4 of gradients and the optimizer's states each (fp32,
      or 1 byte a state with 8-bit AdamW); no master copy.
    * ``"qlora"``: as ``"lora"`` with the base in NF4 with double
      quantization; a paged optimizer's states are counted in GPU memory, since
      paging only moves them out under pressure.  Not counted: peft's
      ``prepare_model_for_kbit_training``, which QLoRA recipes usually call,
      upcasts every parameter left in 16 bits (embedding, head, norms) to fp32,
      2 bytes more each.

    Activations are :func:`~llmcalc.activations.activation_memory`'s ``peak``
    (SDPA attention, bf16) for ``micro_batch`` sequences of ``seq_len``
    tokens, with the adapters of LoRA and QLoRA (peft's default
    ``lora_dropout=0``); ZeRO does not split them.  Not counted: ZeRO's gather and
    communication buffers.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> plan = plan_training(get_preset("llama-2-7b"), seq_len=2048)
    >>> plan.weights // GiB, plan.gradients // GiB, plan.optimizer_states // GiB
    (12, 12, 75)
    >>> plan_training(get_preset("llama-2-7b"), task="sft", seq_len=2048)
    Traceback (most recent call last):
    ...
    ValueError: task must be one of 'full', 'lora', 'qlora'; got 'sft'
    """
    cfg, n_params = _checked_model(cfg)
    kind = check.choice("task", task, TASKS[1:])
    tokens = _tokens(cfg, "seq_len", seq_len)
    sequences = check.count("micro_batch", micro_batch, maximum=MAX_BATCH)
    optimizer = check.choice("optimizer", optimizer, OPTIMIZERS)
    if kind == "full":
        activations = activation_memory(cfg, sequences, tokens, checkpointing=checkpointing).peak
        gpus = check.count("n_gpus", n_gpus, maximum=MAX_GPUS)
        parts = zero_memory_per_gpu(n_params, zero_stage, gpus, optimizer, "mixed")
        return MemoryPlan(parts["weights"], 0, parts["gradients"],
                          parts["optimizer_states"] + parts["master_weights"], activations, RESERVE)
    if zero_stage != 0 or n_gpus != 1:
        raise ValueError(f"ZeRO is planned for full fine-tuning only; got task={kind!r} with "
                         f"zero_stage={zero_stage!r}, n_gpus={n_gpus!r}")
    # QLoRA's 4-bit base keeps its weight, not its input, for backward: measured the same bytes as LoRA.
    activations = activation_memory(cfg, sequences, tokens, checkpointing=checkpointing, lora_targets=targets,
                                    lora_rank=rank).peak
    base = sum(weight_format_bytes(cfg, "nf4-dq" if kind == "qlora" else "bf16").values())
    adapters = training_memory(lora_model_params(cfg, rank, targets), optimizer, "fp32")
    return MemoryPlan(base + adapters["weights"], 0, adapters["gradients"], adapters["optimizer_states"],
                      activations, RESERVE)


def largest_fitting(plan: Callable[[int], MemoryPlan], gpu_bytes: int, *, limit: int) -> int:
    """The largest ``n`` in ``[1, limit]`` with ``plan(n).fits(gpu_bytes)``, or 0 if not even ``n = 1`` fits.

    ``plan`` must grow with ``n`` (a context length, a batch), as every plan
    here does; a binary search, so about ``log2(limit)`` plans.

    Examples
    --------
    The longest context Llama-2-7B in bf16 can hold on a 24 GB card (a
    context beyond its 4,096 trained positions is the reader's business):

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-7b")
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
