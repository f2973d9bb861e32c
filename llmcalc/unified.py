"""Apple silicon's unified memory, as much of it as Metal lets one process use by default.

A Mac has no separate GPU memory: the GPU works in the same memory as the CPU, and Metal
recommends a ceiling for one process, ``recommendedMaxWorkingSetSize``.  llama.cpp's Metal
backend prints it when it starts (``ggml_metal_init: recommendedMaxWorkingSetSize = ...``) and
warns once its buffers pass it ("current allocated size is greater than the recommended max
working set size"), so it is the total a llama.cpp plan (``llmcalc gguf --gpu KEY``) is checked
against, the counterpart of the total a CUDA process sees on a listed card.

Two things to know when reading a published log.  llama.cpp's ``ggml-metal.m`` printed the
figure divided by 1024 x 1024 (MiB) under the label "MB" until 2023 and divided by 10**6 (MB)
later; each entry below keeps what its log printed and says which unit that was, and the
figure always checks out as a simple fraction of the machine's memory in that unit (the
tests recompute it).  And the share moves with macOS: in the logs of 2023 it is two thirds of
16 or 32 GiB and three quarters of 64 or 96 GiB; a log of macOS 26 prints 107.52 GiB for a
128 GB machine, 84 %.  Apple's "GB" of unified memory is GiB: 16 GB is 16 x 2**30 bytes.

vLLM has no Metal backend (its macOS build runs on the CPU), and the planner's training and
inference plans count CUDA's context, allocator and kernels, so ``llmcalc plan`` refuses these
keys by name rather than plan a Mac as if it were an NVIDIA card.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .errors import refusal
from .units import MB, GiB, MiB

__all__ = ["UNIFIED_MEMORY", "UnifiedMemory", "refuse_plan_on_unified_memory", "unified_memory", "unified_memory_total"]

_BYTES_PER_UNIT: Mapping[str, int] = MappingProxyType({"MiB": MiB, "MB": MB, "GiB": GiB})


@dataclass(frozen=True)
class UnifiedMemory:
    """A Mac's unified memory and the working set a published log prints for one process.

    ``working_set`` is the figure as the log printed it (a decimal with two places) and ``unit``
    what that figure counts: ``"MiB"`` where llama.cpp divided by 1024 x 1024 (even under the label
    "MB"), ``"MB"`` where it divided by 10**6, ``"GiB"`` where the log says GiB.  ``source`` is the
    public log, ``quote`` the line it prints, ``checked`` when it was read.
    """

    key: str
    name: str
    memory_gb: int
    working_set: str
    unit: str
    source: str
    quote: str
    checked: str

    @property
    def memory_bytes(self) -> int:
        """The machine's unified memory in bytes: Apple's GB are GiB."""
        return self.memory_gb * GiB

    @property
    def total_bytes(self) -> int:
        """The working set in bytes, rounded down: what a llama.cpp plan on this Mac is checked against."""
        whole, _, fraction = self.working_set.partition(".")
        hundredths: int = 10 ** len(fraction)
        return int(whole + fraction) * _BYTES_PER_UNIT[self.unit] // hundredths

    @property
    def label(self) -> str:
        """The name a list shows: the machine and the working set as its log printed it."""
        return f"{self.name}: {self.working_set} {self.unit} for Metal"


_CHECKED = "2026-12-07"
_GITHUB = "https://github.com/"
UNIFIED_MEMORY: tuple[UnifiedMemory, ...] = (
    UnifiedMemory("apple-m1-16gb", "Apple M1 (16 GB)", 16, "10922.67", "MiB", _GITHUB + "ise-uiuc/magicoder/issues/19",
                  "ggml_metal_init: recommendedMaxWorkingSetSize  = 10922.67 MiB", _CHECKED),
    UnifiedMemory("apple-m1-max-32gb", "Apple M1 Max (32 GB)", 32, "21845.34", "MiB",
                  _GITHUB + "ggml-org/llama.cpp/pull/2011",
                  "ggml_metal_init: recommendedMaxWorkingSetSize = 21845.34 MB", _CHECKED),
    UnifiedMemory("apple-m2-max-32gb", "Apple M2 Max (32 GB)", 32, "21845.34", "MiB",
                  _GITHUB + "ollama/ollama/issues/434",
                  "ggml_metal_init: recommendedMaxWorkingSetSize = 21845.34 MB", _CHECKED),
    UnifiedMemory("apple-m1-max-64gb", "Apple M1 Max (64 GB)", 64, "49152.00", "MiB",
                  _GITHUB + "ggml-org/llama.cpp/issues/1870",
                  "ggml_metal_init: recommendedMaxWorkingSetSize  = 49152.00 MiB", _CHECKED),
    # Printed with a decimal comma (the machine's locale): 73728,00.
    UnifiedMemory("apple-m2-max-96gb", "Apple M2 Max (96 GB)", 96, "73728.00", "MiB",
                  _GITHUB + "ggml-org/llama.cpp/issues/3213",
                  "ggml_metal_init: recommendedMaxWorkingSetSize  = 73728,00 MB", _CHECKED),
    # ds4's Metal engine prints the same property in GiB; macOS 26 (the llama.cpp logs above are of 2023).
    UnifiedMemory("apple-m5-max-128gb", "Apple M5 Max (128 GB)", 128, "107.52", "GiB", _GITHUB + "antirez/ds4/pull/893",
                  "recommendedMaxWorkingSetSize: 107.52 GiB     # stock", _CHECKED),
)
"""Macs people buy for llama.cpp, each with the working set a published log prints for one process.

The machines with 192 GB and 512 GB (M2 and M3 Ultra), and the 24, 36 and 48 GB configurations,
are left out: no public log that names such a machine and prints its working set was found.
"""


def unified_memory(text: str) -> UnifiedMemory | None:
    """The Mac of :data:`UNIFIED_MEMORY` whose key ``text`` is (any case, spaces around it), or ``None``.

    >>> unified_memory(" Apple-M2-Max-96GB ").total_bytes / GiB, unified_memory("h100-sxm")
    (72.0, None)
    """
    key = text.strip(" \t\n\r\f\v").lower()
    return next((mac for mac in UNIFIED_MEMORY if mac.key == key), None)


def refuse_plan_on_unified_memory(text: str) -> None:
    """Refuse ``llmcalc plan --gpu KEY`` for a Mac's key: only a llama.cpp plan (``llmcalc gguf``) is modelled there.

    >>> refuse_plan_on_unified_memory("l4")
    >>> refuse_plan_on_unified_memory("apple-m1-16gb")
    Traceback (most recent call last):
    ...
    llmcalc.errors.RefusalValueError: apple-m1-16gb is Apple silicon's unified memory, planned for llama.cpp only ...
    """
    mac = unified_memory(text)
    if mac is not None:
        raise refusal("unified_memory_plan", card=mac.key)


def unified_memory_total(mac: UnifiedMemory) -> tuple[dict[str, object], str]:
    """What ``--gpu KEY`` of a Mac gave, for a result and a line of text (as the CLI says it of a listed card)."""
    result: dict[str, object] = {"source": "metal", "card": mac.key, "memory_gb": mac.memory_gb,
                                 "working_set": f"{mac.working_set} {mac.unit}", "process_source": mac.source}
    return result, (f"GPU memory: {mac.name}, {mac.working_set} {mac.unit}, the working set Metal recommends for one "
                    f"process ({mac.total_bytes / mac.memory_bytes:.0%} of {mac.memory_gb} GB of unified memory), as "
                    f"{mac.source} prints it")
