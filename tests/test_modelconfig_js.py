"""llmglossary's static/modelconfig.js against llmcalc, under Node.js: the same configs, counts and refusals.

The page is the two scripts and ``llmcalc.browser.browser_data()`` as a page carries it (``tests/jsnode.py``); no
Sphinx build, no browser.
Python is the oracle: for every committed ``config.json``, every preset, every refusal path and a few thousand
generated mutations of the committed files, the JavaScript must give the same ``ModelConfig`` fields (or the
same refusal: its code and every number among its parameters), the same parameter counts and the same LoRA
counts.  Messages are not compared: each side words a refusal in its own language from the code.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import llmcalc as lc
from jsnode import NodePage, modelconfig_tables, script_texts
from llmcalc import hf
from llmcalc.config import Derived
from llmcalc.errors import Refusal
from llmcalc.params import linear_modules

pytestmark = pytest.mark.node

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data" / "hf_models"
MODEL_FILES = sorted(path for path in DATA.glob("*.json") if not path.name.startswith("_"))
LORA_SPECS: list[tuple[int, Any]] = [(8, ["q", "v"]), (16, "all-linear")]
MODULE_TARGETS: list[Any] = [["q_proj", "v_proj"], ["self_attn.o_proj"], ["gate_proj", "up_proj"], ["down_proj"],
                             ["c_attn"], ["query_key_value"], ["dense"], ["gate"], ["w1", "w3"], ["q"], ["kv_b_proj"]]

HELPERS = """
const M = window.LLMModelConfig;
// BigInt, Map and float are tagged so that Python can tell int from float from bool.
window.encode = (value) => JSON.stringify(value, (key, v) => {
  if (typeof v === "bigint") return {$int: v.toString()};
  if (v instanceof Map) return {$dict: [...v]};
  if (typeof v === "number") return {$float: Object.is(v, -0) ? "-0.0" : String(v)};
  return v;
});
// A refusal as its code and parameters; anything else (a defect) as its class and no parameters.
window.attempt = (fn) => {
  try { return {ok: fn()}; } catch (e) {
    return {error: e instanceof M.LLMCalcError ? [e.code, e.params] : [e.name, null]};
  }
};
window.counts = (cfg, lora) => ({
  config: cfg, total: M.paramCount(cfg), active: M.activeParamCount(cfg), breakdown: M.paramBreakdown(cfg),
  active_breakdown: M.paramBreakdown(cfg, {active: true}),
  lora: lora.map(([rank, targets]) => attempt(() => M.loraModelParams(cfg, BigInt(rank), targets))),
});
window.fromText = (text, lora, name) => {
  const parsed = attempt(() => M.fromHfConfig(M.parseConfigText(text, name)));
  return parsed.error ? parsed : {ok: counts(parsed.ok, lora)};
};
"""


def js_lora(lora: list[tuple[int, Any]]) -> list[tuple[str, Any]]:
    """Ranks as decimal strings: Playwright would pass an int above 2^53 as a rounded double."""
    return [(str(rank), targets) for rank, targets in lora]


FROM_TEXTS = "([texts, lora]) => encode(texts.map((t) => fromText(t, lora)))"


@pytest.fixture(scope="module")
def page() -> Iterator[NodePage]:
    """The tables as a Sphinx page carries them: inline_json, which sorts keys (the scripts must not mind).

    The counts are modelcounts.js's, bound to modelconfig.js's tables: loaded after it, as a page may.
    """
    node = NodePage(script_texts(("modelconfig.js", "modelcounts.js")),
                    elements={"modelconfig-tables": modelconfig_tables()}, prelude=HELPERS)
    yield node
    node.close()


def decode(encoded: str) -> Any:
    def tagged(item: dict[str, Any]) -> Any:
        if "$int" in item:
            return int(item["$int"])
        if "$float" in item:
            return float(item["$float"])
        if "$dict" in item:
            return dict(item["$dict"])
        return item

    return json.loads(encoded, object_hook=tagged)


def canonical(value: Any) -> str:
    """Exact comparison: json tells True from 1, and 1 from 1.0; Derived ints print as ints."""
    return json.dumps(value, sort_keys=True)


def attempt(function: Any, *args: Any) -> dict[str, Any]:
    try:
        return {"ok": function(*args)}
    except Refusal as error:
        return {"error": [error.code, error.params]}
    except TypeError as error:  # a call the signature refuses (ModelConfig(width=3)): no refusal code
        return {"error": [type(error).__name__, None]}


def numbers(params: dict[str, Any] | None) -> dict[str, Any]:
    """The numbers among a refusal's parameters (an integral float as an int, NaN by name): what both sides share."""
    found: dict[str, Any] = {}
    for key, value in (params or {}).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            found[key] = "nan" if value != value else int(value) if float(value).is_integer() else value
    return found


