"""docs/_ext/llmglossary/zhsearch/: remembered segmentations and a kept dictionary change no word of the index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sphinx.search.zh import SearchChinese

from llmglossary.zhsearch import (
    Segmentations,
    terminology_words,
    traditional_chinese_search,
    write_user_dictionary,
)

TEXTS = [
    "詞元（Token）是模型讀取的單位。",
    "Builds on:",
    "低秩適應 LoRA rank 8",
    "詞元（Token）是模型讀取的單位。",
    "Builds on:",
]


def test_remembered_segmentations_equal_sphinx_own(tmp_path: Path) -> None:
    dictionary = tmp_path / "terms.txt"
    write_user_dictionary(dictionary, ["詞元", "低秩適應"])
    store = tmp_path / "segmentations.pickle"
    first_build = Segmentations(store, "key")
    ours = traditional_chinese_search(first_build)({"dict": str(dictionary)})
    ours_words = [ours.split(text) for text in TEXTS]
    first_build.write(fresh=False)
    # Sphinx's own class, on the same jieba dictionary (ours loaded it at its first split).
    stock = SearchChinese({"dict": str(dictionary)})
    stock_words = [stock.split(text) for text in TEXTS]
    assert ours_words == stock_words
    assert ours.latin_terms == stock.latin_terms == {"Token", "Builds", "on", "LoRA", "rank", "8"}
    assert "詞元" in ours_words[0] and "低秩適應" in ours_words[2]
    assert len(first_build.current) == 3  # each distinct text segmented once
    ours_words[1].append("changed by a caller")
    assert ours.split(TEXTS[1]) == stock_words[1]

    # The next build reads them back: the same words and Latin terms, and no dictionary
    # to load, since nothing is new.
    next_build = traditional_chinese_search(Segmentations(store, "key"))({"dict": str(dictionary)})
    assert [next_build.split(text) for text in TEXTS] == stock_words
    assert next_build.latin_terms == stock.latin_terms
    assert next_build.pending_dictionary == str(dictionary)


def test_segmentations_under_another_key_are_ignored(tmp_path: Path) -> None:
    store = tmp_path / "segmentations.pickle"
    old = Segmentations(store, "jieba 0.42.1")
    old.current["文字"] = ["文字"]
    old.write(fresh=False)
    assert Segmentations(store, "jieba 0.42.1").earlier == {"文字": ["文字"]}
    assert Segmentations(store, "jieba 0.43").earlier == {}
    store.write_bytes(b"not a pickle")
    assert Segmentations(store, "jieba 0.42.1").earlier == {}


def test_a_fresh_build_keeps_only_its_own_texts(tmp_path: Path) -> None:
    store = tmp_path / "segmentations.pickle"
    earlier = Segmentations(store, "key")
    earlier.current = {"舊的": ["舊的"], "留下": ["留下"]}
    earlier.write(fresh=False)
    incremental = Segmentations(store, "key")
    incremental.current = {"新的": ["新的"]}
    incremental.write(fresh=False)
    assert Segmentations(store, "key").earlier.keys() == {"舊的", "留下", "新的"}
    fresh = Segmentations(store, "key")
    fresh.current = {"留下": ["留下"]}
    fresh.write(fresh=True)
    assert Segmentations(store, "key").earlier == {"留下": ["留下"]}


# The characters jieba joins into one word (jieba's re_han_default): a name with a space
# or punctuation (大 O 符號, 查詢、鍵、值投影) is always cut, and is found through the
# search index's glossary objects instead (glossarysearch.py, test_search_ranking.py).
JIEBA_WORD = re.compile(r"[\u4E00-\u9FD5a-zA-Z0-9+#&._%\-]+")


def test_every_glossary_name_jieba_can_keep_whole_is_indexed_whole(tmp_path: Path) -> None:
    words = terminology_words(Path(__file__).resolve().parent.parent / "locales" / "zh_TW" / "terminology.tsv")
    dictionary = tmp_path / "terms.txt"
    write_user_dictionary(dictionary, words)
    segmentations = Segmentations(tmp_path / "segmentations.pickle", "key")
    search = traditional_chinese_search(segmentations)({"dict": str(dictionary)})
    keepable = [word for word in words if JIEBA_WORD.fullmatch(word)]
    assert len(keepable) > len(words) * 0.9
    assert [word for word in keepable if word not in search.split(word)] == []
    # In a sentence too; a one-character name may join its neighbour (值的), as any word may.
    assert [word for word in keepable if len(word) > 1 and word not in search.split(f"我們說{word}。")] == []


def test_on_a_sphinx_release_the_split_override_was_not_checked_against_sphinx_splits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llmglossary.zhsearch import language

    dictionary = tmp_path / "terms.txt"
    write_user_dictionary(dictionary, ["詞元", "低秩適應"])
    segmentations = Segmentations(tmp_path / "segmentations.pickle", "key")
    assert "split" in vars(traditional_chinese_search(segmentations))  # the installed release: remembered
    monkeypatch.setattr(language, "REMEMBERED_SPLIT_VERSIONS", frozenset({"0.0.0"}))
    unchecked = traditional_chinese_search(segmentations)
    assert not any("split" in vars(cls) for cls in unchecked.__mro__[: unchecked.__mro__.index(SearchChinese)])
    ours = unchecked({"dict": str(dictionary)})
    stock = SearchChinese({"dict": str(dictionary)})
    assert [ours.split(text) for text in TEXTS] == [stock.split(text) for text in TEXTS]
    assert ours.latin_terms == stock.latin_terms
    assert segmentations.current == {}  # nothing remembered, so nothing replayed
