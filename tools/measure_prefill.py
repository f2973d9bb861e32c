"""Measure the peak working memory of transformers' ``generate`` prefill, for llmcalc's generate mode.

NOT run by the tests; torch and transformers are NOT llmcalc dependencies.  It
writes ``tests/data/engines/generate_prefill.json``, which
``tests/test_engines.py`` compares ``llmcalc.engines.generate_prefill_bytes``
against.  Run it in a throwaway virtual environment with torch and
transformers (the recording names their versions)::

    python tools/measure_prefill.py --write

What is measured.  The models of ``tools/measure_activations.py`` (built from
configurations written there, random weights, no hub download), in bf16, in
eval mode, each with ``attn_implementation`` ``"eager"`` and ``"sdpa"``.  For
each (batch, prompt length) point, ``model.generate(input_ids,
attention_mask=ones, max_new_tokens=1, do_sample=False)`` runs under torch's
``MemTracker`` (``torch.distributed._tools.mem_tracker``, which follows every
storage allocated and freed, on CPU too).  Recorded: the peak of every byte
that is not a parameter or buffer (activations, temporaries, the KV cache
being filled, the logits generate keeps), and what is still live after
generate returns.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import platform
import sys
from typing import Any

import torch
import transformers

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from measure_activations import ARCHITECTURES, build

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "engines" / "generate_prefill.json"
POINTS = ((1, 256), (1, 1024), (2, 512))


def measure(model: torch.nn.Module, batch: int, prompt: int) -> dict[str, int]:
    from torch.distributed._tools.mem_tracker import MemTracker

    generator = torch.Generator().manual_seed(batch * 100003 + prompt)
    input_ids = torch.randint(0, model.config.vocab_size, (batch, prompt), generator=generator)
    mask = torch.ones_like(input_ids)
    tracker = MemTracker()
    tracker.track_external(model)
    with torch.no_grad(), tracker:
        model.generate(input_ids, attention_mask=mask, max_new_tokens=1, do_sample=False, pad_token_id=0)
        peak = tracker.get_tracker_snapshot("peak")[torch.device("cpu")]
    by_name = {str(getattr(key, "value", key)): value for key, value in peak.items()}
    working = sum(v for k, v in by_name.items() if k not in ("Parameter", "Buffer", "Total"))
    return {"peak_working_bytes": working, **{f"peak_{k.lower()}": v for k, v in by_name.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--arch", action="append", choices=sorted(ARCHITECTURES))
    args = parser.parse_args()
    records: list[dict[str, Any]] = []
    for arch in args.arch or ARCHITECTURES:
        for attention in ("eager", "sdpa"):
            model = build(arch, attention).eval()
            for batch, prompt in POINTS:
                result = measure(model, batch, prompt)
                records.append({"arch": arch, "attention": attention, "batch": batch, "prompt": prompt, **result})
                print(arch, attention, batch, prompt, result, flush=True)
    if args.write:
        document = {
            "provenance": {
                "script": "tools/measure_prefill.py", "command": " ".join(["python", *sys.argv]),
                "date": datetime.date.today().isoformat(), "python": platform.python_version(),
                "torch": torch.__version__, "transformers": transformers.__version__, "device": "cpu",
                "dtype": "bf16 (whole model)", "mode": "eval, torch.no_grad, generate(max_new_tokens=1, greedy)",
                "counted": "MemTracker peak of every storage that is not a parameter or buffer",
            },
            "architectures": {name: {"model_type": ARCHITECTURES[name][0], "config": ARCHITECTURES[name][1],
                                     "what": ARCHITECTURES[name][2]} for name in args.arch or ARCHITECTURES},
            "records": records,
        }
        OUTPUT.write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main()
