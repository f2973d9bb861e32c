"""One label per source, the same in the text and on the references page: author and year.

**Why it exists.**  sphinxcontrib-bibtex's ``author_year`` referencing style writes a
citation as [Pope et al., 2023], while the bibliography takes its labels from the pybtex
formatting style, and ``plain`` numbers them: the citation landed on an entry labelled
[210].  And the zh_TW prose writes "Dettmers 等人，2023" where the brackets said
"Dettmers et al., 2023".

**How, with the public plugin interfaces of both libraries.**  A pybtex label style
(:class:`AuthorYearLabels`) labels each entry by author and year, formatting the names
with sphinxcontrib-bibtex's own template (``author_or_editor_or_title`` with a
:class:`~sphinxcontrib.bibtex.style.referencing.PersonStyle`), in the words of the page's
language; two sources that would share a label get a, b, … after the year, as pybtex's
``alpha`` labels do.  A formatting style (``plain`` with these labels) is registered for
each language; conf.py's ``bibtex_default_style`` names the one of the build's language,
and its ``bibtex_reference_style = "label"`` makes every ``{cite:p}`` show that same label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import pybtex.plugin
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from sphinxcontrib.bibtex.style.referencing import PersonStyle
from sphinxcontrib.bibtex.style.template import author_or_editor_or_title

if TYPE_CHECKING:
    from pybtex.database import Entry
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

@dataclass(frozen=True)
class LabelWords:
    """How one language joins the names and the year of a label."""

    two_authors: str
    """Between the surnames of two authors."""
    more_authors: str
    """After the first surname when there are three or more authors."""
    before_year: str
    """Between the names and the year."""
    no_year: str
    """In place of the year of a source that has none (a web page, a repository)."""


WORDS = {
    "en": LabelWords(two_authors=" and ", more_authors=" et al.", before_year=", ", no_year="n.d."),
    # As the zh_TW prose cites: Dettmers 等人，2023; Banerjee 與 Lavie，2005.
    "zh_TW": LabelWords(two_authors=" 與 ", more_authors=" 等人", before_year="，", no_year="無日期"),
}


def style_name(language: str) -> str:
    """The pybtex formatting style registered for a language: conf.py's ``bibtex_default_style``.

    >>> style_name("en"), style_name("zh_TW")
    ('plain-author-year-en', 'plain-author-year-zh_TW')
    """
    return f"plain-author-year-{language}"


@dataclass
class _NameStyle:
    """The ``style`` object sphinxcontrib-bibtex's ``names`` template reads ``person`` from."""

    person: PersonStyle


class AuthorYearLabels(BaseLabelStyle):  # type: ignore[misc]
    """Labels such as "Pope et al., 2023", unique within the bibliography.

    >>> from pybtex.database import Entry, Person
    >>> def paper(year, *authors):
    ...     return Entry("misc", {"year": year}, persons={"author": [Person(a) for a in authors]})
    >>> labels = AuthorYearLabels()
    >>> list(labels.format_labels([paper("2023", "Pope, Reiner", "Douglas, Sholto", "Chowdhery, Aakanksha"),
    ...                            paper("2005", "Banerjee, Satanjeev", "Lavie, Alon"),
    ...                            paper("2026", "{vLLM Team}"), paper("2026", "{vLLM Team}")]))
    ['Pope et al., 2023', 'Banerjee and Lavie, 2005', 'vLLM Team, 2026a', 'vLLM Team, 2026b']
    """

    words: ClassVar[LabelWords] = WORDS["en"]

    def format_label(self, entry: Entry) -> str:
        person = PersonStyle(sep=", ", sep2=self.words.two_authors, last_sep=self.words.two_authors,
                             other=self.words.more_authors)
        template = author_or_editor_or_title(sep=person.sep, sep2=person.sep2, last_sep=person.last_sep,
                                             other=person.other)
        names = template.format_data({"entry": entry, "style": _NameStyle(person)}).render_as("text")
        return f"{names}{self.words.before_year}{entry.fields.get('year', self.words.no_year)}"

    def format_labels(self, sorted_entries: list[Entry]) -> Iterator[str]:
        labels = [self.format_label(entry) for entry in sorted_entries]
        shared = Counter(labels)
        seen: Counter[str] = Counter()
        for label in labels:
            if shared[label] == 1:
                yield label
            else:
                yield label + chr(ord("a") + seen[label])
                seen[label] += 1


def register_styles() -> None:
    """A label style and a ``plain`` formatting style using it, per language (idempotent)."""
    for language, words in WORDS.items():
        labels = type(f"AuthorYearLabels_{language}", (AuthorYearLabels,), {"words": words})
        pybtex.plugin.register_plugin("pybtex.style.labels", f"author-year-{language}", labels, force=True)
        formatting = type(f"PlainAuthorYear_{language}", (PlainStyle,),
                          {"default_label_style": f"author-year-{language}"})
        pybtex.plugin.register_plugin("pybtex.style.formatting", style_name(language), formatting, force=True)


def setup(app: Sphinx) -> ExtensionMetadata:
    register_styles()
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
