"""Each listed card's memory bandwidth and dense tensor throughput, as its vendor's datasheet prints them.

A speed estimate (:mod:`llmcalc.speed`) divides the bytes a decode step reads by
the card's memory bandwidth and the FLOPs a prefill does by its tensor peak;
this module holds those two figures for the cards of
:data:`llmcalc.planner.CARDS`, each with the public NVIDIA or AMD datasheet (or
architecture whitepaper) that prints it and the words it prints.  Every value
is an exact int, per second: bytes per second for bandwidth, operations per
second for throughput.

The tensor figures are dense, without 2:4 structured sparsity.  Where a
datasheet prints only the sparse figure (marked ``*`` there, with the footnote
that the dense one is half), :attr:`Figure.value` halves it; where it prints a
board of several GPUs (HGX B200), it divides by their number.  FP16 is the
FP16/BF16 tensor rate with FP32 accumulation, the one a BF16 or FP16 model's
matrix products run at in PyTorch; on GeForce cards that is half the
FP16-accumulate rate the same table also prints, which is given apart
(:attr:`Datasheet.fp16_accumulate`) because llama.cpp's CUDA back end multiplies
with FP16 accumulation.  FP8 and INT8 are given where the card has them.  The
FP16 figure is the card's BF16 rate too, except on the T4 and the V100, whose
tensor cores multiply FP16 only (:attr:`Datasheet.no_bf16`): :func:`bf16_flops`
refuses them by name.

Eight GeForce cards whose rates no NVIDIA document prints get them derived
(:class:`Derived`, marked so wherever a figure is shown): the tensor rate as
SMs x boost clock x the FLOPs an SM does a clock, the per-SM rate that
reproduces the columns NVIDIA's GA102 and Ada whitepapers print
(:data:`PER_SM_CLOCK`); the bandwidth as memory interface width x data rate.
Their inputs are NVIDIA's launch specifications of each card (:data:`SPECS`).
These are the RTX 4060, RTX 4060 Ti (8 GB and 16 GB), RTX 4070, RTX 4070 SUPER,
RTX 4070 Ti, RTX 4070 Ti SUPER, RTX 4080 and RTX 4080 SUPER.

A card with neither is not guessed: :func:`datasheet` refuses it by name.
These are the A10G, which NVIDIA sells only to AWS and documents nowhere, and
the RTX 3060, whose memory data rate no readable NVIDIA document prints and
whose reports disagree on (15 or 16 Gbps: 360 or 384 GB/s).

Examples
--------
>>> sheet = datasheet("h100-sxm")
>>> sheet.bandwidth.value, sheet.bandwidth.printed
(3350000000000, '3.35TB/s')
>>> sheet.fp16.value, sheet.fp16.printed  # the datasheet's sparse figure, halved
(989500000000000, '1,979 teraFLOPS*')
>>> tensor_flops("rtx-4090", "fp16")  # the Ada whitepaper's dense, FP32-accumulate figure
165200000000000
>>> tensor_flops("a10g", "fp16")
Traceback (most recent call last):
    ...
llmcalc.errors.RefusalValueError: no datasheet figures for card 'a10g'; cards with figures: ...
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from . import _validate as check
from .errors import refusal

__all__ = ["CUDA_CORES_PER_SM", "DATASHEETS", "DERIVED_QUANTITIES", "MEASURED_HARDWARE", "PER_SM_CLOCK", "PRECISIONS",
           "SPECS", "CardSpec", "Datasheet", "Derived", "Figure", "bf16_flops", "datasheet", "derivations",
           "memory_bandwidth", "tensor_flops"]

PRECISIONS = ("fp16", "fp8", "int8")
"""The tensor precisions a datasheet entry may give: FP16/BF16, FP8 and INT8."""

_UNITS: Mapping[str, int] = MappingProxyType({
    "GB/sec": 10**9, "GB/s": 10**9, "TB/s": 10**12, "teraFLOPS": 10**12, "TFLOPS": 10**12, "TOPS": 10**12,
    "PFLOPS": 10**15, "POPS": 10**15,
})
_PRINTED = re.compile(r"([0-9][0-9,]*(?:\.[0-9]+)?)\+? ?(GB/sec|GB/s|TB/s|teraFLOPS|TFLOPS|TOPS|PFLOPS|POPS)\*?")


@dataclass(frozen=True)
class Figure:
    """One datasheet figure: the words it prints, where, and how the dense per-GPU value follows from them.

    ``printed`` is the figure as the ``source`` prints it, number and unit
    (``"3.35TB/s"``, ``"1,979 teraFLOPS*"``); ``sparse`` says the printed figure
    counts 2:4 structured sparsity, which the source's footnote says doubles the
    dense rate; ``gpus`` is the number of GPUs the printed figure is for.

    Examples
    --------
    >>> Figure("1,979 teraFLOPS*", "https://example.org", sparse=True).value
    989500000000000
    >>> Figure("4.5 PFLOPS", "https://example.org", sparse=True, gpus=1).value
    2250000000000000
    """

    printed: str
    source: str
    sparse: bool = False
    gpus: int = 1

    @property
    def value(self) -> int:
        """The dense figure for one GPU, per second, as an exact int."""
        match = _PRINTED.fullmatch(self.printed)
        if match is None:
            raise ValueError(f"unreadable datasheet figure {self.printed!r}")
        number = Decimal(match[1].replace(",", "")) * _UNITS[match[2]]
        per_gpu = number / (2 if self.sparse else 1) / self.gpus
        if per_gpu != per_gpu.to_integral_value():
            raise ValueError(f"datasheet figure {self.printed!r} is not a whole number per second")
        return int(per_gpu)

    @property
    def derivation(self) -> str | None:
        """``None``: the figure is printed, not derived (:attr:`Derived.derivation`)."""
        return None


CUDA_CORES_PER_SM = 128
"""CUDA cores in one SM of a GeForce GA10x or AD10x GPU, as the GA102 and Ada whitepapers give it ("CUDA Cores /
SM": 128 in every column), so that a card's SMs are its CUDA cores divided by it."""

PER_SM_CLOCK: Mapping[str, tuple[str, int, int]] = MappingProxyType({
    "ampere": ("GA102", 512, 1024),
    "ada": ("Ada", 512, 1024),
})
"""Dense FP16 tensor FLOPs one SM of a GeForce card does a clock, by architecture: the whitepaper named, then the
rate with FP32 accumulation, then with FP16 accumulation.

They are what the whitepapers' GeForce columns print divided by SMs x boost clock, to the printed precision:
the GA102 whitepaper's RTX 3090 (82 SMs at 1,695 MHz) 71 and 142 TFLOPS, the Ada whitepaper's RTX 4090 (128 SMs
at 2,520 MHz) 165.2 and 330.3 TFLOPS.  A GeForce tensor core runs FP32 accumulation at half the FP16-accumulate
rate; the RTX A6000, on the same GA102, runs both at 1,024 (154.8 TFLOPS: 84 SMs at 1,800 MHz).

Examples
--------
>>> round(82 * 1_695e6 * PER_SM_CLOCK["ampere"][1] / 1e12), round(128 * 2_520e6 * PER_SM_CLOCK["ada"][1] / 1e12, 1)
(71, 165.2)
"""


@dataclass(frozen=True)
class CardSpec:
    """A GeForce card's published specification: what its derived figures (:class:`Derived`) stand on.

    ``cuda_cores`` and ``boost_mhz`` give the tensor rate, ``bus_bits`` (the
    memory interface width) and ``data_rate_mbps`` (per pin) the bandwidth;
    ``architecture`` is a key of :data:`PER_SM_CLOCK`; ``source`` is NVIDIA's
    page of the card.

    Examples
    --------
    >>> SPECS["rtx-4060-ti-16gb"].sms
    34
    """

    cuda_cores: int
    boost_mhz: int
    bus_bits: int
    data_rate_mbps: int
    architecture: str
    source: str

    @property
    def sms(self) -> int:
        """The card's SMs: its CUDA cores over :data:`CUDA_CORES_PER_SM`."""
        if self.cuda_cores % CUDA_CORES_PER_SM:
            raise ValueError(f"{self.cuda_cores} CUDA cores are not whole SMs of {CUDA_CORES_PER_SM}")
        return self.cuda_cores // CUDA_CORES_PER_SM


DERIVED_QUANTITIES = ("bandwidth", "fp16", "fp16_accumulate")


@dataclass(frozen=True)
class Derived:
    """A figure no NVIDIA document prints for the card, derived from its specification: a quantity of
    :data:`DERIVED_QUANTITIES`, exact per second.

    Examples
    --------
    >>> figure = Derived(SPECS["rtx-4080"], "fp16")
    >>> figure.value, figure.printed
    (97474560000000, '97.5 TFLOPS')
    >>> figure.derivation
    'derived: 76 SMs x 2,505 MHz boost clock x 512 FLOPs per SM per clock of the Ada whitepaper'
    >>> Derived(SPECS["rtx-4080"], "bandwidth").derivation
    'derived: 256-bit memory interface x 22.4 Gbps per pin / 8'
    """

    spec: CardSpec
    quantity: str

    @property
    def source(self) -> str:
        """NVIDIA's page of the card, whose specification the figure is derived from."""
        return self.spec.source

    @property
    def value(self) -> int:
        """The derived figure per second, an exact int."""
        spec = self.spec
        if self.quantity == "bandwidth":
            return spec.bus_bits * spec.data_rate_mbps * 10**6 // 8
        return spec.sms * spec.boost_mhz * 10**6 * self.per_sm_clock

    @property
    def printed(self) -> str:
        """The derived figure as a datasheet would print it: GB/s, or TFLOPS to one decimal."""
        if self.quantity == "bandwidth":
            return f"{Decimal(self.value) / 10**9:f} GB/s"
        return f"{self.value / 10**12:.1f} TFLOPS"

    @property
    def derivation(self) -> str:
        """How the figure follows from the specification, the words shown beside it."""
        spec = self.spec
        if self.quantity == "bandwidth":
            return (f"derived: {spec.bus_bits}-bit memory interface x {Decimal(spec.data_rate_mbps) / 1000:f} Gbps "
                    "per pin / 8")
        return (f"derived: {spec.sms} SMs x {spec.boost_mhz:,} MHz boost clock x {self.per_sm_clock} FLOPs per SM "
                f"per clock of the {PER_SM_CLOCK[spec.architecture][0]} whitepaper")

    @property
    def per_sm_clock(self) -> int:
        """The FLOPs an SM does a clock at the figure's accumulation (:data:`PER_SM_CLOCK`); a bandwidth's is its
        tensor rate's with FP32 accumulation, unused."""
        _, fp32_accumulate, fp16_accumulate = PER_SM_CLOCK[self.spec.architecture]
        return fp16_accumulate if self.quantity == "fp16_accumulate" else fp32_accumulate


@dataclass(frozen=True)
class Datasheet:
    """A card's memory bandwidth and its dense tensor rates (``None`` where its datasheet prints none).

    ``fp16_accumulate`` is the FP16 tensor rate with FP16 accumulation where the
    whitepaper prints it apart from ``fp16`` (GeForce cards, where it is twice
    as fast); elsewhere the one FP16 figure holds for both accumulations, unless
    ``fp16_accumulate_unpublished`` says the figure is the FP32-accumulate rate
    of a card whose FP16-accumulate rate is printed nowhere (the L40).

    ``no_bf16`` is, for a card whose tensor cores have no BF16 (compute
    capability below 8.0), where that is stated; ``fp16`` is then an FP16 rate
    only.  On every other card with an ``fp16`` figure, BF16 runs at that rate.
    """

    key: str
    bandwidth: Figure | Derived
    fp16: Figure | Derived | None
    fp8: Figure | None = None
    int8: Figure | None = None
    fp16_accumulate: Figure | Derived | None = None
    fp16_accumulate_unpublished: bool = False
    no_bf16: str | None = None

    @property
    def nvidia(self) -> bool:
        """Whether the figures are NVIDIA's (the bandwidth's source is an nvidia.com document): a CUDA card."""
        return self.bandwidth.source.split("/")[2].endswith("nvidia.com")

    def figures(self) -> dict[str, Figure | Derived]:
        """The figures given, by name: ``bandwidth`` and each precision of :data:`PRECISIONS` printed or derived."""
        given = {"bandwidth": self.bandwidth, "fp16": self.fp16, "fp8": self.fp8, "int8": self.int8}
        return {name: figure for name, figure in given.items() if figure is not None}


_A100 = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-nvidia-us-2188504-web.pdf"
_A10 = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf"
_A40 = "https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf"
_T4 = "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf"
_L4 = "https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet"
_L40S = "https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413"
_L40 = "https://images.nvidia.com/content/Solutions/data-center/vgpu-L40-datasheet.pdf"
_V100 = "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
_AMPERE = "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf"
_ADA = "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"
_BLACKWELL_RTX = "https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf"
_RTX6000 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/rtx-6000/"
            "proviz-print-rtx6000-datasheet-web-2504660.pdf")
