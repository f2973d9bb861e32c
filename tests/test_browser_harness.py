"""Without Debian's Chromium the browser tests skip with the reason; in CI they fail."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

import browser
import conftest


@pytest.fixture
def no_chromium(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(browser.shutil, "which", lambda name: None)
    return monkeypatch


def test_missing_chromium_skips_with_the_install_hint(no_chromium: pytest.MonkeyPatch) -> None:
    no_chromium.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"chromium is not installed \(\.ci/run installs it"):
        with browser.browser_page():
            pytest.fail("the browser must not start")


def test_missing_chromium_fails_in_ci(no_chromium: pytest.MonkeyPatch) -> None:
    no_chromium.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"chromium is not installed .*CI is set"):
        with browser.browser_page():
            pytest.fail("the browser must not start")


SITE_TESTS = """
from pathlib import Path

import pytest

BUILT = []

@pytest.fixture
def site():
    BUILT.append("site")

@pytest.mark.browser
def test_page(site):
    pass

def test_nothing_was_built():
    assert BUILT == []
"""


def test_a_browser_test_is_decided_before_its_fixtures_are_built(
    no_chromium: pytest.MonkeyPatch, pytester: pytest.Pytester
) -> None:
    no_chromium.delenv("CI", raising=False)
    pytester.makepyfile(test_chromium_probe=SITE_TESTS)  # a name no test module of ours has
    result = pytester.runpytest_inprocess(plugins=[conftest])
    result.assert_outcomes(skipped=1, passed=1)


# ---- The kept tabs: a test gets a tab as a new one would be, whatever the test before it did ----

SITE_PAGE = Path(__file__).resolve().parent.parent / "docs" / "_root" / "index.html"  # any file: page

LEFT_BEHIND = """() => ({
  script: window.leftScript ?? null,
  dark: matchMedia("(prefers-color-scheme: dark)").matches, print: matchMedia("print").matches,
  width: innerWidth, height: innerHeight,
})"""


@pytest.mark.browser
def test_a_kept_tab_comes_back_as_a_new_one_would() -> None:
    with browser.browser_page() as (page, log):
        page.goto(SITE_PAGE.as_uri())
        new = page.evaluate(LEFT_BEHIND)
        # This file: page has no Web Storage in Chromium; others have, and browser.reset_tab clears theirs.
        for storage in ("localStorage", "sessionStorage"):
            with pytest.raises(PlaywrightError, match="Access is denied"):
                page.evaluate(f"() => {storage}.setItem('left', 'x')")
        page.add_init_script("window.leftScript = 'x'")
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        page.set_viewport_size({"width": 375, "height": 800})
        page.emulate_media(media="print", color_scheme="dark")
        page.goto(SITE_PAGE.as_uri())
        assert page.evaluate(LEFT_BEHIND) == {
            "script": "x", "dark": True, "print": True, "width": 375, "height": 800,
        }  # fmt: skip
        page.evaluate("() => console.error('left in the log of the test before')")
        used = page
    assert new == {"script": None, "dark": False, "print": False,
                   "width": 1280, "height": 720}  # fmt: skip
    with browser.browser_page() as (page, log):
        assert page is used  # the same tab, kept
        assert page.url == "about:blank"
        page.goto(SITE_PAGE.as_uri())
        assert page.evaluate(LEFT_BEHIND) == new
        state = page.evaluate("() => navigator.permissions.query({name: 'clipboard-read'}).then(s => s.state)")
        assert state != "granted"
    assert log.errors == [] and log.requests == []


@pytest.mark.browser
def test_the_pages_of_one_test_have_contexts_of_their_own_and_a_closed_one_is_not_kept() -> None:
    with browser.browser_pages() as new_page:
        (first, _), (second, _) = new_page(), new_page()
        assert first.context is not second.context
        first.context.grant_permissions(["clipboard-read"])
        second.goto(SITE_PAGE.as_uri())
        state = second.evaluate("() => navigator.permissions.query({name: 'clipboard-read'}).then(s => s.state)")
        assert state != "granted"
        first.context.close()
    with browser.browser_pages() as new_page:
        (page, _), (other, _) = new_page(), new_page()
        assert first not in (page, other)
        assert second in (page, other)
