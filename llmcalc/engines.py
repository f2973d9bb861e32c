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
vLLM 0.6.4 to 0.10)::

    available KV = total * gpu_memory_utilization - (weights + profiled peak + memory outside torch)
    blocks       = available KV // (block_size * KV bytes per token)
    KV tokens    = blocks * block_size
    concurrency  = KV tokens / max_model_len

The profiled peak is the largest working set of the profile run, a forward
pass over ``max_num_batched_tokens`` tokens at once.  Its largest moment is the
MLP of a layer: the residual stream, the residual copy vLLM's fused
add-and-norm keeps and the normed input (``3 * d_model`` values a token) are
live together with the gate-and-up projection's output and the activated
product (``2 * d_ff + d_ff``; ``d_ff + d_ff`` for a plain MLP), all in the
model's 16-bit dtype.  On Llama-3.1-8B that is 110,592 bytes a token, which
matches the growth of the peak in vLLM's own profile logs (+2.07 GiB at
20,000 tokens, +2.99 GiB at 29,000; ``tests/data/vllm_startup_logs.json``).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _validate as check
from .config import ModelConfig
from .errors import refusal
from .memory import kv_cache_bytes_per_token
from .planner import (
    MAX_GPUS,
    RESERVE,
    MemoryPlan,
    checked_model,
    context_limit,
    kv_heads_per_gpu,
    parallel_inference_plans,
    plan_inference,
)
from .units import GiB
from .weightformats import WeightFormat, weight_format_bytes

__all__ = [
    "ACTIVATION_BYTES",
    "ATTENTIONS",
    "VLLM_BLOCK_SIZE",
    "VLLM_GPU_MEMORY_UTILIZATION",
    "VLLM_MAX_NUM_BATCHED_TOKENS",
    "VLLM_NON_TORCH",
    "VllmPlan",
    "generate_prefill_bytes",
    "generate_prefill_parts",
    "plan_generate",
    "plan_vllm",
    "vllm_profile_peak",
]

VLLM_GPU_MEMORY_UTILIZATION = 0.9
"""vLLM's default ``gpu_memory_utilization`` before 0.20, the share of the card's total the engine may plan with.

0.20 raised it to 0.92 when it began to take the CUDA graphs from the pool (``CacheConfig`` in the
0.11.0 to 0.19.0 and the 0.20.0 to 0.33.0 wheels).  The planner keeps 0.9 with no graphs, the
older pair, which the start-up logs it was checked against used: give 0.92 and the graphs' size
for vLLM 0.20 and later.
"""

VLLM_BLOCK_SIZE = 16
"""vLLM's default KV-cache block size on CUDA, in tokens."""

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


def vllm_profile_peak(cfg: ModelConfig, tokens: int, tensor_parallel: int = 1) -> int:
    """Bytes the profile forward pass over ``tokens`` tokens adds to the weights at its peak, the MLP of one layer.

    ``tokens * 2 * (3 * d_model + 3 * d_ff)`` for a SwiGLU MLP (``2 * d_ff``
    for a plain MLP): residual stream, residual copy and normed input, then the
    gate-and-up output and the activated product, in 16 bits.  With
    ``tensor_parallel`` GPUs each computes ``d_ff / tensor_parallel`` of the MLP.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> round(vllm_profile_peak(get_preset("llama-3-8b"), 20_000) / GiB, 2)
    2.06
    """
    cfg = _dense(cfg)
    n = check.count("max_num_batched_tokens", tokens, maximum=2**24)
    # With tensor parallelism each GPU computes 1/tp of the MLP's width; the residual stream is whole on each.
    width = cfg.d_ff // check.count("tensor_parallel", tensor_parallel)
    mlp = 3 * width if cfg.ffn == "swiglu" else 2 * width
    return n * ACTIVATION_BYTES * (3 * cfg.d_model + mlp)


