"""Text-overlap metrics: the clipped word count behind BLEU's unigram precision and ROUGE-1."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def _tokens(name: str, value: object) -> list[str]:
    accepted = "a non-empty list of string tokens"
    if isinstance(value, str):
        raise TypeError(f"{name} must be {accepted}; got the string {value!r}; split it first, e.g. text.split()")
    if not isinstance(value, Sequence):
        raise TypeError(f"{name} must be {accepted}; got {type(value).__name__}")
    tokens = list(value)
    if not tokens:
        raise ValueError(f"{name} must be {accepted}; got an empty sequence")
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(f"{name} must be {accepted}; got the token {token!r} ({type(token).__name__})")
    return tokens


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
    return sum((Counter(_tokens("candidate", candidate)) & Counter(_tokens("reference", reference))).values())
