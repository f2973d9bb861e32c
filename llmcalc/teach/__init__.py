"""The teaching helpers: the small math the glossary's pages demonstrate, one module a topic.

Not part of the sizing core (``import llmcalc`` does not load them).  The array helpers need
numpy, the ``teach`` extra (``pip install "llm-glossary-calc[teach]"``); ``tokenize``
and ``metrics`` need nothing.  Import the module a page uses::

    from llmcalc.teach.attention import softmax

* ``attention``: softmax, the causal mask, scaled dot-product attention, RoPE;
* ``loss``: cross-entropy;
* ``sampling``: top-k and top-p filtering;
* ``numerics``: floating-point limits and bfloat16 rounding;
* ``quant``: absmax quantization;
* ``tokenize``: a byte-pair-encoding trainer and encoder;
* ``metrics``: the clipped word overlap behind BLEU and ROUGE-1.
"""

__all__ = ["attention", "loss", "metrics", "numerics", "quant", "sampling", "tokenize"]
