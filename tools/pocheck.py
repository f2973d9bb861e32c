"""Strict syntax check for gettext ``.po`` files.

Usage: python tools/pocheck.py locales/zh_TW/LC_MESSAGES/*.po

Sphinx (9.0.4) compiles a malformed catalog without a word, e.g. one with an
unterminated string, and babel's reader accepts it too, so a broken translation
would build with exit status 0 and silently show English.  This checker follows the
PO grammar line by line and reports ``file:line: problem``; the test suite runs it
over every catalog.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

KEYWORD = re.compile(r"^(msgctxt|msgid|msgid_plural|msgstr|msgstr\[\d+\])\s+(.*)$")
STRING = re.compile(r'^"(?:[^"\\]|\\[\\"abfnrtv]|\\[0-7]{1,3}|\\x[0-9a-fA-F]+)*"$')


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def check_po(path: Path) -> list[Problem]:
    """Every syntax problem in ``path``, in file order (empty when the file is valid)."""
    problems: list[Problem] = []
    previous: str | None = None  # the keyword whose string the next "..." line continues
    expecting_msgstr_from: int | None = None
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            # An obsolete entry (#~) or a comment ends nothing: a blank line ends an entry.
            if not line:
                previous = None
            continue
        match = KEYWORD.match(line)
        if match:
            keyword, rest = match.groups()
            if keyword == "msgid" and expecting_msgstr_from is not None:
                problems.append(
                    Problem(path, expecting_msgstr_from, "msgid without a following msgstr")
                )
            if keyword == "msgid":
                expecting_msgstr_from = number
            elif keyword.startswith("msgstr"):
                if expecting_msgstr_from is None:
                    problems.append(Problem(path, number, f"{keyword} without a preceding msgid"))
                expecting_msgstr_from = None
            previous = keyword
            line = rest.strip()
        elif previous is None:
            problems.append(Problem(path, number, f"unexpected text outside an entry: {raw!r}"))
            continue
        if not STRING.match(line):
            problems.append(
                Problem(path, number, f"malformed string (unterminated or bad escape): {raw!r}")
            )
    if expecting_msgstr_from is not None:
        problems.append(Problem(path, expecting_msgstr_from, "msgid without a following msgstr"))
    return problems


def main(argv: list[str]) -> int:
    problems = [problem for name in argv for problem in check_po(Path(name))]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
