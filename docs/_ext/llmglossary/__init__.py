"""The LLM glossary's own Sphinx extensions, one module (or subpackage) per feature.

Exists so that ``conf.py`` lists the glossary's extensions once (``"llmglossary"``) and
each feature stays loadable on its own (``"llmglossary.termorder"``), as the tests' tiny
sites load them.  The package is installed in development mode from
``docs/_ext/pyproject.toml`` (``make install``), so no ``sys.path`` entry is needed.

:func:`setup` sets up every feature in :data:`FEATURES`, in that order: the order in
which their event handlers are connected, which some rely on (``reference``'s cache fix
runs after sphinx-codeautolink, which ``codelinks`` sets up).  Every module's docstring says why it
exists; the README's extension table is made from those docstrings
(``tools/extension_table.py``, checked by ``tests/test_workarounds.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

__version__ = "1.0"

FEATURES = (
    "codelinks",  # sphinx-codeautolink, which reference.py's handlers work with
    "reference",
    "bibtexplugins",
    "citationlabels",
    "translatedterms",
    "untranslated",
    "termorder",
    "termlinks",
    "termindex",
    "mathml",
    "zhsearch",
    "glossarysearch",
    "langswitch",
    "calculators",
    "ggufplanner",
    "speedestimate",
    "vllmspeedwidget",
    "termpreviews",
    "copycode",
    "themestrings",
    "conceptmap",
    "figures",
    "mystsettings",
    "i18nparses",
)
"""Every feature module, set up in this order by :func:`setup`."""


def setup(app: Sphinx) -> ExtensionMetadata:
    for feature in FEATURES:
        app.setup_extension(f"{__name__}.{feature}")
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