def outcome_key(outcome: Any) -> Any:
    """An outcome with each refusal reduced to its code and numbers, recursively (LoRA outcomes sit inside)."""
    if isinstance(outcome, dict):
        if set(outcome) == {"error"}:
            code, params = outcome["error"]
            return {"error": [code, numbers(params)]}
        return {key: outcome_key(value) for key, value in outcome.items()}
    if isinstance(outcome, list):
        return [outcome_key(value) for value in outcome]
    return outcome


def python_counts(cfg: lc.ModelConfig, lora: list[tuple[int, Any]]) -> dict[str, Any]:
    return {
        "config": {key: int(v) if isinstance(v, Derived) else v for key, v in dataclasses.asdict(cfg).items()},
        "total": lc.param_count(cfg), "active": lc.active_param_count(cfg), "breakdown": lc.param_breakdown(cfg),
        "active_breakdown": lc.param_breakdown(cfg, active=True),
        "lora": [attempt(lc.lora_model_params, cfg, rank, targets) for rank, targets in lora],
    }


def python_outcome(data: Any, lora: list[tuple[int, Any]]) -> dict[str, Any]:
    parsed = attempt(lc.ModelConfig.from_hf_config, data)
    return parsed if "error" in parsed else {"ok": python_counts(parsed["ok"], lora)}


def mismatches(cases: list[Any], python: list[Any], javascript: list[Any]) -> list[Any]:
    assert len(python) == len(javascript) == len(cases)
    return [(case, p, j) for case, p, j in zip(cases, python, javascript, strict=True)
            if canonical(outcome_key(p)) != canonical(outcome_key(j))]


def test_committed_configs_give_python_fields_counts_and_lora(page: Any) -> None:
    lora = [*LORA_SPECS, *((8, targets) for targets in MODULE_TARGETS)]
    texts = [path.read_text(encoding="utf-8") for path in MODEL_FILES]
    javascript = decode(page.evaluate(FROM_TEXTS, [texts, js_lora(lora)]))
    python = [python_outcome(path, lora) for path in MODEL_FILES]
    assert mismatches([p.name for p in MODEL_FILES], python, javascript) == []
    assert len(MODEL_FILES) == 46 and all("ok" in outcome for outcome in python)
    # The recorded transformers/peft counts, not only Python's: the oracle of the oracle.
    recorded = json.loads((DATA / "_reference.json").read_text())["models"]
    by_file = dict(zip((p.name for p in MODEL_FILES), javascript, strict=True))
    for name, model in recorded.items():
        for form in ("full", "short"):
            counts = by_file[model["config_files"][form]]["ok"]
            assert counts["total"] == model["total"], name
            assert counts["lora"][1]["ok"] == model["lora_all_linear_r16"]["trainable"], name


def test_linear_modules_have_python_paths_shapes_and_copies(page: Any) -> None:
    """The module list both counts stand on, module by module (for LoRA: which ones are adaptable)."""
    texts = [path.read_text(encoding="utf-8") for path in MODEL_FILES]
    javascript = decode(page.evaluate("(texts) => encode(texts.map((t) => M.linearModules(M.fromHfConfig("
                                      "M.parseConfigText(t)))))", texts))
    python = [[{**dataclasses.asdict(m), "params": m.params} for m in linear_modules(
        lc.ModelConfig.from_hf_config(path))] for path in MODEL_FILES]
    assert mismatches([p.name for p in MODEL_FILES], python, javascript) == []


def test_committed_configs_read_through_json_parse_give_the_same_config(page: Any) -> None:
    texts = [path.read_text(encoding="utf-8") for path in MODEL_FILES]
    same = page.evaluate("""(texts) => texts.map((t) =>
        encode(M.fromHfConfig(JSON.parse(t))) === encode(M.fromHfConfig(M.parseConfigText(t))))""", texts)
    assert same == [True] * len(texts)


def test_json_parse_cannot_tell_a_float_from_an_int_but_the_text_reader_can(page: Any) -> None:
    """The one accepted difference: JSON.parse turns 4096.0 into 4096, so only parseConfigText refuses it."""
    text = json.dumps({"model_type": "llama", "hidden_size": 4096.0})
    outcome = page.evaluate("""(t) => [attempt(() => M.fromHfConfig(M.parseConfigText(t))).error,
                                       attempt(() => M.paramCount(M.fromHfConfig(JSON.parse(t)))).ok.toString()]""",
                            text)
    python = python_outcome(json.loads(text), [])
    assert outcome_key(outcome[0]) == outcome_key(python["error"])
    assert outcome[1] == str(lc.param_count(lc.ModelConfig.from_hf_config({"model_type": "llama"})))
    assert python["error"] == ["key_not_a_count", {"config": "llama", "key": "hidden_size", "minimum": 1,
                                                   "value": 4096.0}]


