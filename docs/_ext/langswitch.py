"""A link on every page to the same page in the other language.

Both editions are built side by side (``_build/html/en/`` and ``_build/html/zh_TW/``),
so the link is a relative path computed at build time: it works from ``file://``, a
zip or any static host, with no server-side redirect.  The sidebar template
``sidebar/language.html`` renders it; a one-line script carries the reader's current
``#anchor`` across, since anchors are identical in both languages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

EDITIONS = {"en": ("English", "en"), "zh_TW": ("繁體中文", "zh-TW")}
"""Output directory name -> (name shown to readers, BCP 47 tag for hreflang)."""


def other_edition(language: str) -> str:
    return "zh_TW" if language == "en" else "en"


def language_switch_url(pagename: str, target: str, suffix: str = ".html") -> str:
    """Relative URL from ``pagename`` in one edition to the same page in ``target``.

    >>> language_switch_url("index", "zh_TW")
    '../zh_TW/index.html'
    >>> language_switch_url("guide/lora", "en")
    '../../en/guide/lora.html'
    """
    depth = pagename.count("/") + 1
    return "../" * depth + f"{target}/{pagename}{suffix}"


def add_switch(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    target = other_edition(app.config.language)
    label, tag = EDITIONS[target]
    context["language_switch"] = {
        "url": language_switch_url(pagename, target, app.builder.out_suffix),
        "label": label,
        "hreflang": tag,
    }


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("html-page-context", add_switch)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
