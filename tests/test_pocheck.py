"""tools/pocheck.py: the strict .po syntax check that Sphinx and babel do not do."""

from __future__ import annotations

from pathlib import Path

import pytest

from pocheck import check_po

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('msgid "Token"\nmsgstr "Token（詞元）"\n', []),
        ('msgid "A long"\n" message"\nmsgstr ""\n"一段"\n"訊息"\n', []),
        ('#, fuzzy\nmsgid "A"\nmsgstr "甲"\n\n#~ msgid "Old"\n#~ msgstr "舊"\n', []),
        ('msgid "Tab\\there \\"quoted\\" \\\\ done"\nmsgstr "好"\n', []),
        (
            'msgid "Token"\nmsgstr "Token（詞元）\n',
            [(6, "malformed string (unterminated or bad escape): 'msgstr \"Token（詞元）'")],
        ),
        (
            'msgid "Token"\nmsgstr "a "quoted" word"\n',
            [(6, "malformed string (unterminated or bad escape): 'msgstr \"a \"quoted\" word\"'")],
        ),
        (
            'msgid "Bad \\q escape"\nmsgstr "x"\n',
            [(5, "malformed string (unterminated or bad escape): 'msgid \"Bad \\\\q escape\"'")],
        ),
        ('msgid "A"\n\nmsgid "B"\nmsgstr "乙"\n', [(5, "msgid without a following msgstr")]),
        ('msgid "A"\n', [(5, "msgid without a following msgstr")]),
        ('msgstr "孤兒"\n', [(5, "msgstr without a preceding msgid")]),
        ('msgid "A"\nmsgstr "甲"\n\n"stray"\n', [(8, "unexpected text outside an entry: '\"stray\"'")]),
        (
            'msgid "A"\nmsgstr "甲"\nmsgtext "x"\n',
            [(7, "malformed string (unterminated or bad escape): 'msgtext \"x\"'")],
        ),
    ],
)
def test_check_po_reports_each_problem_with_its_line(
    tmp_path: Path, body: str, expected: list[tuple[int, str]]
) -> None:
    path = tmp_path / "page.po"
    path.write_text(HEADER + body, encoding="utf-8")
    problems = check_po(path)
    assert [(problem.line, problem.message) for problem in problems] == expected
    assert all(str(problem).startswith(f"{path}:") for problem in problems)
