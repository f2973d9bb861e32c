"""The interactive calculators: directive markup, and the widgets in headless Chromium.

The browser tests build a small site holding all three calculators (English and
Traditional Chinese labels), open it from file://, and check that typed values produce the
documented results and that bad input shows a message instead of NaN, Infinity or undefined.
The llmcalc-generated vectors made here go through the calculators' script under Node, in
test_js_conformance.py, and must give exactly llmcalc's answer.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bs4 import BeautifulSoup

import llmcalc
from browser import PageLog, browser_pages
from sphinxbuild import build, write_tree

CONF = """\
extensions = ["myst_parser", "llmglossary.calculators"]
myst_enable_extensions = ["colon_fence"]
html_static_path = [{static!r}]
"""

LABELS = {
    "en": {
        "lora": ["Rank r", "Input size d_in", "Output size d_out", "Trainable", "Original", "Share", "Formula",
                 "{label} must be a whole number from {min} to {max}."],
        "memory": ["Model", "reference (the reference model)", "Custom", "Parameters", "Precision", "GB",
                   "GiB",
                   "{label} must be a whole number from {min} to {max}."],
        "kvcache": ["Model", "reference (the reference model)", "Custom", "Layers", "KV heads", "Query heads",
                    "Head dimension", "Context length",
                    "Batch", "Data type", "Total", "Per token", "Without GQA", "Saving",
                    "{label} must be a whole number from {min} to {max}.",
                    "The query heads must be a multiple of the KV heads."],
    },
    "zh_TW": {
        "lora": ["秩 r", "輸入維度 d_in", "輸出維度 d_out", "可訓練參數", "原始參數", "占比", "公式",
                 "{label} 必須是 {min} 到 {max} 之間的整數。"],
        "memory": ["模型", "reference（參考模型）", "自訂", "參數量", "精度", "GB", "GiB",
                   "{label} 必須是 {min} 到 {max} 之間的整數。"],
        "kvcache": ["模型", "reference（參考模型）", "自訂", "層數", "KV 頭數", "查詢頭數", "頭維度", "上下文長度",
                    "批次大小", "資料型別",
                    "總計", "每個詞元", "不用 GQA 時", "節省倍數", "{label} 必須是 {min} 到 {max} 之間的整數。",
                    "查詢頭數必須是 KV 頭數的整數倍。"],
    },
}
KEYS = {
    "lora": ["rank", "d_in", "d_out", "trainable", "original", "share", "formula", "error"],
    "memory": ["preset", "reference_model", "custom", "params", "precision", "gb", "gib", "error"],
    "kvcache": ["preset", "reference_model", "custom", "layers", "kv_heads", "heads", "head_dim", "tokens", "batch",
                "dtype", "total",
                "per_token", "mha", "saving", "error", "divisor_error"],
}
DIRECTIVES = {"lora": "lora-calculator", "memory": "memory-calculator", "kvcache": "kvcache-calculator"}
REPO = Path(__file__).resolve().parent.parent


def calculator_page(language: str, kinds: tuple[str, ...] = ("lora", "memory", "kvcache")) -> str:
    parts = ["# Calculators\n"]
    for kind in kinds:
        # Keyed in the order of calculators.LABELS, the field each label belongs to.
        items = "\n".join(
            f"- {key}: {label}" for key, label in zip(KEYS[kind], LABELS[language][kind], strict=True)
        )
        parts.append(f":::{{{DIRECTIVES[kind]}}}\nExplanation of the {kind} calculator.\n\n{items}\n:::\n")
    return "\n".join(parts)


def build_calculators(tmp_path: Path, language: str, page: str | None = None):
    conf = CONF.format(static=str(REPO / "docs" / "_static"))
    write_tree(tmp_path, {"conf.py": conf, "index.md": page or calculator_page(language)})
    return build(tmp_path, overrides={"language": language})


@pytest.fixture(scope="module", params=["en", "zh_TW"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    result = build_calculators(tmp_path_factory.mktemp(request.param), request.param)
    assert result.warnings == ""
    return request.param, result


def test_markup_has_labelled_inputs_presets_from_llmcalc_and_the_script(site) -> None:
    language, result = site
    soup = BeautifulSoup(result.html("index"), "html.parser")
    for field in soup.select(".calculator input, .calculator select"):
        labelled = field.get("aria-label") or soup.find("label", attrs={"for": field.get("id")})
        assert labelled, field
    memory = soup.select_one('.calculator[data-calculator="memory"]')
    presets = json.loads(memory["data-presets"])
    # Against the counts Hugging Face transformers gave for the same configs (the
    # independent record tools/verify_presets.py wrote), not against llmcalc itself.
    verified = json.loads((REPO / "tests" / "data" / "llmcalc_preset_counts.json").read_text(encoding="utf-8"))
    assert {name: preset["params"] for name, preset in presets.items()} == {
        name: counts["param_count"] for name, counts in verified["presets"].items()
    }
    assert json.loads(memory["data-dtype-bits"])["int4"] == 4
    kvcache = json.loads(soup.select_one('.calculator[data-calculator="kvcache"]')["data-presets"])
    assert kvcache["reference"] == {"layers": 20, "kv_heads": 2, "heads": 10, "head_dim": 64}
    scripts = [script.get("src", "").split("?")[0] for script in soup.find_all("script")]
    assert "_static/calculators.js" in scripts
    # The formulas the widgets share (modelcounts.js) run before the widgets that call them.
    assert scripts.index("_static/modelcounts.js") < scripts.index("_static/calculators.js")
    assert soup.select_one('.calculator[data-calculator="lora"] label').get_text() == LABELS[language]["lora"][0]


def test_script_is_only_loaded_on_pages_with_a_calculator(tmp_path: Path) -> None:
    conf = CONF.format(static=str(REPO / "docs" / "_static"))
    write_tree(tmp_path, {
        "conf.py": conf,
        "index.md": "# Home\n\n```{toctree}\nplain\n```\n",
        "plain.md": "# Plain\n\nNo calculator here.\n",
    })
    result = build(tmp_path)
    for name in ("calculators.js", "modelcounts.js"):
        assert name not in result.html("plain")
        assert name not in result.html("index")


def test_labels_without_their_keys_are_an_error_naming_the_keys(tmp_path: Path) -> None:
    page = "# Calculators\n\n:::{lora-calculator}\nText.\n\n- Rank\n- d_in: Input\n- d_in: Input again\n:::\n"
    result = build_calculators(tmp_path, "en", page)
    assert result.warning_lines() == [
        f"{tmp_path / 'index.md'}:3: ERROR: lora-calculator: the label list must give each of rank, d_in, d_out, "
        "trainable, original, share, formula, error once, as `key: label`; missing: rank, d_out, trainable, "
        "original, share, formula, error; unknown: (no key); repeated: d_in [docutils]"
    ]


def test_swapped_labels_land_on_their_own_fields(tmp_path: Path) -> None:
    items = list(zip(KEYS["lora"], LABELS["en"]["lora"], strict=True))
    items[0], items[1] = items[1], items[0]  # a translator reorders two items
    page = ":::{lora-calculator}\nText.\n\n" + "\n".join(f"- {key}: {label}" for key, label in items) + "\n:::\n"
    result = build_calculators(tmp_path, "en", "# Calculators\n\n" + page)
    assert result.warnings == ""
    soup = BeautifulSoup(result.html("index"), "html.parser")
    assert soup.find("label", attrs={"for": "calc-lora-0-rank"}).get_text() == "Rank r"
    assert soup.find("label", attrs={"for": "calc-lora-0-din"}).get_text() == "Input size d_in"


def test_translation_that_loses_a_key_is_a_warning_at_the_calculator(tmp_path: Path) -> None:
    page = calculator_page("en", ("memory",))
    catalog = tmp_path / "locales" / "zh_TW" / "LC_MESSAGES"
    catalog.mkdir(parents=True)
    (catalog / "index.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "custom: Custom"\nmsgstr "自訂"\n',
        encoding="utf-8",
    )
    conf = CONF.format(static=str(REPO / "docs" / "_static"))
    write_tree(tmp_path, {"conf.py": conf + 'locale_dirs = ["locales"]\n', "index.md": page})
    result = build(tmp_path, overrides={"language": "zh_TW"})
    assert result.warning_lines() == [
        f"{tmp_path / 'index.md'}:3: WARNING: the translated labels of this memory calculator must keep each key "
        "once (preset, reference_model, custom, params, precision, gb, gib, error); missing: custom; unknown: (no key) "
        "[calculator.labels]"
    ]
    assert "data-calculator" not in result.html("index")  # the explanation alone, not a mislabelled widget


@functools.cache  # the same vectors for both languages: computed once
def lora_vectors() -> list[dict]:
    """Inputs and llmcalc's outputs: edges, the documented cases and a random sweep."""
    rng = np.random.default_rng(20261129)
    cases = [(4096, 4096, r) for r in (1, 2, 8, 16, 64, 128, 256)]
    cases += [(1, 1, 1), (1, 1_000_000, 1), (1_000_000, 1_000_000, 256), (896, 4864, 256), (640, 128, 128)]
    for _ in range(300):
        d_in, d_out = (int(x) for x in rng.integers(1, 1_000_001, size=2))
        cases.append((d_in, d_out, int(rng.integers(1, min(d_in, d_out, 256) + 1))))
    return [
        {
            "d_in": d,
            "d_out": o,
            "rank": r,
            "params": str(llmcalc.lora_params(d, o, r)),
            "share": llmcalc.lora_params(d, o, r) / (d * o),   # share of the adapted matrix
        }
        for d, o, r in cases
    ]


