"""The browser's copy of llmcalc against llmcalc, under Node.js: the planner's arithmetic in the fast tier.

The oracle is ``llmcalc.planner`` and ``llmcalc.engines``: the vectors ``tests/test_planner.py`` generates
from Python (every preset and committed ``config.json``, each task and option at random sizes, with their
largest fits) go through the planner page's scripts, loaded as the page loads them on the spec llmcalc writes
into it (``tests/jsnode.py``), by the same comparison scripts, and must give the same bytes, or the same refusal
(its code and the numbers among its parameters); the small calculators' script, likewise, on the vectors
``tests/test_calculators.py`` generates.  Then the contract itself: a script with one mirrored constant
changed, or tables with one entry changed, must fail these comparisons, and tables of another
``llmcalc.browser.SPEC_VERSION`` must be refused before any number is computed.  The widget as a reader uses
it stays in Chromium (``test_planner.py``, ``test_js_spec_browser.py``).
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_calculators import COMPARE_SCRIPT as CALCULATORS_COMPARE
from test_calculators import kvcache_vectors, lora_vectors, memory_vectors
from test_planner import (
    BAD_API_INPUT,
    CALL_BAD,
    COMPARE,
    COMPARE_ENGINES,
    MEMORY_TEXTS,
    TRAINING_DEFAULTS,
    committed_training_vectors,
    engine_vectors,
    plan_vectors,
)

import llmcalc as lc
from jsnode import NodeError, NodePage, calculators_page, planner_page, require_node, script_texts
from llmcalc.browser import SPEC_VERSION, browser_data, planner_tables
from llmcalc.errors import Refusal
from llmcalc.planner import gpu_memory

pytestmark = pytest.mark.node
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def page() -> Iterator[NodePage]:
    node = planner_page()
    yield node
    node.close()


def test_every_plan_matches_llmcalc(page: NodePage) -> None:
    vectors = plan_vectors()
    refused = sum("error" in v["expected"] for v in vectors)  # type: ignore[operator]
    assert len(vectors) > 400 and 0 < refused < len(vectors) / 2
    assert page.evaluate(COMPARE, vectors) == {"checked": len(vectors), "bad": []}


def test_every_committed_config_gets_the_training_plans_llmcalc_gives(page: NodePage) -> None:
    """Issue 25 in the widget's code: each committed config (dense families, MoE, MLA) with full fine-tuning, LoRA
    and QLoRA (kbit-prepared and not) on its query and value projections and on every linear layer, with and without
    checkpointing: the widget's plan is llmcalc's, and every attention-target plan is given (no refusal)."""
    vectors = committed_training_vectors()
    given = {(v["model"], v["options"]["task"]) for v in vectors  # type: ignore[index]
             if "error" not in v["expected"] and not isinstance(v["options"]["targets"], str)}  # type: ignore[index]
    assert len(given) == 66
    assert page.evaluate(COMPARE, vectors) == {"checked": len(vectors), "bad": []}


def test_every_engine_plan_matches_llmcalc(page: NodePage) -> None:
    vectors = engine_vectors()
    refused = sum("error" in v["expected"] for v in vectors)  # type: ignore[operator]
    starts = sum(v["expected"].get("parts", {}).get("starts") == "true" for v in vectors)  # type: ignore[union-attr]
    # At least 10 vLLM plans that start (12 of 292 vectors before mistral-small-24b, 10 of 296 after: a new preset
    # shifts the random draws of every source after it).
    assert len(vectors) > 100 and 0 < refused < len(vectors) - 40 and starts >= 10
    assert page.evaluate(COMPARE_ENGINES, vectors) == {"checked": len(vectors), "bad": []}


def test_gpu_memory_is_read_as_llmcalc_reads_it(page: NodePage) -> None:
    def python(text: str) -> str | None:
        try:
            return str(gpu_memory(text))
        except ValueError:
            return None

    expected = [python(text) for text in MEMORY_TEXTS]
    # A card's key: the total a process sees on it, the L40S's 44.42 GiB as its log prints it.
    assert expected.count(None) >= 8 and expected[MEMORY_TEXTS.index("l40s")] == str(4442 * 2**30 // 100)
    got = page.evaluate("(texts) => texts.map((t) => { const b = window.LLMPlanner.gpuMemory(t); "
                        "return b === null ? null : String(b); })", MEMORY_TEXTS)
    assert got == expected


def as_json(value: object) -> object:
    """A case's arguments as JSON can carry them: NaN by name (CALL_BAD turns it back)."""
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, list):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    return value