def preset_fields(cfg: lc.ModelConfig) -> dict[str, Any]:
    """The constructor's arguments: every field the preset did not leave to derivation."""
    given = {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)}
    return {name: value for name, value in given.items() if not isinstance(value, Derived)}


def test_presets_through_the_constructor_give_python_counts(page: Any) -> None:
    lora = [*LORA_SPECS, *((8, targets) for targets in MODULE_TARGETS)]
    names = list(lc.PRESETS)
    fields = [preset_fields(lc.PRESETS[name]) for name in names]
    javascript = decode(page.evaluate(
        "([fields, lora]) => encode(fields.map((f) => attempt(() => counts(M.modelConfig(f), lora))))",
        [fields, js_lora(lora)]))
    python = [{"ok": python_counts(lc.PRESETS[name], lora)} for name in names]
    assert mismatches(names, python, javascript) == []
    assert javascript[names.index("llama-2-7b")]["ok"]["total"] == 6_738_415_616  # the page-08 figure


CONSTRUCTOR_ERRORS: list[dict[str, Any]] = [
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 6, "d_ff": 256},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "norm": "rmsnom"},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "layout": "gpt3", "ffn": "mlp"},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "layout": "phi3", "ffn": "mlp"},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "norm": "batchnorm"},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "n_kv_heads": 3},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "n_experts": 2,
     "experts_per_token": 3},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "dense_layers": 1},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "expert_d_ff": 8},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "shared_expert_gate": True},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "sliding_window_layers": 1},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "sliding_window": 8,
     "sliding_window_layers": 3},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "q_lora_rank": 8},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "kv_lora_rank": 8},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "kv_lora_rank": 8,
     "rope_head_dim": 4, "qk_norm": "per-head"},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "tie_embeddings": 1},
    {"vocab_size": 1000.5, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256},
    {"vocab_size": "1000", "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256},
    {"vocab_size": None, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 0, "n_heads": 4, "d_ff": 256},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": -1},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "model_type": 5},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "norm": 5},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "learned_positions": True},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "width": 3},
    {"vocab_size": 1000},
    {"vocab_size": 1000, "d_model": 64, "n_layers": 2},
    {},
]


def test_constructor_refuses_as_python_does(page: Any) -> None:
    javascript = decode(page.evaluate("(all) => encode(all.map((f) => attempt(() => M.modelConfig(f))))",
                                      CONSTRUCTOR_ERRORS))
    python = [attempt(lambda f: lc.ModelConfig(**f), fields) for fields in CONSTRUCTOR_ERRORS]
    assert all("error" in outcome for outcome in python)
    assert mismatches(CONSTRUCTOR_ERRORS, python, javascript) == []


MOE = {"vocab_size": 1000, "d_model": 64, "n_layers": 2, "n_heads": 4, "d_ff": 256, "n_experts": 4,
       "experts_per_token": 2}
LORA_ERRORS: list[tuple[str | dict[str, Any], int | Any, Any]] = [
    ("gpt2", 8, ["q", "v"]),  # fused into c_attn: the hint names it
    ("gpt2", 8, []),
    ("gpt2", 8, [5]),
    ("gpt2", 8, 5),
    ("gpt2", 0, ["c_attn"]),
    ("gpt2", True, ["c_attn"]),
    ("gpt2", 2.5, ["c_attn"]),
    ("phi-2", 8, ["gate"]),
    ("mixtral-8x7b", 8, ["w1"]),  # peft needs w1 and w3 together
    ("mixtral-8x7b", 8, ["w1", "w3", "w2", "gate", "q_proj"]),
    ("mixtral-8x7b", 8, "q_proj"),
    (MOE, 8, "all-linear"),  # no model_type: peft's answer depends on it
    ({**MOE, "model_type": "olmoe"}, 8, "all-linear"),
    ({**MOE, "model_type": "qwen2_moe", "shared_expert_d_ff": 32, "shared_expert_gate": True}, 64, "all-linear"),
    ({**MOE, "n_layers": 3, "dense_layers": 1, "model_type": "deepseek_v3", "kv_lora_rank": 16, "rope_head_dim": 4,
      "q_lora_rank": 8, "shared_expert_d_ff": 32, "expert_d_ff": 16}, 4, ["gate_proj", "up_proj", "kv_b_proj"]),
    ({**MOE, "tie_embeddings": True, "lm_head_bias": True}, 8, ["q"]),
]


