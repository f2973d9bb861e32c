"""Prove that every glossary definition uses only terms defined before it.

This glossary is meant to be read top to bottom: pages in toctree order, entries in
page order.  That promise is only worth something if the build checks it, so once
every document is read this extension walks :mod:`glossary`'s graph and warns (an
error under ``-W``) about each definition that links a term defined later in reading
order, naming both ends by file and line.  The warning has ``type="glossary"`` and
``subtype="forward_reference"``, so it can be suppressed like any Sphinx warning.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sphinx.util import logging

from .glossary import Entry, GlossaryGraph, glossary

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)


def forward_references(graph: GlossaryGraph) -> Iterable[tuple[Entry, Entry, int]]:
    """Yield (entry, later entry it uses, line of the reference)."""
    for entry in graph.entries:
        for used, line in graph.uses[entry.key]:
            if used.rank > entry.rank:
                yield entry, used, line


def check_order(app: Sphinx, env: BuildEnvironment) -> None:
    """Warn about every definition that links a term defined later."""
    for entry, used, line in forward_references(glossary(env).graph()):
        defined_at = f"{env.doc2path(used.docname, False)}:{used.record['line']}"
        logger.warning(
            "glossary entry %r uses term %r, which is defined later in reading order "
            "(at %s); define %r first or drop the link",
            entry.name,
            used.name,
            defined_at,
            used.name,
            location=(entry.docname, line),
            type="glossary",
            subtype="forward_reference",
        )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("llmglossary.glossary")  # the store this check reads, not a feature of its own
    app.connect("env-check-consistency", check_order)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
