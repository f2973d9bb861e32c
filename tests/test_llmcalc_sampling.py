"""Top-k and top-p filtering, expected sets worked out by hand."""

import numpy as np
import pytest

from llmcalc.teach.attention import softmax
from llmcalc.teach.sampling import top_k_filter, top_p_filter

PROBS = np.array([0.1, 0.5, 0.15, 0.25])   # sorted: 0.5 (id 1), 0.25 (id 3), 0.15 (id 2), 0.1 (id 0)


@pytest.mark.parametrize("p, kept_ids", [
    (0.3, [1]),
    (0.5, [1]),
    (0.51, [1, 3]),
    (0.75, [1, 3]),         # reaches p exactly: no third token
    (0.76, [1, 3, 2]),
    (0.9, [1, 3, 2]),
    (0.95, [1, 3, 2, 0]),
    (1.0, [1, 3, 2, 0]),
])
def test_top_p_keeps_smallest_set_reaching_p(p, kept_ids):
    result = top_p_filter(PROBS, p)
    expected = np.zeros(4)
    expected[kept_ids] = PROBS[kept_ids] / PROBS[kept_ids].sum()
    np.testing.assert_allclose(result, expected)


@pytest.mark.parametrize("k, kept_ids", [(1, [1]), (2, [1, 3]), (3, [1, 3, 2]), (4, [0, 1, 2, 3])])
def test_top_k(k, kept_ids):
    expected = np.zeros(4)
    expected[kept_ids] = PROBS[kept_ids] / PROBS[kept_ids].sum()
    np.testing.assert_allclose(top_k_filter(PROBS, k), expected)


def test_ties_go_to_lower_token_id():
    np.testing.assert_allclose(top_k_filter(np.array([0.25, 0.25, 0.25, 0.25]), 2), [0.5, 0.5, 0, 0])


def test_filters_work_per_row():
    probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7]])
    np.testing.assert_allclose(top_p_filter(probs, 0.8), [[0.7 / 0.9, 0.2 / 0.9, 0], [0, 0.2 / 0.9, 0.7 / 0.9]])


def test_zero_probability_tokens_are_never_kept():
    np.testing.assert_allclose(top_p_filter(np.array([0.6, 0.4, 0.0]), 1.0), [0.6, 0.4, 0.0])


def test_temperature_then_top_p():
    # Low temperature concentrates mass, so top-p keeps fewer tokens.
    logits = np.array([2.0, 1.5, 1.0, 0.5])
    warm = top_p_filter(softmax(logits, temperature=1.5), 0.9)
    cold = top_p_filter(softmax(logits, temperature=0.3), 0.9)
    assert (warm > 0).sum() == 4 and (cold > 0).sum() == 2
