"""Merge the English messages into the zh_TW catalogs, in one canonical form (make intl-update).

Usage: python tools/intl_update.py _build/gettext locales/zh_TW/LC_MESSAGES

This does what ``sphinx-intl update --line-width 76 --no-obsolete`` did, with Babel's
own merge, and three differences a translator relies on:

- every catalog is rewritten in the canonical form (Babel's writer, 76 columns), even
  when no message changed, so a translation typed on one line is rewrapped here
  instead of failing the wrapping test;
- a fuzzy entry keeps the English it was translated from as ``#| msgid`` lines
  (gettext's ``msgmerge --previous``), so the translator sees what changed.  Babel 2.19
  writes them through its comment wrapper, which joins and rewraps the quoted lines of a
  long message at any space, so its ``#|`` lines cut words and lose characters when read
  back; this module writes them itself, one quoted line per ``#|`` line, as msgmerge does
  (registry key ``babel-previous-msgid``, on the Babel releases it names);
- ``POT-Creation-Date`` changes only when a message did, so a rebuild alone leaves
  every catalog byte for byte as it was.
"""

from __future__ import annotations

import io
import sys
from importlib.metadata import version
from itertools import groupby
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import denormalize, normalize, read_po, write_po

from llmglossary.workarounds import REGISTRY

WIDTH = 76
"""Line width of the catalogs (sphinx-intl's default, which the catalogs were written with)."""

LANGUAGE = "zh_TW"
PREVIOUS_WRAP_VERSIONS = REGISTRY["babel-previous-msgid"].versions
"""The Babel releases whose ``#|`` lines this module rewrites (upstream/babel-previous-msgid-lines)."""
PREVIOUS_MARK = "|"
"""Babel's reader keeps ``#| msgid "…"`` lines as user comments that start with ``|``."""


def _line_runs(data: bytes) -> list[tuple[bool, list[bytes]]]:
    """The lines of ``data`` in runs: ``(True, lines)`` for a run of ``#|`` lines, ``(False, lines)`` between."""
    return [(is_previous, list(lines)) for is_previous, lines in
            groupby(data.split(b"\n"), key=lambda line: line.startswith(b"#" + PREVIOUS_MARK.encode()))]


def read_catalog(data: bytes) -> Catalog:
    """A catalog from ``.po`` bytes, with the previous English of each fuzzy entry.

    Babel keeps a message's ``#|`` lines as user comments, but drops repeated ones (a
    message's comments are kept distinct), so a previous English with two equal lines
    would come back short.  The lines are read from ``data`` instead, run by run, in the
    order of the messages that carry them.
    """
    catalog = read_po(io.BytesIO(data))
    carrying = [m for m in catalog if any(c.startswith(PREVIOUS_MARK) for c in m.user_comments)]
    runs = [lines for is_previous, lines in _line_runs(data) if is_previous]
    if len(runs) != len(carrying):
        raise ValueError(f"{len(runs)} runs of '#|' lines, but {len(carrying)} messages carry them")
    for message, run in zip(carrying, runs, strict=True):
        message.user_comments = [c for c in message.user_comments if not c.startswith(PREVIOUS_MARK)]
        lines = [line.decode("utf-8")[1 + len(PREVIOUS_MARK) :].strip().removeprefix("msgid").strip()
                 for line in run]
        message.previous_id = [denormalize("\n".join(lines))]
    return catalog


def canonical_bytes(catalog: Catalog) -> bytes:
    """The catalog as ``make intl-update`` writes it.

    A previous English is kept only while the entry is fuzzy: once the translator has
    checked it and removed the flag, the old English is noise.

    >>> catalog = Catalog(locale="zh_TW")
    >>> catalog.add("Token", "詞元", flags=["fuzzy"], previous_id=["token"])
    <Message 'Token' (flags: ['fuzzy'])>
    >>> print(canonical_bytes(catalog).decode().strip().split("\\n\\n")[-1])
    #, fuzzy
    #| msgid "token"
    msgid "Token"
    msgstr "詞元"
    """
    for message in catalog:
        if message.id and not message.fuzzy:
            message.previous_id = []
    output = io.BytesIO()
    write_po(output, catalog, width=WIDTH, include_previous=True, ignore_obsolete=True)
    if version("babel") not in PREVIOUS_WRAP_VERSIONS:
        return output.getvalue()
    previous = [_previous_lines(message.previous_id) for message in catalog if message.id and message.previous_id]
    return _replace_previous_runs(output.getvalue(), previous)


def _previous_lines(previous_id: list[str]) -> list[bytes]:
    """``#| msgid`` lines for a previous English, each a whole quoted line of its normalized form.

    >>> print(b"\\n".join(_previous_lines(["A filter applied before sampling: keep the smallest "
    ...                                     "group of tokens whose probabilities add up to p."])).decode())
    #| msgid ""
    #| "A filter applied before sampling: keep the smallest group of tokens "
    #| "whose probabilities add up to p."
    """
    lines = []
    for keyword, text in zip(("msgid", "msgid_plural"), previous_id, strict=False):
        first, *rest = normalize(text, width=WIDTH - len("#| ")).split("\n")
        lines += [f"#| {keyword} {first}", *(f"#| {line}" for line in rest)]
    return [line.encode("utf-8") for line in lines]


