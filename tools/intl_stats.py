"""Per-catalog translation statistics (make intl-stats).

Usage: python tools/intl_stats.py locales/zh_TW/LC_MESSAGES

Prints translated / fuzzy / untranslated counts for every ``.po`` file and a total,
and exits non-zero when anything is fuzzy or untranslated: Sphinx shows the English
text for both, silently, even under ``-W``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.pofile import read_po


def catalog_counts(path: Path) -> tuple[int, int, int]:
    """Return (translated, fuzzy, untranslated) for one ``.po`` file."""
    with path.open("rb") as handle:
        catalog = read_po(handle, abort_invalid=True)
    translated = fuzzy = untranslated = 0
    for message in catalog:
        if not message.id:
            continue  # the header
        if message.fuzzy:
            fuzzy += 1
        elif message.string:
            translated += 1
        else:
            untranslated += 1
    return translated, fuzzy, untranslated


def main(argv: list[str]) -> int:
    directory = Path(argv[0])
    totals = [0, 0, 0]
    print(f"{'catalog':<40} {'translated':>10} {'fuzzy':>6} {'untranslated':>12}")
    for path in sorted(directory.glob("*.po")):
        counts = catalog_counts(path)
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        print(f"{path.name:<40} {counts[0]:>10} {counts[1]:>6} {counts[2]:>12}")
    translated, fuzzy, untranslated = totals
    messages = translated + fuzzy + untranslated
    share = 100 * translated / messages if messages else 100.0
    print(f"{'total':<40} {translated:>10} {fuzzy:>6} {untranslated:>12}  ({share:.1f}% translated)")
    return 1 if fuzzy or untranslated else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
