"""Inference as a serving engine runs it: vLLM's start-up memory budget and the KV-cache pool it allocates.

A planner that adds weights and one request's KV cache answers "does one
sequence fit?".  vLLM answers a different question at start-up: it profiles one
forward pass, then gives *all* the memory left under a cap to a pool of KV-cache
blocks, and prints how many tokens the pool holds and how many requests of
``max_model_len`` tokens fit in it at once.  :func:`plan_vllm` repeats that
arithmetic from the shapes alone, as vLLM's worker does it
(``Worker.determine_available_memory`` in ``vllm/v1/worker/gpu_worker.py``,
``determine_num_available_blocks`` in ``vllm/worker/worker.py`` for the V0
engine, and the block count in ``vllm/v1/core/kv_cache_utils.py``; read at
vLLM 0.6.4 to 0.10, and at 0.20.0, 0.33.0 and 0.34.0 for the CUDA graphs; 0.34's extensible KV cache,
sized after the graphs are captured, is :func:`plan_vllm`'s ``extensible_kv_cache``)::

    available KV = total * gpu_memory_utilization - (weights + profiled peak + memory outside torch)
    blocks       = available KV // (block_size * KV bytes per token)
    KV tokens    = blocks * block_size
    concurrency  = KV tokens / max_model_len

The profiled peak is the largest working set of the profile run: a forward
pass over ``max_num_batched_tokens`` tokens spread over ``max_num_seqs``
sequences, then a warm-up of the sampler over one row of logits a sequence
(:func:`vllm_sampler_peak`).  The forward pass's largest moment is the
MLP of a layer: the residual stream, the residual copy vLLM's fused
add-and-norm keeps and the normed input (``3 * d_model`` values a token) are
live together with the gate-and-up projection's output and the activated
product (``2 * d_ff + d_ff``; ``d_ff + d_ff`` for a plain MLP), all in the
model's 16-bit dtype.  On Llama-3.1-8B that is 110,592 bytes a token, which
matches the growth of the peak in vLLM's own profile logs (+2.07 GiB at
20,000 tokens, +2.99 GiB at 29,000; ``tests/data/engines/vllm_startup_logs.json``).  At short batches and large
vocabularies the sampler's warm-up is the larger: 1.22 GiB for Llama 3 8B's
128,256-token vocabulary over 256 sequences, where vLLM printed a peak of 1.26 GiB.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TypedDict

from . import _validate as check
from ._search import largest_holding
from .checkpoints import CheckpointFormat
from .config import ModelConfig, checks_model
from .errors import refusal
from .memory import kv_cache_bytes_per_token
from .params import linear_modules, param_breakdown
from .planner import (
    MAX_GPUS,
    RESERVE,
    MemoryPlan,
    checked_model,
    context_limit,
    kv_heads_per_gpu,
    linear_bytes,
    padded_vocab,
    parallel_inference_plans,
    plan_inference,
)
from .units import GiB
from .weightformats import WeightFormat, weight_format_bytes

__all__ = [
    "ACTIVATION_BYTES",
    "ATTENTIONS",
    "TORCH_SORT_SMALL_ROW",
    "VLLM_BLOCK_SIZE",
    "VLLM_EXTENSIBLE_BLOCK_SIZE",
    "VLLM_EXTENSIBLE_GRANULE",
    "VLLM_EXTENSIBLE_MARGIN_FLOOR",
    "VLLM_EXTENSIBLE_MARGIN_FLOOR_ROCM",
    "VLLM_FUSED_MOE_CHUNK",
    "VLLM_GPU_MEMORY_UTILIZATION",
    "VLLM_MAX_NUM_BATCHED_TOKENS",
    "VLLM_MAX_NUM_SEQS",
    "VLLM_MXFP4_CARDS",
    "VLLM_NON_TORCH",
    "VLLM_SAMPLER_FILTERS",
    "VLLM_TRITON_FILTER_MIN_ROWS",
    "VLLM_VERSIONS",
    "VLLM_VERSION_SAMPLER_FILTERS",
    "VllmPlan",
    "VllmRelease",
    "check_vllm_card",
    "generate_prefill_bytes",
    "generate_prefill_parts",
    "plan_generate",
    "plan_vllm",
    "torch_sort_bytes",
    "vllm_fused_moe_bytes",
    "vllm_layers_note",
    "vllm_profile_peak",
    "vllm_release_settings",
    "vllm_sampler_peak",
]

VLLM_GPU_MEMORY_UTILIZATION = 0.9
"""vLLM's default ``gpu_memory_utilization`` before 0.20, the share of the card's total the engine may plan with.

0.20 raised it to 0.92 when it began to take the CUDA graphs from the pool (``CacheConfig`` in the
0.11.0 to 0.19.0 and the 0.20.0 to 0.33.0 wheels); :data:`VLLM_VERSIONS` gives each release's.
:func:`plan_vllm` defaults to 0.9 with no graphs, the older pair, which the start-up logs it was
checked against used.
"""

VLLM_BLOCK_SIZE = 16
"""vLLM's default KV-cache block size on CUDA, in tokens, up to 0.33."""

VLLM_EXTENSIBLE_BLOCK_SIZE = 64
"""vLLM 0.34's default KV-cache block size, in tokens (``CacheConfig.DEFAULT_BLOCK_SIZE``, ``vllm/config/cache.py:185``
in the 0.34.0 wheel), which the attention backends of dense models keep."""

VLLM_EXTENSIBLE_MARGIN_FLOOR = GiB
"""The least memory vLLM 0.34's extensible KV cache leaves free on CUDA beyond the transient peak it measured.

``KV_CACHE_MARGIN_FLOOR_BYTES`` (``vllm/v1/worker/extensible_kv_cache.py:64`` in the 0.34.0 wheel): the margin is
the larger of this and three quarters of that peak (``KV_CACHE_MARGIN_FRACTION``, line 65).
"""

VLLM_EXTENSIBLE_MARGIN_FLOOR_ROCM = 3 * GiB
"""The same floor on ROCm (AMD's cards), where kernel scratch is mapped outside the allocator (line 64)."""

VLLM_EXTENSIBLE_GRANULE = 2 * 2**20
"""The unit vLLM 0.34 commits the extensible KV cache in, the driver's granularity and at least 2 MiB
(``_MIN_GRANULARITY``, ``vllm/utils/extensible_tensor.py:25``); each layer's share of the pool is rounded up to it."""

VLLM_MAX_NUM_BATCHED_TOKENS = 8192
"""The tokens the profile run processes at once when the reader gives none, an assumption.

vLLM's own default depends on its version, on chunked prefill and on the GPU
(2,048 for ``vllm serve`` and 8,192 for the ``LLM`` class in the V1 engine of
0.8 to 0.10; ``max_model_len`` when chunked prefill is off in the V0 engine).
Give the value your engine prints ("max_num_batched_tokens=…").
"""

VLLM_NON_TORCH = 350 * GiB // 1000
"""Memory outside torch's allocator counted in vLLM's budget on one GPU, 0.35 GiB, an assumption.

It is the ``non_torch_memory`` vLLM 0.6.4 printed for a single RTX 3090 with no
tensor parallelism (``tests/data/vllm_startup_logs.json``): CUDA context,
cuBLAS workspaces.  With tensor parallelism NCCL's buffers add more.
"""

