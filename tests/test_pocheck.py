"""tools/pocheck.py: the strict .po syntax check that Sphinx and babel do not do.

The expected messages are GNU gettext's own (msgfmt is the reference parser); what this
tests is that each error comes back as a problem at its exact line, and nothing else.
"""

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
        ('msgid "Token"\nmsgstr "Token（詞元）\n', [(7, "end-of-line within string")]),
        ('msgid "Token"\nmsgstr "a "quoted" word"\n', [(6, 'keyword "quoted" unknown'), (6, "syntax error")]),
        ('msgid "Bad \\q escape"\nmsgstr "x"\n', [(5, "invalid control sequence")]),
        ('msgid "A"\n\nmsgid "B"\nmsgstr "乙"\n', [(5, "missing 'msgstr' section")]),
        ('msgid "A"\n', [(5, "missing 'msgstr' section")]),
        ('msgstr "孤兒"\n', [(5, "syntax error")]),
        ('msgid "A"\nmsgstr "甲"\nmsgtext "x"\n', [(7, 'keyword "msgtext" unknown'), (7, "syntax error")]),
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


def test_a_missing_msgfmt_is_an_error_with_the_install_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"apt-get install gettext"):
        check_po(tmp_path / "page.po")
