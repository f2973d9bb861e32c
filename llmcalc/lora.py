"""Sizes of parameter-efficient fine-tuning: LoRA, bottleneck adapters, prompt and prefix tuning.

LoRA freezes a weight matrix ``W`` (``d_out x d_in``) and learns a low-rank
update ``B @ A`` with ``A`` of shape ``rank x d_in`` and ``B`` of shape
``d_out x rank``: ``rank * (d_in + d_out)`` trainable values instead of
``d_in * d_out``.  Counts match ``peft.LoraConfig`` (no bias training, no
extra modules); see ``tests/data/llmcalc_preset_counts.json``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from . import _validate as check
from .config import ModelConfig
from .params import param_count

TARGETS = ("q", "k", "v", "o", "gate", "up", "down")
ALL_LINEAR = "all-linear"


def _rank_within(rank: int | np.ndarray, limit: int | np.ndarray, limit_text: str) -> None:
    """Refuse ranks above ``limit`` (elementwise, after broadcasting)."""
    if check.is_scalar(rank, limit):
        if rank > limit:
            raise ValueError(f"rank must be an integer in [1, {limit_text}={limit}]; got {rank}")
        return
    rank_b, limit_b = np.broadcast_arrays(np.asarray(rank), np.asarray(limit))
    bad = rank_b > limit_b
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        where = index[0] if len(index) == 1 else index
        raise ValueError(
            f"rank must be an integer in [1, {limit_text}={int(limit_b[index])}]; "
            f"got {int(rank_b[index])} (at index {where})"
        )


def lora_params(d_in: int | np.ndarray, d_out: int | np.ndarray, rank: int | np.ndarray) -> int | np.ndarray:
    """Trainable parameters of one LoRA adapter: ``rank * (d_in + d_out)``.

    Arguments broadcast, so a sweep over ranks is one call.  ``rank`` may not
    exceed ``min(d_in, d_out)`` (beyond that the update is no longer low-rank).

    Examples
    --------
    >>> lora_params(4096, 4096, 8)
    65536
    >>> lora_params(4096, 4096, np.array([4, 8, 16, 64]))
    array([ 32768,  65536, 131072, 524288])
    >>> lora_params(16, 32, 20)
    Traceback (most recent call last):
    ...
    ValueError: rank must be an integer in [1, min(d_in, d_out)=16]; got 20
    """
    fan_in = check.integer("d_in", d_in)
    fan_out = check.integer("d_out", d_out)
    r = check.integer("rank", rank)
    if check.is_scalar(fan_in, fan_out, r):
        _rank_within(r, min(fan_in, fan_out), "min(d_in, d_out)")
        return r * (fan_in + fan_out)
    check.broadcastable(d_in=fan_in, d_out=fan_out, rank=r)
    check.checked_int64(check.magnitude(r) * (check.magnitude(fan_in) + check.magnitude(fan_out)), "lora_params")
    _rank_within(r, np.minimum(fan_in, fan_out), "min(d_in, d_out)")
    return check.as_result_int(np.multiply(r, np.add(fan_in, fan_out)))


def lora_share(d_in: int | np.ndarray, d_out: int | np.ndarray, rank: int | np.ndarray) -> float | np.ndarray:
    """LoRA parameters as a fraction of the matrix they adapt: ``rank*(d_in+d_out) / (d_in*d_out)``.

    Examples
    --------
    >>> round(lora_share(4096, 4096, 8), 6)  # 0.39% of the matrix
    0.003906
    >>> lora_share(640, 640, np.array([1, 8, 64])).round(4)
    array([0.0031, 0.025 , 0.2   ])
    """
    adapter = lora_params(d_in, d_out, rank)
    return check.float_result("lora_share", lambda: np.divide(adapter, np.multiply(d_in, d_out, dtype=np.float64)))


def _matrix_shapes(cfg: ModelConfig) -> dict[str, tuple[int, int, int]]:
    """Target name -> (d_in, d_out, copies per layer) for this architecture."""
    shapes = {
        "q": (cfg.d_model, cfg.q_dim, 1),
        "k": (cfg.d_model, cfg.kv_dim, 1),
        "v": (cfg.d_model, cfg.kv_dim, 1),
        "o": (cfg.q_dim, cfg.d_model, 1),
        "up": (cfg.d_model, cfg.d_ff, cfg.n_experts),
        "down": (cfg.d_ff, cfg.d_model, cfg.n_experts),
    }
    if cfg.ffn == "swiglu":
        shapes["gate"] = (cfg.d_model, cfg.d_ff, cfg.n_experts)
    return shapes


def _resolve_targets(cfg: ModelConfig, targets: str | Iterable[str]) -> list[str]:
    available = [name for name in TARGETS if name in _matrix_shapes(cfg)]
    accepted = f"{ALL_LINEAR!r} or a sequence of names among " + ", ".join(repr(t) for t in available)
    if isinstance(targets, str):
        if targets == ALL_LINEAR:
            return available
        targets = (targets,)
    try:
        names = list(targets)
    except TypeError:
        raise TypeError(f"targets must be {accepted}; got {targets!r}") from None
    if not names:
        raise ValueError(f"targets must be {accepted}; got an empty sequence")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"targets must be {accepted}; got {name!r} ({type(name).__name__})")
        if name not in available:
            extra = f" (an ffn={cfg.ffn!r} model has no gate matrix)" if name == "gate" else ""
            raise ValueError(f"targets must be {accepted}; got {name!r}{extra}")
    if len(set(names)) != len(names):
        raise ValueError(f"targets must not repeat a name; got {tuple(names)!r}")
    return names


def lora_model_params(
    cfg: ModelConfig, rank: int | np.ndarray, targets: str | Iterable[str] = ("q", "v")
) -> int | np.ndarray:
    """Trainable LoRA parameters when adapting ``targets`` in every layer.

    Targets name the per-layer matrices: attention ``q``, ``k``, ``v``, ``o``
    and FFN ``gate``, ``up``, ``down`` (a classic ``ffn="mlp"`` model has only
    ``up`` and ``down``).  ``"all-linear"`` takes all of them; like peft's
    option of that name it excludes the LM head, and here it also excludes
    the MoE router.  In a mixture of experts every expert's FFN matrices get
    their own adapter.  ``rank`` broadcasts.

    Models that fuse Q, K and V into one matrix (GPT-2's ``c_attn``) are
    counted as if they were separate: peft on the fused matrix gives
    ``rank * (d_model + q_dim + 2 * kv_dim)`` instead.

    Examples
    --------
    The classic recipe, rank 8 on q and v of Llama-2-7B (peft agrees):

    >>> from llmcalc import get_preset
    >>> lora_model_params(get_preset("llama-2-7b"), 8)
    4194304
    >>> lora_model_params(get_preset("reference"), np.array([4, 8, 16]), "all-linear")
    array([1218560, 2437120, 4874240])
    >>> lora_model_params(get_preset("gpt2"), 8, ("q", "gate"))
    Traceback (most recent call last):
    ...
    ValueError: targets must be 'all-linear' or a sequence of names among 'q', 'k', 'v', 'o', 'up', 'down'; got 'gate' (an ffn='mlp' model has no gate matrix)
    """
    if not isinstance(cfg, ModelConfig):
        raise TypeError(f"cfg must be a ModelConfig; got {type(cfg).__name__}")
    names = _resolve_targets(cfg, targets)
    r = check.integer("rank", rank)
    shapes = _matrix_shapes(cfg)
    smallest = min(min(shapes[name][:2]) for name in names)
    _rank_within(r, smallest, "smallest targeted matrix side")
    per_rank = cfg.n_layers * sum((d_in + d_out) * copies for d_in, d_out, copies in (shapes[n] for n in names))
    if check.is_scalar(r):
        return r * per_rank
    check.checked_int64(check.magnitude(r) * per_rank, "lora_model_params")
    return r * per_rank


def lora_model_share(
    cfg: ModelConfig, rank: int | np.ndarray, targets: str | Iterable[str] = ("q", "v")
) -> float | np.ndarray:
    """LoRA trainable parameters as a fraction of the frozen model's total.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> round(100 * lora_model_share(get_preset("llama-2-7b"), 8), 3)  # percent
    0.062
    """
    adapters = lora_model_params(cfg, rank, targets)
    return check.float_result("lora_model_share", lambda: np.divide(adapters, param_count(cfg)))


def lora_scaling(alpha: float | np.ndarray, rank: int | np.ndarray, *, rslora: bool = False) -> float | np.ndarray:
    """Factor that multiplies the LoRA update ``B @ A``: ``alpha / rank``, or ``alpha / sqrt(rank)`` for rsLoRA.

    With the classic ``alpha / rank`` a fixed ``alpha`` shrinks the update
    as the rank grows, so higher ranks learn more slowly; rank-stabilised
    LoRA (Kalajdzievski, 2023; ``use_rslora=True`` in peft) divides by
    ``sqrt(rank)`` instead.

    Examples
    --------
    >>> lora_scaling(32, 16)
    2.0
    >>> lora_scaling(16, np.array([4, 16, 64])), lora_scaling(16, np.array([4, 16, 64]), rslora=True)
    (array([4.  , 1.  , 0.25]), array([8., 4., 2.]))
    """
    a = check.real("alpha", alpha, minimum=0, min_inclusive=False)
    r = check.integer("rank", rank, maximum=check.FLOAT_EXACT_INT)
    check.broadcastable(alpha=a, rank=r)
    divisor = np.sqrt(np.asarray(r, dtype=np.float64)) if check.flag("rslora", rslora) else np.asarray(r, np.float64)
    return check.float_result("lora_scaling", lambda: np.divide(a, divisor))


def bottleneck_adapter_params(d_model: int | np.ndarray, bottleneck: int | np.ndarray) -> int | np.ndarray:
    """Parameters of one bottleneck adapter: ``2 * d_model * bottleneck + bottleneck + d_model``.

    A down-projection ``d_model -> bottleneck`` and an up-projection back,
    each with its bias (Houlsby et al., 2019).  Arguments broadcast.

    Examples
    --------
    >>> bottleneck_adapter_params(640, 64)
    82624
    >>> bottleneck_adapter_params(4096, np.array([16, 64]))
    array([135184, 528448])
    """
    d = check.integer("d_model", d_model)
    width = check.integer("bottleneck", bottleneck)
    if check.is_scalar(d, width):
        return 2 * d * width + width + d
    check.broadcastable(d_model=d, bottleneck=width)
    check.checked_int64(3 * check.magnitude(d) * check.magnitude(width), "bottleneck_adapter_params")
    return check.as_result_int(2 * np.multiply(d, width) + width + d)


def bottleneck_adapter_model_params(
    cfg: ModelConfig, bottleneck: int | np.ndarray, *, adapters_per_layer: int = 2
) -> int | np.ndarray:
    """Trainable parameters of bottleneck adapters in every layer of ``cfg``.

    ``n_layers * adapters_per_layer * bottleneck_adapter_params(d_model, bottleneck)``.
    Houlsby's design puts two adapters in each block (after attention and
    after the FFN); Pfeiffer's puts one (``adapters_per_layer=1``).  The
    LayerNorms that adapter methods often also train are not counted.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> bottleneck_adapter_model_params(get_preset("reference"), 64)
    3304960
    """
    if not isinstance(cfg, ModelConfig):
        raise TypeError(f"cfg must be a ModelConfig; got {type(cfg).__name__}")
    per_layer = check.integer("adapters_per_layer", adapters_per_layer)
    if not isinstance(per_layer, int):
        raise TypeError(
            f"adapters_per_layer must be a single integer >= 1; got an array of shape {np.shape(per_layer)}"
        )
    per_adapter = bottleneck_adapter_params(cfg.d_model, bottleneck)
    copies = cfg.n_layers * per_layer
    if check.is_scalar(per_adapter):
        return copies * per_adapter
    check.checked_int64(copies * check.magnitude(per_adapter), "bottleneck_adapter_model_params")
    return copies * per_adapter


def _virtual_tokens(n_virtual_tokens: int | np.ndarray) -> int | np.ndarray:
    return check.integer("n_virtual_tokens", n_virtual_tokens)


def prompt_tuning_params(cfg: ModelConfig, n_virtual_tokens: int | np.ndarray) -> int | np.ndarray:
    """Trainable parameters of prompt tuning: ``n_virtual_tokens * d_model``.

    One learned input embedding per virtual token, prepended to the
    prompt; the model itself stays frozen (Lester et al., 2021).

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> prompt_tuning_params(get_preset("reference"), 20)
    12800
    """
    if not isinstance(cfg, ModelConfig):
        raise TypeError(f"cfg must be a ModelConfig; got {type(cfg).__name__}")
    n = _virtual_tokens(n_virtual_tokens)
    if not check.is_scalar(n):
        check.checked_int64(check.magnitude(n) * cfg.d_model, "prompt_tuning_params")
    return n * cfg.d_model


def prefix_tuning_params(cfg: ModelConfig, n_virtual_tokens: int | np.ndarray) -> int | np.ndarray:
    """Parameters of a trained prefix: ``n_virtual_tokens * n_layers * 2 * kv_dim``.

    Prefix tuning learns, for every layer, a key and a value vector per
    virtual token: exactly what the KV cache would hold for that many
    tokens, so with grouped-query attention only the ``kv_dim`` values of
    the shared KV heads (Li and Liang, 2021).  Counted: the prefix that is
    kept after training.  Not counted: the reparameterisation MLP that is
    often used during training and then thrown away.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> prefix_tuning_params(get_preset("reference"), 20)
    102400
    """
    if not isinstance(cfg, ModelConfig):
        raise TypeError(f"cfg must be a ModelConfig; got {type(cfg).__name__}")
    n = _virtual_tokens(n_virtual_tokens)
    per_token = cfg.n_layers * 2 * cfg.kv_dim
    if not check.is_scalar(n):
        check.checked_int64(check.magnitude(n) * per_token, "prefix_tuning_params")
    return n * per_token
