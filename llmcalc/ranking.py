"""Every listed card at once: one plan per card of :data:`~llmcalc.planner.CARDS` and GPU count, ranked.

A buyer asks which card to rent, not whether one card fits.  :func:`rank_cards`
plans the same model, task and settings on every listed card, on 1, 2, 4 and 8
of it where the planner has a plan for several GPUs, and ranks the rows: the
plans that fit first, then the fewest GPUs, then the least memory in all (no
prices are shipped: they change by the week and by the seller, so "cheapest"
here means the smallest set-up that fits).  Each row is what the single-card
plan says (the CLI's ``plan --gpu CARD``): the verdict, the bytes to spare (or
missing), the longest context and the most sequences that fit, and, for a plan
that does not fit, the smallest single change that makes it fit (for vLLM :func:`vllm_changes_that_fit`, for
llama.cpp :func:`gguf_changes_that_fit`).

Which plan several GPUs have: inference without an engine (``"sum"``) and
with vLLM split the model by tensor parallelism (vLLM's
``tensor_parallel_size``, only the sizes vLLM accepts for the model, see
:func:`~llmcalc.planner.tensor_parallel_sizes`); training shards its state by
the ZeRO stage given (stage 0 keeps a whole copy on every GPU, so only one GPU
is planned); transformers' ``generate`` runs on one GPU, and so does llama.cpp
(:func:`rank_gguf`: the planner puts every layer on one GPU).
"""

from __future__ import annotations

import argparse
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from . import _validate as check
from ._search import largest_holding, least_card_above
from .config import ModelConfig, as_model_config, checks_model
from .datasheets import datasheet
from .engines import (
    VLLM_MAX_NUM_BATCHED_TOKENS,
    VLLM_VERSIONS,
    VllmPlan,
    check_vllm_card,
    plan_generate,
    plan_vllm,
    vllm_release_settings,
)
from .errors import Refusal, refusal
from .gguf import RECIPES, GgufModel, GgufPlan, largest_context, model_from_config, most_gpu_layers, plan_gguf
from .planner import (
    CARDS,
    MAX_BATCH,
    PROCESS_ESTIMATE_MIB,
    TASKS,
    FitChange,
    GpuCard,
    MemoryPlan,
    checked_model,
    context_search_limit,
    inference_changes_that_fit,
    largest_fitting,
    plan_inference,
    plan_training,
    tensor_parallel_sizes,
    training_changes_that_fit,
)
from .speed import SpeedEstimate, cost_per_million_tokens, decode_weight_bytes, estimate_speed, median_error, note_text
from .trainers import setup_settings
from .units import GiB
from .vllmspeed import (
    VLLM_CONSTANTS,
    VLLM_NOTES,
    VllmSpeedEstimate,
    estimate_vllm_speed,
    held_out_vllm_comparison,
    independent_check,
    vllm_median_error,
)
from .weightformats import lighter_weight_formats

__all__ = [
    "ENGINES", "GPU_COUNTS", "SORTS", "UTILIZATION_STEP", "EngineChange", "RankedPlan", "RowSpeed",
    "card_prices", "gguf_changes_that_fit", "gguf_ranking", "gpu_counts", "plan_all_cards", "rank_cards", "rank_gguf",
    "ranking_table", "sorted_by_cost", "vllm_changes_that_fit",
]

GPU_COUNTS = (1, 2, 4, 8)
"""The numbers of one card a ranking plans, where the task has a plan for several GPUs."""

ENGINES = ("sum", "generate", "vllm")
"""The inference engines a ranking plans, as the CLI's ``--engine`` names them; ``"sum"`` is the widget's engine
that adds weights, KV cache and reserve."""

SORTS = ("fit", "cost")
"""How a ranking orders its rows.  ``"fit"``, plans that fit first, then the fewest GPUs, then the least memory;
``"cost"``, the cost per million output tokens at the reader's prices, lowest first, then the rows without a
cost in the ``"fit"`` order."""

# What the ranking itself chooses: a setting that names a GPU count would contradict the rows.
_CHOSEN_BY_RANKING = ("tensor_parallel", "pipeline_parallel", "n_gpus", "gpu_bytes")


@dataclass(frozen=True)
class EngineChange:
    """One setting changed from a vLLM or llama.cpp plan that does not fit, and what the changed plan holds.

    ``setting`` is the CLI's option without its dashes (``"gpu"``: a listed card's key), ``value`` its new
    value, ``gpu_bytes`` the card's total the changed plan is checked against.  vLLM: ``kv_tokens`` is the
    changed plan's pool.  llama.cpp: ``total`` the changed plan's GPU bytes, ``host_bytes`` the host memory it
    needs (:attr:`~llmcalc.gguf.GgufPlan.host_total`: the token embedding, the layers left on the CPU with
    their KV cache, the host buffers).
    """

    setting: str
    value: str | int | float
    gpu_bytes: int
    kv_tokens: int | None = None
    total: int | None = None
    host_bytes: int | None = None


@dataclass(frozen=True)
class RowSpeed:
    """How fast a ranking row's plan runs, as the single-card estimate says, and its cost; or why there is none.

    The figures are those of ``llmcalc.vllmspeed.estimate_vllm_speed`` for the row's card (vLLM: the requests
    together) or ``llmcalc.speed.estimate_speed`` (llama.cpp: one sequence, whose rate is both).  Where there is
    no estimate they are None and ``refusal`` says why: the estimate's own refusal (a card without a datasheet,
    AMD, a mixture of experts) or the row's (a plan that does not fit, several GPUs, a format not measured).
    ``time_to_first_token`` is the prefill of every request's prompt in seconds, None where the card publishes
    no tensor rate it is estimated with.  ``notes`` are the estimate's note codes and ``note_texts`` their
    English sentences; ``basis`` what it stands on (bytes, the datasheet's figures and their sources, the fitted
    constants).  ``price`` is the reader's price of one GPU-hour of the card, ``gpus`` the cards the row rents.
    """

    aggregate_tokens_per_second: float | None
    sequence_tokens_per_second: float | None
    time_to_first_token: float | None
    refusal: Refusal | None
    price: float | None
    gpus: int
    notes: tuple[str, ...]
    note_texts: tuple[str, ...]
    basis: Mapping[str, Any]

    @property
    def cost(self) -> float | None:
        """The cost of a million output tokens at the reader's price, or None without a price or a rate.

        As ``llmcalc.speed.cost_per_million_tokens``: the price times the GPUs, over the output tokens an hour,
        times a million.
        """
        rate = self.aggregate_tokens_per_second
        if self.price is None or rate is None:
            return None
        return cost_per_million_tokens(self.price, rate, gpus=self.gpus)

    def as_dict(self) -> dict[str, Any]:
        """The speed as the CLI's ``--json`` prints it: the figures and their basis, or the refusal's code."""
        price = {"price_per_gpu_hour": self.price, "cost_per_million_output_tokens": self.cost}
        if self.refusal is not None:
            return {"estimate": False, "refusal": self.refusal.code, "params": self.refusal.params,
                    "reason": str(self.refusal), **price}
        return {"estimate": True, "aggregate_tokens_per_second": self.aggregate_tokens_per_second,
                "sequence_tokens_per_second": self.sequence_tokens_per_second,
                "time_to_first_token_seconds": self.time_to_first_token, **price, "basis": dict(self.basis),
                "notes": list(self.notes)}


