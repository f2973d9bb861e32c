"""The command line: a preset or config.json as MODEL, overrides that never reset a stated field, clear errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from llmcalc.cli import main
from llmcalc.planner import CARDS

HF_MODELS = Path(__file__).parent / "data" / "hf_models"


def run(capsys, *argv):
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def rows(text):
    return [" ".join(line.split()) for line in text.splitlines()]


# Each expected row is given as its whitespace-separated cells, so column widths do not matter.
@pytest.mark.parametrize("argv, expected_row", [
    (["params", "llama-2-7b"], "total 6,738,415,616 6.74 B"),
    (["params", "mixtral-8x7b"], "active per token 12,879,925,248 12.88 B"),
    (["params", "--vocab-size", "10", "--d-model", "8", "--n-layers", "2", "--n-heads", "2", "--d-ff", "16"],
     "total 1,480 1.48 K"),
    (["params", "llama-2-7b", "--n-kv-heads", "8"], "total 5,933,109,248 5.93 B"),
    (["memory", "llama-2-7b", "--dtype", "bf16"], "bf16 13,476,831,232 13.48 GB (12.55 GiB)"),
    (["memory", "reference"], "total 2,873,518,080 2.87 GB (2.68 GiB)"),
    (["kv-cache", "llama-2-7b", "--tokens", "4k"], "4,096 2,147,483,648 2.15 GB (2.00 GiB)"),
    (["kv-cache", "llama-3-8b", "--tokens", "8k", "--batch", "4", "--dtype", "fp8"],
     "8,192 2,147,483,648 2.15 GB (2.00 GiB)"),
    (["lora", "llama-2-7b", "--rank", "8"], "8 4,194,304 0.062%"),
    (["lora", "reference", "--rank", "16", "--targets", "all-linear"], "16 4,874,240 2.714%"),
    (["lora", "gpt2", "--rank", "8", "--targets", "c_attn"], "8 294,912 0.237%"),
    (["params", str(HF_MODELS / "deepseek-v2-lite.json")], "active per token 2,661,150,208 2.66 B"),
    (["presets"], "llama-2-70b 68,976,648,192 68.98 B 80 8192 64/8"),
    # Llama-2-7B by hand: 2 bytes x 6,738,415,616 weights + 2 x 32 x 4,096 x 2 bytes x 4,096 tokens + 1 GiB.
    (["plan", "llama-2-7b"], "total 16,698,056,704 16.70 GB (15.55 GiB)"),
    # The search stops at the 4,096 positions Llama 2 was trained on, unless asked to go beyond (then 21,398).
    (["plan", "llama-2-7b", "--gpu", "24"],
     "fits in 25.77 GB (24.00 GiB) (9.07 GB (8.45 GiB) to spare); largest context that fits: 4,096 (the 4,096 "
     "positions the model was trained on; more fits in memory: --beyond-trained-context searches past them)"),
    (["plan", "llama-2-7b", "--gpu", "24", "--beyond-trained-context"],
     "fits in 25.77 GB (24.00 GiB) (9.07 GB (8.45 GiB) to spare); largest context that fits: 21,398 (beyond the "
     "4,096 positions the model was trained on)"),
    # A T4 as a process sees it: 14.56 GiB (CatVTON issue 133), not nvidia-smi's 15.00 GiB nor the box's 16; page 19's
    # QLoRA example (15.63 GiB: peft's preparation-free base, FP32 adapters, no checkpointing) does not fit it.
    (["plan", "llama-2-7b", "--task", "qlora", "--qlora-preparation", "none", "--adapter-dtype", "fp32",
      "--no-checkpointing", "--gpu", "t4"],
     "does not fit in 15.63 GB (14.56 GiB) (1.15 GB (1.07 GiB) over); largest micro-batch that fits: 0"),
    (["plan", "llama-2-7b", "--task", "full", "--zero-stage", "3", "--gpus", "8"],
     "full fine-tuning, per GPU, each of 8 (ZeRO stage 3); bf16 weights, gradients and optimizer states "
     "(transformers 5, torch AdamW)"),
    # 8 GPUs share DeepSpeed's 16 bytes a parameter at ZeRO-3: 6,738,415,616 / 8 x 12 bytes of optimizer state.
    (["plan", "llama-2-7b", "--task", "full", "--zero-stage", "3", "--gpus", "8", "--precision", "mixed"],
     "optimizer states 10,107,623,424 10.11 GB (9.41 GiB)"),
    (["plan", "llama-2-7b", "--task", "lora", "--rank", "16"], "gradients 33,554,432 33.55 MB (32.00 MiB)"),
])
def test_tables(capsys, argv, expected_row):
    assert expected_row in rows(run(capsys, *argv))


def test_override_keeps_the_presets_kv_heads_and_shows_the_configuration(capsys):
    """The newcomer review's case: Llama-3-8B widened to 70B-class keeps its 8 KV heads (70.55 B, not 79.95 B)."""
    out = run(capsys, "params", "llama-3-8b", "--d-model", "8192", "--n-layers", "80", "--n-heads", "64",
              "--d-ff", "28672")
    assert "total 70,553,706,496 70.55 B" in rows(out)
    header = out.splitlines()[0]
    assert header.startswith("llama-3-8b (modified): ")
    assert "n_kv_heads=8 " in header and "d_model=8192 (was 4096)" in header and "head_dim=128 (derived)" in header


