"""A link on every page to the same page in the other language.

Both editions are built side by side (``_build/html/en/`` and ``_build/html/zh_TW/``),
so the link is a relative path computed at build time: it works from ``file://``, a
zip or any static host, with no server-side redirect.  On Read the Docs the editions
live at ``/<language>/<version>/`` instead (``/en/latest/``, ``/zh-tw/latest/``): the
build there sets ``language_switch_layout = "readthedocs"`` (see conf.py).  The live preview
(``make livehtml``) serves one folder, with English at its root and zh_TW in ``zh_TW/``:
it sets ``language_switch_layout = "live"``.  The sidebar template
``sidebar/language.html`` renders it; a one-line script carries the reader's current
``#anchor`` across, since anchors are identical in both languages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.errors import ConfigError

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata

EDITIONS = {"en": ("English", "en"), "zh_TW": ("繁體中文", "zh-TW")}
"""Output directory name -> (name shown to readers, BCP 47 tag for hreflang)."""


def other_edition(language: str) -> str:
    return "zh_TW" if language == "en" else "en"


READTHEDOCS_LANGUAGES = {"en": "en", "zh_TW": "zh-tw"}
"""Output directory name -> the language segment of Read the Docs URLs."""

LIVE_ROOT = "en"
"""The edition at the root of the live preview's folder (the other one is in a subfolder)."""
LAYOUTS = ("sibling", "readthedocs", "live")


def language_switch_url(
    pagename: str, target: str, suffix: str = ".html", *, layout: str = "sibling", version: str = "latest"
) -> str:
    """Relative URL from ``pagename`` in one edition to the same page in ``target``.

    >>> language_switch_url("index", "zh_TW")
    '../zh_TW/index.html'
    >>> language_switch_url("guide/lora", "en")
    '../../en/guide/lora.html'
    >>> language_switch_url("index", "zh_TW", layout="readthedocs", version="latest")
    '../../zh-tw/latest/index.html'

    The live preview serves English at the root and zh_TW below it:

    >>> language_switch_url("guide/lora", "zh_TW", layout="live")
    '../zh_TW/guide/lora.html'
    >>> language_switch_url("guide/lora", "en", layout="live")
    '../../guide/lora.html'
    """
    if layout == "live":
        # From an English page at the root down into zh_TW/, or from zh_TW/ back up.
        depth = pagename.count("/") + (1 if target == LIVE_ROOT else 0)
        return "../" * depth + ("" if target == LIVE_ROOT else f"{target}/") + f"{pagename}{suffix}"
    if layout == "readthedocs":
        depth = pagename.count("/") + 2
        return "../" * depth + f"{READTHEDOCS_LANGUAGES[target]}/{version}/{pagename}{suffix}"
    depth = pagename.count("/") + 1
    return "../" * depth + f"{target}/{pagename}{suffix}"


def add_switch(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    target = other_edition(app.config.language)
    label, tag = EDITIONS[target]
    context["language_switch"] = {
        "url": language_switch_url(
            pagename,
            target,
            app.builder.out_suffix if isinstance(app.builder, StandaloneHTMLBuilder) else ".html",
            layout=app.config.language_switch_layout,
            version=app.config.language_switch_version,
        ),
        "label": label,
        "hreflang": tag,
    }


def check_layout(app: Sphinx, config: Config) -> None:
    if config.language_switch_layout not in LAYOUTS:
        raise ConfigError(
            f"language_switch_layout must be one of {', '.join(map(repr, LAYOUTS))}; "
            f"got {config.language_switch_layout!r}"
        )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value("language_switch_layout", "sibling", "html", str)  # one of LAYOUTS
    app.add_config_value("language_switch_version", "latest", "html", str)
    app.connect("config-inited", check_layout)
    app.connect("html-page-context", add_switch)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
