"""How much slower our build is than plain Sphinx on the same amount of text.

Three measurements, each for both languages together (two ``sphinx-build`` runs, as
``make html`` does):

* **fresh**: a full build with ``-E`` into empty output and doctree folders;
* **no-op**: the same build again with nothing changed;
* **one page**: the same build after touching one page (its mtime only).

They are taken for two sites, side by side in the same run:

* **project**: a snapshot of this repository (without ``.git``, ``.venv``, build output
  and caches) copied into a temporary folder, so that touching a page, and the ``.mo``
  files Sphinx compiles, never reach the working tree; built as the Makefile does:
  ``sphinx-build -c . -b html -D language=<en|zh_TW> -W --keep-going -n -q``;
* **plain**: a generated site with ``myst_parser`` and the Furo theme only (none of
  our extensions, no translation), built twice with ``-D language=en`` to stand in
  for the two languages.  It mirrors the real pages: the same pages, the same glossary
  entries per page with the same number of names each, and every definition (and the
  text around the glossaries) made of the same number of words, drawn from the real
  page's own words in shuffled order, with the same number of ``{term}`` links to
  earlier entries, and its examples as ``pycon`` code blocks (the same lines).
  A page whose text is generated from code (the llmcalc reference: autodoc's
  docstrings, sphinx-argparse's help) is mirrored from what its build shows instead:
  every paragraph, signature and table cell of its article as prose, every code
  block as code, read from the project's first build.
  Math, calculators and diagrams are left out: they are features of ours.

Each measurement is repeated N times (``--repeat``, default 3) and the median is
used; project and plain alternate so that a slow moment of the machine hits both.
Four ratios are compared with their goals, on CPU time (user + system of each
sphinx-build process), which other work sharing the machine moves least; the same
ratio on wall-clock time is printed next to it:

* English, fresh: project ``en`` / one plain build, at most 1.5x (what our
  extensions cost);
* zh_TW fresh / project ``en`` fresh, at most 1.3x (what translating and Chinese
  search cost);
* both languages, no-op: project / plain twice, at most 1.5x;
* both languages, one page touched: project / plain twice, at most 2.0x.

Next to the four, issue 29's ratio (goal at most 1.25x): project ``en`` fresh against
a third site, the **equipped twin**: the plain twin with the real llmcalc reference
pages, the real references page and ``.bib`` file, every citation role of the real
pages (each entry's ``{cite:p}`` keys, as many and the same), and the third-party
extensions that build them and the examples' links (autodoc, napoleon, sphinx-argparse,
sphinx-codeautolink, sphinxcontrib-bibtex, with the project's settings for them, read
from its conf.py), built fresh in English in each round.  It tells what our own
extensions and features cost, apart from the third-party ones the site chose.  Our
workarounds of a third-party cost (``llmglossary.bibtexplugins``) are our code: the
twin runs sphinxcontrib-bibtex without them.

Before any timing, the twins' first builds are checked against the project's own
(``twin_faults``): no warning, every glossary term name, every citation of each work and
the same references list.  A twin that drifted would make every ratio lie, so the run
then stops with exit status 1 and says what drifted.

Timing is information, not a test: missing a goal does not fail the run.  Before the
timed rounds each site is built once with ``-j auto``, which also warms the caches
(``.mo`` files, bytecode); the project's parallel build must not give any warning,
and the run exits 1 if it does, or if any build fails.

``--profile fresh|noop|onepage`` also runs that project build once under cProfile
(English and zh_TW) and prints where the time goes, per extension / library.

Run:  python benchmarks/bench_build.py [--repeat N] [--touch PAGE] [--profile STEP]
Everything happens in a temporary folder; nothing under ``_build/`` is touched.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import random
import re
import resource
import runpy
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SPHINX_BUILD = REPO_ROOT / ".venv" / "bin" / "sphinx-build"
SPHINX_OPTIONS = ["-W", "--keep-going", "-n", "-q"]  # as SPHINXOPTS in the Makefile
PROJECT_LANGUAGES = ("en", "zh_TW")
FAILURE_CONTEXT_LINES = 12  # of a failed build's stderr, shown in the report
STEPS = ("fresh", "noop", "onepage")
STEP_LABELS = {"fresh": "fresh (-E)", "noop": "no-op rebuild", "onepage": "one page touched"}


@dataclass(frozen=True)
class Ratio:
    """A ratio of two medians of one step.

    A side is ``(site, run)``; the run ``"total"`` is every run of that site's build.
    """

    label: str
    step: str
    numerator: tuple[str, str]
    denominator: tuple[str, str]


@dataclass(frozen=True)
class Goal(Ratio):
    """A ratio, and the most it may be."""

    target: float


# Issue 16's four ratios: our extensions nearly free, translation and Chinese search cheap.
GOALS = {
    "en_fresh": Goal("English, fresh", "fresh", ("project", "en"), ("plain", "copy1"), 1.5),
    "zh_fresh": Goal("zh_TW fresh vs our English fresh", "fresh", ("project", "zh_TW"), ("project", "en"), 1.3),
    "noop": Goal("both languages, no-op", "noop", ("project", "total"), ("plain", "total"), 1.5),
    "onepage": Goal("both languages, one page touched", "onepage", ("project", "total"), ("plain", "total"), 2.0),
}
# Issue 29's measure of what our own extensions cost: the English ratio against the twin that
# also has the third-party extensions (see EQUIPPED_CONF).
THIRD_PARTY = Goal("English, fresh, vs twin + 3rd-party", "fresh", ("project", "en"), ("equipped", "copy1"), 1.25)
DEFAULT_TOUCHED_PAGE = "05-the-transformer"
# Left out of the project snapshot: version control, the virtualenv, build output and
# caches (compiled .mo catalogs included, so the first build compiles them as make does).
SNAPSHOT_IGNORED = (
    ".git", ".venv", "_build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "node_modules", "*.mo",
)

# Source folders Sphinx does not read as pages (conf.py's exclude_patterns).
EXCLUDED_SOURCE_DIRS = {"_ext", "_root", "_static", "_templates"}
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|:{3,})(?P<info>.*)$")
TERM_ROLE = re.compile(r"\{term\}`(?P<text>[^`<]*?)(?:\s*<[^>]*>)?`")
# A citation (sphinxcontrib-bibtex): ``{cite:p}`key``, or several keys ``{cite:p}`a,b``.
CITE_ROLE = re.compile(r"\{cite(?::\w+)?\}`(?P<keys>[^`]*)`")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# A page whose text a directive generates from code: autodoc's docstrings, sphinx-argparse's help.
GENERATED = re.compile(r"^\s*\.\. (auto\w+|argparse)::", re.MULTILINE)
# The references page: sphinxcontrib-bibtex lists every cited work there.
BIBLIOGRAPHY = re.compile(r"^(`{3,}|:{3,})\{bibliography\}", re.MULTILINE)

PLAIN_CONF = '''\
"""Plain Sphinx baseline: MyST-Parser and Furo, nothing else."""

project = "Plain baseline"
extensions = ["myst_parser"]
html_theme = "furo"
'''


# -- The real pages, measured ----------------------------------------------------------


@dataclass
class Block:
    """A run of text: prose (``code`` is False) or the lines of one code example."""

    code: bool
    lines: list[str]


@dataclass
class Entry:
    """One glossary entry: its names and its definition as prose and code blocks."""

    names: int
    blocks: list[Block]
    term_links: int
    citations: list[str] = field(default_factory=list)  # its citation roles as written, in order

    @property
    def cited_keys(self) -> list[str]:
        """Every key its citations cite, in order, once per citation."""
        return [key.strip() for role in self.citations for key in CITE_ROLE.fullmatch(role)["keys"].split(",")]


@dataclass
class PageShape:
    """What the plain twin of a page has to match."""

    stem: str
    prose: list[Block] = field(default_factory=list)  # text outside the glossaries
    entries: list[Entry] = field(default_factory=list)


def split_blocks(lines: list[str]) -> list[Block]:
    """Split dedented Markdown lines into prose paragraphs and code-fence contents.

    >>> [(b.code, b.lines) for b in split_blocks(["Some text", "", "```doctest", ">>> 1", "1", "```", "More"])]
    [(False, ['Some text']), (True, ['>>> 1', '1']), (False, ['More'])]
    """
    blocks: list[Block] = []
    current: list[str] = []
    fence: str | None = None

    def close(code: bool) -> None:
        if current:
            blocks.append(Block(code=code, lines=list(current)))
            current.clear()

    for line in lines:
        match = FENCE.match(line)
        if fence is None and match and match["fence"].startswith("`"):
            close(code=False)
            fence = match["fence"]
        elif fence is not None and line.strip() == fence:
            close(code=True)
            fence = None
        elif fence is not None:
            current.append(line)
        elif not line.strip():
            close(code=False)
        elif not (match and match["fence"].startswith(":")):  # directive markers are not text
            current.append(line)
    close(code=fence is not None)
    return blocks


def parse_glossary(lines: list[str]) -> list[Entry]:
    """Entries of one glossary body: unindented lines are names, indented ones definitions."""
    entries: list[tuple[int, list[str]]] = []
    for line in lines:
        if line.strip() and not line.startswith(" "):
            if entries and not entries[-1][1]:
                entries[-1] = (entries[-1][0] + 1, [])
            else:
                entries.append((1, []))
        elif entries:
            entries[-1][1].append(line)
    return [
        Entry(
            names=names,
            blocks=split_blocks(textwrap.dedent("\n".join(body)).splitlines()),
            term_links=sum(len(TERM_ROLE.findall(line)) for line in body),
            citations=[match[0] for match in CITE_ROLE.finditer(" ".join(body))],
        )
        for names, body in entries
    ]


def page_shape(path: Path) -> PageShape:
    """The prose, code and glossary entries of one MyST page."""
    shape = PageShape(stem=path.stem)
    outside: list[str] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match and not match["indent"] and match["info"].strip() == "{glossary}":
            end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == match["fence"])
            shape.entries += parse_glossary(lines[index + 1 : end])
            index = end + 1
            continue
        if match and match["info"].strip().startswith("{") and not lines[index].startswith(" "):
            # Other directives (toctree, calculators, the term index...) are features,
            # not text: skip their body, keep whatever prose they wrap.
            if match["info"].strip() in ("{toctree}", "{glossary-index}", "{concept-map}"):
                end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == match["fence"])
                index = end + 1
                continue
        if not lines[index].startswith("#"):
            outside.append(lines[index])
        index += 1
    shape.prose = split_blocks(outside)
    return shape


def source_pages(srcdir: Path) -> list[Path]:
    return sorted(
        path for path in srcdir.rglob("*.md") if not EXCLUDED_SOURCE_DIRS.intersection(path.relative_to(srcdir).parts)
    )


def is_generated(path: Path) -> bool:
    """Whether most of the page's text comes from code (autodoc, sphinx-argparse), not its source."""
    return GENERATED.search(path.read_text(encoding="utf-8")) is not None


