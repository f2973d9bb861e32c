"""Text derived from an entry as a reader reads it: math written out, the opening that defines.

Exists because search snippets, hover previews, the concept map and the all-terms page
show text taken from the pages, where a preview or a snippet is plain text.  Taken
with ``astext()``, math stays LaTeX source (``d_{out} \\times d_{in}``); taken as the
MathML's characters, its structure is lost: 2³⁰ reads "230", α/r reads "αr".

**Math.**  :func:`math_text` converts LaTeX with the converter the pages use
(latex2mathml, :mod:`.mathml`) and writes the MathML tree out in the notation
engineers type: powers and indices with ``^`` and ``_`` (``2^30``, ``d_out``),
fractions with ``/`` (``α/r``), roots with ``√``, accents as combining marks (``ŷ``),
and parentheses wherever an argument is more than one symbol (``e^(z_i)``).  Reading
the tree, not the LaTeX, covers every command the converter knows, which is every
command the pages can use: one it does not know fails the page's build.

**The opening.**  :func:`opening` is the one rule for what a preview and an entry's
search hit show, in every language: the first sentence, and the second while both fit
in a width, counted in columns (a Han character is two, as a terminal or a monospace
font shows it), so an English and a Chinese preview give a reader about the same
length; a trailing clause that only announces a formula ("written as a matrix:") is
dropped with the formula.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from xml.etree import ElementTree

from docutils import nodes
from sphinx import addnodes

_MATHML = "{http://www.w3.org/1998/Math/MathML}"
_SPACED_OPERATORS = frozenset("=+−×·≈≤≥<>≠→←↦∝≡⇒⇔∈∉⊂⊆⊙⊗±∓∼≪≫:")
"""Operators written with a space on each side when they stand between two operands."""
_INVISIBLE = {"\u2061": " ", "\u2062": "", "\u2063": "", "\u2064": ""}
"""Function application, invisible times, separator and plus."""
_ACCENTS = {
    "^": "\u0302",
    "ˆ": "\u0302",
    "~": "\u0303",
    "˜": "\u0303",
    "¯": "\u0304",
    "‾": "\u0305",
    "˙": "\u0307",
    "¨": "\u0308",
    "→": "\u20d7",
    "ˇ": "\u030c",
}
"""An accent (``\\hat``, ``\\tilde``, ``\\bar``, …) as the combining mark placed on one letter."""
_ATOM = re.compile(r"[\w′″.,∞⊤∗*]+", re.UNICODE)
_SKIPPED_ELEMENTS = frozenset({"mphantom", "annotation", "annotation-xml", "none", "mprescripts"})


def _tag(element: ElementTree.Element) -> str:
    return element.tag.removeprefix(_MATHML)


def _is_atom(text: str) -> bool:
    """Whether ``text`` reads as one symbol, needing no parentheses as an argument."""
    return bool(_ATOM.fullmatch(text)) and "_" not in text and not text.startswith(("-", "−"))


def _wrapped(text: str) -> str:
    """An argument of ^, _ or /: in parentheses unless it is one symbol or already bracketed."""
    text = text.strip()
    if _is_atom(text) or (text[:1] in "([{|‖⟨" and _closes_at_end(text)):
        return text
    return f"({text})"


def _closes_at_end(text: str) -> bool:
    """Whether the bracket ``text`` opens with is the one it ends with."""
    pairs = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "|": "|", "‖": "‖"}
    opener, closer = text[0], pairs[text[0]]
    if not text.endswith(closer) or len(text) < 2:
        return False
    if opener == closer:
        return text.count(opener) == 2
    depth = 0
    for position, char in enumerate(text):
        depth += (char == opener) - (char == closer)
        if depth == 0 and position < len(text) - 1:
            return False
    return True


def _is_operand(element: ElementTree.Element | None) -> bool:
    if element is None:
        return False
    tag = _tag(element)
    if tag == "mo":
        return (element.text or "").strip() in (")", "]", "}", "|", "‖")
    if tag in ("msub", "msup", "msubsup") and len(element) and _tag(element[0]) == "mo":
        return (element[0].text or "").strip() in (")", "]", "}", "|", "‖")
    return tag not in ("mspace",)


_SCRIPTED = frozenset({"msub", "msup", "msubsup", "munder", "mover", "munderover"})
_LARGE_OPERATORS = frozenset("∑∏∫∮⋃⋂⨁⨂")
_ARGUMENTS = frozenset({"mi", "mn", "mrow", "msub", "msup"})
"""What follows a function name as its argument without brackets (log x)."""


def _is_operator_name(element: ElementTree.Element) -> bool:
    """A large operator (∑) or a function name (max, log), which a space separates from its operand."""
    text = (element.text or "").strip()
    return (_tag(element) == "mo" and text in _LARGE_OPERATORS) or (_tag(element) == "mi" and len(text) > 1)


def _row(children: list[ElementTree.Element]) -> str:
    """The children of a row, written one after another with the spacing a reader expects."""
    parts: list[str] = []
    for position, child in enumerate(children):
        tag = _tag(child)
        text = _element(child)
        before = children[position - 1] if position else None
        after = children[position + 1] if position + 1 < len(children) else None
        if tag == "mo":
            symbol = text.strip()
            if symbol in _SPACED_OPERATORS and _is_operand(before):
                text = f" {symbol} "
            elif symbol == ",":
                text = ", "
        elif tag == "mfrac" and (_is_operand(before) or _is_operand(after)) and not _is_atom(text):
            text = f"({text})"
        elif tag == "mi" and len(text) > 1 and after is not None and _tag(after) in _ARGUMENTS:
            text += " "  # a function name (log, min, softmax) before its argument
        elif tag in _SCRIPTED and _is_operator_name(child[0]) and _is_operand(after):
            text += " "  # ∑_j e^(z_j), max_x f(x)
        elif before is not None and _tag(before) in _SCRIPTED and _is_operand(child) and text[:1].isalnum():
            text = " " + text  # d_in d_out, not d_ind_out
        parts.append(text)
    return "".join(parts)


def _element(element: ElementTree.Element) -> str:
    tag = _tag(element)
    children = list(element)
    if tag in _SKIPPED_ELEMENTS:
        return ""
    if tag in ("mi", "mn", "mo", "mtext", "ms"):
        text = element.text or ""
        for invisible, replacement in _INVISIBLE.items():
            text = text.replace(invisible, replacement)
        return text
    if tag == "mspace":
        return " "
    if tag in ("msup", "mover") and len(children) == 2:
        base, script = _element(children[0]), _element(children[1]).strip()
        if tag == "mover" and script in _ACCENTS and len(base.strip()) == 1:
            return base.strip() + _ACCENTS[script]
        if set(script) <= {"′", "″", "'"}:
            return base + script
        return f"{base}^{_wrapped(script)}"
    if tag in ("msub", "munder") and len(children) == 2:
        return f"{_element(children[0])}_{_wrapped(_element(children[1]))}"
    if tag in ("msubsup", "munderover") and len(children) == 3:
        base, sub, sup = (_element(child) for child in children)
        return f"{base}_{_wrapped(sub)}^{_wrapped(sup)}"
    if tag == "mfrac" and len(children) == 2:
        numerator, denominator = (_element(child) for child in children)
        if element.get("linethickness") in ("0", "0pt", "0em"):  # \binom: a stack, no fraction bar
            return f"{numerator.strip()}, {denominator.strip()}"
        return f"{_wrapped(numerator)}/{_wrapped(denominator)}"
    if tag == "msqrt":
        return f"√{_wrapped(_row(children))}"
    if tag == "mroot" and len(children) == 2:
        return f"{_wrapped(_element(children[1]))}√{_wrapped(_element(children[0]))}"
    if tag == "mtable":
        return "; ".join(_element(row) for row in children)
    if tag in ("mtr", "mlabeledtr"):
        return ", ".join(_element(cell).strip() for cell in children)
    return _row(children)  # math, mrow, mstyle, mpadded, menclose, mtd, semantics, mfenced's children


def mathml_text(mathml: str) -> str:
    """A MathML ``<math>`` element written out as plain text (see the module).

    >>> mathml_text('<math><msup><mn>2</mn><mn>30</mn></msup></math>')
    '2^30'
    """
    tree = ElementTree.fromstring(mathml)
    return unicodedata.normalize("NFC", " ".join(_row(list(tree)).split()))


@functools.cache
def math_text(latex: str) -> str:
    r"""LaTeX as plain text a reader reads as the same formula (see the module).

    >>> math_text(r"2^{30}"), math_text(r"\frac{\alpha}{r}"), math_text(r"e^{L}")
    ('2^30', 'α/r', 'e^L')
    >>> math_text(r"W' = W + \frac{\alpha}{r} BA")
    'W′ = W + (α/r)BA'
    >>> math_text(r"d_{out} \times d_{in}"), math_text(r"F_1 = \frac{2PR}{P + R}")
    ('d_out × d_in', 'F_1 = 2PR/(P + R)')
    >>> math_text(r"\mathrm{softmax}(z)_i = e^{z_i} / \sum_j e^{z_j}")
    'softmax(z)_i = e^(z_i)/∑_j e^(z_j)'
    >>> math_text(r"r(d_{in} + d_{out})"), math_text(r"d_{in} d_{out}"), math_text(r"x^2 y")
    ('r(d_in + d_out)', 'd_in d_out', 'x^2 y')
    >>> math_text(r"10^{-3}"), math_text(r"\sqrt{d_k}"), math_text(r"\hat{y}"), math_text(r"\log x")
    ('10^(−3)', '√(d_k)', 'ŷ', 'log x')
    """
    from latex2mathml.converter import convert  # as mathml.py converts it for the page

    try:
        mathml = convert(latex)
    except Exception:  # latex2mathml raises many unrelated types; mathml.py fails the page's build
        return latex
    return mathml_text(mathml)


def _skipped(node: nodes.Node) -> bool:
    skipped = (nodes.comment, nodes.raw, nodes.literal_block, nodes.system_message, nodes.substitution_definition)
    return isinstance(node, skipped) or (isinstance(node, nodes.Element) and "no-search" in node["classes"])


def plain_text(node: nodes.Node, shown_as: Callable[[nodes.Node], str | None] | None = None) -> str:
    """A node's text as a reader reads it: math written out, index entries, comments and code blocks left out.

    ``shown_as`` gives the text the page will show for a node that is not resolved yet
    (a citation's key becomes its author-year label), or None to read the node as it is.
    """
    parts: list[str] = []

    def visit(node: nodes.Node) -> None:
        shown = shown_as(node) if shown_as is not None else None
        if shown is not None:
            parts.append(shown)
        elif isinstance(node, (nodes.math, nodes.math_block)):
            parts.append(math_text(node.astext()))
        elif isinstance(node, nodes.Text):
            parts.append(node.astext())
        elif not isinstance(node, addnodes.index) and not _skipped(node):
            for child in node.children:
                visit(child)

    visit(node)
    return " ".join("".join(parts).split())


def skipped_in_search(node: nodes.Node) -> bool:
    """What Sphinx's search skips, and code: a snippet quotes prose."""
    return _skipped(node)


_SENTENCE_END = re.compile(r"[。！？]|[.!?](?=\s+[\"“(\[A-Z0-9]|$)")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.", "Fig.", "No.", "al.")
_ANNOUNCES_MORE = ("：", ":")


def sentences(text: str) -> list[str]:
    """The sentences of a paragraph, in order, each with its end mark; the rest is a last one.

    >>> sentences("A float (e.g. 0.5) is a number. It has a sign.")
    ['A float (e.g. 0.5) is a number.', 'It has a sign.']
    >>> sentences("詞元是單位。它通常不是單字。寫成：")
    ['詞元是單位。', '它通常不是單字。', '寫成：']
    """
    text = " ".join(text.split())
    found: list[str] = []
    start = 0
    for end_mark in _SENTENCE_END.finditer(text):
        end = end_mark.end()
        if any(text[:end].endswith(abbreviation) for abbreviation in _ABBREVIATIONS):
            continue
        found.append(text[start:end].strip())
        start = end
    if text[start:].strip():
        found.append(text[start:].strip())
    return found


def width(text: str) -> int:
    """Columns ``text`` takes in a monospace font: two for a wide (Han) character.

    >>> width("KV cache"), width("KV 快取")
    (8, 7)
    """
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


OPENING_WIDTH = 280
"""Columns an opening takes with its second sentence, at most: about 280 letters or 140 Han characters."""
OPENING_LIMIT = 2 * OPENING_WIDTH
"""Columns past which even a first sentence is cut (with "…")."""


def opening(text: str, limit: int = OPENING_WIDTH) -> str:
    """What a preview or a search hit shows of a definition, in any language (see the module).

    >>> opening("RoPE is used by most LLMs. It rotates each query and key. It has no weights.")
    'RoPE is used by most LLMs. It rotates each query and key.'
    >>> opening("自注意力讓每個位置看其他位置。寫成矩陣形式就是：")
    '自注意力讓每個位置看其他位置。'
    >>> opening("A" * 50 + ". " + "B" * 300)
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.'
    """
    parts = sentences(text)
    if len(parts) > 1 and parts[-1].endswith(_ANNOUNCES_MORE):
        parts = parts[:-1]
    if not parts:
        return ""
    shown = parts[0]
    if len(parts) > 1 and width(shown + " " + parts[1]) <= limit:
        shown = (shown + parts[1]) if width(parts[0][-1]) == 2 else f"{shown} {parts[1]}"
    if width(shown) > OPENING_LIMIT:
        cut = shown
        while width(cut) > OPENING_LIMIT - 1:
            cut = cut[: len(cut) * 9 // 10]
        shown = cut.rstrip() + "…"
    return shown
