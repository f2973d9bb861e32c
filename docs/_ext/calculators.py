"""Interactive calculators that run in the reader's browser, offline, in both languages.

Each calculator is a directive (``lora-calculator``, ``memory-calculator``,
``kvcache-calculator``).  Its content is ordinary MyST, so it is translated through
the page's ``.po`` file like everything else: first any explanation paragraphs, then
one bullet list whose items are the widget's labels *in a fixed order* (listed in
:data:`LABELS`), which lets a translator reword a label freely.  The directive emits
the widget markup; the behaviour is one vanilla-JS file (``calculators.js``), loaded
only on pages that have a calculator.

The JavaScript repeats the few formulas it needs, so it must agree with ``llmcalc``,
the project's one source of truth: the browser tests run hundreds of vectors computed
by ``llmcalc`` through it and compare exactly.  Presets come from ``llmcalc.PRESETS``
at build time, so a preset is never retyped here.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, ClassVar

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata, OptionSpec
    from sphinx.writers.html5 import HTML5Translator

LABELS: dict[str, tuple[str, ...]] = {
    "lora": (
        "rank", "d_in", "d_out", "trainable", "original", "share", "formula", "error",
    ),
    "memory": (
        "preset", "custom", "params", "precision", "gb", "gib", "error",
    ),
    "kvcache": (
        "preset", "custom", "layers", "kv_heads", "heads", "head_dim", "tokens", "batch", "dtype",
        "total", "per_token", "mha", "saving", "error", "divisor_error",
    ),
}
"""Label keys per calculator, in the order the directive's bullet list gives them.

