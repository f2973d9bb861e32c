"""Which versioned claims have gone stale: every library release the references and recordings name, against the newest.

Usage: python tools/freshness.py   (make freshness; asks the package index, so it is not part of make test)

Entries say which release of a library they were checked against, through the key and
note of a reference (``vllm-0.33-scheduler``, note "Release 0.33.0: ...") or through a
recording made with a library (``"torch": "2.13.0+cpu"`` in ``tests/data``).  This tool
collects every such release, asks the package index (through ``pip index versions``, so
whatever index pip is configured for) for each library's newest release, and prints, per
library, whether the project is at it; then, for each reference or recording that is
behind, the glossary entries that cite it, so a maintainer knows what a new release
touches.  A release kept on purpose is listed in ``docs/_data/freshness-kept.tsv`` with
the reason, and the table prints that reason instead of calling it stale.

Written here rather than taken from a library: dependency checkers (pip-audit, pip
list --outdated) read installed packages, not the releases a document's citations name.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version
from pybtex.database import parse_file

REPO = Path(__file__).resolve().parent.parent

LIBRARIES: dict[str, tuple[str, ...]] = {
    "anthropic": ("anthropic-python",),
    "autoawq": ("autoawq",),
    "axolotl": ("axolotl",),
    "bitsandbytes": ("bitsandbytes",),
    "compressed-tensors": ("compressed-tensors",),
    "deepspeed": ("deepspeed",),
    "gptqmodel": ("gptqmodel",),
    "llamafactory": ("llamafactory",),
    "numpy": ("numpy",),
    "openai": ("openai-python",),
    "peft": ("hf-peft", "peft"),
    "safetensors": ("safetensors",),
    "sglang": ("sglang",),
    "swebench": ("swebench",),
    "tiktoken": ("tiktoken",),
    "torch": ("pytorch",),
    "transformers": ("hf-transformers",),
    "trl": ("hf-trl", "trl"),
    "unsloth": ("unsloth",),
    "vllm": ("vllm",),
}
"""Each library on the package index, and the key prefixes of the references that cite one of its releases."""

NOT_ON_THE_INDEX: dict[str, str] = {
    "lucene": "Apache Lucene, a Java library",
    "nvidia-cuda-guide": "NVIDIA's CUDA programming guide, versioned with the CUDA toolkit",
    "pgvector": "a PostgreSQL extension",
}
"""Versioned references whose releases are not Python packages: listed, not looked up."""

RECORDING_LIBRARIES = ("torch", "transformers", "peft", "bitsandbytes", "vllm", "trl")
"""The keys of a recording's JSON that name the release it was made with."""

_VERSIONED_KEY = re.compile(r"^(?P<prefix>[a-z][a-z0-9-]*?)-(?P<version>\d+(?:\.\d+)+)(?:-|$)")
_CITATION = re.compile(r"\{cite(?::[a-z]+)?\}`(?P<keys>[^`]+)`")


class FreshnessError(Exception):
    """The index could not say a library's newest release, or a reference names an unknown library."""


@dataclass(frozen=True)
class Claim:
    """One reference key or recording file that names a release of a library."""

    library: str
    release: Version
    source: str
    """The reference key, or the recording's path in the repository."""


@dataclass
class LibraryRow:
    """One library: its newest release, what the project cites, and what is behind."""

    library: str
    newest: Version
    claims: list[Claim] = field(default_factory=list)

    def behind(self) -> list[Claim]:
        """The claims older than the newest release, compared to the precision they name (0.33 covers 0.33.x)."""
        return [claim for claim in self.claims if not _same_series(claim.release, self.newest)]


def _same_series(cited: Version, newest: Version) -> bool:
    width = len(cited.release)
    return cited.release >= newest.release[:width]


