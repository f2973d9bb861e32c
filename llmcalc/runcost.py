"""The time and price of a training run: the FLOPs it needs, done at a stated share of the cards' peak.

A run that trains on ``D`` tokens needs ``D`` times the model FLOPs of one
token (:func:`training_flops_per_token`).  The cards deliver their peak
FLOPS times the model FLOPs utilization (MFU), the share of the peak a real
run spends on the model's own arithmetic, so the run takes
``D * FLOPs per token / (peak FLOPS * MFU)`` GPU-seconds, and the wall time is
that divided among the GPUs.  A price per GPU-hour, typed by the reader (prices
date, so none is shipped), turns GPU-hours into money.

This is an estimate: the FLOPs are counted, the MFU is assumed.  The MFU a run
reaches depends on its kernels, parallelism, sequence length, recomputation and
stalls, and published runs range from under 20% to about 64%
(``tests/data/training_runs.json`` holds the published runs this module is
checked against, with their sources).  A run that recomputes activations
(gradient checkpointing) does that extra forward pass at the same MFU: model
FLOPs do not count it, so it shows as a lower MFU, as the definition wants.

What one token costs, by task:

* **Full fine-tuning and pre-training**: ``6 * N`` for the weights, ``N`` being
  :func:`~llmcalc.matmul_params`: a forward pass does 2 FLOPs per weight
  (a multiply-accumulate), the backward pass twice that, one product for the
  gradient of the layer's input and one for the gradient of its weight (Kaplan
  et al. 2020, section 2.1).
* **LoRA and QLoRA**: ``4 * N`` for the frozen weights plus ``6 * P`` for the
  ``P`` adapter parameters.  The frozen base still runs its forward pass, and
  the backward pass still flows through it, since every adapter below a layer
  needs the gradient of that layer's input; only the gradients of the frozen
  weights themselves are skipped.  Hu et al. (2022, section 4.2) report the
  consequence as a 25% speed-up of LoRA over full fine-tuning of GPT-3 175B,
  where skipping a third of the FLOPs would allow at most 33%.  QLoRA does the
  same products after dequantizing each 4-bit block, elementwise work this
  count leaves out, so its MFU comes out lower for the same run.
* **Attention scores** in every case: a token's query meets ``T`` keys and
  mixes ``T`` values, ``2 * H * (d_k + d_v) * T`` FLOPs per layer forward, three
  times that with the backward pass: PaLM's ``12 * L * H * Q * T`` (Chowdhery et
  al. 2022, appendix B), counted over the full ``T`` as PaLM counts it, and over
  the window on layers with a sliding window shorter than ``T``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import _validate as check
from .config import ModelConfig, checks_model
from .flops import matmul_params
from .lora import ALL_LINEAR, lora_model_params

__all__ = [
    "DEFAULT_MFU",
    "SECONDS_PER_HOUR",
    "TRAINING_TASKS",
    "RunEstimate",
    "attention_training_flops",
    "implied_mfu",
    "training_flops_per_token",
    "training_run",
]

TRAINING_TASKS = ("full", "lora", "qlora")
"""The names of what a run trains (every weight, LoRA adapters on a 16-bit base, or on a 4-bit base)."""

DEFAULT_MFU = 0.4
"""The MFU assumed when none is given, 40%, within the 38 to 43% Llama 3 405B ran at on 8,192 to 16,384 H100s.