def _refused(error: Refusal, price: float | None, gpus: int) -> RowSpeed:
    return RowSpeed(None, None, None, error, price, gpus, (), (), MappingProxyType({}))


def _estimated(estimate: VllmSpeedEstimate | SpeedEstimate, price: float | None, gpus: int) -> RowSpeed:
    """A row's speed from the single-card estimate, with its basis and its notes in English."""
    sheet = datasheet(estimate.hardware)
    # vLLM's step runs at the FP32-accumulate rate, llama.cpp's prefill at the FP16-accumulate one where printed.
    rate = sheet.fp16 if isinstance(estimate, VllmSpeedEstimate) else sheet.fp16_accumulate or sheet.fp16
    basis: dict[str, Any] = {
        "hardware": estimate.hardware, "weight_bytes": estimate.weight_bytes,
        "kv_bytes_per_token": estimate.kv_bytes_per_token, "bandwidth": estimate.bandwidth,
        "bandwidth_source": sheet.bandwidth.source, "peak_flops": estimate.peak_flops,
        "peak_flops_source": None if estimate.peak_flops is None or rate is None else rate.source}
    if isinstance(estimate, VllmSpeedEstimate):
        basis.update(kv_pool_tokens=estimate.kv_pool_tokens,
                     constants={"bandwidth_share": VLLM_CONSTANTS.bandwidth_share,
                                "compute_share": VLLM_CONSTANTS.compute_share,
                                "step_seconds": VLLM_CONSTANTS.step_seconds})
        return RowSpeed(estimate.aggregate_tokens_per_second, estimate.sequence_tokens_per_second,
                        estimate.prefill_seconds, None, price, gpus, estimate.notes,
                        tuple(VLLM_NOTES[note] for note in estimate.notes), MappingProxyType(basis))
    basis.update(decode_efficiency=estimate.decode_efficiency, prefill_efficiency=estimate.prefill_efficiency)
    texts = [note_text(note, estimate.engine) for note in estimate.notes]
    if estimate.prefill_seconds is None:
        texts.append("first token not estimated: the card publishes no FP16 tensor rate with FP16 accumulation")
    return RowSpeed(estimate.decode_tokens_per_second, estimate.decode_tokens_per_second, estimate.prefill_seconds,
                    None, price, gpus, estimate.notes, tuple(texts), MappingProxyType(basis))


@dataclass(frozen=True)
class RankedPlan:
    """One card and GPU count of a ranking: what the plan of one GPU of ``gpus`` says against the card's total.

    ``gpu_bytes`` is the total a process sees on one card (:attr:`~llmcalc.planner.GpuCard.total_bytes`),
    ``estimated`` whether it is an estimate (no published log prints it).  ``headroom`` is ``gpu_bytes`` less
    the plan's total, negative when it does not fit; for vLLM, the bytes of KV-cache pool beyond the
    ``concurrency`` requests of the context asked for.  ``largest_context`` is the longest context (training:
    sequence) that fits with the other settings as given, ``largest_batch`` the most sequences at the given
    context (inference; vLLM: requests its pool holds at once) or the largest micro-batch (training); 0 when
    not even one fits; None for llama.cpp, whose plan holds the sequences ``-np`` gives (the most is not searched).
    ``change`` is the smallest single change that makes a plan that does not fit fit
    (:func:`~llmcalc.planner.inference_changes_that_fit`, :func:`~llmcalc.planner.training_changes_that_fit`,
    :func:`vllm_changes_that_fit`, :func:`gguf_changes_that_fit`), None when it fits or when no single change
    does.  ``speed`` is the row's estimated speed and cost (:class:`RowSpeed`) where a ranking was asked for
    them, else None.
    """

    card: GpuCard
    gpus: int
    fits: bool
    headroom: int
    largest_context: int
    largest_batch: int | None
    change: FitChange | EngineChange | None
    kv_tokens: int | None = None
    speed: RowSpeed | None = None

    @property
    def gpu_bytes(self) -> int:
        """The total one card gives a process, as the plan is checked against."""
        return self.card.total_bytes

    @property
    def estimated(self) -> bool:
        """Whether the card's total is an estimate (:attr:`~llmcalc.planner.GpuCard.estimated`)."""
        return self.card.estimated

    @property
    def memory(self) -> int:
        """The memory of all ``gpus`` cards together, what the ranking compares after the GPU count."""
        return self.gpus * self.gpu_bytes

    def as_dict(self) -> dict[str, Any]:
        """The row as the CLI's ``--json`` prints it: exact ints, the change as the CLI's flag."""
        change: dict[str, Any] | None = None
        if isinstance(self.change, FitChange):
            change = {"change": _change_flag(self.change), "setting": self.change.setting, "value": self.change.value,
                      "total": self.change.plan.total, "gpu_bytes": self.change.gpu_bytes}
        elif self.change is not None:
            change = {"change": _change_flag(self.change), "setting": self.change.setting, "value": self.change.value,
                      "gpu_bytes": self.change.gpu_bytes}
            change.update({name: getattr(self.change, name) for name in ("kv_tokens", "total", "host_bytes")
                           if getattr(self.change, name) is not None})
        return {"card": self.card.key, "name": self.card.name, "gpus": self.gpus, "gpu_bytes": self.gpu_bytes,
                "total_source": "estimate" if self.estimated else "process", "estimated": self.estimated,
                "fits": self.fits, "headroom": self.headroom, "largest_context": self.largest_context,
                "largest_batch": self.largest_batch, "kv_tokens": self.kv_tokens, "change": change,
                "speed": None if self.speed is None else self.speed.as_dict()}


@checks_model
def gpu_counts(cfg: ModelConfig, task: str = "inference", engine: str = "sum", zero_stage: int = 0) -> list[int]:
    """The GPU counts of :data:`GPU_COUNTS` a ranking plans for ``task`` and ``engine``.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> gpu_counts(get_preset("llama-3.1-8b")), gpu_counts(get_preset("mixtral-8x7b"))
    ([1, 2, 4, 8], [1])
    >>> gpu_counts(get_preset("llama-3.1-8b"), "full"), gpu_counts(get_preset("llama-3.1-8b"), "full", zero_stage=3)
    ([1], [1, 2, 4, 8])
    >>> gpu_counts(get_preset("qwen2.5-7b"), engine="vllm"), gpu_counts(get_preset("llama-3.1-8b"), engine="generate")
    ([1, 2, 4], [1])
    """
    kind = check.choice("task", task, TASKS)
    machine = check.choice("engine", engine, ENGINES)
    if kind != "inference":
        stage = check.count("zero_stage", zero_stage, minimum=0, maximum=3)
        return list(GPU_COUNTS) if stage else [1]
    if machine == "generate":
        return [1]
    try:
        sizes = tensor_parallel_sizes.unchecked(cfg)
    except Refusal:  # a mixture of experts or latent attention: the planner does not split it
        return [1]
    return [n for n in GPU_COUNTS if n in sizes]


