"""The clipped word overlap behind BLEU and ROUGE-1, against Papineni et al.'s example and hand counts."""

import pytest

from llmcalc.teach.metrics import unigram_overlap


# Papineni et al. (2002), section 2.1: the degenerate "the" candidate has modified precision 2/7.
def test_bleu_papineni_example():
    candidate = ["the"] * 7
    reference = ["the", "cat", "is", "on", "the", "mat"]
    assert unigram_overlap(candidate, reference) / len(candidate) == pytest.approx(2 / 7)


@pytest.mark.parametrize("candidate, reference, overlap", [
    ("the cat sat on the mat", "the cat was sitting on the mat", 5),
    ("a a b", "a b b", 2),
    ("x y z", "p q", 0),
    ("the the", "the", 1),
])
def test_overlap_is_the_multiset_intersection_either_way(candidate, reference, overlap):
    cand, ref = candidate.split(), reference.split()
    assert unigram_overlap(cand, ref) == overlap == unigram_overlap(ref, cand)


@pytest.mark.parametrize("candidate, error, message", [
    ("the cat", TypeError, r"candidate must be a non-empty list of string tokens; got the string 'the cat'; split it"),
    ([], ValueError, r"candidate must be .*; got an empty sequence"),
    (["the", 3], TypeError, r"got the token 3 \(int\)"),
])
def test_overlap_refuses_what_is_not_a_token_list(candidate, error, message):
    with pytest.raises(error, match=message):
        unigram_overlap(candidate, ["the"])
