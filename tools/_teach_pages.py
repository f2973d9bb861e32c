"""One-off: rewrite the pages' examples to import the teaching helpers from llmcalc.teach."""
import re, sys, pathlib
MODULE = {"causal_mask": "attention", "rope_rotate": "attention", "scaled_dot_product_attention": "attention",
          "softmax": "attention", "cross_entropy": "loss", "bf16_round": "numerics",
          "float_limits": "numerics", "absmax_quantize": "quant", "top_k_filter": "sampling",
          "top_p_filter": "sampling", "unigram_overlap": "metrics", "bpe_encode": "tokenize", "bpe_train": "tokenize"}
ALT = "|".join(MODULE)
PROMPT = re.compile(r"^(\s*)(>>>|\.\.\.)( |$)")

def blocks(lines):
    """(start, end) of each run of consecutive doctest lines (prompt, continuation or output until blank)."""
    i = 0
    while i < len(lines):
        if re.match(r"^\s*>>> ", lines[i]):
            j = i
            while j < len(lines) and lines[j].strip() and not lines[j].strip().startswith("```"):
                j += 1
            yield i, j
            i = j
        else:
            i += 1

for path in sys.argv[1:]:
    p = pathlib.Path(path)
    lines = p.read_text().split("\n")
    out = list(lines)
    inserts = []  # (index, line)
    for start, end in blocks(lines):
        code = [l for l in lines[start:end] if PROMPT.match(l)]
        text = "\n".join(code)
        used = sorted(set(re.findall(r"\blc\.(" + ALT + r")\b", text)))
        for k in range(start, end):
            m = re.match(r"^(\s*>>> )from llmcalc import (.*)$", out[k])
            if m:
                names = [n.strip() for n in m.group(2).split(",")]
                teach = [n for n in names if n in MODULE]
                if teach:
                    core = [n for n in names if n not in MODULE]
                    mods = {}
                    for n in teach:
                        mods.setdefault(MODULE[n], []).append(n)
                    new = [f"{m.group(1)}from llmcalc import {', '.join(core)}"] if core else []
                    new += [f"{m.group(1)}from llmcalc.teach.{mod} import {', '.join(ns)}" for mod, ns in mods.items()]
                    out[k] = "\n".join(new)
        if not used:
            continue
        for k in range(start, end):
            if PROMPT.match(out[k]):
                out[k] = re.sub(r"\blc\.(" + ALT + r")\b", r"\1", out[k])
        mods = {}
        for n in used:
            mods.setdefault(MODULE[n], []).append(n)
        indent = PROMPT.match(lines[start]).group(1)
        import_lines = [f"{indent}>>> from llmcalc.teach.{mod} import {', '.join(ns)}" for mod, ns in sorted(mods.items())]
        still_lc = any(re.search(r"\blc\.", out[k]) for k in range(start, end) if PROMPT.match(out[k]))
        lc_line = next((k for k in range(start, end) if out[k].strip() == ">>> import llmcalc as lc"), None)
        if lc_line is not None and not still_lc:
            out[lc_line] = "\n".join(import_lines)
        elif lc_line is not None:
            out[lc_line] = out[lc_line] + "\n" + "\n".join(import_lines)
        else:
            out[start] = "\n".join(import_lines) + "\n" + out[start]
    new = "\n".join(out)
    if new != "\n".join(lines):
        p.write_text(new)
        print("changed", path)
