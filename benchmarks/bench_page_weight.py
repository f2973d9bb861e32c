"""Bytes each page of the built site loads, per language, against the page-weight budget.

For every HTML page of every language in a built site (``_build/html/<lang>/``, plus
the language chooser at the top), add up what a browser fetches to show it:

* the HTML file itself;
* every ``<link rel="stylesheet">``, ``<link rel="icon">`` / ``preload`` /
  ``modulepreload``, ``<script src>``, ``<img src/srcset>``, ``<source src/srcset>``
  and ``url(...)`` inside ``<style>`` blocks or ``style=""`` attributes;
* inside every stylesheet loaded that way, each ``url(...)`` (fonts, images) and
  ``@import``, followed recursively.

Each file counts once per page, however often it is referenced.  ``data:`` URIs are
inline, so they are already part of the file that holds them.  A reference that is
not a file of the site (``http://``, ``//host``, another scheme, an absolute
``/path``, which breaks when the site is opened from a folder) is an error, because
the site must work offline; so is a local file that does not exist.  Links a reader
follows (``<a href>``) and source maps are not fetched to show the page and are not
counted; neither is anything a script might fetch at run time.

Sizes are bytes on disk (no compression: the site is read from a folder or a zip).
1 KB = 1,000 bytes and 1 MB = 1,000,000 bytes, as browsers' network panels count.

Budget: a typical page (the median of a language) should stay under 300 KB; no page
may exceed 1.5 MB.  Pages over 300 KB are flagged, pages over 1.5 MB fail.

Run:  python benchmarks/bench_page_weight.py [SITE_DIR] [--json]
SITE_DIR defaults to ``_build/html`` (build it first with ``make html``).  Exit
status 1 if any page exceeds 1.5 MB or references a missing or non-local resource,
2 if the site directory has no pages.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SITE = REPO_ROOT / "_build" / "html"

TYPICAL_PAGE_TARGET = 300_000  # bytes: what the median page of a language should stay under
HARD_PAGE_LIMIT = 1_500_000  # bytes: no page may load more than this

ROOT_GROUP = "(root)"  # the pages at the top of the site, outside any language folder

# Folders of a language's output that hold assets or copies, not pages.
NON_PAGE_DIRS = {"_static", "_sources", "_images", "_downloads"}

CATEGORIES = ("html", "css", "js", "fonts", "images", "other")
SUFFIX_CATEGORY = {
    ".css": "css",
    ".js": "js",
    ".mjs": "js",
    ".woff": "fonts",
    ".woff2": "fonts",
    ".ttf": "fonts",
    ".otf": "fonts",
    ".eot": "fonts",
    ".png": "images",
    ".jpg": "images",
    ".jpeg": "images",
    ".gif": "images",
    ".svg": "images",
    ".webp": "images",
    ".avif": "images",
    ".ico": "images",
}
LOADED_LINK_RELS = {"stylesheet", "icon", "shortcut", "apple-touch-icon", "preload", "modulepreload"}

CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
# url(...) with a double-quoted, single-quoted or bare argument; quoted data: URIs
# may contain parentheses, so the quoted forms must be matched as whole strings.
CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)""", re.IGNORECASE)
# @import "x.css";  @import 'x.css';  (the url(...) form is caught by CSS_URL)
CSS_IMPORT_STRING = re.compile(r"""@import\s+(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


@dataclass
class PageWeight:
    """What one page loads: bytes per category, the files counted and what went wrong."""

    language: str
    page: str
    bytes_by_category: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.bytes_by_category.values())


class ResourceReferences(HTMLParser):
    """Collects the URLs an HTML page makes the browser fetch while showing it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if tag == "link":
            rels = set(attributes.get("rel", "").lower().split())
            if rels & LOADED_LINK_RELS and attributes.get("href"):
                self.urls.append(attributes["href"])
        elif tag in ("script", "img", "source", "iframe", "embed", "audio", "video", "track", "input"):
            if attributes.get("src"):
                self.urls.append(attributes["src"])
        elif tag == "object" and attributes.get("data"):
            self.urls.append(attributes["data"])
        if tag in ("img", "source") and attributes.get("srcset"):
            self.urls.extend(candidate.split()[0] for candidate in attributes["srcset"].split(",") if candidate.strip())
        if "style" in attributes:
            self.urls.extend(css_references(attributes["style"]))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.urls.extend(css_references(data))


def css_references(css_text: str) -> list[str]:
    """The URLs a piece of CSS loads: ``url(...)`` arguments and ``@import`` strings.

    >>> css_references('@import "a.css"; b { background: url( "i.png" ) } /* url(x.png) */')
    ['i.png', 'a.css']
    >>> css_references("i { mask: url('data:image/svg+xml,<svg a=\\"(1)\\"/>') }")
    ['data:image/svg+xml,<svg a="(1)"/>']
    """
    without_comments = CSS_COMMENT.sub("", css_text)
    urls = ["".join(groups).strip() for groups in CSS_URL.findall(without_comments)]
    urls += ["".join(groups).strip() for groups in CSS_IMPORT_STRING.findall(without_comments)]
    return [url for url in urls if url]


def resolve_local(url: str, referrer: Path, site: Path) -> tuple[Path | None, str | None]:
    """Map a reference to a file of the site, or explain why it is not a local file.

    Returns ``(path, None)`` for a local file, ``(None, None)`` for something that
    needs no fetch (``data:`` URIs, same-document ``#fragment``), and
    ``(None, reason)`` for a reference that breaks offline.
    """
    parts = urlsplit(url)
    if parts.scheme == "data":
        return None, None
    if parts.scheme or parts.netloc:
        return None, f"non-local resource {url!r}"
    if not parts.path:
        return None, None
    if parts.path.startswith("/"):
        return None, f"absolute path {url!r} (breaks when the site is opened from a folder)"
    target = (referrer.parent / unquote(parts.path)).resolve()
    if not target.is_relative_to(site):
        return None, f"{url!r} points outside the site"
    if not target.is_file():
        return None, f"missing file {url!r}"
    return target, None


def measure_page(page: Path, site: Path, language: str, language_dir: Path) -> PageWeight:
    """Add up the HTML page and every local file it loads, each file once."""
    weight = PageWeight(language=language, page=page.relative_to(language_dir).as_posix())
    seen: set[Path] = {page}
    weight.bytes_by_category["html"] = page.stat().st_size
    parser = ResourceReferences()
    parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    pending: list[tuple[str, Path]] = [(url, page) for url in parser.urls]
    while pending:
        url, referrer = pending.pop(0)
        target, problem = resolve_local(url, referrer, site)
        if problem:
            where = "" if referrer == page else f" (in {referrer.relative_to(site).as_posix()})"
            weight.errors.append(problem + where)
        if target is None or target in seen:
            continue
        seen.add(target)
        weight.files.append(target.relative_to(site).as_posix())
        weight.bytes_by_category[SUFFIX_CATEGORY.get(target.suffix.lower(), "other")] += target.stat().st_size
        if target.suffix.lower() == ".css":
            css_text = target.read_text(encoding="utf-8", errors="replace")
            pending.extend((found, target) for found in css_references(css_text))
    return weight


def site_pages(site: Path) -> dict[str, list[Path]]:
    """Pages per language folder; top-level pages (the language chooser) under ``(root)``."""
    languages: dict[str, list[Path]] = {}
    root_pages = sorted(site.glob("*.html"))
    for folder in sorted(entry for entry in site.iterdir() if entry.is_dir()):
        pages = sorted(
            path
            for path in folder.rglob("*.html")
            if not NON_PAGE_DIRS.intersection(path.relative_to(folder).parts[:-1])
        )
        if pages:
            languages[folder.name] = pages
    if root_pages:
        languages[ROOT_GROUP] = root_pages
    return languages


def kilobytes(size: int) -> str:
    return f"{size / 1000:,.1f}"


def flag(total: int) -> str:
    if total > HARD_PAGE_LIMIT:
        return "OVER 1.5 MB LIMIT"
    if total > TYPICAL_PAGE_TARGET:
        return "over 300 KB"
    return ""


def summarize(weights: list[PageWeight]) -> dict[str, object]:
    totals = [weight.total for weight in weights]
    heaviest = max(weights, key=lambda weight: weight.total)
    return {
        "pages": len(weights),
        "median_bytes": int(statistics.median(totals)),
        "max_bytes": heaviest.total,
        "max_page": heaviest.page,
        "pages_over_target": [weight.page for weight in weights if weight.total > TYPICAL_PAGE_TARGET],
        "pages_over_limit": [weight.page for weight in weights if weight.total > HARD_PAGE_LIMIT],
        "median_within_target": statistics.median(totals) <= TYPICAL_PAGE_TARGET,
    }


def print_table(language: str, weights: list[PageWeight], summary: dict[str, object]) -> None:
    headers = ("page", "html KB", "css KB", "js KB", "fonts KB", "img/other KB", "total KB", "")
    rows = [
        (
            weight.page,
            *(kilobytes(weight.bytes_by_category[category]) for category in ("html", "css", "js", "fonts")),
            kilobytes(weight.bytes_by_category["images"] + weight.bytes_by_category["other"]),
            kilobytes(weight.total),
            flag(weight.total),
        )
        for weight in weights
    ]
    widths = [max(len(str(row[column])) for row in [headers, *rows]) for column in range(len(headers))]
    print(f"\n== {language} ({summary['pages']} pages) ==")
    for row in [headers, *rows]:
        numbers = [str(cell).rjust(width) for cell, width in zip(row[1:-1], widths[1:-1], strict=True)]
        cells = [str(row[0]).ljust(widths[0]), *numbers]
        print("  ".join([*cells, str(row[-1])]).rstrip())
    typical = "within" if summary["median_within_target"] else "OVER"
    print(
        f"median {kilobytes(summary['median_bytes'])} KB ({typical} the 300 KB target), "
        f"max {kilobytes(summary['max_bytes'])} KB ({summary['max_page']}); "
        f"{len(summary['pages_over_target'])} page(s) over 300 KB, "
        f"{len(summary['pages_over_limit'])} over 1.5 MB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", type=Path, default=DEFAULT_SITE, help="built site (default: _build/html)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    args = parser.parse_args(argv)

    site = args.site.resolve()
    languages = site_pages(site) if site.is_dir() else {}
    if not languages:
        print(f"no HTML pages under {site}: run `make html` first", file=sys.stderr)
        return 2

    report: dict[str, object] = {"site": str(site), "languages": {}}
    errors: list[str] = []
    for language, pages in languages.items():
        language_dir = site if language == ROOT_GROUP else site / language
        weights = [measure_page(page, site, language, language_dir) for page in pages]
        summary = summarize(weights)
        errors += [f"{language}/{weight.page}: {error}" for weight in weights for error in weight.errors]
        errors += [f"{language}/{page}: loads more than 1.5 MB" for page in summary["pages_over_limit"]]
        report["languages"][language] = {
            "summary": summary,
            "pages": [
                {
                    "page": weight.page,
                    **weight.bytes_by_category,
                    "total": weight.total,
                    "files": weight.files,
                    "errors": weight.errors,
                }
                for weight in weights
            ],
        }
        if not args.json:
            print_table(language, weights, summary)
    report["errors"] = errors
    report["ok"] = not errors

    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print()
        for error in errors:
            print(f"ERROR {error}")
        print("OK: every page within 1.5 MB, every resource local" if not errors else f"{len(errors)} error(s)")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
