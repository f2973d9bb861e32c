"""The search language of a zh_TW build: Sphinx's Chinese search with our dictionary, caches and stemmer.

Exists to put the other modules of :mod:`.` together where Sphinx looks for a search
language: :func:`traditional_chinese_search` subclasses Sphinx's ``SearchChinese`` with
the stemmer fix (:mod:`.stemmer`), remembered stems and segmentations
(:mod:`.segmentations`) and a lazily loaded dictionary, and
:func:`configure_chinese_search` registers it, with the glossary's terms as jieba's user
dictionary (:mod:`.userdictionary`), for a build whose language is Chinese.

The ``split`` override replays a side effect of Sphinx's own ``split`` (it notes each
text's Latin words in ``latin_terms``, for stemming) when it answers from remembered
segmentations; it is applied only on the Sphinx releases of the registry's row
``zhsearch-split`` (:data:`REMEMBERED_SPLIT_VERSIONS`), so a release that changes that
side effect gets Sphinx's own ``split`` until the override is checked against it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import sphinx

from ..terminology import terminology_path
from ..workarounds import REGISTRY
from .segmentations import RememberedStems, Segmentations, segmentations_key
from .stemmer import english_stemmer_code, needs_english_stemmer
from .userdictionary import terminology_words, write_user_dictionary

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

REMEMBERED_SPLIT_VERSIONS = REGISTRY["zhsearch-split"].versions
"""Sphinx releases whose ``SearchChinese.split`` side effect the remembered segmentations replay."""


def remembers_segmentations() -> bool:
    """Whether the installed Sphinx is one the ``split`` override was checked against."""
    return sphinx.__version__ in REMEMBERED_SPLIT_VERSIONS


def traditional_chinese_search(segmentations: Segmentations) -> type:
    """Sphinx's Chinese search with a lazy dictionary, and a JavaScript stemmer that exists.

    Built on demand: importing Sphinx's Chinese search imports jieba, which an English
    build does not need.  The dictionary is loaded at the first text that was not
    segmented before (:class:`Segmentations`), not when the index is created: loading
    jieba's dictionaries takes about 1 s, which a build with nothing new to segment
    would otherwise spend for nothing.  On a Sphinx release the ``split``
    override was not checked against, segmentations are not remembered: Sphinx's own
    ``split`` runs, and the dictionary loads when the index is created.
    """
    import jieba
    from sphinx.search.zh import SearchChinese

    class SearchChineseWithStemmer(SearchChinese):
        if needs_english_stemmer():
            js_stemmer_rawcode = ""
            js_stemmer_code = english_stemmer_code()

    class SearchTraditionalChinese(SearchChineseWithStemmer):
        def __init__(self, options: dict[str, str]) -> None:
            self.pending_dictionary = options.get("dict", "")
            super().__init__({**options, "dict": ""})
            self.stemmer = RememberedStems(self.stemmer)

        def split(self, input: str) -> list[str]:
            words = segmentations.current.get(input)
            if words is None:
                words = segmentations.earlier.get(input)
                if words is not None:
                    # Sphinx's split also notes the text's Latin words, for stemming.
                    self.latin_terms.update(term.strip() for term in self.latin1_letters.findall(input))
                else:
                    if self.pending_dictionary:
                        jieba.load_userdict(self.pending_dictionary)
                        self.pending_dictionary = ""
                    words = super().split(input)
                segmentations.current[input] = words
            return list(words)

    class SearchTraditionalChineseUnremembered(SearchChineseWithStemmer):
        def __init__(self, options: dict[str, str]) -> None:
            super().__init__(options)
            self.stemmer = RememberedStems(self.stemmer)

    return SearchTraditionalChinese if remembers_segmentations() else SearchTraditionalChineseUnremembered


def configure_chinese_search(app: Sphinx, config: Config) -> None:
    """For a Chinese build, index text with the glossary's terms as a jieba dictionary."""
    if not config.language.startswith("zh"):
        return
    import jieba

    # jieba logs its dictionary loading at DEBUG level to stderr on every build.
    jieba.setLogLevel(logging.WARNING)
    user_dictionary = Path(app.doctreedir) / "jieba-terms.txt"
    write_user_dictionary(user_dictionary, terminology_words(terminology_path(config)))
    key = segmentations_key(user_dictionary.read_text(encoding="utf-8"))
    segmentations = Segmentations(Path(app.doctreedir) / "jieba-segmentations.pickle", key)
    app.add_search_language(traditional_chinese_search(segmentations))
    config.html_search_options = {**config.html_search_options, "dict": str(user_dictionary)}

    def save_segmentations(app: Sphinx, exception: Exception | None) -> None:
        if exception is None:
            segmentations.write(fresh=bool(app.fresh_env_used))

    app.connect("build-finished", save_segmentations)
