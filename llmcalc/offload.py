"""CPU offload for training: what stays on each GPU and what the host's RAM must hold.

Two offloads are modelled, each from its library's code:

* ``"fsdp"``: PyTorch FSDP's ``CPUOffload(offload_params=True)`` with the full shard (torch 2.13.0,
  ``torch/distributed/fsdp/_flat_param.py`` and ``_runtime_utils.py``).  Each GPU's shard of every
  parameter lives in host RAM with its gradient, so the optimizer steps on the CPU and its
  states are there too.  On the GPU: a unit's parameters while it runs, gathered whole, plus the copy
  of this GPU's shard that ``pre_unshard`` moves over to gather from; the root unit (embedding, head
  and final norm) is not freed between the forward and the backward pass; and the backward pass
  gathers the next unit ahead of the one it computes (``BackwardPrefetch.BACKWARD_PRE``, the
  default), so two decoder layers at most.  The gradients of a unit are whole on the GPU until they
  are reduce-scattered and copied out; the root's wait for the end of the backward pass.  Activations,
  a QLoRA base's quantization constants (bitsandbytes' ``quant_state``, not a parameter, so never
  offloaded) and the reserve stay.  The unit is the decoder layer, the usual wrap of a transformer;
  a finer wrap (Answer.AI's script also wraps attention and MLP) gathers less at once.
* ``"zero"``: DeepSpeed ZeRO-Offload (0.19.8, ``offload_optimizer`` with ``device: cpu``, and for
  stage 3 ``offload_param`` too).  The FP32 master weights, the optimizer states and the FP32
  gradient partition live in host RAM, where ``DeepSpeedCPUAdam`` steps; the GPU keeps the 16-bit
  weights (stage 1 and 2 whole; stage 3 only what it gathers, :func:`~llmcalc.planner.zero3_buffer_bytes`)
  and the reduce bucket its gradients pass through (``reduce_bucket_size``).

Host RAM is counted for the GPUs of one machine (every shard lands in the same RAM); it is what the
step holds, not the peak of loading a checkpoint, which can be larger (Answer.AI needed a swap file to
load Llama 2 70B in 128 GB).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from . import _validate as check
from .config import ModelConfig
from .errors import refusal
from .fmt import format_bytes
from .lora import lora_model_params
from .memory import training_memory
from .params import param_breakdown
from .planner import (
    PRECISION_RECIPES,
    ZERO3_REDUCE_BUCKET_SIZE,
    MemoryPlan,
    checked_model,
    plan_training,
    training_state_bytes,
    zero3_buffer_bytes,
)
from .weightformats import weight_format_bytes

__all__ = ["OFFLOADS", "OFFLOAD_NAMES", "OffloadPlan", "offload_heading", "offload_json", "offload_text",
           "offloaded_plan", "plan_offloaded_training"]

OFFLOADS = ("fsdp", "zero")
"""The offloads modelled, PyTorch FSDP's ``CPUOffload(offload_params=True)`` and DeepSpeed ZeRO-Offload."""

OFFLOAD_NAMES = {"fsdp": "FSDP CPU offload: parameters, gradients and optimizer states in host RAM",
                 "zero": "DeepSpeed ZeRO-Offload: optimizer states and FP32 gradients in host RAM "
                         "(stage 3: parameters too)"}
"""How a plan's heading names each offload."""

FSDP_GATHERED_LAYERS = 2
"""Decoder layers FSDP holds gathered at once: the one computed and the one prefetched for backward."""


@dataclass(frozen=True)
class OffloadPlan:
    """One GPU's plan under CPU offload, and the host RAM that the machine's ``n_gpus`` GPUs need."""

    gpu: MemoryPlan
    host_per_gpu: int
    n_gpus: int

    @property
    def host_total(self) -> int:
        """The host RAM for every GPU of the machine, each of which keeps its own shards in the same RAM."""
        return self.host_per_gpu * self.n_gpus