def _dense(cfg: ModelConfig) -> ModelConfig:
    if not isinstance(cfg, ModelConfig):
        raise refusal("not_a_model_config", type=type(cfg).__name__)
    if cfg.n_experts > 1 or cfg.kv_lora_rank or cfg.sliding_window:
        raise refusal("engine_needs_dense", model_type=cfg.model_type or "custom")
    return cfg


@dataclass(frozen=True)
class VllmPlan:
    """vLLM's start-up budget on one GPU, in bytes, and the KV-cache pool it leads to.

    ``non_torch`` is the memory outside torch's allocator that the budget counts,
    CUDA graphs included where the version counts them.
    """

    requested: int
    weights: int
    profile_peak: int
    non_torch: int
    block_bytes: int
    blocks: int
    block_size: int
    max_model_len: int

    @property
    def available_kv(self) -> int:
        """What vLLM prints as the memory left for the KV cache (negative when nothing is left)."""
        return self.requested - self.weights - self.profile_peak - self.non_torch

    @property
    def kv_tokens(self) -> int:
        """The tokens of vLLM's KV-cache pool, what it prints as "GPU KV cache size"."""
        return self.blocks * self.block_size

    @property
    def max_concurrency(self) -> float:
        """The "Maximum concurrency for max_model_len tokens per request" vLLM prints."""
        return self.kv_tokens / self.max_model_len

    @property
    def starts(self) -> bool:
        """Whether vLLM starts, that is whether the pool holds one request of ``max_model_len`` tokens."""
        return self.kv_tokens >= self.max_model_len


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
    cfg = _dense(cfg)
    checked_model(cfg)
    total = check.count("gpu_bytes", gpu_bytes)
    utilization = check.number("gpu_memory_utilization", gpu_memory_utilization, minimum=0, maximum=1,
                               min_inclusive=False)
    length = check.count("max_model_len", max_model_len, maximum=context_limit(cfg))
    batched = VLLM_MAX_NUM_BATCHED_TOKENS if max_num_batched_tokens is None else max_num_batched_tokens
    size = check.count("block_size", block_size, maximum=1024)
    non_torch = check.count("non_torch_bytes", non_torch_bytes, minimum=0)
    graphs = check.count("cuda_graph_bytes", cuda_graph_bytes, minimum=0, maximum=total)
    # vLLM multiplies the float total by the utilization; truncate to whole bytes as its int() does.
    requested = int(total * utilization)
    tp = check.count("tensor_parallel", tensor_parallel, maximum=MAX_GPUS)
    if tp == 1:
        weights = sum(weight_format_bytes(cfg, weight_format).values())
        token_bytes = kv_cache_bytes_per_token(cfg, kv_format)
    else:
        [shard] = parallel_inference_plans(cfg, context=1, weight_format=weight_format, kv_format=kv_format,
                                           tensor_parallel=tp)
        weights = shard.weights
        token_bytes = -(-kv_cache_bytes_per_token(cfg, kv_format) * kv_heads_per_gpu(cfg, tp) // cfg.n_kv_heads)
    block_bytes = size * token_bytes
    plan = VllmPlan(requested, weights, vllm_profile_peak(cfg, batched, tp), non_torch + graphs, block_bytes, 0,
                    size, length)
    return VllmPlan(requested, weights, plan.profile_peak, plan.non_torch, block_bytes,
                    max(plan.available_kv // block_bytes, 0), size, length)


ATTENTIONS = ("sdpa", "eager")
"""The attention implementations of transformers' ``generate`` that :func:`generate_prefill_bytes` models."""


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
    kv = n * kv_cache_bytes_per_token(cfg, "bf16")
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
    return sum(generate_prefill_parts(cfg, prompt, batch=batch, attention=attention))


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
    base = plan_inference(cfg, context=context, batch=batch, weight_format=weight_format)
    kv, working = generate_prefill_parts(cfg, context, batch=batch, attention=attention)
    return MemoryPlan(base.weights, kv, 0, 0, working, RESERVE)
