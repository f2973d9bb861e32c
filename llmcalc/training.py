"""The training step's subtle parts: the cross-entropy loss, one Adam update and the cosine schedule."""

from __future__ import annotations

import numpy as np

from . import _validate as check


def cross_entropy(logits: np.ndarray, target: int | np.ndarray) -> float:
    """Mean negative log-probability of the ``target`` tokens: ``-mean(log softmax(logits)[target])``.

    ``logits`` is ``(..., vocab)`` and ``target`` holds one token id per
    leading position.  Computed through log-sum-exp, so large logits cannot
    overflow.  This is the training loss of a language model.

    Examples
    --------
    >>> round(cross_entropy(np.zeros(32768), 7), 4)  # a uniform guess costs ln V
    10.3972
    >>> round(cross_entropy(np.array([[2.0, 0.0], [0.0, 2.0]]), np.array([0, 0])), 4)  # mean of ln(1+e^-2), ln(1+e^2)
    1.1269
    """
    z = check.values("logits", logits, min_ndim=1)
    vocab = z.shape[-1]
    if vocab == 0:
        raise ValueError(f"logits must have a non-empty vocabulary axis; got shape {z.shape}")
    ids = np.asarray(target)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"target must hold integer token ids in [0, {vocab - 1}]; got {target!r}")
    if ids.shape != z.shape[:-1]:
        raise ValueError(f"target must have shape {z.shape[:-1]} (one id per row of logits); got shape {ids.shape}")
    if ((ids < 0) | (ids >= vocab)).any():
        raise ValueError(f"target must hold token ids in [0, {vocab - 1}]; got {target!r}")
    top = z.max(axis=-1, keepdims=True)
    log_norm = (top + np.log(np.exp(z - top).sum(axis=-1, keepdims=True)))[..., 0]
    picked = np.take_along_axis(z, ids[..., None], axis=-1)[..., 0]
    return float(np.mean(log_norm - picked))


def adam_update(
    grads: np.ndarray,
    m: np.ndarray | None = None,
    v: np.ndarray | None = None,
    *,
    step: int = 1,
    lr: float = 1e-3,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Adam step: the amount to subtract from the weights, and the new moment estimates.

    With ``g`` the gradient and ``t = step`` (counted from 1), Kingma and Ba (2015)::

        m = beta1 * m + (1 - beta1) * g          v = beta2 * v + (1 - beta2) * g**2
        m_hat = m / (1 - beta1**t)                v_hat = v / (1 - beta2**t)
        update = lr * m_hat / (sqrt(v_hat) + eps)

    Missing moments start at zero.  Dividing by the gradient's own typical
    size makes every weight move by about ``lr`` at first, whatever the scale
    of its gradient.

    Examples
    --------
    >>> update, m, v = adam_update(np.array([100.0, 0.01]), lr=1e-3)
    >>> update.round(6)
    array([0.001, 0.001])
    """
    g = check.values("grads", grads)
    first = np.zeros_like(g) if m is None else check.values("m", m)
    second = np.zeros_like(g) if v is None else check.values("v", v)
    if not g.shape == first.shape == second.shape:
        raise ValueError(f"grads, m and v must have the same shape; got {g.shape}, {first.shape}, {second.shape}")
    if (second < 0).any():
        raise ValueError(f"v must be >= 0 (it averages squared gradients); got minimum {float(second.min())!r}")
    t = check.count("step", step)
    rate = check.number("lr", lr, minimum=0)
    b1 = check.number("beta1", beta1, minimum=0, maximum=1, max_inclusive=False)
    b2 = check.number("beta2", beta2, minimum=0, maximum=1, max_inclusive=False)
    epsilon = check.number("eps", eps, minimum=0, min_inclusive=False)
    new_m = b1 * first + (1.0 - b1) * g
    new_v = b2 * second + (1.0 - b2) * np.square(g)
    update = rate * (new_m / (1.0 - b1**t)) / (np.sqrt(new_v / (1.0 - b2**t)) + epsilon)
    return update, new_m, new_v


def cosine_schedule(
    steps: np.ndarray, *, peak_lr: float, total_steps: int, warmup_steps: int = 0, min_lr: float = 0.0
) -> np.ndarray:
    """Learning rate at each of ``steps``: linear warmup, then cosine decay from ``peak_lr`` to ``min_lr``.

    Warmup rises linearly from 0 and reaches the peak at ``warmup_steps``.
    After it, with ``progress = (step - warmup_steps) / (total_steps - warmup_steps)``::

        lr = min_lr + (peak_lr - min_lr) * (1 + cos(pi * progress)) / 2

    which falls slowly at first, fastest half-way, and stays at ``min_lr``
    from ``total_steps`` on (the conventions of Optax's
    ``warmup_cosine_decay_schedule`` with ``init_value=0``).

    Examples
    --------
    >>> cosine_schedule(np.array([0, 50, 100, 550, 1000, 2000]), peak_lr=1.0, total_steps=1000,
    ...                 warmup_steps=100, min_lr=0.1).round(3)
    array([0.  , 0.5 , 1.  , 0.55, 0.1 , 0.1 ])
    """
    s = check.values("steps", steps)
    if (s < 0).any():
        raise ValueError(f"steps must be >= 0 (optimizer updates counted from 0); got minimum {float(s.min())!r}")
    peak = check.number("peak_lr", peak_lr, minimum=0, min_inclusive=False)
    total = check.count("total_steps", total_steps)
    warmup = check.count("warmup_steps", warmup_steps, minimum=0, maximum=total - 1)
    floor = check.number("min_lr", min_lr, minimum=0, maximum=peak)
    progress = np.clip((s - warmup) / (total - warmup), 0.0, 1.0)
    decayed = floor + (peak - floor) * 0.5 * (1.0 + np.cos(np.pi * progress))
    if warmup == 0:
        return decayed
    return np.where(s < warmup, peak * s / warmup, decayed)
