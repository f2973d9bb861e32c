"""How fast vLLM decodes a batch on one GPU: an estimate from the roofline, fitted and checked on published runs.

An estimate, not a measurement.  vLLM decodes the sequences of a batch
together: each step puts one token of every sequence through the weights, so a
step reads the weights once, plus the KV cache of every sequence, and does every
sequence's FLOPs.  For a batch of ``B`` sequences at a context of ``c`` tokens a
decode step takes

``max(bytes / (e_bw x bandwidth), FLOPs / (e_c x FP16 peak)) + t_step``

with ``bytes = W + B x kv x c`` (``W`` the bytes of every weight that multiplies,
2 bytes each, :func:`llmcalc.flops.matmul_params`; ``kv`` the KV-cache bytes a
token, :func:`llmcalc.memory.kv_cache_bytes_per_token`) and ``FLOPs = B x (2 N
+ 4 x layers x c x attention width)``.  The bandwidth and the dense FP16 tensor
rate with FP32 accumulation (the rate BF16 and FP16 matrix products run at in
PyTorch) are the card's datasheet figures (:mod:`llmcalc.datasheets`).  Generating
``G`` tokens after a prompt of ``P`` takes ``G - 1`` decode steps (the prefill
gives the first token) at a mean context of ``P + G / 2``.  The prefill runs as
vLLM 0.6 ran it without chunked prefill: whole prompts, as many a step as
``max_num_batched_tokens`` (``max(max_model_len, 2048)``) holds, each step
``max(weight bytes / (e_bw x bandwidth), FLOPs / (e_prefill x FP16 peak)) + t_step``,
its FLOPs those of :func:`llmcalc.speed.prompt_flops` for each prompt.

The prefill's share ``e_prefill`` of the tensor peak is fitted on two of the
four published runs that timed a prefill on its own
(``llmcalc/data/vllm_ttft_measurements.tsv``, one a card) and checked on the
other two (:func:`prefill_check`).  The other three constants, the shares
``e_bw`` of the bandwidth and ``e_c`` of the tensor peak in a decode step and the
fixed time ``t_step`` of a step (the scheduler, the sampler, the launches), are
fitted, with ``e_prefill`` fixed, on half of the published runs in
``llmcalc/data/vllm_speed_measurements.tsv`` (:func:`fit_vllm_constants`) and
checked on the other half (:func:`held_out_vllm_comparison`).  ``e_c`` is low
(0.11): it is a fitted rate, not a physical one, and stands for what a decode
step costs beyond the weights' reads as the batch grows.  A run whose batch
the KV pool of the planner's vLLM plan does not hold is left out of both: vLLM
then preempts and recomputes sequences, which is not modelled, and the estimate
refuses such a batch.

Where the runs end, the estimate says so (:attr:`VllmSpeedEstimate.notes`):
the runs were vLLM 0.6 (September 2024) on an A100 40 GB and an H100 SXM, with
Llama 2 7B and Llama 3 8B in FP16, batches of 1 to 64 and contexts up to 4,096
tokens.  Sliding-window and mixture-of-experts models, AMD cards, weight formats
other than 16-bit and tensor parallelism were not measured: they are refused,
or not offered.

Runs from another source, never fitted (``llmcalc/data/vllm_speed_independent.tsv``,
:func:`independent_check`), check it on other vLLM versions (0.6.4 to 0.9 on an
H100).  Where the prefill is a small part of a run, the estimate was 17 % short
and 10 % long on two consecutive commits; where it is a quarter of it (32 prompts
of 512 tokens), 2 % to 5 % short; where it is nearly all of it (one prompt of
16,000 tokens), 41 % short.  An estimate whose prefill is compute-bound says so in
a note.

The four prefill runs are all of one set-up, 16 prompts of 1,024 tokens generating one
token each, on vLLM 0.6: the two held out were 19 % short and 2 % long, where the share
fitted on whole runs alone (0.27 for every step) had made them 2.0 and 2.6 times too long.
The time to first token says what it was checked on (:data:`VLLM_TTFT_CHECK`).

Examples
--------
Llama 3 8B on an H100 SXM, 16 sequences of a 1,024-token prompt and 256 tokens out:

>>> from llmcalc import get_preset
>>> estimate = estimate_vllm_speed(get_preset("llama-3-8b"), "h100-sxm", batch=16, prompt_tokens=1024,
...                                generated_tokens=256)
>>> round(estimate.aggregate_tokens_per_second), round(estimate.sequence_tokens_per_second, 1)
(1657, 103.6)
>>> round(estimate.prefill_seconds * 1000), estimate.notes
(378, ('prefill',))
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from importlib import resources
from types import MappingProxyType

from . import _validate as check
from .config import ModelConfig, checks_model
from .datasheets import datasheet, derivations, memory_bandwidth, tensor_flops
from .engines import VLLM_MAX_NUM_BATCHED_TOKENS, plan_vllm
from .errors import refusal
from .flops import matmul_params
from .memory import kv_cache_bytes_per_token
from .planner import context_limit, gpu_memory
from .presets import get_preset
from .speed import cost_per_million_tokens, decode_flops, is_fitted, prompt_flops

__all__ = [
    "VLLM_CONSTANTS",
    "VLLM_MEASURED_RANGE",
    "VLLM_NOTES",
    "VLLM_TTFT_CHECK",
    "IndependentRun",
    "MeasuredRange",
    "VllmConstants",
    "VllmMeasurement",
    "VllmSpeedEstimate",
    "batch_fits",
    "estimate_vllm_speed",
    "fit_vllm_constants",
    "held_out_vllm_comparison",
    "in_scope",
    "independent_check",
    "independent_runs",
    "nvidia_card",
    "pool_tokens",
    "prefill_check",
    "prefill_measurements",
    "run_vllm_cli",
    "unchunked_batched_tokens",
    "vllm_measurements",
    "vllm_median_error",
    "vllm_speed_text",
]

DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048
"""vLLM 0.6's floor on the tokens a step prefills without chunked prefill: ``max(max_model_len, 2048)``
(``SchedulerConfig`` in ``vllm/config.py``)."""


@dataclass(frozen=True)
class VllmConstants:
    """The fitted constants: the share of the bandwidth a step gets (``bandwidth_share``), the share of the
    FP16 tensor peak the matrix products of a decode step get (``compute_share``), the fixed seconds every
    step costs (``step_seconds``: the scheduler, the sampler, the kernel launches) and the share of the FP16
    tensor peak the matrix products of a prefill step get (``prefill_share``: whole prompts, so large
    products)."""

    bandwidth_share: float
    compute_share: float
    step_seconds: float
    prefill_share: float

    def compute_bound(self, memory: float, compute: float, *, prefill: bool = False) -> bool:
        """Whether a step of ``memory`` seconds of bytes and ``compute`` seconds of FLOPs (at full share) is
        bound by its FLOPs at these shares (a prefill step's, if ``prefill``)."""
        share = self.prefill_share if prefill else self.compute_share
        return compute / share > memory / self.bandwidth_share

    def step(self, memory: float, compute: float, *, prefill: bool = False) -> float:
        """The seconds of such a step: the slower of its bytes and its FLOPs at their shares, plus the fixed
        time."""
        share = self.prefill_share if prefill else self.compute_share
        return max(memory / self.bandwidth_share, compute / share) + self.step_seconds


VLLM_CONSTANTS = VllmConstants(bandwidth_share=0.77, compute_share=0.11, step_seconds=0.0029, prefill_share=0.68)
"""The constants :func:`fit_vllm_constants` fits on the fitted rows; the tests check the two agree.  Fitted on
whole runs alone, with one share of the tensor peak for every step, they were ``bandwidth_share=0.86,
compute_share=0.27, step_seconds=0.003``: the prefill then took 2.0 to 2.9 times its measured time."""


@dataclass(frozen=True)
class VllmMeasurement:
    """One published vLLM run: ``batch`` prompts of ``prompt_tokens``, each generating ``generated_tokens``,
    timed as one call (``measured`` seconds, its ``quantity`` ``latency``), on one ``hardware`` card.

    ``max_model_len`` is the context vLLM was started with (it sizes the KV pool and the prefill steps);
    ``quoted`` is the line the ``url`` prints.
    """

    source: str
    model: str
    dtype: str
    hardware: str
    gpus: int
    batch: int
    prompt_tokens: int
    generated_tokens: int
    max_model_len: int
    quantity: str
    measured: float
    unit: str
    vllm: str
    url: str
    quoted: str


def vllm_measurements() -> list[VllmMeasurement]:
    """The published vLLM runs, in the file's order.

    Examples
    --------
    >>> rows = vllm_measurements()
    >>> len(rows), sorted({row.hardware for row in rows}), sorted({row.batch for row in rows})
    (81, ['a100-40gb', 'h100-sxm'], [1, 16, 32, 64])
    """
    return [_measurement(record) for record in _records("vllm_speed_measurements.tsv")]


def _records(name: str) -> list[dict[str, str]]:
    text = resources.files("llmcalc").joinpath(f"data/{name}").read_text("utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def _measurement(record: Mapping[str, str]) -> VllmMeasurement:
    return VllmMeasurement(
        record["source"], record["model"], record["dtype"], record["hardware"], int(record["gpus"]),
        int(record["batch"]), int(record["prompt_tokens"]), int(record["generated_tokens"]),
        int(record["max_model_len"]), record["quantity"], float(record["measured"]), record["unit"],
        record["vllm"], record["url"], record["quoted"])


def unchunked_batched_tokens(max_model_len: int) -> int:
    """The tokens vLLM 0.6 prefills in a step without chunked prefill, as the measured runs ran:
    ``max(max_model_len, 2048)``."""
    return max(max_model_len, DEFAULT_MAX_NUM_BATCHED_TOKENS)


def pool_tokens(cfg: ModelConfig, hardware: str, max_model_len: int, max_num_batched_tokens: int) -> int:
    """The tokens of the KV pool the planner's vLLM plan gives on ``hardware`` (vLLM's defaults otherwise).

    ``max_model_len`` does not change it: the pool is what the profiled peak leaves, and that peak is of
    ``max_num_batched_tokens``.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> llama = get_preset("llama-3-8b")
    >>> pool_tokens(llama, "h100-sxm", 8192, 8192), pool_tokens(llama, "h100-sxm", 1, 8192)
    (447824, 447824)
    """
    plan = plan_vllm(cfg, gpu_memory(hardware), max_model_len=max_model_len,
                     max_num_batched_tokens=max_num_batched_tokens)
    return plan.kv_tokens


@checks_model
def batch_fits(cfg: ModelConfig, hardware: str, batch: int, context_tokens: int, max_model_len: int,
               max_num_batched_tokens: int) -> bool:
    """Whether the planner's vLLM KV pool on ``hardware`` holds ``batch`` sequences of ``context_tokens``.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> batch_fits(get_preset("llama-2-7b"), "a100-40gb", 16, 2048, 4096, 4096)  # 32,768 of 45,664 tokens
    True
    >>> batch_fits(get_preset("llama-2-7b"), "a100-40gb", 16, 4096, 4096, 4096)
    False
    """
    return batch * context_tokens <= pool_tokens(cfg, hardware, max_model_len, max_num_batched_tokens)


def in_scope(rows: list[VllmMeasurement] | None = None) -> list[VllmMeasurement]:
    """The rows the estimate takes: those whose batch the pool holds (the others vLLM preempts).

    Examples
    --------
    >>> len(in_scope())
    71
    """
    rows = vllm_measurements() if rows is None else rows
    return [row for row in rows if batch_fits(get_preset(row.model), row.hardware, row.batch,
                                              row.prompt_tokens + row.generated_tokens, row.max_model_len,
                                              unchunked_batched_tokens(row.max_model_len))]


@dataclass(frozen=True)
class _Steps:
    """A run's steps as the roofline sees them: for each kind of step, how many, and its bytes over the
    bandwidth and its FLOPs over the tensor peak (both in seconds at full share)."""

    prefill: tuple[tuple[int, float, float], ...]
    decode: tuple[int, float, float]

    def seconds(self, constants: VllmConstants) -> tuple[float, float]:
        """The prefill's seconds and one decode step's seconds with ``constants``."""
        prefill = sum(count * constants.step(memory, compute, prefill=True) for count, memory, compute in self.prefill)
        return prefill, constants.step(*self.decode[1:])

    def latency(self, constants: VllmConstants) -> float:
        prefill, decode = self.seconds(constants)
        return prefill + self.decode[0] * decode


def _steps(cfg: ModelConfig, hardware: str, batch: int, prompt: int, generated: int,
           max_num_batched_tokens: int) -> _Steps:
    bandwidth = memory_bandwidth(hardware)
    peak = tensor_flops(hardware, "fp16")
    weights = 2 * matmul_params.unchecked(cfg)
    per_step = max(max_num_batched_tokens // prompt, 1)
    full, rest = divmod(batch, per_step)
    prefill = [(full, weights / bandwidth, per_step * prompt_flops.unchecked(cfg, prompt) / peak)] if full else []
    if rest:
        prefill.append((1, weights / bandwidth, rest * prompt_flops.unchecked(cfg, prompt) / peak))
    context = prompt + generated / 2
    decode_bytes = weights + batch * kv_cache_bytes_per_token.unchecked(cfg, "fp16") * context
    step_flops = batch * decode_flops.unchecked(cfg, context)
    return _Steps(tuple(prefill), (generated - 1, decode_bytes / bandwidth, step_flops / peak))


def _row_steps(row: VllmMeasurement) -> _Steps:
    return _steps(get_preset(row.model), row.hardware, row.batch, row.prompt_tokens, row.generated_tokens,
                  unchunked_batched_tokens(row.max_model_len))


def _misfit(steps: list[tuple[_Steps, float]], constants: VllmConstants) -> float:
    return statistics.mean(abs(math.log(run.latency(constants) / measured)) for run, measured in steps)


def _grid(low: float, high: float, step: float) -> list[float]:
    return [round(low + index * step, 6) for index in range(round((high - low) / step) + 1)]


_FORMER_CONSTANTS = VllmConstants(bandwidth_share=0.86, compute_share=0.27, step_seconds=0.003, prefill_share=0.27)
"""The constants fitted on whole runs alone, one share of the tensor peak for every step: where
:func:`fit_vllm_constants` starts."""


def _fit_latency(fitted: list[tuple[_Steps, float]], prefill_share: float) -> VllmConstants:
    def best(shares: list[float], computes: list[float], steps: list[float]) -> VllmConstants:
        return min((VllmConstants(share, compute, seconds, prefill_share) for share in shares for compute in computes
                    for seconds in steps), key=lambda constants: _misfit(fitted, constants))

    coarse = best(_grid(0.30, 1.00, 0.05), _grid(0.10, 1.00, 0.05), _grid(0.0, 0.010, 0.0005))

    def around(value: float, step: float, low: float, high: float) -> list[float]:
        return [point for point in _grid(value - 4 * step, value + 4 * step, step) if low <= point <= high]

    return best(around(coarse.bandwidth_share, 0.01, 0.30, 1.00), around(coarse.compute_share, 0.01, 0.10, 1.00),
                around(coarse.step_seconds, 0.0001, 0.0, 0.010))


def _fit_prefill(fitted: list[tuple[_Steps, float]], constants: VllmConstants) -> VllmConstants:
    def misfit(share: float) -> float:
        candidate = VllmConstants(constants.bandwidth_share, constants.compute_share, constants.step_seconds, share)
        return statistics.mean(math.log(run.seconds(candidate)[0] / measured) ** 2 for run, measured in fitted)

    share = min(_grid(0.10, 1.00, 0.01), key=misfit)
    return VllmConstants(constants.bandwidth_share, constants.compute_share, constants.step_seconds, share)


def fit_vllm_constants(rows: list[VllmMeasurement] | None = None,
                       prefill_rows: list[VllmMeasurement] | None = None) -> VllmConstants:
    """Fit :data:`VLLM_CONSTANTS`: the prefill's share on the fitted prefill runs, the rest on the fitted latencies.

    The fitted rows are :func:`llmcalc.speed.is_fitted` of :func:`in_scope` (whole runs) and of
    :func:`prefill_measurements` (prefills timed apart).  The prefill's share of the tensor peak is the one, on
    a grid of 0.01 from 0.10 to 1.00, whose prefills are off the fitted prefill runs by the least mean
    squared log(estimate / measured), the other constants fixed (the least mean |log| of two runs is flat
    between the shares they reached).  The other three are those whose latencies are off
    the fitted whole runs by the least mean |log(estimate / measured)|, the prefill's share fixed: first on a
    coarse grid (shares 0.30 to 1.00 and 0.10 to 1.00 by 0.05, the step time 0 to 10 ms by 0.5 ms), then on a
    fine one around the best (by 0.01 and 0.1 ms), the first on a tie.  The two fits alternate, from the
    constants fitted on whole runs alone (one share for every step), until neither changes.

    Examples
    --------
    >>> fit_vllm_constants() == VLLM_CONSTANTS
    True
    """
    scoped = in_scope(rows)
    fitted = [(_row_steps(row), row.measured) for row, keep in zip(scoped, is_fitted(scoped), strict=True) if keep]
    prefills = prefill_measurements() if prefill_rows is None else prefill_rows
    fitted_prefills = [(_row_steps(row), row.measured)
                       for row, keep in zip(prefills, is_fitted(prefills), strict=True) if keep]
    constants = _FORMER_CONSTANTS
    for _round in range(20):
        refitted = _fit_latency(fitted, _fit_prefill(fitted_prefills, constants).prefill_share)
        if refitted == constants:
            return constants
        constants = refitted
    raise RuntimeError("the prefill and latency fits of vLLM's constants did not settle in 20 rounds")


def held_out_vllm_comparison(rows: list[VllmMeasurement] | None = None) -> list[tuple[VllmMeasurement, float,
                                                                                        float]]:
    """Each held-out row with its estimated latency (seconds) and the error, estimate over measured minus 1.

    Examples
    --------
    >>> table = held_out_vllm_comparison()
    >>> len(table), sorted({row.hardware for row, _estimate, _error in table})
    (36, ['a100-40gb', 'h100-sxm'])
    """
    scoped = in_scope(rows)
    return [(row, estimate, estimate / row.measured - 1)
            for row, fitted in zip(scoped, is_fitted(scoped), strict=True) if not fitted
            for estimate in (_row_steps(row).latency(VLLM_CONSTANTS),)]


def vllm_median_error(rows: list[VllmMeasurement] | None = None) -> float:
    """The median |error| of :func:`held_out_vllm_comparison`, as a fraction.

    Examples
    --------
    >>> round(vllm_median_error(), 3)
    0.072
    """
    return statistics.median(abs(error) for _row, _estimate, error in held_out_vllm_comparison(rows))


@dataclass(frozen=True)
class MeasuredRange:
    """The edges of the measured runs (:data:`VLLM_MEASURED_RANGE`)."""

    batch: int
    context_tokens: int
    weight_bytes: tuple[int, int]
    hardware: tuple[str, ...]


def _measured_range() -> MeasuredRange:
    rows = vllm_measurements()
    weights = [2 * matmul_params(get_preset(model)) for model in {row.model for row in rows}]
    return MeasuredRange(max(row.batch for row in rows), max(row.prompt_tokens + row.generated_tokens for row in rows),
                         (min(weights), max(weights)), tuple(sorted({row.hardware for row in rows})))


VLLM_MEASURED_RANGE = _measured_range()
"""The edges of the measured runs: batches up to 64, contexts up to 4,096 tokens, models whose weights that
multiply are 13.21 to 15.01 GB in 16 bits (Llama 2 7B, Llama 3 8B), the A100 40 GB and the H100 SXM.

Examples
--------
>>> VLLM_MEASURED_RANGE
MeasuredRange(batch=64, context_tokens=4096, weight_bytes=(13214687232, 15009849344), hardware=('a100-40gb', \
'h100-sxm'))
"""

VLLM_NOTES: Mapping[str, str] = MappingProxyType({
    "batch": "the batch is larger than any measured (64 sequences): the roofline extends the fit",
    "context_tokens": "the context is longer than any measured (4,096 tokens): the KV-cache reads extend the fit",
    "weight_bytes": "the size of the model is outside the measured ones (Llama 2 7B and Llama 3 8B): per-step work "
                    "the roofline does not see may weigh differently",
    "hardware": "no run was measured on this card: its datasheet figures with the shares fitted on an A100 and "
                "an H100",
    "compute": "the decode step is compute-bound at this batch: the fitted share of the tensor peak sets it",
    "prefill": "the prefill is compute-bound: its share of the tensor peak was fitted on 2 runs of 16 prompts of "
               "1,024 tokens; on runs not fitted (vLLM 0.6.4 and 0.9 on an H100), the estimated latency was 2 % to "
               "5 % short where the estimated prefill was 24 % of it, and 41 % short where it was 94 % of it (one "
               "prompt of 16,000 tokens)",
})
"""The English sentence of each note of :attr:`VllmSpeedEstimate.notes` (the widget has its own, translated)."""


@dataclass(frozen=True)
class VllmSpeedEstimate:
    """vLLM's estimated speed for ``batch`` sequences of a ``prompt_tokens`` prompt and ``generated_tokens`` out.

    ``step_seconds`` is one decode step of the whole batch, ``prefill_seconds`` the prefill of all the
    prompts (the batch's time to first token), ``kv_pool_tokens`` the planner's KV pool that holds them.
    """

    hardware: str
    batch: int
    prompt_tokens: int
    generated_tokens: int
    max_model_len: int
    weight_bytes: int
    kv_bytes_per_token: int
    bandwidth: int
    peak_flops: int
    step_seconds: float
    prefill_seconds: float
    latency_seconds: float
    kv_pool_tokens: int
    notes: tuple[str, ...]

    @property
    def sequence_tokens_per_second(self) -> float:
        """The tokens a second one sequence of the batch decodes."""
        return 1 / self.step_seconds

    @property
    def aggregate_tokens_per_second(self) -> float:
        """The tokens a second the whole batch decodes."""
        return self.batch / self.step_seconds


@checks_model
def estimate_vllm_speed(cfg: ModelConfig, hardware: str, *, batch: int, prompt_tokens: int,
                        generated_tokens: int = 128, max_model_len: int | None = None,
                        max_num_batched_tokens: int = VLLM_MAX_NUM_BATCHED_TOKENS,
                        kv_pool_tokens: int | None = None) -> VllmSpeedEstimate:
    """Estimate vLLM's decode rate for a batch on one GPU and its time to first token (an estimate; see the module).

    Parameters
    ----------
    cfg : llmcalc.ModelConfig
        A dense model without a sliding window, in 16-bit weights.
    hardware : str
        An NVIDIA card of :data:`llmcalc.datasheets.DATASHEETS`.
    batch : int
        Sequences decoded together (vLLM's running requests), 1 to 1,024.
    prompt_tokens, generated_tokens : int
        Each sequence's prompt and the tokens it generates (at least 2, the first comes from the prefill).
    max_model_len : int, optional
        The context vLLM is started with; by default ``prompt_tokens + generated_tokens``.
    max_num_batched_tokens : int
        The tokens vLLM prefills in a step, which also sizes its profiling run and so the KV pool; by
        default the planner's (:data:`llmcalc.engines.VLLM_MAX_NUM_BATCHED_TOKENS`, chunked prefill).  A
        prompt longer than a step is counted as one step, as the runs without chunked prefill did.
    kv_pool_tokens : int, optional
        The KV pool of the vLLM plan the batch runs in, where its settings are not vLLM's defaults (the
        all-cards ranking passes its row's pool); by default the planner's pool with vLLM's defaults
        (:func:`pool_tokens`).  Only the refusal of a batch the pool does not hold depends on it.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> estimate_vllm_speed(get_preset("mixtral-8x7b"), "h100-sxm", batch=4, prompt_tokens=512)
    Traceback (most recent call last):
        ...
    llmcalc.errors.RefusalValueError: no vLLM speed was measured for a mixture of experts or a sliding window \
(mixtral); measured: dense models with full attention (Llama 2 7B, Llama 3 8B)
    >>> estimate_vllm_speed(get_preset("llama-3.1-8b"), "h100-sxm", batch=16, prompt_tokens=30000,
    ...                     generated_tokens=2768)
    Traceback (most recent call last):
        ...
    llmcalc.errors.RefusalValueError: the KV pool of vLLM on h100-sxm holds 447,824 tokens, 13 sequence(s) of 32,768 \
tokens: a batch of 16 would be preempted and recomputed, which is not modelled
    """
    card = nvidia_card(hardware)
    sequences = check.count("batch", batch, maximum=1024)
    prompt = check.count("prompt_tokens", prompt_tokens, maximum=2**20)
    generated = check.count("generated_tokens", generated_tokens, minimum=2, maximum=2**20)
    length = prompt + generated if max_model_len is None else check.count("max_model_len", max_model_len,
                                                                            minimum=prompt + generated)
    batched = check.count("max_num_batched_tokens", max_num_batched_tokens, maximum=2**24)
    if cfg.is_moe or cfg.sliding_window_layers:
        raise refusal("vllm_speed_model_unmeasured", model_type=cfg.model_type or "custom")
    if length > context_limit.unchecked(cfg):
        raise refusal("vllm_speed_context_too_long", context=length, limit=context_limit.unchecked(cfg))
    pool = pool_tokens(cfg, card, length, batched) if kv_pool_tokens is None else check.count(
        "kv_pool_tokens", kv_pool_tokens, minimum=0)
    if sequences * (prompt + generated) > pool:
        raise refusal("vllm_speed_preempted", hardware=card, pool=pool, context=prompt + generated,
                      fits=pool // (prompt + generated), batch=sequences)
    steps = _steps(cfg, card, sequences, prompt, generated, batched)
    prefill, step = steps.seconds(VLLM_CONSTANTS)
    weights = 2 * matmul_params.unchecked(cfg)
    measured = VLLM_MEASURED_RANGE
    notes = []
    if sequences > measured.batch:
        notes.append("batch")
    if prompt + generated > measured.context_tokens:
        notes.append("context_tokens")
    if not measured.weight_bytes[0] <= weights <= measured.weight_bytes[1]:
        notes.append("weight_bytes")
    if card not in measured.hardware:
        notes.append("hardware")
    if VLLM_CONSTANTS.compute_bound(*steps.decode[1:]):
        notes.append("compute")
    if any(VLLM_CONSTANTS.compute_bound(memory, compute, prefill=True) for _count, memory, compute in steps.prefill):
        notes.append("prefill")
    return VllmSpeedEstimate(card, sequences, prompt, generated, length, weights,
                             kv_cache_bytes_per_token.unchecked(cfg, "fp16"), memory_bandwidth(card),
                             tensor_flops(card, "fp16"), step, prefill, steps.latency(VLLM_CONSTANTS), pool,
                             tuple(notes))


def nvidia_card(hardware: str) -> str:
    """``hardware`` if vLLM's CUDA build was measured on its kind and its datasheet prints an FP16 tensor rate,
    else a refusal naming it."""
    sheet = datasheet(hardware)
    if hardware.startswith("apple-") or not sheet.nvidia:
        vendor = "Apple silicon" if hardware.startswith("apple-") else "AMD, vLLM's ROCm build"
        raise refusal("vllm_speed_hardware_unmeasured", hardware=hardware, vendor=vendor)
    if sheet.fp16 is None:
        raise refusal("vllm_speed_no_tensor_rate", hardware=hardware)
    return hardware


@dataclass(frozen=True)
class IndependentRun(VllmMeasurement):
    """A published vLLM run from another source than the fitted ones, with the ``max_num_batched_tokens``
    that vLLM's version defaulted to for it (it sets how many prompts a prefill step holds), and whether its
    prompts were likely cached (``prompts_cached``: the V1 engine caches prefixes by default, and the
    benchmark sends the same prompts every iteration, so most of the prefill the estimate counts was skipped)."""

    max_num_batched_tokens: int
    prompts_cached: bool


def independent_runs() -> list[IndependentRun]:
    """The runs of ``llmcalc/data/vllm_speed_independent.tsv``, in the file's order: never fitted.

    Examples
    --------
    >>> runs = independent_runs()
    >>> len(runs), sorted({run.source for run in runs}), sorted({run.model for run in runs})
    (9, ['B'], ['llama-3-8b', 'llama-3.1-8b'])
    """
    return [IndependentRun(**asdict(_measurement(record)),
                           max_num_batched_tokens=int(record["max_num_batched_tokens"]),
                           prompts_cached={"yes": True, "no": False}[record["prompts_cached"]])
            for record in _records("vllm_speed_independent.tsv")]


def independent_check(runs: list[IndependentRun] | None = None) -> list[tuple[IndependentRun, VllmSpeedEstimate,
                                                                               float]]:
    """Each run of :func:`independent_runs` with :func:`estimate_vllm_speed` of its set-up and the error of its
    latency, estimate over measured minus 1; the constants stay as fitted.

    Examples
    --------
    >>> [f"{error:+.0%}" for _run, _estimate, error in independent_check()]
    ['-17%', '+10%', '-3%', '-2%', '-4%', '-5%', '+55%', '+56%', '-41%']
    """
    runs = independent_runs() if runs is None else runs
    return [(run, estimate, estimate.latency_seconds / run.measured - 1) for run in runs
            for estimate in (estimate_vllm_speed(get_preset(run.model), run.hardware, batch=run.batch,
                                                 prompt_tokens=run.prompt_tokens,
                                                 generated_tokens=run.generated_tokens,
                                                 max_model_len=run.max_model_len,
                                                 max_num_batched_tokens=run.max_num_batched_tokens),)]


def prefill_measurements() -> list[VllmMeasurement]:
    """The runs of ``llmcalc/data/vllm_ttft_measurements.tsv``, in the file's order: a batch's prefill timed on
    its own (one generated token, so no decode step); the prefill's share is fitted on the 2nd and 4th.

    Examples
    --------
    >>> rows = prefill_measurements()
    >>> len(rows), sorted({row.hardware for row in rows}), {(row.batch, row.prompt_tokens) for row in rows}
    (4, ['a100-40gb', 'h100-sxm'], {(16, 1024)})
    """
    return [_measurement(record) for record in _records("vllm_ttft_measurements.tsv")]


def prefill_check(rows: list[VllmMeasurement] | None = None) -> list[tuple[VllmMeasurement, VllmSpeedEstimate,
                                                                             float]]:
    """Each run of :func:`prefill_measurements` with :func:`estimate_vllm_speed` of its set-up (vLLM 0.6's
    prefill budget, ``max(max_model_len, 2048)`` tokens a step) and the error of its time to first token,
    estimated prefill over measured minus 1; the 2nd and 4th runs are those the prefill's share is fitted on.

    The estimate is asked for two generated tokens, its least: its prefill does not depend on them.

    Examples
    --------
    >>> [f"{error:+.0%}" for _row, _estimate, error in prefill_check()]
    ['-19%', '-11%', '+2%', '+14%']
    """
    rows = prefill_measurements() if rows is None else rows
    return [(row, estimate, estimate.prefill_seconds / row.measured - 1) for row in rows
            for estimate in (estimate_vllm_speed(get_preset(row.model), row.hardware, batch=row.batch,
                                                 prompt_tokens=row.prompt_tokens, generated_tokens=2,
                                                 max_model_len=row.max_model_len,
                                                 max_num_batched_tokens=unchunked_batched_tokens(row.max_model_len)),)]


VLLM_TTFT_CHECK = ("checked on 4 runs that timed a prefill apart, all of 16 prompts of 1,024 tokens on vLLM 0.6 on "
                   "an A100 40 GB and an H100 SXM: fitted on 2; the other 2 off by -19 % and +2 %")
"""What the time to first token of :func:`vllm_speed_text` says of its check (:func:`prefill_check`); the tests
check its figures against the runs."""


def vllm_speed_text(label: str, estimate: VllmSpeedEstimate, cost: float | None, price: float | None) -> str:
    """The lines ``llmcalc speed --engine vllm`` prints (the widget prints the same, in the page's language).

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> estimate = estimate_vllm_speed(get_preset("llama-3-8b"), "h100-sxm", batch=16, prompt_tokens=1024,
    ...                                generated_tokens=256)
    >>> cost = cost_per_million_tokens(2.0, estimate.aggregate_tokens_per_second)
    >>> print(vllm_speed_text("llama-3-8b", estimate, cost, 2.0))
    llama-3-8b on h100-sxm (vLLM, 16-bit weights, one GPU): an estimate, not a measurement
    sequences decoded together: 16; prompt 1,024 tokens, 256 generated each
    decode: 103.6 tokens/s a sequence, 1,657.1 tokens/s in all
    time to first token: 378 ms, the prefill of the whole batch (checked on 4 runs that timed a prefill apart, \
all of 16 prompts of 1,024 tokens on vLLM 0.6 on an A100 40 GB and an H100 SXM: fitted on 2; the other 2 off by \
-19 % and +2 %)
    cost per million output tokens: 0.34 at 2.00 per GPU-hour
    basis: 15,009,849,344 bytes of weights and 131,072 bytes of KV cache a token at 0.77 of 3,350 GB/s; FLOPs at \
0.11 (decode) and 0.68 (prefill) of 989.5 TFLOPS; 2.9 ms a step; KV pool of 447,824 tokens
    held-out median error: 7.2 % of the latency of a batch, 36 runs (vLLM 0.6 on an A100 40 GB and an H100 SXM, \
batches of 1 to 64)
    note: the prefill is compute-bound: its share of the tensor peak was fitted on 2 runs of 16 prompts of 1,024 \
tokens; on runs not fitted (vLLM 0.6.4 and 0.9 on an H100), the estimated latency was 2 % to 5 % short where the \
estimated prefill was 24 % of it, and 41 % short where it was 94 % of it (one prompt of 16,000 tokens)
    """
    constants = VLLM_CONSTANTS
    held = held_out_vllm_comparison()
    lines = [
        f"{label} on {estimate.hardware} (vLLM, 16-bit weights, one GPU): an estimate, not a measurement",
        f"sequences decoded together: {estimate.batch:,}; prompt {estimate.prompt_tokens:,} tokens, "
        f"{estimate.generated_tokens:,} generated each",
        f"decode: {estimate.sequence_tokens_per_second:,.1f} tokens/s a sequence, "
        f"{estimate.aggregate_tokens_per_second:,.1f} tokens/s in all",
        f"time to first token: {estimate.prefill_seconds * 1000:,.0f} ms, the prefill of the whole batch "
        f"({VLLM_TTFT_CHECK})",
    ]
    if cost is not None and price is not None:
        lines.append(f"cost per million output tokens: {cost:,.2f} at {price:,.2f} per GPU-hour")
    lines.append(f"basis: {estimate.weight_bytes:,} bytes of weights and {estimate.kv_bytes_per_token:,} bytes of KV "
                 f"cache a token at {constants.bandwidth_share:.2f} of {estimate.bandwidth / 1e9:,.0f} GB/s; FLOPs at "
                 f"{constants.compute_share:.2f} (decode) and {constants.prefill_share:.2f} (prefill) of "
                 f"{estimate.peak_flops / 1e12:,.1f} TFLOPS; "
                 f"{constants.step_seconds * 1000:.1f} ms a step; KV pool of {estimate.kv_pool_tokens:,} tokens")
    lines.append(f"held-out median error: {vllm_median_error():.1%} of the latency of a batch, {len(held)} runs "
                 "(vLLM 0.6 on an A100 40 GB and an H100 SXM, batches of 1 to 64)".replace("%", " %"))
    lines.extend(f"note: {VLLM_NOTES[note]}" for note in estimate.notes)
    return "\n".join(lines)


_DERIVED_NAMES = {"bandwidth": "bandwidth", "fp16": "BF16 tensor peak"}


def run_vllm_cli(cfg: ModelConfig, args: argparse.Namespace) -> tuple[dict[str, object], str]:
    """``llmcalc speed --engine vllm``: the batch's estimate, its basis and held-out error, and the cost."""
    if args.weight_format not in (None, "F16"):
        raise refusal("vllm_speed_format_unmeasured", weight_format=args.weight_format)
    estimate = estimate_vllm_speed(cfg, args.hardware, batch=args.batch, prompt_tokens=args.prompt_tokens,
                                   generated_tokens=args.generated_tokens)
    cost = None
    if args.price_per_gpu_hour is not None:
        cost = cost_per_million_tokens(args.price_per_gpu_hour, estimate.aggregate_tokens_per_second)
    derived = derivations(estimate.hardware, ("bandwidth", "fp16"))
    result: dict[str, object] = {
        "model": args.model, "hardware": estimate.hardware, "engine": "vllm", "estimate": True,
        "batch": estimate.batch, "prompt_tokens": estimate.prompt_tokens,
        "generated_tokens": estimate.generated_tokens, "max_model_len": estimate.max_model_len,
        "sequence_tokens_per_second": estimate.sequence_tokens_per_second,
        "aggregate_tokens_per_second": estimate.aggregate_tokens_per_second,
        "time_to_first_token_seconds": estimate.prefill_seconds, "latency_seconds": estimate.latency_seconds,
        "cost_per_million_output_tokens": cost, "price_per_gpu_hour": args.price_per_gpu_hour,
        "weight_bytes": estimate.weight_bytes, "kv_bytes_per_token": estimate.kv_bytes_per_token,
        "bandwidth": estimate.bandwidth, "peak_flops": estimate.peak_flops,
        "kv_pool_tokens": estimate.kv_pool_tokens,
        "constants": {"bandwidth_share": VLLM_CONSTANTS.bandwidth_share,
                      "compute_share": VLLM_CONSTANTS.compute_share, "step_seconds": VLLM_CONSTANTS.step_seconds,
                      "prefill_share": VLLM_CONSTANTS.prefill_share},
        "held_out_median_error": vllm_median_error(), "held_out_runs": len(held_out_vllm_comparison()),
        "derived": derived,
        "notes": list(estimate.notes),
    }
    text = vllm_speed_text(args.model, estimate, cost, args.price_per_gpu_hour)
    return result, text + "".join(f"\n{_DERIVED_NAMES[name]}: {line}" for name, line in derived.items())
