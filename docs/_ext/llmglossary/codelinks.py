"""The pages' examples linked to the llmcalc reference: sphinx-codeautolink, set up by the package.

Exists so that a project lists ``"llmglossary"`` alone and its examples still get their
links: this sets up sphinx-codeautolink as it is.  Until 2026-12-07 it also handed
codeautolink only a page's code blocks instead of the whole page body; that saved about
1.0 s of CPU in a fresh English build, under twice the build's noise (1.25 s), so the
workaround went (``benchmarks/bench_workarounds.py``, the registry's rule in
:mod:`.workarounds`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


def setup(app: Sphinx) -> ExtensionMetadata:
    """Set sphinx-codeautolink up."""
    app.setup_extension("sphinx_codeautolink")
    return {"version": "3.0", "parallel_read_safe": True, "parallel_write_safe": True}
