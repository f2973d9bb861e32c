"""A public llmcalc call checks its model once and builds its linear modules once (issue 41).

The oracle is a count of calls, taken with :func:`sys.setprofile` on two code objects: that of
:func:`llmcalc.config.as_model_config` (the check), and that of the function that lays out a block's
attention modules, which runs once each time a config's linear modules are built.  Each call gets a
config no earlier test has used (a trained context of its own, which stores nothing), so a cache of an
earlier call cannot hide a build.  Before this was arranged, ``plan_training`` with LoRA checked its
model 18 times and built its modules 6 times, and ``rank_cards`` 69,726 and 16,715 times.
"""

import dataclasses
import inspect
import itertools
import sys
from collections.abc import Callable
from typing import Any

import pytest

import llmcalc as lc
from llmcalc import config, engines, gguf, offload, params, planner, ranking, runcost, speed

GiB = lc.GiB
_fresh = itertools.count(1)


def fresh(name: str) -> lc.ModelConfig:
    """The preset ``name`` with a trained context no other call has seen: equal to no config cached before."""
    cfg = lc.get_preset(name)
    return dataclasses.replace(cfg, trained_context=(cfg.trained_context or 4096) + next(_fresh))


def counted(call: Callable[[], object]) -> tuple[int, int]:
    """How many times ``call`` checks a model and builds linear modules."""
    watched = {config.as_model_config.__code__: 0, params._attention.__code__: 1}
    counts = [0, 0]

    def profile(frame: Any, event: str, arg: object) -> None:
        if event == "call" and frame.f_code in watched:
            counts[watched[frame.f_code]] += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return counts[0], counts[1]


ENTRY_POINTS: dict[str, tuple[str, Callable[[lc.ModelConfig], object]]] = {
    "plan_inference": ("llama-2-7b", lambda cfg: planner.plan_inference(cfg, context=4096)),
    "plan_inference tensor parallel": (
        "llama-3.1-70b", lambda cfg: planner.plan_inference(cfg, context=8192, tensor_parallel=4)),
    "plan_training full": ("llama-2-7b", lambda cfg: planner.plan_training(cfg, seq_len=2048)),
    "plan_training full adamw-8bit zero 3": ("llama-2-7b", lambda cfg: planner.plan_training(
        cfg, seq_len=2048, optimizer="adamw-8bit", zero_stage=3, n_gpus=4)),
    "plan_training lora": ("llama-2-7b", lambda cfg: planner.plan_training(cfg, task="lora", seq_len=2048)),
    "plan_training qlora": ("llama-3.1-70b", lambda cfg: planner.plan_training(cfg, task="qlora", seq_len=2048)),
    "plan_training qlora zero 3": ("llama-3.1-70b", lambda cfg: planner.plan_training(
        cfg, task="qlora", seq_len=2048, zero_stage=3, n_gpus=4, qlora_preparation="none")),
    "training_changes_that_fit": ("llama-2-13b", lambda cfg: planner.training_changes_that_fit(
        cfg, 24 * GiB, task="qlora", seq_len=2048)),
    "inference_changes_that_fit": ("llama-2-13b", lambda cfg: planner.inference_changes_that_fit(
        cfg, 24 * GiB, context=4096)),
    "plan_vllm": ("gemma-2-9b", lambda cfg: engines.plan_vllm(cfg, 24 * GiB, max_model_len=4096)),
    "plan_vllm tensor parallel": ("llama-3.1-70b", lambda cfg: engines.plan_vllm(
        cfg, 80 * GiB, max_model_len=8192, tensor_parallel=4)),
    "plan_generate": ("llama-3-8b", lambda cfg: engines.plan_generate(cfg, context=4096)),
    "plan_offloaded_training": ("llama-3.1-70b", lambda cfg: offload.plan_offloaded_training(
        cfg, offload="fsdp", task="qlora", n_gpus=2, seq_len=2048, qlora_preparation="none")),
    "rank_cards inference": ("qwen2.5-0.5b", lambda cfg: ranking.rank_cards(cfg, context=4096)),
    "rank_cards vllm": ("gemma-2-9b", lambda cfg: ranking.rank_cards(cfg, engine="vllm", context=4096)),
    "rank_cards lora": ("llama-3.2-1b", lambda cfg: ranking.rank_cards(cfg, task="lora", seq_len=2048)),
    "vllm_changes_that_fit": ("llama-3.1-8b", lambda cfg: ranking.vllm_changes_that_fit(
        cfg, 24 * GiB, context=8192, concurrency=5)),
    "model_from_config": ("llama-3-8b", lambda cfg: gguf.model_from_config(cfg, "Q4_K_M")),
    "estimate_speed": ("llama-3-8b", lambda cfg: speed.estimate_speed(cfg, "Q4_K_M", "rtx-4090", prompt_tokens=512)),
    "training_run": ("llama-2-7b", lambda cfg: runcost.training_run(
        cfg, train_tokens=10**9, seq_len=4096, n_gpus=8, peak_flops=10**15, task="lora")),
    "activation_memory": ("llama-2-7b", lambda cfg: lc.activations.activation_memory(
        cfg, 1, 4096, lora_targets="all-linear")),
    "weight_format_bytes": ("llama-2-7b", lambda cfg: lc.weightformats.weight_format_bytes(cfg, "nf4")),
    "lora_model_share": ("llama-2-7b", lambda cfg: lc.lora_model_share(cfg, 8)),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_a_public_call_checks_its_model_once_and_builds_its_modules_once(entry: str) -> None:
    preset, call = ENTRY_POINTS[entry]
    cfg = fresh(preset)
    assert counted(lambda: call(cfg)) == (1, 1)


def test_a_count_that_needs_no_modules_builds_none() -> None:
    cfg = fresh("llama-3-8b")
    assert counted(lambda: lc.kv_cache_bytes(cfg, 4096)) == (1, 0)


def test_a_second_plan_of_the_same_config_builds_nothing() -> None:
    cfg = fresh("llama-2-7b")
    counted(lambda: planner.plan_training(cfg, task="lora", seq_len=2048))
    assert counted(lambda: planner.plan_training(cfg, task="qlora", seq_len=2048)) == (1, 0)
    assert params.linear_modules(cfg) is not params.linear_modules(cfg)  # the caller's list is its own


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_the_boundary_refuses_what_is_not_a_config_as_before(entry: str) -> None:
    refusal = r"^cfg must be a ModelConfig \(see llmcalc.get_preset or ModelConfig.from_hf_config\); got str$"
    with pytest.raises(lc.errors.Refusal, match=refusal) as caught:
        ENTRY_POINTS[entry][1]("llama-2-7b")
    assert isinstance(caught.value, TypeError) and caught.value.code == "not_a_model_config"


def test_a_checked_function_shows_its_body_s_signature_and_docstring() -> None:
    """What the reference pages render: the decorated function reads as the function it wraps."""
    checked = [value for module in (planner, engines, gguf, speed, runcost, params, lc.lora, lc.memory,
                                    lc.weightformats, lc.activations, ranking)
               for value in vars(module).values() if hasattr(value, "unchecked")]
    assert len(checked) >= 30
    for function in checked:
        body = function.unchecked
        assert inspect.signature(function) == inspect.signature(body), function.__name__
        assert (function.__doc__, function.__name__, function.__module__) == (
            body.__doc__, body.__name__, body.__module__)
