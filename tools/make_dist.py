"""Offline bundles of the glossary: per language, a zipped HTML site and an EPUB.

For each language this writes into ``dist/``:

* ``llm-glossary-<lang>-html.zip``: the built HTML site of that language
  (``_build/html/<lang>``, built beforehand by ``make html``), ``index.html`` at the
  top of the archive, so it opens offline from any folder it is unpacked into;
* ``llm-glossary-<lang>.epub``: built here with Sphinx's ``epub`` builder under the
  same ``-W --keep-going -n`` as the site.

Sphinx 9.0.4's EPUB builder never declares a manifest item's ``properties``, but
EPUB 3 requires ``mathml`` on documents with MathML (every page with a formula) and
``svg`` on the concept map; readers may refuse what EPUBCheck reports as OPF-014.
:func:`declare_content_properties` adds them to the package document.

Both bundles are then checked with :mod:`check_epub`; any problem fails the run.
Archives are written with sorted names and fixed timestamps, so the same site gives
byte-identical zips.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from check_epub import CONTAINER, CONTENT_PROPERTIES, check_epub, check_site_zip, parse_xml

ROOT = Path(__file__).resolve().parent.parent
FIXED_TIME = (2000, 1, 1, 0, 0, 0)  # zip entries carry no build time: reproducible archives
SKIPPED_SITE_FILES = {".buildinfo", ".buildinfo.bak"}  # Sphinx's rebuild bookkeeping, not content


def zip_site(site: Path, archive: Path) -> int:
    """Zip the HTML site in ``site`` with its ``index.html`` at the top; returns file count."""
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"{site / 'index.html'} does not exist: build the site first (make html)")
    files = sorted(
        path for path in site.rglob("*") if path.is_file() and path.name not in SKIPPED_SITE_FILES
    )
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for path in files:
            info = zipfile.ZipInfo(path.relative_to(site).as_posix(), FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            bundle.writestr(info, path.read_bytes())
    return len(files)


class EpubBuildError(RuntimeError):
    """Sphinx's epub builder reported errors (already printed on stderr)."""


def build_epub(language: str, srcdir: Path, confdir: Path, builddir: Path, options: list[str]) -> Path:
    """Run Sphinx's epub builder for ``language``; returns the ``.epub`` it wrote."""
    outdir = builddir / "epub" / language
    # The epub builder packs every file it finds in its output directory, and warns
    # (fails, under -W) about the .buildinfo.bak an earlier build leaves there.
    shutil.rmtree(outdir, ignore_errors=True)
    # The language's HTML build saved its environment in doctrees/<language>: reading it
    # instead of the sources again makes the EPUB from the same doctrees as the HTML, and
    # saves the reading phase.
    command = [
        sys.executable, "-m", "sphinx", "-b", "epub", "-c", str(confdir), "-D", f"language={language}",
        *options, "-d", str(builddir / "doctrees" / language), str(srcdir), str(outdir),
    ]
    if subprocess.run(command).returncode != 0:
        raise EpubBuildError(f"sphinx-build -b epub failed for {language}: {' '.join(command)}")
    epubs = sorted(outdir.glob("*.epub"))
    if len(epubs) != 1:
        raise RuntimeError(f"expected one .epub in {outdir}, found {[path.name for path in epubs]}")
    return epubs[0]


def _package_path(bundle: zipfile.ZipFile) -> str:
    container = parse_xml(bundle.read(CONTAINER))
    return next(
        attributes["full-path"] for name, attributes, _line in container.elements if name.endswith(" rootfile")
    )


ITEM = re.compile(r"<item\b[^>]*?/>", re.DOTALL)
ATTRIBUTE = re.compile(r'\b(href|properties)="([^"]*)"')


def declare_content_properties(source: Path, target: Path) -> dict[str, list[str]]:
    """Copy the EPUB ``source`` to ``target`` with MathML/SVG/script properties declared.

    Returns document path -> properties added.
    """
    with zipfile.ZipFile(source) as bundle:
        opf_name = _package_path(bundle)
        opf = bundle.read(opf_name).decode("utf-8")
        base = opf_name.rpartition("/")[0]
        added: dict[str, list[str]] = {}

        def declare(match: re.Match[str]) -> str:
            item = match.group(0)
            attributes = dict(ATTRIBUTE.findall(item))
            if 'media-type="application/xhtml+xml"' not in item:
                return item
            path = f"{base}/{attributes['href']}" if base else attributes["href"]
            features = parse_xml(bundle.read(path)).features
            declared = attributes.get("properties", "").split()
            missing = [name for name in CONTENT_PROPERTIES if name in features and name not in declared]
            if not missing:
                return item
            added[path] = missing
            properties = " ".join([*declared, *missing])
            if "properties" in attributes:
                return item.replace(f'properties="{attributes["properties"]}"', f'properties="{properties}"')
            return item[:-2].rstrip() + f' properties="{properties}" />'

        patched = ITEM.sub(declare, opf)
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(target, "w") as output:
            for info in bundle.infolist():
                data = patched.encode("utf-8") if info.filename == opf_name else bundle.read(info)
                entry = zipfile.ZipInfo(info.filename, FIXED_TIME)
                entry.compress_type = info.compress_type  # keeps mimetype stored, first
                entry.external_attr = 0o644 << 16
                output.writestr(entry, data)
    return added


def make_dist(
    languages: list[str], html_dir: Path, dist: Path, builddir: Path, srcdir: Path, confdir: Path,
    sphinx_options: list[str],
) -> list[str]:
    """Build and check every bundle; returns the problems found (empty when all pass)."""
    problems: list[str] = []
    for language in languages:
        site_zip = dist / f"llm-glossary-{language}-html.zip"
        count = zip_site(html_dir / language, site_zip)
        site_problems = check_site_zip(site_zip)
        problems += [f"{site_zip.name}: {problem}" for problem in site_problems]
        print(f"{site_zip}: {count} files, {site_zip.stat().st_size:,} bytes, "
              f"{'ok' if not site_problems else str(len(site_problems)) + ' problems'}")

        epub = dist / f"llm-glossary-{language}.epub"
        added = declare_content_properties(build_epub(language, srcdir, confdir, builddir, sphinx_options), epub)
        epub_problems = check_epub(epub)
        problems += [f"{epub.name}: {problem}" for problem in epub_problems]
        declared = sum(len(names) for names in added.values())
        print(f"{epub}: {epub.stat().st_size:,} bytes, {declared} content properties declared, "
              f"{'ok' if not epub_problems else str(len(epub_problems)) + ' problems'}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", nargs="+", default=["en", "zh_TW"])
    parser.add_argument("--html-dir", type=Path, default=ROOT / "_build" / "html",
                        help="where make html put <lang>/ (default: _build/html)")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--build-dir", type=Path, default=ROOT / "_build",
                        help="the EPUB build goes to <build-dir>/epub/<lang>")
    parser.add_argument("--source-dir", type=Path, default=ROOT / "docs")
    parser.add_argument("--conf-dir", type=Path, default=ROOT)
    parser.add_argument("--sphinx-options", default="-W --keep-going -n -q",
                        help="extra sphinx-build options, one string (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        problems = make_dist(
            args.languages, args.html_dir, args.dist, args.build_dir, args.source_dir, args.conf_dir,
            args.sphinx_options.split(),
        )
    except (EpubBuildError, FileNotFoundError) as error:
        problems = [str(error)]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
