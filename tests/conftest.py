"""Shared test set-up: our script folders importable, browser tests decided before their fixtures run."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# docs/_ext/llmglossary is an installed package (make install), not a script folder.
for directory in (REPO / "tests", REPO / "tools", REPO / "benchmarks"):
    sys.path.insert(0, str(directory))

from browser import close_shared_chromium, require_chromium  # noqa: E402  (needs tests/ on sys.path, set just above)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Before any fixture: a browser test that cannot run must not first build its site.
    if item.get_closest_marker("browser") is not None:
        require_chromium()


def pytest_collection_finish(session: pytest.Session) -> None:
    # Collection leaves some 200,000 objects that live until the run ends (modules, items,
    # parametrize ids), and every full garbage collection walked them all again: about 30
    # of them, 4-5 s of the fast tier's CPU.  Frozen, the collector no longer visits them.
    # A full collection then waits for 100 younger ones, not 10: what the tests keep (module
    # fixtures' builds and pages, imported modules) lives long too.  GC time measured with
    # gc.callbacks over the fast tier: 6.5 s before, 3.3 s after.
    gc.collect()
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, 100)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # The browser tests share one Chromium (tests/browser.py); it ends with the run.
    close_shared_chromium()