def test_bad_input_to_the_planner_s_functions_is_refused_as_llmcalc_refuses_it(page: NodePage) -> None:
    """Through window.LLMPlanner, whose functions the widget, the chart and a reader's console call: what llmcalc
    refuses (NaN, a fraction, a stage or task it has no rule for, a sequence beyond learned positions) is refused
    with llmcalc's code and name, never computed as another value or left to a JS TypeError."""
    expected = []
    for _, model, _, _, python in BAD_API_INPUT:
        try:
            expected.append({"value": str(python(lc.get_preset(model)).total)})  # type: ignore[union-attr]
        except Refusal as error:
            expected.append({"error": error.code, "name": error.params.get("name")})
    assert all("error" in outcome for outcome in expected)
    calls = [[model, name, as_json(given)] for _, model, name, given, _ in BAD_API_INPUT]
    got = page.evaluate(CALL_BAD, [calls, TRAINING_DEFAULTS])
    cases = [case[0] for case in BAD_API_INPUT]
    assert dict(zip(cases, got, strict=True)) == dict(zip(cases, expected, strict=True))


MXFP4_BYTES = """([texts, badFormat]) => texts.map((text) => {
  const read = window.LLMModelConfig.checkpointFromHf(window.LLMModelConfig.parseConfigText(text));
  const parts = window.LLMPlanner.weightFormatBytes(read.config, read.weightFormat);
  const kept = window.LLMPlanner.keptLinearModules(read.config, read.weightFormat).map((k) => k.map(String));
  let refused = null;
  try { window.LLMPlanner.weightFormatBytes(read.config, badFormat); } catch (error) { refused = error.code; }
  return { parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, String(v)])), kept, refused };
})"""


def test_gpt_oss_mxfp4_checkpoints_are_sized_as_llmcalc_sizes_them(page: NodePage) -> None:
    """The published gpt-oss config.json files: the widget reads their MXFP4 quantization_config, sizes the experts'
    codes and scales and keeps the rest in 16 bits as llmcalc.checkpoints does, and refuses a preset recipe by name."""
    from llmcalc.checkpoints import checkpoint_from_hf, checkpoint_weight_bytes, kept_in_16_bits

    paths = [ROOT / "tests" / "data" / "hub_configs" / f"gpt-oss-{size}.json" for size in ("20b", "120b")]
    expected = []
    for path in paths:
        checkpoint = checkpoint_from_hf(path)
        assert checkpoint.weight_format is not None
        parts = checkpoint_weight_bytes(checkpoint.config, checkpoint.weight_format)
        kept = kept_in_16_bits(checkpoint.config, checkpoint.weight_format)
        expected.append({"parts": {key: str(value) for key, value in parts.items()},
                         "kept": [[str(item) for item in entry] for entry in kept],
                         "refused": "weight_format_unmeasured"})
    texts = [path.read_text(encoding="utf-8") for path in paths]
    assert page.evaluate(MXFP4_BYTES, [texts, "nf4"]) == expected


MXFP4_VLLM = """([texts, cases]) => texts.flatMap((text) => cases.map((options) => {
  const read = window.LLMModelConfig.checkpointFromHf(window.LLMModelConfig.parseConfigText(text));
  const format = options.preset ? options.preset : read.weightFormat;
  try {
    const plan = window.LLMPlanner.planVllm(read.config, BigInt(options.gpu), {...options, weightFormat: format});
    return ["requested", "weights", "profile_peak", "non_torch", "blocks", "kv_tokens", "blocks_per_request", "starts"]
      .map((key) => String(plan[key]));
  } catch (error) {
    return [error.code, Object.keys(error.params).sort().map((key) => `${key}=${error.params[key]}`).join(" ")];
  }
}))"""


