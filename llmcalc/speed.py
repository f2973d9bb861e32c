"""How fast: llama.cpp's decode and prefill speed on a card, an estimate from the roofline and published runs.

An estimate, not a measurement.  Its basis is the roofline: a step of work
takes at least its bytes over the memory bandwidth and its FLOPs over the
tensor peak, both from the hardware's datasheet (:mod:`llmcalc.datasheets`).

- **Decode** (one token per sequence per step) reads every weight the GPU
  holds once per step (the GGUF file's tensors but ``token_embd``, which is
  a lookup; :func:`decode_weight_bytes`) and the KV cache of the context so
  far.  Its time is those bytes over ``efficiency x bandwidth``.
- **Prefill** (the prompt, in one pass) does ``2 N`` FLOPs a token for the
  ``N`` parameters that multiply (:func:`llmcalc.flops.matmul_params`) plus
  the causal attention scores, ``2 P (P + 1)`` times the attention width per
  layer for a prompt of ``P`` tokens.  The measured llama.cpp builds (December
  2023 and May 2024) multiplied a prompt's matrices with cuBLAS in FP16 with
  FP16 accumulation (``CUBLAS_COMPUTE_16F``), so the peak is the card's FP16
  tensor rate with FP16 accumulation (:func:`gemm_peak_flops`, twice the
  FP32-accumulate rate on GeForce cards).  Quantized weights were first
  unpacked to FP16, each pass of :data:`UBATCH_TOKENS` prompt tokens reading
  the quantized matrices and writing them out in 2 bytes a weight
  (:attr:`SpeedEstimate.unpack_bytes`), at the card's bandwidth.  The time to
  first token is the FLOPs over ``efficiency x that peak`` (never less than one
  read of the weights) plus the unpacking.

The roofline alone misses how close llama.cpp's kernels come to the
datasheet, so each engine (CUDA, Metal) has fitted constants
(:data:`CONSTANTS`): the share of the bandwidth a decode step gets, for 16-bit
(F16) and for quantized weights (whose kernels also unpack blocks); the share
of the tensor peak a prefill gets; and two ceilings where the roofline breaks.
A fast card decoding a small model does not go past a per-token floor of
kernel launches and CPU work (Llama 2 7B in Q4_0 decoded at 136 tokens a
second on an A100 and 134 on an H100, whose bandwidths differ by 3 %), and llama.cpp's prefill
kernels of these versions reached about 139 TFLOPS at most, far from an
H100's tensor peak.  Both ceilings are fitted, like the shares, on
half of the published measurements in ``llmcalc/data/speed_measurements.tsv``
(:func:`fit_constants`) and checked on the other half
(:func:`held_out_comparison`), and on runs on cards whose figures are derived,
which no fit saw (:func:`independent_check`).

The split was fixed before any fit: within each source and quantity, in the
file's order, the 2nd, 4th, 6th ... rows are fitted and the 1st, 3rd, 5th ...
are held out, so at most half are fitted (:func:`is_fitted`).

A prompt was measured in two ways: ``llama-bench`` times a prompt after a
warm-up run and averages repeats, while ``main`` timed the first prompt of a
fresh process (:attr:`Measurement.first_prompt`), which also pays one-time
set-up such as loading the cuBLAS kernels.  Each way has its own fitted share
of the peak; an estimate is for a warmed-up prompt, and the first-prompt share
serves only to compare with the rows measured that way.  Newer llama.cpp builds
(June 2024 on) multiply quantized weights with their own int8 kernels (MMQ)
instead of unpacking them; no measured run used them.

Where the measurements end, the estimate refuses or says so rather than
extend them: every run decoded one sequence at a time, so a batch above 1 is
refused (:func:`held_out_ubatch_comparison` shows why the roofline is not
trusted for one), as are sliding-window models; Apple prints no GPU tensor rate, so a prefill on Apple silicon is not
estimated; AMD cards (llama.cpp's ROCm back end) were not measured; prompts,
contexts and models outside the measured range, and an estimate a ceiling
sets, are named in :attr:`SpeedEstimate.notes`.  No SGLang measurement
is in the data, so its speed is not estimated; vLLM's, for a batch, is :mod:`llmcalc.vllmspeed`'s.

Examples
--------
Llama 3 8B in Q4_K_M on an RTX 4090, a 512-token prompt and 128 tokens out:

>>> from llmcalc import get_preset
>>> estimate = estimate_speed(get_preset("llama-3-8b"), "Q4_K_M", "rtx-4090", prompt_tokens=512, generated_tokens=128)
>>> round(estimate.decode_tokens_per_second, 1), round(estimate.prefill_seconds * 1000)
(111.3, 75)
>>> estimate.notes
('prefill_ceiling', 'unpack')
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from types import MappingProxyType
from typing import Protocol, TypeVar

from . import _validate as check
from .config import ModelConfig, checks_model
from .datasheets import DATASHEETS, MEASURED_HARDWARE, datasheet, derivations, memory_bandwidth
from .errors import refusal
from .flops import matmul_params
from .gguf import RECIPES, model_from_config
from .memory import kv_cache_bytes_per_token
from .params import active_param_count, param_breakdown
from .presets import get_preset

__all__ = [
    "CONSTANTS",
    "ENGINES",
    "FORMATS",
    "KINDS",
    "MEASURED_RANGE",
    "NOTES",
    "UBATCH_TOKENS",
    "BatchMeasurement",
    "Constants",
    "Grouped",
    "Measurement",
    "SpeedEstimate",
    "add_cli_arguments",
    "batch_measurements",
    "cli_model",
    "cost_per_million_tokens",
    "decode_flops",
    "decode_weight_bytes",
    "derived_error_range",
    "derived_figures",
    "engine_for",
    "estimate_speed",
    "fit_constants",
    "gemm_peak_flops",
    "held_out_comparison",
    "held_out_ubatch_comparison",
    "independent_check",
    "independent_measurements",
    "is_fitted",
    "measurements",
    "median_error",
    "median_ubatch_error_by_source",
    "note_text",
    "prompt_flops",
    "run_cli",
    "speed_text",
]

ENGINES = ("llama.cpp-cuda", "llama.cpp-metal")
"""The engines estimated: llama.cpp's CUDA back end on NVIDIA cards and its Metal back end on Apple silicon."""

FORMATS = ("F16", *RECIPES)
"""Weight formats: GGUF's F16 and each llama-quantize recipe of :data:`llmcalc.gguf.RECIPES`."""

