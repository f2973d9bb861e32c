"""Headless Chromium for the browser tests, through Playwright.

Always Debian's system Chromium (/usr/bin/chromium, installed by .ci/run): tests must
never download a browser.  Without it the browser tests are skipped with that reason,
so a machine without Chromium reports them as skipped, never as passed.  The flags stop
Chromium's own background traffic, which would otherwise show up as network requests.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

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


def require_chromium() -> None:
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it: apt-get install chromium)")


@contextmanager
def browser_page(locale: str = "en-US") -> Iterator[tuple[object, PageLog]]:
    """A fresh page in headless Chromium, logging errors and every non-file request."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    log = PageLog()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            context = browser.new_context(locale=locale)
            page = context.new_page()
            page.on("pageerror", lambda error: log.errors.append(str(error)))
            page.on(
                "console",
                lambda message: log.errors.append(message.text) if message.type == "error" else None,
            )
            page.on(
                "request",
                lambda request: None if request.url.startswith(("file:", "data:", "blob:", "about:")) else log.requests.append(request.url),
            )
            yield page, log
        finally:
            browser.close()
