"""Apple silicon's unified memory (llmcalc.unified): each Mac's working set as its published log prints it.

Oracle: the machine's own memory.  Metal's default working set for one process was two thirds of 16 or 32 GiB and
three quarters of 64 or 96 GiB in the logs of 2023, and 84 % of 128 GiB on macOS 26; each figure, read in the unit the
entry records (llama.cpp printed MiB under the label "MB" until 2023), must be that share of its machine to within
one printed hundredth, which also checks the unit.  The CLI plans a Mac for llama.cpp and refuses every other plan.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from llmcalc.cli import main
from llmcalc.planner import CARDS, gpu_memory
from llmcalc.unified import UNIFIED_MEMORY, unified_memory

SHARE = {16: Fraction(2, 3), 32: Fraction(2, 3), 64: Fraction(3, 4), 96: Fraction(3, 4), 128: Fraction(84, 100)}
HUNDREDTH = {"MiB": 2**20 // 100, "MB": 10**4, "GiB": 2**30 // 100}


@pytest.mark.parametrize("mac", UNIFIED_MEMORY, ids=lambda mac: mac.key)
def test_each_working_set_is_its_machine_s_default_share(mac) -> None:
    assert mac.key.startswith("apple-") and mac.key.endswith(f"-{mac.memory_gb}gb")
    assert abs(mac.total_bytes - mac.memory_bytes * SHARE[mac.memory_gb]) <= HUNDREDTH[mac.unit]
    assert mac.working_set.replace(".", ",") in mac.quote or mac.working_set in mac.quote
    assert mac.source.startswith("https://github.com/") and gpu_memory(mac.key.upper()) == mac.total_bytes
    assert unified_memory(f" {mac.key} ") is mac


def test_the_keys_are_the_macs_and_not_the_cards() -> None:
    keys = [mac.key for mac in UNIFIED_MEMORY]
    assert len(set(keys)) == len(keys) and not set(keys) & {card.key for card in CARDS}
    assert gpu_memory("apple-m2-max-96gb") == 72 * 2**30  # 73,728.00 MiB printed: three quarters of 96 GiB


def test_a_mac_is_planned_for_llama_cpp(capsys: pytest.CaptureFixture[str]) -> None:
    """llama-3-8b Q4_K_M at 8,192 tokens fits an M1 with 16 GB (10,922.67 MiB for Metal); Qwen3 32B at 32k does not
    fit an M2 Max with 32 GB, and the longest context that does is the one the same plan gives on a typed total."""
    assert main(["gguf", "llama-3-8b", "--recipe", "Q4_K_M", "--context", "8192", "--gpu", "apple-m1-16gb",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["gpu_total"] == {"source": "metal", "card": "apple-m1-16gb", "memory_gb": 16,
                                   "working_set": "10922.67 MiB",
                                   "process_source": "https://github.com/ise-uiuc/magicoder/issues/19"}
    assert result["fits"] is True
    assert main(["gguf", "qwen3-32b", "--recipe", "Q4_K_M", "--context", "32768", "--gpu", "apple-m2-max-32gb",
                 "--json"]) == 0
    mac = json.loads(capsys.readouterr().out)
    assert main(["gguf", "qwen3-32b", "--recipe", "Q4_K_M", "--context", "32768", "--gpu", "21845.34 MiB",
                 "--json"]) == 0
    typed = json.loads(capsys.readouterr().out)
    assert mac["fits"] is False and {k: v for k, v in mac.items() if k != "gpu_total"} == {
        k: v for k, v in typed.items() if k != "gpu_total"}


@pytest.mark.parametrize("options", [["--task", "inference"], ["--task", "inference", "--engine", "vllm"],
                                     ["--task", "full"], ["--task", "lora"], ["--task", "qlora"]])
def test_every_other_plan_on_a_mac_is_refused_by_name(capsys: pytest.CaptureFixture[str], options: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["plan", "llama-3-8b", "--gpu", "apple-m2-max-96gb", *options])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "apple-m2-max-96gb is Apple silicon's unified memory, planned for llama.cpp only" in err
    assert "vLLM has no Metal backend" in err
