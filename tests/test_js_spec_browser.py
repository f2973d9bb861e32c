"""The built planner page in Chromium against the Node run of its scripts: the same spec, the same plan, and a
page whose tables are of another ``llmcalc.browser.SPEC_VERSION`` says so in its language instead of numbers.

``test_js_conformance.py`` checks the planner's arithmetic under Node, in the fast tier; this checks that what it
checks is what the built page runs: the page's scripts read the spec_version its tables carry, and one plan is
the same bytes in both.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_accessibility import axe_source, run_axe
from test_planner import ROOT, page_path

from browser import browser_page
from jsnode import planner_page, require_node
from llmcalc.browser import SPEC_VERSION

pytestmark = [pytest.mark.site, pytest.mark.browser]

# What both runs answer: the version each script reads, the one the page's tables carry, and one plan's parts.
SPEC_AND_PLAN = """() => {
  const M = window.LLMModelConfig, P = window.LLMPlanner;
  const root = document.querySelector('.calculator[data-calculator="planner"]');
  const cfg = M.modelConfig(JSON.parse(root.dataset.presets)["llama-3.1-8b"]);
  const plan = P.planTraining(cfg, {task: "qlora", seqLen: 2048, microBatch: 2, optimizer: "adamw",
    checkpointing: true, zeroStage: 0, nGpus: 1, rank: 16, targets: "all-linear", precision: "bf16",
    qloraPreparation: "kbit", loraDropout: 0.05, adapterDtype: "fp32"});
  return {modelconfig: M.SPEC_VERSION, tables: JSON.parse(root.dataset.tables).spec_version,
          parts: Object.fromEntries(Object.entries(plan).map(([part, bytes]) => [part, String(bytes)]))};
}"""


def test_the_built_page_reads_the_spec_and_plans_as_node_does() -> None:
    require_node()
    node = planner_page()
    try:
        expected = node.evaluate(SPEC_AND_PLAN)
    finally:
        node.close()
    assert expected["modelconfig"] == expected["tables"] == SPEC_VERSION
    with browser_page() as (page, log):
        page.goto(page_path("en").as_uri())
        assert page.evaluate(SPEC_AND_PLAN) == expected
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_tables_of_another_version_show_the_page_s_message_and_no_numbers(language: str, tmp_path: Path) -> None:
    """The built page with its data-tables one version ahead (as a copy whose scripts are older than its pages):
    the message, in the page's language, names both versions; the form is not offered, no plan is shown, and the
    widget in that state passes axe."""
    built = page_path(language)
    html = built.read_text(encoding="utf-8")
    ahead = html.replace(f"&quot;spec_version&quot;:{SPEC_VERSION},", f"&quot;spec_version&quot;:{SPEC_VERSION + 1},")
    assert ahead.count(f"spec_version&quot;:{SPEC_VERSION + 1}") == 1
    # The copy lives elsewhere; <base> keeps its scripts and styles the built site's.
    copy = tmp_path / built.name
    copy.write_text(ahead.replace("<head>", f'<head><base href="{built.parent.as_uri()}/">', 1), encoding="utf-8")
    with browser_page() as (page, log):
        page.goto(copy.as_uri())
        message = page.locator(f'{ROOT} [data-error="plan"]')
        assert message.is_visible()
        words = page.locator(ROOT).get_attribute("data-spec-mismatch")
        assert words is not None and "{page}" in words and "{script}" in words
        expected = words.replace("{page}", str(SPEC_VERSION + 1)).replace("{script}", str(SPEC_VERSION))
        assert message.inner_text() == expected
        assert re.search(r"[\u4e00-\u9fff]", expected) if language == "zh_TW" else expected.startswith("This page")
        assert not page.locator(f"{ROOT} form").is_visible()
        shown = page.locator(f"{ROOT} .planner-results").inner_text()
        assert not re.search(r"\d", shown), shown  # the template's placeholders, no number
        assert run_axe(page, axe_source(), ROOT) == []
    assert log.errors == [] and log.requests == []
