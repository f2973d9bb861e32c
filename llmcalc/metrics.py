"""Evaluation metrics: cosine similarity, classification scores, win rates and word-overlap scores.

Classification scores take *counts* (true positives, false positives, ...),
the way results are usually reported; :func:`confusion_counts` turns arrays
of labels into those counts.  Count arguments broadcast, so one call can
score many models or thresholds.  Word-overlap scores (BLEU, ROUGE) take
lists of tokens, already split: tokenisation is the caller's choice and
changes the score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np

from . import _validate as check


def _first_index(bad: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(bad)[0])


def _where(index: tuple[int, ...]) -> str:
    return "" if not index else f" (at index {index[0] if len(index) == 1 else index})"


def _refuse_zero_denominator(denominator: Any, message: str, **shown: Any) -> None:
    """Refuse a ratio whose denominator is zero somewhere, showing the inputs there."""
    zero = np.asarray(denominator) == 0
    if not zero.any():
        return
    index = _first_index(zero) if zero.ndim else ()
    values = ", ".join(
        f"{name}={np.broadcast_to(np.asarray(value), zero.shape)[index].item()!r}" for name, value in shown.items()
    )
    raise ValueError(f"{message}; got {values}{_where(index)}")


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> float | np.ndarray:
    """Cosine of the angle between vectors: ``a . b / (|a| |b|)``, along the last axis.

    The result lies in ``[-1, 1]``: 1 for vectors pointing the same way, 0 for
    orthogonal ones, -1 for opposite ones.  Lengths do not matter, only
    directions, which is why embeddings are compared this way.  Leading axes
    broadcast (one query against a matrix of documents is one call); a
    zero-length vector has no direction and is refused.

    Examples
    --------
    >>> round(cosine_similarity(np.array([1.0, 0.0]), np.array([1.0, 1.0])), 4)  # 45 degrees
    0.7071
    >>> docs = np.array([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0]])
    >>> cosine_similarity(docs, np.array([5.0, 0.0]))
    array([ 1.,  0., -1.])
    """
    x = check.finite_array("a", a, min_ndim=1)
    y = check.finite_array("b", b, min_ndim=1)
    if x.shape[-1] != y.shape[-1] or x.shape[-1] == 0:
        raise ValueError(
            f"a and b must have the same non-zero last dimension (vector length); got shapes {x.shape} and {y.shape}"
        )
    try:
        np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    except ValueError:
        raise ValueError(f"leading axes of a and b must broadcast; got shapes {x.shape} and {y.shape}") from None
    for name, vectors in (("a", x), ("b", y)):
        zero = ~np.any(vectors != 0, axis=-1)
        if zero.any():
            raise ValueError(
                f"{name} must not contain a zero vector (it has no direction); got one{_where(_first_index(zero))}"
            )

    def cosine() -> np.ndarray:
        # Scaling each vector by its largest entry first keeps the squares inside float64.
        unit_x = x / np.abs(x).max(axis=-1, keepdims=True)
        unit_y = y / np.abs(y).max(axis=-1, keepdims=True)
        dot = np.sum(unit_x * unit_y, axis=-1)
        return np.clip(dot / (np.linalg.norm(unit_x, axis=-1) * np.linalg.norm(unit_y, axis=-1)), -1.0, 1.0)

    return check.float_result("cosine_similarity", cosine)


def bert_score(candidate: np.ndarray, reference: np.ndarray) -> tuple[float, float, float]:
    """BERTScore from token embeddings: greedy matching by cosine similarity.

    ``candidate`` is ``(n_candidate_tokens, dim)``, ``reference`` is
    ``(n_reference_tokens, dim)``.  Each candidate token is matched with its
    most similar reference token; the mean of those best similarities is the
    precision.  Each reference token's best match in the candidate gives the
    recall, and F1 is their harmonic mean (Zhang et al., 2020).  Not
    included: the optional idf weighting and baseline rescaling of the
    ``bert-score`` package, and the model that produces the embeddings.

    Returns
    -------
    precision, recall, f1 : float

    Examples
    --------
    >>> cand = np.array([[1.0, 0.0], [0.6, 0.8]])
    >>> ref = np.array([[0.8, 0.6], [0.0, 1.0], [1.0, 0.0]])
    >>> [round(score, 3) for score in bert_score(cand, ref)]
    [0.98, 0.92, 0.949]
    """
    cand = check.finite_array("candidate", candidate)
    ref = check.finite_array("reference", reference)
    for name, tokens in (("candidate", cand), ("reference", ref)):
        if tokens.ndim != 2 or 0 in tokens.shape:
            raise ValueError(
                f"{name} must be a non-empty 2-D array (tokens x embedding dimensions); got shape {tokens.shape}"
            )
    similarity = cosine_similarity(cand[:, None, :], ref[None, :, :])
    p = float(similarity.max(axis=1).mean())
    r = float(similarity.max(axis=0).mean())
    if p + r <= 0:
        # Cosines can be negative; a harmonic mean of P and R then means nothing.
        raise ValueError(f"bert_score F1 needs precision + recall > 0; got precision={p!r}, recall={r!r}")
    # As in the bert-score package: the plain formula (P or R may be slightly negative).
    return p, r, 2 * p * r / (p + r)


def accuracy(correct: int | np.ndarray, total: int | np.ndarray) -> float | np.ndarray:
    """Share of answers that are right: ``correct / total``.

    Misleading when one class dominates: always answering the majority class
    scores that class's share (see the examples).

    Examples
    --------
    >>> accuracy(90, 100)
    0.9
    >>> labels = np.array([1] * 5 + [0] * 95)
    >>> counts = confusion_counts(labels, np.zeros(100, dtype=int))  # always "no"
    >>> accuracy(counts.correct, counts.total)
    0.95
    """
    right = check.integer("correct", correct, minimum=0, maximum=check.FLOAT_EXACT_INT)
    n = check.integer("total", total, maximum=check.FLOAT_EXACT_INT)
    check.broadcastable(correct=right, total=n)
    over = np.asarray(np.greater(right, n))
    if over.any():
        index = _first_index(over) if over.ndim else ()
        c, t = (np.broadcast_to(np.asarray(v), over.shape)[index].item() for v in (right, n))
        raise ValueError(f"correct must be an integer in [0, total]; got correct={c}, total={t}{_where(index)}")
    return check.float_result("accuracy", lambda: np.divide(right, n, dtype=np.float64))


def _true_positive_share(
    what: str, other: int | np.ndarray, other_name: str, true_pos: int | np.ndarray, undefined: str
) -> float | np.ndarray:
    """``TP / (TP + other)``, for precision (other = FP) and recall (other = FN)."""
    tp = check.integer("true_pos", true_pos, minimum=0, maximum=check.FLOAT_EXACT_INT)
    rest = check.integer(other_name, other, minimum=0, maximum=check.FLOAT_EXACT_INT)
    check.broadcastable(**{"true_pos": tp, other_name: rest})
    _refuse_zero_denominator(
        np.add(tp, rest), f"{what} is undefined {undefined} (true_pos + {other_name} must be >= 1)",
        **{"true_pos": tp, other_name: rest},
    )
    return check.float_result(what, lambda: np.divide(tp, np.add(tp, rest), dtype=np.float64))


def precision(true_pos: int | np.ndarray, false_pos: int | np.ndarray) -> float | np.ndarray:
    """Share of predicted positives that are real: ``TP / (TP + FP)``.

    Undefined (refused) when nothing was predicted positive.

    Examples
    --------
    >>> precision(40, 10)
    0.8
    >>> precision(np.array([40, 5]), np.array([10, 0]))
    array([0.8, 1. ])
    """
    return _true_positive_share("precision", false_pos, "false_pos", true_pos, "without predicted positives")


def recall(true_pos: int | np.ndarray, false_neg: int | np.ndarray) -> float | np.ndarray:
    """Share of real positives that were found: ``TP / (TP + FN)``.

    Undefined (refused) when there are no real positives.

    Examples
    --------
    >>> round(recall(40, 20), 3)
    0.667
    """
    return _true_positive_share("recall", false_neg, "false_neg", true_pos, "without real positives")


def f1_score(precision: float | np.ndarray, recall: float | np.ndarray) -> float | np.ndarray:
    """Harmonic mean of precision and recall: ``2 P R / (P + R)``.

    Stays close to the smaller of the two, so a lopsided pair scores low.
    From counts it equals ``2 TP / (2 TP + FP + FN)``.  ``P = R = 0`` gives 0
    (the limit of the formula).

    Examples
    --------
    >>> round(f1_score(precision(40, 10), recall(40, 20)), 3)
    0.727
    >>> round(f1_score(1.0, 0.1), 3)  # the plain average would be 0.55
    0.182
    """
    p = check.real("precision", precision, minimum=0, maximum=1)
    r = check.real("recall", recall, minimum=0, maximum=1)
    check.broadcastable(precision=p, recall=r)
    p_arr, r_arr = np.asarray(p), np.asarray(r)
    total = p_arr + r_arr
    # np.where evaluates both branches; the safe denominator avoids a 0/0 that is then discarded.
    return check.float_result(
        "f1_score", lambda: np.where(total == 0, 0.0, 2 * p_arr * r_arr / np.where(total == 0, 1.0, total))
    )


class ConfusionCounts(NamedTuple):
    """The four cells of a binary confusion matrix."""

    true_pos: int
    false_pos: int
    false_neg: int
    true_neg: int

    @property
    def correct(self) -> int:
        return self.true_pos + self.true_neg

    @property
    def total(self) -> int:
        return self.true_pos + self.false_pos + self.false_neg + self.true_neg


def confusion_counts(actual: np.ndarray, predicted: np.ndarray, *, positive: Any = 1) -> ConfusionCounts:
    """Count true/false positives/negatives from two equal-length label arrays.

    A label equal to ``positive`` is a positive; anything else is a negative.

    Examples
    --------
    >>> confusion_counts([1, 1, 0, 0, 1], [1, 0, 0, 1, 1])
    ConfusionCounts(true_pos=2, false_pos=1, false_neg=1, true_neg=1)
    >>> confusion_counts(["spam", "ham"], ["spam", "spam"], positive="spam").correct
    1
    """
    if np.ndim(positive) != 0:
        raise TypeError(f"positive must be a single label; got an array of shape {np.shape(positive)}")
    truth = np.asarray(actual)
    guess = np.asarray(predicted)
    for name, labels in (("actual", truth), ("predicted", guess)):
        if labels.ndim != 1 or labels.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D sequence of labels; got shape {labels.shape}")
        if labels.dtype.kind == "f" and np.isnan(labels).any():
            raise ValueError(f"{name} must not contain NaN labels")
    if truth.shape != guess.shape:
        raise ValueError(f"actual and predicted must have the same length; got {truth.size} and {guess.size}")
    is_true = truth == positive
    is_pred = guess == positive
    if not isinstance(is_true, np.ndarray) or not isinstance(is_pred, np.ndarray):
        raise TypeError(f"positive must be a single label comparable with the labels; got {positive!r}")
    return ConfusionCounts(
        true_pos=int(np.sum(is_true & is_pred)),
        false_pos=int(np.sum(~is_true & is_pred)),
        false_neg=int(np.sum(is_true & ~is_pred)),
        true_neg=int(np.sum(~is_true & ~is_pred)),
    )


def _outcome_counts(wins: Any, losses: Any, ties: Any, tie_weight: Any) -> tuple[Any, Any, Any, Any]:
    w = check.integer("wins", wins, minimum=0, maximum=check.FLOAT_EXACT_INT)
    l_ = check.integer("losses", losses, minimum=0, maximum=check.FLOAT_EXACT_INT)
    t = check.integer("ties", ties, minimum=0, maximum=check.FLOAT_EXACT_INT)
    weight = check.real("tie_weight", tie_weight, minimum=0, maximum=1)
    check.broadcastable(wins=w, losses=l_, ties=t, tie_weight=weight)
    return w, l_, t, weight


def win_rate(
    wins: int | np.ndarray, losses: int | np.ndarray, ties: int | np.ndarray = 0, tie_weight: float | np.ndarray = 0.5
) -> float | np.ndarray:
    """Share of pairwise comparisons won: ``(wins + tie_weight * ties) / (wins + losses + ties)``.

    The tie rule must be stated: ``tie_weight=0.5`` counts a tie as half a
    win, ``tie_weight=0`` as a loss; to ignore ties, leave them out
    (``ties=0``), which gives ``wins / (wins + losses)``.

    Examples
    --------
    >>> win_rate(60, 30, 10), win_rate(60, 30, 10, tie_weight=0), round(win_rate(60, 30), 3)
    (0.65, 0.6, 0.667)
    """
    w, l_, t, weight = _outcome_counts(wins, losses, ties, tie_weight)
    total = np.add(np.add(w, l_), t)
    _refuse_zero_denominator(total, "win_rate needs at least one comparison (wins + losses + ties >= 1)",
                             wins=w, losses=l_, ties=t)
    return check.float_result("win_rate", lambda: (w + np.multiply(weight, t)) / np.asarray(total, dtype=np.float64))


def win_rate_standard_error(
    wins: int | np.ndarray, losses: int | np.ndarray, ties: int | np.ndarray = 0, tie_weight: float | np.ndarray = 0.5
) -> float | np.ndarray:
    """Standard error of :func:`win_rate`: ``s / sqrt(n)``.

    Each comparison scores 1 (win), 0 (loss) or ``tie_weight`` (tie); ``s``
    is the sample standard deviation of those ``n`` scores (``n - 1`` in
    the denominator) and the win rate is their mean.  Assumes independent
    comparisons; needs at least two.

    Examples
    --------
    >>> round(win_rate_standard_error(60, 30, 10), 4)
    0.0452
    >>> round(win_rate_standard_error(50, 50), 6)  # sqrt(0.25 * 100/99 / 100)
    0.050252
    """
    w, l_, t, weight = _outcome_counts(wins, losses, ties, tie_weight)
    n = np.asarray(np.add(np.add(w, l_), t), dtype=np.float64)
    short = n < 2
    if short.any():
        index = _first_index(short) if short.ndim else ()
        raise ValueError(
            "a standard error needs at least 2 comparisons (wins + losses + ties >= 2); "
            f"got {int(n[index])}{_where(index)}"
        )

    def standard_error() -> np.ndarray:
        mean = (w + np.multiply(weight, t)) / n
        squares = w * (1.0 - mean) ** 2 + l_ * mean**2 + t * (np.subtract(weight, mean)) ** 2
        return np.sqrt(squares / (n - 1.0) / n)

    return check.float_result("win_rate_standard_error", standard_error)


def win_rate_margin(
    wins: int | np.ndarray,
    losses: int | np.ndarray,
    ties: int | np.ndarray = 0,
    tie_weight: float | np.ndarray = 0.5,
    *,
    confidence: float = 0.95,
) -> float | np.ndarray:
    """Margin of error of :func:`win_rate`: ``z * standard error`` (normal approximation).

    ``z`` is the two-sided normal quantile for ``confidence`` (1.96 for
    95%).  The interval ``win_rate +- margin`` is the Wald interval: fine for
    a hundred comparisons or more and win rates away from 0 and 1, too
    narrow otherwise.

    Examples
    --------
    >>> f"±{win_rate_margin(60, 30, 10):.1%}"
    '±8.9%'
    >>> round(win_rate_margin(600, 300, 100), 4)  # ten times the votes: about a third of the margin
    0.0279
    """
    level = check.real("confidence", confidence, minimum=0, maximum=1, min_inclusive=False, max_inclusive=False)
    if not isinstance(level, float):
        raise TypeError(f"confidence must be a single number in (0, 1); got an array of shape {np.shape(level)}")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    standard_error = win_rate_standard_error(wins, losses, ties, tie_weight)
    return check.float_result("win_rate_margin", lambda: z * np.asarray(standard_error))


def _tokens(name: str, value: Any) -> list[str]:
    accepted = "a non-empty list of string tokens"
    if isinstance(value, str):
        raise TypeError(f"{name} must be {accepted}; got the string {value!r}; split it first, e.g. text.split()")
    if not isinstance(value, (Sequence, np.ndarray)):
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

    This is the clipped match count behind BLEU's unigram precision and
    ROUGE-1: a word the candidate repeats is credited at most as often as
    the reference has it, and the other way round.

    Examples
    --------
    >>> unigram_overlap("the cat sat on the mat".split(), "the cat was sitting on the mat".split())
    5
    """
    return sum((Counter(_tokens("candidate", candidate)) & Counter(_tokens("reference", reference))).values())


