"""Try the project on the newest releases: what moved past constraints.txt, and what broke.

Usage: python tools/newest.py [--python python3.13] [--keep]   (make newest; needs the package index)

``constraints.txt`` is the lock every build and test uses.  This tool asks what the next
lock would bring before anyone moves it: on the newest Python installed (or the one
given), it creates a fresh virtualenv under ``_build/newest/``, installs the project and its
dependency groups from pyproject.toml's ranges with no lock and ``--upgrade``, and then

1. lists every distribution whose release differs from constraints.txt (``moved``);
2. builds both languages with the Makefile's strictness (``-W --keep-going -n``);
3. runs the fast tier (lint, unit and tiny-site tests) with ``make check``, which includes
   the workaround registry's canaries (``tests/test_workarounds.py``): a canary that fails
   says a pinned workaround meets a release it was not written for.

It prints one line per phase (passed, or failed with the last lines of its output) and
exits 1 when a phase failed, so "what broke" is the phases that failed.  It is not part of
``make test``: it needs the package index, and its answer changes with every release.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CANDIDATES = ("python3.14", "python3.13", "python3.12", "python3.11")
"""The interpreters tried, newest first (the project supports 3.11 and later)."""
GROUPS = ("docs", "test", "lint", "dev")
"""The dependency groups constraints.txt locks: all of them, so that what moved is comparable."""
INSTALLERS = ("pip", "setuptools", "wheel")
"""Left out of the comparison: pip freeze does not list them."""
STRICT = ("-W", "--keep-going", "-n")


@dataclass(frozen=True)
class Phase:
    name: str
    ok: bool
    tail: str
    """The last lines of the phase's output when it failed."""


def newest_python(candidates: Sequence[str] = CANDIDATES) -> str:
    """The newest interpreter that runs and is at least 3.11: on PATH, or installed by pyenv but not selected.

    A pyenv shim of a version the shell has not selected is on PATH but does not run; the
    interpreter itself is under ``$(pyenv root)/versions``.
    """
    pyenv = shutil.which("pyenv")
    root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip() if pyenv else ""
    for name in candidates:
        paths = [shutil.which(name)]
        if root:
            paths += [str(path) for path in sorted(Path(root).glob(f"versions/*/bin/{name}"), reverse=True)]
        for path in filter(None, paths):
            check = subprocess.run([path, "-c", "import sys; sys.exit(sys.version_info < (3, 11))"],
                                   capture_output=True)
            if check.returncode == 0:
                return path
    raise SystemExit(f"newest: none of {', '.join(candidates)} runs here; install one, or give --python")


def pins(text: str) -> dict[str, str]:
    """``name==release`` lines (a lock file or ``pip freeze``), by normalised name; comments and editables skipped.

    >>> pins("# via x\\nSphinx==9.0.4\\n-e file:///repo\\nmyst_parser==5.2.0")
    {'sphinx': '9.0.4', 'myst-parser': '5.2.0'}
    """
    found = {}
    for line in text.splitlines():
        line = line.strip()
        if "==" in line and not line.startswith(("#", "-e")):
            name, release = line.split("==", 1)
            found[re.sub(r"[-_.]+", "-", name).lower()] = release.split(";")[0].strip()
    return found


def moved(locked: dict[str, str], installed: dict[str, str]) -> list[str]:
    """One line per distribution whose release differs, or that one side lacks, sorted by name.

    >>> moved({"sphinx": "9.0.4", "jieba": "0.42.1", "alabaster": "1.0.0"},
    ...       {"sphinx": "9.2.0", "jieba": "0.42.1", "roman-numerals": "4.0"})
    ['alabaster 1.0.0 -> (gone)', 'roman-numerals (new) -> 4.0', 'sphinx 9.0.4 -> 9.2.0']
    """
    lines = []
    for name in sorted(locked.keys() | installed.keys()):
        old, new = locked.get(name), installed.get(name)
        if old != new:
            lines.append(f"{name} {old or '(new)'} -> {new or '(gone)'}")
    return lines


def run(name: str, argv: Sequence[str], env: dict[str, str] | None = None) -> Phase:
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env)
    output = (done.stdout + done.stderr).strip().splitlines()
    return Phase(name, done.returncode == 0, "" if done.returncode == 0 else "\n".join(output[-15:]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", help=f"the interpreter to try (default: the newest of {', '.join(CANDIDATES)})")
    parser.add_argument("--keep", action="store_true", help="reuse _build/newest/venv instead of creating it anew")
    args = parser.parse_args(argv)
    python = args.python or newest_python()
    work = REPO / "_build" / "newest"
    venv = work / "venv"
    if venv.exists() and not args.keep:
        shutil.rmtree(venv)
    work.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if key not in ("PIP_CONSTRAINT", "VIRTUAL_ENV")}
    bin_dir = venv / "bin"
    phases = []
    if not venv.exists():
        phases.append(run("venv", [python, "-m", "venv", str(venv)], env))
    groups = [arg for group in GROUPS for arg in ("--group", group)]
    phases.append(run("install", [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], env))
    phases.append(run("install", [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--upgrade",
                                  "-e", ".[teach]", "-e", "./docs/_ext", *groups], env))
    if not all(phase.ok for phase in phases):
        return report(python, [], phases)
    freeze = subprocess.run([str(bin_dir / "python"), "-m", "pip", "freeze"], capture_output=True, text=True,
                            check=True)
    locked = {name: release for name, release in pins((REPO / "constraints.txt").read_text(encoding="utf-8")).items()
              if name not in INSTALLERS}
    changes = moved(locked, pins(freeze.stdout))
    for language in ("en", "zh_TW"):
        build = [str(bin_dir / "sphinx-build"), "-c", ".", *STRICT, "-q", "-E", "-b", "html", "-D",
                 f"language={language}", "-d", str(work / "doctrees" / language), "docs", str(work / "html" / language)]
        phases.append(run(f"html-{language}", build, env))
    # The fast tier with the new environment: VENV names it, and the stamp says it is installed,
    # so make does not reinstall it from constraints.txt.
    (venv / ".installed").touch()
    phases.append(run("check", ["make", "--no-print-directory", "check", f"VENV={venv.relative_to(REPO)}"], env))
    return report(python, changes, phases)


def report(python: str, changes: list[str], phases: list[Phase]) -> int:
    version = subprocess.run([python, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"newest: {version} ({python}), no lock, the newest releases pyproject.toml's ranges allow")
    print(f"moved past constraints.txt ({len(changes)}):")
    print("\n".join(f"  {line}" for line in changes) or "  nothing")
    print("phases:")
    for phase in phases:
        print(f"  {phase.name}: {'passed' if phase.ok else 'FAILED'}")
        if not phase.ok:
            print("\n".join(f"    | {line}" for line in phase.tail.splitlines()))
    broke = [phase.name for phase in phases if not phase.ok]
    print(f"broke: {', '.join(broke) if broke else 'nothing'}")
    return 1 if broke else 0


if __name__ == "__main__":
    sys.exit(main())
