"""The GGUF planner on page 19 in headless Chromium, both languages, against llmcalc.gguf.

Real .gguf files (the committed ones and K/IQ ones the gguf package writes) and broken copies go
through the widget's file picker; each plan must equal ``llmcalc gguf``'s (the CLI's JSON), each
broken file must be refused with the matching message, and the page must read no more than the
header and one slice.
"""

from __future__ import annotations

import functools
import json
import struct
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import PageLog, page_per_key
from llmcalc import MiB
from llmcalc import gguf as lg

pytestmark = [pytest.mark.site, pytest.mark.browser]

REPO = Path(__file__).resolve().parent.parent
PAGE = "19-will-it-fit.html"
DATA = REPO / "tests" / "data" / "gguf"
LANGUAGES = ("en", "zh_TW")
OPTION_SETS = [
    {"context": "4096", "ubatch": "512", "cache_k": "f16", "cache_v": "f16", "flash": False, "compute": "",
     "gpu": "24"},
    {"context": "1000", "ubatch": "512", "cache_k": "q8_0", "cache_v": "q4_0", "flash": True, "compute": "560.25",
     "gpu": "0.5"},
    {"context": "70000", "ubatch": "2048", "cache_k": "q4_0", "cache_v": "f16", "flash": False, "compute": "",
     "gpu": "600 MiB", "beyond": True},
    {"context": "2048", "ubatch": "256", "cache_k": "f16", "cache_v": "q8_0", "flash": False, "compute": "",
     "gpu": "24"},
    {"context": "8192", "ubatch": "1024", "cache_k": "q8_0", "cache_v": "q8_0", "flash": True, "compute": "",
     "gpu": "0.6"},
]


def page_uri(language: str) -> str:
    path = REPO / "_build" / "html" / language / PAGE
    assert path.exists(), "run `make html` first"
    return path.as_uri()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    pytest.importorskip("gguf")
    sys.path.insert(0, str(REPO / "tools"))
    from make_gguf_fixtures import tiny_llama, write_gguf

    folder = tmp_path_factory.mktemp("gguf")
    paths = sorted(DATA.glob("*.gguf"))
    for recipe in ("Q4_K_M", "IQ4_XS"):
        path = folder / f"tiny-{recipe}.gguf"
        write_gguf(path, tiny_llama(d_model=256, n_layers=4), recipe)
        paths.append(path)
    return paths


def cli(path: Path, options: dict[str, object]) -> dict[str, object]:
    """``llmcalc gguf``'s answer for a file and a set of options, run once per module for both languages."""
    return _cli(path, json.dumps(options, sort_keys=True))


@functools.cache
def _cli(path: Path, options_json: str) -> dict[str, object]:
    options = json.loads(options_json)
    argv = [sys.executable, "-m", "llmcalc", "gguf", str(path), "--json", "--context", str(options["context"]),
            "--ubatch", str(options["ubatch"]),
            "--cache-type-k", str(options["cache_k"]), "--cache-type-v", str(options["cache_v"]),
            "--gpu", str(options["gpu"])]
    argv += ["--flash-attn"] * bool(options["flash"]) + ["--beyond-trained-context"] * bool(options.get("beyond"))
    if options["compute"]:
        argv += ["--compute-buffer", str(options["compute"])]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr}
    result = json.loads(done.stdout)
    return {"parts": result["parts"], "total": result["total"], "fits": result["fits"],
            "largest_context": result["largest_context"],
            "compute_buffer_estimated": result["compute_buffer_estimated"], "host_total": result["host"]["total"]}


WIDGET = """async ([options]) => {
  const root = document.querySelector('[data-gguf-planner]');
  const form = root.querySelector('form');
  form.gguf_context.value = options.context; form.gguf_ubatch.value = options.ubatch;
  form.gguf_cache_k.value = options.cache_k;
  form.gguf_cache_v.value = options.cache_v;
  form.gguf_flash.checked = options.flash; form.gguf_compute_buffer.value = options.compute;
  form.gguf_gpu.value = options.gpu;
  form.gguf_beyond.checked = Boolean(options.beyond);
  form.gguf_gpu.dispatchEvent(new Event('input', {bubbles: true}));
  const error = root.querySelector('[data-error]');
  return {state: root.dataset.state, plan: root.dataset.plan ? JSON.parse(root.dataset.plan) : null,
          error: error.hidden ? null : error.textContent, bytesRead: root.dataset.bytesRead,
          largest: root.querySelector('[data-largest]').textContent};
}"""