def test_lora_targets_and_refusals_match_python(page: Any) -> None:
    cases = [(preset if isinstance(preset, dict) else preset_fields(lc.PRESETS[preset]), rank, targets)
             for preset, rank, targets in LORA_ERRORS]
    javascript = decode(page.evaluate("""(cases) => encode(cases.map(([fields, rank, targets]) => attempt(() =>
        M.loraModelParams(M.modelConfig(fields), typeof rank === "number" && Number.isInteger(rank)
                          ? BigInt(rank) : rank, targets))))""", cases))
    python = [attempt(lambda f, r, t: lc.lora_model_params(lc.ModelConfig(**f), r, t), *case) for case in cases]
    assert sum("error" in outcome for outcome in python) >= 10
    assert mismatches(cases, python, javascript) == []


def refusal(**data: Any) -> dict[str, Any]:
    return data


LONG = 2**70 + 1
REFUSALS: list[dict[str, Any]] = [
    refusal(model_type="bert"),
    refusal(hidden_size=64),
    refusal(model_type=None),
    refusal(model_type=7),
    refusal(model_type=True),
    refusal(model_type=["llama"]),
    refusal(model_type="gemma3", text_config={"model_type": "gemma3_text"}),
    refusal(model_type="gemma3", text_config="not a dict"),
    refusal(model_type="llama", quantization_config={"bits": 4}),
    refusal(model_type="qwen2_moe", mlp_only_layers=[0, 5]),
    refusal(model_type="qwen2_moe", mlp_only_layers=[]),
    refusal(model_type="qwen2_moe", decoder_sparse_step=2),
    refusal(model_type="qwen2_moe", decoder_sparse_step=True),
    refusal(model_type="qwen2_moe", decoder_sparse_step=1.0),
    refusal(model_type="qwen3_moe", mlp_only_layers=[1]),
    refusal(model_type="falcon", new_decoder_architecture=True),
    refusal(model_type="falcon", new_decoder_architecture=0),
    refusal(model_type="falcon", new_decoder_architecture="yes"),
    refusal(model_type="gpt2", add_cross_attention=True),
    refusal(model_type="gpt2", add_cross_attention={}),
    refusal(model_type="gemma3_text", use_bidirectional_attention=True),
    refusal(model_type="gemma3_text", sliding_window_pattern=0),
    refusal(model_type="gemma3_text", sliding_window_pattern=1.5, num_hidden_layers=12),
    refusal(model_type="gemma3_text", sliding_window_pattern="6"),
    refusal(model_type="gemma3_text", _sliding_window_pattern=2),
    refusal(model_type="gemma3_text", sliding_window_pattern=True),
    refusal(model_type="gemma3_text", sliding_window_pattern=-4),
    refusal(model_type="gemma2", layer_types=["full_attention"]),
    refusal(model_type="gemma2", layer_types="full_attention"),
    refusal(model_type="gemma2", layer_types=[3, "full_attention", 3.0, True, 2.5] + ["full_attention"] * 21),
    refusal(model_type="gemma2", layer_types=["zeta", "alpha", "Beta", "zeta", "é"] + ["sliding_attention"] * 21),
    refusal(model_type="gemma2", layer_types=["sliding_attention"] * 26, sliding_window=1),
    refusal(model_type="gemma2", layer_types=["full_attention"] * 26, sliding_window=None),
    refusal(model_type="mistral", sliding_window=None),
    refusal(model_type="mistral", sliding_window=0),
    refusal(model_type="mistral", sliding_window="4096"),
    refusal(model_type="qwen2", use_sliding_window=True, max_window_layers=20, sliding_window=None),
    refusal(model_type="qwen2", use_sliding_window=True, max_window_layers=20),
    refusal(model_type="qwen2", use_sliding_window=True, max_window_layers=-1),
    refusal(model_type="qwen2", use_sliding_window=1),
    refusal(model_type="qwen2_moe", use_sliding_window=True, max_window_layers=7),
    refusal(model_type="qwen3_moe", use_sliding_window=True),
    refusal(model_type="qwen3_moe", use_sliding_window=True, sliding_window=None),
    refusal(model_type="qwen3_moe", num_experts=8, num_local_experts=16),
    refusal(model_type="qwen3_moe", num_experts=8, num_local_experts=8.0),
    refusal(model_type="qwen3_moe", num_experts=None, num_local_experts=None),
    refusal(model_type="llama", num_mtp_modules=2),
    refusal(model_type="llama", **{"1_layer": 2, "0": 1}),
    refusal(model_type="llama", fancy_head_count={"b": [1, 2.5, None, True, "x'y"], "10": {}, "2": 1}),
    refusal(model_type="llama", rms_norm_eps=1e-6, rope_theta=10000.0, hidden_act="silu"),
    refusal(model_type="llama", hidden_size="4096"),
    refusal(model_type="llama", hidden_size=4096.0),
    refusal(model_type="llama", hidden_size=1e15),
    refusal(model_type="llama", hidden_size=float("nan")),
    refusal(model_type="llama", hidden_size=float("-inf")),
    refusal(model_type="llama", hidden_size=None),
    refusal(model_type="llama", hidden_size=True),
    refusal(model_type="llama", hidden_size=-1),
    refusal(model_type="llama", hidden_size=[4096]),
    refusal(model_type="llama", num_attention_heads=0),
    refusal(model_type="llama", num_attention_heads=31),
    refusal(model_type="llama", num_key_value_heads=5),
    refusal(model_type="llama", num_key_value_heads=0),
    refusal(model_type="llama", head_dim=0),
    refusal(model_type="llama", vocab_size=LONG),
    refusal(model_type="llama", tie_word_embeddings="no"),
    refusal(model_type="llama", tie_word_embeddings=None),
    refusal(model_type="llama", attention_bias=1),
    refusal(model_type="llama", mlp_bias="false"),
    refusal(model_type="deepseek_v2"),
    refusal(model_type="deepseek_v2", num_experts_per_tok=6, first_k_dense_replace=27),
    refusal(model_type="deepseek_v3", num_experts_per_tok=300),
    refusal(model_type="deepseek_v3", q_lora_rank=None),
    refusal(model_type="deepseek_v3", n_shared_experts=0, first_k_dense_replace=0),
    refusal(model_type="deepseek_v3", qk_rope_head_dim=0),
    refusal(model_type="qwen2_moe", num_experts=1),
    refusal(model_type="mixtral", num_experts_per_tok=9),
    refusal(model_type="phi", qk_layernorm=True),
    refusal(model_type="phi", qk_layernorm=None),
    refusal(model_type="starcoder2", use_bias=False, sliding_window=4096),
    refusal(model_type="gpt_neox", attention_bias="yes"),
    refusal(model_type="falcon", parallel_attn=False, num_ln_in_parallel_attn=2, multi_query=False, bias=True),
    refusal(model_type="falcon", ffn_hidden_size=0),
    refusal(model_type="gpt2", n_inner=0),
    refusal(model_type="gpt2", n_positions=0),
    refusal(model_type="olmo2", num_key_value_heads=8),
    refusal(model_type="llama", hidden_size=float("nan")),  # not "hidden_size=nan contradicts hidden_size=nan"
    refusal(model_type="qwen3_moe", num_experts=float("nan"), num_local_experts=float("nan")),
]