def _state_parts(cfg: ModelConfig, task: str, settings: dict[str, Any]) -> tuple[int, int, int, int, int]:
    """Trained parameter count, their weight and gradient bytes, the frozen base's bytes and its constants."""
    _, n_params = checked_model.unchecked(cfg)
    if task == "full":
        full = training_memory(n_params, settings.get("optimizer", "adamw"),
                               PRECISION_RECIPES[settings.get("precision", "bf16")])
        return n_params, full["weights"], full["gradients"], 0, 0
    rank, targets = settings.get("rank", 16), settings.get("targets", ("q", "v"))
    trained = lora_model_params.unchecked(cfg, rank, targets)
    adapters = training_memory(trained, settings.get("optimizer", "adamw"), settings.get("adapter_dtype", "fp32"))
    state = training_state_bytes.unchecked(cfg, task=task, **settings)
    constants = weight_format_bytes.unchecked(cfg, "nf4-dq")["constants"] if task == "qlora" else 0
    return trained, adapters["weights"], adapters["gradients"], state["weights"] - adapters["weights"], constants


def plan_offloaded_training(cfg: ModelConfig, *, offload: str, task: str = "full", zero_stage: int = 3,
                            n_gpus: int = 1, **settings: Any) -> OffloadPlan:
    """One GPU's memory for a training step of ``task`` with CPU ``offload``, and the host RAM it needs.

    ``offload`` is one of :data:`OFFLOADS` (see :mod:`llmcalc.offload`); ``"fsdp"`` needs
    ``zero_stage=3`` (the full shard), ``"zero"`` a stage of 1 to 3.  The other settings are
    :func:`~llmcalc.planner.plan_training`'s, whose plan at ``zero_stage`` gives the activations and the
    state that is split: offload moves that state to the host, and leaves on the GPU what the
    step computes with.  A model of the libraries' code; its error on published runs is on page 19.

    Examples
    --------
    Llama 2 70B, QLoRA at rank 64 on six projections, two sequences of 2,048 tokens with
    checkpointing, on two GPUs (Answer.AI's run on two RTX 4090 cards): without offload 35 GiB a
    GPU; with FSDP's offload 13.85, and 21.97 GiB of host RAM for each GPU (Answer.AI measured 14.92).

    >>> from llmcalc import get_preset, GiB
    >>> llama = get_preset("llama-2-70b")
    >>> run = dict(task="qlora", seq_len=2048, micro_batch=2, checkpointing=True, rank=64, lora_dropout=0.1,
    ...            targets=["q", "k", "v", "gate", "up", "down"], qlora_preparation="none", n_gpus=2)
    >>> round(plan_training(llama, zero_stage=3, **run).total / GiB, 2)
    35.04
    >>> plan = plan_offloaded_training(llama, offload="fsdp", **run)
    >>> round(plan.gpu.total / GiB, 2), round(plan.host_per_gpu / GiB, 2)
    (13.85, 21.97)
    >>> plan_offloaded_training(llama, offload="fsdp", zero_stage=2, **run)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: offload 'fsdp' needs zero_stage 3 (FSDP's full shard); got zero_stage 2
    """
    cfg, _ = checked_model(cfg)
    kind = check.choice("offload", offload, OFFLOADS)
    stage = check.count("zero_stage", zero_stage, minimum=0, maximum=3)
    if stage < (3 if kind == "fsdp" else 1):
        raise refusal("offload_needs_stage", offload=kind, zero_stage=stage,
                      stages="3 (FSDP's full shard)" if kind == "fsdp" else "1, 2 or 3")
    sharded = plan_training.unchecked(cfg, task=task, zero_stage=stage, n_gpus=n_gpus, **settings)
    gpus = n_gpus
    state_settings = {k: v for k, v in settings.items()
                      if k in ("precision", "optimizer", "rank", "targets", "qlora_preparation", "adapter_dtype")}
    trained, trained_weights, trained_grads, base, constants = _state_parts(cfg, task, state_settings)
    gathered = bucket = 0
    if stage == 3:
        gathered, bucket = zero3_buffer_bytes.unchecked(cfg, weight_bytes=base or trained_weights, trained=trained,
                                              gradient_bytes=trained_grads)
    # The state the plan splits over the GPUs, without stage 3's working buffers: what offload moves out.
    split_weights = sharded.weights - gathered - (constants if stage == 3 else 0)
    split_grads = sharded.gradients - bucket
    if kind == "fsdp":
        return _fsdp(cfg, task, sharded, gpus, trained, trained_weights, trained_grads, base, constants,
                     split_weights + split_grads + sharded.optimizer_states)
    grad_bytes = trained_grads // trained if trained else 0
    reduce_bucket = min(trained, ZERO3_REDUCE_BUCKET_SIZE) * grad_bytes
    fp32_grads = 4 * -(-trained // gpus)
    gpu_weights = constants + gathered if stage == 3 else sharded.weights
    host = sharded.optimizer_states + fp32_grads + (split_weights if stage == 3 else 0)
    return OffloadPlan(MemoryPlan(gpu_weights, 0, reduce_bucket, 0, sharded.activations, sharded.reserve),
                       host, gpus)


def _fsdp(cfg: ModelConfig, task: str, sharded: MemoryPlan, gpus: int, trained: int, trained_weights: int,
          trained_grads: int, base: int, constants: int, host: int) -> OffloadPlan:
    """FSDP's CPU offload: the root and two decoder layers gathered, each with its shard's copy; their gradients."""
    parts = param_breakdown.unchecked(cfg)
    root_params = parts["embedding"] + parts["positions"] + parts["lm_head"] + cfg.d_model
    layers = cfg.n_layers
    if task == "full":
        root = root_params * (trained_weights // trained)  # bytes a parameter: exact for every precision
        all_layers = trained_weights - root
        grad_bytes = trained_grads // trained
        gradients = root_params * grad_bytes + -(-(trained - root_params) * grad_bytes // layers)
    else:
        root = 2 * root_params  # a LoRA or QLoRA base keeps embedding, head and norms in 16 bits
        all_layers = base - constants - root + trained_weights
        gradients = -(-trained_grads // layers)
    # (root + two layers) gathered, and the copy of this GPU's shard of each: x (1 + 1/gpus).
    gathered = -(-(root * layers + FSDP_GATHERED_LAYERS * all_layers) * (gpus + 1) // (layers * gpus))
    gpu = MemoryPlan(constants + gathered, 0, gradients, 0, sharded.activations, sharded.reserve)
    return OffloadPlan(gpu, host, gpus)


def offloaded_plan(cfg: ModelConfig, args: argparse.Namespace, micro_batch: int,
                   offload: str | None = None) -> OffloadPlan:
    """The command line's training plan (``llmcalc plan --offload``) at ``micro_batch`` sequences."""
    return plan_offloaded_training(
        cfg, offload=offload or args.offload, task=args.task, zero_stage=args.zero_stage, n_gpus=args.gpus,
        seq_len=args.seq_len, micro_batch=micro_batch, optimizer=args.optimizer, checkpointing=args.checkpointing,
        **{name: getattr(args, name) for name in ("rank", "targets", "precision", "qlora_preparation",
                                                  "lora_dropout", "adapter_dtype") if hasattr(args, name)})


def offload_heading(args: argparse.Namespace) -> str:
    """What the plan's heading adds for ``--offload``."""
    return f"; {OFFLOAD_NAMES[args.offload]}" if getattr(args, "offload", None) else ""


def offload_json(cfg: ModelConfig, args: argparse.Namespace, micro_batch: int) -> dict[str, Any]:
    """The ``--json`` fields of an offloaded plan: the offload and the host RAM."""
    if not args.offload:
        return {"offload": None}
    plan = offloaded_plan(cfg, args, micro_batch)
    return {"offload": args.offload, "host_bytes_per_gpu": plan.host_per_gpu, "host_bytes": plan.host_total}


def offload_text(cfg: ModelConfig, args: argparse.Namespace, micro_batch: int, result: dict[str, Any]) -> str:
    """The host RAM line of an offloaded plan; without offload, FSDP's offload when it makes a plan fit."""
    if args.offload:
        plan = offloaded_plan(cfg, args, micro_batch)
        return (f"\nhost RAM: {format_bytes(plan.host_per_gpu)} per GPU, {format_bytes(plan.host_total)} for the "
                f"{plan.n_gpus:,} GPU{'s' if plan.n_gpus > 1 else ''} of one machine")
    if args.gpu is None or args.zero_stage != 3:
        return ""
    plain = result["total"]
    offloaded = offloaded_plan(cfg, args, micro_batch, "fsdp")
    if plain <= args.gpu or not offloaded.gpu.fits(args.gpu):
        return ""
    result["offload_fits"] = {"offload": "fsdp", "total": offloaded.gpu.total, "host_bytes": offloaded.host_total}
    return (f"\nwith --offload fsdp ({OFFLOAD_NAMES['fsdp']}) it fits: {format_bytes(offloaded.gpu.total)} per GPU, "
            f"and {format_bytes(offloaded.host_total)} of host RAM")
