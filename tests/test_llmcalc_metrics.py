"""Evaluation metrics against hand-computed and published values, plus bad input."""

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_llmcalc_properties import JUNK

import llmcalc as lc


@pytest.mark.parametrize("a, b, expected", [
    ([1.0, 0.0], [1.0, 1.0], math.sqrt(0.5)),
    ([1.0, 0.0], [10.0, 10.0], math.sqrt(0.5)),   # length does not matter
    ([1.0, 0.0], [-1.0, 0.0], -1.0),
    ([1.0, 0.0], [0.0, 3.0], 0.0),
    ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], 32 / math.sqrt(14 * 77)),
    ([1e200, 1e200], [1e-200, 1e-200], 1.0),      # no overflow or underflow in the norms
])
def test_cosine_similarity(a, b, expected):
    result = lc.cosine_similarity(np.array(a), np.array(b))
    assert type(result) is float
    assert result == pytest.approx(expected, rel=1e-14, abs=1e-15)


def test_cosine_similarity_broadcasts_documents_against_query():
    docs = np.array([[0.9, 0.1, 0.0], [0.1, 0.9, 0.2], [0.6, 0.0, 0.8]])
    query = np.array([0.8, 0.2, 0.3])
    expected = [float(d @ query / (np.sqrt(d @ d) * np.sqrt(query @ query))) for d in docs]
    np.testing.assert_allclose(lc.cosine_similarity(docs, query), expected, rtol=1e-14)
    assert lc.cosine_similarity(docs[:, None, :], docs[None, :, :]).shape == (3, 3)


def test_bert_score_matches_brute_force():
    rng = np.random.default_rng(0)
    cand, ref = rng.normal(size=(4, 8)) + 2.0, rng.normal(size=(6, 8)) + 2.0
    sims = [[float(c @ r / np.linalg.norm(c) / np.linalg.norm(r)) for r in ref] for c in cand]
    p = np.mean([max(row) for row in sims])
    r = np.mean([max(col) for col in zip(*sims)])
    assert lc.bert_score(cand, ref) == pytest.approx((p, r, 2 * p * r / (p + r)), rel=1e-13)


def test_bert_score_identical_texts_score_one():
    tokens = np.array([[1.0, 2.0], [3.0, -1.0]])
    assert lc.bert_score(tokens, tokens) == pytest.approx((1.0, 1.0, 1.0))


# Wikipedia's "Precision and recall" example: a program flags 8 animals as dogs in a photo of 12 dogs
# and 10 cats; 5 of them are dogs (precision 5/8, recall 5/12).
@pytest.mark.parametrize("tp, fp, fn, p, r, f1", [
    (5, 3, 7, 5 / 8, 5 / 12, 0.5),
    (40, 10, 20, 0.8, 2 / 3, 80 / 110),
    (1, 0, 9, 1.0, 0.1, 2 / 11),
    (0, 4, 4, 0.0, 0.0, 0.0),
])
def test_precision_recall_f1(tp, fp, fn, p, r, f1):
    assert lc.precision(tp, fp) == pytest.approx(p, rel=1e-15)
    assert lc.recall(tp, fn) == pytest.approx(r, rel=1e-15)
    assert lc.f1_score(lc.precision(tp, fp), lc.recall(tp, fn)) == pytest.approx(f1, rel=1e-14)


def test_f1_equals_count_formula_on_a_grid():
    tp, fp, fn = np.meshgrid(np.arange(1, 20), np.arange(0, 20), np.arange(0, 20))
    f1 = lc.f1_score(lc.precision(tp, fp), lc.recall(tp, fn))
    np.testing.assert_allclose(f1, 2 * tp / (2 * tp + fp + fn), rtol=1e-14)


@pytest.mark.parametrize("correct, total, expected", [(90, 100, 0.9), (0, 7, 0.0), (7, 7, 1.0), (1, 3, 1 / 3)])
def test_accuracy(correct, total, expected):
    assert lc.accuracy(correct, total) == expected


def test_confusion_counts_from_labels():
    actual = np.array([1, 1, 1, 0, 0, 0, 0, 1])
    predicted = np.array([1, 0, 1, 1, 0, 0, 1, 1])
    counts = lc.confusion_counts(actual, predicted)
    assert counts == (3, 2, 1, 2)
    assert (counts.correct, counts.total) == (5, 8)


