"""How a figure becomes SVG: matplotlib with text kept as text, ids made unique, cached by content.

Why matplotlib: the figures are curves (a learning-rate schedule, a roofline, a KV cache
growing to fill a card) and grids and blocks (a causal mask, heads sharing a key/value head,
bit layouts), and matplotlib draws both from the same numbers with one set of fonts and
colours, offline, from a maintained release with wheels for every platform.  Its SVG backend
keeps text as ``<text>`` elements (``svg.fonttype = "none"``), so the browser sets the
labels in the page's own fonts (Chinese ones included), a reader can search and copy them,
and the drawing needs no font with Chinese glyphs.  Graphviz would have added a system
package for the few block-and-arrow pictures, which matplotlib draws as boxes too.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import re
import warnings
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from babel.numbers import format_decimal

from ..glossary_html import NOT_HIGHLIGHTED
from .catalog import FIGURES

if TYPE_CHECKING:
    from collections.abc import Mapping

# One palette, colour-blind safe (Okabe and Ito), text dark on white.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")
STYLE: dict[str, Any] = {
    "svg.fonttype": "none",  # text stays text: the browser renders it in the page's fonts
    "font.family": "sans-serif",
    "font.size": 10.0,
    "axes.prop_cycle": None,  # set in draw(), from PALETTE
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.image_inline": True,
}
XML_PROLOGUE = re.compile(r"\A.*?(?=<svg)", re.DOTALL)
# matplotlib's metadata, and its stylesheet: a ``*`` rule that, inline, would reach the whole page.
METADATA = re.compile(r"\s*<metadata>.*?</metadata>|\s*<style[^>]*>.*?</style>", re.DOTALL)
ID_ATTRIBUTE = re.compile(r'\bid="([^"]+)"')
REFERENCE = re.compile(r'(url\(#|href="#)([^")]+)')
# Per SVG: matplotlib's fixed size, replaced so the figure scales with the page.
SIZE_ATTRIBUTES = re.compile(r'<svg([^>]*?) width="([^"]*)" height="[^"]*"')
FONT_FAMILY = re.compile(r"font-family: [^;\"]*;?")


def format_cell(value: int | float | str, language: str) -> str:
    """A number as the pages write it in ``language`` (``1,234``; ``0.25``); text as it is.

    >>> format_cell(1234567, "en"), format_cell(1234567, "zh_TW"), format_cell(0.52631, "en")
    ('1,234,567', '1,234,567', '0.5263')
    """
    if isinstance(value, str):
        return value
    return format_decimal(value, format="#,##0.####", locale=language)


def draw_svg(name: str, labels: Mapping[str, str], language: str) -> str:
    """Draw figure ``name`` with ``labels``: inline SVG markup whose ids are unique to the figure."""
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure
    from matplotlib.rcsetup import cycler

    figure_spec = FIGURES[name]
    style = dict(STYLE, **{"axes.prop_cycle": cycler(color=PALETTE), "svg.hashsalt": name})
    with matplotlib.rc_context(style), warnings.catch_warnings():  # type: ignore[arg-type]
        # Chinese glyphs are missing from matplotlib's own font; the browser draws them.
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        figure = Figure(figsize=figure_spec.size, layout="constrained")
        FigureCanvasSVG(figure)
        figure_spec.draw(figure, dict(labels), lambda value: format_cell(value, language))
        out = io.StringIO()
        figure.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return inline(out.getvalue(), prefix=f"fig-{name}", alt=labels["alt"])


def inline(svg: str, *, prefix: str, alt: str) -> str:
    """Matplotlib's SVG file as markup for inside a page: no prologue, unique ids, scalable, named by ``alt``."""
    import html

    svg = METADATA.sub("", XML_PROLOGUE.sub("", svg))
    svg = ID_ATTRIBUTE.sub(lambda match: f'id="{prefix}-{match.group(1)}"', svg)
    svg = REFERENCE.sub(lambda match: f"{match.group(1)}{prefix}-{match.group(2)}", svg)
    # Scales down with the column, never up past the size it was drawn at.
    svg = SIZE_ATTRIBUTES.sub(r'<svg\1 style="max-width: \2"', svg, count=1)
    # The page's font, not the name of matplotlib's: the browser picks glyphs for both scripts.
    svg = FONT_FAMILY.sub("", svg)
    title_id = f"{prefix}-title"
    root = (f'<svg role="img" aria-labelledby="{title_id}" class="drawn-figure-svg" font-family="sans-serif" '
            'stroke-linejoin="round" stroke-linecap="butt"')
    title = f'<title id="{title_id}" class="{NOT_HIGHLIGHTED}">{html.escape(alt)}</title>'
    return svg.replace("<svg", root, 1).replace(">", ">" + title, 1)


@cache
def code_version() -> str:
    """A digest of the drawing code and matplotlib's release: a change to either draws every figure again."""
    import matplotlib

    from . import catalog

    source = inspect.getsource(catalog) + inspect.getsource(inline) + repr(STYLE)
    return hashlib.sha256(f"{matplotlib.__version__}\n{source}".encode()).hexdigest()[:16]


def cached_svg(name: str, labels: Mapping[str, str], language: str, cache_dir: Path) -> str:
    """The figure's SVG from the cache when the same figure was drawn before, else drawn and stored."""
    spec = FIGURES[name]
    key = hashlib.sha256(
        repr((name, sorted(labels.items()), language, spec.table(), code_version())).encode()
    ).hexdigest()[:24]
    path = Path(cache_dir, f"{name}-{key}.svg")  # Path(): Sphinx's doctree path is also a str
    if path.is_file():
        return path.read_text(encoding="utf-8")
    svg = draw_svg(name, labels, language)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{key}.tmp")
    temporary.write_text(svg, encoding="utf-8")
    temporary.replace(path)  # atomic: parallel writers of the same figure agree
    return svg
