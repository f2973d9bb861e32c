"""The planner's formulas take an llmcalc int as the browser holds it, a BigInt, wherever they take a count.

modelconfig.js keeps an integer as a BigInt (exact at any size, as Python's int), and the planner's own range check
(planner.js checkCount) accepts a whole Number or a BigInt; the answer must not depend on which.  The oracle is
llmcalc.engines.plan_vllm.  The JavaScript type check (tests/jscheck, `make lint`) found where planVllm divided a
Number by the count it had checked: a BigInt ``max_model_len`` threw "Cannot mix BigInt and other types".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_accessibility import site_page

import llmcalc as lc
from browser import browser_pages
from llmcalc.engines import plan_vllm

pytestmark = [pytest.mark.site, pytest.mark.browser]

PAGE = "19-will-it-fit.html"
GIB = 2**30
# Dense models without a sliding window: vLLM's pool is one group, and max_concurrency is tokens / max_model_len.
MODELS = {
    "llama-2-7b shape": {"vocab_size": 32000, "d_model": 4096, "n_layers": 32, "n_heads": 32, "d_ff": 11008},
    "grouped-query": {"vocab_size": 128256, "d_model": 4096, "n_layers": 32, "n_heads": 32, "n_kv_heads": 8,
                      "d_ff": 14336},
}
BATCHED, UTILIZATION, NON_TORCH, SEQS = 2048, 0.9, 375809638, 256
OPTIONS = {"maxNumBatchedTokens": BATCHED, "weightFormat": "bf16", "kvFormat": "bf16", "utilization": UTILIZATION,
           "cudaGraphBytes": 0, "tensorParallel": 1, "nonTorchBytes": NON_TORCH, "maxNumSeqs": SEQS}

PLAN_WITH_BIGINT_CONTEXT = """
([fields, gpu, options, context]) => {
  const cfg = window.LLMModelConfig.modelConfig(fields);
  const plan = window.LLMPlanner.planVllm(cfg, BigInt(gpu), {...options, context: BigInt(context)});
  return {kv_tokens: String(plan.kv_tokens), max_concurrency: plan.max_concurrency, starts: plan.starts};
}
"""


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    with browser_pages() as new_page:
        opened, log = new_page()
        opened.goto(site_page("en", PAGE).as_uri())
        yield opened
        assert log.errors == [] and log.requests == []


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("context", [4096, 32768])
def test_vllm_plan_takes_max_model_len_as_a_bigint(page: Any, model: str, context: int) -> None:
    fields = MODELS[model]
    gpu = 80 * GIB
    expected = plan_vllm(lc.ModelConfig(**fields), gpu, max_model_len=context, max_num_batched_tokens=BATCHED,
                         gpu_memory_utilization=UTILIZATION, non_torch_bytes=NON_TORCH, max_num_seqs=SEQS)
    got = page.evaluate(PLAN_WITH_BIGINT_CONTEXT, [fields, str(gpu), OPTIONS, context])
    assert got == {"kv_tokens": str(expected.kv_tokens), "max_concurrency": expected.max_concurrency,
                   "starts": expected.starts}