def test_always_no_detector_has_high_accuracy_and_no_recall():
    labels = np.array([1] * 5 + [0] * 95)
    counts = lc.confusion_counts(labels, np.zeros(100, dtype=int))
    assert lc.accuracy(counts.correct, counts.total) == 0.95
    assert lc.recall(counts.true_pos, counts.false_neg) == 0.0


@pytest.mark.parametrize("wins, losses, ties, weight, expected", [
    (60, 30, 10, 0.5, 0.65),
    (60, 30, 10, 0.0, 0.6),
    (60, 30, 10, 1.0, 0.7),
    (60, 30, 0, 0.5, 60 / 90),
    (0, 0, 5, 0.5, 0.5),
])
def test_win_rate(wins, losses, ties, weight, expected):
    assert lc.win_rate(wins, losses, ties, weight) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("wins, losses, ties, weight", [(60, 30, 10, 0.5), (3, 1, 0, 0.5), (10, 10, 80, 0.0), (1, 0, 1, 0.5)])
def test_win_rate_standard_error_equals_sample_std_of_outcomes(wins, losses, ties, weight):
    outcomes = np.array([1.0] * wins + [0.0] * losses + [weight] * ties)
    expected = outcomes.std(ddof=1) / math.sqrt(outcomes.size)
    assert lc.win_rate_standard_error(wins, losses, ties, weight) == pytest.approx(expected, rel=1e-12)


def test_win_rate_margin_uses_the_normal_quantile():
    se = lc.win_rate_standard_error(60, 30, 10)
    assert lc.win_rate_margin(60, 30, 10) == pytest.approx(1.959963984540054 * se, rel=1e-12)
    assert lc.win_rate_margin(60, 30, 10, confidence=0.99) == pytest.approx(NormalDist().inv_cdf(0.995) * se)
    assert lc.win_rate_margin(60, 30, 10, confidence=0.99) == pytest.approx(2.5758 * se, rel=1e-4)


def test_win_rate_all_wins_has_zero_error():
    assert lc.win_rate_standard_error(100, 0) == 0.0


def test_win_rate_counts_broadcast():
    result = lc.win_rate(np.array([10, 20, 30]), 10)
    np.testing.assert_allclose(result, [0.5, 2 / 3, 0.75])


# Papineni et al. (2002), section 2.1: the degenerate "the" candidate has modified precision 2/7.
def test_bleu_papineni_example():
    candidate = ["the"] * 7
    reference = "the cat is on the mat".split()
    assert lc.bleu_unigram_precision(candidate, reference) == pytest.approx(2 / 7)
    assert lc.bleu_unigram_precision(candidate, reference, clipped=False) == 1.0


@pytest.mark.parametrize("candidate, reference, overlap", [
    ("the cat sat on the mat", "the cat was sitting on the mat", 5),
    ("a a b", "a b b", 2),
    ("x y z", "p q", 0),
    ("the the", "the", 1),
])
def test_unigram_overlap_rouge_bleu(candidate, reference, overlap):
    cand, ref = candidate.split(), reference.split()
    assert lc.unigram_overlap(cand, ref) == overlap == lc.unigram_overlap(ref, cand)
    assert lc.rouge1_recall(cand, ref) == pytest.approx(overlap / len(ref))
    assert lc.bleu_unigram_precision(cand, ref) == pytest.approx(overlap / len(cand))