@functools.cache
def memory_vectors() -> list[dict]:
    rng = np.random.default_rng(7)
    counts = [0, 1, 2, 3, 7, 1_000_000_007, 70_000_000_000, 10**13]
    counts += [llmcalc.param_count(cfg) for cfg in llmcalc.PRESETS.values()]
    counts += [int(x) for x in rng.integers(1, 10**13, size=200)]
    return [
        {"params": str(n), "dtype": dtype, "bytes": str(llmcalc.weight_bytes(n, dtype))}
        for n in counts
        for dtype in llmcalc.DTYPE_BITS
    ]


@functools.cache
def kvcache_vectors() -> list[dict]:
    rng = np.random.default_rng(11)
    # The widget models full attention only, so it offers no preset with a sliding window.
    configs = [cfg for cfg in llmcalc.PRESETS.values() if not cfg.sliding_window]
    for _ in range(150):
        kv_heads = int(rng.integers(1, 17))
        configs.append(llmcalc.ModelConfig(
            vocab_size=1000, d_model=64, n_layers=int(rng.integers(1, 129)), n_heads=kv_heads * int(rng.integers(1, 9)),
            n_kv_heads=kv_heads, head_dim=int(rng.integers(1, 513)), d_ff=128,
        ))
    vectors = []
    for cfg in configs:
        tokens, batch = int(rng.integers(1, 10_000_001)), int(rng.integers(1, 4097))
        for dtype in ("fp32", "bf16", "fp8", "int4"):
            vectors.append({
                "layers": cfg.n_layers, "kv_heads": cfg.n_kv_heads, "heads": cfg.n_heads, "head_dim": cfg.head_dim,
                "dtype": dtype, "tokens": tokens, "batch": batch,
                "bytes": str(llmcalc.kv_cache_bytes(cfg, tokens, batch=batch, dtype=dtype)),
                "reduction": cfg.n_heads / cfg.n_kv_heads,   # query heads per KV head
            })
    return vectors


