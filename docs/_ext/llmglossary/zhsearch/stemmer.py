"""The English stemmer under the name Sphinx's Chinese search page calls, on the Sphinx releases that lack it.

Exists because Sphinx 9.0.4's Chinese ``language_data.js`` ends with
``window.Stemmer = ChineseStemmer;``, a class that does not exist (Chinese search stems
Latin words with the English stemmer), so the search page throws ``ReferenceError`` and
shows "Searching…" forever (sphinx-doc/sphinx#14229, fixed by #14416 after 9.0.4).  The
releases it applies to are the registry's (:mod:`..workarounds`, row ``zhsearch-stemmer``);
a canary test fails when the installed Sphinx is not one of them.
"""

from __future__ import annotations

from importlib.resources import files

import sphinx

from ..workarounds import REGISTRY

STEMMER_BUG_VERSIONS = REGISTRY["zhsearch-stemmer"].versions
"""Sphinx releases whose Chinese ``language_data.js`` names a missing stemmer (sphinx#14229)."""


def needs_english_stemmer() -> bool:
    """Whether the installed Sphinx is one whose Chinese search names a missing stemmer."""
    return sphinx.__version__ in STEMMER_BUG_VERSIONS


def english_stemmer_code() -> str:
    """The English stemmer Sphinx ships, published as ``window.Stemmer``."""
    # The stemmers Sphinx ships as package data, found through the public resources API.
    scripts = files("sphinx.search").joinpath("minified-js")
    parts = [scripts.joinpath(name).read_text(encoding="utf-8") for name in ("base-stemmer.js", "english-stemmer.js")]
    return "\n".join([*parts, "window.Stemmer = EnglishStemmer;"])
