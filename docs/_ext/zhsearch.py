"""Chinese full-text search that finds the glossary's own words, and works in a browser.

Two problems with Sphinx 9.0.4's stock Chinese search, both silent:

* Sphinx splits Chinese text into words with jieba, whose dictionary is Simplified
  Chinese and knows none of our terms, so 詞元 or 低秩適應 end up cut into pieces
  that a reader's query never matches.  We load a user dictionary made from the
  zh_TW column of ``locales/zh_TW/terminology.tsv``, so every translated term is
  indexed as one word.  (A rendering with a space or punctuation in it, 大 O 符號 or
  查詢、鍵、值投影, cannot be one jieba word; the search page finds those through the
  glossary's objects in the index, see :mod:`glossarysearch`.)
* Its ``language_data.js`` ends with ``window.Stemmer = ChineseStemmer;``, a class
  that does not exist (Chinese search stems Latin words with the English stemmer), so
  the search page throws ``ReferenceError`` and shows "Searching…" forever (upstream
  sphinx-doc/sphinx#14229, fixed by #14416 after 9.0.4).
  :func:`traditional_chinese_search` ships the English stemmer under the name the
  search page uses, only on the Sphinx versions in :data:`STEMMER_BUG_VERSIONS`.  A
  canary test fails when the installed Sphinx is not one of them: then check whether
  the release has the fix (drop the workaround) or not (add the version).

The Chinese index also cost a zh_TW build more than it had to: every text was
segmented by jieba again on every page and in every build, and every word stemmed again
on every page.  Both are now remembered (:class:`Segmentations`,
:class:`RememberedStems`), in our subclass, without changing a word of the index.  A
build that has new text to segment loads jieba's dictionary from a copy next to the
doctrees that loads in a third of the time of jieba's own cache
(:class:`PrefixDictionary`).
"""

from __future__ import annotations

import csv
import hashlib
import logging
import marshal
import os
import pickle
import tempfile
from array import array
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sphinx

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata

TERMINOLOGY = Path(__file__).resolve().parents[2] / "locales" / "zh_TW" / "terminology.tsv"
STEMMER_BUG_VERSIONS = frozenset({"9.0.4"})
"""Sphinx releases whose Chinese ``language_data.js`` names a missing stemmer (sphinx#14229)."""


def _english_stemmer_code() -> str:
    # The stemmers Sphinx ships as package data, found through the public resources API.
    scripts = files("sphinx.search").joinpath("minified-js")
    parts = [scripts.joinpath(name).read_text(encoding="utf-8") for name in ("base-stemmer.js", "english-stemmer.js")]
    return "\n".join([*parts, "window.Stemmer = EnglishStemmer;"])


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


class PrefixDictionary:
    """jieba's prefix dictionary, kept beside jieba's own cache in a form that loads quickly.

    jieba builds its prefix dictionary (every word of its dictionary and every prefix of
    one, about 500,000 entries, with their frequencies) from ``dict.txt`` and keeps it
    in the temporary folder as one marshalled ``dict``, which takes about 1 s of CPU to
    load, in every zh_TW build that segments text: each fresh one.  Kept as the words
    joined into one string and the frequencies as one array of integers, the same
    dictionary loads in about 0.25 s.  It is kept where jieba keeps its own cache, for
    the same reason: it depends only on jieba's release and dictionary file (which make
    :func:`prefix_dictionary_key`, checked on every read), not on any build, so every
    build on the machine can read it.  The first build to load jieba's dictionary
    writes it (about 0.15 s); a file with another key, or unreadable, is replaced.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def load_into(self, tokenizer: Any) -> None:
        """Give an uninitialized ``jieba.Tokenizer`` its prefix dictionary: ours, else jieba's, then keep it."""
        if tokenizer.initialized:
            return
        key = prefix_dictionary_key(tokenizer)
        kept = self._read(key)
        if kept is not None:
            # What jieba's initialize leaves: the dictionary, its total, and the flag.
            tokenizer.FREQ, tokenizer.total = kept
            tokenizer.initialized = True
            return
        tokenizer.initialize()
        if any("\n" in word for word in tokenizer.FREQ):
            return  # not a dictionary jieba could have read from its dict.txt: not kept
        counts = array("q", tokenizer.FREQ.values())
        # Another build on the machine may be writing it too: each writes its own copy.
        partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.partial")
        try:
            partial.write_bytes(marshal.dumps((key, tokenizer.total, "\n".join(tokenizer.FREQ), counts.tobytes())))
            partial.replace(self.path)
        except OSError:
            # A shared folder where another user's copy stands, or no room: the build
            # goes on without keeping it, as jieba does when it cannot keep its own cache.
            partial.unlink(missing_ok=True)

    def _read(self, key: str) -> tuple[dict[str, int], int] | None:
        try:
            kept_key, total, words, frequencies = marshal.loads(self.path.read_bytes())
            if kept_key != key:
                return None
            counts = array("q")
            counts.frombytes(frequencies)
            return dict(zip(words.split("\n"), counts, strict=True)), total
        except (OSError, EOFError, ValueError, TypeError):
            return None  # none yet, or unreadable: jieba's own


