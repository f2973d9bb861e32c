/* The "Will it fit?" planner's arithmetic, the part that mirrors llmcalc.activations (and llmcalc.lora's default
 * targets): the activation memory a training step keeps.
 *
 * One of the classic scripts (module scripts do not load from file://) that split llmcalc's mirror along its
 * modules; they load in calculators/scripts.py's order and share their functions and the tables through
 * window.LLMPlannerParts (P), read when a function runs, so no script depends on the order of the others'
 * definitions.  planner.js exports the public API (window.LLMPlanner).  Bytes are BigInt.
 */
(function () {
  "use strict";

  var P = window.LLMPlannerParts = window.LLMPlannerParts || {};

  /* The BigInt helpers of plannermemory.js, defined here too so that the type checker sees their types
   * (P's functions are untyped to it). */
  function big(value) { return BigInt(value); }

  /* ---- llmcalc.activations, for what the planner uses: bf16 (2 bytes an element, fp32 on a kbit-prepared QLoRA
   * base), SDPA attention (eager for Gemma 2, llmcalc.activations.planner_attention) ---- */
  var FP32 = 4n;
  var INT64 = 8n;
  /* llmcalc.activations' tables of family traits, by layout or model_type (_MLP_WIDE_TENSORS, _FP32_SCALE_NORMS,
   * EAGER_ONLY, _FOUR_NORMS, _SOFT_CAPPED, _POST_NORMS, _ROTARY_TABLES, _FP32_ROTARY, _CAT_ROTARY, _FUSED_QKV and the
   * roles below), from data-tables' activations_traits: P's, set by useTables. */

  function has(list, value) { return list.indexOf(value) >= 0; }

  /* llmcalc.activations.planner_attention */
  function plannerAttention(cfg) { return has(P.EAGER_ONLY, cfg.model_type) ? "eager" : "sdpa"; }

  /* llmcalc.activations._check_moe_modelled: an MoE or MLA model of a measured family. */
  function checkMoeModelled(cfg) {
    if (!(cfg.n_experts > 1n || cfg.kv_lora_rank > 0n)) { return false; }
    var moe = P.TABLES.activations_moe;
    if (moe.families.indexOf(cfg.model_type) < 0) {
      throw P.refusal("activations_unmeasured_feature", { name: "model_type", measured: moe.families,
        value: cfg.model_type });
    }
    return true;
  }

  /* llmcalc.activations._check_modelled: refuse the configurations whose saved tensors were never measured. */
  function checkModelled(cfg) {
    checkMoeModelled(cfg);
    var blocks = { ffn: cfg.ffn, norm: cfg.norm };
    if (cfg.layout === "llama" || cfg.layout === "phi3") {
      if (cfg.ffn !== "swiglu" || cfg.norm === "layernorm" || cfg.learned_positions) {
        blocks.learned_positions = cfg.learned_positions;
        throw P.refusal("activations_llama_blocks", blocks);
      }
    } else if (Object.prototype.hasOwnProperty.call(P.MLP_WIDE_TENSORS, cfg.layout)) {
      if (cfg.ffn !== "mlp" || cfg.norm !== "layernorm") { throw P.refusal("activations_gpt2_blocks", blocks); }
    } else {
      throw P.refusal("activations_layout", { layout: cfg.layout });
    }
    var measured = cfg.layout === "phi" ? [1n] : cfg.layout === "falcon" ? [1n, 2n]
      : has(P.FOUR_NORMS, cfg.model_type) ? [4n] : [2n];
    if (!measured.some(function (n) { return String(n) === String(cfg.norms_per_layer); })) {
      throw P.refusal("activations_unmeasured_feature", { name: "norms_per_layer", measured: measured[0],
        value: cfg.norms_per_layer });
    }
  }

  /* llmcalc.activations._norm_style */
  function normStyle(cfg) {
    if (cfg.norm !== "rmsnorm") { return cfg.norm; }
    return P.FP32_SCALE_NORMS[cfg.model_type] || "llama";
  }

  /* llmcalc.activations._norm_bytes: what one norm keeps; a frozen scale keeps no normalized values. */
  /** @param {ModelConfig} cfg @param {bigint} tokens @param {bigint} width @param {bigint} groups @param {bigint} element */
  function normBytes(cfg, tokens, width, groups, element, frozen) {
    var style = normStyle(cfg);
    var statistics = 2n * FP32 * tokens * groups;
    if (style === "layernorm") { return element * tokens * width + statistics; }
    if (style === "parameter-free") { return FP32 * tokens * width + statistics; }
    var normalized = frozen ? 0n : (style === "llama" ? element : FP32) * tokens * width;
    var scale = style === "gemma" ? FP32 * (width / groups) : 0n;
    return FP32 * tokens * width + normalized + FP32 * tokens * groups + scale;
  }

  function qDim(cfg) { return big(cfg.n_heads) * big(cfg.head_dim); }
  function kvDim(cfg) { return big(cfg.n_kv_heads) * big(cfg.head_dim); }
  function isMoe(cfg) { return cfg.n_experts > 1n; }
  function routedWidth(cfg) { return cfg.expert_d_ff > 0n ? big(cfg.expert_d_ff) : big(cfg.d_ff); }

  /* llmcalc.activations._router_bytes */
  /** @param {ModelConfig} cfg @param {bigint} tokens @param {bigint} element */
  function routerBytes(cfg, tokens, element, frozen) {
    var moe = P.TABLES.activations_moe;
    var experts = big(cfg.n_experts);
    var k = big(cfg.experts_per_token);
    var kept = FP32 * tokens * experts + INT64 * tokens * k;
    if (has(moe.renormalized, cfg.model_type)) { kept += FP32 * tokens * k + FP32 * tokens; }
    kept += (has(moe.fp32_routing_weights, cfg.model_type) ? FP32 : element) * tokens * k;
    if (has(moe.fp32_router, cfg.model_type) && !frozen) { kept += FP32 * tokens * big(cfg.d_model); }
    if (cfg.model_type === "deepseek_v3") {
      kept += INT64 * tokens * big(2 * moe.v3_groups + moe.v3_kept_groups) + tokens * experts;
    }
    return kept;
  }

  /* llmcalc.activations._moe_ffn_bytes */
  /** @param {ModelConfig} cfg @param {bigint} tokens @param {bigint} element */
  function moeFfnBytes(cfg, tokens, element, frozen) {
    var pairs = tokens * big(cfg.experts_per_token);
    var width = routedWidth(cfg);
    var dModel = big(cfg.d_model);
    var inputs = frozen ? 0n : element * pairs * dModel;
    var downInput = frozen ? 0n : element * pairs * width;
    var experts = inputs + element * pairs * (3n * width + dModel) + downInput + 3n * INT64 * pairs +
      4n * big(cfg.n_experts);
    var shared = cfg.shared_expert_d_ff > 0n ? (frozen ? 3n : 4n) * element * tokens * big(cfg.shared_expert_d_ff) : 0n;
    if (cfg.shared_expert_gate) { shared += element * tokens * dModel + element * tokens; }
    return routerBytes(cfg, tokens, element, frozen) + experts + shared;
  }

  /* llmcalc.activations._qk_norm_bytes: per head (Qwen3, Gemma 3, Qwen3-MoE) or over the whole projection
   * (OLMo 2, OLMoE). */
  /** @param {ModelConfig} cfg @param {bigint} tokens @param {bigint} element */
  function qkNormBytes(cfg, tokens, element, frozen) {
    if (cfg.qk_norm === "none") { return 0n; }
    var perHead = cfg.qk_norm === "per-head";
    return normBytes(cfg, tokens, qDim(cfg), perHead ? big(cfg.n_heads) : 1n, element, frozen) +
      normBytes(cfg, tokens, kvDim(cfg), perHead ? big(cfg.n_kv_heads) : 1n, element, frozen);
  }

  /* llmcalc.activations._unrepeated_kv: one KV head is repeated as a view, not a copy. */
  /** @param {ModelConfig} cfg @param {bigint} batch @param {bigint} seqLen @param {bigint} element */
  function unrepeatedKv(cfg, batch, seqLen, element, attention) {
    if (String(cfg.n_kv_heads) !== "1" || (attention === "eager" && batch !== 1n)) { return 0n; }
    return 2n * element * batch * seqLen * (qDim(cfg) - kvDim(cfg));
  }

  /* llmcalc.activations._fused_value_view: V kept as the whole fused Q/K/V output. */
  function fusedValueView(cfg, batch, attention) {
    if (!has(P.FUSED_QKV, cfg.layout)) { return false; }
    if (cfg.layout === "falcon" && String(cfg.n_kv_heads) !== String(cfg.n_heads)) { return false; }
    if (attention === "sdpa") { return true; }
    return batch === 1n && (String(cfg.n_kv_heads) === "1" || String(cfg.n_kv_heads) === String(cfg.n_heads));
  }

  function hasRole(modules, role) { return modules.some(function (module) { return module.role === role; }); }

  /* llmcalc.activations._first_block_inputs_without_gradient (in a parallel block the FFN's first layer reads the
   * block's input too). */
  function firstBlockInputsWithoutGradient(cfg, modules) {
    var readers = P.BLOCK_INPUT_ROLES.concat(parallelBlock(cfg) ? P.FFN_INPUT_ROLES : []);
    return modules.filter(function (module) {
      if (module.role === "q_a" || module.role === "kv_a" ||
          (has(readers, module.role) && big(module.d_in) === big(cfg.d_model))) { return true; }
      if (cfg.kv_lora_rank > 0n) {
        return (module.role === "kv_b" && !hasRole(modules, "kv_a")) || (module.role === "q" && !hasRole(modules, "q_a"));
      }
      return false;
    });
  }

  /* llmcalc.activations._fp32_latent_split: in an fp32 model the KV latent's norm keeps a slice of
   * kv_a_proj_with_mqa's output, whose storage holds the keys' rotary part too. */
  function fp32LatentSplit(cfg, tokens, element) {
    return element === FP32 ? FP32 * tokens * big(cfg.rope_head_dim) : 0n;
  }

  /* llmcalc.activations._unadapted_latent_norm_bytes */
  function unadaptedLatentNormBytes(cfg, modules, tokens, element) {
    var discount = hasRole(modules, "kv_a") ? 0n
      : normBytes(cfg, tokens, big(cfg.kv_lora_rank), 1n, element, true) + fp32LatentSplit(cfg, tokens, element);
    if (cfg.q_lora_rank > 0n && !hasRole(modules, "q_a")) {
      discount += normBytes(cfg, tokens, big(cfg.q_lora_rank), 1n, element, true);
    }
    return discount;
  }

  /* llmcalc.activations._latent_attention_bytes, SDPA branch (torch's math kernel: fp32 q, k, v and scores). */
  /** @param {ModelConfig} cfg @param {bigint} batch @param {bigint} seqLen @param {bigint} element */
  function latentAttentionBytes(cfg, batch, seqLen, element, frozen) {
    var tokens = batch * seqLen;
    var heads = big(cfg.n_heads);
    var valueWidth = cfg.v_head_dim > 0n ? big(cfg.v_head_dim) : big(cfg.head_dim);
    var latents = normBytes(cfg, tokens, big(cfg.kv_lora_rank), 1n, element, frozen) +
      fp32LatentSplit(cfg, tokens, element) + (frozen ? 0n : element * tokens * big(cfg.kv_lora_rank));
    if (cfg.q_lora_rank > 0n) {
      latents += normBytes(cfg, tokens, big(cfg.q_lora_rank), 1n, element, frozen) +
        (frozen ? 0n : element * tokens * big(cfg.q_lora_rank));
    }
    var queryKeyValue = tokens * heads * (2n * big(cfg.head_dim) + valueWidth);
    var output = frozen ? 0n : element * tokens * heads * valueWidth;
    /* An fp32 model (kbit-prepared base): no fp32 copies; for one sequence the values are a view of kv_b_proj's
     * output, keys' non-rotary part included. */
    var views = element === FP32 && batch === 1n
      ? FP32 * tokens * heads * (big(cfg.head_dim) - big(cfg.rope_head_dim)) : 0n;
    return latents + FP32 * queryKeyValue + FP32 * batch * heads * seqLen * seqLen + output + views;
  }

  /* llmcalc.activations._rotary_table_bytes */
  /** @param {ModelConfig} cfg @param {bigint} seqLen @param {bigint} element */
  function rotaryTableBytes(cfg, seqLen, element) {
    if (cfg.model_type === "deepseek_v2") { return FP32 * seqLen * big(cfg.rope_head_dim); }
    var width = big(cfg.kv_lora_rank > 0n ? cfg.rope_head_dim : cfg.head_dim);
    var rotaryElement = has(P.FP32_ROTARY, cfg.model_type) ? FP32 : element;
    return (P.ROTARY_TABLES[cfg.model_type] || 1n) * 2n * rotaryElement * seqLen * width;
  }

  /* llmcalc.activations._block_bytes: a frozen base keeps no linear-module inputs; moeLayer picks the routed FFN
   * or, for DeepSeek's dense leading layers, the dense one. */
  /** @param {ModelConfig} cfg @param {bigint} batch @param {bigint} seqLen @param {bigint} element @returns {bigint} */
  function blockBytes(cfg, batch, seqLen, element, attention, frozen, moeLayer) {
    var tokens = batch * seqLen;
    var dModel = big(cfg.d_model);
    var hidden = element * tokens * dModel;
    var queries = element * tokens * qDim(cfg);
    var scores = batch * big(cfg.n_heads) * seqLen * seqLen;
    var norms = big(cfg.norms_per_layer) * normBytes(cfg, tokens, dModel, 1n, element, frozen) +
      qkNormBytes(cfg, tokens, element, frozen);
    if (cfg.layout === "gpt_neox" && String(cfg.norms_per_layer) === "2") { norms -= element * tokens * dModel; }
    var linearInputs = frozen ? 0n : (String(cfg.norms_per_layer) === "1" ? 1n : 2n) * hidden;
    var attentionBytes;
    var mathFallback = cfg.layout === "falcon" && String(cfg.n_kv_heads) !== String(cfg.n_heads);
    if (cfg.kv_lora_rank > 0n) {
      attentionBytes = latentAttentionBytes(cfg, batch, seqLen, element, frozen);
    } else if (attention === "sdpa" && mathFallback) {
      /* llmcalc.activations._sdpa_math_fallback: fp32 queries, keys, values and softmax output. */
      var kvWidth = batch === 1n ? kvDim(cfg) : qDim(cfg);
      attentionBytes = FP32 * tokens * (qDim(cfg) + 2n * kvWidth) + FP32 * scores + (frozen ? 0n : queries);
    } else if (attention === "sdpa") {
      attentionBytes = 2n * queries + 2n * element * tokens * kvDim(cfg) + FP32 * big(cfg.n_heads) * tokens;
      if (has(P.CAT_ROTARY, cfg.layout) && !frozen) { attentionBytes += queries; }
    } else if (cfg.layout === "gpt2") {
      attentionBytes = element * tokens * (qDim(cfg) + 2n * kvDim(cfg)) + element * scores + queries;
    } else {
      var probabilities = cfg.layout === "falcon" ? element * scores
        : FP32 * scores + (element !== FP32 ? element * scores : 0n);
      attentionBytes = 3n * queries + probabilities + (frozen ? 0n : queries) -
        unrepeatedKv(cfg, batch, seqLen, element, "eager");
      if (has(P.SOFT_CAPPED, cfg.model_type)) { attentionBytes += element * scores; }
    }
    if (fusedValueView(cfg, batch, attention)) { attentionBytes += element * tokens * (qDim(cfg) + kvDim(cfg)); }
    if (moeLayer) { return norms + linearInputs + attentionBytes + moeFfnBytes(cfg, tokens, element, frozen); }
    var ffnWide = element * tokens * big(cfg.d_ff);
    var ffn = (P.MLP_WIDE_TENSORS[cfg.layout] || 4n) * ffnWide;
    return norms + linearInputs + attentionBytes + ffn - (frozen ? ffnWide : 0n);
  }

  /* llmcalc.activations._parallel and _FFN_INPUT_ROLES (from data-tables) */
  function parallelBlock(cfg) {
    return cfg.layout === "phi" || cfg.layout === "gpt_neox" ||
      (cfg.layout === "falcon" && String(cfg.norms_per_layer) === "1");
  }

  /* llmcalc.activations._first_block_untrained_paths: the first LoRA block keeps nothing on a Q, K or V path
   * without an adapter (its QK-norm, and eager attention's operands only that path's gradient needs). */
  /** @param {ModelConfig} cfg @param {bigint} batch @param {bigint} seqLen @param {bigint} element */
  function firstBlockUntrainedPaths(cfg, modules, batch, seqLen, element, attention) {
    var roles = modules.map(function (module) { return module.role; });
    var trained = {};
    ["q", "k", "v"].forEach(function (path) { trained[path] = has(roles, path) || has(roles, "qkv"); });
    var tokens = batch * seqLen;
    var untrained = 0n;
    if (parallelBlock(cfg) && !P.FFN_INPUT_ROLES.some(function (role) { return has(roles, role); })) {
      untrained += ((P.MLP_WIDE_TENSORS[cfg.layout] || 4n) - 1n) * element * tokens * big(cfg.d_ff);
      if (String(cfg.norms_per_layer) === "2") { untrained += 2n * FP32 * tokens; }
    }
    if (cfg.qk_norm !== "none") {
      var perHead = cfg.qk_norm === "per-head";
      if (!trained.q) { untrained += normBytes(cfg, tokens, qDim(cfg), perHead ? big(cfg.n_heads) : 1n, element, true); }
      if (!trained.k) {
        untrained += normBytes(cfg, tokens, kvDim(cfg), perHead ? big(cfg.n_kv_heads) : 1n, element, true);
      }
    }
    if (attention === "eager" && cfg.layout !== "gpt2") {
      var queries = element * tokens * qDim(cfg);
      if (!trained.k) { untrained += queries; }
      if (!trained.q) { untrained += queries - unrepeatedKv(cfg, batch, seqLen, element, "eager") / 2n; }
      if (!trained.v && element !== FP32) { untrained += element * batch * big(cfg.n_heads) * seqLen * seqLen; }
    }
    return untrained;
  }

  /* llmcalc.activations._BLOCK_INPUT_ROLES and _lora_modules (bf16, as the planner computes). */

  /* llmcalc.lora.default_lora_targets: what peft adapts when LoraConfig names no targets, by model type (or layout);
   * refused, with the adaptable modules, where peft raises (no entry, or a mixture of experts peft converts). */
  function defaultLoraTargets(cfg) {
    var defaults = P.TABLES.lora_defaults;
    var type = cfg.model_type || cfg.layout;
    var names = Object.prototype.hasOwnProperty.call(defaults.targets, type) ? defaults.targets[type] : null;
    if (names === null || (isMoe(cfg) && defaults.moe_converted.indexOf(type) >= 0)) {
      var modules = P.MC.linearModules(cfg).filter(function (m) { return m.adaptable; })
        .map(function (m) { return m.path; });
      throw P.refusal("no_default_targets", { peft_version: defaults.peft_version, model_type: type,
                                            modules: modules.filter(function (path, i) {
                                              return modules.indexOf(path) === i; }) });
    }
    return names.slice();
  }

  /* llmcalc.lora.largest_low_rank: the smallest min(d_in, d_out) of the linear modules adapted, and its path. */
  function largestLowRank(cfg, targets) {
    var modules = isMoe(cfg) ? moeLoraTargets(cfg, targets)[0] : P.MC.loraTargets(cfg, targets);
    var narrowest = null;
    modules.forEach(function (m) {
      var width = m.d_in < m.d_out ? m.d_in : m.d_out;
      if (narrowest === null || width < narrowest[0]) { narrowest = [width, m.path]; }
    });
    return narrowest;
  }

  function loraModules(cfg, targets) {
    var modules = isMoe(cfg) ? moeLoraTargets(cfg, targets)[0] : P.MC.loraTargets(cfg, targets);
    if (modules.some(function (module) { return module.role === "lm_head"; })) {
      throw P.refusal("lora_on_lm_head", { targets: targets });
    }
    var roles = cfg.kv_lora_rank > 0n ? P.LATENT_ATTENTION_ROLES : P.BLOCK_INPUT_ROLES;
    if (!modules.some(function (module) { return roles.indexOf(module.role) >= 0; })) {
      throw P.refusal("lora_without_qkv", { targets: targets });
    }
    return modules;
  }

  /* llmcalc.activations._moe_lora_targets: the linear modules adapted, and the stacked weights peft adapts. */
  function moeLoraTargets(cfg, targets) {
    var conversion = P.TABLES.activations_moe.peft_moe_names[cfg.model_type] || {};
    var convertedNames = Object.keys(conversion);
    var names;
    if (targets === "all-linear") {
      if (!convertedNames.length) { return [P.MC.loraTargets(cfg, targets), []]; }
      names = [];
      P.MC.loraTargets(cfg, "all-linear").forEach(function (module) {
        var leaf = module.path.split(".").pop();
        if (names.indexOf(leaf) < 0) { names.push(leaf); }
      });
      convertedNames.forEach(function (name) { if (names.indexOf(name) < 0) { names.push(name); } });
    } else {
      names = typeof targets === "string" ? [targets] : targets;
      /* No module names (not a list, an empty one, a name that is no string): refused as lora_targets refuses
       * them, by its own check. */
      if (!Array.isArray(names) || !names.length || names.some(function (name) { return typeof name !== "string"; })) {
        P.MC.loraTargets(cfg, targets);
      }
      names = names.slice();
    }
    if (convertedNames.length) { P.MC.loraModelParams(cfg, 1, names); }
    var stacked = [];
    names.forEach(function (name) {
      if (has(convertedNames, name) && !has(stacked, conversion[name])) { stacked.push(conversion[name]); }
    });
    var rest = P.MC.linearTargetNames(cfg, names);
    return [rest.length ? P.MC.loraTargets(cfg, rest) : [], stacked];
  }

  /* llmcalc.activations._in_layer */
  function inLayer(module, moeLayer) {
    if (module.path.indexOf("mlp.shared_expert") === 0) { return moeLayer; }
    if (module.component === "ffn") { return !moeLayer; }
    return true;
  }

  /* llmcalc.activations._stacked_adapter_bytes: peft's merged weights W + B A (and its factor copies) per layer. */
  function stackedAdapterBytes(cfg, stacked, tokens, element, rank) {
    var pairs = tokens * big(cfg.experts_per_token);
    var experts = big(cfg.n_experts);
    var dModel = big(cfg.d_model);
    var width = routedWidth(cfg);
    var r = big(rank);
    var kept = 0n;
    if (has(stacked, "gate_up")) {
      kept += element * pairs * dModel + element * experts * (2n * width * dModel + 2n * r * dModel + 4n * width * r);
    }
    if (has(stacked, "down")) {
      kept += element * pairs * width + element * experts * (width * dModel + r * width + dModel * r);
    }
    if (has(stacked, "router")) {
      var routerElement = has(P.TABLES.activations_moe.fp32_router, cfg.model_type) ? FP32 : element;
      kept += routerElement * (tokens * dModel + experts * dModel);
    }
    return kept;
  }

  /* llmcalc.activations._adapter_bytes: where the hidden states (inputElement bytes) and the adapters
   * (adapterElement) differ in dtype, a copy of the input in the adapter's dtype and the r-wide output of lora_A,
   * per adapted module of a block; with lora_dropout > 0 also the dropped-out copy's mask, the copy's size.  Where
   * they agree, without dropout, adapters reading one tensor keep it once, and with outputKept the output
   * projection's input is SDPA's output, kept anyway. */
  var INPUT_GROUPS = { q: "attention", k: "attention", v: "attention", qkv: "attention", q_a: "attention",
                       kv_a: "attention", gate: "ffn", up: "ffn", gate_up: "ffn" };

  /** @param {LinearModule[]} modules @param {bigint} tokens @param {bigint} inputElement @param {bigint} adapterElement */
  function adapterBytes(modules, tokens, rank, dropout, inputElement, adapterElement, oneNorm, outputKept) {
    if (inputElement !== adapterElement || dropout) {
      var perInputValue = dropout ? 2n * adapterElement : adapterElement;
      return modules.reduce(function (sum, module) {
        return sum + tokens * (perInputValue * big(module.d_in) + adapterElement * big(rank));
      }, 0n);
    }
    var inputs = {};
    modules.forEach(function (module) {
      if (module.role === "o" && outputKept) { return; }
      var group = INPUT_GROUPS[module.role] || module.path;
      if (oneNorm && group === "ffn") { group = "attention"; }
      inputs[group + "|" + String(module.d_in)] = big(module.d_in);
    });
    var total = big(modules.length) * adapterElement * tokens * big(rank);
    Object.keys(inputs).forEach(function (key) { total += adapterElement * tokens * inputs[key]; });
    return total;
  }

  /* llmcalc.activations.activation_memory(...).peak with planner_attention(cfg), bf16; LoRA when options.task is
   * lora or qlora, the fp32 residual stream when a QLoRA base is prepared (kbit, or the QLoRA script's norms). */
  function activationPeak(cfg, microBatch, seqLen, checkpointing, options) {
    checkModelled(cfg);
    var batch = big(P.checkCount("batch", microBatch, 1, null));
    var seq = big(P.checkCount("seq_len", seqLen, 1, null));
    P.checkFlag("checkpointing", checkpointing);
    var attention = plannerAttention(cfg);
    if (cfg.learned_positions > 0n && seq > big(cfg.learned_positions)) {
      throw P.refusal("seq_len_beyond_positions", { positions: big(cfg.learned_positions), seq_len: seq });
    }
    var frozen = options.task === "lora" || options.task === "qlora";
    var preparation = options.task === "qlora"
      ? P.checkChoice("qlora_preparation", P.given(options.qloraPreparation, "kbit"), P.TABLES.qlora_preparations) : null;
    var prepared = preparation !== null && preparation !== "none";
    var adapterDtype = P.checkChoice("adapter_dtype", P.given(options.adapterDtype, "fp32"), P.TABLES.adapter_dtypes);
    var adapterElement = adapterDtype === "fp32" ? FP32 : 2n;
    var element = prepared ? FP32 : 2n;
    var tokens = batch * seq;
    var dModel = big(cfg.d_model);
    var block = blockBytes(cfg, batch, seq, element, attention, frozen, isMoe(cfg));
    var denseBlock = blockBytes(cfg, batch, seq, element, attention, frozen, false);
    var discount = 0n;
    if (frozen) {
      var modules = loraModules(cfg, options.targets);
      P.checkCount("lora_rank", options.rank, 1, null);
      var dropout = P.checkDropout(P.given(options.loraDropout, 0));
      var oneNorm = String(cfg.norms_per_layer) === "1";
      var outputKept = !(cfg.kv_lora_rank > 0n);
      if (isMoe(cfg)) {
        var stacked = moeLoraTargets(cfg, options.targets)[1];
        if (stacked.length && dropout) {
          throw P.refusal("lora_dropout_on_stacked_experts", { lora_dropout: dropout, targets: options.targets });
        }
        if (stacked.length && prepared) {
          throw P.refusal("activations_unmeasured_feature", { name: "qlora_preparation", measured: "none",
            value: preparation });
        }
        if (stacked.length && adapterElement !== FP32) {
          throw P.refusal("activations_unmeasured_feature", { name: "adapter_dtype", measured: "fp32",
            value: adapterDtype });
        }
        block += adapterBytes(modules.filter(function (m) { return inLayer(m, true); }), tokens, options.rank, dropout,
          element, adapterElement, oneNorm, outputKept) + stackedAdapterBytes(cfg, stacked, tokens, element,
          options.rank);
        denseBlock += adapterBytes(modules.filter(function (m) { return inLayer(m, false); }), tokens, options.rank,
          dropout, element, adapterElement, oneNorm, outputKept);
      } else {
        block += adapterBytes(modules, tokens, options.rank, dropout, element, adapterElement, oneNorm, outputKept);
        denseBlock = block;
      }
      if (!checkpointing) {
        var noGradientWidth = firstBlockInputsWithoutGradient(cfg, modules).reduce(function (sum, module) {
          return sum + big(module.d_in);
        }, 0n);
        discount = (has(P.POST_NORMS, cfg.model_type) ? 0n : normBytes(cfg, tokens, dModel, 1n, element, true)) +
          (dropout ? adapterElement * tokens * noGradientWidth : 0n) +
          firstBlockUntrainedPaths(cfg, modules, batch, seq, element, attention);
        if (cfg.kv_lora_rank > 0n) { discount += unadaptedLatentNormBytes(cfg, modules, tokens, element); }
      }
    }
    var shared = (frozen ? 1n : 2n) * INT64 * tokens;
    if (cfg.layout !== "gpt2") { shared += rotaryTableBytes(cfg, seq, element); }
    if (checkpointing || (cfg.layout === "gpt2" && !frozen)) { shared += INT64 * seq; }
    var mask = batch * seq * seq;
    var windowed = attention === "sdpa" && big(cfg.sliding_window) > 0n && big(cfg.sliding_window) <= seq;
    var repeatedKv = 2n * element * tokens * (qDim(cfg) - kvDim(cfg)) - unrepeatedKv(cfg, batch, seq, element, "sdpa");
    var windowExtra = windowed ? element * mask + repeatedKv : 0n;
    if (windowed && big(cfg.n_kv_heads) > 1n && big(cfg.n_kv_heads) < big(cfg.n_heads) && has(P.FUSED_QKV, cfg.layout)) {
      windowExtra -= element * tokens * (qDim(cfg) + kvDim(cfg));
    }
    if (checkpointing && (windowed || (attention === "sdpa" && cfg.layout === "falcon"))) { shared += seq * seq; }
    if (checkpointing && attention === "eager") {
      var windowedLayers = big(cfg.sliding_window_layers);
      shared += (windowedLayers > 0n && windowedLayers < big(cfg.n_layers) ? 2n : 1n) * element * mask;
    }
    var vocab = big(cfg.vocab_size);
    var head = normBytes(cfg, tokens, dModel, 1n, element, frozen) + (frozen ? 0n : element * tokens * dModel);
    if (has(P.SOFT_CAPPED, cfg.model_type)) { head += element * tokens * vocab; }
    var perLayer = checkpointing ? element * tokens * dModel : block;
    var loss = FP32 * tokens * vocab + FP32;
    var denseLayers = isMoe(cfg) ? big(cfg.dense_layers) : 0n;
    var largestBlock = denseLayers > 0n && denseBlock > block ? denseBlock : block;
    var recompute = checkpointing ? largestBlock + windowExtra : 0n;
    var denseExtra = checkpointing ? 0n : denseLayers * (denseBlock - block);
    var windowedTotal = checkpointing ? 0n : windowExtra * big(cfg.sliding_window_layers);
    var logits = element * tokens * vocab;
    var lossBackward = 2n * FP32 * tokens * vocab;
    var saved = perLayer * big(cfg.n_layers) - discount + denseExtra + windowedTotal + shared + head + loss;
    return saved + logits + (lossBackward > recompute ? lossBackward : recompute);
  }

  /* What the other parts call. */
  Object.assign(P, { FP32: FP32, INT64: INT64, has: has, plannerAttention: plannerAttention,
    checkMoeModelled: checkMoeModelled, checkModelled: checkModelled, normStyle: normStyle, normBytes: normBytes,
    qDim: qDim, kvDim: kvDim, isMoe: isMoe, routedWidth: routedWidth, routerBytes: routerBytes,
    moeFfnBytes: moeFfnBytes, qkNormBytes: qkNormBytes, unrepeatedKv: unrepeatedKv, fusedValueView: fusedValueView,
    hasRole: hasRole, firstBlockInputsWithoutGradient: firstBlockInputsWithoutGradient,
    fp32LatentSplit: fp32LatentSplit, unadaptedLatentNormBytes: unadaptedLatentNormBytes,
    latentAttentionBytes: latentAttentionBytes, rotaryTableBytes: rotaryTableBytes, blockBytes: blockBytes,
    parallelBlock: parallelBlock, firstBlockUntrainedPaths: firstBlockUntrainedPaths,
    defaultLoraTargets: defaultLoraTargets, largestLowRank: largestLowRank, loraModules: loraModules,
    moeLoraTargets: moeLoraTargets, inLayer: inLayer, stackedAdapterBytes: stackedAdapterBytes,
    INPUT_GROUPS: INPUT_GROUPS, adapterBytes: adapterBytes, activationPeak: activationPeak });
})();
