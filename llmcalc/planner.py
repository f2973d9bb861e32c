"""Will it fit?  GPU memory of inference and fine-tuning, by part, against a GPU.

One source of truth for the planner widget: its JavaScript repeats these rules
and the browser tests compare it with this module byte for byte.

A plan adds up parts computed from the shapes and number formats for a named
software set-up (weights, KV cache, gradients, optimizer state, from
``llmcalc.memory``, ``llmcalc.weightformats`` and ``llmcalc.lora``; see
:func:`plan_training` for the set-up each task assumes) and one that is a
measured model (activations:
:mod:`llmcalc.activations`), plus a
stated fixed :data:`RESERVE` for what no formula here counts: the CUDA context,
the caching allocator's rounding and fragmentation, temporary buffers of
kernels.  It answers for one GPU: under ZeRO, or with the model split by tensor or
pipeline parallelism, the share of one GPU (the busiest one's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

from . import _validate as check
from ._search import largest_holding, least_card_above
from .activations import activation_memory, planner_attention
from .checkpoints import CheckpointFormat, converts, stored_bytes
from .config import ModelConfig, checks_model
from .errors import Refusal, refusal
from .formats import KV_FORMATS
from .lora import lora_model_params, lora_targets
from .memory import kv_cache_bytes, training_memory, zero_memory_per_gpu
from .params import Linear, linear_modules, param_breakdown, param_count
from .unified import unified_memory
from .units import GB, GiB, MiB
from .weightformats import (
    WeightFormat,
    codes_and_constants,
    is_converted,
    lighter_weight_formats,
    weight_format_bytes,
)

__all__ = [
    "ADAPTER_DTYPES",
    "BNB_MIN_8BIT_SIZE",
    "BNB_OPTIMIZER_BLOCK",
    "BNB_QUANTIZATION_MAPS",
    "CARDS",
    "COLUMN_PARALLEL",
    "GPUS",
    "MAX_BATCH",
    "MAX_GPUS",
    "MAX_GPU_BYTES",
    "MAX_PARAMS",
    "MAX_TOKENS",
    "MEMORY_UNITS",
    "MIN_GPU_BYTES",
    "OPTIMIZERS",
    "PRECISIONS",
    "PRECISION_RECIPES",
    "PROCESS_ESTIMATE_ERROR_MIB",
    "PROCESS_ESTIMATE_MIB",
    "QLORA_PREPARATIONS",
    "RESERVE",
    "ROW_PARALLEL",
    "TASKS",
    "VLLM_VOCAB_PADDING",
    "ZERO3_MAX_LIVE_PARAMETERS",
    "ZERO3_PREFETCH_BUCKET_SIZE",
    "ZERO3_REDUCE_BUCKET_SIZE",
    "FitChange",
    "GpuCard",
    "MemoryPlan",
    "adamw_8bit_state_bytes",
    "checked_model",
    "context_limit",
    "context_search_limit",
    "default_tokens",
    "gpu_memory",
    "inference_changes_that_fit",
    "kv_heads_per_gpu",
    "largest_fitting",
    "linear_bytes",
    "listed_card",
    "padded_vocab",
    "parallel_inference_plans",
    "pipeline_stages",
    "plan_inference",
    "plan_training",
    "tensor_parallel_sizes",
    "trained_context",
    "training_changes_that_fit",
    "training_state_bytes",
    "zero3_buffer_bytes",
]

RESERVE = GiB
"""The 1 GiB every plan sets aside for the CUDA context and the allocator, an assumption, not a measurement.

It is taken from the total a process sees (:attr:`GpuCard.total_bytes`), which
is already 0.25 to 0.86 GiB below the driver's reported total.  Of that total,
before it allocates a tensor, the CUDA context (kernels, cuBLAS/cuDNN
workspaces) takes a few hundred MiB, more on newer cards and drivers; we assume
it takes at most 0.5 GiB of this reserve.  The rest covers the caching
allocator's rounding and fragmentation and kernels' temporary buffers, which
depend on the workload.  A serving engine needs more: vLLM counted 1.79 GiB
outside PyTorch on one H100 (vLLM pull request 10511), so a plan with less than
about 1 GiB to spare is a near miss there.
"""


@dataclass(frozen=True)
class GpuCard:
    """A listed card: the total its driver reports, the total a process sees, and where each was read.

    ``reported_mib`` is the card's total as the driver's ``tool`` reports it:
    ``memory.total`` as ``nvidia-smi`` prints it (MiB, ECC on where the card has
    it) for NVIDIA cards; for AMD's, the size of the GPU agent's global memory
    pool that ``rocminfo`` prints (KB), in MiB.  It is quoted in the public
    ``source`` and was read on ``checked``.

    ``process_gib`` is the total a CUDA process is given, smaller than the
    driver's: the total of ``torch.cuda.mem_get_info`` (``cudaMemGetInfo``), which
    vLLM prints as ``total_gpu_memory`` and PyTorch's out-of-memory message as
    "total capacity", in GiB with two decimals as printed; ``process_source`` is
    the public log or message that prints it and ``process_quote`` what it prints.
    ``None`` where no published figure was found: :attr:`total_bytes` is then an
    estimate (:data:`PROCESS_ESTIMATE_MIB`).
    """

    key: str
    name: str
    reported_mib: int
    source: str
    checked: str
    tool: str = "nvidia-smi"
    process_gib: str | None = None
    process_source: str = ""
    process_quote: str = ""

    @property
    def reported_bytes(self) -> int:
        """The driver's reported total in bytes."""
        return self.reported_mib * MiB

    @property
    def estimated(self) -> bool:
        """Whether :attr:`total_bytes` is an estimate, because no published log prints what a process sees here."""
        return self.process_gib is None

    @property
    def field(self) -> str:
        """The total in bytes a plan uses as :func:`gpu_memory` reads it, the printed GiB or the estimate in MiB."""
        if self.process_gib is None:
            return f"{self.reported_mib - PROCESS_ESTIMATE_MIB} MiB"
        return f"{self.process_gib} GiB"

    @property
    def total_bytes(self) -> int:
        """The total in bytes a plan is checked against, what a process sees, published or estimated."""
        return gpu_memory(self.field)

    @property
    def label(self) -> str:
        """The name a list shows, the vendor's nominal size and then the reported MiB."""
        return f"{self.name}: {self.reported_mib:,} MiB"