def test_gpt_oss_vllm_plans_are_llmcalc_s(page: NodePage) -> None:
    """The published gpt-oss config.json files planned by the widget's vLLM engine as llmcalc plans them: the two
    vLLM 0.19.0 logs' settings (one H100 and two), four GPUs, and the set-ups refused by name (the BF16 recipe, no
    hybrid manager, the sorting sampler, a tensor-parallel size vLLM does not accept)."""
    from llmcalc.checkpoints import checkpoint_from_hf
    from llmcalc.engines import plan_vllm
    from llmcalc.errors import Refusal

    log = {"gpu": str(round(79.19 * 2**30)), "context": 8192, "maxNumBatchedTokens": 8192, "kvFormat": "bf16",
           "cudaGraphBytes": 0, "maxNumSeqs": 1024, "hybridKvCache": True, "samplerFilter": "triton"}
    cases = [{**log, "utilization": 0.95, "tensorParallel": 1, "nonTorchBytes": round(0.25 * 2**30)},
             {**log, "utilization": 0.9, "tensorParallel": 2, "nonTorchBytes": round(2.07 * 2**30)},
             {**log, "utilization": 0.92, "tensorParallel": 4, "nonTorchBytes": 2**30, "context": 131072},
             {**log, "utilization": 0.9, "tensorParallel": 1, "nonTorchBytes": 0, "preset": "bf16"},
             {**log, "utilization": 0.9, "tensorParallel": 1, "nonTorchBytes": 0, "hybridKvCache": False},
             {**log, "utilization": 0.9, "tensorParallel": 1, "nonTorchBytes": 0, "samplerFilter": "sort"},
             {**log, "utilization": 0.9, "tensorParallel": 3, "nonTorchBytes": 0}]
    paths = [ROOT / "tests" / "data" / "hub_configs" / f"gpt-oss-{size}.json" for size in ("20b", "120b")]
    expected = []
    for path in paths:
        checkpoint = checkpoint_from_hf(path)
        for options in cases:
            try:
                plan = plan_vllm(checkpoint.config, int(str(options["gpu"])), max_model_len=options["context"],
                                 max_num_batched_tokens=options["maxNumBatchedTokens"],
                                 gpu_memory_utilization=options["utilization"],
                                 weight_format=options.get("preset") or checkpoint.weight_format,
                                 tensor_parallel=options["tensorParallel"], non_torch_bytes=options["nonTorchBytes"],
                                 max_num_seqs=options["maxNumSeqs"], hybrid_kv_cache=options["hybridKvCache"],
                                 sampler_filter=options["samplerFilter"])
                expected.append([str(value) for value in (plan.requested, plan.weights, plan.profile_peak,
                                                          plan.non_torch, plan.blocks, plan.kv_tokens,
                                                          plan.blocks_per_request())] + [str(plan.starts).lower()])
            except Refusal as error:
                # A list as JavaScript's String() joins it, a bool as it writes one (the widget words both).
                named = {key: ",".join(map(str, value)) if isinstance(value, list)
                         else str(value).lower() if isinstance(value, bool) else value
                         for key, value in error.params.items()}
                expected.append([error.code, " ".join(f"{key}={value}" for key, value in sorted(named.items()))])
    assert sum(len(row) == 2 for row in expected) == 8
    assert page.evaluate(MXFP4_VLLM, [[path.read_text(encoding="utf-8") for path in paths], cases]) == expected


CARD_CHECK = """([texts, cards]) => texts.flatMap((text) => cards.map((card) => {
  const read = window.LLMModelConfig.checkpointFromHf(window.LLMModelConfig.parseConfigText(text));
  try { window.LLMPlanner.checkVllmCard(read.config, card); return "planned"; } catch (error) { return error.code; }
}))"""


def test_the_cards_gpt_oss_is_planned_on_with_vllm_are_llmcalc_s(page: NodePage) -> None:
    """Every listed card and the ranking ("all"), for gpt-oss (Hopper cards only) and for a Llama config file."""
    from llmcalc.checkpoints import checkpoint_from_hf
    from llmcalc.engines import check_vllm_card
    from llmcalc.errors import Refusal
    from llmcalc.planner import CARDS

    cards = [card.key for card in CARDS] + ["all"]
    paths = [ROOT / "tests" / "data" / "hub_configs" / name for name in ("gpt-oss-20b.json", "llama-3.1-8b.json")]
    expected = []
    for path in paths:
        cfg = checkpoint_from_hf(path).config
        for card in cards:
            try:
                check_vllm_card(cfg, card)
                expected.append("planned")
            except Refusal as error:
                expected.append(error.code)
    assert expected.count("planned") == 4 + len(cards)
    assert page.evaluate(CARD_CHECK, [[path.read_text(encoding="utf-8") for path in paths], cards]) == expected


def test_the_small_calculators_agree_with_llmcalc_on_every_vector() -> None:
    """calculators.js (LoRA, memory and KV-cache widgets) on llmcalc's DTYPE_BITS, as a glossary page gives them."""
    vectors = [lora_vectors(), memory_vectors(), kvcache_vectors()]
    node = calculators_page()
    try:
        outcome = node.evaluate(CALCULATORS_COMPARE, vectors)
    finally:
        node.close()
    assert outcome == {"checked": sum(map(len, vectors)), "bad": []}
    assert outcome["checked"] > 2000


# ---- The contract can fail: a drift on either side is caught in seconds ----