@pytest.mark.parametrize("call, error, message", [
    (lambda: lc.cosine_similarity(np.zeros(2), np.ones(2)), ValueError, r"a must not contain a zero vector"),
    (lambda: lc.cosine_similarity(np.ones(2), np.ones(3)), ValueError, r"same non-zero last dimension"),
    (lambda: lc.cosine_similarity(np.ones((2, 3)), np.ones((4, 3))), ValueError, r"leading axes of a and b must broadcast"),
    (lambda: lc.cosine_similarity(np.array([np.nan, 1.0]), np.ones(2)), ValueError, r"a must be a finite real array"),
    (lambda: lc.bert_score(np.ones(3), np.ones((2, 3))), ValueError, r"candidate must be a non-empty 2-D array"),
    (lambda: lc.bert_score(np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])), ValueError, r"precision \+ recall > 0"),
    (lambda: lc.precision(0, 0), ValueError, r"precision is undefined .*got true_pos=0, false_pos=0"),
    (lambda: lc.precision(np.array([1, 0]), 0), ValueError, r"got true_pos=0, false_pos=0 \(at index 1\)"),
    (lambda: lc.recall(0, 0), ValueError, r"recall is undefined .*got true_pos=0, false_neg=0"),
    (lambda: lc.precision(-1, 3), ValueError, r"true_pos must be an integer in \[0, .*\]; got -1"),
    (lambda: lc.precision(2.0, 3), TypeError, r"true_pos must be an integer .*got 2\.0"),
    (lambda: lc.f1_score(1.2, 0.5), ValueError, r"precision must be a finite number in \[0, 1\]; got 1\.2"),
    (lambda: lc.accuracy(101, 100), ValueError, r"correct must be an integer in \[0, total\]; got correct=101, total=100"),
    (lambda: lc.accuracy(0, 0), ValueError, r"total must be an integer in \[1, .*\]; got 0"),
    (lambda: lc.confusion_counts([1, 0], [1]), ValueError, r"same length; got 2 and 1"),
    (lambda: lc.confusion_counts([], []), ValueError, r"actual must be a non-empty 1-D sequence"),
    (lambda: lc.confusion_counts([1, 0], [1, 1], positive=[1]), TypeError, r"positive must be a single label"),
    (lambda: lc.win_rate(0, 0, 0), ValueError, r"at least one comparison .*got wins=0, losses=0, ties=0"),
    (lambda: lc.win_rate(5, 5, tie_weight=1.5), ValueError, r"tie_weight must be a finite number in \[0, 1\]; got 1\.5"),
    (lambda: lc.win_rate_standard_error(1, 0), ValueError, r"at least 2 comparisons .*got 1"),
    (lambda: lc.win_rate_margin(5, 5, confidence=1.0), ValueError, r"confidence must be a finite number in \(0, 1\); got 1\.0"),
    (lambda: lc.rouge1_recall("the cat", ["the"]), TypeError, r"candidate must be a non-empty list of string tokens; got the string 'the cat'; split it first"),
    (lambda: lc.rouge1_recall(["the"], []), ValueError, r"reference must be a non-empty list .*empty sequence"),
    (lambda: lc.bleu_unigram_precision(["a", 3], ["a"]), TypeError, r"candidate .*got the token 3 \(int\)"),
    (lambda: lc.bleu_unigram_precision(["a"], ["a"], clipped="yes"), TypeError, r"clipped must be True or False"),
])
def test_metrics_reject(call, error, message):
    with pytest.raises(error, match=message):
        call()


@settings(max_examples=600, deadline=None)
@given(a=JUNK, b=JUNK, which=st.integers(0, 13))
def test_metrics_raise_only_value_or_type_errors(a, b, which):
    calls = [
        lambda: lc.cosine_similarity(a, b),
        lambda: lc.bert_score(a, b),
        lambda: lc.accuracy(a, b),
        lambda: lc.precision(a, b),
        lambda: lc.recall(a, b),
        lambda: lc.f1_score(a, b),
        lambda: lc.confusion_counts(a, b),
        lambda: lc.win_rate(a, b),
        lambda: lc.win_rate(3, 4, a, b),
        lambda: lc.win_rate_standard_error(a, b),
        lambda: lc.win_rate_margin(a, 3, confidence=b),
        lambda: lc.bleu_unigram_precision(a, b),
        lambda: lc.rouge1_recall(a, b),
        lambda: lc.unigram_overlap(a, ["x"]),
    ]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            calls[which]()
        except (ValueError, TypeError):
            pass


@pytest.mark.parametrize("a, b, expected", [
    ("write a haiku about snow", "write a haiku about rain", 4 / 6),
    ("the cat", "the cat", 1.0),
    ("a b", "c d", 0.0),
    ("a a a b", "b c", 1 / 3),       # sets: {a, b} and {b, c}
])
def test_jaccard_similarity(a, b, expected):
    assert lc.jaccard_similarity(a.split(), b.split()) == pytest.approx(expected, rel=1e-15)
