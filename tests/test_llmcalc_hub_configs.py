"""Real ``config.json`` files as the Hub serves them (not ``save_pretrained`` output) are read, and counted right.

Each file under ``tests/data/hub_configs/`` is a checkpoint's published ``config.json``, copied from the public
repository named in ``SOURCES.tsv`` (repository, path, commit).  The oracle is transformers itself: the parameter
count of the model it builds from the same file (``tools/count_hub_configs.py``, recorded with its version).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import llmcalc as lc

DATA = Path(__file__).parent / "data" / "hub_configs"
FILES = sorted(path for path in DATA.glob("*.json") if not path.name.startswith("_"))
COUNTS = json.loads((DATA / "_transformers_counts.json").read_text(encoding="utf-8"))


def test_every_file_has_its_source_and_a_transformers_count() -> None:
    with (DATA / "SOURCES.tsv").open(encoding="utf-8", newline="") as table:
        sources = {row["file"]: row for row in csv.DictReader(table, delimiter="\t")}
    assert sorted(sources) == [path.name for path in FILES] == sorted(COUNTS["models"])
    assert all(len(row["commit"]) == 40 and row["repository"] and row["path"] for row in sources.values())
    assert COUNTS["transformers"] == "5.24.0"


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_a_real_config_is_read_and_counted_as_transformers_builds_it(path: Path) -> None:
    cfg = lc.ModelConfig.from_hf_config(path)
    assert lc.param_count(cfg) == COUNTS["models"][path.name]


def test_the_files_cover_these_model_types() -> None:
    """At least two checkpoints per model_type where real files were found (see the README of this folder)."""
    types = [json.loads(path.read_text(encoding="utf-8"))["model_type"] for path in FILES]
    assert {model_type: types.count(model_type) for model_type in set(types)} == {
        "llama": 2, "qwen2": 2, "qwen3": 2, "qwen3_moe": 1}
