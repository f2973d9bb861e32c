"""Everything the browser's copy of llmcalc reads: ``docs/_static/modelconfig.js`` and ``modelcounts.js``.

The JavaScript ports the *rules* of :mod:`llmcalc.hf`, :mod:`llmcalc.config`,
:mod:`llmcalc.params` and :mod:`llmcalc.lora`; the *data* those rules read (class
defaults, aliases, module names, choices) stays here, in one place, since a table
retyped in JavaScript would drift from Python unnoticed.  It reaches the page as
JSON (``glossary_html.inline_json("modelconfig-tables", browser_data())``);
nothing in it depends on the order of an object's keys, so sorted keys are fine.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

from . import config, errors, hf, lora, params

__all__ = ["browser_data"]


def browser_data() -> dict[str, Any]:
    """Every table ``modelconfig.js`` reads, as a JSON-serialisable dict.

    Examples
    --------
    >>> import json
    >>> tables = browser_data()
    >>> tables["supportedModelTypes"][:3], tables["aliases"]
    (['llama', 'mistral', 'mixtral'], {'qwen3_moe': {'num_experts': 'num_local_experts'}})
    >>> json.loads(json.dumps(tables)) == tables
    True
    """
    return {
        # The codes a refusal may carry (llmcalc.errors): the page's message catalogue covers each (tested).
        "refusalCodes": sorted(errors.MESSAGES),
        "supportedModelTypes": list(hf.SUPPORTED_MODEL_TYPES),
        "defaults": hf.CLASS_DEFAULTS,
        "aliases": hf.KEY_ALIASES,
        "readSizeKeys": {model_type: sorted(keys) for model_type, keys in hf.READ_SIZE_KEYS.items()},
        "attentionBias": list(hf.ATTENTION_BIAS),
        "fields": [
            {"name": item.name, "type": str(item.type), "default": None if item.default is MISSING else item.default}
            for item in fields(config.ModelConfig)
        ],
        "atLeastOne": list(config.AT_LEAST_ONE),
        "choices": {name: list(options) for name, options in config.FIELD_CHOICES.items()},
        "layoutFfn": config.LAYOUT_FFN,
        "attention": {
            layout: {"prefix": prefix, "names": names} for layout, (prefix, names) in params.ATTENTION_MODULES.items()
        },
        "mlp": params.MLP_MODULES,
        "allLinear": lora.ALL_LINEAR,
        "fusedInto": lora.FUSED_INTO,
        # Pairs, not an object: the order of peft's names shows in a message, and JSON objects may be re-sorted.
        "peftMoeNames": {
            model_type: [list(pair) for pair in names.items()] for model_type, names in lora.PEFT_MOE_NAMES.items()
        },
    }
