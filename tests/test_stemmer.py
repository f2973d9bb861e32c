"""PyStemmer, which makes Sphinx's search index faster, stems our words as Sphinx's own stemmer does.

snowballstemmer (what Sphinx calls) hands its work to PyStemmer's compiled Snowball
stemmers when PyStemmer is installed, and runs its pure-Python translation of the same
algorithms otherwise; the search index must not depend on which one ran.
"""

from __future__ import annotations

import re

import snowballstemmer
import Stemmer
from snowballstemmer.english_stemmer import EnglishStemmer

from sphinxbuild import REPO


def test_the_build_stems_with_pystemmer() -> None:
    assert isinstance(snowballstemmer.stemmer("english"), Stemmer.Stemmer)


def test_every_word_of_the_site_stems_as_the_pure_python_stemmer_does() -> None:
    texts = [path.read_text(encoding="utf-8") for pattern in ("docs/**/*.md", "locales/**/*.po", "llmcalc/**/*.py")
             for path in sorted(REPO.glob(pattern))]
    words = sorted({word.lower() for text in texts for word in re.findall(r"\w+", text)})
    assert len(words) > 10_000
    compiled, pure = Stemmer.Stemmer("english"), EnglishStemmer()
    assert [word for word in words if compiled.stemWord(word) != pure.stemWord(word)] == []
