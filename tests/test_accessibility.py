"""Accessibility of the pages with widgets or figures: axe-core's WCAG 2.1 A/AA rules, and what axe cannot judge.

axe-core is pinned in ``tests/a11y/package-lock.json`` and installed from the npm registry
by ``make a11y-deps`` (``npm ci``, which ``make pytest`` runs first); the test injects that
local file into each page, so nothing is fetched at test time.  Every page holding a
widget is checked in both languages and both colour schemes: the calculators on their
opening values and with an error shown, the planner on its opening result, on a training
plan, and with a config error and a plan error shown.  Any violation fails the test and
is printed as rule, node and message.  Every page with a drawn figure is checked too, in
both languages and schemes, with the figures' data tables open.

axe cannot judge order, focus or announcements, so the planner is also driven from the
keyboard: Tab visits its controls in reading order, each focused control shows a visible
focus indicator, and a committed change is announced once through the status line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import browser_pages, missing, page_per_key

pytestmark = [pytest.mark.site, pytest.mark.browser]

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "_build" / "html"
AXE = REPO / "tests" / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"  # the exact pin in tests/a11y/package.json
LANGUAGES = ("en", "zh_TW")
SCHEMES = ("light", "dark")
# WCAG 2.0 and 2.1, levels A and AA: the success criteria the project promises.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
PLANNER = "19-will-it-fit.html"
CALCULATOR_PAGES = {  # page -> the calculator it holds (llmglossary/templates/calculators/widget.html)
    "06-modern-attention-and-moe.html": "kvcache",
    "08-precision-and-quantization.html": "memory",
    "10-pre-training-and-fine-tuning.html": "lora",
}
WIDGET = ".calculator"

Page = Any  # playwright.sync_api.Page; Playwright is imported lazily by browser.py


def axe_source() -> str:
    if not AXE.exists():
        missing("axe-core is not installed: run `make a11y-deps` (npm ci in tests/a11y)", "the accessibility check")
    source = AXE.read_text(encoding="utf-8")
    assert source.startswith(f"/*! axe v{AXE_VERSION}"), "tests/a11y/node_modules is not the pinned axe-core"
    return source


def site_page(language: str, name: str) -> Path:
    path = SITE / language / name
    assert path.exists(), f"{path} is missing: run `make html` first"
    return path


def describe(violations: list[dict[str, Any]]) -> list[str]:
    """One line per failing node: rule, node (CSS selector) and axe's message for it."""
    lines = []
    for violation in violations:
        for node in violation["nodes"]:
            message = node.get("failureSummary") or violation["help"]
            lines.append(f"{violation['id']} | {' '.join(map(str, node['target']))} | {message.replace(chr(10), ' ')}")
    return lines


