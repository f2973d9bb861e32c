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
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

INT64_MAX = int(np.iinfo(np.int64).max)
# Integers that feed float formulas are capped where float64 stops being exact.
FLOAT_EXACT_INT = 2**53


def _first_bad(array: np.ndarray, bad: np.ndarray) -> str:
    """Describe the first offending element of ``array`` (value and index)."""
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = index[0] if len(index) == 1 else index
    return f"{array[index].item()!r} (at index {where})"


def _as_array(name: str, value: Any, accepted: str) -> np.ndarray:
    try:
        return np.asarray(value)
    except (ValueError, TypeError):
        raise TypeError(f"{name} must be {accepted}; got {value!r}, which is not a number or array") from None


def integer(name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int | np.ndarray:
    """Check an exact count: a Python/numpy integer, or an array of them.

    Booleans and floats are rejected even when they look whole (``True``,
    ``7.0``): an exact count must be given exactly.
    """
    accepted = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} (a bool)")
    if isinstance(value, (int, np.integer)):
        number = int(value)
        if number < minimum or (maximum is not None and number > maximum):
            raise ValueError(f"{name} must be {accepted}; got {number!r}")
        return number
    if isinstance(value, (float, np.floating)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} (a float); pass an int, e.g. int({value!r})")
    array = _as_array(name, value, accepted)
    if array.dtype.kind == "b":
        raise TypeError(f"{name} must be {accepted}; got an array of bools")
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be {accepted} or an integer array; got dtype {array.dtype} from {value!r}")
    if array.ndim == 0:
        return integer(name, array.item(), minimum=minimum, maximum=maximum)
    if array.size and array.dtype.kind == "u" and int(array.max()) > INT64_MAX:
        raise ValueError(f"{name} must fit in int64; got {int(array.max())!r}")
    array = array.astype(np.int64)
    bad = array < minimum
    if maximum is not None:
        bad |= array > maximum
    if bad.any():
        raise ValueError(f"{name} must be {accepted}; got {_first_bad(array, bad)}")
    return array


def real(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    min_inclusive: bool = True,
    max_inclusive: bool = True,
) -> float | np.ndarray:
    """Check a finite real number (or array of them) within optional bounds."""
    low = "" if minimum is None else ("[" if min_inclusive else "(") + f"{minimum:g}"
    high = "" if maximum is None else f"{maximum:g}" + ("]" if max_inclusive else ")")
    if minimum is None and maximum is None:
        accepted = "a finite real number"
    elif maximum is None:
        accepted = f"a finite number {'>=' if min_inclusive else '>'} {minimum:g}"
    elif minimum is None:
        accepted = f"a finite number {'<=' if max_inclusive else '<'} {maximum:g}"
    else:
        accepted = f"a finite number in {low}, {high}"
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} (a bool)")
    if isinstance(value, (int, float, np.integer, np.floating)):
        try:
            array = np.asarray(float(value))
        except OverflowError:
            raise ValueError(f"{name} must be {accepted}; got {value!r}, too large for a float") from None
    else:
        array = _as_array(name, value, accepted)
    if array.dtype.kind == "b":
        raise TypeError(f"{name} must be {accepted}; got an array of bools")
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be {accepted}; got dtype {array.dtype} from {value!r}")
    array = array.astype(np.float64)
    bad = ~np.isfinite(array)
    if minimum is not None:
        bad |= (array < minimum) if min_inclusive else (array <= minimum)
    if maximum is not None:
        bad |= (array > maximum) if max_inclusive else (array >= maximum)
    if bad.any():
        shown = repr(float(array)) if array.ndim == 0 else _first_bad(array, bad)
        raise ValueError(f"{name} must be {accepted}; got {shown}")
    return float(array) if array.ndim == 0 else array


def choice(name: str, value: Any, valid: Iterable[str]) -> str:
    """Check that ``value`` is one of the strings in ``valid``; suggest the closest on a near miss.

    >>> choice("dtype", "bf61", ["fp32", "bf16"])
    Traceback (most recent call last):
    ...
    ValueError: dtype must be one of 'fp32', 'bf16'; got 'bf61' (did you mean 'bf16'?)
    """
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


