"""docs/_ext/zhsearch.py: remembering segmentations changes no word of the index."""

from __future__ import annotations

from pathlib import Path

from sphinx.search.zh import SearchChinese

from zhsearch import traditional_chinese_search, write_user_dictionary

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
    ours = traditional_chinese_search()({"dict": str(dictionary)})
    ours_words = [ours.split(text) for text in TEXTS]
    # Sphinx's own class, on the same jieba dictionary (ours loaded it at its first split).
    stock = SearchChinese({"dict": str(dictionary)})
    assert ours_words == [stock.split(text) for text in TEXTS]
    assert ours.latin_terms == stock.latin_terms == {"Token", "Builds", "on", "LoRA", "rank", "8"}
    assert "詞元" in ours_words[0] and "低秩適應" in ours_words[2]
    assert len(ours.segmented) == 3  # each distinct text segmented once
    ours_words[1].append("changed by a caller")
    assert ours.split(TEXTS[1]) == stock.split(TEXTS[1])
