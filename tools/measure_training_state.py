"""Measure the weights, gradients and optimizer state of one training step, per precision regime, for llmcalc's planner.

This script is NOT run by the tests, and torch/transformers/peft/bitsandbytes are NOT
llmcalc dependencies.  It writes ``tests/data/training_state/recordings.json``, which
``tests/test_llmcalc_training_state.py`` compares ``llmcalc.planner.training_state_bytes``
against.

How to re-run (in a throwaway virtual environment, never the project's)::

    python3 -m venv /tmp/ts-venv
    /tmp/ts-venv/bin/pip install torch transformers peft accelerate bitsandbytes
    /tmp/ts-venv/bin/python tools/measure_training_state.py --write

What is measured.  Each model is built from a configuration written out here (the
Llama-, Qwen2- and GPT-2-style configurations of ``tools/measure_quantized.py``; random
weights, no hub download), saved with ``save_pretrained`` in bfloat16 (what a published
checkpoint stores), and loaded back on the CPU as each regime loads it; then one
training step runs (forward with ``labels=input_ids``, backward, ``optimizer.step()``)
and every tensor is counted once per storage:

* ``bf16`` (transformers 5 as it is used today): ``from_pretrained(path)`` with no
  ``dtype``, which in transformers 5 means ``dtype="auto"`` and gives the checkpoint's
  bfloat16; ``torch.optim.AdamW``, whose moments are ``zeros_like(param)``, bfloat16.
* ``amp`` (PyTorch automatic mixed precision): ``from_pretrained(path,
  dtype=torch.float32)``, the forward under ``torch.autocast(dtype=torch.bfloat16)``,
  ``torch.optim.AdamW``: fp32 weights, gradients and moments.
* ``mixed`` (DeepSpeed ZeRO's and Megatron's mixed precision): DeepSpeed is not
  installed here, so this regime is built by hand as those libraries describe it: a
  bfloat16 model, an fp32 copy of every parameter (the master) that
  ``torch.optim.AdamW`` updates, the bf16 gradients copied into fp32 only for the
  step (freed after it) and the master copied back.  The recording checks the
  arithmetic of the parts, not DeepSpeed's own buffers.
* ``adamw-8bit``: as ``bf16``, with ``bitsandbytes.optim.AdamW8bit`` (its defaults:
  ``min_8bit_size=4096``, block size 256): ``state1``/``state2`` uint8 plus one fp32
  ``absmax1``/``absmax2`` per 256 values for a tensor of at least 4096 values, two fp32
  states for a smaller one, and the two 256-entry fp32 quantization maps the optimizer
  shares among its parameters.
* ``qlora`` / ``qlora-no-prepare``: ``BitsAndBytesConfig(load_in_4bit=True,
  bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
  bnb_4bit_compute_dtype=torch.bfloat16)``, then (``qlora`` only)
  ``peft.prepare_model_for_kbit_training`` (its defaults: fp32 upcast of every 16-bit
  parameter that is not a ``Params4bit``, and gradient checkpointing), then
  ``get_peft_model`` with rank 16 on ``q_proj``/``v_proj`` (GPT-2: ``c_attn``) and
  ``torch.optim.AdamW`` on the adapters; ``adamw-8bit`` as well on the prepared model.
* ``lora``: as ``bf16`` loaded, LoRA on the same targets, ``torch.optim.AdamW``.

Parts: ``weights`` (every parameter and bitsandbytes ``quant_state`` tensor, buffers
excluded), ``gradients`` (``param.grad`` after backward), ``optimizer_states`` (every
tensor in ``optimizer.state`` except ``step``), ``step_counters`` (torch's per-parameter
``step`` scalars, reported, not planned: 4 bytes per trained tensor) and, for
``mixed``, ``master_weights``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import platform
import sys
import tempfile
from importlib import metadata
from typing import Any

import torch
from transformers import AutoConfig, AutoModelForCausalLM, BitsAndBytesConfig

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "training_state" / "recordings.json"

ARCHITECTURES: dict[str, tuple[str, dict[str, Any], str, list[str]]] = {
    "llama": (
        "llama",
        dict(vocab_size=1000, hidden_size=352, intermediate_size=928, num_hidden_layers=2,
             num_attention_heads=11, num_key_value_heads=1, head_dim=32, tie_word_embeddings=False),
        "Llama block (RMSNorm, SwiGLU, GQA 11:1), untied head", ["q_proj", "v_proj"],
    ),
    "qwen2": (
        "qwen2",
        dict(vocab_size=1000, hidden_size=352, intermediate_size=928, num_hidden_layers=2,
             num_attention_heads=11, num_key_value_heads=1, head_dim=32, tie_word_embeddings=True),
        "Qwen2 block (Q/K/V biases), tied head", ["q_proj", "v_proj"],
    ),
    "gpt2": (
        "gpt2",
        dict(vocab_size=1000, n_positions=128, n_embd=384, n_layer=2, n_head=12),
        "GPT-2 (Conv1D layers with biases, fused c_attn, LayerNorm, learned positions, tied head)", ["c_attn"],
    ),
}
REGIMES = ("bf16", "amp", "mixed", "adamw-8bit", "lora", "qlora", "qlora-no-prepare", "qlora-adamw-8bit")
NO_DROPOUT = {"attention_dropout": 0.0, "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0}


def _bytes(tensors: Any, seen: set[int]) -> int:
    total = 0
    for tensor in tensors:
        storage = tensor.untyped_storage()
        if storage.data_ptr() in seen:
            continue
        seen.add(storage.data_ptr())
        total += storage.nbytes()
    return total


def _quant_state_tensors(param: torch.Tensor) -> list[torch.Tensor]:
    state = getattr(param, "quant_state", None)
    if state is None:
        return []
    tensors = [state.absmax, state.code]
    if state.offset is not None:
        tensors.append(state.offset)
    if state.state2 is not None:
        tensors += [state.state2.absmax, state.state2.code]
    return tensors


def _step(model: Any, optimizer: torch.optim.Optimizer, autocast: bool) -> None:
    ids = torch.randint(0, model.config.vocab_size, (1, 16))
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()


def _optimizer_state(optimizer: torch.optim.Optimizer, seen: set[int]) -> tuple[int, int]:
    states, steps = [], []
    for state in optimizer.state.values():
        for key, value in state.items():
            if isinstance(value, torch.Tensor):
                (steps if key == "step" else states).append(value)
    return _bytes(states, seen), _bytes(steps, set())


def measure(arch: str, regime: str, folder: pathlib.Path) -> dict[str, Any]:
    torch.manual_seed(0)
    targets = ARCHITECTURES[arch][3]
    kwargs: dict[str, Any] = {}
    if regime == "amp":
        kwargs["dtype"] = torch.float32
    if regime.startswith("qlora"):
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16)
    model = AutoModelForCausalLM.from_pretrained(folder, **kwargs)  # no dtype: transformers 5's "auto"
    loaded_dtype = str(next(p for p in model.parameters() if p.is_floating_point()).dtype)
    model.train()
    if regime in ("qlora", "qlora-adamw-8bit"):
        import peft

        model = peft.prepare_model_for_kbit_training(model)
    if regime in ("lora",) or regime.startswith("qlora"):
        import peft

        model = peft.get_peft_model(model, peft.LoraConfig(r=16, target_modules=targets, task_type="CAUSAL_LM"))
    trained = [p for p in model.parameters() if p.requires_grad]
    master: list[torch.Tensor] = []
    if regime == "mixed":
        master = [p.detach().float().clone().requires_grad_() for p in trained]
        optimizer: torch.optim.Optimizer = torch.optim.AdamW(master)
    elif regime in ("adamw-8bit", "qlora-adamw-8bit"):
        import bitsandbytes

        optimizer = bitsandbytes.optim.AdamW8bit(trained)
    else:
        optimizer = torch.optim.AdamW(trained)
    if regime == "mixed":
        ids = torch.randint(0, model.config.vocab_size, (1, 16))
        model(input_ids=ids, labels=ids).loss.backward()
        for fp32, param in zip(master, trained, strict=True):
            fp32.grad = param.grad.float()
        optimizer.step()
        for fp32, param in zip(master, trained, strict=True):
            fp32.grad = None  # the fp32 gradient lives only for the step
            param.data.copy_(fp32.data)
    else:
        _step(model, optimizer, autocast=regime == "amp")
    seen: set[int] = set()
    weights = _bytes(list(model.parameters()), seen)
    weights += _bytes([t for p in model.parameters() for t in _quant_state_tensors(p)], seen)
    gradients = _bytes([p.grad for p in model.parameters() if p.grad is not None], seen)
    master_bytes = _bytes(master, seen)
    states, steps = _optimizer_state(optimizer, seen)
    dtypes: dict[str, int] = {}
    for p in model.parameters():
        dtypes[str(p.dtype)] = dtypes.get(str(p.dtype), 0) + p.numel()
    return {
        "loaded_dtype": loaded_dtype,
        "weights": weights,
        "gradients": gradients,
        "master_weights": master_bytes,
        "optimizer_states": states,
        "step_counters": steps,
        "trained_tensors": len(trained),
        "trained_params": sum(p.numel() for p in trained),
        "parameter_values_by_dtype": dtypes,
    }


def save_random_model(arch: str, folder: pathlib.Path) -> pathlib.Path:
    """``arch``'s small model with random weights (seed 0), saved in bfloat16 under ``folder / arch``."""
    model_type, config, _, _ = ARCHITECTURES[arch]
    cfg = AutoConfig.for_model(model_type, **config, **{k: v for k, v in NO_DROPOUT.items()
                                                       if hasattr(AutoConfig.for_model(model_type), k)})
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16).save_pretrained(folder / arch)
    return folder / arch


