"""The "Will it fit?" planner page in headless Chromium, both languages, against llmcalc.

The oracle is ``llmcalc.planner`` (itself checked against transformers, peft,
bitsandbytes and measured activations in the ``test_llmcalc_*`` modules): generated
plans over every preset and every committed ``config.json`` (made here) go through the page's
JavaScript and must give the same bytes, or the same refusal (its code and the numbers among its
parameters; each side words it in its own language), as Python: under Node, in the fast tier
(``test_js_conformance.py``, with this module's comparison scripts).  Here, the
widget as a reader uses it: loading the committed configs, the three worked cases of
issue 12, the keyboard, and bad input.  Every page load is also checked for script
errors and for requests that are not local files: the planner works offline.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import re
import subprocess
import sys
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import llmcalc as lc
from browser import PageLog, browser_pages
from llmcalc.activations import activation_memory
from llmcalc.checkpoints import checkpoint_from_hf
from llmcalc.errors import Refusal
from llmcalc.formats import KV_FORMATS, WEIGHT_FORMATS
from llmcalc.planner import (
    ADAPTER_DTYPES,
    CARDS,
    GPUS,
    MAX_BATCH,
    OPTIMIZERS,
    PRECISIONS,
    QLORA_PREPARATIONS,
    context_limit,
    context_search_limit,
    gpu_memory,
    largest_fitting,
    plan_inference,
    plan_training,
    tensor_parallel_sizes,
)
from llmcalc.trainers import SETUPS, setup_settings
from zhlint import HAN

pytestmark = [pytest.mark.site, pytest.mark.browser]

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "_build" / "html"
PAGE = "19-will-it-fit.html"
CONFIGS = REPO / "tests" / "data" / "hf_models"
CONFIG_FILES = sorted(path for path in CONFIGS.glob("*.json") if not path.name.startswith("_"))
LANGUAGES = ("en", "zh_TW")
GIB = 2**30
ROOT = '.calculator[data-calculator="planner"]'


def page_path(language: str) -> Path:
    path = SITE / language / PAGE
    assert path.exists(), "run `make html` first"
    return path


# ---- One loaded page per language, shared by the module's tests ----
#
# A page load costs far more than anything a test then does on the page, so each language's planner is loaded
# once and every test that can restore the form uses it: a test starts from the form as it opened (put back and
# checked by ``Planners.main``) and may leave it in any state.  A test that needs what no restoring gives (a
# widget that has never held a config, a visit's untouched address, the load of a link, the language switch)
# loads the page it needs on the language's second page, ``Planners.visitor``: a real load, in the one context.
# Every test still asserts its pages' logs empty: a log holds everything its page did since it was opened.


@dataclasses.dataclass
class Planner:
    """A loaded planner page, its log, and what its form held and showed when it opened."""

    page: Any
    log: PageLog
    defaults: dict[str, str]
    opening: dict[str, object]


RESET = """([root, values]) => {
  // Every input back to its opening value, as on a fresh page: no field marked invalid, the paste box empty;
  // then one committed change, which the widget answers as a reader's choice (it recomputes everything).
  const form = document.querySelector(root + " form");
  for (const element of form.elements) {
    element.removeAttribute("aria-invalid");
    if (element.tagName === "TEXTAREA") element.value = "";
    if (!element.name || element.type === "file" || element.type === "button" || element.tagName === "TEXTAREA") {
      continue;
    }
    const key = element.type === "radio" ? element.name + "=" + element.value : element.name;
    if (!(key in values)) throw new Error("a field the page did not open with: " + key);
    if (element.type === "checkbox" || element.type === "radio") element.checked = values[key] === "true";
    else element.value = values[key];
  }
  form.querySelector('input[name="task"]:checked').dispatchEvent(new Event("change", {bubbles: true}));
}"""

ERRORS_SHOWN = f'{ROOT} [data-error]:not([hidden]), {ROOT} .planner-field-error:not([hidden])'


class Planners:
    """The module's planner pages: one per language (``main``) and one per language for opening links (``visitor``)."""

    def __init__(self, new_page: Callable[[], tuple[Any, PageLog]]) -> None:
        self.new_page = new_page
        self.mains: dict[str, Planner] = {}
        self.visitors: dict[str, tuple[Any, PageLog]] = {}

    def main(self, language: str) -> Planner:
        """The language's loaded planner, its form put back to how it opened and checked to show the same again."""
        url = page_path(language).as_uri()
        if language not in self.mains:
            page, log = self.new_page()
            page.goto(url)
            self.mains[language] = Planner(page, log, form_values(page), shown_result(page))
            return self.mains[language]
        planner = self.mains[language]
        assert planner.page.url.split("#")[0] == url, f"a test took the shared {language} page to {planner.page.url}"
        planner.page.evaluate(RESET, [ROOT, planner.defaults])
        assert form_values(planner.page) == planner.defaults
        assert shown_result(planner.page) == planner.opening, "the form as it opened shows what it showed then"
        assert planner.page.locator(ERRORS_SHOWN).count() == 0
        return planner

    def visitor(self, language: str) -> tuple[Any, PageLog]:
        """A second page of the language, for opening links; wherever the last test left it (``load`` it)."""
        if language not in self.visitors:
            self.visitors[language] = self.new_page()
        return self.visitors[language]


@pytest.fixture(scope="module")
def planners() -> Iterator[Planners]:
    with browser_pages() as new_page:
        yield Planners(new_page)


def load(page: Any, url: str) -> None:
    """A real load of ``url``, even where the page shows the same document (goto would only move to the fragment)."""
    page.goto("about:blank")
    page.goto(url)


OPEN_FRAGMENT = """(fragment) => new Promise((resolve, reject) => {
  // Resolved by a listener added after the page's own, so the page has handled the change by then.
  if (location.hash === fragment) { reject(new Error("the address already has " + fragment)); return; }
  window.addEventListener("hashchange", () => resolve(location.hash), {once: true});
  setTimeout(() => reject(new Error("no hashchange for " + fragment)), 5000);
  location.hash = fragment;
})"""


def open_fragment(page: Any, fragment: str) -> None:
    """Follow a link to ``fragment`` on the page already shown: the address changes, the document stays."""
    page.evaluate(OPEN_FRAGMENT, fragment)


def refusal_numbers(params: dict[str, object]) -> dict[str, str]:
    """The numbers among a refusal's parameters, as decimal strings (what the page's refusal must name too)."""
    return {key: str(int(value)) if float(value).is_integer() else repr(value)
            for key, value in sorted(params.items())
            if isinstance(value, (int, float)) and not isinstance(value, bool)}


def outcome(compute: Callable[[], object]) -> dict[str, object]:
    """What Python answers: the plan's parts as decimal strings, or the refusal's code and numbers."""
    try:
        result = compute()
    except Refusal as error:
        return {"error": [error.code, refusal_numbers(error.params)]}
    if isinstance(result, int):
        return {"value": str(result)}
    return {"parts": {field.name: str(getattr(result, field.name)) for field in dataclasses.fields(result)}}


def model_sources() -> list[tuple[str, dict[str, object], lc.ModelConfig]]:
    """(label, what the JavaScript is given, the config Python reads) for every preset and committed file."""
    sources: list[tuple[str, dict[str, object], lc.ModelConfig]] = [
        (name, {"fields": dataclasses.asdict(cfg)}, cfg) for name, cfg in lc.PRESETS.items()
    ]
    for path in CONFIG_FILES:
        data = json.loads(path.read_text(encoding="utf-8"))
        sources.append((path.name, {"hf": data}, lc.ModelConfig.from_hf_config(data)))
    return sources


def inference_case(label: str, source: dict[str, object], cfg: lc.ModelConfig, gpu: int, **kwargs: object):
    """One inference vector: the plan and the longest context on ``gpu`` (stopping at the trained context unless
    ``beyond``), as Python answers them."""
    def plan(context: int):
        return plan_inference(cfg, context=context, **kwargs)  # type: ignore[arg-type]

    beyond = bool(kwargs.pop("beyond"))
    limit = context_search_limit(cfg, beyond_trained=beyond)
    options = {"task": "inference", "weightFormat": kwargs["weight_format"], "kvFormat": kwargs["kv_format"],
               "batch": kwargs["batch"], "context": kwargs.pop("context"), "beyondTrained": beyond,
               "tensorParallel": kwargs.get("tensor_parallel", 1),
               "pipelineParallel": kwargs.get("pipeline_parallel", 1)}
    context = options["context"]
    return {"model": label, "source": source, "options": options, "gpu": str(gpu),
            "expected": outcome(lambda: plan(context)),  # type: ignore[arg-type]
            "largest": outcome(lambda: largest_fitting(plan, gpu, limit=limit))}


def training_case(label: str, source: dict[str, object], cfg: lc.ModelConfig, gpu: int, **kwargs: object):
    """One training vector: the plan and the largest micro-batch on ``gpu``, as Python answers them."""
    def plan(micro_batch: int):
        return plan_training(cfg, **{**kwargs, "micro_batch": micro_batch})  # type: ignore[arg-type]

    targets = kwargs.get("targets", ("q", "v"))
    options = {"task": kwargs["task"], "seqLen": kwargs["seq_len"], "microBatch": kwargs["micro_batch"],
               "optimizer": kwargs["optimizer"], "checkpointing": kwargs["checkpointing"],
               "zeroStage": kwargs.get("zero_stage", 0), "nGpus": kwargs.get("n_gpus", 1),
               "rank": kwargs.get("rank", 16), "targets": targets if isinstance(targets, str) else list(targets),
               "precision": kwargs.get("precision", "bf16"),
               "qloraPreparation": kwargs.get("qlora_preparation", "kbit"),
               "loraDropout": kwargs.get("lora_dropout", 0.0), "adapterDtype": kwargs.get("adapter_dtype", "fp32")}
    micro_batch = kwargs["micro_batch"]
    return {"model": label, "source": source, "options": options, "gpu": str(gpu),
            "expected": outcome(lambda: plan(micro_batch)),  # type: ignore[arg-type]
            "largest": outcome(lambda: largest_fitting(plan, gpu, limit=MAX_BATCH))}


