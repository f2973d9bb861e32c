"""What each speed workaround of the registry saves, against the noise of the build it saves in.

A workaround that patches another project's internals for speed earns its upkeep only
if its saving stands out of the noise: the registry keeps those that save at least
twice the noise (``KEEP_FACTOR``) and drops the rest.  This measures both in one run:

* the project is snapshotted (as ``bench_build.py`` does) and its extensions imported
  from the snapshot, so editing the working tree during a run changes nothing;
* each round builds the zh_TW site (the build every speed workaround touches) once with
  every workaround on (the **baseline**) and once with each speed workaround off, all
  side by side, so a slow moment of the machine hits all of them: a fresh build
  (``-E``, empty folders), then the same builds after touching one page;
* a workaround is turned off by emptying its module's version gate (the registry row's
  releases) before Sphinx sets it up, so the build runs exactly what it runs on a
  release the workaround was not written for;
* the **noise** of a step is the pooled standard deviation of every variant's CPU
  seconds over the rounds (:func:`noise`); the **saving** is the median CPU seconds
  with the workaround off minus the baseline's median.

CPU time is user plus system time of each ``sphinx-build`` process, which other work on
the machine moves least.  This is information, not a test: nothing here asserts a time.

Run:  python benchmarks/bench_workarounds.py [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_build import SPHINX_OPTIONS, snapshot_project, touch

KEEP_FACTOR = 2.0
"""A workaround is kept when its saving is at least this many times the noise."""

GATES = {
    "i18nparses": ("llmglossary.i18nparses", "PATCHED_VERSIONS"),
    "mystsettings": ("llmglossary.mystsettings", "PATCHED_VERSIONS"),
    "bibtexplugins": ("llmglossary.bibtexplugins", "PATCHED_VERSIONS"),
    "zhsearch-split": ("llmglossary.zhsearch.language", "REMEMBERED_SPLIT_VERSIONS"),
}
"""The version gate (module, constant) that turns each speed workaround off when emptied."""
SPEED_ROWS = tuple(GATES)
BASELINE = "baseline"
TOUCHED_PAGE = "docs/05-the-transformer.md"
STEPS = ("fresh", "onepage")


def run_sphinx_without(workaround: str, arguments: list[str]) -> int:
    """Run sphinx-build in this process with ``workaround`` off (``baseline``: none off)."""
    import importlib

    from sphinx.cmd.build import main

    if workaround in GATES:
        module, constant = GATES[workaround]
        setattr(importlib.import_module(module), constant, frozenset())
    return main(arguments)


def sphinx_command(snapshot: Path, workaround: str, outdir: Path, extra: list[str]) -> list[str]:
    """One zh_TW HTML build of ``snapshot`` with ``workaround`` off, as this script run again."""
    return [
        sys.executable, __file__, "--run-without", workaround, "--",
        "-c", ".", "-b", "html", "-D", "language=zh_TW", *SPHINX_OPTIONS, *extra,
        "-d", str(outdir / "doctrees"), "docs", str(outdir / "html"),
    ]  # fmt: skip


def timed_builds(snapshot: Path, builds: dict[str, tuple[Path, list[str]]]) -> dict[str, float]:
    """CPU seconds of each build (variant -> its output folder and options), all run side by side.

    Side by side, every variant of a round meets the same moments of a shared machine; each
    process's own CPU time is read when it ends (``os.wait4``), so they do not mix.
    """
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(snapshot / "docs" / "_ext"), str(snapshot)])}
    running = {
        subprocess.Popen(
            sphinx_command(snapshot, name, outdir, extra), cwd=snapshot, env=environment,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        ): name
        for name, (outdir, extra) in builds.items()
    }  # fmt: skip
    seconds: dict[str, float] = {}
    for process, name in running.items():
        errors = process.stderr.read() if process.stderr else ""
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode or errors.strip():
            raise SystemExit(f"{name}: the build failed or warned:\n{errors[-3000:]}")
        seconds[name] = usage.ru_utime + usage.ru_stime
    return seconds


def measure(repeat: int, workdir: Path) -> dict[str, dict[str, list[float]]]:
    """CPU seconds per variant and step, one value per round."""
    snapshot = snapshot_project(workdir)
    variants = [BASELINE, *SPEED_ROWS]
    seconds: dict[str, dict[str, list[float]]] = {name: {step: [] for step in STEPS} for name in variants}
    # One build first, with every workaround on: it warms the caches (.mo files, bytecode, jieba's).
    timed_builds(snapshot, {BASELINE: (workdir / "warm", ["-E"])})
    for round_number in range(repeat):
        outdirs = {name: workdir / f"out-{name}" for name in variants}
        for outdir in outdirs.values():
            shutil.rmtree(outdir, ignore_errors=True)
        fresh = timed_builds(snapshot, {name: (outdir, ["-E"]) for name, outdir in outdirs.items()})
        touch(snapshot / TOUCHED_PAGE)
        onepage = timed_builds(snapshot, {name: (outdir, []) for name, outdir in outdirs.items()})
        for name in variants:
            seconds[name]["fresh"].append(fresh[name])
            seconds[name]["onepage"].append(onepage[name])
        print(f"  round {round_number + 1}/{repeat} done", file=sys.stderr, flush=True)
    return seconds


def noise(seconds: dict[str, dict[str, list[float]]], step: str) -> float:
    """The noise of a step: the pooled standard deviation of every variant's CPU seconds over the rounds.

    Each variant is built once per round, so what differs between its rounds is the
    machine, not the code; pooling the variants gives the estimate their number of
    degrees of freedom (7 with 2 rounds), where the baseline alone would give 1.

    >>> noise({"baseline": {"fresh": [10.0, 12.0]}, "x": {"fresh": [14.0, 14.0]}}, "fresh")
    1.0
    """
    squares = sum(statistics.variance(steps[step]) * (len(steps[step]) - 1) for steps in seconds.values())
    freedom = sum(len(steps[step]) - 1 for steps in seconds.values())
    return (squares / freedom) ** 0.5


def verdicts(seconds: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, dict[str, float | bool]]]:
    """Per speed workaround and step: saving, noise, and whether the saving is at least twice the noise.

    >>> table = verdicts({"baseline": {"fresh": [10.0, 12.0], "onepage": [2.0, 2.2]},
    ...                   "x": {"fresh": [14.0, 16.0], "onepage": [2.1, 2.1]}})
    >>> table["x"]["fresh"]
    {'saving': 4.0, 'noise': 1.41, 'kept': True}
    >>> table["x"]["onepage"]["kept"]
    False
    """
    table: dict[str, dict[str, dict[str, float | bool]]] = {}
    for name, steps in seconds.items():
        if name == BASELINE:
            continue
        table[name] = {}
        for step, values in steps.items():
            step_noise = noise(seconds, step)
            saving = statistics.median(values) - statistics.median(seconds[BASELINE][step])
            table[name][step] = {
                "saving": round(saving, 2),
                "noise": round(step_noise, 2),
                "kept": saving > 0 and saving >= KEEP_FACTOR * step_noise,
            }
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds; at least 2, for a noise (default 3)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--run-without", help=argparse.SUPPRESS)
    parser.add_argument("sphinx_arguments", nargs="*", help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.run_without:
        return run_sphinx_without(arguments.run_without, arguments.sphinx_arguments)
    if arguments.repeat < 2:
        parser.error("--repeat: at least 2 rounds, for a noise")
    with tempfile.TemporaryDirectory(prefix="bench-workarounds-") as folder:
        seconds = measure(arguments.repeat, Path(folder))
    table = verdicts(seconds)
    if arguments.json:
        print(json.dumps({"cpu_seconds": seconds, "verdicts": table}, indent=2))
        return 0
    for step in STEPS:
        baseline = seconds[BASELINE][step]
        print(
            f"\nzh_TW {step}: baseline CPU s {' '.join(f'{v:6.2f}' for v in baseline)}, "
            f"median {statistics.median(baseline):.2f}, noise {noise(seconds, step):.2f}"
        )
        for name in SPEED_ROWS:
            row = table[name][step]
            values = " ".join(f"{v:6.2f}" for v in seconds[name][step])
            verdict = "keep" if row["kept"] else "below twice the noise"
            print(f"  without {name:<15} {values}  saving {row['saving']:6.2f} s: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
