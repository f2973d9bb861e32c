"""The Makefile keeps the guides' promises: the targets they name, the phase report, a self-healing .venv.

- ``make help`` lists every target README.md and CONTRIBUTING.md tell a contributor to run;
- ``tools/phases.py`` (``make check`` and ``make test``) names each phase as it starts,
  stops at the first failure and ends with each phase's time, orphaned processes' CPU included;
- ``.venv`` is remade when its Python is gone or too old, and a machine whose only Python
  is too old gets one message saying what to install, before anything is created.  The
  old Python is a fake ``python3`` (a script that answers as Python 3.10.13 does) first on
  ``PATH``, in a copy of the files the venv rule reads.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from phases import Phase, report

REPO = Path(__file__).resolve().parent.parent
GUIDES = ("README.md", "CONTRIBUTING.md")
MAKE = shutil.which("make") or "make"
# A shell script that answers as a Python 3.10.13 would: to the version probes of the
# Makefile and venv_python.py, and by running a script with its version set to 3.10.13.
FAKE_PYTHON_310 = f"""#!/bin/sh
if [ "$1" = "-c" ]; then
    case "$2" in
        *"print('%d.%d.%d'"*) echo 3.10.13; exit 0 ;;
        *"print(int("*) echo 0; exit 0 ;;
        *) exit 1 ;;
    esac
fi
exec {sys.executable} -c '
import runpy, sys
sys.version_info = (3, 10, 13, "final", 0)
sys.version = "3.10.13 (fake)"
sys.executable = "{{fake}}"
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
' "$@"
"""


def make(*arguments: str, cwd: Path = REPO, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path or os.environ["PATH"]}
    for variable in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS"):  # when pytest itself runs under make
        env.pop(variable, None)
    if path is not None:
        # A machine with only ``path``: make exports a command-line PYTHON=... (``make test PYTHON=python3.13``)
        # to its recipes, which would choose the Python this simulated machine does not have.
        env.pop("PYTHON", None)
    return subprocess.run(
        [MAKE, "--no-print-directory", *arguments], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def guide_targets() -> set[str]:
    """Every target of a `make ...` command the guides show, in code spans and code blocks.

    The command starts the code (or follows ``&&``); options and variable assignments
    are not targets, and ``make`` inside another command (``apt-get install make``) is none.
    """
    targets = set()
    for guide in GUIDES:
        text = (REPO / guide).read_text(encoding="utf-8")
        blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
        spans = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL))
        for code in [line for block in blocks for line in block.splitlines()] + spans:
            for words in re.findall(r"(?:^|&&)\s*make((?: +[A-Za-z0-9_.%=-]+)+)", code.split("#")[0]):
                targets |= {word for word in words.split() if "=" not in word and not word.startswith("-")}
    return targets


def test_make_help_lists_every_target_the_guides_name() -> None:
    listed = re.findall(r"^  make (\S+)", make("help").stdout, flags=re.MULTILINE)
    assert {"doctest-%", "text-%", "latex-%", "check", "test"} <= set(listed)
    unlisted = sorted(
        target for target in guide_targets() if not any(fnmatch.fnmatchcase(target, name.replace("%", "*"))
                                                        for name in listed)
    )
    assert guide_targets() >= {"html", "test", "check", "doctest-en"}
    assert unlisted == []


def test_phases_name_each_phase_stop_at_the_first_failure_and_time_each(tmp_path: Path) -> None:
    busy = f"{sys.executable} -c 'sum(range(3_000_000))'"
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "phases.py"), "make demo", f"busy={busy}", "idle=true",
         "broken=exit 3", "never=touch never-ran"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 3
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("==> make demo: phase")] == [
        "==> make demo: phase 1/4, busy", "==> make demo: phase 2/4, idle", "==> make demo: phase 3/4, broken"
    ]
    rows = {line.split()[0]: line.split() for line in lines if line.startswith("    ")}
    assert list(rows) == ["phase", "busy", "idle", "broken", "total"]
    assert rows["broken"][-3:] == ["FAILED", "(exit", "3)"] and rows["busy"][-1] == rows["idle"][-1] == "ok"
    cpu = {name: float(rows[name][2]) for name in ("busy", "idle", "total")}
    assert cpu["busy"] > cpu["idle"] and cpu["total"] >= cpu["busy"]
    assert not (tmp_path / "never-ran").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the subreaper is Linux's (prctl)")
def test_phases_count_the_cpu_of_processes_orphaned_by_their_parent(tmp_path: Path) -> None:
    """A phase's CPU includes an orphan's: here a busy process whose shell exits at once, as Chromium's renderers do.

    The orphan burns 0.4 s of CPU by its own clock (``time.process_time``) and writes the
    clock's reading when done, so the oracle is the process's own measure.  Counted through
    ``RUSAGE_CHILDREN`` alone the phase shows the shell's few milliseconds.
    """
    (tmp_path / "burn.py").write_text(
        "import time\nwhile time.process_time() < 0.4:\n    pass\nopen('burned', 'w').write(str(time.process_time()))\n"
    )
    orphan = f"orphan={sys.executable} burn.py &"  # the shell exits at once, leaving the busy process
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "phases.py"), "make demo", orphan, "next=true"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines() if line.startswith("    ")}
    burned = float((tmp_path / "burned").read_text())  # written before the orphan exits: the phase waited for it
    assert float(rows["orphan"][2]) >= burned - 0.05, result.stdout
    assert float(rows["next"][2]) < 0.2, result.stdout
    assert "(CPU = user + system of all its processes)" in result.stdout


def test_the_phase_report_adds_up() -> None:
    table = report("make x", [Phase("a", "", 61.0, 2.0, 0), Phase("b", "", 1.0, 3.5, 0), Phase("c", "")])
    assert table.splitlines()[-1].split() == ["total", "1:02.0", "5.5", "s"]
    assert "c " not in table


def the_venv_rule(tmp_path: Path) -> Path:
    """A directory with what the Makefile's .venv rule reads, and a fake Python 3.10 first on PATH."""
    project = tmp_path / "project"
    (project / "tools").mkdir(parents=True)
    (project / "docs" / "_ext").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml", "docs/_ext/pyproject.toml", "constraints.txt", "tools/venv_python.py"):
        shutil.copy(REPO / name, project / name)
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    fake.write_text(FAKE_PYTHON_310.replace("{fake}", str(fake)), encoding="utf-8")
    fake.chmod(0o755)
    return project