KINDS = ("16-bit", "quantized")
"""Weight kinds with an efficiency each: F16, and the llama-quantize recipes (whose kernels also unpack blocks)."""

UBATCH_TOKENS = 512
"""Prompt tokens llama.cpp evaluates in one pass (its default ``n_batch`` in the measured builds): each pass
unpacks every quantized matrix to FP16 once."""


@dataclass(frozen=True)
class Constants:
    """The fitted constants of each engine: what the roofline cannot know of llama.cpp's kernels.

    ``decode_efficiency[(engine, kind)]`` is the share of the bandwidth a decode step gets;
    ``decode_ceiling[engine]`` the fastest one sequence decodes (tokens a second), whatever the
    bandwidth: a per-token floor of kernel launches and CPU work.  ``prefill_efficiency[engine]``
    is the share of the FP16-accumulate tensor peak (:func:`gemm_peak_flops`) a warmed-up prefill gets,
    ``first_prompt_efficiency[engine]`` the share the first prompt of a fresh process got
    (:attr:`Measurement.first_prompt`), and ``prefill_ceiling[engine]`` the FLOPs a second llama.cpp's
    prefill kernels reached at most on any card (the H100's tensor peak was far from reached).  Engines
    without a prefill fit (Metal: no tensor rate) have no entry.
    """

    decode_efficiency: Mapping[tuple[str, str], float]
    decode_ceiling: Mapping[str, float]
    prefill_efficiency: Mapping[str, float]
    prefill_ceiling: Mapping[str, float]
    first_prompt_efficiency: Mapping[str, float]


CONSTANTS = Constants(
    decode_efficiency=MappingProxyType({
        ("llama.cpp-cuda", "16-bit"): 0.762, ("llama.cpp-cuda", "quantized"): 0.518,
        ("llama.cpp-metal", "16-bit"): 0.778, ("llama.cpp-metal", "quantized"): 0.678,
    }),
    decode_ceiling=MappingProxyType({"llama.cpp-cuda": 136.0, "llama.cpp-metal": 78.8}),
    prefill_efficiency=MappingProxyType({"llama.cpp-cuda": 0.474}),
    prefill_ceiling=MappingProxyType({"llama.cpp-cuda": 1.39e14}),
    first_prompt_efficiency=MappingProxyType({"llama.cpp-cuda": 0.254}),
)
"""The constants :func:`fit_constants` fits on the fitted rows (each to 3 significant digits); the tests check
the two agree."""


@dataclass(frozen=True)
class Measurement:
    """One published run: what ran, on what, how fast, and where it was published.

    ``quantity`` is ``decode`` (tokens a second while generating
    ``generated_tokens`` after a prompt of ``prompt_tokens``) or ``prefill``
    (tokens a second through a prompt of ``prompt_tokens``).  ``source`` groups
    the rows of one publication and snapshot; ``setting`` says how it was run.
    """

    source: str
    engine: str
    model: str
    format: str
    hardware: str
    gpus: int
    prompt_tokens: int
    generated_tokens: int
    quantity: str
    measured: float
    unit: str
    url: str
    setting: str

    @property
    def first_prompt(self) -> bool:
        """Whether the prompt was the first a fresh process evaluated (``llama.cpp main``), not a warmed-up
        repeat (``llama-bench``); only a prefill row's time depends on it."""
        return self.setting.startswith("llama.cpp main")


def _read_measurements(name: str) -> list[Measurement]:
    text = resources.files("llmcalc").joinpath(f"data/{name}").read_text("utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return [Measurement(
        record["source"], record["engine"], record["model"], record["format"], record["hardware"],
        int(record["gpus"]), int(record["prompt_tokens"]), int(record["generated_tokens"]), record["quantity"],
        float(record["measured"]), record["unit"], record["url"], record["setting"])
        for record in csv.DictReader(lines, delimiter="\t")]


def measurements() -> list[Measurement]:
    """The published measurements, in the file's order.

    Examples
    --------
    >>> rows = measurements()
    >>> len(rows), sum(row.quantity == "decode" for row in rows), sum(row.quantity == "prefill" for row in rows)
    (51, 37, 14)
    """
    return _read_measurements("speed_measurements.tsv")


def independent_measurements() -> list[Measurement]:
    """Published runs on cards whose figures are derived (:class:`llmcalc.datasheets.Derived`), never fitted.

    ``llmcalc/data/speed_independent.tsv``: the RTX 4070 Ti and RTX 4080 rows
    of the two tables :func:`measurements` takes its sources A and B from,
    left out of the fit for want of the cards' figures.

    Examples
    --------
    >>> rows = independent_measurements()
    >>> len(rows), sorted({row.hardware for row in rows})
    (10, ['rtx-4070-ti', 'rtx-4080'])
    """
    return _read_measurements("speed_independent.tsv")


def independent_check(rows: list[Measurement] | None = None) -> list[tuple[Measurement, float, float]]:
    """Each run of :func:`independent_measurements` with the estimate (tokens a second, the constants as
    fitted) and its error, estimate over measured minus 1.

    Examples
    --------
    >>> for row, estimate, error in independent_check():
    ...     print(row.source, row.hardware, row.model, row.format, row.quantity, row.measured, round(estimate, 1),
    ...           f"{error:+.0%}")
    A rtx-4070-ti llama-3-8b Q4_K_M decode 83.5 56.1 -33%
    A rtx-4070-ti llama-3-8b Q4_K_M prefill 3936.29 3632.4 -8%
    A rtx-4080 llama-3-8b Q4_K_M decode 108.15 79.8 -26%
    A rtx-4080 llama-3-8b Q4_K_M prefill 5389.74 4600.5 -15%
    A rtx-4080 llama-3-8b F16 decode 40.58 36.3 -11%
    A rtx-4080 llama-3-8b F16 prefill 7246.97 6101.7 -16%
    B rtx-4080 llama-2-7b Q4_0 decode 118.01 86.8 -26%
    B rtx-4080 llama-2-7b Q4_0 prefill 3774.79 3150.5 -17%
    B rtx-4080 llama-2-7b F16 decode 44.2 39.7 -10%
    B rtx-4080 llama-2-7b F16 prefill 5158.19 3710.7 -28%
    """
    table = []
    for row in independent_measurements() if rows is None else rows:
        estimate = _roofline_rate(row, CONSTANTS)
        table.append((row, estimate, estimate / row.measured - 1))
    return table