def test_an_override_that_breaks_a_stated_field_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["params", "llama-3-8b", "--n-heads", "12", "--head-dim", "128"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "n_kv_heads must divide n_heads=12" in err and "set them too" in err


def test_plan_json_has_the_parts_the_verdict_and_the_largest_fit(capsys):
    result = json.loads(run(capsys, "plan", "llama-2-7b", "--task", "qlora", "--gpu", "24", "--json"))
    assert set(result["parts"]) == {"weights", "kv_cache", "gradients", "optimizer_states", "activations", "reserve"}
    assert result["total"] == sum(result["parts"].values()) and result["gpu_bytes"] == 24 * 2**30
    assert result["fits"] is True and result["largest_micro_batch"] >= 1


@pytest.mark.parametrize("size, expected", [
    ("24", 24 * 2**30), ("22.49", 2249 * 2**30 // 100), ("23034MiB", 23_034 * 2**20), ("23034 mib", 23_034 * 2**20),
    ("24GB", 24 * 10**9), ("44.99 GiB", 4499 * 2**30 // 100),
    # A card's key: the total a process sees on it, as its log prints it (L40S 44.42 GiB, H100 SXM 79.11 GiB).
    ("l40s", 4442 * 2**30 // 100), ("H100-SXM", 7911 * 2**30 // 100),
])
def test_gpu_takes_fractional_gib_units_and_card_names(capsys, size, expected):
    assert json.loads(run(capsys, "plan", "llama-2-7b", "--gpu", size, "--json"))["gpu_bytes"] == expected


def test_llama_3_8b_on_24_gib_stops_at_its_trained_context_unless_asked(capsys):
    """The issue's done-when: at most 8,192 by default; 65,883 tokens fit in memory when searched past it."""
    stopped = json.loads(run(capsys, "plan", "llama-3-8b", "--gpu", "24", "--json"))
    assert stopped["largest_context"] == 8192 and stopped["largest_context_stops_at_trained"] is True
    beyond = json.loads(run(capsys, "plan", "llama-3-8b", "--gpu", "24", "--beyond-trained-context", "--json"))
    assert beyond["largest_context"] == 65_883 and beyond["largest_context_beyond_trained"] is True
    out = run(capsys, "plan", "llama-3-8b", "--context", "32k")
    assert "note: a context of 32,768 tokens is beyond the 8,192 positions the model was trained on" in out


def test_a_model_folder_holding_config_json_is_a_model(capsys, tmp_path):
    (tmp_path / "config.json").write_text((HF_MODELS / "llama-3.1-8b.json").read_text())
    assert "total 8,030,261,248 8.03 B" in rows(run(capsys, "params", str(tmp_path)))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SystemExit):
        main(["params", str(empty)])
    assert f"the folder {str(empty)!r} holds no config.json" in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly():
    """``llmcalc ... | head -1``: no BrokenPipeError traceback."""
    result = subprocess.run(f"{sys.executable} -m llmcalc presets | head -1", shell=True, capture_output=True,
                            text=True, check=True)
    assert result.stdout.startswith("preset") and result.stderr == ""


def test_json_output(capsys):
    result = json.loads(run(capsys, "kv-cache", "reference", "--tokens", "1k", "8k", "--json"))
    assert result["bytes"] == {"1024": 10_485_760, "8192": 83_886_080}
    assert result["config"]["n_kv_heads"] == 2 and result["model"] == "reference"
    assert json.loads(run(capsys, "presets", "--json"))["gpt2"] == 124_439_808


@pytest.mark.parametrize("argv, message", [
    (["params", "--vocab-size", "10"], "give MODEL (a preset name or a config.json path) or all of --d-model"),
    (["params", "llama-2-7"], "MODEL must be one of 'reference'"),
    (["params", "llama-2-7"], "(did you mean 'llama-2-7b'?)"),
    (["params", "missing.json"], "cannot read 'missing.json'"),
    (["lora", "gpt2", "--rank", "8", "--targets", "q", "v"],
     "target 'q' matches no module of this model (it fuses 'q' into 'attn.c_attn'"),
    (["kv-cache", "gpt2", "--batch", "0"], "batch must be an integer >= 1; got 0"),
    (["params", "gpt2", "--d-model", "0"], "d_model must be an integer >= 1; got 0"),
    (["kv-cache", "gpt2", "--tokens", "8q"], "'8q' is not a token count: token counts: plain integers or with"),
    (["kv-cache", "gpt2", "--tokens", "1.0001k"], "'1.0001k' is not a whole number of tokens"),
    (["plan", "mixtral-8x7b", "--task", "qlora", "--targets", "all-linear", "--qlora-preparation", "kbit"],
     "activation memory is not modelled for peft's adapters on stacked experts or a router of a kbit-prepared base"),
    (["plan", "gpt2", "--context", "2k"], "context must be an integer in [1, 1024]; got 2048"),
    (["plan", "llama-2-7b", "--task", "inference", "--gpus", "2"], "--gpus does not apply to --task inference"),
    (["plan", "llama-2-7b", "--gpu", "0"], "argument --gpu: GPU memory must be from 1 MiB to 100,000 GiB; got '0'"),
    (["plan", "llama-2-7b", "--gpu", "24 TB"], "a number of GiB (22.49), one with a unit MiB, GiB or GB"),
    (["plan", "llama-2-7b", "--task", "full", "--context", "32768"],
     "--context does not apply to --task full (--context applies to inference)"),
    (["plan", "llama-2-7b", "--task", "inference", "--gpus", "2"], "--gpus does not apply to --task inference"),
    (["plan", "llama-2-7b", "--task", "full", "--weight-format", "nf4"], "--weight-format does not apply"),
    (["plan", "llama-2-7b", "--task", "qlora", "--rank", "8", "--zero-stage", "3", "--setup", "qlora-script"],
     "QLoRA under ZeRO stage 3 (or FSDP's full shard) needs every parameter in one floating dtype"),
    (["plan", "llama-2-7b", "--task", "full", "--beyond-trained-context"], "--beyond-trained-context does not"),
    (["plan", "llama-2-7b", "--task", "full", "--precision", "fp8"],
     "argument --precision: invalid choice: 'fp8' (choose from 'bf16', 'amp', 'mixed')"),
    (["plan", "llama-2-7b", "--task", "lora", "--precision", "amp"],
     "--precision does not apply to --task lora (--precision applies to full)"),
    (["plan", "llama-2-7b", "--task", "qlora", "--qlora-preparation", "fp32"],
     "argument --qlora-preparation: invalid choice: 'fp32' (choose from 'kbit', 'none', 'norms')"),
    (["plan", "llama-2-7b", "--task", "qlora", "--setup", "unsloth"],
     "the training set-up 'unsloth' is not modelled: its default gradient checkpointing copies each checkpointed "
     "hidden state to CPU memory"),
    (["plan", "mixtral-8x7b", "--task", "qlora", "--setup", "axolotl", "--targets", "q", "v"],
     "the axolotl set-up is modelled for dense models whose norms are named '*norm*' only: for a mixtral model"),
    (["plan", "llama-2-7b", "--task", "full", "--setup", "trl-sft"],
     "--setup does not apply to --task full (--setup applies to lora, qlora)"),
    (["plan", "llama-2-7b", "--task", "lora", "--qlora-preparation", "none"],
     "--qlora-preparation does not apply to --task lora (--qlora-preparation applies to qlora)"),
    (["plan", "llama-2-7b", "--task", "qlora", "--lora-dropout", "1"],
     "lora_dropout must be a finite number >= 0 and < 1; got 1.0"),
    (["plan", "llama-2-7b", "--task", "full", "--lora-dropout", "0.1"], "--lora-dropout does not apply to --task full"),
])
def test_errors_exit_2_with_a_message(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_help_describes_fields_defaults_and_units():
    result = subprocess.run([sys.executable, "-m", "llmcalc", "kv-cache", "--help"], capture_output=True, text=True,
                            check=True)
    text = " ".join(result.stdout.split())
    assert "key/value heads; 0 means n_heads (multi-head attention)" in text
    assert "k = 1,024 and M = 1,048,576 tokens (8k = 8,192" in text
    assert "number format of the cache (default: bf16)" in text


@pytest.mark.parametrize("argv, kwargs, heading", [
    ([], {}, "full fine-tuning, one GPU; bf16 weights, gradients and optimizer states (transformers 5, torch AdamW)"),
    (["--precision", "amp"], {"precision": "amp"}, "PyTorch AMP: fp32 weights, gradients and optimizer states"),
    (["--precision", "mixed", "--optimizer", "adamw-8bit"], {"precision": "mixed", "optimizer": "adamw-8bit"},
     "DeepSpeed/Megatron mixed precision"),
    (["--task", "qlora", "--qlora-preparation", "kbit", "--adapter-dtype", "fp32", "--no-checkpointing"],
     {"task": "qlora", "qlora_preparation": "kbit", "adapter_dtype": "fp32", "checkpointing": False},
     "prepare_model_for_kbit_training (fp32 embedding, head, norms)"),
    (["--task", "qlora", "--qlora-preparation", "none", "--lora-dropout", "0.05"],
     {"task": "qlora", "qlora_preparation": "none", "lora_dropout": 0.05, "adapter_dtype": "bf16",
      "checkpointing": True}, "NF4 base, other parameters left in 16"),
    (["--task", "lora", "--lora-dropout", "0.1"], {"task": "lora", "lora_dropout": 0.1, "checkpointing": True},
     "LoRA, one GPU; set-up TRL SFTTrainer 1.16.0; fp32 adapters, adamw, checkpointing on"),
    # The default set-up is TRL's SFTTrainer: an unprepared base, bf16 adapters, checkpointing on.
    (["--task", "qlora"], {"task": "qlora", "qlora_preparation": "none", "adapter_dtype": "bf16",
                           "checkpointing": True},
     "QLoRA, one GPU; set-up TRL SFTTrainer 1.16.0; NF4 base, other parameters left in 16 bits; bf16 adapters, "
     "adamw, checkpointing on"),
    (["--task", "qlora", "--setup", "llama-factory"],
     {"task": "qlora", "qlora_preparation": "none", "adapter_dtype": "fp32", "checkpointing": True, "rank": 8,
      "targets": "all-linear", "lora_dropout": 0.0}, "set-up LLaMA-Factory 0.9.5; NF4 base"),
    (["--task", "qlora", "--setup", "qlora-script"],
     {"task": "qlora", "qlora_preparation": "norms", "adapter_dtype": "bf16", "checkpointing": True, "rank": 64,
      "targets": "all-linear", "optimizer": "adamw-32bit"},
     "set-up QLoRA script (artidoro/qlora qlora.py) 7f4e95a; NF4 base prepared as the QLoRA script does (fp32 "
     "norms, 16-bit embedding and head); bf16 adapters, adamw-32bit, checkpointing on"),
    (["--task", "qlora", "--setup", "axolotl", "--rank", "32"],
     {"task": "qlora", "qlora_preparation": "none", "adapter_dtype": "fp32", "checkpointing": False, "rank": 32},
     "set-up axolotl 0.19.0; NF4 base, other parameters left in 16 bits; fp32 adapters, adamw, checkpointing off"),
])
def test_plan_names_the_training_set_up_and_computes_it(capsys, argv, kwargs, heading):
    import llmcalc as lc
    from llmcalc.planner import plan_training

    task = [] if "--task" in argv else ["--task", "full"]
    text = run(capsys, "plan", "llama-2-7b", *task, *argv)
    assert heading in text
    result = json.loads(run(capsys, "plan", "llama-2-7b", *task, *argv, "--json"))
    expected = plan_training(lc.get_preset("llama-2-7b"), seq_len=2048, **{"task": "full", **kwargs})
    assert result["total"] == expected.total
    for name, value in kwargs.items():
        assert name in ("task", "rank", "targets") or result[name] == value
    assert result.get("precision", "bf16") == kwargs.get("precision", "bf16")


@pytest.mark.parametrize(("argv", "named"), [
    (["plan", "llama-2-7b", "--gpu", "24x"], ["'24x'", "1 MiB to 100,000 GiB"]),
    (["params", "llama-2-7b", "--d-model", "abc"], ["--d-model", "'abc'", "whole number"]),
    (["plan", "llama-2-7b", "--task", "QLoRA"], ["'QLoRA'", "'qlora'"]),
    (["plan", "llama-2-7b", "--lora-dropout", "5%"], ["'5%'", "decimal number"]),
    (["kv-cache", "llama-2-7b", "--tokens", "128kb"], ["'128kb'", "k = 1,024"]),
    (["parms", "llama-2-7b"], ["'parms'", "'params'"]),
])
def test_an_argument_error_is_one_line_without_the_usage(capsys, argv, named):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("llmcalc") and ": error: " in err
    assert "usage:" not in err and "--help')" in err
    for text in named:
        assert text in err


def test_the_usage_is_printed_with_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "--help"])
    assert exit_info.value.code == 0 and capsys.readouterr().out.startswith("usage: llmcalc plan")


@pytest.mark.parametrize(("typed", "suggested"), [
    ("llama2-7b", "llama-2-7b"),      # a dropped separator
    ("Llama-2-7B", "llama-2-7b"),     # case
    ("lama-2-7b", "llama-2-7b"),      # a dropped letter
    ("mistrla-7b", "mistral-7b"),     # two letters swapped
    ("gpt-2", "gpt2"),
    ("llama-2-34b", None),            # another size of the same family
    ("qwen2.5-3b", None),
    ("llama-3-70b", None),            # another generation
    ("llama-3.1-405b", None),
    ("phi-3", None),
])
def test_did_you_mean_names_only_a_slip_never_another_size(capsys, typed, suggested):
    with pytest.raises(SystemExit):
        main(["params", typed])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"got {typed!r}" in err
    if suggested is None:
        assert "did you mean" not in err and "give its config.json, a folder holding one" in err
    else:
        assert f"(did you mean {suggested!r}?)" in err


def test_a_plan_that_does_not_fit_names_the_changes_that_make_it_fit(capsys):
    """The newcomer's question: QLoRA of Llama-2-13B on a 24 GiB card."""
    argv = ["plan", "llama-2-13b", "--task", "qlora", "--qlora-preparation", "kbit", "--adapter-dtype", "fp32",
            "--no-checkpointing", "--gpu", "24"]
    result = json.loads(run(capsys, *argv, "--json"))
    assert result["fits"] is False
    changes = result["changes_that_fit"]
    assert [c["change"] for c in changes][:2] == ["--checkpointing", "--seq-len 1289"]
    assert changes[-1]["change"].startswith("--gpu ")
    # Each named change, typed as printed, gives a plan that fits at the total shown.
    for change in changes:
        flags = change["change"].split()
        again = argv[:-2] + (["--gpu", flags[1]] if flags[0] == "--gpu" else ["--gpu", "24", *flags])
        replanned = json.loads(run(capsys, *again, "--json"))
        assert replanned["fits"] is True and replanned["total"] == change["total"]
        assert replanned["gpu_bytes"] == change["gpu_bytes"] and replanned["changes_that_fit"] == []
    # The shorter sequence is the longest that fits: one token more does not.
    assert json.loads(run(capsys, *argv, "--seq-len", "1913", "--json"))["fits"] is False
    # No listed card smaller than the one named holds the plan.
    smaller = [card for card in CARDS if 24 * 2**30 < card.total_bytes < changes[-1]["gpu_bytes"]]
    assert all(card.total_bytes < result["total"] for card in smaller)
    text = run(capsys, *argv)
    assert "it fits with one change; the smallest: --checkpointing" in text
    assert "--seq-len 1289" in text and "to spare in" in text


def test_inference_that_does_not_fit_names_a_format_and_a_card(capsys):
    result = json.loads(run(capsys, "plan", "llama-2-13b", "--gpu", "24", "--batch", "4", "--json"))
    assert result["fits"] is False
    settings = [c["setting"] for c in result["changes_that_fit"]]
    assert settings[0] == "weight_format" and settings[-1] == "gpu" and "batch" not in settings
    fp8 = json.loads(run(capsys, "plan", "llama-2-13b", "--gpu", "24", "--batch", "4", "--weight-format",
                         result["changes_that_fit"][0]["value"], "--json"))
    assert fp8["fits"] and fp8["total"] == result["changes_that_fit"][0]["total"]


def test_when_nothing_single_fits_it_says_so(capsys):
    argv = ["plan", "llama-3.1-70b", "--task", "full", "--gpu", "12"]
    assert json.loads(run(capsys, *argv, "--json"))["changes_that_fit"] == []
    assert "no single change makes it fit" in run(capsys, *argv)


def test_a_plan_that_fits_names_no_change(capsys):
    result = json.loads(run(capsys, "plan", "llama-2-7b", "--task", "qlora", "--gpu", "24", "--checkpointing",
                            "--json"))
    assert result["fits"] is True and result["changes_that_fit"] == []


def test_each_model_field_flag_is_helped_by_the_first_sentence_of_its_docstring_entry():
    """The oracle is napoleon's own reading of ModelConfig's docstring (what the reference page shows)."""
    import dataclasses
    import inspect
    import re

    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import NumpyDocstring

    from llmcalc import ModelConfig
    from llmcalc.cli import build_parser

    parsed = str(NumpyDocstring(inspect.getdoc(ModelConfig), Config(napoleon_use_param=True)))
    entries = re.findall(r":param (\w+): (.*?)(?=\n:|\Z)", parsed, re.S)
    described = {name: " ".join(text.split()) for name, text in entries}
    params = next(action for action in build_parser()._actions if action.dest == "command").choices["params"]
    helps = {action.dest: action.help for action in params._actions}
    fields = [field.name for field in dataclasses.fields(ModelConfig) if field.type in ("int", "bool")]
    assert len(fields) >= 25
    for name in fields:
        plain = described[name].replace("``", "").replace(":mod:", "").replace("`", "")
        assert helps[name] and plain.lower().startswith(helps[name].lower()), name


def test_the_listed_rtx_3090_plans_vllm_at_the_total_vllm_printed(capsys):
    """vLLM issue 10517 (RTX 3090, Llama 3.1 8B, 20k): total_gpu_memory=23.58GiB and 1,952 blocks, 31,232 tokens.

    With nvidia-smi's 24,576 MiB the listed card gave 34,672 tokens (+11 %) and let 27,000 start; the log's trend
    (23,648 tokens at 29k) puts vLLM's limit near 25,300, a refusal."""
    argv = ["plan", "llama-3-8b", "--trained-context", "131072", "--engine", "vllm", "--gpu", "rtx-3090",
            "--max-num-batched-tokens"]
    at_20k = json.loads(run(capsys, *argv, "20000", "--context", "20000", "--json"))
    assert at_20k["kv_tokens"] == 31_568 and abs(at_20k["kv_tokens"] / 31_232 - 1) < 0.011
    assert at_20k["gpu_bytes"] == 2358 * 2**30 // 100 and at_20k["gpu_total"]["source"] == "process"
    at_27k = json.loads(run(capsys, *argv, "27000", "--context", "27000", "--json"))
    assert at_27k["fits"] is False and at_27k["largest_context"] == 25_664
    text = run(capsys, *argv, "20000", "--context", "20000")
    assert ("GPU memory: RTX 3090 (24 GB), 23.58 GiB, the total a process sees, as "
            "https://github.com/vllm-project/vllm/issues/10517 prints it (nvidia-smi reports 24,576 MiB)") in text


@pytest.mark.parametrize("gpu, source, words", [
    ("a10g", "estimate", "22,147 MiB, an estimate of the total a process sees: nvidia-smi's 23,028 MiB less 881 MiB"),
    ("a10g", "estimate", "each left out in turn, the rule is 278 MiB over to 880 MiB under"),
    ("24GB", "typed", "24.00 GB (22.35 GiB) as given; plans need the total a process sees"),
])
def test_the_cli_says_which_total_it_planned_with(capsys, gpu, source, words):
    assert json.loads(run(capsys, "plan", "llama-2-7b", "--gpu", gpu, "--json"))["gpu_total"]["source"] == source
    assert words in run(capsys, "plan", "llama-2-7b", "--gpu", gpu)