ACTIVATION_BYTES = 2
"""Bytes per activation value, in the 16-bit dtype vLLM runs bf16 and fp16 models in."""

FP32_BYTES = 4

VLLM_MAX_NUM_SEQS = 256
"""vLLM's default ``max_num_seqs``, the sequences of the profile run and of the sampler's warm-up.

256 in the V0 engine (``EngineArgs`` in the 0.6.5 wheel) and, in the V1 engine, on cards under
70 GiB; V1 uses 1,024 on larger cards (``_set_default_args_v1`` in the 0.8.5 wheel).  Give the
value your engine uses.
"""

VLLM_FUSED_MOE_CHUNK = 32768
"""vLLM's ``VLLM_FUSED_MOE_CHUNK_SIZE``, the most tokens its fused mixture-of-experts layer works on at once.

32,768 by default in ``vllm/envs.py`` of the 0.6.5, 0.10.2 and 0.20.0 wheels.
"""

VLLM_SAMPLER_FILTERS = ("sort", "triton")
"""How vLLM's sampler applies its top-k and top-p filters when it warms up, ``sort`` or ``triton``.

``sort`` sorts the FP32 logits of every sequence with PyTorch (the V0 engine, read in the 0.6.5 wheel,
and the V1 engine, read in the 0.8.5 and 0.16.0 wheels).  ``triton`` filters them in place with a Triton
kernel, no sort, once the batch has :data:`VLLM_TRITON_FILTER_MIN_ROWS` rows (``apply_top_k_top_p`` in
``vllm/v1/sample/ops/topk_topp_sampler.py``, the same in the 0.17.0, 0.18.0, 0.19.0 and 0.20.0 wheels).
The kernel came with vLLM pull request 33538 ("Triton-based Top-k and Top-p sampler kernels",
``vllm/v1/sample/ops/topk_topp_triton.py``): the 0.16.0 wheel still sorts, and 0.17.0 is the first
release that filters with Triton.  0.17 to 0.19 still capture their CUDA graphs outside the pool, so they
are planned as ``before-0.20`` with ``triton`` (:data:`VLLM_VERSION_SAMPLER_FILTERS`).
"""

VLLM_TRITON_FILTER_MIN_ROWS = 8
"""The fewest rows vLLM 0.17 to 0.20 filter with Triton; smaller batches are sorted."""

TORCH_SORT_SMALL_ROW = 4096
"""The longest row PyTorch's CUDA sort sorts in place, with no scratch (``should_use_small_sort``)."""


def torch_sort_bytes(rows: int, row_length: int, value_bytes: int = 4) -> int:
    """Bytes ``torch.sort`` along the rows of a CUDA tensor allocates: its outputs and its scratch at their peak.

    The outputs are the sorted values and their int64 positions.  Longer rows go
    through ``launch_stable_sort_kernel`` (``aten/src/ATen/native/cuda/SortStable.cu``
    at commit 061531e), which adds, for one row or rows of a million values or
    more, a row of int64 positions and CUB's alternate buffers for one row; for 2
    to 127 rows, two buffers of an int32 pair a value, the sorted keys and CUB's
    alternate keys and pairs; for 128 rows or more, int64 positions and CUB's
    alternate keys and positions for every value (``DeviceSegmentedRadixSort``
    without a double buffer keeps both).

    Examples
    --------
    >>> torch_sort_bytes(256, 128256) // (256 * 128256)  # vLLM's warm-up of Llama 3's sampler: 12 + 8 + 12
    32
    >>> torch_sort_bytes(64, 128256) // (64 * 128256), torch_sort_bytes(1, 4096)
    (44, 49152)
    """
    n_rows = check.count("rows", rows, maximum=2**31)
    length = check.count("row_length", row_length, maximum=2**31)
    value = check.count("value_bytes", value_bytes, maximum=16)
    outputs = n_rows * length * (value + 8)
    if length <= TORCH_SORT_SMALL_ROW:
        return outputs
    if n_rows == 1 or length >= 1_000_000:
        # segmented_sort_large_segments: one row's int64 positions, then CUB sorts one row at a time.
        return outputs + length * (8 + value + 8)
    if n_rows < 128:
        # segmented_sort_pairs_by_full_sort: two int2 buffers, keys out, and CUB's alternate keys and int2 values.
        return outputs + n_rows * length * (2 * 8 + value + value + 8)
    # segmented_sort_pairs: int64 reverse positions and CUB's alternate keys and int64 values.
    return outputs + n_rows * length * (8 + value + 8)


VLLM_VERSIONS = {"before-0.20": 0.9, "0.20+": 0.92, "0.34+": 1.0}
"""The vLLM releases the planner models and the ``gpu_memory_utilization`` each defaults to.

Before 0.20 vLLM captures its CUDA graphs after sizing the KV-cache pool, in the share of the card
it leaves; 0.20 to 0.33 estimate the graphs first by default (``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1``)
and take them from the pool (``cuda_graph_bytes`` of :func:`plan_vllm`).  0.34 sizes the pool after capturing
them, from the memory then free, with all of the card unless told otherwise (``extensible_kv_cache`` of
:func:`plan_vllm`; ``resolved_gpu_memory_utilization``, ``vllm/config/cache.py:495-501`` in the 0.34.0 wheel).
"""

VLLM_VERSION_SAMPLER_FILTERS = {"before-0.20": "sort", "0.20+": "triton", "0.34+": "triton"}
"""The sampler filter (:data:`VLLM_SAMPLER_FILTERS`) each of :data:`VLLM_VERSIONS` is planned with unless told.

``before-0.20`` sorts, as vLLM up to 0.16 does; vLLM 0.17 to 0.19 filter with Triton while still
capturing their CUDA graphs outside the pool, so they are planned as ``before-0.20`` with
``sampler_filter="triton"``.  ``0.34+`` is planned with 0.20's filter: 0.34's new model runner warms its sampler
up twice, the second time with penalties and log-probabilities (``_dummy_sampler_run``,
``vllm/v1/worker/gpu/model_runner.py:1039-1067``), whose memory is not modelled.
"""


class VllmRelease(TypedDict):
    """The :func:`plan_vllm` keywords that follow from the release planned."""

    hybrid_kv_cache: bool
    extensible_kv_cache: bool
    block_size: int


def vllm_release_settings(release: str) -> VllmRelease:
    """The :func:`plan_vllm` keywords a release of :data:`VLLM_VERSIONS` sets by default.

    0.20 and later group windowed layers with the hybrid KV-cache manager; 0.34 sizes the pool with its
    extensible KV cache, in blocks of 64 tokens (:data:`VLLM_EXTENSIBLE_BLOCK_SIZE`).

    Examples
    --------
    >>> vllm_release_settings("0.34+")
    {'hybrid_kv_cache': True, 'extensible_kv_cache': True, 'block_size': 64}
    """
    version = check.choice("vllm_version", release, VLLM_VERSIONS)
    extensible = version == "0.34+"
    return {"hybrid_kv_cache": version != "before-0.20", "extensible_kv_cache": extensible,
            "block_size": VLLM_EXTENSIBLE_BLOCK_SIZE if extensible else VLLM_BLOCK_SIZE}


