"""vLLM's batch speed estimate on page 19 in headless Chromium, both languages, against ``llmcalc speed --engine vllm``.

For each set of choices the widget's lines must be the CLI's: word for word in English, and in zh_TW
with the same numbers in each line (a translation may move them).  A batch the KV pool does not hold
gets the CLI's refusal (word for word in English), bad input the page's message, and the widget passes
axe-core's WCAG 2.1 A/AA rules in both languages.
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
ROOT = "[data-vllm-speed-estimate]"
CHOICES = [
    {"model": "llama-3-8b", "hardware": "h100-sxm", "batch": "16", "prompt": "1024", "generated": "256",
     "price": "2"},
    {"model": "llama-3.1-8b", "hardware": "h200", "batch": "16", "prompt": "30000", "generated": "2768",
     "price": "4"},
    {"model": "llama-2-7b", "hardware": "a100-40gb", "batch": "1", "prompt": "128", "generated": "128",
     "price": ""},
    {"model": "qwen2.5-0.5b", "hardware": "l4", "batch": "200", "prompt": "2000", "generated": "500",
     "price": "0.8"},
    {"model": "qwen3-32b", "hardware": "b200", "batch": "8", "prompt": "100", "generated": "2",
     "price": "12.5"},
    {"model": "llama-3.2-3b", "hardware": "rtx-5090", "batch": "3", "prompt": "1", "generated": "4000",
     "price": "0"},
]
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@functools.cache
def cli(model: str, hardware: str, batch: str, prompt: str, generated: str, price: str) -> tuple[int, str, str]:
    argv = [sys.executable, "-m", "llmcalc", "speed", model, "--engine", "vllm", "--hardware", hardware,
            "--batch", batch, "--prompt-tokens", prompt, "--generated-tokens", generated]
    argv += ["--price-per-gpu-hour", price] if price else []
    done = subprocess.run(argv, capture_output=True, text=True)
    return done.returncode, done.stdout.rstrip("\n"), done.stderr.strip()


SET = """([choice]) => {
  const root = document.querySelector('[data-vllm-speed-estimate]');
  const form = root.querySelector('form');
  for (const [name, value] of Object.entries(choice)) { form.elements['vllm_' + name].value = value; }
  form.elements.vllm_price.dispatchEvent(new Event('input', {bubbles: true}));
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


def _same(shown: str, printed: str, language: str) -> None:
    if language == "en":
        assert shown == printed
    else:
        assert sorted(NUMBER.findall(shown)) == sorted(NUMBER.findall(printed)), (shown, printed)
        assert "{" not in shown and shown != printed


@pytest.mark.parametrize("language", LANGUAGES)
def test_widget_lines_equal_the_cli(tab: Tab, language: str) -> None:
    page, log = tab(language)
    for choice in CHOICES:
        status, out, err = cli(*choice.values())
        assert status == 0, (choice, err)
        expected = out.split("\n")
        got = page.evaluate(SET, [choice])
        assert got["error"] is None, choice
        assert len(got["lines"]) == len(expected), (choice, got["lines"], expected)
        for shown, printed in zip(got["lines"], expected, strict=True):
            _same(shown, printed, language)
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_batch_the_pool_does_not_hold_gets_the_cli_s_refusal(tab: Tab, language: str) -> None:
    page, _log = tab(language)
    for choice in ({**CHOICES[1], "hardware": "h100-sxm"}, {**CHOICES[0], "hardware": "t4"},
                   {**CHOICES[0], "model": "gpt2", "prompt": "1000", "generated": "100"}):
        status, out, err = cli(*choice.values())
        assert status == 2 and out == ""
        message = err.split("error: ", 1)[1]
        got = page.evaluate(SET, [choice])
        assert got["lines"] == [] and got["error"], choice
        _same(got["error"], message, language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_bad_input_gets_the_page_s_message_and_no_estimate(tab: Tab, language: str) -> None:
    page, _log = tab(language)
    base = CHOICES[0]
    for change in ({"batch": "0"}, {"batch": "1025"}, {"prompt": "0"}, {"generated": "1"}, {"generated": "1.5"},
                   {"price": "-1"}, {"price": "two"}):
        got = page.evaluate(SET, [{**base, **change}])
        assert got["error"] and "{" not in got["error"] and got["lines"] == [], change
    assert page.evaluate(SET, [base])["error"] is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widget_passes_axe(tab: Tab, language: str) -> None:
    source = axe_source()
    page, _log = tab(language)
    page.evaluate(SET, [CHOICES[1]])
    assert run_axe(page, source, ROOT) == []
    page.evaluate(SET, [{**CHOICES[0], "batch": "0"}])
    assert run_axe(page, source, ROOT) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_compute_bound_prefill_gets_the_note_and_a_one_token_prompt_does_not(tab: Tab, language: str) -> None:
    """The note the runs not fitted call for (llmcalc.vllmspeed.VLLM_NOTES["prefill"]), in the page's language."""
    page, log = tab(language)
    start = "note: the prefill is compute-bound" if language == "en" else "附註：prefill 受運算限制"
    compute_bound, one_token = CHOICES[0], CHOICES[5]
    assert compute_bound["prompt"] == "1024" and one_token["prompt"] == "1"
    assert any(line.startswith(start) for line in page.evaluate(SET, [compute_bound])["lines"])
    assert not any(line.startswith(start) for line in page.evaluate(SET, [one_token])["lines"])
    assert log.errors == [] and log.requests == []
