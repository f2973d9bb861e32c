"""Tiny BPE: merges worked out by hand."""

import pytest

from llmcalc.teach.tokenize import bpe_encode, bpe_train


@pytest.mark.parametrize("words, n, expected", [
    (["aaab"], 1, [("a", "a")]),
    (["ab", "ab", "cd"], 2, [("a", "b"), ("c", "d")]),
    (["ab", "cd", "cd"], 1, [("c", "d")]),
    (["ba", "ab"], 1, [("a", "b")]),                 # tie: lexicographically smallest pair
    (["hug", "hug", "pug", "hugs"], 2, [("u", "g"), ("h", "ug")]),
    (["ab"], 5, [("a", "b")]),                       # stops when nothing is left to merge
    (["a"], 3, []),
    (["abc"], 0, []),
])
def test_bpe_train(words, n, expected):
    assert bpe_train(words, n) == expected


@pytest.mark.parametrize("word, merges, expected", [
    ("hugs", [("u", "g"), ("h", "ug")], ["hug", "s"]),
    ("pug", [("u", "g"), ("h", "ug")], ["p", "ug"]),
    ("abc", [], ["a", "b", "c"]),
    ("aaaa", [("a", "a")], ["aa", "aa"]),
    ("aaa", [("a", "a")], ["aa", "a"]),
])
def test_bpe_encode(word, merges, expected):
    assert bpe_encode(word, merges) == expected


def test_encoding_the_training_words_concatenates_back():
    words = ["lower", "newest", "widest", "low"]
    merges = bpe_train(words, 10)
    for word in words:
        assert "".join(bpe_encode(word, merges)) == word