@checks_model
def vllm_profile_peak(cfg: ModelConfig, tokens: int, tensor_parallel: int = 1, *,
                      max_num_seqs: int = VLLM_MAX_NUM_SEQS, sampler_filter: str = "sort") -> int:
    """Bytes vLLM's profile run adds to the weights at its peak: the MLP of one layer or the sampler's warm-up.

    The MLP holds ``tokens * 2 * (3 * d_model + 3 * d_ff)`` for a SwiGLU MLP (``2 * d_ff``
    for a plain MLP): residual stream, residual copy and normed input, then the
    gate-and-up output and the activated product, in 16 bits.  With
    ``tensor_parallel`` GPUs each computes ``d_ff / tensor_parallel`` of the MLP.
    The sampler's warm-up follows the forward pass (:func:`vllm_sampler_peak`);
    the peak is the larger of the two.  With ``sampler_filter="triton"`` (vLLM 0.19
    and 0.20) a mixture of experts keeps its fused-MoE workspace through the warm-up:
    those releases hold it between calls; gpt-oss's MXFP4 experts do not (their Triton backend's monolithic
    kernel, ``OAITritonMxfp4ExpertsMonolithic`` in the 0.19.0 wheel, takes none from the workspace manager).

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> llama3 = get_preset("llama-3-8b")
    >>> round(vllm_profile_peak(llama3, 20_000) / GiB, 2), round(vllm_profile_peak(llama3, 8192) / GiB, 2)
    (2.06, 1.22)
    """
    cfg = _vllm_model(cfg)
    n = check.count("max_num_batched_tokens", tokens, maximum=2**24)
    tp = check.count("tensor_parallel", tensor_parallel)
    if cfg.is_moe:
        mlp = vllm_fused_moe_bytes.unchecked(cfg, n, tp)
    else:
        # With tensor parallelism each GPU computes 1/tp of the MLP's width; the residual stream is whole on each.
        width = cfg.d_ff // tp
        mlp = n * ACTIVATION_BYTES * (3 * width if cfg.ffn == "swiglu" else 2 * width)
    sampler = vllm_sampler_peak.unchecked(cfg, n, max_num_seqs=max_num_seqs, sampler_filter=sampler_filter)
    if cfg.is_moe and sampler_filter == "triton" and not cfg.attention_sinks:
        # gpt-oss (planned from its MXFP4 checkpoint only) runs a monolithic Triton kernel that holds no workspace.
        sampler += _vllm_moe_workspace(cfg, n, tp)
    return max(n * ACTIVATION_BYTES * 3 * cfg.d_model + mlp, sampler)