def key_release(key: str, note: str = "") -> tuple[str, Version] | None:
    """The key prefix and release a reference key names, made precise by its note where it gives more digits.

    >>> key_release("vllm-0.33-scheduler", "Release 0.33.0: ...")
    ('vllm', <Version('0.33.0')>)
    >>> key_release("hf-transformers-5.24")
    ('hf-transformers', <Version('5.24')>)
    >>> key_release("vaswani2017attention") is None
    True
    """
    match = _VERSIONED_KEY.match(key)
    if match is None:
        return None
    version = match["version"]
    longer = re.findall(rf"(?<![\d.]){re.escape(version)}(?:\.\d+)+", note)
    return match["prefix"], Version(max(longer, key=len, default=version))


def library_of(prefix: str) -> str | None:
    """The library a key prefix cites, ``None`` for a versioned work that is not a Python package."""
    for library, prefixes in LIBRARIES.items():
        if prefix in prefixes:
            return library
    if prefix in NOT_ON_THE_INDEX:
        return None
    known = ", ".join(sorted([*(p for ps in LIBRARIES.values() for p in ps), *NOT_ON_THE_INDEX]))
    raise FreshnessError(
        f"reference prefix {prefix!r} names a release of a library this tool does not know; "
        f"add it to LIBRARIES or NOT_ON_THE_INDEX in tools/freshness.py (known: {known})"
    )


def reference_claims(bib: Path) -> list[Claim]:
    """Every reference whose key names a release of a Python library."""
    claims = []
    for key, entry in parse_file(str(bib), bib_format="bibtex").entries.items():
        found = key_release(key, entry.fields.get("note", ""))
        if found is None:
            continue
        library = library_of(found[0])
        if library is not None:
            claims.append(Claim(library, found[1], key))
    return claims


def _release_fields(data: object) -> Iterator[tuple[str, str]]:
    if isinstance(data, dict):
        for name, value in data.items():
            if name in RECORDING_LIBRARIES and isinstance(value, str):
                yield name, value
            else:
                yield from _release_fields(value)
    elif isinstance(data, list):
        for item in data:
            yield from _release_fields(item)


def recording_claims(data_dir: Path, repo: Path = REPO) -> list[Claim]:
    """Every release a recorded measurement under ``data_dir`` was made with, once per file and library."""
    claims = set()
    for path in sorted(data_dir.rglob("*.json")):
        for library, text in _release_fields(json.loads(path.read_text(encoding="utf-8"))):
            try:
                release = Version(text)
            except InvalidVersion:
                continue
            claims.add(Claim(library, Version(release.base_version), str(path.relative_to(repo))))
    return sorted(claims, key=lambda claim: (claim.library, claim.source, claim.release))


def citing_entries(docs: Path) -> dict[str, list[str]]:
    """For each reference key, the glossary entries (or pages, for prose outside a glossary) that cite it.

    An entry starts at a term line: a line at column 0, inside a ``{glossary}`` block,
    after a blank line or the block's opening.
    """
    cited: dict[str, list[str]] = {}
    for page in sorted(docs.glob("*.md")):
        entry, in_glossary, after_blank = "", False, False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("::::{glossary}"):
                in_glossary, after_blank, entry = True, True, ""
                continue
            if in_glossary and line.startswith("::::"):
                in_glossary, entry = False, ""
                continue
            if in_glossary and after_blank and line and not line[0].isspace():
                entry = line.strip()
            after_blank = not line.strip()
            for match in _CITATION.finditer(line):
                where = f"{page.stem}: {entry}" if entry else f"{page.stem} (prose)"
                for key in match["keys"].split(","):
                    places = cited.setdefault(key.strip(), [])
                    if where not in places:
                        places.append(where)
    return cited


def kept_on_purpose(path: Path) -> dict[str, str]:
    """The references and recordings kept at an older release, each with its reason."""
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as rows:
        return {row["source"]: row["reason"] for row in csv.DictReader(rows, delimiter="\t")}


