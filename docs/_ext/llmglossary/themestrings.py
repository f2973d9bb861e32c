"""Translate the interface strings that the Furo theme writes in English only.

Furo passes most of its labels through Sphinx's translations, but a few are literal
English in its templates: the light/dark switch, the sidebar toggles, the titles of its
icons and the possessive in the footer's "Made with Sphinx and @pradyunsg's Furo".
Rather than copy whole templates to change a few words, this Jinja extension rewrites
those literals into ``{{ _("…") }}`` calls as Furo's templates are loaded, so they are
looked up in the ``sphinx`` catalog (``locales/zh_TW/LC_MESSAGES/sphinx.po``) like every
other theme string.  The test
suite checks the zh_TW pages for the translations, so a Furo release that rewords a
string cannot silently bring English back.

The rewrite matches Furo's template text, so it applies only to the releases it was
written for (:data:`REWRITTEN_VERSIONS`); a canary test fails when the installed Furo is
not one of them, so the strings are re-checked rather than carried.  Upstream: the
labels are literal English in Furo's templates; no Furo issue exists yet (none found on
2026-12-01); the issue text and the patch with its test are ready in
``upstream/furo-translatable-labels/``.  The releases are the registry's
(:mod:`workarounds`, row ``themestrings``).
"""

from __future__ import annotations

from importlib.metadata import version
from typing import TYPE_CHECKING

from jinja2.ext import Extension

from .workarounds import REGISTRY

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

ARIA_LABELS = (
    "Toggle site navigation sidebar",
    "Toggle table of contents sidebar",
    "Toggle Light / Dark / Auto color theme",
)
ICON_TITLES = (
    "Contents",
    "Menu",
    "Expand",
    "Light mode",
    "Dark mode",
    "Auto light/dark, in light mode",
    "Auto light/dark, in dark mode",
)
# The footer's "@pradyunsg's Furo": the possessive is literal English between two links.
POSSESSIVE = "</a>'s"
TEMPLATES = ("page.html", "partials/icons.html")
REWRITTEN_VERSIONS = REGISTRY["themestrings"].versions


def translatable(source: str) -> str:
    """Wrap Furo's literal English labels in gettext calls."""
    for label in ARIA_LABELS:
        source = source.replace(f'aria-label="{label}"', f'aria-label="{{{{ _({label!r}) }}}}"')
    for title in ICON_TITLES:
        source = source.replace(f"<title>{title}</title>", f"<title>{{{{ _({title!r}) }}}}</title>")
    return source.replace(POSSESSIVE, "</a>{{ _(\"'s\") }}")


class TranslateThemeLiterals(Extension):
    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return translatable(source) if name in TEMPLATES else source


def install(app: Sphinx) -> None:
    if version("furo") not in REWRITTEN_VERSIONS:
        return
    templates = getattr(app.builder, "templates", None)
    if templates is not None and hasattr(templates, "environment"):
        templates.environment.add_extension(TranslateThemeLiterals)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("builder-inited", install)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