def _vllm_moe_workspace(cfg: ModelConfig, tokens: int, tp: int) -> int:
    """The fused-MoE workspace vLLM 0.19 and 0.20 keep between calls, so it is live through the sampler's warm-up.

    ``FusedMoEModularKernel`` takes its buffers from the worker's workspace manager, which keeps the largest
    allocation (``get_simultaneous`` in ``vllm/v1/worker/workspace.py``); Triton's experts ask for
    ``(M, top_k, max(N / 2, K))`` and ``(M, top_k, max(N, K))`` values in 16 bits, ``N = 2 * expert_d_ff / tp``
    and ``K = d_model`` (``TritonExperts.workspace_shapes``, read in the 0.19.0 and 0.20.0 wheels).
    """
    gate_up = 2 * cfg.routed_expert_d_ff // tp
    rows = min(tokens, VLLM_FUSED_MOE_CHUNK) * cfg.experts_per_token
    return rows * ACTIVATION_BYTES * (max(gate_up // 2, cfg.d_model) + max(gate_up, cfg.d_model))


@checks_model
def vllm_fused_moe_bytes(cfg: ModelConfig, tokens: int, tensor_parallel: int = 1) -> int:
    """Bytes vLLM's fused mixture-of-experts layer allocates for ``tokens`` tokens, beyond its input and output.

    ``fused_experts_impl`` (``vllm/model_executor/layers/fused_moe/fused_moe.py``, read in the 0.10.2 and 0.20.0
    wheels) works on at most ``VLLM_FUSED_MOE_CHUNK_SIZE`` (:data:`VLLM_FUSED_MOE_CHUNK`) tokens at a time and
    holds, for each of the ``experts_per_token`` routes of a token, one 16-bit buffer shared by the gate-and-up
    output and the down projection's output (``max(N, d_model)`` values, ``N = 2 * expert_d_ff / tp``) and the
    activated product (``N / 2``).  Before them the router's logits (16 bits an expert) and the top-k weights,
    expert ids and their positions (4 bytes each a route) are live.  Every expert's weights are resident, so
    the weights count all of them (:func:`plan_vllm`); this is the working memory only.  vLLM 0.6.5 kept the
    down projection's output in a third buffer of ``d_model`` values a route (``d_model`` more a route than here,
    8 % of Mixtral's peak).

    Examples
    --------
    Mixtral 8x7B, 8,192 tokens on one GPU: two routes of 28,672 + 14,336 values in 16 bits a token.

    >>> from llmcalc import get_preset, GiB
    >>> vllm_fused_moe_bytes(get_preset("mixtral-8x7b"), 8192) // 8192
    172072
    """
    cfg = _vllm_model(cfg)
    n = check.count("max_num_batched_tokens", tokens, maximum=2**24)
    tp = check.count("tensor_parallel", tensor_parallel)
    routes = cfg.experts_per_token
    chunk = min(n, VLLM_FUSED_MOE_CHUNK)
    gate_up = 2 * cfg.routed_expert_d_ff // tp
    workspace = chunk * routes * ACTIVATION_BYTES * (max(gate_up, cfg.d_model) + gate_up // 2)
    routing = n * (ACTIVATION_BYTES * cfg.n_experts + 3 * 4 * routes)
    return workspace + routing


@checks_model
def vllm_sampler_peak(cfg: ModelConfig, tokens: int, *, max_num_seqs: int = VLLM_MAX_NUM_SEQS,
                      sampler_filter: str = "sort") -> int:
    """Bytes vLLM's warm-up of its sampler holds at its peak, after a profile pass over ``tokens`` tokens.

    vLLM's profile run spreads ``tokens`` over ``min(tokens, max_num_seqs)``
    sequences and samples one token of each with top-k and top-p filters on,
    to make the sampler's memory show in the peak (``profile_run``,
    ``vllm/worker/model_runner.py:1229-1231`` in the 0.6.5 wheel;
    ``_dummy_sampler_run``, ``vllm/v1/worker/gpu_model_runner.py:1512-1528`` in 0.8.5).  Its
    largest moment is the filter's sort (``_apply_top_k_top_p``,
    ``vllm/model_executor/layers/sampler.py:431`` in 0.6.5; ``apply_top_k_top_p``,
    ``vllm/v1/sample/ops/topk_topp_sampler.py:189`` in 0.8.5): the forward pass's
    output (``tokens`` vectors of ``d_model`` in 16 bits), one row of logits a
    sequence in 16 bits over the vocabulary padded to 64, their FP32 copy over the
    vocabulary (``sampler.py:269``), and what the sort of that copy allocates
    (:func:`torch_sort_bytes`).  The logits are whole on every
    GPU with tensor parallelism.  It is a count of the tensors vLLM's code and
    PyTorch's sort allocate, checked against the peaks vLLM printed
    (``tests/data/engines/vllm_startup_logs.json``), not measured here.

    With ``sampler_filter="triton"`` (:data:`VLLM_SAMPLER_FILTERS`; vLLM 0.17 to 0.20) the filter
    works in place and nothing is sorted: the peak is the sampling itself, where the 16-bit logits,
    their FP32 copy, the probabilities (``softmax``) and the exponential noise they are divided by
    (``random_sample``) are live together, 2 + 4 + 4 + 4 bytes a logit, beside the forward pass's
    output.  The kernel's own buffer, one row of FP32 logits for each of the card's streaming
    multiprocessors up to the number of sequences (132 rows on an H100, 0.13 GiB for a 256,000-token
    vocabulary), is not counted: the planner does not know the card's multiprocessors.  Checked
    against vLLM 0.19.0's printed peaks on an H100 (Gemma 2, Llama 3.1, Qwen3;
    ``tests/data/engines/vllm_startup_logs.json``), which it leaves 0.1 to 0.2 GiB low.

    vLLM 0.34's new model runner warms its sampler up twice, the second time with
    every sampling option on, and filters without that sort; the planner does not model it.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> round(vllm_sampler_peak(get_preset("llama-3-8b"), 8192) / GiB, 2)  # vLLM PR 10511 printed 1.26
    1.22
    >>> round(vllm_sampler_peak(get_preset("qwen2.5-7b"), 8192, max_num_seqs=1024) / GiB, 2)
    5.57

    Gemma 2 9B over 1,024 sequences of its 256,000-token vocabulary with the Triton filter; vLLM 0.19.0
    printed a peak of 3.65 GiB on an H100, 0.13 GiB of it the kernel's buffer:

    >>> round(vllm_sampler_peak(get_preset("gemma-2-9b"), 8192, max_num_seqs=1024, sampler_filter="triton") / GiB, 2)
    3.47
    """
    cfg = _vllm_model(cfg)
    n = check.count("max_num_batched_tokens", tokens, maximum=2**24)
    seqs = min(n, check.count("max_num_seqs", max_num_seqs, maximum=2**24))
    if check.choice("sampler_filter", sampler_filter, VLLM_SAMPLER_FILTERS) == "triton" \
            and seqs >= VLLM_TRITON_FILTER_MIN_ROWS:
        # The 16-bit logits, their FP32 copy, the probabilities and the noise, all live while it samples.
        sampled = seqs * (ACTIVATION_BYTES * padded_vocab.unchecked(cfg) + 3 * FP32_BYTES * cfg.vocab_size)
        return n * ACTIVATION_BYTES * cfg.d_model + sampled
    # The logits in 16 bits and in FP32, then the sort of the FP32 copy, row by row of the vocabulary.
    logits = seqs * (ACTIVATION_BYTES * padded_vocab.unchecked(cfg) + FP32_BYTES * cfg.vocab_size)
    return n * ACTIVATION_BYTES * cfg.d_model + logits + torch_sort_bytes(seqs, cfg.vocab_size, FP32_BYTES)


def _dense(cfg: ModelConfig) -> ModelConfig:
    if cfg.n_experts > 1 or cfg.kv_lora_rank or cfg.sliding_window:
        raise refusal("engine_needs_dense", model_type=cfg.model_type or "custom")
    return cfg


def _vllm_model(cfg: ModelConfig) -> ModelConfig:
    """The models :func:`plan_vllm` plans: dense or routed experts, full attention or the two window patterns checked.

    Refused by name: latent attention, shared experts and leading dense layers (DeepSeek, Qwen-MoE: not checked
    against vLLM's loading), windows on some layers other than exactly half of them (Gemma 3's five windowed
    layers to one, whose groups vLLM pads: not checked).  A model with attention sinks (gpt-oss) is planned only as
    checked (:func:`plan_vllm`).
    """
    if cfg.kv_lora_rank or cfg.shared_expert_d_ff or cfg.dense_layers:
        raise refusal("vllm_engine_unmodelled", model_type=cfg.model_type or "custom")
    windowed = cfg.sliding_window_layers if cfg.sliding_window else 0
    if windowed and windowed != cfg.n_layers and 2 * windowed != cfg.n_layers:
        raise refusal("vllm_window_pattern_unchecked", model_type=cfg.model_type or "custom",
                      windowed=windowed, full=cfg.n_layers - windowed)
    return cfg


VLLM_MXFP4_ALIGN = 64
"""What vLLM's Triton MXFP4 backend rounds each GPU's expert width up to, and its Hopper layout pads a weight's two
sides to (``mxfp4_round_up_hidden_size_and_intermediate_size``; ``HopperMXValueLayout.swizzle_data``)."""

VLLM_MXFP4_SCALE_ROWS = 256
"""The rows a scale matrix's Hopper layout pads to (``HopperMXScaleLayout``: ``2 * num_warps * 2 * 8``, 8 warps)."""


VLLM_MXFP4_CARDS = ("h100-sxm", "h100-pcie", "h100-nvl", "h200")
"""The listed cards on which vLLM 0.19.0 runs gpt-oss's MXFP4 experts with the Triton backend the planner models.

``select_mxfp4_moe_backend`` (``fused_moe/oracle/mxfp4.py`` in the 0.19.0 wheel) takes Triton on compute capability
9.0 to 10.x, after FlashInfer's TensorRT-LLM kernels, which take Blackwell (B200) first; Ampere and Ada cards get
Marlin, AMD's get AITER, and below 8.0 (V100, T4) vLLM refuses MXFP4.  Those layouts are not modelled.
"""


def check_vllm_card(cfg: ModelConfig, card: str) -> None:
    """Refuse to plan ``cfg`` with vLLM on the listed ``card`` where its weights would not be those modelled.

    Only a model with attention sinks (gpt-oss) is concerned: its MXFP4 experts are planned as the Triton backend
    lays them out on the cards of :data:`VLLM_MXFP4_CARDS`; on another listed card (or ``"all"``, a ranking of
    every card) the plan is refused, naming the cards it holds for.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> check_vllm_card(get_preset("gpt-oss-20b"), "h100-sxm")
    >>> check_vllm_card(get_preset("gpt-oss-20b"), "a100-80gb")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: vLLM's gpt-oss plan holds on Hopper cards only ...
    """
    if cfg.attention_sinks and card not in VLLM_MXFP4_CARDS:
        raise refusal("vllm_mxfp4_card_unchecked", card=card, cards=list(VLLM_MXFP4_CARDS))


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _mxfp4_weights_per_gpu(cfg: ModelConfig, tensor_parallel: int) -> int:
    """Bytes of one GPU's weights as vLLM holds gpt-oss's MXFP4 checkpoint with its Triton MXFP4 backend on Hopper.

    Everything but the routed experts is BF16 (vLLM has no MXFP4 linear layer), each GPU its share as
    :func:`~llmcalc.planner.parallel_inference_plans` splits it, the router whole.  Each MoE layer's experts, read
    in ``vllm/model_executor/layers/quantization/mxfp4.py`` and ``fused_moe/oracle/mxfp4.py`` of the 0.19.0 wheel
    (the same steps in 0.20.0), with ``I`` the expert width a GPU rounded up to 64 and ``H = d_model``:

    * the FP4 codes of ``w13`` (``2I x H/2`` bytes an expert) and ``w2`` (``H x I/2``), relaid by
      ``_swizzle_mxfp4`` into triton_kernels' Hopper layout, which pads both sides of each to a multiple of 64;
    * their E8M0 scales (a byte per 32 weights) in the Hopper scale layout, rows padded to 256, columns to 2;
    * the scales as loaded, which stay registered on the layer beside the relaid copy;
    * the biases, converted to FP32.

    On gpt-oss-20b that is 13.60 GiB on one H100 and 6.96 GiB on each of two, where vLLM 0.19.0 printed 13.64 and
    7.01 ("Model loading took"; ``tests/data/engines/vllm_startup_logs.json``); the rest is likely the rotary
    embedding's FP32 cache (0.03 GiB), which the planner does not count for any model.  The checkpoint itself is
    12.82 GiB.  Other backends (Marlin on Ampere and Ada, FlashInfer on Blackwell) pad otherwise: not modelled.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("gpt-oss-20b")
    >>> round(_mxfp4_weights_per_gpu(cfg, 1) / GiB, 2), round(_mxfp4_weights_per_gpu(cfg, 2) / GiB, 2)
    (13.6, 6.96)
    """
    tp = check.count("tensor_parallel", tensor_parallel, maximum=MAX_GPUS)
    if tp > 1:  # refuses a size vLLM does not accept (the experts split like one wide MLP), naming those it does
        _weights_per_gpu(cfg, "bf16", "bf16", tp)
    parts = param_breakdown.unchecked(cfg)
    d, experts = cfg.d_model, cfg.n_experts
    # BF16, this GPU's share: attention (sinks included: a head's sink goes with its head) and the whole router.
    dense = sum(module.copies * linear_bytes(module, "bf16", cfg, tp) for module in linear_modules.unchecked(cfg)
                if module.component in ("attention", "router"))
    dense += 2 * cfg.n_layers * (cfg.n_heads // tp) + 2 * parts["norms"]
    dense += 2 * (padded_vocab.unchecked(cfg) // tp) * d * (1 if cfg.tie_embeddings else 2)
    width = _round_up(cfg.routed_expert_d_ff // tp, VLLM_MXFP4_ALIGN)
    codes = (_round_up(d // 2, VLLM_MXFP4_ALIGN) * _round_up(2 * width, VLLM_MXFP4_ALIGN)
             + _round_up(width // 2, VLLM_MXFP4_ALIGN) * _round_up(d, VLLM_MXFP4_ALIGN))
    relaid_scales = (_round_up(2 * width, VLLM_MXFP4_SCALE_ROWS) * _round_up(d // 32, 2)
                     + _round_up(d, VLLM_MXFP4_SCALE_ROWS) * _round_up(width // 32, 2))
    loaded_scales = 2 * width * (d // 32) + d * (width // 32)
    biases = FP32_BYTES * (2 * width + d)
    return dense + cfg.moe_layers * experts * (codes + relaid_scales + loaded_scales + biases)


@dataclass(frozen=True)
class VllmPlan:
    """vLLM's start-up budget on one GPU, in bytes, and the KV-cache pool it leads to.

    ``non_torch`` is the memory outside torch's allocator that the budget counts,
    CUDA graphs included where the version counts them.  With ``extensible`` (vLLM 0.34's extensible KV cache,
    :func:`plan_vllm`) ``startup_free`` is what was free when the worker started, ``margin`` what it keeps free
    beyond the transient peak, and ``kept_graphs`` the CUDA graphs' estimate it keeps free again in that peak.
    """

    requested: int
    weights: int
    profile_peak: int
    non_torch: int
    block_bytes: int
    blocks: int
    block_size: int
    max_model_len: int
    kv_groups: int = 1
    full_groups: int = 0
    window_groups: int = 0
    window_span: int = 0
    extensible: bool = False
    startup_free: int = 0
    margin: int = 0
    kept_graphs: int = 0

    @property
    def budget(self) -> int:
        """The memory the engine sizes its pool within.

        It is ``requested``; with 0.34's extensible KV cache, no more than what was free at start-up less the
        margin kept (``min(requested_memory - non_kv_used, headroom - margin)`` in ``measure_kv_cache_bytes``,
        ``vllm/v1/worker/extensible_kv_cache.py:592-618``).
        """
        if not self.extensible:
            return self.requested
        return min(self.requested, self.startup_free - self.margin)

    @property
    def available_kv(self) -> int:
        """What vLLM prints as the memory left for the KV cache (negative when nothing is left)."""
        return self.budget - self.weights - self.profile_peak - self.non_torch - self.kept_graphs

    @property
    def kv_tokens(self) -> int:
        """The tokens of vLLM's KV-cache pool, what it prints as "GPU KV cache size".

        With the hybrid KV-cache manager vLLM prints the pool's blocks shared out evenly over its groups
        (``num_blocks // len(kv_cache_groups) * block_size`` in ``kv_cache_utils.py`` of 0.10.2 and 0.20.0);
        0.34 prints the concurrency times ``max_model_len``, truncated (``get_kv_cache_capacity``,
        ``vllm/v1/core/kv_cache_utils.py:1141-1149`` in the 0.34.0 wheel).
        """
        if self.extensible:
            return int(self.max_concurrency * self.max_model_len)
        return self.blocks // self.kv_groups * self.block_size

    def blocks_per_request(self, max_model_len: int | None = None) -> int:
        """The blocks one request of ``max_model_len`` tokens takes from the pool at most.

        A full-attention group takes ``ceil(max_model_len / block_size)`` blocks; with the hybrid manager a
        windowed group takes ``ceil(min(window - 1 + max_num_batched_tokens, max_model_len) / block_size) + 1``
        (``SlidingWindowSpec.max_memory_usage_bytes``, one block more for a window that starts inside a block).
        """
        length = self.max_model_len if max_model_len is None else max_model_len
        if not self.window_groups:
            return -(-length // self.block_size)
        window = -(-min(self.window_span, length) // self.block_size) + 1
        return self.full_groups * -(-length // self.block_size) + self.window_groups * window

    @property
    def max_concurrency(self) -> float:
        """The "Maximum concurrency for max_model_len tokens per request" vLLM prints.

        0.34 divides the blocks by a request's blocks whatever the model (``get_max_concurrency_for_kv_cache_config``,
        ``vllm/v1/core/kv_cache_utils.py:1082-1113`` in the 0.34.0 wheel).
        """
        if self.window_groups or self.extensible:
            return self.blocks / self.blocks_per_request()
        return self.kv_tokens / self.max_model_len

    @property
    def usable_blocks(self) -> int:
        """The blocks requests can take.

        vLLM 0.34 checks a request against the pool less its null block (``shrink_kv_cache_configs``,
        ``vllm/v1/core/kv_cache_planning.py:1846-1860`` in the 0.34.0 wheel); earlier releases, the whole pool.
        """
        return max(self.blocks - 1, 0) if self.extensible else self.blocks

    @property
    def starts(self) -> bool:
        """Whether vLLM starts, that is whether the pool holds one request of ``max_model_len`` tokens."""
        return self.most_requests() >= 1

    def most_requests(self, length: int | None = None) -> int:
        """How many requests of ``length`` tokens (``max_model_len`` by default) the pool holds at once, each at
        its longest.

        Counted in blocks where a request's blocks are not its tokens over the block size, that is with
        sliding-window groups (:meth:`blocks_per_request`) or with 0.34's null block kept from requests
        (:attr:`usable_blocks`); otherwise in the tokens vLLM prints, as its "Maximum concurrency" divides them.
        """
        length = self.max_model_len if length is None else length
        if self.window_groups or self.extensible:
            return self.usable_blocks // self.blocks_per_request(length)
        return self.kv_tokens // length

    def longest_model_len(self, limit: int) -> int:
        """The longest ``max_model_len`` up to ``limit`` whose request the pool holds (0 if none), as vLLM's
        ``estimate_max_model_len`` searches it."""
        return largest_holding(lambda n: self.blocks_per_request(n) <= self.usable_blocks,
                               check.count("limit", limit))


@checks_model
def plan_vllm(
    cfg: ModelConfig,
    gpu_bytes: int,
    *,
    max_model_len: int,
    max_num_batched_tokens: int | None = None,
    gpu_memory_utilization: float = VLLM_GPU_MEMORY_UTILIZATION,
    non_torch_bytes: int = VLLM_NON_TORCH,
    weight_format: WeightFormat = "bf16",
    kv_format: str = "bf16",
    block_size: int = VLLM_BLOCK_SIZE,
    cuda_graph_bytes: int = 0,
    tensor_parallel: int = 1,
    max_num_seqs: int = VLLM_MAX_NUM_SEQS,
    hybrid_kv_cache: bool = False,
    sampler_filter: str = "sort",
    extensible_kv_cache: bool = False,
    startup_used_bytes: int = 0,
    rocm: bool = False,
) -> VllmPlan:
    """vLLM's KV-cache pool for ``cfg`` on one GPU of ``gpu_bytes``, as its start-up log reports it.

    ``gpu_bytes`` is the total the process sees (``torch.cuda.mem_get_info``,
    vLLM's "total_gpu_memory"); ``max_num_batched_tokens`` defaults to
    :data:`VLLM_MAX_NUM_BATCHED_TOKENS`.  ``cuda_graph_bytes`` is the memory
    of the captured CUDA graphs where the vLLM version subtracts it before
    sizing the pool: vLLM 0.20 and later do by default
    (``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1``, read in the 0.20.0 and
    0.33.0 wheels; 0 in 0.19.0) and print it as "Estimated CUDA graph
    memory".  0, the default, is what vLLM before 0.20 does by default (read
    at 0.2 to 0.10):
    it captures them after the pool is allocated, in the
    ``1 - gpu_memory_utilization`` left over.  Their size depends on the
    kernels and the batch sizes captured, not on the shapes alone, so no
    default can stand for it.  With ``tensor_parallel``
    GPUs (vLLM's ``tensor_parallel_size``) the budget is each GPU's: its share
    of the weights (:func:`~llmcalc.planner.parallel_inference_plans`), of the
    MLP's profiled width and of the KV heads; every GPU holds the same number
    of blocks, each of every token's keys and values for its own heads.  Give
    ``non_torch_bytes`` as the log prints it: with tensor parallelism NCCL's
    buffers make it larger (3.58 GiB on each of two GPUs in vLLM pull request 10511).

    A mixture of experts keeps every expert in the weights (each GPU a ``1/tensor_parallel`` slice of every
    expert and the whole router) and peaks in its fused experts (:func:`vllm_fused_moe_bytes`).  A model
    with a sliding window is sized as the release does: ``hybrid_kv_cache=False`` (vLLM before 0.20 as the
    planner models it: the V0 engine, and V1 without its hybrid KV-cache manager) keeps every layer's KV
    cache for the whole ``max_model_len``; ``hybrid_kv_cache=True`` (0.20 and later, and 0.10.2, read) groups
    the layers and gives a windowed layer's request only its window (:meth:`VllmPlan.blocks_per_request`).
    Windows on some layers other than every other one are refused, not approximated.
    ``sampler_filter`` is how the release filters its sampler's warm-up (:func:`vllm_sampler_peak`).

    ``extensible_kv_cache=True`` sizes the pool as vLLM 0.34 does by default on CUDA and ROCm, read in the 0.34.0
    wheel: it captures the CUDA graphs first, then measures the memory free and keeps back the transient peak
    it profiled, which counts the graphs' estimate once more (``peak_activation_memory``,
    ``vllm/v1/worker/gpu_worker.py:771-773``, handed to the cache at lines 946-949), and a margin of the larger
    of 1 GiB (3 GiB on ROCm, ``rocm=True``) and three quarters of that peak (``measure_kv_cache_bytes``,
    ``vllm/v1/worker/extensible_kv_cache.py:592-618``)::

        transient = profile peak + CUDA graphs
        margin    = max(1 GiB, int(0.75 * transient))
        available = min(ceil(total * gpu_memory_utilization), total - startup_used - margin)
                    - weights - memory outside torch - CUDA graphs - transient

    ``startup_used_bytes`` is what was in use on the card when the worker started (its CUDA context, other
    processes), the gap in the "Free memory on device (free/total GiB) on startup" vLLM prints.  Each layer's
    share of the pool is committed in granules of 2 MiB (:data:`VLLM_EXTENSIBLE_GRANULE`; the layer-outermost
    layout, vLLM's default preference), so the blocks are the most whose layers' granules fit
    (``blocks_within``, lines 313-318), and a request may use all but the null block (:attr:`VllmPlan.usable_blocks`).
    Not modelled: a transient of the warm-up steps larger than the profiled one, and a growth of torch's
    reservation larger than either (vLLM keeps the largest, lines 268-278 and 617); with them vLLM's pool is
    smaller than this one.  Mixtures of experts and sliding windows are refused with it: 0.34's fused experts and
    its admission of windowed requests were not re-read.

    Examples
    --------
    Llama-3.1-8B on an RTX 3090 (23.58 GiB as torch sees it), 20,000-token
    context without chunked prefill, as in vLLM issue 10517 (which printed
    1,952 blocks, 31,232 tokens):

    >>> from dataclasses import replace
    >>> from llmcalc import get_preset, GiB
    >>> cfg = replace(get_preset("llama-3-8b"), trained_context=131072)
    >>> plan = plan_vllm(cfg, 2358 * GiB // 100, max_model_len=20_000, max_num_batched_tokens=20_000)
    >>> plan.blocks, plan.kv_tokens, round(plan.max_concurrency, 2), plan.starts
    (1973, 31568, 1.58, True)
    """
    cfg = _vllm_model(cfg)
    checked_model.unchecked(cfg)
    extensible = check.flag("extensible_kv_cache", extensible_kv_cache)
    if extensible and (cfg.is_moe or (cfg.sliding_window and cfg.sliding_window_layers)):
        # 0.34 restructured its fused experts and admits windowed requests differently (max_in_flight_tokens).
        raise refusal("vllm_extensible_unread", model_type=cfg.model_type or "custom")
    hybrid = check.flag("hybrid_kv_cache", hybrid_kv_cache)
    total = check.count("gpu_bytes", gpu_bytes)
    utilization = check.number("gpu_memory_utilization", gpu_memory_utilization, minimum=0, maximum=1,
                               min_inclusive=False)
    length = check.count("max_model_len", max_model_len, maximum=context_limit.unchecked(cfg))
    batched = VLLM_MAX_NUM_BATCHED_TOKENS if max_num_batched_tokens is None else max_num_batched_tokens
    size = check.count("block_size", block_size, maximum=1024)
    non_torch = check.count("non_torch_bytes", non_torch_bytes, minimum=0, maximum=total)
    graphs = check.count("cuda_graph_bytes", cuda_graph_bytes, minimum=0, maximum=total)
    on_rocm = check.flag("rocm", rocm)
    startup_used = check.count("startup_used_bytes", startup_used_bytes, minimum=0, maximum=total)
    if startup_used and not extensible:
        raise ValueError(f"startup_used_bytes ({startup_used:,}) applies to extensible_kv_cache=True (vLLM 0.34): "
                         "earlier releases plan with a share of the card's total, whatever is in use at start-up")
    # vLLM multiplies the float total by the utilization; whole bytes as its int() does, and 0.34's math.ceil
    # (request_memory, vllm/v1/worker/utils.py:743).
    requested = math.ceil(total * utilization) if extensible else int(total * utilization)
    tp = check.count("tensor_parallel", tensor_parallel, maximum=MAX_GPUS)
    if cfg.attention_sinks:
        weights = _checked_mxfp4_weights(cfg, weight_format, hybrid, sampler_filter, tp)
    elif tp == 1:
        weights = sum(weight_format_bytes.unchecked(cfg, weight_format).values())
    else:
        weights = _weights_per_gpu(cfg, weight_format, kv_format, tp)
    heads_here = kv_heads_per_gpu.unchecked(cfg, tp)
    token_bytes = -(-kv_cache_bytes_per_token.unchecked(cfg, kv_format) * heads_here // cfg.n_kv_heads)
    peak = vllm_profile_peak.unchecked(cfg, batched, tp, max_num_seqs=max_num_seqs, sampler_filter=sampler_filter)
    groups = _kv_cache_groups(cfg, batched) if hybrid else None
    # Every layer holds the same bytes a token; a group of layers takes one block of each of its layers.
    layers_a_block = groups[0] if groups else cfg.n_layers
    layer_block = size * token_bytes // cfg.n_layers
    block_bytes = layer_block * layers_a_block
    plan = VllmPlan(requested, weights, peak, non_torch + graphs, block_bytes, 0, size, length)
    blocks = max(plan.available_kv // block_bytes, 0)
    if extensible:
        transient = peak + graphs
        floor = VLLM_EXTENSIBLE_MARGIN_FLOOR_ROCM if on_rocm else VLLM_EXTENSIBLE_MARGIN_FLOOR
        # int(transient * 0.75) in vLLM, exact as transient * 3 // 4 below 2**51 bytes.
        plan = replace(plan, extensible=True, startup_free=total - startup_used,
                       margin=max(floor, transient * 3 // 4), kept_graphs=graphs)
        # Each of the layers_a_block layer segments holds every block's share of its layer, in whole granules.
        granules = max(plan.available_kv, 0) // (layers_a_block * VLLM_EXTENSIBLE_GRANULE)
        blocks = granules * VLLM_EXTENSIBLE_GRANULE // layer_block
    if groups is None:
        return replace(plan, blocks=blocks)
    _, full, windowed, span = groups
    return replace(plan, blocks=blocks, kv_groups=full + windowed, full_groups=full, window_groups=windowed,
                   window_span=span)


def _checked_mxfp4_weights(cfg: ModelConfig, weight_format: WeightFormat, hybrid: bool, sampler_filter: str,
                           tp: int) -> int:
    """One GPU's weights of gpt-oss as checked against vLLM 0.19.0's logs; any other set-up refused, naming it."""
    mxfp4 = isinstance(weight_format, CheckpointFormat) and weight_format.codes == "mxfp4"
    if not (mxfp4 and hybrid and sampler_filter == "triton"):
        name = weight_format.method if isinstance(weight_format, CheckpointFormat) else weight_format
        raise refusal("vllm_sinks_unchecked", model_type=cfg.model_type or "custom", weight_format=name,
                      hybrid_kv_cache=hybrid, sampler_filter=sampler_filter)
    return _mxfp4_weights_per_gpu(cfg, tp)


def _kv_cache_groups(cfg: ModelConfig, max_num_batched_tokens: int) -> tuple[int, int, int, int] | None:
    """vLLM's hybrid KV-cache groups: (layers a group, full-attention groups, windowed groups, window span).

    ``_get_kv_cache_groups_uniform_page_size`` (0.10.2, 0.20.0) makes groups of as many layers as the smaller
    kind has; a model whose layers are all windowed is one group.  None for a model with no window: the
    classic pool.
    """
    windowed = cfg.sliding_window_layers if cfg.sliding_window else 0
    if not windowed:
        return None
    span = cfg.sliding_window - 1 + max_num_batched_tokens
    if windowed == cfg.n_layers:
        return cfg.n_layers, 0, 1, span
    return windowed, 1, 1, span


def _weights_per_gpu(cfg: ModelConfig, weight_format: WeightFormat, kv_format: str, tp: int) -> int:
    """One GPU's share of the weights with ``tp`` GPUs; vLLM splits every expert's width like one wide MLP.

    vLLM's ``FusedMoE`` keeps all experts on every GPU, each with ``1/tp`` of its width (its ``w13`` by columns,
    its ``w2`` by rows), the same split as one MLP ``n_experts`` times as wide; the router is replicated whole.
    """
    if not cfg.is_moe:
        [shard] = parallel_inference_plans.unchecked(cfg, context=1, weight_format=weight_format,
                                                     kv_format=kv_format, tensor_parallel=tp)
        return shard.weights
    [shard] = parallel_inference_plans.unchecked(_wide_mlp(cfg), context=1, weight_format=weight_format,
                                                 kv_format=kv_format, tensor_parallel=tp)
    router = cfg.d_model * cfg.n_experts + (cfg.n_experts if cfg.router_bias else 0)
    return shard.weights + cfg.moe_layers * router * ACTIVATION_BYTES


def _wide_mlp(cfg: ModelConfig) -> ModelConfig:
    """``cfg`` with its routed experts as one MLP ``n_experts`` times as wide, and no router."""
    return replace(cfg, n_experts=1, experts_per_token=1, d_ff=cfg.n_experts * cfg.routed_expert_d_ff,
                   expert_d_ff=0, model_type="", router_bias=False)


ATTENTIONS = ("sdpa", "eager")
"""The attention implementations of transformers' ``generate`` that :func:`generate_prefill_bytes` models."""


@checks_model
def generate_prefill_parts(
    cfg: ModelConfig, prompt: int, *, batch: int = 1, attention: str = "sdpa"
) -> tuple[int, int]:
    """The prefill's KV cache and its working memory at the peak, in bytes: see :func:`generate_prefill_bytes`.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> kv, working = generate_prefill_parts(get_preset("llama-3-8b"), 32_768)
    >>> kv // GiB, round(working / GiB, 2)
    (4, 3.62)
    """
    cfg = _dense(cfg)
    sequences = check.count("batch", batch, maximum=2**16)
    tokens = check.count("prompt", prompt, maximum=2**24)
    kind = check.choice("attention", attention, ATTENTIONS)
    n = sequences * tokens
    kv = n * kv_cache_bytes_per_token.unchecked(cfg, "bf16")
    d, ff = cfg.d_model, cfg.d_ff
    gpt2 = cfg.layout == "gpt2"
    mlp = n * ACTIVATION_BYTES * ((5 * ff + 2 * d) if cfg.ffn == "mlp" else (3 * ff + 4 * d))
    logits = sequences * cfg.vocab_size * (ACTIVATION_BYTES + 4) + n * ACTIVATION_BYTES * 2 * d
    scores = sequences * cfg.n_heads * tokens * tokens
    masks = sequences * tokens * tokens * ACTIVATION_BYTES
    if kind == "eager" and gpt2:
        # GPT-2's block keeps its attention probabilities (returned for output_attentions) through its MLP.
        mlp += scores * ACTIVATION_BYTES + masks
    eager = n * ACTIVATION_BYTES * 6 * d + 10 * scores + masks if kind == "eager" and not gpt2 else 0
    return kv, max(mlp, eager, logits)


@checks_model
def generate_prefill_bytes(cfg: ModelConfig, prompt: int, *, batch: int = 1, attention: str = "sdpa") -> int:
    """Peak bytes beyond the weights while transformers' ``generate`` processes a prompt (the prefill), bf16.

    The KV cache of the prompt, plus the largest of three moments, as
    measured on CPU with transformers 5.24 (``tools/measure_prefill.py``,
    ``tests/data/engines/generate_prefill.json``):

    * a layer's MLP: ``3 * d_ff + 4 * d_model`` values a token for SwiGLU
      (gate, up, their product; residual, normed input), ``5 * d_ff + 2 *
      d_model`` for GPT-2's tanh-GELU MLP, whose formula leaves temporaries;
    * with ``attention="eager"``, the score matrix: ``h * s**2`` scores per
      sequence, upcast to fp32 for the softmax (10 bytes a score at the
      peak), the ``s**2`` mask, and ``6 * d_model`` values a token; GPT-2's
      block instead keeps its 16-bit probabilities through its MLP;
    * the logits: in transformers 5 ``generate`` asks the model for the last
      position only (``logits_to_keep``) and copies them to fp32, so ``6 *
      vocab`` bytes a sequence, with ``2 * d_model`` values a token of final
      hidden states.

    Examples
    --------
    Llama-3-8B, a 32,768-token prompt with SDPA: the 4 GiB KV cache plus
    3.62 GiB of working memory at the peak (the MLP).

    >>> from llmcalc import get_preset, GiB
    >>> round(generate_prefill_bytes(get_preset("llama-3-8b"), 32_768) / GiB, 2)
    7.62
    """
    return sum(generate_prefill_parts.unchecked(cfg, prompt, batch=batch, attention=attention))


@checks_model
def plan_generate(
    cfg: ModelConfig, *, context: int, batch: int = 1, weight_format: WeightFormat = "bf16", attention: str = "sdpa"
) -> MemoryPlan:
    """:func:`~llmcalc.planner.plan_inference` for transformers' ``generate``: the prompt of ``context`` tokens is
    processed at once, so the plan adds the prefill's working memory (as ``activations``) to the weights, the
    prompt's bf16 KV cache and the reserve.

    Examples
    --------
    Llama-3-8B with a 32,768-token prompt needs more than an L4 (22.49 GiB) holds:

    >>> from llmcalc import get_preset, GiB
    >>> plan = plan_generate(get_preset("llama-3-8b"), context=32_768)
    >>> round(plan.total / GiB, 2), plan.fits(23_034 * 2**20)
    (23.58, False)
    """
    base = plan_inference.unchecked(cfg, context=context, batch=batch, weight_format=weight_format)
    kv, working = generate_prefill_parts.unchecked(cfg, context, batch=batch, attention=attention)
    return MemoryPlan(base.weights, kv, 0, 0, working, RESERVE)


def vllm_layers_note(cfg: ModelConfig, plan: VllmPlan) -> str:
    """The CLI's note on how :func:`plan_vllm` counted windowed layers and experts ("" for a dense model).

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> mistral = get_preset("mistral-7b")
    >>> note = vllm_layers_note(mistral, plan_vllm(mistral, 80 * GiB, max_model_len=32768, hybrid_kv_cache=True))
    >>> print(note.strip()[:58], "...", note[-48:])
    note: 32 of 32 layers attend within a 4,096-token window: ... a request, not the 2,048 the full length takes
    """
    notes = []
    windowed = cfg.sliding_window_layers if cfg.sliding_window else 0
    window = f"{windowed:,} of {cfg.n_layers:,} layers attend within a {cfg.sliding_window:,}-token window"
    if windowed and plan.window_groups:
        full_length = -(-plan.max_model_len // plan.block_size) * plan.kv_groups
        notes.append(f"note: {window}: vLLM's hybrid KV-cache manager gives each request of such a layer at most "
                     f"{plan.window_span:,} tokens (window - 1 + max_num_batched_tokens), so the concurrency counts "
                     f"{plan.blocks_per_request():,} blocks a request, not the {full_length:,} the full length takes")
    elif windowed:
        notes.append(f"note: {window}, but vLLM before 0.20 as planned here keeps every layer's KV cache for the "
                     "whole max_model_len (its V0 engine, and the V1 engine without the hybrid KV-cache manager); "
                     "--vllm-version 0.20+ plans the hybrid manager, which vLLM uses by default in the 0.10.2 and "
                     "0.20.0 releases read")
    if cfg.is_moe:
        notes.append(f"note: all {cfg.n_experts:,} experts of each layer are in the weights (vLLM keeps every expert "
                     "on every GPU, a 1/tensor_parallel slice of each), and the profile peak counts the fused "
                     f"experts' buffers for {cfg.experts_per_token:,} experts a token")
    if cfg.attention_sinks:
        notes.append("note: gpt-oss's MXFP4 experts are counted as vLLM 0.19.0's Triton MXFP4 backend holds them on "
                     "Hopper (H100, H200): each GPU's expert width rounded up to 64, the 4-bit values and scales "
                     "padded into Hopper's layouts, the loaded scales kept beside them and the experts' biases in "
                     "FP32, checked against two vLLM 0.19.0 start-up logs within 1 %; on other cards vLLM picks "
                     "other backends (Marlin on Ampere and Ada, FlashInfer on Blackwell), which pad otherwise and "
                     "are not modelled")
    return "".join("\n\n" + note for note in notes)
