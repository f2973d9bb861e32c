"""The workarounds registry (docs/_ext/llmglossary/workarounds.py) against installed releases, code, README, upstream/.

When a pin in constraints.txt moves, the first test fails and names the workaround to
re-examine: drop it if the new release fixed the behaviour (its "still needed" test
then fails too), or add the version to its registry row if it did not.  The other
tests keep the registry the one place: each module's version gate is its row's, each
row's "still needed" test and upstream patch exist, and the README's table is the
registry's.  The tests named ``..._still_...`` are the "still needed" tests of the rows
whose proof lives here: each asserts the upstream behaviour a workaround exists for.
"""

from __future__ import annotations

import ast
import inspect
import io
import json
from importlib.metadata import version
from pathlib import Path

import myst_parser
import myst_parser.mdit_to_docutils.base as myst_base
import myst_parser.parsers.sphinx_ as myst_sphinx
import pybtex.plugin
import pytest
import sphinx.search
import sphinx.transforms.i18n as sphinx_i18n
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from docutils.utils import new_document
from myst_parser.config.main import MdParserConfig
from packaging.version import Version
from sphinx.search.zh import SearchChinese
from sphinxcontrib.bibtex.domain import BibtexDomain

import intl_update
from extension_table import PACKAGE, extension_table
from llmglossary import bibtexplugins, glossarysearch, i18nparses, mystsettings, reference, themestrings
from llmglossary.workarounds import REGISTRY, ROWS, TO_FILE, Workaround, markdown_table
from llmglossary.zhsearch import language, stemmer
from sphinxbuild import REPO, build, write_tree

ROW_IDS = [row.key for row in ROWS]


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_each_workaround_was_written_for_the_installed_release(row: Workaround) -> None:
    installed = version(row.package)
    # Fires on the first release that fixes the bug, whichever Python that release needs
    # (Sphinx 9.1.1 needs 3.12): make newest installs it on the newest Python.
    assert Version(installed) < Version(row.expires), (
        f"{row.package} is now {installed}, at or past {row.expires}, where the workaround {row.key} expires "
        f"({row.upstream if row.upstream != TO_FILE else 'its upstream patch ' + row.upstream_patch}): delete it, "
        f"its version gate and its tests; {row.still_needed} shows whether upstream still behaves as it did"
    )
    assert installed in row.versions, (
        f"{row.package} is now {installed}; {source_of(row)[0].relative_to(REPO)} ({row.what}) was written "
        f"for {sorted(row.versions)}: drop it if this release fixed it (run {row.still_needed}), "
        "else add the version to its row in docs/_ext/llmglossary/workarounds.py"
    )


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_each_workaround_expires_after_every_release_it_was_checked_against(row: Workaround) -> None:
    assert all(Version(checked) < Version(row.expires) for checked in row.versions), row.key


def test_each_modules_version_gate_is_its_registry_row() -> None:
    assert i18nparses.PATCHED_VERSIONS is REGISTRY["i18nparses"].versions
    assert mystsettings.PATCHED_VERSIONS is REGISTRY["mystsettings"].versions
    assert themestrings.REWRITTEN_VERSIONS is REGISTRY["themestrings"].versions
    assert reference.UNTRANSLATED_HELP_VERSIONS is REGISTRY["argparse-help-source"].versions
    assert reference.RST_ONLY_CACHE_VERSIONS is REGISTRY["codeautolink-cache"].versions
    assert bibtexplugins.PATCHED_VERSIONS is REGISTRY["bibtexplugins"].versions
    assert stemmer.STEMMER_BUG_VERSIONS is REGISTRY["zhsearch-stemmer"].versions
    assert language.REMEMBERED_SPLIT_VERSIONS is REGISTRY["zhsearch-split"].versions
    assert glossarysearch.SEARCHTOOLS_VERSIONS is REGISTRY["glossarysearch-scorer"].versions
    assert intl_update.PREVIOUS_WRAP_VERSIONS is REGISTRY["babel-previous-msgid"].versions


def source_of(row: Workaround) -> tuple[Path, str]:
    """The file and the name a row's ``module`` points to: ``zhsearch.stemmer.X`` under docs/_ext/llmglossary,
    or ``tools/<file>.py:X``."""
    if row.module.startswith("tools/"):
        path, _, name = row.module.partition(":")
        return REPO / path, name
    dotted = row.module.split(",")[0].split(" ")[0].split(".")
    folder = PACKAGE
    for index, part in enumerate(dotted[:-1]):
        if (folder / f"{part}.py").is_file():
            return folder / f"{part}.py", dotted[index + 1]
        folder = folder / part
    raise AssertionError(f"{row.key}: no module of docs/_ext/llmglossary holds {row.module}")


