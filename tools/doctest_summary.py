"""Print one line per language from Sphinx's doctest reports (make doctest).

Usage: python tools/doctest_summary.py _build/doctest/en _build/doctest/zh_TW

Sphinx writes ``output.txt`` into each doctest output directory; this condenses the
"Doctest summary" block of each into ``<lang>: N tests, F failures`` and exits
non-zero if any report is missing or has failures.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SUMMARY = re.compile(
    r"^\s*(?P<tests>\d+) tests?\n\s*(?P<failures>\d+) failures? in tests\n"
    r"\s*(?P<setup>\d+) failures? in setup code\n\s*(?P<cleanup>\d+) failures? in cleanup code",
    re.MULTILINE,
)


def summarise(outdir: Path) -> tuple[int, int]:
    """Return (tests, failures) from ``outdir/output.txt``."""
    report = outdir / "output.txt"
    match = SUMMARY.search(report.read_text(encoding="utf-8"))
    if match is None:
        raise ValueError(f"{report}: no 'Doctest summary' block found")
    failures = sum(int(match[group]) for group in ("failures", "setup", "cleanup"))
    return int(match["tests"]), failures


def main(argv: list[str]) -> int:
    status = 0
    for outdir in map(Path, argv):
        try:
            tests, failures = summarise(outdir)
        except (OSError, ValueError) as error:
            print(f"{outdir.name}: {error}")
            status = 1
            continue
        print(f"{outdir.name}: {tests} examples run, {failures} failures")
        status |= failures > 0
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
