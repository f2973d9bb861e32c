"""llmcalc's refusal codes: each has its English template, and each one the browser can raise has the page's words.

The browser scripts raise refusals by code (``refusal("code", ...)``, ``read.fail("code", ...)``, a ModelConfig
rule's code, ``refuseUnless(key, test, "code")``); the planner words each from its ``refusal_<code>`` label.
"""

from __future__ import annotations

import re

import pytest

from llmcalc import errors
from llmcalc.browser import browser_data
from llmglossary.assets import STATIC
from llmglossary.calculators.labels import LABELS, REFUSAL_LABELS
from llmglossary.calculators.scripts import PLANNER_SCRIPTS, SHARED_SCRIPT

SCRIPTS = [STATIC / name for name in (SHARED_SCRIPT, *PLANNER_SCRIPTS)]  # every script of the planner's page
CODE = re.compile(r'"([a-z][a-z0-9_]+)"')


def browser_codes() -> set[str]:
    """Every quoted name in the scripts that is a refusal code: what the scripts can raise."""
    names = {name for path in SCRIPTS for name in CODE.findall(path.read_text(encoding="utf-8"))}
    return names & set(errors.MESSAGES)


def test_the_scripts_raise_many_codes_and_each_has_the_page_s_words() -> None:
    codes = browser_codes()
    assert len(codes) >= 50
    assert {f"refusal_{code}" for code in codes} <= set(REFUSAL_LABELS)
    assert set(REFUSAL_LABELS) <= set(LABELS["planner"])


def test_every_catalogue_entry_is_a_code_or_a_piece_the_widget_uses() -> None:
    pieces = {"no_config", "config_prefix", "missing", "hint_multimodal", "hint_fused", "json_where"}
    pieces |= {"flag_true", "flag_false", "quoted_name"}  # a setting's yes or no, a model type between quotes
    pieces |= {label for label in REFUSAL_LABELS if label.startswith("accepted_")}  # a refusal's accepted_id
    codes = {label.removeprefix("refusal_") for label in REFUSAL_LABELS if label.startswith("refusal_")}
    assert codes <= set(errors.MESSAGES) and set(REFUSAL_LABELS) - {f"refusal_{c}" for c in codes} == pieces
    assert browser_data()["refusalCodes"] == sorted(errors.MESSAGES)


@pytest.mark.parametrize("code", sorted(errors.MESSAGES))
def test_each_code_formats_its_english_message(code: str) -> None:
    """Every placeholder of every template is a parameter or a piece derived from one (no KeyError at raise time)."""
    names = set(re.findall(r"\{([a-z_]+)", errors.MESSAGES[code]))
    derived = {"range", "bounds", "suggestion_hint", "int_hint", "neg_inf_hint", "multimodal_hint",
               "model_type_shown", "fused_hint", "got"}
    params: dict[str, object] = {name: 1 for name in names - derived}
    if "range" in names:
        params |= {"minimum": 1, "maximum": None}
    if "bounds" in names:
        params |= {"minimum": 0.0, "maximum": 1.0, "min_inclusive": True, "max_inclusive": False}
    if "got" in names:
        params |= {"entries": 3, "value": ["a", "b", "c"]}
    for name in names & {"options", "supported", "modules", "formats", "model_types", "cards", "sizes"}:
        params[name] = ["a", "b"]
    error = errors.refusal(code, **params)
    assert error.code == code and str(error) and "{" not in str(error).replace("{'", "")
    assert isinstance(error, TypeError if code in errors._TYPE_ERRORS else ValueError)
