"""Speed-up of one vectorized llmcalc call over a Python loop, on a 1,000,000-point sweep.

The sweep is the one the calculator pages draw: LoRA trainable parameters
for 1,000 ranks x 1,000 model widths, and the KV cache of the reference
model for 1,000 context lengths x 1,000 batch sizes.  The loop calls the
same public functions with Python ints, one point at a time, so both paths
do the same validation and give identical integers (checked below).  A third
column times the bare formula in a Python loop (no validation at all), the
fastest a loop could possibly be, so the ratio is not flattered by overhead.

Run:  python benchmarks/bench_llmcalc_sweep.py
Prints the timings and speed-up ratios; the goal is >= 50x.  No assertion on
timing is made anywhere (machines differ), only on the results being equal.
"""

from __future__ import annotations

import time

import numpy as np

import llmcalc as lc

SIDE = 1000  # SIDE x SIDE = 1,000,000 points per sweep


def best_of(repeats: int, func):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def timed_and_checked(name: str, vectorized, loop, bare) -> tuple[float, float, float]:
    """Best times of the three ways, after checking that they compute the same numbers."""
    vec_time, vec_result = best_of(5, vectorized)
    loop_time, loop_result = best_of(1, loop)
    bare_time, bare_result = best_of(1, bare)
    if not vec_result.tolist() == loop_result == bare_result:
        raise SystemExit(f"vectorized and looped {name} results differ")
    return vec_time, loop_time, bare_time


def lora_sweep() -> tuple[float, float, float]:
    ranks = np.arange(1, SIDE + 1)
    widths = np.arange(1024, 1024 + SIDE)

    def vectorized():
        return lc.lora_params(widths[:, None], widths[:, None], ranks[None, :])

    def loop():
        return [[lc.lora_params(int(w), int(w), int(r)) for r in ranks] for w in widths]

    def bare():
        return [[int(r) * (int(w) + int(w)) for r in ranks] for w in widths]

    return timed_and_checked("LoRA", vectorized, loop, bare)


def kv_sweep() -> tuple[float, float, float]:
    contexts = np.arange(1, SIDE + 1) * 128
    batches = np.arange(1, SIDE + 1)
    cfg = lc.REFERENCE

    def vectorized():
        return lc.kv_cache_bytes(cfg, contexts[:, None], batch=batches[None, :])

    def loop():
        return [[lc.kv_cache_bytes(cfg, int(t), batch=int(b)) for b in batches] for t in contexts]

    per_token = 2 * cfg.n_layers * cfg.n_kv_heads * cfg.head_dim * 2  # bf16

    def bare():
        return [[per_token * int(t) * int(b) for b in batches] for t in contexts]

    return timed_and_checked("KV-cache", vectorized, loop, bare)


def main() -> None:
    print(f"{'sweep (1,000,000 points)':26s} {'vectorized':>11s} {'llmcalc loop':>13s} {'speed-up':>9s}"
          f" {'bare loop':>10s} {'speed-up':>9s}")
    for name, sweep in (("LoRA rank x width", lora_sweep), ("KV cache context x batch", kv_sweep)):
        vec_time, loop_time, bare_time = sweep()
        print(f"{name:26s} {vec_time * 1e3:8.1f} ms {loop_time:11.2f} s {loop_time / vec_time:8.0f}x"
              f" {bare_time:8.2f} s {bare_time / vec_time:8.0f}x")


if __name__ == "__main__":
    main()