_CHECKED = "2026-12-01"
_CHECKED_PROCESS = "2026-12-07"
_ISSUES = "https://github.com/"
CARDS: tuple[GpuCard, ...] = (
    GpuCard("rtx-3060", "RTX 3060 (12 GB)", 12_288,
            "https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/790", _CHECKED,
            process_gib="11.75", process_source=_ISSUES + "smy20011/dreambooth-gui/issues/78",
            process_quote="(GPU 0; 11.75 GiB total capacity; ...)"),
    GpuCard("t4", "T4 (16 GB)", 15_360, "https://github.com/modal-labs/modal-client/pull/2797", _CHECKED,
            process_gib="14.56", process_source=_ISSUES + "Zheng-Chong/CatVTON/issues/133",
            process_quote="GPU 0 has a total capacity of 14.56 GiB"),
    GpuCard("a10", "A10 (24 GB)", 23_028, "https://github.com/QwenLM/Qwen3/issues/678", _CHECKED_PROCESS,
            process_gib="21.99", process_source=_ISSUES + "zai-org/CogVLM/issues/236",
            process_quote="GPU 0 has a total capacty of 21.99 GiB"),
    GpuCard("a10g", "A10G (24 GB)", 23_028, "https://github.com/NVIDIA/DCGM/issues/232", _CHECKED),
    GpuCard("l4", "L4 (24 GB)", 23_034, "https://github.com/modal-labs/modal-client/pull/2797", _CHECKED,
            process_gib="22.03", process_source=_ISSUES + "ArcInstitute/evo2/issues/190",
            process_quote="GPU 0 has a total capacity of 22.03 GiB"),
    GpuCard("rtx-3090", "RTX 3090 (24 GB)", 24_576, "https://github.com/noonghunna/club-3090/issues/1127", _CHECKED,
            process_gib="23.58", process_source=_ISSUES + "vllm-project/vllm/issues/10517",
            process_quote="total_gpu_memory=23.58GiB"),
    GpuCard("rtx-4090", "RTX 4090 (24 GB)", 24_564, "https://github.com/RLinf/RLinf/issues/255", _CHECKED,
            process_gib="23.64", process_source=_ISSUES + "ali-vilab/VGen/issues/104",
            process_quote="GPU 0 has a total capacity of 23.64 GiB"),
    GpuCard("rtx-5090", "RTX 5090 (32 GB)", 32_607, "https://github.com/noonghunna/club-3090/issues/617", _CHECKED,
            process_gib="31.37", process_source=_ISSUES + "Wan-Video/Wan2.1/issues/465",
            process_quote="GPU 0 has a total capacity of 31.37 GiB"),
    GpuCard("a100-40gb", "A100 (40 GB)", 40_960, "https://github.com/modal-labs/modal-client/pull/2797", _CHECKED,
            process_gib="39.50", process_source=_ISSUES + "TianheWu/CoSeR/issues/10",
            process_quote="GPU 0 has a total capacity of 39.50 GiB"),
    GpuCard("a40", "A40 (48 GB)", 46_068, "https://github.com/chatdoc-com/OCRFlux/issues/64", _CHECKED_PROCESS),
    GpuCard("l40s", "L40S (48 GB)", 46_068, "https://github.com/akash-network/provider-configs/pull/99", _CHECKED,
            process_gib="44.42", process_source=_ISSUES + "stepfun-ai/Step-Video-T2V/issues/8",
            process_quote="GPU  has a total capacity of 44.42 GiB"),
    # ECC on: the same issue prints nvidia-smi's 46068MiB beside the message (49,140 MiB with ECC off).
    GpuCard("rtx-6000-ada", "RTX 6000 Ada (48 GB)", 46_068, "https://github.com/DINGYANB/MTVCrafter/issues/21",
            _CHECKED_PROCESS, process_gib="44.43", process_source=_ISSUES + "DINGYANB/MTVCrafter/issues/21",
            process_quote="GPU 0 has a total capacity of 44.43 GiB"),
    GpuCard("a100-80gb", "A100 (80 GB)", 81_920, "https://github.com/modal-labs/modal-client/pull/2797", _CHECKED,
            process_gib="79.14", process_source=_ISSUES + "lianqi1008/Control-GIC/issues/6",
            process_quote="GPU 0 has a total capacity of 79.14 GiB"),
    GpuCard("h100-sxm", "H100 SXM (80 GB)", 81_559, "https://github.com/NVIDIA/nccl/issues/1264", _CHECKED,
            process_gib="79.11", process_source=_ISSUES + "vllm-project/vllm/issues/27508",
            process_quote="GPU 0 has a total capacity of 79.11 GiB"),
    # Lambda's docs quote nvidia-smi on its 1x H100 PCIe instance (driver 550.90.12); the file's commit of 2024-11-07.
    GpuCard("h100-pcie", "H100 PCIe (80 GB)", 81_559,
            "https://github.com/LandonTClipp/lambda-docs/blob/c863063d19e4e1b5ffa397783031a9b3682fdf06/docs/education/"
            "scheduling-and-orchestration/skypilot-deploy-kubernetes.md", _CHECKED),
    GpuCard("h100-nvl", "H100 NVL (94 GB)", 95_830, "https://github.com/wilicc/gpu-burn/issues/141", _CHECKED,
            process_gib="93.00", process_source=_ISSUES + "ali-vilab/VACE/issues/56",
            process_quote="GPU 0 has a total capacity of 93.00 GiB"),
    GpuCard("h200", "H200 (141 GB)", 143_771, "https://github.com/sgl-project/sglang/issues/3196", _CHECKED),
    GpuCard("b200", "B200 (180 GB)", 183_359, "https://github.com/NVIDIA/TensorRT-LLM/issues/10278", _CHECKED),
    # rocminfo's pool on an MI300X: "Size: 201310208(0xbffc000) KB", 196,592 MiB (rocm-smi's 206,141,652,992 bytes).
    GpuCard("mi300x", "MI300X (192 GB)", 196_592, "https://github.com/ROCm/legacy-rocm-build/issues/4414", _CHECKED,
            tool="rocminfo"),
    # Added 2026-12-07.  The RTX A6000 ships with ECC off: nvidia-smi's 49,140 MiB (46,068 MiB with ECC on).
    GpuCard("rtx-a6000", "RTX A6000 (48 GB)", 49_140, "https://github.com/noonghunna/club-3090/issues/1047",
            _CHECKED_PROCESS),
    GpuCard("rtx-4070", "RTX 4070 (12 GB)", 12_282, "https://github.com/Frogging-Family/nvidia-all/pull/212",
            _CHECKED_PROCESS),
    # V100 SXM2: nvidia-smi truncates the name to "Tesla V100-SXM2..."; the size tells the two apart.
    GpuCard("v100-16gb", "V100 (16 GB)", 16_160, "https://github.com/4paradigm/k8s-vgpu-scheduler/issues/7",
            _CHECKED_PROCESS, process_gib="15.78", process_source=_ISSUES + "kchengiva/Shift-GCN/issues/34",
            process_quote="(GPU 0; 15.78 GiB total capacity; ...)"),
    GpuCard("v100-32gb", "V100 (32 GB)", 32_768, "https://github.com/Wan-Video/Wan2.1/issues/5", _CHECKED_PROCESS,
            process_gib="31.74", process_source=_ISSUES + "liucongg/ChatGLM-Finetuning/issues/73",
            process_quote="(GPU 0; 31.74 GiB total capacity; ...)"),
    # Added 2026-12-07.  nvidia-smi on Windows (WDDM), driver 591.86: "660MiB /   8188MiB".
    GpuCard("rtx-4060", "RTX 4060 (8 GB)", 8_188, "https://github.com/HawaiiBeach/TinyNvidiaUpdateChecker/issues/263",
            _CHECKED_PROCESS),
    # nvidia_gpu_exporter's capture of nvidia-smi on Fedora, driver 595.71.05 (pull request 414), at its commit.
    GpuCard("rtx-4080-super", "RTX 4080 SUPER (16 GB)", 16_376,
            "https://github.com/utkuozdemir/nvidia_gpu_exporter/blob/0eee0d3187e2f014f1ba6736fd729a195e13a8c8/internal/"
            "captures/linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05.txt", _CHECKED_PROCESS,
            process_gib="15.99", process_source=_ISSUES + "C0untFloyd/roop-unleashed/issues/958",
            process_quote="GPU 0 has a total capacty of 15.99 GiB"),
    # The nvidia-smi output (driver 550.54.14, two MSI cards) that thamada's nvidia-smi simulator replays.
    GpuCard("rtx-4060-ti-16gb", "RTX 4060 Ti (16 GB)", 16_380,
            "https://github.com/thamada/nvidia-smi/blob/03fbe6e68c0bb4c28b72d5da786a9712a33cf408/nvsim/RTX4060Ti_smi.py",
            _CHECKED_PROCESS, process_gib="15.55", process_source=_ISSUES + "boson-ai/higgs-audio/issues/48",
            process_quote="GPU 0 has a total capacity of 15.55 GiB"),
    # Added 2026-12-07.  Ada cards, each nvidia-smi output at the commit that holds it.
    # The full table on Fedora, driver 590.48.01 ("11133MiB /  12282MiB"), the repository's Secure Boot notes.
    GpuCard("rtx-4070-ti", "RTX 4070 Ti (12 GB)", 12_282,
            "https://github.com/jgmatu/vLLM-DUNE/blob/a3fd0578615b3bc5170bf99d681457e30cc94f55/docker-images/"
            "SECURE_BOOT.txt", _CHECKED_PROCESS,
            process_gib="11.73", process_source=_ISSUES + "OpenLMLab/LOMO/issues/17",
            process_quote="(GPU 0; 11.73 GiB total capacity; ...)"),
    # --query-gpu=name,memory.total,... on Windows 11, driver 595.79: "NVIDIA GeForce RTX 4070 SUPER, 12282 MiB".
    GpuCard("rtx-4070-super", "RTX 4070 SUPER (12 GB)", 12_282,
            "https://github.com/roroblack/gPUteer/blob/4478fd7840fda877a60a0a83d0d4ff426a79dee8/docs/evidence/_raw/"
            "ENV-02_probe.txt", _CHECKED_PROCESS,
            process_gib="11.99", process_source=_ISSUES + "erew123/alltalk_tts/issues/195",
            process_quote="GPU 0 has a total capacity of 11.99 GiB"),
    # --query-gpu=name,memory.total on Linux, driver 560.35.03: "NVIDIA GeForce RTX 4070 Ti SUPER, 16376".
    GpuCard("rtx-4070-ti-super", "RTX 4070 Ti SUPER (16 GB)", 16_376,
            "https://github.com/mathisweil/craftax-ReMDM-planner/blob/85e23045ae90f86efde90b70c25355d515fb222a/"
            "ABLATION_SMOKE_REPORT.md", _CHECKED_PROCESS),
    # The full table on Windows (WDDM), driver 535.98: "14463MiB / 16376MiB".
    GpuCard("rtx-4080", "RTX 4080 (16 GB)", 16_376,
            "https://github.com/Chugarah/Oracle/blob/698926f160d1890c5af98bd172e30c0707e37c1c/transcribe/whisper/"
            "README.md", _CHECKED_PROCESS,
            process_gib="15.99", process_source=_ISSUES + "aigc-apps/sd-webui-EasyPhoto/issues/281",
            process_quote="(GPU 0; 15.99 GiB total capacity; ...)"),
    # The table the runbook records for its passed-through card (AD106, 10de:2803, 160 W cap), driver 580.95.05.
    GpuCard("rtx-4060-ti-8gb", "RTX 4060 Ti (8 GB)", 8_188,
            "https://github.com/evanstern/infinity-node/blob/0dc04dcf6157299cef2e6343744e0cf8c3e7dbd1/docs/runbooks/"
            "nvidia-gpu-passthrough-setup.md", _CHECKED_PROCESS),
    # ECC on.  A RunPod pod's nvidia-smi query as the guide quotes it: "NVIDIA L40, 46068 MiB".
    GpuCard("l40", "L40 (48 GB)", 46_068,
            "https://github.com/BurkimbIA/docs/blob/554afb92fa54d23751603d672fa50635dfdf00be/docs/tutorials/"
            "runpod_mcp_launcher.md", _CHECKED_PROCESS,
            process_gib="44.40", process_source=_ISSUES + "NVlabs/Eagle/issues/68",
            process_quote="GPU 0 has a total capacity of 44.40 GiB"),
)
"""Cards a buyer rents or owns today, with the total their driver reports and the total a process sees.

The vendor's "GB" is a nominal figure: a T4 sold as 16 GB reports 15,360 MiB
(15.00 GiB), an L4 sold as 24 GB 23,034 MiB, an L40S sold as 48 GB 46,068 MiB;
an H100 PCIe reports the same 81,559 MiB as an H100 SXM.  NVIDIA cards are
read from ``nvidia-smi``; AMD's MI300X from ``rocminfo`` (its GPU pool of
201,310,208 KB, 196,592 MiB, which is also the 206,141,652,992 bytes that
``rocm-smi --showmeminfo vram`` prints as "VRAM Total Memory").

A process is given less: the driver keeps some memory back from the total that
``cudaMemGetInfo`` reports (23.58 GiB of an RTX 3090's 24.00).  Each card's
process total is read from a published vLLM log or PyTorch out-of-memory message
that names the card; it moves with the driver (an RTX 3090 printed 23.70 GiB in
2022-2023 messages, 23.58 GiB in vLLM's of 2024), and the list keeps the lower,
recent figure.  A card with no public driver output is left out rather than
guessed; a listed card with no published process total is planned with an
estimate (:data:`PROCESS_ESTIMATE_MIB`), said so wherever it is shown.
"""