def test_every_refusal_gives_the_python_code_and_numbers(page: Any) -> None:
    texts = [json.dumps(data) for data in REFUSALS]
    javascript = decode(page.evaluate(FROM_TEXTS,
                                      [texts, js_lora(LORA_SPECS)]))
    python = [python_outcome(json.loads(text), LORA_SPECS) for text in texts]
    assert mismatches(texts, python, javascript) == []
    assert sum("error" in outcome for outcome in python) >= 55  # the rest are accepted on purpose (ignored keys)


PERTURBATIONS: list[Any] = ["delete", 0, -1, True, False, "12", 1e15, 10**15, LONG, None, 4096.0, [], 3, 7]
LAYER_KEYS = {"num_hidden_layers", "n_layer"}


def mutation_vectors() -> list[tuple[int, str, bool, str]]:
    """(file, key, delete?, JSON value): every size key of every committed file, and each absent default, perturbed."""
    rng = random.Random(12)
    vectors = []
    for index, path in enumerate(MODEL_FILES):
        data = json.loads(path.read_text(encoding="utf-8"))
        defaults = hf.CLASS_DEFAULTS[data["model_type"]]
        keys = [key for key in data if key in defaults or hf._SIZE_WORDS.search(key)]
        keys += [key for key in defaults if key not in data]
        for key in keys:
            for value in rng.sample(PERTURBATIONS, 3):
                if key in LAYER_KEYS and isinstance(value, int) and value > 10**5:
                    value = 10**5  # Python builds a list with one entry per layer (the JavaScript does not)
                vectors.append((index, key, value == "delete", json.dumps(value)))
    return vectors