def test_each_workaround_module_exists() -> None:
    for row in ROWS:
        source, name = source_of(row)
        tree = ast.parse(source.read_text(encoding="utf-8"))
        defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.ClassDef)}
        # A module-level constant too, such as a version gate (glossarysearch.SEARCHTOOLS_VERSIONS).
        defined |= {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        assert name in defined, f"{row.key}: {row.module} is not defined in {source.name}"


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_each_still_needed_test_exists(row: Workaround) -> None:
    path, _, name = row.still_needed.partition("::")
    test_file = REPO / path
    assert test_file.is_file(), row.still_needed
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    assert name in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}, row.still_needed


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_each_workaround_has_an_upstream_report_or_a_ready_patch(row: Workaround) -> None:
    if row.upstream == TO_FILE:
        assert row.upstream_patch, f"{row.key}: nothing filed and no patch to file"
    else:
        assert row.upstream.startswith("https://github.com/"), row.upstream
    if row.upstream_patch:
        folder = REPO / row.upstream_patch
        readme = (folder / "README.md").read_text(encoding="utf-8")
        patches = sorted(folder.glob("*.patch"))
        assert patches, f"{folder} has no patch"
        for patch in patches:
            text = patch.read_text(encoding="utf-8")
            assert text.startswith("From ") or text.startswith("diff --git"), patch
            assert "+++ b/" in text and "\n+" in text, patch
            # The patch comes with its test.
            assert "+++ b/tests/" in text or "+++ b/test/" in text, f"{patch} changes no test"
        assert "## Issue" in readme and "## How to apply" in readme, folder


def test_the_readme_table_is_the_registry() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert markdown_table() in readme, "README.md's workaround table differs from docs/_ext/llmglossary/workarounds.py"


def test_the_readme_extension_table_is_the_modules_docstrings() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert extension_table() in readme, "README.md's extension table is stale: run tools/extension_table.py"


def test_every_extension_module_says_why_it_exists() -> None:
    table = extension_table()
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 20
    assert [path for path in modules if f"| `{path.relative_to(PACKAGE).as_posix()}` |" not in table] == []


# -- The "still needed" tests: each asserts the upstream behaviour its workaround is for.


def language_data(tmp_path: Path, extensions: list[str]) -> str:
    write_tree(tmp_path, {"conf.py": f"extensions = {extensions!r}\n", "index.rst": "Title\n=====\n\n詞元。\n"})
    result = build(tmp_path, overrides={"language": "zh_TW"})
    assert result.warnings == ""
    return (result.outdir / "_static" / "language_data.js").read_text(encoding="utf-8")