def bad_plans(node: NodePage) -> dict[str, Any]:
    """The plan and engine comparisons on ``node`` over every tenth plan vector (every model source, each task),
    every fourth committed-config training plan and every engine vector: the first few that differ."""
    plans = plan_vectors()[::10] + committed_training_vectors()[::4]
    return {"plans": node.evaluate(COMPARE, plans)["bad"], "engines": node.evaluate(COMPARE_ENGINES,
                                                                                    engine_vectors())["bad"]}


# A constant the JavaScript still writes as a rule's literal, changed as a careless edit would change it: the
# comparisons must then report plans that differ from llmcalc's.
SCRIPT_DRIFTS = [
    # llmcalc.activations._INT64: a routing index's bytes
    ("planneractivations.js", "var INT64 = 8n;", "var INT64 = 4n;"),
    # bitsandbytes' NF4 code book, in fp32
    ("plannerweights.js", "var nf4Table = 16n * 4n;", "var nf4Table = 16n * 2n;"),
    ("modelcounts.js", "qkv: qDim(cfg) + 2n * kvDim(cfg)", "qkv: qDim(cfg) + 1n * kvDim(cfg)"),  # K and V: two
]


@pytest.mark.parametrize(("script", "old", "new"), SCRIPT_DRIFTS, ids=["INT64", "nf4Table", "qkv-width"])
def test_a_constant_changed_in_a_script_fails_the_comparison(script: str, old: str, new: str) -> None:
    [(_, text)] = script_texts((script,))
    assert text.count(old) == 1, f"{script} no longer has {old!r}: choose another constant"
    drifted = planner_page(sources={script: text.replace(old, new)})
    try:
        compared = bad_plans(drifted)
    finally:
        drifted.close()
    assert compared["plans"] or compared["engines"], compared


def drifted_tables(path: tuple[str, ...], value: object) -> dict[str, Any]:
    """planner_tables() with the entry at ``path`` set to ``value``: a table the JavaScript would have retyped."""
    tables = copy.deepcopy(planner_tables())
    inner = tables
    for key in path[:-1]:
        inner = inner[key]
    assert path[-1] in inner, path
    inner[path[-1]] = value
    return tables


# Entries of tables planner.js once retyped (llmcalc.activations' family traits) and of older ones: each is read
# from the spec, so a spec without the Python value gives other plans.
TABLE_DRIFTS = [
    (("activations_traits", "eager_only"), []),
    (("activations_traits", "fused_qkv"), ["falcon", "phi3"]),
    (("activations_traits", "mlp_wide_tensors", "gpt2"), 4),
    (("activations_traits", "post_norms"), []),
]


@pytest.mark.parametrize(("path", "value"), TABLE_DRIFTS, ids=[".".join(path) for path, _ in TABLE_DRIFTS])
def test_a_table_entry_changed_in_the_spec_fails_the_comparison(path: tuple[str, ...], value: object) -> None:
    drifted = planner_page(tables=drifted_tables(path, value))
    try:
        compared = bad_plans(drifted)
    finally:
        drifted.close()
    assert compared["plans"] or compared["engines"], compared


def test_tables_of_another_spec_version_are_refused_before_any_number() -> None:
    """Each script that reads the spec names the version it reads; a page of another says so, naming both."""
    assert planner_tables()["spec_version"] == browser_data()["spec_version"] == SPEC_VERSION
    with pytest.raises(NodeError, match=f"SPEC_VERSION {SPEC_VERSION + 1}, the scripts read version {SPEC_VERSION}"):
        planner_page(tables={**planner_tables(), "spec_version": SPEC_VERSION + 1})
    with pytest.raises(NodeError, match=f"SPEC_VERSION undefined, the scripts read version {SPEC_VERSION}"):
        planner_page(tables={key: value for key, value in planner_tables().items() if key != "spec_version"})
    node = planner_page()
    try:
        older = {**browser_data(), "spec_version": SPEC_VERSION - 1}
        error = node.evaluate("(tables) => { try { window.LLMModelConfig.withTables(tables); return null; } "
                              "catch (error) { return error.message; } }", older)
    finally:
        node.close()
    assert error == f"the page's tables are llmcalc.browser.SPEC_VERSION {SPEC_VERSION - 1}, " \
                    f"modelconfig.js reads version {SPEC_VERSION}"


def test_without_node_a_contributor_s_run_skips_and_ci_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the browser tests without Chromium: a skip that names the reason, never a pass; a failure in CI."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"Node\.js is not installed"):
        require_node()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set, so the Node tests may not skip"):
        require_node()