def _inference_row(cfg: ModelConfig, card: GpuCard, gpus: int, engine: str, settings: Mapping[str, Any],
                   beyond_trained: bool) -> RankedPlan:
    budget = card.total_bytes
    if engine == "generate":
        given = {"batch": 1, "weight_format": "bf16", "attention": "sdpa", **settings}
        build: Callable[..., MemoryPlan] = plan_generate.unchecked
    else:
        given = {"batch": 1, "weight_format": "bf16", "kv_format": "bf16", **settings, "tensor_parallel": gpus,
                 "pipeline_parallel": 1}
        build = plan_inference.unchecked

    def planned(**changed: Any) -> MemoryPlan:
        return build(cfg, **{**given, **changed})

    plan = planned()
    fits = plan.fits(budget)
    longest = largest_fitting(lambda n: planned(context=n), budget, limit=context_search_limit.unchecked(
        cfg, beyond_trained=beyond_trained))
    most = largest_fitting(lambda n: planned(batch=n), budget, limit=MAX_BATCH)
    changes = [] if fits else inference_changes_that_fit.unchecked(cfg, budget, build, **given)
    return RankedPlan(card, gpus, fits, budget - plan.total, longest, most, changes[0] if changes else None)


def _vllm_row(cfg: ModelConfig, card: GpuCard, gpus: int, settings: Mapping[str, Any], concurrency: int,
              beyond_trained: bool) -> RankedPlan:
    options = dict(settings)
    context = options.pop("context")
    # vLLM 0.34's extensible KV cache keeps a larger margin on AMD's cards (ROCm).
    options["rocm"] = bool(options.get("extensible_kv_cache")) and card.tool == "rocminfo"
    plan = plan_vllm.unchecked(cfg, card.total_bytes, max_model_len=context, tensor_parallel=gpus, **options)
    token_bytes = plan.block_bytes // plan.block_size
    wanted = concurrency * context
    longest = min(plan.kv_tokens, context_search_limit.unchecked(cfg, beyond_trained=beyond_trained))
    fits = plan.most_requests() >= concurrency
    changes = [] if fits else vllm_changes_that_fit.unchecked(cfg, card.total_bytes, concurrency=concurrency,
                                                              context=context, tensor_parallel=gpus, **options)
    return RankedPlan(card, gpus, fits, (plan.kv_tokens - wanted) * token_bytes, longest,
                      plan.most_requests(), changes[0] if changes else None, plan.kv_tokens)


def _largest_true(holds: Callable[[int], bool], low: int, high: int) -> int | None:
    """The largest ``n`` in ``[low, high]`` for which ``holds(n)`` (:func:`~llmcalc._search.largest_holding`);
    None when it does not hold at ``low``."""
    if high < low or not holds(low):
        return None
    return largest_holding(holds, high, low=low)


UTILIZATION_STEP = 100
"""A higher ``gpu_memory_utilization`` is searched in hundredths (the widget's field is a percentage)."""


@checks_model  # type: ignore[arg-type]  # mypy fears a 'cfg' among **settings; cfg is always the first argument
def vllm_changes_that_fit(cfg: ModelConfig, gpu_bytes: int, *, context: int, concurrency: int = 1,
                          tensor_parallel: int = 1, **settings: Any) -> list[EngineChange]:
    """Each single change of a vLLM set-up that makes its pool hold ``concurrency`` requests of ``context``
    tokens on a card of ``gpu_bytes``, smallest first; each searched with :func:`~llmcalc.engines.plan_vllm`.

    ``settings`` are :func:`~llmcalc.engines.plan_vllm`'s other keywords (``context`` is its ``max_model_len``).
    "Smallest" is an order of kinds, from what changes the reader's set-up least to what changes the hardware,
    and within a kind the value nearest the one given; each kind is kept when its plan then fits:

    1. fewer requests at once: the most, below ``concurrency``, that the pool holds;
    2. a shorter ``max_model_len``: the longest, below ``context``, of which the pool holds ``concurrency``;
    3. an fp8 KV cache (vLLM's ``--kv-cache-dtype fp8``), unless it is fp8 already;
    4. a higher ``gpu_memory_utilization``: the lowest, in hundredths above the one given and within vLLM's
       accepted range (up to 1), that fits;
    5. a weight format later in :data:`~llmcalc.formats.WEIGHT_FORMATS` (least lossy first): the first that fits;
    6. more GPUs: the smallest larger ``tensor_parallel_size`` vLLM accepts for the model
       (:func:`~llmcalc.planner.tensor_parallel_sizes`) that fits;
    7. a larger card: the listed card with the least memory above ``gpu_bytes`` on which it fits.

    Empty when the plan already fits or no single change makes it fit.

    Examples
    --------
    Llama-3.1-8B, 5 requests of 8,192 tokens on one RTX 4090, vLLM before 0.20 (0.9 of the card): its pool holds
    38,848 tokens, 4 such requests.  Each kind makes it fit; the first, 4 requests, is the smallest:

    >>> from llmcalc import get_preset
    >>> rtx4090 = next(card.total_bytes for card in CARDS if card.key == "rtx-4090")
    >>> for c in vllm_changes_that_fit(get_preset("llama-3.1-8b"), rtx4090, context=8192, concurrency=5):
    ...     print(c.setting, c.value, c.kv_tokens)
    concurrency 4 38848
    context 7769 38848
    kv_format fp8 77712
    gpu_memory_utilization 0.92 42720
    weight_format fp8 92096
    tensor_parallel 2 200240
    gpu rtx-5090 95840
    """
    budget = check.count("gpu_bytes", gpu_bytes)
    wanted = check.count("concurrency", concurrency, maximum=MAX_BATCH)
    given = {"max_model_len": context, "tensor_parallel": tensor_parallel, **settings}

    def planned(total: int = budget, **changed: Any) -> VllmPlan:
        return plan_vllm.unchecked(cfg, total, **{**given, **changed})

    def holds(plan: VllmPlan, requests: int = wanted, length: int = context) -> bool:
        return plan.most_requests(length) >= requests

    current = planned()
    if holds(current):
        return []
    found: list[EngineChange] = []

    def keep(setting: str, value: str | int | float, plan: VllmPlan, total: int = budget) -> bool:
        """Keep the change if its plan holds the requests asked for; say whether it did."""
        fits = holds(plan)
        if fits:
            found.append(EngineChange(setting, value, total, kv_tokens=plan.kv_tokens))
        return fits

    fewer = _largest_true(lambda n: holds(current, requests=n), 1, wanted - 1)
    if fewer is not None:
        found.append(EngineChange("concurrency", fewer, budget, kv_tokens=current.kv_tokens))
    shorter = _largest_true(lambda n: holds(planned(max_model_len=n), length=n), 1, context - 1)
    if shorter is not None:
        shorter_plan = planned(max_model_len=shorter)
        found.append(EngineChange("context", shorter, budget, kv_tokens=shorter_plan.kv_tokens))
    if given.get("kv_format", "bf16") != "fp8":
        keep("kv_format", "fp8", planned(kv_format="fp8"))
    # The lowest hundredth that fits; every one up to the utilization given does not.
    start = int(float(given.get("gpu_memory_utilization", VLLM_VERSIONS["before-0.20"])) * UTILIZATION_STEP)
    missing = _largest_true(lambda k: not holds(planned(gpu_memory_utilization=k / UTILIZATION_STEP)),
                            max(start, 1), UTILIZATION_STEP)
    if missing is not None and missing < UTILIZATION_STEP:
        value = (missing + 1) / UTILIZATION_STEP
        keep("gpu_memory_utilization", value, planned(gpu_memory_utilization=value))
    for lighter in lighter_weight_formats.unchecked(cfg, given.get("weight_format", "bf16")):
        if keep("weight_format", lighter, planned(weight_format=lighter)):
            break
    try:
        sizes = tensor_parallel_sizes.unchecked(cfg)
    except Refusal:  # a model the planner does not split
        sizes = []
    for size in (size for size in sizes if size > tensor_parallel):
        if keep("tensor_parallel", size, planned(tensor_parallel=size)):
            break
    card = least_card_above(CARDS, budget, lambda total: holds(planned(total)))
    if card is not None:
        keep("gpu", card.key, planned(card.total_bytes), card.total_bytes)
    return found


