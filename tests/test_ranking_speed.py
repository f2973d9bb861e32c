"""Speed and cost in the all-cards ranking (``plan MODEL --engine vllm --gpu all --prompt-tokens P
--generated-tokens G --price CARD=PRICE``).

Oracles: the single-card estimate the row must repeat (``llmcalc speed --engine vllm --hardware CARD``, and
:func:`~llmcalc.vllmspeed.estimate_vllm_speed`), a cost computed by hand from the price and the rate, and the
estimate's own refusal for the cards and set-ups it does not model.
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout

import pytest

from llmcalc import get_preset
from llmcalc.cli import main
from llmcalc.errors import Refusal
from llmcalc.gguf import model_from_config
from llmcalc.ranking import card_prices, rank_cards, rank_gguf
from llmcalc.vllmspeed import estimate_vllm_speed

BUYER = ["plan", "llama-3.1-8b", "--engine", "vllm", "--gpu", "all", "--context", "32768", "--concurrency", "16"]
SPLIT = ["--prompt-tokens", "30000", "--generated-tokens", "2768"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def buyer() -> dict:
    """The buyer question's ranking, with three prices the reader typed."""
    return json_of([*BUYER, *SPLIT, "--price", "h100-nvl=2.2", "--price", "h200=3.5", "--price", "l40s=0.86"])


def json_of(argv: list[str]) -> dict:
    """The CLI's JSON, outside a test's capsys (a module's fixture runs once)."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*argv, "--json"]) == 0
    return json.loads(out.getvalue())


def test_every_estimated_row_is_the_single_card_estimate(capsys: pytest.CaptureFixture[str], buyer: dict) -> None:
    estimated = [row for row in buyer["rows"] if row["speed"]["estimate"]]
    assert {row["card"] for row in estimated} == {"h100-nvl", "h200", "b200"}
    for row in estimated:
        single = run_json(capsys, "speed", "llama-3.1-8b", "--engine", "vllm", "--hardware", row["card"], "--batch",
                          "16", "--prompt-tokens", "30000", "--generated-tokens", "2768")
        speed = row["speed"]
        assert speed["aggregate_tokens_per_second"] == single["aggregate_tokens_per_second"]
        assert speed["sequence_tokens_per_second"] == single["sequence_tokens_per_second"]
        assert speed["time_to_first_token_seconds"] == single["time_to_first_token_seconds"]
        assert speed["notes"] == single["notes"]
        basis = speed["basis"]
        assert (basis["bandwidth"], basis["peak_flops"]) == (single["bandwidth"], single["peak_flops"])
        assert basis["kv_pool_tokens"] == row["kv_tokens"] == single["kv_pool_tokens"]
        assert basis["bandwidth_source"].startswith("https://") and basis["peak_flops_source"].startswith("https://")


def test_a_cost_by_hand(buyer: dict) -> None:
    """2.2 an hour over the H100 NVL's 536.6 tokens a second: 2.2 / (536.6 x 3,600) x 10^6 = 1.139 a million."""
    row = next(row for row in buyer["rows"] if row["card"] == "h100-nvl" and row["gpus"] == 1)
    speed = row["speed"]
    assert round(speed["aggregate_tokens_per_second"], 1) == 536.6
    assert speed["price_per_gpu_hour"] == 2.2
    assert math.isclose(speed["cost_per_million_output_tokens"],
                        2.2 * 1_000_000 / (speed["aggregate_tokens_per_second"] * 3600))
    assert round(speed["cost_per_million_output_tokens"], 2) == 1.14


def test_every_row_without_an_estimate_says_why(buyer: dict) -> None:
    codes = {}
    for row in buyer["rows"]:
        speed = row["speed"]
        if speed["estimate"]:
            continue
        assert "aggregate_tokens_per_second" not in speed
        assert speed["reason"] and speed["cost_per_million_output_tokens"] is None
        codes[(row["card"], row["gpus"], row["fits"])] = speed["refusal"]
    assert codes[("mi300x", 1, True)] == "vllm_speed_hardware_unmeasured"
    assert codes[("h100-sxm", 2, True)] == "vllm_speed_tensor_parallel"
    assert codes[("h100-sxm", 1, False)] == "ranking_speed_does_not_fit"
    # A priced card without an estimate has no cost, never a zero.
    l40s = [row["speed"] for row in buyer["rows"] if row["card"] == "l40s"]
    assert all(speed["price_per_gpu_hour"] == 0.86 and speed["cost_per_million_output_tokens"] is None
               for speed in l40s)