def mutated(vector: tuple[int, str, bool, str]) -> dict[str, Any]:
    index, key, delete, value = vector
    data = json.loads(MODEL_FILES[index].read_text(encoding="utf-8"))
    if delete:
        data.pop(key, None)
    else:
        data[key] = json.loads(value)
    return data


MUTATE = """([texts, vectors, lora]) => {
  const bases = texts.map((t) => M.parseConfigText(t));
  return encode(vectors.map(([index, key, remove, value]) => {
    const data = new Map(bases[index]);
    if (remove) data.delete(key);
    else data.set(key, M.parseConfigText(`{"v": ${value}}`).get("v"));
    const parsed = attempt(() => M.fromHfConfig(data));
    return parsed.error ? parsed : {ok: counts(parsed.ok, lora)};
  }));
}"""


def test_generated_mutations_give_the_same_outcome(page: Any) -> None:
    vectors = mutation_vectors()
    texts = [path.read_text(encoding="utf-8") for path in MODEL_FILES]
    javascript = decode(page.evaluate(MUTATE, [texts, vectors, js_lora(LORA_SPECS)]))
    python = [python_outcome(mutated(vector), LORA_SPECS) for vector in vectors]
    assert mismatches(vectors, python, javascript)[:3] == []
    refused = sum("error" in outcome for outcome in python)
    assert len(vectors) > 2000 and 500 < refused < len(vectors) - 300


def test_absurd_sizes_are_exact_bigints(page: Any) -> None:
    """10^15 and 10^34 parameters: exact, never NaN or Infinity (doubles hold integers exactly only to 2^53)."""
    configs = [
        {"model_type": "llama", "hidden_size": 10**6, "intermediate_size": 4 * 10**6, "num_hidden_layers": 100,
         "num_attention_heads": 1000, "vocab_size": 10**6},
        {"model_type": "mixtral", "hidden_size": 10**12 + 7, "intermediate_size": 3 * 10**12,
         "num_hidden_layers": 10**9, "num_attention_heads": 10**12 + 7, "num_key_value_heads": 1,
         "vocab_size": 2**60 + 1},
    ]
    lora = [(8, ["q", "v"]), (2**62 + 3, "all-linear")]
    texts = [json.dumps(data) for data in configs]
    javascript = decode(page.evaluate(FROM_TEXTS,
                                      [texts, js_lora(lora)]))
    python = [python_outcome(data, lora) for data in configs]
    assert mismatches(texts, python, javascript) == []
    assert 10**15 < python[0]["ok"]["total"] < 10**16 and python[1]["ok"]["total"] > 10**34


def test_a_quadrillion_layers_do_not_freeze_the_page(page: Any) -> None:
    """Python would build a 10^15-entry layer_types list; the JavaScript counts windowed layers arithmetically."""
    layers = 10**15 + 1
    fields = decode(page.evaluate("(t) => encode(M.fromHfConfig(M.parseConfigText(t)))",
                                  json.dumps({"model_type": "gemma2", "num_hidden_layers": layers})))
    assert fields["sliding_window_layers"] == (layers + 1) // 2  # layers 0, 2, 4, ... slide
    python = lc.ModelConfig(**{k: v for k, v in fields.items() if k != "model_type"})
    total = page.evaluate("(t) => M.paramCount(M.fromHfConfig(M.parseConfigText(t))).toString()",
                          json.dumps({"model_type": "gemma2", "num_hidden_layers": layers}))
    assert int(total) == lc.param_count(python)


JSON_VALUES = ['"it\'s"', '"tab\\tnew\\nline\\r\\u0001\\u007f"', '"caf\\u00e9 \\ud83d\\ude00 \\u2028"', "0.1",
               "1e16", "1e15", "123456789.125", "1e-5", "-0.0", "5e-324", "1.7976931348623157e308", "1e400", "NaN",
               "-Infinity", "Infinity", "12345678901234567890123456789", "-0", "4096.0", "4096", "[]", "{}",
               '[1, 2.5, [true, null], {"a": "b"}]', '{"b": 1, "a": {"1": 2, "0": 3}}', '"NaN"', '["Infinity", NaN]',
               # strings that start as the reader's marks for a number literal do (modelconfig.js's markFor)
               '"\\u0000\\u00011"', '["\\u0000\\u0001NaN", 2.0]',
               '{"\\u0000\\u0000\\u0001": 3, "k": "\\u0000\\u0001-0"}']

