"""The llmcalc reference pages: what autodoc and sphinx-argparse need to read well in both languages.

Three fixes, each for one upstream behaviour, and one dependency declared:

* A module constant with no docstring of its own (``GB``, ``REFERENCE``) would show its
  type's docstring (int's, ModelConfig's); autodoc does that by design, so this
  ``autodoc-process-docstring`` handler simply drops a docstring that is the type's.
* sphinx-argparse 0.6.1 builds each option's help paragraph without a source, and Sphinx
  treats text without a source as its own built-in text: gettext skips it and the zh_TW
  page keeps it in English (sphinx-doc/sphinx-argparse#67, open).  The transform gives
  those paragraphs the page as their source before the i18n transform runs; it is applied
  only to the sphinx-argparse release it was written for (tests/test_workarounds.py fails
  when the pin moves).
* sphinx-codeautolink (0.19.0 and 0.20.0) reloads its saved examples only for pages
  whose source ends in ``.rst``, so an incremental build that rewrites a MyST page
  without re-reading it writes that page's examples with no links
  (felix-hilden/sphinx-codeautolink#181, open, is the same symptom; the proposed fix is
  ``upstream/sphinx-codeautolink-cache-suffixes/``).  After it has loaded its cache,
  the saved examples of pages with any of the project's source suffixes are restored.
  Since 0.20.0 codeautolink links each page as it is written (``html-page-context``),
  so a page rewritten because the glossary it shows changed is linked too; no more is
  needed for it.

The releases each applies to are in the registry (:mod:`workarounds`).

A field list (an entry's 參數, 回傳型別, 引發) ends each label with the colon docutils'
HTML writer appends, a half-width ``:`` in every language (``depart_field_name``); Chinese
punctuation after Han text is full-width, so a Chinese page gets ``：``.

A page that documents a parser with ``.. argparse::`` depends on the parser's package,
which Sphinx cannot know: without the dependency an incremental build keeps the old
command reference after ``llmcalc/cli.py`` (or a module whose choices it shows) changes.
``note_dependency``, Sphinx's public API for this, records every file of the package.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import re
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.transforms import SphinxTransform

from .workarounds import REGISTRY

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata
    from sphinx.writers.html5 import HTML5Translator

UNTRANSLATED_HELP_VERSIONS = REGISTRY["argparse-help-source"].versions
"""sphinx-argparse releases whose help paragraphs have no source (sphinx-argparse#67)."""
RST_ONLY_CACHE_VERSIONS = REGISTRY["codeautolink-cache"].versions
"""sphinx-codeautolink releases that reload saved examples of ``.rst`` pages only."""


def restore_saved_examples(app: Sphinx) -> None:
    """Give codeautolink back the saved examples of pages whose source is not ``.rst``."""
    from sphinx_codeautolink.extension.backref import CodeExample
    from sphinx_codeautolink.extension.block import SourceTransform
    from sphinx_codeautolink.parse import Name

    transforms = getattr(app.env, "sphinx_codeautolink_transforms", None)
    cache = Path(app.doctreedir, "codeautolink-cache.json")
    if transforms is None or not cache.is_file():
        return
    for page, saved in json.loads(cache.read_text("utf-8")).items():
        has_source = any(Path(app.srcdir, page + suffix).exists() for suffix in app.config.source_suffix)
        if page in transforms or not has_source:
            continue
        for item in saved:
            item["example"] = CodeExample(**item["example"])
            item["names"] = [Name(**name) for name in item["names"]]
        transforms[page] = [SourceTransform(**item) for item in saved]


RAISES = [
    "",
    "Raises",
    "------",
    "TypeError",
    "    A value of the wrong kind (a float or a bool where an exact count is meant, a string that is not a name).",
    "ValueError",
    "    A value outside the accepted range, or a model setting llmcalc does not model; "
    "the message names the parameter, the value and what is accepted.",
]
"""The contract every public llmcalc function and class keeps (its validation lives in ``llmcalc._validate``)."""


def document_raised_errors(app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]) -> None:
    """Give each llmcalc function, method and class entry the errors it raises on bad input."""
    if what in ("function", "method", "class") and name.startswith("llmcalc.") and "Raises" not in lines:
        lines.extend(RAISES)


ARGPARSE_MODULE = re.compile(r"^\s*:module:\s*(\S+)\s*$", re.MULTILINE)


