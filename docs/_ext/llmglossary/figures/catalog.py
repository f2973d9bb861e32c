"""Every drawn figure: its labels, its numbers (from llmcalc or the page's example) and how it is drawn.

Each :class:`Figure` says which label keys the page must give (besides ``alt`` and
``table``), the rows of its data table, computed here and nowhere else, and a function that
draws exactly those numbers on a matplotlib figure with the page's labels.  The table is
what a reader without the picture gets, and what ``tests/test_figures.py`` checks against
llmcalc and the examples on the pages.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

import llmcalc as lc
from llmcalc.teach.attention import scaled_dot_product_attention, softmax
from llmcalc.teach.loss import cross_entropy
from llmcalc.teach.numerics import float_limits
from llmcalc.teach.quant import absmax_quantize
from llmcalc.teach.sampling import top_p_filter
from llmcalc.teach.tokenize import bpe_encode, bpe_train

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as Canvas
    from matplotlib.patches import Rectangle


@dataclass(frozen=True)
class Label:
    """A table cell that shows one of the figure's labels (translated), not a number."""

    key: str


Cell = int | float | str | Label
# A row's cells are of mixed kinds, as a table's are; the drawings hand them to matplotlib as they are.
Rows = tuple[tuple[Any, ...], ...]
Format = Callable[[int | float], str]
Draw = Callable[["Canvas", dict[str, str], Format], None]

FIXED_LABELS = ("alt", "table")
"""Every figure's labels: its text alternative and the title of its data table."""


@dataclass(frozen=True)
class Figure:
    """One figure: the labels it needs, its table's columns (label keys) and rows, and its drawing."""

    labels: tuple[str, ...]
    columns: tuple[str, ...]
    rows: Callable[[], Rows]
    draw: Draw
    size: tuple[float, float] = field(default=(6.4, 3.2))

    def table(self) -> Rows:
        return _rows(self.rows)


@cache
def _rows(rows: Callable[[], Rows]) -> Rows:
    return rows()


def num(cell: Cell) -> float:
    """A number cell as a float (a table's text and label cells are never drawn as numbers)."""
    if isinstance(cell, int | float):
        return float(cell)
    raise TypeError(f"a number was expected in the figure's table; got {cell!r}")


def whole(cell: Cell) -> int:
    """A count cell as an int."""
    if isinstance(cell, int):
        return cell
    raise TypeError(f"a whole number was expected in the figure's table; got {cell!r}")


def label_keys(name: str) -> tuple[str, ...]:
    """The keys figure ``name``'s label list must give, each once."""
    return FIXED_LABELS + FIGURES[name].labels


def axes(canvas: Canvas) -> Axes:
    ax: Axes = canvas.add_subplot()
    ax.grid(alpha=0.3)
    return ax


def plot_columns(ax: Axes, rows: Rows, labels: dict[str, str], series: tuple[tuple[int, str, str], ...]) -> None:
    """One line per ``(column, style, label key)``: that column of ``rows`` against their first."""
    xs = [row[0] for row in rows]
    for column, style, key in series:
        ax.plot(xs, [row[column] for row in rows], style, label=labels[key])


def thousands(fmt: Format) -> Callable[[float, float], str]:
    """A tick formatter writing numbers as the page's language does."""
    return lambda value, _position: fmt(int(value) if float(value).is_integer() else value)


SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def plain_log_ticks(ax: Axes, fmt: Format, *axis_names: str, powers: bool = False) -> None:
    """Label a logarithmic axis's decades as plain text (1, 10, 1,000 or 10⁹), not as math.

    Plain text is what the page's language formats and the browser sets; matplotlib's own
    log labels are mathtext, which costs most of a log plot's drawing time.
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def label(value: float, _position: float) -> str:
        if powers:
            return "10" + str(round(math.log10(value))).translate(SUPERSCRIPTS)
        return fmt(int(value) if value >= 1 else value)

    for name in axis_names:
        axis = ax.xaxis if name == "x" else ax.yaxis
        axis.set_major_formatter(FuncFormatter(label))
        axis.set_minor_formatter(NullFormatter())


# -- Page 04: the learning-rate schedule and warmup (the page's example values) ------------------------

PEAK_LR, TOTAL_STEPS, WARMUP_STEPS = 3e-4, 1_000, 100


def cosine_rows() -> Rows:
    steps = (0, 250, 500, 750, 1000)
    return tuple((step, f"{PEAK_LR * (1 + math.cos(math.pi * step / TOTAL_STEPS)) / 2:.2e}") for step in steps)


def draw_cosine(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    steps = np.linspace(0, TOTAL_STEPS, 201)
    ax.plot(steps, PEAK_LR * (1 + np.cos(np.pi * steps / TOTAL_STEPS)) / 2)
    table = cosine_rows()
    ax.plot([row[0] for row in table], [float(str(row[1])) for row in table], "o")
    ax.set(xlabel=labels["step"], ylabel=labels["lr"], ylim=(0, PEAK_LR * 1.05))
    ax.xaxis.set_major_formatter(thousands(fmt))
    ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 0))


def warmup_rows() -> Rows:
    return tuple((step, f"{PEAK_LR * min(1, step / WARMUP_STEPS):.2e}") for step in (0, 50, 100, 200))


def draw_warmup(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    steps = np.arange(0, 201)
    ax.plot(steps, PEAK_LR * np.minimum(1, steps / WARMUP_STEPS))
    ax.plot([row[0] for row in warmup_rows()], [float(str(row[1])) for row in warmup_rows()], "o")
    ax.axvspan(0, WARMUP_STEPS, alpha=0.12, color="#E69F00")
    ax.text(WARMUP_STEPS / 2, PEAK_LR * 0.5, labels["warmup"], ha="center")
    ax.set(xlabel=labels["step"], ylabel=labels["lr"], ylim=(0, PEAK_LR * 1.1))
    ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 0))


# -- Page 05: the causal mask, temperature, the KV cache -------------------------------------------------


def causal_weights() -> np.ndarray:
    """The attention weights of page 05's causal-mask example."""
    q = np.array([[2.0, 0, 0, 0], [0, 2, 0, 0], [2, 2, 0, 0], [0, 0, 2, 2]])
    k = np.array([[2.0, 0, 0, 0], [0, 2, 0, 0], [1, 1, 0, 0], [0, 0, 2, 0]])
    v = np.array([[10.0], [20.0], [30.0], [40.0]])
    _out, weights = scaled_dot_product_attention(q, k, v, causal=True)
    return weights


