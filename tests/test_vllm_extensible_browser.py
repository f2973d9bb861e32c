"""Page 19's planner plans vLLM 0.34's extensible KV cache as ``llmcalc plan --vllm-version 0.34+`` does.

Loaded in headless Chromium from the built site (``make html``), in English and zh_TW: the pool the widget prints,
its parts, its notes and its refusal are compared with the CLI's JSON and words, not with figures written here.
"""

from __future__ import annotations

import pytest
from test_planner import HAN, LANGUAGES, ROOT, Planners, choose, cli_plan_json, planners, read, shown_parts

pytestmark = [pytest.mark.site, pytest.mark.browser]

__all__ = ["planners"]  # the shared pages' fixture, used by name


def _vllm_034(planners: Planners, language: str, preset: str, gpu: str) -> tuple:
    """The page in ``language`` with ``preset`` planned by vLLM 0.34+ on ``gpu`` at 8,192 tokens."""
    planner = planners.main(language)
    planner.page.locator('select[name="preset"]').select_option(preset)
    choose(planner.page, task="inference", engine="vllm", gpu=gpu, context="8192", max_num_batched_tokens="8192",
           vllm_version="0.34+", startup_used_gib="0")
    return planner.page, planner.log


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widget_plans_0_34_as_the_cli(language: str, planners: Planners) -> None:
    page, log = _vllm_034(planners, language, "llama-3.1-8b", "h100-sxm")
    # Choosing 0.34 sets all of the card and the Triton filter, and shows the graphs' and the start-up fields.
    assert page.locator('[name="gpu_memory_utilization"]').input_value() == "100"
    assert page.locator(f'{ROOT} [name="sampler_filter"]').input_value() == "triton"
    startup = page.locator(f'{ROOT} [name="startup_used_gib"]')
    assert startup.is_visible() and page.locator(f'{ROOT} [name="cuda_graphs_mib"]').is_visible()
    note = page.locator(f'{ROOT} [data-out="note"]').inner_text()
    for name in ("data-vllm-startup-note", "data-vllm-graphs-twice-note"):
        assert page.locator(ROOT).get_attribute(name) in note
    assert ("1.00 GiB" in note or "1.00" in note) and (HAN.search(note) if language == "zh_TW" else "0.34" in note)
    cases = [({}, ("--gpu", "h100-sxm")),
             ({"startup_used_gib": "0.5", "cuda_graphs_mib": "512"},
              ("--gpu", "h100-sxm", "--startup-used-gib", "0.5", "--cuda-graphs-mib", "512")),
             ({"gpu": "mi300x", "startup_used_gib": "0", "cuda_graphs_mib": "0"}, ("--gpu", "mi300x")),
             ({"gpu": "rtx-4090", "context": "100000"}, ("--gpu", "rtx-4090"))]
    for fields, argv in cases:
        choose(page, task="inference", **fields)
        context = fields.get("context", "8192")
        expected = cli_plan_json("llama-3.1-8b", "--engine", "vllm", "--context", context, "--vllm-version", "0.34+",
                                 *argv)
        verdict = read(page, "verdict")
        assert f"{expected['kv_tokens']:,}" in verdict, (fields, verdict, expected["kv_tokens"])
        shown = shown_parts(page)
        parts = expected["parts"]
        assert shown["activations"] == parts["profile_peak"] and shown["kv_cache"] == parts["kv_cache"]
        assert shown["reserve"] == parts["non_torch_and_cuda_graphs"] + parts["cuda_graphs_kept_again"]
        assert shown["total"] == parts["budget"]
    assert not expected["fits"] and "100,000" in read(page, "verdict")
    # What is in use at start-up is a GiB figure no larger than the card, refused at its field otherwise.
    choose(page, task="inference", context="8192", startup_used_gib="30")
    assert startup.get_attribute("aria-invalid") == "true"
    assert "30" in page.locator(f'{ROOT} [data-error="plan"]').inner_text()
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widget_refuses_experts_with_0_34_as_the_cli(language: str, planners: Planners) -> None:
    page, log = _vllm_034(planners, language, "mixtral-8x7b", "h200")
    error = page.locator(f'{ROOT} [data-error="plan"]').inner_text()
    assert "0.34" in error and "mixtral" in error, error
    assert HAN.search(error) if language == "zh_TW" else "not re-read" in error
    assert log.errors == [] and log.requests == []
