"""llmcalc's training state (weights, gradients, optimizer state) against the recorded bytes of real libraries.

``tests/data/training_state/recordings.json`` was written by ``tools/measure_training_state.py``
(torch, transformers, peft and bitsandbytes on CPU; see its docstring and the recording's
provenance).  Every recorded part is exact bytes, so every comparison is equality.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import llmcalc as lc
from llmcalc.activations import activation_memory
from llmcalc.planner import (
    PRECISIONS,
    QLORA_PREPARATIONS,
    adamw_8bit_state_bytes,
    plan_training,
    training_state_bytes,
)

RECORDINGS = json.loads((pathlib.Path(__file__).parent / "data" / "training_state" / "recordings.json")
                        .read_text("utf-8"))
# Each recorded regime and the llmcalc arguments that describe it.
REGIMES: dict[str, dict[str, Any]] = {
    "bf16": {}, "amp": {"precision": "amp"}, "mixed": {"precision": "mixed"},
    "adamw-8bit": {"optimizer": "adamw-8bit"}, "lora": {"task": "lora"}, "qlora": {"task": "qlora"},
    "qlora-no-prepare": {"task": "qlora", "qlora_preparation": "none"},
    "qlora-adamw-8bit": {"task": "qlora", "optimizer": "adamw-8bit"},
}
CASES = [(arch, regime) for arch in RECORDINGS["architectures"] for regime in REGIMES]


def _config(arch: str) -> lc.ModelConfig:
    recorded = RECORDINGS["architectures"][arch]
    return lc.ModelConfig.from_hf_config({"model_type": recorded["model_type"], **recorded["config"]})


def test_recordings_cover_every_regime_and_name_their_libraries():
    provenance = RECORDINGS["provenance"]
    assert {"torch", "transformers", "peft", "bitsandbytes"} <= provenance.keys()
    for record in RECORDINGS["architectures"].values():
        assert set(record["regimes"]) == set(REGIMES)


@pytest.mark.parametrize(("arch", "regime"), CASES)
def test_matches_recording_to_the_byte(arch, regime):
    record = RECORDINGS["architectures"][arch]
    measured = record["regimes"][regime]
    args = dict(REGIMES[regime])
    if "task" in args:
        args |= {"targets": record["lora_targets"], "rank": record["lora_rank"]}
    computed = training_state_bytes(_config(arch), **args)
    assert computed == {
        "weights": measured["weights"],
        "gradients": measured["gradients"],
        "optimizer_states": measured["optimizer_states"] + measured["master_weights"],
    }


def test_transformers_5_loads_the_bf16_checkpoint_in_bf16_without_a_dtype():
    # The default precision rests on this: from_pretrained without dtype kept the checkpoint's bfloat16.
    for record in RECORDINGS["architectures"].values():
        assert record["regimes"]["bf16"]["loaded_dtype"] == "torch.bfloat16"
        assert record["regimes"]["amp"]["loaded_dtype"] == "torch.float32"
    assert PRECISIONS[0] == "bf16" and QLORA_PREPARATIONS[0] == "kbit"


def test_eight_bit_block_constants_by_hand():
    # 1000 x 352 embedding: 352,000 values, 1,375 blocks of 256; a 352-value norm keeps fp32 states.
    assert adamw_8bit_state_bytes([(352_000, 1)]) == 2 * 352_000 + 8 * 1375 + 2048
    assert adamw_8bit_state_bytes([(4097, 1)]) == 2 * 4097 + 8 * 17 + 2048
    assert adamw_8bit_state_bytes([(352, 5)]) == 5 * 8 * 352
    assert adamw_8bit_state_bytes([]) == 0


def test_regimes_on_llama_2_7b():
    cfg = lc.get_preset("llama-2-7b")
    n = lc.param_count(cfg)
    assert [sum(training_state_bytes(cfg, precision=p).values()) for p in PRECISIONS] == [8 * n, 16 * n, 16 * n]
    upcast = (training_state_bytes(cfg, task="qlora")["weights"]
              - training_state_bytes(cfg, task="qlora", qlora_preparation="none")["weights"])
    breakdown = lc.param_breakdown(cfg)
    assert upcast == 2 * (breakdown["embedding"] + breakdown["lm_head"] + breakdown["norms"])
    llama3 = lc.get_preset("llama-3-8b")
    upcast3 = (training_state_bytes(llama3, task="qlora")["weights"]
               - training_state_bytes(llama3, task="qlora", qlora_preparation="none")["weights"])
    assert round(upcast / lc.GiB, 2) == 0.49 and round(upcast3 / lc.GiB, 2) == 1.96


def test_lora_dropout_adds_activations_only():
    cfg = lc.get_preset("llama-2-7b")
    plain = plan_training(cfg, task="lora", seq_len=512)
    dropped = plan_training(cfg, task="lora", seq_len=512, lora_dropout=0.1)
    assert dropped.activations > plain.activations
    assert (dropped.weights, dropped.optimizer_states) == (plain.weights, plain.optimizer_states)
    expected = activation_memory(cfg, 1, 512, lora_targets=("q", "v"), lora_dropout=0.1).peak
    assert dropped.activations == expected


@pytest.mark.parametrize(("args", "message"), [
    ({"precision": "fp8"}, "precision must be one of 'bf16', 'amp', 'mixed'; got 'fp8'"),
    ({"task": "lora", "precision": "amp"}, "precision applies to full fine-tuning only"),
    ({"task": "qlora", "qlora_preparation": "fp32"}, "qlora_preparation must be one of 'kbit', 'none'"),
    ({"task": "lora", "qlora_preparation": "none"}, "qlora_preparation applies to QLoRA only"),
])
def test_bad_input_names_value_and_choices(args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        training_state_bytes(lc.get_preset("llama-2-7b"), **args)
