"""pybtex's plain-text backend found once per process, not once per citation.

sphinxcontrib-bibtex 2.7.0 resolves every ``{cite:p}`` reference by asking pybtex for
its ``plaintext`` backend (``BibtexDomain.resolve_xref`` calls
``pybtex.plugin.find_plugin("pybtex.backends", "plaintext")``), and pybtex 0.26
answers each request by reading the entry points of every installed distribution:
about 2 ms a citation, some 900 citations a language, in every builder that writes
(html, text, latex, epub).  pybtex looks at plugins registered at run time before
the entry points, so registering the very class the entry point names, through
pybtex's public ``register_plugin``, turns each lookup into a dictionary read.
Nothing else changes: it is the same class.

The registry row is ``bibtexplugins`` in ``workarounds.py``; the change proposed
upstream (the domain resolves the backend once) is in
``upstream/sphinxcontrib-bibtex-backend-once/``.
"""

from __future__ import annotations

from importlib.metadata import entry_points, version
from typing import TYPE_CHECKING

import pybtex.plugin

from .workarounds import REGISTRY

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

PATCHED_VERSIONS = REGISTRY["bibtexplugins"].versions
BACKENDS = "pybtex.backends"
PLAINTEXT = "plaintext"


def register_plaintext_backend() -> None:
    """Register the class of pybtex's ``plaintext`` entry point as a run-time plugin (idempotent)."""
    (entry_point,) = entry_points(group=BACKENDS, name=PLAINTEXT)
    pybtex.plugin.register_plugin(BACKENDS, PLAINTEXT, entry_point.load(), force=True)


def setup(app: Sphinx) -> ExtensionMetadata:
    if version("sphinxcontrib-bibtex") in PATCHED_VERSIONS:
        register_plaintext_backend()
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