@pytest.mark.heavy
def test_sphinx_chinese_search_still_names_a_stemmer_it_does_not_ship(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # add_search_language replaces Sphinx's process-wide entry, so an earlier build with
    # zhsearch in this process would otherwise stand in for the stock search.
    monkeypatch.setitem(sphinx.search.languages, "zh", "sphinx.search.zh.SearchChinese")
    stock = language_data(tmp_path / "stock", [])
    assert "window.Stemmer = ChineseStemmer;" in stock and "class ChineseStemmer" not in stock


@pytest.mark.heavy
@pytest.mark.skipif(not stemmer.needs_english_stemmer(), reason="a Sphinx release with the upstream fix")
def test_the_chinese_search_ships_the_stemmer_it_names(tmp_path: Path) -> None:
    # The workaround itself, where it applies; its "still needed" test above checks Sphinx alone.
    fixed = language_data(tmp_path, ["llmglossary.zhsearch"])
    assert "window.Stemmer = EnglishStemmer;" in fixed and "EnglishStemmer" in fixed.split("window.Stemmer")[0]


def test_sphinx_chinese_split_still_notes_latin_terms_as_a_side_effect() -> None:
    """zhsearch's remembered segmentations replay this; were it gone, the replay would be wrong."""
    search = SearchChinese({"dict": ""})
    assert search.latin_terms == set()
    words = search.split("LoRA 詞元 adapter")
    assert {"LoRA", "adapter"} <= set(words)
    assert search.latin_terms == {"LoRA", "adapter"}


def test_myst_still_builds_settings_and_a_parser_per_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    # Stock functions: an earlier build in this process may have installed ours.
    monkeypatch.setattr(myst_base, "get_default_settings", mystsettings.get_default_settings)
    made: list[object] = []
    stock_make_document = myst_base.make_document
    monkeypatch.setattr(myst_base, "make_document", lambda *a, **k: made.append(1) or stock_make_document(*a, **k))
    document = new_document("<test>")
    renderer = myst_base.DocutilsRenderer(parser=None)  # type: ignore[arg-type]
    renderer.setup_render({"document": document, "myst_config": MdParserConfig()}, {})
    assert made == [1], "setup_render no longer builds a throw-away document: drop mystsettings' renderer"
    assert myst_base.get_default_settings() is not myst_base.get_default_settings()  # type: ignore[attr-defined]
    # MystParser.parse still creates its markdown-it parser on every call.
    assert "create_md_parser(" in inspect.getsource(myst_sphinx.MystParser.parse)


def test_furo_templates_still_hold_literal_english_labels() -> None:
    import furo

    theme = Path(furo.__file__).parent / "theme" / "furo"
    page = (theme / "page.html").read_text(encoding="utf-8")
    icons = (theme / "partials" / "icons.html").read_text(encoding="utf-8")
    for label in themestrings.ARIA_LABELS:
        assert f'aria-label="{label}"' in page, label
    for title in themestrings.ICON_TITLES:
        assert f"<title>{title}</title>" in page + icons, title


RECORD_HELP_SOURCES = """\
import json, sys
sys.path.insert(0, {root!r})
extensions = ["sphinxarg.ext"]


def record(app, doctree):
    from docutils import nodes
    sources = [node.source for node in doctree.findall(nodes.paragraph) if node.astext() == "how big"]
    (app.srcdir / "sources.json").write_text(json.dumps(sources))


def setup(app):
    app.connect("doctree-read", record)
"""


def test_sphinx_argparse_still_leaves_help_paragraphs_without_a_source(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "conf.py": RECORD_HELP_SOURCES.format(root=str(tmp_path)),
        "index.rst": "Tool\n====\n\n.. argparse::\n   :module: toolcli\n   :func: build_parser\n   :prog: tool\n",
        "toolcli.py": "import argparse\n\n\ndef build_parser():\n    parser = argparse.ArgumentParser(prog='tool')\n"
                      "    parser.add_argument('--size', help='how big')\n    return parser\n",
    })
    result = build(tmp_path, fresh=True)
    assert result.warning_lines() == []
    # No source (None or ""): Sphinx takes the paragraph for its own text, and gettext leaves it out.
    sources = json.loads((tmp_path / "sources.json").read_text(encoding="utf-8"))
    assert len(sources) == 1 and not sources[0]


# -- Each workaround does nothing on a release it was not written for.


def test_the_myst_patches_are_left_out_on_other_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    original_settings = myst_base.get_default_settings  # type: ignore[attr-defined]
    original_parser = myst_sphinx.create_md_parser  # type: ignore[attr-defined]
    monkeypatch.setattr(myst_base, "get_default_settings", original_settings)
    monkeypatch.setattr(myst_sphinx, "create_md_parser", original_parser)
    monkeypatch.setattr(myst_parser, "__version__", "0.0.0")
    mystsettings.setup(None)  # type: ignore[arg-type]
    assert myst_base.get_default_settings is original_settings  # type: ignore[attr-defined]
    assert myst_sphinx.create_md_parser is original_parser  # type: ignore[attr-defined]
    monkeypatch.setattr(myst_parser, "__version__", sorted(mystsettings.PATCHED_VERSIONS)[0])
    mystsettings.setup(None)  # type: ignore[arg-type]
    assert myst_base.get_default_settings is mystsettings.default_settings  # type: ignore[attr-defined]
    assert myst_sphinx.create_md_parser is mystsettings.shared_md_parser  # type: ignore[attr-defined]


def test_the_locale_patch_is_left_out_on_other_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    # Unwrapped: an earlier build in this process may have patched it already.
    stock_apply = getattr(sphinx_i18n.Locale.apply, "__wrapped__", sphinx_i18n.Locale.apply)
    monkeypatch.setattr(sphinx_i18n.Locale, "apply", stock_apply)
    monkeypatch.setattr(sphinx, "__version__", "0.0.0")
    i18nparses.setup(None)  # type: ignore[arg-type]
    assert sphinx_i18n.Locale.apply is stock_apply
    monkeypatch.setattr(sphinx, "__version__", sorted(i18nparses.PATCHED_VERSIONS)[0])
    i18nparses.setup(None)  # type: ignore[arg-type]
    patched_apply = sphinx_i18n.Locale.apply
    assert patched_apply is not stock_apply and patched_apply.__wrapped__ is stock_apply  # type: ignore[attr-defined]
    i18nparses.setup(None)  # type: ignore[arg-type]
    assert sphinx_i18n.Locale.apply is patched_apply  # a second build in the process wraps it once


