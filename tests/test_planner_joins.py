"""Page 19's planner joins what it builds in the page's language: zh_TW lists with 「、」 and sets sentences end to end
after 「。」, where English keeps ", " and " "; a setting's yes or no and a model type in the page's words.

Loaded in headless Chromium from the built site (``make html``).  The separators and words each language expects are
written here by hand (Taiwanese running text enumerates with the ideographic comma and puts no space after a
full-width stop), not read from the page, so a widget that joins with English punctuation fails in zh_TW; the English
text is the one the widget showed before the separators became the page's (", " and " ", as ``llmcalc plan`` joins).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_planner import LANGUAGES, ROOT, ROW_NAME, Planners, choose, expect_text, planners, read, set_up

import llmcalc as lc
from llmcalc.checkpoints import checkpoint_from_hf
from llmcalc.engines import VLLM_MXFP4_CARDS
from llmcalc.lora import default_lora_targets
from llmcalc.planner import gpu_memory
from llmcalc.weightformats import kept_linear_modules

pytestmark = [pytest.mark.site, pytest.mark.browser]

__all__ = ["planners"]  # the shared pages' fixture, used by name
GPT_OSS = Path(__file__).resolve().parent / "data" / "hub_configs" / "gpt-oss-20b.json"

LIST = {"en": ", ", "zh_TW": "、"}
SENTENCES = {"en": " ", "zh_TW": ""}
# Hopper's cards as the card refusal names them, in the page's parentheses.
CARDS = {"en": "(" + ", ".join(VLLM_MXFP4_CARDS) + ")", "zh_TW": "（" + "、".join(VLLM_MXFP4_CARDS) + "）"}
# The refusal of gpt-oss without the hybrid KV-cache manager (vLLM before 0.20): the setting and the model type.
SINKS = {"en": ("hybrid KV cache False", '(model_type "gpt_oss")'),
         "zh_TW": ("混合 KV 快取關閉", "（model_type 為「gpt_oss」）")}
# What comes between the embedding, norms and biases and the linear layers also kept in 16 bits.
KEPT = {"en": "; ", "zh_TW": "，以及 "}


def filled(template: str, **values: str) -> str:
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


@pytest.mark.parametrize("language", LANGUAGES)
def test_gpt_oss_s_refusals_and_notes_join_in_the_page_s_language(language: str, planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    root = page.locator(ROOT)
    checkpoint = checkpoint_from_hf(GPT_OSS)
    page.locator('input[name="config_file"]').set_input_files(str(GPT_OSS))
    expect_text(page, "params", f"{lc.param_count(checkpoint.config):,}")
    page.locator('select[name="gpu"]').select_option("rtx-4090")
    choose(page, task="inference", engine="vllm", tensor_parallel="1", context="8192", vllm_version="before-0.20")
    error = page.locator(f'{ROOT} [data-error="plan"]')
    assert error.is_visible() and CARDS[language] in error.inner_text(), error.inner_text()
    # On a Hopper card, before vLLM 0.20: no hybrid KV-cache manager, said in words, and the model type quoted.
    page.locator('select[name="gpu"]').select_option("h100-sxm")
    setting, model_type = SINKS[language]
    assert setting in error.inner_text() and model_type in error.inner_text(), error.inner_text()
    choose(page, task="inference", engine="vllm", vllm_version="0.20+")
    assert not error.is_visible()
    # The notes, sentence after sentence: vLLM's on the MXFP4 experts and on CUDA graphs (none given), then how the
    # checkpoint stores the weights.
    note = read(page, "note")
    kept = [name if kept == total else filled(root.get_attribute("data-kept-some"), module=name, kept=f"{kept:,}",
                                                all=f"{total:,}")
            for name, kept, total in kept_linear_modules(checkpoint.config, checkpoint.weight_format)]
    assert kept, "gpt-oss keeps its attention in 16 bits"
    weights = filled(root.get_attribute("data-weights-note"),
                     how=filled(root.get_attribute("data-weights-checkpoint"), method="mxfp4"),
                     kept=KEPT[language] + LIST[language].join(kept))
    sentences = [root.get_attribute(f"data-vllm-{name}-note") for name in ("mxfp4", "graphs")] + [weights]
    assert note.endswith(SENTENCES[language].join(sentences)), note
    if language == "zh_TW":
        assert "。 " not in note and ", " not in note and "; " not in note, note
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_targets_cards_and_a_per_gpu_heading_join_in_the_page_s_language(language: str, planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    # peft's default targets for Llama 2, listed in the note.
    set_up(page, {"task": "lora", "preset": "llama-2-7b", "targets": "default", "seq_len": "512",
                  "gpu": "rtx-4090", "gpu_compare": "h100-nvl"})
    targets = default_lora_targets(lc.get_preset("llama-2-7b"))
    assert len(targets) > 1 and LIST[language].join(targets) in read(page, "note"), read(page, "note")
    # The chart's text names both cards, as a list.
    desc = page.locator(f"{ROOT} svg desc").text_content()
    assert f" GiB{LIST[language]}" in desc, desc
    # The per-GPU heading before the verdict: a space after an English colon, none after a full-width one.
    set_up(page, {"task": "inference", "engine": "sum", "tensor_parallel": "2", "gpu_compare": ""})
    heading = filled(page.locator(ROOT).get_attribute("data-per-gpu-busiest"), gpus="2", tp="2", pp="1")
    assert read(page, "verdict").startswith(heading + SENTENCES[language]), read(page, "verdict")
    assert log.errors == [] and log.requests == []


# A name and its value, two such pairs, and a note in parentheses, as each language sets them: English ": ", "; " and
# " (…)", Taiwanese running text the full-width 「：」, 「；」 and 「（…）」 with no space around them.
PAIR = {"en": "{name}: {value}", "zh_TW": "{name}：{value}"}
PAIRS = {"en": "; ", "zh_TW": "；"}
ASIDE = {"en": " ({text})", "zh_TW": "（{text}）"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_chart_s_cards_and_the_bar_s_name_join_in_the_page_s_language(language: str, planners: Planners) -> None:
    """The compared cards' names, the chart's text line of each card's memory and the memory bar's accessible name.

    Each card's memory is llmcalc's (``gpu_memory``, the bytes a process sees), in GiB to two places; the card's name
    is the one its option shows.  In zh_TW the old widget wrote 「RTX 4090: 23.64 GiB; H100 NVL: …」, 「RTX 4090 (23.64
    GiB)」 and a bar named 「總計 … GiB (權重 …)」."""
    planner = planners.main(language)
    page, log = planner.page, planner.log
    set_up(page, {"task": "inference", "preset": "llama-2-7b", "gpu": "rtx-4090", "gpu_compare": "h100-nvl"})
    names = {key: page.locator(f'{ROOT} select[name="gpu"] option[value="{key}"]').text_content().strip()
             for key in ("rtx-4090", "h100-nvl")}
    memory = {key: f"{gpu_memory(key) / 2**30:.2f} GiB" for key in names}
    compared = page.locator(f"{ROOT} .planner-compare-name").all_text_contents()
    assert compared == [names[key] + filled(ASIDE[language], text=memory[key]) for key in names], compared
    line = page.locator(f'{ROOT} [data-out="chart"] details > p').text_content()
    assert line == PAIRS[language].join(filled(PAIR[language], name=names[key], value=memory[key]) for key in names)
    bar = page.locator(f"{ROOT} .planner-bar").get_attribute("aria-label")
    opening, closing = ASIDE[language].split("{text}")
    weights = page.evaluate(ROW_NAME, [ROOT, "weights"])
    assert f" GiB / {memory['rtx-4090']}{opening}{weights} " in bar and bar.endswith(closing), bar
    if language == "zh_TW":  # the cards' names are llmcalc's, in English ("RTX 4090 (24 GB): 24,564 MiB")
        joined = "".join([line, bar, *compared])
        for name in names.values():
            joined = joined.replace(name, "")
        assert not any(mark in joined for mark in ("(", ")", ": ", "; ")), (line, bar, compared)
    assert log.errors == [] and log.requests == []

