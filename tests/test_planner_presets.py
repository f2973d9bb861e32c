"""Page 19's planner lists every preset, and shows each Hub-read preset's count as llmcalc counts it, both languages.

Loaded in headless Chromium from the built site (``make html``).  The presets read from a committed Hub config.json
(Llama 3.2, Qwen3, Gemma 3 1B, Phi-3.5-mini, Phi-4) are each chosen in the model list; the parameter count the
widget shows is llmcalc's, which ``tests/test_llmcalc_presets.py`` checks against transformers.
"""

from __future__ import annotations

import pytest
from test_llmcalc_presets import HUB_PRESETS
from test_planner import LANGUAGES, ROOT, Planners, expect_text, planners

import llmcalc as lc

pytestmark = [pytest.mark.site, pytest.mark.browser]

__all__ = ["planners"]  # the shared pages' fixture, used by name


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_preset_is_listed_and_each_hub_preset_shows_llmcalc_s_count(language: str, planners: Planners) -> None:
    page = planners.main(language).page
    select = page.locator(f'{ROOT} select[name="preset"]')
    listed = select.locator("option").evaluate_all("(options) => options.map((option) => option.value)")
    assert set(lc.PRESETS) <= set(listed)
    for name in [*HUB_PRESETS, "gpt-oss-20b", "gpt-oss-120b"]:  # gpt-oss: checked in test_llmcalc_presets too
        select.select_option(name)
        expect_text(page, "params", f"{lc.param_count(lc.get_preset(name)):,}")
