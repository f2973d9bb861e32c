"""The speed estimate on page 19 in headless Chromium, both languages, against ``llmcalc speed``.

For each set of choices the widget's lines must be the CLI's: word for word in English, and in
zh_TW with the same numbers in each line (a translation may move them).  Bad input gets the page's
message, and the widget passes axe-core's WCAG 2.1 A/AA rules in both languages.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_accessibility import axe_source, run_axe

from browser import PageLog, page_per_key

pytestmark = [pytest.mark.site, pytest.mark.browser]

REPO = Path(__file__).resolve().parent.parent
PAGE = "19-will-it-fit.html"
LANGUAGES = ("en", "zh_TW")
ROOT = "[data-speed-estimate]"
CHOICES = [
    {"model": "llama-3-8b", "format": "Q4_K_M", "hardware": "rtx-4090", "prompt": "512", "generated": "128",
     "price": "1"},
    {"model": "llama-2-70b", "format": "Q4_0", "hardware": "apple-m2-ultra", "prompt": "2048", "generated": "512",
     "price": ""},
    {"model": "llama-2-7b", "format": "Q4_0", "hardware": "h100-sxm", "prompt": "100", "generated": "20",
     "price": "2.49"},
    {"model": "qwen2.5-0.5b", "format": "F16", "hardware": "l4", "prompt": "4000", "generated": "3000",
     "price": "0.8"},
    {"model": "llama-3.1-70b", "format": "F16", "hardware": "b200", "prompt": "494", "generated": "1023",
     "price": "12.5"},
    {"model": "qwen2.5-14b", "format": "IQ4_XS", "hardware": "rtx-6000-ada", "prompt": "1", "generated": "1",
     "price": "0"},
    {"model": "llama-2-7b", "format": "Q4_0", "hardware": "rtx-3090", "prompt": "1500", "generated": "64",
     "price": ""},
    # Cards whose figures were added later: the V100's datasheet, the GA102 whitepaper's RTX A6000, and the L40's
    # datasheet, whose FP16 rate is its BF16 one (no time to first token).
    {"model": "qwen2.5-14b", "format": "Q4_K_M", "hardware": "rtx-a6000", "prompt": "1000", "generated": "300",
     "price": ""},
    {"model": "llama-3-8b", "format": "Q8_0", "hardware": "v100-32gb", "prompt": "512", "generated": "128",
     "price": "0.5"},
    {"model": "llama-3-8b", "format": "Q4_K_M", "hardware": "l40", "prompt": "256", "generated": "256",
     "price": "1"},
    # Cards whose figures are derived (llmcalc.datasheets.Derived): two lines say from what, and a note how far off
    # the estimate was on such cards.
    {"model": "llama-3-8b", "format": "Q4_K_M", "hardware": "rtx-4060-ti-16gb", "prompt": "512", "generated": "128",
     "price": "0.3"},
    {"model": "llama-2-7b", "format": "F16", "hardware": "rtx-4080", "prompt": "494", "generated": "1023",
     "price": ""},
]
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
"""zh_TW writes a month as its number (2024 年 6 月), so an English month name counts as that number."""


def numbers(line: str) -> list[str]:
    """The numbers a line states, a month name counted as its number, sorted."""
    for number, month in enumerate(MONTHS, 1):
        line = line.replace(month, str(number))
    return sorted(NUMBER.findall(line))


@functools.cache
def cli_lines(model: str, weight_format: str, hardware: str, prompt: str, generated: str, price: str) -> list[str]:
    argv = [sys.executable, "-m", "llmcalc", "speed", model, "--format", weight_format, "--hardware", hardware,
            "--prompt-tokens", prompt, "--generated-tokens", generated]
    argv += ["--price-per-gpu-hour", price] if price else []
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return done.stdout.rstrip("\n").split("\n")


SET = """([choice]) => {
  const root = document.querySelector('[data-speed-estimate]');
  const form = root.querySelector('form');
  for (const [name, value] of Object.entries(choice)) { form.elements['speed_' + name].value = value; }
  form.elements.speed_price.dispatchEvent(new Event('input', {bubbles: true}));
  const error = root.querySelector('[data-error]');
  return {lines: [...root.querySelectorAll('[data-result] p')].map((p) => p.textContent),
          error: error.hidden ? null : error.textContent};
}"""

Tab = Callable[[str], tuple[Any, PageLog]]


@pytest.fixture(scope="module")
def tab() -> Iterator[Tab]:
    def load(language: str, page: Any, log: PageLog) -> None:
        path = REPO / "_build" / "html" / language / PAGE
        assert path.exists(), "run `make html` first"
        page.goto(path.as_uri())
        assert log.errors == [] and log.requests == []

    with page_per_key(on_open=load) as for_language:
        yield for_language


@pytest.mark.parametrize("language", LANGUAGES)
def test_widget_lines_equal_the_cli(tab: Tab, language: str) -> None:
    page, log = tab(language)
    for choice in CHOICES:
        expected = cli_lines(*choice.values())
        got = page.evaluate(SET, [choice])
        assert got["error"] is None, choice
        assert len(got["lines"]) == len(expected), (choice, got["lines"], expected)
        for shown, printed in zip(got["lines"], expected, strict=True):
            if language == "en":
                assert shown == printed
            else:
                assert numbers(shown) == numbers(printed), (shown, printed)
                assert "{" not in shown and shown != printed
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language, percent", [("en", r"\d %"), ("zh_TW", r"\d%")])
def test_percentages_follow_each_language_s_style(tab: Tab, language: str, percent: str) -> None:
    """English writes speed_text's "11.3 %"; zh_TW writes 11.3% with no space, as its pages do."""
    page, _log = tab(language)
    lines = [line for line in page.evaluate(SET, [CHOICES[0]])["lines"] if "%" in line]
    assert lines and all(len(re.findall(percent, line)) == line.count("%") for line in lines), lines


