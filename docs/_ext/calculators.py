"""Interactive calculators that run in the reader's browser, offline, in both languages.

Each calculator is a directive (``lora-calculator``, ``memory-calculator``,
``kvcache-calculator``).  Its content is ordinary MyST, so it is translated through
the page's ``.po`` file like everything else: first any explanation paragraphs, then
one bullet list of the widget's labels, each keyed (``- rank: Rank r``; the keys per
calculator are in :data:`LABELS`).  A translator rewords the text after the key; a
missing, unknown or repeated key is a warning that names the keys, in English and in
every translation, so no label can silently land on the wrong field.

The widget markup is a Jinja template (``docs/_templates/calculators/widget.html``);
its behaviour is one vanilla-JS file (``calculators.js``), loaded only on pages that
have a calculator.  Builders that run no JavaScript (EPUB, text, LaTeX, man, Texinfo,
...) get the explanation alone, and the message catalog builder gets the labels too,
so they are extracted for translation.

The JavaScript repeats the few formulas it needs, each once (``modelcounts.js`` holds the ones the
calculators and the planner share, loaded before either), so it must agree with ``llmcalc``,
the project's one source of truth: the browser tests run hundreds of vectors computed
by ``llmcalc`` through it and compare exactly.  Everything the widget knows of the
models and number formats (presets, their parameter counts, bits per value) is read
from ``llmcalc`` once per build and written into ``data-*`` attributes, never retyped.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import jinja2
from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from glossary_html import inline_json

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata, OptionSpec
    from sphinx.writers.html5 import HTML5Translator

logger = logging.getLogger(__name__)

# The planner's catalogue of llmcalc's refusals (llmcalc.errors): one label per code the browser's copy can raise
# (``refusal_<code>``, its placeholders named after the refusal's parameters), the message for a model not loaded
# yet, and the pieces some messages add (a config's name, a missing value, hints, where a JSON error is).
REFUSAL_LABELS: tuple[str, ...] = (
    "no_config", "config_prefix", "missing", "hint_multimodal", "hint_fused", "json_where", "refusal_not_a_flag",
    "refusal_not_an_integer", "refusal_integer_out_of_range", "refusal_number_out_of_range", "refusal_not_one_of",
    "refusal_not_one_of_type",
    "refusal_not_a_str", "refusal_not_a_model_config", "refusal_heads_do_not_divide",
    "refusal_kv_heads_do_not_divide", "refusal_too_many_active_experts", "refusal_missing_d_ff",
    "refusal_dense_layers_out_of_range", "refusal_moe_only_field", "refusal_shared_gate_without_expert",
    "refusal_window_layers_out_of_range", "refusal_layout_ffn_mismatch", "refusal_latent_only_field",
    "refusal_rope_head_dim_out_of_range", "refusal_latent_attention_layout", "refusal_lm_head_bias_tied",
    "refusal_config_source_type", "refusal_invalid_json", "refusal_too_deeply_nested", "refusal_number_too_long",
    "refusal_not_a_json_object", "refusal_unsupported_model_type", "refusal_quantized_checkpoint",
    "refusal_key_not_a_count", "refusal_key_not_a_flag", "refusal_contradicting_keys",
    "refusal_layer_types_length", "refusal_layer_types_unknown", "refusal_sliding_window_invalid",
    "refusal_sparse_step_unmodelled", "refusal_dense_layers_unmodelled", "refusal_new_decoder_unmodelled",
    "refusal_bidirectional_unmodelled", "refusal_cross_attention_unmodelled", "refusal_unknown_size_key",
    "refusal_targets_not_a_sequence", "refusal_targets_empty", "refusal_target_not_a_str",
    "refusal_target_matches_nothing", "refusal_experts_need_fused_pair", "refusal_all_linear_needs_model_type",
    "refusal_gptq_not_modelled", "refusal_activations_unmeasured_feature", "refusal_activations_llama_blocks",
    "refusal_activations_gpt2_blocks", "refusal_activations_layout", "refusal_lora_on_lm_head",
    "refusal_lora_without_qkv", "refusal_lora_dropout_on_stacked_experts", "refusal_model_too_large",
    "refusal_engine_needs_dense", "refusal_tensor_parallel_does_not_divide", "refusal_pipeline_parallel_out_of_range",
    "refusal_parallel_needs_dense", "refusal_qlora_zero3_one_dtype",
)
LABELS: dict[str, tuple[str, ...]] = {
    "lora": ("rank", "d_in", "d_out", "trainable", "original", "share", "formula", "error"),
    "memory": ("preset", "reference_model", "custom", "params", "precision", "gb", "gib", "error"),
    "kvcache": (
        "preset", "reference_model", "custom", "layers", "kv_heads", "heads", "head_dim", "tokens", "batch", "dtype",
        "total", "per_token", "mha", "saving", "error", "divisor_error",
    ),
    "planner": (
        "model", "preset", "reference_model", "config_own", "config_file", "config_paste", "config_use",
        "params", "active",
        "task", "task_inference", "task_full", "task_lora", "task_qlora",
        "weight_format", "kv_format", "context", "batch",
        "optimizer", "opt_adamw", "opt_adamw8", "opt_sgd", "micro_batch", "seq_len", "checkpointing",
        "zero_stage", "n_gpus", "tensor_parallel", "pipeline_parallel", "rank", "targets", "targets_qv", "targets_all",
        "beyond_trained", "gpu", "gpu_custom", "gpu_gib",
        "precision", "prec_bf16", "prec_amp", "prec_mixed", "qlora_preparation", "prep_kbit", "prep_none",
        "lora_dropout", "dropout_error",
        "weights", "kv_cache", "gradients", "optimizer_states", "activations", "reserve", "total",
        "fits", "no_fit", "largest_context", "largest_micro_batch", "none_fits",
        "at_trained", "beyond_trained_note", "context_note",
        "error", "memory_error", "config_error", "plan_error",
        "engine", "engine_sum", "engine_generate", "engine_vllm", "attention", "gpu_memory_utilization",
        "max_num_batched_tokens", "cuda_graphs_mib", "vllm_starts", "vllm_no_start", "largest_max_model_len",
        "per_gpu_busiest", "per_gpu_each",
        *REFUSAL_LABELS,
        # plannershare.js and plannerchart.js: the share link, a second card and the chart.
        "gpu_compare", "gpu_compare_none", "share_copy", "share_copied", "share_copy_failed", "share_bad",
        "chart_context", "chart_micro_batch", "chart_summary", "chart_table",
    ),
}
"""Label keys per calculator, each given once in the directive's keyed bullet list.

