"""The pages' examples: a failure names its file and line, and the summary counts them."""

from __future__ import annotations

from pathlib import Path

from doctest_summary import main as summary_main
from doctest_summary import summarise
from sphinxbuild import build, write_tree

PAGE = """\
    # Examples

    ```{doctest}
    >>> 2 + 2
    4
    ```

    Some words between the examples.

    ```{doctest}
    >>> sum(range(4))
    7
    ```
    """


def test_a_failing_example_is_reported_with_file_and_line(tmp_path: Path, capsys) -> None:
    write_tree(tmp_path, {
        "conf.py": 'extensions = ["myst_parser", "sphinx.ext.doctest"]\n',
        "index.md": PAGE,
    })
    result = build(tmp_path, builder="doctest")
    report = (result.outdir / "output.txt").read_text(encoding="utf-8")
    # Sphinx names the page (relative to the source folder) and the example's directive line.
    assert 'File "index.md", line 10, in default' in report
    assert "Expected:\n    7\nGot:\n    6" in report
    assert summarise(result.outdir) == (2, 1)
    assert summary_main([str(result.outdir)]) == 1
    assert capsys.readouterr().out == "doctest: 2 examples run, 1 failures\n"


def test_summary_fails_when_a_report_is_missing(tmp_path: Path, capsys) -> None:
    assert summary_main([str(tmp_path / "nowhere")]) == 1
    assert "No such file" in capsys.readouterr().out