COMPARE_SCRIPT = """
([lora, memory, kv]) => {
  const C = window.LLMCalc, bad = [];
  for (const v of lora) {
    const params = C.loraParams(v.d_in, v.d_out, v.rank).toString(), share = C.loraShare(v.d_in, v.d_out, v.rank);
    if (params !== v.params || share !== v.share) bad.push(["lora", v, params, share]);
  }
  for (const v of memory) {
    const bytes = C.weightBytes(v.params, v.dtype).toString();
    if (bytes !== v.bytes) bad.push(["memory", v, bytes]);
  }
  for (const v of kv) {
    const bytes = C.kvCacheBytes(v.layers, v.kv_heads, v.head_dim, v.dtype, v.tokens, v.batch).toString();
    const reduction = C.gqaCacheReduction(v.heads, v.kv_heads);
    if (bytes !== v.bytes || reduction !== v.reduction) bad.push(["kv", v, bytes, reduction]);
  }
  return {checked: lora.length + memory.length + kv.length, bad: bad.slice(0, 5)};
}
"""


SNAPSHOT = """() => [...document.querySelectorAll('.calculator[data-calculator]')].map((root) => ({
  calculator: root.dataset.calculator,
  fields: [...root.querySelectorAll('input, select')].map(
    (field) => [field.name, field.value, field.getAttribute('aria-invalid')]),
  error: [root.querySelector('.calc-error').hidden, root.querySelector('.calc-error').textContent],
  outputs: [...root.querySelectorAll('[data-out]')].map(
    (node) => [node.dataset.out, node.textContent, node.style.width]),
}))"""
"""Everything a reader sees of each calculator: field values and validity, the error box, every output."""


