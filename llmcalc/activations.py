"""Activation memory of a training step: the tensors a forward pass keeps for backward.

The model behind the memory planner.  ``tests/test_llmcalc_activations.py`` checks
it against the recordings in ``tests/data/activations/`` (made by
``tools/measure_activations.py`` with transformers on CPU).

Weights, gradients, optimizer state and the KV cache are exact by
construction (``llmcalc.memory``).  Activations are not: which tensors an
operation keeps for its backward pass depends on the implementation, so this
module is a *model*, written tensor by tensor after Hugging Face
``transformers``' decoder blocks and checked against measurements of them.

Source.  Korthikanti et al. (2022), "Reducing Activation Recomputation in
Large Transformer Models" (arXiv:2205.05198), Section 4.1, count a GPT block's
activations as ``s*b*h*(34 + 5*a*s/h)`` bytes in 16-bit (their eq. 1, no
parallelism): 2 bytes for each input of a linear layer or LayerNorm, the GELU
input, 1-byte dropout masks, and the ``a*s*s`` attention scores, softmax output
and dropout mask (their ``5*a*s/h`` term).  What changes for the blocks here:

* no dropout (probability 0, as LLM fine-tuning usually runs): no masks,
  and the softmax output is the only score-sized tensor, so ``34`` becomes
  ``32`` and ``5*a*s/h`` becomes ``2*a*s/h``;
* transformers' ``gelu_new`` (GPT-2) is written out in elementwise steps,
  five of which keep a ``d_ff``-wide tensor where Korthikanti count two
  (the GELU input and the next linear's input): ``+24``, so GPT-2's block
  keeps ``s*b*h*(56 + 2*a*s/h)`` bytes, plus the norm statistics;
* RMSNorm as transformers writes it upcasts its input to fp32, and keeps that
  fp32 copy, the per-token ``rsqrt`` and the normalized tensor in the model
  dtype: ``(4 + e)`` bytes per value instead of ``e`` (``e`` = bytes of
  ``dtype``);
* a SwiGLU FFN keeps the gate and up projections, the SiLU output and their
  product: four ``d_ff``-wide tensors;
* eager attention in the Llama family computes the softmax in fp32 and keeps
  both the fp32 probabilities and their copy in the model dtype, and repeats
  grouped KV heads before the matmuls, so keys and values are kept at
  ``n_heads`` width;
* SDPA keeps no score matrix: torch's CPU flash kernel keeps queries, keys
  and values (grouped KV heads unrepeated), the output and one fp32
  log-sum-exp per head and query, as the flash and memory-efficient kernels
  do on GPU (not measured here; SDPA's math fallback would keep the scores);
* the loss: the LM head's input, and the fp32 log-probabilities
  (``4 * batch * seq_len * vocab_size`` bytes) that cross-entropy keeps after
  transformers upcasts the logits to fp32.

Checkpointing (``use_reentrant=False``): each block keeps only its input
hidden state (``e * batch * seq_len * d_model`` bytes) and the arguments shared
by all blocks (rotary tables, and with eager attention the additive causal
mask, one ``seq_len**2`` matrix per sequence); everything outside the blocks
is kept as without checkpointing.  During backward one block at a time is
recomputed, so the peak adds one block's full activations:
:attr:`ActivationMemory.recompute`, included in :attr:`ActivationMemory.peak`
but not in :attr:`ActivationMemory.saved`.

The loss at the peak.  The logits themselves are not saved, but transformers
returns them (``e * T * V`` bytes for ``T`` tokens and ``V`` vocabulary
entries), and backward through the fp32 cross-entropy holds two fp32
``T x V`` gradients at once (``8 * T * V``) while the fp32 log-probabilities
are still saved (``4 * T * V``): at realistic vocabularies and with
checkpointing this, not the blocks, sets the peak
(:attr:`ActivationMemory.peak`, measured with torch's ``MemTracker``).

LoRA (peft 0.21, ``lora_targets=...``).  A frozen weight needs no input to
compute its gradient, so the frozen base keeps no linear-module inputs (the
``2*e*T*d`` norm outputs, the down projection's input, the LM head's input),
RMSNorm no normalized values, and the frozen embeddings no token ids; norms,
SiLU and its product, the GELU steps and SDPA keep what they keep under full
fine-tuning.  peft upcasts the adapters to fp32 on a 16-bit base, and each
adapted module casts its input to fp32 itself, so each keeps ``4*T*(d_in+r)``
bytes: its fp32 input (a copy per module, even where modules share an input)
and ``lora_A``'s ``r``-wide output.  Under bf16 autocast (the Hugging Face
Trainer's ``bf16=True``, through accelerate) ``lora_A`` keeps the bf16 cast of
that input and a bf16 output instead, half these bytes (not measured).
``lora_dropout > 0`` makes ``lora_A`` keep the dropped-out copy instead and
the dropout its scaled mask, which on CPU is a tensor of the input's dtype
(``4 * T * d_in`` more; CUDA's fused dropout keeps a 1-byte mask, not
measured).  Without checkpointing the first block's
input, from the frozen embedding, needs no gradient: its first norm and the
masks of the adapters reading it are not kept
(:attr:`ActivationMemory.first_block_discount`); with checkpointing
transformers makes the embedding's output require a gradient
(``enable_input_require_grads``), every block keeps its input as under full
fine-tuning, and the recomputed block is the LoRA block.  So ``"all-linear"``
keeps *more* than full fine-tuning: an fp32 input copy for each of seven
modules, where full fine-tuning keeps 16-bit inputs that modules share.  QLoRA
(a bitsandbytes 4-bit base, ``MatMul4Bit`` keeps its weight, not its input)
measured byte for byte the same as LoRA, so it needs no switch here, unless
the base went through peft's ``prepare_model_for_kbit_training``
(``qlora_preparation="kbit"``, peft's own set-up and this function's; TRL
1.16's ``SFTTrainer`` does not call it): it upcasts the embedding, the norms and the head to fp32, so the
embedding's output and with it the whole residual stream are fp32, and
bitsandbytes' ``Linear4bit`` casts each output back to its input's dtype:
every activation is counted in fp32 (``e = 4``), the rotary tables and the
logits too, and an adapter's fp32 cast of its input is the input itself, kept
once however many adapters read it (with dropout each keeps its dropped-out
copy and mask as before).  Measured on the small Llama-style model with peft's
default targets: 13 % more than the unprepared base, where the fp32
log-probabilities, the same either way, are most of the bytes; in a 7B model
the blocks are most of them, and they nearly double.

The dense families (issue 25), each read from its transformers 5.24 modelling
file (``transformers/models/<model_type>/modeling_<model_type>.py``) and
measured; what each adds to the Llama block above:

* Mistral, Phi-3, StarCoder2, Gemma 2 and 3 (``sliding_window``): eager
  attention keeps the same tensors with or without a window.  SDPA takes
  ``is_causal`` and no mask while ``seq_len < sliding_window``
  (``masking_utils._ignore_causal_mask_sdpa``); from the window on, each
  windowed layer passes an explicit mask, which torch's CPU kernel keeps
  (``e * batch * seq_len**2``), and ``sdpa_attention_forward`` repeats grouped
  KV heads to ``n_heads`` before the call when a mask is given
  (:attr:`ActivationMemory.windowed_extra`); checkpointed blocks share one
  boolean ``seq_len**2`` mask expanded over the batch.
* One KV head (Gemma 3 1B, Falcon-7B): ``repeat_kv`` is an expanded view, no
  copy; eager attention's batched matmuls copy it only for more than one
  sequence.
* Gemma, Gemma 2 and 3: ``Gemma*RMSNorm`` scales in fp32 (``x * (1 + w)``)
  and keeps the fp32 normalized values and ``1 + w``; GeGLU (tanh GELU, which
  keeps its input) keeps what SwiGLU keeps.  Gemma 2 and 3 norm before and
  after attention and FFN (four norms).  Gemma 2 soft-caps scores and logits
  with ``tanh``, which keeps its output (one score matrix per layer, one
  ``e * T * V`` tensor for the logits), and transformers 5.24 refuses SDPA for
  it (``attn_implementation="eager"`` only; ``flash_attention_2`` on a GPU
  was not measured).  Gemma 3 keeps two rotary tables (local and global).
* QK-norm: an RMSNorm over each head's queries and keys (Qwen3, Gemma 3:
  ``n_heads`` and ``n_kv_heads`` statistics per token) or over the whole
  projections (OLMo 2: one each); OLMo 2's RMSNorm scales in fp32 like
  Gemma's, and its norms follow attention and FFN instead of preceding them
  (still two per block).  OLMo and OLMo 2 keep fp32 rotary tables.
* OLMo's parameter-free LayerNorm runs on an fp32 copy of its input and keeps
  it with its statistics.
* Parallel blocks: attention and FFN read one norm's output (Phi-2, Falcon-7B:
  one kept input, one norm) or two LayerNorms of the same input, kept once
  (GPT-NeoX).  A two-matrix MLP keeps the up projection's output and the
  activation's output with a fused GELU (GPT-NeoX, Falcon, StarCoder2), five
  tensors with ``gelu_new`` written out (GPT-2, Phi-2).
* Partial rotary embeddings (Phi-2, GPT-NeoX; Phi-3 runs the same code with
  all of each head) rotate part of each head and ``torch.cat`` the parts: the
  queries, and so SDPA's output, are head-major, and the output projection
  reads a copy of that output (Llama's rotary keeps the projection's
  token-major layout, and the copy is a view).  Their cos and sin tables
  cover the rotary part only, which the model counts at ``head_dim``
  (``ModelConfig`` does not carry the fraction; under 0.1 % of the
  recordings).
* Fused Q/K/V (GPT-NeoX, Phi-3, multi-head Falcon): V is a slice of the fused
  output, and attention keeps that whole output through it (eager attention:
  for one sequence, where its matmul needs no copy).  Multi-query Falcon picks
  K and V out by index lists, which copies.  Falcon's own attention takes the
  softmax in the model dtype and keeps the probabilities once; with SDPA it
  passes one key head against every query head without ``enable_gqa``, which
  the fused kernels refuse, and torch's math fallback runs (on CPU in fp32:
  fp32 queries, keys, values and softmax output, the score matrix included),
  with a boolean causal mask that checkpointed blocks keep.
* LoRA with eager attention (Gemma 2): the frozen output projection keeps no
  input.  In the first block without checkpointing, a Q, K or V path without
  an adapter needs no gradient: its QK-norm keeps nothing, and eager attention
  drops the operands only that path's gradient needs.

Mixtures of experts and multi-head latent attention (transformers 5.24's
``modeling_mixtral``, ``modeling_qwen2_moe``, ``modeling_qwen3_moe``,
``modeling_olmoe``, ``modeling_deepseek_v2`` and ``modeling_deepseek_v3``; peft
0.21.2; recordings in ``tests/data/activations/moe.json`` and ``moe-lora.json``,
made by ``tools/measure_activations.py --moe``).  Modelled for these six
``model_type`` values only; another MoE or MLA model is refused.

* Experts: transformers 5's default ``grouped_mm`` experts sort the
  ``T * k`` token-expert pairs (``k`` = experts per token) by expert and run
  all experts as one grouped product, so every tensor they keep has one row per
  pair: the gathered inputs and the down projection's output (``d_model``
  wide), the fused gate/up output (``2 f``), the SiLU output and the product
  (``f`` each, ``f`` = an expert's width), three int64 permutations, and one
  int32 offset per expert.  ``T * k`` does not depend on how the router spreads
  the tokens, so the count is exact for any routing, balanced or not.
* Router: its fp32 scores (softmax; DeepSeek-V3 a sigmoid), int64 top-k
  indices, the top-k weights sorted by expert (fp32 for Mixtral and DeepSeek,
  the model dtype for Qwen-MoE and OLMoE) and, where they are renormalized
  (Mixtral, and ``norm_topk_prob`` at the published Qwen3-MoE and DeepSeek-V3
  values), the weights before the division and their sum.  DeepSeek's router
  reads an fp32 copy of its input; DeepSeek-V3 also keeps its group choice
  (``n_group=8``, ``topk_group=4``, the published values).  The router logits
  themselves are not kept (the auxiliary loss is off: ``output_router_logits``
  false, the published configs' value).
* Shared experts (Qwen-MoE, DeepSeek) keep what a SwiGLU FFN keeps;
  Qwen-MoE's sigmoid gate keeps its output and the shared expert's output.
  DeepSeek's leading dense layers (``first_k_dense_replace``) keep a dense FFN
  (:attr:`ActivationMemory.dense_layers_extra`).
* QK-norm of these families (Qwen3-MoE per head, OLMoE over the whole
  projections) is the dense families' QK-norm above, with Llama's RMSNorm:
  fp32 input, normalized values, an fp32 ``rsqrt`` per head (per token).
* MLA: the KV latent (``kv_lora_rank``) and, with ``q_lora_rank``, the query
  latent each pass an RMSNorm and a projection whose input is kept; keys
  (``head_dim``) and values (``v_head_dim``) are rebuilt for every head.  torch's
  CPU SDPA has no fused kernel for values narrower than the keys and falls back
  to its math kernel in fp32, which keeps fp32 queries, keys, values and the
  ``batch * n_heads * seq_len**2`` fp32 softmax: that is what ``"sdpa"`` counts
  here.  On CUDA the memory-efficient kernel accepts the unequal widths and
  keeps no score matrix (not measured), so for MLA this is an upper bound there.
* LoRA: frozen experts keep their gate/up, SiLU and down outputs but not the
  gathered inputs or the product.  Where peft converts the expert and router
  names (Mixtral, Qwen3-MoE, OLMoE, DeepSeek; ``"all-linear"`` included) it
  adapts the stacked weights through a parametrization, and each layer keeps
  the merged weight ``W + B A`` for backward, a tensor the size of the layer's
  expert weights whatever the number of tokens, plus model-dtype copies of the
  factors; peft refuses ``lora_dropout`` there.  QLoRA measured the same as LoRA
  (bitsandbytes leaves the stacked experts in bf16).  A kbit-prepared base
  (``qlora_preparation="kbit"``) upcasts those experts to fp32 with the rest,
  and is counted as the dense kbit base above, every activation in fp32;
  MLA's math kernel then makes no fp32 copies, so for one sequence its values
  stay a view of ``kv_b_proj``'s whole output, and the KV latent's norm keeps
  a slice of ``kv_a_proj_with_mqa``'s output with the keys' rotary part
  (measured with peft's query and value targets, byte for byte but for
  DeepSeek-V3's group choice).  With adapters on the stacked experts or the
  router it is refused (not measured).

The recordings hold every tensor saved during the forward pass: DeepSeek-V3's
group choice is saved and then freed with a branch no gradient reaches, which
the model counts (a few bytes per token) and the recording counts or not as the
allocator reuses its addresses (up to 0.07 %).

What was measured (``tools/measure_activations.py``, recordings in
``tests/data/activations/``): Llama-, GPT-2- and Qwen2-style blocks and the
twelve dense families above as 2-layer models with their families' ratios, in
bf16 on CPU, eager and SDPA (Gemma 2: eager), three (batch, seq_len) points
each, with and without checkpointing; and the step's peak for the Llama-style
model.  LoRA and QLoRA (``lora.json``): rank 16 on peft's default targets (q
and v; the fused ``c_attn``, ``query_key_value`` or ``qkv_proj``) and on
``"all-linear"``, ``lora_dropout`` 0 and 0.05; the kbit-prepared QLoRA base
of every family with peft's default targets (the Llama-style model also with
``"all-linear"`` and dropout).  Refused because not measured: LoRA without an
adapted query, key or value projection, on the LM head, with eager attention
(but Gemma 2) or in a dtype other than bf16; mixtures of experts and latent
attention outside the six families above; QLoRA on a kbit-prepared base with
peft's adapters on the stacked experts or the router.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from . import _validate as check
from . import lora
from .config import ModelConfig, checks_model
from .errors import refusal
from .params import Linear

__all__ = [
    "EAGER_ONLY",
    "FP32_ROUTER_INPUT",
    "FP32_ROUTING_WEIGHTS",
    "MOE_FAMILIES",
    "RENORMALIZED_ROUTING",
    "V3_GROUPS",
    "V3_KEPT_GROUPS",
    "ActivationMemory",
    "activation_memory",
    "planner_attention",
]

Attention = Literal["sdpa", "eager"]

# Bytes per element of the dtype the model computes in (weights and activations).
_ELEMENT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
_ATTENTIONS = ("sdpa", "eager")
# How a QLoRA base is prepared (llmcalc.planner.QLORA_PREPARATIONS): "kbit" = peft's prepare_model_for_kbit_training,
# "norms" = the QLoRA script's (its fp32 norms make the hidden states fp32 as well).
_QLORA_PREPARATIONS = ("kbit", "none", "norms")
_ADAPTER_DTYPES = ("fp32", "bf16")
_FP32 = 4
_INT64 = 8
# Roles of the linear modules that read a block's input (through its first norm).
_BLOCK_INPUT_ROLES = ("q", "k", "v", "qkv")
# Roles of the FFN's first linear modules (which read the block's input in a parallel block).
_FFN_INPUT_ROLES = ("up", "gate", "gate_up")


@dataclass(frozen=True)
class ActivationMemory:
    """Activation bytes of one training step, by where they are kept (see :func:`activation_memory`).

    Attributes
    ----------
    per_layer : int
        Bytes each transformer block keeps for backward (under checkpointing,
        its input hidden state only).
    n_layers : int
        Number of blocks.
    shared : int
        Kept once for all blocks: token ids, rotary tables, position ids
        (under checkpointing, and by GPT-2's trained position embedding)
        and, under checkpointing, the masks the blocks share: eager
        attention's additive masks (one per kind of layer, causal and
        windowed), SDPA's boolean mask from the window on (Falcon: always).
    head : int
        The final norm's and the LM head's inputs (a frozen head keeps no
        input, its norm no normalized values), and Gemma 2's soft-capped
        logits (``tanh`` keeps its output).
    loss : int
        The fp32 log-probabilities cross-entropy keeps, ``4 * tokens * vocab_size``,
        and its fp32 count of targets (4 bytes).
    recompute : int
        One block's full activations, rebuilt during backward under
        checkpointing (0 without checkpointing).
    logits : int
        The logits in the model dtype, ``e * tokens * vocab_size``: not saved
        for backward, but returned with the loss and alive as long as the
        caller keeps the output (``out = model(...); out.loss.backward()``
        keeps them through backward).
    loss_backward : int
        ``8 * tokens * vocab_size``: the fp32 gradients of the log-probabilities
        and of the upcast logits, both alive while backward passes the loss.
    first_block_discount : int
        Under LoRA without checkpointing, the bytes the first block keeps less
        than ``per_layer``: its input comes from the frozen embedding and needs
        no gradient, so its first norm keeps nothing, the dropouts of the
        adapters reading that norm keep no mask, and what only the gradient
        of a path without an adapter would need is not kept either (QK-norms,
        eager attention's operands, a parallel block's FFN, latent attention's
        norms) (0 otherwise).
    dense_layers_extra : int
        In an MoE model with dense leading layers (DeepSeek's
        ``first_k_dense_replace``), what those layers keep beyond ``per_layer``
        (an MoE layer's bytes) in all; negative when they keep less (0 otherwise,
        and under checkpointing).
    windowed_extra : int
        With SDPA, what the sliding-window layers keep beyond ``per_layer``
        once ``seq_len`` reaches the window (shorter sequences need no mask):
        transformers passes them an explicit mask, which the kernel keeps
        (one ``batch * seq_len**2`` matrix in the model dtype per layer), and
        with a mask it repeats grouped key and value heads to ``n_heads``
        before the call (a causal layer passes ``is_causal`` and neither).
    """

    per_layer: int
    n_layers: int
    shared: int
    head: int
    loss: int
    recompute: int
    logits: int
    loss_backward: int
    first_block_discount: int = 0
    dense_layers_extra: int = 0
    windowed_extra: int = 0

    @property
    def saved(self) -> int:
        """Bytes kept for backward at the end of the forward pass (what was measured)."""
        blocks = (self.per_layer * self.n_layers - self.first_block_discount + self.dense_layers_extra
                  + self.windowed_extra)
        return blocks + self.shared + self.head + self.loss

    @property
    def peak(self) -> int:
        """The step's largest activation memory, ``saved + logits + max(loss_backward, recompute)``.

        The loss's gradients and a recomputed block exist at different moments
        of backward, hence the larger of the two.  Measured to within 0.01 %
        for the Llama-style model, where the loss is the larger; the recompute
        branch is derived, and an upper bound, since the loss's tensors are
        freed by then.  Weight gradients are not activations: GPT-2 on CPU
        peaks later, computing its tied embedding's gradient.
        """
        return self.saved + self.logits + max(self.loss_backward, self.recompute)


# --- Mixtures of experts and multi-head latent attention (the module docstring's section of that name) ---

MOE_FAMILIES = ("mixtral", "qwen2_moe", "qwen3_moe", "olmoe", "deepseek_v2", "deepseek_v3")
"""The ``model_type`` values whose mixture-of-experts and latent-attention blocks were measured and modelled."""

# Router settings transformers 5.24 reads from config keys llmcalc does not keep, at the published checkpoints'
# values (norm_topk_prob, the routing weights' dtype, DeepSeek's fp32 router, DeepSeek-V3's n_group/topk_group).
RENORMALIZED_ROUTING = frozenset({"mixtral", "qwen3_moe", "deepseek_v3"})
"""Families whose top-k routing weights are renormalized to sum to one (Mixtral always; ``norm_topk_prob``)."""

FP32_ROUTING_WEIGHTS = frozenset({"mixtral", "deepseek_v2", "deepseek_v3"})
"""Families that keep the routing weights in fp32 rather than casting them to the model's dtype."""