@pytest.mark.parametrize("language", LANGUAGES)
def test_bad_input_gets_the_page_s_message_and_no_estimate(tab: Tab, language: str) -> None:
    page, _log = tab(language)
    base = CHOICES[0]
    for change in ({"prompt": "0"}, {"generated": "1.5"}, {"prompt": str(2**24 + 1)}, {"price": "-1"},
                   {"price": "two"}, {"price": "2000000"}):
        got = page.evaluate(SET, [{**base, **change}])
        assert got["error"] and "{" not in got["error"] and got["lines"] == [], change
    assert page.evaluate(SET, [base])["error"] is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widget_estimates_one_sequence_and_says_why_as_the_cli_refuses_a_batch(tab: Tab, language: str) -> None:
    page, _log = tab(language)
    refused = subprocess.run([sys.executable, "-m", "llmcalc", "speed", "llama-3-8b", "--hardware", "rtx-4090",
                              "--batch", "2"], capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stdout == ""
    reason = refused.stderr.strip().split("batch must be 1: ", 1)[1].removesuffix("; got 2")
    shown = page.evaluate(f"document.querySelector('{ROOT} [data-one-sequence]').textContent")
    # The same numbers, by source, as the CLI's refusal: the weights-side check's 2 % and 192 %.
    assert NUMBER.findall(shown) == NUMBER.findall(reason) == ["2", "192"], (shown, reason)
    if language == "en":
        assert reason in shown
    else:
        assert "{" not in shown and "sequences" not in shown
    # No field takes a batch: there is nothing but one sequence to choose.
    assert page.evaluate(f"document.querySelector('{ROOT} form').elements.speed_batch === undefined")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widget_passes_axe(tab: Tab, language: str) -> None:
    source = axe_source()
    page, _log = tab(language)
    page.evaluate(SET, [CHOICES[1]])
    assert run_axe(page, source, ROOT) == []
    page.evaluate(SET, [{**CHOICES[0], "prompt": "0"}])
    assert run_axe(page, source, ROOT) == []
