"""Make translated builds faster by building docutils' default settings only once.

For a translated page, Sphinx parses every translated message on its own; MyST-Parser
(5.2) gives each of those small parses a fresh docutils document whose settings it
builds from scratch, by assembling an option parser of some 70 options.  In the zh_TW
build that happened 4,126 times and took about a quarter of the whole build.  The
defaults never change during a build, so they are built once per parser class and
each document gets its own deep copy: the result is the same object a fresh build
would give, at a small fraction of the cost.

This replaces a module global of MyST-Parser, so it applies only to the releases it was
written for (:data:`PATCHED_VERSIONS`); on any other the build runs unpatched, just
slower.  A canary test fails when the installed MyST-Parser is not one of them: then
check whether the release caches the settings itself (drop this module) or not (add the
version).  Upstream: no MyST-Parser issue exists for this yet (none found on
2026-11-30); the measurement above is what to file with one.
"""

from __future__ import annotations

import copy
import functools
from typing import TYPE_CHECKING, Any

import myst_parser
import myst_parser.mdit_to_docutils.base as myst_base
from docutils.frontend import get_default_settings

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


PATCHED_VERSIONS = frozenset({"5.2.0"})


@functools.cache
def _pristine_defaults(*components: Any) -> Any:
    return get_default_settings(*components)


def default_settings(*components: Any) -> Any:
    """``docutils.frontend.get_default_settings``, from a cache, as an independent copy."""
    return copy.deepcopy(_pristine_defaults(*components))


def setup(app: Sphinx) -> ExtensionMetadata:
    if myst_parser.__version__ in PATCHED_VERSIONS:
        myst_base.get_default_settings = default_settings  # type: ignore[attr-defined]
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
