"""The gguf-planner directive: its data from llmcalc.gguf, its labels checked, its list gone where no script runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import llmcalc as lc
from llmcalc import gguf
from sphinxbuild import build, write_tree

REPO = Path(__file__).resolve().parent.parent
CONF = """\
extensions = ["myst_parser", "llmglossary.ggufplanner"]
myst_enable_extensions = ["colon_fence"]
html_static_path = [{static!r}]
project = "GGUF"
author = "Tests"
copyright = "2026, Tests"
version = release = "1.0"
epub_description = "GGUF."
epub_contributor = "Tests"
"""
KEYS = ["file", "context", "ubatch", "cache_k", "cache_v", "flash", "compute_buffer", "gpu", "beyond", "weights",
        "kv_cache", "compute_part", "reserve", "total", "host", "estimated", "summary", "fits", "no_fit",
        "largest_context", "choose",
        "err_not_gguf", "err_version", "err_truncated", "err_huge", "err_malformed", "err_unsupported", "err_flash",
        "err_input", "err_memory", "source", "source_file", "recipe", "imatrix", "ngl", "weights_partial",
        "most_layers", "summary_recipe", "reference_model", "rank_all", "rank_caption", "rank_col_rank",
        "rank_col_card", "rank_col_verdict", "rank_col_headroom", "rank_col_context", "rank_col_change", "rank_fits",
        "rank_no_fit", "rank_host", "swa_full", "kv_cache_full", "kv_cache_swa", "window_not_applied", "parallel",
        "kv_unified", "kv_streams", "llama_server", "server_slots",
        "share_copy", "share_copied", "share_copy_failed", "share_bad", "share_whole", "share_decimal", "share_empty",
        "share_choice", "share_listed", "share_memory", "share_once", "share_fields", "share_model", "share_sort",
        "setting_value", "quoted_choice", "choice_join"]


def page(keys: list[str]) -> str:
    items = "\n".join(f"- {key}: Label <{key}> & {{x}}" for key in keys)
    return f"# GGUF\n\n:::{{gguf-planner}}\nExplanation.\n\n{items}\n:::\n"


def site(tmp_path: Path, keys: list[str], builder: str = "html"):
    write_tree(tmp_path, {"conf.py": CONF.format(static=str(REPO / "docs" / "_static")), "index.md": page(keys)})
    return build(tmp_path, builder=builder)


def test_widget_data_and_labels_come_from_llmcalc_and_the_list(tmp_path: Path) -> None:
    result = site(tmp_path, KEYS)
    assert result.warnings == ""
    soup = BeautifulSoup(result.html("index"), "html.parser")
    root = soup.select_one("[data-gguf-planner]")
    types = json.loads(root["data-types"])
    assert types["12"] == ["Q4_K", 256, 144] and len(types) == len(gguf.GGML_TYPES)
    assert json.loads(root["data-limits"])["chunk"] == gguf.READ_CHUNK
    recipes = json.loads(root["data-recipe-models"])
    assert recipes["recipes"] == list(gguf.RECIPES) and "mixtral-8x7b" not in recipes["models"]
    runs = recipes["plans"]["llama-3-8b|Q4_K_M"][3]  # the layers' bytes, runs of equal ones stored once
    model = gguf.model_from_config(lc.get_preset("llama-3-8b"), "Q4_K_M")
    assert [size for size, count in runs for _ in range(count)] == list(model.layer_bytes)
    # a preset's window and sliding-window layers as llama.cpp keeps them, and llmcalc's rules for a file's header
    assert recipes["models"]["gemma-3-1b"][10:] == [512, "11111011111011111011111011", 0]
    assert recipes["models"]["mistral-7b"][10:] == [0, "", 4096]
    assert json.loads(root["data-swa"]) == {"architectures": {k: list(v) for k, v in gguf.SWA_ARCHITECTURES.items()},
                                            "not_applied": list(gguf.WINDOW_NOT_APPLIED),
                                            "not_modelled": list(gguf.SWA_NOT_MODELLED)}
    labels = json.loads(root["data-labels"])
    assert labels["err_flash"] == "Label <err_flash> & {x}"  # escaped into the attribute, read back intact
    assert soup.find("label", attrs={"for": "gguf-0-context"}).get_text() == "Label <context> & {x}"
    assert not soup.select(".gguf-planner ul")  # the label list became the widget
    scripts = [script.get("src") or "" for script in soup.find_all("script")]
    # The share link registers itself before gguf.js makes the widget (deferred scripts run in document order).
    assert [src.split("?")[0] for src in scripts if "gguf" in src] == ["_static/ggufshare.js", "_static/gguf.js"]
    assert soup.select_one("[data-share-copy]").get_text() == "Label <share_copy> & {x}"


def test_a_missing_or_unknown_key_is_an_error_naming_it(tmp_path: Path) -> None:
    result = site(tmp_path, [*KEYS[1:], "colour"])
    assert "missing: ['file'], unknown: ['colour']" in result.warnings


def test_text_output_keeps_the_explanation_only(tmp_path: Path) -> None:
    result = site(tmp_path, KEYS, builder="text")
    text = (result.outdir / "index.txt").read_text(encoding="utf-8")
    assert "Explanation." in text and "Label" not in text


@pytest.mark.parametrize("builder", ["dirhtml", "singlehtml", "epub", "latex", "man", "texinfo", "gettext"])
def test_every_builder_builds_it_without_a_warning(tmp_path: Path, builder: str) -> None:
    result = site(tmp_path, KEYS, builder=builder)
    assert result.warnings == ""
    text = "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in sorted(result.outdir.rglob("*"))
                     if path.is_file() and path.suffix in {".html", ".xhtml", ".tex", ".1", ".texi", ".pot"})
    assert "Explanation." in text
    widget = "data-gguf-planner" in text
    assert widget == (builder in ("dirhtml", "singlehtml"))
    assert ("Label &lt;file&gt;" in text or "Label <file>" in text) == (builder in ("dirhtml", "singlehtml", "gettext"))
