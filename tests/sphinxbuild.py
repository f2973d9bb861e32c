"""Build a small Sphinx project in a temporary directory and capture its warnings.

In the style of Sphinx's and MyST-Parser's own extension tests: each test writes a
tiny source tree, builds it in-process, and asserts both the output and the exact
warning stream.
"""

from __future__ import annotations

import io
import os
import re
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

REPO = Path(__file__).resolve().parent.parent

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")

DEFAULT_CONF = """\
extensions = ["myst_parser", "llmglossary.termorder", "llmglossary.termlinks", "llmglossary.termindex"]
exclude_patterns = ["_build"]
"""


@dataclass
class BuildResult:
    srcdir: Path
    outdir: Path
    warnings: str
    status: str  # what the build printed besides its warnings

    def warning_lines(self) -> list[str]:
        return [line for line in self.warnings.splitlines() if line.strip()]

    def html(self, docname: str) -> str:
        return (self.outdir / f"{docname}.html").read_text(encoding="utf-8")


def write_tree(srcdir: Path, files: dict[str, str]) -> None:
    """Write ``files`` (relative path -> text, dedented) below ``srcdir``.

    Each file's modification time is set to the current time at full clock precision
    (``os.utime``): the kernel stamps a write with a coarser clock, which can fall at or
    before the time an earlier build recorded for reading the file, and Sphinx re-reads
    only files modified after that.  So an edit between two builds is always seen, with
    no sleep.
    """
    for name, text in files.items():
        path = srcdir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        now = time.time_ns()
        os.utime(path, ns=(now, now))


def build(
    srcdir: Path,
    *,
    builder: str = "html",
    parallel: int = 0,
    fresh: bool = False,
    overrides: dict[str, object] | None = None,
    verbosity: int = 0,
) -> BuildResult:
    """Build ``srcdir`` (which holds conf.py) into ``srcdir/_build``; keep the environment."""
    if not (srcdir / "conf.py").exists():
        (srcdir / "conf.py").write_text(DEFAULT_CONF, encoding="utf-8")
    status, warnings = io.StringIO(), io.StringIO()
    app = SphinxTestApp(
        builder,
        srcdir=srcdir,
        freshenv=fresh,
        confoverrides=overrides or {},
        status=status,
        warning=warnings,
        parallel=parallel,
        verbosity=verbosity,
    )
    try:
        app.build()
    finally:
        # Unregisters the docutils nodes and directives this app added, so the
        # next build in the same process starts clean.
        app.cleanup()
    return BuildResult(
        srcdir, app.outdir, ANSI_ESCAPE.sub("", warnings.getvalue()), ANSI_ESCAPE.sub("", status.getvalue())
    )
