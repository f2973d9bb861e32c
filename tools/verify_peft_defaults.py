"""Record what peft does with a default ``LoraConfig()`` on each committed Hub config.json (meta device, no weights).

Run in a virtual environment outside the repository with the peft and transformers llmcalc follows (neither is a
project dependency); the result is tests/data/hub_configs/_peft_defaults.json::

    /work/wt/torchvenv-defaults/bin/python tools/verify_peft_defaults.py > tests/data/hub_configs/_peft_defaults.json

Per file: the modules peft chose (``target_modules`` as its LoRA mapping gives them for the ``model_type``) and the
trainable parameters of ``get_peft_model(model, LoraConfig())`` (rank 8, peft's default), or, where peft has no
default for the model type, the ``ValueError`` it raises.  ``mapping`` is the whole LoRA default table
(``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING`` in ``peft/utils/constants.py``) of that release, so a test
can check that llmcalc's copy of it is the library's.  A file transformers cannot build unquantized (none today) or
whose ``quantization_config`` peft would need to see is still built unquantized: ``from_config`` never quantizes.
"""

import glob
import json
import os
import sys

import peft
import torch
import transformers
from peft import LoraConfig, get_peft_model
from peft.utils.constants import TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING
from transformers import AutoConfig, AutoModelForCausalLM

out = {
    "peft": peft.__version__, "transformers": transformers.__version__, "torch": torch.__version__,
    "source": "peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING; "
              "peft/tuners/tuners_utils.py BaseTuner._prepare_adapter_config",
    "mapping": TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING,
    "models": {},
}
for path in sorted(glob.glob("tests/data/hub_configs/*.json")):
    if os.path.basename(path).startswith("_"):
        continue
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    data.pop("quantization_config", None)
    config = AutoConfig.for_model(**data)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    try:
        peft_model = get_peft_model(model, LoraConfig())
    except ValueError as error:
        out["models"][os.path.basename(path)] = {"model_type": config.model_type, "error": str(error)}
        continue
    targets = peft_model.peft_config["default"].target_modules
    trainable, _ = peft_model.get_nb_trainable_parameters()
    out["models"][os.path.basename(path)] = {
        "model_type": config.model_type, "target_modules": sorted(targets) if not isinstance(targets, str) else targets,
        "rank": peft_model.peft_config["default"].r, "trainable": trainable,
    }
json.dump(out, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
