"""The glossary's zh_TW terms as a jieba user dictionary, so that each is indexed as one word.

Exists because jieba's dictionary is Simplified Chinese and knows none of our terms:
詞元 or 低秩適應 would be cut into pieces that a reader's query never matches.  The
words are the zh_TW column of the terminology table (:mod:`..terminology`), search aliases included.  A rendering
with a space or punctuation in it (大 O 符號, 查詢、鍵、值投影) cannot be one jieba word;
the search page finds those through the glossary's objects in the index
(:mod:`..glossarysearch`).
"""

from __future__ import annotations

from pathlib import Path

from ..terminology import search_aliases, terminology


def terminology_words(path: Path | None) -> list[str]:
    """The zh_TW renderings of the glossary's terms and their search aliases, one word each.

    An alias is a word too: 斷詞 in running text is then indexed whole, not as 做斷 + 詞.
    A project without a table (``path`` None) has none.
    """
    if path is None:
        return []
    # jieba's user dictionary is one word per line: a rendering with a space in it
    # ("KV 快取") is indexed as its parts anyway.
    words = [*terminology(path).values(), *search_aliases(path)]
    return sorted({word for word in words if " " not in word})


def write_user_dictionary(path: Path, words: list[str]) -> None:
    """Write jieba's user dictionary, one word per line; an unchanged file is left as it is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(f"{word}\n" for word in words)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
