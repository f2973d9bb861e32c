"""A tiny, deterministic byte-pair-encoding (BPE) trainer and encoder, for illustration.

Training starts from single characters and repeatedly merges the most
frequent adjacent pair of symbols, counted over the training words (each
occurrence of a word in the list counts).  Ties are broken by taking the
lexicographically smallest pair, so the result never depends on dict order.
Real tokenizers work on bytes, pre-split text on spaces and punctuation and
mark word boundaries; none of that is needed to see the idea.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from .. import _validate as check

__all__ = ["bpe_encode", "bpe_train"]


def _merge(symbols: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    merged: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            merged.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return tuple(merged)


def _check_words(words: object) -> list[str]:
    if isinstance(words, str) or not isinstance(words, Sequence):
        raise TypeError(f"words must be a list of non-empty strings; got {type(words).__name__}")
    for word in words:
        if not isinstance(word, str) or not word:
            raise ValueError(f"words must be a list of non-empty strings; got element {word!r}")
    return list(words)


def bpe_train(words: list[str], n_merges: int) -> list[tuple[str, str]]:
    """Learn up to ``n_merges`` merge rules from ``words``, most frequent pair first.

    Stops early when no adjacent pair is left (every word is one symbol).

    Examples
    --------
    Five pairs occur 3 times at first; the tie goes to ('e', 's'), the smallest.

    >>> bpe_train(["low", "low", "lower", "newest", "newest", "widest"], 4)
    [('e', 's'), ('es', 't'), ('l', 'o'), ('lo', 'w')]
    """
    corpus = Counter(tuple(word) for word in _check_words(words))
    count = check.count("n_merges", n_merges, minimum=0)
    merges: list[tuple[str, str]] = []
    for _ in range(count):
        pairs: Counter[tuple[str, str]] = Counter()
        for symbols, frequency in corpus.items():
            for pair in pairwise(symbols):
                pairs[pair] += frequency
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], pair))
        merges.append(best)
        merged_corpus: Counter[tuple[str, ...]] = Counter()
        for symbols, frequency in corpus.items():
            merged_corpus[_merge(symbols, best)] += frequency
        corpus = merged_corpus
    return merges


def bpe_encode(word: str, merges: list[tuple[str, str]]) -> list[str]:
    """Split ``word`` into tokens by applying ``merges`` in the order they were learned.

    Examples
    --------
    >>> merges = bpe_train(["low", "low", "lower", "newest", "newest", "widest"], 4)
    >>> bpe_encode("lowest", merges)
    ['low', 'est']
    >>> bpe_encode("slow", merges)
    ['s', 'low']
    """
    if not isinstance(word, str):
        raise TypeError(f"word must be a non-empty string; got {word!r} ({type(word).__name__})")
    if not word:
        raise ValueError("word must be a non-empty string; got ''")
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Sequence):
        raise TypeError(f"merges must be a list of (str, str) pairs; got {type(merges).__name__}")
    symbols = tuple(word)
    for pair in merges:
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(s, str) for s in pair)):
            raise TypeError(f"merges must be a list of (str, str) pairs; got element {pair!r}")
        symbols = _merge(symbols, pair)
    return list(symbols)
