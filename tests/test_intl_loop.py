"""The translator's loop: tools/intl_update.py (make intl-update) and tools/intl_stats.py (make intl-stats).

GNU gettext's ``msgmerge --previous`` is the oracle for what a merge keeps of a changed
message; the catalogs in the repository are the oracle for the canonical form.
"""

from __future__ import annotations

import doctest
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

import intl_stats
import intl_update
from intl_stats import catalog_stats, report
from intl_update import canonical_form, merge, read_catalog, update_catalogs

REPO = Path(__file__).resolve().parent.parent
MESSAGES = REPO / "locales" / "zh_TW" / "LC_MESSAGES"
OLD_ENGLISH = "A filter applied before sampling: keep the smallest group of tokens."
NEW_ENGLISH = "A filter applied before sampling: keep the smallest set of tokens."


def template(*messages: str, created: str = "2026-11-30 09:00") -> Catalog:
    """A ``.pot`` as Sphinx's gettext builder writes it, with the given English messages."""
    date = datetime.fromisoformat(created).replace(tzinfo=UTC)
    catalog = Catalog(project="LLM Engineering Glossary", creation_date=date)
    for message in messages:
        catalog.add(message)
    return catalog


def translated(*pairs: tuple[str, str]) -> bytes:
    """A zh_TW catalog whose messages are translated as given."""
    catalog = read_catalog(merge(template(*(english for english, _ in pairs)), None))
    for english, chinese in pairs:
        catalog[english].string = chinese
    return intl_update.canonical_bytes(catalog)


def entries(data: bytes) -> list[tuple[str, str, bool, list[str]]]:
    return [(m.id, m.string, m.fuzzy, m.previous_id) for m in read_catalog(data) if m.id]


@pytest.mark.parametrize("module", [intl_update, intl_stats], ids=lambda module: module.__name__)
def test_docstring_examples(module: object) -> None:
    assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize("catalog", sorted(MESSAGES.glob("*.po")), ids=lambda path: path.stem)
def test_catalogs_in_the_repository_are_already_canonical(catalog: Path) -> None:
    assert canonical_form(catalog.read_bytes()) == catalog.read_bytes()


def test_a_rebuild_without_new_messages_changes_no_byte() -> None:
    """Sphinx stamps every .pot with the time of the build; the catalog keeps its own date."""
    old = translated(("Token", "Token（詞元）"), (OLD_ENGLISH, "取樣前套用的過濾器。"))
    later = template("Token", OLD_ENGLISH, created="2026-12-24 18:00")
    once = merge(later, old)
    assert once == old
    assert merge(later, once) == once


def test_a_real_catalog_survives_a_merge_with_its_own_messages_unchanged() -> None:
    path = MESSAGES / "05-the-transformer.po"
    old = path.read_bytes()
    messages = [m.id for m in read_catalog(old) if m.id]
    assert merge(template(*messages, created="2030-01-01 00:00"), old) == old


def test_a_new_message_dates_the_catalog_and_arrives_untranslated() -> None:
    old = translated(("Token", "Token（詞元）"))
    new = merge(template("Token", "Beam search", created="2026-12-24 18:00"), old)
    assert b"POT-Creation-Date: 2026-12-24 18:00+0000" in new
    assert entries(new) == [("Token", "Token（詞元）", False, []), ("Beam search", "", False, [])]


def msgmerge_previous(old: bytes, pot: bytes, directory: Path) -> bytes:
    (directory / "old.po").write_bytes(old)
    (directory / "new.pot").write_bytes(pot)
    subprocess.run(
        ["msgmerge", "--quiet", "--previous", "--no-location", "-o", "merged.po", "old.po", "new.pot"],
        cwd=directory,
        check=True,
    )
    return (directory / "merged.po").read_bytes()


def test_a_changed_message_turns_fuzzy_with_its_previous_english_as_msgmerge_does(tmp_path: Path) -> None:
    old = translated(("Token", "Token（詞元）"), (OLD_ENGLISH, "取樣前套用的過濾器。"))
    pot = template("Token", NEW_ENGLISH)
    ours = merge(pot, old)
    gettext = msgmerge_previous(old, intl_update.canonical_bytes(template("Token", NEW_ENGLISH)), tmp_path)
    assert entries(ours) == entries(gettext)
    assert entries(ours)[1] == (NEW_ENGLISH, "取樣前套用的過濾器。", True, [OLD_ENGLISH])
    assert f'#| msgid "{OLD_ENGLISH}"'.encode() in ours


LONG_OLD = ("CUDA graphs are not counted by default, because the versions checked here (0.2 to 0.10) capture "
            "them after the pool is allocated, in the share left over; \"quoted\" words and a back\\slash too.")
LONG_NEW = LONG_OLD.replace("by default", "unless you give their size")


def test_a_long_previous_english_reads_back_whole_as_msgmerge_writes_it(tmp_path: Path) -> None:
    """Babel's comment wrapper cut a long ``#| msgid`` at any space and lost characters when read back."""
    old = translated((LONG_OLD, "舊譯文。"))
    ours = merge(template(LONG_NEW), old)
    gettext = msgmerge_previous(old, intl_update.canonical_bytes(template(LONG_NEW)), tmp_path)
    assert entries(ours) == entries(gettext) == [(LONG_NEW, "舊譯文。", True, [LONG_OLD])]
    previous = [line for line in ours.decode().splitlines() if line.startswith("#|")]
    assert len(previous) > 2 and all(len(line) <= intl_update.WIDTH for line in previous)
    assert all(line.startswith(('#| msgid "', '#| "')) and line.endswith('"') for line in previous), previous
    assert canonical_form(ours) == ours


