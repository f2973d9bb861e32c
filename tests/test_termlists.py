"""tools/termlists.py: the failure messages a contributor who adds a term reads, triggered on purpose."""

from __future__ import annotations

import doctest
from pathlib import Path

import termlists
from termlists import missing_terminology_rows, page_entries, planned_entries, planned_entry_problems

PAGE = "05-the-transformer"
TOP_P: termlists.Entry = ("Top-p sampling", ("Nucleus sampling",))
KV_CACHE: termlists.Entry = ("KV cache", ())
BEAM: termlists.Entry = ("Beam search", ())


def test_docstring_examples() -> None:
    assert doctest.testmod(termlists).failed == 0


def test_entries_of_a_built_glossary_group_aliases_under_their_term() -> None:
    html = """<dl class="glossary">
      <dt id="term-Top-p-sampling">Top-p sampling<a class="headerlink" href="#">¶</a></dt>
      <dt id="term-Nucleus-sampling">Nucleus sampling<a class="headerlink" href="#">¶</a></dt>
      <dd><p>A filter.</p></dd>
      <dt id="term-KV-cache">KV cache<a class="headerlink" href="#">¶</a></dt>
      <dd><p>Keys and values.</p><dl class="glossary"><dt>Not nested</dt><dd>x</dd></dl></dd>
    </dl>"""
    assert page_entries(html)[:2] == [TOP_P, KV_CACHE]


def test_a_new_entry_without_a_row_names_the_file_the_line_and_the_row_to_add(tmp_path: Path) -> None:
    """The newcomer's report: the old failure read only "At index 59 diff: 'Beam search' != 'KV cache'"."""
    terms = tmp_path / "expected_terms.tsv"
    rows = f"page\tterm\taliases\n{PAGE}\tTop-p sampling\tNucleus sampling\n{PAGE}\tKV cache\t\n"
    terms.write_text(rows, encoding="utf-8")
    problems = planned_entry_problems(PAGE, [TOP_P, BEAM, KV_CACHE], planned_entries(terms)[PAGE], terms)
    assert problems == [
        f"{terms}:2: 'Beam search' is a glossary entry on {PAGE} but has no row: "
        f"add the line '{PAGE}\\tBeam search\\t' after line 2 ('Top-p sampling')"
    ]


def test_a_new_first_entry_is_placed_before_the_page_s_first_row() -> None:
    problems = planned_entry_problems(PAGE, [BEAM, KV_CACHE], [(60, KV_CACHE)], Path("t.tsv"))
    assert problems == [
        f"t.tsv:60: 'Beam search' is a glossary entry on {PAGE} but has no row: "
        f"add the line '{PAGE}\\tBeam search\\t' before line 60"
    ]


def test_a_removed_entry_names_the_row_to_delete() -> None:
    problems = planned_entry_problems(PAGE, [KV_CACHE], [(60, TOP_P), (61, KV_CACHE)], Path("t.tsv"))
    assert problems == [
        f"t.tsv:60: 'Top-p sampling' (aliases ['Nucleus sampling']) is planned on {PAGE} "
        "but the page has no such entry: "
        "delete the row if the entry was removed or renamed, or fix the entry"
    ]


def test_a_new_alias_shows_both_the_old_row_and_the_new_one() -> None:
    with_alias = ("KV cache", ("Key-value cache",))
    problems = planned_entry_problems(PAGE, [TOP_P, with_alias], [(60, TOP_P), (61, KV_CACHE)], Path("t.tsv"))
    assert [problem.split(": ", 1)[0] for problem in problems] == ["t.tsv:61", "t.tsv:60"]
    assert problems[1].endswith(f"add the line '{PAGE}\\tKV cache\\tKey-value cache' after line 60 ('Top-p sampling')")


def test_a_page_that_matches_its_plan_has_no_problem() -> None:
    assert planned_entry_problems(PAGE, [TOP_P, KV_CACHE], [(60, TOP_P), (61, KV_CACHE)]) == []


def test_a_term_without_a_terminology_row_names_the_file_and_the_row_to_add(tmp_path: Path) -> None:
    """The old failure was a bare ``KeyError: 'Beam search'``."""
    terminology = tmp_path / "terminology.tsv"
    rows = "english\tzh_TW\tlink_text\tnote\nKV cache\tKV 快取\tchinese\tTaiwan usage\n"
    terminology.write_text(rows, encoding="utf-8")
    assert missing_terminology_rows(["KV cache", "Beam search", "Beam search"], terminology) == [
        f"{terminology}: 'Beam search' has no row: add the line 'Beam search\\t<Chinese>\\tchinese\\tTaiwan usage' "
        "(columns english, zh_TW, link_text, note; see CONTRIBUTING.md, step 3)"
    ]


def test_the_real_lists_agree() -> None:
    """Every planned term and alias has a Chinese rendering."""
    names = [name for page in planned_entries().values() for _, (term, aliases) in page for name in (term, *aliases)]
    assert missing_terminology_rows(names) == []