Grattafiori et al. (2024), table 4.  Large pre-training runs publish MFUs of 38 to 55%; the twelve published runs
in ``tests/data/training_runs.json``, with their stalls and restarts, imply 19 to 64% (median 45%), and at 40% their
GPU-hours are predicted with a median error of 22% (page 19, "What a training run takes").
"""

SECONDS_PER_HOUR = 3600
"""Seconds in an hour, what GPU-seconds are divided by to give GPU-hours."""


@checks_model
def attention_training_flops(cfg: ModelConfig, seq_len: int) -> int:
    """FLOPs of the attention scores for one trained token, forward and backward, at sequence length ``seq_len``.

    Per layer, the query of a token is compared with ``T`` keys (``2 * H * d_k * T``
    FLOPs) and mixes ``T`` values (``2 * H * d_v * T``); the backward pass costs
    twice the forward.  ``T`` is the full sequence length, as PaLM counts it (an
    upper bound for a causal model, whose tokens see half of it on average), or
    the window, if shorter, on layers with a sliding window.

    Examples
    --------
    PaLM's ``12 * L * H * Q * T`` for Llama 2 7B (32 layers, 32 heads of 128) at 4,096 tokens:

    >>> from llmcalc import get_preset
    >>> attention_training_flops(get_preset("llama-2-7b"), 4096) == 12 * 32 * 32 * 128 * 4096
    True
    """
    seq_len = check.count("seq_len", seq_len)
    per_position = 6 * cfg.n_heads * (cfg.head_dim + (cfg.v_head_dim or cfg.head_dim))
    windowed = int(cfg.sliding_window_layers) if cfg.sliding_window else 0
    window = min(seq_len, cfg.sliding_window) if cfg.sliding_window else seq_len
    return per_position * ((cfg.n_layers - windowed) * seq_len + windowed * window)


@checks_model
def training_flops_per_token(cfg: ModelConfig, *, seq_len: int, task: str = "full", rank: int = 16,
                             targets: Any = ALL_LINEAR) -> int:
    """Model FLOPs to train on one token: the weights' products and the attention scores, forward and backward.

    ``6 * N`` for full training, ``4 * N + 6 * P`` for LoRA and QLoRA (``P``
    adapter parameters at ``rank`` on ``targets``, as
    :func:`~llmcalc.lora_model_params` counts them), plus
    :func:`attention_training_flops`.  ``N`` is
    :func:`~llmcalc.matmul_params`.  See the module's docstring for what
    each term counts and why.

    Examples
    --------
    >>> from llmcalc import get_preset, matmul_params
    >>> llama = get_preset("llama-2-7b")
    >>> full = training_flops_per_token(llama, seq_len=4096)
    >>> full == 6 * matmul_params(llama) + 12 * 32 * 32 * 128 * 4096
    True
    >>> f"{full:,}"
    '46,086,512,640'
    >>> lora = training_flops_per_token(llama, seq_len=4096, task="lora", rank=16)
    >>> f"{lora:,} ({lora / full:.0%} of full)"
    '33,111,687,168 (72% of full)'
    """
    task = check.choice("task", task, TRAINING_TASKS)
    attention = attention_training_flops.unchecked(cfg, seq_len)
    if task == "full":
        return 6 * matmul_params.unchecked(cfg) + attention
    return 4 * matmul_params.unchecked(cfg) + 6 * lora_model_params.unchecked(cfg, rank, targets) + attention


@dataclass(frozen=True)
class RunEstimate:
    """A training run's FLOPs, GPU-hours, wall time and (when a price is given) price, at an assumed MFU.

    ``flops`` is exact; the times follow from it, the cards' peak and the MFU.
    ``price`` is ``None`` unless a price per GPU-hour was given.
    """

    flops: int
    n_gpus: int
    peak_flops: float
    mfu: float
    price_per_gpu_hour: float | None = None

    @property
    def gpu_hours(self) -> float:
        """The GPU-hours, the FLOPs over one card's delivered FLOPS (peak times MFU), in hours."""
        return self.flops / (self.peak_flops * self.mfu) / SECONDS_PER_HOUR

    @property
    def wall_hours(self) -> float:
        """Hours from start to end, the GPU-hours shared among the GPUs (no queueing, restarts or evaluation)."""
        return self.gpu_hours / self.n_gpus

    @property
    def price(self) -> float | None:
        """GPU-hours times the price per GPU-hour, or ``None`` without a price."""
        return None if self.price_per_gpu_hour is None else self.gpu_hours * self.price_per_gpu_hour