``error`` is a message template with ``{label}``, ``{min}`` and ``{max}`` placeholders;
``divisor_error`` says that the query heads must be a multiple of the KV heads.  The
planner's part labels (``weights`` ... ``reserve``) may be term links: the widget's legend
links to the same entries.  Its ``fits`` and ``no_fit`` take ``{bytes}``; ``config_error``
and ``plan_error`` take ``{detail}``, the refusal worded from :data:`REFUSAL_LABELS` in the
page's language; ``memory_error`` takes ``{label}`` and ``{value}`` (what was typed); ``at_trained`` and
``beyond_trained_note`` take ``{trained}``, the positions the model was trained on;
``context_note`` takes ``{context}`` and ``{trained}``; ``dropout_error`` takes ``{label}`` and
``{value}``; ``vllm_starts`` takes ``{tokens}``, ``{context}`` and ``{concurrency}``, ``vllm_no_start``
``{tokens}`` and ``{context}``; ``share_bad`` takes ``{label}`` and ``{value}`` (the link's bad part);
``chart_summary`` takes ``{first}``, ``{x_first}``, ``{last}``, ``{x_last}`` (the chart's first and last
totals in GiB and where they are) and ``{cards}`` (each card with its memory); ``per_gpu_busiest``
(inference on several GPUs) takes ``{gpus}``, ``{tp}`` and ``{pp}``, ``per_gpu_each`` (training under
ZeRO) ``{gpus}`` and ``{stage}``.
"""

MEMORY_DTYPES = ("fp32", "bf16", "fp8", "int8", "int4")
KV_DTYPES = ("bf16", "fp32", "fp8")
# Full-attention models only: the KV-cache widget has no sliding window (Mistral 7B's caps its cache).
# The planner's messages that fill in a {detail} or {bytes}, or name what fits.
PLANNER_MESSAGES = ("config_error", "plan_error", "fits", "no_fit", "none_fits",
                    "largest_context", "largest_micro_batch", "memory_error", "at_trained", "context_note",
                    "dropout_error", "vllm_starts", "vllm_no_start", "largest_max_model_len",
                    "share_copied", "share_copy_failed", "share_bad", "chart_context", "chart_micro_batch",
                    "chart_summary", "chart_table", "per_gpu_busiest", "per_gpu_each")
KV_PRESETS = ("reference", "llama-3-8b", "llama-2-7b", "llama-2-70b", "qwen2.5-0.5b")
TEMPLATES = Path(__file__).resolve().parent.parent / "_templates" / "calculators"


class calculator(nodes.General, nodes.Element):
    """The widget: explanation children, the label list, and the calculator's kind."""


def split_label(text: str) -> tuple[str, str]:
    """``"rank: Rank r"`` -> ``("rank", "Rank r")``; an item without a key gives ``("", text)``.

    >>> split_label("error: {label} must be from {min} to {max}.")
    ('error', '{label} must be from {min} to {max}.')
    >>> split_label("Rank r")
    ('', 'Rank r')
    """
    key, colon, label = text.partition(":")
    if not colon or not key.strip().isidentifier():
        return "", text.strip()
    return key.strip(), label.strip()


def label_problems(kind: str, keys: list[str]) -> list[str]:
    """What is wrong with a calculator's label keys (empty when each key appears once).

    >>> label_problems("memory", ["preset", "reference_model", "custom", "params", "precision", "gb", "gib", "error"])
    []
    >>> label_problems("memory", ["preset", "preset", "size", "precision", "gb", "gib", "error"])
    ['missing: reference_model, custom, params', 'unknown: size', 'repeated: preset']
    """
    expected = LABELS[kind]
    problems = []
    missing = [key for key in expected if key not in keys]
    unknown = [key or "(no key)" for key in keys if key not in expected]
    repeated = sorted({key for key in keys if key in expected and keys.count(key) > 1})
    for name, found in (("missing", missing), ("unknown", unknown), ("repeated", repeated)):
        if found:
            problems.append(f"{name}: {', '.join(found)}")
    return problems


def _label_list(node: nodes.Element) -> nodes.bullet_list:
    return next(
        child for child in node.children
        if isinstance(child, nodes.bullet_list) and "calculator-labels" in child["classes"]
    )


def _items(label_list: nodes.bullet_list) -> list[tuple[str, str]]:
    return [split_label(item.astext()) for item in label_list.children]


def _links(label_list: nodes.bullet_list) -> dict[str, str]:
    """Key -> address of the first resolved link in that label (a term link), for labels that have one."""
    links = {}
    for item in label_list.children:
        key, _label = split_label(item.astext())
        reference = next(item.findall(nodes.reference), None)
        if key and reference is not None and reference.get("refuri"):
            links[key] = reference["refuri"]
    return links


class CalculatorDirective(SphinxDirective):
    """Base: explanation paragraphs, then one bullet list of ``key: label`` items."""

    kind: ClassVar[str]
    has_content = True
    option_spec: ClassVar[OptionSpec] = {}

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, container)
        lists = [child for child in container.children if isinstance(child, nodes.bullet_list)]
        expected = ", ".join(LABELS[self.kind])
        if len(lists) != 1:
            raise self.error(
                f"{self.name}: the content must end with one bullet list of `key: label` items "
                f"({expected}); found {len(lists)} lists"
            )
        problems = label_problems(self.kind, [key for key, _label in _items(lists[0])])
        if problems:
            raise self.error(
                f"{self.name}: the label list must give each of {expected} once, as `key: label`; "
                + "; ".join(problems)
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


class MemoryPlanner(CalculatorDirective):
    kind = "planner"


def runs_javascript(app: Sphinx) -> bool:
    """Whether the builder's output can run the widget: HTML pages, not e-readers."""
    return app.builder.format == "html" and app.builder.name != "epub"


def resolve_calculators(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give each widget its (translated) labels, or leave only the explanation.

    Runs once the document is resolved, so it sees the translated label list, and so
    builders that run no script get the explanation as ordinary paragraphs: no writer
    but HTML ever meets the node.
    """
    if app.builder.name == "gettext":
        return  # the message catalog builder extracts the label list: it stays
    interactive = runs_javascript(app)
    for node in list(doctree.findall(calculator)):
        label_list = _label_list(node)
        items = _items(label_list)
        problems = label_problems(node["kind"], [key for key, _label in items])
        if problems:
            # The source was checked when it was read: this is the translation's fault.
            logger.warning(
                "the translated labels of this %s calculator must keep each key once (%s); %s",
                node["kind"], ", ".join(LABELS[node["kind"]]), "; ".join(problems),
                location=node, type="calculator", subtype="labels",
            )
        node.remove(label_list)
        if interactive and not problems:
            node["labels"] = dict(items)
            node["links"] = _links(label_list)
        else:
            node.replace_self(node.children)


@functools.cache
def template(name: str) -> Any:
    """A template's macros (widget.html: ``open``, ``close``; planner.html: ``close``), loaded once per process."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
    )
    return environment.get_template(name).module


def compact_json(value: object) -> str:
    """JSON without spaces, for data-* attributes."""
    return json.dumps(value, separators=(",", ":"))


@functools.cache
def model_data(kind: str) -> dict[str, dict[str, int]]:
    """What the widget needs of each preset, computed by llmcalc once per build."""
    import llmcalc  # imported when a widget is written: a build without one skips it

    if kind == "memory":
        return {name: {"params": int(llmcalc.param_count(cfg))} for name, cfg in llmcalc.PRESETS.items()}
    shapes = {}
    for name in KV_PRESETS:
        cfg = llmcalc.PRESETS[name]
        shapes[name] = {
            "layers": cfg.n_layers,
            "kv_heads": cfg.n_kv_heads,
            "heads": cfg.n_heads,
            "head_dim": cfg.head_dim,
        }
    return shapes


@functools.cache
def planner_data() -> dict[str, str]:
    """The planner's data-* attributes: presets, cards, and the tables its rules read, all from llmcalc."""
    import dataclasses

    import llmcalc
    from llmcalc import activations, engines, formats, lora, memory, planner, weightformats

    tables = {
        "limits": {"max_params": planner.MAX_PARAMS, "max_tokens": planner.MAX_TOKENS,
                   "max_batch": planner.MAX_BATCH, "max_gpus": planner.MAX_GPUS, "reserve": planner.RESERVE,
                   "min_gpu_bytes": planner.MIN_GPU_BYTES, "max_gpu_bytes": planner.MAX_GPU_BYTES},
        "cards": {card.key: card.total_bytes for card in planner.CARDS},
        "memory_units": dict(planner.MEMORY_UNITS),
        "dtype_bits": dict(formats.DTYPE_BITS),
        "optimizers": {name: memory.OPTIMIZER_STATES[name] for name in planner.OPTIMIZERS},
        "precisions": {name: memory.PRECISION_BYTES[name] for name in ("mixed", "fp32", "bf16")},
        "full_precisions": planner.PRECISIONS,
        "precision_recipes": dict(planner.PRECISION_RECIPES),
        "qlora_preparations": planner.QLORA_PREPARATIONS,
        "bnb_optimizer": {"min_8bit_size": planner.BNB_MIN_8BIT_SIZE, "block": planner.BNB_OPTIMIZER_BLOCK,
                          "maps": planner.BNB_QUANTIZATION_MAPS},
        "zero_sharded": [sorted(parts) for parts in memory.ZERO_SHARDED],
        "weight_formats": formats.WEIGHT_FORMATS,
        "fp32_routers": weightformats.FP32_ROUTERS,
        "no_gptq_layouts": weightformats.NO_GPTQ_LAYOUTS,
        "parallel": {"vocab_padding": planner.VLLM_VOCAB_PADDING, "column": planner.COLUMN_PARALLEL,
                     "row": planner.ROW_PARALLEL},
        "zero3": {"max_live_parameters": planner.ZERO3_MAX_LIVE_PARAMETERS,
                  "prefetch_bucket_size": planner.ZERO3_PREFETCH_BUCKET_SIZE,
                  "reduce_bucket_size": planner.ZERO3_REDUCE_BUCKET_SIZE},
        "activations_moe": {
            "families": activations.MOE_FAMILIES,
            "renormalized": sorted(activations.RENORMALIZED_ROUTING),
            "fp32_routing_weights": sorted(activations.FP32_ROUTING_WEIGHTS),
            "fp32_router": sorted(activations.FP32_ROUTER_INPUT),
            "v3_groups": activations.V3_GROUPS, "v3_kept_groups": activations.V3_KEPT_GROUPS,
            "peft_moe_names": lora.PEFT_MOE_NAMES,
        },
        "engines": {"block_size": engines.VLLM_BLOCK_SIZE, "non_torch": engines.VLLM_NON_TORCH,
                    "activation_bytes": engines.ACTIVATION_BYTES},
    }
    return {
        "data-presets": compact_json({name: dataclasses.asdict(cfg) for name, cfg in llmcalc.PRESETS.items()}),
        "data-gpus": compact_json({card.key: card.total_bytes for card in planner.CARDS}),
        "data-tables": compact_json(tables),
    }


@functools.cache
def dtype_bits() -> dict[str, int]:
    """Bits per value of every number format, from llmcalc (calculators.js reads them)."""
    import llmcalc

    return {name: int(bits) for name, bits in llmcalc.DTYPE_BITS.items()}


def visit_calculator(self: HTML5Translator, node: calculator) -> None:
    kind, labels = node["kind"], node["labels"]
    attributes = {"data-calculator": kind, "data-error-template": labels["error"]}
    if kind == "kvcache":
        attributes["data-divisor-error"] = labels["divisor_error"]
    if kind in ("memory", "kvcache"):
        attributes["data-presets"] = compact_json(model_data(kind))
        attributes["data-dtype-bits"] = compact_json(dtype_bits())
    if kind == "planner":
        from llmcalc.browser import browser_data

        attributes.update(planner_data())
        attributes.update({f"data-{key.replace('_', '-')}": labels[key] for key in PLANNER_MESSAGES})
        attributes["data-beyond-trained"] = labels["beyond_trained_note"]
        attributes["data-total-label"] = labels["total"]
        attributes["data-refusals"] = compact_json({key: labels[key] for key in REFUSAL_LABELS})
        # The rules' data for modelconfig.js, once per page (the page has one planner).
        self.body.append(inline_json("modelconfig-tables", browser_data()))
    self.body.append(template("widget.html").open(attributes))



def preset_options(names: Iterable[str], labels: dict[str, str]) -> list[tuple[str, str]]:
    """(value, text) of a model list: each preset by its llmcalc name, the reference model by its label.

    >>> preset_options(["reference", "gpt2"], {"reference_model": "reference（參考模型）"})
    [('reference', 'reference（參考模型）'), ('gpt2', 'gpt2')]
    """
    return [(name, labels["reference_model"] if name == "reference" else name) for name in names]

def depart_calculator(self: HTML5Translator, node: calculator) -> None:
    kind = node["kind"]
    if kind == "planner":
        import llmcalc
        from llmcalc import planner
        from llmcalc.formats import KV_FORMATS, WEIGHT_FORMATS

        self.body.append(
            template("planner.html").close(
                prefix=f"calc-planner-{node['serial']}",
                labels=node["labels"],
                links=node["links"],
                presets=preset_options(llmcalc.PRESETS, node["labels"]),
                gpus=[(card.key, card.label) for card in planner.CARDS],
                # The list opens on the RTX 4090, and the memory field on its reported total.
                default_gpu=next((card.key, f"{card.reported_mib} MiB") for card in planner.CARDS
                                 if card.key == "rtx-4090"),
                weight_formats=[(name, name) for name in WEIGHT_FORMATS],
                kv_formats=[(name, name) for name in KV_FORMATS],
            )
        )
        return
    presets = preset_options(model_data(kind), node["labels"]) if kind != "lora" else []
    dtypes = MEMORY_DTYPES if kind == "memory" else KV_DTYPES
    self.body.append(
        template("widget.html").close(
            kind=kind,
            prefix=f"calc-{kind}-{node['serial']}",
            labels=node["labels"],
            presets=presets,
            dtypes=[(dtype, dtype) for dtype in dtypes],
            reference=model_data("kvcache")["reference"],
        )
    )


def add_script(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    if not runs_javascript(app) or doctree is None:
        return
    kinds = {node["kind"] for node in doctree.findall(calculator)}
    if kinds:
        # The memory formulas both kinds of widget call; deferred scripts run in document order.
        app.add_js_file("modelcounts.js", defer="defer")
    if kinds - {"planner"}:
        app.add_js_file("calculators.js", defer="defer")
    if "planner" in kinds:
        # The config reader before the planner that uses it; the share link and the chart register themselves
        # (window.LLMPlannerExtensions) before the planner makes them.
        app.add_js_file("modelconfig.js", defer="defer")
        app.add_js_file("plannershare.js", defer="defer")
        app.add_js_file("plannerchart.js", defer="defer")
        app.add_js_file("planner.js", defer="defer")
    if kinds:
        app.add_css_file("calculators.css")


def setup(app: Sphinx) -> ExtensionMetadata:
    # Only HTML writers ever meet the node: resolve_calculators replaces it for the rest.
    app.add_node(calculator, html=(visit_calculator, depart_calculator))
    app.add_directive("lora-calculator", LoraCalculator)
    app.add_directive("memory-calculator", MemoryCalculator)
    app.add_directive("kvcache-calculator", KVCacheCalculator)
    app.add_directive("memory-planner", MemoryPlanner)
    app.connect("doctree-resolved", resolve_calculators)
    app.connect("html-page-context", add_script)
    # env_version: doctrees pickled by an older version of this file have positional labels or no links.
    return {"version": "2.3", "env_version": 5, "parallel_read_safe": True, "parallel_write_safe": True}
