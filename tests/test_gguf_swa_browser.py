"""The GGUF planner's sliding-window caches in headless Chromium, both languages, against ``llmcalc gguf``.

A gpt-oss header (the keys of the load log in tests/data/llamacpp_runs.json) and the Gemma 3 1B and Mistral 7B
presets: the widget's two caches, its --swa-full checkbox, -ngl, the note on a window llama.cpp does not apply, and
a share link that carries a file's sliding-window layers, each equal to the CLI's JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import page_per_key

pytestmark = [pytest.mark.site, pytest.mark.browser]

REPO = Path(__file__).resolve().parent.parent
PAGE = "19-will-it-fit.html"
LANGUAGES = ("en", "zh_TW")
GPT_OSS = json.loads((REPO / "tests" / "data" / "llamacpp_runs.json").read_text())["swa_logs"][0]["header"]

SET = """async ([options]) => {
  const root = document.querySelector('[data-gguf-planner]');
  const form = root.querySelector('form');
  if (options.source !== undefined) { form.gguf_source.value = options.source; form.gguf_recipe.value = 'Q4_K_M'; }
  form.gguf_context.value = options.context;
  form.gguf_flash.checked = options.flash;
  form.gguf_swa_full.checked = options.swa_full;
  form.gguf_parallel.value = options.parallel || 1;
  form.gguf_kv_unified.checked = options.kv_unified || false;
  form.gguf_ngl.value = options.ngl || '';
  form.gguf_gpu.value = '24';
  form.gguf_gpu.dispatchEvent(new Event('input', {bubbles: true}));
  const text = (name) => {
    const box = root.querySelector(`[data-${name}]`);
    return box.hidden ? null : box.textContent;
  };
  if (root.dataset.state !== 'plan') {
    return {state: root.dataset.state, error: root.querySelector('[data-error]').textContent};
  }
  return {plan: JSON.parse(root.dataset.plan), full: text('kv-full'), swa: text('kv-swa'), note: text('window-note'),
          streams: text('kv-streams'), hash: location.hash};
}"""


def page_uri(language: str) -> str:
    path = REPO / "_build" / "html" / language / PAGE
    assert path.exists(), "run `make html` first"
    return path.as_uri()


def cli(model: str, options: dict[str, Any]) -> dict[str, Any]:
    argv = [sys.executable, "-m", "llmcalc", "gguf", model, "--json", "--context", str(options["context"]),
            "--gpu", "24"]
    argv += ["--recipe", "Q4_K_M"] * (not model.endswith(".gguf")) + ["--flash-attn"] * options["flash"]
    argv += ["--swa-full"] * options["swa_full"] + (["-ngl", str(options["ngl"])] if options.get("ngl") else [])
    argv += ["-np", str(options.get("parallel", 1))] + ["--kv-unified"] * options.get("kv_unified", False)
    result: dict[str, Any] = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)
    return result


def same_plan(got: dict[str, Any], expected: dict[str, Any]) -> None:
    plan = got["plan"]
    parts = {k: v for k, v in plan["parts"].items() if k not in ("total", "estimated", "host")}
    parts["compute_buffer"] = parts.pop("compute_part")
    assert parts == expected["parts"] and plan["total"] == expected["total"]
    assert plan["largest_context"] == expected["largest_context"]
    assert plan["most_gpu_layers"] == expected["most_gpu_layers"]
    assert plan.get("kv_caches") == expected.get("kv_caches")
    assert plan.get("window_not_applied") == expected.get("window_not_applied")


@pytest.fixture(scope="module")
def header_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("gguf")
    from make_gguf_fixtures import write_header_keys  # tools/, on the path in conftest

    return write_header_keys(tmp_path_factory.mktemp("swa") / "gpt-oss-20b-keys.gguf", GPT_OSS)


@pytest.fixture(scope="module")
def tab() -> Iterator[Any]:
    def load(language: str, page: Any, log: Any) -> None:
        page.goto(page_uri(language))

    with page_per_key(on_open=load) as for_language:
        yield for_language


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_files_two_caches_equal_the_cli(tab: Any, language: str, header_file: Path) -> None:
    page, log = tab(language)
    page.set_input_files("[data-gguf-planner] input[type=file]", str(header_file))
    page.wait_for_function("() => !['ready', 'reading'].includes("
                           "document.querySelector('[data-gguf-planner]').dataset.state)")
    for options in ({"context": 131072, "flash": True, "swa_full": False},
                    {"context": 131072, "flash": True, "swa_full": True},
                    {"context": 4096, "flash": False, "swa_full": False, "ngl": 7}):
        got = page.evaluate(SET, [options])
        expected = cli(str(header_file), options)
        same_plan(got, expected)
        swa = expected["kv_caches"][1]
        assert got["swa"] is not None and f"{swa['cells']:,}" in got["swa"] and "{" not in got["swa"]
        assert got["full"] is not None and f"{swa['bytes'] / 2**20:.2f}" in got["swa"]
    # the share link carries the file's sliding-window layers: opened afresh it gives the same plan
    shared = page.evaluate(SET, [{"context": 8192, "flash": True, "swa_full": False}])
    page.goto(page_uri(language) + shared["hash"])
    page.wait_for_function("() => document.querySelector('[data-gguf-planner]').dataset.state === 'plan'")
    again = json.loads(page.evaluate("() => document.querySelector('[data-gguf-planner]').dataset.plan"))
    assert again["kv_caches"] == shared["plan"]["kv_caches"] and again["total"] == shared["plan"]["total"]
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_presets_equal_the_cli(tab: Any, language: str) -> None:
    page, log = tab(language)
    for source, options in (("gemma-3-1b", {"context": 32768, "flash": False, "swa_full": False}),
                            ("gemma-3-1b", {"context": 32768, "flash": False, "swa_full": False, "ngl": 6}),
                            ("gemma-2-9b", {"context": 8192, "flash": True, "swa_full": True}),
                            ("mistral-7b", {"context": 8192, "flash": False, "swa_full": False})):
        got = page.evaluate(SET, [{"source": source, **options}])
        same_plan(got, cli(source, options))
    assert got["note"] is not None and "4,096" in got["note"] and got["swa"] is None  # Mistral 7B's window
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_windows_it_does_not_model_are_refused_by_name(tab: Any, language: str, tmp_path: Path) -> None:
    """As llmcalc.gguf.gguf_model refuses them: OLMo 2 with a window, Llama 4 with or without one, a gpt-oss file
    without its (required) window."""
    pytest.importorskip("gguf")
    from make_gguf_fixtures import write_header_keys  # tools/, on the path in conftest

    from llmcalc import gguf as lg

    page, log = tab(language)
    base = {"block_count": 4, "context_length": 4096, "embedding_length": 64, "feed_forward_length": 128,
            "attention.head_count": 4, "attention.head_count_kv": 2}
    for arch, window in (("olmo2", 4096), ("llama4", None), ("gpt-oss", None)):
        keys = {"general.architecture": arch, **{f"{arch}.{k}": v for k, v in base.items()}}
        if window:
            keys[f"{arch}.attention.sliding_window"] = window
        path = write_header_keys(tmp_path / f"{arch}.gguf", keys)
        with pytest.raises(lg.GgufError):
            lg.gguf_model(lg.read_gguf_header(path))
        page.set_input_files("[data-gguf-planner] input[type=file]", str(path))
        page.wait_for_function("() => document.querySelector('[data-gguf-planner]').dataset.state === "
                               "'err_unsupported'")
        message = page.evaluate("() => document.querySelector('[data-gguf-planner] [data-error]').textContent")
        assert f"{arch}.attention.sliding_window" in message, message
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_parallel_sequences_equal_the_cli(tab: Any, language: str, header_file: Path) -> None:
    """-np with and without --kv-unified: the caches (cells per stream, streams), the totals, the longest context and
    the share link equal llmcalc gguf's; a number of sequences outside 1-256 is refused by name."""
    page, log = tab(language)
    page.set_input_files("[data-gguf-planner] input[type=file]", str(header_file))
    page.wait_for_function("() => !['ready', 'reading'].includes("
                           "document.querySelector('[data-gguf-planner]').dataset.state)")
    for options in ({"context": 131072, "flash": True, "swa_full": False, "parallel": 4, "kv_unified": True},
                    {"context": 131072, "flash": True, "swa_full": False, "parallel": 4},
                    {"context": 4096, "flash": False, "swa_full": False, "parallel": 3, "ngl": 7}):
        got = page.evaluate(SET, [options])
        expected = cli(str(header_file), options)
        same_plan(got, expected)
        assert got["plan"]["host_total"] == expected["host"]["total"]  # a row of logits for each sequence
        streams = expected["kv_caches"][0]["streams"]
        assert (got["streams"] is None) == (streams == 1)
        if streams > 1:
            assert str(streams) in got["streams"] and "{" not in got["streams"]
    page.goto(page_uri(language) + got["hash"])
    page.wait_for_function("() => document.querySelector('[data-gguf-planner]').dataset.state === 'plan'")
    again = json.loads(page.evaluate("() => document.querySelector('[data-gguf-planner]').dataset.plan"))
    assert again["kv_caches"] == got["plan"]["kv_caches"] and again["total"] == got["plan"]["total"]
    refused = page.evaluate(SET, [{"source": "gemma-3-1b", "context": 4096, "flash": False, "swa_full": False,
                                   "parallel": 257}])
    assert refused["state"] == "err_input" and "256" in refused["error"], refused
    assert log.errors == [] and log.requests == []
