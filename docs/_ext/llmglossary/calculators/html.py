"""The calculators' HTML: each widget written from its Jinja template, with its labels and llmcalc's data.

Exists so that the markup lives in templates a designer can read (``widget.html`` for the
three small calculators, ``planner.html`` for the planner, in the folder
``calculator_templates``), not in Python strings, and all of it is escaped.  Only HTML
writers meet the :class:`~.directives.calculator` node: :func:`~.directives.resolve_calculators`
replaces it for every other builder.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import jinja2

from ..assets import TEMPLATES
from ..glossary_html import inline_json
from .browserdata import check_names, compact_json, dtype_bits, fp16_only_cards, model_data, peak_flops, planner_data
from .labels import PLANNER_MESSAGES, RANK_LABELS, REFUSAL_LABELS

if TYPE_CHECKING:
    from sphinx.writers.html5 import HTML5Translator

    from .directives import calculator

DEFAULT_TEMPLATES = TEMPLATES / "calculators"
"""The package's own templates, the default of ``calculator_templates``."""


@functools.cache
def template(folder: str, name: str) -> Any:
    """A template's macros (widget.html: ``open``, ``close``; planner.html: ``close``), loaded once per process."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder), autoescape=True, undefined=jinja2.StrictUndefined
    )
    return environment.get_template(name).module


def preset_options(names: Iterable[str], labels: dict[str, str]) -> list[tuple[str, str]]:
    """(value, text) of a model list: each preset by its llmcalc name, the reference model by its label.

    >>> preset_options(["reference", "gpt2"], {"reference_model": "reference（參考模型）"})
    [('reference', 'reference（參考模型）'), ('gpt2', 'gpt2')]
    """
    return [(name, labels["reference_model"] if name == "reference" else name) for name in names]


def visit_calculator(self: HTML5Translator, node: calculator) -> None:
    config = self.builder.config
    kind, labels = node["kind"], node["labels"]
    attributes = {"data-calculator": kind, "data-error-template": labels["error"]}
    if kind == "kvcache":
        attributes["data-divisor-error"] = labels["divisor_error"]
    if kind in ("memory", "kvcache"):
        attributes["data-presets"] = compact_json(model_data(kind, tuple(config.calculator_kv_presets)))
        attributes["data-dtype-bits"] = compact_json(dtype_bits())
    if kind == "planner":
        from llmcalc.browser import browser_data

        attributes.update(planner_data())
        attributes.update({f"data-{key.replace('_', '-')}": labels[key] for key in PLANNER_MESSAGES})
        attributes["data-beyond-trained"] = labels["beyond_trained_note"]
        attributes["data-total-label"] = labels["total"]
        attributes["data-refusals"] = compact_json({key: labels[key] for key in REFUSAL_LABELS})
        attributes["data-peak-flops"] = compact_json(peak_flops())
        attributes["data-fp16-only-cards"] = compact_json(fp16_only_cards())
        attributes["data-rank-labels"] = compact_json({key: labels[key] for key in RANK_LABELS})
        from ..vllmspeedwidget import ranking_speed_data

        attributes["data-rank-speed"] = compact_json(ranking_speed_data())  # the ranking's vLLM speed (vllmspeed.js)
        # The rules' data for modelconfig.js, once per page (the page has one planner).
        self.body.append(inline_json("modelconfig-tables", browser_data()))
    self.body.append(template(str(config.calculator_templates), "widget.html").open(attributes))


def depart_calculator(self: HTML5Translator, node: calculator) -> None:
    config = self.builder.config
    folder = str(config.calculator_templates)
    kind = node["kind"]
    if kind == "planner":
        import llmcalc
        from llmcalc import planner
        from llmcalc.formats import KV_FORMATS, WEIGHT_FORMATS

        self.body.append(
            template(folder, "planner.html").close(
                prefix=f"calc-planner-{node['serial']}",
                labels=node["labels"],
                links=node["links"],
                presets=preset_options(llmcalc.PRESETS, node["labels"]),
                gpus=[(card.key, card.label) for card in planner.CARDS],
                # The list opens on the RTX 4090, and the memory field on the total a process sees on it.
                default_gpu=next((card.key, card.field) for card in planner.CARDS
                                 if card.key == "rtx-4090"),
                weight_formats=[(name, name) for name in WEIGHT_FORMATS],
                kv_formats=[(name, name) for name in KV_FORMATS],
            )
        )
        return
    kv_presets = tuple(config.calculator_kv_presets)
    presets = preset_options(model_data(kind, kv_presets), node["labels"]) if kind != "lora" else []
    setting = "calculator_memory_dtypes" if kind == "memory" else "calculator_kv_dtypes"
    dtypes = list(getattr(config, setting))
    check_names(setting, dtypes, dtype_bits())
    self.body.append(
        template(folder, "widget.html").close(
            kind=kind,
            prefix=f"calc-{kind}-{node['serial']}",
            labels=node["labels"],
            presets=presets,
            dtypes=[(dtype, dtype) for dtype in dtypes],
            reference=model_data("kvcache", kv_presets)["reference"],
        )
    )
