"""CPU offload in the planner widget (planneroffload.js) is the CLI's ``llmcalc plan --offload``, in both languages.

The oracle is the CLI's JSON: with ``--offload fsdp|zero`` its total and host RAM, and without it the FSDP offload it
names when a ZeRO-3 plan does not fit (``offload_fits``); llmcalc.offload itself is checked against Answer.AI's
published runs in tests/test_offload.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from test_planner import LANGUAGES, REPO, ROOT, Planners, choose, cli_plan_json, planners

__all__ = ["planners"]  # the fixture, imported to be used here

pytestmark = [pytest.mark.site, pytest.mark.browser]  # the built page 19, as test_planner's

QLORA_70B = {"task": "qlora", "rank": "16", "targets": "q,v", "seq_len": "2048", "micro_batch": "1",
             "zero_stage": "3", "n_gpus": "2", "gpu": "rtx-4090"}
QLORA_70B_ARGS = ["--task", "qlora", "--rank", "16", "--targets", "q", "v", "--seq-len", "2048", "--micro-batch", "1",
                  "--zero-stage", "3", "--gpus", "2", "--gpu", "rtx-4090"]
FULL_7B = {"task": "full", "seq_len": "1024", "micro_batch": "2", "zero_stage": "2", "n_gpus": "4",
           "gpu": "rtx-4090"}
FULL_7B_ARGS = ["--task", "full", "--seq-len", "1024", "--micro-batch", "2", "--zero-stage", "2", "--gpus", "4",
                "--gpu", "rtx-4090"]


def offload_shown(page) -> tuple[str, dict | None]:
    root = page.locator(ROOT)
    note = page.locator(f'{ROOT} [data-out="offload"]')
    text = note.inner_text() if note.is_visible() else ""
    plan = root.get_attribute("data-offload-plan")
    return text, json.loads(plan) if plan else None


def plan_on(page, preset: str, offload: str, fields: dict[str, str]) -> tuple[str, dict | None]:
    page.locator(f'{ROOT} select[name="preset"]').select_option(preset)
    fields = dict(fields)
    choose(page, task=fields.pop("task"), **fields)
    page.locator(f'{ROOT} select[name="offload"]').select_option(offload)
    return offload_shown(page)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_widget_names_fsdp_offload_where_the_cli_does(language: str, planners: Planners) -> None:
    """Can one QLoRA Llama 3.1 70B on two RTX 4090 cards? No without offload; the page names FSDP's offload."""
    planner = planners.main(language)
    page, log = planner.page, planner.log
    cli = cli_plan_json("llama-3.1-70b", *QLORA_70B_ARGS)
    assert not cli["fits"]
    text, shown = plan_on(page, "llama-3.1-70b", "", QLORA_70B)
    assert shown == {"offload": "fsdp", "total": str(cli["offload_fits"]["total"]),
                     "host_bytes_per_gpu": shown["host_bytes_per_gpu"],
                     "host_bytes": str(cli["offload_fits"]["host_bytes"]), "fits": True}
    assert text and "{" not in text
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("preset, fields, args, offload", [
    ("llama-3.1-70b", QLORA_70B, QLORA_70B_ARGS, "fsdp"),
    ("llama-3.1-70b", QLORA_70B, QLORA_70B_ARGS, "zero"),
    ("llama-2-7b", FULL_7B, FULL_7B_ARGS, "zero"),
])
def test_the_widget_s_offload_plan_is_the_cli_s(language: str, planners: Planners, preset: str,
                                               fields: dict[str, str], args: list[str], offload: str) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    cli = cli_plan_json(preset, *args, "--offload", offload)
    text, shown = plan_on(page, preset, offload, fields)
    assert shown == {"offload": offload, "total": str(cli["total"]),
                     "host_bytes_per_gpu": str(cli["host_bytes_per_gpu"]), "host_bytes": str(cli["host_bytes"]),
                     "fits": cli["fits"]}
    gpus = f"{int(fields['n_gpus']):,}"
    assert gpus in text and "{" not in text
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_stage_the_offload_does_not_run_with_is_refused_as_the_cli_refuses_it(language: str,
                                                                                planners: Planners) -> None:
    planner = planners.main(language)
    page, log = planner.page, planner.log
    done = subprocess.run([sys.executable, "-m", "llmcalc", "plan", "llama-2-7b", *FULL_7B_ARGS, "--offload", "fsdp"],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode != 0 and "offload 'fsdp' needs zero_stage 3" in done.stderr
    text, shown = plan_on(page, "llama-2-7b", "fsdp", FULL_7B)
    assert shown is None
    assert text == page.locator(ROOT).get_attribute("data-offload-stage-fsdp")
    assert log.errors == [] and log.requests == []
