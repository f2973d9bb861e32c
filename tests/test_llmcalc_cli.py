"""The command line: tables for presets and explicit models, clear errors for bad input."""

import pathlib
import subprocess
import sys

import pytest

from llmcalc.cli import main


def run(capsys, *argv):
    status = main(list(argv))
    return status, capsys.readouterr().out


# Each expected row is given as its whitespace-separated cells, so column widths do not matter.
@pytest.mark.parametrize("argv, expected_row", [
    (["params", "--preset", "llama-2-7b"], "total 6,738,415,616 6.74 B"),
    (["params", "--preset", "mixtral-8x7b"], "active per token 12,879,925,248 12.88 B"),
    (["params", "--vocab-size", "10", "--d-model", "8", "--n-layers", "2", "--n-heads", "2", "--d-ff", "16"],
     "total 1,480 1.48 K"),
    (["params", "--preset", "llama-2-7b", "--n-kv-heads", "8"], "total 5,933,109,248 5.93 B"),
    (["memory", "--preset", "llama-2-7b", "--dtype", "bf16"], "bf16 13,476,831,232 13.48 GB (12.55 GiB)"),
    (["memory", "--preset", "reference"], "total 2,873,518,080 2.87 GB (2.68 GiB)"),
    (["memory", "--preset", "reference", "--optimizer", "sgd", "--precision", "fp32"],
     "total 1,436,759,040 1.44 GB (1.34 GiB)"),
    (["kv-cache", "--preset", "llama-2-7b", "--tokens", "4096"], "4,096 2,147,483,648 2.15 GB (2.00 GiB)"),
    (["kv-cache", "--preset", "llama-3-8b", "--tokens", "8192", "--batch", "4", "--dtype", "fp8"],
     "8,192 2,147,483,648 2.15 GB (2.00 GiB)"),
    (["lora", "--preset", "llama-2-7b", "--rank", "8"], "8 4,194,304 0.062%"),
    (["lora", "--preset", "reference", "--rank", "16", "--targets", "all-linear"], "16 4,874,240 2.714%"),
    (["presets"], "llama-2-70b 68,976,648,192 68.98 B 80 8192 64/8"),
])
def test_cli_tables(capsys, argv, expected_row):
    status, out = run(capsys, *argv)
    assert status == 0
    rows = [" ".join(line.split()) for line in out.splitlines()]
    assert expected_row in rows, out


@pytest.mark.parametrize("argv, message", [
    (["params", "--vocab-size", "10"], "give --preset NAME or all of --d-model, --n-layers, --n-heads, --d-ff"),
    (["params", "--vocab-size", "10", "--d-model", "64", "--n-layers", "2", "--n-heads", "6", "--d-ff", "8"],
     "n_heads=6 does not divide d_model=64"),
    (["lora", "--preset", "gpt2", "--rank", "1000"], "rank must be an integer in [1, smallest targeted matrix side=768]"),
    (["lora", "--preset", "gpt2", "--targets", "gate"], "an ffn='mlp' model has no gate matrix"),
    (["kv-cache", "--preset", "gpt2", "--tokens", "-5"], "tokens must be an integer >= 0; got -5"),
    (["params", "--preset", "gpt2", "--d-model", "0"], "d_model must be an integer >= 1; got 0"),
])
def test_cli_errors_exit_2_with_message(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_unknown_preset_rejected_by_argparse(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["params", "--preset", "gpt-5"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'gpt-5'" in capsys.readouterr().err


def test_python_dash_m():
    result = subprocess.run([sys.executable, "-m", "llmcalc", "params", "--preset", "gpt2"],
                            capture_output=True, text=True, check=True,
                            cwd=pathlib.Path(__file__).resolve().parent.parent)
    assert "124,439,808" in result.stdout
