"""The JavaScript type check of ``make lint``: TypeScript's ``tsc --noEmit`` over the widgets' scripts.

TypeScript is pinned in ``tests/jscheck/package-lock.json`` and installed by ``make lint``
(``make jscheck-deps``, ``npm ci``), so nothing is fetched at test time.  These tests check
that the gate can fail (the pinned checker with the project's options and shared types names
the file and line that mixes BigInt and Number, calls a shared namespace with the wrong
arguments, or misspells a planner option), that its configuration takes every script of the
extension (``static/`` and ``templates/``), and that ``make lint`` runs it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from browser import missing

REPO = Path(__file__).resolve().parent.parent
JSCHECK = REPO / "tests" / "jscheck"
TSC = JSCHECK / "node_modules" / ".bin" / "tsc"
TSCONFIG = JSCHECK / "tsconfig.json"
EXTENSION = REPO / "docs" / "_ext" / "llmglossary"


def tsc() -> Path:
    """The pinned tsc, or a skip (a failure when CI is set) that says how to install it."""
    if not TSC.exists():
        missing("TypeScript is not installed: run `make jscheck-deps` (npm ci in tests/jscheck)",
                "the JavaScript type check")
    pinned = json.loads((JSCHECK / "package.json").read_text(encoding="utf-8"))["dependencies"]["typescript"]
    version = subprocess.run([TSC, "--version"], capture_output=True, text=True, check=True).stdout
    assert version.strip() == f"Version {pinned}", "tests/jscheck/node_modules is not the pinned TypeScript"
    return TSC


def run_tsc(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tsc(), *map(str, args)], capture_output=True, text=True, cwd=REPO, timeout=120)


def test_the_check_names_the_file_and_line_of_a_type_error(tmp_path: Path) -> None:
    """A script with the project's options and shared types: each mistake fails the check at its line."""
    (tmp_path / "widget.js").write_text(
        "(function () {\n"
        '  "use strict";\n'
        "  const bytes = window.LLMModelCounts.weightBytes(7n, 16n);\n"
        "  const total = bytes + 1;  // BigInt + Number: a TypeError in the browser\n"
        "  window.LLMModelCounts.kvCacheBytes({ n_layers: 2 }, 8, 1, 16);  // a shape without its heads\n"
        "  const extension = (/** @type {PlannerWidget} */ widget) => (/** @type {PlannedResult} */ result) =>\n"
        "    widget.fill(String(result.options.beyond_trained), 'x', '');  // an option misspelt\n"
        "  window.LLMPlannerExtensions = [extension];\n"
        "  return total;\n"
        "})();\n",
        encoding="utf-8",
    )
    (tmp_path / "tsconfig.json").write_text(
        json.dumps({"extends": str(TSCONFIG), "include": ["widget.js", str(JSCHECK / "widgets.d.ts")]}),
        encoding="utf-8",
    )
    result = run_tsc("-p", tmp_path / "tsconfig.json", "--pretty", "false")
    assert result.returncode != 0, result.stdout
    errors = re.findall(r"^(\S+)\((\d+),\d+\): error TS\d+", result.stdout, flags=re.MULTILINE)
    assert {(Path(name).name, int(line)) for name, line in errors} == {("widget.js", line) for line in (4, 5, 7)}, (
        result.stdout
    )


def test_the_check_covers_every_script() -> None:
    """tsconfig.json takes every script of the extension (static/*.js, templates/*.js): none is left unchecked."""
    result = run_tsc("-p", TSCONFIG, "--listFilesOnly")
    assert result.returncode == 0, result.stdout + result.stderr
    listed = {Path(line).resolve() for line in result.stdout.splitlines() if line.strip()}
    scripts = {path.resolve() for folder in ("static", "templates") for path in (EXTENSION / folder).glob("*.js")}
    assert len(scripts) > 10, scripts
    assert scripts - listed == set()


def test_make_lint_runs_the_check() -> None:
    """`make lint` (which `make check` and `make test` run) ends with tsc over that configuration."""
    result = subprocess.run(
        ["make", "-n", "lint"], capture_output=True, text=True, cwd=REPO, check=True, timeout=120,
        env={**os.environ, "MAKEFLAGS": ""},
    )
    assert "tests/jscheck/node_modules/.bin/tsc -p tests/jscheck/tsconfig.json" in result.stdout