def parse_newest(library: str, output: str) -> Version:
    """The newest release in what ``pip index versions LIBRARY --json`` printed.

    >>> parse_newest("vllm", '{"name": "vllm", "versions": ["0.34.0", "0.33.0"], "latest": "0.34.0"}')
    <Version('0.34.0')>
    """
    for line in output.splitlines():
        if not line.startswith("{"):
            continue
        answer = json.loads(line)
        if str(answer.get("name", "")).lower() == library.lower() and isinstance(answer.get("latest"), str):
            return Version(answer["latest"])
    last = output.strip().splitlines()[-1] if output.strip() else "(nothing)"
    raise FreshnessError(f"the package index gave no release of {library!r}: pip said {last!r}")


def ask_pip(library: str) -> str:
    """What ``pip index versions`` prints for ``library``: its releases on the package index, newest first.

    Releases that need a newer Python than this one count too (``--ignore-requires-python``):
    the report is about the library, not about what this interpreter can install.
    """
    done = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", library, "--json", "--ignore-requires-python",
         "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.stdout + done.stderr


def library_rows(claims: Iterable[Claim], lookup: Callable[[str], str] | None = None) -> list[LibraryRow]:
    """One row per library cited, with its newest release from ``lookup`` (default: pip), asked side by side."""
    by_library: dict[str, list[Claim]] = {}
    for claim in claims:
        by_library.setdefault(claim.library, []).append(claim)
    names = sorted(by_library)
    with ThreadPoolExecutor(max_workers=8) as pool:
        outputs = list(pool.map(lookup or ask_pip, names))
    return [
        LibraryRow(name, parse_newest(name, output), sorted(by_library[name], key=lambda c: (c.release, c.source)))
        for name, output in zip(names, outputs, strict=True)
    ]


def _releases(claims: Iterable[Claim]) -> str:
    """The releases cited, each once (5.25 and 5.25.0 are one release, shown with every digit named)."""
    shown: dict[Version, str] = {}
    for claim in claims:
        text = str(claim.release)
        if len(text) > len(shown.get(claim.release, "")):
            shown[claim.release] = text
    return ", ".join(shown[release] for release in sorted(shown))


def report(rows: list[LibraryRow], cited: dict[str, list[str]], kept: dict[str, str]) -> str:
    """The freshness report: a table of libraries, then each reference or recording that is behind."""
    lines = [
        "| library | newest | cited releases | status |",
        "| --- | --- | --- | --- |",
    ]
    stale: list[tuple[LibraryRow, Claim]] = []
    for row in rows:
        behind = row.behind()
        unexplained = [claim for claim in behind if claim.source not in kept]
        stale += [(row, claim) for claim in behind]
        if not behind:
            status = "current"
        elif unexplained:
            status = f"STALE: {len(unexplained)} of {len(row.claims)} behind"
        else:
            status = f"kept: {len(behind)} of {len(row.claims)} older on purpose"
        lines.append(f"| {row.library} | {row.newest} | {_releases(row.claims)} | {status} |")
    if stale:
        lines += ["", "| library | reference or recording | cites | newest | why kept | cited by |", "| --- " * 6 + "|"]
        for row, claim in stale:
            places = cited.get(claim.source, [])
            users = "; ".join(places) if places else ("recording" if "/" in claim.source else "not cited")
            lines.append(
                f"| {row.library} | {claim.source} | {claim.release} | {row.newest} "
                f"| {kept.get(claim.source, '-')} | {users} |"
            )
    unexplained_total = sum(1 for _, claim in stale if claim.source not in kept)
    lines += ["", f"{len(rows)} libraries, {sum(len(r.claims) for r in rows)} versioned references and recordings, "
              f"{len(stale)} behind the newest release, {unexplained_total} of them without a reason"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="the repository to read (default: this one)")
    args = parser.parse_args(argv)
    repo: Path = args.repo
    try:
        claims = reference_claims(repo / "docs" / "_bib" / "references.bib")
        claims += recording_claims(repo / "tests" / "data", repo)
        rows = library_rows(claims)
    except FreshnessError as error:
        print(f"freshness: {error}", file=sys.stderr)
        return 2
    print(report(rows, citing_entries(repo / "docs"), kept_on_purpose(repo / "docs" / "_data" / "freshness-kept.tsv")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
