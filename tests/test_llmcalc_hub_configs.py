"""Real ``config.json`` files as the Hub serves them (not ``save_pretrained`` output) are read, and counted right.

Each file under ``tests/data/hub_configs/`` is a checkpoint's published ``config.json``, copied from the public
repository named in ``SOURCES.tsv`` (repository, path, commit, and how the copy is known to be the Hub's).  The
oracle is transformers itself: the parameter count of the model it builds from the same file
(``tools/count_hub_configs.py``, recorded with its version).  A file llmcalc refuses is listed in
``REFUSED`` with the refusal code and the reason (also in the folder's README); nothing else may be refused.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

import llmcalc as lc
from llmcalc.errors import Refusal
from llmcalc.hf import SUPPORTED_MODEL_TYPES

DATA = Path(__file__).parent / "data" / "hub_configs"
FILES = sorted(path for path in DATA.glob("*.json") if not path.name.startswith("_"))
COUNTS = json.loads((DATA / "_transformers_counts.json").read_text(encoding="utf-8"))

# Refused on purpose: a block-wise FP8 checkpoint.  transformers 5.24's FineGrainedFP8 quantizer stores every
# quantized Linear as float8 weights plus a float32 weight_scale_inv of ceil(out/128) x ceil(in/128)
# (integrations/finegrained_fp8.py, FP8Linear), a layout only llmcalc.checkpoints sizes.  transformers' own count
# (from_config, which builds the unquantized model) is what llmcalc gives once quantization_config is removed.
# gpt-oss's files declare MXFP4 experts (quant_method mxfp4), sized by llmcalc.checkpoints in the same way.
REFUSED = {"deepseek-r1.json": "quantized_checkpoint", "deepseek-v3.json": "quantized_checkpoint",
           "gpt-oss-120b.json": "quantized_checkpoint", "gpt-oss-20b.json": "quantized_checkpoint"}

# Checkpoints per model_type (see the README of this folder for the model_types with fewer than two).
COVERAGE = {
    "deepseek_v2": 2, "deepseek_v3": 2, "falcon": 2, "gemma": 2, "gemma2": 2, "gemma3_text": 2, "gpt2": 2,
    "gpt_neox": 2, "gpt_oss": 2, "llama": 3, "mistral": 3, "mixtral": 2, "olmo2": 2, "phi": 2, "phi3": 3, "qwen2": 2,
    "qwen2_moe": 2, "qwen3": 4, "qwen3_moe": 2, "starcoder2": 2,
}


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_every_file_has_its_source_and_a_transformers_count() -> None:
    with (DATA / "SOURCES.tsv").open(encoding="utf-8", newline="") as table:
        sources = {row["file"]: row for row in csv.DictReader(table, delimiter="\t")}
    assert sorted(sources) == [path.name for path in FILES] == sorted(COUNTS["models"])
    for row in sources.values():
        assert len(row["commit"]) == 40 and int(row["commit"], 16) >= 0
        assert row["repository"].count("/") == 1 and row["path"] and row["hub_model"].count("/") == 1
        assert row["form"] and row["evidence"]
    assert COUNTS["transformers"] == "5.25.0"
    assert set(REFUSED) <= set(sources)


@pytest.mark.parametrize("path", [path for path in FILES if path.name not in REFUSED], ids=lambda path: path.stem)
def test_a_real_config_is_read_and_counted_as_transformers_builds_it(path: Path) -> None:
    cfg = lc.ModelConfig.from_hf_config(path)
    assert lc.param_count(cfg) == COUNTS["models"][path.name]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_file_is_refused_for_its_reason_and_nothing_else(name: str) -> None:
    data = _load(DATA / name)
    with pytest.raises(Refusal) as refused:
        lc.ModelConfig.from_hf_config(data)
    assert refused.value.code == REFUSED[name]
    # Without the one key that changes the stored layout, the same file is the model transformers counts.
    unquantized = {key: value for key, value in data.items() if key != "quantization_config"}
    assert lc.param_count(lc.ModelConfig.from_hf_config(unquantized)) == COUNTS["models"][name]


def test_the_files_cover_these_model_types() -> None:
    """At least two checkpoints per model_type where real files were found (see the README of this folder)."""
    types = [_load(path)["model_type"] for path in FILES]
    assert {model_type: types.count(model_type) for model_type in set(types)} == COVERAGE
    assert set(COVERAGE) <= set(SUPPORTED_MODEL_TYPES)
