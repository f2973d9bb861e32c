"""Input checking shared by every llmcalc module: the one place validation lives.

Each checker either returns a clean value or raises ``TypeError`` (wrong kind of
value) / ``ValueError`` (right kind, outside the accepted range) with a message
that names the parameter, shows the bad value and says what is accepted.  That
way a caller never sees a bare numpy traceback, a NaN or a silently wrong number.

Counts and byte sizes are scalars: :func:`count` returns an exact Python ``int``
(any size), :func:`number` a finite Python ``float``.  Array helpers
(:func:`values`, :func:`probabilities`) are for the numeric functions whose point
is an array (softmax, attention).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from typing import Any

import numpy as np


def _first_bad(array: np.ndarray, bad: np.ndarray) -> str:
    """Describe the first offending element of ``array`` (value and index)."""
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = index[0] if len(index) == 1 else index
    return f"{array[index].item()!r} (at index {where})"


def choice(name: str, value: Any, valid: Iterable[str]) -> str:
    """Check that ``value`` is one of the strings in ``valid``; suggest the closest on a near miss."""
    options = list(valid)
    listing = ", ".join(repr(option) for option in options)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {listing}; got {value!r} ({type(value).__name__})")
    if value not in options:
        close = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"{name} must be one of {listing}; got {value!r}{hint}")
    return value


def flag(name: str, value: Any) -> bool:
    """Check a yes/no switch; 0/1 and strings are refused to avoid silent surprises."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r} ({type(value).__name__})")
    return bool(value)


def count(name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Check an exact count (a Python or numpy integer) and return it as a Python ``int``.

    Booleans, floats (even ``7.0``), strings and arrays are refused: an exact
    count must be given exactly, one at a time.
    """
    accepted = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} (a bool)")
    if isinstance(value, (float, np.floating)):
        hint = f"; pass an int, e.g. int({value!r})" if math.isfinite(value) and float(value).is_integer() else ""
        raise TypeError(f"{name} must be {accepted}; got {value!r} (a float){hint}")
    if not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} ({type(value).__name__})")
    number = int(value)
    if number < minimum or (maximum is not None and number > maximum):
        raise ValueError(f"{name} must be {accepted}; got {number!r}")
    return number


def number(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    min_inclusive: bool = True,
    max_inclusive: bool = True,
) -> float:
    """Check a finite real number within optional bounds and return it as a Python ``float``."""
    bounds = []
    if minimum is not None:
        bounds.append(f"{'>=' if min_inclusive else '>'} {minimum:g}")
    if maximum is not None:
        bounds.append(f"{'<=' if max_inclusive else '<'} {maximum:g}")
    accepted = "a finite number" + (" " + " and ".join(bounds) if bounds else "")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} (a bool)")
    if not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} ({type(value).__name__})")
    try:
        result = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be {accepted}; got {value!r}, too large for a float") from None
    too_low = minimum is not None and (result < minimum if min_inclusive else result <= minimum)
    too_high = maximum is not None and (result > maximum if max_inclusive else result >= maximum)
    if not math.isfinite(result) or too_low or too_high:
        raise ValueError(f"{name} must be {accepted}; got {result!r}")
    return result


def values(name: str, value: Any, *, allow_neg_inf: bool = False, min_ndim: int = 0) -> np.ndarray:
    """Check a real array with no NaN and no infinity (optionally allowing -inf, e.g. masked logits).

    Returns a new float64 array, so callers may modify it.
    """
    accepted = "a finite real array" + (" (-inf allowed for masked entries)" if allow_neg_inf else "")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} (a bool)")
    try:
        array = np.array(value)
    except (ValueError, TypeError):
        raise TypeError(f"{name} must be {accepted}; got {value!r}, which is not a number or array") from None
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be {accepted}; got dtype {array.dtype}")
    array = array.astype(np.float64)
    if array.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s); got shape {array.shape}")
    bad = np.isnan(array) | (array == np.inf)
    if not allow_neg_inf:
        bad |= array == -np.inf
    if bad.any():
        raise ValueError(f"{name} must be {accepted}; got {_first_bad(array, bad)}")
    return array


def probabilities(name: str, value: Any, *, atol: float = 1e-9) -> np.ndarray:
    """Check a probability vector (or a stack of them along the last axis): entries in [0, 1], rows summing to 1."""
    array = values(name, value, min_ndim=1)
    bad = (array < 0) | (array > 1)
    if bad.any():
        raise ValueError(f"{name} must hold probabilities in [0, 1]; got {_first_bad(array, bad)}")
    sums = array.sum(axis=-1)
    off = np.abs(sums - 1) > atol
    if off.any():
        raise ValueError(
            f"{name} must sum to 1 along the last axis (within {atol:g}); got a sum of {float(sums[off].flat[0]):.6g}"
        )
    return array
