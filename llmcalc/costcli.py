"""``llmcalc plan --task full|lora|qlora --train-tokens N``: the training run's time and price, for the CLI.

The run is :func:`llmcalc.runcost.training_run` on the plan's model, task, sequence length, LoRA settings and
data-parallel GPUs (``--gpus``); the peak is the ``--gpu`` card's dense BF16 datasheet figure
(``llmcalc.datasheets.bf16_flops``) unless ``--peak-tflops`` gives one.  Every plan multiplies in BF16: full
fine-tuning's ``bf16`` and ``mixed`` hold BF16 weights and ``amp`` is BF16 autocast (the planner's precisions,
``llmcalc.planner.PRECISIONS``), LoRA's base is BF16 and QLoRA computes in BF16.  So a card whose tensor cores have
no BF16 (the T4, the V100) is refused by name, since the planner has no FP16 precision.  The planner's widget
(``docs/_ext/llmglossary/static/plannercost.js``) prints the same figures.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .config import ModelConfig
from .datasheets import bf16_flops
from .errors import Refusal
from .lora import ALL_LINEAR
from .planner import listed_card
from .runcost import DEFAULT_MFU, training_flops_per_token, training_run

__all__ = ["OPTIONS", "add_arguments", "report", "share", "train_tokens"]

OPTIONS = ("train_tokens", "mfu", "price_per_gpu_hour", "peak_tflops")
"""The plan options of a training run, each a training option (``llmcalc.cli.PLAN_OPTIONS``)."""

MAX_POWER = 30  # 10**30 tokens is far past any run; a larger power would only make a huge integer
_COUNT = re.compile(r"\s*([0-9]+)(?:\.([0-9]+))?(?:[eE]([0-9]+))?\s*")


def train_tokens(text: str) -> int:
    """Parse a number of training tokens: digits, or a decimal with a power of ten that makes a whole number.

    >>> train_tokens("1000000"), train_tokens("2e12"), train_tokens("1.5e9")
    (1000000, 2000000000000, 1500000000)
    >>> train_tokens("1.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '1.5' is not a whole number of tokens (digits, or such as 2e12 or 1.5e9)
    """
    match = _COUNT.fullmatch(text)
    if match:
        whole, fraction, power = match.group(1), match.group(2) or "", int(match.group(3) or 0)
        if len(fraction) <= power <= MAX_POWER:
            scale: int = 10 ** (power - len(fraction))
            return int(whole + fraction) * scale
    raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens (digits, or such as 2e12 or 1.5e9)")


def share(value: float) -> str:
    """A share as the shortest decimal that reads back as the same float, without an exponent (JavaScript's String).

    >>> share(0.4), share(1.0), share(0.00005)
    ('0.4', '1', '0.00005')
    """
    return format(Decimal(repr(value)).normalize(), "f")


def add_arguments(plan: argparse.ArgumentParser, hidden: Any, real_number: Callable[[str], float]) -> None:
    """The plan command's training-run options.

    ``hidden`` is argparse's SUPPRESS, so that a given option is known; ``real_number`` the CLI's parser of a
    decimal number (``llmcalc.cli.real_number``).
    """
    plan.add_argument("--train-tokens", type=train_tokens, default=hidden, metavar="N",
                      help="training: tokens the run trains on, every epoch counted (such as 2e9); prints the run's "
                      "FLOPs, GPU-hours and wall time on --gpus GPUs, an estimate at --mfu")
    plan.add_argument("--mfu", type=real_number, default=hidden, metavar="F",
                      help=f"training with --train-tokens: the share of the card's peak the run reaches, in (0, 1] "
                      f"(default: {DEFAULT_MFU:g}, within the 38-43%% Llama 3 405B reached, Grattafiori et al. "
                      "2024, table 4)")
    plan.add_argument("--price-per-gpu-hour", type=real_number, default=hidden, metavar="P",
                      help="training with --train-tokens: your price of one GPU for an hour, in any currency; "
                      "prints the run's price (none is shipped: prices change)")
    plan.add_argument("--peak-tflops", type=real_number, default=hidden, metavar="T",
                      help="training with --train-tokens: one GPU's dense BF16 peak in TFLOPS (default: the --gpu "
                      "card's datasheet figure; needed on a card without BF16 tensor cores)")


def _peak(args: argparse.Namespace) -> tuple[float, str]:
    """One GPU's peak FLOPS and where it comes from: ``--peak-tflops`` or the ``--gpu`` card's datasheet."""
    if args.peak_tflops is not None:
        return args.peak_tflops * 1e12, "given"
    card = listed_card(args.gpu_key) if args.gpu_key is not None else None
    if card is None:
        raise ValueError("--train-tokens needs one GPU's peak FLOPS: give --gpu as a listed card (its datasheet "
                         "gives the peak) or --peak-tflops")
    try:
        return float(bf16_flops(card.key)), card.key
    except Refusal as error:
        if error.code != "no_bf16_tensor_cores":
            raise ValueError(f"{error}; give --peak-tflops") from None
        precision = (getattr(args, "precision", None) or "bf16") if args.task == "full" else "bf16"
        raise ValueError(f"the {card.name} has no BF16 tensor cores (compute capability below 8.0), and this plan "
                         f"multiplies in BF16 (precision {precision}); its datasheet's {error.params['tflops']:g} "
                         "TFLOPS are its FP16 rate, and the planner has no FP16 precision: give --peak-tflops "
                         f"({error.params['tflops']:g} for a run in FP16)") from None


def report(cfg: ModelConfig, args: argparse.Namespace) -> tuple[dict[str, Any], str] | None:
    """The run's figures (for ``--json``) and its lines of text, or ``None`` without ``--train-tokens``."""
    if args.train_tokens is None:
        given = [name for name in OPTIONS if name in args.given_options]
        if given:
            raise ValueError(f"{', '.join('--' + name.replace('_', '-') for name in given)} "
                             f"{'applies' if len(given) == 1 else 'apply'} with --train-tokens")
        return None
    peak, peak_source = _peak(args)
    lora = {"rank": args.rank, "targets": args.targets} if args.task != "full" else {"targets": ALL_LINEAR}
    run = training_run(cfg, train_tokens=args.train_tokens, seq_len=args.seq_len, n_gpus=args.gpus, peak_flops=peak,
                       mfu=args.mfu, task=args.task, price_per_gpu_hour=args.price_per_gpu_hour, **lora)
    per_token = training_flops_per_token(cfg, seq_len=args.seq_len, task=args.task, **lora)
    result: dict[str, Any] = {
        "train_tokens": args.train_tokens, "flops_per_token": per_token, "flops": run.flops, "n_gpus": run.n_gpus,
        "peak_flops": peak, "peak_source": peak_source,
        "peak_dtype": None if peak_source == "given" else "bf16", "mfu": run.mfu, "gpu_hours": run.gpu_hours,
        "wall_hours": run.wall_hours, "price_per_gpu_hour": run.price_per_gpu_hour, "price": run.price}
    counted = "6N" if args.task == "full" else "4N + 6 x adapters"
    source = "as given" if peak_source == "given" else "its datasheet's dense BF16"
    text = (f"\n\ntraining run of {args.train_tokens:,} tokens: {per_token:,} FLOPs per token ({counted} + attention "
            f"at {args.seq_len:,} tokens), {run.flops:.2e} FLOPs\n"
            f"on {run.n_gpus:,} GPU(s) of {peak / 1e12:,.1f} TFLOPS ({source}) at MFU {share(run.mfu)}: "
            f"{run.gpu_hours:,.2f} GPU-hours, {run.wall_hours:,.2f} hours from start to end")
    if run.price is not None:
        text += f"; at {run.price_per_gpu_hour:,.2f} per GPU-hour: {run.price:,.2f}"
    text += ("\nnote: an estimate: the FLOPs are counted, the MFU is assumed; at an MFU of 0.4 it predicts the "
             "GPU-hours of 12 published runs with a median error of 22% (page 19, 'What a training run takes')")
    return result, text
