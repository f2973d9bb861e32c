"""The planner's training-run estimate (llmglossary/static/plannercost.js) in headless Chromium, both languages.

The oracle is the CLI, ``llmcalc plan --train-tokens`` (llmcalc.runcost, checked against published runs in
tests/test_runcost.py): the same plan in the widget shows the same FLOPs per token, GPU-hours, wall time and price,
or refuses the same bad value in the page's language; axe-core finds no WCAG 2.1 AA violation in the run's
fields, its result or its refusal.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from test_accessibility import SCHEMES, axe_source, run_axe, site_page
from test_planner import choose

from browser import browser_pages
from llmcalc.cli import main

pytestmark = [pytest.mark.site, pytest.mark.browser]

LANGUAGES = ("en", "zh_TW")
PAGE = "19-will-it-fit.html"
ROOT = '.calculator[data-calculator="planner"]'


def cli_run(*argv: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["plan", *argv, "--json"]) == 0
    result: dict[str, Any] = json.loads(out.getvalue())["training_run"]
    return result


@pytest.fixture(scope="module")
def pages() -> Iterator[dict[str, tuple[Any, Any]]]:
    with browser_pages() as new_page:
        opened = {}
        for language in LANGUAGES:
            page, log = new_page()
            page.goto(site_page(language, PAGE).as_uri())
            opened[language] = (page, log)
        yield opened


def shown(page: Any) -> str:
    output = page.locator(f'{ROOT} [data-out="run"]')
    return "" if output.is_hidden() else output.inner_text()



CASES = {
    "full fine-tuning on 8 A100s, priced": (
        "full", {"preset": "llama-2-7b", "seq_len": "4096", "zero_stage": "3", "n_gpus": "8", "gpu": "a100-80gb",
                 "train_tokens": "1e9", "mfu": "0.4", "price_per_gpu_hour": "2", "peak_tflops": ""},
        ("llama-2-7b", "--task", "full", "--seq-len", "4096", "--zero-stage", "3", "--gpus", "8", "--gpu",
         "a100-80gb", "--train-tokens", "1e9", "--price-per-gpu-hour", "2")),
    "QLoRA on a typed peak": (
        "qlora", {"preset": "mistral-7b", "seq_len": "8192", "zero_stage": "0", "n_gpus": "1", "gpu": "rtx-4090",
                  "rank": "64", "targets": "all-linear", "train_tokens": "2.5e7", "mfu": "0.25",
                  "price_per_gpu_hour": "", "peak_tflops": "100"},
        ("mistral-7b", "--task", "qlora", "--seq-len", "8192", "--gpu", "rtx-4090", "--rank", "64", "--targets",
         "all-linear", "--train-tokens", "2.5e7", "--mfu", "0.25", "--peak-tflops", "100")),
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", CASES)
def test_the_widget_shows_the_run_the_cli_prints(language: str, case: str, pages: dict[str, Any]) -> None:
    task, fields, argv = CASES[case]
    page, log = pages[language]
    choose(page, task=task, **fields)
    run = cli_run(*argv)
    text = shown(page)
    assert f"{run['flops_per_token']:,}" in text and f"{run['train_tokens']:,}" in text
    assert f"{run['flops']:.2e}" in text and f"{run['peak_flops'] / 1e12:,.1f}" in text
    assert f"{run['gpu_hours']:,.2f}" in text and f"{run['wall_hours']:,.2f}" in text
    if run["price"] is not None:
        assert f"{run['price']:,.2f}" in text
    output = page.locator(f'{ROOT} [data-out="run"]')
    assert int(output.get_attribute("data-flops")) == run["flops"]
    assert float(output.get_attribute("data-gpu-hours")) == run["gpu_hours"]
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bad_value_is_refused_in_the_page_s_language_and_no_tokens_shows_nothing(
        language: str, pages: dict[str, Any]) -> None:
    page, log = pages[language]
    error = page.locator(f'{ROOT} [data-error="run"]')
    choose(page, task="full", preset="llama-2-7b", gpu="a100-80gb", train_tokens="1e9", mfu="1.5", peak_tflops="",
         price_per_gpu_hour="")
    refused = {"en": "must be a number above 0 and at most 1", "zh_TW": "必須是大於 0、至多為 1 的數"}[language]
    assert refused in error.inner_text() and "1.5" in error.inner_text() and shown(page) == ""
    assert page.locator(f'{ROOT} [name="mfu"]').get_attribute("aria-invalid") == "true"
    choose(page, task="full", mfu="0.4", train_tokens="2.5")
    assert "2.5" in error.inner_text() and shown(page) == ""
    choose(page, task="full", train_tokens="1e9", gpu="a10g")
    needs = {"en": "needs one GPU’s peak", "zh_TW": "需要一張 GPU 的峰值"}[language]
    assert needs in error.inner_text()
    choose(page, task="full", train_tokens="", gpu="a100-80gb")
    assert error.is_hidden() and shown(page) == ""
    assert page.locator(f'{ROOT} [aria-invalid="true"]').count() == 0
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_run_s_fields_result_and_refusal_pass_axe(language: str, pages: dict[str, Any]) -> None:
    source = axe_source()
    page, log = pages[language]
    failures = []
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        choose(page, task="lora", preset="llama-2-7b", gpu="h100-sxm", train_tokens="1e8", mfu="0.3",
             price_per_gpu_hour="2.5", peak_tflops="")
        assert shown(page)
        failures += [f"{scheme} run {line}" for line in run_axe(page, source, ROOT)]
        choose(page, task="lora", mfu="0")
        assert page.locator(f'{ROOT} [data-error="run"]').is_visible()
        failures += [f"{scheme} refused {line}" for line in run_axe(page, source, ROOT)]
        choose(page, task="lora", mfu="0.3", gpu="t4")
        assert page.locator(f'{ROOT} [data-error="run"]').is_visible()
        failures += [f"{scheme} no BF16 {line}" for line in run_axe(page, source, ROOT)]
        choose(page, task="lora", gpu="h100-sxm")
    assert not failures, "\n".join(failures)
    assert log.errors == [] and log.requests == []


def cli_refusal(*argv: str) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit):
        main(["plan", *argv])
    return err.getvalue()


# The T4 (compute capability 7.5) and the V100 (7.0) multiply FP16 but not BF16 on their tensor cores; every
# precision of the planner multiplies in BF16 (bf16, amp's BF16 autocast, mixed; LoRA's BF16 base).
NO_BF16_CASES = {
    "LoRA on a T4": ("lora", "t4", "T4 (16 GB)", "bf16", "65", {"rank": "16", "targets": "default"}),
    "full fine-tuning in amp on a V100 32 GB": ("full", "v100-32gb", "V100 (32 GB)", "amp", "125",
                                               {"precision": "amp"}),
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", NO_BF16_CASES)
def test_a_card_without_bf16_tensor_cores_is_refused_as_the_cli_refuses_it(
        language: str, case: str, pages: dict[str, Any]) -> None:
    task, card, name, precision, tflops, extra = NO_BF16_CASES[case]
    page, log = pages[language]
    choose(page, task=task, preset="llama-3.2-1b", seq_len="2048", n_gpus="1", zero_stage="0", gpu=card,
           train_tokens="1e6", mfu="0.4", price_per_gpu_hour="", peak_tflops="", **extra)
    argv = ["llama-3.2-1b", "--task", task, "--seq-len", "2048", "--gpu", card, "--train-tokens", "1e6"]
    argv += ["--precision", precision] if task == "full" else []
    said = cli_refusal(*argv)
    refused = page.locator(f'{ROOT} [data-error="run"]').inner_text().replace("\u2019", "'")  # the page's ’
    assert shown(page) == "" and name in said and name in refused
    assert f"precision {precision})" in said and (f"{precision})" in refused or f"{precision}）" in refused)
    assert f"{tflops} TFLOPS" in said and f"{tflops} TFLOPS" in refused
    if language == "en":
        # The CLI's words up to what to do, which names its own option (--peak-tflops) where the page names its field.
        assert refused.lower().startswith(said.split("error: ", 1)[1].split(": give --peak-tflops")[0].lower())
    else:
        assert "沒有 BF16 的 Tensor 核心" in refused and "FP16 精度" in refused
    # A typed peak is used as given, as the CLI's --peak-tflops.
    choose(page, task=task, peak_tflops=tflops)
    run = cli_run(*argv, "--peak-tflops", tflops)
    assert f"{run['gpu_hours']:,.2f}" in shown(page)
    assert float(page.locator(f'{ROOT} [data-out="run"]').get_attribute("data-gpu-hours")) == run["gpu_hours"]
    choose(page, task=task, peak_tflops="")
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_datasheet_peak_is_labelled_dense_bf16(language: str, pages: dict[str, Any]) -> None:
    page, _ = pages[language]
    choose(page, task="lora", preset="llama-3.2-1b", n_gpus="1", zero_stage="0", gpu="a100-80gb",
           train_tokens="1e6", mfu="0.4", price_per_gpu_hour="", peak_tflops="")
    text = shown(page)
    assert "312.0 TFLOPS" in text and {"en": "dense BF16", "zh_TW": "稠密 BF16"}[language] in text
    assert "FP16" not in text
