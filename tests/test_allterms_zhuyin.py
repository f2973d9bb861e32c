"""The zh_TW all-terms page lists every entry by its Chinese name, in zhuyin order (issue 42, R-13).

A reader who knows only the Chinese name cannot use the A-to-Z list of English names.
The oracle for the order is the zhuyin table (ㄅㄆㄇㄈㄉㄊㄋㄌㄍㄎㄏㄐㄑㄒㄓㄔㄕㄖㄗㄘㄙ…) and
the readings of a few entries' first characters, written down by hand: 批 ㄆ, 梯 ㄊ, 量 ㄌ,
注 ㄓ, 詞 ㄘ.
"""

from __future__ import annotations

import pytest

from builtsite import built_page

pytestmark = pytest.mark.site

ZHUYIN_TABLE = "ㄅㄆㄇㄈㄉㄊㄋㄌㄍㄎㄏㄐㄑㄒㄓㄔㄕㄖㄗㄘㄙㄧㄨㄩㄚㄛㄜㄝㄞㄟㄠㄡㄢㄣㄤㄥㄦ"
BY_HAND = [("批次", "ㄆ"), ("梯度", "ㄊ"), ("量化", "ㄌ"), ("注意力機制", "ㄓ"), ("詞元", "ㄘ")]


def test_the_zh_all_terms_page_lists_every_entry_by_chinese_name_in_zhuyin_order() -> None:
    page = built_page("zh_TW", "all-terms")
    indexes = page.select(".glossary-index")
    assert len(indexes) == 3, "reading order, A to Z, and by Chinese name"
    reading, _alphabetical, zhuyin = indexes
    assert zhuyin.select_one(".rubric").get_text() == "中文名稱索引（依注音排序）"
    assert sorted(a["href"] for a in zhuyin.select("li a")) == sorted(a["href"] for a in reading.select("li a"))
    initials = [rubric.get_text() for rubric in zhuyin.select(".rubric")[1:]]
    assert initials == sorted(initials, key=ZHUYIN_TABLE.index), initials
    names = [a.get_text() for a in zhuyin.select("li a")]
    placed = [next(i for i, name in enumerate(names) if f"（{chinese}" in name) for chinese, _initial in BY_HAND]
    assert placed == sorted(placed), list(zip(BY_HAND, placed, strict=True))
    groups = {
        rubric.get_text(): [a.get_text() for a in rubric.find_next_sibling("ul").select("a")]
        for rubric in zhuyin.select(".rubric")[1:]
    }
    for chinese, initial in BY_HAND:
        assert any(f"（{chinese}" in name for name in groups[initial]), (chinese, initial)


def test_the_english_all_terms_page_has_no_chinese_index() -> None:
    assert len(built_page("en", "all-terms").select(".glossary-index")) == 2
