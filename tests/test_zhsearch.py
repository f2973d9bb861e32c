"""docs/_ext/zhsearch.py: remembered segmentations change no word of the index."""

from __future__ import annotations

from pathlib import Path

from sphinx.search.zh import SearchChinese

from zhsearch import Segmentations, traditional_chinese_search, write_user_dictionary

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
