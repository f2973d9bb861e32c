"""Mixture-of-experts routing: the load-balancing loss and the bias update that can replace it.

Both act on per-expert statistics of one batch along the last axis
(leading axes are separate layers or batches).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _validate as check


def _shares(name: str, value: Any) -> np.ndarray:
    shares = check.finite_array(name, value, min_ndim=1)
    if shares.shape[-1] == 0:
        raise ValueError(f"{name} must have one entry per expert (non-empty last axis); got shape {shares.shape}")
    bad = (shares < 0) | (shares > 1)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        where = index[0] if len(index) == 1 else index
        raise ValueError(f"{name} must hold shares in [0, 1]; got {shares[index].item()!r} (at index {where})")
    return shares


def load_balancing_loss(token_share: np.ndarray, mean_probability: np.ndarray) -> float | np.ndarray:
    """Switch Transformer auxiliary loss: ``n_experts * sum_i f_i * P_i``, before its small weight.

    ``f_i`` (``token_share``) is the share of the batch's tokens routed to
    expert ``i``; ``P_i`` (``mean_probability``) is the router probability
    for expert ``i`` averaged over the same tokens (Fedus et al., 2022).
    Perfectly even routing gives 1, the minimum when the shares follow the
    probabilities; all tokens on one expert that also gets all the
    probability gives ``n_experts``.  Training adds it multiplied by a small
    coefficient (0.01 in Switch, 0.02 in Mixtral's Hugging Face code).  With
    top-k routing ``f`` sums to ``k`` instead of 1, so the even value is ``k``.

    Examples
    --------
    >>> even = np.full(4, 0.25)
    >>> load_balancing_loss(even, even)
    1.0
    >>> load_balancing_loss(np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0, 0.0]))
    4.0
    """
    f = _shares("token_share", token_share)
    p = _shares("mean_probability", mean_probability)
    if f.shape[-1] != p.shape[-1]:
        raise ValueError(
            f"token_share and mean_probability must have one entry per expert each; got shapes {f.shape} and {p.shape}"
        )
    check.broadcastable(token_share=f, mean_probability=p)
    return check.float_result("load_balancing_loss", lambda: f.shape[-1] * np.sum(f * p, axis=-1))


def expert_bias_update(bias: np.ndarray, expert_load: np.ndarray, *, rate: float) -> np.ndarray:
    """Auxiliary-loss-free balancing (DeepSeek-V3): ``bias - rate * sign(load - mean load)``.

    Each expert has a bias added to its routing score when the top experts
    are *chosen* (not when their outputs are weighted).  After each batch,
    overloaded experts' biases go down by ``rate`` and underloaded ones go
    up by ``rate``, so routing drifts towards balance without a loss term
    that pulls on the model.  ``expert_load`` is the number (or share) of
    tokens each expert received; the target is their mean.

    Examples
    --------
    >>> expert_bias_update(np.zeros(4), np.array([0.6, 0.24, 0.05, 0.11]), rate=0.01)
    array([-0.01,  0.01,  0.01,  0.01])
    >>> expert_bias_update(np.zeros(3), np.array([2, 1, 0]), rate=0.5)  # the expert at the mean keeps its bias
    array([-0.5,  0. ,  0.5])
    """
    b = check.finite_array("bias", bias, min_ndim=1)
    load = check.finite_array("expert_load", expert_load, min_ndim=1)
    if (load < 0).any():
        raise ValueError(f"expert_load must be >= 0 (tokens per expert); got minimum {load.min().item()!r}")
    if b.shape[-1] != load.shape[-1] or b.shape[-1] == 0:
        raise ValueError(
            f"bias and expert_load must have one entry per expert each; got shapes {b.shape} and {load.shape}"
        )
    check.broadcastable(bias=b, expert_load=load)
    step = check.real("rate", rate, minimum=0)
    if not isinstance(step, float):
        raise TypeError(f"rate must be a single number >= 0; got an array of shape {np.shape(step)}")
    return check.float_result(
        "expert_bias_update", lambda: b - step * np.sign(load - load.mean(axis=-1, keepdims=True))
    )