def checked_int64(bound: int, what: str) -> None:
    """Refuse an array computation whose largest result would overflow int64.

    ``bound`` is an upper bound on the absolute value of any result, computed
    with Python integers before numpy does the arithmetic.
    """
    if bound > INT64_MAX:
        raise ValueError(
            f"{what} would exceed the int64 range ({INT64_MAX:,d}) for these array inputs; "
            "pass Python ints (scalars) for exact results of any size"
        )


def magnitude(value: int | np.ndarray) -> int:
    """Largest absolute value of an int or int64 array, but at least 1, as a Python int.

    The floor of 1 makes a product of magnitudes bound every single factor as
    well, so a huge scalar next to an all-zero array is still caught before
    numpy tries to convert it to int64.
    """
    if isinstance(value, np.ndarray):
        return max(1, int(np.abs(value).max())) if value.size else 1
    return max(1, abs(int(value)))


def broadcastable(**named: Any) -> None:
    """Refuse array arguments whose shapes do not broadcast, naming them."""
    shapes = {name: np.shape(value) for name, value in named.items()}
    try:
        np.broadcast_shapes(*shapes.values())
    except ValueError:
        listing = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(f"array arguments must broadcast together; got shapes {listing}") from None


def is_scalar(*values: Any) -> bool:
    return all(not isinstance(value, np.ndarray) for value in values)


def finite_array(name: str, value: Any, *, allow_neg_inf: bool = False, min_ndim: int = 0) -> np.ndarray:
    """Check a float array with no NaN and no infinity (optionally allowing -inf, e.g. masked logits)."""
    accepted = "a finite real array" + (" (-inf allowed for masked entries)" if allow_neg_inf else "")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {accepted}; got {value!r} (a bool)")
    array = _as_array(name, value, accepted)
    if array.dtype.kind == "b" or array.dtype.kind not in "iuf":
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


def as_result_int(value: Any) -> int | np.ndarray:
    """Return Python int for 0-d results, int64 array otherwise."""
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return value.astype(np.int64)
    return int(value)


def float_result(what: str, compute: Callable[[], Any]) -> float | np.ndarray:
    """Run a float computation and refuse a non-finite result instead of returning inf/NaN.

    numpy's own overflow warnings are silenced inside ``compute`` because the
    result is checked here: Python float for 0-d results, float64 array otherwise.
    """
    with np.errstate(all="ignore"):
        value = np.asarray(compute(), dtype=np.float64)
    if not np.isfinite(value).all():
        raise ValueError(
            f"{what}: the result overflows the float64 range (max {np.finfo(np.float64).max:.3g}) "
            "for these inputs; scale the inputs down"
        )
    return float(value) if value.ndim == 0 else value


def count(name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Check an exact count (a Python or numpy integer) and return it as a Python ``int``.

    Booleans, floats (even ``7.0``), strings and arrays are refused: an exact
    count must be given exactly, one at a time.

    >>> count("rank", 8)
    8
    >>> count("rank", 8.0)
    Traceback (most recent call last):
    ...
    TypeError: rank must be an integer >= 1; got 8.0 (a float); pass an int, e.g. int(8.0)
    >>> count("batch", 0)
    Traceback (most recent call last):
    ...
    ValueError: batch must be an integer >= 1; got 0
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
    """Check a finite real number within optional bounds and return it as a Python ``float``.

    >>> number("temperature", 0.7, minimum=0, min_inclusive=False)
    0.7
    >>> number("temperature", float("nan"), minimum=0, min_inclusive=False)
    Traceback (most recent call last):
    ...
    ValueError: temperature must be a finite number > 0; got nan
    """
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

    >>> values("logits", [1, 2.5])
    array([1. , 2.5])
    >>> values("logits", [1.0, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: logits must be a finite real array; got nan (at index 1)
    """
    return finite_array(name, value, allow_neg_inf=allow_neg_inf, min_ndim=min_ndim).copy()


def probabilities(name: str, value: Any, *, atol: float = 1e-9) -> np.ndarray:
    """Check a probability vector (or a stack of them along the last axis): entries in [0, 1], rows summing to 1.

    >>> probabilities("probs", [0.5, 0.25, 0.25])
    array([0.5 , 0.25, 0.25])
    >>> probabilities("probs", [0.5, 0.6])
    Traceback (most recent call last):
    ...
    ValueError: probs must sum to 1 along the last axis (within 1e-09); got a sum of 1.1
    """
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
