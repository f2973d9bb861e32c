"""jieba's prefix dictionary, kept in a form that loads in a quarter of the time of jieba's own cache.

Exists because loading jieba's dictionary cost every fresh zh_TW build about 1 s of CPU
(jieba 0.42.1 unmarshals one large ``dict``); jieba's last release is from 2020, so the
fix is ours to keep (registry row ``zhsearch-jieba``, the patch for jieba in
``upstream/jieba-read-cache-whole``).
"""

from __future__ import annotations

import hashlib
import marshal
import os
from array import array
from pathlib import Path
from typing import Any


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
