"""The glossary's terminology table, ``locales/zh_TW/terminology.tsv``: where it is and what it says.

Exists because two features read the same table, the one place the zh_TW rendering of
every term is decided: Chinese search indexes each rendering as one jieba word
(:mod:`.zhsearch`), and the search page finds an entry by its Chinese name
(:mod:`.glossarysearch`).  Both load this extension for the setting
``glossary_terminology``, the table's path (relative to the folder of ``conf.py``; no
table by default: the table is a project's content, not the package's), and read the
table through :func:`terminology`.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata


def resolve_terminology_path(app: Sphinx, config: Config) -> None:
    """Make a relative ``glossary_terminology`` absolute, from the folder of ``conf.py``, once at start-up."""
    if config.glossary_terminology:
        config.glossary_terminology = str(Path(app.confdir, config.glossary_terminology))


def terminology_path(config: Config) -> Path | None:
    """The configured table (absolute once the configuration is read), or None when the project has none."""
    return Path(config.glossary_terminology) if config.glossary_terminology else None


def _example_table() -> Path:
    """A two-row table in a temporary folder, for the examples below."""
    import tempfile

    table = Path(tempfile.mkdtemp()) / "terminology.tsv"
    rows = ["english\tzh_TW\tlink_text\tnote", "Token\t詞元\tchinese\t", "VRAM\t顯存\tsearch\t",
            "LoRA\t低秩適應\tenglish\t"]  # fmt: skip
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return table


SEARCH_ALIAS = "search"
"""The ``link_text`` of a row that is not the term's rendering but another name a reader
searches for it by (a mainland or colloquial word, 顯存 for VRAM): the search page finds
the term's entry by it, and the pages never write it."""


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            {key: (value or "").strip() for key, value in row.items()}
            for row in csv.DictReader(handle, delimiter="\t")
            if (row["english"] or "").strip() and (row["zh_TW"] or "").strip()
        ]


def terminology(path: Path) -> dict[str, str]:
    """English term (lower-cased) -> its zh_TW rendering, from the terminology table.

    >>> terminology(_example_table())
    {'token': '詞元', 'lora': '低秩適應'}
    """
    return {row["english"].lower(): row["zh_TW"] for row in _rows(path) if row["link_text"] != SEARCH_ALIAS}


def search_aliases(path: Path) -> dict[str, str]:
    """Search alias -> the English term whose entry it finds: the table's :data:`SEARCH_ALIAS` rows.

    >>> search_aliases(_example_table())
    {'顯存': 'VRAM'}
    """
    return {row["zh_TW"]: row["english"] for row in _rows(path) if row["link_text"] == SEARCH_ALIAS}


def kept_in_english(path: Path) -> frozenset[str]:
    """English terms (lower-cased) that running text writes in English, their Chinese only a gloss.

    These are the rows whose ``link_text`` is ``english`` (an acronym or term of art) or
    ``name`` (a proper name, identifier or unit), as ``locales/zh_TW/POLICY.md`` defines them.

    >>> sorted(kept_in_english(_example_table()))
    ['lora']
    """
    with path.open(encoding="utf-8", newline="") as handle:
        return frozenset(
            row["english"].strip().lower()
            for row in csv.DictReader(handle, delimiter="\t")
            if row["link_text"].strip() in ("english", "name")
        )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value(
        "glossary_terminology",
        "",
        "env",
        types=(str,),
        description="The terminology table (English -> zh_TW), relative to the folder of conf.py; none by default.",
    )
    app.connect("config-inited", resolve_terminology_path, priority=100)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