_H100 = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
_H200 = "https://resources.nvidia.com/en-us-data-center-overview-mc/en-us-data-center-overview/hpc-datasheet-sc23-h200"
_HGX = "https://www.nvidia.com/en-us/data-center/hgx/"
# Compute capability: the T4 7.5, the V100 7.0; BF16 tensor cores begin at 8.0 (Ampere).
_CUDA_GPUS = "https://developer.nvidia.com/cuda-gpus"
_MI300X = ("https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
           "amd-instinct-mi300x-data-sheet.pdf")


_RTX_4060 = "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4060-4060ti/"
_RTX_4070 = "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4070-family/"
_RTX_4080 = "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4080-family/"

SPECS: Mapping[str, CardSpec] = MappingProxyType({
    "rtx-4060": CardSpec(3072, 2460, 128, 17_000, "ada", _RTX_4060),
    "rtx-4060-ti-8gb": CardSpec(4352, 2535, 128, 18_000, "ada", _RTX_4060),
    "rtx-4060-ti-16gb": CardSpec(4352, 2535, 128, 18_000, "ada", _RTX_4060),
    "rtx-4070": CardSpec(5888, 2475, 192, 21_000, "ada", _RTX_4070),
    "rtx-4070-super": CardSpec(7168, 2475, 192, 21_000, "ada", _RTX_4070),
    "rtx-4070-ti": CardSpec(7680, 2610, 192, 21_000, "ada", _RTX_4070),
    "rtx-4070-ti-super": CardSpec(8448, 2610, 256, 21_000, "ada", _RTX_4070),
    "rtx-4080": CardSpec(9728, 2505, 256, 22_400, "ada", _RTX_4080),
    "rtx-4080-super": CardSpec(10240, 2550, 256, 23_000, "ada", _RTX_4080),
})
"""The GeForce cards whose figures are derived, and the specification each is derived from: CUDA cores, boost
clock in MHz, memory interface width and data rate, as NVIDIA's launch specifications give them.

``source`` is NVIDIA's product page of the card, which was not readable here: every input was read in a report
that printed NVIDIA's specification at the card's launch, the boost clock in MHz with the memory's data rate
(tests/data/datasheet_copies.json names the copy and the words of each).
"""


