"""Citations that cost no scan of the installed packages each: pybtex's plugins looked up once per build.

Exists because pybtex (0.26.1) finds a plugin, a backend or a style, by scanning the
entry points of every installed distribution on every call (``importlib.metadata`` keeps
no cache), and sphinxcontrib-bibtex (2.7.0) asks for one for each citation it resolves
and each bibliography it formats: about 900 scans in a fresh English build, of 2 to 3 ms
of CPU each, for the same few classes.  pybtex's public ``register_plugin`` puts a class
in front of that scan.  Before the first page is read, :func:`register_pybtex_plugins`
registers, under its own name, the very class each entry point of the groups the
bibliography uses loads, so that every later lookup finds it without a scan: the same
classes, so the same pages.

The releases it applies to are the registry's (:mod:`.workarounds`, row
``pybtex-plugins``); upstream, the same change is a cache of the entry points per group
inside pybtex (``upstream/pybtex-entry-point-cache/``).
"""

from __future__ import annotations

from importlib.metadata import entry_points, version
from typing import TYPE_CHECKING

from .workarounds import REGISTRY

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata

PATCHED_VERSIONS = REGISTRY["pybtex-plugins"].versions
"""pybtex releases whose ``find_plugin`` scans the entry points on every call."""

PLUGIN_GROUPS = (
    "pybtex.backends",
    "pybtex.style.formatting",
    "pybtex.style.labels",
    "pybtex.style.names",
    "pybtex.style.sorting",
)
"""The pybtex plugin groups sphinxcontrib-bibtex looks plugins up in while it writes pages."""


def register_pybtex_plugins(app: Sphinx | None = None, config: Config | None = None) -> int:
    """Register each plugin of :data:`PLUGIN_GROUPS` under its own name; return how many.

    A plugin whose module fails to import is left to pybtex, which raises the same error
    if the site asks for it.
    """
    import pybtex.plugin

    registered = 0
    for group in PLUGIN_GROUPS:
        for entry_point in entry_points(group=group):
            try:
                plugin = entry_point.load()
            except Exception:  # whatever a third-party plugin raises is pybtex's to report, if it is asked for
                continue
            pybtex.plugin.register_plugin(group, entry_point.name, plugin, force=True)
            registered += 1
    return registered


def setup(app: Sphinx) -> ExtensionMetadata:
    if version("pybtex") in PATCHED_VERSIONS:
        app.connect("config-inited", register_pybtex_plugins)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
