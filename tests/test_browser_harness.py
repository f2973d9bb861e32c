"""Without Debian's Chromium the browser tests are skipped with the reason, never passed."""

from __future__ import annotations

import pytest

import browser


def test_missing_chromium_skips_with_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser.shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match=r"chromium is not installed \(\.ci/run installs it"):
        with browser.browser_page():
            pytest.fail("the browser must not start")
