"""The GGUF planner's share link (ggufshare.js) in headless Chromium, both languages.

A reader's settings, made on one page, give a link; opening it on another page (a load, or a followed fragment)
must give the same form, the same table order and the same text, number for number, as the page that made it.
A chosen .gguf file travels as the model read from its header, which must be llmcalc.gguf's model of the same
file; a bad or hostile link must leave the defaults and name, in the page's language, the field and what it takes.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from test_accessibility import SCHEMES, axe_source, run_axe
from test_gguf_browser import DATA, LANGUAGES, page_uri
from test_planner import ENGLISH_WORDS, load, open_fragment

from browser import PageLog, browser_pages
from llmcalc import gguf as lg
from zhlint import HAN

pytestmark = [pytest.mark.site, pytest.mark.browser]

ROOT = "[data-gguf-planner]"

SHOWN = """() => {
  const root = document.querySelector('[data-gguf-planner]');
  const form = root.querySelector('form');
  const text = (selector) => root.querySelector(selector).textContent;
  return {
    values: Object.fromEntries(Array.from(form.elements)
      .filter((e) => e.name && e.type !== 'file' && e.type !== 'button')
      .map((e) => [e.name, e.type === 'checkbox' ? String(e.checked) : e.value])),
    state: root.dataset.state, plan: root.dataset.plan ?? null, summary: text('[data-summary]'),
    parts: root.querySelector('.gguf-parts').hidden ? null
      : Array.from(root.querySelectorAll('.gguf-parts tr'), (row) => row.textContent),
    verdict: text('[data-verdict]'), largest: text('[data-largest]'), most: text('[data-most-layers]'),
    error: root.querySelector('[data-error]').hidden ? null : text('[data-error]'),
    rank_hidden: root.querySelector('.gguf-rank').hidden,
    rank: root.querySelector('.gguf-rank').hidden ? null
      : Array.from(root.querySelectorAll('.gguf-rank-table tbody tr'),
                   (row) => Array.from(row.cells, (cell) => cell.textContent)),
    sort: Array.from(root.querySelectorAll('.gguf-rank-table th[data-column]'),
                     (th) => th.dataset.column + ':' + th.getAttribute('aria-sort')),
  };
}"""

SET = """(values) => {
  // As a reader leaves the form: every field set, then one committed change, which the widget answers.
  const form = document.querySelector('[data-gguf-planner] form');
  for (const [name, value] of Object.entries(values)) {
    if (form[name].type === 'checkbox') form[name].checked = value === 'true'; else form[name].value = value;
  }
  form.gguf_gpu.dispatchEvent(new Event('change', {bubbles: true}));
  return document.querySelector('[data-gguf-planner]').dataset.state;
}"""


class LanguagePages(dict):  # type: ignore[type-arg]
    """Per language, opened on first use: the page a reader makes links on, as opened (with what it showed
    then), and a second page, which each test that opens links on it loads itself."""

    def __init__(self, new_page: Any) -> None:
        super().__init__()
        self.new_page = new_page

    def __missing__(self, language: str) -> tuple[Any, PageLog, Any, PageLog, dict[str, Any]]:
        maker, maker_log = self.new_page()
        maker.goto(page_uri(language))
        visitor, visitor_log = self.new_page()
        self[language] = (maker, maker_log, visitor, visitor_log, maker.evaluate(SHOWN))
        return self[language]


@pytest.fixture(scope="module")
def pages() -> Iterator[LanguagePages]:
    with browser_pages() as new_page:
        yield LanguagePages(new_page)


def sort_by(page: Any, column: str, order: str) -> None:
    """Click the column's header (a keyboard-reachable button) until the table is sorted as asked."""
    header = page.locator(f'{ROOT} .gguf-rank-table th[data-column="{column}"]')
    for _click in range(2):
        if header.get_attribute("aria-sort") == order:
            return
        header.locator("button").click()
    assert header.get_attribute("aria-sort") == order


def flag(value: bool) -> str:
    return "true" if value else "false"