def is_bibliography(path: Path) -> bool:
    """Whether the page lists the cited works (a ``{bibliography}`` directive): the references page."""
    return BIBLIOGRAPHY.search(path.read_text(encoding="utf-8")) is not None


class ArticleText(HTMLParser):
    """The prose and code of a built page's main article, in order.

    Prose is each paragraph, definition term (an object's signature, an option) and table
    cell; code is each ``<pre>``.  Nested prose elements each count once, for their own text.
    """

    PROSE = frozenset({"p", "dt", "th", "td"})

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[Block] = []
        self.in_article = 0
        self.open: list[tuple[str, list[str]]] = []  # the prose or code elements being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "article" and ("role", "main") in attrs:
            self.in_article = 1
        elif self.in_article:
            if tag == "article":
                self.in_article += 1
            if tag in self.PROSE or tag == "pre":
                self.open.append((tag, []))

    def handle_endtag(self, tag: str) -> None:
        if tag == "article" and self.in_article:
            self.in_article -= 1
        if self.open and self.open[-1][0] == tag:
            name, parts = self.open.pop()
            text = "".join(parts)
            if name == "pre":
                self.blocks.append(Block(code=True, lines=text.rstrip("\n").splitlines()))
            elif text.strip():
                self.blocks.append(Block(code=False, lines=[" ".join(text.split())]))

    def handle_data(self, data: str) -> None:
        if self.open:
            self.open[-1][1].append(data)


