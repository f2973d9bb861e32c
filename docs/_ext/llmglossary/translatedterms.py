"""Report a translation's term links against the ``.po`` line the translator edits.

When a translated message links other terms than its English (a lost link, a target
typed in Chinese), Sphinx reports it, if at all, at the English ``.md`` line of the
paragraph, because it looks translations up in the compiled catalog, where ``.po``
lines are gone.  Before Sphinx translates a page, this transform reads the page's
``.po`` with Babel (which keeps line numbers) and warns at ``file.po:line`` for each
message whose ``{term}`` targets differ from its English, naming what is lacking and
what is extra.  The warning has ``type="glossary"`` and ``subtype="translated_term"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from babel.messages.pofile import read_po
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)
TERM_ROLE = re.compile(r"\{term\}`(?P<text>[^`<]*?)\s*(?:<(?P<target>[^`>]*)>)?`")


def term_targets(text: str) -> list[str]:
    """The targets of the ``{term}`` links in MyST text, sorted (Sphinx matches them case-sensitively)."""
    return sorted((match["target"] or match["text"]).strip() for match in TERM_ROLE.finditer(text))


@cache
def mismatches(catalog: Path, mtime: float) -> tuple[tuple[int, list[str], list[str]], ...]:
    """(line, lacking targets, extra targets) for each message of ``catalog`` whose links differ."""
    with catalog.open("rb") as handle:
        messages = read_po(handle)
    found = []
    for message in messages:
        if not message.id or not isinstance(message.string, str) or not message.string or message.fuzzy:
            continue
        source, translation = term_targets(str(message.id)), term_targets(message.string)
        if source != translation:
            lacking = sorted(set(source) - set(translation))
            extra = sorted(set(translation) - set(source))
            found.append((message.lineno or 0, lacking, extra))
    return tuple(found)


def catalogs(config: Config, srcdir: Path, docname: str) -> Iterable[Path]:
    domain = docname_to_domain(docname, config.gettext_compact)
    for directory in config.locale_dirs:
        path = Path(srcdir, directory, str(config.language), "LC_MESSAGES", f"{domain}.po")
        if path.is_file():
            yield path


class TranslatedTermLinks(SphinxTransform):
    """Warn at the ``.po`` line of every translated message whose term links differ from its English."""

    default_priority = 15  # before sphinx.transforms.i18n.Locale (20) translates the page

    def apply(self) -> None:
        if self.config.language in (None, "en"):
            return
        for catalog in catalogs(self.config, self.env.srcdir, self.env.docname):
            for line, lacking, extra in mismatches(catalog, catalog.stat().st_mtime):
                logger.warning(
                    "translated message's term links differ from the English: lacks %s, adds %s; link the "
                    "same targets as the English, e.g. {term}`中文 <English term>`",
                    lacking or "nothing", extra or "nothing",
                    location=f"{catalog}:{line}", type="glossary", subtype="translated_term",
                )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_transform(TranslatedTermLinks)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
