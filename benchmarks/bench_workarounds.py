"""What each speed workaround of the registry saves, against the noise of the build it saves in.

A workaround that patches another project's internals for speed earns its upkeep only
if its saving stands out of the noise: the registry keeps those that save at least
twice the noise (``KEEP_FACTOR``) and drops the rest.  This measures both in one run:

* the project is snapshotted (as ``bench_build.py`` does) and its extensions imported
  from the snapshot, so editing the working tree during a run changes nothing;
* each round builds the zh_TW site (the build every speed workaround touches) once with
  every workaround on (the **baseline**) and once with each speed workaround off, in
  turn, in a new order every round, so a slow moment of the machine hits all of them:
  a fresh build (``-E``, empty folders), then the same build after touching one page;
* a workaround is turned off by emptying its module's version gate (the registry row's
  releases) before Sphinx sets it up, so the build runs exactly what it runs on a
  release the workaround was not written for.  ``zhsearch-jieba`` has no gate (jieba's
  last release is from 2020): off, its prefix dictionary loads nothing and jieba loads
  its own cache, as stock;
* the **noise** of a step is the sample standard deviation of the baseline's CPU
  seconds over the rounds; the **saving** is the median CPU seconds with the workaround
  off minus the baseline's median.

CPU time is user plus system time of each ``sphinx-build`` process, which other work on
the machine moves least.  This is information, not a test: nothing here asserts a time.

Run:  python benchmarks/bench_workarounds.py [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
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
    "codelinks": ("llmglossary.codelinks", "PATCHED_VERSIONS"),
    "bibtexplugins": ("llmglossary.bibtexplugins", "PATCHED_VERSIONS"),
    "zhsearch-split": ("llmglossary.zhsearch.language", "REMEMBERED_SPLIT_VERSIONS"),
}
"""The version gate (module, constant) that turns each speed workaround off when emptied."""
SPEED_ROWS = (*GATES, "zhsearch-jieba")
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
    elif workaround == "zhsearch-jieba":
        from llmglossary.zhsearch.prefixdictionary import PrefixDictionary

        def load_nothing(self: PrefixDictionary, tokenizer: object) -> None:
            return None

        PrefixDictionary.load_into = load_nothing  # type: ignore[method-assign]
    return main(arguments)


def timed_build(snapshot: Path, workaround: str, outdir: Path, extra: list[str]) -> float:
    """CPU seconds of one zh_TW HTML build of ``snapshot`` with ``workaround`` off."""
    command = [
        sys.executable, __file__, "--run-without", workaround, "--",
        "-c", ".", "-b", "html", "-D", "language=zh_TW", *SPHINX_OPTIONS, *extra,
        "-d", str(outdir / "doctrees"), "docs", str(outdir / "html"),
    ]  # fmt: skip
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(snapshot / "docs" / "_ext"), str(snapshot)])}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    finished = subprocess.run(command, cwd=snapshot, env=environment, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if finished.returncode or finished.stderr.strip():
        raise SystemExit(f"{workaround}: the build failed or warned:\n{finished.stderr[-3000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(repeat: int, workdir: Path) -> dict[str, dict[str, list[float]]]:
    """CPU seconds per variant and step, one value per round."""
    snapshot = snapshot_project(workdir)
    variants = [BASELINE, *SPEED_ROWS]
    seconds: dict[str, dict[str, list[float]]] = {name: {step: [] for step in STEPS} for name in variants}
    # One build first, with every workaround on: it warms the caches (.mo files, bytecode, jieba's).
    timed_build(snapshot, BASELINE, workdir / "warm", ["-E"])
    for round_number in range(repeat):
        order = random.Random(round_number).sample(variants, len(variants))
        for name in order:
            outdir = workdir / f"out-{name}"
            shutil.rmtree(outdir, ignore_errors=True)
            seconds[name]["fresh"].append(timed_build(snapshot, name, outdir, ["-E"]))
            touch(snapshot / TOUCHED_PAGE)
            seconds[name]["onepage"].append(timed_build(snapshot, name, outdir, []))
        print(f"  round {round_number + 1}/{repeat} done", file=sys.stderr, flush=True)
    return seconds


def verdicts(seconds: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, object]]:
    """Per speed workaround and step: saving, noise, and whether the saving is at least twice the noise.

    >>> table = verdicts({"baseline": {"fresh": [10.0, 11.0, 12.0], "onepage": [2.0, 2.0, 2.0]},
    ...                   "x": {"fresh": [14.0, 15.0, 13.0], "onepage": [2.1, 2.0, 2.2]}})
    >>> table["x"]["fresh"]
    {'saving': 3.0, 'noise': 1.0, 'kept': True}
    >>> table["x"]["onepage"]  # 0.1 s saved, in a noise of 0: kept, but 0.1 s is worth no patch
    {'saving': 0.1, 'noise': 0.0, 'kept': True}
    """
    table: dict[str, dict[str, object]] = {}
    for name, steps in seconds.items():
        if name == BASELINE:
            continue
        table[name] = {}
        for step, values in steps.items():
            baseline = seconds[BASELINE][step]
            noise = statistics.stdev(baseline)
            saving = statistics.median(values) - statistics.median(baseline)
            table[name][step] = {
                "saving": round(saving, 2),
                "noise": round(noise, 2),
                "kept": saving > 0 and saving >= KEEP_FACTOR * noise,
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
            f"median {statistics.median(baseline):.2f}, noise (stdev) {statistics.stdev(baseline):.2f}"
        )
        for name in SPEED_ROWS:
            row = table[name][step]
            values = " ".join(f"{v:6.2f}" for v in seconds[name][step])
            verdict = "keep" if row["kept"] else "below twice the noise"
            print(f"  without {name:<15} {values}  saving {row['saving']:6.2f} s: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