def provenance(script: str, packages: tuple[str, ...]) -> dict[str, Any]:
    """Who recorded a file and with what: the script, its command, the date and the packages' versions."""
    return {"script": f"tools/{script}", "command": f"python tools/{script} --write",
            "date": datetime.date.today().isoformat(), "python": platform.python_version(),
            **{name: metadata.version(name) for name in packages}, "device": "cpu"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUTPUT}")
    args = parser.parse_args()
    result: dict[str, Any] = {
        "provenance": {
            **provenance("measure_training_state.py",
                         ("torch", "transformers", "peft", "accelerate", "bitsandbytes")),
            "counted": "bytes once per storage after one optimizer step; parameters and bitsandbytes quant_state "
                       "tensors (weights), param.grad (gradients), optimizer.state tensors but step (optimizer_states)",
        },
        "architectures": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for arch, (model_type, config, description, targets) in ARCHITECTURES.items():
            folder = save_random_model(arch, pathlib.Path(tmp))
            record: dict[str, Any] = {"model_type": model_type, "config": config, "description": description,
                                      "lora_targets": targets, "lora_rank": 16, "regimes": {}}
            for regime in REGIMES:
                record["regimes"][regime] = measure(arch, regime, folder)
                print(arch, regime, record["regimes"][regime], file=sys.stderr)
            result["architectures"][arch] = record
    text = json.dumps(result, indent=1) + "\n"
    if args.write:
        OUTPUT.parent.mkdir(parents=True, exist_ok=True)
        OUTPUT.write_text(text, "utf-8")
    else:
        print(text)


if __name__ == "__main__":
    main()
