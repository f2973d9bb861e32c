"""The llmcalc reference pages (issue 17), checked on the built site of both languages.

Every public name has an entry, the command line's reference lists what its parser
accepts, and the examples on the glossary pages link each ``llmcalc`` name they use to
that name's entry.  The oracles are independent of the build: ``llmcalc.__all__``, the
argparse parser itself, and the examples' own source text read with a regular expression.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from bs4 import Tag
from sphinx.util.inventory import InventoryFile

import llmcalc
import llmcalc.teach
from browser import PageLog, browser_pages
from builtsite import built_page
from llmcalc.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
HTML = REPO / "_build" / "html"
LANGUAGES = ("en", "zh_TW")
REFERENCE_PAGES = sorted(path.stem for path in (REPO / "docs").glob("reference-*.md"))
# Pages whose examples use llmcalc in every way the glossary does: an alias (lc.X), the
# reference model's fields (lc.REFERENCE.d_model) and names imported with from-imports.
# Page 05 imports teaching helpers from llmcalc.teach modules.
SAMPLE_PAGES = ("index", "04-how-a-model-learns", "05-the-transformer", "07-gpus-flops-and-memory",
                "10-pre-training-and-fine-tuning")

pytestmark = pytest.mark.site


# Each page is parsed once per run and shared (tests/builtsite.py): read it, never change it.
soup = built_page


def entry_pages(language: str) -> dict[str, str]:
    """Documented Python object -> the reference page that holds its entry (from objects.inv)."""
    with (HTML / language / "objects.inv").open("rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    pages = {}
    for role in ("py:function", "py:class", "py:data", "py:module", "py:attribute", "py:property"):
        for name, item in inventory.get(role, {}).items():
            pages[name] = item.uri.split("#", 1)[0].removesuffix(".html")
    return pages


# The modules whose __all__ is documented name by name: the top level, the planner and what it stands on,
# and the teaching helpers.  (The tables the browser reads from hf, params, lora and config are public but
# are documented by the browser export, llmcalc.browser.)
DOCUMENTED_MODULES = ("llmcalc", "llmcalc.errors", "llmcalc.planner", "llmcalc.activations", "llmcalc.weightformats",
                      "llmcalc.formats", "llmcalc.memory", "llmcalc.engines", "llmcalc.gguf", "llmcalc.offload",
                      "llmcalc.ranking", "llmcalc.runcost", "llmcalc.costcli",
                      *(f"llmcalc.teach.{name}" for name in llmcalc.teach.__all__))


def declared_entries() -> list[str]:
    """Each declared name once, where its entry belongs: at the top level if exported there, else in its module."""
    entries = []
    for module_name in DOCUMENTED_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.ismodule(value):
                entries.append(value.__name__)
            elif module_name == "llmcalc" or not (name in llmcalc.__all__ and getattr(llmcalc, name) is value):
                entries.append(f"{module_name}.{name}")
    return entries


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_public_name_has_one_entry_on_a_reference_page(language: str) -> None:
    pages = entry_pages(language)
    entries = declared_entries()
    missing = [name for name in entries if pages.get(name) not in REFERENCE_PAGES]
    assert missing == []
    for name in entries:
        if name not in (module for module in DOCUMENTED_MODULES):
            assert soup(language, pages[name]).find("dt", id=name) is not None, name
    # A name exported at the top level is documented there only, not a second time in its module.
    twice = [f"{module}.{name}" for module in DOCUMENTED_MODULES[1:] for name in llmcalc.__all__
             if f"{module}.{name}" in pages and f"llmcalc.{name}" in pages]
    assert twice == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_function_entries_show_typed_signatures_and_parameters(language: str) -> None:
    labels = {"en": ("Parameters", "Return type"), "zh_TW": ("參數", "回傳型別")}[language]
    page = soup(language, "reference-memory")
    entry = page.find("dt", id="llmcalc.kv_cache_bytes").parent
    signature = "".join(entry.find("dt").get_text().split()).rstrip("¶")
    assert "(cfg:ModelConfig,tokens:int," in signature and signature.endswith("→int")
    fields = [dt.get_text(strip=True).rstrip(":：") for dt in entry.select("dl.field-list > dt")]
    assert list(labels) == [label for label in fields if label in labels]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("docname", "name"), [
    ("reference-memory", "weight_bytes"), ("reference-models", "ModelConfig"),
    ("reference-math", "teach.attention.softmax"), ("reference-text", "teach.tokenize.bpe_train"),
])
def test_entries_name_the_errors_bad_input_raises(language: str, docname: str, name: str) -> None:
    entry = soup(language, docname).find("dt", id=f"llmcalc.{name}").parent
    label = {"en": "Raises", "zh_TW": "引發"}[language]  # the field label, from Sphinx's own catalog
    fields = [dt.get_text(strip=True).rstrip(":：") for dt in entry.select("dl.field-list > dt")]
    text = entry.get_text(" ", strip=True)
    assert label in fields and "ValueError" in text and "TypeError" in text, name


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("docname", REFERENCE_PAGES)
def test_field_labels_end_with_the_colon_of_the_language(language: str, docname: str) -> None:
    """The 2026-12-07 zh_TW review counted 283 labels such as 「參數:」 on the reference pages."""
    colons = {dt.select_one("span.colon").get_text() for dt in soup(language, docname).select("dl.field-list > dt")}
    assert colons == {"en": {":"}, "zh_TW": {"："}}[language] or (not colons and docname == "reference-cli")


@pytest.mark.parametrize("language", LANGUAGES)
def test_constants_do_not_show_their_types_docstring(language: str) -> None:
    """``GB`` is an int and ``REFERENCE`` a ModelConfig: neither may show int's or the class's help."""
    memory, models = soup(language, "reference-memory").get_text(), soup(language, "reference-models")
    assert "int([x])" not in memory
    reference = models.find("dt", id="llmcalc.REFERENCE").parent
    assert reference.select("dl.field-list") == []


MODEL_FIELDS = {field.name for field in dataclasses.fields(llmcalc.ModelConfig)}


def example_targets(code: str) -> dict[str, str]:
    """What each llmcalc name in an example's source must link to (the oracle).

    ``lc.X`` and names from ``from llmcalc import ...`` link to their own entry;
    ``lc.REFERENCE.d_model`` is one link, to the field of ModelConfig it reads.
    """
    targets = {}
    for chain in re.findall(r"\b(?:lc|llmcalc)\.(\w+(?:\.\w+)?)", code):
        name, _, attribute = chain.partition(".")
        if name in llmcalc.__all__ and inspect.ismodule(getattr(llmcalc, name)):
            # A submodule (llmcalc.planner): its entry is the module's, a name in it is its own entry.
            module = getattr(llmcalc, name)
            declared = attribute in module.__all__ and not hasattr(llmcalc, attribute)
            targets[chain if declared else name] = chain if declared else f"module-llmcalc.{name}"
        elif name in llmcalc.__all__:
            fields_of = isinstance(getattr(llmcalc, name), llmcalc.ModelConfig) and attribute in MODEL_FIELDS
            targets[chain if fields_of else name] = f"ModelConfig.{attribute}" if fields_of else name
    for imported in re.findall(r"from llmcalc import \(?([\w ,]+)\)?", code):
        targets |= {name.strip(): name.strip() for name in imported.split(",") if name.strip() in llmcalc.__all__}
    for module, imported in re.findall(r"from llmcalc\.([\w.]+) import \(?([\w ,]+)\)?", code):
        declared = importlib.import_module(f"llmcalc.{module}").__all__
        names = [name.strip() for name in imported.split(",")]
        targets |= {name: f"{module}.{name}" for name in names if name in declared}
    return targets


def linked_names(block: Tag) -> dict[str, set[str]]:
    """Linked text (``lc.softmax`` as ``softmax``) -> the llmcalc objects its links point to."""
    links: dict[str, set[str]] = {}
    for link in block.find_all("a"):
        text = re.sub(r"^(?:lc|llmcalc)\.", "", link.get_text())
        links.setdefault(text, set()).add(urlsplit(link["href"]).fragment.removeprefix("llmcalc."))
    return links


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("docname", SAMPLE_PAGES)
def test_examples_link_their_llmcalc_names_to_the_reference(language: str, docname: str) -> None:
    blocks = soup(language, docname).select("div.highlight-pycon div.highlight")
    assert blocks, f"{docname} has no examples"
    checked, unlinked = 0, []
    for block in blocks:
        links = linked_names(block)
        for text, target in example_targets(block.get_text()).items():
            checked += 1
            if target not in links.get(text, set()):
                unlinked.append((text, target, sorted(links.get(text, set()))))
    assert checked > 0 and unlinked == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_example_links_point_at_existing_reference_anchors(language: str) -> None:
    anchors: dict[str, set[str]] = {}
    for docname in SAMPLE_PAGES:
        for link in soup(language, docname).select("div.highlight-pycon a"):
            target = urlsplit(link["href"])
            if target.path not in anchors:
                reference = soup(language, target.path.removesuffix(".html"))
                anchors[target.path] = {tag["id"] for tag in reference.select("[id]")}
            assert target.fragment in anchors[target.path], link["href"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_model_fields_in_examples_link_to_model_config(language: str) -> None:
    block = soup(language, "index").select_one("div.highlight-pycon div.highlight")
    assert linked_names(block)["ref.d_model"] == {"ModelConfig.d_model"}


def parser_vocabulary(parser: argparse.ArgumentParser) -> tuple[set[str], set[str]]:
    """Sub-command names and every option string, walked from the parser (the oracle)."""
    commands: set[str] = set()
    options: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                commands.add(name)
                options |= parser_vocabulary(sub)[1]
        options |= {option for option in action.option_strings if option.startswith("--") and option != "--help"}
    return commands, options


@pytest.mark.parametrize("language", LANGUAGES)
def test_command_line_reference_lists_every_command_and_option(language: str) -> None:
    page = soup(language, "reference-cli")
    commands, options = parser_vocabulary(build_parser())
    headings = {heading.get_text(strip=True).rstrip("¶") for heading in page.select("section > h2, section > h3")}
    shown = {option.get_text() for option in page.select("kbd, span.option")}
    shown_text = " ".join(shown)
    assert commands <= headings
    assert [option for option in sorted(options) if option not in shown_text] == []


def test_command_line_help_is_translated() -> None:
    """The parser's help strings reach the zh_TW page translated, not in English."""
    english, chinese = soup("en", "reference-cli").get_text(), soup("zh_TW", "reference-cli").get_text()
    assert "print the result as JSON" in english and "print the result as JSON" not in chinese
    assert "以 JSON 印出結果" in chinese


@pytest.fixture(scope="module")
def tab() -> Iterator[tuple[Any, PageLog]]:
    """One page (one browser context) for both languages: each test starts with a new load in it.

    A new context and its first load cost several times a load in an open page.
    """
    with browser_pages() as new_page:
        yield new_page()


@pytest.mark.browser
@pytest.mark.parametrize("language", LANGUAGES)
def test_clicking_a_name_in_an_example_opens_its_entry_offline(tab: tuple[Any, PageLog], language: str) -> None:
    page, log = tab
    page.goto((HTML / language / "07-gpus-flops-and-memory.html").as_uri())
    page.locator("div.highlight-pycon a", has_text="format_bytes").first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith(f"/{language}/reference-memory.html#llmcalc.format_bytes")
    assert page.locator('dt[id="llmcalc.format_bytes"]').is_visible()
    assert log.errors == [] and log.requests == []