MIN_GPU_BYTES = MiB
"""The least GPU memory :func:`gpu_memory` accepts, 1 MiB."""
MAX_GPU_BYTES = 100_000 * GiB
"""The most GPU memory :func:`gpu_memory` accepts, 100,000 GiB."""
# A memory size: a decimal number, then an optional unit; no unit means GiB (what nvidia-smi's totals convert to).
# ASCII only, so that the widget's JavaScript reads every text alike (Python's \d and \s take other scripts' digits
# and spaces).
_SPACE = " \t\n\r\f\v"
_MEMORY = re.compile(r"[ \t\n\r\f\v]*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t\n\r\f\v]*([A-Za-z]*)[ \t\n\r\f\v]*")
MEMORY_UNITS: Mapping[str, int] = MappingProxyType({"": GiB, "gib": GiB, "gb": GB, "mib": MiB})
"""The units a GPU memory size may carry, in any case, and their bytes.

None or ``GiB`` is ``2**30`` bytes, ``GB`` the vendor's ``10**9``, ``MiB`` ``2**20``.
"""


def listed_card(text: str) -> GpuCard | None:
    """The card of :data:`CARDS` whose key ``text`` is (any case, spaces around it), or ``None``.

    >>> listed_card(" RTX-3090 ").field, listed_card("24GB")
    ('23.58 GiB', None)
    """
    return next((card for card in CARDS if card.key == text.strip(_SPACE).lower()), None)


def gpu_memory(text: str) -> int:
    """Bytes of GPU memory from what a user types: ``22.49``, ``23034 MiB``, ``24GB``, ``44.99 GiB`` or a card's key.

    A bare number is GiB; ``GB`` is the vendor's decimal gigabyte (``10**9``
    bytes); fractions are exact and rounded down to whole bytes.  A key of
    :data:`CARDS` (``l4``, ``h100-sxm``) gives the total a process sees on that
    card (:attr:`GpuCard.total_bytes`), not the driver's reported total; a Mac's key
    (``apple-m2-max-96gb``, listed in ``llmcalc.unified``) the working set Metal
    recommends for one process.

    Examples
    --------
    >>> gpu_memory("22.49"), gpu_memory("23034 MiB"), gpu_memory("24GB"), gpu_memory("l40s") == gpu_memory("44.42")
    (24148453621, 24152899584, 24000000000, True)
    >>> gpu_memory("24 TB")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: GPU memory must be a size from 1 MiB to 100,000 GiB: a number of GiB ...
    """
    if not isinstance(text, str):
        raise refusal("gpu_memory_type", value=text, type=type(text).__name__)
    card = listed_card(text)
    if card is not None:
        return card.total_bytes
    mac = unified_memory(text)
    if mac is not None:
        return mac.total_bytes
    match = _MEMORY.fullmatch(text)
    if not match or match.group(2).lower() not in MEMORY_UNITS:
        raise refusal("gpu_memory_unreadable", cards=[card.key for card in CARDS], value=text)
    number, unit = match.groups()
    whole, _, fraction = number.partition(".")
    size: int = int((whole + fraction) or "0") * MEMORY_UNITS[unit.lower()] // 10 ** len(fraction)
    if not MIN_GPU_BYTES <= size <= MAX_GPU_BYTES:
        raise refusal("gpu_memory_out_of_range", value=text, size=size)
    return size