def _derived(key: str) -> Datasheet:
    spec = SPECS[key]
    return Datasheet(key, Derived(spec, "bandwidth"), Derived(spec, "fp16"),
                     fp16_accumulate=Derived(spec, "fp16_accumulate"))


def _sparse(printed: str, source: str, gpus: int = 1) -> Figure:
    return Figure(printed, source, sparse=True, gpus=gpus)


DATASHEETS: Mapping[str, Datasheet] = MappingProxyType({sheet.key: sheet for sheet in (
    Datasheet("t4", Figure("320+ GB/s", _T4), Figure("65 TFLOPS", _T4), int8=Figure("130 TOPS", _T4),
              no_bf16=_CUDA_GPUS),
    Datasheet("a10", Figure("600GB/s", _A10), Figure("125 TFLOPS", _A10), int8=Figure("250 TOPS", _A10)),
    Datasheet("l4", Figure("300GB/s", _L4), _sparse("242 teraFLOPS*", _L4), _sparse("485 teraFLOPS*", _L4),
              _sparse("485 TOPS*", _L4)),
    Datasheet("rtx-3090", Figure("936 GB/s", _AMPERE), Figure("71 TFLOPS", _AMPERE), int8=Figure("284 TOPS", _AMPERE),
              fp16_accumulate=Figure("142 TFLOPS", _AMPERE)),
    Datasheet("rtx-4090", Figure("1008 GB/s", _ADA), Figure("165.2 TFLOPS", _ADA), Figure("330.3 TFLOPS", _ADA),
              Figure("660.6 TOPS", _ADA), fp16_accumulate=Figure("330.3 TFLOPS", _ADA)),
    Datasheet("rtx-5090", Figure("1792 GB/s", _BLACKWELL_RTX), Figure("209.5 TFLOPS", _BLACKWELL_RTX),
              Figure("419 TFLOPS", _BLACKWELL_RTX), Figure("838 TOPS", _BLACKWELL_RTX)),
    Datasheet("a100-40gb", Figure("1,555GB/s", _A100), Figure("312 TFLOPS", _A100), int8=Figure("624 TOPS", _A100)),
    Datasheet("a40", Figure("696 GB/s", _A40), Figure("149.7 TFLOPS", _A40), int8=Figure("299.3 TOPS", _A40)),
    Datasheet("l40s", Figure("864GB/s", _L40S), Figure("362.05 TFLOPS", _L40S), Figure("733 TFLOPS", _L40S)),
    Datasheet("rtx-6000-ada", Figure("960 GB/s", _RTX6000), None, _sparse("1,457.0 TFLOPS", _RTX6000)),
    # The A100 80GB in its SXM form; the PCIe card's datasheet column prints 1,935GB/s.
    Datasheet("a100-80gb", Figure("2,039GB/s", _A100), Figure("312 TFLOPS", _A100), int8=Figure("624 TOPS", _A100)),
    Datasheet("h100-sxm", Figure("3.35TB/s", _H100), _sparse("1,979 teraFLOPS*", _H100),
              _sparse("3,958 teraFLOPS*", _H100), _sparse("3,958 TOPS*", _H100)),
    Datasheet("h100-pcie", Figure("2TB/s", _H100), _sparse("1,513 teraFLOPS*", _H100),
              _sparse("3,026 teraFLOPS*", _H100), _sparse("3,026 TOPS*", _H100)),
    Datasheet("h100-nvl", Figure("3.9TB/s", _H100), _sparse("1,671 teraFLOPS*", _H100),
              _sparse("3,341 teraFLOPS*", _H100), _sparse("3,341 TOPS*", _H100)),
    Datasheet("h200", Figure("4.8TB/s", _H200), _sparse("1,979 TFLOPS*", _H200), _sparse("3,958 TFLOPS*", _H200),
              _sparse("3,958 TOPS*", _H200)),
    # HGX B200's table prints each GPU's figures (180GB HBM3E, 7.7TB/s), its tensor rates with sparsity.
    Datasheet("b200", Figure("7.7TB/s", _HGX), _sparse("4.5 PFLOPS", _HGX), _sparse("9 PFLOPS", _HGX),
              _sparse("9 POPS", _HGX)),
    Datasheet("mi300x", Figure("5.3 TB/s", _MI300X), Figure("1307.4 TFLOPS", _MI300X),
              Figure("2614.9 TFLOPS", _MI300X), Figure("2614.9 TOPS", _MI300X)),
    # The V100 in its SXM2 form (the planner's totals are nvidia-smi's "Tesla V100-SXM2..." at 300 W); the
    # datasheet's PCIe column prints 112 TFLOPS and the same 900 GB/sec.
    Datasheet("v100-16gb", Figure("900 GB/sec", _V100), Figure("125 TFLOPS", _V100), no_bf16=_CUDA_GPUS),
    Datasheet("v100-32gb", Figure("900 GB/sec", _V100), Figure("125 TFLOPS", _V100), no_bf16=_CUDA_GPUS),
    Datasheet("rtx-a6000", Figure("768 GB/sec", _AMPERE), Figure("154.8 TFLOPS", _AMPERE),
              int8=Figure("309.7 TOPS", _AMPERE)),
    Datasheet("l40", Figure("864GB/s", _L40), Figure("181.05 TFLOPS", _L40), Figure("362 TFLOPS", _L40),
              Figure("362 TOPS", _L40), fp16_accumulate_unpublished=True),
    *(_derived(key) for key in SPECS),
)})
"""Each card key of :data:`llmcalc.planner.CARDS` that a datasheet covers, and its figures.

The H100 datasheet's PCIe column (1,513 and 3,026 teraFLOPS with sparsity,
2TB/s) is the one its 2022-2023 editions print beside SXM; later editions
replace it with the H100 NVL's.  The RTX 6000 Ada's datasheet prints one
tensor figure, FP8 with sparsity, so its FP16 rate is left out.  The L40's
datasheet prints the same 181.05 TFLOPS for FP16 and for BF16, which always
accumulates in FP32, half the L40S's 362.05 on the same 142-SM AD102: it is the
FP32-accumulate rate, and the FP16-accumulate one is printed nowhere.  The V100
is the SXM2 form, whose column prints 125 TFLOPS (the PCIe card's, 112).  The
GA102 whitepaper's RTX A6000 column prints FP16 with FP32 accumulation at
154.8 TFLOPS dense: 336 Tensor Cores at 1,800 MHz doing 256 FLOPs a clock, the
full rate a GeForce GA102 card reaches only with FP16 accumulation (the RTX
3090's 142 TFLOPS: 328 at 1,695 MHz), so it serves both accumulations.

The T4 (Turing, compute capability 7.5) and the V100 (Volta, 7.0) have tensor
cores for FP16 but not for BF16, which NVIDIA's tensor cores multiply from
compute capability 8.0 on (its CUDA GPU list gives each card's): their
datasheets print a mixed-precision FP16 figure and no BF16 one, and PyTorch
2.13.0's ``torch.cuda.is_bf16_supported(including_emulation=False)`` is true
from a major version of 8 only; below it BF16 is emulated.  The A100's
datasheet and the later ones print BF16 at the FP16 figure, and the MI300X's
too.
"""

