"""tools/zhlint.py: the zh_TW style checks, on a table of good and bad sentences."""

from __future__ import annotations

import pytest

from zhlint import lint_text, simplified_only_characters, visible_text


@pytest.mark.parametrize(
    "text",
    [
        "使用 LoRA 微調時，只訓練 131,072 個參數。",
        "{term}`詞元 <Token>` 是模型讀寫的單位。",
        "在台灣，工程師用「記憶體」與「演算法」這兩個詞。",
        "Token（詞元）",
        "**為什麼重要：** 它決定了 `kv_cache_bytes` 的大小。",
        "這一步叫做*訓練*，之後是。*推論*的階段。",
        "**為什麼重要**：它決定了記憶體用量。",
        "縮放因子是 $1/\\sqrt{d}$，也就是 8 的倒數。",
        "請參考 [範例](https://example.org/x.html) 與表格。",
        "干擾、布局、台灣都是正體字。",
    ],
)
def test_taiwan_style_text_passes(text: str) -> None:
    assert lint_text(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这个数据", ["Simplified-only characters '个数这'"]),
        ("模型的數據", ["mainland term '數據': Taiwan writes '資料'"]),
        ("內存不足", ["mainland term '內存': Taiwan writes '記憶體'"]),
        ("默認設定", ["mainland term '默認': Taiwan writes '預設'"]),
        ("這個算法", ["mainland term '算法': Taiwan writes '演算法'"]),
        ("使用緩存", ["mainland term '緩存': Taiwan writes '快取'"]),
        ("這個程序很快", ["mainland term '程序': Taiwan writes '程式'"]),
        ("輸出質量", ["mainland term '質量': Taiwan writes '品質'"]),
        ("詞元,分詞器", [
            "half-width punctuation next to Chinese text: '元,'",
            "half-width punctuation next to Chinese text: ',分'",
        ]),
        ("結束了.", ["half-width punctuation next to Chinese text: '了.'"]),
        ("詞元(Token)", ["half-width punctuation next to Chinese text: '元('"]),
        ("（見下方)結束", ["half-width punctuation next to Chinese text: '方)'", "half-width punctuation next to Chinese text: ')結'"]),
        ("**為什麼重要：**它很關鍵", ["emphasis markers that will show as asterisks: ['**為什麼重要：**它很關鍵']"]),
        ("這是**「引用」**文字", ["emphasis markers that will show as asterisks: ['這是**「引用」**文字']"]),
        ("使用LoRA微調", [
            "no space between Chinese and Latin text: '用L'",
            "no space between Chinese and Latin text: 'A微'",
        ]),
        ("共16層", [
            "no space between Chinese and Latin text: '共1'",
            "no space between Chinese and Latin text: '6層'",
        ]),
        ("{term}`詞元 <Token>`是單位", []),
        ("呼叫`lora_params`函式", [
            "no space between Chinese and Latin text: '叫x'",
            "no space between Chinese and Latin text: 'x函'",
        ]),
    ],
)
def test_each_problem_is_named(text: str, expected: list[str]) -> None:
    assert lint_text(text) == expected


def test_visible_text_keeps_role_text_and_drops_targets() -> None:
    assert visible_text("見 {term}`低秩適應 <LoRA>` 與 {term}`Token`。") == "見 低秩適應 與 Token。"


def test_simplified_table_excludes_characters_valid_in_traditional() -> None:
    table = simplified_only_characters()
    assert {"这", "为", "数", "门", "个"} <= table
    assert not {"台", "干", "布", "里", "后", "系", "峰", "群", "啟", "偽"} & table
