"""The trainers' set-ups (llmcalc.trainers) against what the trainers did, recorded on a CPU.

``tests/data/training_state/setups.json`` (tools/measure_trainer_setups.py): TRL 1.16.0's own ``SFTTrainer`` ran
one step of QLoRA and of LoRA on small Llama- and Qwen2-style models, and the QLoRA script's preparation
(qlora.py at 7f4e95a) ran one step of bitsandbytes' PagedAdamW32bit; each record holds the bytes of weights,
gradients and optimizer state, and the dtypes the trainer left.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import llmcalc as lc
from llmcalc.activations import activation_memory
from llmcalc.errors import Refusal
from llmcalc.planner import ADAPTER_DTYPES, OPTIMIZERS, QLORA_PREPARATIONS, plan_training, training_state_bytes
from llmcalc.trainers import DEFAULT_SETUP, SETUPS, get_setup, setup_settings

DATA = Path(__file__).resolve().parent / "data"
SETUP_RECORDS = json.loads((DATA / "training_state" / "setups.json").read_text("utf-8"))
LORA = json.loads((DATA / "activations" / "lora.json").read_text("utf-8"))
_DTYPES = {"torch.float32": "fp32", "torch.bfloat16": "bf16"}


def _config(entry: dict) -> lc.ModelConfig:
    return lc.ModelConfig.from_hf_config({"model_type": entry["model_type"], **entry["config"]})


def _recorded() -> list[tuple[str, str, str, dict]]:
    return [(arch, *key.split("/"), record) for arch, entry in SETUP_RECORDS["architectures"].items()
            for key, record in entry["setups"].items()]


def test_the_recordings_are_the_trainers_own_runs():
    provenance = SETUP_RECORDS["provenance"]
    assert (provenance["trl"], provenance["peft"], provenance["transformers"]) == ("1.16.0", "0.22.0", "5.25.0")
    runs = {(arch, setup, task) for arch, setup, task, _ in _recorded()}
    assert runs == {(arch, setup, task) for arch in ("llama", "qwen2")
                    for setup, task in (("trl-sft", "qlora"), ("trl-sft", "lora"), ("qlora-script", "qlora"))}


@pytest.mark.parametrize(("arch", "setup", "task", "record"), _recorded(),
                         ids=[f"{a}-{s}-{t}" for a, s, t, _ in _recorded()])
def test_each_set_up_keeps_the_recorded_bytes(arch, setup, task, record):
    """Weights, gradients and optimizer state of each set-up equal the trainer's, to the byte."""
    entry = SETUP_RECORDS["architectures"][arch]
    settings = setup_settings(setup, task)
    state = {name: settings[name] for name in ("qlora_preparation", "adapter_dtype", "optimizer") if name in settings}
    planned = training_state_bytes(_config(entry), task=task, rank=SETUP_RECORDS["provenance"]["lora_rank"],
                                   targets=entry["lora_targets"], **state)
    assert planned == {part: record[part] for part in ("weights", "gradients", "optimizer_states")}


@pytest.mark.parametrize(("arch", "setup", "task", "record"), _recorded(),
                         ids=[f"{a}-{s}-{t}" for a, s, t, _ in _recorded()])
def test_each_set_up_names_the_dtypes_the_trainer_left(arch, setup, task, record):
    """The adapters' dtype and whether any 16-bit parameter was upcast are what the trainer's run shows."""
    settings = setup_settings(setup, task)
    [trained] = record["trained_params_by_dtype"]
    assert _DTYPES[trained] == settings["adapter_dtype"]
    frozen_fp32 = record["parameter_values_by_dtype"].get("torch.float32", 0) - (
        record["trained_params_by_dtype"].get("torch.float32", 0))
    if task == "qlora":
        norms = lc.param_breakdown(_config(SETUP_RECORDS["architectures"][arch]))["norms"]
        assert frozen_fp32 == {"none": 0, "norms": norms}[settings["qlora_preparation"]]
    state_bytes = {"adamw": settings["adapter_dtype"], "adamw-32bit": "fp32"}[settings["optimizer"]]
    assert [_DTYPES[dtype] for dtype in record["optimizer_state_dtypes"]] == [state_bytes]


def test_trl_is_the_default_and_enables_checkpointing():
    assert DEFAULT_SETUP == "trl-sft" == SETUPS[0].key
    recorded = SETUP_RECORDS["architectures"]["llama"]["setups"]["trl-sft/qlora"]["settings"]
    assert recorded["gradient_checkpointing"] is get_setup("trl-sft").checkpointing is True
    assert recorded["optim"].endswith("ADAMW_TORCH_FUSED")
    assert get_setup("trl-sft").optimizer_name == "adamw_torch_fused"