class BuiltFacts(HTMLParser):
    """What the twin checks compare in a built page: its glossary terms, citations and listed works.

    ``terms`` counts the ``<dt>`` of ``<dl class="glossary">`` lists; ``citations`` are the
    titles (the cited work, formatted) of the main article's links to the references page,
    in order; ``works`` the first paragraph of each ``div.citation`` (the references page),
    whitespace collapsed.
    """

    def __init__(self) -> None:
        super().__init__()
        self.terms = 0
        self.citations: list[str] = []
        self.works: list[str] = []
        self.in_article = 0
        self.lists: list[bool] = []  # for each open <dl>: is it a glossary
        self.citation_divs: list[bool] = []  # for each open <div>: is it a div.citation still without its text
        self.work: list[str] | None = None  # the paragraph of a listed work being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "article":
            self.in_article += 1 if self.in_article or ("role", "main") in attrs else 0
        elif tag == "dl":
            self.lists.append("glossary" in classes)
        elif tag == "dt" and self.lists and self.lists[-1]:
            self.terms += 1
        elif tag == "div":
            self.citation_divs.append("citation" in classes)
        elif tag == "p" and self.citation_divs and self.citation_divs[-1] and self.work is None:
            self.work = []
        elif tag == "a" and self.in_article and {"reference", "internal"} <= set(classes):
            if (dict(attrs).get("href") or "").startswith("references.html#"):
                self.citations.append(dict(attrs).get("title") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "article" and self.in_article:
            self.in_article -= 1
        elif tag == "dl" and self.lists:
            self.lists.pop()
        elif tag == "div" and self.citation_divs:
            self.citation_divs.pop()
        elif tag == "p" and self.work is not None:
            self.works.append(" ".join("".join(self.work).split()))
            self.work = None
            self.citation_divs[-1] = False  # only the first paragraph names the work

    def handle_data(self, data: str) -> None:
        if self.work is not None:
            self.work.append(data)


def built_facts(page: Path) -> BuiltFacts:
    facts = BuiltFacts()
    facts.feed(page.read_text(encoding="utf-8"))
    facts.close()
    return facts


# What the equipped twin's generated pages must show, as the real build does: autodoc documented
# the package, and sphinx-codeautolink linked the examples' llmcalc names.
EQUIPPED_MARKS = {"reference-models": 'id="llmcalc.ModelConfig"', "05-the-transformer": "sphinx-codeautolink-a"}


def twin_faults(
    pages: list[Path],
    shapes: list[PageShape],
    real_html: Path,
    plain: BuildResult | None,
    plain_html: Path | None,
    equipped: BuildResult,
    equipped_html: Path,
) -> list[str]:
    """Each way the built twins fail to mirror the real English build; empty when they are faithful.

    The plain twin builds without a warning and shows every glossary term name of the real
    pages; the equipped twin builds without a warning, its generated pages show what
    autodoc and sphinx-codeautolink put there, every page shows as many citations of each
    work as the real page, and its references page lists the same works in the same order.
    A twin that drifts from the real pages would make every ratio lie, so the run refuses
    to time one (``main``); ``tests/test_bench_build.py`` checks this function on pages
    made to drift.
    """
    faults: list[str] = []
    names = sum(entry.names for shape in shapes for entry in shape.entries)
    if plain is not None and plain_html is not None:
        faults += [f"plain twin warns: {line}" for line in plain.warnings]
        terms = sum(built_facts(page).terms for page in plain_html.glob("*.html"))
        if terms != names:
            faults.append(f"plain twin shows {terms} glossary term names, the real pages have {names}")
    faults += [f"equipped twin warns: {line}" for line in equipped.warnings]
    for stem, mark in EQUIPPED_MARKS.items():
        if mark not in (equipped_html / f"{stem}.html").read_text(encoding="utf-8"):
            faults.append(f"equipped twin: {stem}.html lacks {mark}")
    for page in pages:
        real, twin = built_facts(real_html / f"{page.stem}.html"), built_facts(equipped_html / f"{page.stem}.html")
        if is_bibliography(page):
            if twin.works != real.works:
                faults.append(
                    f"equipped twin: {page.stem}.html lists {len(twin.works)} works, "
                    f"the real one {len(real.works)} (or in another order or form)"
                )
        elif not is_generated(page) and Counter(twin.citations) != Counter(real.citations):
            faults.append(
                f"equipped twin: {page.stem}.html shows {len(twin.citations)} citations, "
                f"the real page {len(real.citations)} (or of other works)"
            )
    return faults


def generated_shape(stem: str, built_page: Path) -> PageShape:
    r"""The twin's shape of a generated page: the text and code its built HTML shows.

    >>> page = Path(tempfile.mkdtemp()) / "api.html"
    >>> _ = page.write_text('<article role="main"><dl><dt>count(x)</dt><dd><p>Count <em>it</em>.</p>'
    ...                     '<pre>&gt;&gt;&gt; count(2)\n2\n</pre></dd></dl></article><p>footer</p>')
    >>> [(block.code, block.lines) for block in generated_shape("api", page).prose]
    [(False, ['count(x)']), (False, ['Count it.']), (True, ['>>> count(2)', '2'])]
    """
    reader = ArticleText()
    reader.feed(built_page.read_text(encoding="utf-8"))
    return PageShape(stem=stem, prose=reader.blocks)


def twin_shapes(pages: list[Path], built: Path) -> list[PageShape]:
    """What the twin mirrors of each page: its source, or for a generated page its build in ``built``.

    A generated page whose build is missing (a failed build) is mirrored from its source.
    """
    return [
        generated_shape(page.stem, built / f"{page.stem}.html")
        if is_generated(page) and (built / f"{page.stem}.html").is_file()
        else page_shape(page)
        for page in pages
    ]


# -- The plain twin, generated ----------------------------------------------------------


class PlainSiteWriter:
    """Writes the MyST twin of each real page (see the module docstring).

    With ``citations``, a paragraph keeps its citation roles as written, after its
    shuffled words (the equipped twin, which has sphinxcontrib-bibtex); without, a
    citation's keys are words like any other (the plain twin has no bibliography).
    """

    def __init__(self, citations: bool = False) -> None:
        self.defined_terms: list[str] = []
        self.random = random.Random(20261129)
        self.citations = citations

    def prose(self, block: Block, links: int = 0) -> str:
        """A paragraph with as many words as ``block``, its own words shuffled.

        >>> block = Block(code=False, lines=["**Sources:** {cite:p}`vaswani2017attention`, §3.2;", "{cite:p}`b`."])
        >>> PlainSiteWriter(citations=True).prose(block).endswith("{cite:p}`vaswani2017attention`; {cite:p}`b`")
        True
        >>> "cite" in PlainSiteWriter().prose(block)  # a word, not a role
        True
        """
        text = TERM_ROLE.sub(lambda m: m["text"], " ".join(block.lines))
        roles = [match[0] for match in CITE_ROLE.finditer(text)] if self.citations else []
        if roles:
            text = CITE_ROLE.sub(" ", text)
        words = WORD.findall(text) or ["text"]
        self.random.shuffle(words)
        positions = sorted(self.random.sample(range(len(words)), min(links, len(words))))
        for position, term in zip(positions, self.earlier_terms(links), strict=False):
            words[position] = f"{{term}}`{term}`"
        if roles:  # wrapping breaks at spaces only, and the project's roles have none
            words.append("; ".join(roles))
        return "\n".join(textwrap.wrap(" ".join(words), width=88, break_long_words=False, break_on_hyphens=False))

    def earlier_terms(self, count: int) -> list[str]:
        if not self.defined_terms:
            return []
        return [self.defined_terms[self.random.randrange(len(self.defined_terms))] for _ in range(count)]

    @staticmethod
    def code(block: Block) -> str:
        """The example's own lines, as a pycon block (what Sphinx highlights a doctest as)."""
        return "```pycon\n" + textwrap.dedent("\n".join(block.lines)) + "\n```"

    def render_blocks(self, blocks: list[Block], links: int) -> list[str]:
        prose_blocks = sum(not block.code for block in blocks) or 1
        rendered = []
        for block in blocks:
            if block.code:
                rendered.append(self.code(block))
            else:
                share, links = -(-links // prose_blocks), links - -(-links // prose_blocks)
                prose_blocks -= 1
                rendered.append(self.prose(block, share))
        return rendered

    def page(self, shape: PageShape, number: int) -> str:
        half = len(shape.prose) // 2  # text before and after the glossary, like the real pages
        parts = [f"# Page {number}"]
        parts += self.render_blocks(shape.prose[:half], 0)
        if shape.entries:
            glossary = []
            for entry_number, entry in enumerate(shape.entries, 1):
                # Names without spaces, so that wrapping never splits a {term} link.
                names = [f"term-{number}-{entry_number}"] + [
                    f"term-{number}-{entry_number}-alias-{alias}" for alias in range(1, entry.names)
                ]
                body = "\n\n".join(self.render_blocks(entry.blocks, entry.term_links))
                glossary.append("\n".join(names) + "\n" + textwrap.indent(body, "  "))
                self.defined_terms.append(names[0])
            parts.append("````{glossary}\n" + "\n\n".join(glossary) + "\n````")
        parts += self.render_blocks(shape.prose[half:], 0)
        return "\n\n".join(parts) + "\n"


# The plain twin plus the third-party extensions that make the llmcalc reference and the
# bibliography, with the project's own settings for them: what the site costs without our
# extensions.  sphinx-codeautolink runs as installed, as the project runs it (through
# ``llmglossary.codelinks``).  sphinxcontrib-bibtex runs plain, without
# ``llmglossary.bibtexplugins``: that workaround of its cost is our code.
EQUIPPED_CONF = """\
\"\"\"The plain twin with the third-party extensions and settings of the reference and the bibliography.\"\"\"

import sys

sys.path[:0] = [{root!r}]
import conf as project_conf  # noqa: E402  (the project's conf.py, for its settings)

project = "Plain baseline with third-party extensions"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx_codeautolink",
              "sphinxarg.ext", "sphinxcontrib.bibtex"]
html_theme = "furo"
globals().update(
    {{name: value for name, value in vars(project_conf).items() if name.startswith({shared_prefixes!r})}}
)
del project_conf
"""
SHARED_PREFIXES = ("autodoc_", "napoleon_", "codeautolink_", "nitpick_", "bibtex_")


def write_equipped_site(shapes: list[PageShape], project_root: Path, srcdir: Path) -> None:
    """The twin with every citation, the real llmcalc reference and references pages, and the real .bib files.

    Its pages are the plain twin's (the same words and links) except that each paragraph
    keeps its citation roles; the pages generated from code and the bibliography page are
    the project's own, built by the same third-party extensions with the same settings.
    The ``bibtex_bibfiles`` shared with the project are relative to its conf.py: each is
    copied to the same place relative to the twin's.
    """
    write_plain_site(shapes, srcdir, citations=True)
    for page in source_pages(project_root / "docs"):
        if is_generated(page) or is_bibliography(page):
            shutil.copyfile(page, srcdir / page.name)
    project_conf = runpy.run_path(str(project_root / "conf.py"))
    for bibfile in project_conf.get("bibtex_bibfiles", []):
        (srcdir / bibfile).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(project_root / bibfile, srcdir / bibfile)
    (srcdir / "conf.py").write_text(
        EQUIPPED_CONF.format(root=str(project_root), shared_prefixes=SHARED_PREFIXES),
        encoding="utf-8",
    )


def write_plain_site(shapes: list[PageShape], srcdir: Path, citations: bool = False) -> None:
    """The plain twin of ``shapes`` in ``srcdir``; with ``citations``, keeping their citation roles."""
    srcdir.mkdir(parents=True)
    (srcdir / "conf.py").write_text(PLAIN_CONF, encoding="utf-8")
    writer = PlainSiteWriter(citations)
    others = [shape for shape in shapes if shape.stem != "index"]
    for number, shape in enumerate(others, 1):
        (srcdir / f"{shape.stem}.md").write_text(writer.page(shape, number), encoding="utf-8")
    index = next((shape for shape in shapes if shape.stem == "index"), PageShape(stem="index"))
    toctree = "```{toctree}\n:maxdepth: 1\n\n" + "\n".join(shape.stem for shape in others) + "\n```\n"
    (srcdir / "index.md").write_text(writer.page(index, 0) + "\n" + toctree, encoding="utf-8")


# -- Building and timing ---------------------------------------------------------------


@dataclass
class Site:
    """A site to build: its source folder, and one sphinx-build run per language."""

    name: str
    root: Path  # working directory of sphinx-build; conf.py lives here
    srcdir: Path
    runs: dict[str, list[str]]  # run name -> the -D options of that run
    touched_page: Path

    def command(self, run: str, outdir: Path, extra: list[str]) -> list[str]:
        return [
            str(SPHINX_BUILD), "-c", ".", "-b", "html", *self.runs[run], *SPHINX_OPTIONS, *extra,
            "-d", str(outdir / "doctrees" / run), str(self.srcdir), str(outdir / "html" / run),
        ]  # fmt: skip


@dataclass
class BuildResult:
    seconds: dict[str, float]  # wall-clock, per run (language)
    cpu_seconds: dict[str, float]  # user + system time of the sphinx-build process, per run
    failures: list[str]  # "run: exit status and stderr" for each failed run
    warnings: list[str]  # every line sphinx-build printed to stderr
    pages_written: int

    @property
    def total(self) -> float:
        return sum(self.seconds.values())

    @property
    def cpu_total(self) -> float:
        return sum(self.cpu_seconds.values())


def build(site: Site, outdir: Path, extra: list[str]) -> BuildResult:
    """Build every language of ``site`` into ``outdir``, one sphinx-build each."""
    started = time.time()
    seconds, cpu_seconds, failures, warnings = {}, {}, [], []
    for run in site.runs:
        command = site.command(run, outdir, extra)
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        begin = time.perf_counter()
        finished = subprocess.run(command, cwd=site.root, capture_output=True, text=True)
        seconds[run] = time.perf_counter() - begin
        cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_seconds[run] = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
        warnings += [f"{site.name}/{run}: {line}" for line in finished.stderr.splitlines() if line.strip()]
        if finished.returncode:
            tail = finished.stderr.strip().splitlines()[-FAILURE_CONTEXT_LINES:]
            last_lines = "\n".join(f"    {line}" for line in tail)
            failures.append(f"{site.name}/{run}: exit status {finished.returncode}\n{last_lines}")
    written = sum(
        1
        for page in (outdir / "html").rglob("*.html")
        if "_static" not in page.parts and page.stat().st_mtime >= started
    )
    return BuildResult(seconds, cpu_seconds, failures, warnings, written)


def touch(page: Path) -> None:
    """Give a page a new modification time, as an editor saving it unchanged would."""
    now = time.time()
    os.utime(page, (now, max(now, page.stat().st_mtime + 1)))


def measure_round(site: Site, workdir: Path) -> dict[str, BuildResult]:
    """One fresh, no-op and one-page build of ``site``, in that order, in a new folder."""
    outdir = workdir / f"{site.name}-out"
    shutil.rmtree(outdir, ignore_errors=True)
    results = {"fresh": build(site, outdir, ["-E"]), "noop": build(site, outdir, [])}
    touch(site.touched_page)
    results["onepage"] = build(site, outdir, [])
    shutil.rmtree(outdir, ignore_errors=True)
    return results


def snapshot_project(workdir: Path) -> Path:
    """Copy the repository, without its build output and caches, into ``workdir/project``.

    The whole tree, not a list of what the build reads today: conf.py may read any
    file of the repository (it reads pyproject.toml for the version, for example).
    """
    root = workdir / "project"
    shutil.copytree(REPO_ROOT, root, ignore=shutil.ignore_patterns(*SNAPSHOT_IGNORED))
    return root


# -- Profiling -------------------------------------------------------------------------


def profile_group(filename: str) -> str:
    """Which extension or library a profiled function belongs to."""
    path = filename.replace("\\", "/")
    if "/docs/_ext/" in path:
        return "ours: " + path.split("/docs/_ext/")[-1].removeprefix("llmglossary/").removesuffix(".py")
    match = re.search(r"site-packages/([A-Za-z0-9_]+)", path)
    if match:
        package = match[1]
        if package == "sphinx":
            sub = re.search(r"site-packages/sphinx/([A-Za-z0-9_]+)", path)
            return f"sphinx.{sub[1]}" if sub else "sphinx"
        return package
    if path == "~" or path.startswith("<") or "/lib/python" in path:
        return "python stdlib / builtins"
    return "other"


def profile_project(site: Site, workdir: Path, step: str, top: int) -> None:
    """Run the project's ``step`` build once under cProfile and print time per group."""
    outdir = workdir / "profile-out"
    shutil.rmtree(outdir, ignore_errors=True)
    if step != "fresh":
        build(site, outdir, ["-E"])
        if step == "onepage":
            touch(site.touched_page)
    print(f"\n== cProfile: project, {STEP_LABELS[step]} ==")
    for run in site.runs:
        stats_file = workdir / f"profile-{run}.pstats"
        command = site.command(run, outdir, ["-E"] if step == "fresh" else [])
        subprocess.run(
            [
                str(SPHINX_BUILD.parent / "python"), "-m", "cProfile", "-o", str(stats_file),
                "-m", "sphinx", *command[1:],
            ],
            cwd=site.root, capture_output=True, text=True,
        )  # fmt: skip
        stats = pstats.Stats(str(stats_file))
        by_group: dict[str, float] = {}
        for (filename, _, _), (_, _, own_time, _, _) in stats.stats.items():
            group = profile_group(filename)
            by_group[group] = by_group.get(group, 0.0) + own_time
        total = sum(by_group.values())
        print(f"-- {run}: {total:.2f} s profiled (own time per extension / library)")
        for group, seconds in sorted(by_group.items(), key=lambda item: -item[1])[:top]:
            print(f"  {seconds:7.2f} s  {seconds / total:6.1%}  {group}")
        ours = {
            (profile_group(filename).removeprefix("ours: "), function): cumulative
            for (filename, _, function), (_, _, _, cumulative, _) in stats.stats.items()
            if "/docs/_ext/" in filename
        }
        print("  our extensions' heaviest functions (cumulative, includes what they call):")
        for (module, function), seconds in sorted(ours.items(), key=lambda item: -item[1])[:8]:
            print(f"  {seconds:7.2f} s  {module}.{function}")
    shutil.rmtree(outdir, ignore_errors=True)


# -- Report ----------------------------------------------------------------------------


def clock_seconds(result: BuildResult, clock: str) -> dict[str, float]:
    """Seconds per run of a build, of wall-clock (``"wall"``) or CPU (``"cpu"``) time."""
    return result.seconds if clock == "wall" else result.cpu_seconds


def median_result(results: list[BuildResult], clock: str = "wall") -> dict[str, float]:
    """Median seconds per run and in total, of wall-clock (``"wall"``) or CPU (``"cpu"``) time."""
    per_run = [clock_seconds(result, clock) for result in results]
    medians = {run: statistics.median(seconds[run] for seconds in per_run) for run in per_run[0]}
    medians["total"] = statistics.median(sum(seconds.values()) for seconds in per_run)
    return medians


def side_seconds(result: BuildResult, run: str, clock: str = "cpu") -> float:
    """Seconds of one run of a build, or of all its runs (``"total"``)."""
    seconds = clock_seconds(result, clock)
    return sum(seconds.values()) if run == "total" else seconds[run]


def round_ratios(ratio: Ratio, results: dict[str, dict[str, list[BuildResult]]], clock: str = "cpu") -> list[float]:
    """A ratio within each round, whose builds ran minutes apart: how far apart rounds land.

    >>> def built(**cpu: float) -> BuildResult:
    ...     return BuildResult(seconds=cpu, cpu_seconds=cpu, failures=[], warnings=[], pages_written=0)
    >>> results = {
    ...     "project": {"noop": [built(en=1.5, zh_TW=1.5), built(en=2.0, zh_TW=2.5)]},
    ...     "plain": {"noop": [built(copy1=1.0, copy2=1.0), built(copy1=1.5, copy2=1.5)]},
    ... }
    >>> round_ratios(GOALS["noop"], results)
    [1.5, 1.5]
    >>> round_ratios(Ratio("zh", "noop", ("project", "zh_TW"), ("project", "en")), results)
    [1.0, 1.25]
    """
    numerators = results[ratio.numerator[0]][ratio.step]
    denominators = results[ratio.denominator[0]][ratio.step]
    return [
        side_seconds(top, ratio.numerator[1], clock) / side_seconds(bottom, ratio.denominator[1], clock)
        for top, bottom in zip(numerators, denominators, strict=True)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="measurements per step; the median is used (default 3)")
    parser.add_argument(
        "--touch",
        default=DEFAULT_TOUCHED_PAGE,
        help=f"page touched for the one-page rebuild (default {DEFAULT_TOUCHED_PAGE})",
    )
    parser.add_argument("--profile", choices=STEPS, help="also profile this project build with cProfile")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    parser.add_argument(
        "--twin-only",
        action="store_true",
        help="only the English fresh build against the equipped twin (what our own extensions cost), "
        "alternating, --repeat rounds",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    if not SPHINX_BUILD.is_file():
        print(f"{SPHINX_BUILD} not found: run `make install` first", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="bench-build-") as temp:
        workdir = Path(temp)
        project_root = snapshot_project(workdir)
        touched = project_root / "docs" / f"{args.touch}.md"
        if not touched.is_file():
            parser.error(f"--touch: no page docs/{args.touch}.md")
        pages = source_pages(project_root / "docs")
        shapes = [page_shape(path) for path in pages]
        plain_src = workdir / "plain"
        project = Site(
            "project", project_root, project_root / "docs",
            {language: ["-D", f"language={language}"] for language in PROJECT_LANGUAGES}, touched,
        )  # fmt: skip
        plain = Site(
            "plain", plain_src, plain_src,
            {f"copy{n}": ["-D", "language=en"] for n in (1, 2)}, plain_src / touched.name,
        )  # fmt: skip
        entries = sum(len(shape.entries) for shape in shapes)
        names = sum(entry.names for shape in shapes for entry in shape.entries)
        links = sum(entry.term_links for shape in shapes for entry in shape.entries)
        if not args.json:
            print(
                f"{len(shapes)} pages, {entries} glossary entries ({names} term names, {links} term links "
                f"in definitions) in docs/ and in the plain twin; touching {args.touch}.md; "
                f"median of {args.repeat}",
                flush=True,
            )

        if args.twin_only:
            return measure_twin_only(project_root, pages, touched, workdir, args.repeat, args.json)

        # The parallel builds first: they must be warning-free, and they warm the caches.
        # The project's comes before the twin is written: the twin of a generated page
        # (the llmcalc reference) carries the text and code that page's build shows.
        parallel = {"project": build(project, workdir / "project-parallel", ["-E", "-j", "auto"])}
        shapes = twin_shapes(pages, workdir / "project-parallel" / "html" / PROJECT_LANGUAGES[0])
        write_plain_site(shapes, plain_src)
        parallel["plain"] = build(plain, workdir / "plain-parallel", ["-E", "-j", "auto"])
        equipped_src = workdir / "equipped"
        write_equipped_site(shapes, project_root, equipped_src)
        equipped = Site("equipped", equipped_src, equipped_src, {"copy1": ["-D", "language=en"]}, equipped_src)
        parallel["equipped"] = build(equipped, workdir / "equipped-parallel", ["-E", "-j", "auto"])
        faults = twin_faults(
            pages, shapes, workdir / "project-parallel" / "html" / "en",
            parallel["plain"], workdir / "plain-parallel" / "html" / "copy1",
            parallel["equipped"], workdir / "equipped-parallel" / "html" / "copy1",
        )  # fmt: skip
        if faults:
            return refuse_to_time(faults)
        results: dict[str, dict[str, list[BuildResult]]] = {
            site.name: {step: [] for step in STEPS} for site in (project, plain)
        }
        equipped_fresh: list[BuildResult] = []
        for repetition in range(args.repeat):
            for site in (project, plain):
                for step, result in measure_round(site, workdir).items():
                    results[site.name][step].append(result)
            # Fresh English only: the one ratio it is for.
            shutil.rmtree(workdir / "equipped-out", ignore_errors=True)
            equipped_fresh.append(build(equipped, workdir / "equipped-out", ["-E"]))
            print(f"  round {repetition + 1}/{args.repeat} done", file=sys.stderr, flush=True)

        timed = [result for site in results.values() for step in site.values() for result in step]
        timed += equipped_fresh
        every_build = [*timed, *parallel.values()]
        failures = list(dict.fromkeys(failure for result in every_build for failure in result.failures))
        warnings = list(dict.fromkeys(warning for result in timed for warning in result.warnings))
        report = {
            "date": time.strftime("%Y-%m-%d"),
            "cpus": os.cpu_count(),
            "pages": len(shapes),
            "glossary_entries": entries,
            "term_names": names,
            "repeat": args.repeat,
            "touched_page": args.touch,
            "steps": {},
            "goals": {},
            "parallel": {
                name: {
                    "seconds": result.total,
                    "warnings": result.warnings,
                    # What a parallel build adds is what matters for parallel safety.
                    "warnings_not_in_serial_builds": [w for w in result.warnings if w not in warnings],
                    "failures": result.failures,
                }
                for name, result in parallel.items()
            },
            "failures": failures,
            "warnings": warnings,
        }
        medians = {
            clock: {name: {step: median_result(results[name][step], clock) for step in STEPS} for name in results}
            for clock in ("wall", "cpu")
        }
        equipped_medians = {clock: median_result(equipped_fresh, clock)["copy1"] for clock in medians}
        report["third_party"] = {
            "label": THIRD_PARTY.label,
            **{
                f"ratio_{clock}": medians[clock]["project"]["fresh"]["en"] / equipped_medians[clock]
                for clock in medians
            },
            "equipped_cpu_seconds": equipped_medians["cpu"],
            "round_ratios_cpu": round_ratios(THIRD_PARTY, results | {"equipped": {"fresh": equipped_fresh}}, "cpu"),
            "target": THIRD_PARTY.target,
        }
        failed = any(result.failures for result in [*equipped_fresh, *results["project"]["fresh"]])
        report["third_party"]["meets_target"] = (
            None if failed else report["third_party"]["ratio_cpu"] <= THIRD_PARTY.target
        )
        for step in STEPS:
            report["steps"][step] = {
                f"{name}_{clock}_seconds": medians[clock][name][step] for name in results for clock in medians
            } | {
                f"{name}_pages_written": statistics.median(r.pages_written for r in results[name][step])
                for name in results
            }
        for key, goal in GOALS.items():
            ratios = {
                clock: medians[clock][goal.numerator[0]][goal.step][goal.numerator[1]]
                / medians[clock][goal.denominator[0]][goal.step][goal.denominator[1]]
                for clock in medians
            }
            # A failed build stops early: its time says nothing about the real build.
            failed = any(r.failures for name in results for r in results[name][goal.step])
            report["goals"][key] = {
                "label": goal.label,
                "step": goal.step,
                "ratio_wall": ratios["wall"],
                "ratio_cpu": ratios["cpu"],
                "target": goal.target,
                # The spread says whether a verdict near the goal would survive another run.
                "round_ratios_cpu": round_ratios(goal, results, "cpu"),
                # CPU time hardly depends on what else the machine runs: the verdict's clock.
                "meets_target": None if failed else ratios["cpu"] <= goal.target,
            }

        if args.json:
            print(json.dumps(report, indent=2))
        else:
            print_report(report)
        if args.profile:
            profile_project(project, workdir, args.profile, top=15)

    parallel_warnings = report["parallel"]["project"]["warnings"]
    return 1 if failures or parallel_warnings else 0


def measure_twin_only(
    project_root: Path, pages: list[Path], touched: Path, workdir: Path, repeat: int, as_json: bool
) -> int:
    """The English fresh build against the equipped twin alone, ``repeat`` alternating rounds.

    The ratio the full run reports last, without the plain twin, zh_TW, no-op and one-page
    builds: a fifth of the time.  As there, the parallel builds come first, must be
    warning-free, and warm the caches.
    """
    project = Site("project", project_root, project_root / "docs", {"en": ["-D", "language=en"]}, touched)
    parallel = {"project": build(project, workdir / "project-parallel", ["-E", "-j", "auto"])}
    equipped_src = workdir / "equipped"
    shapes = twin_shapes(pages, workdir / "project-parallel" / "html" / "en")
    write_equipped_site(shapes, project_root, equipped_src)
    equipped = Site("equipped", equipped_src, equipped_src, {"copy1": ["-D", "language=en"]}, equipped_src)
    parallel["equipped"] = build(equipped, workdir / "equipped-parallel", ["-E", "-j", "auto"])
    faults = twin_faults(
        pages, shapes, workdir / "project-parallel" / "html" / "en",
        None, None, parallel["equipped"], workdir / "equipped-parallel" / "html" / "copy1",
    )  # fmt: skip
    if faults:
        return refuse_to_time(faults)
    ours: list[BuildResult] = []
    theirs: list[BuildResult] = []
    for repetition in range(repeat):
        for site, results in ((project, ours), (equipped, theirs)):
            outdir = workdir / f"{site.name}-out"
            shutil.rmtree(outdir, ignore_errors=True)
            results.append(build(site, outdir, ["-E"]))
        print(f"  round {repetition + 1}/{repeat} done", file=sys.stderr, flush=True)
    failures = [failure for result in [*ours, *theirs, *parallel.values()] for failure in result.failures]
    warnings = [warning for result in [*ours, *theirs, *parallel.values()] for warning in result.warnings]
    report = {
        "label": THIRD_PARTY.label,
        "repeat": repeat,
        "project_cpu_seconds": [result.cpu_seconds["en"] for result in ours],
        "equipped_cpu_seconds": [result.cpu_seconds["copy1"] for result in theirs],
        "ratio_cpu": statistics.median(r.cpu_seconds["en"] for r in ours)
        / statistics.median(r.cpu_seconds["copy1"] for r in theirs),
        "ratio_wall": statistics.median(r.seconds["en"] for r in ours)
        / statistics.median(r.seconds["copy1"] for r in theirs),
        "round_ratios_cpu": [a.cpu_seconds["en"] / b.cpu_seconds["copy1"] for a, b in zip(ours, theirs, strict=True)],
        "target": THIRD_PARTY.target,
        "failures": failures,
        "warnings": warnings,
    }
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print(f"\n{'build':<12}{'CPU s per round':>40}{'median':>9}")
        for name, seconds in (("project en", report["project_cpu_seconds"]),
                              ("equipped", report["equipped_cpu_seconds"])):
            print(f"{name:<12}{' '.join(f'{value:6.2f}' for value in seconds):>40}{statistics.median(seconds):>9.2f}")
        rounds = report["round_ratios_cpu"]
        verdict = "FAILED" if failures else "ok" if report["ratio_cpu"] <= THIRD_PARTY.target else "MISSES"
        print(
            f"{THIRD_PARTY.label}: {report['ratio_cpu']:.2f}x CPU (medians), {report['ratio_wall']:.2f}x wall; "
            f"rounds {min(rounds):.2f}x to {max(rounds):.2f}x; goal <= {THIRD_PARTY.target}x: {verdict}"
        )
        for line in [*failures, *warnings][:20]:
            print(f"    {line}")
    return 1 if failures or warnings else 0


def refuse_to_time(faults: list[str]) -> int:
    """Say why the twins cannot be timed against the project; the run's exit status."""
    print("The twins do not mirror the real build, so no ratio is timed:", file=sys.stderr)
    for fault in faults:
        print(f"    {fault}", file=sys.stderr)
    return 1


def print_report(report: dict) -> None:
    print(f"\n{'step':<18}{'project s':>10}{'en':>7}{'zh_TW':>7}{'plain s':>9}{'cpu s':>14}   pages written")
    for step, row in report["steps"].items():
        project, plain = row["project_wall_seconds"], row["plain_wall_seconds"]
        cpu = f"{row['project_cpu_seconds']['total']:.2f} / {row['plain_cpu_seconds']['total']:.2f}"
        print(
            f"{STEP_LABELS[step]:<18}{project['total']:>10.2f}{project['en']:>7.2f}{project['zh_TW']:>7.2f}"
            f"{plain['total']:>9.2f}{cpu:>14}   {row['project_pages_written']:.0f} / {row['plain_pages_written']:.0f}"
        )
    print(
        "(medians; seconds are wall-clock, 'plain s' is the plain twin built twice, 'cpu s' is user+system\n"
        " CPU time of project / plain; pages written: project / plain)\n"
    )
    print(f"{'ratio':<36}{'cpu':>8}{'wall':>8}{'goal':>9}{'':<8}{'rounds (cpu)':>16}")
    for row in report["goals"].values():
        verdict = {True: "ok", False: "MISSES", None: "FAILED"}[row["meets_target"]]
        rounds = row["round_ratios_cpu"]
        print(
            f"{row['label']:<36}{row['ratio_cpu']:>7.2f}x{row['ratio_wall']:>7.2f}x"
            f"{'<=' + str(row['target']) + 'x':>9} {verdict:<7}{min(rounds):>8.2f}x to {max(rounds):.2f}x"
        )
    third_party = report["third_party"]
    rounds = third_party["round_ratios_cpu"]
    verdict = {True: "ok", False: "MISSES", None: "FAILED"}[third_party["meets_target"]]
    print(
        f"{third_party['label']:<36}{third_party['ratio_cpu']:>7.2f}x{third_party['ratio_wall']:>7.2f}x"
        f"{'<=' + str(third_party['target']) + 'x':>9} {verdict:<7}{min(rounds):>8.2f}x to {max(rounds):.2f}x"
    )
    print(
        "(the verdict is on the ratio of the CPU-time medians, which other work on the machine moves least;\n"
        " 'rounds' is the lowest and highest of the same ratio within single rounds; the last line's twin\n"
        " also has autodoc, napoleon, sphinx-argparse, sphinx-codeautolink and sphinxcontrib-bibtex, with\n"
        " the real llmcalc reference and references pages and every citation, so that ratio is what our own\n"
        " extensions and features cost: issue 29's measure)"
    )
    for name, result in report["parallel"].items():
        state = "no warnings" if not result["warnings"] else f"{len(result['warnings'])} warning line(s)"
        new = len(result["warnings_not_in_serial_builds"])
        print(f"-j auto fresh build, {name}: {result['seconds']:.2f} s, {state} ({new} not also in the serial builds)")
        for line in result["warnings"][:FAILURE_CONTEXT_LINES]:
            print(f"    {line}")
    if report["warnings"]:
        print(f"\n{len(report['warnings'])} distinct warning line(s) in the timed builds:")
        for line in report["warnings"][:20]:
            print(f"    {line}")
    for failure in report["failures"]:
        print(f"\nBUILD FAILED {failure}")
    if report["failures"]:
        print("\nA build failed: the times and ratios above do not measure the real build.")


if __name__ == "__main__":
    sys.exit(main())