def training_run(cfg: ModelConfig, *, train_tokens: int, seq_len: int, n_gpus: int, peak_flops: float,
                 mfu: float = DEFAULT_MFU, task: str = "full", rank: int = 16, targets: Any = ALL_LINEAR,
                 price_per_gpu_hour: float | None = None) -> RunEstimate:
    """Estimate the GPU-hours, wall time and price of training on ``train_tokens`` tokens.

    Parameters
    ----------
    cfg : llmcalc.ModelConfig
        The model.
    train_tokens : int
        Tokens the run trains on, every epoch counted (padding too, if batches are padded).
    seq_len : int
        Tokens per sequence, for the attention term.
    n_gpus : int
        GPUs the run uses at once.
    peak_flops : float
        One GPU's peak FLOPS in the run's number format (dense BF16 for a BF16 run), in FLOP/s.
    mfu : float
        The share of the peak the run reaches, in (0, 1]; :data:`DEFAULT_MFU` if not given.
    task : {"full", "lora", "qlora"}
        What the run trains (:func:`training_flops_per_token`).
    rank, targets
        The LoRA adapters, for ``task`` "lora" and "qlora".
    price_per_gpu_hour : float, optional
        The reader's price of one GPU for one hour, in any currency, > 0.

    Examples
    --------
    Llama 2 7B on its 2 trillion tokens of 4,096, on A100s (312 TFLOPS dense BF16) at 40% MFU:
    Meta's paper reports 184,320 GPU-hours (Touvron et al. 2023, table 2).

    >>> from llmcalc import get_preset
    >>> run = training_run(get_preset("llama-2-7b"), train_tokens=2 * 10**12, seq_len=4096, n_gpus=2048,
    ...                    peak_flops=312e12, mfu=0.4)
    >>> f"{run.flops:.3g} FLOPs, {run.gpu_hours:,.0f} GPU-hours, {run.wall_hours / 24:.1f} days on 2,048"
    '9.22e+22 FLOPs, 205,157 GPU-hours, 4.2 days on 2,048'

    A price per GPU-hour makes a price:

    >>> run = training_run(get_preset("llama-2-7b"), train_tokens=10**8, seq_len=4096, n_gpus=1,
    ...                    peak_flops=312e12, task="lora", price_per_gpu_hour=2.0)
    >>> f"{run.gpu_hours:.1f} GPU-hours, {run.price:.2f}"
    '7.4 GPU-hours, 14.74'

    Impossible settings are refused, naming the value:

    >>> training_run(get_preset("llama-2-7b"), train_tokens=10**8, seq_len=4096, n_gpus=1, peak_flops=312e12,
    ...              mfu=1.5)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: mfu must be a finite number > 0 and <= 1; got 1.5
    """
    tokens = check.count("train_tokens", train_tokens)
    gpus = check.count("n_gpus", n_gpus)
    peak = check.number("peak_flops", peak_flops, minimum=0, min_inclusive=False)
    share = check.number("mfu", mfu, minimum=0, maximum=1, min_inclusive=False)
    price = None if price_per_gpu_hour is None else check.number(
        "price_per_gpu_hour", price_per_gpu_hour, minimum=0, min_inclusive=False)
    per_token = training_flops_per_token(cfg, seq_len=seq_len, task=task, rank=rank, targets=targets)
    return RunEstimate(flops=tokens * per_token, n_gpus=gpus, peak_flops=peak, mfu=share,
                       price_per_gpu_hour=price)


def implied_mfu(flops: int, gpu_hours: float, peak_flops: float) -> float:
    """The MFU a run reached if it did ``flops`` model FLOPs in ``gpu_hours`` on cards of ``peak_flops``.

    Examples
    --------
    >>> f"{implied_mfu(10**21, 1000.0, 312e12):.1%}"
    '89.0%'
    """
    work = check.count("flops", flops)
    hours = check.number("gpu_hours", gpu_hours, minimum=0, min_inclusive=False)
    peak = check.number("peak_flops", peak_flops, minimum=0, min_inclusive=False)
    return work / (peak * hours * SECONDS_PER_HOUR)