def _training_row(cfg: ModelConfig, card: GpuCard, gpus: int, settings: Mapping[str, Any]) -> RankedPlan:
    budget = card.total_bytes
    given = {**settings, "n_gpus": gpus}

    def planned(**changed: Any) -> MemoryPlan:
        return plan_training.unchecked(cfg, **{**given, **changed})

    plan = planned()
    fits = plan.fits(budget)
    longest = largest_fitting(lambda n: planned(seq_len=n), budget, limit=context_search_limit.unchecked(cfg))
    most = largest_fitting(lambda n: planned(micro_batch=n), budget, limit=MAX_BATCH)
    changes = [] if fits else training_changes_that_fit.unchecked(cfg, budget, **given)
    return RankedPlan(card, gpus, fits, budget - plan.total, longest, most, changes[0] if changes else None)


def rank_cards(
    cfg: ModelConfig,
    *,
    task: str = "inference",
    engine: str = "sum",
    concurrency: int = 1,
    beyond_trained: bool = False,
    prompt_tokens: int | None = None,
    generated_tokens: int | None = None,
    prices: Mapping[str, float] = MappingProxyType({}),
    sort: str = "fit",
    **settings: Any,
) -> list[RankedPlan]:
    """Plan ``cfg`` on every listed card at each of :func:`gpu_counts`, the plans that fit first, then the fewest
    GPUs, then the least memory in all (then the order of :data:`~llmcalc.planner.CARDS`).

    ``settings`` are the keywords of the plan the task uses: :func:`~llmcalc.planner.plan_inference` (engine
    ``"sum"``; ``context`` required), :func:`~llmcalc.engines.plan_generate` (``"generate"``) or
    :func:`~llmcalc.engines.plan_vllm` (``"vllm"``, with ``context`` for its ``max_model_len``) for inference,
    :func:`~llmcalc.planner.plan_training` for ``"full"``, ``"lora"`` and ``"qlora"`` (``seq_len`` required).
    The GPU count is the ranking's to choose, so ``tensor_parallel``, ``pipeline_parallel`` and ``n_gpus`` are
    refused.  With vLLM a plan fits when its pool holds ``concurrency`` requests of ``context`` tokens at once
    (1: vLLM starts).  ``beyond_trained`` lets the longest context go past the trained positions.

    With vLLM, ``prompt_tokens`` and ``generated_tokens`` (each request's split of its tokens, at most
    ``context`` together) give each row its estimated speed (:class:`RowSpeed`:
    ``llmcalc.vllmspeed.estimate_vllm_speed`` of ``concurrency`` requests on the row's card, with the row's
    KV pool), or the reason it has none; ``prices`` (a card's key to the reader's price of one GPU-hour, none
    shipped) its cost per million output tokens, and ``sort="cost"`` ranks by that cost (:func:`sorted_by_cost`).

    Examples
    --------
    Llama-3.1-8B in BF16 at 32,768 tokens for 16 sequences at once (16 GiB of KV cache besides 14.96 GiB of
    weights): one H100 NVL holds it with 13.04 GiB to spare; one A100 (80 GB) misses by 0.82 GiB and holds 15
    sequences, and two of them split the model by tensor parallelism:

    >>> from llmcalc import get_preset, GiB
    >>> rows = rank_cards(get_preset("llama-3.1-8b"), context=32768, batch=16)
    >>> [(r.card.key, r.gpus, round(r.headroom / GiB, 2)) for r in rows[:2]]
    [('h100-nvl', 1, 13.04), ('h200', 1, 59.58)]
    >>> [(r.gpus, r.fits, round(r.headroom / GiB, 2), r.largest_batch) for r in rows if r.card.key == "a100-80gb"]
    [(2, True, 38.66, 35), (4, True, 58.4, 74), (8, True, 68.27, 152), (1, False, -0.82, 15)]
    >>> rank_cards(get_preset("llama-3.1-8b"), context=4096, tensor_parallel=2)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: tensor_parallel is chosen by the ranking, which plans 1, 2, 4 and 8 GPUs; ...
    """
    cfg, _ = checked_model(cfg)
    kind = check.choice("task", task, TASKS)
    machine = check.choice("engine", engine, ENGINES)
    wanted = check.count("concurrency", concurrency, maximum=MAX_BATCH)
    beyond = check.flag("beyond_trained", beyond_trained)
    for name in _CHOSEN_BY_RANKING:
        if name in settings:
            raise refusal("chosen_by_ranking", name=name)
    if wanted != 1 and (kind != "inference" or machine != "vllm"):
        raise refusal("concurrency_needs_vllm", concurrency=wanted)
    needed = "seq_len" if kind != "inference" else "context"
    if needed not in settings:
        raise refusal("ranking_needs_tokens", name=needed)
    if kind == "inference" and machine == "vllm":
        check_vllm_card(cfg, "all")  # gpt-oss: planned on the Hopper cards only, one at a time
    split = _split(settings[needed], prompt_tokens, generated_tokens)
    priced = _checked_prices(prices)
    order = check.choice("sort", sort, SORTS)
    if split is not None and (kind != "inference" or machine != "vllm"):
        raise refusal("ranking_speed_unmodelled", task=kind, engine=machine)
    _check_priced(split, priced, order)
    rows: list[RankedPlan] = []
    for gpus in gpu_counts.unchecked(cfg, kind, machine, settings.get("zero_stage", 0)):
        for card in CARDS:
            if kind != "inference":
                rows.append(_training_row(cfg, card, gpus, {**settings, "task": kind}))
            elif machine == "vllm":
                rows.append(_vllm_row(cfg, card, gpus, settings, wanted, beyond))
            else:
                rows.append(_inference_row(cfg, card, gpus, machine, settings, beyond))
    if split is not None:
        rows = [replace(row, speed=_vllm_speed(cfg, row, settings, wanted, split, priced.get(row.card.key)))
                for row in rows]
    ranked = _ranked(rows)
    return sorted_by_cost(ranked) if order == "cost" else ranked


