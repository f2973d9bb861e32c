"""Record what named trainers do to a LoRA or QLoRA step's weights, gradients and optimizer state, for llmcalc.trainers.

This script is NOT run by the tests, and torch/transformers/peft/bitsandbytes/trl are NOT llmcalc
dependencies.  It writes ``tests/data/training_state/setups.json``, which
``tests/test_llmcalc_trainers.py`` compares ``llmcalc.planner.training_state_bytes`` with each set-up's
settings (``llmcalc.trainers.setup_settings``) against.

How to re-run (in a throwaway virtual environment, never the project's)::

    python3 -m venv /tmp/setups-venv
    /tmp/setups-venv/bin/pip install torch==2.13.0 transformers==5.25.0 peft==0.22.0 trl==1.16.0 \\
        accelerate==1.15.0 bitsandbytes==0.50.2 datasets
    /tmp/setups-venv/bin/python tools/measure_trainer_setups.py --write

What is measured.  The small Llama- and Qwen2-style models of ``tools/measure_training_state.py``
(random weights, saved in bfloat16 and loaded back on the CPU) and:

* ``trl-sft``: TRL's own ``SFTTrainer`` runs one optimizer step (``SFTConfig`` defaults but
  ``max_steps=1``, ``use_cpu=True``, no saving or reporting; a pre-tokenized dataset), given the model
  loaded with ``BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
  bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=bfloat16)`` (``qlora``) or in its bfloat16
  (``lora``), and ``LoraConfig(r=16, target_modules=...)``.  Nothing of the preparation is written here:
  what is counted is what the trainer made of the model.
* ``qlora-script``: artidoro/qlora's ``get_accelerate_model`` (qlora.py at 7f4e95a, lines 377-405) does
  not run under transformers 5 (it passes ``load_in_4bit`` and ``use_auth_token``); its preparation is
  repeated here line for line on the same 4-bit model (``prepare_model_for_kbit_training``,
  ``get_peft_model``, then LoRA layers to bfloat16, modules named ``*norm*`` to float32, ``lm_head`` and
  ``embed_tokens`` back to bfloat16), and one step of bitsandbytes' ``PagedAdamW32bit`` (its default
  ``optim``) runs under bfloat16 autocast, as the Trainer's ``bf16=True`` does.  The same preparation of
  ``tools/measure_activations.py``'s Llama-style model gives the bytes its forward keeps for backward under
  autocast (``script_activations``), which ``llmcalc.activations`` counts as the ``"kbit"``-prepared base.

Counted as ``tools/measure_training_state.py`` counts: parameters and bitsandbytes ``quant_state``
tensors (weights), each gradient when backward accumulates it (gradients; the Trainer frees them after
the step), optimizer state tensors but ``step``; and the parameters' dtypes.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
from typing import Any

import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from measure_training_state import (
    ARCHITECTURES,
    _bytes,
    _optimizer_state,
    _quant_state_tensors,
    provenance,
    save_random_model,
)

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "training_state" / "setups.json"
SETUPS = (("trl-sft", "qlora"), ("trl-sft", "lora"), ("qlora-script", "qlora"))
ARCHES = ("llama", "qwen2")
RANK = 16


def _load(folder: pathlib.Path, quantized: bool) -> Any:
    kwargs: dict[str, Any] = {}
    if quantized:
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16)
    return AutoModelForCausalLM.from_pretrained(folder, device_map="cpu", **kwargs)


def _gradient_recorder(model: Any) -> dict[str, int]:
    """Bytes of each trained parameter's gradient as backward accumulates it, and their dtypes."""
    seen: dict[str, int] = {}

    def hook(param: torch.Tensor) -> None:
        if param.grad is not None:
            seen[str(param.grad.dtype)] = seen.get(str(param.grad.dtype), 0) + param.grad.untyped_storage().nbytes()

    for param in model.parameters():
        if param.requires_grad:
            param.register_post_accumulate_grad_hook(hook)
    return seen


def _count(model: Any, optimizer: torch.optim.Optimizer, gradients: dict[str, int]) -> dict[str, Any]:
    seen: set[int] = set()
    weights = _bytes(list(model.parameters()), seen)
    weights += _bytes([t for p in model.parameters() for t in _quant_state_tensors(p)], seen)
    states, _ = _optimizer_state(optimizer, seen)
    by_dtype: dict[str, int] = {}
    trained: dict[str, int] = {}
    for param in model.parameters():
        by_dtype[str(param.dtype)] = by_dtype.get(str(param.dtype), 0) + param.numel()
        if param.requires_grad:
            trained[str(param.dtype)] = trained.get(str(param.dtype), 0) + param.numel()
    state_dtypes = sorted({str(value.dtype) for state in optimizer.state.values()
                           for key, value in state.items() if isinstance(value, torch.Tensor) and key != "step"})
    return {"weights": weights, "gradients": sum(gradients.values()), "gradient_dtypes": sorted(gradients),
            "optimizer_states": states, "optimizer_state_dtypes": state_dtypes, "optimizer": type(optimizer).__name__,
            "trained_params_by_dtype": trained, "parameter_values_by_dtype": by_dtype}


