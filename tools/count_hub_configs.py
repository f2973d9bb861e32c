"""Count the parameters of each committed Hub config.json with transformers itself (meta device, no weights).

Run with the transformers llmcalc follows; the result is tests/data/hub_configs/_transformers_counts.json::

    /work/torchenv/bin/python tools/count_hub_configs.py > tests/data/hub_configs/_transformers_counts.json

``from_config`` builds the model the file describes without applying a ``quantization_config`` (only
``from_pretrained`` quantizes), so a quantized checkpoint's count is that of the model it was quantized from;
llmcalc refuses such a file, and the test compares this count with llmcalc's once that key is removed.
"""

import glob
import json
import os
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

out = {"transformers": transformers.__version__, "torch": torch.__version__, "models": {}}
for path in sorted(glob.glob("tests/data/hub_configs/*.json")):
    if os.path.basename(path).startswith("_"):
        continue
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    config = AutoConfig.for_model(**data)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    total = sum(p.numel() for p in model.parameters())
    out["models"][os.path.basename(path)] = total
json.dump(out, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
