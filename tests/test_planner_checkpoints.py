"""Page 19's planner with a quantized config.json, in both languages: the widget plans it as ``llmcalc plan`` does.

Loaded in headless Chromium from the built site (``make html``): Meta's Llama 3.1 405B FP8 layout, whose skip list
keeps attention and the first and last MLPs in BF16, planned on 8 H100s by the sum and by vLLM, against the CLI's
JSON for the same file; the note names the layers kept in 16 bits in the page's words; a training task is refused
as the CLI refuses it; the share link carries the quantization_config.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from test_llmcalc_checkpoints import PUBLISHED, config_of
from test_planner import (
    LANGUAGES,
    ROOT,
    Planners,
    choose,
    cli_plan_json,
    expect_text,
    load,
    planners,
    read,
    shown_parts,
    shown_result,
)

import llmcalc as lc
from llmcalc.checkpoints import checkpoint_from_hf
from zhlint import HAN

pytestmark = [pytest.mark.site, pytest.mark.browser]

__all__ = ["planners"]  # the shared pages' fixture, used by name
ROOT_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def fp8_405b(tmp_path_factory: pytest.TempPathFactory) -> Path:
    [entry] = [e for e in PUBLISHED if e["checkpoint"].endswith("405B-Instruct-FP8")]
    path = tmp_path_factory.mktemp("fp8") / "config.json"
    path.write_text(json.dumps(config_of(entry)), "utf-8")
    return path


def planned_as_the_cli_plans_it(page: Any, path: Path, gpu: str, *, tensor_parallel: str) -> dict[str, int]:
    """Load ``path`` in the widget and plan it at 8,192 tokens, summed on ``gpu``: the parts shown, checked to be
    ``llmcalc plan``'s for the same file and settings."""
    summed = cli_plan_json(str(path), "--tensor-parallel", tensor_parallel, "--context", "8192", "--gpu", gpu)
    page.locator('input[name="config_file"]').set_input_files(str(path))
    expect_text(page, "params", f"{lc.param_count(checkpoint_from_hf(path).config):,}")
    page.locator('select[name="gpu"]').select_option(gpu)
    choose(page, task="inference", engine="sum", tensor_parallel=tensor_parallel, context="8192")
    shown: dict[str, int] = shown_parts(page)
    assert {k: v for k, v in shown.items() if v} == {**{k: v for k, v in summed["parts"].items() if v},
                                                     "total": summed["total"]}
    return shown


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_quantized_config_is_planned_as_the_cli_plans_it(language: str, planners: Planners,
                                                           fp8_405b: Path) -> None:
    vllm = cli_plan_json(str(fp8_405b), "--engine", "vllm", "--tensor-parallel", "8", "--context", "8192",
                         "--gpu", "h100-sxm")
    planner = planners.main(language)
    page, log = planner.page, planner.log
    shown = planned_as_the_cli_plans_it(page, fp8_405b, "h100-sxm", tensor_parallel="8")
    assert abs(shown["weights"] / lc.GiB / 57.752 - 1) < 0.03  # vLLM's log of this layout (vllm-issue-6746)
    assert page.locator(f'{ROOT} select[name="weight_format"]').is_disabled()
    # The note: the checkpoint's method and the layers it keeps in 16 bits, in the page's words.
    note = read(page, "note")
    root = page.locator(ROOT)
    said = root.get_attribute("data-weights-checkpoint").replace("{method}", "fbgemm_fp8")
    some = (root.get_attribute("data-kept-some").replace("{module}", "mlp.gate_proj").replace("{kept}", "2")
            .replace("{all}", "126"))
    assert said in note and some in note and "self_attn.q_proj" in note and "lm_head" in note, note
    assert HAN.search(note) if language == "zh_TW" else note.startswith("Weights as this config.json"), note
    choose(page, task="inference", engine="vllm", gpu_memory_utilization="90")
    assert f"{vllm['kv_tokens']:,}" in read(page, "verdict")
    assert shown_parts(page)["weights"] == vllm["parts"]["weights"]
    # Training starts from the unquantized model: refused, as the CLI refuses it.
    choose(page, task="lora")
    error = page.locator(f'{ROOT} [data-error="plan"]')
    assert error.is_visible() and "fbgemm_fp8" in error.inner_text()
    assert HAN.search(error.inner_text()) if language == "zh_TW" else "training plans start" in error.inner_text()
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_gpt_oss_s_mxfp4_file_is_refused_for_transformers_and_planned_by_vllm_on_hopper(language: str,
                                                                                       planners: Planners) -> None:
    """The published gpt-oss-20b config.json: a transformers plan refused by name (its MXFP4 layout depends on the
    GPU), in the page's words, as the CLI refuses it; the vLLM engine refused on an RTX 4090 (another MXFP4 backend)
    and before 0.20 (no hybrid manager, a sorting sampler); vLLM 0.20 and later planned as the CLI plans it on an
    H100: the Triton backend's 13.60 GiB of weights, the pool, and the note on that backend; the ranking of every card
    refused in its section."""
    path = ROOT_DIR / "tests" / "data" / "hub_configs" / "gpt-oss-20b.json"
    summed = subprocess.run([sys.executable, "-m", "llmcalc", "plan", str(path), "--context", "8192", "--gpu",
                             "rtx-4090"], capture_output=True, text=True, check=False)
    assert summed.returncode != 0 and "layout its kernels choose" in summed.stderr
    vllm = cli_plan_json(str(path), "--engine", "vllm", "--vllm-version", "0.20+", "--context", "8192",
                         "--gpu", "h100-sxm")
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('input[name="config_file"]').set_input_files(str(path))
    expect_text(page, "params", f"{lc.param_count(checkpoint_from_hf(path).config):,}")
    page.locator('select[name="gpu"]').select_option("rtx-4090")
    choose(page, task="inference", engine="sum", tensor_parallel="1", context="8192")
    error = page.locator(f'{ROOT} [data-error="plan"]')
    assert error.is_visible() and "mxfp4" in error.inner_text() and "gpt-oss-20b" in error.inner_text()
    assert HAN.search(error.inner_text()) if language == "zh_TW" else "layout its kernels choose" in error.inner_text()
    choose(page, task="inference", engine="vllm")
    # On an RTX 4090 vLLM runs Marlin, not the Triton layout planned: refused, naming the card, as the CLI refuses it.
    error = page.locator(f'{ROOT} [data-error="plan"]')
    assert error.is_visible() and "rtx-4090" in error.inner_text() and "h100-nvl" in error.inner_text()
    assert HAN.search(error.inner_text()) if language == "zh_TW" else "Hopper" in error.inner_text()
    page.locator('select[name="gpu"]').select_option("h100-sxm")
    assert error.is_visible() and "gpt_oss" in error.inner_text()
    assert HAN.search(error.inner_text()) if language == "zh_TW" else "attention sinks" in error.inner_text()
    choose(page, task="inference", engine="vllm", vllm_version="0.20+", context="8192")
    assert not error.is_visible()
    assert f"{vllm['kv_tokens']:,}" in read(page, "verdict")
    assert shown_parts(page)["weights"] == vllm["parts"]["weights"]
    assert round(vllm["parts"]["weights"] / lc.GiB, 2) == 13.6
    assert page.locator(ROOT).get_attribute("data-vllm-mxfp4-note") in read(page, "note")
    # Every card at once: refused in the rank section, the H100's plan kept, as `--gpu all` refuses the ranking.
    page.locator(f'{ROOT} input[name="all_cards"]').check()
    refused = page.locator(f"{ROOT} .planner-rank .planner-note")
    assert refused.is_visible() and "H100 NVL" in refused.inner_text()
    assert HAN.search(refused.inner_text()) if language == "zh_TW" else "Hopper" in refused.inner_text()
    assert f"{vllm['kv_tokens']:,}" in read(page, "verdict")
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_share_link_carries_the_quantization_config(language: str, planners: Planners, fp8_405b: Path) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('input[name="config_file"]').set_input_files(str(fp8_405b))
    expect_text(page, "params", f"{lc.param_count(checkpoint_from_hf(fp8_405b).config):,}")
    choose(page, task="inference", engine="sum", tensor_parallel="8", context="2048")
    page.wait_for_function("location.hash.includes('context=2048') && location.hash.includes('quantization=')")
    link = page.evaluate("location.href")
    shared = json.loads(urllib.parse.parse_qs(link.split("#", 1)[1])["quantization"][0])
    assert shared == json.loads(fp8_405b.read_text("utf-8"))["quantization_config"]
    result = shown_result(page)
    fresh, log2 = planners.visitor(language)
    load(fresh, link)
    assert shown_result(fresh) == result
    assert not fresh.locator(f'{ROOT} [data-out="share-note"]').is_visible()
    assert log.errors == log2.errors == [] and log.requests == log2.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_quantization_config_it_cannot_size_is_refused_in_the_page_s_words(language: str,
                                                                              planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    root = page.locator(ROOT)
    catalogue = json.loads(root.get_attribute("data-refusals"))
    text = json.dumps({"model_type": "llama", "quantization_config": {"quant_method": "gptq", "group_size": 0}})
    page.locator('textarea[name="config_paste"]').fill(text)
    page.locator('button[name="config_use"]').click()
    shown = page.locator('[data-error="config"]').inner_text()
    accepted = catalogue["accepted_group"].partition(": ")[2] or catalogue["accepted_group"]
    assert "group_size" in shown and "gptq" in shown and accepted in shown, shown
    assert HAN.search(shown) if language == "zh_TW" else "-1 or an integer >= 1" in shown
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bitsandbytes_4bit_checkpoint_gets_the_cli_s_qlora_plan(language: str, planners: Planners,
                                                                  tmp_path: Path) -> None:
    data = {**config_of({"model": {"preset": "llama-2-7b"}, "quantization_config": None}),
            "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True,
                                    "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), "utf-8")
    qlora = cli_plan_json(str(path), "--task", "qlora", "--seq-len", "1024")
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('input[name="config_file"]').set_input_files(str(path))
    expect_text(page, "params", f"{lc.param_count(checkpoint_from_hf(path).config):,}")
    choose(page, task="qlora", seq_len="1024")
    assert not page.locator(f'{ROOT} [data-error="plan"]').is_visible()
    assert shown_parts(page)["total"] == qlora["total"]
    assert log.errors == [] and log.requests == []