def _estimate_margin_mib(cards: Iterable[GpuCard]) -> int:
    """The largest gap between the reported and the process totals of ``cards``, rounded up to whole MiB."""
    return -(-max(card.reported_bytes - gpu_memory(card.field) for card in cards) // MiB)


_PUBLISHED = [card for card in CARDS if card.process_gib is not None]
PROCESS_ESTIMATE_MIB: int = _estimate_margin_mib(_PUBLISHED)
"""MiB taken off a card's reported total where no published log prints what a process sees, an estimate.

It is the largest gap between the two totals among the listed cards that have
both, rounded up to whole MiB: 881 MiB, the A100 (80 GB)'s 81,920 MiB against
79.14 GiB.  The gaps published for the other cards are 1 to 602 MiB (1 MiB for the
V100 (16 GB), whose driver keeps next to nothing back), so the estimate errs on the
side of "does not fit" (:data:`PROCESS_ESTIMATE_ERROR_MIB`).
"""


def _leave_one_out_errors_mib(cards: list[GpuCard]) -> tuple[int, int]:
    """Each card's process total estimated from the other cards' gaps, against its own: (most over, most under) MiB."""
    errors = [card.reported_bytes - _estimate_margin_mib(other for other in cards if other is not card) * MiB
              - card.total_bytes for card in cards]
    return (max(errors) + MiB // 2) // MiB, (MiB // 2 - min(errors)) // MiB


PROCESS_ESTIMATE_ERROR_MIB: tuple[int, int] = _leave_one_out_errors_mib(_PUBLISHED)
"""The estimate's error in MiB (most over, most under) on the cards with a published total, each left out in turn.

Leaving each of the 21 cards out in turn and estimating its process total from
the other 20, the rule gives 279 to 880 MiB less than the published total for
20 of them, and 278 MiB more for the A100 (80 GB), the card whose gap sets the
margin: (278, 880) MiB, most over and most under.
"""

GPUS: Mapping[str, int] = MappingProxyType({card.label: card.total_bytes for card in CARDS})
"""Each listed card's label and the total in bytes a plan uses for it, what a process sees (from :data:`CARDS`)."""

TASKS = ("inference", "full", "lora", "qlora")
"""What a plan is for, inference or full, LoRA or QLoRA fine-tuning (see :func:`plan_training`)."""
OPTIMIZERS = ("adamw", "adamw-8bit", "sgd-momentum", "adamw-32bit")
"""The optimizers a training plan offers, each a key of :data:`llmcalc.memory.OPTIMIZER_STATES`; the first is the
default.

``adamw`` is PyTorch's AdamW (transformers' ``adamw_torch`` and ``adamw_torch_fused``), whose two states take the
parameters' dtype; ``adamw-8bit`` bitsandbytes' ``AdamW8bit`` (:func:`adamw_8bit_state_bytes`); ``adamw-32bit``
bitsandbytes' 32-bit AdamW (``paged_adamw_32bit``, the QLoRA script's), whose two states are fp32 whatever the
parameters' dtype; a paged optimizer's states are counted in GPU memory, since paging only moves them out under
pressure."""
PRECISIONS = ("bf16", "amp", "mixed")
"""Full fine-tuning's precision regimes (see :func:`plan_training`); the first is the default.

``bf16``: the model trained in its checkpoint's bfloat16, as transformers 5 loads it
(``from_pretrained``'s ``dtype="auto"``), torch's AdamW keeping its moments in the
parameters' dtype: 2 + 2 + 4 = 8 bytes per parameter.  ``amp``: PyTorch automatic
mixed precision on an fp32 model: fp32 weights, gradients and moments, 4 + 4 + 8 = 16.
``mixed``: DeepSpeed ZeRO's and Megatron's mixed precision: bf16 weights and gradients,
an fp32 master copy and fp32 moments, 2 + 2 + 4 + 8 = 16.
"""
PRECISION_RECIPES: Mapping[str, str] = MappingProxyType({"bf16": "bf16", "amp": "fp32", "mixed": "mixed"})
"""Each of :data:`PRECISIONS` as the recipe of :data:`llmcalc.memory.PRECISION_BYTES` it stores its state in."""
ADAPTER_DTYPES = ("fp32", "bf16")
"""The dtype LoRA and QLoRA adapters are trained in; ``fp32`` (default) as peft upcasts them
(``autocast_adapter_dtype=True``), ``bf16`` as TRL's ``SFTTrainer`` and the QLoRA script cast them on a
quantized base (:mod:`llmcalc.trainers`)."""
QLORA_PREPARATIONS = ("kbit", "none", "norms")
"""How a QLoRA plan prepares its base; ``kbit`` (default) runs peft's ``prepare_model_for_kbit_training``,
``none`` does not; ``norms`` runs it and then casts the embedding and the head back to 16 bits, keeping only the
norms in fp32, as the QLoRA script does (qlora.py at 7f4e95a, lines 377 and 396-405)."""
# bitsandbytes 0.50.2, bitsandbytes/optim/optimizer.py, Optimizer2State.init_state: a tensor of fewer than
# min_8bit_size (4096) values keeps two fp32 states; a larger one two uint8 states and one fp32 absmax per 256
# values for each; the optimizer's two 256-entry fp32 quantization maps ("dynamic", "udynamic") are shared.
BNB_MIN_8BIT_SIZE = 4096
"""bitsandbytes' ``min_8bit_size``, below which a tensor keeps its two optimizer states in fp32."""
BNB_OPTIMIZER_BLOCK = 256
"""Values per fp32 absmax of bitsandbytes' 8-bit optimizer states."""
BNB_QUANTIZATION_MAPS = 2 * 256 * 4
"""Bytes of the 8-bit optimizer's two 256-entry fp32 quantization maps, shared by every tensor."""
# Largest inputs the planner takes: beyond them a plan describes no machine that exists.
MAX_PARAMS = 10**13
"""The largest parameter count a plan takes."""
MAX_TOKENS = 2**24
"""The longest sequence or context a plan takes, in tokens."""
MAX_BATCH = 2**16
"""The largest batch a plan takes."""
MAX_GPUS = 2**16
"""The most GPUs a plan shares its state over."""


@dataclass(frozen=True)
class MemoryPlan:
    """Bytes on one GPU, by part.  ``optimizer_states`` includes the fp32 master weights of mixed precision."""

    weights: int
    kv_cache: int
    gradients: int
    optimizer_states: int
    activations: int
    reserve: int

    @property
    def total(self) -> int:
        """All parts together."""
        return sum(getattr(self, part.name) for part in fields(self))

    def fits(self, gpu_bytes: int) -> bool:
        """Whether the plan fits in ``gpu_bytes`` of GPU memory."""
        return self.total <= check.count("gpu_bytes", gpu_bytes)


@checks_model
def checked_model(cfg: ModelConfig) -> tuple[ModelConfig, int]:
    """The config and its parameter count, refused beyond :data:`MAX_PARAMS`."""
    n = param_count.unchecked(cfg)
    if n > MAX_PARAMS:
        raise refusal("model_too_large", params=n, max_params=MAX_PARAMS)
    return cfg, n


@checks_model
def context_limit(cfg: ModelConfig) -> int:
    """The most tokens per sequence a plan takes: ``MAX_TOKENS`` (``2**24``), or a learned position table's length.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> context_limit(get_preset("llama-2-7b")), context_limit(get_preset("gpt2"))
    (16777216, 1024)
    """
    return min(cfg.learned_positions or MAX_TOKENS, MAX_TOKENS)


@checks_model
def trained_context(cfg: ModelConfig) -> int | None:
    """The positions ``cfg`` was trained on (:attr:`~llmcalc.ModelConfig.trained_context`), or None when unknown.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> trained_context(get_preset("llama-3-8b")), trained_context(get_preset("reference"))
    (8192, None)
    """
    return cfg.trained_context or None


@checks_model
def context_search_limit(cfg: ModelConfig, *, beyond_trained: bool = False) -> int:
    """Where a search for the longest context that fits stops: the trained context, or, if ``beyond_trained``
    (or the trained context is unknown), :func:`context_limit`.

    A context past the trained one may fit in memory, but the model was never
    trained on those positions; going there is the reader's explicit choice.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> cfg = get_preset("llama-3-8b")
    >>> context_search_limit(cfg), context_search_limit(cfg, beyond_trained=True)
    (8192, 16777216)
    """
    limit = context_limit.unchecked(cfg)
    trained = trained_context.unchecked(cfg)
    if check.flag("beyond_trained", beyond_trained) or trained is None:
        return limit
    return min(trained, limit)


@checks_model
def default_tokens(cfg: ModelConfig, preferred: int) -> int:
    """A default sequence length or context for ``cfg``: ``preferred``, but never past the positions it was trained on.

    The CLI and the page's planner plan training at 2,048 tokens and inference at 4,096
    unless told otherwise; for a model trained on fewer positions (GPT-2: 1,024; Falcon,
    Phi-2: 2,048) the default is its trained context, and never beyond :func:`context_limit`.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> [default_tokens(get_preset(name), 2048) for name in ("gpt2", "llama-2-7b", "reference")]
    [1024, 2048, 2048]
    >>> default_tokens(get_preset("llama-2-7b"), 8192)
    4096
    """
    return min(check.count("preferred", preferred, maximum=MAX_TOKENS), trained_context.unchecked(cfg) or MAX_TOKENS,
               context_limit.unchecked(cfg))


def _tokens(cfg: ModelConfig, name: str, value: int) -> int:
    return check.count(name, value, maximum=context_limit.unchecked(cfg))


@checks_model
def plan_inference(
    cfg: ModelConfig,
    *,
    context: int,
    batch: int = 1,
    weight_format: WeightFormat = "bf16",
    kv_format: str = "bf16",
    tensor_parallel: int = 1,
    pipeline_parallel: int = 1,
) -> MemoryPlan:
    """Memory to generate with ``cfg``: weights, the KV cache of ``batch`` sequences of ``context`` tokens, reserve.

    Weights as :func:`~llmcalc.weightformats.weight_format_bytes` stores them
    in ``weight_format`` (quantization constants and the tensors kept in 16
    bits included), the KV cache as :func:`~llmcalc.kv_cache_bytes` in
    ``kv_format``.  Not counted: the activations of one forward pass (freed
    layer by layer; for a long prompt processed at once they can matter),
    the logits, and a serving engine's preallocated cache pool.

    With ``tensor_parallel`` or ``pipeline_parallel`` above 1 the plan is the
    busiest GPU's, as vLLM splits the model (:func:`parallel_inference_plans`).

    Examples
    --------
    Llama-2-7B in bf16 at a 4,096-token context: 12.6 GiB of weights, 2 GiB of KV cache.

    >>> from llmcalc import get_preset, GiB
    >>> plan = plan_inference(get_preset("llama-2-7b"), context=4096)
    >>> plan.weights, plan.kv_cache, plan.total
    (13476831232, 2147483648, 16698056704)
    >>> plan.fits(12 * GiB), plan.fits(16 * GiB)
    (False, True)
    """
    cfg, _ = checked_model.unchecked(cfg)
    tokens = _tokens(cfg, "context", context)
    sequences = check.count("batch", batch, maximum=MAX_BATCH)
    tp = check.count("tensor_parallel", tensor_parallel, maximum=MAX_GPUS)
    pp = check.count("pipeline_parallel", pipeline_parallel, maximum=MAX_GPUS)
    if tp > 1 or pp > 1:
        plans = parallel_inference_plans.unchecked(cfg, context=tokens, batch=sequences, weight_format=weight_format,
                                                   kv_format=kv_format, tensor_parallel=tp, pipeline_parallel=pp)
        return max(plans, key=lambda plan: plan.total)
    kv = kv_cache_bytes.unchecked(cfg, tokens, batch=sequences, dtype=check.choice("kv_format", kv_format, KV_FORMATS))
    if isinstance(weight_format, CheckpointFormat) and weight_format.codes == "mxfp4":
        # Whether transformers keeps the file's bytes depends on the GPU (its kernels pad them on Hopper, and below
        # compute capability 7.5 it dequantizes): nothing here knows the card, so nothing is sized.
        raise refusal("mxfp4_layout_unmodelled", method=weight_format.method)
    weights = sum(weight_format_bytes.unchecked(cfg, weight_format).values())
    return MemoryPlan(weights, kv, 0, 0, 0, RESERVE)


VLLM_VOCAB_PADDING = 64
"""vLLM pads the vocabulary of its embedding and output head to a multiple of 64 rows
(``DEFAULT_VOCAB_PADDING_SIZE`` in ``vocab_parallel_embedding.py``) before splitting it across GPUs."""

COLUMN_PARALLEL = ("q", "k", "v", "qkv", "gate", "up", "gate_up")
"""The roles of the linear modules vLLM splits by output columns; each GPU keeps ``1/tp`` of ``d_out`` and bias."""

ROW_PARALLEL = ("o", "down")
"""The roles of the linear modules vLLM splits by input rows; each GPU keeps ``1/tp`` of ``d_in`` and the whole bias."""


def _parallel_model(cfg: ModelConfig) -> ModelConfig:
    cfg, _ = checked_model.unchecked(cfg)
    if cfg.is_moe or cfg.uses_latent_attention:
        raise refusal("parallel_needs_dense", model_type=cfg.model_type or "custom")
    return cfg


@checks_model
def padded_vocab(cfg: ModelConfig) -> int:
    """The vocabulary rounded up to a multiple of :data:`VLLM_VOCAB_PADDING`, as vLLM allocates it.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> padded_vocab(get_preset("gpt2")), padded_vocab(get_preset("llama-3.1-70b"))
    (50304, 128256)
    """
    vocab = cfg.vocab_size
    return -(-vocab // VLLM_VOCAB_PADDING) * VLLM_VOCAB_PADDING


@checks_model
def tensor_parallel_sizes(cfg: ModelConfig) -> list[int]:
    """Every ``tensor_parallel_size`` vLLM accepts for ``cfg``.

    vLLM refuses a size that does not divide the attention heads ("Total number of
    attention heads (64) must be divisible by tensor parallel size (3)", ``ModelConfig.
    verify_with_parallel_config``); its layers also divide the KV heads or replicate them
    (``QKVParallelLinear``: the size must divide them or be a multiple of them), the MLP
    width (``MergedColumnParallelLinear``) and the padded vocabulary (``VocabParallelEmbedding``).

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> tensor_parallel_sizes(get_preset("llama-3.1-70b"))
    [1, 2, 4, 8, 16, 32, 64]
    >>> tensor_parallel_sizes(get_preset("llama-2-13b"))
    [1, 2, 4, 8]
    """
    cfg = _parallel_model(cfg)
    kv, vocab = cfg.n_kv_heads, padded_vocab.unchecked(cfg)
    return [size for size in range(1, cfg.n_heads + 1)
            if cfg.n_heads % size == 0 and (kv % size == 0 or size % kv == 0)
            and cfg.d_ff % size == 0 and vocab % size == 0]


@checks_model
def kv_heads_per_gpu(cfg: ModelConfig, tensor_parallel: int) -> int:
    """KV heads each GPU holds: ``n_kv_heads / tp``, or one replicated head when there are fewer heads than GPUs.

    Examples
    --------
    >>> from llmcalc import get_preset
    >>> [kv_heads_per_gpu(get_preset("llama-3.1-70b"), tp) for tp in (1, 2, 4, 8, 16)]
    [8, 4, 2, 1, 1]
    """
    return max(1, cfg.n_kv_heads // check.count("tensor_parallel", tensor_parallel))


def pipeline_stages(n_layers: int, pipeline_parallel: int) -> list[int]:
    """Layers per stage as vLLM's ``get_pp_indices`` splits ``n_layers``: evenly, the remainder one layer each to
    the stages before the last, from the second-to-last backwards.

    Examples
    --------
    >>> pipeline_stages(80, 3), pipeline_stages(32, 4), pipeline_stages(81, 4)
    ([27, 27, 26], [8, 8, 8, 8], [20, 20, 21, 20])
    >>> pipeline_stages(32, 40)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: pipeline_parallel_size must be from 1 to the model's 32 layers; got 40
    """
    layers = check.count("n_layers", n_layers)
    stages = check.count("pipeline_parallel", pipeline_parallel)
    if stages > layers:
        raise refusal("pipeline_parallel_out_of_range", n_layers=layers, value=stages)
    partitions = [layers // stages] * stages
    for index in range(2, layers % stages + 2):
        partitions[-index] += 1
    return partitions


def _linear_bytes(module: Linear, weight_format: WeightFormat, cfg: ModelConfig, tp: int, layer: int = 0) -> int:
    """Bytes of one copy of ``module`` on one GPU of ``tp``: column-parallel split by output, row-parallel by input.

    Query and MLP outputs split evenly; keys and values by KV head (one replicated head each when there are fewer
    heads than GPUs); a row-parallel layer's bias is whole on every GPU.
    """
    d_in, d_out = module.d_in, module.d_out
    kv_out = kv_heads_per_gpu.unchecked(cfg, tp) * cfg.head_dim
    if module.role in ("k", "v"):
        d_out = kv_out
    elif module.role == "qkv":
        d_out = cfg.q_dim // tp + 2 * kv_out
    elif module.role in COLUMN_PARALLEL:
        d_out //= tp
    elif module.role in ROW_PARALLEL:
        d_in //= tp
    bias = d_out if module.bias else 0
    if isinstance(weight_format, CheckpointFormat):
        if not converts(cfg, weight_format, module, layer):
            return 2 * (d_in * d_out + bias)
        codes, decode = stored_bytes(weight_format, d_in, d_out)
        return codes + decode + weight_format.bias_bytes * bias
    if is_converted(module, weight_format, cfg):
        codes, decode = codes_and_constants(weight_format, d_in, d_out)
        return codes + decode + 2 * bias
    return 2 * (d_in * d_out + bias)


def linear_bytes(module: Linear, weight_format: WeightFormat, cfg: ModelConfig, tensor_parallel: int = 1) -> int:
    """Bytes of one copy of ``module`` on one GPU of ``tensor_parallel``, as :func:`parallel_inference_plans` splits
    it (the first layer's, for a checkpoint that keeps some layers in 16 bits by name)."""
    return _linear_bytes(module, weight_format, cfg, tensor_parallel)


@checks_model
def parallel_inference_plans(
    cfg: ModelConfig,
    *,
    context: int,
    batch: int = 1,
    weight_format: WeightFormat = "bf16",
    kv_format: str = "bf16",
    tensor_parallel: int = 1,
    pipeline_parallel: int = 1,
) -> list[MemoryPlan]:
    """One GPU of each pipeline stage, as vLLM splits the model over ``tensor_parallel * pipeline_parallel`` GPUs.

    Within a stage the ``tensor_parallel`` GPUs hold equal shares (vLLM's ``linear.py``,
    ``vocab_parallel_embedding.py``): column-parallel projections (query, key, value, gate,
    up) keep ``1/tp`` of their outputs, row-parallel ones (attention output, down) ``1/tp``
    of their inputs; the KV heads split, or are replicated, one per GPU, when there are
    fewer of them than GPUs; the embedding and the head keep ``1/tp`` of the vocabulary
    padded to 64 rows; norms and learned positions are whole on every GPU.  Across
    stages the layers split as :func:`pipeline_stages`; the first stage holds the
    embedding (and learned positions), the last the final norm and the head (a tied
    head is a second copy of the embedding there).  Each GPU caches keys and values of
    its own layers and heads.  Quantized formats keep their one-GPU layout on each
    GPU's slice of a matrix.

    Examples
    --------
    Llama-3.1-70B in BF16 on 4 GPUs by tensor parallelism: 32.9 GiB of weights each, and
    2 of the 8 KV heads, so a quarter of the KV cache:

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-3.1-70b")
    >>> [plan] = parallel_inference_plans(cfg, context=8192, tensor_parallel=4)
    >>> round(plan.weights / GiB, 2), plan.kv_cache / GiB
    (32.86, 0.625)
    """
    cfg = _parallel_model(cfg)
    tokens = _tokens(cfg, "context", context)
    sequences = check.count("batch", batch, maximum=MAX_BATCH)
    weight_format_bytes.unchecked(cfg, weight_format)  # the one-GPU refusals: unknown format, GPTQ for Falcon or GPT-2
    tp = check.count("tensor_parallel", tensor_parallel, maximum=MAX_GPUS)
    if tp not in tensor_parallel_sizes.unchecked(cfg):
        raise refusal("tensor_parallel_does_not_divide", n_heads=cfg.n_heads, n_kv_heads=cfg.n_kv_heads, d_ff=cfg.d_ff,
                      vocab=padded_vocab.unchecked(cfg), value=tp, sizes=tensor_parallel_sizes.unchecked(cfg))
    stages = pipeline_stages(cfg.n_layers, check.count("pipeline_parallel", pipeline_parallel, maximum=MAX_GPUS))
    dtype = check.choice("kv_format", kv_format, KV_FORMATS)
    if 0 < cfg.sliding_window_layers < cfg.n_layers and len(stages) > 1:
        # Which stage holds the windowed layers depends on their order, which ModelConfig does not keep.
        raise refusal("parallel_needs_dense", model_type=cfg.model_type or "custom")
    modules = linear_modules.unchecked(cfg)
    # A checkpoint's skip list may keep some blocks' layers in 16 bits (Meta's 405B FP8: the first and last MLPs).
    by_name = isinstance(weight_format, CheckpointFormat) and bool(weight_format.skip or weight_format.targets)
    layer_bytes = [sum(_linear_bytes(m, weight_format, cfg, tp, layer) for m in modules if m.role != "lm_head")
                   for layer in range(cfg.n_layers if by_name else 1)]
    final_norm = {"rmsnorm": cfg.d_model, "layernorm": 2 * cfg.d_model, "parameter-free": 0}[cfg.norm]
    per_layer_norms = 2 * (param_breakdown.unchecked(cfg)["norms"] - final_norm) // cfg.n_layers
    vocab_rows = 2 * padded_vocab.unchecked(cfg) // tp * cfg.d_model
    has_head = any(m.role == "lm_head" for m in modules)
    head_bytes = vocab_rows + (2 * padded_vocab.unchecked(cfg) // tp if cfg.lm_head_bias else 0)
    head = next((m for m in modules if m.role == "lm_head"), None)
    if head and isinstance(weight_format, CheckpointFormat) and converts(cfg, weight_format, head, 0):
        head_bytes = sum(stored_bytes(weight_format, cfg.d_model, padded_vocab.unchecked(cfg) // tp)) + (
            weight_format.bias_bytes * padded_vocab.unchecked(cfg) // tp if cfg.lm_head_bias else 0)
    whole_kv = kv_cache_bytes.unchecked(cfg, tokens, batch=sequences, dtype=dtype)
    kv_heads = kv_heads_per_gpu.unchecked(cfg, tp)
    plans = []
    first = 0
    for index, layers in enumerate(stages):
        block_bytes = sum(layer_bytes[first:first + layers]) if by_name else layers * layer_bytes[0]
        weights = block_bytes + layers * per_layer_norms
        first += layers
        if index == 0:
            weights += vocab_rows + 2 * cfg.learned_positions * cfg.d_model
        if index == len(stages) - 1:
            weights += 2 * final_norm + (head_bytes if has_head or len(stages) > 1 else 0)
        # kv_cache_bytes counts every layer and KV head; this GPU caches its stage's layers and its own heads.
        kv = -(-whole_kv * layers * kv_heads // (cfg.n_layers * cfg.n_kv_heads))
        plans.append(MemoryPlan(weights, kv, 0, 0, 0, RESERVE))
    return plans


def _trained_tensors(cfg: ModelConfig) -> list[tuple[int, int]]:
    """Every parameter tensor of ``cfg`` as ``(values, copies)``: linear weights and biases, embeddings, norms.

    Stacked routed experts (one 3-D tensor per layer in transformers 5) are listed per expert; that changes
    only how 8-bit AdamW's last block of each tensor rounds.
    """
    tensors: list[tuple[int, int]] = []
    for module in linear_modules.unchecked(cfg):
        tensors.append((module.d_in * module.d_out, module.copies))
        if module.bias:
            tensors.append((module.d_out, module.copies))
    parts = param_breakdown.unchecked(cfg)
    tensors += [(parts["embedding"], 1), (parts["positions"], 1)]
    norm_tensors = {"rmsnorm": 1, "layernorm": 2, "parameter-free": 0}[cfg.norm]
    widths = [cfg.d_model] * cfg.norms_per_layer
    if cfg.qk_norm == "per-head":
        widths += [cfg.head_dim, cfg.head_dim]
    elif cfg.qk_norm == "per-projection":
        widths += [cfg.q_dim, cfg.kv_dim]
    if cfg.uses_latent_attention:
        widths += [cfg.kv_lora_rank] + ([cfg.q_lora_rank] if cfg.q_lora_rank else [])
    tensors += [(width, cfg.n_layers * norm_tensors) for width in widths]
    tensors.append((cfg.d_model, norm_tensors))
    return [(values, copies) for values, copies in tensors if values and copies]


def _adapter_tensors(cfg: ModelConfig, rank: int, targets: str | Iterable[str]) -> list[tuple[int, int]]:
    """peft's LoRA tensors for ``targets``: ``lora_A`` (``rank x d_in``) and ``lora_B`` (``d_out x rank``)."""
    modules: list[Linear] = lora_targets.unchecked(cfg, targets)
    return [t for m in modules for t in ((rank * m.d_in, m.copies), (m.d_out * rank, m.copies))]


def adamw_8bit_state_bytes(tensors: Iterable[tuple[int, int]]) -> int:
    """Bytes bitsandbytes' ``AdamW8bit`` keeps for tensors given as ``(values, copies)``, block constants included.

    A tensor of at least 4,096 values keeps two uint8 states and, for each, one
    fp32 ``absmax`` per block of 256 values (the last block partial); a smaller
    one keeps two fp32 states; the optimizer adds its two 256-entry fp32
    quantization maps once (bitsandbytes 0.50.2, ``Optimizer2State.init_state``).

    Examples
    --------
    One 4096 x 4096 matrix: 2 bytes a value, plus 2 x 65,536 absmax of 4 bytes
    and the 2 KiB of maps; a 4,095-value vector keeps fp32 states, 8 bytes a value.

    >>> adamw_8bit_state_bytes([(4096 * 4096, 1)]) - 2 * 4096 * 4096
    526336
    >>> adamw_8bit_state_bytes([(4095, 1)])
    32760
    """
    total = 0
    any_8bit = False
    for values, copies in tensors:
        if values < BNB_MIN_8BIT_SIZE:
            total += copies * 8 * values
        else:
            any_8bit = True
            total += copies * (2 * values + 2 * 4 * -(-values // BNB_OPTIMIZER_BLOCK))
    return total + (BNB_QUANTIZATION_MAPS if any_8bit else 0)


@checks_model
def training_state_bytes(
    cfg: ModelConfig,
    *,
    task: str = "full",
    precision: str = "bf16",
    optimizer: str = "adamw",
    rank: int = 16,
    targets: str | Iterable[str] = ("q", "v"),
    qlora_preparation: str = "kbit",
    adapter_dtype: str = "fp32",
) -> dict[str, int]:
    """Weights, gradients and optimizer state (master weights included) of one GPU without ZeRO, in exact bytes.

    ``task`` ``"full"``: every parameter trained in ``precision`` (:data:`PRECISIONS`).
    ``"lora"``: a bf16 base and adapters in ``adapter_dtype`` (:data:`ADAPTER_DTYPES`; fp32,
    peft's, by default), with gradients and PyTorch's AdamW states in the same dtype
    (``adamw-32bit``: fp32 states).  ``"qlora"``: an NF4 base with double
    quantization; with ``qlora_preparation="kbit"`` (default, peft's own set-up)
    peft's ``prepare_model_for_kbit_training`` has upcast every
    parameter left in 16 bits to fp32 except the biases of 4-bit layers, which
    bitsandbytes' ``Linear4bit`` casts back to its compute dtype at the first forward;
    with ``"norms"`` only the norms are fp32.
    ``"adamw-8bit"`` counts bitsandbytes' block constants (:func:`adamw_8bit_state_bytes`).
    Not counted: torch's 4-byte ``step`` scalar per trained tensor.

    Examples
    --------
    Llama 2 7B: the fp32 upcast adds 0.49 GiB to QLoRA's weights, the QLoRA script's fp32 norms
    (65 x 4,096 values) 2 bytes each; full fine-tuning in
    bf16 keeps 8 bytes a parameter, PyTorch AMP and DeepSpeed's mixed precision 16.

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-7b")
    >>> kbit, plain, norms = (training_state_bytes(cfg, task="qlora", qlora_preparation=p) for p in QLORA_PREPARATIONS)
    >>> round((kbit["weights"] - plain["weights"]) / GiB, 2), norms["weights"] - plain["weights"]
    (0.49, 532480)
    >>> [round(sum(training_state_bytes(cfg, precision=p).values()) / GiB, 1) for p in PRECISIONS]
    [50.2, 100.4, 100.4]
    """
    cfg, n_params = checked_model.unchecked(cfg)
    kind = check.choice("task", task, TASKS[1:])
    optimizer = check.choice("optimizer", optimizer, OPTIMIZERS)
    adapter_recipe = check.choice("adapter_dtype", adapter_dtype, ADAPTER_DTYPES)
    if kind == "full":
        recipe = PRECISION_RECIPES[check.choice("precision", precision, PRECISIONS)]
        parts = training_memory(n_params, optimizer, recipe)
        if optimizer == "adamw-8bit":
            parts["optimizer_states"] = adamw_8bit_state_bytes(_trained_tensors(cfg))
        return {"weights": parts["weights"], "gradients": parts["gradients"],
                "optimizer_states": parts["optimizer_states"] + parts["master_weights"]}
    if precision != "bf16":
        raise refusal("precision_needs_full", precision=precision, task=kind)
    preparation = check.choice("qlora_preparation", qlora_preparation, QLORA_PREPARATIONS)
    if kind == "lora" and preparation != "kbit":
        raise refusal("qlora_preparation_needs_qlora", qlora_preparation=preparation, task=kind)
    count = check.count("rank", rank)
    base_parts = weight_format_bytes.unchecked(cfg, "nf4-dq" if kind == "qlora" else "bf16")
    base = sum(base_parts.values())
    if kind == "qlora" and preparation == "kbit":
        quantized_biases = sum(2 * m.d_out * m.copies for m in linear_modules.unchecked(cfg)
                               if m.bias and is_converted(m, "nf4-dq", cfg))
        base += base_parts["unquantized"] - quantized_biases  # 16-bit parameters made fp32: 2 more bytes each
    elif kind == "qlora" and preparation == "norms":
        base += 2 * param_breakdown.unchecked(cfg)["norms"]  # the norms stay fp32, the rest is cast back to 16 bits
    adapters = training_memory(lora_model_params.unchecked(cfg, count, targets), optimizer, adapter_recipe)
    states = adapters["optimizer_states"]
    if optimizer == "adamw-8bit":
        states = adamw_8bit_state_bytes(_adapter_tensors(cfg, count, targets))
    return {"weights": base + adapters["weights"], "gradients": adapters["gradients"], "optimizer_states": states}


@checks_model
def plan_training(
    cfg: ModelConfig,
    *,
    task: str = "full",
    seq_len: int,
    micro_batch: int = 1,
    optimizer: str = "adamw",
    checkpointing: bool = False,
    zero_stage: int = 0,
    n_gpus: int = 1,
    rank: int = 16,
    targets: str | Iterable[str] = ("q", "v"),
    precision: str = "bf16",
    qlora_preparation: str = "kbit",
    lora_dropout: float = 0.0,
    adapter_dtype: str = "fp32",
) -> MemoryPlan:
    """Memory on one GPU for a training step of ``task``: ``"full"``, ``"lora"`` or ``"qlora"``.

    Weights, gradients and optimizer state are :func:`training_state_bytes`:

    * ``"full"``: every parameter trained in ``precision`` (:data:`PRECISIONS`):
      ``"bf16"`` (default, what the Hugging Face Trainer does with transformers 5,
      which loads a checkpoint in its stored bf16; torch's AdamW keeps bf16 moments):
      8 bytes per parameter with AdamW; ``"amp"`` (PyTorch AMP on an fp32 model) and
      ``"mixed"`` (DeepSpeed ZeRO, Megatron: bf16 weights and gradients, fp32 master
      and moments): 16.  Split across ``n_gpus`` by ZeRO ``zero_stage`` as
      :func:`~llmcalc.zero_memory_per_gpu`.
    * ``"lora"``: the frozen base in bf16, and the adapters of
      :func:`~llmcalc.lora_model_params` (``rank``, ``targets``) trained in
      fp32, as peft keeps them by default (``autocast_adapter_dtype``): 4
      bytes of weights, 4 of gradients and the optimizer's states each (fp32,
      or 1 byte a state plus block constants with 8-bit AdamW); no master copy.
      ``adapter_dtype="bf16"`` (TRL's ``SFTTrainer`` on a quantized base, the
      QLoRA script): 2 bytes each, PyTorch AdamW's states in bf16 too.
    * ``"qlora"``: as ``"lora"`` with the base in NF4 with double quantization,
      by default prepared by peft's ``prepare_model_for_kbit_training``
      (``qlora_preparation="kbit"``, peft's own set-up; the trainers' set-ups
      are :mod:`llmcalc.trainers`): embedding, head and norms upcast to fp32;
      ``"none"`` leaves them in 16 bits, ``"norms"`` upcasts the norms only, as
      the QLoRA script leaves them.  A paged
      optimizer's states are counted in GPU memory, since paging only moves them
      out under pressure.

    Activations are :func:`~llmcalc.activations.activation_memory`'s ``peak``
    (SDPA attention, eager for Gemma 2, for which transformers 5.24 refuses SDPA;
    bf16) for ``micro_batch`` sequences of ``seq_len``
    tokens, with the adapters of LoRA and QLoRA and their ``lora_dropout``
    (peft's default 0; a dropout keeps each adapter's dropped-out input and
    mask); ZeRO does not split them.  A ``"kbit"``-prepared QLoRA base runs
    its residual stream in fp32, and its activations are counted so (measured
    with peft 0.21.2).

    On ``n_gpus`` data-parallel GPUs, ZeRO ``zero_stage`` 1 shards the trained
    parameters' optimizer states, 2 also their gradients, 3 (or FSDP's full
    shard) also every weight, the frozen base of LoRA and QLoRA included; for
    LoRA and QLoRA the trained parameters are the adapters, and a QLoRA base
    keeps its quantization constants whole on every GPU.  Stage 3 adds its gathered parameters to
    the weights and its reduce bucket to the gradients (:func:`zero3_buffer_bytes`).
    QLoRA under stage 3 needs its base in one floating dtype
    (``bnb_4bit_quant_storage``, bitsandbytes' FSDP-QLoRA guide) and is refused
    with ``qlora_preparation="kbit"``, whose fp32 upcast mixes dtypes.

    Not counted: ZeRO-1 and -2's communication
    buckets and the bf16 weight copies autocast keeps under ``"amp"``.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-7b")
    >>> plan = plan_training(cfg, seq_len=2048)
    >>> plan.weights // GiB, plan.gradients // GiB, plan.optimizer_states // GiB
    (12, 12, 25)
    >>> mixed = plan_training(cfg, seq_len=2048, precision="mixed")
    >>> mixed.optimizer_states // GiB
    75
    >>> plan_training(cfg, seq_len=2048, precision="fp8")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: precision must be one of 'bf16', 'amp', 'mixed'; got 'fp8'
    >>> plan_training(get_preset("llama-2-7b"), task="sft", seq_len=2048)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: task must be one of 'full', 'lora', 'qlora'; got 'sft'
    >>> plan_training(cfg, seq_len=2048, rank=0)
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: lora_rank must be an integer >= 1; got 0
    """
    cfg, n_params = checked_model.unchecked(cfg)
    kind = check.choice("task", task, TASKS[1:])
    tokens = _tokens(cfg, "seq_len", seq_len)
    sequences = check.count("micro_batch", micro_batch, maximum=MAX_BATCH)
    optimizer = check.choice("optimizer", optimizer, OPTIMIZERS)
    gpus = check.count("n_gpus", n_gpus, maximum=MAX_GPUS)
    stage = check.count("zero_stage", zero_stage, minimum=0, maximum=3)
    if kind == "full":
        # LoRA's options change nothing here; a bad one is refused all the same, not passed over in silence.
        check.count("lora_rank", rank)
        check.number("lora_dropout", lora_dropout, minimum=0.0, maximum=1.0, max_inclusive=False)
        check.choice("adapter_dtype", adapter_dtype, ADAPTER_DTYPES)
        recipe = PRECISION_RECIPES[check.choice("precision", precision, PRECISIONS)]
        activations = activation_memory.unchecked(cfg, sequences, tokens, checkpointing=checkpointing,
                                                  attention=planner_attention(cfg)).peak
        parts = zero_memory_per_gpu(n_params, stage, gpus, optimizer, recipe)
        states = parts["optimizer_states"]
        if optimizer == "adamw-8bit":
            # Unsharded, bitsandbytes' per-tensor states; sharded, one flat shard per GPU with its block constants.
            states = (training_state_bytes.unchecked(cfg, precision=precision, optimizer=optimizer)["optimizer_states"]
                      - parts["master_weights"] if stage == 0
                      else adamw_8bit_state_bytes([(-(-n_params // gpus), 1)]))
        weights, gradients = parts["weights"], parts["gradients"]
        if stage == 3:
            full = training_memory(n_params, optimizer, recipe)
            gathered, bucket = zero3_buffer_bytes.unchecked(cfg, weight_bytes=full["weights"], trained=n_params,
                                                            gradient_bytes=full["gradients"])
            weights, gradients = weights + gathered, gradients + bucket
        return MemoryPlan(weights, 0, gradients, states + parts["master_weights"], activations, RESERVE)
    # QLoRA's 4-bit base keeps its weight, not its input, for backward: measured the same bytes as LoRA, unless
    # prepare_model_for_kbit_training made the residual stream fp32 (measured too).
    activations = activation_memory.unchecked(cfg, sequences, tokens, checkpointing=checkpointing,
                                              lora_targets=targets, lora_rank=rank, lora_dropout=lora_dropout,
                                              attention=planner_attention(cfg),
                                              qlora_preparation=qlora_preparation if kind == "qlora" else None,
                                              adapter_dtype=adapter_dtype).peak
    state = training_state_bytes.unchecked(cfg, task=kind, precision=precision, optimizer=optimizer, rank=rank,
                                           targets=targets, qlora_preparation=qlora_preparation,
                                           adapter_dtype=adapter_dtype)
    if stage == 0:
        return MemoryPlan(state["weights"], 0, state["gradients"], state["optimizer_states"], activations, RESERVE)
    if kind == "qlora" and stage == 3 and qlora_preparation != "none":
        raise refusal("qlora_zero3_one_dtype", zero_stage=stage)
    return MemoryPlan(*_sharded_adapter_state(cfg, kind, state, stage, gpus, optimizer, rank, targets, adapter_dtype),
                      activations, RESERVE)


ZERO3_MAX_LIVE_PARAMETERS = 10**9
"""The most gathered parameters ZeRO-3 keeps at once (DeepSpeed's default ``stage3_max_live_parameters``)."""
ZERO3_PREFETCH_BUCKET_SIZE = 5 * 10**7
"""Parameters gathered ahead of the module that needs them (DeepSpeed's default ``stage3_prefetch_bucket_size``)."""
ZERO3_REDUCE_BUCKET_SIZE = 5 * 10**8
"""Gradient values gathered into one bucket before they are reduced (DeepSpeed's default ``reduce_bucket_size``)."""


@checks_model
def zero3_buffer_bytes(cfg: ModelConfig, *, weight_bytes: int, trained: int, gradient_bytes: int) -> tuple[int, int]:
    """ZeRO-3's two working buffers on each GPU, in bytes: the parameters gathered at once, and the reduce bucket.

    ZeRO-3 (DeepSpeed 0.19.8, ``zero/config.py`` and ``partitioned_param_coordinator.py``;
    FSDP's full shard likewise) gathers a module's whole parameters just before it runs and
    frees them after; ahead of it, up to ``stage3_prefetch_bucket_size`` (5e7) parameters of
    the next modules; never more than ``stage3_max_live_parameters`` (1e9) at once, except
    that one module is always gathered whole.  The largest module of a transformer is its
    embedding or its head (``vocab x d_model``).  Gathered: that module plus the prefetch
    bucket, capped at the live limit, in the stored bytes per parameter
    (``weight_bytes / param_count``).  The gradients of ``trained`` parameters are reduced in
    buckets of ``reduce_bucket_size`` (5e8) values, in ``gradient_bytes / trained`` bytes each.
    An upper bound of what the defaults allow, not a measurement.

    Examples
    --------
    Llama 2 7B in bf16, every parameter trained: 131 M embedding parameters plus 50 M
    prefetched, 0.34 GiB; a reduce bucket of 500 M bf16 gradients, 0.93 GiB.

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-7b")
    >>> n = param_count(cfg)
    >>> [round(b / GiB, 2) for b in zero3_buffer_bytes(cfg, weight_bytes=2 * n, trained=n, gradient_bytes=2 * n)]
    [0.34, 0.93]
    """
    cfg, n_params = checked_model.unchecked(cfg)
    largest = max([cfg.vocab_size * cfg.d_model] + [m.d_in * m.d_out for m in linear_modules.unchecked(cfg)])
    gathered = max(largest, min(ZERO3_MAX_LIVE_PARAMETERS, largest + ZERO3_PREFETCH_BUCKET_SIZE))
    gathered_bytes = -(-min(gathered, n_params) * weight_bytes // n_params)
    bucket = min(ZERO3_REDUCE_BUCKET_SIZE, trained)
    return gathered_bytes, -(-bucket * gradient_bytes // trained) if trained else 0


def _sharded_adapter_state(
    cfg: ModelConfig, kind: str, state: dict[str, int], stage: int, gpus: int, optimizer: str, rank: int,
    targets: str | Iterable[str], adapter_dtype: str,
) -> tuple[int, int, int, int]:
    """Weights, KV cache (0), gradients and optimizer states of LoRA or QLoRA on one GPU of ``gpus`` under ZeRO.

    The adapters are the trained parameters: stage 1 shards their optimizer states,
    stage 2 also their gradients, stage 3 also their weights and the frozen base's.
    Each shard is ``ceil(n / gpus)`` values (DeepSpeed's padded flat partitions).
    Under stage 3 a QLoRA base shards its 4-bit codes (stored as bf16 by
    ``bnb_4bit_quant_storage`` so that FSDP and ZeRO-3 can flatten them) and keeps its
    quantization constants whole on every GPU, where bitsandbytes keeps them
    (``quant_state``, not a parameter); plus ZeRO-3's buffers (:func:`zero3_buffer_bytes`).
    """
    trained = lora_model_params.unchecked(cfg, rank, targets)
    shard = -(-trained // gpus)
    adapters = training_memory(trained, optimizer, adapter_dtype)
    sharded = training_memory(shard, optimizer, adapter_dtype)
    states = sharded["optimizer_states"]
    if optimizer == "adamw-8bit":
        states = adamw_8bit_state_bytes([(shard, 1)])
    gradients = sharded["gradients"] if stage >= 2 else state["gradients"]
    weights = state["weights"]
    if stage == 3:
        base = state["weights"] - adapters["weights"]
        constants = weight_format_bytes.unchecked(cfg, "nf4-dq")["constants"] if kind == "qlora" else 0
        weights = -(-(base - constants) // gpus) + constants + sharded["weights"]
        gathered, bucket = zero3_buffer_bytes.unchecked(cfg, weight_bytes=base, trained=trained,
                                                        gradient_bytes=adapters["gradients"])
        weights, gradients = weights + gathered, gradients + bucket
    return weights, 0, gradients, states


def largest_fitting(plan: Callable[[int], MemoryPlan], gpu_bytes: int, *, limit: int) -> int:
    """The largest ``n`` in ``[1, limit]`` with ``plan(n).fits(gpu_bytes)``, or 0 if not even ``n = 1`` fits.

    ``plan`` must grow with ``n`` (a context length, a batch), as every plan
    here does; a binary search, so about ``log2(limit)`` plans.

    Examples
    --------
    The longest context Llama-2-7B in bf16 can hold in 24 GiB: 4,096, the
    positions it was trained on, where :func:`context_search_limit` stops;
    searched past them, 21,398 tokens would fit in memory:

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-7b")
    >>> largest_fitting(lambda t: plan_inference(cfg, context=t), 24 * GiB, limit=context_search_limit(cfg))
    4096
    >>> largest_fitting(lambda t: plan_inference(cfg, context=t), 24 * GiB, limit=MAX_TOKENS)
    21398
    """
    budget = check.count("gpu_bytes", gpu_bytes)
    return largest_holding(lambda n: plan(n).fits(budget), check.count("limit", limit))


@dataclass(frozen=True)
class FitChange:
    """One setting changed from a plan that does not fit, and the plan that change gives.

    ``setting`` is the keyword of :func:`plan_training` or :func:`plan_inference` (or ``"gpu"``, a listed card's
    key from :data:`CARDS`), ``value`` its new value, ``gpu_bytes`` the memory the new plan is checked against.
    """

    setting: str
    value: str | int | bool
    plan: MemoryPlan
    gpu_bytes: int


def _smaller_that_fits(
    planned: Callable[..., MemoryPlan], setting: str, given: int, budget: int
) -> FitChange | None:
    """The largest value of ``setting`` below ``given`` whose plan fits ``budget``, or None."""
    if given <= 1:
        return None

    def vary(n: int) -> MemoryPlan:
        return planned(**{setting: n})

    largest = largest_fitting(vary, budget, limit=given - 1)
    return FitChange(setting, largest, vary(largest), budget) if largest else None


@checks_model  # type: ignore[arg-type]  # mypy fears a 'cfg' among **settings; cfg is always the first argument
def training_changes_that_fit(cfg: ModelConfig, gpu_bytes: int, **settings: Any) -> list[FitChange]:
    """Each single change of a training set-up that makes :func:`plan_training` fit ``gpu_bytes``, smallest first.

    ``settings`` are :func:`plan_training`'s keywords as given (``seq_len`` among them).  Tried in this order, and
    kept when the plan then fits: activation checkpointing on; the largest smaller micro-batch; the longest
    shorter sequence; 8-bit AdamW states (for ``optimizer="adamw"``); a 4-bit NF4 base (LoRA becomes QLoRA);
    on several GPUs, the lowest higher ZeRO stage that fits; the smallest listed card with more memory.  Empty
    when nothing single does it, or the plan already fits.

    Examples
    --------
    QLoRA of Llama-2-13B on a 24 GiB card needs 33.11 GiB (its kbit-prepared base keeps fp32 activations);
    checkpointing brings it to 11.2 GiB, sequences of 1,289 tokens to 23.99 GiB, and an A100 40 GB holds it as it
    is:

    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-13b")
    >>> plan_training(cfg, task="qlora", seq_len=2048).fits(24 * GiB)
    False
    >>> [(c.setting, c.value, round(c.plan.total / GiB, 2))
    ...  for c in training_changes_that_fit(cfg, 24 * GiB, task="qlora", seq_len=2048)]
    [('checkpointing', True, 11.2), ('seq_len', 1289, 23.99), ('gpu', 'a100-40gb', 33.11)]
    """
    budget = check.count("gpu_bytes", gpu_bytes)

    def plan(**changed: Any) -> MemoryPlan:
        return plan_training.unchecked(cfg, **{**settings, **changed})

    current = plan()
    if current.fits(budget):
        return []
    found: list[FitChange] = []

    def keep(setting: str, value: str | int | bool, changed: MemoryPlan) -> None:
        if changed.fits(budget):
            found.append(FitChange(setting, value, changed, budget))

    if not settings.get("checkpointing", False):
        keep("checkpointing", True, plan(checkpointing=True))
    for setting in ("micro_batch", "seq_len"):
        smaller = _smaller_that_fits(plan, setting, check.count(setting, settings.get(setting, 1)), budget)
        if smaller is not None:
            found.append(smaller)
    if settings.get("optimizer", "adamw") == "adamw":
        keep("optimizer", "adamw-8bit", plan(optimizer="adamw-8bit"))
    if settings.get("task", "full") == "lora":
        try:
            keep("task", "qlora", plan(task="qlora"))
        except Refusal:  # under stage 3 the default k-bit preparation is refused: one change cannot make it QLoRA
            pass
    gpus, stage = settings.get("n_gpus", 1), settings.get("zero_stage", 0)
    for higher in range(stage + 1, 4) if gpus > 1 else ():
        try:
            sharded = plan(zero_stage=higher)
        except Refusal:  # QLoRA prepared for k-bit training under stage 3
            continue
        if sharded.fits(budget):
            found.append(FitChange("zero_stage", higher, sharded, budget))
            break
    card = least_card_above(CARDS, budget, current.fits)
    if card is not None:
        found.append(FitChange("gpu", card.key, current, card.total_bytes))
    return found


@checks_model  # type: ignore[arg-type]  # mypy fears a 'cfg' among **settings; cfg is always the first argument
def inference_changes_that_fit(
    cfg: ModelConfig, gpu_bytes: int, plan: Callable[..., MemoryPlan] | None = None, **settings: Any
) -> list[FitChange]:
    """Each single change of an inference set-up that makes its plan fit ``gpu_bytes``, smallest first.

    ``plan`` builds the plan from keywords (default :func:`plan_inference`); ``settings`` are those given
    (``context`` among them).  Tried in this order, and kept when the plan then fits: the largest smaller batch;
    the longest shorter context; an fp8 KV cache (where ``kv_format`` is a setting); the first weight format in
    :data:`~llmcalc.formats.WEIGHT_FORMATS` order, least lossy first, that fits; where ``tensor_parallel``
    is a setting, the smallest larger tensor-parallel size vLLM accepts that fits; the smallest listed card
    with more memory.  Empty when nothing single does it, or the plan already fits.

    Examples
    --------
    >>> from llmcalc import get_preset, GiB
    >>> cfg = get_preset("llama-2-13b")
    >>> [(c.setting, c.value) for c in inference_changes_that_fit(cfg, 24 * GiB, context=4096)]
    [('weight_format', 'fp8'), ('gpu', 'rtx-5090')]
    """
    budget = check.count("gpu_bytes", gpu_bytes)
    build = plan or plan_inference.unchecked

    def planned(**changed: Any) -> MemoryPlan:
        return build(cfg, **{**settings, **changed})

    current = planned()
    if current.fits(budget):
        return []
    found: list[FitChange] = []
    for setting in ("batch", "context"):
        smaller = _smaller_that_fits(planned, setting, check.count(setting, settings.get(setting, 1)), budget)
        if smaller is not None:
            found.append(smaller)
    if "kv_format" in settings and settings["kv_format"] != "fp8":
        changed = planned(kv_format="fp8")
        if changed.fits(budget):
            found.append(FitChange("kv_format", "fp8", changed, budget))
    for weight_format in lighter_weight_formats.unchecked(cfg, settings.get("weight_format", "bf16")):
        changed = planned(weight_format=weight_format)
        if changed.fits(budget):
            found.append(FitChange("weight_format", weight_format, changed, budget))
            break
    if "tensor_parallel" in settings:
        try:
            sizes = tensor_parallel_sizes.unchecked(cfg)
        except Refusal:  # a model the planner does not split
            sizes = []
        for size in (size for size in sizes if size > settings["tensor_parallel"]):
            changed = planned(tensor_parallel=size)
            if changed.fits(budget):
                found.append(FitChange("tensor_parallel", size, changed, budget))
                break
    card = least_card_above(CARDS, budget, current.fits)
    if card is not None:
        found.append(FitChange("gpu", card.key, current, card.total_bytes))
    return found