def test_a_previous_english_with_equal_lines_reads_back_whole() -> None:
    """Babel keeps a message's comments distinct, so two equal ``#|`` lines came back as one."""
    row = "model.layers.0.mlp.gate_proj.weight: bf16, 4096 × 14336, 112 MiB;"  # no two fit one line
    repeated = " ".join([row] * 3)
    catalog = read_catalog(translated(("Token", "Token（詞元）"), (NEW_ENGLISH, "舊譯文。")))
    catalog[NEW_ENGLISH].flags.add("fuzzy")
    catalog[NEW_ENGLISH].previous_id = [repeated]
    written = intl_update.canonical_bytes(catalog)
    lines = [line for line in written.decode().splitlines() if line.startswith("#|")]
    assert len(lines) != len(set(lines))
    assert entries(written) == [("Token", "Token（詞元）", False, []), (NEW_ENGLISH, "舊譯文。", True, [repeated])]


def test_a_fuzzy_entry_keeps_the_english_it_was_translated_from_across_updates() -> None:
    old = translated(("Token", "Token（詞元）"), (OLD_ENGLISH, "取樣前套用的過濾器。"))
    once = merge(template("Token", NEW_ENGLISH), old)
    twice = merge(template("Token", NEW_ENGLISH, created="2026-12-01 00:00"), once)
    assert twice == once
    assert entries(twice)[1][3] == [OLD_ENGLISH]


def test_the_previous_english_goes_once_the_translator_clears_the_flag() -> None:
    fuzzy = merge(template("Token", NEW_ENGLISH), translated(("Token", "Token（詞元）"), (OLD_ENGLISH, "舊譯文。")))
    checked = fuzzy.replace(b"#, fuzzy\n#| msgid", b"#| msgid")
    assert entries(canonical_form(checked))[1] == (NEW_ENGLISH, "舊譯文。", False, [])


def test_a_translation_typed_on_one_line_is_rewrapped_by_make_intl_update(tmp_path: Path) -> None:
    english = " ".join(["The nucleus is small when the model is confident and large when it is unsure."] * 2)
    chinese = "模型有把握時 nucleus 很小，沒把握時 nucleus 很大。" * 4
    canonical = translated((english, chinese))
    wrapped_translation_start = canonical.rindex(b'msgstr ""\n')
    one_line = canonical[:wrapped_translation_start] + f'msgstr "{chinese}"\n\n'.encode()
    assert one_line != canonical and entries(one_line) == entries(canonical)
    pots, catalogs = tmp_path / "gettext", tmp_path / "LC_MESSAGES"
    pots.mkdir()
    catalogs.mkdir()
    (pots / "page.pot").write_bytes(intl_update.canonical_bytes(template(english)))
    (catalogs / "page.po").write_bytes(one_line)
    assert update_catalogs(pots, catalogs) == [f"rewrapped: {catalogs / 'page.po'} (+0 -0 messages, 0 fuzzy)"]
    assert (catalogs / "page.po").read_bytes() == canonical
    assert update_catalogs(pots, catalogs) == []


def test_wrapping_failure_names_the_catalog_the_line_and_the_command(tmp_path: Path) -> None:
    canonical = translated(("Token", "Token（詞元）"))
    path = tmp_path / "page.po"
    path.write_bytes(canonical.replace(b'msgid "Token"', b'msgid ""\n"Token"'))
    problem = intl_update.wrapping_problem(path)
    assert problem is not None
    line = canonical.decode().splitlines().index('msgid "Token"') + 1
    assert problem.startswith(f"{path}:{line}: not wrapped the way `make intl-update` writes it")
    assert "run `make intl-update`" in problem
    path.write_bytes(canonical)
    assert intl_update.wrapping_problem(path) is None


def test_stats_never_round_an_incomplete_catalog_up_and_say_what_is_left(tmp_path: Path) -> None:
    english = [f"Message number {n}." for n in range(2000)]
    path = tmp_path / "page.po"
    data = translated(*((message, f"第 {n} 則訊息。") for n, message in enumerate(english)))
    path.write_bytes(merge(template(*english[:-1], "Message number 1999!"), data))
    stats = catalog_stats(path)
    assert (stats.translated, len(stats.fuzzy_lines), len(stats.untranslated_lines)) == (1999, 1, 0)
    lines = report([stats])
    assert lines[-6].endswith("(99.9% translated)")
    assert lines[-4] == "1 message still needs work (1 fuzzy, 0 untranslated):"
    assert lines[-3] == f"  page.po: fuzzy at line {stats.fuzzy_lines[0]}"
    assert "'#| msgid'" in lines[-2]
    assert path.read_text(encoding="utf-8").splitlines()[stats.fuzzy_lines[0] - 1] == 'msgid "Message number 1999!"'
    assert "not a crash" in lines[-1]
    assert intl_stats.main([str(tmp_path)]) == 1


def test_stats_of_a_finished_translation(tmp_path: Path) -> None:
    (tmp_path / "page.po").write_bytes(translated(("Token", "Token（詞元）")))
    assert report([catalog_stats(tmp_path / "page.po")])[-1] == "Every message is translated."
    assert intl_stats.main([str(tmp_path)]) == 0
