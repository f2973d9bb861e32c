"""Human-readable formatting of counts and byte sizes, for the CLI and the pages."""

from __future__ import annotations

from . import _validate as check

__all__ = ["format_bytes", "format_count"]

_COUNT_SUFFIXES = ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K"))
_DECIMAL = ((10**12, "TB"), (10**9, "GB"), (10**6, "MB"), (10**3, "KB"))
_BINARY = ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"))


def _scaled(value: float, units: tuple[tuple[int, str], ...], digits: int, plain: str) -> str:
    for size, suffix in units:
        if abs(value) >= size:
            return f"{value / size:.{digits}f} {suffix}"
    return f"{value:g} {plain}".rstrip()


def format_count(n: int | float, digits: int = 2) -> str:
    """Short form of a count with K/M/B/T suffixes (powers of 1000).

    Examples
    --------
    >>> format_count(179_594_880), format_count(4_194_304, 1), format_count(512)
    ('179.59 M', '4.2 M', '512')
    """
    value = check.number("n", n)
    places = check.count("digits", digits, minimum=0, maximum=12)
    return _scaled(value, _COUNT_SUFFIXES, places, "")


def format_bytes(n: int | float, digits: int = 2) -> str:
    """Byte size in decimal units with the binary equivalent in parentheses.

    Examples
    --------
    >>> format_bytes(2 * 2**30)
    '2.15 GB (2.00 GiB)'
    >>> format_bytes(100)
    '100 B'
    """
    value = check.number("n", n, minimum=0)
    places = check.count("digits", digits, minimum=0, maximum=12)
    decimal = _scaled(value, _DECIMAL, places, "B")
    binary = _scaled(value, _BINARY, places, "B")
    return decimal if decimal == binary else f"{decimal} ({binary})"