def _split(context: int, prompt_tokens: int | None, generated_tokens: int | None) -> tuple[int, int] | None:
    """The prompt and generated tokens of each request, checked against the ``context`` planned; None when
    neither is given (the ranking is of memory only)."""
    if prompt_tokens is None and generated_tokens is None:
        return None
    if prompt_tokens is None or generated_tokens is None:
        raise refusal("ranking_split_incomplete",
                      name="prompt_tokens" if generated_tokens is None else "generated_tokens")
    prompt = check.count("prompt_tokens", prompt_tokens, maximum=2**24)
    generated = check.count("generated_tokens", generated_tokens, minimum=2, maximum=2**24)
    if prompt + generated > context:
        raise refusal("ranking_split_past_context", prompt=prompt, generated=generated, total=prompt + generated,
                      context=context)
    return prompt, generated


def _checked_prices(prices: Mapping[str, float]) -> dict[str, float]:
    """The reader's prices, each a listed card's key and a price of one GPU-hour above 0."""
    keys = [card.key for card in CARDS]
    checked = {}
    for key, price in prices.items():
        if key not in keys:
            raise refusal("ranking_price_unknown_card", card=key, cards=keys)
        checked[key] = check.number(f"price of {key}", price, minimum=0.0, min_inclusive=False, maximum=1e6)
    return checked


def _check_priced(split: tuple[int, int] | None, prices: Mapping[str, float], sort: str) -> None:
    if prices and split is None:
        raise refusal("ranking_price_needs_speed")
    if sort == "cost" and not prices:
        raise refusal("ranking_sort_needs_price")


def card_prices(texts: Sequence[str]) -> dict[str, float]:
    """The prices the CLI's ``--price CARD=PRICE`` options give, by card key, each checked.

    Examples
    --------
    >>> card_prices(["h100-sxm=2.49", "l40s=0.86"])
    {'h100-sxm': 2.49, 'l40s': 0.86}
    >>> card_prices(["h100=2"])
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: no listed card has the key 'h100'; listed: rtx-3060, ...
    >>> card_prices(["l4=-1"])
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: price of l4 must be a finite number > 0 and <= 1e+06; got -1.0
    """
    prices: dict[str, float] = {}
    for text in texts:
        key, sign, value = text.partition("=")
        try:
            price = float(value) if sign else None
        except ValueError:
            price = None
        if price is None or not key:
            raise refusal("ranking_price_syntax", text=text)
        if key in prices:
            raise refusal("ranking_price_twice", card=key)
        prices[key] = price
    return _checked_prices(prices)


def _vllm_speed(cfg: ModelConfig, row: RankedPlan, settings: Mapping[str, Any], concurrency: int,
                split: tuple[int, int], price: float | None) -> RowSpeed:
    """The row's vLLM speed: ``estimate_vllm_speed`` of ``concurrency`` requests on its card with its pool, or
    the refusal that says why there is none."""
    prompt, generated = split
    weights, cache = settings.get("weight_format", "bf16"), settings.get("kv_format", "bf16")
    try:
        if row.gpus > 1:
            raise refusal("vllm_speed_tensor_parallel", gpus=row.gpus)
        if not row.fits:
            raise refusal("ranking_speed_does_not_fit")
        if weights != "bf16":
            raise refusal("vllm_speed_format_unmeasured", weight_format=weights)
        if cache not in ("bf16", "fp16"):
            raise refusal("vllm_speed_kv_format_unmeasured", kv_format=cache)
        estimate = estimate_vllm_speed.unchecked(
            cfg, row.card.key, batch=concurrency, prompt_tokens=prompt, generated_tokens=generated,
            max_model_len=settings["context"],
            max_num_batched_tokens=settings.get("max_num_batched_tokens", VLLM_MAX_NUM_BATCHED_TOKENS),
            kv_pool_tokens=row.kv_tokens)
    except Refusal as error:
        return _refused(error, price, row.gpus)
    return _estimated(estimate, price, row.gpus)


def sorted_by_cost(rows: list[RankedPlan]) -> list[RankedPlan]:
    """The rows with a cost first, the lowest cost first, then the others in their order (stable on ties)."""
    costs = [None if row.speed is None else row.speed.cost for row in rows]
    order = sorted(range(len(rows)), key=lambda index: (math.inf if costs[index] is None else costs[index], index))
    return [rows[index] for index in order]


def _ranked(rows: list[RankedPlan]) -> list[RankedPlan]:
    """Fits first, then the fewest GPUs, then the least memory in all, then the order of the card list."""
    order = {card.key: index for index, card in enumerate(CARDS)}
    return sorted(rows, key=lambda row: (not row.fits, row.gpus, row.memory, order[row.card.key]))


def rank_gguf(model: GgufModel, *, context: int, beyond_trained: bool = False, cfg: ModelConfig | None = None,
              recipe: str | None = None, imatrix: bool = False, prompt_tokens: int | None = None,
              generated_tokens: int | None = None, prices: Mapping[str, float] = MappingProxyType({}),
              sort: str = "fit", **options: Any) -> list[RankedPlan]:
    """llama.cpp's plan of ``model`` (:func:`~llmcalc.gguf.plan_gguf`, ``options`` its keywords) on one GPU of
    every listed card, ranked as :func:`rank_cards` ranks; the longest context as
    :func:`~llmcalc.gguf.largest_context` finds it, the smallest change as :func:`gguf_changes_that_fit` (a
    smaller recipe only for a model made from ``cfg`` with ``recipe``).  For such a model, ``prompt_tokens``
    and ``generated_tokens`` (at most ``context`` together) give each row llama.cpp's estimated speed
    (``llmcalc.speed.estimate_speed`` of one sequence on the row's card) or the reason it has none, and
    ``prices`` and ``sort`` its cost as :func:`rank_cards` does.

    Examples
    --------
    Llama-3.1-8B as Q4_K_M at 32,768 tokens (4 GiB of f16 KV cache) fits the 12 GB cards, the RTX 4070 on an
    estimated total:

    >>> from llmcalc import get_preset, GiB
    >>> from llmcalc.gguf import model_from_config
    >>> rows = rank_gguf(model_from_config(get_preset("llama-3.1-8b"), "Q4_K_M"), context=32768)
    >>> [(r.card.key, r.fits, round(r.headroom / GiB, 2), r.largest_context) for r in rows[:2]]
    [('rtx-4070', True, 0.24, 34048), ('rtx-4070-ti', True, 0.84, 37120)]
    """
    split = _split(context, prompt_tokens, generated_tokens)
    priced = _checked_prices(prices)
    order = check.choice("sort", sort, SORTS)
    _check_priced(split, priced, order)
    if split is not None and (cfg is None or recipe is None):
        raise refusal("ranking_gguf_speed_needs_preset")
    rows = []
    plan = plan_gguf(model, context=context, **options)
    for card in CARDS:
        budget = card.total_bytes
        fits = plan.total <= budget
        changes = [] if fits else gguf_changes_that_fit(model, budget, context=context, cfg=cfg, recipe=recipe,
                                                        imatrix=imatrix, **options)
        rows.append(RankedPlan(card, 1, fits, budget - plan.total,
                               largest_context(model, budget, beyond_trained=beyond_trained, **options), None,
                               changes[0] if changes else None))
    if split is not None and cfg is not None and recipe is not None:
        rows = [replace(row, speed=_gguf_speed(cfg, recipe, model, row, split, priced.get(row.card.key), options))
                for row in rows]
    ranked = _ranked(rows)
    return sorted_by_cost(ranked) if order == "cost" else ranked