def random_settings(rng: random.Random, sources: list[str], recipes: list[str]) -> dict[str, str]:
    cache_k, cache_v = rng.choice(["f16", "q8_0", "q4_0"]), rng.choice(["f16", "q8_0", "q4_0"])
    return {
        "gguf_source": rng.choice(sources), "gguf_recipe": rng.choice(recipes),
        "gguf_imatrix": flag(rng.random() < 0.5), "gguf_context": str(rng.randint(1, 200_000)),
        "gguf_ubatch": str(rng.choice([1, 32, 512, 2048, rng.randint(1, 65536)])),
        "gguf_cache_k": cache_k, "gguf_cache_v": cache_v,
        # A quantized V cache needs flash attention: llama.cpp refuses it otherwise, and a refusal has no link.
        "gguf_flash": flag(cache_v != "f16" or rng.random() < 0.5),
        "gguf_compute_buffer": rng.choice(["", str(rng.randint(0, 5000)),
                                           f"{rng.randint(0, 999)}.{rng.randint(0, 99)}"]),
        "gguf_ngl": rng.choice(["", str(rng.randint(0, 130))]),
        "gguf_gpu": rng.choice(["24", "80", "23034 MiB", "16 GB", "0.5", "141", "7.25", "2048 MiB"]),
        "gguf_beyond": flag(rng.random() < 0.3), "gguf_rank_all": flag(rng.random() < 0.7),
    }


def options(page: Any, name: str) -> list[str]:
    return page.locator(f'{ROOT} select[name="{name}"] option').evaluate_all("(nodes) => nodes.map((n) => n.value)")


@pytest.mark.parametrize("language", LANGUAGES)
def test_random_settings_travel_by_link_with_the_same_numbers_and_order(language: str, pages: LanguagePages) -> None:
    """Twelve random settings of a listed model (seeded), each sorted by a random column: the first link opened by
    loading it on the second page, each next one followed there over the previous plan."""
    maker, log, visitor, log2, _opening = pages[language]
    rng = random.Random(20261207)
    sources = [name for name in options(maker, "gguf_source") if name]
    recipes = options(maker, "gguf_recipe")
    entries = maker.evaluate("history.length")
    sorts = set()
    for index in range(12):
        settings = random_settings(rng, sources, recipes)
        assert maker.evaluate(SET, settings) == "plan", settings
        column, order = rng.choice(["rank", "card", "headroom", "context"]), rng.choice(["ascending", "descending"])
        if settings["gguf_rank_all"] == "true":
            sort_by(maker, column, order)
            sorts.add((column, order))
        shown = maker.evaluate(SHOWN)
        link = maker.evaluate("location.href")
        assert "#gguf=1&" in link, settings
        assert maker.evaluate("history.length") == entries  # replaceState: no entry per change
        if index == 0:
            load(visitor, link)
        else:
            assert visitor.evaluate(SHOWN) != shown, settings
            open_fragment(visitor, "#" + link.split("#", 1)[1])
        assert visitor.evaluate(SHOWN) == shown, settings
        assert not visitor.locator(f"{ROOT} [data-share-note]").is_visible()
    assert len(sorts) >= 4  # the table's order was restored for several columns and directions
    assert log.errors == log2.errors == [] and log.requests == log2.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_chosen_file_travels_as_llmcalc_s_model_of_it_not_the_file(language: str, pages: LanguagePages) -> None:
    maker, log, visitor, log2, _opening = pages[language]
    path = DATA / "tiny-llama-Q4_0.gguf"
    maker.set_input_files(f"{ROOT} input[type=file]", str(path))
    maker.wait_for_function("() => document.querySelector('[data-gguf-planner]').dataset.state === 'plan'")
    settings = {"gguf_context": "3000", "gguf_ubatch": "512", "gguf_cache_k": "q8_0", "gguf_cache_v": "q8_0",
                "gguf_flash": "true", "gguf_compute_buffer": "", "gguf_ngl": "2", "gguf_gpu": "24",
                "gguf_beyond": "false", "gguf_rank_all": "true"}
    assert maker.evaluate(SET, settings) == "plan"
    sort_by(maker, "context", "descending")
    link, shown = maker.evaluate("location.href"), maker.evaluate(SHOWN)
    assert path.name not in link
    shared = json.loads(urllib.parse.parse_qs(link.split("#", 1)[1])["model"][0])
    header = lg.read_gguf_header(path)
    model = lg.gguf_model(header)
    runs = [[size, len(list(group))] for size, group in itertools.groupby(model.layer_bytes)]
    assert shared == {
        "arch": model.architecture, "version": header.version, "tensors": len(header.tensors),
        "nLayers": model.n_layers, "kWidth": model.k_width, "vWidth": model.v_width,
        "trained": model.trained_context, "nEmbd": model.n_embd, "nHead": model.n_head, "nFf": model.n_ff,
        "nVocab": model.n_vocab, "embeddingBytes": model.embedding_bytes, "outputBytes": model.output_bytes,
        "tied": model.tied_embeddings, "layers": runs,
    }
    plan = json.loads(shown["plan"])
    expected = lg.plan_gguf(model, context=3000, cache_type_k="q8_0", cache_type_v="q8_0", flash_attention=True,
                            n_gpu_layers=2)
    assert plan["total"] == expected.total and plan["host_total"] == expected.host_total
    load(visitor, link)  # a page that has never been given the file
    assert visitor.locator(f'{ROOT} select[name="gguf_source"]').input_value() == ""
    assert visitor.evaluate(SHOWN) == shown
    assert log.errors == log2.errors == []


