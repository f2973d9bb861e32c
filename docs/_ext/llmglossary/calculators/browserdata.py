"""What the calculators' JavaScript knows of models and number formats, read from llmcalc at build time.

Exists so that no number is retyped in a page or a script: the presets, their parameter
counts and shapes, the bits per value of every format and the planner's tables are
computed by ``llmcalc``, the project's one source of truth, once per build, and written
into the widgets' ``data-*`` attributes.  ``llmcalc`` is imported when a widget is written,
so a build without one does not import numpy.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable

from sphinx.errors import ExtensionError

DEFAULT_KV_PRESETS = ("reference", "llama-3-8b", "llama-2-7b", "llama-2-70b", "qwen2.5-0.5b")
"""The KV-cache widget's models (``calculator_kv_presets``): full-attention models only, since
the widget has no sliding window (Mistral 7B's caps its cache)."""
DEFAULT_MEMORY_DTYPES = ("fp32", "bf16", "fp8", "int8", "int4")
"""The memory widget's number formats (``calculator_memory_dtypes``)."""
DEFAULT_KV_DTYPES = ("bf16", "fp32", "fp8")
"""The KV-cache widget's number formats (``calculator_kv_dtypes``)."""


def compact_json(value: object) -> str:
    """JSON without spaces, for data-* attributes.

    >>> compact_json({"layers": 2, "heads": [4, 8]})
    '{"layers":2,"heads":[4,8]}'
    """
    return json.dumps(value, separators=(",", ":"))


def check_names(setting: str, names: Iterable[str], accepted: Iterable[str], required: str = "") -> None:
    """Refuse a setting that names something llmcalc does not know, naming the bad value and the accepted ones.

    >>> check_names("calculator_kv_dtypes", ["bf16"], ["bf16", "fp32"])
    >>> check_names("calculator_kv_dtypes", ["bf17"], ["bf16", "fp32"])
    Traceback (most recent call last):
    ...
    sphinx.errors.ExtensionError: calculator_kv_dtypes: 'bf17' is not one of bf16, fp32
    """
    accepted = list(accepted)
    names = list(names)
    for name in names:
        if name not in accepted:
            raise ExtensionError(f"{setting}: {name!r} is not one of {', '.join(accepted)}")
    if not names:
        raise ExtensionError(f"{setting}: needs at least one of {', '.join(accepted)}")
    if required and required not in names:
        raise ExtensionError(f"{setting}: must include {required!r} (the widget's starting values), got {names}")


@functools.cache
def model_data(kind: str, kv_presets: tuple[str, ...] = DEFAULT_KV_PRESETS) -> dict[str, dict[str, int]]:
    """What the widget needs of each preset, computed by llmcalc once per build."""
    import llmcalc  # imported when a widget is written: a build without one skips it

    if kind == "memory":
        return {name: {"params": int(llmcalc.param_count(cfg))} for name, cfg in llmcalc.PRESETS.items()}
    check_names("calculator_kv_presets", kv_presets, llmcalc.PRESETS, required="reference")
    shapes = {}
    for name in kv_presets:
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
    """The planner's data-* attributes: presets and the tables its rules read (cards among them), all from llmcalc."""
    import dataclasses

    import llmcalc
    from llmcalc.browser import planner_tables

    tables = planner_tables()
    return {
        "data-presets": compact_json({name: dataclasses.asdict(cfg) for name, cfg in llmcalc.PRESETS.items()}),
        "data-tables": compact_json(tables),
    }


@functools.cache
def dtype_bits() -> dict[str, int]:
    """Bits per value of every number format, from llmcalc (calculators.js reads them)."""
    import llmcalc

    return {name: int(bits) for name, bits in llmcalc.DTYPE_BITS.items()}


@functools.cache
def peak_flops() -> dict[str, int]:
    """Each listed card's dense BF16 peak, from its datasheet (llmcalc.datasheets): plannercost.js's peaks."""
    from llmcalc.datasheets import DATASHEETS

    return {key: sheet.fp16.value for key, sheet in DATASHEETS.items()
            if sheet.fp16 is not None and sheet.no_bf16 is None}


@functools.cache
def fp16_only_cards() -> dict[str, dict[str, str | float]]:
    """Each listed card whose tensor cores have no BF16: its name and FP16 TFLOPS, for plannercost.js's refusal."""
    from llmcalc.datasheets import DATASHEETS
    from llmcalc.planner import listed_card

    return {key: {"name": card.name, "tflops": sheet.fp16.value / 10**12}
            for key, sheet in DATASHEETS.items()
            if sheet.fp16 is not None and sheet.no_bf16 is not None and (card := listed_card(key)) is not None}
