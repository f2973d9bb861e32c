"""One optimizer step at a time: the update rules a training loop applies, in plain numpy.

Weights, gradients and optimizer states are float arrays (or numbers) that
broadcast together; the hyperparameters (learning rate, betas, ...) are
single numbers.  Every function returns new values and changes nothing in
place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _validate as check


def _single_real(name: str, value: Any, **bounds: Any) -> float:
    number = check.real(name, value, **bounds)
    if not isinstance(number, float):
        raise TypeError(f"{name} must be a single number; got an array of shape {np.shape(number)}")
    return number


def _values(name: str, value: Any) -> float | np.ndarray:
    array = check.finite_array(name, value)
    return float(array) if array.ndim == 0 else array


def init_std(fan_in: int | np.ndarray, *, gain: float = 1.0) -> float | np.ndarray:
    """Standard deviation for random initial weights: ``gain / sqrt(fan_in)``.

    With ``fan_in`` inputs of unit variance, weights of this spread give a
    weighted sum of variance ``gain**2``, so signals keep their size from
    layer to layer.  ``gain=1`` is LeCun initialisation; ``gain=sqrt(2)``
    is He (Kaiming) initialisation, which makes up for ReLU zeroing half
    of its inputs.

    Examples
    --------
    >>> round(init_std(640), 4)
    0.0395
    >>> round(init_std(640, gain=2**0.5), 4)
    0.0559
    """
    n = check.integer("fan_in", fan_in, maximum=check.FLOAT_EXACT_INT)
    g = _single_real("gain", gain, minimum=0, min_inclusive=False)
    return check.float_result("init_std", lambda: g / np.sqrt(np.asarray(n, dtype=np.float64)))


def sgd_step(weights: float | np.ndarray, grads: float | np.ndarray, *, lr: float) -> float | np.ndarray:
    """One plain gradient-descent update: ``weights - lr * grads``.

    Examples
    --------
    >>> sgd_step(1.0, 0.5, lr=0.1)
    0.95
    >>> sgd_step(np.array([1.0, -2.0]), np.array([0.5, -1.0]), lr=0.1)
    array([ 0.95, -1.9 ])
    """
    w = _values("weights", weights)
    g = _values("grads", grads)
    rate = _single_real("lr", lr, minimum=0)
    check.broadcastable(weights=w, grads=g)
    return check.float_result("sgd_step", lambda: w - rate * np.asarray(g))


def ema_update(average: float | np.ndarray, value: float | np.ndarray, *, beta: float) -> float | np.ndarray:
    """One step of an exponential moving average: ``beta * average + (1 - beta) * value``.

    Momentum and Adam's two moment estimates are such averages of the
    gradient (and of its square).  Started from 0, the average is biased
    towards 0 for the first steps: after ``t`` steps of a constant value it
    holds ``(1 - beta**t)`` of it, which Adam's bias correction divides out.

    Examples
    --------
    >>> average = 0.0
    >>> for _ in range(3):
    ...     average = ema_update(average, 1.0, beta=0.9)
    >>> round(average, 3)  # 1 - 0.9**3
    0.271
    """
    avg = _values("average", average)
    new = _values("value", value)
    b = _single_real("beta", beta, minimum=0, maximum=1, max_inclusive=False)
    check.broadcastable(average=avg, value=new)
    return check.float_result("ema_update", lambda: b * np.asarray(avg) + (1.0 - b) * np.asarray(new))


def adam_update(
    grads: float | np.ndarray,
    m: float | np.ndarray = 0.0,
    v: float | np.ndarray = 0.0,
    *,
    step: int = 1,
    lr: float = 1e-3,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
) -> tuple[float | np.ndarray, float | np.ndarray, float | np.ndarray]:
    """One Adam step: the amount to subtract from the weights, and the new moment estimates.

    With ``g`` the gradient and ``t = step`` (counted from 1)::

        m = beta1 * m + (1 - beta1) * g          v = beta2 * v + (1 - beta2) * g**2
        m_hat = m / (1 - beta1**t)                v_hat = v / (1 - beta2**t)
        update = lr * m_hat / (sqrt(v_hat) + eps)

    (Kingma and Ba, 2015).  The weights become ``weights - update``; AdamW
    adds :func:`decoupled_weight_decay`.  Because the update divides by the
    gradient's own typical size, every weight moves by about ``lr`` at first,
    whatever the scale of its gradient.

    Returns
    -------
    update, m, v

    Examples
    --------
    First step from zero moments: gradients 10,000 times apart, same step.

    >>> update, m, v = adam_update(np.array([100.0, 0.01]), lr=1e-3)
    >>> update.round(6)
    array([0.001, 0.001])
    """
    g = _values("grads", grads)
    first = _values("m", m)
    second = _values("v", v)
    t = check.integer("step", step, maximum=check.FLOAT_EXACT_INT)
    if not isinstance(t, int):
        raise TypeError(f"step must be a single integer >= 1; got an array of shape {np.shape(t)}")
    rate = _single_real("lr", lr, minimum=0)
    b1 = _single_real("beta1", beta1, minimum=0, maximum=1, max_inclusive=False)
    b2 = _single_real("beta2", beta2, minimum=0, maximum=1, max_inclusive=False)
    epsilon = _single_real("eps", eps, minimum=0, min_inclusive=False)
    check.broadcastable(grads=g, m=first, v=second)
    if (np.asarray(second) < 0).any():
        raise ValueError(f"v must be >= 0 (it averages squared gradients); got minimum {float(np.min(second))!r}")
    new_m = check.float_result("adam_update m", lambda: b1 * np.asarray(first) + (1.0 - b1) * np.asarray(g))
    new_v = check.float_result("adam_update v", lambda: b2 * np.asarray(second) + (1.0 - b2) * np.square(g))

    def update() -> np.ndarray:
        m_hat = np.asarray(new_m) / (1.0 - b1**t)
        v_hat = np.asarray(new_v) / (1.0 - b2**t)
        return rate * m_hat / (np.sqrt(v_hat) + epsilon)

    return check.float_result("adam_update", update), new_m, new_v


def decoupled_weight_decay(weights: float | np.ndarray, *, lr: float, weight_decay: float) -> float | np.ndarray:
    """AdamW's weight decay: ``weights - lr * weight_decay * weights``.

    Applied separately from the gradient update (Loshchilov and Hutter,
    2019), so every weight shrinks by the same fraction ``lr *
    weight_decay`` per step whatever the optimizer does with its gradient.

    Examples
    --------
    >>> round(decoupled_weight_decay(1.0, lr=0.01, weight_decay=0.1), 6)
    0.999
    """
    w = _values("weights", weights)
    rate = _single_real("lr", lr, minimum=0)
    decay = _single_real("weight_decay", weight_decay, minimum=0)
    if rate * decay > 1:
        raise ValueError(f"lr * weight_decay must be <= 1 (a larger step flips signs); got {rate * decay!r}")
    return check.float_result("decoupled_weight_decay", lambda: np.asarray(w) * (1.0 - rate * decay))


def accumulated_gradient(
    micro_batch_grads: np.ndarray, micro_batch_sizes: int | np.ndarray | None = None
) -> float | np.ndarray:
    """Combine per-micro-batch mean gradients into the gradient of the whole batch.

    ``sum_k n_k * g_k / sum_k n_k`` over the leading axis, where ``g_k`` is
    micro-batch ``k``'s mean gradient and ``n_k`` its number of examples (or
    tokens).  With equal sizes (the default) this is the plain mean: each
    micro-batch's loss is divided by the number of accumulation steps.
    Summing without that division gives a gradient ``K`` times too large.

    Examples
    --------
    >>> accumulated_gradient(np.array([2.5, 6.5]))  # two micro-batches: 1..4 and 5..8
    4.5
    >>> accumulated_gradient(np.array([2.0, 6.5]), np.array([3, 4]))  # 1..3 and 5..8: mean of all seven
    4.571428571428571
    """
    grads = check.finite_array("micro_batch_grads", micro_batch_grads, min_ndim=1)
    if grads.shape[0] == 0:
        raise ValueError("micro_batch_grads must hold at least one micro-batch; got an empty array")
    if micro_batch_sizes is None:
        return check.float_result("accumulated_gradient", lambda: grads.mean(axis=0))
    sizes = check.integer("micro_batch_sizes", micro_batch_sizes, maximum=check.FLOAT_EXACT_INT)
    if np.shape(sizes) != (grads.shape[0],):
        raise ValueError(
            f"micro_batch_sizes must have one size per micro-batch, shape ({grads.shape[0]},); "
            f"got shape {np.shape(sizes)}"
        )
    weights = np.asarray(sizes, dtype=np.float64).reshape((-1,) + (1,) * (grads.ndim - 1))
    return check.float_result("accumulated_gradient", lambda: (weights * grads).sum(axis=0) / weights.sum())


def inverted_dropout(activations: np.ndarray, keep: np.ndarray, *, p: float) -> np.ndarray:
    """Dropout as used in training: zero the dropped activations, scale the kept ones by ``1 / (1 - p)``.

    ``keep`` is the random draw (True = kept, each with probability
    ``1 - p``), passed in so results are reproducible.  The scaling keeps
    the expected value of each activation unchanged, so nothing needs
    rescaling at inference, when dropout is off.

    Examples
    --------
    >>> inverted_dropout(np.array([1.0, 2.0, 3.0, 4.0]), np.array([True, False, True, False]), p=0.5)
    array([2., 0., 6., 0.])
    """
    x = check.finite_array("activations", activations)
    mask = np.asarray(keep)
    if mask.dtype.kind != "b":
        raise TypeError(f"keep must be a boolean array (True = kept); got dtype {mask.dtype}")
    rate = _single_real("p", p, minimum=0, maximum=1, max_inclusive=False)
    check.broadcastable(activations=x, keep=mask)
    return check.float_result("inverted_dropout", lambda: np.where(mask, x / (1.0 - rate), 0.0))
