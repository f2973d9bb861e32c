"""Structural checks of an EPUB 3 file (and of a zipped HTML site), in pure Python.

The reference validator, EPUBCheck, needs Java; this covers the faults our build can
actually produce, offline and without Java:

* the container: ``mimetype`` first, stored uncompressed, with the right content;
  ``META-INF/container.xml`` naming a package document that exists;
* the package document: every manifest item exists, ids are unique, the spine and
  the navigation document refer to manifest items, every file in the archive is
  listed in the manifest;
* every XHTML document is well-formed XML;
* every internal link or resource (``href``, ``src``, ``xlink:href``) resolves to a
  file in the archive, and its ``#fragment`` to an ``id`` in that file;
* manifest ``properties``: a document with MathML, SVG or scripts declares
  ``mathml``, ``svg`` or ``scripted`` (EPUBCheck's OPF-014), and declares none it lacks.

Each problem is one line, ``<file>:<line>: <message>``, so a report points at the
place to fix.  Run ``python tools/check_epub.py FILE.epub`` (exit status 1 on problems).
"""

from __future__ import annotations

import argparse
import posixpath
import sys
import zipfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.parsers import expat

MIMETYPE = b"application/epub+zip"
CONTAINER = "META-INF/container.xml"
XHTML_NS = "http://www.w3.org/1999/xhtml"
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_HREF = "http://www.w3.org/1999/xlink href"
OPF_NS = "http://www.idpf.org/2007/opf"
DC_NS = "http://purl.org/dc/elements/1.1/"
CONTAINER_NS = "urn:oasis:names:tc:opendocument:xmlns:container"
# <script> types that are data, not code: they do not make a document "scripted".
DATA_SCRIPT_TYPES = {"application/json", "application/ld+json", "text/template"}
CONTENT_PROPERTIES = ("mathml", "svg", "scripted")


@dataclass
class Link:
    line: int
    target: str


@dataclass
class ParsedDocument:
    """What the checks need from one XML document: ids, links and features."""

    ids: set[str] = field(default_factory=set)
    links: list[Link] = field(default_factory=list)
    features: set[str] = field(default_factory=set)
    error: str | None = None
    root: tuple[str, dict[str, str]] | None = None
    elements: list[tuple[str, dict[str, str], int]] = field(default_factory=list)


def parse_xml(data: bytes) -> ParsedDocument:
    """Parse with expat (namespace-aware), recording ids, links with lines, and features."""
    document = ParsedDocument()
    parser = expat.ParserCreate(namespace_separator=" ")

    def start(name: str, attributes: dict[str, str]) -> None:
        line = parser.CurrentLineNumber
        namespace, _, local = name.rpartition(" ")
        if document.root is None:
            document.root = (name, attributes)
        document.elements.append((name, attributes, line))
        if "id" in attributes:
            document.ids.add(attributes["id"])
        if namespace == MATHML_NS and local == "math":
            document.features.add("mathml")
        elif namespace == SVG_NS and local == "svg":
            document.features.add("svg")
        elif namespace == XHTML_NS and local == "script":
            if attributes.get("type", "text/javascript").split(";")[0].strip() not in DATA_SCRIPT_TYPES:
                document.features.add("scripted")
        for attribute in ("href", "src", XLINK_HREF):
            if attribute in attributes:
                document.links.append(Link(line, attributes[attribute]))

    parser.StartElementHandler = start
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        document.error = f"{error.lineno}: not well-formed XML: {expat.ErrorString(error.code)} (column {error.offset})"
    return document


