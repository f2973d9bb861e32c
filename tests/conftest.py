"""Shared test set-up: our script folders importable, browser tests decided before their fixtures run."""

from __future__ import annotations

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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # The browser tests share one Chromium (tests/browser.py); it ends with the run.
    close_shared_chromium()
