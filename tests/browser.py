"""Headless Chromium for the browser tests, through Playwright.

Always Debian's system Chromium (/usr/bin/chromium, installed by .ci/run): tests must
never download a browser.  Without it a contributor's run reports the browser tests as
skipped with that reason, never as passed; in CI (``CI`` set, as every CI service does)
they fail instead, so a lost browser cannot turn the browser tier green by skipping.
``conftest.py`` makes that decision before a browser test's fixtures are built.  The
flags stop Chromium's own background traffic, which would otherwise show up as network
requests.

Starting Chromium costs more CPU than most pages it then shows, so one Chromium serves
the whole pytest run: it starts with the first browser test and ``conftest.py`` closes
it when the session ends.  Isolation comes from browser contexts instead: every page
has a context of its own (its own storage, cache and locale), closed when its test's
``with`` block ends, exactly as a fresh browser would give.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
]


@dataclass
class PageLog:
    """What a page did besides rendering: JavaScript errors and non-file requests."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


MISSING = "Debian's chromium is not installed (.ci/run installs it: apt-get install chromium)"


def require_chromium() -> None:
    """Skip the calling test without Chromium; fail it instead when running in CI."""
    if shutil.which("chromium") is not None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{MISSING}; CI is set, so the browser tests may not skip", pytrace=False)
    pytest.skip(MISSING)


_SHARED: dict[str, Any] = {}
"""The run's one Playwright driver and Chromium, started by the first browser test."""


def shared_chromium() -> Any:
    """The run's Chromium, started on first use (and again if it has gone away)."""
    browser = _SHARED.get("browser")
    if browser is not None and browser.is_connected():
        return browser
    close_shared_chromium()
    from playwright.sync_api import sync_playwright

    _SHARED["playwright"] = sync_playwright().start()
    _SHARED["browser"] = _SHARED["playwright"].chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
    return _SHARED["browser"]


def close_shared_chromium() -> None:
    """Close the run's Chromium and its driver, if they were started (conftest.py, at session end)."""
    browser, playwright = _SHARED.pop("browser", None), _SHARED.pop("playwright", None)
    if browser is not None and browser.is_connected():
        browser.close()
    if playwright is not None:
        playwright.stop()


@contextmanager
def browser_page(locale: str = "en-US") -> Iterator[tuple[Any, PageLog]]:
    """A fresh page in headless Chromium, logging errors and every non-file request."""
    with browser_pages(locale) as new_page:
        yield new_page()


@contextmanager
def browser_pages(locale: str = "en-US") -> Iterator[Callable[[], tuple[Any, PageLog]]]:
    """Fresh, logged pages in the run's Chromium: each call of the function it gives opens one.

    Each page has a context of its own (no storage shared between pages) and its own
    log; leaving the ``with`` block closes them all.
    """
    require_chromium()
    browser = shared_chromium()
    contexts: list[Any] = []

    def new_page() -> tuple[Any, PageLog]:
        log = PageLog()
        context = browser.new_context(locale=locale)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: log.errors.append(str(error)))
        page.on(
            "console",
            lambda message: log.errors.append(message.text) if message.type == "error" else None,
        )
        page.on(
            "request",
            lambda request: None
            if request.url.startswith(("file:", "data:", "blob:", "about:"))
            else log.requests.append(request.url),
        )
        return page, log

    try:
        yield new_page
    finally:
        for context in contexts:
            context.close()
