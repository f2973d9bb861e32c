"""Learning-rate schedules: linear warmup and warmup followed by cosine decay.

``step`` counts optimizer updates from 0 and broadcasts (a whole schedule is
one call); the schedule's settings are single numbers.  Conventions follow
Optax's ``warmup_cosine_decay_schedule`` with ``init_value=0``: warmup rises
linearly from 0 to the peak, which is reached *at* ``step == warmup_steps``,
``total_steps`` includes the warmup, and the rate stays at ``min_lr`` after
``total_steps``.
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


def _single_int(name: str, value: Any, *, minimum: int, maximum: int | None = None) -> int:
    number = check.integer(name, value, minimum=minimum, maximum=maximum)
    if not isinstance(number, int):
        raise TypeError(f"{name} must be a single integer; got an array of shape {np.shape(number)}")
    return number


def _steps(step: Any) -> int | np.ndarray:
    return check.integer("step", step, minimum=0, maximum=check.FLOAT_EXACT_INT)


def linear_warmup(step: int | np.ndarray, *, peak_lr: float, warmup_steps: int) -> float | np.ndarray:
    """Learning rate during linear warmup: ``peak_lr * min(1, step / warmup_steps)``.

    Starts at 0 and reaches ``peak_lr`` at ``step == warmup_steps``, then
    stays there.  ``warmup_steps=0`` means no warmup (always ``peak_lr``).

    Examples
    --------
    >>> [f"{lr:.2e}" for lr in linear_warmup(np.array([0, 50, 100, 200]), peak_lr=3e-4, warmup_steps=100)]
    ['0.00e+00', '1.50e-04', '3.00e-04', '3.00e-04']
    """
    s = _steps(step)
    peak = _single_real("peak_lr", peak_lr, minimum=0, min_inclusive=False)
    warmup = _single_int("warmup_steps", warmup_steps, minimum=0, maximum=check.FLOAT_EXACT_INT)
    if warmup == 0:
        return check.float_result("linear_warmup", lambda: np.full(np.shape(s), peak))
    return check.float_result("linear_warmup", lambda: peak * np.minimum(1.0, np.divide(s, warmup, dtype=np.float64)))


def cosine_schedule(
    step: int | np.ndarray, *, peak_lr: float, total_steps: int, warmup_steps: int = 0, min_lr: float = 0.0
) -> float | np.ndarray:
    """Linear warmup, then cosine decay from ``peak_lr`` to ``min_lr``.

    After warmup, with ``progress = (step - warmup_steps) / (total_steps - warmup_steps)``::

        lr = min_lr + (peak_lr - min_lr) * (1 + cos(pi * progress)) / 2

    which falls slowly at first, fastest half-way, and flattens out at
    ``min_lr`` at ``step == total_steps``; later steps keep ``min_lr``.

    Examples
    --------
    >>> steps = np.array([0, 250, 500, 750, 1000])
    >>> [f"{lr:.2e}" for lr in cosine_schedule(steps, peak_lr=3e-4, total_steps=1000)]
    ['3.00e-04', '2.56e-04', '1.50e-04', '4.39e-05', '0.00e+00']
    >>> cosine_schedule(np.array([0, 50, 100, 550, 1000, 2000]), peak_lr=1.0, total_steps=1000,
    ...                 warmup_steps=100, min_lr=0.1).round(3)
    array([0.  , 0.5 , 1.  , 0.55, 0.1 , 0.1 ])
    """
    s = _steps(step)
    peak = _single_real("peak_lr", peak_lr, minimum=0, min_inclusive=False)
    total = _single_int("total_steps", total_steps, minimum=1, maximum=check.FLOAT_EXACT_INT)
    warmup = _single_int("warmup_steps", warmup_steps, minimum=0, maximum=total - 1)
    floor = _single_real("min_lr", min_lr, minimum=0, maximum=peak)
    s_arr = np.asarray(s, dtype=np.float64)

    def schedule() -> np.ndarray:
        progress = np.clip((s_arr - warmup) / (total - warmup), 0.0, 1.0)
        decayed = floor + (peak - floor) * 0.5 * (1.0 + np.cos(np.pi * progress))
        if warmup == 0:
            return decayed
        return np.where(s_arr < warmup, peak * s_arr / warmup, decayed)

    return check.float_result("cosine_schedule", schedule)