@dataclass(frozen=True)
class BatchMeasurement:
    """One published run that put ``batch`` tokens a step through the weights, and how fast in all.

    ``measured`` is the aggregate tokens a second.  ``caches`` is how many KV caches a step read:
    every row is one prompt of ``prompt_tokens`` evaluated in steps of ``batch`` tokens (llama-bench
    with ``n_ubatch`` = ``batch``), so 1, where decoding ``batch`` sequences reads ``batch`` caches.
    """

    source: str
    engine: str
    model: str
    format: str
    hardware: str
    batch: int
    prompt_tokens: int
    caches: int
    measured: float
    unit: str
    url: str
    setting: str

    @property
    def quantity(self) -> str:
        """``decode``: every row is a rate of tokens through the weights, split as the decode rows are."""
        return "decode"


def batch_measurements() -> list[BatchMeasurement]:
    """The published runs of ``batch`` tokens a step through the weights, in the file's order.

    Examples
    --------
    >>> rows = batch_measurements()
    >>> len(rows), sorted({row.hardware for row in rows}), max(row.batch for row in rows)
    (43, ['rtx-3090', 'rtx-4090', 'rtx-5090'], 512)
    """
    text = resources.files("llmcalc").joinpath("data/batch_measurements.tsv").read_text("utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return [BatchMeasurement(
        record["source"], record["engine"], record["model"], record["format"], record["hardware"],
        int(record["batch"]), int(record["prompt_tokens"]), int(record["caches"]), float(record["measured"]),
        record["unit"], record["url"], record["setting"]) for record in csv.DictReader(lines, delimiter="\t")]


class Grouped(Protocol):
    """A published run as :func:`is_fitted` sees it: the publication it comes from and what it measures."""

    @property
    def source(self) -> str: ...

    @property
    def quantity(self) -> str: ...


def is_fitted(rows: Sequence[Grouped]) -> list[bool]:
    """For each row, whether it is fitted (the rule fixed before fitting; the others are held out).

    Within each source and quantity, in the order given, the 2nd, 4th ... rows
    are fitted and the 1st, 3rd ... held out: never more than half fitted.

    Examples
    --------
    >>> flags = is_fitted(measurements())
    >>> sum(flags), len(flags) - sum(flags)
    (25, 26)
    """
    seen: dict[tuple[str, str], int] = {}
    flags = []
    for row in rows:
        key = (row.source, row.quantity)
        seen[key] = seen.get(key, 0) + 1
        flags.append(seen[key] % 2 == 0)
    return flags


MEASURED_RANGE: Mapping[str, int] = MappingProxyType({
    "batch": 1,
    "prompt_tokens": 512,
    "context_tokens": 494 + 1023,
    "min_weight_bytes": 3_751_337_984,
})
"""The edges of the measured runs: one sequence at a time; prompts up to 512 tokens; a context of up to
1,517 tokens (494 + 1,023); models whose decode reads at least 3,751,337,984 bytes of weights (Llama 2 7B in
Q4_0).  Past them the estimate refuses (batch) or says so (:attr:`SpeedEstimate.notes`)."""


def engine_for(hardware: str) -> str:
    """The llama.cpp back end estimated on ``hardware``: Metal on Apple silicon, CUDA on NVIDIA cards.

    Examples
    --------
    >>> engine_for("apple-m2-ultra"), engine_for("h100-sxm")
    ('llama.cpp-metal', 'llama.cpp-cuda')
    >>> engine_for("mi300x")
    Traceback (most recent call last):
        ...
    llmcalc.errors.RefusalValueError: no llama.cpp speed was measured on 'mi300x' (AMD, llama.cpp's ROCm back end); \
measured: NVIDIA cards (CUDA) and Apple silicon (Metal)
    """
    sheet = datasheet(hardware)
    if hardware.startswith("apple-"):
        return "llama.cpp-metal"
    if sheet.nvidia:
        return "llama.cpp-cuda"
    raise refusal("speed_hardware_unmeasured", hardware=hardware, vendor="AMD, llama.cpp's ROCm back end")


def gemm_peak_flops(hardware: str) -> int | None:
    """The tensor peak llama.cpp's prompt matrix products ran at: FP16 with FP16 accumulation, or ``None``.

    The measured builds multiplied with cuBLAS in FP16 and ``CUBLAS_COMPUTE_16F``; a datasheet that prints
    that rate apart (:attr:`llmcalc.datasheets.Datasheet.fp16_accumulate`, GeForce cards) gives it, any other
    its one FP16 figure.  ``None`` where no FP16 tensor rate is published, or only the FP32-accumulate one
    of a card whose FP16-accumulate rate is printed nowhere (the L40).

    Examples
    --------
    >>> gemm_peak_flops("rtx-4090") / 1e12, gemm_peak_flops("a100-80gb") / 1e12, gemm_peak_flops("apple-m3")
    (330.3, 312.0, None)
    >>> gemm_peak_flops("v100-32gb") / 1e12, gemm_peak_flops("l40")
    (125.0, None)
    """
    sheet = datasheet(hardware)
    figure = sheet.fp16_accumulate or (None if sheet.fp16_accumulate_unpublished else sheet.fp16)
    return None if figure is None else figure.value


@checks_model
def decode_weight_bytes(cfg: ModelConfig, weight_format: str) -> int:
    """Bytes of weights a decode step reads: the GGUF tensors llama.cpp puts on the GPU.

    Every tensor but ``token_embd`` (a row lookup, which llama.cpp keeps in host
    memory), counted by :func:`llmcalc.gguf.model_from_config` for a
    llama-quantize recipe.  ``F16`` stores each matrix in 2 bytes a weight and
    each norm in 4 (GGUF keeps 1-D tensors in F32).  For a mixture of experts
    only the experts one token uses are read.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> decode_weight_bytes(get_preset("llama-3-8b"), "Q4_K_M")
    4617396224
    >>> decode_weight_bytes(get_preset("llama-3-8b"), "F16")
    15010381824
    """
    check.choice("weight_format", weight_format, FORMATS)
    if weight_format != "F16":
        return model_from_config.unchecked(cfg, weight_format).gpu_weight_bytes
    parts = param_breakdown.unchecked(cfg)
    lookup = 0 if cfg.tie_embeddings else parts["embedding"]
    return 2 * (active_param_count.unchecked(cfg) - lookup) + 2 * parts["norms"]