``error`` is a message template with ``{label}``, ``{min}`` and ``{max}`` placeholders;
``divisor_error`` says that the query heads must be a multiple of the KV heads.
"""

MEMORY_DTYPES = ("fp32", "bf16", "fp8", "int8", "int4")
KV_DTYPES = ("bf16", "fp32", "fp8")
KV_PRESETS = ("reference", "llama-3-8b", "mistral-7b", "llama-2-7b", "llama-2-70b", "qwen2.5-0.5b")


class calculator(nodes.General, nodes.Element):
    """The widget: explanation children plus attributes the HTML visitor renders."""


def preset_data(kind: str) -> dict[str, dict[str, int]]:
    """What the widget needs of each preset, computed by llmcalc at build time."""
    import llmcalc  # imported when a widget is written: a no-op build skips numpy
    if kind == "memory":
        return {name: {"params": llmcalc.param_count(cfg)} for name, cfg in llmcalc.PRESETS.items()}
    return {
        name: {
            "layers": cfg.n_layers,
            "kv_heads": cfg.n_kv_heads,
            "heads": cfg.n_heads,
            "head_dim": cfg.head_dim,
        }
        for name, cfg in ((name, llmcalc.PRESETS[name]) for name in KV_PRESETS)
    }


class CalculatorDirective(SphinxDirective):
    """Base: explanation paragraphs, then one bullet list of labels in :data:`LABELS` order."""

    kind: ClassVar[str]
    has_content = True
    option_spec: ClassVar[OptionSpec] = {}

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, container)
        lists = [child for child in container.children if isinstance(child, nodes.bullet_list)]
        expected = LABELS[self.kind]
        if len(lists) != 1 or len(lists[0].children) != len(expected):
            found = len(lists[0].children) if len(lists) == 1 else f"{len(lists)} lists"
            raise self.error(
                f"{self.name}: the content must end with one bullet list of {len(expected)} "
                f"labels ({', '.join(expected)}); found {found}"
            )
        # The label list stays in the doctree until it is resolved, so that its items
        # are extracted for translation and replaced by the translated text.
        lists[0]["classes"].append("calculator-labels")
        node = calculator(kind=self.kind, serial=self.env.new_serialno("calculator"))
        node.extend(container.children)
        self.set_source_info(node)
        return [node]


class LoraCalculator(CalculatorDirective):
    kind = "lora"


class MemoryCalculator(CalculatorDirective):
    kind = "memory"


class KVCacheCalculator(CalculatorDirective):
    kind = "kvcache"


def _field(ident: str, label: str, control: str) -> str:
    return (
        f'<div class="calc-field"><label for="{ident}">{html.escape(label)}</label>{control}</div>'
    )


def _number(ident: str, name: str, value: int, low: int, high: int, label: str) -> str:
    control = (
        f'<input type="number" id="{ident}" name="{name}" value="{value}" min="{low}" '
        f'max="{high}" step="1" inputmode="numeric" data-label="{html.escape(label)}" required>'
    )
    return _field(ident, label, control)


def _select(
    ident: str, name: str, options: list[tuple[str, str]], label: str, selected: str = ""
) -> str:
    items = "".join(
        f'<option value="{html.escape(value)}"{" selected" if value == selected else ""}>'
        f"{html.escape(text)}</option>"
        for value, text in options
    )
    return _field(ident, label, f'<select id="{ident}" name="{name}">{items}</select>')


def _output(key: str, label: str) -> str:
    return f'<div class="calc-result"><span>{html.escape(label)}</span> <output data-out="{key}">—</output></div>'


def _lora_form(prefix: str, labels: dict[str, str]) -> str:
    rank = labels["rank"]
    return "".join([
        _field(
            f"{prefix}-rank",
            rank,
            f'<input type="range" id="{prefix}-rank" name="rank" min="1" max="256" value="16" step="1">'
            f'<input type="number" name="rank-box" value="16" min="1" max="256" step="1" '
            f'inputmode="numeric" aria-label="{html.escape(rank)}" data-label="{html.escape(rank)}" required>',
        ),
        _number(f"{prefix}-din", "d_in", 4096, 1, 1_000_000, labels["d_in"]),
        _number(f"{prefix}-dout", "d_out", 4096, 1, 1_000_000, labels["d_out"]),
    ])


def _memory_form(prefix: str, labels: dict[str, str]) -> str:
    import llmcalc
    options = [("", labels["custom"])] + [(name, name) for name in llmcalc.PRESETS]
    return "".join([
        _select(f"{prefix}-preset", "preset", options, labels["preset"]),
        _number(f"{prefix}-params", "params", 7_000_000_000, 1, 10**13, labels["params"]),
    ])


def _kvcache_form(prefix: str, labels: dict[str, str]) -> str:
    import llmcalc
    options = [("", labels["custom"])] + [(name, name) for name in KV_PRESETS]
    reference = llmcalc.PRESETS["reference"]
    return "".join([
        # The widget opens on the reference model's shape, so the list starts on it.
        _select(f"{prefix}-preset", "preset", options, labels["preset"], selected="reference"),
        _number(f"{prefix}-layers", "layers", reference.n_layers, 1, 1024, labels["layers"]),
        _number(f"{prefix}-heads", "heads", reference.n_heads, 1, 1024, labels["heads"]),
        _number(f"{prefix}-kvheads", "kv_heads", reference.n_kv_heads, 1, 1024, labels["kv_heads"]),
        _number(f"{prefix}-headdim", "head_dim", reference.head_dim, 1, 4096, labels["head_dim"]),
        _number(f"{prefix}-tokens", "tokens", 4096, 1, 10_000_000, labels["tokens"]),
        _number(f"{prefix}-batch", "batch", 1, 1, 4096, labels["batch"]),
        _select(f"{prefix}-dtype", "dtype", [(d, d) for d in KV_DTYPES], labels["dtype"]),
    ])


def _results(kind: str, labels: dict[str, str]) -> str:
    if kind == "lora":
        outputs = [_output(key, labels[key]) for key in ("trainable", "original", "share")]
        outputs.append(
            f'<p class="calc-formula"><span>{html.escape(labels["formula"])}</span> '
            f'<output data-out="formula">—</output></p>'
            '<div class="calc-bar" aria-hidden="true"><div class="calc-bar-fill" data-out="bar"></div></div>'
        )
        return "".join(outputs)
    if kind == "memory":
        head = (
            f'<thead><tr><th scope="col">{html.escape(labels["precision"])}</th>'
            f'<th scope="col">{html.escape(labels["gb"])}</th><th scope="col">{html.escape(labels["gib"])}</th></tr></thead>'
        )
        rows = "".join(
            f'<tr><th scope="row">{dtype}</th><td data-out="gb-{dtype}">—</td><td data-out="gib-{dtype}">—</td></tr>'
            for dtype in MEMORY_DTYPES
        )
        return f'<table class="calc-table">{head}<tbody>{rows}</tbody></table>'
    return "".join(_output(key, labels[key]) for key in ("per_token", "total", "mha", "saving"))


FORMS = {"lora": _lora_form, "memory": _memory_form, "kvcache": _kvcache_form}


def visit_calculator(self: HTML5Translator, node: calculator) -> None:
    if self.builder.name == "epub":
        return  # e-readers run no scripts: the explanation alone is rendered
    kind, labels = node["kind"], node["labels"]
    attributes = {
        "data-calculator": kind,
        "data-error-template": labels["error"],
    }
    if kind == "kvcache":
        attributes["data-divisor-error"] = labels["divisor_error"]
    if kind in ("memory", "kvcache"):
        attributes["data-presets"] = json.dumps(preset_data(kind), separators=(",", ":"))
    attrs = " ".join(f'{name}="{html.escape(value)}"' for name, value in attributes.items())
    self.body.append(f'<div class="calculator" {attrs}>')
    self.body.append('<div class="calc-explanation">')


def depart_calculator(self: HTML5Translator, node: calculator) -> None:
    if self.builder.name == "epub":
        return
    kind, labels = node["kind"], node["labels"]
    prefix = f"calc-{kind}-{node['serial']}"
    self.body.append("</div>")
    self.body.append(f'<form class="calc-form" onsubmit="return false">{FORMS[kind](prefix, labels)}</form>')
    self.body.append('<p class="calc-error" role="alert" hidden></p>')
    self.body.append(f'<div class="calc-results" aria-live="polite">{_results(kind, labels)}</div>')
    self.body.append("</div>")


def keep_explanation_only(self: nodes.NodeVisitor, node: calculator) -> None:
    """Writers that cannot run JavaScript show the explanation without the widget."""


def collect_labels(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Turn each calculator's (translated) label list into the labels its widget shows."""
    if app.builder.name == "gettext":
        return  # the message catalog builder reads resolved doctrees: it needs the list
    for node in doctree.findall(calculator):
        label_list = next(
            child for child in node.children
            if isinstance(child, nodes.bullet_list) and "calculator-labels" in child["classes"]
        )
        items = [item.astext().strip() for item in label_list.children]
        node["labels"] = dict(zip(LABELS[node["kind"]], items, strict=True))
        node.remove(label_list)


def add_script(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: nodes.document | None) -> None:
    if app.builder.name != "epub" and doctree is not None and any(doctree.findall(calculator)):
        app.add_js_file("calculators.js", defer="defer")
        app.add_css_file("calculators.css")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_node(
        calculator,
        html=(visit_calculator, depart_calculator),
        text=(keep_explanation_only, None),
        latex=(keep_explanation_only, None),
    )
    app.add_directive("lora-calculator", LoraCalculator)
    app.add_directive("memory-calculator", MemoryCalculator)
    app.add_directive("kvcache-calculator", KVCacheCalculator)
    app.connect("doctree-resolved", collect_labels)
    app.connect("html-page-context", add_script)
    # env_version: doctrees pickled by an older version of this file lack the label list.
    return {"version": "1.1", "env_version": 2, "parallel_read_safe": True, "parallel_write_safe": True}