FP32_ROUTER_INPUT = frozenset({"deepseek_v2", "deepseek_v3"})
"""Families whose router runs on an fp32 copy of its input against an fp32 weight."""

V3_GROUPS = 8
"""The groups DeepSeek-V3's sigmoid router scores the experts in (its ``n_group``)."""

V3_KEPT_GROUPS = 4
"""The groups DeepSeek-V3 keeps before it chooses the top-k experts within them (its ``topk_group``)."""
_BOOL = 1
_INT32 = 4


def _check_moe_modelled(cfg: ModelConfig) -> bool:
    """True for an MoE or latent-attention model of a measured family; refuse other MoE and MLA models."""
    if not (cfg.is_moe or cfg.uses_latent_attention):
        return False
    if cfg.model_type not in MOE_FAMILIES:
        feature = "latent attention" if cfg.uses_latent_attention else "mixture-of-experts routing"
        raise refusal("activations_unmeasured_feature", feature=f"{feature} outside the measured families",
                      name="model_type", measured=MOE_FAMILIES, value=cfg.model_type)
    return True


def _router_bytes(cfg: ModelConfig, tokens: int, element: int, frozen: bool) -> int:
    """Bytes one MoE layer's router keeps: scores, top-k choice and the routing weights the experts multiply by.

    The scores (softmax, DeepSeek-V3's sigmoid) are fp32; top-k keeps int64 indices; a renormalization keeps the
    chosen weights before it (fp32) and their sum; the weights sorted by expert are kept for the product with each
    expert's output.  DeepSeek's router reads an fp32 copy of its input (its weight stays fp32), kept unless the
    router is frozen.  DeepSeek-V3 also keeps the top-2 indices of each of its groups, the indices of the groups it
    keeps and the boolean mask of the experts outside them.
    """
    experts, k = cfg.n_experts, cfg.experts_per_token
    kept = _FP32 * tokens * experts + _INT64 * tokens * k  # scores, top-k indices
    if cfg.model_type in RENORMALIZED_ROUTING:
        kept += _FP32 * tokens * k + _FP32 * tokens  # the chosen weights before the division, and their sum
    kept += (_FP32 if cfg.model_type in FP32_ROUTING_WEIGHTS else element) * tokens * k
    if cfg.model_type in FP32_ROUTER_INPUT and not frozen:
        kept += _FP32 * tokens * cfg.d_model
    if cfg.model_type == "deepseek_v3":
        kept += _INT64 * tokens * (2 * V3_GROUPS + V3_KEPT_GROUPS) + _BOOL * tokens * experts
    return kept


