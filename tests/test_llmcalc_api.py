"""llmcalc's declared API: numpy stays optional, every module says what it exports, no module reads another's privates.

The oracles are independent of the package's own claims: a fresh interpreter's ``sys.modules``, an
interpreter in which ``import numpy`` fails, and the package's source read with ``ast``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import pkgutil
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import llmcalc

PACKAGE = Path(llmcalc.__file__).resolve().parent
# Every module but __main__, which runs the command line when imported (checked from its source below).
MODULES = ["llmcalc", *sorted(
    info.name for info in pkgutil.walk_packages([str(PACKAGE)], prefix="llmcalc.") if info.name != "llmcalc.__main__"
)]
# An interpreter in which numpy cannot be imported: what a user without the teach extra has.
NO_NUMPY = "import sys; sys.modules['numpy'] = None\n"


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120)


def test_importing_llmcalc_does_not_import_numpy() -> None:
    result = run_python("import sys, llmcalc; print('numpy' in sys.modules)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_without_numpy_the_core_and_the_command_line_work() -> None:
    code = NO_NUMPY + (
        "import llmcalc as lc\n"
        "from llmcalc.cli import main\n"
        "print(lc.param_count(lc.get_preset('llama-2-7b')))\n"
        "main(['plan', 'llama-2-7b', '--task', 'qlora', '--gpu', '24', '--json'])\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    count, plan = result.stdout.split("\n", 1)
    assert int(count) == 6_738_415_616  # Llama-2-7B as transformers counts it (tests/data/hf_models)
    assert json.loads(plan)["fits"] in (True, False)


def test_without_numpy_a_teaching_helper_says_what_to_install() -> None:
    result = run_python(NO_NUMPY + "import llmcalc.teach.attention")
    assert result.returncode != 0 and "numpy" in result.stderr


def test_without_numpy_scalar_checks_still_refuse_bad_values() -> None:
    code = NO_NUMPY + ("import llmcalc as lc\ntry:\n    lc.weight_bytes(7.0)\n"
                       "except TypeError as error:\n    print(error)\n")
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert "n_params must be an integer" in result.stdout


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_all_and_each_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    declared = module.__dict__.get("__all__")
    assert isinstance(declared, list), f"{name} declares no __all__"
    assert len(declared) == len(set(declared)), name
    # A package may name submodules it does not import (llmcalc.teach: numpy only when one is used).
    missing = [item for item in declared
               if not hasattr(module, item) and importlib.util.find_spec(f"{name}.{item}") is None]
    assert missing == [], (name, missing)
    assert all(not item.startswith("_") for item in declared), name


def test_the_entry_point_module_declares_an_empty_all() -> None:
    tree = ast.parse((PACKAGE / "__main__.py").read_text(encoding="utf-8"))
    declared = [ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                and any(isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets)]
    assert declared == [[]]


def private_reads(path: Path) -> list[str]:
    """``from .x import _y`` and ``x._y`` where ``x`` is another llmcalc module: reads of its private names.

    Importing a private *module* of the package (``from . import _validate as check``) is allowed: it is
    the package's internal module, shared on purpose; its own names are public.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()  # local names bound to llmcalc modules
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("llmcalc")):
            is_package = (node.level > 0 and node.module is None) or node.module in ("llmcalc", "llmcalc.teach")
            for alias in node.names:
                if is_package:
                    modules.add(alias.asname or alias.name)
                elif alias.name.startswith("_"):
                    found.append(f"{path.name}:{node.lineno}: from {'.' * node.level}{node.module or ''} "
                                 f"import {alias.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_module_reads_another_modules_private_names() -> None:
    found = [line for path in sorted(PACKAGE.rglob("*.py")) for line in private_reads(path)]
    assert found == []


def test_the_private_read_check_finds_both_forms(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text("from . import hf, _validate as check\nfrom .config import _Derived, ModelConfig\n"
                      "x = hf._DEFAULTS\ny = check.count\n", encoding="utf-8")
    assert private_reads(source) == ["sample.py:2: from .config import _Derived", "sample.py:3: hf._DEFAULTS"]


def test_every_data_file_of_the_package_is_declared_package_data() -> None:
    """A wheel carries only the data files pyproject.toml names; llmcalc.hf cannot work without its JSON."""
    import fnmatch
    import tomllib

    declared = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["llmcalc"]
    data_files = [path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*") if path.suffix == ".json"]
    assert data_files
    assert all(any(fnmatch.fnmatch(name, pattern) for pattern in declared) for name in data_files), data_files


def test_modules_import_from_each_other_only_declared_names() -> None:
    """``from .x import y`` inside llmcalc: ``y`` is in ``x.__all__`` (re-exports do not count as declarations)."""
    undeclared = []
    for path in sorted(PACKAGE.rglob("*.py")):
        package = "llmcalc.teach" if path.parent.name == "teach" else "llmcalc"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.module is None or node.level == 0:
                continue
            base = package if node.level == 1 else package.rsplit(".", node.level - 1)[0]
            module = importlib.import_module(f"{base}.{node.module}")
            undeclared += [f"{path.name}:{node.lineno}: {module.__name__}.{alias.name}" for alias in node.names
                           if alias.name not in module.__all__]
    assert undeclared == []


def test_the_wheel_is_llm_glossary_calc_typed_with_its_data_and_no_pinned_dependency(tmp_path: Path) -> None:
    """What `pip install .` installs: the distribution under its own name, py.typed, the JSON data, ranges only."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(tmp_path), str(PACKAGE.parent)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name == f"llm_glossary_calc-{llmcalc.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"llm_glossary_calc-{llmcalc.__version__}.dist-info/METADATA").decode()
    assert {"llmcalc/py.typed", "llmcalc/data/hf_class_defaults.json", "llmcalc/teach/__init__.py"} <= names
    assert not any(name.startswith("llmglossary/") for name in names)
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires == ['Requires-Dist: numpy>=2.0; extra == "teach"']


def test_the_command_line_and_the_package_say_their_version() -> None:
    done = subprocess.run([sys.executable, "-m", "llmcalc", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == f"llmcalc {llmcalc.__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+", llmcalc.__version__)