@functools.cache  # the oracle is the same for both languages: computed once per run
def plan_vectors(seed: int = 20261130) -> list[dict[str, object]]:
    """Plans over every model source: each task and option at random sizes, with their largest fits."""
    rng = random.Random(seed)
    cards = [card.total_bytes for card in CARDS]
    vectors = []
    for label, source, cfg in model_sources():
        limit = context_limit(cfg)
        for weight_format in WEIGHT_FORMATS:
            vectors.append(inference_case(
                label, source, cfg, rng.choice(cards), weight_format=weight_format,
                kv_format=rng.choice(KV_FORMATS), context=rng.choice([1, 4096, rng.randint(1, limit)]),
                batch=rng.choice([1, rng.randint(1, 64)]), beyond=rng.random() < 0.5,
            ))
        # Several GPUs: mostly a size vLLM accepts for this model, sometimes one it refuses (3 divides few heads).
        try:
            sizes = tensor_parallel_sizes(cfg)[1:] or [1]
        except Refusal:
            sizes = [2]
        for _ in range(2):
            vectors.append(inference_case(
                label, source, cfg, rng.choice(cards), weight_format=rng.choice(WEIGHT_FORMATS),
                kv_format=rng.choice(KV_FORMATS), context=rng.choice([1, 4096, rng.randint(1, limit)]),
                batch=rng.choice([1, rng.randint(1, 64)]), beyond=rng.random() < 0.5,
                tensor_parallel=rng.choice(sizes) if rng.random() < 0.8 else 3,
                pipeline_parallel=rng.choice([1, 2, 3, min(cfg.n_layers, 7)]),
            ))
        for task in ("full", "lora", "qlora"):
            for optimizer in OPTIMIZERS:
                extra: dict[str, object] = (
                    {"precision": rng.choice(PRECISIONS)} if task == "full"
                    else {"rank": rng.choice([1, 8, 16, 64]), "targets": rng.choice([("q", "v"), "all-linear"]),
                          "lora_dropout": rng.choice([0.0, 0.05, 0.1])}
                )
                extra.update(zero_stage=rng.randint(0, 3), n_gpus=rng.choice([1, 2, 8, 64]))
                if task == "qlora":
                    extra["qlora_preparation"] = rng.choice(QLORA_PREPARATIONS)
                if task != "full":
                    extra["adapter_dtype"] = rng.choice(ADAPTER_DTYPES)
                vectors.append(training_case(
                    label, source, cfg, rng.choice(cards), task=task, optimizer=optimizer,
                    seq_len=rng.choice([rng.randint(1, min(limit, 8192)), min(limit, 2048)]),
                    micro_batch=rng.randint(1, 8), checkpointing=rng.random() < 0.5, **extra,
                ))
    return vectors


REFUSED = """(error) => {
    // A refusal as Python's outcome() gives it: its code and the numbers among its parameters.
    if (!(error instanceof M.LLMCalcError)) return {error: [error.name, String(error.message)]};
    const numbers = {};
    for (const key of Object.keys(error.params).sort()) {
      const value = error.params[key];
      if (typeof value === "bigint" || typeof value === "number") numbers[key] = String(value);
    }
    return {error: [error.code, numbers]};
  }"""

COMPARE = """
(vectors) => {
  const M = window.LLMModelConfig, P = window.LLMPlanner, bad = [];
  const refused = __REFUSED__;
  const answer = (compute) => {
    try {
      const result = compute();
      if (typeof result === "number" || typeof result === "bigint") return {value: String(result)};
      const parts = {};
      for (const key of Object.keys(result)) parts[key] = String(result[key]);
      return {parts};
    } catch (error) {
      return refused(error);
    }
  };
  for (const v of vectors) {
    const cfg = v.source.hf ? M.fromHfConfig(v.source.hf) : M.modelConfig(v.source.fields);
    const plan = (options) =>
      options.task === "inference" ? P.planInference(cfg, options) : P.planTraining(cfg, options);
    const got = answer(() => plan(v.options));
    const key = v.options.task === "inference" ? "context" : "microBatch";
    const limit = v.options.task === "inference" ? P.contextSearchLimit(cfg, v.options.beyondTrained)
      : P.limits().max_batch;
    const largest = answer(() => P.largestFitting((n) => plan({...v.options, [key]: n}), BigInt(v.gpu), limit));
    if (JSON.stringify(got) !== JSON.stringify(v.expected) || JSON.stringify(largest) !== JSON.stringify(v.largest)) {
      bad.push({model: v.model, options: v.options, got, expected: v.expected, largest, expectedLargest: v.largest});
    }
  }
  return {checked: vectors.length, bad: bad.slice(0, 4)};
}
""".replace("__REFUSED__", REFUSED)


def attention_targets(cfg: lc.ModelConfig) -> tuple[str, ...]:
    """The query and value projections as the model names them (fused, or MLA's query and kv_b_proj)."""
    if cfg.uses_latent_attention:
        return ("q", "kv_b")
    return ("qkv",) if cfg.layout in ("gpt2", "gpt_neox", "falcon", "phi3") else ("q", "v")


@functools.cache  # the oracle is the same for both languages: computed once per run
def committed_training_vectors() -> list[dict[str, object]]:
    """Full fine-tuning, LoRA and QLoRA on each committed config, at 80 GiB, as Python answers them."""
    vectors = []
    for label, source, cfg in model_sources():
        if not label.endswith(".json") or label.endswith(".full.json"):
            continue
        for checkpointing in (False, True):
            vectors.append(training_case(label, source, cfg, 80 * GIB, task="full", optimizer="adamw",
                                         seq_len=1024, micro_batch=1, checkpointing=checkpointing))
            for task, preparation in (("lora", "kbit"), ("qlora", "kbit"), ("qlora", "none")):
                for targets in (attention_targets(cfg), "all-linear"):
                    vectors.append(training_case(label, source, cfg, 80 * GIB, task=task, optimizer="adamw",
                                                 seq_len=1024, micro_batch=2, checkpointing=checkpointing,
                                                 targets=targets, qlora_preparation=preparation))
    return vectors


# GPU memory as typed: Python's gpu_memory is the oracle, the widget's field must read every text alike.
MEMORY_TEXTS = ["24", "22.49", "0.5", ".5", "24.", "23034MiB", " 23034 MiB ", "23034 mib", "24GB", "24 gb", "44.99 GiB",
                "1MiB", "100000", "100000.001", "0", "0.5 MiB", "24 TB", "", "-3", "1e3", "nan", "24 G", "l40s", "T4",
                "H100-SXM", "rtx 4090", "1,000", "٣", "\u00a024", "24\x1c", "l4\u3000", "\tl4\n"]


def read(page, key: str) -> str:
    return page.locator(f'.calculator[data-calculator="planner"] [data-out="{key}"]').inner_text()


READ_ALL = """([root, keys]) => keys.map((key) => {
  // What read() gives for each key, in one call: the one output of that name, as it is rendered (innerText).
  const found = document.querySelectorAll(root + ' [data-out="' + key + '"]');
  if (found.length !== 1) throw new Error(found.length + " outputs named " + key);
  return found[0].innerText;
})"""


def read_all(page, *keys: str) -> dict[str, str]:
    """``read`` of several outputs at once (one round trip to the page instead of one per output)."""
    return dict(zip(keys, page.evaluate(READ_ALL, [ROOT, list(keys)]), strict=True))


