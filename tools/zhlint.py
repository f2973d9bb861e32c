"""Style checks for the zh_TW translation: Traditional characters and Taiwan usage.

Usage: python tools/zhlint.py locales/zh_TW/LC_MESSAGES/*.po

python-docs-zh-tw enforces its style rules by review; ours are enforced by the test
suite, which runs these checks over every translated message.  Each check works on
the text a reader sees: roles, inline code, math and link targets are reduced to
their visible text first, so markup never hides or fakes a problem.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

import opencc
from babel.messages.pofile import read_po
from markdown_it import MarkdownIt

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Han characters (the ranges our text uses)."""

MAINLAND_TERMS: dict[str, str] = {
    # 預存程序 (a database's stored procedure) is the right word in Taiwan too.
    "(?<!預存)程序": "程式",
    "數據": "資料",
    "內存": "記憶體",
    "默認": "預設",
    "質量": "品質",
    "(?<!演)算法": "演算法",
    "緩存": "快取",
    "信息": "訊息 or 資訊",
    "網絡": "網路",
    "軟件": "軟體",
    "硬件": "硬體",
    "視頻": "影片",
    "接口": "介面",
    "字節": "位元組",
    "比特": "位元",
    "變量": "變數",
    "模塊": "模組",
    "線程": "執行緒",
    "屏幕": "螢幕",
    "服務器": "伺服器",
    "調用": "呼叫",
    "批量": "批次",
    "並行": "平行",
    "芯片": "晶片",
    "顯存": "顯示記憶體",
    "集成": "整合",
    "用戶": "使用者",
    "設置": "設定",
    "示例": "範例",
    "歸一化": "正規化",
    "文檔": "文件",
    "運行": "執行",
}
"""Mainland usage (regex) -> what Taiwan writes instead."""

MARKDOWN = MarkdownIt("commonmark")
ROLE = re.compile(r"\{[a-z:]+\}`([^`<]*?)\s*(?:<[^`>]*>)?`")
INLINE_CODE = re.compile(r"``?[^`]+``?")
MATH = re.compile(r"\$[^$]+\$")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
EMPHASIS = re.compile(r"\*{1,2}")

# Lookaheads, so that overlapping pairs ("叫x函") are each reported.
HALF_WIDTH_PUNCTUATION = re.compile(rf"(?=([{CJK}][,.;:!?()]|[,;:!?()][{CJK}]))")
MISSING_SPACE = re.compile(rf"(?=([{CJK}][A-Za-z0-9]|[A-Za-z0-9][{CJK}]))")


def visible_text(message: str) -> str:
    """Approximate what a reader sees: roles show their text, code and math are opaque."""
    text = ROLE.sub(lambda match: match.group(1), message)
    text = INLINE_CODE.sub("x", text)
    text = MATH.sub("x", text)
    text = LINK.sub(lambda match: match.group(1), text)
    return EMPHASIS.sub("", text)


@cache
def simplified_only_characters() -> frozenset[str]:
    """Characters that exist only in Simplified Chinese, from OpenCC's dictionaries.

    A character is Simplified-only when OpenCC's Simplified-to-Taiwan conversion
    changes it and it is not a Traditional character in its own right: 台, 干 and 后
    are converted in some words but are correct Traditional characters, and 峰 or 群
    are what Taiwan writes even though OpenCC's plain Traditional prefers 峯 and 羣.
    """
    dictionaries = Path(opencc.__file__).parent / "dictionary"
    to_taiwan = opencc.OpenCC("s2tw")
    simplified: set[str] = set()
    traditional: set[str] = set()
    for line in (dictionaries / "STCharacters.txt").read_text(encoding="utf-8").splitlines():
        source, targets = line.split("\t")
        if to_taiwan.convert(source) != source:
            simplified.add(source)
        traditional.update(targets.split())
        traditional.update(to_taiwan.convert(target) for target in targets.split())
    for line in (dictionaries / "TSCharacters.txt").read_text(encoding="utf-8").splitlines():
        traditional.add(line.split("\t")[0])
    return frozenset(simplified - traditional)


def stray_emphasis_markers(message: str) -> list[str]:
    """Text runs in which ``*`` survives Markdown parsing, i.e. shows up literally.

    CommonMark does not close ``**`` right after punctuation when a letter follows,
    so ``**重要：**說明`` shows its asterisks; ``**重要**：說明`` works.
    """
    tokens = MARKDOWN.parseInline(MATH.sub("x", message))
    return [
        child.content
        for token in tokens
        for child in token.children or []
        if child.type == "text" and "*" in child.content
    ]


def lint_text(message: str) -> list[str]:
    """Every style problem of one translated message, as readable sentences."""
    problems: list[str] = []
    simplified = sorted({char for char in message if char in simplified_only_characters()})
    if simplified:
        problems.append(f"Simplified-only characters {''.join(simplified)!r}")
    for pattern, taiwan in MAINLAND_TERMS.items():
        for match in re.finditer(pattern, message):
            problems.append(f"mainland term {match.group()!r}: Taiwan writes {taiwan!r}")
    stray = stray_emphasis_markers(message)
    if stray:
        problems.append(f"emphasis markers that will show as asterisks: {stray!r}")
    text = visible_text(message)
    for match in HALF_WIDTH_PUNCTUATION.finditer(text):
        problems.append(f"half-width punctuation next to Chinese text: {match.group(1)!r}")
    for match in MISSING_SPACE.finditer(text):
        problems.append(f"no space between Chinese and Latin text: {match.group(1)!r}")
    return problems


def lint_catalog(path: Path) -> list[str]:
    """``file:line: problem`` for every translated message of a ``.po`` file."""
    with path.open("rb") as handle:
        catalog = read_po(handle)
    return [
        f"{path}:{message.lineno}: {problem}"
        for message in catalog
        if message.id and isinstance(message.string, str)
        for problem in lint_text(message.string)
    ]


def main(argv: list[str]) -> int:
    problems = [problem for name in argv for problem in lint_catalog(Path(name))]
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(argv)} catalogs clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
