"""Command line: ``llmcalc params|memory|kv-cache|lora|plan|gguf MODEL`` and ``llmcalc presets``.

MODEL is a preset name (``llama-2-7b``) or the path of a Hugging Face
``config.json``; field flags (``--d-model 8192``) override it, or describe a
model from scratch.  An override changes only the fields given: values the
preset or file states (such as its KV heads) stay, values llmcalc derived
(``head_dim`` from ``d_model / n_heads``) are derived again, and every command
prints the configuration it used, marking what was derived.  ``--json``
prints the same as JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import __version__, costcli, gguf, speed
from . import _validate as check
from .checkpoints import CheckpointFormat, checkpoint_from_hf, describe, is_qlora_base
from .config import FIELD_CHOICES, Derived, ModelConfig
from .engines import (
    ATTENTIONS,
    VLLM_EXTENSIBLE_MARGIN_FLOOR,
    VLLM_EXTENSIBLE_MARGIN_FLOOR_ROCM,
    VLLM_MAX_NUM_BATCHED_TOKENS,
    VLLM_MAX_NUM_SEQS,
    VLLM_NON_TORCH,
    VLLM_SAMPLER_FILTERS,
    VLLM_VERSION_SAMPLER_FILTERS,
    VLLM_VERSIONS,
    check_vllm_card,
    plan_generate,
    plan_vllm,
    vllm_layers_note,
    vllm_release_settings,
)
from .errors import refusal
from .fmt import format_bytes, format_count
from .formats import DTYPE_BITS, KV_FORMATS, WEIGHT_FORMATS
from .lora import ALL_LINEAR, PEFT_VERSION, default_lora_targets, largest_low_rank, lora_model_params
from .memory import OPTIMIZER_STATES, PRECISION_BYTES, kv_cache_bytes, training_memory, weight_bytes
from .offload import OFFLOADS, offload_heading, offload_json, offload_text, offloaded_plan
from .params import active_param_count, param_breakdown, param_count
from .planner import (
    ADAPTER_DTYPES,
    CARDS,
    MAX_BATCH,
    OPTIMIZERS,
    PRECISIONS,
    PROCESS_ESTIMATE_ERROR_MIB,
    PROCESS_ESTIMATE_MIB,
    QLORA_PREPARATIONS,
    TASKS,
    FitChange,
    MemoryPlan,
    context_limit,
    context_search_limit,
    default_tokens,
    gpu_memory,
    inference_changes_that_fit,
    largest_fitting,
    listed_card,
    plan_inference,
    plan_training,
    trained_context,
    training_changes_that_fit,
)
from .presets import PRESETS, get_preset
from .ranking import SORTS, plan_all_cards
from .runcost import DEFAULT_MFU
from .trainers import DEFAULT_SETUP, SETUPS, UNMODELLED_SETUPS, get_setup, setup_settings
from .unified import UNIFIED_MEMORY, refuse_plan_on_unified_memory, unified_memory, unified_memory_total
from .units import GiB
from .weightformats import WeightFormat, kept_linear_modules

__all__ = [
    "DEFAULT_CONTEXT",
    "DEFAULT_SEQ_LEN",
    "ENGINES",
    "PLAN_OPTIONS",
    "OneLineArgumentParser",
    "build_parser",
    "field_help",
    "main",
    "real_number",
    "text_table",
    "tokens",
    "whole_number",
]

def field_help() -> dict[str, str]:
    """Each :class:`~llmcalc.ModelConfig` field's help: the first sentence of its entry in the class docstring.

    >>> field_help()["n_kv_heads"]
    'key/value heads; 0 means n_heads (multi-head attention), fewer is grouped-query attention, 1 multi-query attention'
    """
    parameters = (inspect.getdoc(ModelConfig) or "").split("Parameters\n----------\n", 1)[1].split("\n\n", 1)[0]
    helps = {}
    for entry in re.finditer(r"^(\w+) : .*\n((?:    .*(?:\n|$))+)", parameters, re.MULTILINE):
        sentence = re.split(r"(?<=\.)\s", " ".join(entry.group(2).split()), maxsplit=1)[0]
        text = re.sub(r":\w+:`~?([^`]+)`", r"\1", sentence).replace("``", "").removesuffix(".")  # reST to plain
        helps[entry.group(1)] = text if text[1:2].isupper() else text[:1].lower() + text[1:]
    return helps


_TOKEN_SUFFIXES = {"": 1, "k": 2**10, "m": 2**20}
_TOKENS_HELP = ("token counts: plain integers or with a suffix, k = 1,024 and M = 1,048,576 tokens "
                "(8k = 8,192, as the glossary counts)")


def tokens(text: str) -> int:
    """Parse a token count such as ``4096``, ``8k`` (8,192) or ``1M`` (1,048,576).

    >>> tokens("8k"), tokens("128K"), tokens("1.5k"), tokens("1M")
    (8192, 131072, 1536, 1048576)
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a token count: {_TOKENS_HELP}")
    number, suffix = match.groups()
    whole, _, fraction = number.partition(".")
    scaled, divisor = int(whole + fraction) * _TOKEN_SUFFIXES[suffix.lower()], int("1" + "0" * len(fraction))
    if scaled % divisor:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens")
    return scaled // divisor


def whole_number(text: str) -> int:
    """Parse a whole number such as ``4096`` or ``-1`` (range checks come later, with the option's name).

    >>> whole_number("4096")
    4096
    >>> whole_number("2.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '2.5' is not a whole number (digits only, such as 4096)
    """
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (digits only, such as 4096)") from None


def real_number(text: str) -> float:
    """Parse a decimal number such as ``0.9`` or ``0.05``.

    >>> real_number("0.05")
    0.05
    >>> real_number("5%")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '5%' is not a decimal number (such as 0.9)
    """
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a decimal number (such as 0.9)") from None


class OneLineArgumentParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, naming the help to read; the usage only with ``--help``.

    argparse prints the whole usage (17 to 23 lines for a command with model fields) above its one useful line.
    """

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE (see 'PROG --help')`` on standard error and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-align the first column, right-align the others."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join([cells[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *(line(row) for row in rows)])


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """The CLI's table, for the commands other modules print (``gguf --gpu all``).

    >>> print(text_table(("card", "GPUs"), [("T4", "1")]))
    card  GPUs
    ----  ----
    T4       1
    """
    return _table(headers, rows)


def _model_fields() -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(ModelConfig) if f.name != "model_type"]


def _add_model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", metavar="MODEL",
                        help="a preset name (see 'llmcalc presets') or the path of a config.json")
    group = parser.add_argument_group("model fields (override MODEL's, or give all of vocab-size, d-model, "
                                      "n-layers, n-heads and d-ff)")
    helps = field_help()
    for field in _model_fields():
        flag = f"--{field.name.replace('_', '-')}"
        if field.type == "bool":
            group.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=helps[field.name])
        elif field.type == "int":
            group.add_argument(flag, type=whole_number, metavar="N", help=helps[field.name])
        else:
            group.add_argument(flag, metavar="NAME", help=f"one of {', '.join(FIELD_CHOICES[str(field.type)])}")


def _resolve_model(args: argparse.Namespace) -> tuple[str, ModelConfig, ModelConfig | None]:
    """The model to use, its label, and the unmodified base (None when built from flags alone)."""
    overrides = {f.name: getattr(args, f.name) for f in _model_fields() if getattr(args, f.name) is not None}
    base: ModelConfig | None
    if args.model is None:
        required = ("vocab_size", "d_model", "n_layers", "n_heads", "d_ff")
        missing = [f"--{name.replace('_', '-')}" for name in required if name not in overrides]
        if missing:
            raise ValueError(f"give MODEL (a preset name or a config.json path) or all of {', '.join(missing)}")
        return "custom model", ModelConfig(**overrides), None
    if Path(args.model).is_dir():
        config = Path(args.model) / "config.json"
        if not config.is_file():
            raise ValueError(f"the folder {args.model!r} holds no config.json; give a preset name, a config.json "
                             "path, or a model folder that holds one")
        base, label = _read_config(args, config), args.model
    elif args.model.endswith(".json") or Path(args.model).is_file():
        base, label = _read_config(args, args.model), args.model
    else:
        try:
            base, label = get_preset(check.choice("MODEL", args.model, PRESETS)), args.model
        except ValueError as error:
            raise ValueError(f"{error}; for another model give its config.json, a folder holding one, or the model "
                             "fields (--vocab-size, --d-model, --n-layers, --n-heads, --d-ff ...)") from None
    if not overrides:
        return label, base, base
    try:
        changed = dataclasses.replace(base, **overrides)
    except ValueError as error:
        raise ValueError(f"{error} (the override keeps {label}'s other fields: set them too)") from None
    return f"{label} (modified)", changed, base


def _read_config(args: argparse.Namespace, path: str | Path) -> ModelConfig:
    """The model of a config.json; how its checkpoint stores the weights goes to ``args.checkpoint_format``."""
    checkpoint = checkpoint_from_hf(path)
    args.checkpoint_format = checkpoint.weight_format
    return checkpoint.config


def _checkpoint_weights(args: argparse.Namespace, label: str) -> None:
    """Plan with the weights as a quantized config.json stores them; refuse what does not apply to them."""
    stored: CheckpointFormat | None = getattr(args, "checkpoint_format", None)
    if stored is None:
        return
    if args.task == "qlora" and is_qlora_base(stored):
        return  # stored as QLoRA loads its base: the QLoRA plan holds as it is
    if args.task != "inference":
        raise refusal("quantized_training", method=stored.method)
    if "weight_format" in args.given_options:
        raise ValueError(f"--weight-format does not apply to {label}: its quantization_config says how the weights "
                         f"are stored ({describe(stored)})")
    args.weight_format = stored


def _weights_note(cfg: ModelConfig, weight_format: WeightFormat) -> str:
    """Which weights a quantized format stores how, and which linear layers it keeps in 16 bits."""
    if weight_format == "bf16":
        return ""
    how = describe(weight_format) if isinstance(weight_format, CheckpointFormat) else f"the {weight_format} format"
    kept = [path if kept == copies else f"{path} ({kept:,} of {copies:,})"
            for path, kept, copies in kept_linear_modules(cfg, weight_format)]
    return (f"\n\nweights: {how}; kept in 16 bits: the embedding, norms and biases"
            + (f", and {', '.join(kept)}" if kept else ""))


def _weights_json(cfg: ModelConfig, weight_format: WeightFormat) -> dict[str, Any]:
    """An inference plan's weight format for --json: its name or the checkpoint's method, and what stays 16-bit."""
    name = weight_format.method if isinstance(weight_format, CheckpointFormat) else weight_format
    return {"weight_format": name, "weights_stored": describe(weight_format) if isinstance(
        weight_format, CheckpointFormat) else weight_format,
            "kept_in_16_bits": [{"module": path, "kept": kept, "of": copies}
                                for path, kept, copies in kept_linear_modules(cfg, weight_format)]}


def _config_lines(cfg: ModelConfig, base: ModelConfig | None) -> list[str]:
    defaults = {f.name: f.default for f in dataclasses.fields(ModelConfig)}
    shown = []
    for f in dataclasses.fields(ModelConfig):
        value = getattr(cfg, f.name)
        if value == defaults[f.name] or (isinstance(value, Derived) and value == 0):
            continue
        note = " (derived)" if isinstance(value, Derived) else ""
        if base is not None and getattr(base, f.name) != value:
            note += f" (was {getattr(base, f.name)})"
        shown.append(f"{f.name}={value}{note}")
    return shown


def _params(cfg: ModelConfig, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    total, parts = param_count(cfg), param_breakdown(cfg)
    rows = [(name, f"{count:,d}", f"{100 * count / total:.2f}%") for name, count in parts.items()]
    rows.append(("total", f"{total:,d}", format_count(total)))
    result: dict[str, Any] = {"total": total, "breakdown": parts}
    if cfg.is_moe:
        result["active"] = active = active_param_count(cfg)
        rows.append(("active per token", f"{active:,d}", format_count(active)))
    return result, _table(("component", "parameters", "share"), rows)


def _memory(cfg: ModelConfig, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    total = param_count(cfg)
    weights = {dtype: weight_bytes(total, dtype) for dtype in args.dtype}
    parts = training_memory(total, args.optimizer, args.precision)
    result = {"parameters": total, "weight_bytes": weights, "training_bytes": parts}
    text = (
        f"Weights ({total:,d} parameters; no quantization scales, KV cache or activations)\n"
        + _table(("dtype", "bytes", "size"), [(d, f"{b:,d}", format_bytes(b)) for d, b in weights.items()])
        + f"\n\nTraining state, {args.optimizer} with {args.precision} precision (activations not included)\n"
        + _table(("part", "bytes", "size"), [
            *((name.replace("_", " "), f"{value:,d}", format_bytes(value)) for name, value in parts.items()),
            ("total", f"{sum(parts.values()):,d}", format_bytes(sum(parts.values()))),
        ])
    )
    return result, text


def _kv_cache(cfg: ModelConfig, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    sizes = {n: kv_cache_bytes(cfg, n, batch=args.batch, dtype=args.dtype) for n in args.tokens}
    result = {"dtype": args.dtype, "batch": args.batch, "bytes": {str(n): size for n, size in sizes.items()}}
    rows = [(f"{n:,d}", f"{size:,d}", format_bytes(size)) for n, size in sizes.items()]
    return result, f"KV cache in {args.dtype}, batch {args.batch}\n" + _table(("tokens", "bytes", "size"), rows)


# Defaults that depend on the model: training and inference tokens, capped at the trained context (default_tokens).
DEFAULT_SEQ_LEN = 2048
DEFAULT_CONTEXT = 4096


def _lora_targets(cfg: ModelConfig, given: list[str] | None) -> tuple[str | list[str], str]:
    """The targets to adapt, and how to name them: as given, or peft's default for the model type."""
    if given is None:
        names = default_lora_targets(cfg)
        return names, f"{','.join(names)} (peft {PEFT_VERSION}'s default for {cfg.model_type or cfg.layout})"
    if given == [ALL_LINEAR]:
        return ALL_LINEAR, ALL_LINEAR
    return given, ",".join(given)


