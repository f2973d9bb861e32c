"""Without Debian's Chromium the browser tests skip with the reason; in CI they fail."""

from __future__ import annotations

import pytest

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