_APPLE_M1_MAX = "https://www.apple.com/newsroom/2021/10/introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built/"
_APPLE_M2_ULTRA = "https://www.apple.com/newsroom/2023/06/apple-introduces-m2-ultra/"
_LLAMACPP_APPLE = "https://github.com/ggml-org/llama.cpp/discussions/4167"

MEASURED_HARDWARE: Mapping[str, Datasheet] = MappingProxyType({sheet.key: sheet for sheet in (
    Datasheet("a100-80gb-pcie", Figure("1,935GB/s", _A100), Figure("312 TFLOPS", _A100),
              int8=Figure("624 TOPS", _A100)),
    Datasheet("apple-m1-max", Figure("400GB/s", _APPLE_M1_MAX), None),
    Datasheet("apple-m2-ultra", Figure("800GB/s", _APPLE_M2_ULTRA), None),
    Datasheet("apple-m3", Figure("100GB/s", _LLAMACPP_APPLE), None),
    Datasheet("apple-m3-max", Figure("400GB/s", _LLAMACPP_APPLE), None),
)})
"""Hardware that published speed measurements ran on but :data:`llmcalc.planner.CARDS` does not list.

The A100 80GB in its PCIe form, and Apple chips by their unified-memory
bandwidth: as Apple announced it for the M1 Max and M2 Ultra, and for the M3
and the M3 Max (its 40-core GPU) as the BW column of llama.cpp's Apple Silicon
benchmark table lists Apple's figure.  Apple prints no tensor throughput for
its GPUs, so a prefill on them is not estimated.
"""


