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
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


def direct_requirements() -> dict[str, list[Requirement]]:
    """Every requirement the two pyproject.toml files name, by where it is named."""
    root = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    extensions = tomllib.loads((REPO / "docs" / "_ext" / "pyproject.toml").read_text(encoding="utf-8"))
    places = {"dependencies": root["project"]["dependencies"],
              "docs/_ext dependencies": extensions["project"]["dependencies"]}
    places |= {f"[{extra}]": names for extra, names in root["project"]["optional-dependencies"].items()}
    places |= {f"group {group}": names for group, names in root["dependency-groups"].items()}
    return {place: [Requirement(text) for text in names] for place, names in places.items()}


def locked() -> dict[str, str]:
    """constraints.txt: every distribution's pinned release, by its normalised name."""
    lines = (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pins = (line.split("==", 1) for line in lines if "==" in line and not line.startswith("#"))
    return {canonicalize_name(name): version.strip() for name, version in pins}


def test_no_dependency_is_pinned_in_the_metadata_and_the_lock_satisfies_every_range() -> None:
    """Ranges in pyproject.toml, exact releases in constraints.txt only: the lock can move, a user is not held back."""
    ours = canonicalize_name(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"])
    pins = locked()
    for place, requirements in direct_requirements().items():
        for requirement in requirements:
            name = canonicalize_name(requirement.name)
            assert not any(spec.operator in ("==", "===") for spec in requirement.specifier), f"{place}: {requirement}"
            if name == ours:
                continue
            assert name in pins, f"{place}: {requirement} has no pin in constraints.txt"
            assert requirement.specifier.contains(pins[name]), f"{place}: {requirement} excludes {pins[name]}"
    assert {"numpy", "setuptools", "docutils"} <= set(pins)


def test_the_extensions_need_nothing_make_install_leaves_out() -> None:
    """docs/_ext's dependencies are all in the root's docs group (or are the root): Read the Docs installs only that."""
    places = direct_requirements()
    docs = {canonicalize_name(r.name) for r in places["group docs"]}
    ours = canonicalize_name(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"])
    needed = {canonicalize_name(r.name) for r in places["docs/_ext dependencies"]} - {ours}
    assert needed <= docs, needed - docs


def test_the_distribution_is_not_named_after_a_stranger_on_the_index() -> None:
    """"llmcalc" on the package index is an unrelated project; the extensions must not depend on that name."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "llm-glossary-calc"
    names = {canonicalize_name(r.name) for requirements in direct_requirements().values() for r in requirements}
    assert "llmcalc" not in names
