"""Per-catalog translation statistics (make intl-stats).

Usage: python tools/intl_stats.py locales/zh_TW/LC_MESSAGES

Prints translated / fuzzy / untranslated counts for every ``.po`` file and a total,
then either "every message is translated" or, for each catalog with work left, the
line of every fuzzy or untranslated entry.  It exits with status 1 when anything is
left, because Sphinx shows the English text for both, silently, even under ``-W``;
make then adds its own "Error 1" line, which is this status and not a crash.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

from babel.messages.pofile import read_po


@dataclass(frozen=True)
class CatalogStats:
    """Messages of one catalog (its header excluded) and the entries still to do."""

    name: str
    translated: int
    fuzzy_lines: tuple[int, ...]
    untranslated_lines: tuple[int, ...]

    @property
    def left(self) -> int:
        return len(self.fuzzy_lines) + len(self.untranslated_lines)


def catalog_stats(path: Path) -> CatalogStats:
    """Count the messages of one ``.po`` file; a fuzzy entry is not translated."""
    with path.open("rb") as handle:
        catalog = read_po(handle, abort_invalid=True)
    messages = [message for message in catalog if message.id]
    fuzzy = tuple(m.lineno for m in messages if m.fuzzy)
    untranslated = tuple(m.lineno for m in messages if not m.fuzzy and not m.string)
    return CatalogStats(path.name, len(messages) - len(fuzzy) - len(untranslated), fuzzy, untranslated)


def translated_share(translated: int, messages: int) -> str:
    """The translated share, rounded down, so an incomplete catalog never reads 100 %.

    >>> translated_share(2129, 2130)
    '99.9%'
    >>> translated_share(0, 0)
    '100.0%'
    """
    if messages == 0:
        return "100.0%"
    return f"{math.floor(1000 * translated / messages) / 10:.1f}%"


def report(stats: list[CatalogStats]) -> list[str]:
    """The table, its total, and what is left to do (or that nothing is)."""
    lines = [f"{'catalog':<40} {'translated':>10} {'fuzzy':>6} {'untranslated':>12}"]
    for entry in stats:
        fuzzy, untranslated = len(entry.fuzzy_lines), len(entry.untranslated_lines)
        lines.append(f"{entry.name:<40} {entry.translated:>10} {fuzzy:>6} {untranslated:>12}")
    translated = sum(entry.translated for entry in stats)
    fuzzy = sum(len(entry.fuzzy_lines) for entry in stats)
    untranslated = sum(len(entry.untranslated_lines) for entry in stats)
    share = translated_share(translated, translated + fuzzy + untranslated)
    lines.append(f"{'total':<40} {translated:>10} {fuzzy:>6} {untranslated:>12}  ({share} translated)")
    left = fuzzy + untranslated
    if not left:
        lines.append("Every message is translated.")
        return lines
    lines.append("")
    lines.append(
        f"{left} {'message still needs' if left == 1 else 'messages still need'} work "
        f"({fuzzy} fuzzy, {untranslated} untranslated):"
    )
    for entry in stats:
        for kind, numbers in (("fuzzy", entry.fuzzy_lines), ("untranslated", entry.untranslated_lines)):
            if numbers:
                lines.append(f"  {entry.name}: {kind} at line {', '.join(map(str, numbers))}")
    if fuzzy:
        lines.append(
            "A fuzzy entry shows its old English as '#| msgid' lines: check the translation against "
            "the new English, then delete the '#, fuzzy' and '#|' lines."
        )
    lines.append("This exits with status 1, so make reports 'Error 1' below: that is the count above, not a crash.")
    return lines


def main(argv: list[str]) -> int:
    directory = Path(argv[0])
    stats = [catalog_stats(path) for path in sorted(directory.glob("*.po"))]
    print("\n".join(report(stats)))
    return 1 if any(entry.left for entry in stats) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
