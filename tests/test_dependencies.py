"""Every third-party package the repository imports is declared in pyproject.toml.

A package that arrives only through another's dependencies (PyYAML through
sphinx-intl, say) can vanish in any release of that other package.  This walks the
imports of every Python file we ship or run and maps each to the distribution that
provides it, as installed.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = ["conf.py", "docs/_ext/llmglossary/**/*.py", "tools/*.py", "tests/*.py", "benchmarks/*.py", "llmcalc/**/*.py"]
# Run by hand in a separate environment with transformers and torch (see its docstring).
SEPARATE_ENVIRONMENT = {"tools/verify_presets.py", "tools/verify_hf_models.py", "tools/measure_activations.py",
                        "tools/measure_quantized.py", "tools/measure_training_state.py", "tools/measure_prefill.py",
                        "tools/count_hub_configs.py", "tools/derive_config_keys.py", "tools/verify_peft_defaults.py",
                        "tools/measure_trainer_setups.py"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    """The distributions pyproject.toml names: the package's own, its extras' and its dependency groups'."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    lists = [project["dependencies"], *project["optional-dependencies"].values(),
             *pyproject["dependency-groups"].values()]
    return {normalise(re.split(r"[=<>!~\[; ]", requirement, maxsplit=1)[0]) for group in lists for requirement in group}


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def test_every_imported_package_is_declared() -> None:
    files = [path for pattern in SOURCES for path in sorted(REPO.glob(pattern))]
    ours = {path.stem for path in files} | {"llmcalc", "llmglossary"}
    providers = packages_distributions()
    undeclared = {}
    for path in files:
        if path.relative_to(REPO).as_posix() in SEPARATE_ENVIRONMENT:
            continue
        for module in imported_modules(path) - ours - set(sys.stdlib_module_names):
            distributions = {normalise(name) for name in providers.get(module, [module])}
            if not distributions & declared():
                undeclared.setdefault(module, []).append(path.relative_to(REPO).as_posix())
    assert undeclared == {}