def model_link(**changes: object) -> str:
    model = {"arch": "llama", "version": 3, "tied": False, "layers": [[1000, 4]], "tensors": 30, "nLayers": 4,
             "kWidth": 256, "vWidth": 256, "trained": 2048, "nEmbd": 256, "nHead": 4, "nFf": 512, "nVocab": 1000,
             "embeddingBytes": 1000, "outputBytes": 2000}
    return "#gguf=1&source=&model=" + urllib.parse.quote(json.dumps({**model, **changes}))


# (fragment, the label key the note names (or the name itself), what it must say the field takes, in English: a
# choice quoted “…”, choices and fields listed with " | "; zh_TW quotes 「…」 and lists with 、, see in_language)
BAD_LINKS = [
    ("#gguf=2&gguf_context=4096", "gguf", "“1”"),                         # another version
    ("#gguf=1&context=0", "context", "16,777,216"),                       # below the field's minimum
    ("#gguf=1&context=99999999999", "context", "16,777,216"),             # above its maximum
    ("#gguf=1&context=4e3", "context", "16,777,216"),                     # not a whole number
    ("#gguf=1&context=1&context=2", "context", "share_once"),             # a field twice
    ("#gguf=1&nonsense=1", "nonsense", "| sort |"),                        # no such field
    ("#gguf=1&__proto__=1", "__proto__", "| sort |"),                      # a name every object has
    ("#gguf=1&toString=1", "toString", "| sort |"),
    ("#gguf=1&source=gpt-5", "source", "share_listed"),                   # no such model
    ("#gguf=1&recipe=Q5_Z", "recipe", "share_listed"),                    # no such recipe
    ("#gguf=1&cache_v=q2_k", "cache_v", "“q4_0”"),                        # no such cache type
    ("#gguf=1&gpu=24%20TB", "gpu", "share_memory"),                       # no such size
    ("#gguf=1&gpu=NaN", "gpu", "share_memory"),
    ("#gguf=1&flash=yes", "flash", "“true”"),                             # not a flag
    ("#gguf=1&ngl=-1", "ngl", "16,777,216"),                              # below -ngl 0
    ("#gguf=1&ubatch=65537", "ubatch", "65,536"),
    ("#gguf=1&compute_buffer=Infinity", "compute_buffer", "1,000,000"),
    ("#gguf=1&sort=headroom-sideways", "share_sort", "“rank-ascending”"),  # no such order
    ("#gguf=1&source=&context=4096", "source", "share_model"),            # the file's entry, and no model
    ("#gguf=1&source=&model=%7Bbad", "source", "share_model"),            # a model that is not JSON
    (model_link(layers=[[1000, 100000]]), "source", "share_model"),       # more layers than any model
    (model_link(nHead=0), "source", "share_model"),                       # no heads
    (model_link(outputBytes=-1), "source", "share_model"),                # negative bytes
    (model_link(embeddingBytes=1e300), "source", "share_model"),          # past any exact integer
    (model_link(arch="<img src=x onerror=alert(1)>"), "source", "share_model"),  # markup as a name
    (model_link(extra=1), "source", "share_model"),                       # a field no model has
    ("#gguf=1&source=llama-3.1-8b" + model_link()[len("#gguf=1&source="):], "source", "share_model"),
    ("#gguf=1&gpu=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E", "gpu", "share_memory"),  # markup as a size
    ("#gguf=%E0%A4%A", "gguf", "“1”"),                                   # not even percent-encoding
    ("#gguf=1&context=" + "9" * 500, "context", "16,777,216"),            # absurdly long
]