@checks_model
def prompt_flops(cfg: ModelConfig, prompt_tokens: int) -> int:
    """FLOPs of one prompt's prefill: ``2 N`` a token for the ``N`` parameters that multiply
    (:func:`llmcalc.flops.matmul_params`) plus the causal attention scores and their weighted sum,
    ``2 P (P + 1)`` times the attention width in each layer for a prompt of ``P`` tokens.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> round(prompt_flops(get_preset("llama-3-8b"), 512) / 1e12, 2)
    7.75
    """
    prompt = check.count("prompt_tokens", prompt_tokens, minimum=0)
    attention_width = cfg.n_heads * cfg.head_dim
    return 2 * matmul_params.unchecked(cfg) * prompt + 2 * cfg.n_layers * prompt * (prompt + 1) * attention_width


@checks_model
def decode_flops(cfg: ModelConfig, context: float) -> float:
    """FLOPs of one decoded token at a context of ``context`` tokens: ``2 N`` for the ``N`` parameters that
    multiply (:func:`llmcalc.flops.matmul_params`) plus ``4 c`` times the attention width in each layer, the
    scores against the ``c`` cached tokens and their weighted sum.  ``context`` may be a mean over a
    generation, so it need not be whole.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> round(decode_flops(get_preset("llama-3-8b"), 1024) / 1e9, 2)
    15.55
    """
    tokens = check.number("context", context, minimum=0)
    return 2 * matmul_params.unchecked(cfg) + 4 * cfg.n_layers * tokens * cfg.n_heads * cfg.head_dim


@dataclass(frozen=True)
class SpeedEstimate:
    """An estimate of one sequence's speed, with what it stands on.

    ``decode_tokens_per_second`` is one sequence's rate over the generated
    tokens; ``prefill_seconds`` the time to first token for the prompt
    (``None`` where no FP16 tensor rate is published: Apple silicon, the RTX 6000 Ada).
    ``unpack_bytes`` is what unpacking quantized weights to FP16 reads and
    writes over the prompt (0 for F16): the quantized matrices and 2 bytes a
    weight, once for each pass of :data:`UBATCH_TOKENS` tokens.
    ``notes`` names each edge of the measured range the estimate passes
    (keys of :data:`MEASURED_RANGE`), ``decode_ceiling`` or ``prefill_ceiling``
    where a ceiling of :data:`CONSTANTS`, not the roofline, sets the estimate,
    ``experts`` for a mixture of experts, which no measured run had, and ``unpack``
    where a prefill of quantized weights is estimated as the measured builds ran it
    (unpacked to FP16, not with the int8 kernels of later builds).
    """

    engine: str
    hardware: str
    weight_format: str
    prompt_tokens: int
    generated_tokens: int
    weight_bytes: int
    kv_bytes_per_token: int
    bandwidth: int
    decode_efficiency: float
    decode_tokens_per_second: float
    prefill_flops: int
    peak_flops: int | None
    prefill_efficiency: float | None
    prefill_seconds: float | None
    unpack_bytes: int
    notes: tuple[str, ...]

    @property
    def prefill_tokens_per_second(self) -> float | None:
        """Prompt tokens a second during prefill, or ``None`` where prefill is not estimated."""
        if self.prefill_seconds is None:
            return None
        return self.prompt_tokens / self.prefill_seconds


def _kind(weight_format: str) -> str:
    sixteen_bit, quantized = KINDS
    return sixteen_bit if weight_format == "F16" else quantized


