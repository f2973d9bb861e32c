"""Shared test set-up: our script folders importable, browser and Node tests decided before their fixtures run."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
# docs/_ext/llmglossary is an installed package (make install), not a script folder.
for directory in (REPO / "tests", REPO / "tools", REPO / "benchmarks"):
    sys.path.insert(0, str(directory))

from browser import close_shared_chromium, require_chromium  # noqa: E402  (needs tests/ on sys.path, set just above)
from jsnode import require_node  # noqa: E402  (the same)

# Hypothesis's too_slow health check fails a test whose examples take long to generate by the
# wall clock: a timed test, which fails on a loaded machine (a fuzz test did once on 2026-12-02,
# with no failing example to show).  Speed is the benchmarks' business; the tests' deadlines
# are off for the same reason.
settings.register_profile("glossary", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("glossary")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Before any fixture: a browser test that cannot run must not first build its site.
    if item.get_closest_marker("browser") is not None:
        require_chromium()
    if item.get_closest_marker("node") is not None:
        require_node()


def pytest_configure(config: pytest.Config) -> None:
    # Most of what a run allocates lives until it ends: the collected items, imported modules,
    # module fixtures' builds and pages.  A full garbage collection walks all of it, so it
    # waits for 100 collections of the younger generation, not 10.
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, 100)


def pytest_collection_finish(session: pytest.Session) -> None:
    # Collection leaves some 200,000 such objects (modules, items, parametrize ids), which
    # every later full collection walked again.  Frozen, the collector no longer visits them.
    # GC time over the fast tier, measured with gc.callbacks: 6.5 s with neither, 2.2 s
    # with both (the threshold then applies to collection too).
    gc.collect()
    gc.freeze()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # The browser tests share one Chromium (tests/browser.py); it ends with the run.
    close_shared_chromium()
