"""Derive, from transformers' own source, which ``config.json`` keys can change a model's sizes.

For each ``model_type`` llmcalc reads, a key can change what transformers builds only if transformers reads it:
its modelling module (``modeling_<name>.py``, and the shared code it calls: RoPE initialisation, the cache,
masks, attention dispatch, ``PreTrainedModel``) reads ``config.<key>`` or ``getattr(config, "<key>")``, or the
config class's ``__init__`` uses the key to compute another attribute (Qwen2's ``layer_types`` from
``use_sliding_window`` and ``max_window_layers``).  Every other key, whatever its name, is stored on the config
and never read: a checkpoint's training-code leftovers (``ep_size``, ``num_nextn_predict_layers``), and keys
the class accepts but the model ignores.  llmcalc ignores those and refuses only an unknown key transformers
reads (``llmcalc/hf.py``, ``_READ_KEYS``).

Run with the transformers whose rules llmcalc follows (needs no torch weights, only the source)::

    /work/torchenv/bin/python tools/derive_config_keys.py > tests/data/hf_models/_read_keys.json

The output names the transformers version; ``tests/test_llmcalc_hf.py`` checks that llmcalc's table equals it.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llmcalc import hf

# Shared modules every decoder-only model of these families calls with its config (transformers 5 layout).
SHARED = ("modeling_utils", "modeling_rope_utils", "cache_utils", "masking_utils", "integrations.sdpa_attention",
          "generation.utils", "configuration_utils")
# ``config.<key>`` (also through ``self.config`` or ``text_config``) or ``getattr(config, "<key>", ...)``.
_READ = re.compile(r"(?:config|self\.config|text_config)\.([A-Za-z_][A-Za-z0-9_]*)"
                   r"""|getattr\(\s*(?:self\.)?config,\s*["']([A-Za-z_][A-Za-z0-9_]*)["']""")


def read_in(source: str) -> set[str]:
    """Attribute names read from a config object in ``source``."""
    return {a or b for a, b in _READ.findall(source)}


def config_class_reads(config_class: type) -> set[str]:
    """Attributes the config class's own methods read (``__post_init__`` deriving ``layer_types``, validation)."""
    reads: set[str] = set()
    for klass in config_class.__mro__:
        if klass.__module__.startswith("transformers.models."):
            reads |= set(re.findall(r"self\.([A-Za-z_][A-Za-z0-9_]*)", inspect.getsource(klass)))
    return reads


def derive() -> dict[str, object]:
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    shared: set[str] = set()
    for name in SHARED:
        try:
            module = importlib.import_module(f"transformers.{name}")
        except ImportError:
            continue
        shared |= read_in(inspect.getsource(module))
    models: dict[str, object] = {}
    for model_type in hf.SUPPORTED_MODEL_TYPES:
        config_class = CONFIG_MAPPING[model_type]
        package = config_class.__module__.rsplit(".", 1)[0]
        stem = config_class.__module__.rsplit(".", 1)[1].replace("configuration_", "")
        modeling = importlib.import_module(f"{package}.modeling_{stem}")
        read = read_in(inspect.getsource(modeling)) | config_class_reads(config_class)
        attribute_map = dict(getattr(config_class, "attribute_map", {}))
        read |= {attribute_map.get(key, key) for key in read}
        accepted = {field.name for field in dataclasses.fields(config_class)} | set(config_class().to_dict())
        models[model_type] = {
            "config_class": config_class.__name__,
            "modeling_module": modeling.__name__,
            # Keys the config class accepts (signature or to_dict) that nothing reads: ignored by llmcalc.
            "accepted_unread": sorted(accepted - read - shared),
            # Keys the model's own code, its config's __init__, or the shared code reads.
            "read": sorted(read | (shared & accepted)),
        }
    return {"transformers": transformers.__version__, "shared_modules": list(SHARED), "models": models}


if __name__ == "__main__":
    json.dump(derive(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
