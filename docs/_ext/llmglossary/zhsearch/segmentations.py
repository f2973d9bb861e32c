"""What a zh_TW build has segmented and stemmed before, remembered instead of done again.

Exists because Chinese search was most of a zh_TW build's cost: Sphinx segments every
text with jieba again on every page and in every build, and stems every word again on
every page, though term names, link texts and labels recur everywhere and a translator
rebuilds the same pages again and again.  :class:`Segmentations` keeps jieba's
segmentation of every text next to the doctrees between builds; :class:`RememberedStems`
stems each word once per build.  Neither changes a word of the index
(``tests/test_zhsearch.py`` compares them with Sphinx's own).
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import Any

import sphinx


class RememberedStems:
    """A Snowball stemmer that stems each word once per build.

    Sphinx remembers stems for one page at a time; the same words recur on every page,
    and stemming was a quarter of the Chinese search index's time.

    >>> import snowballstemmer
    >>> stemmer = RememberedStems(snowballstemmer.stemmer("english"))
    >>> stemmer.stemWord("attention"), stemmer.stemWord("attention"), len(stemmer.stems)
    ('attent', 'attent', 1)
    """

    def __init__(self, stemmer: Any) -> None:
        self.stemmer = stemmer
        self.stems: dict[str, str] = {}

    def stemWord(self, word: str) -> str:  # the Snowball stemmer API
        stem = self.stems.get(word)
        if stem is None:
            stem = self.stems[word] = self.stemmer.stemWord(word)
        return stem


class Segmentations:
    """jieba's segmentation of every text indexed, kept next to the doctrees between builds.

    Term names, link texts and labels recur on every page, and a translator rebuilds
    the same pages again and again: segmenting was most of the Chinese search index's
    time, and an incremental build loaded jieba's dictionaries (0.6 s) for texts it had
    segmented before.  A segmentation depends only on the text, the dictionaries and
    the releases of jieba and Sphinx; those make the ``key``, and a file with another
    key is ignored.  A build that reads every document afresh keeps only its own texts.
    """

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        self._earlier: dict[str, list[str]] | None = None
        self.current: dict[str, list[str]] = {}
        """Text -> words, for every text split in this build."""

    @property
    def earlier(self) -> dict[str, list[str]]:
        """Text -> words, from earlier builds (read at the first use: a no-op build has none)."""
        if self._earlier is None:
            self._earlier = {}
            try:
                with self.path.open("rb") as handle:
                    key, words = pickle.load(handle)
            except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError):
                return self._earlier  # none yet, or unreadable: segment again
            if key == self.key:
                self._earlier = words
        return self._earlier

    def write(self, fresh: bool) -> None:
        """Save this build's segmentations, and the earlier ones unless ``fresh``."""
        if not self.current:
            return
        earlier = self.earlier
        words = self.current if fresh else {**earlier, **self.current}
        if words.keys() == earlier.keys():
            return
        partial = self.path.with_suffix(".partial")
        with partial.open("wb") as handle:
            pickle.dump((self.key, words), handle, protocol=pickle.HIGHEST_PROTOCOL)
        partial.replace(self.path)


def segmentations_key(user_dictionary: str) -> str:
    """What a segmentation depends on besides its text."""
    import jieba

    basis = f"sphinx {sphinx.__version__}\njieba {jieba.__version__}\n{user_dictionary}"
    return hashlib.sha256(basis.encode()).hexdigest()
