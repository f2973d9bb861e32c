"""The README's table of our Sphinx extensions, made from each module's docstring.

Usage: python tools/extension_table.py [--write README.md]

Prints one row per module of ``docs/_ext/llmglossary`` (subpackages' modules included):
its path in the package and the first line of its docstring, which says why the module
exists.  With ``--write``, replaces the table under the README's marker line instead.
``tests/test_workarounds.py`` checks that the README holds this table, so a module added,
removed or re-described cannot leave the README behind.  The docstrings are read with
``ast``, without importing the modules (which would need Sphinx).
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "docs" / "_ext" / "llmglossary"
MARKER = "<!-- generated from the docstrings of docs/_ext/llmglossary (tools/extension_table.py); tests check it -->"


def summary(path: Path) -> str:
    """The first line of a module's docstring; a module without one is an error naming it."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not docstring:
        raise SystemExit(f"{path.relative_to(REPO)} has no docstring: say why the module exists")
    return docstring.splitlines()[0].replace("|", "\\|")


def extension_table(package: Path = PACKAGE) -> str:
    """The markdown table: module (``calculators/labels.py``) and why it exists, in path order.

    >>> extension_table().splitlines()[:2]
    ['| Module | Why it exists |', '| --- | --- |']
    """
    lines = ["| Module | Why it exists |", "| --- | --- |"]
    for path in sorted(package.rglob("*.py"), key=lambda path: path.relative_to(package).parts):
        lines.append(f"| `{path.relative_to(package).as_posix()}` | {summary(path)} |")
    return "\n".join(lines)


def write_into(readme: Path) -> None:
    """Replace the table that follows :data:`MARKER` in ``readme``."""
    lines = readme.read_text(encoding="utf-8").split("\n")
    if MARKER not in lines:
        raise SystemExit(f"{readme}: no line {MARKER!r} to put the table under")
    start = lines.index(MARKER) + 1
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines[start:end] = extension_table().split("\n")
    readme.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, metavar="README", help="replace the table in this file")
    arguments = parser.parse_args(argv)
    if arguments.write:
        write_into(arguments.write)
    else:
        print(extension_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
