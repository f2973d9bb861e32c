"""Command-line interface: ``llmcalc params|memory|kv-cache|lora|presets``.

A model is a preset (``--preset llama-2-7b``), explicit flags
(``--vocab-size 32000 --d-model 4096 ...``), or a preset with some fields
overridden.  Output is a plain-text table.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence

from .config import FFN_KINDS, NORM_KINDS, ModelConfig
from .fmt import format_bytes, format_count
from .lora import ALL_LINEAR, TARGETS, lora_model_params, lora_model_share
from .memory import DTYPE_BITS, OPTIMIZERS, PRECISIONS, kv_cache_bytes, training_memory, weight_bytes
from .params import active_param_count, param_breakdown, param_count
from .presets import PRESETS, get_preset

_INT_FIELDS = ("vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "head_dim", "d_ff",
               "n_experts", "experts_per_token", "norms_per_layer", "learned_positions")
_BOOL_FIELDS = ("tie_embeddings", "qkv_bias", "out_bias", "mlp_bias", "lm_head_bias")
_REQUIRED = ("vocab_size", "d_model", "n_layers", "n_heads", "d_ff")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-align the first column, right-align the others."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [str(cells[0]).ljust(widths[0])] + [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])


def _add_model_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model (a preset, explicit fields, or a preset with overrides)")
    group.add_argument("--preset", choices=list(PRESETS), help="start from a known model")
    for field in _INT_FIELDS:
        group.add_argument(f"--{field.replace('_', '-')}", type=int, metavar="N")
    group.add_argument("--ffn", choices=FFN_KINDS)
    group.add_argument("--norm", choices=NORM_KINDS)
    for field in _BOOL_FIELDS:
        group.add_argument(f"--{field.replace('_', '-')}", action=argparse.BooleanOptionalAction, default=None)


def _model_from_args(args: argparse.Namespace) -> tuple[str, ModelConfig]:
    overrides = {
        field: getattr(args, field)
        for field in (*_INT_FIELDS, *_BOOL_FIELDS, "ffn", "norm")
        if getattr(args, field) is not None
    }
    if args.preset:
        base = get_preset(args.preset)
        if "n_heads" in overrides or "d_model" in overrides:
            # Re-derive head sizes from the new shape unless given explicitly.
            overrides.setdefault("head_dim", None)
            overrides.setdefault("n_kv_heads", None if "n_heads" in overrides else base.n_kv_heads)
        label = args.preset + (" (modified)" if overrides else "")
        return label, dataclasses.replace(base, **overrides)
    missing = [f"--{field.replace('_', '-')}" for field in _REQUIRED if field not in overrides]
    if missing:
        raise ValueError(f"give --preset NAME or all of {', '.join(missing)}")
    return "custom model", ModelConfig(**overrides)


def _cmd_params(label: str, cfg: ModelConfig, args: argparse.Namespace) -> str:
    total = param_count(cfg)
    parts = param_breakdown(cfg)
    rows = [(name, f"{count:,d}", f"{100 * count / total:.2f}%") for name, count in parts.items()]
    rows.append(("total", f"{total:,d}", format_count(total)))
    if cfg.is_moe:
        active = active_param_count(cfg)
        rows.append(("active per token", f"{active:,d}", format_count(active)))
    return f"Parameters of {label}\n" + _table(("component", "parameters", "share"), rows)


def _cmd_memory(label: str, cfg: ModelConfig, args: argparse.Namespace) -> str:
    total = param_count(cfg)
    weights = _table(
        ("dtype", "bytes", "size"),
        [(dtype, f"{weight_bytes(total, dtype):,d}", format_bytes(weight_bytes(total, dtype))) for dtype in args.dtype],
    )
    parts = training_memory(total, args.optimizer, args.precision)
    training_rows = [(name.replace("_", " "), f"{value:,d}", format_bytes(value)) for name, value in parts.items()]
    training_rows.append(("total", f"{sum(parts.values()):,d}", format_bytes(sum(parts.values()))))
    return (
        f"Weights of {label} ({total:,d} parameters; no quantization scales, KV cache or activations)\n"
        f"{weights}\n\n"
        f"Training state, {args.optimizer} with {args.precision} precision (activations not included)\n"
        + _table(("part", "bytes", "size"), training_rows)
    )


def _cmd_kv_cache(label: str, cfg: ModelConfig, args: argparse.Namespace) -> str:
    rows = []
    for tokens in args.tokens:
        size = kv_cache_bytes(cfg, tokens, batch=args.batch, dtype=args.dtype)
        rows.append((f"{tokens:,d}", f"{size:,d}", format_bytes(size)))
    return (
        f"KV cache of {label}: 2 x {cfg.n_layers} layers x {cfg.n_kv_heads} KV heads x {cfg.head_dim} dims"
        f" x {args.dtype}, batch {args.batch}\n" + _table(("tokens", "bytes", "size"), rows)
    )


def _cmd_lora(label: str, cfg: ModelConfig, args: argparse.Namespace) -> str:
    targets = ALL_LINEAR if args.targets == [ALL_LINEAR] else tuple(args.targets)
    rows = []
    for rank in args.rank:
        count = lora_model_params(cfg, rank, targets)
        rows.append((str(rank), f"{count:,d}", f"{100 * lora_model_share(cfg, rank, targets):.3f}%"))
    shown = targets if isinstance(targets, str) else ",".join(targets)
    return f"LoRA on {label}, targets {shown}\n" + _table(("rank", "trainable", "of model"), rows)


def _cmd_presets(args: argparse.Namespace) -> str:
    rows = [
        (name, f"{param_count(cfg):,d}", format_count(param_count(cfg)), str(cfg.n_layers), str(cfg.d_model),
         f"{cfg.n_heads}/{cfg.n_kv_heads}")
        for name, cfg in PRESETS.items()
    ]
    return _table(("preset", "parameters", "short", "layers", "d_model", "heads/kv"), rows)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llmcalc", description="Exact LLM parameter and memory figures.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sub.add_parser("presets", help="list the built-in models")

    params = sub.add_parser("params", help="parameter count by component")
    _add_model_arguments(params)

    memory = sub.add_parser("memory", help="weight memory per dtype and training-state memory")
    _add_model_arguments(memory)
    memory.add_argument("--dtype", nargs="+", choices=list(DTYPE_BITS), default=list(DTYPE_BITS))
    memory.add_argument("--optimizer", choices=list(OPTIMIZERS), default="adamw")
    memory.add_argument("--precision", choices=list(PRECISIONS), default="mixed")

    kv = sub.add_parser("kv-cache", help="KV-cache size for some context lengths")
    _add_model_arguments(kv)
    kv.add_argument("--tokens", nargs="+", type=int, default=[2048, 4096, 8192, 32768, 131072], metavar="N")
    kv.add_argument("--batch", type=int, default=1, metavar="N")
    kv.add_argument("--dtype", choices=list(DTYPE_BITS), default="bf16")

    lora = sub.add_parser("lora", help="trainable LoRA parameters for some ranks")
    _add_model_arguments(lora)
    lora.add_argument("--rank", nargs="+", type=int, default=[4, 8, 16, 32, 64], metavar="R")
    lora.add_argument("--targets", nargs="+", choices=[*TARGETS, ALL_LINEAR], default=["q", "v"])
    return parser


_COMMANDS = {"params": _cmd_params, "memory": _cmd_memory, "kv-cache": _cmd_kv_cache, "lora": _cmd_lora}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status (2 for bad input, like argparse)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "presets":
            output = _cmd_presets(args)
        else:
            label, cfg = _model_from_args(args)
            output = _COMMANDS[args.command](label, cfg, args)
    except (ValueError, TypeError) as error:
        parser.exit(2, f"{parser.prog} {args.command}: error: {error}\n")
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