# JSON.parse as a browser without its source-text access has it (Node 20 has none): the reviver gets no third
# argument.
WITHOUT_SOURCE_TEXT = """(run) => {
  const parse = JSON.parse;
  JSON.parse = (text, reviver) => parse(text, reviver && ((key, value) => reviver(key, value)));
  try { return run(); } finally { JSON.parse = parse; }
}"""


@pytest.mark.parametrize("source_text", [True, False], ids=["source-text", "no-source-text"])
def test_values_are_read_as_python_reads_them(page: Any, source_text: bool) -> None:
    """Python's json model: ints exact at any size and apart from floats, NaN and the infinities, strings as written.

    In any browser: without JSON.parse's source text, 4096.0 must still be a float and a 29-digit integer exact.
    """
    javascript = decode(page.evaluate(
        f"""(values) => ({"(run) => run()" if source_text else WITHOUT_SOURCE_TEXT})(
            () => encode(values.map((v) => M.parseConfigText(`{{"v": ${{v}}}}`).get('v'))))""", JSON_VALUES))
    python = [json.loads(f'{{"v": {value}}}')["v"] for value in JSON_VALUES]
    assert [canonical(value) for value in javascript] == [canonical(value) for value in python]
    assert [type(value) for value in javascript] == [type(value) for value in python]


def test_unknown_layer_types_of_any_kind_are_refused_by_name(page: Any) -> None:
    text = json.dumps({"model_type": "gemma2", "layer_types": ["chunked", 3, [1], "chunked"] + ["full_attention"] * 22})
    error = decode(page.evaluate("(t) => encode(attempt(() => M.fromHfConfig(M.parseConfigText(t))).error)", text))
    python = attempt(lc.ModelConfig.from_hf_config, json.loads(text))["error"]
    assert error == python == ["layer_types_unknown", {"config": "gemma2", "types": ["chunked", 3, [1]]}]


MALFORMED = ['{"model_type": "llama",\n "hidden_size": }', "[1, 2]", '"llama"', "", "   ", "{", '{"a" 1}', '{"a": 1,}',
             '{"a": 1 "b": 2}', "[1, 2", "[1 2]", "{} x", '{"a": "unterminated', '{"a": "\\x"}', '{"a": "\\u12"}',
             '{"a": "tab\there"}', "\ufeff{}", '{"a": 01}', '{"a": -}', '{"a": 1.}', '{"a": 1e}', "{'a': 1}",
             '{\n  "a": [\n    1,\n    tru\n  ]\n}', '{"😀": 1, "b": ?}', "nul", "7",
             '{\r\n  "a": 1,\r\n  "b": }', '{\r  "a": "x\r"}']


def test_malformed_text_gives_the_python_code(page: Any, tmp_path: Path) -> None:
    """The code and the file named; where JSON.parse says where the error is, the line and column Python names."""
    expected = []
    for number, text in enumerate(MALFORMED):
        path = tmp_path / f"config{number}.json"
        path.write_text(text, encoding="utf-8")
        try:
            hf._load(path)
            expected.append(None)
        except Refusal as error:
            expected.append((error.code, error.params["path"], error.params.get("line"), error.params.get("column")))
    names = [str(tmp_path / f"config{number}.json") for number in range(len(MALFORMED))]
    javascript = page.evaluate("""([texts, names]) => texts.map((t, i) => {
        try { M.parseConfigText(t, names[i]); return null; }
        catch (e) { return [e.code, e.params.path, e.params.line ?? null, e.params.column ?? null]; } })""",
                               [MALFORMED, names])
    assert None not in expected
    javascript = [None if outcome is None else tuple(outcome) for outcome in javascript]
    outcomes = list(zip(MALFORMED, expected, javascript, strict=True))
    assert [(t, p, j) for t, p, j in outcomes if j is None or p[:2] != j[:2]] == []
    # V8 names a position in some of its messages only; where it does, the line is Python's. Columns are compared
    # only for being on that line: CPython 3.13 moved some of its own (a string's start, a backslash), and V8
    # points past others, so an exact column is an interpreter's detail, not the file's.
    named = [(t, p, j) for t, p, j in outcomes if j[2] is not None]
    assert len(named) == 17
    assert [(t, p, j) for t, p, j in named if p[2] != j[2]] == []
    line_lengths = [len(t.splitlines()[p[2] - 1]) + 1 for t, p, _ in named]
    assert [(t, p[3], j[3]) for (t, p, j), width in zip(named, line_lengths, strict=True)
            if not (1 <= p[3] <= width and 1 <= j[3] <= width)] == []


