"""Saved codeautolink examples of MyST pages survive an incremental build (see docs/_ext/llmglossary/reference.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from sphinx_codeautolink.extension.backref import CodeExample
from sphinx_codeautolink.extension.block import SourceTransform
from sphinx_codeautolink.extension.cache import DataCache
from sphinx_codeautolink.parse import Name, NameBreak

from llmglossary import reference
from sphinxbuild import build, write_tree


def saved_cache(doctreedir: Path, srcdir: Path) -> DataCache:
    """The cache codeautolink itself writes, for one example on a MyST page ``ex``."""
    cache = DataCache(str(doctreedir), str(srcdir))
    name = Name(import_components=["llmcalc", "weight_bytes"], code_str="weight_bytes", lineno=1,
                end_lineno=1, context=NameBreak.call, resolved_location="llmcalc.weight_bytes")
    example = CodeExample(document="ex", ref_id="codeautolink-0", headings=[])
    cache.transforms["ex"] = [SourceTransform(source="weight_bytes(1)", names=[name], example=example, doc_lineno=3)]
    cache.write()
    return cache


def test_codeautolink_alone_drops_a_myst_pages_examples(tmp_path: Path) -> None:
    """The upstream behaviour the workaround exists for: reading the cache back keeps .rst pages only."""
    (tmp_path / "ex.md").write_text("# Example\n", encoding="utf-8")
    saved_cache(tmp_path, tmp_path)
    reread = DataCache(str(tmp_path), str(tmp_path))
    reread.read()
    assert reread.transforms == {}


def test_restored_examples_equal_what_was_saved(tmp_path: Path) -> None:
    (tmp_path / "ex.md").write_text("# Example\n", encoding="utf-8")
    saved = saved_cache(tmp_path, tmp_path)
    transforms: dict[str, list[SourceTransform]] = {}
    app = SimpleNamespace(env=SimpleNamespace(sphinx_codeautolink_transforms=transforms), doctreedir=str(tmp_path),
                          srcdir=str(tmp_path), config=SimpleNamespace(source_suffix={".rst": "restructuredtext",
                                                                                       ".md": "markdown"}))
    reference.restore_saved_examples(app)  # type: ignore[arg-type]
    assert transforms == saved.transforms


CONF = (
    'extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx_codeautolink", "llmglossary.termorder",'
    ' "llmglossary.termlinks"{extra}]\n'
)
PAGES = {
    "index.md": "# Tiny\n\n```{toctree}\nex\nother\napi\n```\n",
    "ex.md": "# Example\n\n```{glossary}\nToken\n  A piece of text.\n```\n\n```python\nimport llmcalc\n"
             "llmcalc.weight_bytes(7)\n```\n",
    "other.md": "# Other\n\n```{glossary}\nVocabulary\n  Every {term}`Token` a model knows.\n```\n",
    "api.md": "# API\n\n```{eval-rst}\n.. autofunction:: llmcalc.weight_bytes\n```\n",
}


def links_after_a_rewrite(tmp_path: Path, extra: str) -> int:
    """Build, change what ex.md's "Used by" line shows without touching ex.md, build again; count its links."""
    write_tree(tmp_path, {"conf.py": CONF.format(extra=extra), **PAGES})
    first = build(tmp_path)
    assert (first.outdir / "ex.html").read_text(encoding="utf-8").count('class="sphinx-codeautolink-a"') > 0
    other = PAGES["other.md"].replace("Vocabulary", "Lexicon")
    (tmp_path / "other.md").write_text(other, encoding="utf-8")
    second = build(tmp_path)
    return (second.outdir / "ex.html").read_text(encoding="utf-8").count('class="sphinx-codeautolink-a"')


def test_a_page_rewritten_but_not_reread_keeps_its_links(tmp_path: Path) -> None:
    assert links_after_a_rewrite(tmp_path / "without", "") == 0  # the upstream behaviour
    assert links_after_a_rewrite(tmp_path / "with", ', "llmglossary.reference"') > 0


PARSER = '''\
import argparse


def build_parser():
    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("--size", help="{help}")
    return parser
'''


def test_a_command_reference_follows_its_parser_in_an_incremental_build(tmp_path: Path) -> None:
    """Changing the parser's package, not the page, rebuilds the page (note_parser_dependencies)."""
    import sys

    write_tree(tmp_path, {
        "conf.py": f'import sys\nsys.path.insert(0, {str(tmp_path)!r})\n'
        'extensions = ["sphinxarg.ext", "llmglossary.reference"]\n',
        "index.rst": "Tool\n====\n\n.. argparse::\n   :module: toolpkg.cli\n   :func: build_parser\n   :prog: tool\n",
        "toolpkg/__init__.py": "",
        "toolpkg/cli.py": PARSER.format(help="the old help"),
    })
    assert "the old help" in build(tmp_path).html("index")
    (tmp_path / "toolpkg" / "cli.py").write_text(PARSER.format(help="the new help"), encoding="utf-8")
    for name in [name for name in sys.modules if name.split(".")[0] == "toolpkg"]:
        del sys.modules[name]  # the build imports the parser afresh, as a new sphinx-build process would
    html = build(tmp_path).html("index")
    assert "the new help" in html and "the old help" not in html
