"""The GGUF planner's recipes (PL-12) and partial offload (``-ngl``) in headless Chromium, both languages.

The oracle is ``llmcalc gguf MODEL --recipe R [-ngl N] --json``: the widget must offer every recipe and every preset
the CLI plans (and no other), and give the CLI's plan, its host memory and the most layers that fit.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from test_gguf_browser import DATA, LANGUAGES, choose, page_uri

from browser import page_per_key
from llmcalc import gguf as lg
from llmcalc.presets import PRESETS

pytestmark = [pytest.mark.site, pytest.mark.browser]

# (model or .gguf file, recipe, imatrix, -ngl, GPU memory)
CASES = [
    ("llama-3-8b", "Q4_K_M", False, "16", "4"),
    ("llama-2-7b", "Q2_K", False, "", "24"),
    ("qwen2.5-7b", "Q3_K_S", False, "20", "6"),
    ("llama-3.1-70b", "Q4_K_S", False, "43", "24"),
    ("mistral-7b", "IQ4_XS", True, "33", "8"),
    ("reference", "Q5_1", False, "0", "1"),
    ("tiny-llama-Q4_0.gguf", None, False, "2", "0.01"),
]


@functools.cache
def cli(model: str, recipe: str | None, imatrix: bool, ngl: str, gpu: str) -> dict[str, Any]:
    source = str(DATA / model) if model.endswith(".gguf") else model
    argv = [sys.executable, "-m", "llmcalc", "gguf", source, "--json", "--context", "4096", "--gpu", gpu]
    argv += ["--recipe", recipe] if recipe else []
    argv += ["--imatrix"] * imatrix + (["-ngl", ngl] if ngl else [])
    result = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
    return {"parts": result["parts"], "total": result["total"], "fits": result["fits"],
            "largest_context": result["largest_context"], "host_total": result["host"]["total"],
            "n_gpu_layers": result.get("n_gpu_layers"), "most_gpu_layers": result["most_gpu_layers"]}


SET = """async ([source, recipe, imatrix, ngl, gpu]) => {
  const root = document.querySelector('[data-gguf-planner]');
  const form = root.querySelector('form');
  form.gguf_context.value = '4096'; form.gguf_ubatch.value = '512';
  form.gguf_cache_k.value = 'f16'; form.gguf_cache_v.value = 'f16'; form.gguf_flash.checked = false;
  form.gguf_compute_buffer.value = ''; form.gguf_beyond.checked = false;
  if (source !== null) form.gguf_source.value = source;
  if (recipe !== null) form.gguf_recipe.value = recipe;
  form.gguf_imatrix.checked = imatrix; form.gguf_ngl.value = ngl; form.gguf_gpu.value = gpu;
  form.gguf_gpu.dispatchEvent(new Event('input', {bubbles: true}));
  const plan = root.dataset.plan ? JSON.parse(root.dataset.plan) : null;
  return {state: root.dataset.state, plan, most: root.querySelector('[data-most-layers]').textContent,
          summary: root.querySelector('[data-summary]').textContent};
}"""


@pytest.fixture(scope="module")
def tab() -> Iterator[Any]:
    def load(language: str, page: Any, log: Any) -> None:
        page.goto(page_uri(language))
        assert log.errors == [] and log.requests == []

    with page_per_key(on_open=load) as for_language:
        yield for_language


def planned_presets() -> list[str]:
    """The presets ``llmcalc gguf --recipe`` plans (it refuses the others)."""
    names = []
    for name, cfg in PRESETS.items():
        try:
            lg.recipe_tensor_types(cfg, "Q8_0")
        except ValueError:
            continue
        names.append(name)
    return names


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widget_offers_the_cli_s_recipes_and_presets(tab: Any, language: str) -> None:
    page, log = tab(language)
    values = "options => options.map(option => option.value)"
    recipes = page.eval_on_selector_all("[data-gguf-planner] select[name=gguf_recipe] option", values)
    sources = page.eval_on_selector_all("[data-gguf-planner] select[name=gguf_source] option", values)
    assert recipes == list(lg.RECIPES)
    assert {"Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q5_K_S", "Q4_1", "Q5_0", "Q5_1"} <= set(recipes)
    assert sources == ["", *planned_presets()]
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_recipes_and_partial_offload_in_the_widget_are_the_cli_s(tab: Any, language: str) -> None:
    page, log = tab(language)
    for model, recipe, imatrix, ngl, gpu in CASES:
        if recipe is None:
            choose(page, DATA / model)
            got = page.evaluate(SET, [None, None, imatrix, ngl, gpu])
        else:
            got = page.evaluate(SET, [model, recipe, imatrix, ngl, gpu])
            assert got["summary"].startswith(model) and recipe in got["summary"]
        assert got["state"] == "plan", (model, recipe)
        plan = got["plan"]
        parts = {k: v for k, v in plan["parts"].items() if k not in ("total", "estimated", "host")}
        parts["compute_buffer"] = parts.pop("compute_part")
        assert {"parts": parts, "total": plan["total"], "fits": plan["fits"],
                "largest_context": plan["largest_context"], "host_total": plan["host_total"],
                "n_gpu_layers": plan["n_gpu_layers"], "most_gpu_layers": plan["most_gpu_layers"]} == cli(
            model, recipe, imatrix, ngl, gpu), (model, recipe, ngl)
        assert str(plan["most_gpu_layers"]) in got["most"] and "{" not in got["most"]
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bad_layer_count_is_refused_in_the_page_s_words(tab: Any, language: str) -> None:
    page, log = tab(language)
    got = page.evaluate(SET, ["llama-3-8b", "Q4_0", False, "-3", "24"])
    assert got["state"] == "err_input"
    assert "{" not in page.evaluate("() => document.querySelector('[data-gguf-planner] [data-error]').textContent")
    assert log.errors == [] and log.requests == []

