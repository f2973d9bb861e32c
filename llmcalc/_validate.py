"""Input checking shared by every llmcalc module: the one place validation lives.

Each checker either returns a clean value or raises a :class:`~llmcalc.errors.Refusal`, a ``TypeError``
(wrong kind of value) or ``ValueError`` (right kind, outside the accepted range) with a stable code, and
a message that names the parameter, shows the bad value and says what is accepted.  That
way a caller never sees a bare numpy traceback, a NaN or a silently wrong number.

Counts and byte sizes are scalars: :func:`count` returns an exact Python ``int``
(any size), :func:`number` a finite Python ``float``.  Array helpers
(:func:`values`, :func:`probabilities`) are for the teaching helpers whose point
is an array (softmax, attention, :mod:`llmcalc.teach`).

numpy is optional (the ``teach`` extra): the scalar checks accept numpy's scalars without
importing numpy (a value can only be a numpy scalar once numpy is loaded), and only the array
helpers import it.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .errors import refusal

if TYPE_CHECKING:
    import numpy as np

__all__ = ["choice", "count", "flag", "near_name", "number", "probabilities", "targets", "tokens", "values"]


def _is_a(value: Any, builtins: tuple[type, ...], numpy_names: tuple[str, ...]) -> bool:
    """``isinstance`` against built-in types and numpy's scalar types of these names, if numpy is loaded.

    A value cannot be a numpy scalar unless numpy is loaded, so numpy is never imported here.
    """
    numpy = sys.modules.get("numpy")
    numpy_types = () if numpy is None else tuple(getattr(numpy, name) for name in numpy_names)
    return isinstance(value, (*builtins, *numpy_types))


def _first_bad(array: np.ndarray, bad: np.ndarray) -> dict[str, Any]:
    """The first offending element of ``array``: its value and index."""
    import numpy as np  # the array helpers' callers have numpy already

    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return {"value": array[index].item(), "index": index[0] if len(index) == 1 else index}


def choice(name: str, value: Any, valid: Iterable[str]) -> str:
    """Check that ``value`` is one of the strings in ``valid``; suggest the closest on a near miss."""
    options = list(valid)
    if not isinstance(value, str):
        raise refusal("not_one_of_type", name=name, options=options, value=value, type=type(value).__name__)
    if value not in options:
        close = [option for option in options if near_name(value, option)]
        raise refusal("not_one_of", name=name, options=options, value=value, suggestion=close[0] if close else None)
    return value


_SEPARATORS = re.compile(r"[\s_.-]+")


def _typo_distance(a: str, b: str) -> int:
    """Edits from ``a`` to ``b``: insert, delete, replace, or swap two neighbours (optimal string alignment)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def near_name(typed: str, name: str) -> bool:
    """Whether ``typed`` is a slip for ``name``, not another thing: worth a "did you mean".

    The rule: ignoring case and separators (``-``, ``_``, ``.``, spaces), the two are at most two typing
    edits apart (one for names of up to four characters), and they hold the same numbers, or the same
    digits swapped.  Numbers are what tell sizes and formats apart (``llama-2-13b`` is not a slip for
    ``llama-2-7b``, nor ``fp8`` for ``fp16``), so a different number is never suggested.

    >>> near_name("Llama2-7B", "llama-2-7b"), near_name("lama-2-7b", "llama-2-7b"), near_name("bf61", "bf16")
    (True, True, True)
    >>> near_name("llama-2-13b", "llama-2-7b"), near_name("fp8", "fp16"), near_name("llama-3-70b", "llama-2-70b")
    (False, False, False)
    """
    a, b = _SEPARATORS.sub("", typed.casefold()), _SEPARATORS.sub("", name.casefold())
    numbers_a, numbers_b = re.findall(r"\d+", typed), re.findall(r"\d+", name)
    if numbers_a != numbers_b and sorted("".join(numbers_a)) != sorted("".join(numbers_b)):
        return False
    if numbers_a != numbers_b and len(numbers_a) != len(numbers_b):
        return False
    return _typo_distance(a, b) <= (1 if len(b) <= 4 else 2)


def flag(name: str, value: Any) -> bool:
    """Check a yes/no switch; 0/1 and strings are refused to avoid silent surprises."""
    if not _is_a(value, (bool,), ("bool_",)):
        raise refusal("not_a_flag", name=name, value=value, type=type(value).__name__)
    return bool(value)