def _rank_notes(cfg: ModelConfig, ranks: Sequence[int], targets: str | list[str]) -> str:
    """A note for ranks above the narrowest adapted layer's width (peft accepts them; the update is not low-rank)."""
    low = largest_low_rank(cfg, targets)
    above = [rank for rank in ranks if low is not None and rank > low[0]]
    if low is None or not above:
        return ""
    return (f"\n\nnote: rank {', '.join(f'{rank:,}' for rank in above)} is above the width of {low[1]} "
            f"({low[0]:,}): peft {PEFT_VERSION} accepts it and trains every parameter counted here, but the update "
            f"is no longer low-rank; low-rank ranks are in [1, {low[0]:,}]")


def _lora(cfg: ModelConfig, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    targets, shown = _lora_targets(cfg, getattr(args, "targets", None))
    total = param_count(cfg)
    counts = {rank: lora_model_params(cfg, rank, targets) for rank in args.rank}
    result = {"targets": targets, "trainable": {str(rank): n for rank, n in counts.items()}}
    rows = [(str(rank), f"{n:,d}", f"{100 * n / total:.3f}%") for rank, n in counts.items()]
    return result, (f"LoRA, targets {shown}\n" + _table(("rank", "trainable", "of model"), rows)
                    + _rank_notes(cfg, args.rank, targets))


# The plan command's options: the tasks each applies to, and its default.  An option given for a task it does not
# apply to is an error, not silently ignored.
_TRAINING = ("full", "lora", "qlora")
PLAN_OPTIONS: dict[str, tuple[tuple[str, ...], object]] = {
    "weight_format": (("inference",), "bf16"),
    "kv_format": (("inference",), "bf16"),
    "context": (("inference",), None),
    "batch": (("inference",), 1),
    "beyond_trained_context": (("inference",), False),
    "engine": (("inference",), "sum"),
    "attention": (("inference",), "sdpa"),
    "vllm_version": (("inference",), "before-0.20"),
    "gpu_memory_utilization": (("inference",), None),  # the chosen version's default
    "sampler_filter": (("inference",), None),  # the chosen version's default
    "max_num_batched_tokens": (("inference",), VLLM_MAX_NUM_BATCHED_TOKENS),
    "max_num_seqs": (("inference",), VLLM_MAX_NUM_SEQS),
    "non_torch_gib": (("inference",), VLLM_NON_TORCH / GiB),
    "cuda_graphs_mib": (("inference",), 0),
    "startup_used_gib": (("inference",), 0.0),
    "concurrency": (("inference",), 1),
    "prompt_tokens": (("inference",), None),
    "generated_tokens": (("inference",), None),
    "price": (("inference",), None),
    "sort": (("inference",), "fit"),
    "tensor_parallel": (("inference",), 1),
    "pipeline_parallel": (("inference",), 1),
    "seq_len": (_TRAINING, None),
    "micro_batch": (_TRAINING, 1),
    "optimizer": (_TRAINING, "adamw"),
    "checkpointing": (_TRAINING, False),
    "zero_stage": (_TRAINING, 0),
    "gpus": (_TRAINING, 1),
    "offload": (_TRAINING, None),
    "rank": (("lora", "qlora"), 16),
    "targets": (("lora", "qlora"), None),
    "precision": (("full",), PRECISIONS[0]),
    "qlora_preparation": (("qlora",), QLORA_PREPARATIONS[0]),
    "lora_dropout": (("lora", "qlora"), 0.0),
    "setup": (("lora", "qlora"), DEFAULT_SETUP),
    "adapter_dtype": (("lora", "qlora"), "fp32"),
    # The training run's time and price (llmcalc.costcli).
    "train_tokens": (_TRAINING, None),
    "mfu": (_TRAINING, DEFAULT_MFU),
    "price_per_gpu_hour": (_TRAINING, None),
    "peak_tflops": (_TRAINING, None),
}
# How each training plan's heading names the set-up it describes.
_TRAINING_REGIMES = {
    "bf16": "bf16 weights, gradients and optimizer states (transformers 5, torch AdamW)",
    "amp": "PyTorch AMP: fp32 weights, gradients and optimizer states",
    "mixed": "DeepSpeed/Megatron mixed precision: bf16 weights and gradients, fp32 master and optimizer states",
    "kbit": "NF4 base prepared by peft's prepare_model_for_kbit_training (fp32 embedding, head, norms)",
    "none": "NF4 base, other parameters left in 16 bits",
    "norms": "NF4 base prepared as the QLoRA script does (fp32 norms, 16-bit embedding and head)",
}


def _training_regime(args: argparse.Namespace) -> str:
    """The set-up a training plan describes, for its heading: the trainer's set-up and what it sets."""
    choice = getattr(args, "precision", None) or getattr(args, "qlora_preparation", None)
    regime = f"; {_TRAINING_REGIMES[choice]}" if choice else ""
    if args.task == "full":
        return regime
    setup = get_setup(args.setup)
    return (f"; set-up {setup.label}{regime}; {args.adapter_dtype} adapters, {args.optimizer}, "
            f"checkpointing {'on' if args.checkpointing else 'off'}")
_TASK_NAMES = {"inference": "inference", "full": "full fine-tuning", "lora": "LoRA", "qlora": "QLoRA"}


def _plan_options(args: argparse.Namespace) -> None:
    """Refuse the options that do not apply to ``args.task``, then fill in the defaults of those that do."""
    given = [name for name in PLAN_OPTIONS if hasattr(args, name)]
    args.given_options = given
    _engine_options(args, given)
    wrong = [name for name in given if args.task not in PLAN_OPTIONS[name][0]]
    if wrong:
        flags = ", ".join("--" + name.replace("_", "-") for name in wrong)
        applies = "; ".join(f"--{name.replace('_', '-')} applies to {', '.join(PLAN_OPTIONS[name][0])}"
                            for name in wrong)
        raise ValueError(f"{flags} {'does' if len(wrong) == 1 else 'do'} not apply to --task {args.task} ({applies})")
    if args.task in ("lora", "qlora"):
        # The trainer's set-up gives the defaults of what it sets; an option given on the command line wins.
        chosen = setup_settings(getattr(args, "setup", DEFAULT_SETUP), args.task,
                                zero_stage=getattr(args, "zero_stage", 0))
        for name, value in chosen.items():
            if not hasattr(args, name):
                setattr(args, name, [value] if name == "targets" else value)
    for name, (tasks, default) in PLAN_OPTIONS.items():
        if args.task in tasks and not hasattr(args, name):
            setattr(args, name, default)


# Inference engines (llmcalc.engines): the options each engine takes beyond the model, and what each one plans.
ENGINES = ("sum", "generate", "vllm")
_ENGINE_OPTIONS = {
    "attention": ("generate",),
    "vllm_version": ("vllm",),
    "gpu_memory_utilization": ("vllm",),
    "sampler_filter": ("vllm",),
    "max_num_batched_tokens": ("vllm",),
    "max_num_seqs": ("vllm",),
    "non_torch_gib": ("vllm",),
    "cuda_graphs_mib": ("vllm",),
    "startup_used_gib": ("vllm",),
    "concurrency": ("vllm",),
    "prompt_tokens": ("vllm",),
    "generated_tokens": ("vllm",),
    "price": ("vllm",),
    "sort": ("vllm",),
    "batch": ("sum", "generate"),
    "kv_format": ("sum", "vllm"),
    "tensor_parallel": ("sum", "vllm"),
    "pipeline_parallel": ("sum",),
}


def _engine_options(args: argparse.Namespace, given: list[str]) -> None:
    """Refuse an inference option that the chosen ``--engine`` does not take."""
    engine = getattr(args, "engine", "sum")
    wrong = [name for name in given if name in _ENGINE_OPTIONS and engine not in _ENGINE_OPTIONS[name]]
    if args.task == "inference" and wrong:
        applies = "; ".join(f"--{name.replace('_', '-')} applies to --engine {', '.join(_ENGINE_OPTIONS[name])}"
                            for name in wrong)
        raise ValueError(f"{', '.join('--' + name.replace('_', '-') for name in wrong)} "
                         f"{'does' if len(wrong) == 1 else 'do'} not apply to --engine {engine} ({applies})")


def _plan_vllm(cfg: ModelConfig, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """vLLM's start-up budget and KV-cache pool, as it prints them."""
    if args.gpu is None:
        raise ValueError("--engine vllm needs --gpu: vLLM sizes its KV-cache pool from the card's memory")
    card = listed_card(args.gpu_key)
    if card is not None:
        check_vllm_card(cfg, card.key)
    graphs_given = args.cuda_graphs_mib != 0
    if graphs_given and args.vllm_version == "before-0.20":
        raise ValueError("--cuda-graphs-mib applies to --vllm-version 0.20+ and 0.34+: vLLM before 0.20 captures "
                         "its CUDA graphs after sizing the KV-cache pool, outside it")
    extensible = args.vllm_version == "0.34+"
    if args.startup_used_gib and not extensible:
        raise ValueError("--startup-used-gib applies to --vllm-version 0.34+: earlier releases plan with a share of "
                         "the card's total, whatever is in use at start-up")
    card_gib = args.gpu / GiB
    non_torch = check.number("non_torch_gib", args.non_torch_gib, minimum=0, maximum=card_gib)
    startup_used = check.number("startup_used_gib", args.startup_used_gib, minimum=0, maximum=card_gib)
    rocm = card is not None and card.tool == "rocminfo"
    plan = plan_vllm(cfg, args.gpu, max_model_len=args.context, max_num_batched_tokens=args.max_num_batched_tokens,
                     gpu_memory_utilization=args.gpu_memory_utilization, weight_format=args.weight_format,
                     kv_format=args.kv_format,
                     cuda_graph_bytes=check.count("cuda_graphs_mib", args.cuda_graphs_mib, minimum=0) * 2**20,
                     tensor_parallel=args.tensor_parallel, non_torch_bytes=round(non_torch * GiB),
                     max_num_seqs=args.max_num_seqs, sampler_filter=args.sampler_filter,
                     startup_used_bytes=round(startup_used * GiB), rocm=rocm and extensible,
                     **vllm_release_settings(args.vllm_version))
    parts = {"budget": plan.budget, "weights": plan.weights, "profile_peak": plan.profile_peak,
             "non_torch_and_cuda_graphs": plan.non_torch}
    if extensible:
        parts["cuda_graphs_kept_again"] = plan.kept_graphs
    parts["kv_cache"] = plan.blocks * plan.block_bytes
    rows = [(name.replace("_", " "), f"{value:,d}", format_bytes(value)) for name, value in parts.items()]
    result: dict[str, Any] = {"task": "inference", "engine": "vllm", "per_gpu_of": args.tensor_parallel,
                              "tensor_parallel": args.tensor_parallel, "parts": parts, "gpu_bytes": args.gpu,
                              "gpu_memory_utilization": args.gpu_memory_utilization,
                              "vllm_version": args.vllm_version, "sampler_filter": args.sampler_filter,
                              "max_num_seqs": args.max_num_seqs,
                              "max_num_batched_tokens": args.max_num_batched_tokens, "kv_tokens": plan.kv_tokens,
                              "cuda_graph_bytes": args.cuda_graphs_mib * 2**20, "block_size": plan.block_size,
                              "max_concurrency": plan.max_concurrency, "fits": plan.starts,
                              "trained_context": trained_context(cfg), **_weights_json(cfg, args.weight_format)}
    where = ("one GPU" if args.tensor_parallel == 1
             else f"per GPU, each of {args.tensor_parallel:,} (tensor parallel {args.tensor_parallel})")
    release = args.vllm_version.replace("-", " ").replace("+", " and later")
    text = (f"inference with vLLM {release}, {where}: gpu_memory_utilization "
            f"{args.gpu_memory_utilization:g} of {format_bytes(args.gpu)}, max_num_batched_tokens "
            f"{args.max_num_batched_tokens:,}, max_num_seqs {args.max_num_seqs:,}, sampler filter "
            f"{args.sampler_filter}\n"
            + _table(("part", "bytes", "size"), rows)
            + f"\n\nGPU KV cache size: {plan.kv_tokens:,} tokens\n"
            f"Maximum concurrency for {args.context:,} tokens per request: {plan.max_concurrency:.2f}x\n"
            + ("starts" if plan.starts else f"does not start: the pool holds fewer than {args.context:,} tokens"))
    text += _weights_note(cfg, args.weight_format)
    if args.tensor_parallel > 1 and args.non_torch_gib == VLLM_NON_TORCH / GiB:
        text += ("\n\nnote: memory outside PyTorch is taken as 0.35 GiB, one GPU's; with tensor parallelism NCCL's "
                 "buffers make it larger (3.58 GiB on each of two GPUs in vLLM pull request 10511): give "
                 "--non-torch-gib as your log prints 'non_torch_memory'")
    longest = plan.longest_model_len(context_search_limit(cfg, beyond_trained=args.beyond_trained_context))
    result["largest_context"] = longest
    result["blocks_per_request"] = plan.blocks_per_request()
    text += f"; longest max_model_len that starts: {longest:,d}" + _trained_note(cfg, args.context)
    text += vllm_layers_note(cfg, plan)
    if extensible:
        result["margin"] = plan.margin
        result["startup_used_bytes"] = args.gpu - plan.startup_free
        floor = VLLM_EXTENSIBLE_MARGIN_FLOOR_ROCM if rocm else VLLM_EXTENSIBLE_MARGIN_FLOOR
        text += (f"\n\nnote: planned as vLLM 0.34's extensible KV cache, read in its source and not yet checked "
                 f"against a start-up log: the pool is what is free after the CUDA graphs are captured, less the "
                 f"profiled peak with the graphs' estimate counted in it again and a margin of "
                 f"{format_bytes(plan.margin)} (the larger of {format_bytes(floor)} and three quarters "
                 "of that peak); a larger transient of vLLM's warm-up steps, or a larger growth of torch's "
                 "reservation, which vLLM keeps free instead, and 0.34's sampler warm-up (twice, with penalties "
                 "and log-probabilities) are not modelled, and each makes vLLM's pool smaller than this one")
        if not args.startup_used_gib:
            text += ("\n\nnote: nothing counted as in use when vLLM starts (its CUDA context, other processes): "
                     "vLLM 0.34 sizes the pool from the memory then free, so give --startup-used-gib as your log's "
                     "'Free memory on device (free/total GiB) on startup' leaves (total less free)")
    if args.vllm_version == "before-0.20":
        text += ("\n\nnote: planned as vLLM before 0.20, which captures its CUDA graphs after sizing this pool; "
                 "vLLM 0.20 and later take them from the pool and plan with 0.92 of the card: give "
                 "--vllm-version 0.20+")
    elif not graphs_given:
        by = "at least twice it (the graphs, and their estimate in the peak kept free)" if extensible else "it"
        text += ("\n\nnote: no CUDA graphs counted: their size depends on the kernels and the batch sizes "
                 "captured, not on the model's shapes, so the planner cannot derive it, and vLLM's pool is smaller "
                 f"than this one by {by}: give --cuda-graphs-mib as your log prints 'Estimated CUDA graph memory'")
    return result, text


def _trained_note(cfg: ModelConfig, context: int) -> str:
    trained = trained_context(cfg)
    if trained is None or context <= trained:
        return ""
    return f"\n\nnote: a context of {context:,} tokens is beyond the {trained:,} positions the model was trained on"


def _model_defaults(cfg: ModelConfig, args: argparse.Namespace) -> None:
    """Fill in the plan options whose default depends on the model: tokens up to its trained context, LoRA targets."""
    if getattr(args, "context", 0) is None:
        args.context = default_tokens(cfg, DEFAULT_CONTEXT)
    if getattr(args, "seq_len", 0) is None:
        args.seq_len = default_tokens(cfg, DEFAULT_SEQ_LEN)
    if args.task in ("lora", "qlora"):
        args.targets, args.targets_shown = _lora_targets(cfg, args.targets)


def _vllm_defaults(args: argparse.Namespace) -> None:
    """Fill in the vLLM options whose default is the chosen release's, for one card's plan and for ``--gpu all``."""
    if args.gpu_memory_utilization is None:
        args.gpu_memory_utilization = VLLM_VERSIONS[args.vllm_version]
    if args.sampler_filter is None:
        args.sampler_filter = VLLM_VERSION_SAMPLER_FILTERS[args.vllm_version]


def _plan(cfg: ModelConfig, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    _model_defaults(cfg, args)
    if args.task == "inference" and args.engine == "vllm":
        _vllm_defaults(args)
    if args.gpu == "all":
        return plan_all_cards(cfg, args, _table)
    if "concurrency" in args.given_options:
        raise ValueError("--concurrency applies to --gpu all: the requests of --context tokens each card's vLLM pool "
                         "must hold at once")
    ranking_only = [name for name in ("prompt_tokens", "generated_tokens", "price", "sort")
                    if name in args.given_options]
    if ranking_only:
        raise ValueError(f"--{ranking_only[0].replace('_', '-')} applies to --gpu all, the ranking of every card "
                         "(one card's speed: llmcalc speed --engine vllm)")
    if args.task == "inference" and args.engine == "vllm":
        return _plan_vllm(cfg, args)
    trained = trained_context(cfg)
    notes = []
    if args.task == "inference":
        def plan(n: int) -> MemoryPlan:
            if args.engine == "generate":
                return plan_generate(cfg, context=n, batch=args.batch, weight_format=args.weight_format,
                                     attention=args.attention)
            return plan_inference(cfg, context=n, batch=args.batch, weight_format=args.weight_format,
                                  kv_format=args.kv_format, tensor_parallel=args.tensor_parallel,
                                  pipeline_parallel=args.pipeline_parallel)
        size, varied = args.context, "context"
        limit = context_search_limit(cfg, beyond_trained=args.beyond_trained_context)
        gpus = args.tensor_parallel * args.pipeline_parallel
        where = "one GPU" if args.engine == "sum" else (
            f"one GPU, transformers generate ({args.attention} attention): the prompt processed at once")
        if gpus > 1:
            where = (f"per GPU, the busiest of {gpus:,} (tensor parallel {args.tensor_parallel}, pipeline parallel "
                     f"{args.pipeline_parallel}, as vLLM splits the model)")
        if trained is not None and args.context > trained:
            notes.append(f"note: a context of {args.context:,} tokens is beyond the {trained:,} positions the model "
                         "was trained on")
    else:
        def plan(n: int) -> MemoryPlan:
            if args.offload:
                return offloaded_plan(cfg, args, n).gpu
            return plan_training(cfg, task=args.task, seq_len=args.seq_len, micro_batch=n, optimizer=args.optimizer,
                                 checkpointing=args.checkpointing, zero_stage=args.zero_stage,
                                 n_gpus=args.gpus, rank=getattr(args, "rank", 16),
                                 targets=getattr(args, "targets", ALL_LINEAR),
                                 precision=getattr(args, "precision", PRECISIONS[0]),
                                 qlora_preparation=getattr(args, "qlora_preparation", QLORA_PREPARATIONS[0]),
                                 lora_dropout=getattr(args, "lora_dropout", 0.0),
                                 adapter_dtype=getattr(args, "adapter_dtype", "fp32"))
        if args.task in ("lora", "qlora"):
            setup_settings(args.setup, args.task, cfg=cfg)  # refuses a model the set-up's rules do not cover
        size, varied, limit = args.micro_batch, "micro_batch", MAX_BATCH
        gpus = args.gpus
        where = "one GPU" if gpus == 1 else f"per GPU, each of {gpus:,} (ZeRO stage {args.zero_stage})"
        where += _training_regime(args) + offload_heading(args)
        if args.task != "full":
            where += f"; rank {args.rank}, targets {args.targets_shown}"
            note = _rank_notes(cfg, [args.rank], args.targets).strip()
            if note:
                notes.append(note)
    chosen = plan(size)
    parts = {f.name: getattr(chosen, f.name) for f in dataclasses.fields(chosen)}
    rows = [(name.replace("_", " "), f"{value:,d}", format_bytes(value)) for name, value in parts.items() if value]
    rows.append(("total", f"{chosen.total:,d}", format_bytes(chosen.total)))
    result: dict[str, Any] = {"task": args.task, "per_gpu_of": gpus, "parts": parts,
                              "total": chosen.total, "trained_context": trained}
    # The training set-up the plan describes, as chosen or defaulted.
    result.update({name: getattr(args, name) for name in ("precision", "qlora_preparation", "lora_dropout",
                                                          "setup", "adapter_dtype", "optimizer", "checkpointing")
                   if hasattr(args, name)})
    if args.task == "inference":
        result.update(engine=args.engine, context=args.context, tensor_parallel=args.tensor_parallel,
                      pipeline_parallel=args.pipeline_parallel, **_weights_json(cfg, args.weight_format))
    else:
        result.update(zero_stage=args.zero_stage, seq_len=args.seq_len, **offload_json(cfg, args, size))
        if args.task != "full":
            result.update(rank=args.rank, targets=args.targets)
    text = f"{_TASK_NAMES[args.task]}, {where}\n" + _table(("part", "bytes", "size"), rows)
    if args.task != "inference":
        text += offload_text(cfg, args, size, result)
    if args.task == "inference":
        text += _weights_note(cfg, args.weight_format)
    if args.gpu is not None:
        budget = args.gpu
        largest = largest_fitting(plan, budget, limit=limit)
        fits = chosen.fits(budget)
        result.update(gpu_bytes=budget, fits=fits, **{f"largest_{varied}": largest})
        found = f"{largest:,d}"
        if varied == "context" and trained is not None:
            capped = largest == limit == trained and trained < context_limit(cfg) and plan(trained + 1).fits(budget)
            beyond = largest > trained
            result.update(largest_context_stops_at_trained=capped, largest_context_beyond_trained=beyond)
            if capped:
                found += (f" (the {trained:,} positions the model was trained on; more fits in memory: "
                          "--beyond-trained-context searches past them)")
            elif beyond:
                found += f" (beyond the {trained:,} positions the model was trained on)"
        verdict = "fits" if fits else "does not fit"
        text += (f"\n\n{verdict} in {format_bytes(budget)} ({format_bytes(abs(budget - chosen.total))} "
                 f"{'to spare' if fits else 'over'}); largest {varied.replace('_', '-')} that fits: {found}")
        changes = [] if fits or (args.task != "inference" and args.offload) else _changes_that_fit(cfg, args, budget)
        result["changes_that_fit"] = [{"change": _change_flag(change), "setting": change.setting,
                                       "value": change.value, "total": change.plan.total,
                                       "gpu_bytes": change.gpu_bytes} for change in changes]
        if not fits:
            text += "\n\n" + _changes_text(changes)
    if args.task != "inference" and (run := costcli.report(cfg, args)) is not None:
        result["training_run"], run_text = run
        text += run_text
    if notes:
        text += "\n\n" + "\n".join(notes)
    return result, text


def _changes_that_fit(cfg: ModelConfig, args: argparse.Namespace, budget: int) -> list[FitChange]:
    """The planner's single changes that make this plan fit ``budget``, smallest first."""
    if args.task == "inference":
        if args.engine == "generate":
            return inference_changes_that_fit(cfg, budget, plan_generate, context=args.context, batch=args.batch,
                                              weight_format=args.weight_format, attention=args.attention)
        return inference_changes_that_fit(cfg, budget, context=args.context, batch=args.batch,
                                          weight_format=args.weight_format, kv_format=args.kv_format,
                                          tensor_parallel=args.tensor_parallel,
                                          pipeline_parallel=args.pipeline_parallel)
    return training_changes_that_fit(
        cfg, budget, task=args.task, seq_len=args.seq_len, micro_batch=args.micro_batch, optimizer=args.optimizer,
        checkpointing=args.checkpointing, zero_stage=args.zero_stage, n_gpus=args.gpus,
        rank=getattr(args, "rank", 16), targets=getattr(args, "targets", ALL_LINEAR),
        precision=getattr(args, "precision", PRECISIONS[0]),
        qlora_preparation=getattr(args, "qlora_preparation", QLORA_PREPARATIONS[0]),
        lora_dropout=getattr(args, "lora_dropout", 0.0), adapter_dtype=getattr(args, "adapter_dtype", "fp32"))


def _change_flag(change: FitChange) -> str:
    """The plan option that makes ``change``, as typed: ``--checkpointing``, ``--seq-len 1912``."""
    flag = "--" + change.setting.replace("_", "-")
    if change.value is True:
        return flag
    return f"{flag} {change.value}"


def _changes_text(changes: Sequence[FitChange]) -> str:
    if not changes:
        return ("no single change makes it fit (tried: checkpointing, a smaller micro-batch or batch, a shorter "
                "sequence or context, 8-bit optimizer states, a quantized format, a larger tensor-parallel size or "
                "a higher ZeRO stage on several GPUs, a bigger listed card)")
    rows = [(_change_flag(change), f"{change.plan.total:,d}", format_bytes(change.plan.total),
             f"{format_bytes(change.gpu_bytes - change.plan.total)} to spare in {format_bytes(change.gpu_bytes)}")
            for change in changes]
    return (f"it fits with one change; the smallest: {_change_flag(changes[0])}\n"
            + _table(("change", "bytes", "size", "fits"), rows))


def _gpu_argument(text: str) -> str:
    """The text of ``--gpu`` once :func:`gpu_memory` reads it: :func:`main` still needs the card it names."""
    if text.strip(" ").lower() == "all":
        return "all"
    try:
        gpu_memory(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _gpu_total(text: str) -> tuple[dict[str, Any], str]:
    """Which total ``--gpu`` gave, for the result and a line of text: a listed card's process total, or as typed."""
    card, mac = listed_card(text), unified_memory(text)
    if mac is not None:
        return unified_memory_total(mac)
    if card is None:
        return ({"source": "typed"}, f"GPU memory: {format_bytes(gpu_memory(text))} as given; plans need the total "
                "a process sees (torch.cuda.mem_get_info, vLLM's total_gpu_memory), below nvidia-smi's memory.total")
    result = {"source": "estimate" if card.estimated else "process", "card": card.key,
              "reported_mib": card.reported_mib, "tool": card.tool, "process_source": card.process_source}
    if card.estimated:
        over, under = PROCESS_ESTIMATE_ERROR_MIB
        return result, (f"GPU memory: {card.name}, {card.reported_mib - PROCESS_ESTIMATE_MIB:,} MiB, an estimate of "
                        f"the total a process sees: {card.tool}'s {card.reported_mib:,} MiB less "
                        f"{PROCESS_ESTIMATE_MIB} MiB, the largest gap published for a listed card (no published log "
                        f"prints this card's); on the listed cards with a published total, each left out in turn, "
                        f"the rule is {over} MiB over to {under} MiB under")
    return result, (f"GPU memory: {card.name}, {card.process_gib} GiB, the total a process sees, as "
                    f"{card.process_source} prints it ({card.tool} reports {card.reported_mib:,} MiB)")


def _presets() -> tuple[dict[str, Any], str]:
    result = {name: param_count(cfg) for name, cfg in PRESETS.items()}
    rows = [(name, f"{param_count(cfg):,d}", format_count(param_count(cfg)), str(cfg.n_layers), str(cfg.d_model),
             f"{cfg.n_heads}/{cfg.n_kv_heads}") for name, cfg in PRESETS.items()]
    return result, _table(("preset", "parameters", "short", "layers", "d_model", "heads/kv"), rows)


_COMMANDS: dict[str, Callable[[ModelConfig, argparse.Namespace], tuple[dict[str, Any], str]]] = {
    "params": _params, "memory": _memory, "kv-cache": _kv_cache, "lora": _lora, "plan": _plan,
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with a sub-command per figure."""
    formatter = argparse.ArgumentDefaultsHelpFormatter
    parser = OneLineArgumentParser(prog="llmcalc", description="Exact LLM parameter and memory figures.",
                                     formatter_class=formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str) -> argparse.ArgumentParser:
        cmd = sub.add_parser(name, help=text, description=text, formatter_class=formatter)
        cmd.add_argument("--json", action="store_true", help="print the result as JSON")
        return cmd

    command("presets", "list the built-in models")
    _add_model_arguments(command("params", "parameter count by component (exact, as transformers builds the model)"))
    memory = command("memory", "weight bytes per number format and training-state bytes (no activations)")
    _add_model_arguments(memory)
    memory.add_argument("--dtype", nargs="+", choices=list(DTYPE_BITS), default=list(DTYPE_BITS),
                        help="number formats of the weights")
    memory.add_argument("--optimizer", choices=list(OPTIMIZER_STATES), default="adamw",
                        help="optimizer whose state is counted")
    memory.add_argument("--precision", choices=list(PRECISION_BYTES), default="mixed",
                        help="mixed: 16-bit weights and gradients, fp32 master weights and states")
    kv = command("kv-cache", "KV-cache bytes for some context lengths")
    _add_model_arguments(kv)
    kv.add_argument("--tokens", nargs="+", type=tokens, default=[2048, 4096, 8192, 32768, 131072], metavar="N",
                    help=_TOKENS_HELP)
    kv.add_argument("--batch", type=whole_number, default=1, metavar="N", help="sequences held at once")
    kv.add_argument("--dtype", choices=list(DTYPE_BITS), default="bf16", help="number format of the cache")
    lora = command("lora", "trainable LoRA parameters for some ranks, as peft counts them")
    _add_model_arguments(lora)
    lora.add_argument("--rank", nargs="+", type=whole_number, default=[4, 8, 16, 32, 64], metavar="R",
                      help="LoRA ranks")
    targets_help = ("module names as peft matches them (q_proj, query_key_value, c_attn ...), the roles "
                    f"q k v o gate up down, or {ALL_LINEAR}")
    targets_default = (f"peft {PEFT_VERSION}'s default for the model type (q_proj v_proj for Llama, Mistral, Qwen, "
                       "Gemma; query_key_value for Falcon and GPT-NeoX; c_attn for GPT-2; q_proj v_proj fc1 fc2 for "
                       "Phi); refused, with the adaptable modules listed, where peft has none")
    lora.add_argument("--targets", nargs="+", default=argparse.SUPPRESS, metavar="NAME",
                      help=f"{targets_help} (default: {targets_default})")
    plan = command("plan", "GPU memory of inference or a training step, by part, and whether it fits a GPU")
    _add_model_arguments(plan)
    plan.add_argument("--task", choices=TASKS, default="inference", help="what the GPU does")
    cards = ", ".join(card.key for card in CARDS)
    plan.add_argument("--gpu", type=_gpu_argument, metavar="SIZE",
                      help="GPU memory: GiB (22.49), a number with MiB, GiB or GB = 10^9 bytes (23034MiB, 24GB), or "
                      f"a listed card at the total a process sees on it ({cards}); say whether the plan fits, and the "
                      "longest context (inference) or largest micro-batch (training) that does; all: every listed "
                      "card at 1, 2, 4 and 8 GPUs, ranked")
    # SUPPRESS: an option the user did not give stays absent, so one given for another task can be told apart.
    hidden = argparse.SUPPRESS
    plan.add_argument("--weight-format", choices=WEIGHT_FORMATS, default=hidden,
                      help="inference: how the weights are stored (default: bf16)")
    plan.add_argument("--kv-format", choices=KV_FORMATS, default=hidden,
                      help="inference: number format of the KV cache (default: bf16)")
    plan.add_argument("--context", type=tokens, default=hidden, metavar="N",
                      help=f"inference: tokens per sequence (default: {DEFAULT_CONTEXT}, or the model's trained "
                      "context if shorter)")
    plan.add_argument("--batch", type=whole_number, default=hidden, metavar="N",
                      help="inference: sequences held at once (default: 1)")
    plan.add_argument("--beyond-trained-context", action="store_true", default=hidden,
                      help="inference: search for the longest context past the positions the model was trained on")
    plan.add_argument("--engine", choices=ENGINES, default=hidden,
                      help="inference: sum (weights, KV cache and reserve), generate (transformers' generate, with "
                      "the prefill's peak) or vllm (vLLM's start-up KV-cache pool) (default: sum)")
    plan.add_argument("--attention", choices=ATTENTIONS, default=hidden,
                      help="inference with --engine generate: attention implementation (default: sdpa)")
    plan.add_argument("--vllm-version", choices=tuple(VLLM_VERSIONS), default=hidden,
                      help="inference with --engine vllm: the vLLM release planned, before 0.20 (0.9 of the card, "
                      "CUDA graphs captured outside the pool), 0.20 to 0.33 (0.92, graphs taken from the pool) or "
                      "0.34 and later (the extensible KV cache: all of the card, sized after the graphs are captured, "
                      "blocks of 64 tokens; read in the 0.34.0 source, not checked against a start-up log) "
                      "(default: before-0.20)")
    plan.add_argument("--sampler-filter", choices=VLLM_SAMPLER_FILTERS, default=hidden,
                      help="inference with --engine vllm: how the sampler's warm-up applies top-k and top-p: sort "
                      "(PyTorch's sort, vLLM up to 0.16) or triton (in place, no sort: vLLM 0.17 and later, from "
                      "pull request 33538; 0.17 to 0.19 are --vllm-version before-0.20 with --sampler-filter triton) "
                      "(default: sort with --vllm-version before-0.20, triton with 0.20+ and 0.34+)")
    plan.add_argument("--gpu-memory-utilization", type=real_number, default=hidden, metavar="F",
                      help="inference with --engine vllm: share of the card vLLM plans with (default: 0.9 with "
                      "--vllm-version before-0.20, 0.92 with 0.20+, 1 with 0.34+)")
    plan.add_argument("--max-num-batched-tokens", type=whole_number, default=hidden, metavar="N",
                      help="inference with --engine vllm: tokens of vLLM's profile pass, as it prints them "
                      f"(default: {VLLM_MAX_NUM_BATCHED_TOKENS:,})")
    plan.add_argument("--max-num-seqs", type=whole_number, default=hidden, metavar="N",
                      help="inference with --engine vllm: vLLM's max_num_seqs, the sequences its sampler warms up "
                      f"with (default: {VLLM_MAX_NUM_SEQS})")
    plan.add_argument("--non-torch-gib", type=real_number, default=hidden, metavar="GIB",
                      help="inference with --engine vllm: memory outside PyTorch on each GPU, as vLLM prints "
                      "'non_torch_memory' (default: 0.35, one GPU's)")
    plan.add_argument("--cuda-graphs-mib", type=whole_number, default=hidden, metavar="N",
                      help="inference with --engine vllm --vllm-version 0.20+ or 0.34+: MiB of CUDA graphs vLLM "
                      "takes from the KV-cache pool, as its log prints 'Estimated CUDA graph memory' (default: 0, "
                      "none counted: no shape tells their size)")
    plan.add_argument("--startup-used-gib", type=real_number, default=hidden, metavar="GIB",
                      help="inference with --engine vllm --vllm-version 0.34+: GiB in use on each GPU when vLLM "
                      "starts (its CUDA context, other processes), the total less the free memory its log prints "
                      "in 'Free memory on device (free/total GiB) on startup' (default: 0, none counted)")
    plan.add_argument("--concurrency", type=whole_number, default=hidden, metavar="N",
                      help="inference with --engine vllm --gpu all: requests of --context tokens the pool must hold "
                      "at once for a card to count as fitting (default: 1, vLLM starts)")
    plan.add_argument("--prompt-tokens", type=tokens, default=hidden, metavar="N",
                      help="inference with --engine vllm --gpu all: tokens of each request's prompt; with "
                      "--generated-tokens (at most --context together) each card's row gets vLLM's estimated speed "
                      "(default: none, memory only)")
    plan.add_argument("--generated-tokens", type=tokens, default=hidden, metavar="N",
                      help="inference with --engine vllm --gpu all: tokens each request generates, at least 2 "
                      "(default: none, memory only)")
    plan.add_argument("--price", action="append", default=hidden, metavar="CARD=PRICE",
                      help="inference with --engine vllm --gpu all: what one GPU-hour of a listed card costs you, any "
                      "currency (none is shipped: prices date); repeat for each card; gives its cost per million "
                      "output tokens")
    plan.add_argument("--sort", choices=SORTS, default=hidden,
                      help="inference with --engine vllm --gpu all: fit (fits first, fewest GPUs, least memory) or "
                      "cost (lowest cost per million output tokens at your prices first) (default: fit)")
    plan.add_argument("--seq-len", type=tokens, default=hidden, metavar="N",
                      help=f"training: tokens per sequence (default: {DEFAULT_SEQ_LEN}, or the model's trained "
                      "context if shorter: 1024 for GPT-2)")
    plan.add_argument("--micro-batch", type=whole_number, default=hidden, metavar="N",
                      help="training: sequences per step and GPU (default: 1)")
    plan.add_argument("--optimizer", choices=OPTIMIZERS, default=hidden,
                      help="training: the optimizer: adamw (PyTorch's, states in the parameters' dtype), "
                      "adamw-8bit and adamw-32bit (bitsandbytes', paged or not; fp32 states), sgd-momentum "
                      "(default: adamw; LoRA and QLoRA: the set-up's)")
    plan.add_argument("--checkpointing", action=argparse.BooleanOptionalAction, default=hidden,
                      help="training: activation checkpointing (default: off; LoRA and QLoRA: the set-up's)")
    setups = ", ".join(f"{setup.key} ({setup.label})" for setup in SETUPS)
    plan.add_argument("--setup", choices=[setup.key for setup in SETUPS] + list(UNMODELLED_SETUPS), default=hidden,
                      help=f"LoRA and QLoRA: the trainer whose set-up the plan assumes, as its code configures it: "
                      f"{setups}; its preparation of a QLoRA base, adapter dtype, optimizer, checkpointing and, "
                      f"where it sets them, LoRA rank, targets and dropout are the defaults of those options "
                      f"(default: {DEFAULT_SETUP}; unsloth is refused: not modelled)")
    plan.add_argument("--adapter-dtype", choices=ADAPTER_DTYPES, default=hidden,
                      help="LoRA and QLoRA: fp32 (peft's autocast_adapter_dtype) or bf16 (TRL's SFTTrainer on a "
                      "quantized base, the QLoRA script) (default: the set-up's)")
    plan.add_argument("--tensor-parallel", type=whole_number, default=hidden, metavar="N",
                      help="inference with --engine sum or vllm: vLLM's tensor_parallel_size, GPUs that split each "
                      "layer; the plan is one GPU's (default: 1)")
    plan.add_argument("--pipeline-parallel", type=whole_number, default=hidden, metavar="N",
                      help="inference with --engine sum: vLLM's pipeline_parallel_size, stages of consecutive "
                      "layers; the plan is the busiest GPU's (default: 1)")
    plan.add_argument("--zero-stage", type=whole_number, choices=range(4), default=hidden,
                      help="training: ZeRO stage; 3 is also FSDP's full shard (default: 0)")
    plan.add_argument("--offload", choices=OFFLOADS, default=hidden,
                      help="training: CPU offload, fsdp (PyTorch FSDP's CPUOffload, with --zero-stage 3) or zero "
                      "(DeepSpeed ZeRO-Offload, stage 1 to 3); the plan adds the host RAM it needs (default: none)")
    plan.add_argument("--gpus", type=whole_number, default=hidden, metavar="N",
                      help="training: data-parallel GPUs that ZeRO shards over (default: 1)")
    plan.add_argument("--rank", type=whole_number, default=hidden, metavar="R",
                      help="LoRA and QLoRA: adapter rank (default: the set-up's, else 16)")
    plan.add_argument("--targets", nargs="+", default=hidden, metavar="NAME",
                      help=f"LoRA and QLoRA: {targets_help} (default: the set-up's, else {targets_default})")
    plan.add_argument("--precision", choices=PRECISIONS, default=hidden,
                      help="full fine-tuning: bf16 (transformers 5 loads bf16 checkpoints in bf16, torch AdamW keeps "
                      "bf16 states: 8 bytes a parameter), amp (PyTorch AMP, fp32 model: 16) or mixed "
                      "(DeepSpeed/Megatron, bf16 weights and gradients with fp32 master and states: 16) "
                      f"(default: {PRECISIONS[0]})")
    plan.add_argument("--qlora-preparation", choices=QLORA_PREPARATIONS, default=hidden,
                      help="QLoRA: kbit (peft's prepare_model_for_kbit_training: embedding, head and norms in "
                      "fp32), none (left in 16 bits) or norms (the QLoRA script's: fp32 norms only) "
                      "(default: the set-up's)")
    plan.add_argument("--lora-dropout", type=real_number, default=hidden, metavar="P",
                      help="LoRA and QLoRA: peft's lora_dropout in [0, 1); above 0 each adapter keeps its "
                      "dropped-out input and mask (default: the set-up's, else 0, peft's)")
    costcli.add_arguments(plan, hidden, real_number)
    gguf_plan = command("gguf", "GPU memory of a llama.cpp run: a .gguf file's tensors (header only) or a "
                        "preset as a llama-quantize recipe, the KV cache in its cache type, a measured compute buffer")
    gguf.add_cli_arguments(gguf_plan)
    gguf_plan.add_argument("--gpu", type=_gpu_argument, metavar="SIZE",
                           help="GPU memory, as for plan --gpu, or a Mac's unified memory at the share Metal gives one "
                           f"process ({', '.join(mac.key for mac in UNIFIED_MEMORY)})")
    speed.add_cli_arguments(command("speed", "how fast llama.cpp (one sequence) or vLLM (a batch) decodes and reaches "
                                    "the first token on a card: an "
                                    "estimate from the roofline and published runs, and the cost per million output "
                                    "tokens at your price"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status (2 for bad input, like argparse)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        gpu_text = getattr(args, "gpu", None)
        args.gpu_key = gpu_text  # a training run's peak comes from the card this names
        if gpu_text is not None and gpu_text != "all":
            args.gpu = gpu_memory(gpu_text)
            if args.command == "plan":
                refuse_plan_on_unified_memory(gpu_text)
        if args.command == "presets":
            result, text = _presets()
        elif args.command == "gguf":
            result, text = gguf.run_cli(args, args.gpu)
        elif args.command == "speed":
            result, text = speed.run_cli(args)
        else:
            if args.command == "plan":
                _plan_options(args)
            label, cfg, base = _resolve_model(args)
            if args.command == "plan":
                _checkpoint_weights(args, label)
            check.count("batch", getattr(args, "batch", 1))
            result, text = _COMMANDS[args.command](cfg, args)
            result = {"model": label, "config": {k: int(v) if isinstance(v, Derived) else v
                                                 for k, v in dataclasses.asdict(cfg).items()}, **result}
            text = f"{label}: " + " ".join(_config_lines(cfg, base)) + "\n\n" + text
        if gpu_text is not None and gpu_text != "all":
            result["gpu_total"], line = _gpu_total(gpu_text)
            text += "\n\n" + line
    except (ValueError, TypeError) as error:
        parser.exit(2, f"{parser.prog} {args.command}: error: {error}\n")
    try:
        print(json.dumps(result, indent=2) if args.json else text, flush=True)
    except BrokenPipeError:
        # The reader closed the pipe (``llmcalc ... | head``): end quietly, as Python's documentation advises.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
