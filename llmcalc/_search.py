"""The two searches every planner asks: the largest size that still fits, and the smallest larger card.

The planners (:mod:`llmcalc.planner`, :mod:`llmcalc.engines`, :mod:`llmcalc.gguf`,
:mod:`llmcalc.ranking`) each ask "how long a context, how many requests, how many layers still fit?"
and "which listed card is the next one up that holds it?"; one copy of each answer serves them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

__all__ = ["largest_holding", "least_card_above"]


def largest_holding(holds: Callable[[int], bool], high: int, *, low: int = 0) -> int:
    """The largest ``n`` in ``[low, high]`` for which ``holds(n)``, by binary search.

    ``holds`` must hold up to some ``n`` and not past it (a plan grows with its context or batch), and is taken
    to hold at ``low`` without being asked: ``low`` comes back when it holds for nothing above it.

    Examples
    --------
    >>> largest_holding(lambda n: n * n <= 1000, 100)
    31
    >>> largest_holding(lambda n: False, 100, low=7)
    7
    """
    while low < high:
        middle = (low + high + 1) // 2
        if holds(middle):
            low = middle
        else:
            high = middle - 1
    return low


class _Card(Protocol):
    @property
    def total_bytes(self) -> int: ...


CardT = TypeVar("CardT", bound=_Card)


def least_card_above(cards: Iterable[CardT], gpu_bytes: int, fits_on: Callable[[int], bool]) -> CardT | None:
    """The card with the least ``total_bytes`` above ``gpu_bytes`` (the given order among equals) on whose total
    ``fits_on`` says the plan fits; None when none does.

    Examples
    --------
    A plan of 40 GiB does not fit an A100 40GB, whose process sees 39.5 GiB; the A40 (44.13 GiB, estimated) is
    the next card up:

    >>> from llmcalc.planner import CARDS
    >>> from llmcalc.units import GiB
    >>> least_card_above(CARDS, 24 * GiB, lambda total: total >= 40 * GiB).key
    'a40'
    """
    larger = sorted((card for card in cards if card.total_bytes > gpu_bytes), key=lambda card: card.total_bytes)
    return next((card for card in larger if fits_on(card.total_bytes)), None)