def causal_rows() -> Rows:
    weights = causal_weights()
    return tuple((i + 1, *(round(float(w), 2) if j <= i else Label("masked") for j, w in enumerate(weights[i])))
                 for i in range(len(weights)))


def draw_causal(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = canvas.add_subplot()
    weights = causal_weights()
    n = len(weights)
    shown = np.ma.masked_where(np.triu(np.ones((n, n), dtype=bool), k=1), weights)
    ax.imshow(shown, cmap="Blues", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            if j <= i:
                ax.text(j, i, fmt(round(float(weights[i, j]), 2)), ha="center", va="center",
                        color="white" if weights[i, j] > 0.5 else "black")
            else:
                ax.add_patch(_hatched_cell(j, i))
    ax.set_xticks(range(n), [str(j + 1) for j in range(n)])
    ax.set_yticks(range(n), [str(i + 1) for i in range(n)])
    ax.set(xlabel=labels["key"], ylabel=labels["query"])
    ax.text(n - 1, 0, labels["masked"], ha="center", va="center", fontsize=8)
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.xaxis.set_label_position("top")


def _hatched_cell(x: int, y: int) -> Rectangle:
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor="#eeeeee", edgecolor="#bbbbbb", hatch="//")


TEMPERATURES = (0.5, 1.0, 2.0)
TEMPERATURE_LOGITS = (2.0, 1.0, 0.0)


def temperature_rows() -> Rows:
    return tuple((t, *(round(float(p), 3) for p in softmax(np.array(TEMPERATURE_LOGITS), temperature=t)))
                 for t in TEMPERATURES)


def draw_temperature(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    width = 0.8 / len(TEMPERATURES)
    for index, row in enumerate(temperature_rows()):
        xs = np.arange(len(TEMPERATURE_LOGITS)) + (index - 1) * width
        ax.bar(xs, row[1:], width, label=labels["legend"].format(value=fmt(num(row[0]))))
    ax.set_xticks(range(3), [labels[f"token_{i}"] for i in (1, 2, 3)])
    ax.set(ylabel=labels["probability"], ylim=(0, 1))
    ax.legend(frameon=False)


KV_MODEL = replace(lc.REFERENCE, n_kv_heads=lc.REFERENCE.n_heads)  # page 05's model: one KV head per head
KV_CONTEXTS = (0, 1024, 2048, 4096, 8192)


def kv_rows() -> Rows:
    return tuple((tokens, lc.kv_cache_bytes(KV_MODEL, tokens, dtype="bf16") // lc.MiB if tokens else 0,
                  lc.kv_cache_bytes(KV_MODEL, tokens, batch=8, dtype="bf16") // lc.MiB if tokens else 0)
                 for tokens in KV_CONTEXTS)


def draw_kv(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    rows = kv_rows()
    plot_columns(ax, rows, labels, ((1, "o-", "batch_1"), (2, "s-", "batch_8")))
    for x, y in ((row[0], row[2]) for row in rows[-1:]):
        ax.annotate(fmt(num(y)), (x, y), textcoords="offset points", xytext=(-6, -14), ha="right")
    ax.set(xlabel=labels["tokens"], ylabel=labels["mib"])
    ax.xaxis.set_major_formatter(thousands(fmt))
    ax.yaxis.set_major_formatter(thousands(fmt))
    ax.legend(frameon=False)


# -- Page 06: grouped-query attention ------------------------------------------------------------------


def gqa_rows() -> Rows:
    cfg = lc.REFERENCE
    group = cfg.n_heads // cfg.n_kv_heads
    return tuple((head + 1, head // group + 1) for head in range(cfg.n_heads))


def draw_gqa(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import FancyBboxPatch

    ax = canvas.add_subplot()
    ax.set_axis_off()
    rows = gqa_rows()
    n_heads, n_kv = len(rows), max(row[1] for row in rows)
    kv_x = {kv: (kv - 0.5) * n_heads / n_kv - 0.5 for kv in range(1, n_kv + 1)}
    for head, kv in rows:
        x = head - 1
        colour = f"C{kv - 1}"
        ax.add_patch(FancyBboxPatch((x - 0.35, 1.6), 0.7, 0.6, boxstyle="round,pad=0.02", color=colour, alpha=0.8))
        ax.text(x, 1.9, fmt(whole(head)), ha="center", va="center", color="white")
        ax.plot([x, kv_x[kv]], [1.6, 0.6], color=colour, lw=1)
    for kv, x in kv_x.items():
        ax.add_patch(FancyBboxPatch((x - 0.8, 0.0), 1.6, 0.6, boxstyle="round,pad=0.02", color=f"C{kv - 1}"))
        ax.text(x, 0.3, fmt(kv), ha="center", va="center", color="white")
    ax.text(-0.6, 2.45, labels["query_heads"], ha="left")
    ax.text(-0.6, -0.35, labels["kv_heads"], ha="left", va="top")
    ax.set(xlim=(-0.8, n_heads - 0.2), ylim=(-0.8, 2.7))


# -- Page 07: the roofline and its ridge points (the page's datasheet values) -----------------------------

CARDS = {"a100": (312e12, 2.039e12), "h100": (1979e12 / 2, 3.35e12)}


def roofline_rows() -> Rows:
    return tuple((Label(card), round(peak / 1e12, 1), round(bandwidth / 1e12, 3), round(peak / bandwidth, 1))
                 for card, (peak, bandwidth) in CARDS.items())


def draw_roofline(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    intensity = np.logspace(0, 4, 200)
    for card, (peak, bandwidth) in CARDS.items():
        attainable = np.minimum(peak, intensity * bandwidth) / 1e12
        (line,) = ax.plot(intensity, attainable, label=labels[card])
        ridge = peak / bandwidth
        ax.plot([ridge], [peak / 1e12], "o", color=line.get_color())
        ax.annotate(labels["ridge"].format(value=fmt(round(ridge, 1))), (ridge, peak / 1e12),
                    textcoords="offset points", xytext=(8, -16), color=line.get_color())
    ax.set(xscale="log", yscale="log", xlabel=labels["intensity"], ylabel=labels["tflops"])
    plain_log_ticks(ax, fmt, "x", "y")
    ax.legend(frameon=False, loc="lower right")


# -- Page 08: absmax quantization's levels (the page's example weights) ----------------------------------

QUANT_WEIGHTS = (0.1, -0.5, 0.25)


def quant_rows() -> Rows:
    codes, scale = absmax_quantize(np.array(QUANT_WEIGHTS), bits=4)
    return tuple((w, int(code), round(float(code * scale), 4)) for w, code in zip(QUANT_WEIGHTS, codes, strict=True))


def draw_quant(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = canvas.add_subplot()
    _codes, scale = absmax_quantize(np.array(QUANT_WEIGHTS), bits=4)
    levels = np.arange(-7, 8) * scale
    ax.vlines(levels, -0.3, 0.3, color="#999999", lw=1, label=labels["levels"])
    for w, code, back in quant_rows():
        ax.plot([num(w)], [0.6], "v", color="C0")
        ax.annotate("", xy=(num(back), 0.3), xytext=(num(w), 0.55), arrowprops={"arrowstyle": "->", "color": "C1"})
        ax.text(num(w), 0.75, fmt(num(w)), ha="center")
        ax.text(num(back), -0.5, fmt(num(code)), ha="center", va="top", color="C1")
    ax.set(ylim=(-1, 1), yticks=[], xlabel=labels["value"])
    ax.spines["left"].set_visible(False)
    ax.legend(frameon=False, loc="upper left")


# -- Page 10: LoRA's two thin matrices beside the weight (the page's example sizes) ----------------------

LORA_D, LORA_RANK = 4096, 16


def lora_rows() -> Rows:
    return ((Label("weight"), LORA_D, LORA_D, LORA_D * LORA_D),
            (Label("b"), LORA_D, LORA_RANK, LORA_D * LORA_RANK),
            (Label("a"), LORA_RANK, LORA_D, LORA_RANK * LORA_D),
            (Label("trainable"), "", "", lc.lora_params(LORA_D, LORA_D, LORA_RANK)))


def draw_lora(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import Rectangle

    ax = canvas.add_subplot()
    ax.set_axis_off()
    size, thin = 1.0, LORA_RANK / LORA_D
    ax.add_patch(Rectangle((0, 0), size, size, color="C7", alpha=0.5))
    ax.text(0.5, 0.5, f"{labels['weight']}\n{fmt(LORA_D)} × {fmt(LORA_D)}", ha="center", va="center")
    ax.text(1.25, 0.5, "+", ha="center", va="center", fontsize=16)
    ax.add_patch(Rectangle((1.5, 0), thin, size, color="C0"))
    ax.text(1.5 + thin + 0.04, 0.5, f"{labels['b']}\n{fmt(LORA_D)} × {fmt(LORA_RANK)}", va="center")
    ax.add_patch(Rectangle((2.1, size - thin), size, thin, color="C1"))
    ax.text(2.6, size - thin - 0.06, f"{labels['a']}\n{fmt(LORA_RANK)} × {fmt(LORA_D)}", ha="center", va="top")
    ax.set(xlim=(-0.05, 3.15), ylim=(-0.05, 1.05), aspect="equal")


# -- Page 13: ZeRO's stages ------------------------------------------------------------------------------

ZERO_PARAMS, ZERO_GPUS = 7_000_000_000, 8
ZERO_PARTS = ("weights", "gradients", "optimizer_states", "master_weights")


def zero_rows() -> Rows:
    rows = []
    for stage in range(4):
        parts = lc.zero_memory_per_gpu(ZERO_PARAMS, stage, ZERO_GPUS)
        rows.append((stage, *(parts[part] / lc.GB for part in ZERO_PARTS), sum(parts.values()) / lc.GB))
    return tuple(rows)


def draw_zero(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    bottoms = np.zeros(4)
    for index, part in enumerate(ZERO_PARTS):
        values = np.array([num(row[1 + index]) for row in zero_rows()])
        ax.bar(range(4), values, bottom=bottoms, label=labels[part], width=0.6)
        bottoms += values
    for stage, total in enumerate(bottoms):
        ax.text(stage, total + 2, fmt(round(float(total), 2)), ha="center")
    ax.set_xticks(range(4), [labels[f"stage_{stage}"] for stage in range(4)])
    ax.set(ylabel=labels["gb"])
    ax.legend(frameon=False)


# -- Page 16a: pass@k (the page's example: 3 correct of 10 samples) ---------------------------------------

PASS_N, PASS_C = 10, 3


def pass_rows() -> Rows:
    return tuple((k, round(1 - math.comb(PASS_N - PASS_C, k) / math.comb(PASS_N, k), 4),
                  round(1 - (1 - PASS_C / PASS_N) ** k, 4)) for k in range(1, PASS_N + 1))


def draw_pass(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    rows = pass_rows()
    plot_columns(ax, rows, labels, ((1, "o-", "unbiased"), (2, "s--", "naive")))
    ax.set(xlabel=labels["k"], ylabel=labels["pass"], ylim=(0, 1.05), xticks=[row[0] for row in rows])
    ax.legend(frameon=False, loc="lower right")





# -- Batch 2 -----------------------------------------------------------------------------------------------
# Page 01: byte-pair encoding, merge by merge (the page's corpus and word).

BPE_CORPUS = ("play", "play", "played", "playing", "playing", "saying", "staying", "stayed")
BPE_WORD, BPE_MERGES = "playing", 6


def bpe_rows() -> Rows:
    merges = bpe_train(list(BPE_CORPUS), BPE_MERGES)
    rows: list[tuple[Cell, ...]] = [(0, "", " ".join(bpe_encode(BPE_WORD, [])))]
    rows += [(index, f"{a} + {b}", " ".join(bpe_encode(BPE_WORD, merges[:index])))
             for index, (a, b) in enumerate(merges, start=1)]
    return tuple(rows)


def draw_bpe(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import FancyBboxPatch

    ax = canvas.add_subplot()
    ax.set_axis_off()
    rows = bpe_rows()
    for level, (step, merge, symbols) in enumerate(rows):
        y = len(rows) - 1 - level
        x = 0.0
        for symbol in str(symbols).split():
            width = 0.35 + 0.28 * len(symbol)
            ax.add_patch(FancyBboxPatch((x, y + 0.1), width, 0.7, boxstyle="round,pad=0.02",
                                        color=f"C{min(len(symbol) - 1, 7)}", alpha=0.85))
            ax.text(x + width / 2, y + 0.45, symbol, ha="center", va="center", family="monospace")
            x += width + 0.1
        ax.text(-0.2, y + 0.45, labels["merge_n"].format(value=fmt(whole(step))) if step else labels["characters"],
                ha="right", va="center")
        if merge:
            ax.text(x + 0.2, y + 0.45, str(merge), va="center", family="monospace", color="#555555")
    ax.set(xlim=(-2.6, 5.5), ylim=(-0.1, len(rows) + 0.1))


# Page 02: softmax (the page's scores).

SOFTMAX_SCORES = (2.0, 1.0, 0.0)


def softmax_rows() -> Rows:
    probabilities = softmax(np.array(SOFTMAX_SCORES))
    return tuple((index + 1, score, round(float(p), 3))
                 for index, (score, p) in enumerate(zip(SOFTMAX_SCORES, probabilities, strict=True)))


def draw_softmax(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    left, right = canvas.subplots(1, 2)
    rows = softmax_rows()
    names = [labels["item"].format(value=fmt(whole(row[0]))) for row in rows]
    left.bar(names, [num(row[1]) for row in rows], color="C7")
    right.bar(names, [num(row[2]) for row in rows], color="C0")
    for ax, column, title in ((left, 1, labels["scores"]), (right, 2, labels["probabilities"])):
        ax.set_title(title)
        ax.grid(alpha=0.3, axis="y")
        for x, row in enumerate(rows):
            ax.text(x, num(row[column]), fmt(row[column]), ha="center", va="bottom")
    right.set_ylim(0, 1)


# Page 04: cross-entropy, the loss of one prediction (the page's two probabilities).

CE_POINTS = (0.9, 0.001)


def ce_rows() -> Rows:
    return tuple((p, round(cross_entropy(np.log([p, 1 - p]), 0), 3)) for p in CE_POINTS)


def draw_ce(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    p = np.logspace(-3, 0, 200)
    ax.plot(p, -np.log(p))
    for prob, loss in ce_rows():
        ax.plot([num(prob)], [num(loss)], "o", color="C1")
        ax.annotate(f"p = {fmt(num(prob))}: {fmt(num(loss))}", (num(prob), num(loss)), textcoords="offset points",
                    xytext=(8, 4))
    ax.set(xscale="log", xlabel=labels["p"], ylabel=labels["loss"])
    plain_log_ticks(ax, fmt, "x")


# Page 08: the bit layouts of fp32, bf16 and fp16, read back from each format's limits.

LAYOUT_FORMATS = ("fp32", "bf16", "fp16")


def layout_rows() -> Rows:
    rows = []
    for fmt_name in LAYOUT_FORMATS:
        limits = float_limits(fmt_name)
        mantissa = round(-math.log2(limits.eps))
        exponent = round(math.log2(1 - round(math.log2(limits.smallest_normal)) + 1)) + 1
        rows.append((fmt_name, 1, exponent, mantissa, lc.DTYPE_BITS[fmt_name]))
    return tuple(rows)


def draw_layout(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import Rectangle

    ax = canvas.add_subplot()
    ax.set_axis_off()
    rows = layout_rows()
    parts = (("sign", "C5"), ("exponent", "C0"), ("mantissa", "C1"))
    for level, (name, *bits, _total) in enumerate(rows):
        y, x = len(rows) - 1 - level, 0
        for (_part, colour), count in zip(parts, bits, strict=True):
            for _bit in range(whole(count)):
                ax.add_patch(Rectangle((x, y), 1, 0.7, facecolor=colour, edgecolor="white", lw=0.8))
                x += 1
            ax.text(x - whole(count) / 2, y + 0.35, fmt(whole(count)), ha="center", va="center", color="white",
                    fontsize=9)
        ax.text(-0.8, y + 0.35, str(name), ha="right", va="center")
    for index, (part, colour) in enumerate(parts):
        ax.add_patch(Rectangle((index * 9, -1.0), 0.9, 0.6, color=colour))
        ax.text(index * 9 + 1.3, -0.7, labels[part], va="center")
    ax.set(xlim=(-5, 33), ylim=(-1.2, len(rows)))


# Page 13: compute-optimal data, tensor and pipeline parallelism.

CHINCHILLA_MODELS = ("reference", "llama-2-7b", "llama-2-70b")


def chinchilla_rows() -> Rows:
    rows = []
    for name in CHINCHILLA_MODELS:
        cfg = lc.get_preset(name)
        n_params = lc.param_count(cfg)
        tokens = 20 * n_params
        rows.append((name, f"{n_params:.3g}", f"{tokens:.3g}", f"{6 * lc.matmul_params(cfg) * tokens:.3g}"))
    return tuple(rows)


def draw_chinchilla(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    n = np.logspace(8, 11, 20)
    ax.plot(n, 20 * n, label=labels["rule"])
    for name, params, tokens, _flops in chinchilla_rows():
        ax.plot([float(params)], [float(tokens)], "o", color="C1")
        ax.annotate(str(name), (float(params), float(tokens)), textcoords="offset points", xytext=(6, -12))
    ax.set(xscale="log", yscale="log", xlabel=labels["params"], ylabel=labels["tokens"])
    plain_log_ticks(ax, fmt, "x", "y", powers=True)
    ax.legend(frameon=False)


TP_GPUS = 4


def tp_rows() -> Rows:
    cfg = lc.REFERENCE
    width = cfg.d_ff // TP_GPUS
    return tuple((gpu + 1, cfg.d_model, gpu * width + 1, (gpu + 1) * width) for gpu in range(TP_GPUS))


def draw_tp(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import Rectangle

    ax = canvas.add_subplot()
    ax.set_axis_off()
    rows = tp_rows()
    scale = 1 / 640
    height = lc.REFERENCE.d_model * scale
    for gpu, _height, first, last in rows:
        x = (whole(first) - 1) * scale
        width = (whole(last) - whole(first) + 1) * scale
        ax.add_patch(Rectangle((x, 0), width, height, facecolor=f"C{whole(gpu) - 1}", edgecolor="white", lw=2))
        ax.text(x + width / 2, height / 2, labels["gpu"].format(value=fmt(whole(gpu))), ha="center", va="center",
                color="white")
        ax.text(x + width / 2, -0.12, f"{fmt(lc.REFERENCE.d_model)} × {fmt(whole(last) - whole(first) + 1)}",
                ha="center", va="top")
    ax.text(0, height + 0.1, labels["weight"], va="bottom")
    ax.set(xlim=(-0.1, lc.REFERENCE.d_ff * scale + 0.1), ylim=(-0.5, height + 0.5), aspect="equal")


PIPELINE_STAGES = 4
PIPELINE_MICRO_BATCHES = (1, 2, 4, 8, 16)
PIPELINE_DRAWN = 8


def pipeline_rows() -> Rows:
    return tuple((m, round((PIPELINE_STAGES - 1) / (m + PIPELINE_STAGES - 1), 4)) for m in PIPELINE_MICRO_BATCHES)


def draw_pipeline(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import Rectangle

    ax = canvas.add_subplot()
    p, m = PIPELINE_STAGES, PIPELINE_DRAWN
    span = m + p - 1  # time slots of the forward pass, and as many for the backward pass
    for stage in range(p):
        y = p - 1 - stage
        for slot in range(2 * span):
            backward = slot >= span
            micro = (slot - stage) if not backward else (slot - span - (p - 1 - stage))
            busy = 0 <= micro < m
            colour = ("C1" if backward else "C0") if busy else "#dddddd"
            ax.add_patch(Rectangle((slot, y), 1, 0.8, facecolor=colour, edgecolor="white"))
            if busy:
                ax.text(slot + 0.5, y + 0.4, fmt(micro + 1), ha="center", va="center", color="white", fontsize=8)
    ax.set_yticks([p - 1 - s + 0.4 for s in range(p)], [labels["stage"].format(value=fmt(s + 1)) for s in range(p)])
    ax.set_xticks([])
    ax.set(xlim=(0, 2 * span), ylim=(-0.9, p), xlabel=labels["time"])
    for index, (key, colour) in enumerate((("forward", "C0"), ("backward", "C1"), ("bubble", "#dddddd"))):
        ax.add_patch(Rectangle((index * 7, -0.8), 0.8, 0.5, color=colour))
        ax.text(index * 7 + 1.1, -0.55, labels[key], va="center")
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)


# Page 14: PagedAttention and speculative decoding (the pages' example values).

PAGE_TOKENS, REQUEST_TOKENS, RESERVED_TOKENS = 16, 1_000, 8_192


def paged_rows() -> Rows:
    pages = -(-REQUEST_TOKENS // PAGE_TOKENS)
    idle_paged = pages * PAGE_TOKENS - REQUEST_TOKENS
    idle_reserved = RESERVED_TOKENS - REQUEST_TOKENS
    return ((Label("paged"), pages * PAGE_TOKENS, idle_paged, lc.kv_cache_bytes(lc.REFERENCE, idle_paged) / lc.KiB),
            (Label("reserved"), RESERVED_TOKENS, idle_reserved,
             round(lc.kv_cache_bytes(lc.REFERENCE, idle_reserved) / lc.KiB, 1)))


def draw_paged(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import Rectangle

    ax = canvas.add_subplot()
    ax.set_axis_off()
    pages = -(-REQUEST_TOKENS // PAGE_TOKENS)
    per_row = 16
    for page in range(pages):
        x, y = page % per_row, -(page // per_row)
        used = min(PAGE_TOKENS, REQUEST_TOKENS - page * PAGE_TOKENS)
        ax.add_patch(Rectangle((x, y), 0.9, 0.8, facecolor="#dddddd", edgecolor="none"))
        ax.add_patch(Rectangle((x, y), 0.9 * used / PAGE_TOKENS, 0.8, facecolor="C0", edgecolor="none"))
    ax.text(0, 1.1, labels["pages"].format(pages=fmt(pages), size=fmt(PAGE_TOKENS)), va="bottom")
    last_x, last_y = (pages - 1) % per_row, -((pages - 1) // per_row)
    ax.annotate(labels["last"].format(value=fmt(REQUEST_TOKENS - (pages - 1) * PAGE_TOKENS)),
                (last_x + 0.9, last_y + 0.4), xytext=(last_x + 2, last_y - 1.2), arrowprops={"arrowstyle": "->"})
    ax.set(xlim=(-0.2, per_row + 0.2), ylim=(-(pages // per_row) - 1.6, 1.8), aspect="equal")


SPEC_DRAFTS = 4
SPEC_RATES = (0.5, 0.8, 0.9)


def expected_tokens(rate: float | np.ndarray, drafts: int) -> float | np.ndarray:
    return (1 - rate ** (drafts + 1)) / (1 - rate)


def spec_rows() -> Rows:
    return tuple((rate, round(float(expected_tokens(rate, SPEC_DRAFTS)), 2)) for rate in SPEC_RATES)


def draw_spec(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    rates = np.linspace(0, 0.99, 100)
    ax.plot(rates, expected_tokens(rates, SPEC_DRAFTS))
    for rate, tokens in spec_rows():
        ax.plot([num(rate)], [num(tokens)], "o", color="C1")
        ax.annotate(fmt(num(tokens)), (num(rate), num(tokens)), textcoords="offset points", xytext=(-18, 6))
    ax.axhline(SPEC_DRAFTS + 1, color="#999999", ls="--", lw=1)
    ax.set(xlabel=labels["rate"], ylabel=labels["tokens"], ylim=(0, SPEC_DRAFTS + 1.5), xlim=(0, 1))


# -- Page 05: heads, the block, top-p ----------------------------------------------------------------------


def heads_rows() -> Rows:
    cfg = lc.REFERENCE
    return tuple((head + 1, head * cfg.head_dim, (head + 1) * cfg.head_dim - 1) for head in range(cfg.n_heads))


def draw_heads(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import Rectangle

    ax = canvas.add_subplot()
    ax.set_axis_off()
    for head, first, last in heads_rows():
        width = whole(last) - whole(first) + 1
        ax.add_patch(Rectangle((whole(first), 0), width, 40, facecolor=f"C{(whole(head) - 1) % 6}", edgecolor="white"))
        ax.text(whole(first) + width / 2, 20, fmt(whole(head)), ha="center", va="center", color="white")
    ax.text(0, 48, labels["vector"].format(value=fmt(lc.REFERENCE.d_model)), va="bottom")
    ax.text(0, -8, labels["head_size"].format(value=fmt(lc.REFERENCE.head_dim)), va="top")
    ax.set(xlim=(-5, lc.REFERENCE.d_model + 5), ylim=(-40, 80))


BLOCK_PARTS = ("attention", "ffn", "norms")


def block_rows() -> Rows:
    cfg = lc.REFERENCE
    parts = lc.param_breakdown(cfg)
    per_block = {"attention": parts["attention"] // cfg.n_layers, "ffn": parts["ffn"] // cfg.n_layers,
                 "norms": cfg.norms_per_layer * cfg.d_model}
    return tuple((Label(part), per_block[part]) for part in BLOCK_PARTS)


def draw_block(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    from matplotlib.patches import FancyBboxPatch

    ax = canvas.add_subplot()
    ax.set_axis_off()
    counts = {cell.key: count for cell, count in block_rows() if isinstance(cell, Label)}
    ax.annotate("", xy=(0, 10), xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2, "color": "C7"})
    ax.text(0.15, 0.2, labels["stream"], va="bottom", color="#555555")
    for y, (part, colour) in ((3, ("attention", "C0")), (7, ("ffn", "C1"))):
        ax.add_patch(FancyBboxPatch((1.0, y - 2.2), 1.6, 0.9, boxstyle="round,pad=0.05", color="C7", alpha=0.5))
        ax.text(1.8, y - 1.75, labels["norm"], ha="center", va="center")
        ax.add_patch(FancyBboxPatch((1.0, y - 0.9), 1.6, 1.2, boxstyle="round,pad=0.05", color=colour))
        ax.text(1.8, y - 0.3, labels[part], ha="center", va="center", color="white")
        ax.text(2.8, y - 0.3, fmt(counts[part]), va="center")
        ax.annotate("", xy=(1.0, y - 1.75), xytext=(0, y - 1.75), arrowprops={"arrowstyle": "->"})
        ax.annotate("", xy=(0.12, y + 0.8), xytext=(1.8, y + 0.35),
                    arrowprops={"arrowstyle": "->", "connectionstyle": "angle,angleA=90,angleB=0"})
        ax.text(0, y + 0.8, "+", ha="center", va="center", fontsize=14,
                bbox={"boxstyle": "circle", "fc": "white", "ec": "C7"})
    ax.set(xlim=(-0.8, 4.6), ylim=(-0.3, 10.3))


TOP_P_PROBS, TOP_P = (0.5, 0.3, 0.15, 0.05), 0.9


def top_p_rows() -> Rows:
    kept = top_p_filter(np.array(TOP_P_PROBS), TOP_P)
    return tuple((index + 1, p, round(float(after), 4))
                 for index, (p, after) in enumerate(zip(TOP_P_PROBS, kept, strict=True)))


def draw_top_p(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    rows = top_p_rows()
    xs = np.arange(len(rows))
    ax.bar(xs - 0.2, [num(row[1]) for row in rows], 0.4, label=labels["before"], color="C7")
    ax.bar(xs + 0.2, [num(row[2]) for row in rows], 0.4, label=labels["after"], color="C0")
    for x, row in zip(xs, rows, strict=True):
        ax.text(x + 0.2, num(row[2]) + 0.01, fmt(num(row[2])), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(xs, [labels["token"].format(value=fmt(whole(row[0]))) for row in rows])
    ax.set(ylabel=labels["probability"], ylim=(0, 0.65))
    ax.legend(frameon=False)


# -- Page 06: a router choosing 4 of 32 experts (the page's example scores) -----------------------------------

ROUTER_EXPERTS, ROUTER_CHOSEN = 32, 4


def router_scores() -> np.ndarray:
    return (np.arange(ROUTER_EXPERTS) * 7 % ROUTER_EXPERTS) / 10


def router_rows() -> Rows:
    scores = router_scores()
    chosen = np.argsort(-scores, kind="stable")[:ROUTER_CHOSEN]
    weights = softmax(scores[chosen])
    return tuple((int(expert), float(scores[expert]), round(float(weight), 3))
                 for expert, weight in zip(chosen, weights, strict=True))


def draw_router(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    scores = router_scores()
    chosen = {whole(row[0]): row[2] for row in router_rows()}
    colours = ["C1" if expert in chosen else "C7" for expert in range(ROUTER_EXPERTS)]
    ax.bar(range(ROUTER_EXPERTS), scores, color=colours)
    for expert, weight in chosen.items():
        ax.text(expert, scores[expert] + 0.05, fmt(num(weight)), ha="center", va="bottom", fontsize=8, color="C1")
    ax.set(xlabel=labels["expert"], ylabel=labels["score"], ylim=(0, 3.6))
    ax.set_xticks(range(0, ROUTER_EXPERTS, 4))
    ax.text(0.01, 0.97, labels["chosen"], transform=ax.transAxes, va="top", color="C1")


# -- Page 08: training memory, by part (the page's 7B example) -------------------------------------------------

TRAINING_PARAMS = 7_000_000_000


def training_rows() -> Rows:
    parts = lc.training_memory(TRAINING_PARAMS)
    per_parameter = lc.training_memory(1)
    return tuple((Label(part), per_parameter[part], parts[part] / lc.GB) for part in ZERO_PARTS)


def draw_training(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    left = 0.0
    for index, (cell, per_parameter, gigabytes) in enumerate(training_rows()):
        key = cell.key if isinstance(cell, Label) else str(cell)
        ax.barh([0], [num(gigabytes)], left=left, color=f"C{index}", height=0.5)
        ax.text(left + num(gigabytes) / 2, 0, fmt(num(gigabytes)), ha="center", va="center", color="white")
        per_parameter_text = labels["bytes"].format(value=fmt(num(per_parameter)))
        ax.text(left + num(gigabytes) / 2, 0.3, f"{labels[key]}\n{per_parameter_text}",
                ha="center", va="bottom", fontsize=8)
        left += num(gigabytes)
    ax.set(xlabel=labels["gb"], yticks=[], ylim=(-0.4, 0.9), xlim=(0, left * 1.02))


# -- Page 19: the worked example's memory, part by part (Llama 2 7B) -----------------------------------------

PLAN_PARTS = ("weights", "kv_cache", "gradients", "optimizer_states", "activations", "reserve")


def plan_rows() -> Rows:
    """The page's first example: inference at 4,096 tokens, full fine-tuning (BF16 and as DeepSpeed keeps it) and
    QLoRA at rank 16, on sequences of 2,048 tokens, each part in GiB to the hundredth as the example prints it."""
    from llmcalc.planner import plan_inference, plan_training

    cfg = lc.get_preset("llama-2-7b")
    plans = (("inference", plan_inference(cfg, context=4096)),
             ("full_bf16", plan_training(cfg, task="full", seq_len=2048)),
             ("full_mixed", plan_training(cfg, task="full", seq_len=2048, precision="mixed")),
             ("qlora", plan_training(cfg, task="qlora", seq_len=2048, rank=16)))
    return tuple((Label(name), *(round(getattr(plan, part) / lc.GiB, 2) for part in PLAN_PARTS),
                  round(plan.total / lc.GiB, 2)) for name, plan in plans)


def draw_plans(canvas: Canvas, labels: dict[str, str], fmt: Format) -> None:
    ax = axes(canvas)
    rows = plan_rows()
    lefts = np.zeros(len(rows))
    for index, part in enumerate(PLAN_PARTS):
        values = np.array([num(row[1 + index]) for row in rows])
        ax.barh(range(len(rows)), values, left=lefts, label=labels[part], height=0.6)
        lefts += values
    for position, row in enumerate(rows):
        ax.text(num(row[-1]) + 1, position, fmt(num(row[-1])), va="center")
    ax.set_yticks(range(len(rows)), [labels[row[0].key] for row in rows])
    ax.invert_yaxis()
    ax.set(xlabel=labels["gib"], xlim=(0, max(num(row[-1]) for row in rows) * 1.15))
    ax.legend(frameon=False, fontsize=8, loc="lower right")


FIGURES: dict[str, Figure] = {
    "lr-cosine": Figure(("step", "lr"), ("step", "lr"), cosine_rows, draw_cosine),
    "lr-warmup": Figure(("step", "lr", "warmup"), ("step", "lr"), warmup_rows, draw_warmup),
    "causal-mask": Figure(("query", "key", "masked", "k1", "k2", "k3", "k4"), ("query", "k1", "k2", "k3", "k4"),
                          causal_rows, draw_causal, size=(4.0, 3.6)),
    "temperature": Figure(("legend", "token_1", "token_2", "token_3", "probability", "temperature"),
                          ("temperature", "token_1", "token_2", "token_3"), temperature_rows, draw_temperature),
    "kv-cache-growth": Figure(("tokens", "mib", "batch_1", "batch_8"), ("tokens", "batch_1", "batch_8"),
                              kv_rows, draw_kv),
    "gqa-heads": Figure(("query_heads", "kv_heads", "query_head", "kv_head"), ("query_head", "kv_head"),
                        gqa_rows, draw_gqa, size=(6.4, 2.2)),
    "roofline": Figure(("a100", "h100", "ridge", "intensity", "tflops", "card", "peak", "bandwidth", "ridge_point"),
                       ("card", "peak", "bandwidth", "ridge_point"), roofline_rows, draw_roofline),
    "absmax-levels": Figure(("levels", "value", "weight", "code", "dequantized"), ("weight", "code", "dequantized"),
                            quant_rows, draw_quant, size=(6.4, 2.4)),
    "lora-shapes": Figure(("weight", "a", "b", "trainable", "matrix", "rows", "cols", "params"),
                          ("matrix", "rows", "cols", "params"), lora_rows, draw_lora, size=(6.4, 2.4)),
    "zero-stages": Figure((*ZERO_PARTS, "stage_0", "stage_1", "stage_2", "stage_3", "gb", "stage", "total"),
                          ("stage", *ZERO_PARTS, "total"), zero_rows, draw_zero),
    "pass-at-k": Figure(("k", "pass", "unbiased", "naive"), ("k", "unbiased", "naive"), pass_rows, draw_pass),
    "bpe-merges": Figure(("characters", "merge_n", "step", "merge", "symbols"), ("step", "merge", "symbols"),
                         bpe_rows, draw_bpe, size=(6.4, 3.4)),
    "softmax": Figure(("item", "scores", "probabilities", "index", "score", "probability"),
                      ("index", "score", "probability"), softmax_rows, draw_softmax, size=(6.4, 2.6)),
    "cross-entropy": Figure(("p", "loss"), ("p", "loss"), ce_rows, draw_ce),
    "bit-layouts": Figure(("sign", "exponent", "mantissa", "format", "bits"),
                          ("format", "sign", "exponent", "mantissa", "bits"), layout_rows, draw_layout,
                          size=(6.4, 2.6)),
    "chinchilla": Figure(("rule", "params", "tokens", "model", "flops"), ("model", "params", "tokens", "flops"),
                         chinchilla_rows, draw_chinchilla),
    "tensor-parallel": Figure(("gpu", "weight", "gpu_column", "rows", "first", "last"),
                              ("gpu_column", "rows", "first", "last"), tp_rows, draw_tp, size=(6.4, 2.4)),
    "pipeline-bubble": Figure(("stage", "time", "forward", "backward", "bubble", "micro_batches", "share"),
                              ("micro_batches", "share"), pipeline_rows, draw_pipeline, size=(6.4, 2.6)),
    "paged-blocks": Figure(("pages", "last", "paged", "reserved", "scheme", "slots", "idle", "idle_kib"),
                           ("scheme", "slots", "idle", "idle_kib"), paged_rows, draw_paged, size=(6.4, 3.0)),
    "speculative": Figure(("rate", "tokens"), ("rate", "tokens"), spec_rows, draw_spec),
    "head-split": Figure(("vector", "head_size", "head", "first", "last"), ("head", "first", "last"),
                         heads_rows, draw_heads, size=(6.4, 1.6)),
    "transformer-block": Figure(("stream", "norm", "attention", "ffn", "norms", "part", "params"),
                                ("part", "params"), block_rows, draw_block, size=(5.0, 4.2)),
    "top-p": Figure(("before", "after", "token", "probability", "index"), ("index", "before", "after"),
                    top_p_rows, draw_top_p),
    "router": Figure(("expert", "score", "chosen", "weight"), ("expert", "score", "weight"),
                     router_rows, draw_router),
    "training-memory": Figure((*ZERO_PARTS, "bytes", "gb", "part", "per_parameter"), ("part", "per_parameter", "gb"),
                              training_rows, draw_training, size=(6.4, 2.2)),
    "plan-breakdown": Figure((*PLAN_PARTS, "inference", "full_bf16", "full_mixed", "qlora", "gib", "plan", "total"),
                             ("plan", *PLAN_PARTS, "total"), plan_rows, draw_plans, size=(6.4, 3.0)),
}
"""Figure name (the directive's argument) -> figure."""