def _roofline(cfg: ModelConfig, weight_format: str, hardware: str, prompt_tokens: int, generated_tokens: int,
              constants: Constants | None, first_prompt: bool = False) -> SpeedEstimate:
    """The estimate with ``constants``; ``None`` gives the bare roofline (every efficiency 1, no ceiling).

    ``first_prompt`` takes the prefill share of a fresh process's first prompt (to compare with such rows).
    """
    engine = engine_for(hardware)
    if cfg.sliding_window_layers:
        raise refusal("speed_window_unmeasured", model_type=cfg.model_type or "custom",
                      layers=cfg.sliding_window_layers, window=cfg.sliding_window)
    kind = _kind(weight_format)
    weights = decode_weight_bytes.unchecked(cfg, weight_format)
    kv_per_token = kv_cache_bytes_per_token.unchecked(cfg, "fp16")
    bandwidth = memory_bandwidth(hardware)
    # Generating G tokens after P, step i reads the cache of P + i - 1 tokens: on average P + (G - 1) / 2.
    mean_context = prompt_tokens + (generated_tokens - 1) / 2
    decode_eff = 1.0 if constants is None else constants.decode_efficiency[(engine, kind)]
    decode_rate = decode_eff * bandwidth / (weights + kv_per_token * mean_context)
    if constants is not None:
        decode_rate = min(decode_rate, constants.decode_ceiling[engine])
    flops = prompt_flops.unchecked(cfg, prompt_tokens)
    passes = -(-prompt_tokens // UBATCH_TOKENS)
    unpack = 0 if kind == KINDS[0] else passes * (weights + 2 * matmul_params.unchecked(cfg))
    peak = gemm_peak_flops(hardware) if engine == "llama.cpp-cuda" else None
    prefill_eff: float | None = None
    prefill: float | None = None
    if peak is not None:
        rate = float(peak)
        if constants is not None:
            shares = constants.first_prompt_efficiency if first_prompt else constants.prefill_efficiency
            prefill_eff = shares[engine]
            rate = min(prefill_eff * peak, constants.prefill_ceiling[engine])
        prefill = max(flops / rate, weights / bandwidth) + unpack / bandwidth
    return SpeedEstimate(engine, hardware, weight_format, prompt_tokens, generated_tokens, weights, kv_per_token,
                         bandwidth, decode_eff, decode_rate, flops, peak, prefill_eff, prefill, unpack, ())


@checks_model
def estimate_speed(cfg: ModelConfig, weight_format: str, hardware: str, *, prompt_tokens: int,
                   generated_tokens: int = 128, batch: int = 1) -> SpeedEstimate:
    """Estimate llama.cpp's decode rate and time to first token for one sequence (an estimate; see the module).

    Parameters
    ----------
    cfg : llmcalc.ModelConfig
        The model (a preset or a config.json's).
    weight_format : str
        One of :data:`FORMATS`: ``F16`` or a llama-quantize recipe (``Q4_K_M``).
    hardware : str
        A card of :data:`llmcalc.datasheets.DATASHEETS` or a chip of
        :data:`llmcalc.datasheets.MEASURED_HARDWARE` (``rtx-4090``, ``apple-m2-ultra``).
    prompt_tokens : int
        Tokens of the prompt, at least 1.
    generated_tokens : int
        Tokens generated after it, at least 1; the decode rate is their mean.
    batch : int
        Sequences decoded together; only 1 was measured, so more is refused.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> mac = estimate_speed(get_preset("llama-2-70b"), "Q4_0", "apple-m2-ultra", prompt_tokens=494)
    >>> round(mac.decode_tokens_per_second, 1), mac.prefill_seconds
    (13.9, None)
    >>> estimate_speed(get_preset("llama-2-7b"), "Q4_0", "h100-sxm", prompt_tokens=8192).notes
    ('prompt_tokens', 'context_tokens', 'decode_ceiling', 'prefill_ceiling', 'unpack')
    >>> estimate_speed(get_preset("llama-2-7b"), "Q4_0", "h100-sxm", prompt_tokens=512, batch=8)
    Traceback (most recent call last):
        ...
    llmcalc.errors.RefusalValueError: batch must be 1: no published llama.cpp run decoded several sequences \
together on a listed card, and on runs that put several tokens a step through the weights the held-out \
median error of the roofline was 2 % to 192 % by source; got 8
    """
    prompt = check.count("prompt_tokens", prompt_tokens, maximum=2**24)
    generated = check.count("generated_tokens", generated_tokens, maximum=2**24)
    sequences = check.count("batch", batch, maximum=2**16)
    if sequences > MEASURED_RANGE["batch"]:
        by_source = median_ubatch_error_by_source().values()
        raise refusal("speed_batch_unmeasured", batch=sequences, low=f"{min(by_source):.0%}".replace("%", " %"),
                      high=f"{max(by_source):.0%}".replace("%", " %"))
    estimate = _roofline(cfg, weight_format, hardware, prompt, generated, CONSTANTS)
    notes = []
    if prompt > MEASURED_RANGE["prompt_tokens"] and estimate.prefill_seconds is not None:
        notes.append("prompt_tokens")
    if prompt + generated > MEASURED_RANGE["context_tokens"]:
        notes.append("context_tokens")
    if estimate.weight_bytes < MEASURED_RANGE["min_weight_bytes"]:
        notes.append("min_weight_bytes")
    if cfg.is_moe:
        notes.append("experts")
    if estimate.decode_tokens_per_second >= CONSTANTS.decode_ceiling[estimate.engine]:
        notes.append("decode_ceiling")
    ceiling = CONSTANTS.prefill_ceiling.get(estimate.engine)
    if estimate.peak_flops is not None and ceiling is not None and \
            CONSTANTS.prefill_efficiency[estimate.engine] * estimate.peak_flops > ceiling:
        notes.append("prefill_ceiling")
    if estimate.unpack_bytes and estimate.prefill_seconds is not None:
        notes.append("unpack")
    if hardware in DATASHEETS and derivations(hardware, ("bandwidth",)):
        notes.append("derived")
    return replace(estimate, notes=tuple(notes))


def cost_per_million_tokens(price_per_gpu_hour: float, tokens_per_second: float, *, gpus: int = 1) -> float:
    """What a million output tokens cost at ``tokens_per_second`` on ``gpus`` GPUs rented at the reader's price.

    The price is the reader's: prices date, so none is shipped.

    Examples
    --------
    >>> round(cost_per_million_tokens(0.69, 126.5), 2)  # one card at 0.69 an hour, 126.5 tokens a second
    1.52
    """
    price = check.number("price_per_gpu_hour", price_per_gpu_hour, minimum=0.0, maximum=1e6)
    rate = check.number("tokens_per_second", tokens_per_second, minimum=0.0, min_inclusive=False)
    count = check.count("gpus", gpus, maximum=2**16)
    return price * count / 3600 / rate * 1_000_000


def _roofline_rate(row: Measurement, constants: Constants | None) -> float:
    """The row's speed estimated with ``constants`` (``None``: the bare roofline), in tokens a second."""
    estimate = _roofline(get_preset(row.model), row.format, row.hardware, row.prompt_tokens,
                         max(row.generated_tokens, 1), constants, row.first_prompt)
    if row.quantity == "decode":
        return estimate.decode_tokens_per_second
    assert estimate.prefill_seconds is not None, row  # the data holds prefill rows on cards with an FP16 rate only
    return row.prompt_tokens / estimate.prefill_seconds


def _three_digits(value: float) -> float:
    return float(f"{value:.3g}")


def _best_bound(pairs: list[tuple[str, float, float]], candidates: list[float],
                bounded: Callable[[float, float], bool]) -> tuple[dict[str, float], float]:
    """The efficiencies (one per group) and the bound that fit ``pairs`` best.

    ``pairs`` holds (group, roofline rate, measured rate) for the fitted rows.  For each candidate
    bound (``inf``: none), each group's efficiency is the median of measured over roofline rate on
    its rows the bound does not cap (``bounded(measured, bound)`` false); the bound kept is the one
    whose estimates are off by the least mean |log(estimate / measured)|, the first on a tie.
    """
    best: tuple[float, dict[str, float], float] | None = None
    for bound in candidates:
        groups: dict[str, list[float]] = {}
        for group, roofline, measured in pairs:
            if not bounded(measured, bound):
                groups.setdefault(group, []).append(measured / roofline)
        if {group for group, _roofline, _measured in pairs} - set(groups):
            continue
        efficiency = {group: statistics.median(values) for group, values in groups.items()}
        misfit = statistics.mean(abs(math.log(min(efficiency[group] * roofline, bound) / measured))
                                 for group, roofline, measured in pairs)
        if best is None or misfit < best[0]:
            best = (misfit, efficiency, bound)
    assert best is not None
    return best[1], best[2]


def fit_constants(rows: list[Measurement] | None = None) -> Constants:
    """Fit :data:`CONSTANTS` on the fitted rows (:func:`is_fitted`), each to 3 significant digits.

    Decode, for each engine: the per-sequence ceiling is none or one of the fitted rows' measured
    rates, and each weight kind's efficiency the median of measured over roofline rate on the rows
    under the ceiling; the ceiling kept is the one off the fitted rows by the least.  Prefill is the
    same on the FLOPs a second a row's matrix products reached (its FLOPs over its time less the
    unpacking), with those rates as the candidate ceilings, one efficiency for warmed-up prompts
    and one for first prompts.

    Examples
    --------
    >>> fit_constants() == CONSTANTS
    True
    """
    rows = measurements() if rows is None else rows
    fitted = [row for row, keep in zip(rows, is_fitted(rows), strict=True) if keep]
    decode_efficiency: dict[tuple[str, str], float] = {}
    decode_ceiling: dict[str, float] = {}
    prefill_efficiency: dict[str, float] = {}
    prefill_ceiling: dict[str, float] = {}
    first_prompt_efficiency: dict[str, float] = {}
    for engine in ENGINES:
        decode = [(_kind(row.format), _roofline_rate(row, None), row.measured)
                  for row in fitted if row.engine == engine and row.quantity == "decode"]
        rates = sorted(measured for _kind_, _roofline, measured in decode)
        efficiency, ceiling = _best_bound(decode, [math.inf, *rates], lambda measured, bound: measured >= bound)
        decode_efficiency |= {(engine, kind): _three_digits(value) for kind, value in efficiency.items()}
        decode_ceiling[engine] = _three_digits(ceiling)
        in_flops = []
        for row in fitted:
            if row.engine == engine and row.quantity == "prefill":
                bare = _roofline(get_preset(row.model), row.format, row.hardware, row.prompt_tokens, 1, None)
                assert bare.peak_flops is not None, row  # prefill rows are on cards with an FP16 rate only
                seconds = row.prompt_tokens / row.measured - bare.unpack_bytes / bare.bandwidth
                in_flops.append(("first" if row.first_prompt else "warm", float(bare.peak_flops),
                                 bare.prefill_flops / seconds))
        if in_flops:
            efficiency, ceiling = _best_bound(in_flops, [math.inf, *sorted(flops for *_rest, flops in in_flops)],
                                              lambda measured, bound: measured >= bound)
            prefill_efficiency[engine] = _three_digits(efficiency["warm"])
            first_prompt_efficiency[engine] = _three_digits(efficiency["first"])
            prefill_ceiling[engine] = _three_digits(ceiling)
    return Constants(MappingProxyType(dict(sorted(decode_efficiency.items()))), MappingProxyType(decode_ceiling),
                     MappingProxyType(prefill_efficiency), MappingProxyType(prefill_ceiling),
                     MappingProxyType(first_prompt_efficiency))


_Row = TypeVar("_Row", "Measurement", "BatchMeasurement")


def _held_out(rows: list[_Row], rate: Callable[[_Row], float]) -> list[tuple[_Row, float, float]]:
    """Each row :func:`is_fitted` leaves out, with its estimate (tokens a second) and its error, estimate over
    measured minus 1: the one definition of a held-out error both comparisons report."""
    return [(row, estimate, estimate / row.measured - 1)
            for row, fitted in zip(rows, is_fitted(rows), strict=True) if not fitted
            for estimate in (rate(row),)]


def held_out_comparison(rows: list[Measurement] | None = None) -> list[tuple[Measurement, float, float]]:
    """Each held-out row with the estimate (tokens a second) and its error, estimate over measured minus 1.

    Examples
    --------
    >>> table = held_out_comparison()
    >>> len(table)
    26
    """
    return _held_out(measurements() if rows is None else rows, lambda row: _roofline_rate(row, CONSTANTS))


def median_error(quantity: str, rows: list[Measurement] | None = None) -> float:
    """The median |error| of the held-out ``quantity`` rows (``decode`` or ``prefill``), as a fraction.

    Examples
    --------
    >>> round(median_error("decode"), 3) <= 0.15
    True
    """
    check.choice("quantity", quantity, ("decode", "prefill"))
    return statistics.median(abs(error) for row, _rate, error in held_out_comparison(rows)
                             if row.quantity == quantity)


def _ubatch_rate(row: BatchMeasurement) -> float:
    """The row's tokens a second by the roofline with :data:`CONSTANTS`, no constant fitted on such rows.

    A step of ``batch`` tokens reads the weights once and ``caches`` KV caches of, on average,
    (P + 1) / 2 tokens at the decode's share of the bandwidth, and does ``batch`` tokens' FLOPs
    (2 a multiplying parameter, 4 per attention width, layer and token attended) at the prefill's
    share of the FP16 tensor peak, at most its ceiling; at most the decode ceiling steps a second.
    """
    cfg = get_preset(row.model)
    engine = engine_for(row.hardware)
    peak = gemm_peak_flops(row.hardware)
    if peak is None:
        raise ValueError(f"{row.hardware} publishes no FP16 tensor rate to bound a step of {row.batch} tokens")
    context = (row.prompt_tokens + 1) / 2
    memory = (decode_weight_bytes(cfg, row.format) + row.caches * kv_cache_bytes_per_token(cfg, "fp16") * context) \
        / (CONSTANTS.decode_efficiency[(engine, _kind(row.format))] * memory_bandwidth(row.hardware))
    flops = row.batch * decode_flops.unchecked(cfg, context)
    compute = flops / min(CONSTANTS.prefill_efficiency[engine] * peak, CONSTANTS.prefill_ceiling[engine])
    return row.batch * min(1 / max(memory, compute), CONSTANTS.decode_ceiling[engine])


def held_out_ubatch_comparison(rows: list[BatchMeasurement] | None = None) -> list[tuple[BatchMeasurement, float,
                                                                                          float]]:
    """The weights-side check of a batch: each held-out run (:func:`is_fitted`) of ``batch`` tokens a step
    with the roofline's tokens a second for it and the error, estimate over measured minus 1.

    Decoding ``B`` sequences together puts ``B`` tokens a step through the weights, as these runs
    (``llama-bench`` prompts with ``n_ubatch`` = ``B``) do, but reads ``B`` KV caches where they read
    one: the check covers the weights' side of a batch and not the caches'.  Its errors, far apart by
    source (:func:`median_ubatch_error_by_source`), are why :func:`estimate_speed` refuses a batch above 1.

    Examples
    --------
    >>> table = held_out_ubatch_comparison()
    >>> len(table), sum(row.batch > 1 for row, _rate, _error in table)
    (22, 20)
    """
    return _held_out(batch_measurements() if rows is None else rows, _ubatch_rate)


def median_ubatch_error_by_source(rows: list[BatchMeasurement] | None = None) -> dict[str, float]:
    """The median |error| of :func:`held_out_ubatch_comparison` above 1 token a step, by source, as fractions.

    Examples
    --------
    >>> {source: round(error, 3) for source, error in median_ubatch_error_by_source().items()}
    {'D': 0.151, 'E': 0.022, 'F': 0.574, 'G': 0.253, 'H': 1.922}
    """
    errors: dict[str, list[float]] = {}
    for row, _rate, error in held_out_ubatch_comparison(rows):
        if row.batch > 1:
            errors.setdefault(row.source, []).append(abs(error))
    return {source: statistics.median(values) for source, values in errors.items()}


NOTES: Mapping[str, str] = MappingProxyType({
    "prompt_tokens": "the prompt is longer than any measured ({prompt_tokens:,} tokens): the prefill estimate "
                     "extends the fit",
    "context_tokens": "the context is longer than any measured ({context_tokens:,} tokens): the KV-cache reads "
                      "extend the fit",
    "min_weight_bytes": "the model is smaller than any measured ({min_weight_bytes:,} bytes of weights): per-token "
                        "work the roofline does not see may set the speed",
    "decode_ceiling": "decode is at the fitted ceiling of {decode_ceiling:,.1f} tokens/s a sequence: per-token kernel "
                      "launches and CPU work, not the bandwidth, set it",
    "prefill_ceiling": "prefill is at the fitted ceiling of {prefill_ceiling:,.0f} TFLOPS llama.cpp reached: the "
                       "tensor peak of the card is not what limits it",
    "experts": "no measured run had a mixture of experts: a step is taken to read the experts one token uses",
    "unpack": "quantized weights are unpacked to FP16 for the prompt, as the measured builds (2023-2024) did; "
              "llama.cpp since June 2024 multiplies them with its own int8 kernels, which no measured prompt run used",
    "derived": "the figures of this card are derived from its specification, not printed: on {derived_runs} runs "
               "on an RTX 4070 Ti and an RTX 4080 that no fit saw, the estimate was {derived_low} to {derived_high} "
               "low",
})
"""The English sentence of each note of :attr:`SpeedEstimate.notes` (the widget has its own, translated)."""

_ENGINE_NAMES = MappingProxyType({"llama.cpp-cuda": "llama.cpp CUDA", "llama.cpp-metal": "llama.cpp Metal"})


@functools.cache
def derived_error_range() -> tuple[int, float, float]:
    """How many runs :func:`independent_check` has, and the least and the most its estimates were low by (shares).

    Examples
    --------
    >>> runs, low, high = derived_error_range()
    >>> runs, f"{low:.0%}", f"{high:.0%}"
    (10, '8%', '33%')
    """
    errors = [error for _row, _estimate, error in independent_check()]
    if max(errors) >= 0:
        raise AssertionError(f"a derived-card run is no longer underestimated: {max(errors):+.1%}")
    return len(errors), -max(errors), -min(errors)


def note_text(note: str, engine: str) -> str:
    """The English sentence of a note of :attr:`SpeedEstimate.notes` for ``engine``, its figures filled in.

    Examples
    --------
    >>> note_text("decode_ceiling", "llama.cpp-cuda")
    'decode is at the fitted ceiling of 136.0 tokens/s a sequence: per-token kernel launches and CPU work, not the \
bandwidth, set it'
    """
    runs, low, high = derived_error_range()
    values = {**MEASURED_RANGE, "decode_ceiling": CONSTANTS.decode_ceiling[engine],
              "prefill_ceiling": CONSTANTS.prefill_ceiling.get(engine, 0.0) / 1e12, "derived_runs": runs,
              "derived_low": f"{low:.0%}".replace("%", " %"), "derived_high": f"{high:.0%}".replace("%", " %")}
    return NOTES[note].format(**values)


def add_cli_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``llmcalc speed`` command's arguments."""
    hardware = ", ".join(sorted(DATASHEETS) + sorted(MEASURED_HARDWARE))
    parser.add_argument("model", metavar="MODEL", help="a preset name or the path of a config.json")
    parser.add_argument("--engine", choices=("llama.cpp", "vllm"), default="llama.cpp",
                        help="llama.cpp (one sequence, GGUF weights) or vllm (a batch on one GPU, 16-bit weights)")
    parser.add_argument("--format", dest="weight_format", choices=FORMATS, default=None,
                        help="weights: F16 or a llama-quantize recipe (llama.cpp; default Q4_K_M); vllm takes F16 "
                        "only, its BF16/FP16 weights")
    parser.add_argument("--hardware", required=True, metavar="KEY",
                        help=f"the card or chip, with its bandwidth and FP16 tensor rate, printed in its datasheet "
                             f"or derived ({hardware})")
    parser.add_argument("--prompt-tokens", type=int, default=512, metavar="N", help="tokens of the prompt")
    parser.add_argument("--generated-tokens", type=int, default=128, metavar="N",
                        help="tokens generated after it; the decode rate is their mean")
    parser.add_argument("--batch", type=int, default=1, metavar="N",
                        help="sequences decoded together (llama.cpp: only 1 was measured, more is refused; vllm: "
                        "1 to 64 were measured)")
    parser.add_argument("--price-per-gpu-hour", type=float, default=None, metavar="P",
                        help="what one GPU costs an hour, in any currency (none is shipped: prices date); gives the "
                        "cost per million output tokens")


def cli_model(model: str) -> ModelConfig:
    """The model ``llmcalc speed`` names: a preset or the path of a config.json."""
    from pathlib import Path

    from .presets import PRESETS

    if model in PRESETS:
        return get_preset(model)
    if Path(model).is_file():
        return ModelConfig.from_hf_config(model)
    raise ValueError(f"MODEL must be a preset ({', '.join(PRESETS)}) or a config.json; got {model!r}")


def run_cli(args: argparse.Namespace) -> tuple[dict[str, object], str]:
    """``llmcalc speed``: the estimate, its basis and held-out error, and the cost at the reader's price."""
    cfg = cli_model(args.model)
    if args.engine == "vllm":
        from .vllmspeed import run_vllm_cli
        return run_vllm_cli(cfg, args)
    args.weight_format = args.weight_format or "Q4_K_M"
    estimate = estimate_speed(cfg, args.weight_format, args.hardware, prompt_tokens=args.prompt_tokens,
                              generated_tokens=args.generated_tokens, batch=args.batch)
    cost = None
    if args.price_per_gpu_hour is not None:
        cost = cost_per_million_tokens(args.price_per_gpu_hour, estimate.decode_tokens_per_second)
    result: dict[str, object] = {
        "model": args.model, "format": estimate.weight_format, "hardware": estimate.hardware,
        "engine": estimate.engine, "estimate": True, "prompt_tokens": estimate.prompt_tokens,
        "generated_tokens": estimate.generated_tokens, "batch": args.batch,
        "decode_tokens_per_second": estimate.decode_tokens_per_second,
        "aggregate_tokens_per_second": estimate.decode_tokens_per_second * args.batch,
        "time_to_first_token_seconds": estimate.prefill_seconds,
        "cost_per_million_output_tokens": cost, "price_per_gpu_hour": args.price_per_gpu_hour,
        "weight_bytes": estimate.weight_bytes, "kv_bytes_per_token": estimate.kv_bytes_per_token,
        "bandwidth": estimate.bandwidth, "decode_efficiency": estimate.decode_efficiency,
        "prefill_flops": estimate.prefill_flops, "peak_flops": estimate.peak_flops,
        "prefill_efficiency": estimate.prefill_efficiency,
        "held_out_median_error": {"decode": median_error("decode"), "prefill": median_error("prefill")},
        "derived": derived_figures(estimate),
        "notes": list(estimate.notes),
    }
    return result, speed_text(args.model, estimate, cost, args.price_per_gpu_hour)


def derived_figures(estimate: SpeedEstimate) -> dict[str, str]:
    """The card's figures the estimate stands on that are derived, not printed (:func:`llmcalc.datasheets.derivations`):
    its bandwidth, and the FP16-accumulate tensor peak when a prefill is estimated.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> derived_figures(estimate_speed(get_preset("llama-3-8b"), "Q4_K_M", "rtx-4070", prompt_tokens=512))["bandwidth"]
    '504 GB/s, derived: 192-bit memory interface x 21 Gbps per pin / 8'
    >>> derived_figures(estimate_speed(get_preset("llama-3-8b"), "Q4_K_M", "rtx-4090", prompt_tokens=512))
    {}
    """
    names = ("bandwidth",) if estimate.peak_flops is None else ("bandwidth", "fp16_accumulate")
    return derivations(estimate.hardware, names) if estimate.hardware in DATASHEETS else {}


_DERIVED_NAMES = {"bandwidth": "bandwidth", "fp16_accumulate": "FP16 tensor peak"}


def speed_text(label: str, estimate: SpeedEstimate, cost: float | None, price: float | None) -> str:
    """The lines ``llmcalc speed`` prints (the widget prints the same, in the page's language).

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> estimate = estimate_speed(get_preset("llama-3-8b"), "Q4_K_M", "rtx-4090", prompt_tokens=512)
    >>> print(speed_text("llama-3-8b", estimate, cost_per_million_tokens(1.0, estimate.decode_tokens_per_second), 1.0))
    llama-3-8b as Q4_K_M on rtx-4090 (llama.cpp CUDA): an estimate, not a measurement
    prompt 512 tokens, 128 generated, one sequence
    decode: 111.3 tokens/s
    time to first token: 75 ms (6,803.5 prompt tokens/s)
    cost per million output tokens: 2.50 at 1.00 per GPU-hour
    basis: 4,617,396,224 bytes of weights and 131,072 bytes of KV cache a token, at 0.518 of 1,008 GB/s; \
7.75 TFLOPs of prefill at 0.474 of 330.3 TFLOPS, at most 139 TFLOPS, plus 19.6 GB read and written to unpack the \
weights to FP16
    held-out median error: decode 11.3 %, prefill 6.7 %
    note: prefill is at the fitted ceiling of 139 TFLOPS llama.cpp reached: the tensor peak of the card is not what \
limits it
    note: quantized weights are unpacked to FP16 for the prompt, as the measured builds (2023-2024) did; llama.cpp \
since June 2024 multiplies them with its own int8 kernels, which no measured prompt run used
    """
    engine = estimate.engine
    lines = [
        f"{label} as {estimate.weight_format} on {estimate.hardware} ({_ENGINE_NAMES[engine]}): an estimate, "
        "not a measurement",
        f"prompt {estimate.prompt_tokens:,} tokens, {estimate.generated_tokens:,} generated, one sequence",
        f"decode: {estimate.decode_tokens_per_second:,.1f} tokens/s",
    ]
    if estimate.prefill_seconds is None or estimate.prefill_tokens_per_second is None:
        lines.append(f"time to first token: not estimated ({estimate.hardware} has no published FP16 tensor rate "
                     "with FP16 accumulation)")
    else:
        lines.append(f"time to first token: {estimate.prefill_seconds * 1000:,.0f} ms "
                     f"({estimate.prefill_tokens_per_second:,.1f} prompt tokens/s)")
    if cost is not None and price is not None:
        lines.append(f"cost per million output tokens: {cost:,.2f} at {price:,.2f} per GPU-hour")
    basis = (f"basis: {estimate.weight_bytes:,} bytes of weights and {estimate.kv_bytes_per_token:,} bytes of KV "
             f"cache a token, at {estimate.decode_efficiency:.3f} of {estimate.bandwidth / 1e9:,.0f} GB/s")
    if estimate.peak_flops is not None and estimate.prefill_efficiency is not None:
        basis += (f"; {estimate.prefill_flops / 1e12:,.2f} TFLOPs of prefill at {estimate.prefill_efficiency:.3f} of "
                  f"{estimate.peak_flops / 1e12:,.1f} TFLOPS, at most {CONSTANTS.prefill_ceiling[engine] / 1e12:,.0f}"
                  " TFLOPS")
        if estimate.unpack_bytes:
            basis += f", plus {estimate.unpack_bytes / 1e9:,.1f} GB read and written to unpack the weights to FP16"
    lines.append(basis)
    lines.extend(f"{_DERIVED_NAMES[name]}: {text}" for name, text in derived_figures(estimate).items())
    lines.append(f"held-out median error: decode {median_error('decode'):.1%}, prefill "
                 f"{median_error('prefill'):.1%}".replace("%", " %"))
    lines.extend(f"note: {note_text(note, engine)}" for note in estimate.notes)
    return "\n".join(lines)