def snapshot(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(SNAPSHOT)


@pytest.fixture(scope="module")
def opened(site) -> Iterator[tuple[Any, PageLog, list[dict[str, Any]]]]:
    """The calculators page of a language, loaded once for the module's browser tests, and what it showed then.

    Loading a page costs far more CPU than the checks made on it.  Each test leaves the
    widgets as it found them, the way a reader would (putting the old number back, choosing
    the old preset again), and checks the page then shows exactly what it showed after
    loading: so one page serves them all and a test that fails to restore is named.
    """
    _language, result = site
    with browser_pages() as new_page:
        page, log = new_page()
        page.goto((result.outdir / "index.html").as_uri())
        yield page, log, snapshot(page)


def fields_of(page: Any, calculator: str) -> dict[str, str]:
    """The value of each field and select of a calculator, by name."""
    return page.eval_on_selector(
        f'.calculator[data-calculator="{calculator}"]',
        "root => Object.fromEntries([...root.querySelectorAll('input, select')].map((f) => [f.name, f.value]))",
    )


def put_back(page: Any, calculator: str, fields: dict[str, str]) -> None:
    """Give a calculator's fields their old values as a reader would: the numbers, then the preset they came from.

    Typing a number chooses the Custom preset, so the preset comes last; choosing it sets
    its own numbers again (a Custom preset, "", sets none).
    """
    root = page.locator(f'.calculator[data-calculator="{calculator}"]')
    now = fields_of(page, calculator)
    for name, value in fields.items():
        if name not in ("preset", "dtype", "rank") and now[name] != value:
            root.locator(f'input[name="{name}"]').fill(value)
    for name in ("dtype", "preset"):
        if name in fields and fields_of(page, calculator)[name] != fields[name]:
            root.locator(f'select[name="{name}"]').select_option(fields[name])


def as_loaded(opened) -> Any:
    """The shared page, after checking that the previous test left it as it was loaded."""
    page, _log, loaded = opened
    assert snapshot(page) == loaded, "a previous test left the calculators changed"
    return page


@pytest.mark.browser
@pytest.mark.parametrize(
    ("rank", "trainable", "share"),
    [("16", "131,072", "0.78%"), ("64", "524,288", "3.13%"), ("1", "8,192", "0.05%")],
)
def test_lora_widget_shows_the_documented_figures(opened, rank: str, trainable: str, share: str) -> None:
    page, log = as_loaded(opened), opened[1]
    box = page.locator('[name="rank-box"]')
    opening = box.input_value()
    box.fill(rank)
    out = lambda key: page.locator(f'.calculator[data-calculator="lora"] [data-out="{key}"]').inner_text()  # noqa: E731
    assert out("trainable") == trainable
    assert out("original") == "16,777,216"
    assert out("share") == share
    assert out("formula") == f"{rank} × (4,096 + 4,096) = {trainable}"
    assert page.locator('[name="rank"]').input_value() == rank
    box.fill(opening)
    assert snapshot(page) == opened[2], f"rank {rank}: putting the old rank back does not restore the widget"
    assert log.errors == []


@pytest.mark.browser
def test_lora_slider_works_from_the_keyboard(opened) -> None:
    page = as_loaded(opened)
    page.locator('[name="rank"]').focus()
    page.keyboard.press("ArrowRight")
    assert page.locator('[name="rank-box"]').input_value() == "17"
    assert page.locator('[data-out="trainable"]').inner_text() == "139,264"
    page.keyboard.press("ArrowLeft")
    assert snapshot(page) == opened[2], "the slider back one step does not restore the widget"


BAD_INPUTS = [
    ("lora", "rank-box", ""),
    ("lora", "rank-box", "-4"),
    ("lora", "rank-box", "abc"),
    ("lora", "rank-box", "2.5"),
    ("lora", "rank-box", "1e308"),
    ("lora", "d_in", "0"),
    ("lora", "d_in", "8"),  # rank 16 > min(d_in, d_out)
    ("memory", "params", ""),
    ("memory", "params", "-1"),
    ("memory", "params", "7.5"),
    ("memory", "params", "99999999999999999999"),
    ("kvcache", "tokens", ""),
    ("kvcache", "batch", "0"),
    ("kvcache", "layers", "3.5"),
    ("kvcache", "kv_heads", "3"),  # 10 query heads are not a multiple of 3
    ("kvcache", "head_dim", "1e9"),
]


def type_like_a_reader(field, text: str) -> None:
    """Clear the field and type: a number field keeps whatever the browser lets through.

    The click leaves the focus in the field, so the keys go straight to the keyboard: a
    locator's ``press`` would focus it again first, a round trip that cost as much
    Chromium CPU as the two keys themselves.
    """
    field.click()
    field.page.keyboard.press("Control+A")
    field.page.keyboard.press("Backspace")
    field.page.keyboard.type(text)


@pytest.mark.browser
def test_bad_input_shows_a_message_never_nan(site, opened) -> None:
    language = site[0]
    page, log = as_loaded(opened), opened[1]
    for calculator, name, value in BAD_INPUTS:
        root = page.locator(f'.calculator[data-calculator="{calculator}"]')
        field = root.locator(f'input[name="{name}"]')
        previous = fields_of(page, calculator)
        type_like_a_reader(field, value)
        error = root.locator(".calc-error")
        assert error.is_visible(), (calculator, name, value)
        message = error.inner_text()
        assert message and not re.search(r"\{|NaN|undefined|Infinity", message), message
        assert not re.search(r"NaN|undefined|Infinity", root.inner_text()), (calculator, name, value)
        # The reader puts the old value back (and picks the old preset again, as typing chose Custom):
        # the error goes and every figure is what it was.
        put_back(page, calculator, previous)
        assert error.is_hidden(), (calculator, name, value, "error stays after the old value is put back")
        assert snapshot(page) == opened[2], (calculator, name, value, "the widget did not recover")
    box = page.locator('[name="rank-box"]')
    box.fill("300")
    expected = {"en": "Rank r must be a whole number from 1 to 256.", "zh_TW": "秩 r 必須是 1 到 256 之間的整數。"}
    assert page.locator('.calculator[data-calculator="lora"] .calc-error').inner_text() == expected[language]
    box.fill("16")
    assert snapshot(page) == opened[2], "rank 300, then 16 again: the widget did not recover"
    assert log.errors == []


@pytest.mark.browser
def test_memory_and_kvcache_widgets_use_presets(opened) -> None:
    page = as_loaded(opened)
    memory, kvcache = (f'.calculator[data-calculator="{kind}"]' for kind in ("memory", "kvcache"))
    opening = {kind: fields_of(page, kind) for kind in ("memory", "kvcache")}
    page.select_option(f'{memory} select[name="preset"]', "llama-2-70b")
    cell = lambda key: page.locator(f'[data-out="{key}"]').inner_text()  # noqa: E731
    n = llmcalc.param_count(llmcalc.PRESETS["llama-2-70b"])
    assert cell("gb-bf16") == f"{llmcalc.weight_bytes(n, 'bf16') / 1e9:,.2f}"
    assert cell("gib-int4") == f"{llmcalc.weight_bytes(n, 'int4') / 2**30:,.2f}"
    page.select_option(f'{kvcache} select[name="preset"]', "llama-3-8b")
    page.locator(f'{kvcache} input[name="tokens"]').fill("8192")
    expected = llmcalc.kv_cache_bytes(llmcalc.PRESETS["llama-3-8b"], 8192)
    assert cell("total").startswith(f"{expected:,} B")
    assert cell("saving") == "4.00×"
    for kind, fields in opening.items():
        put_back(page, kind, fields)
    assert snapshot(page) == opened[2], "choosing the opening presets again does not restore the widgets"


SITE = REPO / "_build" / "html"
REAL_PAGES = {
    "lora": "10-pre-training-and-fine-tuning",
    "memory": "08-precision-and-quantization",
    "kvcache": "06-modern-attention-and-moe",
}


@pytest.fixture(scope="module")
def site_tab() -> Iterator[tuple[Any, PageLog]]:
    """One page (one browser context) for the built site's pages in both languages, each a new load in it."""
    with browser_pages() as new_page:
        yield new_page()


@pytest.mark.site
@pytest.mark.browser
@pytest.mark.parametrize(("language", "rank_label"), [("en", "Rank r"), ("zh_TW", "秩 r")])
def test_glossary_pages_carry_working_translated_calculators(site_tab, language: str, rank_label: str) -> None:
    page, log = site_tab
    for kind, docname in REAL_PAGES.items():
        path = SITE / language / f"{docname}.html"
        assert path.exists(), "run `make html` first"
        page.goto(path.as_uri())
        root = page.locator(f'.calculator[data-calculator="{kind}"]')
        assert root.count() == 1, docname
        assert not re.search(r"NaN|undefined|Infinity|—", root.locator(".calc-results").inner_text()), docname
        if kind == "lora":  # while its page is open: the translated label and the opening figures
            assert root.locator("label").first.inner_text() == rank_label
            assert page.locator('[data-out="trainable"]').inner_text() == "131,072"
            assert page.locator('[data-out="share"]').inner_text() == "0.78%"
    assert log.errors == [] and log.requests == []
