"""Strict syntax check for gettext ``.po`` files, by GNU gettext's own ``msgfmt``.

Usage: python tools/pocheck.py locales/zh_TW/LC_MESSAGES/*.po

Sphinx (9.0.4) compiles a malformed catalog without a word, e.g. one with an
unterminated string, and babel's reader accepts it too, so a broken translation
would build with exit status 0 and silently show English.  ``msgfmt`` is the reference
parser of the format and reports every error as ``file:line[:column]: problem``; this
wrapper runs it on each catalog and returns those problems (the test suite runs it over
every catalog).  It replaces a hand-written parser: msgfmt meets both requirements
(exact error location, no network) and is one Debian package (``gettext``, installed by
``.ci/run``).  Only syntax is checked: ``msgfmt --check`` would also reject the
``python-format`` flag that Babel sets on any message containing ``%``, which our
catalogs use for plain percentages.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPORT = re.compile(r"^(?P<path>.+?):(?P<line>\d+)(?::\d+)?: (?P<message>.+)$")


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def check_po(path: Path) -> list[Problem]:
    """Every syntax error msgfmt finds in ``path``, in file order (empty when valid)."""
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        raise FileNotFoundError("msgfmt is not installed (Debian: apt-get install gettext; .ci/run installs it)")
    result = subprocess.run(
        [msgfmt, "-o", "/dev/null", str(path)], capture_output=True, text=True, encoding="utf-8", check=False
    )
    problems = []
    for line in result.stderr.splitlines():
        match = REPORT.match(line)
        if match and match["path"] == str(path) and not match["message"].startswith("warning:"):
            problems.append(Problem(path, int(match["line"]), match["message"]))
    if result.returncode != 0 and not problems:
        raise RuntimeError(f"msgfmt failed on {path} without a located error: {result.stderr.strip()}")
    return problems


def main(argv: list[str]) -> int:
    problems = [problem for name in argv for problem in check_po(Path(name))]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