def _moe_ffn_bytes(cfg: ModelConfig, tokens: int, element: int, frozen: bool) -> int:
    """Bytes one MoE layer's FFN keeps, its input aside (counted with the block's linear inputs).

    transformers 5.24's default ``grouped_mm`` experts sort the ``tokens * k`` token-expert pairs by expert and run
    every expert as one grouped matrix product, so each kept tensor has one row per pair: the gathered inputs, the
    fused gate/up output, the SiLU output, their product and the down projection's output (kept for the product
    with the routing weights), and three int64 permutations.  The number of pairs is ``tokens * k`` however
    unbalanced the routing, so the count is exact for any routing.  The shared expert (Qwen-MoE, DeepSeek) is a
    SwiGLU FFN over every token; Qwen-MoE's sigmoid gate keeps its output and the shared expert's output.
    """
    pairs = tokens * cfg.experts_per_token
    width = cfg.routed_expert_d_ff
    inputs = 0 if frozen else element * pairs * cfg.d_model  # the gathered inputs of the frozen experts: not kept
    down_input = 0 if frozen else element * pairs * width
    experts = (inputs + element * pairs * (3 * width + cfg.d_model) + down_input
               + 3 * _INT64 * pairs + _INT32 * cfg.n_experts)
    shared = 0
    if cfg.shared_expert_d_ff:
        shared = (4 if not frozen else 3) * element * tokens * cfg.shared_expert_d_ff
    if cfg.shared_expert_gate:
        shared += element * tokens * cfg.d_model + element * tokens
    return _router_bytes(cfg, tokens, element, frozen) + experts + shared