@pytest.mark.parametrize("language", LANGUAGES)
def test_loading_each_committed_config_shows_its_exact_counts(language: str, planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    for path in CONFIG_FILES:
        cfg = lc.ModelConfig.from_hf_config(path)
        page.locator('input[name="config_file"]').set_input_files(str(path))
        expect_text(page, "params", f"{lc.param_count(cfg):,}")
        assert page.locator('select[name="preset"]').input_value() == "config"
        if cfg.is_moe:
            assert read(page, "active") == f"{lc.active_param_count(cfg):,}", path.name
        assert not page.locator('[data-error="config"]').is_visible(), path.name
    assert log.errors == [] and log.requests == []


def expect_text(page, key: str, text: str) -> None:
    """Wait until an output shows ``text`` (a loaded file is read asynchronously)."""
    selector = f'.calculator[data-calculator="planner"] [data-out="{key}"]'
    page.wait_for_function(
        "([selector, text]) => document.querySelector(selector).textContent === text", arg=[selector, text],
        timeout=5000,
    )


def choose(page, *, task: str, **fields: str) -> None:
    page.locator(f'input[name="task"][value="{task}"]').check()
    for name, value in fields.items():
        field = page.locator(f'.calculator[data-calculator="planner"] [name="{name}"]')
        if field.evaluate("node => node.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)


PARTS = ("weights", "kv_cache", "gradients", "optimizer_states", "activations", "reserve", "total")


def shown_parts(page) -> dict[str, int]:
    return parts_of(read_all(page, *PARTS))


def parts_of(texts: dict[str, str]) -> dict[str, int]:
    """The bytes of each part as shown (a part not shown counts 0)."""
    return {part: int(re.sub(r"[^\d]", "", texts[part])) if re.search(r"\d", texts[part]) else 0 for part in PARTS}


def expected_parts(plan) -> dict[str, int]:
    parts = {field.name: getattr(plan, field.name) for field in dataclasses.fields(plan)}
    return {**parts, "total": plan.total}


LLAMA = lc.get_preset("llama-2-7b")
WORKED_CASES = {
    "inference-bf16-4k": ({"task": "inference", "weight_format": "bf16", "context": "4096", "batch": "1"},
                          lambda: plan_inference(LLAMA, context=4096)),
    "full-adamw": ({"task": "full", "optimizer": "adamw", "seq_len": "2048", "micro_batch": "1"},
                   lambda: plan_training(LLAMA, task="full", seq_len=2048)),
    # Choosing QLoRA fills in the default set-up's settings, TRL's SFTTrainer's, as the CLI's defaults are.
    "qlora-r16": ({"task": "qlora", "optimizer": "adamw", "seq_len": "2048", "micro_batch": "1", "rank": "16"},
                  lambda: plan_training(LLAMA, task="qlora", seq_len=2048, rank=16,
                                        **setup_settings("trl-sft", "qlora"))),
    # The training set-ups as the libraries prepare them: each field of the form against llmcalc.
    "full-mixed": ({"task": "full", "optimizer": "adamw", "seq_len": "2048", "micro_batch": "1",
                    "precision": "mixed"},
                   lambda: plan_training(LLAMA, task="full", seq_len=2048, precision="mixed")),
    "full-amp-8bit": ({"task": "full", "optimizer": "adamw-8bit", "seq_len": "1024", "micro_batch": "2",
                       "precision": "amp"},
                      lambda: plan_training(LLAMA, task="full", seq_len=1024, micro_batch=2, precision="amp",
                                            optimizer="adamw-8bit")),
    "qlora-unprepared-dropout": ({"task": "qlora", "optimizer": "adamw-8bit", "seq_len": "2048", "micro_batch": "1",
                                  "rank": "16", "qlora_preparation": "none", "lora_dropout": "0.1"},
                                 lambda: plan_training(LLAMA, task="qlora", seq_len=2048, rank=16,
                                                       optimizer="adamw-8bit", qlora_preparation="none",
                                                       lora_dropout=0.1, adapter_dtype="bf16", checkpointing=True)),
    "lora-dropout": ({"task": "lora", "optimizer": "adamw", "seq_len": "512", "micro_batch": "1", "rank": "8",
                      "lora_dropout": ".05"},
                     lambda: plan_training(LLAMA, task="lora", seq_len=512, rank=8, lora_dropout=0.05,
                                           checkpointing=True)),
    "qlora-script": ({"task": "qlora", "setup": "qlora-script", "seq_len": "528", "micro_batch": "4",
                      "lora_dropout": "0.05"},
                     lambda: plan_training(LLAMA, task="qlora", seq_len=528, micro_batch=4,
                                           **{**setup_settings("qlora-script", "qlora"), "lora_dropout": 0.05})),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bad_lora_dropout_is_refused_in_the_page_s_language(language: str, planners: Planners) -> None:
    messages = {"en": "is not a number from 0 up to, but not including, 1", "zh_TW": "不是 0 以上、小於 1 的數字"}
    planner = planners.main(language)
    page, log = planner.page, planner.log
    choose(page, task="lora", lora_dropout="1")
    error = page.locator('[data-error="plan"]')
    assert messages[language] in error.text_content() and "1" in error.text_content()
    assert page.locator('[name="lora_dropout"]').get_attribute("aria-invalid") == "true"
    choose(page, task="lora", lora_dropout="0.1")
    assert error.is_hidden()
    plan = plan_training(LLAMA, task="lora", seq_len=2048, lora_dropout=0.1, checkpointing=True)
    assert shown_parts(page)["activations"] == plan.activations
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", WORKED_CASES)
def test_worked_cases_show_llmcalc_bytes(language: str, case: str, planners: Planners) -> None:
    fields, compute = WORKED_CASES[case]
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('select[name="preset"]').select_option("llama-2-7b")
    assert read(page, "params") == "6,738,415,616"
    choose(page, **fields)  # type: ignore[arg-type]
    page.locator('select[name="gpu"]').select_option("a100-80gb")
    card = GPUS["A100 (80 GB): 81,920 MiB"]
    assert page.locator('[name="gpu_gib"]').input_value() == "79.14 GiB"  # what a process sees on the card
    plan = compute()
    assert shown_parts(page) == expected_parts(plan)
    verdict = read(page, "verdict")
    assert (f"{card - plan.total:,} B" in verdict) == plan.fits(card), verdict
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_fractional_gib_and_the_trained_context_as_the_cli_has_them(language: str, planners: Planners) -> None:
    """Llama-3-8B on 24 GiB: 8,192 by default, marked; 65,883 past it, marked; an L4's 22.49 GiB typed by hand."""
    llama_3 = lc.get_preset("llama-3-8b")
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('select[name="preset"]').select_option("llama-3-8b")
    page.locator('[name="gpu_gib"]').fill("24")
    root = page.locator('.calculator[data-calculator="planner"]')
    at_trained = root.get_attribute("data-at-trained").replace("{trained}", "8,192")
    # Full-width punctuation takes no space beside it (the 2026-12-07 zh_TW review saw 「上下文： 4,096 （…」).
    space = {"en": " ", "zh_TW": ""}[language]
    assert read(page, "largest") == f"8,192{space}{at_trained}"
    line = page.locator('.calculator[data-calculator="planner"] .planner-largest').inner_text()
    assert line == f"{root.get_attribute('data-largest-context')}{space}8,192{space}{at_trained}", line
    page.locator('input[name="beyond_trained"]').check()
    beyond = root.get_attribute("data-beyond-trained").replace("{trained}", "8,192")
    assert read(page, "largest") == f"65,883{space}{beyond}"
    note = page.locator('[data-out="note"]')
    assert not note.is_visible()
    page.locator('[name="context"]').fill("32768")
    assert note.inner_text() == root.get_attribute("data-context-note").replace("{context}", "32,768").replace(
        "{trained}", "8,192")
    page.locator('[name="context"]').fill("4096")
    assert not note.is_visible()
    page.locator('[name="gpu_gib"]').fill("22.49")
    budget = gpu_memory("22.49")
    expected = largest_fitting(lambda t: plan_inference(llama_3, context=t), budget,
                               limit=context_search_limit(llama_3, beyond_trained=True))
    assert read(page, "largest") == f"{expected:,}{space}{beyond}"
    plan = plan_inference(llama_3, context=4096)
    # The bytes as a note in the language's parentheses (the independent zh_TW review's L9 saw 「GiB (…B)。」).
    opening, closing = {"en": (" (", ")"), "zh_TW": ("（", "）")}[language]
    assert f" GiB{opening}{budget - plan.total:,} B{closing}" in read(page, "verdict"), read(page, "verdict")
    assert log.errors == [] and log.requests == []


def test_choosing_the_same_file_again_after_a_listed_model_reads_it_again(planners: Planners) -> None:
    path = CONFIGS / "llama-3.1-8b.json"
    planner = planners.main("en")
    page, log = planner.page, planner.log
    page.locator('input[name="config_file"]').set_input_files(str(path))
    expect_text(page, "params", "8,030,261,248")
    page.locator('select[name="preset"]').select_option("qwen2.5-0.5b")
    assert read(page, "params") == f"{lc.param_count(lc.get_preset('qwen2.5-0.5b')):,}"
    page.locator('input[name="config_file"]').set_input_files(str(path))
    expect_text(page, "params", "8,030,261,248")
    assert page.locator('select[name="preset"]').input_value() == "config"
    assert log.errors == []


def test_a_loaded_config_s_verdict_is_announced(planners: Planners) -> None:
    """Using a pasted config is a reader's committed choice: the status line announces its verdict, or its
    refusal, as it does a listed model's."""
    planner = planners.main("en")
    page, log = planner.page, planner.log
    status = page.locator(f'{ROOT} [role="status"]')
    page.locator(f'{ROOT} select[name="preset"]').select_option("qwen2.5-0.5b")
    assert status.text_content() == read(page, "verdict")
    listed = status.text_content()
    page.locator(f'{ROOT} [name="config_paste"]').fill((CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    page.locator(f'{ROOT} [name="config_use"]').click()
    plan = plan_inference(lc.ModelConfig.from_hf_config(json.loads((CONFIGS / "llama-3.1-8b.json").read_text())),
                          context=4096)
    assert shown_parts(page) == expected_parts(plan)
    assert status.text_content() == read(page, "verdict") != listed
    page.locator(f'{ROOT} [name="config_paste"]').fill("{ not json")
    page.locator(f'{ROOT} [name="config_use"]').click()
    assert status.text_content() == page.locator(f'{ROOT} [data-error="config"]').text_content() != ""
    assert log.errors == []

def contrast(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two CSS rgb() colours."""
    def luminance(colour: str) -> float:
        channels = [int(part) / 255 for part in re.findall(r"\d+", colour)[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_verdicts_and_errors_have_4_5_to_1_contrast(scheme: str, planners: Planners) -> None:
    planner = planners.main("en")
    page, log = planner.page, planner.log
    page.emulate_media(color_scheme=scheme)  # the page's styles follow the reader's setting as it changes
    try:
        root = page.locator('.calculator[data-calculator="planner"]')
        assert page.evaluate(f"matchMedia('(prefers-color-scheme: {scheme})').matches")
        background = root.evaluate("node => getComputedStyle(node).backgroundColor")
        colours = {}
        for gpu in ("h200", "t4"):  # Llama 2 7B at 4,096 tokens fits the first, not the second
            page.locator('select[name="gpu"]').select_option(gpu)
            colours[gpu] = page.locator('[data-out="verdict"]').evaluate("node => getComputedStyle(node).color")
        page.locator('[name="gpu_gib"]').fill("24 TB")
        colours["error"] = page.locator('[data-error="plan"]').evaluate("node => getComputedStyle(node).color")
    finally:
        page.emulate_media(color_scheme="light")  # as every new page opens
    ratios = {name: round(contrast(colour, background), 2) for name, colour in colours.items()}
    assert all(ratio >= 4.5 for ratio in ratios.values()), ratios
    assert colours["h200"] != colours["t4"]  # the two verdicts are styled apart (fits, does not fit)
    assert log.errors == []


def test_the_bar_names_its_numbers_and_a_committed_value_is_announced_once(planners: Planners) -> None:
    plan = plan_inference(LLAMA, context=4096)
    planner = planners.main("en")
    page, log = planner.page, planner.log
    page.locator('select[name="gpu"]').select_option("a100-80gb")
    name = page.locator(".planner-bar").get_attribute("aria-label")
    assert name.startswith(f"Total {plan.total / GIB:.2f} GiB / 79.14 GiB (") and "KV cache 2.00 GiB" in name
    assert page.locator('.planner-results[aria-live]').count() == 0
    status = page.locator('[role="status"][data-out="status"]')
    assert status.inner_text() == read(page, "verdict")
    page.locator('[name="context"]').focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("2048")
    before = status.text_content()
    page.keyboard.type("0")  # each keystroke recomputes, silently
    assert status.text_content() == before and read(page, "verdict") != before
    page.keyboard.press("Tab")  # the committed value is announced
    assert status.text_content() == read(page, "verdict")
    assert log.errors == []


def test_on_a_phone_the_gib_column_stays(planners: Planners) -> None:
    planner = planners.main("en")
    page, log = planner.page, planner.log
    opened = page.viewport_size
    assert page.locator('[data-out="weights"]').is_visible()  # the wide window shows both columns
    page.set_viewport_size({"width": 375, "height": 800})  # the layout follows the window as it changes
    try:
        assert page.evaluate("innerWidth") == 375
        assert page.locator('[data-out="weights-gib"]').is_visible()
        assert not page.locator('[data-out="weights"]').is_visible()
    finally:
        page.set_viewport_size(opened)
    assert log.errors == []


def test_a_context_llmcalc_refuses_is_shown_at_its_field(planners: Planners) -> None:
    """GPT-2's 1,024 positions: its default context is 1,024 (as the CLI's); 4,096 typed is refused at the field."""
    planner = planners.main("en")
    page, log = planner.page, planner.log
    page.locator('select[name="preset"]').select_option("gpt2")
    context = page.locator('[name="context"]')
    assert context.input_value() == "1024" and context.get_attribute("aria-invalid") != "true"
    context.fill("4096")
    assert context.get_attribute("aria-invalid") == "true"
    box = page.locator("#" + context.get_attribute("aria-describedby"))
    with pytest.raises(Refusal) as raised:
        plan_inference(lc.get_preset("gpt2"), context=4096)
    assert raised.value.code == "integer_out_of_range" and raised.value.params["maximum"] == 1024
    assert box.inner_text() == "Context length (tokens) must be a whole number from 1 to 1,024."
    assert box.is_visible()
    assert not page.locator('[data-error="plan"]').is_visible()
    context.fill("1024")
    assert not box.is_visible() and read(page, "total") != "—"
    assert log.errors == []


def test_the_widget_works_from_the_keyboard(planners: Planners) -> None:
    planner = planners.main("en")
    page, log = planner.page, planner.log
    page.locator('input[name="task"][value="inference"]').focus()
    page.keyboard.press("ArrowRight")  # radio group: the next task, full fine-tuning
    assert page.locator('input[name="task"][value="full"]').is_checked()
    assert page.locator('[name="zero_stage"]').is_visible()
    page.locator('[name="seq_len"]').focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("1024")
    page.keyboard.press("Tab")
    plan = plan_training(LLAMA, task="full", seq_len=1024)
    assert shown_parts(page) == expected_parts(plan)
    assert log.errors == []


BAD_CONFIGS = [
    "{ not json",
    '{"model_type": "llama", "hidden_size": 4096,}',
    "[1, 2, 3]",
    '{"model_type": "bert"}',
    '{"hidden_size": 4096}',
    '{"model_type": "llama", "hidden_size": 0}',
    '{"model_type": "llama", "num_hidden_layers": -3}',
    '{"model_type": "llama", "hidden_size": 4096.0}',
    '{"model_type": "llama", "quantization_config": {"bits": 4}}',
]
ABSURD = ('{"model_type": "llama", "num_hidden_layers": 1000000000, "hidden_size": 65536, "num_attention_heads": 512,'
          ' "intermediate_size": 262144}')


def python_refusal(text: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Refusal:
    """llmcalc's refusal of ``text`` saved as ``config.json``, read as ``llmcalc plan`` reads it."""
    (folder / "config.json").write_text(text, encoding="utf-8")
    monkeypatch.chdir(folder)
    with pytest.raises(Refusal) as raised:
        checkpoint = checkpoint_from_hf("config.json")
        plan_inference(checkpoint.config, context=1, weight_format=checkpoint.weight_format or "bf16")
    return raised.value


# Words each language's message must carry for a refusal: the file's own names, and never English on zh_TW.
ENGLISH_WORDS = re.compile(r"\b(must|got|not|supported|config|valid|remove|parameters|planner)\b")


@pytest.mark.parametrize("language", LANGUAGES)
def test_bad_configs_show_the_refusal_in_the_page_s_language_and_the_widget_recovers(
    language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
, planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    root = page.locator('.calculator[data-calculator="planner"]')
    catalogue = json.loads(root.get_attribute("data-refusals"))
    for text in [*BAD_CONFIGS, ABSURD]:
        where, template = ("plan", "data-plan-error") if text == ABSURD else ("config", "data-config-error")
        page.locator('textarea[name="config_paste"]').fill(text)
        page.locator('button[name="config_use"]').click()
        refusal = python_refusal(text, tmp_path, monkeypatch)
        shown = page.locator(f'[data-error="{where}"]').inner_text()
        before, _, after = root.get_attribute(template).partition("{detail}")
        assert shown.startswith(before) and shown.endswith(after), (text, shown)
        # The code's own template, its fixed words in the page's language, its numbers filled in.
        template_words = re.split(r"\{[a-z_]+\}", catalogue["refusal_" + refusal.code])
        assert all(word.strip(" .;:：。；") in shown for word in template_words), (text, shown)
        numbers = refusal_numbers(refusal.params)
        if refusal.code == "invalid_json":
            # Where a parser reports a syntax error is the parser's: CPython 3.13 puts a trailing comma's at the
            # comma (column 44), 3.11 and Chromium at the brace after it (45).  The line is the file's.
            numbers.pop("column")
        for value in numbers.values():
            assert f"{int(value):,}" in shown or value in shown, (text, shown, value)
        if language == "zh_TW":
            assert not ENGLISH_WORDS.search(shown.replace("config.json", "")), (text, shown)
        assert "/" not in shown.replace("config.json", ""), (text, shown)  # no path of this repository
        assert not re.search(r"NaN|undefined|Infinity", root.inner_text()), text
        page.locator('select[name="preset"]').select_option("qwen2.5-0.5b")
        assert read(page, "params") == f"{lc.param_count(lc.get_preset('qwen2.5-0.5b')):,}"
        assert not page.locator('[data-error="config"]').is_visible()
        assert read(page, "total") != "—"
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_before_any_config_is_loaded_the_page_says_so(language: str, planners: Planners) -> None:
    # A page loaded for this test: the shared one may have been given a config, and nothing takes one back.
    page, log = planners.visitor(language)
    load(page, page_path(language).as_uri())
    root = page.locator('.calculator[data-calculator="planner"]')
    page.locator('select[name="preset"]').select_option("config")
    expected = json.loads(root.get_attribute("data-refusals"))["no_config"]
    assert page.locator('[data-error="config"]').inner_text() == expected
    start = {"en": "No config.json has been loaded yet", "zh_TW": "尚未載入 config.json"}[language]
    assert expected.startswith(start)
    assert log.errors == []


BAD_FIELDS = [
    ("inference", "context", "1000000000"),
    ("inference", "context", "0"),
    ("inference", "batch", "-2"),
    ("inference", "batch", "2.5"),
    ("full", "n_gpus", ""),
    ("full", "micro_batch", "1e9"),
    ("lora", "rank", "0"),
    ("lora", "rank", "99999"),
    ("inference", "gpu_gib", "0"),
    ("inference", "gpu_gib", "24 TB"),
    ("full", "gpu_gib", "1e9"),
]


@pytest.mark.parametrize("language", LANGUAGES)
def test_bad_fields_show_a_translated_message_never_nan(language: str, planners: Planners) -> None:
    """Each bad value, typed into the form as it opened: a message in the page's language, never NaN; the value
    put back as the reader had it, the message goes and the plan comes back."""
    messages = {"en": ("must be a whole number from", "is not a size from 1 MiB to 100,000 GiB"),
                "zh_TW": ("必須是", "1 MiB")}
    for task, name, value in BAD_FIELDS:
        case = (task, name, value)
        planner = planners.main(language)  # each case from the form as it opened, put back and checked
        page, log = planner.page, planner.log
        page.locator(f'input[name="task"][value="{task}"]').check()
        field = page.locator(f'{ROOT} [name="{name}"]')
        typed, planned = field.input_value(), shown_result(page)
        assert planned["verdict"] != "—", case
        field.fill(value)
        box = page.locator('[data-error="plan"]')
        assert box.is_visible(), case
        text = box.inner_text()
        assert any(part in text for part in messages[language]), (case, text)
        if language == "zh_TW":
            assert not ENGLISH_WORDS.search(text), (case, text)
        if name == "gpu_gib":
            quoted = {"en": f"“{value}”", "zh_TW": f"「{value}」"}[language]
            assert quoted in text and page.locator('[name="gpu_gib"]').get_attribute("aria-invalid") == "true", case
        assert not re.search(r"NaN|undefined|Infinity", page.locator(".calculator").inner_text()), case
        field.fill(typed)
        assert box.is_hidden() and field.get_attribute("aria-invalid") == "false", case
        assert shown_result(page) == planned, case
    assert log.errors == []


# ---- Inference engines (llmcalc.engines): transformers generate and vLLM, the widget against Python ----

def generate_case(label: str, source: dict[str, object], cfg: lc.ModelConfig, gpu: int, *, attention: str,
                  context: int, batch: int, weight_format: str, beyond: bool) -> dict[str, object]:
    """One generate vector: the plan and the longest prompt on ``gpu``, as Python answers them."""
    from llmcalc.engines import plan_generate

    def plan(n: int):
        return plan_generate(cfg, context=n, batch=batch, weight_format=weight_format, attention=attention)

    search = context_search_limit(cfg, beyond_trained=beyond)
    return {"engine": "generate", "model": label, "source": source, "gpu": str(gpu),
            "options": {"task": "inference", "engine": "generate", "attention": attention, "context": context,
                        "batch": batch, "weightFormat": weight_format, "kvFormat": "bf16", "beyondTrained": beyond},
            "expected": outcome(lambda: plan(context)), "limit": search,
            "largest": outcome(lambda: largest_fitting(plan, gpu, limit=search))}


def vllm_case(label: str, source: dict[str, object], cfg: lc.ModelConfig, gpu: int,
              options: dict[str, object]) -> dict[str, object]:
    """One vLLM vector: the start-up figures as Python computes them, or its refusal."""
    from llmcalc.engines import plan_vllm

    try:
        result = plan_vllm(cfg, gpu, max_model_len=options["context"],  # type: ignore[arg-type]
                           max_num_batched_tokens=options["maxNumBatchedTokens"],  # type: ignore[arg-type]
                           gpu_memory_utilization=options["utilization"],  # type: ignore[arg-type]
                           weight_format=options["weightFormat"], kv_format=options["kvFormat"],  # type: ignore[arg-type]
                           cuda_graph_bytes=options["cudaGraphBytes"],  # type: ignore[arg-type]
                           tensor_parallel=options["tensorParallel"],  # type: ignore[arg-type]
                           non_torch_bytes=options["nonTorchBytes"],  # type: ignore[arg-type]
                           max_num_seqs=options["maxNumSeqs"],  # type: ignore[arg-type]
                           hybrid_kv_cache=options["hybridKvCache"],  # type: ignore[arg-type]
                           sampler_filter=options["samplerFilter"])  # type: ignore[arg-type]
        figures = {"requested": result.requested, "weights": result.weights, "profile_peak": result.profile_peak,
                   "non_torch": result.non_torch, "blocks": result.blocks, "kv_tokens": result.kv_tokens,
                   "max_concurrency": repr(result.max_concurrency), "starts": str(result.starts).lower()}
        expected: dict[str, object] = {"parts": {key: str(value) for key, value in figures.items()}}
    except Refusal as error:
        expected = {"error": [error.code, refusal_numbers(error.params)]}
    return {"engine": "vllm", "model": label, "source": source, "gpu": str(gpu), "options": options,
            "expected": expected}


@functools.cache  # the oracle is the same for both languages: computed once per run
def engine_vectors(seed: int = 20261201) -> list[dict[str, object]]:
    """generate and vLLM plans over every model source, with the longest fits, as Python answers them."""
    rng = random.Random(seed)
    cards = [card.total_bytes for card in CARDS]
    vectors: list[dict[str, object]] = []
    for label, source, cfg in model_sources():
        limit = context_limit(cfg)
        for attention in ("sdpa", "eager"):
            vectors.append(generate_case(
                label, source, cfg, rng.choice(cards), attention=attention,
                context=rng.choice([1, 2048, rng.randint(1, min(limit, 65536)), limit + 1]),
                batch=rng.choice([1, rng.randint(1, 16)]), weight_format=rng.choice(WEIGHT_FORMATS),
                beyond=rng.random() < 0.5,
            ))
        for _ in range(2):
            options = {"context": rng.choice([4096, rng.randint(1, min(limit, 131072)), limit + 1]),
                       "maxNumBatchedTokens": rng.choice([512, 2048, 8192, rng.randint(1, 65536)]),
                       "weightFormat": rng.choice(WEIGHT_FORMATS), "kvFormat": rng.choice(KV_FORMATS),
                       "utilization": rng.choice([0.9, 0.5, 0.95, rng.choice([1.0, 0.0, 1.5])]),
                       "cudaGraphBytes": rng.choice([0, 0, 512 * 2**20, rng.randint(0, 2**36)]),
                       "tensorParallel": rng.choice([1, 1, 2, 4, 3]),
                       "nonTorchBytes": rng.choice([375809638, 375809638, 0, round(3.58 * 2**30),
                                                    rng.randint(0, 2**30), 2**41]),
                       "maxNumSeqs": rng.choice([256, 256, 1024, rng.randint(1, 300), 0]),
                       "hybridKvCache": rng.choice([False, True]), "samplerFilter": rng.choice(["sort", "triton"])}
            vectors.append(vllm_case(label, source, cfg, rng.choice(cards), options))
    return vectors


COMPARE_ENGINES = """
(vectors) => {
  const M = window.LLMModelConfig, P = window.LLMPlanner, bad = [];
  const refused = __REFUSED__;
  const answer = (compute, keys) => {
    try {
      const result = compute();
      if (typeof result === "number") return {value: String(result)};
      const parts = {};
      for (const key of keys || Object.keys(result)) {
        parts[key] = key === "max_concurrency" ? pyFloat(result[key]) : String(result[key]);
      }
      return {parts};
    } catch (error) {
      return refused(error);
    }
  };
  const pyFloat = (x) => Number.isInteger(x) ? x.toFixed(1) : String(x);
  const VLLM_KEYS = ["requested", "weights", "profile_peak", "non_torch", "blocks", "kv_tokens", "max_concurrency",
                     "starts"];
  for (const v of vectors) {
    const cfg = v.source.hf ? M.fromHfConfig(v.source.hf) : M.modelConfig(v.source.fields);
    if (v.engine === "generate") {
      const got = answer(() => P.planGenerate(cfg, v.options));
      const largest = answer(() => P.largestFitting((n) => P.planGenerate(cfg, {...v.options, context: n}),
        BigInt(v.gpu), v.limit));
      if (JSON.stringify(got) !== JSON.stringify(v.expected) || JSON.stringify(largest) !== JSON.stringify(v.largest)) {
        bad.push({model: v.model, options: v.options, got, expected: v.expected, largest, want: v.largest});
      }
    } else {
      const got = answer(() => P.planVllm(cfg, BigInt(v.gpu), v.options), VLLM_KEYS);
      if (JSON.stringify(got) !== JSON.stringify(v.expected)) {
        bad.push({model: v.model, options: v.options, got, expected: v.expected});
      }
    }
  }
  return {checked: vectors.length, bad: bad.slice(0, 4)};
}
""".replace("__REFUSED__", REFUSED)


@functools.cache  # the same command for both languages: run once per run
def cli_plan_json(model: str, *argv: str) -> dict:
    """``llmcalc plan MODEL ARGV --json`` run as a reader runs it, parsed."""
    done = subprocess.run([sys.executable, "-m", "llmcalc", "plan", model, *argv, "--json"],
                          capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(done.stdout)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_trainer_s_set_up_in_the_widget_is_the_cli_s(language: str, planners: Planners) -> None:
    """Choosing a set-up fills in what the trainer sets, and the plan is the CLI's with --setup, for LoRA and QLoRA;
    a field changed afterwards wins, as an option typed after --setup; axolotl's refusal is in the page's words."""
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('select[name="preset"]').select_option("llama-3-8b")
    page.locator('select[name="gpu"]').select_option("l4")
    for task in ("lora", "qlora"):
        for setup in SETUPS:
            choose(page, task=task, setup=setup.key, seq_len="1024", micro_batch="2")
            cli = cli_plan_json("llama-3-8b", "--task", task, "--setup", setup.key, "--seq-len", "1024",
                                "--micro-batch", "2", "--gpu", "l4")
            assert shown_parts(page) == {**cli["parts"], "total": cli["total"]}, (task, setup.key)
            largest = cli["largest_micro_batch"]
            shown = read(page, "largest")
            assert shown.startswith(f"{largest:,}") if largest else not shown[:1].isdigit(), (task, setup.key)
            assert page.locator('[name="adapter_dtype"]').input_value() == cli["adapter_dtype"]
            assert page.locator('[name="checkpointing"]').is_checked() is cli["checkpointing"]
    choose(page, task="qlora", setup="qlora-script", optimizer="adamw", adapter_dtype="fp32")
    cli = cli_plan_json("llama-3-8b", "--task", "qlora", "--setup", "qlora-script", "--optimizer", "adamw",
                        "--adapter-dtype", "fp32", "--seq-len", "1024", "--micro-batch", "2", "--gpu", "l4")
    assert shown_parts(page) == {**cli["parts"], "total": cli["total"]}
    page.locator('select[name="preset"]').select_option("gpt2")
    choose(page, task="qlora", setup="axolotl", targets="all-linear", seq_len="512")
    error = page.locator('[data-error="plan"]').text_content()
    words = {"en": 'for a "gpt2" model it leaves parameters in FP32', "zh_TW": "gpt2"}[language]
    assert words in error and (HAN.search(error) if language == "zh_TW" else True), error
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_engines_in_the_widget_show_what_the_cli_prints(language: str, planners: Planners) -> None:
    """Llama-3-8B: generate's prefill as activations; vLLM's pool and concurrency in the verdict, as the CLI's JSON."""
    def cli(*argv: str) -> dict:
        return cli_plan_json("llama-3-8b", *argv)

    generate = cli("--engine", "generate", "--attention", "eager", "--context", "4096", "--gpu", "l4")
    vllm = cli("--engine", "vllm", "--context", "8192", "--gpu", "l4", "--gpu-memory-utilization", "0.85",
               "--max-num-batched-tokens", "2048", "--vllm-version", "0.20+", "--cuda-graphs-mib", "512")
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('select[name="preset"]').select_option("llama-3-8b")
    page.locator('select[name="gpu"]').select_option("l4")
    choose(page, task="inference", engine="generate", attention="eager", context="4096")
    shown = shown_parts(page)
    assert {k: v for k, v in shown.items() if v} == {**{k: v for k, v in generate["parts"].items() if v},
                                                     "total": generate["total"]}
    assert read(page, "largest").startswith(f"{generate['largest_context']:,}")
    assert page.locator('[name="kv_format"]').is_hidden() and page.locator('[name="attention"]').is_visible()
    choose(page, task="inference", engine="vllm", vllm_version="0.20+", gpu_memory_utilization="85",
           max_num_batched_tokens="2048", context="8192", cuda_graphs_mib="512")
    assert page.locator('[name="batch"]').is_hidden() and page.locator('[name="attention"]').is_hidden()
    verdict = read(page, "verdict")
    assert f"{vllm['kv_tokens']:,}" in verdict and f"{vllm['max_concurrency']:.2f}" in verdict, verdict
    assert shown_parts(page)["kv_cache"] == vllm["parts"]["kv_cache"]
    assert shown_parts(page)["activations"] == vllm["parts"]["profile_peak"]
    assert shown_parts(page)["reserve"] == vllm["parts"]["non_torch_and_cuda_graphs"]
    assert read(page, "largest") == f"{vllm['largest_context']:,}"
    # With the graphs' size given there is nothing to warn of; without it, the note the CLI prints, in the page's words.
    note = page.locator('.calculator[data-calculator="planner"] [data-out="note"]')
    assert note.is_hidden()
    choose(page, task="inference", cuda_graphs_mib="0")
    words = page.locator(ROOT).get_attribute("data-vllm-graphs-note")
    assert note.is_visible() and note.inner_text() == words and "Estimated CUDA graph memory" in words
    assert HAN.search(words) if language == "zh_TW" else words.startswith("No CUDA graphs are counted")
    without = cli("--engine", "vllm", "--context", "8192", "--gpu", "l4", "--gpu-memory-utilization", "0.85",
                  "--max-num-batched-tokens", "2048", "--vllm-version", "0.20+")
    assert f"{without['kv_tokens']:,}" in read(page, "verdict")
    page.locator('[name="gpu_memory_utilization"]').fill("101")
    assert page.locator('[name="gpu_memory_utilization"]').get_attribute("aria-invalid") == "true"
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_vllm_release_sequences_and_memory_outside_torch_are_the_clis(language: str, planners: Planners) -> None:
    """vLLM PR 10511's H100 log, as the CLI plans it, on each new input: the release, max_num_seqs, non-torch GiB,
    the sampler filter (the release's default until chosen, as --sampler-filter's)."""
    def cli(*argv: str) -> dict:
        return cli_plan_json("llama-3-8b", "--engine", "vllm", "--context", "8192", "--gpu", "79.22GiB",
                             "--max-num-batched-tokens", "8192", *argv)

    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('select[name="preset"]').select_option("llama-3-8b")
    choose(page, task="inference", engine="vllm", gpu="", gpu_gib="79.22 GiB", context="8192",
           max_num_batched_tokens="8192")
    graphs = page.locator('[name="cuda_graphs_mib"]')
    note = page.locator(f'{ROOT} [data-out="note"]')
    # Before 0.20: 90 % of the card, no graphs field, and the note that names the later release.
    assert page.locator('[name="gpu_memory_utilization"]').input_value() == "90" and graphs.is_hidden()
    assert note.inner_text() == page.locator(ROOT).get_attribute("data-vllm-before-note")
    sampler = page.locator(f'{ROOT} [name="sampler_filter"]')
    assert sampler.input_value() == "sort" and sampler.is_visible()
    # The select's label and choices in the page's language, from its label list.
    words = page.locator(f'{ROOT} label[for="{sampler.get_attribute("id")}"]').inner_text() + " ".join(
        sampler.locator("option").all_inner_texts())
    assert "0.16" in words and "0.17" in words and (HAN.search(words) if language == "zh_TW" else "filter" in words)
    cases = [({}, ()),
             ({"non_torch_gib": "1.79"}, ("--non-torch-gib", "1.79")),
             ({"non_torch_gib": "1.79", "max_num_seqs": "1024"}, ("--non-torch-gib", "1.79", "--max-num-seqs", "1024")),
             # vLLM 0.17 to 0.19: before 0.20, but the Triton filter.
             ({"sampler_filter": "triton"}, ("--non-torch-gib", "1.79", "--max-num-seqs", "1024", "--sampler-filter",
                                             "triton")),
             ({"vllm_version": "0.20+", "non_torch_gib": "0.35", "max_num_seqs": "256"}, ("--vllm-version", "0.20+")),
             ({"cuda_graphs_mib": "700"}, ("--vllm-version", "0.20+", "--cuda-graphs-mib", "700"))]
    planned = []
    for fields, argv in cases:
        choose(page, task="inference", **fields)
        expected = cli(*argv)
        planned.append(expected["kv_tokens"])
        verdict = read(page, "verdict")
        assert f"{expected['kv_tokens']:,}" in verdict, (fields, verdict, expected["kv_tokens"])
        shown = shown_parts(page)
        assert shown["activations"] == expected["parts"]["profile_peak"]
        assert shown["reserve"] == expected["parts"]["non_torch_and_cuda_graphs"]
    # The Triton filter's warm-up, smaller than the sort's, leaves the pool larger.
    assert planned[3] > planned[2]
    # Choosing 0.20 and later set the CLI's default share, 92 %, and filter, Triton, and showed the graphs' field.
    assert page.locator('[name="gpu_memory_utilization"]').input_value() == "92" and graphs.is_visible()
    assert sampler.input_value() == "triton" and cli("--vllm-version", "0.20+")["sampler_filter"] == "triton"
    assert cli("--vllm-version", "0.20+")["gpu_memory_utilization"] == 0.92
    # A memory outside PyTorch larger than the card, or not a number, is refused at its field, naming the value.
    for typed in ("80", "1,5"):
        page.locator('[name="non_torch_gib"]').fill(typed)
        assert page.locator('[name="non_torch_gib"]').get_attribute("aria-invalid") == "true"
        error = page.locator(f'{ROOT} [data-error="plan"]').inner_text()
        assert typed in error and "79.22" in error, error
    choose(page, task="inference", cuda_graphs_mib="0", vllm_version="before-0.20", non_torch_gib="0.35")
    assert page.locator('[name="gpu_memory_utilization"]').input_value() == "90" and sampler.input_value() == "sort"
    assert log.errors == [] and log.requests == []


# The names the vLLM table gives its rows in each language (the training rows' names are other quantities).
VLLM_ROW_NAMES = {"en": {"activations": "Peak of vLLM’s profile run",
                         "reserve": "Memory outside PyTorch and CUDA graphs",
                         "total": "Budget (gpu_memory_utilization × the card)"},
                  "zh_TW": {"activations": "vLLM 剖析執行的峰值", "reserve": "PyTorch 以外的記憶體與 CUDA graph",
                            "total": "預算（gpu_memory_utilization × 整張卡）"}}

ROW_NAME = """([root, part]) => {
  // A row's name as a reader sees it: the rendered text of its header cell.
  const row = part === "total" ? ".planner-total" : '[data-row="' + part + '"]';
  return document.querySelector(root + " " + row + " th").innerText.trim();
}"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_vllm_table_names_its_rows_as_the_cli_does(language: str, planners: Planners) -> None:
    """Page 19's RTX 3090 case: the profile peak, the memory outside PyTorch and the budget, named so and as printed."""
    cli = cli_plan_json("llama-3-8b", "--trained-context", "131072", "--engine", "vllm", "--gpu", "rtx-3090",
                        "--context", "20000", "--max-num-batched-tokens", "20000")
    assert cli["kv_tokens"] == 31_568  # vLLM printed 31,232 (issue 10517)
    planner = planners.main(language)
    page, log = planner.page, planner.log
    training = {part: page.evaluate(ROW_NAME, [ROOT, part]) for part in ("activations", "reserve", "total")}
    page.locator('select[name="preset"]').select_option("llama-3-8b")
    page.locator('select[name="gpu"]').select_option("rtx-3090")
    choose(page, task="inference", engine="vllm", context="20000", max_num_batched_tokens="20000")
    expect_text(page, "total", f"{cli['parts']['budget']:,} B")
    names = {part: page.evaluate(ROW_NAME, [ROOT, part]) for part in ("activations", "reserve", "total")}
    assert names == VLLM_ROW_NAMES[language] and all(names[part] != training[part] for part in names)
    shown = shown_parts(page)
    assert (shown["activations"], shown["reserve"], shown["total"]) == (
        cli["parts"]["profile_peak"], cli["parts"]["non_torch_and_cuda_graphs"], cli["parts"]["budget"])
    bar = page.locator(f"{ROOT} .planner-bar").get_attribute("aria-label")
    assert VLLM_ROW_NAMES[language]["activations"] in bar and training["activations"] not in bar
    choose(page, task="inference", engine="sum")
    assert {part: page.evaluate(ROW_NAME, [ROOT, part]) for part in names} == training
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widget_says_which_total_it_planned_with_as_the_cli_does(language: str, planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    root = page.locator(ROOT)
    note = page.locator(f'{ROOT} [data-out="gpu-total"]')
    for gpu in ("rtx-3090", "a10g", "24GB"):
        cli = cli_plan_json("llama-2-7b", "--gpu", gpu)
        card = next((card for card in CARDS if card.key == gpu), None)
        if card is None:
            page.locator('input[name="gpu_gib"]').fill(gpu)
            words = root.get_attribute("data-gpu-typed")
        else:
            page.locator('select[name="gpu"]').select_option(gpu)
            assert page.locator('input[name="gpu_gib"]').input_value() == card.field
            total = card.field if not card.estimated else f"{card.reported_mib - 881:,} MiB"
            words = root.get_attribute("data-gpu-estimate" if card.estimated else "data-gpu-process")
            words = (words.replace("{total}", total).replace("{source}", card.process_source)
                     .replace("{tool}", card.tool).replace("{reported}", f"{card.reported_mib:,}")
                     .replace("{margin}", "881").replace("{over}", "278").replace("{under}", "880"))
        assert cli["gpu_total"]["source"] == ("typed" if card is None else "estimate" if card.estimated else "process")
        assert note.is_visible() and note.inner_text() == words, (gpu, note.inner_text())
        assert "{" not in words and (HAN.search(words) if language == "zh_TW" else "process sees" in words)
        # The plan is checked against the same bytes as the CLI's: its verdict and the largest context agree.
        assert read(page, "largest").startswith(f"{cli['largest_context']:,}"), gpu
        assert read(page, "total") == f"{cli['total']:,} B"
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_engine_that_adds_no_working_memory_says_so_where_its_verdict_is(language: str,
                                                                              planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    words = page.locator(ROOT).get_attribute("data-sum-note")
    note = page.locator(f'{ROOT} [data-out="engine-note"]')
    choose(page, task="inference", engine="sum")
    assert note.is_visible() and note.inner_text() == words and "vLLM" in words
    choose(page, task="inference", engine="vllm")
    assert note.is_hidden()
    choose(page, task="lora")
    assert note.is_hidden()
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_config_refused_when_read_clears_the_last_config_s_plan_error(language: str, planners: Planners) -> None:
    """PL-15: a config too large to plan, then one that cannot be read: only the second one's error is shown."""
    planner = planners.main(language)
    page, log = planner.page, planner.log
    plan_error, config_error = page.locator('[data-error="plan"]'), page.locator('[data-error="config"]')
    page.locator('textarea[name="config_paste"]').fill(ABSURD)
    page.locator('button[name="config_use"]').click()
    assert plan_error.is_visible() and config_error.is_hidden()
    page.locator('textarea[name="config_paste"]').fill('{"model_type": "llama", "vocab_size": "32000"}')
    page.locator('button[name="config_use"]').click()
    assert config_error.is_visible() and plan_error.is_hidden(), plan_error.inner_text()
    assert page.locator(ERRORS_SHOWN).count() == 1
    page.locator('select[name="preset"]').select_option("qwen2.5-0.5b")
    assert page.locator(ERRORS_SHOWN).count() == 0
    assert log.errors == [] and log.requests == []


# ---- The share link, the second card and the chart (plannershare.js, plannerchart.js) ----

def form_values(page) -> dict[str, str]:
    """Every input of the form as the reader set it: what a link must carry."""
    return page.evaluate(
        """(root) => Object.fromEntries([...document.querySelector(root + " form").elements]
             .filter((e) => e.name && e.type !== "file" && e.type !== "button" && e.tagName !== "TEXTAREA")
             .map((e) => [e.type === "radio" ? e.name + "=" + e.value : e.name,
                          e.type === "checkbox" || e.type === "radio" ? String(e.checked) : e.value]))""",
        ROOT,
    )


def shown_result(page) -> dict[str, object]:
    texts = read_all(page, *PARTS, "verdict", "largest", "params")
    return {**parts_of(texts), "verdict": texts["verdict"], "largest": texts["largest"], "params": texts["params"]}


SHARED_SETUPS = {
    "lora": {"task": "lora", "preset": "qwen2.5-0.5b", "optimizer": "adamw-8bit", "micro_batch": "3",
             "seq_len": "1024", "rank": "32", "targets": "all-linear", "lora_dropout": "0.1",
             "gpu": "a100-40gb", "gpu_compare": "rtx-3060", "checkpointing": True},
    "inference": {"task": "inference", "preset": "llama-3-8b", "engine": "generate", "attention": "eager",
                  "weight_format": "int8", "context": "10000", "batch": "3", "beyond_trained": True,
                  "gpu": "", "gpu_gib": "22.49"},
    "full": {"task": "full", "precision": "mixed", "zero_stage": "2", "n_gpus": "8", "seq_len": "512",
             "gpu": "h100-sxm"},
    # A sampler filter other than its release's default travels as chosen, not reset by the release.
    "vllm": {"task": "inference", "preset": "llama-3-8b", "engine": "vllm", "vllm_version": "0.20+",
             "sampler_filter": "sort", "max_num_seqs": "1024", "gpu": "h100-sxm"},
}


def set_up(page, fields: dict[str, object]) -> None:
    """Set the form as a reader would: task first, then each field (a tick box by clicking it)."""
    page.locator(f'{ROOT} input[name="task"][value="{fields["task"]}"]').check()
    for name, value in fields.items():
        if name == "task":
            continue
        field = page.locator(f'{ROOT} [name="{name}"]')
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("node => node.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_shared_link_restores_every_input_and_the_same_result(language: str, planners: Planners) -> None:
    """Each set-up, made from the form as it opened, gives a link; the first link is opened by loading it on
    another page, each next one followed on that page (``hashchange``) over the previous set-up's plan."""
    fresh, log2 = planners.visitor(language)
    load(fresh, page_path(language).as_uri())
    assert "#" not in fresh.url  # a visit alone leaves the address as it came
    for index, setup in enumerate(SHARED_SETUPS):
        planner = planners.main(language)
        page, log = planner.page, planner.log
        entries = page.evaluate("history.length")
        set_up(page, SHARED_SETUPS[setup])
        page.locator(f'{ROOT} [name="batch"]').press_sequentially("1")  # typed: one keystroke at a time
        page.locator(f'{ROOT} [name="batch"]').press("Backspace")
        values, result = form_values(page), shown_result(page)
        assert result["verdict"] != "—", setup  # a plan, not a refusal, travels
        link = page.evaluate("location.href")
        assert "#plan=1&" in link, setup
        assert page.evaluate("history.length") == entries, setup  # replaceState: no entry per change
        if index == 0:
            load(fresh, link)
        else:
            assert form_values(fresh) != values, setup  # the page shows another plan until the link is followed
            open_fragment(fresh, "#" + link.split("#", 1)[1])
        assert form_values(fresh) == values, setup
        assert shown_result(fresh) == result, setup
        assert not fresh.locator(f'{ROOT} [data-out="share-note"]').is_visible(), setup
    assert log.errors == log2.errors == [] and log.requests == log2.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_loaded_config_travels_as_its_values_not_the_file(language: str, planners: Planners) -> None:
    path = CONFIGS / "deepseek-v2-lite.json"  # latent attention and experts: many fields to carry
    cfg = lc.ModelConfig.from_hf_config(path)
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('input[name="config_file"]').set_input_files(str(path))
    expect_text(page, "params", f"{lc.param_count(cfg):,}")
    page.locator(f'{ROOT} [name="context"]').fill("2048")
    page.wait_for_function("location.hash.includes('context=2048') && location.hash.includes('config=')")
    link = page.evaluate("location.href")
    result = shown_result(page)
    assert "architectures" not in link and "max_position_embeddings" not in link  # the file's own keys stay home
    shared = json.loads(urllib.parse.parse_qs(link.split("#", 1)[1])["config"][0])
    assert shared == dataclasses.asdict(cfg)  # llmcalc's ModelConfig values, exact integers, not the file
    fresh, log2 = planners.visitor(language)  # a page that has never been given the file
    load(fresh, link)
    assert fresh.locator('select[name="preset"]').input_value() == "config"
    assert shown_result(fresh) == result
    assert log.errors == log2.errors == []


BAD_FRAGMENTS = [
    "#plan=2&context=4096",            # another version
    "#plan=1&context=0",               # below the field's minimum
    "#plan=1&context=99999999999",     # above its maximum
    "#plan=1&context=4e3",             # not a whole number
    "#plan=1&batch=1&batch=2",         # a field twice
    "#plan=1&nonsense=1",              # no such field
    "#plan=1&preset=gpt-5",            # no such model
    "#plan=1&task=pretraining",        # no such task
    "#plan=1&gpu_gib=24%20TB",         # no such size
    "#plan=1&lora_dropout=1",          # outside [0, 1)
    "#plan=1&checkpointing=yes",       # not a flag
    "#plan=1&preset=config&config=%7Bbad",          # a config that is not JSON
    "#plan=1&preset=config&config=%7B%22d_model%22%3A0%7D",  # one llmcalc refuses
    "#plan=1&preset=gpt2&config=%7B%7D",            # a config for a listed model
    # a good config without preset=config (found by tsc --strictNullChecks: the note read the missing value)
    "#plan=1&config=%7B%22vocab_size%22%3A8%2C%22d_model%22%3A8%2C%22n_layers%22%3A1%2C%22n_heads%22%3A1%2C%22d_ff%22%3A8%7D",
    "#plan=%E0%A4%A",                  # not even percent-encoding
    "#plan=1&context=" + "9" * 500,    # absurdly long
]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bad_link_gives_the_defaults_and_a_translated_note(language: str, planners: Planners) -> None:
    """The first bad link opened by loading it; each other one followed on that page (the planner handles
    ``hashchange``) after the reader moved the form off the defaults, so the defaults and the note it gets are
    that link's doing."""
    planner = planners.main(language)  # its form and result as the page opened: the defaults
    defaults, default_result = planner.defaults, planner.opening
    page, log = planners.visitor(language)
    template = planner.page.locator(ROOT).get_attribute("data-share-bad")
    note = page.locator(f'{ROOT} [data-out="share-note"]')
    for index, fragment in enumerate(BAD_FRAGMENTS):
        if index == 0:
            load(page, page_path(language).as_uri() + fragment)
        else:
            context = str(1000 + index)
            page.locator(f'{ROOT} [name="context"]').fill(context)
            assert not note.is_visible() and f"context={context}&" in page.evaluate("location.hash"), fragment
            open_fragment(page, fragment)
        assert note.is_visible(), fragment
        assert note.inner_text().startswith(template.split("{label}")[0]), fragment
        if language == "zh_TW":
            assert not ENGLISH_WORDS.search(template), template
        assert form_values(page) == defaults, fragment
        assert shown_result(page) == default_result, fragment
    assert planner.log.errors == log.errors == [] and planner.log.requests == log.requests == []


def chart_points(page) -> list[tuple[int, int]]:
    return [(int(x), int(b)) for x, b in page.locator(f"{ROOT} svg circle").evaluate_all(
        "nodes => nodes.map((n) => [n.dataset.x, n.dataset.bytes])")]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_chart_plots_llmcalc_totals_and_says_them_as_text(language: str, planners: Planners) -> None:
    mistral = lc.get_preset("mistral-7b")
    planner = planners.main(language)
    page, log = planner.page, planner.log
    # Inference: memory against context, past the trained context so the sliding window shows.
    set_up(page, {"task": "inference", "preset": "mistral-7b", "weight_format": "nf4", "kv_format": "fp8",
                  "batch": "4", "beyond_trained": True})
    points = chart_points(page)
    assert len(points) >= 8 and 4096 in [x for x, _ in points]
    for context, total in points:
        assert total == plan_inference(mistral, context=context, batch=4, weight_format="nf4",
                                       kv_format="fp8").total, context
    svg = page.locator(f"{ROOT} svg")
    assert svg.get_attribute("role") == "img"
    title, desc = svg.locator("title").text_content(), svg.locator("desc").text_content()
    assert title == page.locator(ROOT).get_attribute("data-chart-context")
    assert f"{points[0][0]:,}" in desc and f"{points[-1][0]:,}" in desc
    rows = page.locator(f"{ROOT} .planner-chart-table tbody tr").evaluate_all(
        "rows => rows.map((r) => [Number(r.dataset.x), r.dataset.bytes, r.cells[2].textContent])")
    assert [(x, int(b)) for x, b, _ in rows] == points
    assert all(text == f"{int(b):,}" for _, b, text in rows)
    card = page.locator(f"{ROOT} .planner-chart-card-0").get_attribute("data-gib")
    assert float(card) == gpu_memory("rtx-4090") / GIB  # the RTX 4090 as a process sees it, 23.64 GiB
    # Training: memory against micro-batch.
    set_up(page, {"task": "lora", "preset": "llama-2-7b", "seq_len": "512", "micro_batch": "3"})
    points = chart_points(page)
    assert [x for x, _ in points][:4] == [1, 2, 3, 4]
    for micro_batch, total in points:
        assert total == plan_training(LLAMA, task="lora", seq_len=512, micro_batch=micro_batch, rank=16,
                                      **setup_settings("trl-sft", "lora")).total, micro_batch
    assert svg.locator("title").text_content() == page.locator(ROOT).get_attribute("data-chart-micro-batch")
    # vLLM's pool takes the card's share whatever the context: no chart, and the page says why.
    set_up(page, {"task": "inference", "engine": "vllm"})
    assert read(page, "verdict") != "—"
    assert not page.locator(f'{ROOT} [data-out="chart"]').is_visible()
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_two_cards_side_by_side_give_both_verdicts(language: str, planners: Planners) -> None:
    total = plan_training(LLAMA, task="full", seq_len=2048).total
    planner = planners.main(language)
    page, log = planner.page, planner.log
    compare = page.locator(f'{ROOT} [data-out="compare"]')
    assert not compare.is_visible()
    set_up(page, {"task": "full", "seq_len": "2048", "gpu": "rtx-4090", "gpu_compare": "h100-nvl"})
    cards = compare.locator(".planner-compare-card")
    assert cards.count() == 2
    for index, key in enumerate(("rtx-4090", "h100-nvl")):
        budget = next(card.total_bytes for card in CARDS if card.key == key)
        assert cards.nth(index).get_attribute("data-bytes") == str(budget)
        verdict = cards.nth(index).locator(".planner-verdict")
        fits = total <= budget
        assert ("planner-fits" if fits else "planner-no-fit") in verdict.get_attribute("class")
        assert f"{abs(budget - total):,} B" in verdict.inner_text()
    # The first card's column says what the main verdict says.
    assert cards.nth(0).locator(".planner-verdict").inner_text() == read(page, "verdict")
    page.locator(f'{ROOT} [name="gpu_compare"]').select_option("")
    assert not compare.is_visible()
    assert log.errors == []


def test_copy_link_copies_the_address_of_the_plan(planners: Planners) -> None:
    planner = planners.main("en")
    page, log = planner.page, planner.log
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    status = page.locator(f'{ROOT} [data-out="share-status"]')
    assert status.text_content() == ""  # nothing copied yet: what follows is this click's doing
    page.locator(f'{ROOT} [name="context"]').fill("1234")
    page.locator(f'{ROOT} [data-share="copy"]').click()
    page.wait_for_function("(s) => document.querySelector(s).textContent !== ''",
                           arg=f'{ROOT} [data-out="share-status"]', timeout=5000)
    assert status.inner_text() == page.locator(ROOT).get_attribute("data-share-copied")
    address = page.evaluate("location.href")
    assert page.evaluate("navigator.clipboard.readText()") == address
    assert "context=1234" in address
    assert log.errors == []


def test_the_language_switch_carries_the_plan_to_the_other_edition(planners: Planners) -> None:
    """The sidebar's switch keeps the fragment: the zh_TW page opens on the same inputs and the same bytes."""
    page, log = planners.visitor("en")  # not the shared en page: the switch takes its page to the other edition
    load(page, page_path("en").as_uri())
    set_up(page, SHARED_SETUPS["lora"])
    values, parts = form_values(page), shown_parts(page)
    page.locator("a.language-switch").first.click()
    page.wait_for_url(re.compile(r"/zh_TW/19-will-it-fit\.html#plan=1&"))
    assert form_values(page) == values
    assert shown_parts(page) == parts
    assert page.evaluate("document.documentElement.lang") == "zh-TW"
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_several_gpus_in_the_widget_show_what_the_cli_prints(language: str, planners: Planners) -> None:
    """Llama-3.1-70B over 4 x 2 GPUs for inference and LoRA under ZeRO-3 on 8, as the CLI's JSON; TP 3 refused."""
    def cli(*argv: str) -> dict:
        return cli_plan_json("llama-3.1-70b", *argv)

    inference = cli("--tensor-parallel", "4", "--pipeline-parallel", "2", "--context", "8192", "--gpu", "a100-40gb")
    lora = cli("--task", "lora", "--zero-stage", "3", "--gpus", "8", "--seq-len", "2048", "--micro-batch", "1",
               "--checkpointing", "--gpu", "a100-40gb")
    planner = planners.main(language)
    page, log = planner.page, planner.log
    page.locator('select[name="preset"]').select_option("llama-3.1-70b")
    page.locator('select[name="gpu"]').select_option("a100-40gb")
    choose(page, task="inference", tensor_parallel="4", pipeline_parallel="2", context="8192")
    assert shown_parts(page) == {**{k: inference["parts"][k] for k in shown_parts(page) if k != "total"},
                                 "total": inference["total"]}
    assert read(page, "largest").startswith(f"{inference['largest_context']:,}")
    assert "8" in read(page, "verdict").split(":")[0]  # named per GPU, of 8, as the CLI's heading
    choose(page, task="inference", tensor_parallel="3")
    assert "1, 2, 4, 8, 16, 32, 64" in page.locator('[data-error="plan"]').text_content()
    choose(page, task="lora", zero_stage="3", n_gpus="8", seq_len="2048", micro_batch="1")
    page.locator('.calculator[data-calculator="planner"] [name="checkpointing"]').check()
    assert shown_parts(page)["total"] == lora["total"]
    assert read(page, "largest") == f"{lora['largest_micro_batch']:,}"
    assert log.errors == [] and log.requests == []


COUNT_UPDATES = """
  // Registered before the page's scripts, as plannershare.js and plannerchart.js register themselves: the widget
  // tells each extension after every update (every plan, refused or not), so this counts the plans computed.
  window.plannerUpdates = 0;
  window.LLMPlannerExtensions = (window.LLMPlannerExtensions || []).concat([function () {
    return function () { window.plannerUpdates += 1; };
  }]);
"""


def test_a_committed_change_is_planned_once_and_announced(planners: Planners) -> None:
    """A click, a choice or a typed value fires input, then change: the input plans, the change only announces.

    Each counted by the updates the widget tells its extensions; what is shown and announced is llmcalc's plan of
    the form as it ends.  A change no input planned (a script setting a value) is still planned.
    """
    page, log = planners.visitor("en")
    page.add_init_script(COUNT_UPDATES)
    load(page, page_path("en").as_uri())
    status = page.locator(f'{ROOT} [role="status"]')

    def updates(action: Callable[[], object]) -> int:
        page.evaluate("window.plannerUpdates = 0")
        action()
        return int(page.evaluate("window.plannerUpdates"))

    field = page.locator(f'{ROOT} [name="beyond_trained"]')
    assert updates(field.click) == 1 and field.is_checked()
    assert status.text_content() == read(page, "verdict")
    assert updates(lambda: page.locator(f'{ROOT} input[name="task"][value="full"]').check()) == 1
    assert updates(page.locator(f'{ROOT} [name="checkpointing"]').check) == 1
    assert updates(lambda: page.locator(f'{ROOT} select[name="gpu"]').select_option("a100-80gb")) == 1
    assert page.locator(f'{ROOT} [name="gpu_gib"]').input_value() == "79.14 GiB"  # the card's, read by that plan
    page.locator(f'{ROOT} [name="seq_len"]').focus()
    page.keyboard.press("Control+A")
    assert updates(lambda: page.keyboard.type("1024")) == 4  # each keystroke plans, silently
    assert updates(lambda: page.keyboard.press("Tab")) == 0  # the committed value: announced, not planned again
    plan = plan_training(LLAMA, task="full", seq_len=1024, checkpointing=True)
    assert shown_parts(page) == expected_parts(plan)
    spare = gpu_memory("a100-80gb") - plan.total  # the plan read the card's memory, not the field's old one
    assert status.text_content() == read(page, "verdict") and f"({spare:,} B)" in status.text_content()
    set_without_input = """(root) => {
      const field = document.querySelector(root + ' [name="micro_batch"]');
      field.value = "2";
      field.dispatchEvent(new Event("change", {bubbles: true}));
    }"""
    assert updates(lambda: page.evaluate(set_without_input, ROOT)) == 1
    assert shown_parts(page) == expected_parts(plan_training(LLAMA, task="full", seq_len=1024, checkpointing=True,
                                                             micro_batch=2))
    assert status.text_content() == read(page, "verdict")
    paste = page.locator(f'{ROOT} [name="config_paste"]')  # read by its "use" button only: typing plans nothing
    assert updates(lambda: (paste.fill('{"model_type": "llama"'), paste.blur())) == 0
    paste.fill("")
    assert log.errors == [] and log.requests == []


NAN = float("nan")
TRAINING_DEFAULTS = {"task": "lora", "seqLen": 512, "microBatch": 1, "optimizer": "adamw", "checkpointing": False,
                     "zeroStage": 0, "nGpus": 1, "rank": 16, "targets": ["q", "v"], "precision": "bf16",
                     "qloraPreparation": "kbit", "loraDropout": 0.0}
# (case, model, the function of window.LLMPlanner, its options or arguments as planner.js names them, llmcalc's call)
BAD_API_INPUT = [
    ("a dropout that is no number", "llama-2-7b", "planTraining", {"loraDropout": NAN},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, lora_dropout=NAN)),
    ("a micro-batch of 1.5", "llama-2-7b", "planTraining", {"microBatch": 1.5},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, micro_batch=1.5)),  # type: ignore[arg-type]
    ("a sequence length that is no number", "llama-2-7b", "planTraining", {"task": "full", "seqLen": NAN},
     lambda cfg: plan_training(cfg, task="full", seq_len=NAN)),  # type: ignore[arg-type]
    ("a rank of 1.5", "llama-2-7b", "planTraining", {"rank": 1.5},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, rank=1.5)),  # type: ignore[arg-type]
    ("ZeRO stage 4 under LoRA", "llama-2-7b", "planTraining", {"zeroStage": 4, "nGpus": 2},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, zero_stage=4, n_gpus=2)),
    ("ZeRO stage 4 under full fine-tuning", "llama-2-7b", "planTraining", {"task": "full", "zeroStage": 4},
     lambda cfg: plan_training(cfg, task="full", seq_len=512, zero_stage=4)),
    ("an unknown task", "llama-2-7b", "planTraining", {"task": "sft"},
     lambda cfg: plan_training(cfg, task="sft", seq_len=512)),
    ("an unknown optimizer", "llama-2-7b", "planTraining", {"optimizer": "adam"},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, optimizer="adam")),
    ("an empty precision", "llama-2-7b", "planTraining", {"task": "full", "precision": ""},
     lambda cfg: plan_training(cfg, task="full", seq_len=512, precision="")),
    ("an empty QLoRA preparation", "llama-2-7b", "planTraining", {"task": "qlora", "qloraPreparation": ""},
     lambda cfg: plan_training(cfg, task="qlora", seq_len=512, qlora_preparation="")),
    ("checkpointing that is no flag", "llama-2-7b", "planTraining", {"checkpointing": "yes"},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, checkpointing="yes")),  # type: ignore[arg-type]
    ("a number for the targets of an MoE", "mixtral-8x7b", "planTraining", {"targets": 5},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, targets=5)),  # type: ignore[arg-type]
    ("no targets for an MoE", "mixtral-8x7b", "planTraining", {"targets": []},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, targets=[])),
    ("both n_gpus and the model's activations wrong", "llama-2-7b", "planTraining",
     {"task": "full", "nGpus": 0, "seqLen": 512},
     lambda cfg: plan_training(cfg, task="full", seq_len=512, n_gpus=0)),
    ("no tensor parallelism", "llama-2-7b", "planInference",
     {"context": 4096, "batch": 1, "weightFormat": "bf16", "kvFormat": "bf16", "tensorParallel": 0},
     lambda cfg: plan_inference(cfg, context=4096, tensor_parallel=0)),
    ("GPT-2 beyond its learned positions", "gpt2", "activationPeak", [1, 2048, False, {"task": "full"}],
     lambda cfg: activation_memory(cfg, 1, 2048).peak),
    ("a batch of 1.5", "llama-2-7b", "activationPeak", [1.5, 512, False, {"task": "full"}],
     lambda cfg: activation_memory(cfg, 1.5, 512).peak),  # type: ignore[arg-type]
    ("a dropout that is text", "llama-2-7b", "planTraining", {"loraDropout": "0.1"},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, lora_dropout="0.1")),  # type: ignore[arg-type]
    ("a LoRA rank of 0 under full fine-tuning", "llama-2-7b", "planTraining", {"task": "full", "rank": 0},
     lambda cfg: plan_training(cfg, task="full", seq_len=512, rank=0)),
    ("a dropout of 1.5 under full fine-tuning", "llama-2-7b", "planTraining", {"task": "full", "loraDropout": 1.5},
     lambda cfg: plan_training(cfg, task="full", seq_len=512, lora_dropout=1.5)),
    # Controls: refused alike before the fix too.
    ("a negative sequence length", "llama-2-7b", "planTraining", {"seqLen": -5},
     lambda cfg: plan_training(cfg, task="lora", seq_len=-5)),
    ("a micro-batch of 10**20", "llama-2-7b", "planTraining", {"microBatch": 1e20},
     lambda cfg: plan_training(cfg, task="lora", seq_len=512, micro_batch=10**20)),
]

CALL_BAD = """([cases, defaults]) => {
  // Each case through window.LLMPlanner: its refusal's code and name, or what it returned, or the JS error.
  const M = window.LLMModelConfig, P = window.LLMPlanner;
  const presets = JSON.parse(document.querySelector('.calculator[data-calculator="planner"]').dataset.presets);
  const nan = (value) => (value === "NaN" ? NaN : value);  // JSON has no NaN
  return cases.map(([model, name, given]) => {
    const cfg = M.modelConfig(presets[model]);
    try {
      if (name === "activationPeak") return {value: String(P.activationPeak(cfg, ...given.map(nan)))};
      const options = name === "planTraining" ? {...defaults} : {};
      for (const [key, value] of Object.entries(given)) options[key] = nan(value);
      return {value: String(P.planTotal(P[name](cfg, options)))};
    } catch (error) {
      if (!(error instanceof M.LLMCalcError)) return {error: error.name + ": " + error.message};
      return {error: error.code, name: error.params.name === undefined ? null : error.params.name};
    }
  });
}"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_vllm_windows_and_experts_in_the_widget_are_the_clis(language: str, planners: Planners) -> None:
    """Mistral-7B-v0.1 at 32,768 tokens on an H100 by release, and Mixtral on two H100s: pool, concurrency, longest
    max_model_len and the notes on windows and experts, as the CLI's JSON gives them."""
    planner = planners.main(language)
    page, log = planner.page, planner.log
    note = page.locator(f'{ROOT} [data-out="note"]')
    page.locator('select[name="preset"]').select_option("mistral-7b")
    for release in ("0.20+", "before-0.20"):
        cli = cli_plan_json("mistral-7b", "--engine", "vllm", "--gpu", "h100-sxm", "--context", "32768",
                            "--vllm-version", release, "--max-num-batched-tokens", "8192")
        choose(page, task="inference", engine="vllm", gpu="h100-sxm", vllm_version=release, context="32768",
               max_num_batched_tokens="8192")
        if release == "0.20+":
            choose(page, task="inference", cuda_graphs_mib="0", gpu_memory_utilization="92")
        verdict = read(page, "verdict")
        assert f"{cli['kv_tokens']:,}" in verdict and f"{cli['max_concurrency']:.2f}" in verdict, verdict
        assert shown_parts(page)["kv_cache"] == cli["parts"]["kv_cache"]
        assert read(page, "largest").startswith(f"{cli['largest_context']:,}")
        words = note.inner_text()
        if release == "0.20+":
            assert f"{cli['blocks_per_request']:,}" in words and "2,048" in words and "12,287" in words, words
        else:
            assert cli["blocks_per_request"] == 2048 and "12,287" not in words and "4,096" in words, words
    page.locator('select[name="preset"]').select_option("mixtral-8x7b")
    cli = cli_plan_json("mixtral-8x7b", "--engine", "vllm", "--gpu", "h100-sxm", "--context", "32768",
                        "--tensor-parallel", "2", "--max-num-batched-tokens", "8192")
    choose(page, task="inference", engine="vllm", vllm_version="before-0.20", context="32768", tensor_parallel="2")
    assert shown_parts(page)["weights"] == cli["parts"]["weights"]
    assert shown_parts(page)["activations"] == cli["parts"]["profile_peak"]
    assert f"{cli['kv_tokens']:,}" in read(page, "verdict")
    experts = page.locator(ROOT).get_attribute("data-vllm-experts-note")
    assert fill_words(experts, experts="8", active="2") in note.inner_text()
    assert log.errors == [] and log.requests == []


def fill_words(template: str, **values: str) -> str:
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template
