"""The CLI's defaults are the libraries' defaults, on every committed Hub config.json.

Oracle: what peft 0.22.0 itself did on each file (``tests/data/hub_configs/_peft_defaults.json``, written by
``tools/verify_peft_defaults.py``): ``get_peft_model(model, LoraConfig())`` on the model transformers 5.25 builds
from the file, the modules it adapted and its trainable-parameter count, or the error it raised; and its whole
default table (``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING``).  The trained context is the file's own.
"""

import json
from pathlib import Path

import pytest

from llmcalc.cli import main
from llmcalc.config import ModelConfig
from llmcalc.hf import SUPPORTED_MODEL_TYPES
from llmcalc.lora import PEFT_DEFAULT_TARGETS, PEFT_VERSION, lora_model_params
from llmcalc.params import linear_modules

HUB = Path(__file__).parent / "data" / "hub_configs"
PEFT = json.loads((HUB / "_peft_defaults.json").read_text(encoding="utf-8"))
FILES = sorted(path for path in HUB.glob("*.json") if not path.name.startswith("_"))


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of one CLI run."""
    try:
        status = main(list(argv))
    except SystemExit as stop:
        status = int(stop.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_table_is_peft_s_for_every_model_type_llmcalc_reads() -> None:
    assert PEFT["peft"] == PEFT_VERSION and PEFT["transformers"] == "5.25.0"
    for model_type in SUPPORTED_MODEL_TYPES:
        recorded = PEFT["mapping"].get(model_type)
        assert PEFT_DEFAULT_TARGETS.get(model_type) == (tuple(recorded) if recorded else None), model_type


def test_the_record_covers_every_committed_config() -> None:
    assert sorted(PEFT["models"]) == [path.name for path in FILES]
    assert len(FILES) == 45


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_every_committed_config_plans_with_the_cli_defaults(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    status, out, err = cli(capsys, "plan", str(path), "--task", "full", "--json")
    if status and "quantization_config" in data:
        # A quantized checkpoint is planned for inference (llmcalc.checkpoints) and refused for training, by name.
        assert f"a quantized checkpoint ({data['quantization_config']['quant_method']})" in err
        for task in ("lora", "qlora"):
            assert cli(capsys, "plan", str(path), "--task", task)[0] == 2
        if data["quantization_config"]["quant_method"] == "mxfp4":
            # gpt-oss: transformers' MXFP4 layout depends on the GPU, refused by name; vLLM's is planned on Hopper.
            status, _, err = cli(capsys, "plan", str(path), "--task", "inference")
            assert status == 2 and "layout its kernels choose" in err
            assert cli(capsys, "plan", str(path), "--engine", "vllm", "--vllm-version", "0.20+",
                       "--gpu", "h100-sxm")[0] == 0
        else:
            assert cli(capsys, "plan", str(path), "--task", "inference")[0] == 0
        return
    assert status == 0, err
    full = json.loads(out)
    trained = full["trained_context"]
    assert full["seq_len"] == min(2048, trained)
    inference = json.loads(cli(capsys, "plan", str(path), "--json")[1])
    assert inference["context"] == min(4096, trained)

    recorded = PEFT["models"][path.name]
    cfg = ModelConfig.from_hf_config(data)
    for task in ("lora", "qlora"):
        status, out, err = cli(capsys, "plan", str(path), "--task", task, "--json")
        if "error" in recorded:
            # peft raised: the CLI asks for targets, naming the model type and every adaptable module.
            assert status == 2 and f"no default LoRA targets for model_type {recorded['model_type']!r}" in err
            assert all(m.path in err for m in linear_modules(cfg) if m.adaptable)
            continue
        assert status == 0, err
        plan = json.loads(out)
        assert sorted(plan["targets"]) == recorded["target_modules"]
        assert plan["seq_len"] == min(2048, trained)
        assert lora_model_params(cfg, recorded["rank"], plan["targets"]) == recorded["trainable"]


def test_gpt2_plans_at_its_1024_positions_without_seq_len(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = cli(capsys, "plan", str(HUB / "gpt2.json"), "--task", "lora")
    assert status == 0, err
    assert "targets c_attn (peft 0.22.0's default for gpt2)" in out
    assert json.loads(cli(capsys, "plan", "gpt2", "--task", "qlora", "--json")[1])["seq_len"] == 1024


def test_the_help_states_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "plan", "--help")
    text = " ".join(out.split())
    assert status == 0
    assert "default: 2048, or the model's trained context if shorter: 1024 for GPT-2" in text
    assert "peft 0.22.0's default for the model type" in text and "adaptable modules listed" in text


@pytest.mark.parametrize("argv, note", [
    (["plan", "llama-2-7b", "--task", "lora", "--rank", "100000"],
     "rank 100,000 is above the width of self_attn.q_proj (4,096)"),
    (["lora", "llama-3-8b", "--rank", "8", "1025", "--targets", "q", "v"],
     "rank 1,025 is above the width of self_attn.v_proj (1,024)"),
])
def test_a_rank_above_the_layer_width_is_named_with_the_low_rank_range(
    capsys: pytest.CaptureFixture[str], argv: list[str], note: str,
) -> None:
    status, out, _ = cli(capsys, *argv)
    assert status == 0 and note in out and "low-rank ranks are in [1, " in out


def test_a_rank_within_the_width_has_no_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert "note: rank" not in cli(capsys, "plan", "llama-2-7b", "--task", "lora", "--rank", "4096")[1]


def test_a_lora_plan_that_does_not_fit_under_zero_3_gets_its_changes_not_a_qlora_refusal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Answer.AI's 2x3090 FSDP LoRA set-up (FP32 adapters) at 10 sequences: switching to QLoRA alone is not a change
    stage 3 takes."""
    status, out, err = cli(capsys, "plan", "llama-2-7b", "--task", "lora", "--zero-stage", "3", "--gpus", "2",
                           "--checkpointing", "--targets", "all-linear", "--rank", "64", "--lora-dropout", "0.1",
                           "--adapter-dtype", "fp32", "--micro-batch", "10", "--gpu", "rtx-3090")
    assert status == 0, err
    assert "does not fit" in out and "--micro-batch 8" in out and "--task qlora" not in out
