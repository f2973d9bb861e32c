"""The speed estimate: llama.cpp's decode rate, time to first token and cost, as ``llmcalc speed`` gives them.

The directive ``speed-estimate`` holds MyST content, translated through the page's ``.po`` like
everything else: explanation paragraphs, then one bullet list of ``key: label`` items (the keys are
:data:`LABELS`).  In HTML the list becomes the widget (``static/plannerspeed.js`` gives it its behaviour);
other builders keep the explanation only, and the message catalog builder the list too,
so it is extracted for translation.  Every number the script needs (each preset's bytes and FLOPs
per format, each card's datasheet figures, the fitted constants and the held-out errors) is
computed by :mod:`llmcalc.speed` at build time into ``data-*`` attributes; the script does only the
arithmetic of :func:`llmcalc.speed.estimate_speed`.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from docutils import nodes

from .calculators.html import preset_options
from .ggufplanner import LabelListDirective, holds_widget, replace_label_lists

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

LABELS = (
    "model", "reference_model", "format", "hardware", "prompt", "generated", "price", "engine_cuda", "engine_metal",
    "summary", "setting", "decode", "ttft", "ttft_none", "cost", "basis", "basis_prefill", "basis_unpack", "error",
    "percent", "note_prompt_tokens", "note_context_tokens", "note_min_weight_bytes", "note_decode_ceiling",
    "note_prefill_ceiling", "note_unpack", "note_derived", "derived_bandwidth", "derived_peak", "err_input",
    "err_price", "one_sequence",
)
"""Label keys, each given once.  Templates: ``summary`` takes ``{model}``, ``{format}``, ``{hardware}``,
``{engine}``; ``setting`` ``{prompt}`` and ``{generated}``; ``decode`` ``{rate}``; ``ttft`` ``{ms}`` and
``{rate}``; ``ttft_none`` ``{hardware}``; ``cost`` ``{cost}`` and ``{price}``; ``basis`` ``{weights}``,
``{kv}``, ``{efficiency}``, ``{bandwidth}``; ``basis_prefill`` ``{tflops}``, ``{efficiency}``, ``{peak}``,
``{ceiling}``; ``basis_unpack`` ``{gigabytes}``; ``error`` ``{decode}`` and ``{prefill}``, each written by
``percent`` ``{value}``; each ``note_*`` but ``note_unpack`` and ``note_derived`` ``{value}``;
``note_derived`` ``{runs}``, ``{low}`` and ``{high}``, the last two written by ``percent``;
``derived_bandwidth`` ``{bandwidth}``, ``{bits}``, ``{gbps}``; ``derived_peak`` ``{peak}``, ``{sms}``,
``{mhz}``, ``{per_sm}``, ``{whitepaper}``; ``err_input`` ``{label}``, ``{min}``,
``{max}``; ``err_price`` ``{label}``; ``one_sequence`` (why a batch is refused) ``{low}`` and ``{high}``, each
written by ``percent``."""
CLASS = "speed-estimate"
MAX_TOKENS = 2**24
"""The largest prompt or generation the widget takes, as :func:`llmcalc.speed.estimate_speed` does."""
MAX_PRICE = 1e6
"""The largest price per GPU-hour, as :func:`llmcalc.speed.cost_per_million_tokens` takes it."""


class SpeedEstimateDirective(LabelListDirective):
    """Explanation paragraphs, then one bullet list of ``key: label`` items (:data:`LABELS`)."""

    css_class = CLASS
    labels = LABELS
    list_class = "speed-labels"


def derived_inputs(bandwidth: object, peak: object) -> dict[str, Any] | None:
    """What a speed widget's lines ``derived_bandwidth`` and ``derived_peak`` fill in, for a card whose figures
    are derived (:class:`llmcalc.datasheets.Derived`): the numbers of :attr:`~llmcalc.datasheets.Derived.derivation`
    with the figures as printed; ``None`` for a card whose datasheet prints them."""
    from llmcalc.datasheets import PER_SM_CLOCK, Derived

    if not (isinstance(bandwidth, Derived) and isinstance(peak, Derived)):
        return None
    spec = bandwidth.spec
    return {"bandwidth": bandwidth.printed.removesuffix(" GB/s"), "bits": spec.bus_bits,
            "gbps": f"{spec.data_rate_mbps / 1000:g}", "peak": peak.printed.removesuffix(" TFLOPS"), "sms": spec.sms,
            "mhz": spec.boost_mhz, "per_sm": peak.per_sm_clock, "whitepaper": PER_SM_CLOCK[spec.architecture][0]}


def widget_data() -> dict[str, Any]:
    """What the script computes with: presets, hardware, constants and errors, all from llmcalc.speed."""
    from llmcalc import get_preset
    from llmcalc.datasheets import DATASHEETS, MEASURED_HARDWARE, datasheet
    from llmcalc.errors import Refusal
    from llmcalc.flops import matmul_params
    from llmcalc.memory import kv_cache_bytes_per_token
    from llmcalc.presets import PRESETS
    from llmcalc.speed import (
        CONSTANTS,
        FORMATS,
        MEASURED_RANGE,
        UBATCH_TOKENS,
        decode_weight_bytes,
        derived_error_range,
        engine_for,
        estimate_speed,
        gemm_peak_flops,
        median_error,
    )

    models = {}
    for name in PRESETS:
        cfg = get_preset(name)
        try:
            for fmt in FORMATS:
                estimate_speed(cfg, fmt, "rtx-4090", prompt_tokens=1)
        except ValueError:
            continue  # a sliding window, or a layout or mixture of experts llama-quantize's recipes do not model
        weights = {fmt: decode_weight_bytes(cfg, fmt) for fmt in FORMATS}
        models[name] = {"weights": weights, "kv": kv_cache_bytes_per_token(cfg, "fp16"),
                        "matmul": matmul_params(cfg), "layers": cfg.n_layers, "width": cfg.n_heads * cfg.head_dim}
    hardware = {}
    for key in [*DATASHEETS, *MEASURED_HARDWARE]:
        try:
            engine = engine_for(key)
        except Refusal:
            continue  # not measured (AMD)
        sheet = datasheet(key)
        hardware[key] = {"engine": engine, "bandwidth": sheet.bandwidth.value,
                         "peak": gemm_peak_flops(key) if engine == "llama.cpp-cuda" else None,
                         "derived": derived_inputs(sheet.bandwidth, sheet.fp16_accumulate)}
    runs, low, high = derived_error_range()
    return {
        "models": models, "hardware": hardware, "formats": list(FORMATS),
        "decode_efficiency": {f"{engine}|{kind}": value for (engine, kind), value in
                              CONSTANTS.decode_efficiency.items()},
        "decode_ceiling": dict(CONSTANTS.decode_ceiling), "prefill_efficiency": dict(CONSTANTS.prefill_efficiency),
        "prefill_ceiling": dict(CONSTANTS.prefill_ceiling), "ubatch": UBATCH_TOKENS, "range": dict(MEASURED_RANGE),
        "errors": {"decode": median_error("decode"), "prefill": median_error("prefill")},
        "derived_error": {"runs": runs, "low": low, "high": high},
        "limits": {"tokens": MAX_TOKENS, "price": MAX_PRICE},
    }


class FormControls:
    """A speed widget's labelled controls: ids ``{prefix}-{name}``, form names ``{names}_{name}``, labels from
    ``labels``; every text is escaped."""

    def __init__(self, labels: dict[str, str], prefix: str, names: str) -> None:
        self.labels, self.prefix, self.names = labels, prefix, names

    def field(self, name: str, control: str) -> str:
        label = html.escape(self.labels[name])
        return f'<div class="calc-field"><label for="{self.prefix}-{name}">{label}</label>{control}</div>'

    def select(self, name: str, options: list[tuple[str, str]], chosen: str) -> str:
        e = html.escape
        items = "".join(f'<option value="{e(value)}"{" selected" if value == chosen else ""}>{e(text)}</option>'
                        for value, text in options)
        return self.field(name, f'<select id="{self.prefix}-{name}" name="{self.names}_{name}">{items}</select>')

    def number(self, name: str, value: int, maximum: int) -> str:
        return self.field(name, f'<input type="number" id="{self.prefix}-{name}" name="{self.names}_{name}" '
                                f'value="{value}" min="1" max="{maximum}" step="1" inputmode="numeric">')

    def text(self, name: str) -> str:
        return self.field(name, f'<input type="text" id="{self.prefix}-{name}" name="{self.names}_{name}" value="" '
                                'inputmode="decimal">')


def _widget(labels: dict[str, str], serial: int) -> str:
    e = html.escape
    data = widget_data()
    payload = e(json.dumps(data, separators=(",", ":")))
    messages = e(json.dumps(labels, ensure_ascii=False, separators=(",", ":")))
    controls = FormControls(labels, f"speed-{serial}", "speed")
    select = controls.select

    def number(name: str, value: int) -> str:
        return controls.number(name, value, MAX_TOKENS)

    from llmcalc.speed import median_ubatch_error_by_source

    def percent(fraction: float) -> str:
        return labels["percent"].format(value=f"{fraction:.0%}".removesuffix("%"))

    # Why a batch is refused, with the numbers of the CLI's refusal; written here, as the script never changes it.
    by_source = median_ubatch_error_by_source().values()
    one_sequence = labels["one_sequence"].format(low=percent(min(by_source)), high=percent(max(by_source)))
    return (
        f'<div class="speed-widget" data-speed-estimate data-speed="{payload}" data-labels="{messages}">'
        '<form class="calc-form" onsubmit="return false">'
        + select("model", preset_options(data["models"], labels), "llama-3-8b")
        + select("format", [(kind, kind) for kind in data["formats"]], "Q4_K_M")
        + select("hardware", [(key, key) for key in data["hardware"]], "rtx-4090")
        + number("prompt", 512) + number("generated", 128)
        + controls.text("price")
        + f'</form><p data-one-sequence>{e(one_sequence)}</p><p class="calc-error" role="alert" data-error hidden></p>'
        '<div role="status" aria-live="polite" data-result></div></div>'
    )


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In HTML, the label list becomes the widget; elsewhere it goes, except for the catalog builder."""
    replace_label_lists(app, doctree, CLASS, _widget)


def add_script(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
               doctree: nodes.document | None) -> None:
    if holds_widget(app, doctree, CLASS):
        app.add_js_file("plannerspeed.js", defer="defer")
        app.add_css_file("calculators.css")  # the calc-* field styles


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_directive("speed-estimate", SpeedEstimateDirective)
    app.connect("doctree-resolved", resolve)
    app.connect("html-page-context", add_script)
    return {"version": "1.0", "env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}