def run_trl(folder: pathlib.Path, targets: list[str], quantized: bool, vocab: int) -> dict[str, Any]:
    from datasets import Dataset
    from peft import LoraConfig
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast
    from trl import SFTConfig, SFTTrainer

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer(models.WordLevel({f"t{i}": i for i in range(vocab)}, unk_token="t0")),
        pad_token="t1", eos_token="t2")
    torch.manual_seed(0)
    rows = torch.randint(3, vocab, (2, 16)).tolist()
    dataset = Dataset.from_dict({"input_ids": rows})
    with tempfile.TemporaryDirectory() as output:
        config = SFTConfig(output_dir=output, max_steps=1, per_device_train_batch_size=1, use_cpu=True,
                           report_to=[], save_strategy="no", logging_strategy="no")
        trainer = SFTTrainer(model=_load(folder, quantized), args=config, train_dataset=dataset,
                             processing_class=tokenizer,
                             peft_config=LoraConfig(r=RANK, target_modules=targets, task_type="CAUSAL_LM"))
        gradients = _gradient_recorder(trainer.model)
        trainer.train()
        result = _count(trainer.model, trainer.optimizer, gradients)
        result["settings"] = {"gradient_checkpointing": config.gradient_checkpointing, "bf16": config.bf16,
                              "optim": str(config.optim)}
        return result


def run_qlora_script(folder: pathlib.Path, targets: list[str]) -> dict[str, Any]:
    import bitsandbytes
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
    from peft.tuners.lora import LoraLayer

    model = _load(folder, quantized=True)
    model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)
    model = get_peft_model(model, LoraConfig(r=RANK, lora_alpha=16, target_modules=targets, lora_dropout=0.0,
                                             bias="none", task_type="CAUSAL_LM"))
    for name, module in model.named_modules():  # qlora.py lines 396-405, with --bf16
        if isinstance(module, LoraLayer):
            module = module.to(torch.bfloat16)
        if "norm" in name:
            module = module.to(torch.float32)
        if ("lm_head" in name or "embed_tokens" in name) and hasattr(module, "weight"):
            if module.weight.dtype == torch.float32:
                module = module.to(torch.bfloat16)
    model.train()
    gradients = _gradient_recorder(model)
    optimizer = bitsandbytes.optim.PagedAdamW32bit([p for p in model.parameters() if p.requires_grad])
    ids = torch.randint(0, model.config.vocab_size, (1, 16))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    return _count(model, optimizer, gradients)


def measure_script_activations() -> list[dict[str, Any]]:
    """Bytes the QLoRA script's model keeps for backward under bf16 autocast, on measure_activations' Llama."""
    from peft.tuners.lora import LoraLayer

    import measure_activations

    records = []
    for targets in (["q_proj", "v_proj"], "all-linear"):
        for checkpointing in (False, True):
            model, adapted = measure_activations.build_lora("llama", targets, 0.0, True, prepared=True)
            for name, module in model.named_modules():  # qlora.py lines 396-405, with --bf16
                if isinstance(module, LoraLayer):
                    module.to(torch.bfloat16)
                if "norm" in name:
                    module.to(torch.float32)
                if ("lm_head" in name or "embed_tokens" in name) and hasattr(module, "weight") \
                        and module.weight.dtype == torch.float32:
                    module.to(torch.bfloat16)
            for batch, seq_len in ((1, 512), (2, 128)):
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    measured = measure_activations.measure(model, batch, seq_len, checkpointing, detail=False)
                records.append({"arch": "llama", "batch": batch, "seq_len": seq_len, "checkpointing": checkpointing,
                                "targets": targets, "adapted": adapted, "rank": measure_activations.LORA_RANK,
                                "saved_bytes": measured["saved_bytes"]})
                print(records[-1], file=sys.stderr, flush=True)
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUTPUT}")
    args = parser.parse_args()
    torch.set_num_threads(2)
    result: dict[str, Any] = {
        "provenance": {
            **provenance("measure_trainer_setups.py",
                         ("torch", "transformers", "peft", "accelerate", "bitsandbytes", "trl")),
            "lora_rank": RANK,
        },
        "architectures": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ARCHES:
            model_type, config, description, targets = ARCHITECTURES[arch]
            folder = save_random_model(arch, pathlib.Path(tmp))
            record: dict[str, Any] = {"model_type": model_type, "config": config, "description": description,
                                      "lora_targets": targets, "setups": {}}
            for setup, task in SETUPS:
                if setup == "trl-sft":
                    measured = run_trl(folder, targets, task == "qlora", config["vocab_size"])
                else:
                    measured = run_qlora_script(folder, targets)
                record["setups"][f"{setup}/{task}"] = measured
                print(arch, setup, task, measured, file=sys.stderr, flush=True)
            result["architectures"][arch] = record
    result["script_activations"] = {
        "counted": "saved tensors of one forward under torch.autocast('cpu', bfloat16), as "
                   "tools/measure_activations.py counts them, for its Llama-style model (the 'llama' entry of "
                   "tests/data/activations/lora.json) prepared as qlora.py prepares it",
        "records": measure_script_activations(),
    }
    text = json.dumps(result, indent=1) + "\n"
    if args.write:
        OUTPUT.write_text(text, "utf-8")
    else:
        print(text)


if __name__ == "__main__":
    main()