def _gguf_speed(cfg: ModelConfig, recipe: str, model: GgufModel, row: RankedPlan, split: tuple[int, int],
                price: float | None, options: Mapping[str, Any]) -> RowSpeed:
    """The row's llama.cpp speed: ``estimate_speed`` of its sequences on its card, or the refusal that says why
    there is none."""
    prompt, generated = split
    try:
        if not row.fits:
            raise refusal("ranking_speed_does_not_fit")
        for name in ("cache_type_k", "cache_type_v"):
            if options.get(name, "f16") != "f16":
                raise refusal("speed_cache_type_unmeasured", cache_type=options[name])
        estimated = decode_weight_bytes.unchecked(cfg, recipe)
        if model.gpu_weight_bytes != estimated:
            raise refusal("speed_imatrix_weights", recipe=recipe, estimated=estimated, actual=model.gpu_weight_bytes)
        estimate = estimate_speed.unchecked(cfg, recipe, row.card.key, prompt_tokens=prompt,
                                            generated_tokens=generated, batch=options.get("parallel", 1))
    except Refusal as error:
        return _refused(error, price, row.gpus)
    return _estimated(estimate, price, row.gpus)


def gguf_changes_that_fit(model: GgufModel, gpu_bytes: int, *, context: int, cfg: ModelConfig | None = None,
                          recipe: str | None = None, imatrix: bool = False, **options: Any) -> list[EngineChange]:
    """Each single change of a llama.cpp run that makes :func:`~llmcalc.gguf.plan_gguf` fit ``gpu_bytes``,
    smallest first.

    ``options`` are :func:`~llmcalc.gguf.plan_gguf`'s other keywords.  "Smallest" is an order of kinds, from what
    keeps the model and its speed to what changes the hardware, and within a kind the value nearest the one
    given; each kind is kept when its plan then fits:

    1. a shorter context (``-c``): the longest below ``context`` that fits;
    2. a smaller recipe, for a model made from ``cfg`` with ``recipe``
       (:func:`~llmcalc.gguf.model_from_config`): of the :data:`~llmcalc.gguf.RECIPES` whose weights are
       smaller than ``recipe``'s, the largest that fits (the least quantized);
    3. partial offload (``-ngl``): the most layers on the GPU that fit
       (:func:`~llmcalc.gguf.most_gpu_layers`), at least one, with the host memory the plan then needs;
    4. a larger card: the listed card with the least memory above ``gpu_bytes`` on which it fits.

    Empty when the plan already fits or no single change makes it fit.

    Examples
    --------
    Llama-3.1-8B as Q8_0 at 32,768 tokens on an RTX 4070 (12 GB): 17,152 tokens fit, or Q4_1 (the largest
    smaller recipe that fits), or 25 of its 33 layers on the GPU with 3.5 GiB in host memory, or a T4 (GPU GiB,
    host GiB):

    >>> from llmcalc import get_preset, GiB
    >>> from llmcalc.gguf import model_from_config
    >>> cfg = get_preset("llama-3.1-8b")
    >>> rtx4070 = next(card.total_bytes for card in CARDS if card.key == "rtx-4070")
    >>> for c in gguf_changes_that_fit(model_from_config(cfg, "Q8_0"), rtx4070, context=32768, cfg=cfg,
    ...                                recipe="Q8_0"):
    ...     print(c.setting, c.value, round(c.total / GiB, 2), round(c.host_bytes / GiB, 2))
    context 17152 11.13 0.56
    recipe Q4_1 11.06 0.38
    n_gpu_layers 25 11.12 3.5
    gpu t4 14.02 0.59
    """
    budget = check.count("gpu_bytes", gpu_bytes)

    def planned(plan_model: GgufModel = model, **changed: Any) -> GgufPlan:
        return plan_gguf(plan_model, **{"context": context, **options, **changed})

    current = planned()
    if current.total <= budget:
        return []
    found: list[EngineChange] = []

    def keep(setting: str, value: str | int, plan: GgufPlan, total: int = budget) -> bool:
        """Keep the change if its plan fits ``total``; say whether it did."""
        fits = plan.total <= total
        if fits:
            found.append(EngineChange(setting, value, total, total=plan.total, host_bytes=plan.host_total))
        return fits

    shorter = _largest_true(lambda n: planned(context=n).total <= budget, 1, context - 1)
    if shorter is not None:
        keep("context", shorter, planned(context=shorter))
    if cfg is not None and recipe is not None:
        made = _recipe_models(cfg, imatrix)
        smaller = sorted((kind for kind in RECIPES if made[kind].weight_bytes < made[recipe].weight_bytes),
                         key=lambda kind: -made[kind].weight_bytes)
        for kind in smaller:
            if keep("recipe", kind, planned(made[kind])):
                break
    if model.layer_bytes:
        layers = most_gpu_layers(model, budget, context=context, **options)
        if layers:
            keep("n_gpu_layers", layers, planned(n_gpu_layers=layers))
    card = least_card_above(CARDS, budget, lambda total: current.total <= total)
    if card is not None:
        keep("gpu", card.key, current, card.total_bytes)
    return found


@functools.lru_cache(maxsize=8)
def _recipe_models(cfg: ModelConfig, imatrix: bool) -> Mapping[str, GgufModel]:
    """``cfg`` made with every recipe (:func:`~llmcalc.gguf.model_from_config`): built once for a ranking, whose
    every card that misses asks for the same smaller recipes."""
    cfg = as_model_config(cfg)
    return MappingProxyType({kind: model_from_config.unchecked(cfg, kind, imatrix=imatrix) for kind in RECIPES})


def _change_flag(change: FitChange | EngineChange | None) -> str:
    """The plan option that makes ``change``, as the CLI prints it (``--checkpointing``, ``--seq-len 1912``)."""
    if change is None:
        return ""
    flag = "--" + change.setting.replace("_", "-")
    return flag if change.value is True else f"{flag} {change.value}"


def _change_text(change: FitChange | EngineChange | None) -> str:
    """The change as the table prints it: its option, and for ``-ngl`` the host memory the plan then needs."""
    host = change.host_bytes if isinstance(change, EngineChange) and change.setting == "n_gpu_layers" else None
    return _change_flag(change) + ("" if host is None else f" (host {host / GiB:.2f} GiB)")


