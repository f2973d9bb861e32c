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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from . import _validate as check
from ._search import largest_holding, least_card_above
from .config import ModelConfig, as_model_config, checks_model
from .engines import VLLM_VERSIONS, VllmPlan, check_vllm_card, plan_generate, plan_vllm, vllm_release_settings
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
from .trainers import setup_settings
from .units import GiB
from .weightformats import lighter_weight_formats

__all__ = [
    "ENGINES", "GPU_COUNTS", "UTILIZATION_STEP", "EngineChange", "RankedPlan", "gguf_changes_that_fit",
    "gguf_ranking", "gpu_counts", "plan_all_cards", "rank_cards", "rank_gguf", "ranking_table",
    "vllm_changes_that_fit",
]

GPU_COUNTS = (1, 2, 4, 8)
"""The numbers of one card a ranking plans, where the task has a plan for several GPUs."""

ENGINES = ("sum", "generate", "vllm")
"""The inference engines a ranking plans, as the CLI's ``--engine`` names them; ``"sum"`` is the widget's engine
that adds weights, KV cache and reserve."""

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
    does.
    """

    card: GpuCard
    gpus: int
    fits: bool
    headroom: int
    largest_context: int
    largest_batch: int | None
    change: FitChange | EngineChange | None
    kv_tokens: int | None = None

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
                "largest_batch": self.largest_batch, "kv_tokens": self.kv_tokens, "change": change}


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
    fits = plan.kv_tokens >= wanted
    changes = [] if fits else vllm_changes_that_fit.unchecked(cfg, card.total_bytes, concurrency=concurrency,
                                                              context=context, tensor_parallel=gpus, **options)
    return RankedPlan(card, gpus, fits, (plan.kv_tokens - wanted) * token_bytes, longest,
                      plan.kv_tokens // context, changes[0] if changes else None, plan.kv_tokens)


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
        return plan.kv_tokens >= requests * length

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
    rows: list[RankedPlan] = []
    for gpus in gpu_counts.unchecked(cfg, kind, machine, settings.get("zero_stage", 0)):
        for card in CARDS:
            if kind != "inference":
                rows.append(_training_row(cfg, card, gpus, {**settings, "task": kind}))
            elif machine == "vllm":
                rows.append(_vllm_row(cfg, card, gpus, settings, wanted, beyond))
            else:
                rows.append(_inference_row(cfg, card, gpus, machine, settings, beyond))
    return _ranked(rows)


def _ranked(rows: list[RankedPlan]) -> list[RankedPlan]:
    """Fits first, then the fewest GPUs, then the least memory in all, then the order of the card list."""
    order = {card.key: index for index, card in enumerate(CARDS)}
    return sorted(rows, key=lambda row: (not row.fits, row.gpus, row.memory, order[row.card.key]))


def rank_gguf(model: GgufModel, *, context: int, beyond_trained: bool = False, cfg: ModelConfig | None = None,
              recipe: str | None = None, imatrix: bool = False, **options: Any) -> list[RankedPlan]:
    """llama.cpp's plan of ``model`` (:func:`~llmcalc.gguf.plan_gguf`, ``options`` its keywords) on one GPU of
    every listed card, ranked as :func:`rank_cards` ranks; the longest context as
    :func:`~llmcalc.gguf.largest_context` finds it, the smallest change as :func:`gguf_changes_that_fit` (a
    smaller recipe only for a model made from ``cfg`` with ``recipe``).

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
    return _ranked(rows)


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


def ranking_table(rows: list[RankedPlan]) -> list[tuple[str, ...]]:
    """The rows as the CLI prints them: card (``*``: its total is an estimate), GPUs, verdict, headroom in GiB
    (negative: missing), longest context, most sequences, and the smallest change for a plan that does not fit.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> rows = rank_cards(get_preset("llama-3.1-8b"), context=8192)
    >>> ranking_table(rows)[0]
    ('A10G (24 GB) *', '1', 'fits', '4.67', '46,451', '5', '')
    >>> ranking_table(rows)[-1]
    ('RTX 4060 Ti (8 GB) *', '2', 'does not fit', '-1.84', '0', '0', '--weight-format fp8')
    """
    return [(row.card.name + (" *" if row.estimated else ""), str(row.gpus), "fits" if row.fits else "does not fit",
             f"{row.headroom / GiB:.2f}", f"{row.largest_context:,d}",
             "-" if row.largest_batch is None else f"{row.largest_batch:,d}", _change_text(row.change))
            for row in rows]


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
    rows = rank_cards(cfg, task=args.task, engine=engine, concurrency=concurrency,
                      beyond_trained=bool(getattr(args, "beyond_trained_context", False)), **_args_settings(args))
    result: dict[str, Any] = {"task": args.task, "gpu": "all", "ranking": "fits first, fewest GPUs, least memory",
                              "rows": [row.as_dict() for row in rows]}
    if inference:
        result.update(engine=engine, context=args.context, concurrency=concurrency)
    most = ("requests" if vllm else "batch") if inference else "micro-batch"
    pool = f"; with vLLM, KV-cache pool beyond {concurrency:,} requests of {args.context:,} tokens" if vllm else ""
    return result, _ranking_text(rows, table, f"most {most}", pool)


def _ranking_text(rows: list[RankedPlan], table: Callable[[Sequence[str], Sequence[Sequence[str]]], str],
                  most: str, pool: str = "") -> str:
    return ("every listed card, at 1, 2, 4 and 8 GPUs where the task splits over several, ranked: plans that fit "
            "first, then the fewest GPUs, then the least memory in all (no prices are shipped: the first row is the "
            "smallest set-up that fits, not necessarily the cheapest)\n"
            + table(("card", "GPUs", "verdict", "headroom GiB", "longest context", most, "change"),
                    ranking_table(rows))
            + f"\n\nheadroom: GiB to spare on each GPU (negative: missing){pool}.\ntotals: what a CUDA process sees "
            f"on each card, as a published log prints it; * an estimate where none does: the driver's total less "
            f"{PROCESS_ESTIMATE_MIB} MiB")


def gguf_ranking(model: GgufModel, label: str, args: argparse.Namespace, compute_buffer: int | None,
                 table: Callable[[Sequence[str], Sequence[Sequence[str]]], str]) -> tuple[dict[str, Any], str]:
    """The CLI's ``gguf MODEL --gpu all``: :func:`rank_gguf` with the command's llama.cpp options."""
    from .presets import PRESETS, get_preset

    preset = get_preset(args.model) if args.model in PRESETS else None
    rows = rank_gguf(model, context=args.context, beyond_trained=args.beyond_trained_context,
                     cache_type_k=args.cache_type_k, cache_type_v=args.cache_type_v, flash_attention=args.flash_attn,
                     compute_buffer=compute_buffer, ubatch=args.ubatch, swa_full=args.swa_full,
                     parallel=args.parallel, kv_unified=args.kv_unified, cfg=preset,
                     recipe=args.recipe if preset is not None else None, imatrix=args.imatrix)
    result = {"model": label, "engine": "llama.cpp", "gpu": "all", "context": args.context,
              "parallel": args.parallel, "kv_unified": args.kv_unified,
              "ranking": "fits first, fewest GPUs, least memory", "rows": [row.as_dict() for row in rows]}
    return result, f"{label}: llama.cpp, every layer on one GPU\n\n" + _ranking_text(
        rows, table, "most sequences", f"; llama.cpp: the {args.parallel} sequence{'s' * (args.parallel > 1)} planned "
        f"({'one unified cache' if args.kv_unified or args.parallel == 1 else 'a stream each'}), the most that fit not "
        "searched")
