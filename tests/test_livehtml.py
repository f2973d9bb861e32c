"""`make livehtml` serves both editions from one folder, and its language switch reaches the other one.

The live server (sphinx-autobuild) serves ``_build/live``: English at its root, zh_TW in
``zh_TW/``.  The oracle is the browser's own rule for following a link: each page's
switch ``href`` is resolved against the URL the server gives the page
(``urllib.parse.urljoin``, which clamps ``..`` at the root as browsers do), and the
file it names must exist in the served folder.  A tiny two-page site, one page in a
subfolder, is built both ways with the recipe's own options, read from ``make -n``.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from bs4 import BeautifulSoup

from sphinxbuild import REPO, build, write_tree

SERVER = "http://127.0.0.1:8000/"

CONF = f"""\
extensions = ["myst_parser", "llmglossary.langswitch"]
exclude_patterns = ["_build"]
templates_path = [{str(REPO / "docs" / "_templates")!r}]
html_theme = "furo"
html_sidebars = {{"**": ["sidebar/brand.html", "sidebar/language.html", "sidebar/navigation.html"]}}
"""
PAGES = {
    "index.md": "# Home\n\n```{toctree}\nguide/lora\n```\n",
    "guide/lora.md": "# LoRA\n\nA page one folder down.\n",
}


def livehtml_commands() -> tuple[list[str], list[str]]:
    """The English server command and its zh_TW post-build command, as `make -n livehtml` prints them."""
    dry_run = subprocess.run(
        ["make", "--no-print-directory", "-n", "-o", ".venv/.installed", "livehtml"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout
    line = next(line for line in dry_run.replace("\\\n", " ").splitlines() if "sphinx-autobuild" in line)
    server = shlex.split(line)
    post_build = shlex.split(server[server.index("--post-build") + 1])
    return server, post_build


def sphinx_overrides(arguments: list[str]) -> dict[str, str]:
    """The ``-D name=value`` settings of a sphinx-build command line."""
    return dict(
        arguments[index + 1].split("=", 1) for index, word in enumerate(arguments) if word == "-D"
    )


def served_file(root: Path, page_url: str, href: str) -> Path:
    """The file the server sends for ``href`` followed from the page at ``page_url``."""
    path = urlsplit(urljoin(page_url, href)).path
    return root / path.lstrip("/")


def test_the_recipe_serves_english_at_the_root_and_zh_tw_below_it_with_the_live_layout() -> None:
    server, post_build = livehtml_commands()
    english_out, zh_out = Path(server[-1]), Path(post_build[-1])
    assert zh_out == english_out / "zh_TW"
    assert sphinx_overrides(server).get("language", "en") == "en"
    assert sphinx_overrides(server)["language_switch_layout"] == "live"
    assert sphinx_overrides(post_build) == {"language": "zh_TW", "language_switch_layout": "live"}


@pytest.mark.parametrize("layout", ["live", "sibling"])
def test_every_language_switch_of_the_live_folder_reaches_an_existing_page(tmp_path: Path, layout: str) -> None:
    """With the live layout every link lands on a page; the static layout (the bug) does not."""
    write_tree(tmp_path / "src", {"conf.py": CONF, **PAGES})
    served = tmp_path / "src" / "_build" / "live"
    english = build(tmp_path / "src", overrides={"language_switch_layout": layout})
    assert english.warnings == ""
    (served.parent / "html").rename(served)
    chinese = build(tmp_path / "src", fresh=True, overrides={"language_switch_layout": layout, "language": "zh_TW"})
    assert chinese.warnings == ""
    (served.parent / "html").rename(served / "zh_TW")
    missing = []
    for page in ("index", "guide/lora"):
        for folder in ("", "zh_TW/"):
            page_url = f"{SERVER}{folder}{page}.html"
            html = (served / f"{folder}{page}.html").read_text(encoding="utf-8")
            link = BeautifulSoup(html, "html.parser").select_one("a.language-switch")
            assert link is not None, page_url
            target = served_file(served, page_url, link["href"])
            if not target.is_file() or target == served / f"{folder}{page}.html":
                missing.append(f"{page_url} -> {link['href']}")
    # The static layout reaches zh_TW only because a browser clamps ".." at the root,
    # and never gets back to English.
    back_to_english = [
        f"{SERVER}zh_TW/index.html -> ../en/index.html",
        f"{SERVER}zh_TW/guide/lora.html -> ../../en/guide/lora.html",
    ]
    assert missing == ([] if layout == "live" else back_to_english)


def test_an_unknown_layout_is_an_error_naming_the_accepted_ones(tmp_path: Path) -> None:
    from sphinx.errors import ConfigError

    write_tree(tmp_path, {"conf.py": CONF, **PAGES})
    with pytest.raises(ConfigError, match=r"language_switch_layout must be one of 'sibling', 'readthedocs', 'live'; "
                                          r"got 'served'"):
        build(tmp_path, overrides={"language_switch_layout": "served"})