SPEED_HEADERS = ("tokens/s in all", "tokens/s each", "first token ms")
"""The headers of the table's speed columns, after the change.  Output tokens a second of all the requests and
of each, and the time to the first token; a ``cost per M out`` column follows where a price is given."""


def _speed_cells(speed: RowSpeed, reasons: dict[str, int], priced: bool) -> tuple[str, ...]:
    """The row's speed columns; a refusal as ``n/a [k]``, ``k`` its footnote (numbered in ``reasons``)."""
    cost = speed.cost
    if speed.refusal is not None:
        # A card without figures: one footnote for them all, not the list of the cards with figures for each.
        reason = ("its card has no datasheet figures in llmcalc.datasheets (bandwidth, FP16 tensor rate)"
                  if speed.refusal.code == "no_datasheet_figures" else str(speed.refusal))
        mark = f"n/a [{reasons.setdefault(reason, len(reasons) + 1)}]"
        return mark, "n/a", "n/a", *(("n/a",) if priced else ())
    price = (("no price" if cost is None else f"{cost:,.2f}"),) if priced else ()
    aggregate, each, first = speed.aggregate_tokens_per_second, speed.sequence_tokens_per_second, \
        speed.time_to_first_token
    assert aggregate is not None and each is not None
    return (f"{aggregate:,.1f}", f"{each:,.1f}", "not estimated" if first is None else f"{first * 1000:,.0f}", *price)


def speed_table(rows: list[RankedPlan]) -> tuple[list[str], list[tuple[str, ...]], list[str]]:
    """The speed columns of rows that have a speed: headers, one row of cells each, and the footnotes that say
    why a row has none (``[k] reason``).

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> rows = rank_cards(get_preset("llama-3.1-8b"), engine="vllm", context=4096, prompt_tokens=1024,
    ...                   generated_tokens=256, concurrency=4, prices={"a10": 0.6})
    >>> headers, cells, notes = speed_table(rows)
    >>> headers
    ['tokens/s in all', 'tokens/s each', 'first token ms', 'cost per M out']
    >>> [(row.gpus, cell) for row, cell in zip(rows, cells) if row.card.key == "a10"][:2]
    [(1, ('109.0', '27.3', '739', '1.53')), (2, ('n/a [4]', 'n/a', 'n/a', 'n/a'))]
    >>> notes[3]
    '[4] no speed: no vLLM speed was measured with tensor parallelism (2 GPUs); measured: one GPU'

    The cost is the price over the output tokens an hour: 0.6 / (109.0 x 3,600) x 10^6 = 1.53 a million.
    """
    priced = any(row.speed is not None and row.speed.price is not None for row in rows)
    reasons: dict[str, int] = {}
    cells = [_speed_cells(row.speed, reasons, priced) for row in rows if row.speed is not None]
    headers = [*SPEED_HEADERS, *(("cost per M out",) if priced else ())]
    notes: dict[str, list[str]] = {}
    for row in rows:
        for text in () if row.speed is None else row.speed.note_texts:
            notes.setdefault(text, []).append(row.card.key)
    return headers, cells, [f"[{number}] no speed: {reason}" for reason, number in reasons.items()] + [
        f"note ({', '.join(cards)}): {note}" for note, cards in notes.items()]


def ranking_table(rows: list[RankedPlan]) -> list[tuple[str, ...]]:
    """The rows as the CLI prints them: card (``*``: its total is an estimate), GPUs, verdict, headroom in GiB
    (negative: missing), longest context, most sequences, and the smallest change for a plan that does not fit;
    the speed columns of ``speed_table`` follow where the rows have a speed.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> rows = rank_cards(get_preset("llama-3.1-8b"), context=8192)
    >>> ranking_table(rows)[0]
    ('A10G (24 GB) *', '1', 'fits', '4.67', '46,451', '5', '')
    >>> ranking_table(rows)[-1]
    ('RTX 4060 Ti (8 GB) *', '2', 'does not fit', '-1.84', '0', '0', '--weight-format fp8')
    """
    memory: list[tuple[str, ...]] = [(row.card.name + (" *" if row.estimated else ""), str(row.gpus),
               "fits" if row.fits else "does not fit", f"{row.headroom / GiB:.2f}", f"{row.largest_context:,d}",
               "-" if row.largest_batch is None else f"{row.largest_batch:,d}", _change_text(row.change))
              for row in rows]
    _headers, speeds, _notes = speed_table(rows)
    return [cells + speed for cells, speed in zip(memory, speeds, strict=True)] if speeds else memory