def datasheet(card: str) -> Datasheet:
    """The figures of ``card`` (a key of :data:`DATASHEETS` or :data:`MEASURED_HARDWARE`), or a refusal naming it.

    Examples
    --------
    >>> datasheet("mi300x").fp8.value
    2614900000000000
    """
    if not isinstance(card, str):
        raise refusal("not_a_str", name="card", value=card, type=type(card).__name__)
    sheet = DATASHEETS.get(card) or MEASURED_HARDWARE.get(card)
    if sheet is None:
        raise refusal("no_datasheet_figures", card=card, cards=sorted(DATASHEETS))
    return sheet


def memory_bandwidth(card: str) -> int:
    """The card's memory bandwidth in bytes per second, from its datasheet.

    Examples
    --------
    >>> memory_bandwidth("a100-80gb") / 10**9
    2039.0
    """
    return datasheet(card).bandwidth.value


def tensor_flops(card: str, precision: str = "fp16") -> int:
    """The card's dense tensor rate at ``precision`` (one of :data:`PRECISIONS`), operations per second.

    Examples
    --------
    >>> tensor_flops("l4", "fp8") / 10**12
    242.5
    >>> tensor_flops("rtx-6000-ada", "fp16")
    Traceback (most recent call last):
        ...
    llmcalc.errors.RefusalValueError: no datasheet fp16 tensor figure for card 'rtx-6000-ada'; it gives: bandwidth, fp8
    """
    check.choice("precision", precision, PRECISIONS)
    sheet = datasheet(card)
    figure = sheet.figures().get(precision)
    if figure is None:
        raise refusal("no_datasheet_figure", card=card, figure=precision, given=", ".join(sheet.figures()))
    return figure.value