def note_parser_dependencies(app: Sphinx, docname: str, source: list[str]) -> None:
    """Make a page with ``.. argparse::`` depend on every file of the documented parser's package."""
    if ".. argparse::" not in source[0]:
        return
    for module in ARGPARSE_MODULE.findall(source[0]):
        spec = importlib.util.find_spec(module.split(".")[0])
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(folder).glob("*.py")):
                app.env.note_dependency(str(path))


def drop_inherited_docstrings_of_constants(
    app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    """A constant with no docstring of its own would show its type's (int's, ModelConfig's)."""
    type_doc = type(obj).__doc__
    if what == "data" and type_doc and "\n".join(lines).strip() == inspect.cleandoc(type_doc).strip():
        lines.clear()


class TranslateCommandLineReference(SphinxTransform):
    """Give sphinx-argparse's paragraphs the page as their source, so gettext translates them."""

    default_priority = 10  # before sphinx.transforms.i18n.Locale (20) translates the page

    def apply(self) -> None:
        for section in self.document.findall(nodes.section):
            if next(section.findall(nodes.option_list), None) is None:
                continue
            for node in section.findall(nodes.TextElement):
                if not node.source:
                    node.source, node.line = section.source or self.document["source"], section.line or 1


def title_commands_as_shown(app: Sphinx, doctree: nodes.document) -> None:
    """Title each command's search hit with the description its page shows, translated.

    sphinx-argparse registers a command with the parser's description as it is in
    ``llmcalc/cli.py`` (``ArgParseDomain.add_argparse_command``), and the search index
    titles the command's hit with it: English on the zh_TW search page too.  Once the
    page is read and translated, the paragraph that opens the command's section (or
    that precedes the top-level command's anchor) holds the text the page shows.  The
    title leads with the command (``llmcalc kv-cache：幾種上下文長度的 KV 快取位元組數``):
    Sphinx matches an object's query against its title, so a reader who types the
    command's name still finds it, as the English description happened to let one.
    """
    if "sphinxarg.ext" not in app.extensions or app.config.language == "en":
        return  # the parser's own text is what the English page shows
    domain = app.env.get_domain("commands")
    shown: dict[str, str] = {}
    opening: nodes.Node | None
    for node in doctree.findall(nodes.Element):
        if isinstance(node, nodes.section):
            opening = next((child for child in node.children if isinstance(child, nodes.paragraph)), None)
        elif node["ids"] and node.parent is not None:
            # The top-level command's anchor: docutils has moved it from its target to the usage block
            # that follows, so the description is the paragraph before that target.
            siblings = node.parent[: node.parent.index(node)]
            before = [sibling for sibling in siblings if not isinstance(sibling, nodes.target)]
            opening = before[-1] if before else None
        else:
            continue
        if isinstance(opening, nodes.paragraph):
            for node_id in node["ids"]:
                shown.setdefault(node_id, " ".join(opening.astext().split()))
    # Each entry is (command, description, type, docname, anchor, priority).
    domain.data["commands"] = [
        (
            command,
            f"{command}：{shown[anchor]}" if docname == app.env.docname and anchor in shown else description,
            kind,
            docname,
            anchor,
            priority,
        )
        for command, description, kind, docname, anchor, priority in domain.data["commands"]
    ]


def depart_field_name(self: HTML5Translator, node: nodes.Element) -> None:
    """Close a field's label with the colon of the page's language (docutils writes ``:`` always)."""
    colon = "：" if self.config.language.startswith("zh") else ":"
    self.body.append(f'<span class="colon">{colon}</span></dt>\n')


def setup(app: Sphinx) -> ExtensionMetadata:
    from sphinx.writers.html5 import HTML5Translator

    app.add_node(nodes.field_name, override=True, html=(HTML5Translator.visit_field_name, depart_field_name))
    app.connect("autodoc-process-docstring", drop_inherited_docstrings_of_constants, priority=100)
    app.connect("autodoc-process-docstring", document_raised_errors, priority=100)
    app.connect("source-read", note_parser_dependencies)
    app.connect("doctree-read", title_commands_as_shown)
    if version("sphinx-argparse") in UNTRANSLATED_HELP_VERSIONS:
        app.add_transform(TranslateCommandLineReference)
    if version("sphinx-codeautolink") in RST_ONLY_CACHE_VERSIONS:
        app.connect("builder-inited", restore_saved_examples, priority=600)  # after codeautolink loads its cache
    # env_version: environments saved before pages recorded their parser dependencies (2), or before commands
    # were titled as their page shows them (3), are read again.
    return {"version": "1.1", "env_version": 3, "parallel_read_safe": True, "parallel_write_safe": True}