def _internal(target: str) -> tuple[str, str] | None:
    """(path, fragment) of a link inside the publication, or None for external ones."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith("//"):
        return None
    return unquote(parts.path), unquote(parts.fragment)


def check_links(
    name: str, document: ParsedDocument, documents: dict[str, ParsedDocument], files: set[str]
) -> list[str]:
    """Every internal link of ``name`` must reach an existing file and ``id``."""
    problems = []
    base = posixpath.dirname(name)
    for link in document.links:
        internal = _internal(link.target)
        if internal is None:
            continue
        path, fragment = internal
        resolved = posixpath.normpath(posixpath.join(base, path)) if path else name
        if resolved not in files:
            problems.append(f"{name}:{link.line}: link to {link.target!r}: no file {resolved!r} in the archive")
            continue
        target = documents.get(resolved)
        # A document that did not parse is reported once, not once per link into it.
        if fragment and target is not None and target.error is None and fragment not in target.ids:
            problems.append(
                f"{name}:{link.line}: link to {link.target!r}: {resolved!r} has no id {fragment!r}"
            )
    return problems


def check_epub(path: Path) -> list[str]:
    """All problems found in the EPUB at ``path``; an empty list means it passed."""
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as error:
        return [f"{path}: not a zip archive: {error}"]
    with archive:
        infos = archive.infolist()
        files = {info.filename for info in infos if not info.is_dir()}
        problems = _check_mimetype(infos, archive)
        if CONTAINER not in files:
            return [*problems, f"{CONTAINER}: missing"]
        container = parse_xml(archive.read(CONTAINER))
        rootfiles = [
            attributes.get("full-path", "")
            for name, attributes, _line in container.elements
            if name == f"{CONTAINER_NS} rootfile"
        ]
        if container.error or not rootfiles:
            return [*problems, f"{CONTAINER}:{container.error or '1: no rootfile'}"]
        opf_name = rootfiles[0]
        if opf_name not in files:
            return [*problems, f"{CONTAINER}:1: rootfile {opf_name!r} is not in the archive"]
        opf = parse_xml(archive.read(opf_name))
        if opf.error:
            return [*problems, f"{opf_name}:{opf.error}"]
        problems += _check_package(archive, files, opf_name, opf)
    return problems


def _check_mimetype(infos: list[zipfile.ZipInfo], archive: zipfile.ZipFile) -> list[str]:
    if not infos or infos[0].filename != "mimetype":
        return ["mimetype: must be the first file in the archive"]
    first = infos[0]
    problems = []
    if first.compress_type != zipfile.ZIP_STORED:
        problems.append("mimetype: must be stored uncompressed")
    if first.extra:
        problems.append("mimetype: must have no extra field in its zip header")
    if archive.read(first) != MIMETYPE:
        problems.append(f"mimetype: content must be exactly {MIMETYPE.decode()!r}")
    return problems


def _check_package(
    archive: zipfile.ZipFile, files: set[str], opf_name: str, opf: ParsedDocument
) -> list[str]:
    problems: list[str] = []
    base = posixpath.dirname(opf_name)
    items: dict[str, tuple[str, str, set[str], int]] = {}  # id -> (path, media type, properties, line)
    spine: list[tuple[str, int]] = []
    for name, attributes, line in opf.elements:
        if name == f"{OPF_NS} item":
            item_id = attributes.get("id", "")
            if item_id in items:
                problems.append(f"{opf_name}:{line}: duplicate manifest id {item_id!r}")
            path = posixpath.normpath(posixpath.join(base, unquote(attributes.get("href", ""))))
            properties = set(attributes.get("properties", "").split())
            items[item_id] = (path, attributes.get("media-type", ""), properties, line)
            if path not in files:
                problems.append(f"{opf_name}:{line}: manifest item {attributes.get('href')!r} is not in the archive")
        elif name == f"{OPF_NS} itemref":
            spine.append((attributes.get("idref", ""), line))
    for idref, line in spine:
        if idref not in items:
            problems.append(f"{opf_name}:{line}: spine item {idref!r} is not in the manifest")
    if not any("nav" in properties for _path, _type, properties, _line in items.values()):
        problems.append(f"{opf_name}:1: no navigation document (a manifest item with properties=\"nav\")")
    problems += _check_ncx_identifier(archive, opf_name, opf, items)
    listed = {path for path, _type, _props, _line in items.values()}
    for unlisted in sorted(files - listed - {"mimetype", opf_name}):
        if not unlisted.startswith("META-INF/"):
            problems.append(f"{unlisted}:1: in the archive but not in the manifest")

    documents = {
        path: parse_xml(archive.read(path))
        for path, media_type, _props, _line in items.values()
        if media_type == "application/xhtml+xml" and path in files
    }
    for path, document in documents.items():
        if document.error:
            problems.append(f"{path}:{document.error}")
    for path, _media_type, properties, line in items.values():
        document = documents.get(path)
        if document is None or document.error:
            continue
        for feature in CONTENT_PROPERTIES:
            if feature in document.features and feature not in properties:
                problems.append(
                    f'{opf_name}:{line}: {path} contains {feature} content; declare properties="{feature}"'
                )
            if feature in properties and feature not in document.features:
                problems.append(
                    f'{opf_name}:{line}: {path} declares properties="{feature}" but has no {feature} content'
                )
    for path, document in sorted(documents.items()):
        if not document.error:
            problems += check_links(path, document, documents, files)
    return problems


def _check_ncx_identifier(
    archive: zipfile.ZipFile, opf_name: str, opf: ParsedDocument, items: dict[str, tuple[str, str, set[str], int]]
) -> list[str]:
    """The NCX (EPUB 2 table of contents) must carry the package's identifier (NCX-001)."""
    unique_id = opf.root[1].get("unique-identifier", "") if opf.root else ""
    texts = _element_texts(archive.read(opf_name), f"{DC_NS} identifier")
    identifier = next((text for attributes, text in texts if attributes.get("id") == unique_id), None)
    if identifier is None:
        return [f"{opf_name}:1: no dc:identifier with id {unique_id!r} (the package's unique-identifier)"]
    problems = []
    for path, media_type, _props, _line in items.values():
        if media_type != "application/x-dtbncx+xml":
            continue
        ncx = parse_xml(archive.read(path))
        for name, attributes, line in ncx.elements:
            is_uid = name.endswith(" meta") and attributes.get("name") == "dtb:uid"
            if is_uid and attributes.get("content") != identifier:
                problems.append(
                    f"{path}:{line}: dtb:uid {attributes.get('content')!r} is not the package identifier {identifier!r}"
                )
    return problems