def test_no_module_replaces_a_function_of_codeautolink() -> None:
    import sphinx_codeautolink.extension as extension
    from sphinx_codeautolink.extension.block import link_html

    assert extension.link_html is link_html


def counted_entry_point_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every read of the installed entry points that pybtex's plugin lookup makes from now on."""
    reads: list[str] = []
    stock_entry_points = pybtex.plugin.entry_points  # type: ignore[attr-defined]

    def counting(*args: object, **kwargs: object) -> object:
        reads.append(str(kwargs.get("group")))
        return stock_entry_points(*args, **kwargs)

    monkeypatch.setattr(pybtex.plugin, "entry_points", counting)
    return reads


def test_sphinxcontrib_bibtex_still_looks_up_the_backend_per_citation(monkeypatch: pytest.MonkeyPatch) -> None:
    assert 'find_plugin("pybtex.backends", "plaintext")' in inspect.getsource(BibtexDomain.resolve_xref), (
        "sphinxcontrib-bibtex no longer looks the backend up per citation: drop docs/_ext/llmglossary/bibtexplugins.py"
    )
    # ... and pybtex still reads every entry point on each lookup of a plugin not registered at run time.
    reads = counted_entry_point_reads(monkeypatch)
    for _ in range(3):
        pybtex.plugin.find_plugin("pybtex.backends", "latex")
    assert reads.count("pybtex.backends") == 3


def test_the_registered_backend_is_the_entry_points_class_and_reads_no_entry_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pybtex.plugin, "_RUNTIME_PLUGINS", {})  # type: ignore[attr-defined]
    from importlib.metadata import entry_points

    (entry_point,) = entry_points(group="pybtex.backends", name="plaintext")
    monkeypatch.setattr(bibtexplugins, "version", lambda package: "0.0.0")
    bibtexplugins.setup(None)  # type: ignore[arg-type]
    reads = counted_entry_point_reads(monkeypatch)
    assert pybtex.plugin.find_plugin("pybtex.backends", "plaintext") is entry_point.load()
    assert reads == ["pybtex.backends"], "left out on other releases"
    monkeypatch.setattr(bibtexplugins, "version", lambda package: sorted(bibtexplugins.PATCHED_VERSIONS)[0])
    bibtexplugins.setup(None)  # type: ignore[arg-type]
    reads.clear()
    assert pybtex.plugin.find_plugin("pybtex.backends", "plaintext") is entry_point.load()
    assert reads == []


LONG_PREVIOUS = "A filter applied before sampling keeps the smallest group of tokens whose probabilities add up. " * 2


def babel_previous_lines() -> list[str]:
    """The ``#|`` lines Babel itself writes for a fuzzy entry with a long previous English."""
    catalog = Catalog(locale="zh_TW")
    catalog.add("Top-p", "舊譯文。", flags=["fuzzy"], previous_id=[LONG_PREVIOUS])
    output = io.BytesIO()
    write_po(output, catalog, width=intl_update.WIDTH, include_previous=True, omit_header=True)
    return [line for line in output.getvalue().decode().splitlines() if line.startswith("#|")]


def test_babel_still_wraps_a_long_previous_msgid_as_a_comment() -> None:
    lines = babel_previous_lines()
    assert any(not (line.startswith(('#| msgid "', '#| "')) and line.endswith('"')) for line in lines), (
        "Babel now writes whole quoted #| lines: drop _previous_lines from tools/intl_update.py"
    )


def test_intl_update_leaves_babel_s_previous_lines_alone_on_other_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = Catalog(locale="zh_TW")
    catalog.add("Top-p", "舊譯文。", flags=["fuzzy"], previous_id=[LONG_PREVIOUS])
    ours = [line for line in intl_update.canonical_bytes(catalog).decode().splitlines() if line.startswith("#|")]
    assert ours != babel_previous_lines() and all(line.endswith('"') for line in ours)
    monkeypatch.setattr(intl_update, "version", lambda package: "0.0.0")
    untouched = [line for line in intl_update.canonical_bytes(catalog).decode().splitlines() if line.startswith("#|")]
    assert untouched == babel_previous_lines()