def _args_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The plan keywords the CLI's ``plan`` options give (the release's defaults filled in), as its single-card plan
    passes them."""
    if args.task == "inference" and args.engine == "vllm":
        return {"context": args.context, "max_num_batched_tokens": args.max_num_batched_tokens,
                "gpu_memory_utilization": args.gpu_memory_utilization,
                "weight_format": args.weight_format, "kv_format": args.kv_format,
                "cuda_graph_bytes": check.count("cuda_graphs_mib", args.cuda_graphs_mib, minimum=0) * 2**20,
                "non_torch_bytes": round(check.number("non_torch_gib", args.non_torch_gib, minimum=0) * GiB),
                "max_num_seqs": args.max_num_seqs, "sampler_filter": args.sampler_filter,
                "startup_used_bytes": round(check.number("startup_used_gib", args.startup_used_gib, minimum=0)
                                            * GiB),
                # As the single-card plan: the release's hybrid manager, extensible cache and block size.
                **vllm_release_settings(args.vllm_version)}
    if args.task == "inference" and args.engine == "generate":
        return {"context": args.context, "batch": args.batch, "weight_format": args.weight_format,
                "attention": args.attention}
    if args.task == "inference":
        return {"context": args.context, "batch": args.batch, "weight_format": args.weight_format,
                "kv_format": args.kv_format}
    return {name: getattr(args, name) for name in (
        "seq_len", "micro_batch", "optimizer", "checkpointing", "zero_stage", "rank", "targets", "precision",
        "qlora_preparation", "lora_dropout", "adapter_dtype") if hasattr(args, name)}


def plan_all_cards(
    cfg: ModelConfig, args: argparse.Namespace, table: Callable[[Sequence[str], Sequence[Sequence[str]]], str]
) -> tuple[dict[str, Any], str]:
    """The CLI's ``plan MODEL --gpu all``: :func:`rank_cards` with the plan's options, as JSON rows and a ``table``.

    The GPU count options (``--tensor-parallel``, ``--pipeline-parallel``, ``--gpus``) are the ranking's to
    choose and refused; ``--concurrency`` (vLLM only) is the requests of ``--context`` tokens the pool must hold.
    """
    given = [name for name in ("tensor_parallel", "pipeline_parallel", "gpus") if name in args.given_options]
    if given:
        raise refusal("chosen_by_ranking", name="--" + given[0].replace("_", "-"))
    if args.task in ("lora", "qlora"):
        setup_settings(args.setup, args.task, cfg=cfg)  # refuses a model the set-up's rules do not cover
    inference = args.task == "inference"
    engine = args.engine if inference else "sum"
    vllm = inference and engine == "vllm"
    concurrency = getattr(args, "concurrency", 1)
    prompt, generated = getattr(args, "prompt_tokens", None), getattr(args, "generated_tokens", None)
    prices = card_prices(getattr(args, "price", None) or [])
    sort = getattr(args, "sort", "fit")
    rows = rank_cards(cfg, task=args.task, engine=engine, concurrency=concurrency,
                      beyond_trained=bool(getattr(args, "beyond_trained_context", False)), prompt_tokens=prompt,
                      generated_tokens=generated, prices=prices, sort=sort, **_args_settings(args))
    result: dict[str, Any] = {"task": args.task, "gpu": "all", "ranking": _ORDERS[sort],
                              "rows": [row.as_dict() for row in rows]}
    if inference:
        result.update(engine=engine, context=args.context, concurrency=concurrency)
    if vllm:
        result.update(prompt_tokens=prompt, generated_tokens=generated, prices=prices, sort=sort,
                      speed=_VLLM_SPEED_BASIS if prompt is not None else _NO_SPLIT)
        if prompt is not None:
            result.update(held_out_median_error=vllm_median_error(), held_out_runs=len(held_out_vllm_comparison()))
    most = ("requests" if vllm else "batch") if inference else "micro-batch"
    pool = f"; with vLLM, KV-cache pool beyond {concurrency:,} requests of {args.context:,} tokens" if vllm else ""
    speed = ""
    if vllm and prompt is None:
        speed = f"\nspeed: {_NO_SPLIT}"
    elif vllm:
        errors = [error for run, _estimate, error in independent_check() if not run.prompts_cached]
        speed = (f"\nspeed: {_VLLM_SPEED_BASIS}; {concurrency:,} requests of a {prompt:,}-token prompt and "
                 f"{generated:,} generated tokens each; held-out median error {vllm_median_error():.1%} of a batch's "
                 f"latency, {len(held_out_vllm_comparison())} runs; on {len(errors)} runs from another source, "
                 f"never fitted (vLLM 0.6.4 to 0.9.2 on an H100), {min(errors):+.0%} to {max(errors):+.0%}"
                 .replace("%", " %"))
    return result, _ranking_text(rows, table, f"most {most}", pool, sort) + speed


_ORDERS = {"fit": "fits first, fewest GPUs, least memory",
           "cost": "lowest cost per million output tokens first, then the rows without a cost: fits first, fewest "
                   "GPUs, least memory"}
_NO_SPLIT = ("memory only; give --prompt-tokens and --generated-tokens (each request's split of --context) for "
             "each card's estimated speed, and --price CARD=PRICE for its cost")
_VLLM_SPEED_BASIS = ("an estimate, not a measurement: vLLM's decode and prefill on one GPU from the card's datasheet "
                     "bandwidth and FP16 tensor rate, with shares fitted on vLLM 0.6 runs on an A100 40 GB and an "
                     "H100 SXM (llmcalc speed --engine vllm); time to first token: the prefill of every request's "
                     "prompt; cost per million output tokens: the price you give x GPUs / output tokens an hour")


def _ranking_text(rows: list[RankedPlan], table: Callable[[Sequence[str], Sequence[Sequence[str]]], str],
                  most: str, pool: str = "", sort: str = "fit") -> str:
    headers, _cells, notes = speed_table(rows)
    order = ("by the cost per million output tokens at your prices, lowest first, then the rows without a cost: "
             "plans that fit first, then the fewest GPUs, then the least memory in all (prices are yours: none are "
             "shipped)" if sort == "cost" else "plans that fit first, then the fewest GPUs, then the least memory in "
             "all (no prices are shipped: the first row is the smallest set-up that fits, not necessarily the "
             "cheapest)")
    return (f"every listed card, at 1, 2, 4 and 8 GPUs where the task splits over several, ranked: {order}\n"
            + table(("card", "GPUs", "verdict", "headroom GiB", "longest context", most, "change",
                     *(headers if _cells else ())), ranking_table(rows))
            + f"\n\nheadroom: GiB to spare on each GPU (negative: missing){pool}.\ntotals: what a CUDA process sees "
            f"on each card, as a published log prints it; * an estimate where none does: the driver's total less "
            f"{PROCESS_ESTIMATE_MIB} MiB" + "".join(f"\n{note}" for note in notes))


def gguf_ranking(model: GgufModel, label: str, args: argparse.Namespace, compute_buffer: int | None,
                 table: Callable[[Sequence[str], Sequence[Sequence[str]]], str]) -> tuple[dict[str, Any], str]:
    """The CLI's ``gguf MODEL --gpu all``: :func:`rank_gguf` with the command's llama.cpp options."""
    from .presets import PRESETS, get_preset

    preset = get_preset(args.model) if args.model in PRESETS else None
    prices = card_prices(args.price or [])
    rows = rank_gguf(model, context=args.context, beyond_trained=args.beyond_trained_context,
                     cache_type_k=args.cache_type_k, cache_type_v=args.cache_type_v, flash_attention=args.flash_attn,
                     compute_buffer=compute_buffer, ubatch=args.ubatch, swa_full=args.swa_full,
                     parallel=args.parallel, kv_unified=args.kv_unified, cfg=preset,
                     recipe=args.recipe if preset is not None else None, imatrix=args.imatrix,
                     prompt_tokens=args.prompt_tokens, generated_tokens=args.generated_tokens, prices=prices,
                     sort=args.sort)
    result: dict[str, Any] = {
        "model": label, "engine": "llama.cpp", "gpu": "all", "context": args.context, "parallel": args.parallel,
        "kv_unified": args.kv_unified, "ranking": _ORDERS[args.sort], "rows": [row.as_dict() for row in rows],
        "prompt_tokens": args.prompt_tokens, "generated_tokens": args.generated_tokens, "prices": prices,
        "sort": args.sort, "speed": _NO_SPLIT if args.prompt_tokens is None else _LLAMA_SPEED_BASIS}
    speed = f"\nspeed: {_NO_SPLIT}"
    if args.prompt_tokens is not None:
        result.update(held_out_median_error={"decode": median_error("decode"), "prefill": median_error("prefill")})
        speed = (f"\nspeed: {_LLAMA_SPEED_BASIS}; a {args.prompt_tokens:,}-token prompt and {args.generated_tokens:,} "
                 f"generated tokens; held-out median error: decode {median_error('decode'):.1%}, prefill "
                 f"{median_error('prefill'):.1%}".replace("%", " %"))
    return result, f"{label}: llama.cpp, every layer on one GPU\n\n" + _ranking_text(
        rows, table, "most sequences", f"; llama.cpp: the {args.parallel} sequence{'s' * (args.parallel > 1)} planned "
        f"({'one unified cache' if args.kv_unified or args.parallel == 1 else 'a stream each'}), the most that fit not "
        "searched", args.sort) + speed


_LLAMA_SPEED_BASIS = ("an estimate, not a measurement: llama.cpp's decode of one sequence and its prefill from the "
                      "card's datasheet bandwidth and FP16 tensor rate, with efficiencies fitted on published "
                      "llama.cpp runs (llmcalc speed); cost per million output tokens: the price you give / output "
                      "tokens an hour")