def test_every_set_up_is_a_planner_setting():
    for setup in SETUPS:
        assert setup.qlora_preparation in QLORA_PREPARATIONS and setup.optimizer in OPTIMIZERS
        assert {setup.lora_adapter_dtype, setup.qlora_adapter_dtype} <= set(ADAPTER_DTYPES)
        assert setup.sources and setup.version and setup.reference


def test_bf16_adapters_were_measured_for_six_families():
    """TRL's bf16 cast of the adapters: recorded on Llama, Qwen2, GPT-2 and, on the query and value projections,
    Mixtral, Qwen1.5-MoE and DeepSeek-V3 (test_llmcalc_activations checks each record)."""
    cast = {record["arch"] for record in LORA["records"] if record.get("adapter_dtype") == "bf16"}
    assert cast == {"llama", "qwen2", "gpt2"}
    moe = json.loads((DATA / "activations" / "moe-lora.json").read_text("utf-8"))
    cast = {record["arch"] for record in moe["records"] if record.get("adapter_dtype") == "bf16"}
    assert cast == {"mixtral", "qwen2_moe", "deepseek_v3"}


@pytest.mark.parametrize("record", SETUP_RECORDS["script_activations"]["records"],
                         ids=lambda r: f"{r['targets'] if isinstance(r['targets'], str) else 'qv'}-b{r['batch']}"
                                       f"-{'ckpt' if r['checkpointing'] else 'full'}")
def test_the_script_s_activations_are_counted_from_above_within_four_percent(record):
    """The QLoRA script's base (fp32 norms) under bf16 autocast keeps at most 4 % less than the planner counts."""
    entry = LORA["architectures"][record["arch"]]
    estimate = activation_memory(_config(entry), record["batch"], record["seq_len"],
                                 checkpointing=record["checkpointing"], lora_targets=record["targets"],
                                 lora_rank=record["rank"], qlora_preparation="norms", adapter_dtype="bf16").saved
    measured = record["saved_bytes"]
    assert measured <= estimate <= 1.04 * measured
    if record["checkpointing"]:
        assert estimate <= 1.011 * measured


def test_trl_s_qlora_plan_against_the_peft_default():
    """Llama 2 7B, 2,048 tokens, rank 16 on q and v, no checkpointing: TRL's set-up needs 14.06 GiB, 7.21 less
    than prepare_model_for_kbit_training with fp32 adapters (21.27): no fp32 weights (0.49 GiB of the 0.50) nor
    fp32 hidden states, and bf16 adapters that read the hidden states they share instead of fp32 copies."""
    cfg = lc.get_preset("llama-2-7b")
    peft = plan_training(cfg, task="qlora", seq_len=2048)
    trl = plan_training(cfg, task="qlora", seq_len=2048, **{**setup_settings("trl-sft", "qlora"),
                                                           "checkpointing": False})
    assert round(peft.total / lc.GiB, 2) == 21.27
    assert (round(trl.total / lc.GiB, 2), round((peft.total - trl.total) / lc.GiB, 2)) == (14.06, 7.21)
    assert round((peft.weights - trl.weights) / lc.GiB, 2) == 0.5


def test_unmodelled_set_ups_are_refused_with_their_reason():
    with pytest.raises(Refusal, match="'unsloth' is not modelled: its default gradient checkpointing copies"):
        get_setup("unsloth")
    with pytest.raises(Refusal, match="setup must be one of 'trl-sft', 'llama-factory', 'axolotl', 'qlora-script'"):
        get_setup("trl")
    for preset in ("gpt2", "mixtral-8x7b"):
        with pytest.raises(Refusal, match=f"for a {preset.split('-')[0]} model it leaves parameters in fp32"):
            setup_settings("axolotl", "qlora", cfg=lc.get_preset(preset))
    assert setup_settings("axolotl", "qlora", cfg=lc.get_preset("llama-3-8b"))["qlora_preparation"] == "none"


def test_trl_keeps_lora_adapters_in_bf16_under_zero3_only():
    assert setup_settings("trl-sft", "lora")["adapter_dtype"] == "fp32"
    assert setup_settings("trl-sft", "lora", zero_stage=3)["adapter_dtype"] == "bf16"
    assert setup_settings("llama-factory", "lora", zero_stage=3)["adapter_dtype"] == "fp32"