def in_language(accepted: str, language: str) -> str:
    """What a field takes as the page of ``language`` quotes and lists it."""
    if language == "en":
        return accepted
    return re.sub(r" ?\| ?", "、", accepted.replace("“", "「").replace("”", "」"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bad_link_gives_the_defaults_and_names_the_field_and_its_range(language: str, pages: LanguagePages) -> None:
    """The first bad link opened by loading it; each other followed on that page after the reader moved the form
    off the defaults, so that the defaults and the note are the link's doing."""
    maker, _log, visitor, log2, opening = pages[language]
    labels = json.loads(maker.locator(ROOT).get_attribute("data-labels"))
    note = visitor.locator(f"{ROOT} [data-share-note]")
    for index, (fragment, label, accepted) in enumerate(BAD_LINKS):
        if index == 0:
            load(visitor, page_uri(language) + fragment)
        else:
            visitor.evaluate(SET, {"gguf_source": "llama-3.1-8b", "gguf_context": str(1000 + index),
                                   "gguf_rank_all": "true"})
            assert not note.is_visible() and f"context={1000 + index}&" in visitor.evaluate("location.hash")
            open_fragment(visitor, fragment)
        assert note.is_visible(), fragment
        text = note.inner_text()
        assert text.startswith(labels["share_bad"].split("{label}")[0]), (fragment, text)
        assert labels.get(label, label) in text, (fragment, text)
        if accepted in labels:
            accepted = re.sub(r"\{\w+\}.*", "", labels[accepted])  # its words up to what it fills in
        assert in_language(accepted, language) in text, (fragment, text)
        assert "NaN" not in re.sub(r"[“「]NaN[”」]", "", text) and "undefined" not in text, text
        assert not re.search(r"\{(label|value|accepted|min|max|choices|count|fields)\}", text), text
        assert visitor.evaluate(SHOWN) == opening, fragment
        assert visitor.locator(f"{ROOT} img").count() == 0  # what a link holds is written as text
    if language == "zh_TW":
        for key in [k for k in labels if k.startswith("share_")]:
            assert HAN.search(labels[key]) and not ENGLISH_WORDS.search(labels[key]), labels[key]
    assert log2.errors == [] and log2.requests == []


def test_the_language_switch_carries_the_gguf_plan(pages: LanguagePages) -> None:
    _maker, _log, visitor, log2, _opening = pages["en"]
    load(visitor, page_uri("en"))
    visitor.evaluate(SET, {"gguf_source": "mistral-7b", "gguf_recipe": "Q5_K_M", "gguf_context": "12345",
                           "gguf_rank_all": "true"})
    sort_by(visitor, "headroom", "descending")
    shown = visitor.evaluate(SHOWN)
    visitor.locator("a.language-switch").first.click()
    visitor.wait_for_url(re.compile(r"/zh_TW/19-will-it-fit\.html#gguf=1&"))
    there = visitor.evaluate(SHOWN)
    assert there["values"] == shown["values"] and there["plan"] == shown["plan"] and there["sort"] == shown["sort"]
    numbers = [[cell for cell in row if re.fullmatch(r"[0-9,.]+", cell)] for row in shown["rank"]]
    assert [[cell for cell in row if re.fullmatch(r"[0-9,.]+", cell)] for row in there["rank"]] == numbers
    assert HAN.search(there["verdict"])
    assert log2.errors == [] and log2.requests == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_copy_link_is_keyboard_driven_and_passes_axe(language: str, pages: LanguagePages) -> None:
    maker, _log, visitor, log2, _opening = pages[language]
    labels = json.loads(maker.locator(ROOT).get_attribute("data-labels"))
    load(visitor, page_uri(language) + "#gguf=1&context=0")  # the note shown, for axe to judge too
    visitor.context.grant_permissions(["clipboard-read", "clipboard-write"])
    visitor.evaluate(SET, {"gguf_source": "qwen2.5-7b", "gguf_context": "7777", "gguf_rank_all": "true"})
    button = visitor.locator(f"{ROOT} [data-share-copy]")
    assert button.text_content() == labels["share_copy"]
    visitor.locator(f'{ROOT} [name="gguf_rank_all"]').focus()
    visitor.keyboard.press("Tab")  # the form's last field, then the button
    assert visitor.evaluate("document.activeElement.hasAttribute('data-share-copy')")
    visitor.keyboard.press("Enter")
    status = visitor.locator(f"{ROOT} [data-share-status]")
    visitor.wait_for_function("(s) => document.querySelector(s).textContent !== ''",
                              arg=f"{ROOT} [data-share-status]", timeout=5000)
    assert status.text_content() == labels["share_copied"]
    assert visitor.evaluate("navigator.clipboard.readText()") == visitor.evaluate("location.href")
    assert "context=7777" in visitor.evaluate("location.href")
    load(visitor, page_uri(language) + "#gguf=1&context=0")
    source = axe_source()
    failures = []
    for scheme in SCHEMES:
        visitor.emulate_media(color_scheme=scheme)
        failures += [f"{scheme} {line}" for line in run_axe(visitor, source, ROOT)]
    assert not failures, "\n".join(failures)
    assert log2.errors == [] and log2.requests == []


PLANNER = '.calculator[data-calculator="planner"]'


def test_the_page_s_two_planners_each_keep_to_their_own_link(pages: LanguagePages) -> None:
    """Page 19 holds the main planner too: its link (#plan=) and the GGUF planner's (#gguf=) each restore their own
    planner and leave the other as it is, without a note."""
    _maker, _log, visitor, log2, _opening = pages["en"]
    load(visitor, page_uri("en") + "#gguf=1&source=qwen2.5-7b&context=5000")
    gguf = visitor.evaluate(SHOWN)
    assert gguf["values"]["gguf_context"] == "5000" and gguf["state"] == "plan"
    main_context = visitor.locator(f'{PLANNER} [name="context"]').input_value()
    assert not visitor.locator(f'{PLANNER} [data-out="share-note"]').is_visible()
    open_fragment(visitor, "#plan=1&context=3000")
    assert visitor.locator(f'{PLANNER} [name="context"]').input_value() == "3000" != main_context
    assert visitor.evaluate(SHOWN) == gguf
    assert not visitor.locator(f"{ROOT} [data-share-note]").is_visible()
    visitor.evaluate(SET, {"gguf_context": "6000"})  # the planner the reader changed last names the link
    address = visitor.evaluate("location.hash")
    assert address.startswith("#gguf=1&") and "context=6000" in address
    assert log2.errors == [] and log2.requests == []


FIELD_VALUES = {
    "source": ["llama-3.1-8b", "qwen2.5-7b", "phi-2", "mistral-7b", "", "gpt-5", "<b>"],
    "recipe": ["Q4_K_M", "Q8_0", "q4_k_m", ""],
    "imatrix": ["true", "false", "1"], "context": ["1", "4096", "16777216", "16777217", "-5", "1.5", " 7"],
    "ubatch": ["512", "65536", "0"], "cache_k": ["f16", "q4_0", "bf16"], "cache_v": ["f16", "q8_0", ""],
    "flash": ["true", "false", "True"], "compute_buffer": ["", "0", "512.5", "1000001", ".5", "1e3"],
    "ngl": ["", "0", "33", "16777217", "all"], "gpu": ["24", "23034 MiB", "16 GB", "0", "100001", "24 GiB"],
    "beyond": ["true", "false"], "rank_all": ["true", "false"],
    "sort": ["rank-ascending", "context-descending", "verdict-ascending"], "gguf": ["1", "2"], "extra": ["1"],
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_any_mix_of_good_and_bad_values_is_restored_whole_or_refused_whole(language: str, pages: LanguagePages) -> None:
    """Forty seeded fragments mixing valid and invalid values: each either restores every value it names (and no
    note) or leaves the defaults with a note; never a script error."""
    _maker, _log, visitor, log2, opening = pages[language]
    rng = random.Random(7)
    load(visitor, page_uri(language))
    note = visitor.locator(f"{ROOT} [data-share-note]")
    outcomes = set()
    for index in range(40):
        names = ["source", *rng.sample(sorted(set(FIELD_VALUES) - {"source"}), rng.randint(0, 3))]
        given = {name: rng.choice(FIELD_VALUES[name]) for name in names}
        fragment = "#" + urllib.parse.urlencode({"gguf": given.pop("gguf", "1"), **given})
        visitor.evaluate(SET, {"gguf_source": "mistral-7b", "gguf_context": str(2000 + index)})
        open_fragment(visitor, fragment)
        shown = visitor.evaluate(SHOWN)
        if note.is_visible():
            assert shown == opening, fragment
            outcomes.add("refused")
        else:
            named = {f"gguf_{name}": value for name, value in given.items() if name != "sort"}
            assert {name: shown["values"][name] for name in named} == named, fragment
            outcomes.add("restored")
    assert outcomes == {"refused", "restored"}
    assert log2.errors == [] and log2.requests == []