def test_absurd_nesting_is_refused_with_a_message(page: Any) -> None:
    """Python gives up at its recursion limit (RecursionError); the page must not die on a stack overflow either."""
    text = '{"a": ' + "[" * 1_000_000 + "]" * 1_000_000 + "}"
    with pytest.raises(RecursionError):
        json.loads(text)
    error = page.evaluate("(t) => attempt(() => M.parseConfigText(t)).error", text)
    assert error == ["too_deeply_nested", {"path": "config.json"}]


def test_counts_refuse_objects_the_module_did_not_validate(page: Any) -> None:
    error = page.evaluate("""() => attempt(() => M.paramCount({...M.modelConfig(
        {vocab_size: 10, d_model: 8, n_layers: 1, n_heads: 2, d_ff: 8}), d_model: -8n})).error""")
    assert error == ["not_a_model_config", {"type": "object"}]


LLAMA_BASE = json.loads((DATA / "llama-3.1-8b.json").read_text(encoding="utf-8"))
# (what the config declares, the trained context by hand): max_position_embeddings, raised to original x factor only
# where the scaling declares the original length it extends.
ROPE_CASES: list[tuple[dict[str, Any], int]] = [
    ({}, 131_072),  # Llama 3.1: llama3 scaling, 8,192 x 8 = 65,536 < the stated 131,072
    ({"max_position_embeddings": 32_768, "rope_parameters": {"rope_type": "yarn", "factor": 4.0,
      "original_max_position_embeddings": 32_768}}, 131_072),  # Qwen2.5's YaRN recipe
    ({"max_position_embeddings": 32_768, "rope_parameters": None,
      "rope_scaling": {"type": "yarn", "factor": 4, "original_max_position_embeddings": 32_768}}, 131_072),
    ({"max_position_embeddings": 4096, "rope_parameters": {"rope_type": "linear", "factor": 8.0}}, 4096),
    ({"max_position_embeddings": 4096, "original_max_position_embeddings": 2048,
      "rope_parameters": {"rope_type": "dynamic", "factor": 2.5}}, 5120),
    ({"max_position_embeddings": 4096, "rope_parameters": {"full_attention": {"factor": 8.0,
      "original_max_position_embeddings": 4096}, "sliding_attention": {"rope_type": "default"}}}, 32_768),
    ({"max_position_embeddings": 4096, "rope_parameters": {"factor": 1e309, "original_max_position_embeddings": 10}},
     4096),
    ({"max_position_embeddings": 4096, "rope_parameters": {"factor": True, "original_max_position_embeddings": 10}},
     4096),
    ({"max_position_embeddings": 4096, "rope_parameters": {"factor": 3.3, "original_max_position_embeddings": 3}},
     4096),
    ({"max_position_embeddings": 10, "rope_parameters": {"factor": 3.3, "original_max_position_embeddings": 7}}, 23),
]


def test_the_trained_context_is_read_alike_and_as_derived_by_hand(page: Any) -> None:
    datas = [{**LLAMA_BASE, **declared} for declared, _expected in ROPE_CASES]
    texts = [json.dumps(data) for data in datas]
    javascript = decode(page.evaluate(FROM_TEXTS, [texts, js_lora(LORA_SPECS)]))
    python = [python_outcome(data, LORA_SPECS) for data in datas]
    assert mismatches(texts, python, javascript) == []
    assert [outcome["ok"]["config"]["trained_context"] for outcome in python] == [e for _d, e in ROPE_CASES]
    refused = python_outcome({**LLAMA_BASE, "max_position_embeddings": 0}, LORA_SPECS)
    assert refused["error"] == ["key_not_a_count", {"config": "llama", "key": "max_position_embeddings",
                                                    "minimum": 1, "value": 0}]


def test_real_hub_configs_give_python_fields_and_counts(page: Any) -> None:
    hub_files = sorted(path for path in (REPO / "tests" / "data" / "hub_configs").glob("*.json")
                       if not path.name.startswith("_"))
    texts = [path.read_text(encoding="utf-8") for path in hub_files]
    javascript = decode(page.evaluate(FROM_TEXTS, [texts, js_lora(LORA_SPECS)]))
    python = [python_outcome(path, LORA_SPECS) for path in hub_files]
    assert mismatches([p.name for p in hub_files], python, javascript) == []
    # The one refusal among real files: quantized checkpoints, DeepSeek's FP8 blocks and gpt-oss's MXFP4 experts
    # (test_llmcalc_hub_configs.REFUSED).
    assert len(hub_files) >= 7 and all("ok" in outcome or outcome["error"][0] == "quantized_checkpoint"
                                       for outcome in javascript)
    assert sum("ok" in outcome for outcome in javascript) >= len(hub_files) - 4
