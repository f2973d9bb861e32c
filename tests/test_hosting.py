"""Publishing on Read the Docs: the config builds both languages the way `make html` does."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent


def build_command() -> str:
    config = yaml.safe_load((REPO / ".readthedocs.yaml").read_text(encoding="utf-8"))
    (command,) = config["build"]["jobs"]["build"]["html"]
    return command


def makefile_strict_flags() -> str:
    """The Makefile's STRICT flags, as make itself expands them (not a copy of the text)."""
    result = subprocess.run(
        ["make", "--no-print-directory", "-s", "-f", "Makefile", "-f", "-", "print-strict"],
        input="print-strict:\n\t@echo '$(STRICT)'\n",
        cwd=REPO,
        env={**os.environ, "SPHINXOPTS": "-q", "STRICT": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def test_makefile_strictness_survives_the_environment_and_the_command_line() -> None:
    flags = makefile_strict_flags()  # run with STRICT="" in the environment
    assert flags.split() == ["-W", "--keep-going", "-n"]
    dry_run = subprocess.run(
        ["make", "-n", "--always-make", "html-en", "STRICT=", "SPHINXOPTS="],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (build_line,) = [line for line in dry_run.splitlines() if "sphinx-build" in line]
    assert f" {flags} " in build_line


def test_read_the_docs_builds_with_the_same_strictness_as_make_html() -> None:
    command = " ".join(build_command().split())
    assert f" {makefile_strict_flags()} " in command
    assert "-c . " in command and " docs $READTHEDOCS_OUTPUT/html" in command


def test_read_the_docs_installs_from_the_same_constraints_as_make_install() -> None:
    config = yaml.safe_load((REPO / ".readthedocs.yaml").read_text(encoding="utf-8"))
    (install,) = config["build"]["jobs"]["install"]
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "CONSTRAINTS := constraints.txt" in makefile
    assert install.startswith("PIP_CONSTRAINT=constraints.txt python -m pip install")


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


def test_constraints_pin_every_direct_dependency_at_the_version_pyproject_names() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    constraints = dict(
        line.split("==", 1)
        for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line and not line.startswith("#")
    )
    pinned = {name.lower(): version for name, version in constraints.items()}
    extras = project["optional-dependencies"]
    for extra, requirements in extras.items():
        for requirement in requirements:
            if requirement.startswith(f"{project['name']}["):  # another extra of ours, e.g. llmcalc[teach]
                assert requirement.removeprefix(f"{project['name']}[").removesuffix("]") in extras, requirement
                continue
            name, version = requirement.split("==")
            assert pinned.get(name.lower()) == version, f"[{extra}] {requirement} vs constraints.txt"
    assert "numpy" in pinned and "setuptools" in pinned and "docutils" in pinned
