"""The drawn figures (docs/_ext/llmglossary/figures): their numbers, their translations, their text alternatives.

* Numbers: every figure's data table (what it draws) equals the example on its page: the
  expected values below are the examples' printed results, and each is also found in the
  page's source, so the figure, the doctest and this test say the same thing.  Changing a
  number in the catalog fails here.
* Translations: every caption and label of every figure on the pages is translated in the
  page's zh_TW catalog, keeps its key, and is not fuzzy (an untranslated label fails here).
* Text alternatives: a tiny site built in English and Chinese gives HTML an inline SVG named
  by its text alternative, with Chinese labels as text, and gives the text builder the
  alternative and the numbers; a page naming no figure, or a label list missing a key,
  stops the build.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from llmglossary.figures.catalog import FIGURES, Label, label_keys
from sphinxbuild import build, write_tree

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
CATALOGS = REPO / "locales" / "zh_TW" / "LC_MESSAGES"
FENCE = re.compile(r"^( *)```\{drawn-figure\} (\S+)\n(.*?)^\1```$", re.DOTALL | re.MULTILINE)
HAN = re.compile(r"[\u4e00-\u9fff]")


def page_figures() -> list[tuple[str, str, str]]:
    """(page stem, figure name, directive body without its indentation) for every figure on the pages."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for match in FENCE.finditer(page.read_text(encoding="utf-8")):
            indent = len(match.group(1))
            body = "\n".join(line[indent:] for line in match.group(3).splitlines())
            found.append((page.stem, match.group(2), body))
    return found


def messages(body: str) -> list[str]:
    """The directive's messages as the catalog holds them: caption paragraphs (lines joined), then each item."""
    caption, _, items = body.partition("\n- ")
    paragraphs = [" ".join(part.split()) for part in caption.split("\n\n") if part.strip()]
    return paragraphs + [" ".join(item.split()) for item in items.split("\n- ") if item.strip()]


# -- Numbers: what each figure draws is what its page's example prints --------------------------------------

