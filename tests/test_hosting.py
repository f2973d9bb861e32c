"""Publishing on Read the Docs: the config builds both languages the way `make html` does."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent


def build_command() -> str:
    config = yaml.safe_load((REPO / ".readthedocs.yaml").read_text(encoding="utf-8"))
    (command,) = config["build"]["jobs"]["build"]["html"]
    return command


def test_read_the_docs_builds_with_the_same_strictness_as_make_html() -> None:
    command = build_command()
    assert "-W --keep-going -n" in command
    assert "-c . " in command and " docs $READTHEDOCS_OUTPUT/html" in command


@pytest.mark.parametrize(("rtd_language", "sphinx_language"), [("en", "en"), ("zh-tw", "zh_TW")])
def test_read_the_docs_language_maps_to_sphinx_language(rtd_language: str, sphinx_language: str) -> None:
    expression = re.search(r"language=(\$\([^)]*\))", build_command()).group(1)
    result = subprocess.run(
        ["bash", "-c", f"echo {expression}"],
        env={**os.environ, "READTHEDOCS_LANGUAGE": rtd_language},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == sphinx_language


def test_conf_switches_language_links_to_read_the_docs_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READTHEDOCS", "True")
    monkeypatch.setenv("READTHEDOCS_VERSION", "stable")
    settings = runpy.run_path(str(REPO / "conf.py"))
    assert (settings["language_switch_layout"], settings["language_switch_version"]) == ("readthedocs", "stable")
    monkeypatch.delenv("READTHEDOCS")
    assert "language_switch_layout" not in runpy.run_path(str(REPO / "conf.py"))