def _replace_previous_runs(data: bytes, previous: list[list[bytes]]) -> bytes:
    """``data`` with its n-th run of ``#|`` lines (Babel's, one per message with a previous English, in
    catalog order) replaced by ``previous[n]``."""
    groups = _line_runs(data)
    runs = sum(1 for is_previous, _ in groups if is_previous)
    if runs != len(previous):
        raise AssertionError(f"Babel wrote {runs} runs of #| lines for {len(previous)} previous messages")
    replacements = iter(previous)
    return b"\n".join(line for is_previous, lines in groups for line in (next(replacements) if is_previous else lines))


def canonical_form(data: bytes) -> bytes:
    """``.po`` bytes rewritten in canonical form; equal to ``data`` when already canonical."""
    return canonical_bytes(read_catalog(data))


def wrapping_problem(path: Path) -> str | None:
    """``file:line: …`` at the first line that differs from the canonical form, or ``None``."""
    lines = path.read_bytes().decode("utf-8").splitlines()
    canonical = canonical_form(path.read_bytes()).decode("utf-8").splitlines()
    if lines == canonical:
        return None
    line = next(
        (number for number, (have, want) in enumerate(zip(lines, canonical, strict=False), start=1) if have != want),
        min(len(lines), len(canonical)) + 1,
    )
    want = canonical[line - 1] if line <= len(canonical) else "(end of file)"
    return (
        f"{path}:{line}: not wrapped the way `make intl-update` writes it (this line should read {want!r}); "
        "run `make intl-update`, which rewraps every catalog without changing its messages"
    )


def _messages(catalog: Catalog) -> list[tuple[object, ...]]:
    return [
        (m.id, m.context, m.string, m.fuzzy, tuple(m.previous_id), tuple(m.user_comments))
        for m in catalog
        if m.id
    ]


def merge(template: Catalog, old: bytes | None) -> bytes:
    """The catalog ``old`` (``None``: none yet) updated to the messages of ``template``.

    Babel matches a changed English message to its old translation (fuzzy) and records
    the old English; an entry that stays fuzzy across updates keeps the English it was
    first translated from.
    """
    if old is None:
        template.locale = LANGUAGE
        return canonical_bytes(template)
    catalog = read_catalog(old)
    before = _messages(catalog)
    previous_ids = {m.id: m.previous_id for m in catalog if m.id and m.fuzzy and m.previous_id}
    creation_date = catalog.creation_date
    catalog.update(template)
    for message in catalog:
        if message.id and message.fuzzy and not message.previous_id and message.id in previous_ids:
            message.previous_id = previous_ids[message.id]
    if _messages(catalog) == before:
        catalog.creation_date = creation_date
    return canonical_bytes(catalog)


def update_catalogs(pot_dir: Path, catalog_dir: Path) -> list[str]:
    """Update every catalog of ``catalog_dir`` from ``pot_dir``; one line per catalog written."""
    report = []
    templates = {path.relative_to(pot_dir).with_suffix(".po"): path for path in sorted(pot_dir.rglob("*.pot"))}
    catalogs = {path.relative_to(catalog_dir) for path in catalog_dir.rglob("*.po")}
    for name in sorted(templates.keys() | catalogs):
        path = catalog_dir / name
        old = path.read_bytes() if path.exists() else None
        if name in templates:
            with templates[name].open("rb") as handle:
                new = merge(read_po(handle), old)
        else:  # a catalog with no page, e.g. sphinx.po for the theme's labels
            new = canonical_form(old or b"")
        if new == old:
            continue
        before = {m.id for m in read_catalog(old) if m.id} if old is not None else set()
        after = read_catalog(new)
        added = sum(1 for m in after if m.id and m.id not in before)
        removed = len(before - {m.id for m in after if m.id})
        fuzzy = sum(1 for m in after if m.id and m.fuzzy)
        action = "created" if old is None else "updated" if added or removed else "rewrapped"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(new)
        report.append(f"{action}: {path} (+{added} -{removed} messages, {fuzzy} fuzzy)")
    return report


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    pot_dir, catalog_dir = Path(argv[0]), Path(argv[1])
    if not any(pot_dir.rglob("*.pot")):
        print(f"no .pot files in {pot_dir}: run `make gettext` first", file=sys.stderr)
        return 2
    report = update_catalogs(pot_dir, catalog_dir)
    print("\n".join(report) if report else f"every catalog in {catalog_dir} is up to date")
    if any(not line.startswith("rewrapped") for line in report):
        print("next: translate the new and fuzzy entries, then `make intl-stats`")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
