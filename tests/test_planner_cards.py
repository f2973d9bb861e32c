"""Page 19's widgets list the CLI's cards, in its order and at its totals, in both languages.

Loaded in headless Chromium from the built site (``make html``).  The oracle is ``llmcalc.planner.CARDS``, the list
``llmcalc plan --gpu`` takes and ``--gpu all`` ranks: the planner's card list and its "compare" list give every
card's key and label, the GGUF planner's ranking every card's total and whether it is an estimate, and choosing a
card puts in the memory field the total the CLI plans with.  The RTX 4060 (an estimated process total) and the
RTX 4080 SUPER (a published one) are named so that a list built without them fails.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_planner import ROOT
from test_plannerrank import LANGUAGES, PAGE, SITE

from browser import browser_pages
from llmcalc.planner import CARDS

pytestmark = [pytest.mark.site, pytest.mark.browser]

LISTED = """(select) => Array.from(select.options).filter((option) => option.value)
  .map((option) => [option.value, option.textContent])"""


@pytest.fixture(scope="module")
def new_page() -> Any:
    with browser_pages() as opener:
        yield opener


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widgets_list_the_cli_s_cards_at_its_totals(new_page: Any, language: str) -> None:
    page, log = new_page()
    path = SITE / language / PAGE
    assert path.exists(), "run `make html` first"
    page.goto(path.as_uri())
    cli = [[card.key, card.label] for card in CARDS]
    assert ["rtx-4060", "RTX 4060 (8 GB): 8,188 MiB"] in cli
    assert ["rtx-4080-super", "RTX 4080 SUPER (16 GB): 16,376 MiB"] in cli
    assert ["l40", "L40 (48 GB): 46,068 MiB"] in cli and ["rtx-4080", "RTX 4080 (16 GB): 16,376 MiB"] in cli
    for name in ("gpu", "gpu_compare"):
        assert page.locator(f'{ROOT} select[name="{name}"]').evaluate(LISTED) == cli
    gguf = json.loads(page.locator("[data-cards]").get_attribute("data-cards") or "[]")
    assert gguf == [[card.key, card.name, card.total_bytes, card.estimated] for card in CARDS]
    gpu, gib = page.locator(f'{ROOT} select[name="gpu"]'), page.locator(f'{ROOT} [name="gpu_gib"]')
    for key, field in (("rtx-4060", "7307 MiB"), ("rtx-4080-super", "15.99 GiB"), ("rtx-4060-ti-16gb", "15.55 GiB"),
                       ("l40", "44.40 GiB"), ("rtx-4070-ti-super", "15495 MiB")):
        gpu.select_option(key)
        assert gib.input_value() == field == next(card.field for card in CARDS if card.key == key)
    assert log.errors == [] and log.requests == []
