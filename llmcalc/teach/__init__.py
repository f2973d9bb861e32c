"""The teaching helpers: the small math the glossary's pages demonstrate, one module a topic.

Not part of the sizing core (``import llmcalc`` does not load them).  The array helpers need
numpy, the ``teach`` extra (``pip install "llmcalc[teach]"``); :mod:`~llmcalc.teach.tokenize`
and :mod:`~llmcalc.teach.metrics` need nothing.  Import the module a page uses::

    from llmcalc.teach.attention import softmax

* :mod:`~llmcalc.teach.attention`: softmax, the causal mask, scaled dot-product attention, RoPE;
* :mod:`~llmcalc.teach.loss`: cross-entropy;
* :mod:`~llmcalc.teach.sampling`: top-k and top-p filtering;
* :mod:`~llmcalc.teach.numerics`: floating-point limits and bfloat16 rounding;
* :mod:`~llmcalc.teach.quant`: absmax quantization;
* :mod:`~llmcalc.teach.tokenize`: a byte-pair-encoding trainer and encoder;
* :mod:`~llmcalc.teach.metrics`: the clipped word overlap behind BLEU and ROUGE-1.
"""

__all__ = ["attention", "loss", "metrics", "numerics", "quant", "sampling", "tokenize"]