def _first_block_inputs_without_gradient(cfg: ModelConfig, modules: list[Linear]) -> list[Linear]:
    """The adapted modules whose input needs no gradient in the first block under LoRA without checkpointing.

    The first block's input comes from the frozen embedding: the modules reading it (through its first norm; in a
    parallel block the FFN's first layer too), and in latent attention ``kv_b_proj`` and ``q_b_proj`` when the
    projection making their latent has no adapter.
    """
    roles = {module.role for module in modules}
    readers = _BLOCK_INPUT_ROLES + (_FFN_INPUT_ROLES if _parallel(cfg) else ())

    def reads_no_gradient(module: Linear) -> bool:
        if module.role in ("q_a", "kv_a") or (module.role in readers and module.d_in == cfg.d_model):
            return True
        if cfg.uses_latent_attention:
            return (module.role == "kv_b" and "kv_a" not in roles) or (module.role == "q" and "q_a" not in roles)
        return False

    return [module for module in modules if reads_no_gradient(module)]


def _unadapted_latent_norm_bytes(cfg: ModelConfig, modules: list[Linear], tokens: int, element: int) -> int:
    """What the first block's latent norms keep less under LoRA: a latent whose projection (``kv_a_proj_with_mqa``,
    ``q_a_proj``) has no adapter needs no gradient there, and its norm keeps nothing."""
    roles = {module.role for module in modules}
    discount = 0 if "kv_a" in roles else (_norm_bytes(cfg, tokens, cfg.kv_lora_rank, 1, element, frozen=True)
                                          + _fp32_latent_split(cfg, tokens, element))
    if cfg.q_lora_rank and "q_a" not in roles:
        discount += _norm_bytes(cfg, tokens, cfg.q_lora_rank, 1, element, frozen=True)
    return discount


def _latent_attention_bytes(cfg: ModelConfig, batch: int, seq_len: int, element: int, attention: str,
                            frozen: bool) -> int:
    """Bytes DeepSeek's multi-head latent attention keeps, the block's first norm and its output aside.

    The compressed KV latent passes an RMSNorm (``kv_lora_rank`` wide) and then ``kv_b_proj``, whose input is
    kept; with ``q_lora_rank`` the queries do the same through their own norm and ``q_b_proj``.  The rotary part
    is applied to a slice and keeps only the shared tables.  Keys and values are rebuilt at every head (``head_dim``
    wide keys, ``v_head_dim`` wide values).  Eager attention keeps queries, keys, the values (for a batch of one
    sequence a slice of ``kv_b_proj``'s output, whose storage holds the keys' non-rotary part too), the fp32
    softmax and its
    model-dtype copy, and the output.  torch's CPU SDPA has no fused kernel for values narrower than the keys and
    falls back to its math path, which on CPU computes in fp32: it keeps fp32 queries, keys and values, the fp32
    softmax, and the output (measured); CUDA's memory-efficient kernel accepts unequal widths and would keep no
    score matrix (not measured).
    """
    tokens = batch * seq_len
    heads = cfg.n_heads
    value_width = cfg.v_head_dim or cfg.head_dim
    scores = batch * heads * seq_len * seq_len
    latents = _norm_bytes(cfg, tokens, cfg.kv_lora_rank, 1, element, frozen=frozen) + _fp32_latent_split(cfg, tokens,
                                                                                                        element)
    latents += 0 if frozen else element * tokens * cfg.kv_lora_rank
    if cfg.q_lora_rank:
        latents += _norm_bytes(cfg, tokens, cfg.q_lora_rank, 1, element, frozen=frozen)
        latents += 0 if frozen else element * tokens * cfg.q_lora_rank
    query_key_value = tokens * heads * (2 * cfg.head_dim + value_width)
    output = 0 if frozen else element * tokens * heads * value_width  # kept by o_proj only, for its weight
    if attention == "sdpa":
        # In an fp32 model (a kbit-prepared QLoRA base) the math kernel needs no fp32 copies and keeps the values as
        # eager attention does: for one sequence a view of kv_b_proj's output, keys' non-rotary part included.
        views = _FP32 * tokens * heads * (cfg.head_dim - cfg.rope_head_dim) if element == _FP32 and batch == 1 else 0
        return latents + _FP32 * query_key_value + _FP32 * scores + output + views
    # The product with the probabilities reads the values as one (batch * heads) stack: for one sequence a view of
    # kv_b_proj's output, whose whole storage (the keys' non-rotary part too) stays; for more, a copy of the values.
    key_parts = element * tokens * heads * (cfg.head_dim - cfg.rope_head_dim) if batch == 1 else 0
    return latents + element * query_key_value + key_parts + (_FP32 + element) * scores + output


def _fp32_latent_split(cfg: ModelConfig, tokens: int, element: int) -> int:
    """What the KV latent's norm keeps beyond its input in an fp32 model: its fp32 "copy" is the input itself, a
    slice of ``kv_a_proj_with_mqa``'s output, whose storage holds the keys' rotary part too (measured on a
    kbit-prepared base)."""
    return _FP32 * tokens * cfg.rope_head_dim if element == _FP32 else 0


def _rotary_table_bytes(cfg: ModelConfig, seq_len: int, element: int) -> int:
    """The rotary tables every block shares: cos and sin at ``head_dim`` (DeepSeek: only its rotary part,
    DeepSeek-V2 as one complex64 table)."""
    if cfg.model_type == "deepseek_v2":
        return _FP32 * seq_len * cfg.rope_head_dim  # one 8-byte complex64 per pair of rotary dimensions
    width = cfg.rope_head_dim if cfg.uses_latent_attention else cfg.head_dim
    rotary_element = _FP32 if cfg.model_type in _FP32_ROTARY else element
    return _ROTARY_TABLES.get(cfg.model_type, 1) * 2 * rotary_element * seq_len * width


def _check_modelled(cfg: ModelConfig) -> None:
    """Refuse the configurations whose saved tensors were never measured."""
    _check_moe_modelled(cfg)
    if cfg.layout in ("llama", "phi3"):
        if cfg.ffn != "swiglu" or cfg.norm == "layernorm" or cfg.learned_positions:
            raise refusal("activations_llama_blocks", ffn=cfg.ffn, norm=cfg.norm,
                          learned_positions=cfg.learned_positions)
    elif cfg.layout in _MLP_WIDE_TENSORS:
        if cfg.ffn != "mlp" or cfg.norm != "layernorm":
            raise refusal("activations_gpt2_blocks", ffn=cfg.ffn, norm=cfg.norm)
    else:
        raise refusal("activations_layout", layout=cfg.layout)
    measured_norms = {"phi": (1,), "falcon": (1, 2)}.get(cfg.layout, (4,) if cfg.model_type in _FOUR_NORMS else (2,))
    if cfg.norms_per_layer not in measured_norms:
        raise refusal("activations_unmeasured_feature", feature="blocks without exactly two norms",
                      name="norms_per_layer", measured=measured_norms[0], value=cfg.norms_per_layer)


# Layouts with a two-matrix MLP, and the d_ff-wide tensors their activation keeps as each family is released:
# gelu_new written out in elementwise steps (GPT-2, Phi-2), or one fused GELU (exact or tanh) that keeps its input.
_MLP_WIDE_TENSORS = {"gpt2": 5, "phi": 5, "gpt_neox": 2, "falcon": 2, "starcoder2": 2}
# RMSNorms that scale in fp32 before casting back (Gemma: ``x * (1 + w)``, OLMo 2: ``w * x``), keeping the
# normalized values in fp32; Llama's casts first and scales in the model dtype.
_FP32_SCALE_NORMS = {"gemma": "gemma", "gemma2": "gemma", "gemma3_text": "gemma", "olmo2": "fp32-scale"}
EAGER_ONLY = ("gemma2",)
"""The ``model_type`` values transformers 5.24 runs with eager attention only (it refuses SDPA for Gemma 2's
soft-capped scores)."""
# Gemma 2 and 3 norm before and after both attention and FFN.
_FOUR_NORMS = ("gemma2", "gemma3_text")
# Gemma 2 soft-caps its attention scores and its logits with tanh, which keeps its output.
_SOFT_CAPPED = ("gemma2",)
# OLMo 2 normalizes the outputs of attention and FFN, not their inputs.
_POST_NORMS = ("olmo2",)
# Gemma 3's sliding and full layers rotate with different bases, each with its own cos and sin tables.
_ROTARY_TABLES = {"gemma3_text": 2}
# OLMo and OLMo 2 return their cos and sin tables in fp32 (their rotary embedding does not cast them back).
_FP32_ROTARY = ("olmo", "olmo2")
# Phi, GPT-NeoX and Phi-3 rotate part of each head (Phi-3: all of it, through the same code) and concatenate
# (torch.cat) the parts: the queries are head-major,
# so is SDPA's output, and the output projection reads a contiguous copy of it.  Llama's rotary keeps the
# projection's token-major layout, and the copy is a view.
_CAT_ROTARY = ("phi", "gpt_neox", "phi3")
# Layouts whose Q, K and V come from one fused projection, sliced: V stays a view of the whole output.
_FUSED_QKV = ("gpt_neox", "falcon", "phi3")