def test_the_estimate_s_own_refusals_reach_the_rows() -> None:
    """A card without an FP16 rate, a card without a datasheet, an fp8 KV cache and fp8 weights."""
    rows = rank_cards(get_preset("llama-3.1-8b"), engine="vllm", context=4096, prompt_tokens=1024,
                      generated_tokens=256)
    by_card = {row.card.key: row.speed for row in rows if row.gpus == 1}
    for key in ("rtx-6000-ada", "a10g"):
        speed = by_card[key]
        assert speed is not None and speed.aggregate_tokens_per_second is None and speed.refusal is not None
        with pytest.raises(Refusal) as single:
            estimate_vllm_speed(get_preset("llama-3.1-8b"), key, batch=1, prompt_tokens=1024, generated_tokens=256,
                                max_model_len=4096)
        assert speed.refusal.code == single.value.code and str(speed.refusal) == str(single.value)
    fp8 = rank_cards(get_preset("llama-3.1-8b"), engine="vllm", context=4096, prompt_tokens=1024,
                     generated_tokens=256, kv_format="fp8", weight_format="fp8")
    assert {row.speed.refusal.code for row in fp8 if row.gpus == 1 and row.fits
            and row.speed is not None and row.speed.refusal is not None} == {"vllm_speed_format_unmeasured"}
    kv8 = rank_cards(get_preset("llama-3.1-8b"), engine="vllm", context=4096, prompt_tokens=1024,
                     generated_tokens=256, kv_format="fp8")
    h100 = next(row for row in kv8 if row.card.key == "h100-sxm" and row.gpus == 1)
    assert h100.speed is not None and h100.speed.refusal is not None
    assert h100.speed.refusal.code == "vllm_speed_kv_format_unmeasured"


def test_sorted_by_cost_lowest_first_then_the_rest_in_fit_order(capsys: pytest.CaptureFixture[str]) -> None:
    prices = ["--price", "h100-nvl=2.2", "--price", "h200=3.5", "--price", "b200=5.0"]
    by_fit = run_json(capsys, *BUYER, *SPLIT, *prices)["rows"]
    by_cost = run_json(capsys, *BUYER, *SPLIT, *prices, "--sort", "cost")["rows"]
    costs = [row["speed"]["cost_per_million_output_tokens"] for row in by_cost]
    priced = [cost for cost in costs if cost is not None]
    assert len(priced) == 3 and priced == sorted(priced) and costs[:3] == priced
    assert [row for row in by_cost[3:]] == [row for row in by_fit if row["speed"]["cost_per_million_output_tokens"]
                                           is None]


def test_the_table_marks_each_missing_speed_with_its_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BUYER, *SPLIT, "--price", "h100-nvl=2.2"]) == 0
    out = capsys.readouterr().out
    nvl = next(line for line in out.splitlines() if line.startswith("H100 NVL (94 GB)") and "  1  " in line)
    assert nvl.split()[-4:] == ["536.6", "33.5", "19,372", "1.14"]
    mi300x = next(line for line in out.splitlines() if line.startswith("MI300X") and "  1  " in line)
    mark = mi300x.split()[-4]
    assert mi300x.split()[-5:] == ["n/a", mark, "n/a", "n/a", "n/a"] and mark.startswith("[")
    assert f"{mark} no speed: no vLLM speed was measured on 'mi300x'" in out
    assert "an estimate, not a measurement" in out and "held-out median error 7.2 %" in out


