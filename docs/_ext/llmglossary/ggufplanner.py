"""The GGUF planner: a llama.cpp memory plan from a ``.gguf`` file's header, read in the reader's browser.

The directive ``gguf-planner`` holds MyST content, translated through the page's ``.po`` like
everything else: explanation paragraphs, then one bullet list of ``key: label`` items (the keys
are :data:`LABELS`).  In HTML the list becomes the widget (``static/gguf.js`` gives it its
behaviour, ``static/ggufshare.js`` its share link); other builders keep the explanation only, and the
message catalog builder the list too, so it is extracted for translation.  Everything the script knows of
ggml's types and the plan's constants is read from :mod:`llmcalc.gguf` at build time into ``data-*`` attributes.
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .calculators.html import preset_options

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata, OptionSpec

logger = logging.getLogger(__name__)

SHARE_LABELS = (
    "share_copy", "share_copied", "share_copy_failed", "share_bad", "share_whole", "share_decimal", "share_empty",
    "share_choice", "share_listed", "share_memory", "share_once", "share_fields", "share_model", "share_sort",
    "quoted_choice", "choice_join",
)
"""ggufshare.js's: the copy button and what it says, and the note on a link it cannot use.  ``share_bad`` takes
``{label}`` (the field), ``{value}`` (the link's) and ``{accepted}`` (what the field takes, one of the others filled
in): ``share_whole`` and ``share_decimal`` take ``{min}`` and ``{max}``, ``share_empty`` ``{accepted}``,
``share_choice`` ``{choices}``, ``share_listed`` ``{count}``, ``share_fields`` ``{fields}``; ``share_sort`` names the
every-card table's sort; ``quoted_choice`` (one of the choices) takes ``{value}``, and ``choice_join`` is ``{first}``
and ``{next}`` with the separator of the choices and fields between them."""
LABELS = (
    "file", "context", "ubatch", "cache_k", "cache_v", "flash", "compute_buffer", "gpu", "beyond",
    "weights", "kv_cache", "compute_part", "reserve", "total", "host", "estimated", "summary",
    "fits", "no_fit", "largest_context", "choose",
    "err_not_gguf", "err_version", "err_truncated", "err_huge", "err_malformed", "err_unsupported",
    "err_flash", "err_input", "err_memory",
    "source", "source_file", "recipe", "imatrix", "ngl", "weights_partial", "most_layers", "summary_recipe",
    "reference_model",
    "rank_all", "rank_caption", "rank_col_rank", "rank_col_card", "rank_col_verdict", "rank_col_headroom",
    "rank_col_context", "rank_col_change", "rank_fits", "rank_no_fit", "rank_host", "setting_value",
    "swa_full", "kv_cache_full", "kv_cache_swa", "window_not_applied", "parallel", "kv_unified", "kv_streams",
    "llama_server", "server_slots",
    *SHARE_LABELS,
)
"""Label keys, each given once.  Templates: ``summary`` takes ``{arch}``, ``{layers}``, ``{tensors}``,
``{version}``, ``{trained}``; ``fits``/``no_fit`` ``{bytes}``; ``err_version`` ``{version}``;
``err_truncated`` ``{size}``; ``err_huge`` ``{count}`` and ``{limit}``; ``err_malformed`` ``{at}``;
``err_unsupported`` ``{key}``; ``err_input`` ``{label}``, ``{min}``, ``{max}``; ``err_memory`` ``{value}``;
``most_layers`` ``{layers}`` and ``{total}``; ``summary_recipe`` ``{model}``, ``{recipe}``, ``{layers}`` and
``{trained}``; ``rank_host`` (the ``-ngl`` change of the every-card table, :mod:`llmcalc.ranking`) ``{change}`` and
``{gib}``; ``setting_value`` (a change of one of the form's fields in that table) ``{label}`` and ``{value}``;
``kv_cache_full`` and ``kv_cache_swa`` (llama.cpp's two caches of a model with sliding-window layers)
``{layers}``, ``{cells}`` and ``{mib}``, ``kv_cache_swa`` also ``{window}``; ``window_not_applied`` ``{window}``;
``kv_streams`` (the caches of ``-np`` sequences without ``--kv-unified``) ``{streams}``; ``server_slots``
(llama-server's automatic slots, :func:`llmcalc.gguf.llama_server_slots`) ``{slots}``."""
CLASS = "gguf-planner"
PARTS = ("weights", "kv_cache", "compute_part", "reserve", "total", "host")
"""The rows of the plan's table, each a label key."""
SORTABLE = ("rank", "card", "headroom", "context")
"""The every-card table's columns whose header sorts it (a button; aria-sort says the order)."""


def split_label(text: str) -> tuple[str, str]:
    """``"file: A .gguf file"`` -> ``("file", "A .gguf file")``.

    >>> split_label("gpu: GPU memory")
    ('gpu', 'GPU memory')
    """
    key, _colon, label = text.partition(":")
    return key.strip(), label.strip()


class LabelListDirective(SphinxDirective):
    """Explanation paragraphs, then one bullet list of ``key: label`` items: each of :attr:`labels` once.

    A widget's directive sets :attr:`css_class` (its container's class), :attr:`labels` and
    :attr:`list_class` (the class its label list gets).
    """

    has_content = True
    option_spec: ClassVar[OptionSpec] = {}
    css_class: ClassVar[str] = CLASS
    labels: ClassVar[tuple[str, ...]] = LABELS
    list_class: ClassVar[str] = "gguf-labels"

    def run(self) -> list[nodes.Node]:
        container = nodes.container(classes=[self.css_class])
        self.state.nested_parse(self.content, self.content_offset, container)
        lists = [child for child in container.children if isinstance(child, nodes.bullet_list)]
        if len(lists) != 1:
            raise self.error(f"{self.name}: the content must end with one bullet list of `key: label` items")
        keys = [split_label(item.astext())[0] for item in lists[0].children]
        if sorted(keys) != sorted(self.labels):
            missing = sorted(set(self.labels) - set(keys))
            unknown = sorted(set(keys) - set(self.labels))
            raise self.error(f"{self.name}: each of {', '.join(self.labels)} once; missing: {missing}, "
                             f"unknown: {unknown}")
        lists[0]["classes"].append(self.list_class)
        self.set_source_info(container)
        return [container]


@functools.cache
def recipe_models() -> dict[str, Any]:
    """Every preset a recipe plans, as ``llmcalc gguf PRESET --recipe R`` counts it: shape and per-layer bytes.

    Runs of equal layers are stored once (``[bytes, count]``); with ``--imatrix`` only the recipes it changes.
    """
    from llmcalc import gguf
    from llmcalc.presets import PRESETS

    models: dict[str, Any] = {}
    plans: dict[str, Any] = {}
    for name, cfg in PRESETS.items():
        try:
            first = gguf.model_from_config(cfg, "Q8_0")
        except ValueError:
            continue  # a model the recipes do not cover (llmcalc gguf refuses it the same way)
        models[name] = [first.architecture, first.n_layers, first.k_width, first.v_width, first.trained_context,
                        first.n_embd, first.n_head, first.n_ff, first.n_vocab, first.tied_embeddings,
                        # llama.cpp's window and SWA layers ("1" each), or the window its architecture ignores
                        first.sliding_window, "".join("1" if swa else "0" for swa in first.swa_layers),
                        first.window_not_applied]
        for recipe in gguf.RECIPES:
            for imatrix in (False, True):
                model = gguf.model_from_config(cfg, recipe, imatrix=imatrix)
                runs: list[list[int]] = []
                for size in model.layer_bytes:
                    if runs and runs[-1][0] == size:
                        runs[-1][1] += 1
                    else:
                        runs.append([size, 1])
                entry = [model.weight_bytes, model.embedding_bytes, model.output_bytes, runs]
                key = f"{name}|{recipe}"
                if not imatrix:
                    plans[key] = entry
                elif entry != plans[key]:
                    plans[key + "|imatrix"] = entry
    return {"recipes": list(gguf.RECIPES), "models": models, "plans": plans}
class GgufPlannerDirective(LabelListDirective):
    """Explanation paragraphs, then one bullet list of ``key: label`` items (:data:`LABELS`)."""


def widget_data() -> dict[str, str]:
    """The ``data-*`` attributes: ggml's types, cache types and limits, and the recipes' models, from llmcalc.gguf."""
    from llmcalc import gguf
    from llmcalc.planner import CARDS, MAX_GPU_BYTES, MEMORY_UNITS, MIN_GPU_BYTES

    data: dict[str, Any] = {
        "types": {str(t.type_id): [t.name, t.block_weights, t.block_bytes] for t in gguf.GGML_TYPES.values()},
        "cache-types": list(gguf.KV_CACHE_TYPES),
        "reserve": gguf.RESERVE,
        "padding": gguf.CONTEXT_PADDING,
        "limits": {"header": gguf.MAX_HEADER_BYTES, "tensors": gguf.MAX_TENSORS, "keys": gguf.MAX_KEYS,
                   "chunk": gguf.READ_CHUNK, "context": gguf.MAX_CONTEXT,
                   "compute_mib": gguf.MAX_COMPUTE_BUFFER_MIB, "ubatch": gguf.MAX_UBATCH,
                   "parallel": gguf.MAX_PARALLEL, "server_slots": gguf.LLAMA_SERVER_SLOTS,
                   # llmcalc.planner.gpu_memory's units and range, which the GPU field reads alike
                   "memory_units": dict(MEMORY_UNITS), "min_gpu_bytes": MIN_GPU_BYTES, "max_gpu_bytes": MAX_GPU_BYTES},
        "recipe-models": recipe_models(),
        # llmcalc.gguf's sliding-window rules: period, window without the key, key required; architectures ignoring
        # a window, and those whose window is not modelled
        "swa": {"architectures": gguf.SWA_ARCHITECTURES, "not_applied": gguf.WINDOW_NOT_APPLIED,
                "not_modelled": gguf.SWA_NOT_MODELLED},
        # The listed cards, ranked as llmcalc gguf MODEL --gpu all ranks them: key, name, total, estimated.
        "cards": [[card.key, card.name, card.total_bytes, card.estimated] for card in CARDS],
    }
    return {f"data-{key}": json.dumps(value, separators=(",", ":")) for key, value in data.items()}


def _widget(labels: dict[str, str], serial: int) -> str:
    from llmcalc import gguf

    e = html.escape
    p = f"gguf-{serial}"
    attributes = " ".join(f'{name}="{e(value)}"' for name, value in widget_data().items())
    messages = e(json.dumps(labels, ensure_ascii=False, separators=(",", ":")))

    def field(name: str, control: str) -> str:
        return f'<div class="calc-field"><label for="{p}-{name}">{e(labels[name])}</label>{control}</div>'

    def select(name: str) -> str:
        options = "".join(f'<option value="{t}">{t}</option>' for t in ("f16", "q8_0", "q4_0"))
        return field(name, f'<select id="{p}-{name}" name="gguf_{name}">{options}</select>')

    def check(name: str) -> str:
        return (f'<div class="calc-field"><label><input type="checkbox" name="gguf_{name}" id="{p}-{name}"> '
                f'{e(labels[name])}</label></div>')

    models = recipe_models()
    sources = f'<option value="">{e(labels["source_file"])}</option>' + "".join(
        f'<option value="{e(name)}">{e(text)}</option>' for name, text in preset_options(models["models"], labels))
    recipes = "".join(f'<option value="{r}"{" selected" if r == "Q4_K_M" else ""}>{r}</option>'
                      for r in models["recipes"])
    rows = "".join(f'<tr data-part="{part}"><th scope="row">{e(labels[part])}</th><td data-bytes></td>'
                   f'<td data-gib></td></tr>' for part in PARTS)
    return (
        f'<div class="gguf-widget" data-gguf-planner {attributes} data-labels="{messages}">'
        '<form class="calc-form" onsubmit="return false">'
        + field("source", f'<select id="{p}-source" name="gguf_source">{sources}</select>')
        + field("file", f'<input type="file" id="{p}-file" name="gguf_file" accept=".gguf">')
        + field("recipe", f'<select id="{p}-recipe" name="gguf_recipe">{recipes}</select>') + check("imatrix")
        + field("context", f'<input type="number" id="{p}-context" name="gguf_context" value="4096" min="1" '
                           'max="16777216" step="1" inputmode="numeric">')
        + field("ubatch", f'<input type="number" id="{p}-ubatch" name="gguf_ubatch" value="{gguf.UBATCH}" min="1" '
                          f'max="{gguf.MAX_UBATCH}" step="1" inputmode="numeric">')
        + select("cache_k") + select("cache_v") + check("flash") + check("swa_full")
        + field("parallel", f'<input type="number" id="{p}-parallel" name="gguf_parallel" value="1" min="1" '
                            f'max="{gguf.MAX_PARALLEL}" step="1" inputmode="numeric">') + check("kv_unified")
        + check("llama_server")
        + field("compute_buffer", f'<input type="text" id="{p}-compute_buffer" name="gguf_compute_buffer" value="" '
                                  'inputmode="decimal">')
        + field("ngl", f'<input type="text" id="{p}-ngl" name="gguf_ngl" value="" inputmode="numeric">')
        + field("gpu", f'<input type="text" id="{p}-gpu" name="gguf_gpu" value="24" inputmode="decimal">')
        + check("beyond") + check("rank_all")
        + '</form><div class="planner-share">'
        f'<button type="button" data-share-copy>{e(labels["share_copy"])}</button> '
        '<span role="status" data-share-status></span></div>'
        '<p class="planner-note" data-share-note hidden></p>'
        '<p class="calc-error" role="alert" data-error hidden></p>'
        f'<div role="status" aria-live="polite" data-result><p data-summary>{e(labels["choose"])}</p>'
        f'<table class="calc-table gguf-parts" hidden><tbody>{rows}</tbody></table>'
        '<p data-kv-full hidden></p><p data-kv-swa hidden></p><p data-kv-streams hidden></p>'
        '<p data-server-slots hidden></p>'
        '<p data-window-note hidden></p>'
        '<p data-verdict></p><p data-largest></p><p data-most-layers></p></div>'
        f'<section class="gguf-rank" aria-labelledby="{p}-rank-caption" hidden>'
        f'<p class="gguf-rank-caption" id="{p}-rank-caption">{e(labels["rank_caption"])}</p>'
        f'<div class="planner-rank-scroll" tabindex="0" role="region" aria-labelledby="{p}-rank-caption">'
        '<table class="calc-table gguf-rank-table"><thead><tr>'
        + "".join(f'<th scope="col" data-column="{column}" aria-sort="{"ascending" if column == "rank" else "none"}">'
                  f'<button type="button" class="planner-rank-sort">{e(labels["rank_col_" + column])}</button></th>'
                  if column in SORTABLE else f'<th scope="col">{e(labels["rank_col_" + column])}</th>'
                  for column in ("rank", "card", "verdict", "headroom", "context", "change"))
        + '</tr></thead><tbody></tbody></table></div></section></div>'
    )


def replace_label_lists(app: Sphinx, doctree: nodes.document, css_class: str,
                        widget: Callable[[dict[str, str], int], str]) -> None:
    """In HTML, each ``css_class`` container's label list becomes ``widget(labels, serial)``; elsewhere it
    goes, except for the catalog builder, which keeps it for translation."""
    containers = [n for n in doctree.findall(nodes.container) if css_class in n["classes"]]
    for serial, container in enumerate(containers):
        label_list = next(c for c in container.children if isinstance(c, nodes.bullet_list))
        if app.builder.name == "gettext":
            continue
        labels = dict(split_label(item.astext()) for item in label_list.children)
        index = container.index(label_list)
        container.remove(label_list)
        if app.builder.format == "html" and app.builder.name != "epub":
            container.insert(index, nodes.raw("", widget(labels, serial), format="html"))


def holds_widget(app: Sphinx, doctree: nodes.document | None, css_class: str) -> bool:
    """Whether an HTML page (not EPUB) holds a ``css_class`` container, so its script and styles are added."""
    if doctree is None or app.builder.format != "html" or app.builder.name == "epub":
        return False
    return any(css_class in n["classes"] for n in doctree.findall(nodes.container))


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In HTML, the label list becomes the widget; elsewhere it goes, except for the catalog builder."""
    replace_label_lists(app, doctree, CLASS, _widget)


def add_script(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
               doctree: nodes.document | None) -> None:
    if holds_widget(app, doctree, CLASS):
        app.add_js_file("ggufshare.js", defer="defer")  # registers itself before gguf.js makes the widget
        app.add_js_file("gguf.js", defer="defer")
        app.add_css_file("calculators.css")  # the calc-* field and table styles
        app.add_css_file("gguf.css")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.assets")  # its scripts, stylesheets and templates
    app.add_directive("gguf-planner", GgufPlannerDirective)
    app.connect("doctree-resolved", resolve)
    app.connect("html-page-context", add_script)
    return {"version": "1.0", "env_version": 1, "parallel_read_safe": True, "parallel_write_safe": True}
