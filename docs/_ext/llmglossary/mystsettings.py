"""Make translated builds faster: MyST's per-message setup is done once, not per message.

For a translated page, Sphinx parses every translated message on its own, about 4,100
of them in the zh_TW build.  MyST-Parser (5.2) pays three set-up costs for each of those
small parses, whose results are the same every time or never used:

* **docutils' default settings.**  Each parse gets a fresh docutils document whose
  settings are built from scratch, by assembling an option parser of some 70 options
  (about a quarter of the zh_TW build).  They are now built once per parser class and
  each document gets its own deep copy: the same object a fresh build would give.
* **A document that is thrown away.**  The renderer's set-up builds a new document
  (settings and all) as the default for the document it is given, and discards it.
  The shared parsers' renderer skips that default when a document is given.
* **The markdown-it parser.**  ``MystParser.parse`` creates a new parser (core, block
  and inline rule chains, a dozen plugins, a renderer that collects its ``render_*``
  methods) for every message (2.7 s of the zh_TW build under the profiler).  Parsing
  keeps its state in the markdown-it environment and the renderer resets its own at
  every render, so one parser per configuration serves every parse
  (:func:`shared_md_parser`).  A parser is reused only when no render is running on
  it: a parse started from inside another (a directive that parses a whole document)
  gets a fresh one, as before.  ``tests/test_mystsettings.py`` checks that the doctrees
  are identical with and without reuse.

These replace module globals of MyST-Parser, so they apply only to the releases they
were written for (:data:`PATCHED_VERSIONS`); on any other the build runs unpatched,
just slower.  A canary test fails when the installed MyST-Parser is not one of them:
then check whether the release does this itself (drop the patch) or not (add the
version).  Upstream: no MyST-Parser issue exists for any of them yet (none found on
2026-12-01); the first two are ready to file, issue text and patch with its test, in
``upstream/myst-parser-per-message-setup/``; the third would follow as a parser cache
inside ``MystParser.parse`` with the same busy check.  The releases are the registry's
(:mod:`workarounds`, row ``mystsettings``).
"""

from __future__ import annotations

import copy
import functools
from typing import TYPE_CHECKING, Any

import myst_parser
import myst_parser.mdit_to_docutils.base as myst_base
import myst_parser.parsers.sphinx_ as myst_sphinx
from docutils.frontend import get_default_settings
from myst_parser.parsers.mdit import create_md_parser

from .workarounds import REGISTRY

if TYPE_CHECKING:
    from collections.abc import Callable

    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererProtocol
    from myst_parser.config.main import MdParserConfig
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


PATCHED_VERSIONS = REGISTRY["mystsettings"].versions


@functools.cache
def _pristine_defaults(*components: Any) -> Any:
    return get_default_settings(*components)


def default_settings(*components: Any) -> Any:
    """``docutils.frontend.get_default_settings``, from a cache, as an independent copy."""
    return copy.deepcopy(_pristine_defaults(*components))


def _no_document(source_path: Any = None, parser_cls: Any = None) -> Any:
    """Stands in for ``make_document`` where its document would be discarded."""
    return None


@functools.cache
def _busy_tracking(renderer: type) -> type:
    """``renderer`` with a flag that is set while a render runs, and no discarded document."""

    class Tracked(renderer):  # type: ignore[misc]
        rendering = False

        def render(self, *args: Any, **kwargs: Any) -> Any:
            self.rendering = True
            try:
                return super().render(*args, **kwargs)
            finally:
                self.rendering = False

        def setup_render(self, options: dict[str, Any], env: Any) -> None:
            # ``options.get("document", make_document())`` builds a whole document (and
            # its settings) as the default even when a document is given, which for
            # Sphinx is always: the upstream fix is to call make_document only when
            # "document" is missing.  Until then it is swapped out for this one call.
            if "document" not in options:
                super().setup_render(options, env)
                return
            make_document = myst_base.make_document
            myst_base.make_document = _no_document
            try:
                super().setup_render(options, env)
            finally:
                myst_base.make_document = make_document

    Tracked.__name__ = Tracked.__qualname__ = renderer.__name__
    return Tracked


_shared_parsers: dict[type, tuple[MdParserConfig, MarkdownIt]] = {}
"""Renderer class -> the configuration and the parser last built for it."""


def shared_md_parser(config: MdParserConfig, renderer: Callable[[MarkdownIt], RendererProtocol]) -> MarkdownIt:
    """``create_md_parser``, reusing the last parser built for ``config`` when it is idle.

    The configuration is compared by identity: it is one object for a whole build, and
    a page's front matter makes a new one (which then gets its own parser).
    """
    tracked = _busy_tracking(renderer)
    cached = _shared_parsers.get(tracked)
    if cached is not None and cached[0] is config and not cached[1].renderer.rendering:  # type: ignore[attr-defined]
        return cached[1]
    parser = create_md_parser(config, tracked)
    if cached is None or cached[0] is not config:
        _shared_parsers[tracked] = (config, parser)
    return parser


def setup(app: Sphinx) -> ExtensionMetadata:
    if myst_parser.__version__ in PATCHED_VERSIONS:
        myst_base.get_default_settings = default_settings  # type: ignore[attr-defined]
        myst_sphinx.create_md_parser = shared_md_parser  # type: ignore[attr-defined]
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