def _norm_style(cfg: ModelConfig) -> str:
    """How the family's norm keeps its tensors.

    One of ``llama``, ``gemma``, ``fp32-scale``, ``layernorm``, ``parameter-free``.
    """
    if cfg.norm != "rmsnorm":
        return cfg.norm
    return _FP32_SCALE_NORMS.get(cfg.model_type, "llama")


def _norm_bytes(cfg: ModelConfig, tokens: int, width: int, groups: int, element: int, *, frozen: bool = False) -> int:
    """Bytes one norm over ``width`` values keeps, with ``groups`` statistics per token.

    transformers' RMSNorm keeps its input upcast to fp32 (in an fp32 model
    the input itself), one fp32 ``rsqrt`` per group, and the normalized
    values its scale multiplies (not kept when the scale is ``frozen``): in
    the model dtype for Llama's, which casts before scaling; in fp32 for
    Gemma's ``x * (1 + w)`` and OLMo 2's ``w * x``, which scale before
    casting back.  Gemma's also keeps the fp32 ``1 + w`` it computes (``width
    / groups`` values).  A fused LayerNorm keeps its input and a mean and a
    reciprocal standard deviation per token (fp32 on GPU; CPU keeps them in
    bf16, 4 bytes a token less).  OLMo's parameter-free LayerNorm runs on an
    fp32 copy of its input, which it keeps with fp32 statistics.
    """
    style = _norm_style(cfg)
    statistics = 2 * _FP32 * tokens * groups
    if style == "layernorm":
        return element * tokens * width + statistics
    if style == "parameter-free":
        return _FP32 * tokens * width + statistics
    normalized_element = element if style == "llama" else _FP32
    normalized = 0 if frozen else normalized_element * tokens * width
    scale = _FP32 * (width // groups) if style == "gemma" else 0
    return _FP32 * tokens * width + normalized + _FP32 * tokens * groups + scale


def _qk_norm_bytes(cfg: ModelConfig, tokens: int, element: int, frozen: bool) -> int:
    """The QK-norms' bytes in one block: per head (Qwen3, Gemma 3) or over the whole projection (OLMo 2)."""
    if cfg.qk_norm == "none":
        return 0
    per_head = cfg.qk_norm == "per-head"
    query_groups, key_groups = (cfg.n_heads, cfg.n_kv_heads) if per_head else (1, 1)
    return (_norm_bytes(cfg, tokens, cfg.q_dim, query_groups, element, frozen=frozen)
            + _norm_bytes(cfg, tokens, cfg.kv_dim, key_groups, element, frozen=frozen))


def _unrepeated_kv(cfg: ModelConfig, batch: int, seq_len: int, element: int, attention: str) -> int:
    """Bytes that repeating one KV head does not copy.

    With a single KV head (multi-query attention) transformers' ``repeat_kv``
    is an expanded view of the keys and values, not a copy at ``n_heads``
    width; SDPA keeps that view, and eager attention's batched matmuls
    flatten it without a copy only for one sequence (``batch == 1``).
    """
    if cfg.n_kv_heads != 1 or (attention == "eager" and batch != 1):
        return 0
    return 2 * element * batch * seq_len * (cfg.q_dim - cfg.kv_dim)


def _sdpa_math_fallback(cfg: ModelConfig) -> bool:
    """Whether SDPA falls back to torch's math kernel: multi-query Falcon passes one key head against all query
    heads without ``enable_gqa``, which the fused kernels refuse.  On CPU the math kernel computes a bf16 model in
    fp32 and keeps fp32 queries, keys, values and softmax output."""
    return cfg.layout == "falcon" and cfg.n_kv_heads != cfg.n_heads


def _fused_value_view(cfg: ModelConfig, batch: int, attention: str) -> bool:
    """Whether attention keeps the values as a view of a fused Q/K/V projection's output (all of it).

    GPT-NeoX, Falcon and Phi-3 slice Q, K and V out of one output; Q and K
    are rotated into new tensors, V stays a view.  SDPA keeps that view;
    eager attention's batched matmul flattens it without a copy only for one
    sequence, and only when repeating grouped heads made no copy (one KV head,
    or as many as query heads).
    """
    if cfg.layout not in _FUSED_QKV:
        return False
    if cfg.layout == "falcon" and cfg.n_kv_heads != cfg.n_heads:
        return False  # multi-query Falcon picks K and V out by index lists: copies, not views
    if attention == "sdpa":
        return True
    return batch == 1 and cfg.n_kv_heads in (1, cfg.n_heads)


def _block_bytes(cfg: ModelConfig, batch: int, seq_len: int, element: int, attention: str, frozen: bool,
                 *, moe_layer: bool | None = None) -> int:
    """Bytes one transformer block keeps for backward without checkpointing, adapters and window masks aside.

    A ``frozen`` base's linear modules keep no input: a weight that needs no
    gradient needs no input to compute it.  ``moe_layer`` (default: the
    model is an MoE) picks the routed FFN or, for DeepSeek's dense leading
    layers, the dense one.
    """
    tokens = batch * seq_len
    hidden = element * tokens * cfg.d_model
    queries = element * tokens * cfg.q_dim
    scores = batch * cfg.n_heads * seq_len * seq_len
    norms = cfg.norms_per_layer * _norm_bytes(cfg, tokens, cfg.d_model, 1, element, frozen=frozen)
    norms += _qk_norm_bytes(cfg, tokens, element, frozen)
    if cfg.layout == "gpt_neox" and cfg.norms_per_layer == 2:
        norms -= element * tokens * cfg.d_model  # both LayerNorms read the block's input: one kept tensor
    # The attention input (shared by the Q, K and V projections) and the FFN input; one tensor where attention
    # and FFN run in parallel off one norm (Phi-2, Falcon).
    linear_inputs = 0 if frozen else (1 if cfg.norms_per_layer == 1 else 2) * hidden

    if cfg.uses_latent_attention:
        attention_bytes = _latent_attention_bytes(cfg, batch, seq_len, element, attention, frozen)
    elif attention == "sdpa" and _sdpa_math_fallback(cfg):
        # torch's math fallback on CPU: fp32 copies of queries, keys and values (its batched matmuls expand the
        # one KV head to every query head for more than one sequence), the fp32 softmax output; the output
        # projection's input is a copy of the output.
        kv_width = cfg.kv_dim if batch == 1 else cfg.q_dim
        attention_bytes = _FP32 * tokens * (cfg.q_dim + 2 * kv_width) + _FP32 * scores + (0 if frozen else queries)
    elif attention == "sdpa":
        # Queries, unrepeated keys and values, the output (also the output projection's input), log-sum-exp.
        attention_bytes = 2 * queries + 2 * element * tokens * cfg.kv_dim + _FP32 * cfg.n_heads * tokens
        if cfg.layout in _CAT_ROTARY and not frozen:
            attention_bytes += queries  # the output is head-major; the output projection's input is a copy
    elif cfg.layout == "gpt2":
        # Q, K and V are views of the fused projection, whose whole output stays; the softmax runs in the
        # model dtype and its output is kept once; the output projection's input is a contiguous copy.
        attention_bytes = element * tokens * (cfg.q_dim + 2 * cfg.kv_dim) + element * scores + queries
    else:
        # Queries, keys and values repeated to n_heads, fp32 softmax probabilities and their model-dtype
        # copy (the same storage in fp32), and the output projection's input.
        probabilities = _FP32 * scores + (element * scores if element != _FP32 else 0)
        if cfg.layout == "falcon":
            probabilities = element * scores  # Falcon's own attention takes the softmax in the model dtype
        # The output projection's input is a contiguous copy of the output, kept only by a trained projection.
        output_input = 0 if frozen else queries
        attention_bytes = 3 * queries + probabilities + output_input - _unrepeated_kv(cfg, batch, seq_len, element,
                                                                                     "eager")
        if cfg.model_type in _SOFT_CAPPED:
            attention_bytes += element * scores  # soft-capping: tanh keeps its output, score-sized

    if _fused_value_view(cfg, batch, attention):
        attention_bytes += element * tokens * (cfg.q_dim + cfg.kv_dim)  # V keeps the fused output, not its slice

    if cfg.is_moe if moe_layer is None else moe_layer:
        return norms + linear_inputs + attention_bytes + _moe_ffn_bytes(cfg, tokens, element, frozen)

    ffn_wide = element * tokens * cfg.d_ff
    ffn = _MLP_WIDE_TENSORS.get(cfg.layout, 4) * ffn_wide
    down_input = ffn_wide if frozen else 0  # the last wide tensor above is only the down projection's input
    return norms + linear_inputs + attention_bytes + ffn - down_input


def _adapter_bytes(modules: Iterable[Linear], tokens: int, rank: int, dropout: float, *, input_element: int,
                   adapter_element: int = _FP32, one_norm: bool = False, output_kept: bool = True) -> int:
    """Bytes the LoRA adapters of ``modules`` keep in one block, per peft, for adapters of ``adapter_element`` bytes.

    peft casts an adapter's input to the adapter's dtype
    (``LoraLayer._cast_input_dtype``).  Where the hidden states
    (``input_element`` bytes) have another dtype, the cast is a copy per
    adapter, even where modules share an input: ``lora_A`` keeps it and
    ``lora_B`` keeps A's output, ``rank`` wide, both in the adapter's dtype
    (fp32 adapters on a 16-bit base, peft's default; BF16 adapters on a
    prepared FP32 base).  With ``dropout > 0`` ``lora_A`` keeps the
    dropped-out copy instead, and the dropout its scaled mask, on CPU a
    tensor of the input's dtype (a CUDA dropout keeps a 1-byte mask).  Where
    the dtypes agree (fp32 adapters on a QLoRA base after
    ``prepare_model_for_kbit_training``; BF16 adapters, as TRL's
    ``SFTTrainer`` casts them, on a 16-bit base) the cast returns the input
    itself, so adapters reading one tensor keep it once (the query, key,
    value and latent-down projections read the first norm's output, the
    FFN's first layers the second's), and with ``output_kept`` the output
    projection's input is SDPA's output, kept anyway (latent attention
    keeps it only for a trained projection).  ``one_norm``: attention and
    FFN read one norm's output (Phi-2, Falcon).
    """
    if input_element != adapter_element or dropout:
        per_input_value = 2 * adapter_element if dropout else adapter_element
        return sum(tokens * (per_input_value * module.d_in + adapter_element * rank) for module in modules)
    shared_inputs = {"q": "attention", "k": "attention", "v": "attention", "qkv": "attention", "q_a": "attention",
                     "kv_a": "attention", "gate": "ffn", "up": "ffn", "gate_up": "ffn"}
    inputs: set[tuple[str, int]] = set()
    for module in modules:
        if module.role == "o" and output_kept:
            continue
        group = shared_inputs.get(module.role, module.path)
        if one_norm and group == "ffn":
            group = "attention"
        inputs.add((group, module.d_in))  # a latent's up projection (role "q", narrower) reads another tensor
    return (sum(adapter_element * tokens * width for _, width in inputs)
            + sum(adapter_element * tokens * rank for _ in modules))


def planner_attention(cfg: ModelConfig) -> Attention:
    """The attention implementation a training plan counts: SDPA, or eager where transformers 5.24 offers no SDPA.

    >>> from llmcalc import get_preset
    >>> planner_attention(get_preset("llama-3-8b")), planner_attention(get_preset("gemma-2-9b"))
    ('sdpa', 'eager')
    """
    return "eager" if cfg.model_type in EAGER_ONLY else "sdpa"


def _parallel(cfg: ModelConfig) -> bool:
    """Attention and FFN read the block's input side by side (Phi-2, GPT-NeoX, Falcon-7B's single norm)."""
    return cfg.layout in ("phi", "gpt_neox") or (cfg.layout == "falcon" and cfg.norms_per_layer == 1)


def _first_block_untrained_paths(cfg: ModelConfig, modules: Iterable[Linear], batch: int, seq_len: int, element: int,
                                 attention: str) -> int:
    """What the first LoRA block does not keep on a query, key or value path without an adapter.

    Without checkpointing the first block's input needs no gradient, so a
    projection without an adapter gives a tensor that needs none: its QK-norm
    keeps nothing, and eager attention keeps no operand that only its
    gradient would need (the queries without trained keys, the repeated keys
    without trained queries, the model-dtype probabilities without trained
    values).  SDPA keeps all its inputs either way.  In a parallel block the
    FFN reads the block's input too: without an adapter on its first layer it
    keeps nothing there.
    """
    roles = {module.role for module in modules}
    trained = {path: bool(roles & {path, "qkv"}) for path in ("q", "k", "v")}
    tokens = batch * seq_len
    untrained = 0
    if _parallel(cfg) and not roles & set(_FFN_INPUT_ROLES):
        # The FFN branch reads the block's input beside attention: without an adapter on its first layer it
        # needs no gradient in the first block and keeps nothing (GPT-NeoX: nor its LayerNorm's statistics).
        untrained += (_MLP_WIDE_TENSORS.get(cfg.layout, 4) - 1) * element * tokens * cfg.d_ff
        untrained += 2 * _FP32 * tokens if cfg.norms_per_layer == 2 else 0
    if cfg.qk_norm != "none":
        per_head = cfg.qk_norm == "per-head"
        if not trained["q"]:
            untrained += _norm_bytes(cfg, tokens, cfg.q_dim, cfg.n_heads if per_head else 1, element, frozen=True)
        if not trained["k"]:
            untrained += _norm_bytes(cfg, tokens, cfg.kv_dim, cfg.n_kv_heads if per_head else 1, element, frozen=True)
    if attention == "eager" and cfg.layout != "gpt2":
        queries = element * tokens * cfg.q_dim
        if not trained["k"]:
            untrained += queries
        if not trained["q"]:
            untrained += queries - _unrepeated_kv(cfg, batch, seq_len, element, "eager") // 2
        if not trained["v"] and element != _FP32:
            untrained += element * batch * cfg.n_heads * seq_len * seq_len
    return untrained


def _lora_modules(cfg: ModelConfig, targets: str | Iterable[str], dtype: str, attention: str) -> list[Linear]:
    """The modules ``targets`` adapts in one block, refusing the setups whose activations were not measured."""
    if (dtype, attention) != ("bf16", planner_attention(cfg)):
        raise refusal("lora_activations_setup", dtype=dtype, attention=attention)
    if cfg.is_moe:
        modules, _ = _moe_lora_targets(cfg, targets)
    else:
        modules = lora.lora_targets.unchecked(cfg, targets)
    if any(module.role == "lm_head" for module in modules):
        raise refusal("lora_on_lm_head", targets=targets)
    attention_roles = _LATENT_ATTENTION_ROLES if cfg.uses_latent_attention else _BLOCK_INPUT_ROLES
    if not any(module.role in attention_roles for module in modules):
        raise refusal("lora_without_qkv", targets=targets)
    return modules


# Multi-head latent attention: the projections whose adapter makes every block's attention need a gradient.
_LATENT_ATTENTION_ROLES = ("q", "q_a", "kv_a", "kv_b")

# The family traits and roles above by name, for llmcalc.browser: the browser's copy (planner.js) reads these very
# tables from the page, so none is retyped there.
FAMILY_TRAITS = {
    "mlp_wide_tensors": _MLP_WIDE_TENSORS, "fp32_scale_norms": _FP32_SCALE_NORMS, "eager_only": EAGER_ONLY,
    "four_norms": _FOUR_NORMS, "soft_capped": _SOFT_CAPPED, "post_norms": _POST_NORMS,
    "rotary_tables": _ROTARY_TABLES, "fp32_rotary": _FP32_ROTARY, "cat_rotary": _CAT_ROTARY, "fused_qkv": _FUSED_QKV,
    "block_input_roles": _BLOCK_INPUT_ROLES, "ffn_input_roles": _FFN_INPUT_ROLES,
    "latent_attention_roles": _LATENT_ATTENTION_ROLES,
}


def _moe_lora_targets(cfg: ModelConfig, targets: str | Iterable[str]) -> tuple[list[Linear], frozenset[str]]:
    """The linear modules ``targets`` adapts in an MoE model, and the stacked expert weights peft adapts instead.

    As :func:`llmcalc.lora_model_params` counts them (peft 0.22.0 on transformers 5.25): for the model types peft
    converts, the transformers-4 expert and router names (and ``"all-linear"``) select the stacked weights
    ``"gate_up"``, ``"down"`` and ``"router"``, and the linear modules of those names too (shared experts, dense
    layers; :func:`llmcalc.lora.linear_target_names`).
    """
    conversion = lora.PEFT_MOE_NAMES.get(cfg.model_type, {})
    if isinstance(targets, str) and targets == lora.ALL_LINEAR:
        if not conversion:
            return lora.lora_targets.unchecked(cfg, targets), frozenset()
        every_linear = lora.lora_targets.unchecked(cfg, lora.ALL_LINEAR)
        names = list(dict.fromkeys(m.path.rsplit(".", 1)[-1] for m in every_linear))
        names += [name for name in conversion if name not in names]
    else:
        names = check.targets(targets)  # refused as lora_targets refuses them: not a name, or none
    if conversion:
        lora.lora_model_params.unchecked(cfg, 1, names)  # refuses what peft refuses (half of the fused gate/up pair)
    stacked = frozenset(conversion[name] for name in names if name in conversion)
    rest = lora.linear_target_names(cfg, names)
    return (lora.lora_targets.unchecked(cfg, rest) if rest else []), stacked


def _in_layer(module: Linear, moe_layer: bool) -> bool:
    """Whether ``module`` is in an MoE layer (``moe_layer``) or in a dense one: shared experts and their gate are
    only in MoE layers, a dense FFN only in dense ones, attention in both."""
    if module.path.startswith("mlp.shared_expert"):
        return moe_layer
    if module.component == "ffn":
        return not moe_layer
    return True


def _stacked_adapter_bytes(cfg: ModelConfig, stacked: frozenset[str], tokens: int, element: int, rank: int) -> int:
    """Bytes one MoE layer keeps for peft's adapters on the stacked experts and the router (``ParamWrapper``).

    peft 0.21.2 adapts a stacked weight through a parametrization: the layer runs on the merged weight ``W + B A``
    (cast to the weight's dtype), which the product keeps for backward, so each adapted weight keeps a tensor its
    own size, whatever the number of tokens.  For the experts peft computes ``B A`` from copies of the factors in
    the model dtype, which are kept too; the fused gate/up projection gets rank ``2 * rank``.  Adapting a weight
    also keeps the input its gradient needs: the gathered token-expert inputs (gate/up), the SiLU product (down),
    the router's input (DeepSeek: its fp32 copy; its merged weight stays fp32).
    """
    pairs = tokens * cfg.experts_per_token
    experts, d, width = cfg.n_experts, cfg.d_model, cfg.routed_expert_d_ff
    kept = 0
    if "gate_up" in stacked:
        kept += element * pairs * d + element * experts * (2 * width * d + 2 * rank * d + 2 * width * 2 * rank)
    if "down" in stacked:
        kept += element * pairs * width + element * experts * (width * d + rank * width + d * rank)
    if "router" in stacked:
        router_element = _FP32 if cfg.model_type in FP32_ROUTER_INPUT else element
        kept += router_element * (tokens * d + experts * d)
    return kept


@checks_model
def activation_memory(
    cfg: ModelConfig,
    batch: int,
    seq_len: int,
    *,
    checkpointing: bool = False,
    dtype: str = "bf16",
    attention: Attention = "sdpa",
    lora_targets: str | Iterable[str] | None = None,
    lora_rank: int = 16,
    lora_dropout: float = 0.0,
    qlora_preparation: str | None = None,
    adapter_dtype: str = "fp32",
) -> ActivationMemory:
    """Estimate the activation memory of one training step, by part.

    An estimate, not an exact count: it follows which tensors transformers'
    decoder blocks keep for backward (see the module docstring for the
    formula, its source and what changes from Korthikanti et al. 2022), and
    it matched every recorded measurement within 1 % (in fact within 0.2 %).

    Per block without checkpointing, with ``T = batch * seq_len`` tokens,
    ``e`` bytes per element of ``dtype``, ``d = d_model``, ``q = n_heads *
    head_dim``, ``k = n_kv_heads * head_dim``, ``f = d_ff``, ``h = n_heads``:

    * norms: RMSNorm ``2 * (4 + e) * T * d`` plus fp32 statistics (LayerNorm:
      ``2 * e * T * d`` plus statistics);
    * linear inputs: ``2 * e * T * d`` (attention and FFN inputs);
    * SDPA: ``e * T * (2q + 2k) + 4 * T * h`` (no score matrix);
      eager: ``4 * e * T * q + (4 + e) * batch * h * seq_len**2``
      (GPT-2: ``e * T * (2q + 2k) + e * batch * h * seq_len**2``);
    * FFN: SwiGLU ``4 * e * T * f``; GPT-2's ``gelu_new`` MLP ``5 * e * T * f``.

    Outside the blocks: the final norm and LM-head input, ``4 * T *
    vocab_size`` bytes of fp32 log-probabilities, the token ids and the rotary
    tables.  Assumed: dropout probability 0; causal attention without a
    padding mask (a padding mask makes SDPA repeat grouped KV heads); the
    whole model in ``dtype``, no autocast.  Not in ``saved`` but in
    ``peak``: the returned logits, the loss's backward gradients and the
    recomputed block.  Not counted at all: weight gradients, the fp32 copy
    of the logits (freed before backward), other temporaries, and allocator
    overhead.

    Parameters
    ----------
    cfg : llmcalc.ModelConfig
        A model of a measured family (see the module docstring): every dense
        layout, sliding windows, QK-norm, four norms, parallel blocks, and
        the six mixture-of-experts and latent-attention families; other
        experts and latent attention raise ``ValueError`` because they were
        not measured.
    batch, seq_len : int
        Sequences per step and tokens per sequence.
    checkpointing : bool
        Activation checkpointing of every block (each keeps only its input).
    dtype : {"bf16", "fp16", "fp32"}
        The dtype the model computes in.
    attention : {"sdpa", "eager"}
        ``"sdpa"``: fused attention that keeps no score matrix (flash or
        memory-efficient kernels); ``"eager"``: the explicit softmax.  Gemma 2
        takes ``"eager"`` only (transformers 5.24 refuses SDPA for it).
    lora_targets : str, list of str or None
        LoRA (or QLoRA) on a frozen base: the adapted modules, as
        :func:`llmcalc.lora_model_params` matches them (``"all-linear"``, or names
        and roles such as ``["q", "v"]``); at least one query, key or value
        projection must be adapted.  ``None`` (default): full fine-tuning.
        LoRA was measured with ``dtype="bf16"`` and ``attention="sdpa"`` only
        (Gemma 2: ``"eager"``).
    lora_rank : int
        The adapters' rank ``r`` (only with ``lora_targets``).
    lora_dropout : float
        peft's ``lora_dropout``, in ``[0, 1)``; any value above 0 keeps a
        dropped-out input copy and a mask per adapter (only with ``lora_targets``).
    qlora_preparation : {"kbit", "none", "norms"} or None
        ``"kbit"``: a QLoRA base after peft's ``prepare_model_for_kbit_training``,
        whose hidden states are fp32 (only with ``lora_targets``); ``"none"``
        or ``None`` (default): the base's own dtype.  ``"norms"``: the QLoRA
        script's base, fp32 norms and a 16-bit embedding and head, counted as
        ``"kbit"``: its norms make the hidden states fp32 from the first
        block's FFN on, while under bf16 autocast its attention and head run
        in bf16.  An estimate: measured on the small Llama-style model under
        autocast (``tools/measure_trainer_setups.py``), it counts 0.9 to 1.0 %
        more with checkpointing and 2.8 to 3.7 % more without.
    adapter_dtype : {"fp32", "bf16"}
        The adapters' dtype: ``"fp32"`` (default), as peft upcasts them
        (``autocast_adapter_dtype=True``); ``"bf16"``, as TRL's ``SFTTrainer``
        casts them on a quantized base (only with ``lora_targets``).

    Examples
    --------
    Llama 3 8B, one 4096-token sequence: 784 MiB per block, 2 GiB of fp32
    log-probabilities, 26.6 GiB in all.  Checkpointing keeps 32 MiB per
    block, 3.1 GiB in all, but backward through the loss over 128256
    vocabulary entries lifts the peak to 8 GiB.

    >>> from llmcalc import get_preset, GiB, MiB
    >>> cfg = get_preset("llama-3-8b")
    >>> memory = activation_memory(cfg, 1, 4096)
    >>> memory.per_layer // MiB, memory.loss // MiB, round(memory.saved / GiB, 1)
    (784, 2004, 26.6)
    >>> checkpointed = activation_memory(cfg, 1, 4096, checkpointing=True)
    >>> checkpointed.per_layer // MiB, round(checkpointed.saved / GiB, 1), round(checkpointed.peak / GiB, 1)
    (32, 3.1, 8.0)

    LoRA of rank 16 on q and v keeps 673 MiB per block, less than full
    fine-tuning; on every linear module 1154 MiB, more (fp32 input copies).

    >>> lora = activation_memory(cfg, 1, 4096, lora_targets=["q", "v"])
    >>> lora.per_layer // MiB, lora.first_block_discount // MiB, round(lora.saved / GiB, 1)
    (673, 64, 23.0)
    >>> activation_memory(cfg, 1, 4096, lora_targets="all-linear").per_layer // MiB
    1154

    Mixtral 8x7B keeps 1360 MiB per block; LoRA on every linear layer keeps
    4230, most of it the merged expert weights peft's adapters keep.

    >>> mixtral = get_preset("mixtral-8x7b")
    >>> activation_memory(mixtral, 1, 4096).per_layer // MiB
    1360
    >>> activation_memory(mixtral, 1, 4096, lora_targets="all-linear").per_layer // MiB
    4230

    QLoRA after ``prepare_model_for_kbit_training`` keeps its hidden states in
    fp32: 1025 MiB per block instead of 673.

    >>> prepared = activation_memory(cfg, 1, 4096, lora_targets=["q", "v"], qlora_preparation="kbit")
    >>> prepared.per_layer // MiB, round(prepared.saved / GiB, 1)
    (1025, 34.0)

    Mistral 7B's 4096-token window under SDPA, at 8192 tokens: each layer also
    keeps its mask and its keys and values repeated to 32 heads, 224 MiB.

    >>> mistral = get_preset("mistral-7b")
    >>> activation_memory(mistral, 1, 8192).windowed_extra // mistral.n_layers // MiB
    224
    """
    _check_modelled(cfg)
    n_batch = check.count("batch", batch)
    n_seq = check.count("seq_len", seq_len)
    keep_inputs_only = check.flag("checkpointing", checkpointing)
    element = _ELEMENT_BYTES[check.choice("dtype", dtype, _ELEMENT_BYTES)]
    attention_kind = check.choice("attention", attention, _ATTENTIONS)
    if cfg.model_type in EAGER_ONLY and attention_kind != "eager":
        raise refusal("attention_unsupported", model_type=cfg.model_type, attention=attention_kind)
    if cfg.learned_positions and n_seq > cfg.learned_positions:
        raise refusal("seq_len_beyond_positions", positions=cfg.learned_positions, seq_len=n_seq)

    tokens = n_batch * n_seq
    frozen = lora_targets is not None
    prepared = False
    adapter_element = _ELEMENT_BYTES[check.choice("adapter_dtype", adapter_dtype, _ADAPTER_DTYPES)]
    if qlora_preparation is not None:
        prepared = check.choice("qlora_preparation", qlora_preparation, _QLORA_PREPARATIONS) != "none"
        if not frozen:
            raise refusal("qlora_preparation_needs_qlora", qlora_preparation=qlora_preparation, task="full")
    if prepared:
        # peft's prepare_model_for_kbit_training upcasts the embedding, norms and head to fp32: the residual
        # stream is fp32, and bitsandbytes' 4-bit layers cast their outputs back to their input's dtype.
        element = _FP32
    block = _block_bytes(cfg, n_batch, n_seq, element, attention_kind, frozen)
    dense_block = _block_bytes(cfg, n_batch, n_seq, element, attention_kind, frozen, moe_layer=False)
    first_block_discount = 0
    if lora_targets is not None:
        modules = _lora_modules(cfg, lora_targets, dtype, attention_kind)
        rank = check.count("lora_rank", lora_rank)
        dropout = check.number("lora_dropout", lora_dropout, minimum=0.0, maximum=1.0, max_inclusive=False)
        one_norm = cfg.norms_per_layer == 1
        if cfg.is_moe:
            stacked = _moe_lora_targets(cfg, lora_targets)[1]
            if stacked and dropout:
                raise refusal("lora_dropout_on_stacked_experts", lora_dropout=dropout, targets=lora_targets)
            if stacked and prepared:
                raise refusal("activations_unmeasured_feature",
                              feature="peft's adapters on stacked experts or a router of a kbit-prepared base",
                              name="qlora_preparation", measured="none", value=qlora_preparation)
            if stacked and adapter_element != _FP32:
                raise refusal("activations_unmeasured_feature",
                              feature="peft's adapters on stacked experts or a router in bf16",
                              name="adapter_dtype", measured="fp32", value=adapter_dtype)
            block += _adapter_bytes([m for m in modules if _in_layer(m, True)], tokens, rank, dropout,
                                    input_element=element, adapter_element=adapter_element,
                                    output_kept=not cfg.uses_latent_attention)
            block += _stacked_adapter_bytes(cfg, stacked, tokens, element, rank)
            dense_block += _adapter_bytes([m for m in modules if _in_layer(m, False)], tokens, rank, dropout,
                                          input_element=element, adapter_element=adapter_element,
                                          output_kept=not cfg.uses_latent_attention)
        else:
            block += _adapter_bytes(modules, tokens, rank, dropout, input_element=element,
                                    adapter_element=adapter_element, one_norm=one_norm)
            dense_block = block
        if not keep_inputs_only:
            # transformers makes the embedding's output need a gradient only when checkpointing is enabled.
            no_gradient_inputs = _first_block_inputs_without_gradient(cfg, modules)
            masks = adapter_element * tokens * sum(module.d_in for module in no_gradient_inputs) if dropout else 0
            # OLMo 2's norms follow attention and FFN: its Q, K and V read the block's input, no norm does.
            first_norm = 0 if cfg.model_type in _POST_NORMS else _norm_bytes(cfg, tokens, cfg.d_model, 1, element,
                                                                             frozen=True)
            first_block_discount = first_norm + masks
            first_block_discount += _first_block_untrained_paths(cfg, modules, n_batch, n_seq, element, attention_kind)
            if cfg.uses_latent_attention:
                first_block_discount += _unadapted_latent_norm_bytes(cfg, modules, tokens, element)
    elif (lora_rank, lora_dropout) != (16, 0.0):
        raise refusal("lora_options_without_targets", lora_rank=lora_rank, lora_dropout=lora_dropout)
    # Token ids kept by the embedding (unless frozen) and by the loss (the shifted targets).
    shared = (1 if frozen else 2) * _INT64 * tokens
    if cfg.layout != "gpt2":
        shared += _rotary_table_bytes(cfg, n_seq, element)  # rotary cos and sin, shared by the batch
    # Position ids: an argument of every checkpointed block, and kept by GPT-2's trained position embedding.
    if keep_inputs_only or (cfg.layout == "gpt2" and not frozen):
        shared += _INT64 * n_seq
    # The masks: with a window and SDPA, each windowed layer keeps its additive mask; under checkpointing the
    # blocks keep the boolean mask they share.  Eager attention keeps no mask, but checkpointed blocks keep the
    # additive one (one per kind of layer: causal, windowed).
    mask = n_batch * n_seq * n_seq
    # transformers (masking_utils._ignore_causal_mask_sdpa) passes is_causal instead while seq_len < window.
    windowed = attention_kind == "sdpa" and 0 < cfg.sliding_window <= n_seq
    repeated_kv = 2 * element * tokens * (cfg.q_dim - cfg.kv_dim) - _unrepeated_kv(cfg, n_batch, n_seq, element, "sdpa")
    window_extra = element * mask + repeated_kv if windowed else 0
    if windowed and 1 < cfg.n_kv_heads < cfg.n_heads and cfg.layout in _FUSED_QKV:
        window_extra -= element * tokens * (cfg.q_dim + cfg.kv_dim)  # V repeated by a copy: the fused output goes
    if keep_inputs_only and (windowed or (attention_kind == "sdpa" and cfg.layout == "falcon")):
        shared += n_seq * n_seq  # a boolean (1, 1, seq_len, seq_len) expanded over the batch (Falcon: always)
    if keep_inputs_only and attention_kind == "eager":
        kinds = 1 + (0 < cfg.sliding_window_layers < cfg.n_layers)
        shared += kinds * element * mask
    # The final norm, and the LM head's input unless the head is frozen; Gemma 2's logit soft-capping.
    head = _norm_bytes(cfg, tokens, cfg.d_model, 1, element, frozen=frozen)
    head += 0 if frozen else element * tokens * cfg.d_model
    dense_layers = cfg.n_layers - cfg.moe_layers if cfg.is_moe else 0
    if cfg.model_type in _SOFT_CAPPED:
        head += element * tokens * cfg.vocab_size
    return ActivationMemory(
        per_layer=element * tokens * cfg.d_model if keep_inputs_only else block,
        n_layers=cfg.n_layers,
        shared=shared,
        head=head,
        loss=_FP32 * tokens * cfg.vocab_size + _FP32,  # log-probabilities, and the fp32 count of targets
        recompute=(max(block, dense_block) if dense_layers else block) + window_extra if keep_inputs_only else 0,
        dense_layers_extra=0 if keep_inputs_only else dense_layers * (dense_block - block),
        logits=element * tokens * cfg.vocab_size,
        loss_backward=2 * _FP32 * tokens * cfg.vocab_size,
        first_block_discount=first_block_discount,
        windowed_extra=0 if keep_inputs_only else window_extra * cfg.sliding_window_layers,
    )