def test_a_machine_whose_only_python_is_too_old_gets_one_message_and_no_venv(tmp_path: Path) -> None:
    project = the_venv_rule(tmp_path)
    result = make("install", cwd=project, path=str(tmp_path / "bin"))
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\*", line)]
    assert errors == [
        f"error: this project needs Python >= 3.11, and make's PYTHON ({tmp_path / 'bin' / 'python3'}) is 3.10.13. "
        "Install Python 3.11 or newer (Debian/Ubuntu: README.md, Quick start), then run make again; "
        "if `python3` stays older, name the new one: make PYTHON=python3.11 html"
    ]
    assert not (project / ".venv").exists()


@pytest.mark.parametrize("damage", ["interpreter removed", "made by Python 3.10"])
def test_a_venv_whose_python_is_gone_or_too_old_is_rebuilt_and_says_why(tmp_path: Path, damage: str) -> None:
    project = the_venv_rule(tmp_path)
    python = project / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    if damage == "interpreter removed":
        python.symlink_to(tmp_path / "python3.11-that-was-uninstalled")
        why = f"its interpreter {tmp_path / 'python3.11-that-was-uninstalled'} is gone"
    else:
        python.symlink_to(tmp_path / "bin" / "python3")
        why = "it was made by Python 3.10.13, and this project needs Python >= 3.11"
    (project / ".venv" / ".installed").touch()  # newer than pyproject.toml: only the Python is wrong
    # make sees the stale venv although its stamp is up to date ...
    assert "tools/venv_python.py .venv" in make("-n", "install", cwd=project).stdout
    # ... and its first step, run by a new enough Python, says why and clears the way.
    step = subprocess.run(
        [sys.executable, "tools/venv_python.py", ".venv"], cwd=project, capture_output=True, text=True, check=False
    )
    assert (step.returncode, step.stderr) == (0, f"Rebuilding .venv: {why}.\n")
    assert not (project / ".venv").exists()


def test_a_working_venv_is_left_alone(tmp_path: Path) -> None:
    project = the_venv_rule(tmp_path)
    python = project / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    (project / ".venv" / ".installed").touch()
    assert make("-q", "install", cwd=project).returncode == 0  # up to date: nothing to do
    step = subprocess.run(
        [str(tmp_path / "bin" / "python3"), "tools/venv_python.py", ".venv"],
        cwd=project, capture_output=True, text=True, check=False,
    )
    assert (step.returncode, step.stderr) == (0, "")  # even when make's own python3 is too old
    assert python.is_symlink()


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_each_doctest_target_prints_its_count(language: str) -> None:
    """`make doctest-<lang>` ends with tools/doctest_summary.py on its own report ("N examples run, F failures")."""
    commands = make("-n", "-o", ".venv/.installed", "-o", f"html-{language}", f"doctest-{language}").stdout.splitlines()
    assert commands[-1] == f".venv/bin/python tools/doctest_summary.py _build/doctest/{language}"
    assert f"-b doctest -D language={language} " in commands[-2] and commands[-2].endswith(f"_build/doctest/{language}")


def test_make_html_stops_at_a_catalog_that_does_not_parse_naming_its_file_and_line(tmp_path: Path) -> None:
    """Sphinx builds a zh_TW page from a broken catalog without a word (in English): make names the line first."""
    project = tmp_path / "project"
    (project / "tools").mkdir(parents=True)
    (project / "locales" / "zh_TW" / "LC_MESSAGES").mkdir(parents=True)
    shutil.copy(REPO / "Makefile", project / "Makefile")
    shutil.copy(REPO / "tools" / "pocheck.py", project / "tools" / "pocheck.py")
    venv = project / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(sys.executable)
    catalog = project / "locales" / "zh_TW" / "LC_MESSAGES" / "page.po"
    catalog.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Token"\nmsgstr "詞元\n',
        encoding="utf-8",
    )
    # INSTALLED= : no .venv to make; the catalog check runs before sphinx-build would.
    result = make("html-zh_TW", "INSTALLED=", cwd=project)
    assert result.returncode != 0
    assert f"{catalog.relative_to(project)}:7: end-of-line within string" in result.stdout  # msgfmt's line
    assert "sphinx-build" not in result.stdout + result.stderr
