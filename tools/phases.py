"""Run a make target's phases one after another, saying which one runs, then time each.

Usage: python tools/phases.py TITLE NAME=COMMAND [NAME=COMMAND ...]

Each COMMAND runs through the shell.  Before it starts, a line names the phase
(``==> make test: phase 2/6, html``); after the last one, or after the first that
fails, a table gives each phase's wall-clock time and its CPU time (user + system of
every process it started, and of every process those started).  CPU time is the figure
to compare between machines and runs: on a shared machine the wall-clock time mostly
measures the others.  The exit status is the failing phase's, or 0.

A process's CPU time reaches its parent's account only when the parent waits for it.  A
process whose parent exits first is handed to the nearest "subreaper", normally init, and
its time is lost to whoever started the tree: Chromium's renderers are such orphans
(Playwright closes the browser, which leaves them to exit after it).  Counted through
``RUSAGE_CHILDREN`` alone, an axe run of the accessibility test that kept Chromium busy
for 30 s of CPU showed as 4 s (2026-12-02).  So on Linux this process makes itself the
subreaper of everything it starts (``prctl(PR_SET_CHILD_SUBREAPER)``), and after each
phase waits for the orphans handed to it, which adds their time to the phase's.  Where
that is not possible the table says that orphans are not counted.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
ORPHAN_WAIT = 30.0
"""Seconds to wait after a phase for the orphans it left to exit (Chromium's take well under one)."""


@dataclass
class Phase:
    name: str
    command: str
    wall: float = 0.0
    cpu: float = 0.0
    status: int | None = None


def parse_phase(argument: str) -> Phase:
    """``NAME=COMMAND`` -> Phase; a clear error for anything else.

    >>> parse_phase("lint=make lint")
    Phase(name='lint', command='make lint', wall=0.0, cpu=0.0, status=None)
    >>> parse_phase("make lint")
    Traceback (most recent call last):
    ...
    ValueError: a phase is NAME=COMMAND (e.g. lint='make lint'); got 'make lint'
    """
    name, separator, command = argument.partition("=")
    if not separator or not name or not command or " " in name:
        raise ValueError(f"a phase is NAME=COMMAND (e.g. lint='make lint'); got {argument!r}")
    return Phase(name, command)


def adopt_orphans() -> bool:
    """Make this process the subreaper of its descendants; False where the system has none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


def reap_orphans(deadline: float) -> bool:
    """Wait for every orphan handed to this process, so that its CPU time is counted.

    False if some still run at ``deadline`` (a ``time.monotonic()`` value).
    """
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True  # none left
        if pid == 0:  # some still run
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def minutes(seconds: float) -> str:
    """
    >>> minutes(75.25)
    '1:15.2'
    >>> minutes(3.0)
    '0:03.0'
    """
    whole, fraction = divmod(seconds, 60)
    return f"{int(whole)}:{fraction:04.1f}"


def report(title: str, phases: list[Phase], orphans_counted: bool = True) -> str:
    """The closing table: one row per phase that ran, then the total.

    >>> print(report("make check", [Phase("lint", "", 1.5, 1.25, 0), Phase("pytest", "", 30, 20, 1)]))
    ==> make check: time per phase (CPU = user + system of all its processes)
        phase       wall      CPU  result
        lint      0:01.5    1.2 s  ok
        pytest    0:30.0   20.0 s  FAILED (exit 1)
        total     0:31.5   21.2 s
    >>> print(report("make check", [Phase("lint", "", 1.5, 1.25, 0)], orphans_counted=False).splitlines()[0])
    ==> make check: time per phase (CPU = user + system of its processes, orphans not counted on this system)
    """
    width = max(len("phase"), *(len(phase.name) for phase in phases))
    counted = "all its processes" if orphans_counted else "its processes, orphans not counted on this system"
    lines = [f"==> {title}: time per phase (CPU = user + system of {counted})"]
    lines.append(f"    {'phase':<{width}}  {'wall':>8}  {'CPU':>7}  result")
    for phase in phases:
        if phase.status is None:
            continue
        result = "ok" if phase.status == 0 else f"FAILED (exit {phase.status})"
        lines.append(f"    {phase.name:<{width}}  {minutes(phase.wall):>8}  {phase.cpu:>5.1f} s  {result}")
    ran = [phase for phase in phases if phase.status is not None]
    total_wall, total_cpu = sum(p.wall for p in ran), sum(p.cpu for p in ran)
    lines.append(f"    {'total':<{width}}  {minutes(total_wall):>8}  {total_cpu:>5.1f} s")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    title = argv[0]
    try:
        phases = [parse_phase(argument) for argument in argv[1:]]
    except ValueError as error:
        print(f"phases.py: {error}", file=sys.stderr)
        return 2
    status = 0
    orphans_counted = adopt_orphans()
    for number, phase in enumerate(phases, 1):
        print(f"==> {title}: phase {number}/{len(phases)}, {phase.name}", flush=True)
        started, cpu_before = time.monotonic(), children_cpu()
        phase.status = subprocess.run(phase.command, shell=True, env=os.environ, check=False).returncode
        if orphans_counted and not reap_orphans(time.monotonic() + ORPHAN_WAIT):
            print(f"==> {title}: {phase.name} left processes running after {ORPHAN_WAIT:.0f} s; "
                  "their CPU time is not counted", flush=True)
        phase.wall, phase.cpu = time.monotonic() - started, children_cpu() - cpu_before
        if phase.status != 0:
            status = phase.status if phase.status > 0 else 1  # killed by a signal: still a failure
            break
    print(report(title, phases, orphans_counted), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