def count(name: str, value: Any, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Check an exact count (a Python or numpy integer) and return it as a Python ``int``.

    Booleans, floats (even ``7.0``), strings and arrays are refused: an exact
    count must be given exactly, one at a time.
    """
    limits = {"name": name, "minimum": minimum, "maximum": maximum}
    if _is_a(value, (bool,), ("bool_",)):
        raise refusal("not_an_integer", **limits, value=value, type="a bool", integral=False)
    if _is_a(value, (float,), ("floating",)):
        integral = math.isfinite(value) and float(value).is_integer()
        raise refusal("not_an_integer", **limits, value=value, type="a float", integral=integral)
    if not _is_a(value, (int,), ("integer",)):
        raise refusal("not_an_integer", **limits, value=value, type=type(value).__name__, integral=False)
    number = int(value)
    if number < minimum or (maximum is not None and number > maximum):
        raise refusal("integer_out_of_range", **limits, value=number)
    return number


def _strings(value: Any, codes: tuple[str, str, str], **params: Any) -> list[str]:
    """The strs of ``value`` as a non-empty list; refused with ``codes``: not a sequence, empty, an item not a str."""
    not_a_sequence, empty, not_a_str = codes
    try:
        items = list(value)
    except TypeError:
        raise refusal(not_a_sequence, **params, value=value, type=type(value).__name__) from None
    if not items:
        raise refusal(empty, **params, value=items)
    for item in items:
        if not isinstance(item, str):
            raise refusal(not_a_str, **params, value=item, type=type(item).__name__)
    return items


def targets(value: Any) -> list[str]:
    """Check LoRA target module names: one name, or a non-empty sequence of them."""
    names = [value] if isinstance(value, str) else value
    return _strings(names, ("targets_not_a_sequence", "targets_empty", "target_not_a_str"))


def tokens(name: str, value: Any) -> list[str]:
    """Check a non-empty sequence of string tokens; a lone string is refused (split it first)."""
    if isinstance(value, str):
        raise refusal("tokens_a_string", name=name, value=value)
    if not isinstance(value, Sequence):
        raise refusal("tokens_not_a_sequence", name=name, value=value, type=type(value).__name__)
    return _strings(value, ("tokens_not_a_sequence", "tokens_empty", "token_not_a_str"), name=name)


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
    limits = {"name": name, "minimum": minimum, "maximum": maximum, "min_inclusive": min_inclusive,
              "max_inclusive": max_inclusive}
    if _is_a(value, (bool,), ("bool_",)):
        raise refusal("not_a_number", **limits, value=value, type="a bool")
    if not _is_a(value, (int, float), ("integer", "floating")):
        raise refusal("not_a_number", **limits, value=value, type=type(value).__name__)
    try:
        result = float(value)
    except OverflowError:
        raise refusal("number_too_large", **limits, value=value) from None
    too_low = minimum is not None and (result < minimum if min_inclusive else result <= minimum)
    too_high = maximum is not None and (result > maximum if max_inclusive else result >= maximum)
    if not math.isfinite(result) or too_low or too_high:
        raise refusal("number_out_of_range", **limits, value=result)
    return result


def values(name: str, value: Any, *, allow_neg_inf: bool = False, min_ndim: int = 0) -> np.ndarray:
    """Check a real array with no NaN and no infinity (optionally allowing -inf, e.g. masked logits).

    Returns a new float64 array, so callers may modify it.
    """
    import numpy as np  # optional: only the teaching helpers pass arrays

    if isinstance(value, (bool, np.bool_)):
        raise refusal("not_a_number", name=name, minimum=None, maximum=None, min_inclusive=True, max_inclusive=True,
                      value=value, type="a bool")
    try:
        array = np.array(value)
    except (ValueError, TypeError):
        raise refusal("not_an_array", name=name, value=value, allow_neg_inf=allow_neg_inf) from None
    if array.dtype.kind not in "iuf":
        raise refusal("array_dtype", name=name, dtype=str(array.dtype), allow_neg_inf=allow_neg_inf)
    array = array.astype(np.float64)
    if array.ndim < min_ndim:
        raise refusal("array_dimensions", name=name, min_ndim=min_ndim, shape=array.shape)
    bad = np.isnan(array) | (array == np.inf)
    if not allow_neg_inf:
        bad |= array == -np.inf
    if bad.any():
        raise refusal("array_not_finite", name=name, allow_neg_inf=allow_neg_inf, **_first_bad(array, bad))
    return array


def probabilities(name: str, value: Any, *, atol: float = 1e-9) -> np.ndarray:
    """Check a probability vector (or a stack of them along the last axis): entries in [0, 1], rows summing to 1."""
    import numpy as np

    array = values(name, value, min_ndim=1)
    bad = (array < 0) | (array > 1)
    if bad.any():
        raise refusal("not_probabilities", name=name, **_first_bad(array, bad))
    sums = array.sum(axis=-1)
    off = np.abs(sums - 1) > atol
    if off.any():
        raise refusal("not_normalised", name=name, atol=atol, total=float(sums[off].flat[0]))
    return array