def derivations(card: str, names: tuple[str, ...] = DERIVED_QUANTITIES) -> dict[str, str]:
    """The figures of ``card`` among ``names`` (of :data:`DERIVED_QUANTITIES`) that are derived, each as its value
    and how it follows: what an estimate standing on them shows beside its basis.  Empty for printed figures.

    Examples
    --------
    >>> derivations("rtx-4060-ti-16gb", ("bandwidth", "fp16_accumulate"))
    {'bandwidth': '288 GB/s, derived: 128-bit memory interface x 18 Gbps per pin / 8', \
'fp16_accumulate': '88.3 TFLOPS, derived: 34 SMs x 2,535 MHz boost clock x 1024 FLOPs per SM per clock of the Ada \
whitepaper'}
    >>> derivations("rtx-4090")
    {}
    """
    sheet = datasheet(card)
    given = {"bandwidth": sheet.bandwidth, "fp16": sheet.fp16, "fp16_accumulate": sheet.fp16_accumulate}
    return {name: f"{figure.printed}, {figure.derivation}" for name in names
            if isinstance(figure := given[check.choice("name", name, DERIVED_QUANTITIES)], Derived)}


def bf16_flops(card: str) -> int:
    """The card's dense BF16 tensor rate, operations per second: its FP16 figure, or a refusal without BF16 cores.

    Examples
    --------
    >>> bf16_flops("a100-80gb") / 10**12
    312.0
    >>> bf16_flops("t4")
    Traceback (most recent call last):
        ...
    llmcalc.errors.RefusalValueError: card 't4' has no BF16 tensor cores (compute capability below 8.0): its \
datasheet's 65 TFLOPS are an FP16 rate
    """
    flops = tensor_flops(card, "fp16")
    if datasheet(card).no_bf16 is not None:
        raise refusal("no_bf16_tensor_cores", card=card, tflops=flops / 10**12)
    return flops
