"""The widget's defaults are the CLI's: peft's targets for the loaded model, tokens up to its trained context.

The oracle is the CLI's JSON (``llmcalc plan MODEL --task ... --json``), itself checked against peft 0.22.0 on every
committed Hub config (tests/test_cli_defaults.py).  The common target sets (PL-13) are llmcalc's plans with those
targets; a rank above a layer's width gets the CLI's note, in the page's words.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_planner import (  # the module's shared planner pages and readers
    LANGUAGES,
    ROOT,
    Planners,
    choose,
    cli_plan_json,
    expect_text,
    planners,
    read,
    shown_parts,
)

import llmcalc as lc
from llmcalc.errors import Refusal
from llmcalc.lora import default_lora_targets
from llmcalc.planner import default_tokens, plan_training
from llmcalc.trainers import DEFAULT_SETUP, setup_settings

HUB = Path(__file__).parent / "data" / "hub_configs"
__all__ = ["planners"]  # the fixture, imported to be used here
# The built page in Chromium, as in test_planner: the site tier (make check runs without a build).
pytestmark = [pytest.mark.site, pytest.mark.browser]
LIST = {"en": ", ", "zh_TW": "、"}  # a list in running text: zh_TW enumerates with the ideographic comma

# File, task: what the CLI plans with its defaults (or refuses, where peft has no default targets).
CASES = [("gpt2.json", "lora"), ("falcon-7b.json", "qlora"), ("phi-2.json", "lora"), ("llama-3.2-3b.json", "qlora"),
         ("gpt-neox-20b.json", "lora")]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_default_targets_and_length_are_the_cli_s(language: str, planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    assert page.locator(f'{ROOT} select[name="targets"]').input_value() == "default"
    for name, task in CASES:
        cli = cli_plan_json(str(HUB / name), "--task", task, "--gpu", "80")
        page.locator('input[name="config_file"]').set_input_files(str(HUB / name))
        expect_text(page, "params", f"{lc.param_count(lc.ModelConfig.from_hf_config(HUB / name)):,}")
        choose(page, task=task, gpu="", gpu_gib="80")
        assert page.locator('[name="seq_len"]').input_value() == str(cli["seq_len"]), name
        assert {k: v for k, v in shown_parts(page).items() if k != "total"} == {
            k: v for k, v in cli["parts"].items() if k != "kv_cache"} | {"kv_cache": 0}, name
        assert read(page, "largest").startswith(f"{cli['largest_micro_batch']:,}"), name
        assert LIST[language].join(cli["targets"]) in read(page, "note"), name
    # peft has no default for Phi-3's layout: the page asks for targets and lists the modules, as the CLI does.
    page.locator('input[name="config_file"]').set_input_files(str(HUB / "phi-4.json"))
    error = page.locator(f'{ROOT} [data-error="plan"]')
    error.wait_for(state="visible")
    modules = LIST[language].join(["self_attn.qkv_proj", "self_attn.o_proj"])
    assert "0.22.0" in error.inner_text() and modules in error.inner_text()
    assert "phi3" in error.inner_text()
    choose(page, task="lora", targets="all-linear")
    assert not error.is_visible()
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_common_target_sets_plan_as_llmcalc(language: str, planners: Planners) -> None:
    """PL-13: q,v; q,k,v,o; attention and MLP (Answer.AI's set); all linear layers, on Llama 2 7B."""
    planner = planners.main(language)
    page, log = planner.page, planner.log
    cfg = lc.get_preset("llama-2-7b")
    page.locator(f'{ROOT} select[name="preset"]').select_option("llama-2-7b")
    for value, targets in [("q,v", ["q", "v"]), ("q,k,v,o", ["q", "k", "v", "o"]),
                           ("q,k,v,o,gate,up,down", ["q", "k", "v", "o", "gate", "up", "down"]),
                           ("all-linear", "all-linear")]:
        choose(page, task="lora", targets=value, rank="16", seq_len="2048", micro_batch="1")
        # The widget plans with its default set-up, TRL's SFTTrainer, as the CLI does.
        plan = plan_training(cfg, task="lora", seq_len=2048, rank=16, targets=targets,
                             **setup_settings(DEFAULT_SETUP, "lora"))
        assert shown_parts(page)["total"] == plan.total, value
    labels = page.locator(f'{ROOT} select[name="targets"] option').all_inner_texts()
    assert len(labels) == 5 and len(set(labels)) == 5
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_rank_above_the_layer_width_is_noted_as_the_cli_does(language: str, planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator(f'{ROOT} select[name="preset"]').select_option("llama-2-7b")
    note = page.locator(f'{ROOT} [data-out="note"]')
    choose(page, task="lora", targets="q,v", rank="4096")
    assert not note.is_visible()
    choose(page, task="lora", rank="5000")
    words = page.locator(ROOT).get_attribute("data-rank-note")
    assert note.inner_text() == words.replace("{rank}", "5,000").replace("{module}", "self_attn.q_proj").replace(
        "{width}", "4,096")
    # Left to peft, the note also names the modules its default adapts, as the CLI's heading does.
    choose(page, task="lora", targets="default", rank="16")
    named = page.locator(ROOT).get_attribute("data-targets-note")
    assert note.inner_text() == named.replace("{targets}", LIST[language].join(["q_proj", "v_proj"])).replace(
        "{peft_version}", "0.22.0").replace("{model_type}", "llama")
    assert log.errors == [] and log.requests == []


DEFAULTS_IN_PAGE = """(texts) => texts.map((text) => {
  // The page's own rule on each file: peft's default targets (or the refusal's code and model type) and the lengths.
  const M = window.LLMModelConfig, P = window.LLMPlanner;
  let cfg;
  try { cfg = M.fromHfConfig(M.parseConfigText(text, "config.json")); } catch (error) { return {config: error.code}; }
  let targets;
  try { targets = P.defaultLoraTargets(cfg); } catch (error) { targets = [error.code, error.params.model_type]; }
  return {targets, seq_len: P.defaultTokens(cfg, 2048), context: P.defaultTokens(cfg, 4096)};
})"""


def test_the_page_s_defaults_are_llmcalc_s_on_every_committed_config(planners: Planners) -> None:
    files = sorted(path for path in HUB.glob("*.json") if not path.name.startswith("_"))
    shown = planners.main("en").page.evaluate(DEFAULTS_IN_PAGE, [p.read_text(encoding="utf-8") for p in files])
    for path, got in zip(files, shown, strict=True):
        try:
            cfg = lc.ModelConfig.from_hf_config(path)
        except Refusal as error:
            assert got == {"config": error.code}, path.name
            continue
        try:
            targets: list[str] = default_lora_targets(cfg)
        except Refusal as error:
            targets = [error.code, error.params["model_type"]]
        assert got == {"targets": targets, "seq_len": default_tokens(cfg, 2048),
                       "context": default_tokens(cfg, 4096)}, path.name
