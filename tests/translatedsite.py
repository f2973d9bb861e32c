"""A fully translated tiny MyST site, for checking that a change to translated builds leaves every page as it was."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

from sphinxbuild import build

# A translated page that exercises what a shared markdown-it parser could get wrong:
# headings (slugs and anchors kept per render; links use explicit targets, since a
# translated heading gets a new slug), footnotes and link definitions (kept in the
# markdown-it environment), glossary terms and links, directives whose content is
# parsed inside the render, a page with front matter (its own configuration), and an
# include parsed as a whole document while the outer render is still running.
TRANSLATED_SITE = {
    "conf.py": """\
        extensions = ["myst_parser"]
        myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
        myst_heading_anchors = 3
        language = "zh_TW"
        locale_dirs = ["locales"]
        gettext_compact = False
        exclude_patterns = ["_build", "snippet.md"]
        """,
    "index.md": """\
        # Home

        ```{toctree}
        terms
        matter
        ```

        See [the terms](#terms-top) and a footnote[^note].

        [^note]: The footnote's own text, with a [link][ref].

        [ref]: https://example.org

        ```{eval-rst}
        .. include:: snippet.md
           :parser: myst_parser.sphinx_
        ```

        Text after the include, which must stay in the outer page.
        """,
    "snippet.md": """\
        An included paragraph with a {term}`Token`.
        """,
    "terms.md": """\
        (terms-top)=
        # Glossary terms

        ```{glossary}
        Token
          A piece of text, $x_i$, that a model reads.

        Vocabulary
          Every {term}`Token` a model knows.
        ```

        :::{note}
        A note with **bold** text and a {term}`vocabulary` link.
        :::

        Term
        : A definition list item.

        ## A second heading

        Back to [the top](#terms-top).
        """,
    "matter.md": """\
        ---
        myst:
          heading_anchors: 2
        ---
        # Front matter

        (own-anchors)=
        ## Its own anchors

        A link to [the anchors](#own-anchors).
        """,
}


def translate_every_message(srcdir: Path) -> None:
    """Write a zh_TW catalog for every page: each message, marked as translated."""
    from babel.messages.pofile import read_po, write_po

    pot_dir = build(srcdir, builder="gettext", overrides={"language": "en"}).outdir
    for pot in pot_dir.glob("*.pot"):
        with pot.open("rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            if message.id:
                message.string = f"譯 {message.id}"
        po = srcdir / "locales" / "zh_TW" / "LC_MESSAGES" / f"{pot.stem}.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        with po.open("wb") as handle:
            write_po(handle, catalog)
    shutil.rmtree(srcdir / "_build")


def doctrees_and_html(srcdir: Path, extensions: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    result = build(srcdir, fresh=True, overrides={"extensions": extensions})
    assert result.warnings == ""
    doctrees = {
        path.stem: pickle.loads(path.read_bytes()).pformat()
        for path in (result.outdir.parent / "doctrees").glob("*.doctree")
    }
    html = {path.name: path.read_text(encoding="utf-8") for path in result.outdir.glob("*.html")}
    shutil.rmtree(srcdir / "_build")
    return doctrees, html
