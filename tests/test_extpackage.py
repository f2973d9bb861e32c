"""docs/_ext/llmglossary as one package: one setup() for every feature, installed, configured in conf.py."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
from sphinx.errors import ExtensionError

import llmglossary
from llmglossary.calculators import resolve_templates
from llmglossary.calculators.browserdata import check_names, model_data
from llmglossary.terminology import resolve_terminology_path
from sphinxbuild import REPO, write_tree

PACKAGE = REPO / "docs" / "_ext" / "llmglossary"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_with_setup() -> set[str]:
    return {
        module_name(path)
        for path in PACKAGE.rglob("*.py")
        if any(isinstance(node, ast.FunctionDef) and node.name == "setup" for node in ast.parse(path.read_bytes()).body)
    }


def test_the_package_sets_up_every_extension_module(tmp_path: Path) -> None:
    from sphinx.testing.util import SphinxTestApp

    write_tree(tmp_path, {"conf.py": 'extensions = ["myst_parser", "llmglossary"]\n', "index.md": "# Tiny\n"})
    app = SphinxTestApp("html", srcdir=tmp_path)
    try:
        # What Sphinx itself recorded as set up: every module of ours that has a setup(), no other,
        # each safe for parallel reading and writing, with a version.
        ours = {name: extension for name, extension in app.extensions.items() if name.startswith("llmglossary")}
    finally:
        app.cleanup()
    assert set(ours) == modules_with_setup()
    for name, extension in ours.items():
        assert extension.parallel_read_safe and extension.parallel_write_safe, name
        assert extension.version != "unknown version", name
    # The features the package lists, and what they share: the store, the terminology table, the package's files.
    assert {f"llmglossary.{name}" for name in llmglossary.FEATURES} | {
        "llmglossary", "llmglossary.glossary", "llmglossary.terminology", "llmglossary.assets"
    } == modules_with_setup()


def test_conf_lists_the_package_once_and_puts_nothing_on_sys_path() -> None:
    conf = (REPO / "conf.py").read_text(encoding="utf-8")
    assert "sys.path" not in conf
    tree = ast.parse(conf)
    (extensions,) = [node.value for node in tree.body if isinstance(node, ast.Assign)
                     and any(isinstance(t, ast.Name) and t.id == "extensions" for t in node.targets)]
    names = ast.literal_eval(extensions)
    assert [name for name in names if name.startswith("llmglossary")] == ["llmglossary"]


def test_the_package_is_its_own_distribution_not_part_of_the_llmcalc_wheel() -> None:
    root = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert root["tool"]["setuptools"]["packages"]["find"]["include"] == ["llmcalc*"]
    assert "package-dir" not in root["tool"]["setuptools"]
    own = tomllib.loads((REPO / "docs" / "_ext" / "pyproject.toml").read_text(encoding="utf-8"))
    assert own["tool"]["setuptools"]["packages"]["find"]["include"] == ["llmglossary*"]
    # Installed where every build happens: make install and Read the Docs.
    assert "-e ./docs/_ext" in (REPO / "Makefile").read_text(encoding="utf-8")
    assert "-e ./docs/_ext" in (REPO / ".readthedocs.yaml").read_text(encoding="utf-8")
    assert Path(llmglossary.__file__).resolve() == PACKAGE / "__init__.py"  # the checkout's, in development mode


def test_relative_paths_in_conf_are_taken_from_its_folder(tmp_path: Path) -> None:
    config = SimpleNamespace(glossary_terminology="locales/terms.tsv", calculator_templates="templates/calc")
    app = SimpleNamespace(confdir=str(tmp_path))
    resolve_terminology_path(app, config)  # type: ignore[arg-type]
    resolve_templates(app, config)  # type: ignore[arg-type]
    assert config.glossary_terminology == str(tmp_path / "locales" / "terms.tsv")
    assert config.calculator_templates == str(tmp_path / "templates" / "calc")
    config.glossary_terminology = "/elsewhere/terms.tsv"
    resolve_terminology_path(app, config)  # type: ignore[arg-type]
    assert config.glossary_terminology == "/elsewhere/terms.tsv"


def test_the_calculators_refuse_a_preset_or_format_llmcalc_does_not_know() -> None:
    with pytest.raises(ExtensionError, match=r"calculator_kv_presets: 'llama-9' is not one of .*llama-3-8b"):
        model_data("kvcache", ("reference", "llama-9"))
    with pytest.raises(ExtensionError, match=r"calculator_kv_presets: must include 'reference'"):
        model_data("kvcache", ("llama-3-8b",))
    with pytest.raises(ExtensionError, match=r"calculator_memory_dtypes: needs at least one of fp32, bf16"):
        check_names("calculator_memory_dtypes", [], ["fp32", "bf16"])
    assert set(model_data("kvcache", ("reference", "gpt2"))) == {"reference", "gpt2"}


def test_conf_sets_the_calculators_to_what_the_site_had() -> None:
    import runpy

    from llmglossary.calculators.browserdata import DEFAULT_KV_DTYPES, DEFAULT_KV_PRESETS, DEFAULT_MEMORY_DTYPES

    conf = runpy.run_path(str(REPO / "conf.py"))
    assert tuple(conf["calculator_kv_presets"]) == DEFAULT_KV_PRESETS
    assert tuple(conf["calculator_memory_dtypes"]) == DEFAULT_MEMORY_DTYPES
    assert tuple(conf["calculator_kv_dtypes"]) == DEFAULT_KV_DTYPES
    assert (REPO / conf["glossary_terminology"]).is_file()  # the project's content, set by the project
    assert "calculator_templates" not in conf  # the package's own templates


DEMO_PAGES = {
    "conf.py": 'extensions = ["llmglossary"]\n',
    "index.rst": """\
        Demo
        ====

        .. toctree::

           second

        .. glossary::

           Token
              A piece of text a model reads.

           Context length
              How many :term:`tokens <token>` a model reads at once.
        """,
    "second.rst": """\
        Second
        ======

        .. glossary::

           KV cache
              The keys and values kept for each :term:`token` of the :term:`context length`.

        .. kvcache-calculator::

           How many bytes the cache takes.

           {labels}
        """,
}


def test_a_project_outside_the_repository_builds_with_the_package_alone(tmp_path: Path) -> None:
    from test_calculators import KEYS, LABELS

    # The package copied out of the checkout, as a wheel would install it: a path from the
    # package into the repository (its templates, its scripts) finds nothing there.
    package = tmp_path / "site-packages"
    shutil.copytree(PACKAGE, package / "llmglossary", ignore=shutil.ignore_patterns("__pycache__"))
    keyed = zip(KEYS["kvcache"], LABELS["en"]["kvcache"], strict=True)
    labels = "\n".join(f"           - {key}: {label}" for key, label in keyed)
    pages = {**DEMO_PAGES, "second.rst": DEMO_PAGES["second.rst"].replace("{labels}", labels.strip())}
    demo = tmp_path / "demo"
    write_tree(demo, pages)
    environment = {**os.environ, "PYTHONPATH": str(package)}
    where = subprocess.run([sys.executable, "-c", "import llmglossary; print(llmglossary.__file__)"],
                           env=environment, capture_output=True, text=True, check=True)
    assert Path(where.stdout.strip()) == package / "llmglossary" / "__init__.py"
    built = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
                            str(demo), str(demo / "_build")], env=environment, capture_output=True, text=True)
    assert (built.returncode, built.stderr) == (0, "")
    second = (demo / "_build" / "second.html").read_text(encoding="utf-8")
    # The widget, from the package's template, with its scripts and stylesheet copied from the package.
    assert 'data-calculator="kvcache"' in second
    for name in ("modelcounts.js", "calculators.js", "calculators.css", "termpreviews.js"):
        assert f"_static/{name}" in second, name
        copied = (demo / "_build" / "_static" / name).read_bytes()
        assert copied == (package / "llmglossary" / "static" / name).read_bytes(), name
    assert 'href="index.html#term-Token"' in second
    # Nothing of the package walks up out of it to find a file of this repository.
    assert [path for path in PACKAGE.rglob("*.py") if "parents[" in path.read_text(encoding="utf-8")] == []


def test_the_readme_names_every_setting_of_ours(tmp_path: Path) -> None:
    from sphinx.testing.util import SphinxTestApp

    def settings(extensions: list[str], folder: Path) -> set[str]:
        write_tree(folder, {"conf.py": f"extensions = {extensions!r}\n", "index.md": "# Tiny\n"})
        app = SphinxTestApp("html", srcdir=folder)
        try:
            return {option.name for option in app.config}
        finally:
            app.cleanup()

    stock = settings(["myst_parser", "sphinx_codeautolink"], tmp_path / "stock")
    ours = settings(["myst_parser", "llmglossary"], tmp_path / "ours") - stock
    assert {"glossary_terminology", "calculator_kv_presets"} <= ours
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert sorted(name for name in ours if f"`{name}`" not in readme) == []
