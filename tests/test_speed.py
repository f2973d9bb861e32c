"""The speed estimate: its data, its split, its fit, its error on held-out runs, and where it refuses.

Oracles: the published numbers themselves (the README and pull request the rows cite, copied by hand
below for a few), a hand derivation of the roofline for one row, and the rule for the split restated
from its declaration rather than from the code.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import statistics
from collections import Counter

import pytest

from llmcalc import active_param_count, get_preset, param_breakdown, param_count
from llmcalc.cli import main
from llmcalc.datasheets import datasheet
from llmcalc.errors import Refusal
from llmcalc.presets import PRESETS
from llmcalc.speed import (
    CONSTANTS,
    MEASURED_RANGE,
    batch_measurements,
    cost_per_million_tokens,
    decode_weight_bytes,
    engine_for,
    estimate_speed,
    fit_constants,
    held_out_comparison,
    held_out_ubatch_comparison,
    independent_check,
    independent_measurements,
    is_fitted,
    measurements,
    median_error,
    median_ubatch_error_by_source,
)

ROWS = measurements()


def test_at_least_30_published_measurements_each_with_its_source() -> None:
    assert len(ROWS) >= 30
    assert Counter(row.quantity for row in ROWS) == {"decode": 37, "prefill": 14}
    for row in ROWS:
        assert row.url.startswith("https://github.com/") and row.unit == "tokens/s" and row.gpus == 1
        assert row.model in PRESETS and row.measured > 0 and row.setting
        assert datasheet(row.hardware).bandwidth.source.startswith("https://")


@pytest.mark.parametrize(("index", "expected"), [
    # (row, (hardware, model, format, quantity, tokens a second)) as the README's tables print them.
    (0, ("rtx-3090", "llama-3-8b", "Q4_K_M", "decode", 115.42)),
    (7, ("rtx-4090", "llama-3-8b", "F16", "prefill", 9382.00)),
    (14, ("apple-m2-ultra", "llama-3.1-70b", "F16", "decode", 4.76)),
    (48, ("apple-m3-max", "llama-2-7b", "Q4_0", "decode", 63.11)),
    (50, ("rtx-6000-ada", "llama-3-8b", "Q4_0", "decode", 168.87)),
])
def test_rows_hold_the_published_numbers(index: int, expected: tuple[str, str, str, str, float]) -> None:
    row = ROWS[index]
    assert (row.hardware, row.model, row.format, row.quantity, row.measured) == expected


def test_the_split_is_the_declared_rule_and_fits_at_most_half() -> None:
    flags = is_fitted(ROWS)
    assert sum(flags) <= len(ROWS) // 2
    for source in {row.source for row in ROWS}:
        for quantity in ("decode", "prefill"):
            group = [flag for row, flag in zip(ROWS, flags, strict=True)
                     if (row.source, row.quantity) == (source, quantity)]
            assert group == [position % 2 == 1 for position in range(len(group))]


def test_the_shipped_constants_are_the_fit_on_the_fitted_rows() -> None:
    assert fit_constants() == CONSTANTS
    # Refitting on held-out rows only would give other constants: the fit depends on which rows it sees.
    held = [row for row, fitted in zip(ROWS, is_fitted(ROWS), strict=True) if not fitted]
    assert fit_constants(held[1:]) != CONSTANTS


def test_held_out_error_decode_within_15_percent_prefill_as_measured() -> None:
    table = held_out_comparison()
    assert len(table) == len(ROWS) - sum(is_fitted(ROWS))
    assert round(median_error("decode"), 3) == 0.113
    assert round(median_error("prefill"), 3) == 0.067  # within the 15 % aimed at; it was 0.294 on FP32-accumulate peaks


def test_one_row_by_hand_llama_2_7b_f16_on_an_a100_pcie() -> None:
    cfg = get_preset("llama-2-7b")
    parts = param_breakdown(cfg)
    weights = 2 * (param_count(cfg) - parts["embedding"]) + 2 * parts["norms"]  # F16, norms in F32
    assert decode_weight_bytes(cfg, "F16") == weights
    kv_per_token = 2 * 32 * 4096 * 2  # K and V, 32 layers, 4,096 wide, 2 bytes
    mean_context = 494 + (1023 - 1) / 2
    rate = 0.762 * 1_935e9 / (weights + kv_per_token * mean_context)
    estimate = estimate_speed(cfg, "F16", "a100-80gb-pcie", prompt_tokens=494, generated_tokens=1023)
    assert estimate.decode_tokens_per_second == pytest.approx(rate, rel=1e-12)
    flops = 2 * (param_count(cfg) - parts["embedding"]) * 494 + 2 * 32 * 494 * 495 * 4096
    assert estimate.prefill_flops == flops
    assert estimate.unpack_bytes == 0  # F16 weights go to cuBLAS as they are
    assert estimate.prefill_seconds == pytest.approx(flops / min(0.474 * 312e12, 139e12), rel=1e-12)


def test_one_quantized_prompt_by_hand_unpacks_its_weights_and_runs_at_the_fp16_accumulate_peak() -> None:
    # The Ampere whitepaper prints the RTX 3090's FP16 tensor rate as 142 TFLOPS with FP16 accumulation and
    # 71 with FP32; llama.cpp's cuBLAS call (CUBLAS_COMPUTE_16F) runs at the first.  Q4_0 weights are unpacked
    # to FP16 before it: the quantized matrices read, then written at 2 bytes a weight, once per 512-token pass.
    cfg = get_preset("llama-2-7b")
    assert datasheet("rtx-3090").fp16_accumulate.value == 142 * 10**12 == 2 * datasheet("rtx-3090").fp16.value
    multiplying = param_count(cfg) - param_breakdown(cfg)["embedding"]
    flops = 2 * multiplying * 494 + 2 * 32 * 494 * 495 * 4096
    unpack = decode_weight_bytes(cfg, "Q4_0") + 2 * multiplying
    warm = estimate_speed(cfg, "Q4_0", "rtx-3090", prompt_tokens=494)
    assert warm.unpack_bytes == unpack and "unpack" in warm.notes  # it says the path is that of the measured builds
    assert warm.prefill_seconds == pytest.approx(flops / (0.474 * 142e12) + unpack / 936e9, rel=1e-12)
    assert estimate_speed(cfg, "Q4_0", "rtx-3090", prompt_tokens=1024).unpack_bytes == 2 * unpack
    # The held-out row (source B, the first prompt of a fresh process) is compared at the first-prompt share.
    row, rate, _error = next(entry for entry in held_out_comparison() if entry[0].quantity == "prefill"
                             and entry[0].source == "B" and entry[0].hardware == "rtx-3090")
    assert row.first_prompt and row.measured == 2601.81
    assert rate == pytest.approx(494 / (flops / (0.254 * 142e12) + unpack / 936e9), rel=1e-12)


def test_runs_on_derived_cards_were_never_fitted_and_their_errors_are_those_by_hand() -> None:
    # XiongjieDai's README (commit 00dd2bd), LLaMA 2 table: Llama 2 7B in F16 on a 4080 16GB decoded 44.2 tokens a
    # second with a 494-token prompt and 1,023 generated.  By hand: the RTX 4080's 256-bit interface at 22.4 Gbps is
    # 716.8 GB/s (the Ada whitepaper's printed figure), at the fitted 16-bit share 0.762.
    rows = independent_measurements()
    assert not {row.hardware for row in rows} & {row.hardware for row in ROWS}  # no fitted row is on these cards
    assert fit_constants(ROWS) == CONSTANTS  # the constants do not move: these rows are in no fit
    cfg = get_preset("llama-2-7b")
    parts = param_breakdown(cfg)
    weights = 2 * (param_count(cfg) - parts["embedding"]) + 2 * parts["norms"]
    rate = 0.762 * 716.8e9 / (weights + 2 * 32 * 4096 * 2 * (494 + (1023 - 1) / 2))
    row, estimate, error = next(entry for entry in independent_check() if entry[0].source == "B"
                                and entry[0].format == "F16" and entry[0].quantity == "decode")
    assert (row.hardware, row.measured) == ("rtx-4080", 44.2)
    assert estimate == pytest.approx(rate, rel=1e-12) and error == pytest.approx(rate / 44.2 - 1, rel=1e-12)
    # Every derived-card run is underestimated, by 8 % to 33 %: these cards reach a larger share of their
    # bandwidth and peak than the RTX 3090 and 4090 the constants were fitted on.
    errors = [error for _row, _estimate, error in independent_check()]
    assert len(errors) == 10 and all(-0.34 < error < -0.07 for error in errors)


def test_a_fast_card_and_a_small_model_meet_the_decode_ceiling_and_say_so() -> None:
    estimate = estimate_speed(get_preset("llama-2-7b"), "Q4_0", "h100-sxm", prompt_tokens=128)
    assert estimate.decode_tokens_per_second == CONSTANTS.decode_ceiling["llama.cpp-cuda"]
    assert "decode_ceiling" in estimate.notes and "prefill_ceiling" in estimate.notes


def test_where_the_runs_end_the_estimate_refuses_or_says_so() -> None:
    llama = get_preset("llama-2-7b")
    for batch in (2, 8, 512):  # the weights-side check (2 % to 192 % by source) does not validate a batch
        with pytest.raises(Refusal, match=rf"^batch must be 1: no published llama.cpp run decoded several "
                                          rf"sequences together .* 2 % to 192 % by source; got {batch}$") as refused:
            estimate_speed(llama, "Q4_0", "rtx-4090", prompt_tokens=512, batch=batch)
        assert refused.value.code == "speed_batch_unmeasured"
    with pytest.raises(Refusal, match="'mi300x'") as refused:
        engine_for("mi300x")
    assert refused.value.code == "speed_hardware_unmeasured"
    with pytest.raises(Refusal, match="no datasheet figures for card 'a10g'"):
        estimate_speed(llama, "Q4_0", "a10g", prompt_tokens=512)
    with pytest.raises(ValueError, match="weight_format must be one of"):
        estimate_speed(llama, "Q4_K_X", "rtx-4090", prompt_tokens=512)
    mac = estimate_speed(llama, "Q4_0", "apple-m3-max", prompt_tokens=512)
    assert mac.engine == "llama.cpp-metal" and mac.prefill_seconds is None and mac.prefill_tokens_per_second is None
    long = estimate_speed(llama, "F16", "rtx-4090", prompt_tokens=4096, generated_tokens=512)
    assert long.notes == ("prompt_tokens", "context_tokens", "prefill_ceiling")
    small = estimate_speed(get_preset("qwen2.5-0.5b"), "F16", "rtx-4090", prompt_tokens=64)
    assert "min_weight_bytes" in small.notes


def test_cost_per_million_output_tokens_from_the_reader_s_price() -> None:
    # 2.00 an hour for 2 GPUs at 100 tokens a second: 4.00 an hour for 360,000 tokens.
    assert cost_per_million_tokens(2.0, 100.0, gpus=2) == pytest.approx(4.0 / 0.36)
    assert cost_per_million_tokens(0.0, 50.0) == 0.0
    with pytest.raises(ValueError, match="price_per_gpu_hour"):
        cost_per_million_tokens(-1.0, 50.0)
    with pytest.raises(ValueError, match="tokens_per_second"):
        cost_per_million_tokens(1.0, 0.0)
    assert not math.isnan(cost_per_million_tokens(1.0, 1e-300))


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["speed", *args])
        except SystemExit as exit_:
            status = int(exit_.code or 0)
    return status, out.getvalue(), err.getvalue()


def test_the_command_prints_the_estimate_its_basis_error_and_cost() -> None:
    status, out, _err = run_cli("llama-3-8b", "--hardware", "rtx-4090", "--price-per-gpu-hour", "1")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "llama-3-8b as Q4_K_M on rtx-4090 (llama.cpp CUDA): an estimate, not a measurement"
    assert lines[2] == "decode: 111.3 tokens/s" and lines[4].startswith("cost per million output tokens: 2.50 at 1.00")
    assert "held-out median error: decode 11.3 %, prefill 6.7 %" in lines


def test_the_command_s_json_and_its_refusals() -> None:
    status, out, _err = run_cli("llama-2-70b", "--format", "Q4_0", "--hardware", "apple-m2-ultra",
                                "--prompt-tokens", "2048", "--json")
    result = json.loads(out)
    assert status == 0 and result["estimate"] is True and result["time_to_first_token_seconds"] is None
    assert result["notes"] == ["context_tokens"] and result["cost_per_million_output_tokens"] is None
    for args, message in [
        (("llama-2-7b", "--hardware", "rtx-4090", "--batch", "2"), "the roofline was 2 % to 192 % by source; got 2"),
        (("llama-2-7b", "--hardware", "apple-m3", "--batch", "8"), "batch must be 1: no published llama.cpp run"),
        (("llama-2-7b", "--hardware", "mi300x"), "no llama.cpp speed was measured on 'mi300x'"),
        (("mistral-7b", "--hardware", "rtx-4090"), "sliding-window attention"),
        (("llama-2-7b", "--hardware", "rtx-4090", "--price-per-gpu-hour", "-2"), "price_per_gpu_hour must be"),
        (("llama-2-7b", "--hardware", "rtx-4090", "--prompt-tokens", "0"), "prompt_tokens must be an integer"),
        (("llama-9", "--hardware", "rtx-4090"), "MODEL must be a preset"),
    ]:
        status, out, err = run_cli(*args)
        assert status == 2 and out == "" and message in err and "Traceback" not in err, args


def test_an_estimate_on_a_derived_card_says_from_what_and_how_far_off_such_cards_were() -> None:
    # The RTX 4060 Ti's launch specification: 4352 CUDA cores (34 SMs) at 2535 MHz, 128 bits at 18 Gbps.
    status, out, _err = run_cli("llama-3-8b", "--hardware", "rtx-4060-ti-16gb", "--json")
    result = json.loads(out)
    assert status == 0 and result["bandwidth"] == 128 * 18 * 10**9 // 8
    assert result["peak_flops"] == 34 * 2_535 * 10**6 * 1024
    assert result["derived"] == {
        "bandwidth": "288 GB/s, derived: 128-bit memory interface x 18 Gbps per pin / 8",
        "fp16_accumulate": "88.3 TFLOPS, derived: 34 SMs x 2,535 MHz boost clock x 1024 FLOPs per SM per clock of "
                           "the Ada whitepaper"}
    assert result["notes"] == ["unpack", "derived"]
    status, out, _err = run_cli("llama-3-8b", "--hardware", "rtx-4060-ti-16gb")
    lines = out.splitlines()
    assert "bandwidth: 288 GB/s, derived: 128-bit memory interface x 18 Gbps per pin / 8" in lines
    assert lines[-1] == ("note: the figures of this card are derived from its specification, not printed: on 10 runs "
                         "on an RTX 4070 Ti and an RTX 4080 that no fit saw, the estimate was 8 % to 33 % low")
    # A card whose figures are printed shows no derivation and no such note.
    status, out, _err = run_cli("llama-3-8b", "--hardware", "rtx-4090", "--json")
    assert json.loads(out)["derived"] == {} and "derived" not in json.loads(out)["notes"]


def test_a_mixture_of_experts_reads_its_active_experts_and_says_it_was_not_measured() -> None:
    mixtral = get_preset("mixtral-8x7b")
    parts = param_breakdown(mixtral)
    assert decode_weight_bytes(mixtral, "F16") == 2 * (active_param_count(mixtral) - parts["embedding"]) \
        + 2 * parts["norms"]
    assert "experts" in estimate_speed(mixtral, "F16", "h200", prompt_tokens=512).notes


BATCH_ROWS = batch_measurements()


def test_runs_of_tokens_a_step_hold_the_published_numbers_over_three_cards_and_many_steps() -> None:
    assert len(BATCH_ROWS) >= 24
    assert {row.hardware for row in BATCH_ROWS} == {"rtx-3090", "rtx-4090", "rtx-5090"}
    assert {row.batch for row in BATCH_ROWS} >= {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
    for row in BATCH_ROWS:
        assert row.url.startswith("https://github.com/ggml-org/llama.cpp/pull/") and row.unit == "tokens/s"
        assert row.model in PRESETS and row.caches == 1 and row.measured > 0
    # (source, card, format, batch, tokens a second) as the pull requests' tables print them ('t/s master').
    picked = {(row.source, row.hardware, row.format, row.batch): row.measured for row in BATCH_ROWS}
    assert picked[("D", "rtx-3090", "Q4_0", 8)] == 570.67  # pull request 15802
    assert picked[("E", "rtx-3090", "F16", 16)] == 739.00  # pull request 15131
    assert picked[("F", "rtx-4090", "Q4_0", 512)] == 6279.91  # pull request 7676
    assert picked[("G", "rtx-5090", "Q4_0", 512)] == 16136.64  # pull request 20586
    assert picked[("H", "rtx-3090", "Q4_0", 32)] == 630.19  # pull request 7716
    assert max(row.batch for row in BATCH_ROWS) == 512 and MEASURED_RANGE["batch"] == 1  # tokens, not sequences


def test_the_tokens_a_step_split_is_the_committed_one_at_most_half_fitted() -> None:
    fitted = [(row.source, row.hardware, row.format, row.batch)
              for row, flag in zip(BATCH_ROWS, is_fitted(BATCH_ROWS), strict=True) if flag]
    assert fitted == [
        ("D", "rtx-3090", "Q4_0", 2), ("D", "rtx-3090", "Q4_0", 4), ("D", "rtx-3090", "Q4_0", 6),
        ("D", "rtx-3090", "Q4_0", 8), ("E", "rtx-3090", "F16", 9), ("E", "rtx-3090", "F16", 11),
        ("E", "rtx-3090", "F16", 13), ("E", "rtx-3090", "F16", 15), ("E", "rtx-4090", "Q4_0", 10),
        ("E", "rtx-4090", "Q4_0", 12), ("E", "rtx-4090", "Q4_0", 14), ("E", "rtx-4090", "Q4_0", 16),
        ("F", "rtx-4090", "Q4_0", 32), ("F", "rtx-4090", "Q4_0", 128), ("F", "rtx-4090", "Q4_0", 512),
        ("G", "rtx-4090", "Q4_0", 2), ("G", "rtx-5090", "Q4_0", 4), ("G", "rtx-5090", "Q4_0", 16),
        ("G", "rtx-5090", "Q4_0", 64), ("G", "rtx-5090", "Q4_0", 256), ("H", "rtx-3090", "Q4_0", 32),
    ]
    assert len(fitted) <= len(BATCH_ROWS) // 2


def test_one_run_of_tokens_a_step_by_hand_llama_3_8b_q4_0_eight_tokens_a_step_on_an_rtx_3090() -> None:
    row = next(row for row in BATCH_ROWS if (row.source, row.batch) == ("D", 8))
    llama = get_preset("llama-3-8b")
    # Llama 3 8B's matrices (32 layers of q, o 4096 x 4096, k, v 4096 x 1024, gate, up, down 4096 x 14336, and the
    # 4096 x 128,256 output) and its 65 norms of 4,096, as llmcalc.flops.matmul_params counts them.
    matmul = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336) + 4096 * 128256 + 65 * 4096
    # A step reads the Q4_0 weights once and one cache of, on average, (512 + 1) / 2 tokens (2 x 32 x 1,024 bytes a
    # token), at 0.518 of the RTX 3090's 936 GB/s; its 8 tokens do 2 FLOPs a parameter and 4 per attention width
    # (4,096), layer and token attended, at 0.474 of its 142 TFLOPS (under the 139 TFLOPS ceiling).
    context = (512 + 1) / 2
    memory = (decode_weight_bytes(llama, "Q4_0") + 2 * 32 * 1024 * 2 * context) / (0.518 * 936e9)
    compute = 8 * (2 * matmul + 4 * 32 * context * 4096) / (0.474 * 142e12)
    expected = 8 / max(memory, compute, 1 / 136.0)
    assert all(held is not row for held, _rate, _error in held_out_ubatch_comparison())  # it is a fitted row
    table = held_out_ubatch_comparison([row, row])  # the first of a source is held out, so it gets estimated
    assert table[0][1] == pytest.approx(expected, rel=1e-12)
    assert round(expected, 1) == 883.2 and table[0][2] == pytest.approx(883.25 / 570.67 - 1, abs=1e-4)


def test_the_weights_side_check_by_source_and_where_the_roofline_breaks() -> None:
    table = held_out_ubatch_comparison()
    assert len(table) == len(BATCH_ROWS) - sum(is_fitted(BATCH_ROWS)) == 22
    above_one = [abs(error) for row, _rate, error in table if row.batch > 1]
    assert len(above_one) == 20 and statistics.median(above_one) == pytest.approx(0.1121, abs=5e-4)
    # The pooled 11.2 % hides sources 2 % to 192 % apart: the per-source spread is why a batch is refused.
    by_source = median_ubatch_error_by_source()
    assert {source: round(100 * error) for source, error in by_source.items()} == \
        {"D": 15, "E": 2, "F": 57, "G": 25, "H": 192}
    # Where it breaks: a 2024 build's pre-tensor-core kernels at 64 tokens a step, a 2026 build on an RTX 5090 past
    # the 139 TFLOPS the 2023-2024 prompts reached.
    errors = {(row.source, row.batch): error for row, _rate, error in table}
    assert errors[("F", 64)] == pytest.approx(7609.53 / 3704.68 - 1, abs=1e-4)
    assert errors[("G", 512)] == pytest.approx(6557.11 / 16136.64 - 1, abs=1e-4)