def prefix_dictionary_key(tokenizer: Any) -> str:
    """What jieba's prefix dictionary depends on: its release and its dictionary file."""
    import jieba

    with tokenizer.get_dict_file() as dictionary:
        return hashlib.sha256(f"jieba {jieba.__version__}\n".encode() + dictionary.read()).hexdigest()


def segmentations_key(user_dictionary: str) -> str:
    """What a segmentation depends on besides its text."""
    import jieba

    basis = f"sphinx {sphinx.__version__}\njieba {jieba.__version__}\n{user_dictionary}"
    return hashlib.sha256(basis.encode()).hexdigest()


def traditional_chinese_search(segmentations: Segmentations, prefix_dictionary: PrefixDictionary | None = None) -> type:
    """Sphinx's Chinese search with a lazy dictionary, and a JavaScript stemmer that exists.

    Built on demand: importing Sphinx's Chinese search imports jieba, which an English
    build does not need.  The dictionary is loaded at the first text that was not
    segmented before (:class:`Segmentations`), not when the index is created: loading
    jieba's dictionaries takes about 1 s, which a build with nothing new to segment
    would otherwise spend for nothing.  With a ``prefix_dictionary``, jieba's own is
    loaded from it (:class:`PrefixDictionary`).
    """
    import jieba
    from sphinx.search.zh import SearchChinese

    class SearchTraditionalChinese(SearchChinese):
        if sphinx.__version__ in STEMMER_BUG_VERSIONS:
            js_stemmer_rawcode = ""
            js_stemmer_code = _english_stemmer_code()

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
                        if prefix_dictionary is not None:
                            prefix_dictionary.load_into(jieba.dt)
                        jieba.load_userdict(self.pending_dictionary)
                        self.pending_dictionary = ""
                    words = super().split(input)
                segmentations.current[input] = words
            return list(words)

    return SearchTraditionalChinese


def terminology(path: Path = TERMINOLOGY) -> dict[str, str]:
    """English term (lower-cased) -> its zh_TW rendering, from the terminology table."""
    with path.open(encoding="utf-8", newline="") as handle:
        return {
            row["english"].strip().lower(): row["zh_TW"].strip()
            for row in csv.DictReader(handle, delimiter="\t")
            if row["english"].strip() and row["zh_TW"].strip()
        }


def terminology_words(path: Path = TERMINOLOGY) -> list[str]:
    """The zh_TW renderings of the glossary's terms, one word per rendering."""
    # jieba's user dictionary is one word per line: a rendering with a space in it
    # ("KV 快取") is indexed as its parts anyway.
    return sorted({word for word in terminology(path).values() if " " not in word})


def write_user_dictionary(path: Path, words: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(f"{word}\n" for word in words)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def configure_chinese_search(app: Sphinx, config: Config) -> None:
    """For a Chinese build, index text with the glossary's terms as a jieba dictionary."""
    if not config.language.startswith("zh"):
        return
    import jieba

    # jieba logs its dictionary loading at DEBUG level to stderr on every build.
    jieba.setLogLevel(logging.WARNING)
    user_dictionary = Path(app.doctreedir) / "jieba-terms.txt"
    write_user_dictionary(user_dictionary, terminology_words())
    key = segmentations_key(user_dictionary.read_text(encoding="utf-8"))
    segmentations = Segmentations(Path(app.doctreedir) / "jieba-segmentations.pickle", key)
    # Beside jieba's own cache (jieba.cache), in the folder jieba itself uses.
    cache_folder = Path(jieba.dt.tmp_dir or tempfile.gettempdir())
    prefix_dictionary = PrefixDictionary(cache_folder / "jieba.prefix-dictionary.marshal")
    app.add_search_language(traditional_chinese_search(segmentations, prefix_dictionary))
    config.html_search_options = {**config.html_search_options, "dict": str(user_dictionary)}

    def save_segmentations(app: Sphinx, exception: Exception | None) -> None:
        if exception is None:
            segmentations.write(fresh=bool(app.fresh_env_used))

    app.connect("build-finished", save_segmentations)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("config-inited", configure_chinese_search)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
