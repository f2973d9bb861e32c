"""Fail a translated build that shows a message in English because its catalog has no translation for it.

When the English of a message changes, its ``.po`` entry keeps the old English until
``make intl-update`` merges the change and marks it fuzzy; until then Sphinx finds no
translation for the new English, shows it as it is, and says nothing.  So a catalog that
reports 100 % translated can still leave English on a zh_TW page (an ``llmcalc``
docstring, reworded on 2026-12-01, did so on the reference pages for a day).

Sphinx's ``Locale`` transform marks each message it looked up with ``translated``:
``False`` when the catalog has no translation for it.  Some of those are not English: the
headings autodoc and napoleon write (``Parameters``) come out of Sphinx's own catalog
already in the page's language.  So this transform, run after ``Locale``, reports a
message as untranslated when Sphinx found no translation for it, it has letters of the
source, and none of the translation's script (``glossary_translation_script``, a regular
expression; Han characters by default).  The warning names the message and the catalog
to add it to, at the English source line, with ``type="glossary"`` and
``subtype="untranslated"``; ``-W`` makes it an error.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from .translatedterms import catalogs

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
SOURCE_LETTER = re.compile(r"[A-Za-z]")


def untranslated_text(text: str, script: re.Pattern[str]) -> bool:
    """True for text still in the source language: letters of it and no character of the translation's script.

    >>> han = re.compile(HAN)
    >>> untranslated_text("Every input llmcalc refuses raises an error.", han), untranslated_text("參數", han)
    (True, False)
    >>> untranslated_text("用 llmcalc 計算。", han), untranslated_text("", han)
    (False, False)
    """
    return bool(SOURCE_LETTER.search(text)) and not script.search(text)


@functools.cache
def _catalog_entries(path: Path, modified: int) -> dict[str, tuple[int, str]]:
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        catalog = read_po(handle)
    return {
        " ".join(message.id.split()): (message.lineno or 0, "fuzzy" if message.fuzzy else "empty")
        for message in catalog
        if isinstance(message.id, str) and message.id and (message.fuzzy or not message.string)
    }


def catalog_entries(path: Path) -> dict[str, tuple[int, str]]:
    """msgid (spaces collapsed) -> (its line in the catalog, "empty" or "fuzzy"), for each message
    the catalog holds but does not translate: the translator is sent to that line."""
    return _catalog_entries(path, path.stat().st_mtime_ns)


class UntranslatedMessages(SphinxTransform):
    """Warn at each message of a translated page that has no translation and shows in the source language."""

    default_priority = 30  # after sphinx.transforms.i18n.Locale (20) marked what it translated

    def apply(self) -> None:
        if self.config.language in (None, "en"):
            return
        found = list(catalogs(self.config, self.env.srcdir, self.env.docname))
        if not found:
            return  # a page without a catalog is reported by the catalog checks, not once per message
        script = re.compile(self.config.glossary_translation_script)
        entries = catalog_entries(found[0].resolve())
        for node in self.document.findall(nodes.Element):
            if node.get("translated") is False and untranslated_text(node.astext(), script):
                entry = entries.get(" ".join(node.rawsource.split()))
                catalog = found[0].resolve()
                if entry is None:
                    advice = f"add its translation to {catalog} (make intl-update merges the English into it)"
                else:
                    line, state = entry
                    advice = f"its entry at {catalog}:{line} is {state}: translate it there"
                logger.warning(
                    "message not translated: %r; %s", node.astext()[:80], advice,
                    location=node, type="glossary", subtype="untranslated",
                )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value("glossary_translation_script", HAN, "env", types=[str])
    app.add_transform(UntranslatedMessages)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