def run_axe(page: Page, source: str, include: str | None = None) -> list[str]:
    """axe's WCAG 2.1 A/AA violations on the page (or within ``include``), described."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=source)
    result = page.evaluate(
        """async ([include, tags]) => {
            const context = include ? { include: [include] } : document;
            // preload: false, or axe re-reads the stylesheets with XMLHttpRequest, which file:// refuses.
            return await axe.run(context, {
                runOnly: { type: "tag", values: tags }, resultTypes: ["violations"], preload: false,
            });
        }""",
        [include, WCAG_TAGS],
    )
    return describe(result["violations"])


def planner_states(page: Page) -> Iterator[tuple[str, str | None]]:
    """Put the planner in each state a reader meets; yield (state, what axe should check)."""
    yield "initial result", None  # whole page: the planner opens on a result
    page.locator('input[name="task"][value="qlora"]').check()
    page.locator('[name="checkpointing"]').check()
    yield "QLoRA plan", WIDGET
    page.locator('select[name="zero_stage"]').select_option("3")
    page.locator('[name="n_gpus"]').fill("2")
    page.locator('select[name="offload"]').select_option("fsdp")
    page.locator('[data-out="offload"]').wait_for(state="visible")
    yield "CPU offload", WIDGET
    page.locator('select[name="offload"]').select_option("")
    page.locator('select[name="gguf_source"]').select_option("llama-3-8b")
    page.locator('[name="gguf_ngl"]').fill("16")
    page.locator(".gguf-parts").wait_for(state="visible")
    yield "GGUF recipe with -ngl", ".gguf-widget"
    page.locator('select[name="gguf_source"]').select_option("gemma-3-1b")
    page.locator('[name="gguf_swa_full"]').check()
    page.locator("[data-kv-swa]").wait_for(state="visible")
    yield "GGUF sliding-window caches, --swa-full", ".gguf-widget"
    page.locator('[name="gguf_llama_server"]').check()
    page.locator("[data-server-slots]").wait_for(state="visible")
    yield "GGUF with llama-server's automatic slots", ".gguf-widget"
    page.locator('select[name="gpu_compare"]').select_option("a100-80gb")
    page.locator(".planner-chart summary").click()
    yield "two cards and the chart, its table open", WIDGET
    page.locator('input[name="task"][value="inference"]').check()
    page.locator('select[name="engine"]').select_option("vllm")
    yield "vLLM's pool, its rows named as vLLM's", WIDGET
    page.locator('[name="all_cards"]').check()
    page.locator('[name="rank_concurrency"]').fill("16")
    page.locator('.planner-rank-table th[data-column="gpus"] button').click()
    yield "every card ranked (plannerrank.js), sorted by a column", WIDGET
    page.locator('[name="rank_prompt"]').fill("1024")
    page.locator('[name="rank_generated"]').fill("256")
    page.locator("details.planner-rank-prices summary").click()
    page.locator('[name="price_h100-sxm"]').fill("2.49")
    page.locator('.planner-rank-table th[data-column="cost"] button').click()
    yield "every card ranked with vLLM's speed and a price's cost, sorted by the cost", WIDGET
    page.locator('[name="price_h100-sxm"]').fill("0")
    yield "the ranking's price refused", WIDGET
    page.locator('[name="all_cards"]').uncheck()
    page.locator('select[name="engine"]').select_option("sum")
    page.locator('select[name="gpu"]').select_option("t4")
    yield "does not fit", WIDGET
    page.locator('[name="gpu_gib"]').fill("24 TB")
    yield "plan error", WIDGET
    page.locator('select[name="preset"]').select_option("gpt2")
    yield "context refused at its field", WIDGET
    page.locator('textarea[name="config_paste"]').fill("{ not json")
    page.locator('button[name="config_use"]').click()
    yield "config error", WIDGET


def calculator_states(page: Page) -> Iterator[tuple[str, str | None]]:
    yield "initial result", None
    page.locator(f"{WIDGET} input[type=number]").first.fill("0")
    yield "field error", WIDGET


@pytest.fixture(scope="module")
def new_page() -> Iterator[Callable[[], tuple[Page, Any]]]:
    with browser_pages() as opener:
        yield opener


AxeTab = Callable[[str], tuple[Page, Any]]


@pytest.fixture(scope="module")
def axe_tab() -> Iterator[AxeTab]:
    """One page (one browser context) per language for the axe checks, each check a new load in it.

    A new context and its first load cost several times a load in an open page.  Every
    page state axe judges is reached from a fresh load of its page, in its colour scheme
    (set before the load, as a reader's system setting is), exactly as in a new context.
    """
    with page_per_key() as for_key:
        yield for_key


@pytest.mark.parametrize("language", LANGUAGES)
def test_pages_with_widgets_pass_axe_wcag_2_1_aa(language: str, axe_tab: AxeTab) -> None:
    source = axe_source()
    # Every built page holding a widget is checked, so a calculator added to another page is too.
    with_widgets = sorted(
        path.name
        for path in (SITE / language).glob("*.html")
        if 'class="calculator"' in path.read_text(encoding="utf-8")
    )
    assert with_widgets == sorted([PLANNER, *CALCULATOR_PAGES]), "a page gained or lost a widget: update the lists"
    cases: list[tuple[str, Callable[[Page], Iterator[tuple[str, str | None]]]]] = [
        (PLANNER, planner_states),
        *((name, calculator_states) for name in CALCULATOR_PAGES),
    ]
    failures: list[str] = []
    checked = 0
    page, log = axe_tab(language)
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        for name, states in cases:
            page.goto(site_page(language, name).as_uri())
            for state, include in states(page):
                found = run_axe(page, source, include)
                failures += [f"{language} {scheme} {name} [{state}] {line}" for line in found]
                checked += 1
            assert log.errors == [], (scheme, name, log.errors)
            assert log.requests == [], (scheme, name, log.requests)
    assert checked == len(SCHEMES) * (15 + 2 * len(CALCULATOR_PAGES))
    assert not failures, "axe-core WCAG 2.1 AA violations (rule | node | message):\n" + "\n".join(failures)


@pytest.mark.parametrize("language", LANGUAGES)
def test_pages_with_figures_pass_axe_wcag_2_1_aa(language: str, axe_tab: AxeTab) -> None:
    """Every page with a drawn figure (llmglossary.figures), its figures' data tables open, in both schemes."""
    source = axe_source()
    with_figures = sorted(
        path.name
        for path in (SITE / language).glob("*.html")
        if 'class="drawn-figure' in path.read_text(encoding="utf-8")
    )
    assert len(with_figures) >= 10, "the drawn figures are missing from the built site: run `make html`"
    failures: list[str] = []
    page, log = axe_tab(language)
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        for name in with_figures:
            page.goto(site_page(language, name).as_uri())
            page.evaluate("document.querySelectorAll('details.drawn-figure-data').forEach(d => { d.open = true; })")
            # The figures and their tables, and the page around them once per scheme and page.
            failures += [f"{language} {scheme} {name} {line}" for line in run_axe(page, source)]
            assert log.errors == [], (scheme, name, log.errors)
            assert log.requests == [], (scheme, name, log.requests)
    assert not failures, "axe-core WCAG 2.1 AA violations (rule | node | message):\n" + "\n".join(failures)


def test_axe_reports_a_planted_violation(axe_tab: AxeTab) -> None:
    """The check can fail: an unlabelled field and grey-on-white text planted in the planner are reported."""
    source = axe_source()
    page, _log = axe_tab("en")
    page.emulate_media(color_scheme="light")  # as a new page has it
    page.goto(site_page("en", PLANNER).as_uri())
    page.evaluate(
        """() => {
            const widget = document.querySelector('.calculator');
            const field = document.createElement('input');
            field.id = 'planted-field';
            widget.append(field);
            const text = document.createElement('p');
            text.id = 'planted-text';
            text.textContent = 'faint';
            text.style.cssText = 'color: #bbb; background: #fff';
            widget.append(text);
        }"""
    )
    found = run_axe(page, source, WIDGET)
    assert any(line.startswith("label | #planted-field") for line in found), found
    assert any(line.startswith("color-contrast | #planted-text") for line in found), found


# --- What axe cannot judge: order, focus, announcements ---------------------------------

FOCUS_STATE = """node => {
    const style = getComputedStyle(node);
    return {
        name: node.name || node.id,
        style: style.outlineStyle,
        width: parseFloat(style.outlineWidth),
        colour: style.outlineColor,
        background: getComputedStyle(node.closest('.calculator')).backgroundColor,
    };
}"""


def contrast(first: str, second: str) -> float:
    """WCAG 2.1 contrast ratio of two CSS ``rgb(...)`` colours."""

    def luminance(colour: str) -> float:
        channels = [int(part) / 255 for part in colour[colour.index("(") + 1 : -1].split(",")[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_matches_wcag_examples() -> None:
    assert round(contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)"), 2) == 21.0
    assert round(contrast("rgb(118, 118, 118)", "rgb(255, 255, 255)"), 2) == 4.54  # #767676, the 4.5:1 grey


def tab_through_planner(page: Page) -> list[dict[str, str]]:
    """Tab from the widget's first control until focus leaves the form; what each stop showed."""
    page.locator('select[name="preset"]').focus()
    stops = [page.evaluate(f"({FOCUS_STATE})(document.activeElement)")]
    for _ in range(40):
        page.keyboard.press("Tab")
        inside = page.evaluate("document.activeElement.closest('.planner-form') !== null")
        if not inside:
            break
        stops.append(page.evaluate(f"({FOCUS_STATE})(document.activeElement)"))
    return stops


@pytest.fixture(scope="module")
def planner_page(new_page: Callable[[], tuple[Page, Any]]) -> tuple[Page, Any]:
    """The en planner, loaded once for the three keyboard tests below: Tab changes no value, and the test that
    commits values puts them back and checks the widget recovered, so each test meets the page as it opened."""
    page, log = new_page()
    page.goto(site_page("en", PLANNER).as_uri())
    return page, log


@pytest.mark.parametrize("scheme", SCHEMES)
def test_planner_keyboard_order_and_visible_focus(scheme: str, planner_page: tuple[Page, Any]) -> None:
    """Tab reaches every visible control once, in the order they are laid out, each with a visible focus ring."""
    page, log = planner_page
    page.emulate_media(color_scheme=scheme)  # the styles follow the reader's setting as it changes
    assert page.evaluate(f"matchMedia('(prefers-color-scheme: {scheme})').matches")
    stops = tab_through_planner(page)
    # The reading order of the visible controls, from the markup (the radio group is one stop).
    expected = page.evaluate(
        """() => {
            const seen = new Set();
            const names = [];
            for (const node of document.querySelectorAll('.planner-form select, .planner-form input, '
                                                          + '.planner-form textarea, .planner-form button')) {
                if (node.closest('[hidden]') || node.type === 'hidden') continue;
                if (node.type === 'radio') { if (seen.has(node.name)) continue; seen.add(node.name); }
                names.push(node.name || node.id);
            }
            return names;
        }"""
    )
    assert [stop["name"] for stop in stops] == expected
    # Every stop shows a solid ring at least 2px wide with 3:1 against the widget (WCAG 1.4.11).
    faint = [
        (stop["name"], stop["style"], stop["width"], round(contrast(stop["colour"], stop["background"]), 2))
        for stop in stops
        if stop["style"] != "solid" or stop["width"] < 2 or contrast(stop["colour"], stop["background"]) < 3
    ]
    assert faint == [], f"focus indicator missing or faint (name, style, width, contrast): {faint}"
    # Focus also follows the position on screen: each stop is not above the previous fieldset.
    tops = page.evaluate(
        "names => names.map(n => document.querySelector(`.planner-form [name='${n}']`).closest('fieldset')"
        ".getBoundingClientRect().top)",
        expected,
    )
    assert tops == sorted(tops)
    assert log.errors == []


def test_planner_announces_a_committed_change_once(planner_page: tuple[Page, Any]) -> None:
    """The status line (role=status) holds only the verdict; typing is silent, leaving the field announces it."""
    page, log = planner_page
    opening = {name: page.locator(f'[name="{name}"]').input_value() for name in ("context", "gpu", "gpu_gib")}
    status = page.locator('.calculator [role="status"]')
    assert status.count() == 1
    assert page.locator(".calculator [aria-live]:not([role=status])").count() == 0  # no second live region
    verdict = page.locator('[data-out="verdict"]')
    opening_verdict = verdict.text_content()
    assert opening_verdict != "—"
    assert status.text_content() in ("", opening_verdict)  # the opening result is not re-announced
    field = page.locator('[name="context"]')
    field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("65536")
    assert status.text_content() != verdict.text_content()  # mid-edit: nothing new announced
    page.keyboard.press("Tab")
    assert status.text_content() == verdict.text_content()
    # Errors are alerts tied to the field that caused them.
    page.locator('[name="gpu_gib"]').fill("24 TB")
    gib = page.locator('[name="gpu_gib"]')
    alert = page.locator('[data-error="plan"]')
    assert alert.get_attribute("role") == "alert" and alert.is_visible()
    assert gib.get_attribute("aria-invalid") == "true"
    # Put back as the page opened (the keyboard tests share the page): the alert goes, the opening verdict returns.
    page.locator('select[name="gpu"]').select_option(opening["gpu"])
    field.fill(opening["context"])
    assert {name: page.locator(f'[name="{name}"]').input_value() for name in opening} == opening
    assert alert.is_hidden() and gib.get_attribute("aria-invalid") == "false"
    assert verdict.text_content() == opening_verdict
    assert log.errors == []
