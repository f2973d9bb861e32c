"""Card datasheet figures: every one has a public source, and each equals the value copied by hand from it.

The expected values below were typed from the datasheets and whitepapers themselves (dense figures; where a
datasheet prints only the figure with sparsity, half of it), independently of how llmcalc.datasheets reads its
printed text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import llmcalc.datasheets
from llmcalc import planner
from llmcalc.datasheets import (
    CUDA_CORES_PER_SM,
    DATASHEETS,
    MEASURED_HARDWARE,
    PER_SM_CLOCK,
    PRECISIONS,
    SPECS,
    CardSpec,
    Derived,
    Figure,
    bf16_flops,
    datasheet,
    memory_bandwidth,
    tensor_flops,
)
from llmcalc.errors import Refusal

GB_S = 10**9
TERA = 10**12
COPIES = json.loads((Path(__file__).parent / "data" / "datasheet_copies.json").read_text(encoding="utf-8"))

# card key: (bandwidth GB/s, dense FP16/BF16 TFLOPS, dense FP8 TFLOPS, dense INT8 TOPS), None where not printed.
HAND_COPIED = {
    "t4": (320, 65, None, 130),
    "a10": (600, 125, None, 250),
    "l4": (300, 121, 242.5, 242.5),
    "rtx-3090": (936, 71, None, 284),
    "rtx-4090": (1008, 165.2, 330.3, 660.6),
    "rtx-5090": (1792, 209.5, 419, 838),
    "a100-40gb": (1555, 312, None, 624),
    "a40": (696, 149.7, None, 299.3),
    "l40s": (864, 362.05, 733, None),
    "rtx-6000-ada": (960, None, 728.5, None),
    "a100-80gb": (2039, 312, None, 624),
    "h100-sxm": (3350, 989.5, 1979, 1979),
    "h100-pcie": (2000, 756.5, 1513, 1513),
    "h100-nvl": (3900, 835.5, 1670.5, 1670.5),
    "h200": (4800, 989.5, 1979, 1979),
    "b200": (7700, 2250, 4500, 4500),
    "mi300x": (5300, 1307.4, 2614.9, 2614.9),
    "v100-16gb": (900, 125, None, None),
    "v100-32gb": (900, 125, None, None),
    "l40": (864, 181.05, 362, 362),
    "rtx-a6000": (768, 154.8, None, 309.7),
    # Hardware of published measurements that the planner does not list.
    "a100-80gb-pcie": (1935, 312, None, 624),
    "apple-m1-max": (400, None, None, None),
    "apple-m2-ultra": (800, None, None, None),
    "apple-m3": (100, None, None, None),
    "apple-m3-max": (400, None, None, None),
}


# Each derived card's bandwidth in GB/s as its copy prints it (the RTX 4080's 256 bits at 22.4 Gbps, which the copy
# rounds to 717), typed apart from the interface width and data rate it is derived from.
DERIVED_BANDWIDTH = {
    "rtx-4060": 272, "rtx-4060-ti-8gb": 288, "rtx-4060-ti-16gb": 288, "rtx-4070": 504, "rtx-4070-super": 504,
    "rtx-4070-ti": 504, "rtx-4070-ti-super": 672, "rtx-4080": 716.8, "rtx-4080-super": 736,
}


def test_every_card_the_datasheets_cover_is_a_listed_card() -> None:
    assert set(DATASHEETS) <= {card.key for card in planner.CARDS}
    assert set(DATASHEETS) | set(MEASURED_HARDWARE) == set(HAND_COPIED) | set(DERIVED_BANDWIDTH)
    assert set(SPECS) == set(DERIVED_BANDWIDTH)
    assert not set(MEASURED_HARDWARE) & {card.key for card in planner.CARDS}


@pytest.mark.parametrize("key", sorted(HAND_COPIED) + sorted(SPECS))
def test_every_figure_has_a_public_vendor_source(key: str) -> None:
    for figure in datasheet(key).figures().values():
        assert figure.source.startswith("https://")
        host = figure.source.split("/")[2]
        # Apple's M3 and M3 Max bandwidth, as llama.cpp's Apple Silicon table lists it.
        apple_table = figure.source == "https://github.com/ggml-org/llama.cpp/discussions/4167"
        assert host.endswith(("nvidia.com", "amd.com", "apple.com")) or apple_table, host
        assert figure.printed and (isinstance(figure, Derived) or figure.gpus >= 1)


@pytest.mark.parametrize("key", sorted(HAND_COPIED))
def test_each_figure_matches_the_hand_copied_datasheet_value(key: str) -> None:
    bandwidth, *rates = HAND_COPIED[key]
    assert memory_bandwidth(key) == bandwidth * GB_S
    for precision, expected in zip(PRECISIONS, rates, strict=True):
        if expected is None:
            with pytest.raises(Refusal) as refused:
                tensor_flops(key, precision)
            assert refused.value.code == "no_datasheet_figure" and key in str(refused.value)
        else:
            assert tensor_flops(key, precision) == round(expected * 100) * TERA // 100
            assert isinstance(tensor_flops(key, precision), int)


@pytest.mark.parametrize("key", ["a10g", "rtx-3060", "not-a-card"])
def test_a_card_without_figures_is_refused_by_name(key: str) -> None:
    with pytest.raises(ValueError, match=f"no datasheet figures for card '{key}'") as refused:
        datasheet(key)
    assert isinstance(refused.value, Refusal) and "h100-sxm" in str(refused.value)


def test_bad_arguments_are_refused_not_looked_up() -> None:
    with pytest.raises(TypeError, match="card must be a str"):
        datasheet(4090)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="precision must be one of 'fp16', 'fp8', 'int8'"):
        tensor_flops("h100-sxm", "fp32")


def test_a_printed_figure_that_is_not_whole_per_second_or_unreadable_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a whole number"):
        _ = Figure("0.0000000000001 TB/s", "https://www.nvidia.com/").value
    with pytest.raises(ValueError, match="unreadable"):
        _ = Figure("fast", "https://www.nvidia.com/").value


def test_geforce_fp16_accumulate_rates_are_the_whitepapers_and_twice_the_fp32_accumulate_ones() -> None:
    # GA102 whitepaper: RTX 3090 FP16 Tensor 142 TFLOPS with FP16 accumulate (71 with FP32); Ada whitepaper:
    # RTX 4090 330.3 (165.2).  Cards whose datasheet prints one FP16 figure give none apart.
    hand_copied = {"rtx-3090": 142, "rtx-4090": 330.3}
    for key in HAND_COPIED:
        figure = datasheet(key).fp16_accumulate
        if key in hand_copied:
            assert figure is not None and figure.source.split("/")[2].endswith("nvidia.com")
            assert figure.value == round(hand_copied[key] * 10) * TERA // 10
            assert figure.value == pytest.approx(2 * tensor_flops(key, "fp16"), rel=1e-3)  # 330.3 against 165.2
        else:
            assert figure is None, key


@pytest.mark.parametrize("row", COPIES["figures"], ids=lambda row: f"{row['card']}-{row['figure']}")
def test_each_added_figure_prints_the_words_of_the_copy_it_was_read_in(row: dict[str, object]) -> None:
    figure = datasheet(str(row["card"])).figures()[str(row["figure"])]
    assert (figure.printed, figure.source, figure.value) == (row["printed"], row["source"], row["value"])
    # The number (and, for bandwidth, its unit as printed) stands in the copy's line as a whole word.
    words = figure.printed.removesuffix("*") if row["figure"] == "bandwidth" else figure.printed.split(" ")[0]
    assert re.search(rf"(?<![\d.,]){re.escape(words)}(?![\d.,])", str(row["text"])), (words, row["text"])
    assert str(COPIES["copies"][row["copy"]]["url"]).startswith("https://")


def test_the_per_sm_rates_reproduce_every_geforce_column_the_whitepapers_print() -> None:
    # GA102 whitepaper, RTX 3090: 82 SMs, GPU Boost Clock 1695 MHz, Peak FP16 Tensor TFLOPS with FP32 Accumulate 71,
    # with FP16 Accumulate 142.  Ada whitepaper, RTX 4090: 128 SMs, 2520 MHz, 165.2 and 330.3.  Each printed to the
    # precision the column prints it, and each the figure DATASHEETS holds for the card.
    columns = [("ampere", 82, 1_695, 71, 142, 0, "rtx-3090"), ("ada", 128, 2_520, 165.2, 330.3, 1, "rtx-4090")]
    for architecture, sms, mhz, fp32_accumulate, fp16_accumulate, digits, key in columns:
        _, per_sm_fp32, per_sm_fp16 = PER_SM_CLOCK[architecture]
        assert round(sms * mhz * 1e6 * per_sm_fp32 / TERA, digits) == fp32_accumulate
        assert round(sms * mhz * 1e6 * per_sm_fp16 / TERA, digits) == fp16_accumulate
        sheet = datasheet(key)
        assert sheet.fp16 is not None and sheet.fp16_accumulate is not None
        assert (sheet.fp16.value, sheet.fp16_accumulate.value) == (round(fp32_accumulate * TERA),
                                                                   round(fp16_accumulate * TERA))
    # One FLOP a clock fewer or more per SM misses a printed column.
    assert round(82 * 1_695e6 * 513 / TERA) != 71 or round(128 * 2_520e6 * 511 / TERA, 1) != 165.2


def test_the_rtx_4090_s_launch_specification_gives_the_whitepaper_s_figures_as_a_derived_card_would() -> None:
    # The copy's RTX 4090 column (16384 CUDA cores, 2520 MHz, 21 Gbps, 384-bit) derived like the other cards gives
    # the Ada whitepaper's printed 1008 GB/s and 165.2 TFLOPS.
    spec = CardSpec(16384, 2520, 384, 21_000, "ada", DATASHEETS["rtx-4090"].bandwidth.source)
    assert Derived(spec, "bandwidth").value == memory_bandwidth("rtx-4090")
    assert Derived(spec, "fp16").printed == DATASHEETS["rtx-4090"].fp16.printed  # type: ignore[union-attr]


@pytest.mark.parametrize("row", COPIES["derived"], ids=lambda row: row["card"])
def test_each_derived_card_s_inputs_are_the_words_of_the_copy_it_was_read_in(row: dict[str, dict[str, object]]) -> None:
    key = str(row["card"])
    spec = SPECS[key]
    for field in ("cuda_cores", "boost_mhz", "bus_bits", "data_rate_mbps"):
        words, text = str(row[field]["printed"]), str(row[field]["text"])
        assert re.search(rf"(?<![\d.,]){re.escape(words)}(?![\d]|[.,]\d)", text), (field, words, text)
        assert getattr(spec, field) == row[field]["value"], field
        if "column" in row[field]:  # a table's row, after its label a cell a card: the words are in the card's
            cells = re.findall(r"\d[\d,]*(?: (?:MHz|GHz|Gbps))?(?:-bit)?", text.split(str(row[field]["label"]))[1])
            assert cells[int(str(row[field]["column"]))] == words, (field, cells)
    assert str(COPIES["copies"][str(row["copy"])]["url"]).startswith("https://")
    sheet = datasheet(key)
    # The bandwidth the copy prints, and the rates the per-SM figures give for the copy's CUDA cores and clock.
    assert sheet.bandwidth.value == round(DERIVED_BANDWIDTH[key] * 10) * GB_S // 10
    sms = int(str(row["cuda_cores"]["value"])) // 128
    mhz = int(str(row["boost_mhz"]["value"]))
    assert tensor_flops(key, "fp16") == sms * mhz * 10**6 * 512 == bf16_flops(key)
    assert sheet.fp16_accumulate is not None and sheet.fp16_accumulate.value == sms * mhz * 10**6 * 1024
    for figure in (sheet.bandwidth, sheet.fp16, sheet.fp16_accumulate):
        assert isinstance(figure, Derived) and figure.derivation.startswith("derived: ")
    for precision in ("fp8", "int8"):
        with pytest.raises(Refusal, match="it gives: bandwidth, fp16"):
            tensor_flops(key, precision)


def test_a_derived_card_s_cuda_cores_must_be_whole_sms() -> None:
    assert CUDA_CORES_PER_SM == 128
    with pytest.raises(ValueError, match="4353 CUDA cores are not whole SMs of 128"):
        _ = Derived(CardSpec(4353, 2535, 128, 18_000, "ada", "https://www.nvidia.com/"), "fp16").value


def test_printed_figures_are_not_marked_derived_and_derived_ones_say_from_what() -> None:
    assert datasheet("rtx-4090").bandwidth.derivation is None
    assert datasheet("rtx-4070").bandwidth.derivation == "derived: 192-bit memory interface x 21 Gbps per pin / 8"
    assert datasheet("rtx-4060").fp16_accumulate.derivation == (  # type: ignore[union-attr]
        "derived: 24 SMs x 2,460 MHz boost clock x 1024 FLOPs per SM per clock of the Ada whitepaper")


def test_every_listed_card_has_figures_or_is_refused_by_name_and_the_module_says_why() -> None:
    refused = COPIES["refused"]
    assert set(DATASHEETS) | set(refused) == {card.key for card in planner.CARDS}
    assert not set(DATASHEETS) & set(refused)
    doc = " ".join((llmcalc.datasheets.__doc__ or "").split())
    names = {card.key: card.name.rsplit(" (", 1)[0] for card in planner.CARDS}
    for key in refused:
        with pytest.raises(Refusal, match=f"no datasheet figures for card '{key}'"):
            datasheet(key)
        assert names[key] in doc, names[key]


def test_the_l40_s_fp16_figure_is_its_bf16_one_so_no_fp16_accumulate_rate_is_taken_from_it() -> None:
    # The datasheet: "BFLOAT16 Tensor Core TFLOPS | 181.05 | 362.1*" and "FP16 Tensor Core | 181.05 | 362.1*",
    # half the L40S's 362.05 on the same chip; BF16 accumulates in FP32.
    sheet = datasheet("l40")
    assert sheet.fp16 is not None and sheet.fp16.value * 2 == round(362.1 * TERA)
    assert sheet.fp16_accumulate is None and sheet.fp16_accumulate_unpublished
    assert not any(other.fp16_accumulate_unpublished for key, other in DATASHEETS.items() if key != "l40")


def test_the_rtx_a6000_s_fp32_accumulate_rate_is_the_full_rate_so_it_serves_both_accumulations() -> None:
    # 336 Tensor Cores x 1,800 MHz x 256 FLOPs a clock (dense FP16), the rate at which the RTX 3090's 328 at
    # 1,695 MHz give its FP16-accumulate 142 TFLOPS (GA102 whitepaper; NVIDIA's boost clocks).
    per_core_clock = 256
    assert round(336 * 1_800e6 * per_core_clock / TERA, 1) == 154.8 == tensor_flops("rtx-a6000", "fp16") / TERA
    assert round(328 * 1_695e6 * per_core_clock / TERA) == 142 == datasheet("rtx-3090").fp16_accumulate.value // TERA
    assert datasheet("rtx-a6000").fp16_accumulate is None


# Compute capability of each listed card with an FP16 figure, as NVIDIA's CUDA GPU list
# (https://developer.nvidia.com/cuda-gpus) gives it, copied by hand; the MI300X is AMD's, whose datasheet prints
# a BF16 rate.  PyTorch 2.13.0's torch.cuda.is_bf16_supported(including_emulation=False) is true from a major
# version of 8 only: below it no tensor core multiplies BF16.
COMPUTE_CAPABILITY = {
    "t4": 7.5, "v100-16gb": 7.0, "v100-32gb": 7.0, "a10": 8.6, "l4": 8.9, "rtx-3090": 8.6, "rtx-4090": 8.9,
    "rtx-5090": 12.0, "a100-40gb": 8.0, "a100-80gb": 8.0, "a40": 8.6, "l40s": 8.9, "l40": 8.9, "rtx-a6000": 8.6,
    "h100-sxm": 9.0, "h100-pcie": 9.0, "h100-nvl": 9.0, "h200": 9.0, "b200": 10.0, "mi300x": None,
    # Every GeForce RTX 40 card is Ada, compute capability 8.9.
    "rtx-4060": 8.9, "rtx-4060-ti-8gb": 8.9, "rtx-4060-ti-16gb": 8.9, "rtx-4070": 8.9, "rtx-4070-super": 8.9,
    "rtx-4070-ti": 8.9, "rtx-4070-ti-super": 8.9, "rtx-4080": 8.9, "rtx-4080-super": 8.9,
}


def test_the_list_covers_every_card_with_an_fp16_figure() -> None:
    assert set(COMPUTE_CAPABILITY) == {key for key, sheet in DATASHEETS.items() if sheet.fp16 is not None}


@pytest.mark.parametrize("key", sorted(COMPUTE_CAPABILITY))
def test_bf16_runs_at_the_fp16_figure_from_compute_capability_8_and_is_refused_below(key: str) -> None:
    capability = COMPUTE_CAPABILITY[key]
    if capability is None or capability >= 8.0:
        assert bf16_flops(key) == tensor_flops(key, "fp16") and datasheet(key).no_bf16 is None
        return
    with pytest.raises(Refusal) as refused:
        bf16_flops(key)
    fp16 = HAND_COPIED[key][1]
    assert refused.value.code == "no_bf16_tensor_cores" and refused.value.params["card"] == key
    assert f"card '{key}' has no BF16 tensor cores" in str(refused.value)
    assert f"its datasheet's {fp16} TFLOPS are an FP16 rate" in str(refused.value)
    assert datasheet(key).no_bf16 == "https://developer.nvidia.com/cuda-gpus"
