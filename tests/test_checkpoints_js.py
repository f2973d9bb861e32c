"""The browser's copy of llmcalc.checkpoints (modelconfig.js reads a quantization_config, planner.js sizes it), under
Node.js, against Python: the same format or the same refusal, and the same bytes, on every published
checkpoint, every committed Hub config and every refusal of tests/test_llmcalc_checkpoints.py.

The page is the scripts and their tables (tests/jsnode.py); no Sphinx build, no browser.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest
from test_llmcalc_checkpoints import DATA, PUBLISHED, REFUSED, config_of

from jsnode import NodePage, modelconfig_tables, script_texts
from llmcalc.browser import planner_tables
from llmcalc.checkpoints import checkpoint_from_hf
from llmcalc.errors import Refusal
from llmcalc.planner import parallel_inference_plans
from llmcalc.weightformats import kept_linear_modules, weight_format_bytes
from llmglossary.calculators.scripts import PLANNER_ARITHMETIC

pytestmark = pytest.mark.node


HELPERS = """
window.run = ([text, tp]) => {
  const M = window.LLMModelConfig, P = window.LLMPlanner;
  const show = (v) => JSON.parse(JSON.stringify(v, (k, x) => (typeof x === "bigint" ? x.toString() : x)));
  try {
    const checkpoint = M.checkpointFromHf(M.parseConfigText(text, "config.json"));
    const cfg = checkpoint.config, format = checkpoint.weightFormat || "bf16";
    const out = {format: checkpoint.weightFormat ? show(checkpoint.weightFormat) : null,
                 bytes: show(P.weightFormatBytes(cfg, format)), kept: show(P.keptLinearModules(cfg, format))};
    if (tp > 1) {
      out.gpu = show(P.parallelInferencePlans(cfg, {context: 1, batch: 1, weightFormat: format, kvFormat: "bf16"},
                                              tp, 1)[0].weights);
    }
    return out;
  } catch (e) {
    return {error: e instanceof M.LLMCalcError ? [e.code, show(e.params)] : [e.name, String(e)]};
  }
};
"""


@pytest.fixture(scope="module")
def page() -> Iterator[NodePage]:
    node = NodePage(script_texts(("modelconfig.js", "modelcounts.js", *PLANNER_ARITHMETIC)),
                    elements={"modelconfig-tables": modelconfig_tables()},
                    prelude=f"window.LLMPlanner.useTables({json.dumps(planner_tables())});{HELPERS}")
    yield node
    node.close()


def python(data: dict[str, Any], tp: int = 1) -> dict[str, Any]:
    """What the page's run() must give, from llmcalc."""
    try:
        checkpoint = checkpoint_from_hf(data)
    except Refusal as error:
        return {"error": [error.code, error.params]}
    cfg, stored = checkpoint.config, checkpoint.weight_format
    format_ = stored or "bf16"
    shown = None if stored is None else {key: [str(v) for v in value] if key == "block" else (
        list(value) if isinstance(value, tuple) else str(value) if isinstance(value, int) and not isinstance(
            value, bool) else value) for key, value in dataclasses.asdict(stored).items() if key != "description"}
    out: dict[str, Any] = {
        "format": shown, "bytes": {k: str(v) for k, v in weight_format_bytes(cfg, format_).items()},
        "kept": [[path, str(kept), str(of)] for path, kept, of in kept_linear_modules(cfg, format_)]}
    if tp > 1:
        [gpu] = parallel_inference_plans(cfg, context=1, weight_format=format_, tensor_parallel=tp)
        out["gpu"] = str(gpu.weights)
    return out


def cases() -> list[tuple[str, dict[str, Any], int]]:
    found = [(e["checkpoint"], config_of(e), e.get("tensor_parallel", 1)) for e in PUBLISHED]
    found += [(path.name, json.loads(path.read_text("utf-8")), 1)
              for path in sorted((DATA / "hub_configs").glob("*.json")) if not path.name.startswith("_")]
    base = config_of({"model": {"preset": "llama-2-7b"}, "quantization_config": None})
    found += [(f"refused {key}", {**base, "quantization_config": quantization}, 1)
              for quantization, key, _ in REFUSED]
    bnb = [{"load_in_8bit": True, "llm_int8_skip_modules": ["lm_head", "model.layers.3"]},
           {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True},
           {"quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": ["lm_head", "re:.*\\.1\\..*"],
            "config_groups": {"g": {"targets": ["Linear"], "weights": {
                "num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": False,
                "actorder": "group"}}}},
           {"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
            "kv_cache_scheme": {"num_bits": 8, "type": "float"}, "config_groups": {"g": {
                "targets": ["re:.*mlp.*"], "input_activations": {"dynamic": False, "num_bits": 8, "type": "float"},
                "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}}}},
           {"quant_method": "awq", "bits": 4, "group_size": 64, "version": "GEMV",
            "modules_to_not_convert": ["down_proj"]},
           {"quant_method": "fp8", "weight_block_size": [128, 128], "scale_fmt": "ue8m0",
            "ignored_layers": ["model.layers.0.mlp"]}]
    found += [(f"layout {i}", {**base, "quantization_config": quantization}, 2) for i, quantization in enumerate(bnb)]
    return found


CASES = cases()


@pytest.mark.parametrize(("label", "data", "tp"), CASES, ids=[label for label, _, _ in CASES])
def test_the_browser_reads_and_sizes_each_config_as_llmcalc(page: Any, label: str, data: dict[str, Any],
                                                            tp: int) -> None:
    expected = json.loads(json.dumps(python(data, tp), default=str))
    got = page.evaluate("(args) => window.run(args)", [json.dumps(data), tp])
    if "error" in expected:
        assert got.get("error", [None])[0] == expected["error"][0], got
        assert got["error"][1]["key"] == expected["error"][1]["key"], got
        assert got["error"][1].get("accepted_id") == expected["error"][1].get("accepted_id"), got
        return
    assert got == expected