# Figure -> (the page whose example it draws, text of that example's output found on the page, expected rows).
EXPECTED: dict[str, tuple[str, list[str], list[tuple[object, ...]]]] = {
    "lr-cosine": ("04-how-a-model-learns", ["['3.00e-04', '2.56e-04', '1.50e-04', '4.39e-05', '0.00e+00']"],
                  [(0, "3.00e-04"), (250, "2.56e-04"), (500, "1.50e-04"), (750, "4.39e-05"), (1000, "0.00e+00")]),
    "lr-warmup": ("04-how-a-model-learns", ["['0.00e+00', '1.50e-04', '3.00e-04', '3.00e-04']"],
                  [(0, "0.00e+00"), (50, "1.50e-04"), (100, "3.00e-04"), (200, "3.00e-04")]),
    "causal-mask": ("05-the-transformer", ["[0.12 0.88 0.   0.  ]", "[0.33 0.33 0.33 0.  ]", "[0.1  0.1  0.1  0.71]"],
                    [(1, 1.0, "masked", "masked", "masked"), (2, 0.12, 0.88, "masked", "masked"),
                     (3, 0.33, 0.33, 0.33, "masked"), (4, 0.1, 0.1, 0.1, 0.71)]),
    "temperature": ("05-the-transformer", ["0.5 [0.867 0.117 0.016]", "1.0 [0.665 0.245 0.09 ]",
                                           "2.0 [0.506 0.307 0.186]"],
                    [(0.5, 0.867, 0.117, 0.016), (1.0, 0.665, 0.245, 0.09), (2.0, 0.506, 0.307, 0.186)]),
    # 51,200 bytes per token (the example), so 50 MiB per 1,024 tokens; a batch of 8 holds 8 times that.
    "kv-cache-growth": ("05-the-transformer", ["'51,200 bytes'", "400.0"],
                        [(t, t * 51_200 // 2**20, 8 * t * 51_200 // 2**20) for t in (0, 1024, 2048, 4096, 8192)]),
    # The reference model: 10 query heads, 5 per KV head (the example's 5.0).
    "gqa-heads": ("06-modern-attention-and-moe", ["5.0"], [(h, 1 if h <= 5 else 2) for h in range(1, 11)]),
    "roofline": ("07-gpus-flops-and-memory", ["153.0", "295.4", "989.5"],
                 [("a100", 312.0, 2.039, 153.0), ("h100", 989.5, 3.35, 295.4)]),
    # 4 bits: levels -7..7 of 0.5 / 7; 0.1 / (0.5 / 7) = 1.4 -> 1, 0.25 -> 3.5 -> 4 (round half to even), -0.5 -> -7.
    "absmax-levels": ("08-precision-and-quantization", ["0.035714"],
                      [(0.1, 1, 0.0714), (-0.5, -7, -0.5), (0.25, 4, 0.2857)]),
    "lora-shapes": ("10-pre-training-and-fine-tuning", ["'16,777,216'", "'131,072'"],
                    [("weight", 4096, 4096, 16_777_216), ("b", 4096, 16, 65_536), ("a", 16, 4096, 65_536),
                     ("trainable", "", "", 131_072)]),
    # 7B parameters, 16 bytes each; 8 GPUs share the optimizer states (12 bytes), then gradients, then weights.
    "zero-stages": ("13-scaling-and-distributed-training",
                    ["data parallel: 112 GB", "ZeRO-1: 38.5 GB", "ZeRO-2: 26.25 GB", "ZeRO-3: 14 GB"],
                    [(0, 14.0, 14.0, 56.0, 28.0, 112.0), (1, 14.0, 14.0, 7.0, 3.5, 38.5),
                     (2, 14.0, 1.75, 7.0, 3.5, 26.25), (3, 1.75, 1.75, 7.0, 3.5, 14.0)]),
    "pass-at-k": ("16a-benchmarks", ["(0.3, 0.9167)", "0.8319"],
                  [(k, round(1 - math.comb(7, k) / math.comb(10, k), 4), round(1 - 0.7**k, 4)) for k in range(1, 11)]),
    "bit-layouts": ("08-precision-and-quantization", ["'3.390e+38'", "(2 - 2**-7) * 2**127"],
                    [("fp32", 1, 8, 23, 32), ("bf16", 1, 8, 7, 16), ("fp16", 1, 5, 10, 16)]),  # IEEE 754, bfloat16
    "bpe-merges": ("01-what-an-llm-does",
                   ["[('a', 'y'), ('l', 'ay'), ('p', 'lay'), ('i', 'n'), ('in', 'g'), ('ay', 'ing')]",
                    "['play', 'ing']"],
                   [(0, "", "p l a y i n g"), (1, "a + y", "p l ay i n g"), (2, "l + ay", "p lay i n g"),
                    (3, "p + lay", "play i n g"), (4, "i + n", "play in g"), (5, "in + g", "play ing"),
                    (6, "ay + ing", "play ing")]),
    "softmax": ("02-mathematical-building-blocks", ["[0.665 0.245 0.09 ]"],
                [(1, 2.0, 0.665), (2, 1.0, 0.245), (3, 0.0, 0.09)]),
    "cross-entropy": ("04-how-a-model-learns", ["0.105", "6.908"], [(0.9, 0.105), (0.001, 6.908)]),
    "chinchilla": ("13-scaling-and-distributed-training",
                   ["1.8e+08 params: 3.59e+09 tokens, 3.42e+18 FLOPs",
                    "6.74e+09 params: 1.35e+11 tokens, 5.34e+21 FLOPs",
                    "6.9e+10 params: 1.38e+12 tokens, 5.69e+23 FLOPs"],
                   [("reference", "1.8e+08", "3.59e+09", "3.42e+18"),
                    ("llama-2-7b", "6.74e+09", "1.35e+11", "5.34e+21"),
                    ("llama-2-70b", "6.9e+10", "1.38e+12", "5.69e+23")]),
    "tensor-parallel": ("13-scaling-and-distributed-training", ["[(640, 768), (640, 768), (640, 768), (640, 768)]"],
                        [(gpu, 640, 768 * (gpu - 1) + 1, 768 * gpu) for gpu in range(1, 5)]),
    # Four stages (the example); the bubble's share (p - 1) / (m + p - 1) of GPipe's schedule.
    "pipeline-bubble": ("13-scaling-and-distributed-training", ["[(0, 4), (5, 9), (10, 14), (15, 19)]"],
                        [(m, round(3 / (m + 3), 4)) for m in (1, 2, 4, 8, 16)]),
    # 10,240 bytes of KV cache per token of the reference model: 8 idle slots are 80 KiB, 7,192 are 71,920 KiB.
    "paged-blocks": ("14-inference-and-serving", ["(63, 8, 7192)", "(80.0, 70.2)"],
                     [("paged", 1008, 8, 80.0), ("reserved", 8192, 7192, 71920.0)]),
    "speculative": ("14-inference-and-serving", ["[1.94 3.36 4.1 ]"], [(0.5, 1.94), (0.8, 3.36), (0.9, 4.1)]),
    "head-split": ("05-the-transformer", ["(10, 64)"], [(h, 64 * (h - 1), 64 * h - 1) for h in range(1, 11)]),
    "transformer-block": ("05-the-transformer", ["{'attention': 983040, 'ffn': 5898240, 'norms': 1280}"],
                          [("attention", 983_040), ("ffn", 5_898_240), ("norms", 1280)]),
    "top-p": ("05-the-transformer", ["[0.5263 0.3158 0.1579 0.    ]"],
              [(1, 0.5, 0.5263), (2, 0.3, 0.3158), (3, 0.15, 0.1579), (4, 0.05, 0.0)]),
    "router": ("06-modern-attention-and-moe", ["([9, 18, 27, 4], [3.1, 3.0, 2.9, 2.8])", "[0.289 0.261 0.236 0.214]"],
               [(9, 3.1, 0.289), (18, 3.0, 0.261), (27, 2.9, 0.236), (4, 2.8, 0.214)]),
    "training-memory": ("08-precision-and-quantization",
                        ["{'weights': 14.0, 'gradients': 14.0, 'optimizer_states': 56.0, 'master_weights': 28.0}"],
                        [("weights", 2, 14.0), ("gradients", 2, 14.0), ("optimizer_states", 8, 56.0),
                         ("master_weights", 4, 28.0)]),
    # Page 19's worked example: the four plans its first doctest prints, in GiB.
    "plan-breakdown": ("19-will-it-fit",
                       ["{'weights': 12.55, 'kv_cache': 2.0, 'reserve': 1.0} total: 15.55",
                        "{'weights': 12.55, 'gradients': 12.55, 'optimizer_states': 25.1, 'activations': 12.3, "
                        "'reserve': 1.0} total: 63.51",
                        "{'weights': 12.55, 'gradients': 12.55, 'optimizer_states': 75.31, 'activations': 12.3, "
                        "'reserve': 1.0} total: 113.71",
                        "{'weights': 4.12, 'gradients': 0.03, 'optimizer_states': 0.06, 'activations': 16.06, "
                        "'reserve': 1.0} total: 21.27"],
                       [("inference", 12.55, 2.0, 0.0, 0.0, 0.0, 1.0, 15.55),
                        ("full_bf16", 12.55, 0.0, 12.55, 25.1, 12.3, 1.0, 63.51),
                        ("full_mixed", 12.55, 0.0, 12.55, 75.31, 12.3, 1.0, 113.71),
                        ("qlora", 4.12, 0.0, 0.03, 0.06, 16.06, 1.0, 21.27)]),
}


def plain(rows: tuple[tuple[object, ...], ...]) -> list[tuple[object, ...]]:
    return [tuple(cell.key if isinstance(cell, Label) else cell for cell in row) for row in rows]


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_each_figure_draws_its_pages_example(name: str) -> None:
    page, printed, rows = EXPECTED[name]
    source = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    for text in printed:
        assert text in source, f"{page}.md no longer prints {text!r}: update the figure and this test"
    assert f"```{{drawn-figure}} {name}" in source, f"figure {name} is not on {page}.md"
    drawn = plain(FIGURES[name].table())
    assert len(drawn) == len(rows) and all(same(a, b) for a, b in zip(drawn, rows, strict=True)), (drawn, rows)


def same(drawn: tuple[object, ...], expected: tuple[object, ...]) -> bool:
    """Equal row by row: numbers to 1e-9 relative (an example's rounding is the figure's), text exactly."""
    return len(drawn) == len(expected) and all(
        math.isclose(a, b, rel_tol=1e-9) if isinstance(a, int | float) and isinstance(b, int | float) else a == b
        for a, b in zip(drawn, expected, strict=True))


def test_a_changed_number_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a ZeRO figure drawn for 7.5B parameters no longer matches the page."""
    from llmglossary.figures import catalog

    monkeypatch.setattr(catalog, "ZERO_PARAMS", 7_500_000_000)
    catalog._rows.cache_clear()
    try:
        with pytest.raises(AssertionError):
            test_each_figure_draws_its_pages_example("zero-stages")
    finally:
        catalog._rows.cache_clear()


def test_every_figure_is_on_a_page_once_with_every_label() -> None:
    figures = page_figures()
    names = [name for _page, name, _body in figures]
    assert sorted(names) == sorted(FIGURES), "each figure of the catalog is shown once, and nothing else"
    for page, name, body in figures:
        keys = [item.partition(":")[0] for item in body.split("\n- ")[1:]]
        assert keys == list(label_keys(name)), (page, name)


# -- Translations ------------------------------------------------------------------------------------------


def untranslated(page: str, body: str) -> list[str]:
    with (CATALOGS / f"{page}.po").open("rb") as po:
        catalog = read_po(po)
    problems = []
    for message in messages(body):
        entry = catalog.get(message)
        if entry is None or not entry.string or entry.fuzzy or not HAN.search(str(entry.string)):
            problems.append(f"{page}.po: {message!r} is not translated")
            continue
        key = message.partition(":")[0]
        if message.startswith(f"{key}: ") and key.isidentifier() and not str(entry.string).startswith(f"{key}: "):
            problems.append(f"{page}.po: the translation of {message!r} loses its key {key!r}")
    return problems


@pytest.mark.parametrize(("page", "name", "body"), page_figures(), ids=lambda value: str(value)[:24])
def test_every_caption_and_label_is_translated(page: str, name: str, body: str) -> None:
    assert untranslated(page, body) == []


def test_an_untranslated_label_fails() -> None:
    """The check above can fail: a label the catalog does not hold is reported."""
    page, _name, body = page_figures()[0]
    assert untranslated(page, body + "\n- extra: A label nobody translated") == [
        f"{page}.po: 'extra: A label nobody translated' is not translated"
    ]


# -- Text alternatives, on a tiny site in both languages ------------------------------------------------------

CONF = """\
extensions = ["myst_parser", "llmglossary.figures"]
locale_dirs = ["locales"]
gettext_compact = False
html_static_path = [{static!r}]
"""
INDEX = """\
# Tiny

```{drawn-figure} temperature
Three scores at three temperatures.

- alt: Bars of three probabilities at three temperatures.
- table: Probabilities per temperature
- legend: temperature {value}
- token_1: Token 1
- token_2: Token 2
- token_3: Token 3
- probability: Probability
- temperature: Temperature
```
"""
ENGLISH_ALT = "Bars of three probabilities at three temperatures."
ZH = {
    "Tiny": "小網站",
    "Three scores at three temperatures.": "三個溫度下的三個分數。",
    "alt: Bars of three probabilities at three temperatures.": "alt: 三個溫度下三個機率的長條圖。",
    "table: Probabilities per temperature": "table: 各溫度的機率",
    "legend: temperature {value}": "legend: 溫度 {value}",
    "token_1: Token 1": "token_1: 詞元 1",
    "token_2: Token 2": "token_2: 詞元 2",
    "token_3: Token 3": "token_3: 詞元 3",
    "probability: Probability": "probability: 機率",
    "temperature: Temperature": "temperature: 溫度",
}


def tiny_site(tmp_path: Path, index: str = INDEX) -> Path:
    catalog = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' + "".join(
        f'msgid "{english}"\nmsgstr "{chinese}"\n\n' for english, chinese in ZH.items())
    write_tree(tmp_path, {"conf.py": CONF.format(static=str(DOCS / "_static")), "index.md": index,
                          "locales/zh_TW/LC_MESSAGES/index.po": catalog})
    return tmp_path


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_html_gets_an_svg_named_by_its_text_alternative(tmp_path: Path, language: str) -> None:
    result = build(tiny_site(tmp_path), overrides={"language": language})
    assert result.warning_lines() == []
    page = result.html("index")
    alt = ZH[f"alt: {ENGLISH_ALT}"][5:] if language == "zh_TW" else ENGLISH_ALT
    assert re.search(r'<svg role="img" aria-labelledby="(fig-temperature-title)"[^>]*>'
                     r'<title id="\1" class="nohighlight">' + re.escape(alt) + "</title>", page)
    svg = page[page.index("<svg"):page.index("</svg>")]
    legend = "溫度 0.5" if language == "zh_TW" else "temperature 0.5"
    assert f">{legend}</text>" in svg, "labels are text in the SVG, in the page's language"
    assert "<style" not in svg and "font-family:" not in svg
    summary = "各溫度的機率" if language == "zh_TW" else "Probabilities per temperature"
    assert f"<summary>{summary}</summary>" in page
    assert "<td><p>0.867</p></td>" in page
    assert "_static/drawn-figures.css" in page


def test_the_text_builder_gets_the_alternative_and_the_numbers(tmp_path: Path) -> None:
    result = build(tiny_site(tmp_path), builder="text", overrides={"language": "zh_TW"})
    assert result.warning_lines() == []
    text = (result.outdir / "index.txt").read_text(encoding="utf-8")
    assert "三個溫度下三個機率的長條圖。" in text
    assert "各溫度的機率" in text and "0.867" in text and "0.186" in text
    assert "<svg" not in text


@pytest.mark.parametrize("builder", ["latex", "man", "texinfo", "epub"])
def test_every_other_builder_builds_without_a_warning(tmp_path: Path, builder: str) -> None:
    # EPUB 3 checks its metadata under -W; the site's conf.py sets it, the tiny site does here.
    metadata = {"copyright": "2026", "author": "tests", "version": "1", "epub_description": "tiny",
                "epub_contributor": "tests"}
    result = build(tiny_site(tmp_path), builder=builder, overrides={"language": "zh_TW", **metadata})
    assert result.warning_lines() == []
    written = "\n".join(path.read_text(encoding="utf-8", errors="replace")
                        for path in result.outdir.rglob("*") if path.suffix in {".tex", ".1", ".texi", ".xhtml"})
    assert "0.867" in written and "各溫度的機率" in written
    assert ("<svg" in written) == (builder == "epub"), "only EPUB, an HTML builder, gets the SVG"


def test_a_missing_key_or_an_unknown_figure_stops_the_build(tmp_path: Path) -> None:
    broken = INDEX.replace("- token_3: Token 3\n", "").replace("temperature\nThree", "temperature\nThree")
    result = build(tiny_site(tmp_path / "missing", broken))
    assert "missing: token_3" in result.warnings
    result = build(tiny_site(tmp_path / "unknown", INDEX.replace("drawn-figure} temperature", "drawn-figure} tempo")))
    assert "no figure named 'tempo'" in result.warnings
