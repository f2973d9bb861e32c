"""Sphinx configuration for the bilingual LLM engineering glossary.

Built as ``sphinx-build -c . docs _build/html/<lang> -D language=<lang>``: this file
sits at the repository root, the MyST sources in ``docs/``.  Settings that depend on
the language cannot be decided here (``-D language`` is applied after this file runs),
so they live in :func:`apply_language_settings`, a ``config-inited`` handler.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import sphinx_codeautolink

from llmcalc import ModelConfig, __version__
from llmglossary.citationlabels import register_styles

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

ROOT = Path(__file__).resolve().parent

# -- Project -------------------------------------------------------------------------
project = "LLM Engineering Glossary"
author = "The LLM Glossary contributors"
copyright = "2026, The LLM Glossary contributors"
language = "en"
root_doc = "index"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.doctest",
    "sphinx_design",
    "sphinx.ext.autodoc",  # the llmcalc reference pages, from the docstrings
    "sphinx.ext.napoleon",  # ... which are numpy-style
    "sphinxarg.ext",  # the command line's reference, generated from its argparse parser
    "sphinxcontrib.bibtex",  # every entry's sources, from docs/_bib/references.bib, listed on the references page
    # Ours (docs/_ext/llmglossary, installed by `make install`): the glossary store and its order
    # check, "Builds on" / "Used by", the all-terms page, MathML, Chinese and glossary search, the
    # language switch, the calculators and planners, previews, copy buttons, the concept map, and
    # the reference pages' and translated builds' fixes, citations resolved without an entry-point
    # scan per citation.  One module per feature; the README's
    # extension table lists them.  llmcalc names in the pages' examples link to their reference
    # entries through sphinx-codeautolink, which llmglossary.codelinks sets up.
    "llmglossary",
]

exclude_patterns = ["_bib", "_ext", "_root", "_static", "_templates"]
templates_path = ["docs/_templates"]  # relative to this file

# -- Our extensions' settings (llmglossary) -------------------------------------------
# Paths are relative to this file.  The terminology table: Chinese search indexes each zh_TW
# rendering as one word, and the search page finds an entry by it.
glossary_terminology = "locales/zh_TW/terminology.tsv"
# Names a reader types for an entry that its header does not carry (the search page's aliases; the
# scorer also tries each query word in its American spelling and without "-ing", so "tokenisation"
# reaches "Tokenization" too).
glossary_search_aliases = {"Tokenization": "Tokenizer"}
# The KV-cache calculator's models: llmcalc presets with full attention (the widget has no
# sliding window), "reference" first, as the widget starts from it.
calculator_kv_presets = ["reference", "llama-3-8b", "llama-2-7b", "llama-2-70b", "qwen2.5-0.5b"]
# The number formats each calculator offers (names from llmcalc.DTYPE_BITS), first the default.
calculator_memory_dtypes = ["fp32", "bf16", "fp8", "int8", "int4"]
calculator_kv_dtypes = ["bf16", "fp32", "fp8"]


# -- EPUB (make dist) -------------------------------------------------------------------
# Under -W, Sphinx's EPUB 3 checks fail the build on any empty or "unknown" metadata.
epub_description = "Large language model engineering terms, each defined only with terms defined before it."
epub_contributor = "LLM Glossary translators"
# epub_title, epub_language, epub_identifier and epub_uid depend on the language:
# see apply_language_settings.

# -- MyST ----------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
# ```doctest fences become Sphinx doctest directives, so the doctest builder runs them.
myst_fence_as_directive = ["doctest"]
myst_heading_anchors = 3


# -- Sources (sphinxcontrib-bibtex) -----------------------------------------------------
# One BibTeX file, docs/_bib/references.bib (path relative to this file); {cite:p}`key` in an
# entry links to the one bibliography, on the references page.  One file, not one per page:
# sphinxcontrib-bibtex 2.7.0 re-reads the references page when a .bib file it has seen changes,
# not when a new one appears, so an incremental build would miss a new file's keys.
bibtex_bibfiles = ["docs/_bib/references.bib"]
# Author-year labels say what is cited without a trip to the references page, and the references
# page shows the same label ("label" shows the bibliography's own): the plain style with
# llmglossary.citationlabels' labels, in the words of the build's language (apply_language_settings).
# Registered here, not only by the extension: whatever reads these settings (the build benchmark's
# twin imports them without llmglossary) finds the styles they name.
register_styles()
bibtex_reference_style = "label"
bibtex_default_style = "plain-author-year-en"

# -- llmcalc reference (autodoc, napoleon, codeautolink) ------------------------------------
# Napoleon rather than numpydoc: it ships with Sphinx (no new dependency), renders the
# short sections llmcalc's docstrings use, and leaves the parameter lists to the type hints.
autodoc_typehints = "both"
autodoc_typehints_description_target = "all"
autodoc_typehints_format = "short"
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_preprocess_types = True  # {"swiglu", "mlp"} is a set of accepted values, not two classes
# The docstrings' examples are run by pytest (--doctest-modules), in their module's
# namespace; the doctest builder runs only the pages' own ```doctest examples.
doctest_test_doctest_blocks = ""
# The objects are documented where users import them (llmcalc.X, as in llmcalc.__all__),
# and codeautolink finds a class and its members through the defining module: map one to
# the other, so that ``lc.REFERENCE.d_model`` links too.
codeautolink_inventory_map = {
    f"llmcalc.config.ModelConfig{member}": f"llmcalc.ModelConfig{member}"
    for member in ["", *(f".{name}" for name in [*ModelConfig.__dataclass_fields__, *dir(ModelConfig)]
                         if not name.startswith("_"))]
}
# No intersphinx (the build is offline): numpy's and the standard library's types in the
# signatures stay plain text.
nitpick_ignore_regex = [("py:class", r"numpy\..*|collections\.abc\.(Callable|Iterable|Mapping|Sequence)|os\.PathLike|"
                                      r"argparse\.(ArgumentParser|Namespace)")]

# -- Internationalisation (sphinx-intl) ------------------------------------------------
# Resolved relative to the *source* directory (docs/), not to this file: a wrong
# path would silently build an untranslated site.
locale_dirs = ["../locales/"]
gettext_compact = False  # one catalog per page
gettext_uuid = False  # uuids and source locations would make every .po diff noisy
gettext_location = False
gettext_last_translator = "LLM Glossary translators"
gettext_language_team = "Traditional Chinese (Taiwan)"

# -- HTML ------------------------------------------------------------------------------
html_theme = "furo"
html_title = "LLM Engineering Glossary"
# codeautolink adds its stylesheet to every page but its folder only to HTML builds: the EPUB
# (which gets no links, codeautolink only writes HTML) would link a missing file.
# Ours is relative to this file.
html_static_path = ["docs/_static", str(Path(sphinx_codeautolink.__file__).parent / "static")]
html_css_files = ["glossary.css"]
html_math_renderer = "mathml"
# Furo's default sidebar, plus the language switch under the project name.
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/language.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/scroll-end.html",
    ]
}
html_last_updated_fmt = None
html_copy_source = False
# Sphinx fetches result summaries from each page with fetch(), which browsers refuse for
# file:// URLs; the site must work from a folder, so Sphinx's summaries stay off and
# glossarysearch shows its own, from a file the search page loads with a <script> tag.
html_show_search_summary = False
html_show_sourcelink = False


# -- Read the Docs -----------------------------------------------------------------------
# There the editions live at /en/<version>/ and /zh-tw/<version>/ rather than side by
# side, so the language switch computes its links for that layout.
if os.environ.get("READTHEDOCS") == "True":
    language_switch_layout = "readthedocs"
    language_switch_version = os.environ.get("READTHEDOCS_VERSION", "latest")


def apply_language_settings(app: Sphinx, config: Config) -> None:
    """Settings that depend on ``-D language``, which is only known after conf.py ran."""
    # EPUB wants a BCP 47 tag (zh-TW), and each edition its own stable identifier.
    # Sphinx writes epub_uid where readers expect the identifier itself (toc.ncx), so the
    # two are one value, which must then be an XML name: no URN or UUID with colons.
    config.epub_language = config.language.replace("_", "-")
    config.epub_identifier = config.epub_uid = f"llm-engineering-glossary-{config.epub_language}"
    if config.language == "zh_TW":
        config.html_title = "LLM 工程術語表"
        config.copyright = "2026，LLM 工程術語表貢獻者"
        config.epub_title = "LLM 工程術語表"
        config.epub_description = "大型語言模型工程術語：每個術語只用前面已定義的術語來解釋。"
        config.bibtex_default_style = "plain-author-year-zh_TW"


def setup(app: Sphinx) -> None:
    app.connect("config-inited", apply_language_settings)