def bleu_unigram_precision(candidate: Sequence[str], reference: Sequence[str], *, clipped: bool = True) -> float:
    """BLEU's unigram precision: matched candidate words / candidate length.

    With ``clipped=True`` (what BLEU uses) each word is credited at most as
    often as it occurs in the reference; ``clipped=False`` credits every
    candidate word found in the reference at all, the naive count that
    clipping was introduced to fix.  One reference; full BLEU also uses
    n-grams up to 4, their geometric mean and a brevity penalty.

    Examples
    --------
    >>> cand, ref = ["the"] * 7, "the cat is on the mat".split()
    >>> bleu_unigram_precision(cand, ref, clipped=False), round(bleu_unigram_precision(cand, ref), 3)
    (1.0, 0.286)
    """
    cand = _tokens("candidate", candidate)
    ref = _tokens("reference", reference)
    if check.flag("clipped", clipped):
        matched = unigram_overlap(cand, ref)
    else:
        vocabulary = set(ref)
        matched = sum(1 for word in cand if word in vocabulary)
    return matched / len(cand)


def rouge1_recall(candidate: Sequence[str], reference: Sequence[str]) -> float:
    """ROUGE-1 recall: share of the reference's words that the candidate contains (clipped counts).

    ``unigram_overlap(candidate, reference) / len(reference)``.

    Examples
    --------
    >>> round(rouge1_recall("the cat sat on the mat".split(), "the cat was sitting on the mat".split()), 3)
    0.714
    """
    return unigram_overlap(candidate, reference) / len(_tokens("reference", reference))


def jaccard_similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """Jaccard similarity of two token lists as sets: ``|A & B| / |A | B|``.

    1 for the same set of words, 0 for no word in common; order and
    repetition are ignored.  A cheap near-duplicate test, e.g. for
    filtering generated instructions that are too close to existing ones.

    Examples
    --------
    >>> round(jaccard_similarity("write a haiku about snow".split(), "write a haiku about rain".split()), 2)
    0.67
    >>> jaccard_similarity(["a", "a", "b"], ["b", "a"])
    1.0
    """
    first = set(_tokens("a", a))
    second = set(_tokens("b", b))
    return len(first & second) / len(first | second)
