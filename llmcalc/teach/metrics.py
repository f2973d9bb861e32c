"""Text-overlap metrics: the clipped word count behind BLEU's unigram precision and ROUGE-1."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .. import _validate as check

__all__ = ["unigram_overlap"]


def unigram_overlap(candidate: Sequence[str], reference: Sequence[str]) -> int:
    """Words the two token lists share, each counted as often as it occurs in *both* (a multiset intersection).

    A word the candidate repeats is credited at most as often as the
    reference has it ("clipped").  Divided by the candidate's length it is
    BLEU's unigram precision (Papineni et al. 2002); divided by the
    reference's length, ROUGE-1 recall.

    Examples
    --------
    >>> unigram_overlap("the cat sat on the mat".split(), "the cat was sitting on the mat".split())
    5
    >>> unigram_overlap(["the"] * 7, "the cat is on the mat".split())  # Papineni's example: 2 of 7
    2
    """
    return sum((Counter(check.tokens("candidate", candidate)) & Counter(check.tokens("reference", reference))).values())
