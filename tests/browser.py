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
it when the session ends.  Opening a page costs more than loading one (a new tab is a
new renderer process: about 0.4 s of CPU here, against 0.2 s for a load in an open tab),
so the tabs are kept too: each tab has a browser context of its own, and the tests of a
locale take the free tabs in turn.  When a test's ``with`` block ends, every tab it used
is put back as a new one would be (``reset_tab``): on ``about:blank``, its cookies
cleared, with a new context's viewport, media emulation and permissions, and
without the test's listeners and init scripts.  A tab that cannot be reset (the test
closed it, or its context) is dropped.  Those are the changes a test may make to a tab;
one that needs another (``route``, ``expose_binding``, ...) must add its undoing here.
``tests/test_browser_harness.py`` checks that none of them reaches the next test.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn

import pytest
from playwright.sync_api import Error as PlaywrightError

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


def require_program(program: str, missing: str, tests: str) -> None:
    """Skip the calling test without ``program`` on the path (``missing`` says why); fail it instead in CI."""
    if shutil.which(program) is not None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{missing}; CI is set, so the {tests} tests may not skip", pytrace=False)
    pytest.skip(missing)


def require_chromium() -> None:
    """Skip the calling test without Chromium; fail it instead when running in CI."""
    require_program("chromium", MISSING, "browser")


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
    _TABS.clear()
    browser, playwright = _SHARED.pop("browser", None), _SHARED.pop("playwright", None)
    if browser is not None and browser.is_connected():
        browser.close()
    if playwright is not None:
        playwright.stop()


VIEWPORT = {"width": 1280, "height": 720}  # Playwright's default for a new context
EMULATION = {"media": "null", "color_scheme": "light", "reduced_motion": "no-preference",
             "forced_colors": "none", "contrast": "no-preference"}  # a new context's (Playwright 1.65)  # fmt: skip

_TABS: dict[str, list[Any]] = {}
"""Free tabs of each locale, each in a browser context of its own, ready for the next test."""


def take_tab(browser: Any, locale: str) -> Any:
    """A free tab of ``locale``, or a new one in a new context."""
    tabs = _TABS.setdefault(locale, [])
    while tabs:
        tab = tabs.pop()
        if not tab.is_closed():
            return tab
    return browser.new_context(locale=locale, viewport=VIEWPORT).new_page()


def reset_tab(tab: Any) -> bool:
    """Put a used tab back as a new one would be; False when it cannot be (closed, or its context is)."""
    if tab.is_closed():
        return False
    # Chromium denies Web Storage to some file: pages (the harness test's) but not to others: a
    # search on a tiny site left "kv" in localStorage, and Sphinx's sphinx_highlight.js then
    # highlighted it inside the next test's SVG figure on page 19 (parent.getBBox is not a function).
    try:
        tab.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (denied) {} }")
        tab.goto("about:blank")
        tab.context.clear_permissions()
        tab.context.clear_cookies()
        tab.set_viewport_size(VIEWPORT)
        tab.emulate_media(**EMULATION)
    except PlaywrightError:  # its context was closed by the test: the tab is gone with it
        return False
    return True


@contextmanager
def browser_page(locale: str = "en-US") -> Iterator[tuple[Any, PageLog]]:
    """A fresh page in headless Chromium, logging errors and every non-file request."""
    with browser_pages(locale) as new_page:
        yield new_page()


@contextmanager
def browser_pages(locale: str = "en-US") -> Iterator[Callable[[], tuple[Any, PageLog]]]:
    """Fresh, logged pages in the run's Chromium: each call of the function it gives opens one.

    Each page is a tab in a context of its own (no storage shared with the test's other
    pages), as a new one would be (no storage, listeners, permissions or emulation left by
    an earlier test), with its own log; leaving the ``with`` block puts them back.
    """
    require_chromium()
    browser = shared_chromium()
    # Each tab the test took, with the listeners put on it and what its add_init_script calls gave.
    taken: list[tuple[Any, list[tuple[str, Callable[..., None]]], list[Any]]] = []

    def new_page() -> tuple[Any, PageLog]:
        log = PageLog()
        page = take_tab(browser, locale)
        listeners: list[tuple[str, Callable[..., None]]] = [
            ("pageerror", lambda error: log.errors.append(str(error))),
            ("console", lambda message: log.errors.append(message.text) if message.type == "error" else None),
            (
                "request",
                lambda request: None
                if request.url.startswith(("file:", "data:", "blob:", "about:"))
                else log.requests.append(request.url),
            ),
        ]
        for event, listener in listeners:
            page.on(event, listener)
        scripts: list[Any] = []
        taken.append((page, listeners, scripts))

        def add_init_script(*args: Any, **kwargs: Any) -> Any:
            """Page.add_init_script, remembered so that the tab's reset removes the script."""
            script = type(page).add_init_script(page, *args, **kwargs)
            scripts.append(script)
            return script

        page.add_init_script = add_init_script
        return page, log

    try:
        yield new_page
    finally:
        for page, listeners, scripts in taken:
            if page.is_closed():
                continue
            for event, listener in listeners:
                page.remove_listener(event, listener)
            del page.add_init_script
            for script in scripts:
                script.close()
            if reset_tab(page):
                _TABS.setdefault(locale, []).append(page)


@contextmanager
def page_per_key(
    locale: str = "en-US", on_open: Callable[[str, Any, PageLog], None] | None = None
) -> Iterator[Callable[[str], tuple[Any, PageLog]]]:
    """One logged page per key (a language, an edition), opened on first use and kept for the block.

    For a module whose tests share a page per key (a module-scoped fixture yields the
    function): each test loads what it reads in it, and ``log`` gathers what every load did.
    ``on_open(key, page, log)``, if given, runs once, when the key's page is opened.
    """
    pages: dict[str, tuple[Any, PageLog]] = {}
    with browser_pages(locale) as new_page:

        def for_key(key: str) -> tuple[Any, PageLog]:
            if key not in pages:
                pages[key] = new_page()
                if on_open is not None:
                    on_open(key, *pages[key])
            return pages[key]

        yield for_key


def missing(message: str, checks: str) -> NoReturn:
    """Skip the calling test for want of a tool a contributor may lack; fail it in CI, which installs the tool."""
    if os.environ.get("CI"):
        pytest.fail(f"{message}; CI is set, so {checks} may not skip", pytrace=False)
    pytest.skip(message)
