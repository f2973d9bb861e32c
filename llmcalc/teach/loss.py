"""The training loss: cross-entropy over a vocabulary, with the numerically stable log-softmax."""

from __future__ import annotations

import numpy as np

from .. import _validate as check

__all__ = ["cross_entropy"]


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
