"""Every Sphinx builder, in both languages, on a small site using all our directives and roles.

The site uses every directive and role the project's extensions define (``glossary`` with
``{term}``, ``glossary-index`` in both orders, ``concept-map``, the three calculators,
math for :mod:`mathml`, a ``doctest`` fence) with the whole extension list of conf.py.
Each build must finish without a single warning under nitpicky mode, which is what
``-W --keep-going -n`` demands of the real site.  Builders that run no JavaScript must
show each calculator's explanation and nothing of its widget or label list.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxbuild import REPO, BuildResult, build, write_tree

BUILDERS = ("html", "dirhtml", "singlehtml", "epub", "latex", "text", "man", "texinfo", "gettext", "doctest")

CONF = f"""\
extensions = [
    "myst_parser", "sphinx.ext.doctest", "llmglossary.termorder", "llmglossary.termlinks", "llmglossary.termindex",
    "llmglossary.mathml", "llmglossary.zhsearch", "llmglossary.glossarysearch", "llmglossary.langswitch",
    "llmglossary.calculators", "llmglossary.termpreviews", "llmglossary.copycode", "llmglossary.themestrings",
    "llmglossary.conceptmap", "llmglossary.mystsettings", "llmglossary.i18nparses",
]
exclude_patterns = ["_build"]
html_static_path = [{str(REPO / "docs" / "_static")!r}]
templates_path = [{str(REPO / "docs" / "_templates")!r}]
html_math_renderer = "mathml"
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_fence_as_directive = ["doctest"]
locale_dirs = ["locales"]
gettext_compact = False
project = "Tiny glossary"
author = "Tests"
copyright = "2026, Tests"
version = release = "1.0"
epub_description = "A tiny glossary."
epub_contributor = "Tests"
epub_identifier = epub_uid = "tiny-glossary"
"""

EXPLANATION = "Multiply the rank by both sizes."
LORA = f"""\
:::{{lora-calculator}}
{EXPLANATION}

- rank: Rank r
- d_in: Input size
- d_out: Output size
- trainable: Trainable
- original: Original
- share: Share
- formula: Formula
- error: {{label}} must be from {{min}} to {{max}}.
:::
"""
MEMORY = """\
:::{memory-calculator}
- preset: Model
- reference_model: reference
- custom: Custom
- params: Parameters
- precision: Precision
- gb: GB
- gib: GiB
- error: {label} must be from {min} to {max}.
:::
"""
KVCACHE = """\
:::{kvcache-calculator}
- preset: Model
- reference_model: reference
- custom: Custom
- layers: Layers
- kv_heads: KV heads
- heads: Query heads
- head_dim: Head dimension
- tokens: Tokens
- batch: Batch
- dtype: Number format
- total: Total
- per_token: Per token
- mha: Without GQA
- saving: Saving
- error: {label} must be from {min} to {max}.
- divisor_error: Query heads must be a multiple of KV heads.
:::
"""

PAGES = {
    "index.md": """\
        # Tiny glossary

        ```{toctree}
        basics
        tools
        all-terms
        map
        ```
        """,
    "basics.md": """\
        # Basics

        ```{glossary}
        Token
          A piece of text, counted as $n$ tokens.

        Softmax
          Turns one score per {term}`Token` into probabilities, $$e^{z_i} / \\sum_j e^{z_j}$$
        ```

        ```doctest
        >>> 2 + 2
        4
        ```
        """,
    "tools.md": "# Tools\n\nEach {term}`token` costs memory.\n\n" + LORA + "\n" + MEMORY + "\n" + KVCACHE,
    "all-terms.md": """\
        # All terms

        ```{glossary-index}
        ```

        ```{glossary-index}
        :order: alphabetical
        ```
        """,
    "map.md": """\
        # Map

        ```{concept-map}
        How the terms connect.
        ```
        """,
    "locales/zh_TW/LC_MESSAGES/tools.po": """\
        msgid ""
        msgstr ""
        "Content-Type: text/plain; charset=UTF-8\\n"

        msgid "Multiply the rank by both sizes."
        msgstr "秩乘以兩個維度。"

        msgid "rank: Rank r"
        msgstr "rank: 秩 r"
        """,
}


def site(tmp_path: Path, builder: str, language: str) -> BuildResult:
    write_tree(tmp_path, {"conf.py": CONF, **PAGES})
    return build(tmp_path, builder=builder, overrides={"language": language, "nitpicky": True})


def output_text(result: BuildResult) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(result.outdir.rglob("*"))
        if path.is_file() and path.suffix in {".html", ".xhtml", ".tex", ".txt", ".1", ".texi", ".pot"}
    )


@pytest.mark.parametrize("language", ["en", "zh_TW"])
@pytest.mark.parametrize("builder", BUILDERS)
def test_every_builder_builds_every_directive_without_a_warning(tmp_path: Path, builder: str, language: str) -> None:
    result = site(tmp_path, builder, language)
    assert result.warnings == ""
    text = output_text(result)
    if builder == "gettext":
        # The label list is a message to translate, like the explanation.
        assert 'msgid "rank: Rank r"' in text and f'msgid "{EXPLANATION}"' in text
        return
    if builder == "doctest":
        assert "1 passed" in (result.outdir / "output.txt").read_text(encoding="utf-8")
        return
    explanation = "秩乘以兩個維度。" if language == "zh_TW" else EXPLANATION
    assert explanation in text
    assert "Token" in text
    widget = 'data-calculator="lora"' in text
    assert widget == (builder in {"html", "dirhtml", "singlehtml"})
    # Elsewhere the label list never shows: it is the widget's, not prose.
    assert ("Without GQA" in text) == widget