def test_without_a_split_the_ranking_is_of_memory_and_says_how_to_get_speed(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_json(capsys, *BUYER)
    assert all(row["speed"] is None for row in result["rows"])
    assert "--prompt-tokens" in result["speed"]
    assert main(BUYER) == 0
    out = capsys.readouterr().out
    assert "tokens/s" not in out and "speed: memory only; give --prompt-tokens and --generated-tokens" in out


@pytest.mark.parametrize("extra, message", [
    (["--prompt-tokens", "30000", "--generated-tokens", "2769"],
     "prompt_tokens + generated_tokens (30,000 + 2,769 = 32,769) must be at most the context every card is planned "
     "at (32,768)"),
    (["--prompt-tokens", "30000"], "a ranking's speed needs both prompt_tokens and generated_tokens (the split of "
     "each request's tokens); got only prompt_tokens"),
    (["--generated-tokens", "1", "--prompt-tokens", "10"], "generated_tokens must be an integer in [2, 16777216]"),
    (["--price", "h100-sxm=2"], "needs the speed: give prompt_tokens and generated_tokens too"),
    ([*SPLIT, "--price", "h100=2"], "no listed card has the key 'h100'; listed: rtx-3060"),
    ([*SPLIT, "--price", "h100-sxm=0"], "price of h100-sxm must be a finite number > 0 and <= 1e+06; got 0.0"),
    ([*SPLIT, "--price", "h100-sxm=-2"], "price of h100-sxm must be a finite number > 0 and <= 1e+06; got -2.0"),
    ([*SPLIT, "--price", "h100-sxm=nan"], "price of h100-sxm must be a finite number > 0 and <= 1e+06; got nan"),
    ([*SPLIT, "--price", "h100-sxm=inf"], "price of h100-sxm must be a finite number > 0 and <= 1e+06; got inf"),
    ([*SPLIT, "--price", "h100-sxm"], "a price is CARD=PRICE"),
    ([*SPLIT, "--price", "h100-sxm=two"], "a price is CARD=PRICE, the card's key and what one of it costs an hour "
                                         "(h100-sxm=2.49); got 'h100-sxm=two'"),
    ([*SPLIT, "--price", "h100-sxm=2", "--price", "h100-sxm=3"], "card 'h100-sxm' is priced twice"),
    ([*SPLIT, "--sort", "cost"], "sorting by cost needs a price for at least one card"),
])
def test_bad_input_is_refused(capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    refused(capsys, [*BUYER, *extra], message)


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["plan", "llama-3.1-8b", "--engine", "vllm", "--gpu", "h100-sxm", *SPLIT], "--prompt-tokens applies to --gpu all"),
    (["plan", "llama-3.1-8b", "--gpu", "all", *SPLIT], "--prompt-tokens, --generated-tokens do not apply to --engine "
                                                      "sum"),
    (["plan", "llama-3.1-8b", "--task", "full", "--gpu", "all", "--price", "h100-sxm=2"], "--price does not apply to "
                                                                                         "--task full"),
])
def test_the_options_are_the_vllm_ranking_s(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    refused(capsys, argv, message)


def test_the_price_parser() -> None:
    assert card_prices(["a10=0.6", "h100-sxm=2.49"]) == {"a10": 0.6, "h100-sxm": 2.49}
    assert card_prices([]) == {}


def test_training_cost_keeps_its_price_per_gpu_hour(capsys: pytest.CaptureFixture[str]) -> None:
    """--price-per-gpu-hour still prices a training run: its GPU-hours times the price."""
    result = run_json(capsys, "plan", "llama-3.1-8b", "--task", "lora", "--gpu", "h100-sxm", "--train-tokens", "1e9",
                      "--price-per-gpu-hour", "2")
    run = next(value for value in result.values() if isinstance(value, dict) and "price" in value)
    assert run["price_per_gpu_hour"] == 2 and math.isclose(run["price"], 2 * run["gpu_hours"])


# llama.cpp (``gguf PRESET --recipe R --gpu all``): one sequence on one GPU, llmcalc.speed.estimate_speed.

GGUF = ["gguf", "llama-3.1-8b", "--recipe", "Q4_K_M", "--context", "8192", "--gpu", "all"]


def test_every_llama_cpp_row_is_the_single_card_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    ranked = run_json(capsys, *GGUF, "--prompt-tokens", "512", "--generated-tokens", "128", "--price", "a10=0.6")
    estimated = [row for row in ranked["rows"] if row["speed"]["estimate"]]
    assert len(estimated) >= 15
    for row in estimated:
        single = run_json(capsys, "speed", "llama-3.1-8b", "--format", "Q4_K_M", "--hardware", row["card"],
                          "--prompt-tokens", "512", "--generated-tokens", "128")
        speed = row["speed"]
        assert speed["aggregate_tokens_per_second"] == speed["sequence_tokens_per_second"] == single[
            "decode_tokens_per_second"]
        assert speed["time_to_first_token_seconds"] == single["time_to_first_token_seconds"]
        assert speed["notes"] == single["notes"] and speed["basis"]["bandwidth"] == single["bandwidth"]
    a10 = next(row["speed"] for row in ranked["rows"] if row["card"] == "a10")
    # 0.6 an hour over 66.2 tokens a second: 0.6 / (66.2 x 3,600) x 10^6 = 2.52.
    assert round(a10["aggregate_tokens_per_second"], 1) == 66.2
    assert round(a10["cost_per_million_output_tokens"], 2) == 2.52
    # The L40 has no published FP16-accumulate rate: speed, but no first token, and never a zero.
    l40 = next(row["speed"] for row in ranked["rows"] if row["card"] == "l40")
    assert l40["estimate"] and l40["time_to_first_token_seconds"] is None and l40["basis"]["peak_flops"] is None
    refused = {row["card"]: row["speed"]["refusal"] for row in ranked["rows"] if not row["speed"]["estimate"]}
    assert refused["mi300x"] == "speed_hardware_unmeasured" and refused["a10g"] == "no_datasheet_figures"


@pytest.mark.parametrize("extra, code", [
    (["--parallel", "2"], "speed_batch_unmeasured"),
    (["--cache-type-k", "q8_0", "--flash-attn"], "speed_cache_type_unmeasured"),
])
def test_what_the_llama_cpp_estimate_does_not_model_is_refused_per_row(capsys: pytest.CaptureFixture[str],
                                                                       extra: list[str], code: str) -> None:
    ranked = run_json(capsys, *GGUF, "--prompt-tokens", "512", "--generated-tokens", "128", *extra)
    assert {row["speed"]["refusal"] for row in ranked["rows"] if row["fits"]} >= {code}
    assert not any(row["speed"]["estimate"] for row in ranked["rows"])


def test_an_imatrix_recipe_whose_weights_differ_is_refused() -> None:
    ranked = json_of(["gguf", "llama-3.1-8b", "--recipe", "IQ4_XS", "--imatrix", "--context", "4096",
                                   "--gpu", "all", "--prompt-tokens", "512", "--generated-tokens", "128"])
    assert {row["speed"]["refusal"] for row in ranked["rows"] if row["fits"]} == {"speed_imatrix_weights"}


@pytest.mark.parametrize("extra, message", [
    (["--prompt-tokens", "8000", "--generated-tokens", "193"], "(8,000 + 193 = 8,193) must be at most the context"),
    (["--price", "a10=1"], "needs the speed: give prompt_tokens and generated_tokens too"),
    (["--prompt-tokens", "512", "--generated-tokens", "128", "--price", "a10=0"], "price of a10 must be a finite"),
    (["--prompt-tokens", "512", "--generated-tokens", "128", "--sort", "cost"], "sorting by cost needs a price"),
])
def test_bad_llama_cpp_input_is_refused(capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    refused(capsys, [*GGUF, *extra], message)


def test_the_llama_cpp_speed_options_are_the_ranking_s(capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, ["gguf", "llama-3.1-8b", "--recipe", "Q4_K_M", "--gpu", "rtx-4090", "--price", "a10=1"],
            "--price applies to --gpu all")


def test_a_model_without_shapes_gets_no_llama_cpp_speed() -> None:
    """A .gguf file's header gives tensors, not the model's shapes the estimate needs: refused, not guessed."""
    model = model_from_config(get_preset("llama-3.1-8b"), "Q4_K_M")
    with pytest.raises(Refusal, match="estimated for a preset with a recipe"):
        rank_gguf(model, context=4096, prompt_tokens=512, generated_tokens=128)