def choose(page: object, path: Path) -> None:
    page.set_input_files("[data-gguf-planner] input[type=file]", str(path))  # type: ignore[attr-defined]
    page.wait_for_function("() => !['ready', 'reading'].includes("  # type: ignore[attr-defined]
                           "document.querySelector('[data-gguf-planner]').dataset.state)")


Tab = Callable[[str], tuple[Any, PageLog]]


@pytest.fixture(scope="module")
def tab() -> Iterator[Tab]:
    """Page 19 of each language, loaded once (one browser context) for the module's tests.

    A new context and its first load of the planner page cost far more than the checks.
    The broken-files test runs first, on the page as loaded; the comparison with the CLI
    then sets every option and chooses every file it reads, so what came before cannot
    change its answers.
    """

    def load(language: str, page: Any, log: PageLog) -> None:
        page.goto(page_uri(language))
        assert log.errors == [] and log.requests == []

    with page_per_key(on_open=load) as for_language:
        yield for_language


def _broken(folder: Path) -> dict[str, tuple[Path, str]]:
    data = (DATA / "tiny-llama-Q4_0.gguf").read_bytes()
    cases = {
        "not_gguf": (b"PK\x03\x04" + data[4:], "err_not_gguf"),
        "newer": (data[:4] + struct.pack("<I", 4) + data[8:], "err_version"),
        "huge_tensors": (data[:8] + struct.pack("<Q", 2**40) + data[16:], "err_huge"),
        "huge_string": (data[:24] + struct.pack("<Q", 2**60) + data[32:], "err_truncated"),
        "cut_header": (data[:100], "err_truncated"),
        "cut_data": (data[:-10], "err_truncated"),
        "empty": (b"", "err_truncated"),
    }
    out = {}
    for name, (content, code) in cases.items():
        path = folder / f"{name}.gguf"
        path.write_bytes(content)
        with pytest.raises(lg.GgufError):
            lg.read_gguf_header(path)  # Python refuses each too
        out[name] = (path, code)
    return out


@pytest.mark.parametrize("language", LANGUAGES)
def test_broken_files_get_their_message_from_the_header_alone(tab: Tab, language: str, tmp_path: Path) -> None:
    header = (DATA / "tiny-llama-Q4_0.gguf").read_bytes()
    end = lg.read_gguf_header(DATA / "tiny-llama-Q4_0.gguf").data_offset
    big = tmp_path / "big.gguf"
    with big.open("wb") as stream:  # the header in front of 256 MiB of (sparse) tensor data
        stream.write(header[:end])
        stream.truncate(end + 256 * MiB)
    page, log = tab(language)
    for name, (path, code) in _broken(tmp_path).items():
        choose(page, path)
        state = page.evaluate("() => document.querySelector('[data-gguf-planner]').dataset.state")
        message = page.evaluate("() => document.querySelector('[data-gguf-planner] [data-error]').textContent")
        assert state == code, name
        assert message and "{" not in message
    choose(page, big)
    read = int(page.evaluate("() => document.querySelector('[data-gguf-planner]').dataset.bytesRead"))
    assert read <= lg.READ_CHUNK
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_widget_equals_the_cli_on_real_files(tab: Tab, language: str, files: list[Path]) -> None:
    checked = 0
    page, log = tab(language)
    for path in files:
        choose(page, path)
        for options in OPTION_SETS:
            expected = cli(path, options)
            got = page.evaluate(WIDGET, [options])
            if "error" in expected:
                assert "flash attention" in expected["error"] and got["state"] == "err_flash", (path, options)
            else:
                plan = got["plan"]
                parts = {k: v for k, v in plan["parts"].items() if k not in ("total", "estimated", "host")}
                parts["compute_buffer"] = parts.pop("compute_part")
                assert {"parts": parts, "total": plan["total"], "fits": plan["fits"],
                        "largest_context": plan["largest_context"],
                        "compute_buffer_estimated": plan["compute_buffer_estimated"],
                        "host_total": plan["host_total"]} == expected, (path, options)
                # No space after a full-width colon (the 2026-12-07 zh_TW review saw 「上下文： 4,096」).
                separator = {"en": ": ", "zh_TW": "："}[language]
                assert got["largest"].endswith(f"{separator}{plan['largest_context']:,}"), got["largest"]
            checked += 1
    assert checked == len(files) * len(OPTION_SETS)
    assert log.errors == [] and log.requests == []
