"""vLLM's batch speed estimate: decode rates, time to first token and cost, as ``llmcalc speed --engine vllm``.

The directive ``vllm-speed-estimate`` holds MyST content, translated through the page's ``.po``:
explanation paragraphs, then one bullet list of ``key: label`` items (the keys are :data:`LABELS`).
In HTML the list becomes the widget (``static/vllmspeed.js`` gives it its behaviour, with the number
formatting of ``static/plannerspeed.js``); other builders keep the explanation only, and the message
catalog builder the list too, so it is extracted for translation.  Every number the script needs (each
estimable preset's bytes and FLOPs, each card's datasheet figures and the planner's KV pool for each
preset, the fitted constants, the measured range and the held-out error) is computed by
:mod:`llmcalc.vllmspeed` at build time into ``data-*`` attributes; the script does only the arithmetic
of :func:`llmcalc.vllmspeed.estimate_vllm_speed`.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from docutils import nodes

from .calculators.html import preset_options
from .ggufplanner import LabelListDirective, holds_widget, replace_label_lists
from .speedestimate import FormControls, derived_inputs

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

LABELS = (
    "model", "reference_model", "hardware", "batch", "prompt", "generated", "price", "summary", "setting", "decode",
    "ttft", "cost", "basis", "error", "percent", "note_batch", "note_context_tokens", "note_weight_bytes",
    "note_hardware", "note_compute", "note_prefill", "derived_bandwidth", "derived_peak", "err_input", "err_price",
    "err_context", "err_preempted",
)
"""Label keys, each given once.  Templates: ``summary`` takes ``{model}`` and ``{hardware}``; ``setting``
``{batch}``, ``{prompt}`` and ``{generated}``; ``decode`` ``{rate}`` and ``{aggregate}``; ``ttft`` ``{ms}``;
``cost`` ``{cost}`` and ``{price}``; ``basis`` ``{weights}``, ``{kv}``, ``{bandwidth_share}``, ``{bandwidth}``,
``{compute_share}``, ``{prefill_share}``, ``{peak}``, ``{step}``, ``{pool}``; ``error`` ``{error}`` (written by
``percent`` ``{value}``) and ``{runs}``; ``derived_bandwidth`` ``{bandwidth}``, ``{bits}``, ``{gbps}`` and
``derived_peak`` ``{peak}``, ``{sms}``, ``{mhz}``, ``{per_sm}``, ``{whitepaper}`` (a card whose figures are derived);
``err_input`` ``{label}``, ``{min}``, ``{max}``; ``err_price`` ``{label}``; ``err_context`` ``{context}`` and
``{limit}``; ``err_preempted`` ``{hardware}``, ``{pool}``, ``{fits}``, ``{context}``, ``{batch}``."""
CLASS = "vllm-speed-estimate"
MAX_TOKENS = 2**20
"""The largest prompt or generation the widget takes, as :func:`llmcalc.vllmspeed.estimate_vllm_speed` does."""
MAX_BATCH = 1024
"""The largest batch, as :func:`llmcalc.vllmspeed.estimate_vllm_speed` takes it."""
MAX_PRICE = 1e6
"""The largest price per GPU-hour, as :func:`llmcalc.speed.cost_per_million_tokens` takes it."""


class VllmSpeedEstimateDirective(LabelListDirective):
    """Explanation paragraphs, then one bullet list of ``key: label`` items (:data:`LABELS`)."""

    css_class = CLASS
    labels = LABELS
    list_class = "vllm-speed-labels"


def speed_basis() -> dict[str, Any]:
    """What the estimate stands on, model aside: each card vLLM's estimate takes and its datasheet figures, the
    fitted constants, the measured range and the held-out error (this widget's and the planner's ranking's)."""
    from llmcalc.datasheets import DATASHEETS, datasheet, memory_bandwidth, tensor_flops
    from llmcalc.engines import VLLM_MAX_NUM_BATCHED_TOKENS
    from llmcalc.errors import Refusal
    from llmcalc.vllmspeed import (
        VLLM_CONSTANTS,
        VLLM_MEASURED_RANGE,
        held_out_vllm_comparison,
        independent_check,
        nvidia_card,
        vllm_median_error,
    )

    cards = []
    for key in DATASHEETS:
        try:
            cards.append(nvidia_card(key))
        except Refusal:
            continue  # AMD, or no FP16 tensor rate: refused by name in the CLI
    measured = VLLM_MEASURED_RANGE
    independent = [error for run, _estimate, error in independent_check() if not run.prompts_cached]
    return {
        "hardware": {card: {"bandwidth": memory_bandwidth(card), "peak": tensor_flops(card, "fp16"),
                            "derived": derived_inputs(datasheet(card).bandwidth, datasheet(card).fp16)}
                     for card in cards},
        "constants": {"bandwidth_share": VLLM_CONSTANTS.bandwidth_share,
                      "compute_share": VLLM_CONSTANTS.compute_share, "step_seconds": VLLM_CONSTANTS.step_seconds,
                      "prefill_share": VLLM_CONSTANTS.prefill_share},
        "batched_tokens": VLLM_MAX_NUM_BATCHED_TOKENS,
        "range": {"batch": measured.batch, "context_tokens": measured.context_tokens,
                  "weight_bytes": list(measured.weight_bytes), "hardware": list(measured.hardware)},
        "error": vllm_median_error(), "runs": len(held_out_vllm_comparison()),
        "independent": {"runs": len(independent), "low": min(independent), "high": max(independent)},
        "limits": {"tokens": MAX_TOKENS, "batch": MAX_BATCH, "price": MAX_PRICE},
    }


def ranking_speed_data() -> dict[str, Any]:
    """The planner's all-cards ranking's speed data: :func:`speed_basis`, and for each listed card the estimate
    refuses, the refusal's code and parameters (``llmcalc.vllmspeed.nvidia_card``'s, as the CLI's rows say) and,
    for a card without datasheet figures, the label of the footnote ``llmcalc.ranking.speed_table`` gives it."""
    from llmcalc.errors import Refusal
    from llmcalc.planner import CARDS
    from llmcalc.vllmspeed import nvidia_card

    refused = {}
    for card in CARDS:
        try:
            nvidia_card(card.key)
        except Refusal as error:
            refused[card.key] = {"code": error.code, "params": dict(error.params)}
            if error.code == "no_datasheet_figures":  # the CLI's one footnote for them all, not the list of cards
                refused[card.key]["footnote"] = "rank_no_datasheet"
    return {**speed_basis(), "refused": refused}


def widget_data() -> dict[str, Any]:
    """What the script computes with: presets, cards and their pools, constants and errors, from llmcalc."""
    from llmcalc import get_preset
    from llmcalc.engines import VLLM_MAX_NUM_BATCHED_TOKENS
    from llmcalc.errors import Refusal
    from llmcalc.flops import matmul_params
    from llmcalc.memory import kv_cache_bytes_per_token
    from llmcalc.planner import context_limit
    from llmcalc.presets import PRESETS
    from llmcalc.vllmspeed import estimate_vllm_speed, pool_tokens

    basis = speed_basis()
    models = {}
    for name in PRESETS:
        cfg = get_preset(name)
        try:
            estimate_vllm_speed(cfg, "h100-sxm", batch=1, prompt_tokens=1, generated_tokens=2)
        except Refusal as refused:
            if refused.code == "vllm_speed_model_unmeasured":
                continue  # a mixture of experts or a sliding window
        models[name] = {"weights": 2 * matmul_params(cfg), "kv": kv_cache_bytes_per_token(cfg, "fp16"),
                        "matmul": matmul_params(cfg), "layers": cfg.n_layers, "width": cfg.n_heads * cfg.head_dim,
                        "limit": context_limit(cfg),
                        "pools": {card: pool_tokens(cfg, card, 1, VLLM_MAX_NUM_BATCHED_TOKENS)
                                  for card in basis["hardware"]}}
    return {"models": models, **basis}


def _widget(labels: dict[str, str], serial: int) -> str:
    e = html.escape
    data = widget_data()
    payload = e(json.dumps(data, separators=(",", ":")))
    messages = e(json.dumps(labels, ensure_ascii=False, separators=(",", ":")))
    controls = FormControls(labels, f"vllm-speed-{serial}", "vllm")
    return (
        f'<div class="speed-widget" data-vllm-speed-estimate data-speed="{payload}" data-labels="{messages}">'
        '<form class="calc-form" onsubmit="return false">'
        + controls.select("model", preset_options(data["models"], labels), "llama-3-8b")
        + controls.select("hardware", [(key, key) for key in data["hardware"]], "h100-sxm")
        + controls.number("batch", 16, MAX_BATCH) + controls.number("prompt", 1024, MAX_TOKENS)
        + controls.number("generated", 256, MAX_TOKENS) + controls.text("price")
        + '</form><p class="calc-error" role="alert" data-error hidden></p>'
        '<div role="status" aria-live="polite" data-result></div></div>'
    )


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In HTML, the label list becomes the widget; elsewhere it goes, except for the catalog builder."""
    replace_label_lists(app, doctree, CLASS, _widget)


def add_script(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
               doctree: nodes.document | None) -> None:
    if holds_widget(app, doctree, CLASS):
        app.add_js_file("plannerspeed.js", defer="defer")  # its number formatting, shared with this widget
        app.add_js_file("vllmspeed.js", defer="defer")
        app.add_css_file("calculators.css")  # the calc-* field styles


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_directive("vllm-speed-estimate", VllmSpeedEstimateDirective)
    app.connect("doctree-resolved", resolve)
    app.connect("html-page-context", add_script)
    return {"version": "1.0", "env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}