def _element_texts(data: bytes, element: str) -> list[tuple[dict[str, str], str]]:
    """(attributes, text) of every ``element`` (expat's "namespace local" name)."""
    found: list[tuple[dict[str, str], str]] = []
    current: list[str] | None = None
    parser = expat.ParserCreate(namespace_separator=" ")

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal current
        if name == element:
            current = []
            found.append((attributes, ""))

    def text(data: str) -> None:
        if current is not None:
            current.append(data)

    def end(name: str) -> None:
        nonlocal current
        if name == element and current is not None:
            found[-1] = (found[-1][0], "".join(current).strip())
            current = None

    parser.StartElementHandler, parser.CharacterDataHandler, parser.EndElementHandler = start, text, end
    parser.Parse(data, True)
    return found


class _HTMLLinks(HTMLParser):
    """Links and ids of an HTML page (HTML, not XML, so html.parser, not expat)."""

    def __init__(self) -> None:
        super().__init__()
        self.document = ParsedDocument()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        line = self.getpos()[0]
        if "id" in attributes:
            self.document.ids.add(attributes["id"])
        # The language switch leads to the other edition, which is a separate bundle.
        if "language-switch" in attributes.get("class", "").split():
            return
        for attribute in ("href", "src", "xlink:href"):
            if attribute in attributes:
                self.document.links.append(Link(line, attributes[attribute]))


def check_site_zip(path: Path) -> list[str]:
    """A zipped HTML site: ``index.html`` at the top, and every internal link resolves."""
    with zipfile.ZipFile(path) as archive:
        files = {info.filename for info in archive.infolist() if not info.is_dir()}
        problems = [] if "index.html" in files else ["index.html: missing at the top of the archive"]
        documents: dict[str, ParsedDocument] = {}
        for name in sorted(files):
            if name.endswith(".html"):
                parser = _HTMLLinks()
                parser.feed(archive.read(name).decode("utf-8"))
                documents[name] = parser.document
    for name, document in documents.items():
        problems += check_links(name, document, documents, files)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archives", nargs="+", type=Path, help=".epub files, or .zip files of an HTML site")
    args = parser.parse_args(argv)
    failed = False
    for archive in args.archives:
        problems = check_site_zip(archive) if archive.suffix == ".zip" else check_epub(archive)
        for problem in problems:
            print(f"{archive.name}: {problem}")
        print(f"{archive}: {'FAILED, ' + str(len(problems)) + ' problems' if problems else 'ok'}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
