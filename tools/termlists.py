"""The two hand-kept term lists a new glossary term needs a row in, and their failure messages.

Usage: python tools/termlists.py _build/html/en tests/data/expected_terms.tsv   (make expected-terms)

``tests/data/expected_terms.tsv`` plans every glossary entry (page, term, aliases) in
reading order; the site tests compare it with the built pages, so an entry that
disappears or moves is caught.  The command above rewrites it from the built English
pages: run it after adding an entry, then check that its diff is only your row.

``locales/zh_TW/terminology.tsv`` fixes the Chinese of every term; it has to be
written by a person, so a missing row is reported with the row to add.
"""

from __future__ import annotations

import copy
import csv
import difflib
import re
import sys
from collections.abc import Callable
from pathlib import Path

from bs4 import BeautifulSoup

REPO = Path(__file__).resolve().parent.parent
EXPECTED_TERMS = REPO / "tests" / "data" / "expected_terms.tsv"
TERMINOLOGY = REPO / "locales" / "zh_TW" / "terminology.tsv"
Entry = tuple[str, tuple[str, ...]]
"""A glossary entry: its term and its aliases, as the page shows them."""


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it, as a contributor types it."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def reading_order(docs: Path = REPO / "docs") -> list[str]:
    """The documents of the index's toctrees, in order."""
    index = (docs / "index.md").read_text(encoding="utf-8")
    pages: list[str] = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", index, flags=re.DOTALL):
        pages += [line.strip() for line in block.splitlines() if line.strip() and not line.startswith(":")]
    return pages


def page_entries(html: str | BeautifulSoup) -> list[Entry]:
    """The glossary entries of a built page: each ``dd`` follows its term's and aliases' ``dt``.

    ``html`` is the page's text or its parsed tree, which is read, never changed.
    """
    entries: list[Entry] = []
    names: list[str] = []
    soup = html if isinstance(html, BeautifulSoup) else BeautifulSoup(html, "html.parser")
    for glossary in soup.select("dl.glossary"):
        for child in glossary.find_all(["dt", "dd"], recursive=False):
            if child.name == "dt":
                term = copy.copy(child)  # a copy: the caller's tree keeps its header links
                for link in term.select("a.headerlink"):
                    link.decompose()
                names.append(term.get_text().strip())
            elif names:
                entries.append((names[0], tuple(names[1:])))
                names = []
    return entries


def tsv_row(docname: str, entry: Entry) -> str:
    """The line of ``expected_terms.tsv`` for an entry."""
    return f"{docname}\t{entry[0]}\t{' | '.join(entry[1])}"


def planned_entries(path: Path = EXPECTED_TERMS) -> dict[str, list[tuple[int, Entry]]]:
    """Per page, (line number, entry) of every row of ``expected_terms.tsv``."""
    planned: dict[str, list[tuple[int, Entry]]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for line, row in enumerate(csv.DictReader(handle, delimiter="\t"), start=2):
            aliases = tuple(alias.strip() for alias in row["aliases"].split("|") if alias.strip())
            planned.setdefault(row["page"], []).append((line, (row["term"], aliases)))
    return planned


def planned_entry_problems(
    docname: str, built: list[Entry], planned: list[tuple[int, Entry]], path: Path = EXPECTED_TERMS
) -> list[str]:
    """What to change in ``path`` so that it plans exactly the entries the page shows.

    >>> planned = [(60, ("Top-p sampling", ("Nucleus sampling",))), (61, ("KV cache", ()))]
    >>> built = [("Top-p sampling", ("Nucleus sampling",)), ("Beam search", ()), ("KV cache", ())]
    >>> for problem in planned_entry_problems("05-the-transformer", built, planned, Path("terms.tsv")):
    ...     print(problem.replace(": ", ":\\n", 2))
    terms.tsv:60:
    'Beam search' is a glossary entry on 05-the-transformer but has no row:
    add the line '05-the-transformer\\tBeam search\\t' after line 60 ('Top-p sampling')
    """
    rows = [entry for _, entry in planned]
    problems = []
    matcher = difflib.SequenceMatcher(a=rows, b=built, autojunk=False)
    for tag, start, end, built_start, built_end in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            for line, entry in planned[start:end]:
                problems.append(
                    f"{shown(path)}:{line}: {entry[0]!r} (aliases {list(entry[1])}) is planned on {docname} "
                    "but the page has no such entry: delete the row if the entry was removed or renamed, "
                    "or fix the entry"
                )
        if tag in ("insert", "replace"):
            line, after = planned[start - 1] if start else (planned[0][0] if planned else 1, None)
            where = f"after line {line} ({after[0]!r})" if after else f"before line {line}"
            for entry in built[built_start:built_end]:
                problems.append(
                    f"{shown(path)}:{line}: {entry[0]!r} is a glossary entry on {docname} but has no row: "
                    f"add the line {tsv_row(docname, entry)!r} {where}"
                )
    return problems


def missing_terminology_rows(names: list[str], path: Path = TERMINOLOGY) -> list[str]:
    """A problem for each term or alias without a row in the terminology list, with the row to add."""
    with path.open(encoding="utf-8", newline="") as handle:
        known = {row["english"] for row in csv.DictReader(handle, delimiter="\t")}
    return [
        f"{shown(path)}: {name!r} has no row: add the line '{name}\\t<Chinese>\\tchinese\\tTaiwan usage' "
        "(columns english, zh_TW, link_text, note; see CONTRIBUTING.md, step 3)"
        for name in dict.fromkeys(names)
        if name not in known
    ]


def derived_rows(
    html_dir: Path, docs: Path = REPO / "docs", parsed: Callable[[str], BeautifulSoup] | None = None
) -> list[str]:
    """Every line of ``expected_terms.tsv`` as the built English pages give it.

    ``parsed`` gives a docname's page already parsed (the tests share one parse per page);
    without it each page is read from ``html_dir``.
    """
    lines = ["page\tterm\taliases"]
    for docname in reading_order(docs):
        page = parsed(docname) if parsed else (html_dir / f"{docname}.html").read_text(encoding="utf-8")
        lines += [tsv_row(docname, entry) for entry in page_entries(page)]
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    html_dir, target = Path(argv[0]), Path(argv[1])
    if not (html_dir / "index.html").exists():
        print(f"{html_dir} has no built site: run `make html-en` first", file=sys.stderr)
        return 2
    old = target.read_text(encoding="utf-8").splitlines() if target.exists() else []
    new = derived_rows(html_dir)
    target.write_text("\n".join(new) + "\n", encoding="utf-8")
    diff = difflib.unified_diff(old, new, lineterm="", n=0)
    changes = [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    print("\n".join(changes) if changes else f"{target} already lists every entry")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
