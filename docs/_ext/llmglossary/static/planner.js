/* "Will it fit?": the GPU memory planner's arithmetic, offline, no framework.
 *
 * Model configs are read by modelconfig.js (window.LLMModelConfig, the browser's copy of llmcalc's config.json
 * reader) and counted by modelcounts.js, which also holds the KV-cache formula the calculators share.
 * Every function below repeats one of llmcalc.planner, llmcalc.memory, llmcalc.weightformats,
 * llmcalc.checkpoints, llmcalc.activations or llmcalc.engines, named alike; the conformance tests
 * compare them with Python on generated vectors: the same bytes, or the same refusal code and numbers.  Bytes are BigInt, and so is
 * every integer field of a config from modelconfig.js.  window.LLMPlanner exports them for plannerwidget.js (the
 * widget, which loads after this file), the planner's extensions and the tests.
 */
(function () {
  "use strict";

  var MC = window.LLMModelConfig;
  /* llmcalc's refusals: a stable code and parameters (llmcalc.errors); the page words the message. */
  function refusal(code, params) { return new MC.LLMCalcError(code, params || {}); }
  /* llmcalc's tables (planner limits and reserve, DTYPE_BITS, OPTIMIZER_STATES, PRECISION_BYTES, ZERO_SHARDED and the
   * weight-format rules), from the widget's data-tables: never retyped here. */
  var TABLES = null;
  var LIMITS = {};
  /* The layout of data-tables this file reads: llmcalc.browser.SPEC_VERSION when it was written. */
  var SPEC_VERSION = 2;

  /* Why tables of another layout cannot be read, or null: the tables' version and the one each script reads. */
  function specMismatch(tables) {
    var script = [SPEC_VERSION, MC.SPEC_VERSION].filter(function (version) {
      return version !== tables.spec_version;
    })[0];
    return script === undefined ? null : { page: String(tables.spec_version), script: String(script) };
  }

  function useTables(tables) {
    var mismatch = specMismatch(tables);
    if (mismatch) {
      throw new Error("the page's tables are llmcalc.browser.SPEC_VERSION " + mismatch.page
        + ", the scripts read version " + mismatch.script);
    }
    TABLES = tables;
    LIMITS = tables.limits;
    var traits = tables.activations_traits;
    MLP_WIDE_TENSORS = bigValues(traits.mlp_wide_tensors);
    FP32_SCALE_NORMS = traits.fp32_scale_norms;
    EAGER_ONLY = traits.eager_only;
    FOUR_NORMS = traits.four_norms;
    SOFT_CAPPED = traits.soft_capped;
    POST_NORMS = traits.post_norms;
    ROTARY_TABLES = bigValues(traits.rotary_tables);
    FP32_ROTARY = traits.fp32_rotary;
    CAT_ROTARY = traits.cat_rotary;
    FUSED_QKV = traits.fused_qkv;
    FFN_INPUT_ROLES = traits.ffn_input_roles;
    BLOCK_INPUT_ROLES = traits.block_input_roles;
    LATENT_ATTENTION_ROLES = traits.latent_attention_roles;
    PARTS = tables.plan_parts;
    TRAINING_TASKS = tables.tasks.filter(function (task) { return task !== "inference"; });
  }

  function bigValues(table) {
    var values = {};
    Object.keys(table).forEach(function (key) { values[key] = BigInt(table[key]); });
    return values;
  }

  function big(value) { return BigInt(value); }
  function ceilDiv(a, b) { return (a + b - 1n) / b; }

  /* llmcalc._validate.count, for the planner's own range checks: a whole number (a Number or a BigInt) in
   * [minimum, maximum] (no maximum when null).  NaN, a fraction, a string or a flag is refused as Python refuses it,
   * before it could reach BigInt() as a RangeError or a comparison that lets it through. */
  function checkCount(name, value, minimum, maximum) {
    var limits = { name: name, minimum: minimum, maximum: maximum };
    if (typeof value !== "bigint" && !(typeof value === "number" && Number.isInteger(value))) {
      throw refusal("not_an_integer", Object.assign({ value: value, type: typeof value, integral: false }, limits));
    }
    if (value < minimum || (maximum !== null && value > maximum)) {
      throw refusal("integer_out_of_range", Object.assign({ value: value }, limits));
    }
    return value;
  }

  /* llmcalc._validate.flag */
  function checkFlag(name, value) {
    if (typeof value !== "boolean") { throw refusal("not_a_flag", { name: name, value: value, type: typeof value }); }
    return value;
  }

  /* An option left out takes llmcalc's default; one given, even empty, zero or NaN, is checked as Python checks it
   * (`options.x || fallback` would turn "", 0 and NaN into the default). */
  function given(value, fallback) { return value === undefined ? fallback : value; }

  /* llmcalc.memory.kv_cache_bytes in the format's bits: the one formula is modelcounts.js's. */
  function kvCacheBytes(cfg, tokens, batch, dtype) {
    return window.LLMModelCounts.kvCacheBytes(cfg, tokens, batch, TABLES.dtype_bits[dtype]);
  }

  /* llmcalc.memory.training_memory */
  /** @param {bigint} n @returns {TrainingMemory & {master_weights: bigint}} */
  function trainingMemory(n, optimizer, precision) {
    var states = TABLES.optimizers[optimizer];
    var recipe = TABLES.precisions[precision].map(big);
    var perState = states[1] === null ? recipe[3] : big(states[1]);
    return { weights: recipe[0] * n, gradients: recipe[1] * n, optimizer_states: big(states[0]) * perState * n,
             master_weights: recipe[2] * n };
  }

  /* llmcalc.memory.zero_memory_per_gpu */
  function zeroMemoryPerGpu(n, stage, nGpus, optimizer, precision) {
    var full = trainingMemory(n, optimizer, precision);
    var split = trainingMemory(ceilDiv(n, big(nGpus)), optimizer, precision);
    var parts = {};
    Object.keys(full).forEach(function (part) {
      parts[part] = TABLES.zero_sharded[stage].indexOf(part) >= 0 ? split[part] : full[part];
    });
    return parts;
  }

  /* ---- llmcalc.activations, for what the planner uses: bf16 (2 bytes an element, fp32 on a kbit-prepared QLoRA
   * base), SDPA attention (eager for Gemma 2, llmcalc.activations.planner_attention) ---- */

  var FP32 = 4n;
  var INT64 = 8n;
  /* llmcalc.activations' tables of family traits, by layout or model_type (_MLP_WIDE_TENSORS, _FP32_SCALE_NORMS,
   * EAGER_ONLY, _FOUR_NORMS, _SOFT_CAPPED, _POST_NORMS, _ROTARY_TABLES, _FP32_ROTARY, _CAT_ROTARY, _FUSED_QKV and the
   * roles below), from data-tables' activations_traits (set by useTables). */
  var MLP_WIDE_TENSORS, FP32_SCALE_NORMS, EAGER_ONLY, FOUR_NORMS, SOFT_CAPPED, POST_NORMS, ROTARY_TABLES, FP32_ROTARY,
    CAT_ROTARY, FUSED_QKV;

  function has(list, value) { return list.indexOf(value) >= 0; }

  /* llmcalc.activations.planner_attention */
  function plannerAttention(cfg) { return has(EAGER_ONLY, cfg.model_type) ? "eager" : "sdpa"; }

  /* llmcalc.activations._check_moe_modelled: an MoE or MLA model of a measured family. */
  function checkMoeModelled(cfg) {
    if (!(cfg.n_experts > 1n || cfg.kv_lora_rank > 0n)) { return false; }
    var moe = TABLES.activations_moe;
    if (moe.families.indexOf(cfg.model_type) < 0) {
      throw refusal("activations_unmeasured_feature", { name: "model_type", measured: moe.families,
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
        throw refusal("activations_llama_blocks", blocks);
      }
    } else if (Object.prototype.hasOwnProperty.call(MLP_WIDE_TENSORS, cfg.layout)) {
      if (cfg.ffn !== "mlp" || cfg.norm !== "layernorm") { throw refusal("activations_gpt2_blocks", blocks); }
    } else {
      throw refusal("activations_layout", { layout: cfg.layout });
    }
    var measured = cfg.layout === "phi" ? [1n] : cfg.layout === "falcon" ? [1n, 2n]
      : has(FOUR_NORMS, cfg.model_type) ? [4n] : [2n];
    if (!measured.some(function (n) { return String(n) === String(cfg.norms_per_layer); })) {
      throw refusal("activations_unmeasured_feature", { name: "norms_per_layer", measured: measured[0],
        value: cfg.norms_per_layer });
    }
  }

  /* llmcalc.activations._norm_style */
  function normStyle(cfg) {
    if (cfg.norm !== "rmsnorm") { return cfg.norm; }
    return FP32_SCALE_NORMS[cfg.model_type] || "llama";
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
    var moe = TABLES.activations_moe;
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
    if (!has(FUSED_QKV, cfg.layout)) { return false; }
    if (cfg.layout === "falcon" && String(cfg.n_kv_heads) !== String(cfg.n_heads)) { return false; }
    if (attention === "sdpa") { return true; }
    return batch === 1n && (String(cfg.n_kv_heads) === "1" || String(cfg.n_kv_heads) === String(cfg.n_heads));
  }

  function hasRole(modules, role) { return modules.some(function (module) { return module.role === role; }); }

  /* llmcalc.activations._first_block_inputs_without_gradient (in a parallel block the FFN's first layer reads the
   * block's input too). */
  function firstBlockInputsWithoutGradient(cfg, modules) {
    var readers = BLOCK_INPUT_ROLES.concat(parallelBlock(cfg) ? FFN_INPUT_ROLES : []);
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
    var rotaryElement = has(FP32_ROTARY, cfg.model_type) ? FP32 : element;
    return (ROTARY_TABLES[cfg.model_type] || 1n) * 2n * rotaryElement * seqLen * width;
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
      if (has(CAT_ROTARY, cfg.layout) && !frozen) { attentionBytes += queries; }
    } else if (cfg.layout === "gpt2") {
      attentionBytes = element * tokens * (qDim(cfg) + 2n * kvDim(cfg)) + element * scores + queries;
    } else {
      var probabilities = cfg.layout === "falcon" ? element * scores
        : FP32 * scores + (element !== FP32 ? element * scores : 0n);
      attentionBytes = 3n * queries + probabilities + (frozen ? 0n : queries) -
        unrepeatedKv(cfg, batch, seqLen, element, "eager");
      if (has(SOFT_CAPPED, cfg.model_type)) { attentionBytes += element * scores; }
    }
    if (fusedValueView(cfg, batch, attention)) { attentionBytes += element * tokens * (qDim(cfg) + kvDim(cfg)); }
    if (moeLayer) { return norms + linearInputs + attentionBytes + moeFfnBytes(cfg, tokens, element, frozen); }
    var ffnWide = element * tokens * big(cfg.d_ff);
    var ffn = (MLP_WIDE_TENSORS[cfg.layout] || 4n) * ffnWide;
    return norms + linearInputs + attentionBytes + ffn - (frozen ? ffnWide : 0n);
  }

  /* llmcalc.activations._parallel and _FFN_INPUT_ROLES (from data-tables) */
  var FFN_INPUT_ROLES;
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
    if (parallelBlock(cfg) && !FFN_INPUT_ROLES.some(function (role) { return has(roles, role); })) {
      untrained += ((MLP_WIDE_TENSORS[cfg.layout] || 4n) - 1n) * element * tokens * big(cfg.d_ff);
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
  var BLOCK_INPUT_ROLES;

  var LATENT_ATTENTION_ROLES;

  /* llmcalc.lora.default_lora_targets: what peft adapts when LoraConfig names no targets, by model type (or layout);
   * refused, with the adaptable modules, where peft raises (no entry, or a mixture of experts peft converts). */
  function defaultLoraTargets(cfg) {
    var defaults = TABLES.lora_defaults;
    var type = cfg.model_type || cfg.layout;
    var names = Object.prototype.hasOwnProperty.call(defaults.targets, type) ? defaults.targets[type] : null;
    if (names === null || (isMoe(cfg) && defaults.moe_converted.indexOf(type) >= 0)) {
      var modules = MC.linearModules(cfg).filter(function (m) { return m.adaptable; })
        .map(function (m) { return m.path; });
      throw refusal("no_default_targets", { peft_version: defaults.peft_version, model_type: type,
                                            modules: modules.filter(function (path, i) {
                                              return modules.indexOf(path) === i; }) });
    }
    return names.slice();
  }

  /* llmcalc.lora.largest_low_rank: the smallest min(d_in, d_out) of the linear modules adapted, and its path. */
  function largestLowRank(cfg, targets) {
    var modules = isMoe(cfg) ? moeLoraTargets(cfg, targets)[0] : MC.loraTargets(cfg, targets);
    var narrowest = null;
    modules.forEach(function (m) {
      var width = m.d_in < m.d_out ? m.d_in : m.d_out;
      if (narrowest === null || width < narrowest[0]) { narrowest = [width, m.path]; }
    });
    return narrowest;
  }

  /* llmcalc.planner.default_tokens: a default length, never past the trained context or the learned positions. */
  function defaultTokens(cfg, preferred) {
    var trained = trainedContext(cfg);
    return Math.min(preferred, trained === null ? LIMITS.max_tokens : trained, tokenLimit(cfg));
  }

  function loraModules(cfg, targets) {
    var modules = isMoe(cfg) ? moeLoraTargets(cfg, targets)[0] : MC.loraTargets(cfg, targets);
    if (modules.some(function (module) { return module.role === "lm_head"; })) {
      throw refusal("lora_on_lm_head", { targets: targets });
    }
    var roles = cfg.kv_lora_rank > 0n ? LATENT_ATTENTION_ROLES : BLOCK_INPUT_ROLES;
    if (!modules.some(function (module) { return roles.indexOf(module.role) >= 0; })) {
      throw refusal("lora_without_qkv", { targets: targets });
    }
    return modules;
  }

  /* llmcalc.activations._moe_lora_targets: the linear modules adapted, and the stacked weights peft adapts. */
  function moeLoraTargets(cfg, targets) {
    var conversion = TABLES.activations_moe.peft_moe_names[cfg.model_type] || {};
    var convertedNames = Object.keys(conversion);
    var names;
    if (targets === "all-linear") {
      if (!convertedNames.length) { return [MC.loraTargets(cfg, targets), []]; }
      names = [];
      MC.loraTargets(cfg, "all-linear").forEach(function (module) {
        var leaf = module.path.split(".").pop();
        if (names.indexOf(leaf) < 0) { names.push(leaf); }
      });
      convertedNames.forEach(function (name) { if (names.indexOf(name) < 0) { names.push(name); } });
    } else {
      names = typeof targets === "string" ? [targets] : targets;
      /* No module names (not a list, an empty one, a name that is no string): refused as lora_targets refuses
       * them, by its own check. */
      if (!Array.isArray(names) || !names.length || names.some(function (name) { return typeof name !== "string"; })) {
        MC.loraTargets(cfg, targets);
      }
      names = names.slice();
    }
    if (convertedNames.length) { MC.loraModelParams(cfg, 1, names); }
    var stacked = [];
    names.forEach(function (name) {
      if (has(convertedNames, name) && !has(stacked, conversion[name])) { stacked.push(conversion[name]); }
    });
    var rest = names.filter(function (name) { return !has(convertedNames, name); });
    return [rest.length ? MC.loraTargets(cfg, rest) : [], stacked];
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
      var routerElement = has(TABLES.activations_moe.fp32_router, cfg.model_type) ? FP32 : element;
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

  /* llmcalc._validate.number for lora_dropout: a finite number in [0, 1). */
  /* llmcalc._validate.number for lora_dropout, in [0, 1): a value that is no number (a string, a flag) is
   * refused as such, as Python refuses it; NaN and infinities are numbers out of the range. */
  function checkDropout(value) {
    var limits = { name: "lora_dropout", minimum: 0, maximum: 1, min_inclusive: true, max_inclusive: false };
    if (typeof value !== "number") {
      throw refusal("not_a_number", Object.assign({ value: value, type: typeof value }, limits));
    }
    if (!Number.isFinite(value) || value < 0 || value >= 1) {
      throw refusal("number_out_of_range", Object.assign({ value: value }, limits));
    }
    return value;
  }

  /* llmcalc.activations.activation_memory(...).peak with planner_attention(cfg), bf16; LoRA when options.task is
   * lora or qlora, the fp32 residual stream when a QLoRA base is prepared (kbit, or the QLoRA script's norms). */
  function activationPeak(cfg, microBatch, seqLen, checkpointing, options) {
    checkModelled(cfg);
    var batch = big(checkCount("batch", microBatch, 1, null));
    var seq = big(checkCount("seq_len", seqLen, 1, null));
    checkFlag("checkpointing", checkpointing);
    var attention = plannerAttention(cfg);
    if (cfg.learned_positions > 0n && seq > big(cfg.learned_positions)) {
      throw refusal("seq_len_beyond_positions", { positions: big(cfg.learned_positions), seq_len: seq });
    }
    var frozen = options.task === "lora" || options.task === "qlora";
    var preparation = options.task === "qlora"
      ? checkChoice("qlora_preparation", given(options.qloraPreparation, "kbit"), TABLES.qlora_preparations) : null;
    var prepared = preparation !== null && preparation !== "none";
    var adapterDtype = checkChoice("adapter_dtype", given(options.adapterDtype, "fp32"), TABLES.adapter_dtypes);
    var adapterElement = adapterDtype === "fp32" ? FP32 : 2n;
    var element = prepared ? FP32 : 2n;
    var tokens = batch * seq;
    var dModel = big(cfg.d_model);
    var block = blockBytes(cfg, batch, seq, element, attention, frozen, isMoe(cfg));
    var denseBlock = blockBytes(cfg, batch, seq, element, attention, frozen, false);
    var discount = 0n;
    if (frozen) {
      var modules = loraModules(cfg, options.targets);
      checkCount("lora_rank", options.rank, 1, null);
      var dropout = checkDropout(given(options.loraDropout, 0));
      var oneNorm = String(cfg.norms_per_layer) === "1";
      var outputKept = !(cfg.kv_lora_rank > 0n);
      if (isMoe(cfg)) {
        var stacked = moeLoraTargets(cfg, options.targets)[1];
        if (stacked.length && dropout) {
          throw refusal("lora_dropout_on_stacked_experts", { lora_dropout: dropout, targets: options.targets });
        }
        if (stacked.length && prepared) {
          throw refusal("activations_unmeasured_feature", { name: "qlora_preparation", measured: "none",
            value: preparation });
        }
        if (stacked.length && adapterElement !== FP32) {
          throw refusal("activations_unmeasured_feature", { name: "adapter_dtype", measured: "fp32",
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
        discount = (has(POST_NORMS, cfg.model_type) ? 0n : normBytes(cfg, tokens, dModel, 1n, element, true)) +
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
    if (windowed && big(cfg.n_kv_heads) > 1n && big(cfg.n_kv_heads) < big(cfg.n_heads) && has(FUSED_QKV, cfg.layout)) {
      windowExtra -= element * tokens * (qDim(cfg) + kvDim(cfg));
    }
    if (checkpointing && (windowed || (attention === "sdpa" && cfg.layout === "falcon"))) { shared += seq * seq; }
    if (checkpointing && attention === "eager") {
      var windowedLayers = big(cfg.sliding_window_layers);
      shared += (windowedLayers > 0n && windowedLayers < big(cfg.n_layers) ? 2n : 1n) * element * mask;
    }
    var vocab = big(cfg.vocab_size);
    var head = normBytes(cfg, tokens, dModel, 1n, element, frozen) + (frozen ? 0n : element * tokens * dModel);
    if (has(SOFT_CAPPED, cfg.model_type)) { head += element * tokens * vocab; }
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

  /* ---- llmcalc.weightformats ---- */

  /* llmcalc.weightformats.is_converted */
  function converted(module, format, cfg) {
    if (format === "bf16" || module.role === "lm_head" || cfg.layout === "falcon") { return false; }
    var routedExpert = module.path.indexOf("mlp.experts.") === 0;
    if (format === "fp8") { return routedExpert || (module.adaptable && cfg.layout !== "gpt2"); }
    return module.adaptable;
  }

  /* llmcalc.weightformats.codes_and_constants: bytes of one quantized d_in -> d_out matrix. */
  /** @param {bigint} dIn @param {bigint} dOut @param {bigint} minBlockRows @returns {[bigint, bigint]} */
  function codesAndConstants(format, dIn, dOut, minBlockRows) {
    var weights = dIn * dOut;
    if (format === "int8") { return [weights, 4n * dOut]; }
    if (format === "fp8") {
      var rows = ceilDiv(dOut, 128n);
      return [weights, 4n * (rows > minBlockRows ? rows : minBlockRows) * ceilDiv(dIn, 128n)];
    }
    if (format === "int4") {
      var groups = ceilDiv(dIn, 128n);
      return [4n * ceilDiv(dIn, 8n) * dOut, 4n * groups * ceilDiv(dOut, 8n) + 2n * groups * dOut + 4n * dIn];
    }
    var blocks = ceilDiv(weights, 64n);
    var nf4Table = 16n * 4n;
    if (format === "nf4") { return [ceilDiv(weights, 2n), 4n * blocks + nf4Table]; }
    return [ceilDiv(weights, 2n), blocks + 4n * ceilDiv(blocks, 256n) + 4n + nf4Table + 256n * 4n];
  }

  /* llmcalc.weightformats.modelled_weight_formats: all but GPTQ (int4) for an MoE or a layout whose GPTQ size
   * is not modelled. */
  function modelledWeightFormats(cfg) {
    var noGptq = cfg.n_experts > 1 || Object.prototype.hasOwnProperty.call(TABLES.no_gptq_layouts, cfg.layout);
    return TABLES.weight_formats.filter(function (f) { return !(noGptq && f === "int4"); });
  }

  /* llmcalc.weightformats.lighter_weight_formats: the modelled formats after format, least lossy first. */
  function lighterWeightFormats(cfg, format) {
    var at = TABLES.weight_formats.indexOf(format);
    if (at < 0) { return []; }
    var later = TABLES.weight_formats.slice(at + 1);
    return modelledWeightFormats(cfg).filter(function (f) { return later.indexOf(f) >= 0; });
  }

  /* llmcalc.weightformats.weight_format_bytes */
  function weightFormatBytes(cfg, format) {
    if (isCheckpoint(format)) { return checkpointWeightBytes(cfg, format); }
    var formats = TABLES.weight_formats;
    if (formats.indexOf(format) < 0) {
      throw refusal("not_one_of", { name: "weight_format", options: formats, value: format, suggestion: null });
    }
    if (modelledWeightFormats(cfg).indexOf(format) < 0) {
      throw refusal("gptq_not_modelled", { formats: formats.filter(function (f) { return f !== "int4"; }) });
    }
    var quantized = 0n;
    var constants = 0n;
    var convertedWeights = 0n;
    var fp32Weights = 0n;
    var modules = MC.linearModules(cfg);
    /* get_keys_to_not_convert skips the model's last parameter: the last block's last linear layer when the
     * head is tied and the norms have no weights. */
    var lastKept = format !== "bf16" && format !== "int4" && cfg.tie_embeddings && cfg.norm === "parameter-free";
    modules.forEach(function (module, index) {
      var copies = big(module.copies) - (lastKept && index === modules.length - 1 ? 1n : 0n);
      if (module.role === "router" && TABLES.fp32_routers.indexOf(cfg.model_type) >= 0) {
        fp32Weights += big(module.params);
      }
      var routedGateOrUp = module.path.indexOf("mlp.experts.") === 0 && (module.role === "gate" || module.role === "up");
      var stacked = format === "fp8" && cfg.ffn === "swiglu" && routedGateOrUp;
      if (!converted(module, format, cfg) || (stacked && module.role === "up")) { return; }
      var rows = stacked ? 2n * big(module.d_out) : big(module.d_out);
      var parts = codesAndConstants(format, big(module.d_in), rows, stacked ? 2n : 1n);
      quantized += copies * parts[0];
      constants += copies * parts[1];
      convertedWeights += copies * big(module.d_in) * rows;
    });
    var unquantized = 2n * (MC.paramCount(cfg) - convertedWeights + fp32Weights);
    return { quantized: quantized, constants: constants, unquantized: unquantized };
  }

  /* ---- llmcalc.checkpoints: a quantized checkpoint's bytes, from the format MC.checkpointFromHf read ---- */

  var isCheckpoint = function (format) { return typeof format === "object" && format !== null; };

  /* llmcalc.checkpoints.stored_bytes */
  /** @param {bigint} dIn @param {bigint} dOut @returns {[bigint, bigint]} */
  function storedBytes(fmt, dIn, dOut) {
    if (fmt.codes.indexOf("bnb-") === 0) { return codesAndConstants(fmt.codes.slice(4), dIn, dOut, 1n); }
    var groups = fmt.group_size ? ceilDiv(dIn, fmt.group_size) : 1n;
    if (fmt.codes === "gptq") {
      return [4n * ceilDiv(dIn * fmt.bits, 32n) * dOut,
        4n * groups * ceilDiv(dOut * fmt.bits, 32n) + 2n * groups * dOut + 4n * dIn];
    }
    if (fmt.codes === "awq") { return [4n * dIn * ceilDiv(dOut, 8n), 4n * groups * ceilDiv(dOut, 8n) + 2n * groups * dOut]; }
    if (fmt.codes === "awq-gemv") {
      var perWord = fmt.group_size === 32n ? 4n : fmt.group_size === 64n ? 2n : 1n;
      var width = ceilDiv(ceilDiv(groups, 8n), perWord) * perWord;
      return [4n * dOut * (dIn / 8n), 4n * dOut * width + 2n * dOut * width * 8n];
    }
    var count = { tensor: 1n, channel: dOut, group: dOut * groups,
      block: fmt.block[0] ? ceilDiv(dOut, fmt.block[0]) * ceilDiv(dIn, fmt.block[1]) : 1n }[fmt.scales];
    var constants = fmt.scale_bytes * count + fmt.input_scale_bytes + (fmt.group_index ? 4n * dIn : 0n);
    if (fmt.codes === "packed") {
      constants += 2n * 8n;  // weight_shape: two int64
      if (fmt.zero_points) { constants += 4n * ceilDiv(dOut * fmt.bits, 32n) * (fmt.scales === "group" ? groups : 1n); }
      return [4n * ceilDiv(dIn * fmt.bits, 32n) * dOut, constants];
    }
    return [dIn * dOut, constants + (fmt.zero_points ? count : 0n)];
  }

  /* llmcalc.checkpoints._module_names: the checkpoint's name of every copy of a module. */
  function moduleNames(cfg, module) {
    if (module.role === "lm_head") { return [TABLES.checkpoints.head_name[cfg.layout] || "lm_head"]; }
    var prefix = TABLES.checkpoints.block_prefix[cfg.layout] || "model.layers";
    var layers = Number(cfg.n_layers);
    var dense = layers - Number(MC.moeLayers(cfg));
    var routed = module.path.indexOf("mlp.experts.") === 0;
    var onMoe = routed || module.component === "router" || module.path.indexOf(".shared_expert") >= 0;
    var first = onMoe ? dense : 0;
    var end = module.component === "ffn" && !onMoe ? dense : layers;
    var names = [];
    for (var layer = first; layer < end; layer++) {
      if (!routed) {
        names.push(prefix + "." + layer + "." + module.path);
        continue;
      }
      for (var expert = 0; expert < Number(cfg.n_experts); expert++) {
        names.push(prefix + "." + layer + ".mlp.experts." + expert + "." + module.path.slice("mlp.experts.".length));
      }
    }
    return names;
  }

  /* llmcalc.checkpoints._matcher: whether the format converts a module of a given name. */
  var BOUNDARY = "(?:(?<=\\.)|(?=\\.|$))";
  function checkpointMatcher(fmt) {
    if (fmt.matcher === "compressed-tensors") {
      var compiled = function (patterns) {
        return patterns.map(function (p) { return p.indexOf("re:") === 0 ? new RegExp("^(?:" + p.slice(3) + ")") : p; });
      };
      var matches = function (patterns, name) {
        return patterns.some(function (p) { return typeof p === "string" ? p === name || p === "Linear" : p.test(name); });
      };
      var targets = compiled(fmt.targets);
      var ignored = compiled(fmt.skip.filter(function (p) { return p !== "Linear"; }));
      return function (name) { return matches(targets, name) && !matches(ignored, name); };
    }
    var exact = new Set(fmt.skip);
    var patterns = fmt.skip.map(function (p) { return new RegExp("^(?:" + p + ")" + BOUNDARY); });
    return function (name) {
      return !(exact.has(name) || fmt.skip.some(function (p) { return name.endsWith(p); }) ||
        patterns.some(function (p) { return p.test(name); }));
    };
  }

  /* llmcalc.checkpoints._eligible: whether the format's loader converts a module of this kind at all. */
  function eligible(cfg, fmt, module) {
    if (module.component === "router" || (module.role === "lm_head" && fmt.blocks_only)) { return false; }
    if (fmt.codes.indexOf("bnb-") === 0 && !module.adaptable) { return false; }
    return cfg.layout !== "falcon" && cfg.layout !== "gpt2";
  }

  /* llmcalc.checkpoints._converted_copies: [module, copies converted] for every linear module. */
  /** @param {ModelConfig} cfg @returns {Array<[LinearModule, bigint]>} */
  function convertedCopies(cfg, fmt) {
    var matches = checkpointMatcher(fmt);
    var limit = big(TABLES.checkpoints.max_named_copies);
    return MC.linearModules(cfg).map(function (module) {
      if (!eligible(cfg, fmt, module)) { return [module, 0n]; }
      if (!fmt.skip.length && !fmt.targets.length) { return [module, big(module.copies)]; }
      if (big(module.copies) > limit) {
        throw refusal("quantization_unmodelled", { method: fmt.method, key: module.path + " copies",
          value: big(module.copies), accepted: "at most " + limit.toLocaleString("en-US"), accepted_id: "named_copies" });
      }
      return [module, big(moduleNames(cfg, module).filter(matches).length)];
    });
  }

  /* llmcalc.checkpoints.checkpoint_weight_bytes */
  function checkpointWeightBytes(cfg, fmt) {
    var quantized = 0n;
    var constants = 0n;
    var convertedWeights = 0n;
    var fp32 = 0n;
    convertedCopies(cfg, fmt).forEach(function (pair) {
      var module = pair[0];
      var copies = pair[1];
      if (module.role === "router" && TABLES.fp32_routers.indexOf(cfg.model_type) >= 0) { fp32 += big(module.params); }
      if (!copies) { return; }
      var parts = storedBytes(fmt, big(module.d_in), big(module.d_out));
      quantized += copies * parts[0];
      constants += copies * (parts[1] + (fmt.bias_bytes - 2n) * (module.bias ? big(module.d_out) : 0n));
      convertedWeights += copies * big(module.d_in) * big(module.d_out);
    });
    constants += fmt.kv_scale_bytes * big(cfg.n_layers);
    return { quantized: quantized, constants: constants, unquantized: 2n * (MC.paramCount(cfg) - convertedWeights + fp32) };
  }

  /* llmcalc.checkpoints.converts: whether the format stores a dense model's module of block `layer` quantized. */
  function convertsModule(cfg, fmt, module, layer) {
    if (!eligible(cfg, fmt, module)) { return false; }
    var prefix = TABLES.checkpoints.block_prefix[cfg.layout] || "model.layers";
    var name = module.role === "lm_head" ? TABLES.checkpoints.head_name[cfg.layout] || "lm_head"
      : prefix + "." + layer + "." + module.path;
    return checkpointMatcher(fmt)(name);
  }

  /* llmcalc.weightformats.kept_linear_modules: [path, kept copies, all copies] of the linear modules left in 16
   * bits (llmcalc.checkpoints.kept_in_16_bits for a checkpoint's format). */
  function keptLinearModules(cfg, format) {
    if (isCheckpoint(format)) {
      return convertedCopies(cfg, format).filter(function (pair) { return pair[1] < big(pair[0].copies); })
        .map(function (pair) { return [pair[0].path, big(pair[0].copies) - pair[1], big(pair[0].copies)]; });
    }
    weightFormatBytes(cfg, format);
    var modules = MC.linearModules(cfg);
    var lastKept = format !== "bf16" && format !== "int4" && cfg.tie_embeddings && cfg.norm === "parameter-free";
    var kept = [];
    modules.forEach(function (module, index) {
      if (!converted(module, format, cfg)) {
        kept.push([module.path, big(module.copies), big(module.copies)]);
      } else if (lastKept && index === modules.length - 1) {
        kept.push([module.path, 1n, big(module.copies)]);
      }
    });
    return kept;
  }

  /* llmcalc.planner.MemoryPlan's fields (data-tables' plan_parts): parts in display order, and their sum. */
  var PARTS;

  function memoryPlan(weights, kv, gradients, optimizerStates, activations) {
    return { weights: weights, kv_cache: kv, gradients: gradients, optimizer_states: optimizerStates,
             activations: activations, reserve: big(LIMITS.reserve) };
  }

  function planTotal(plan) {
    return PARTS.reduce(function (sum, part) { return sum + plan[part]; }, 0n);
  }

  /* llmcalc.planner.checked_model: the parameter count, refused beyond the limit. */
  function checkedModel(cfg) {
    var n = MC.paramCount(cfg);
    if (n > big(LIMITS.max_params)) {
      throw refusal("model_too_large", { params: n, max_params: big(LIMITS.max_params) });
    }
    return n;
  }

  /* llmcalc.planner.context_limit */
  function tokenLimit(cfg) {
    var learned = Number(cfg.learned_positions);
    return learned ? Math.min(learned, LIMITS.max_tokens) : LIMITS.max_tokens;
  }

  /* llmcalc.planner.trained_context: null when unknown (0). */
  function trainedContext(cfg) {
    var trained = Number(cfg.trained_context);
    return trained ? trained : null;
  }

  /* llmcalc.planner.context_search_limit */
  function contextSearchLimit(cfg, beyondTrained) {
    var limit = tokenLimit(cfg);
    var trained = trainedContext(cfg);
    return beyondTrained || trained === null ? limit : Math.min(trained, limit);
  }

  /* llmcalc.planner.gpu_memory: bytes (BigInt) of "22.49", "23034 MiB", "24GB" or a card's key, or null when the
   * text is no size in [MIN_GPU_BYTES, MAX_GPU_BYTES] (the widget says so in the page's language). */
  function gpuMemory(text) {
    var key = text.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, "").toLowerCase();
    if (Object.prototype.hasOwnProperty.call(TABLES.cards, key)) { return big(TABLES.cards[key]); }
    var match = /^[ \t\n\r\f\v]*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t\n\r\f\v]*([A-Za-z]*)[ \t\n\r\f\v]*$/.exec(text);
    if (!match || !Object.prototype.hasOwnProperty.call(TABLES.memory_units, match[2].toLowerCase())) { return null; }
    var parts = match[1].split(".");
    var fraction = parts.length > 1 ? parts[1] : "";
    var size = big((parts[0] + fraction) || "0") * big(TABLES.memory_units[match[2].toLowerCase()]) /
      (10n ** big(fraction.length));
    return size >= big(LIMITS.min_gpu_bytes) && size <= big(LIMITS.max_gpu_bytes) ? size : null;
  }

  /* llmcalc.planner.plan_inference: one GPU, or the busiest of tensor_parallel x pipeline_parallel. */
  function planInference(cfg, options) {
    checkedModel(cfg);
    checkCount("context", options.context, 1, tokenLimit(cfg));
    checkCount("batch", options.batch, 1, LIMITS.max_batch);
    var tp = checkCount("tensor_parallel", given(options.tensorParallel, 1), 1, LIMITS.max_gpus);
    var pp = checkCount("pipeline_parallel", given(options.pipelineParallel, 1), 1, LIMITS.max_gpus);
    if (tp > 1 || pp > 1) {
      return parallelInferencePlans(cfg, options, tp, pp).reduce(function (busiest, candidate) {
        return planTotal(candidate) > planTotal(busiest) ? candidate : busiest;
      });
    }
    var kv = kvCacheBytes(cfg, options.context, options.batch, options.kvFormat);
    var parts = weightFormatBytes(cfg, options.weightFormat);
    var weights = Object.keys(parts).reduce(function (sum, key) { return sum + parts[key]; }, 0n);
    return memoryPlan(weights, kv, 0n, 0n, 0n);
  }

  /* ---- llmcalc.planner: several GPUs for inference, as vLLM splits a dense model ---- */

  /* llmcalc.planner._parallel_model */
  function parallelModel(cfg) {
    checkedModel(cfg);
    if (cfg.n_experts > 1 || cfg.kv_lora_rank > 0) {
      throw refusal("parallel_needs_dense", { model_type: cfg.model_type || "custom" });
    }
  }

  /* llmcalc.planner.padded_vocab */
  function paddedVocab(cfg) {
    var pad = big(TABLES.parallel.vocab_padding);
    return ceilDiv(big(cfg.vocab_size), pad) * pad;
  }

  /* llmcalc.planner.tensor_parallel_sizes */
  function tensorParallelSizes(cfg) {
    parallelModel(cfg);
    var heads = Number(cfg.n_heads);
    var kv = Number(cfg.n_kv_heads);
    var vocab = paddedVocab(cfg);
    var sizes = [];
    for (var size = 1; size <= heads; size += 1) {
      if (heads % size === 0 && (kv % size === 0 || size % kv === 0) && big(cfg.d_ff) % big(size) === 0n &&
          vocab % big(size) === 0n) {
        sizes.push(size);
      }
    }
    return sizes;
  }

  /* llmcalc.planner.kv_heads_per_gpu */
  function kvHeadsPerGpu(cfg, tp) {
    var heads = big(cfg.n_kv_heads) / big(tp);
    return heads > 1n ? heads : 1n;
  }

  /* llmcalc.planner.pipeline_stages: vLLM's get_pp_indices. */
  function pipelineStages(layers, stages) {
    if (stages > layers) {
      throw refusal("pipeline_parallel_out_of_range", { n_layers: layers, value: stages });
    }
    var partitions = [];
    for (var stage = 0; stage < stages; stage += 1) { partitions.push(Math.floor(layers / stages)); }
    for (var index = 2; index < layers % stages + 2; index += 1) { partitions[stages - index] += 1; }
    return partitions;
  }

  /* llmcalc.planner._linear_bytes */
  function linearBytes(module, format, cfg, tp, layer) {
    var dIn = big(module.d_in);
    var dOut = big(module.d_out);
    var kvOut = kvHeadsPerGpu(cfg, tp) * big(cfg.head_dim);
    var t = big(tp);
    if (module.role === "k" || module.role === "v") {
      dOut = kvOut;
    } else if (module.role === "qkv") {
      dOut = big(cfg.n_heads) * big(cfg.head_dim) / t + 2n * kvOut;
    } else if (TABLES.parallel.column.indexOf(module.role) >= 0) {
      dOut /= t;
    } else if (TABLES.parallel.row.indexOf(module.role) >= 0) {
      dIn /= t;
    }
    var bias = module.bias ? dOut : 0n;
    if (isCheckpoint(format)) {
      if (!convertsModule(cfg, format, module, layer)) { return 2n * (dIn * dOut + bias); }
      var stored = storedBytes(format, dIn, dOut);
      return stored[0] + stored[1] + format.bias_bytes * bias;
    }
    if (converted(module, format, cfg)) {
      var parts = codesAndConstants(format, dIn, dOut, 1n);
      return parts[0] + parts[1] + 2n * bias;
    }
    return 2n * (dIn * dOut + bias);
  }

  /* llmcalc.planner.parallel_inference_plans: one GPU of each pipeline stage. */
  function parallelInferencePlans(cfg, options, tp, pp) {
    parallelModel(cfg);
    weightFormatBytes(cfg, options.weightFormat);
    var sizes = tensorParallelSizes(cfg);
    if (sizes.indexOf(tp) < 0) {
      throw refusal("tensor_parallel_does_not_divide", { n_heads: cfg.n_heads, n_kv_heads: cfg.n_kv_heads,
        d_ff: cfg.d_ff, vocab: paddedVocab(cfg), value: tp, sizes: sizes });
    }
    var layers = Number(cfg.n_layers);
    var stages = pipelineStages(layers, pp);
    var windowed = Number(cfg.sliding_window_layers);
    if (windowed > 0 && windowed < layers && stages.length > 1) {
      throw refusal("parallel_needs_dense", { model_type: cfg.model_type || "custom" });
    }
    var modules = MC.linearModules(cfg);
    var hasHead = modules.some(function (module) { return module.role === "lm_head"; });
    /* A checkpoint's skip list may keep some blocks' layers in 16 bits (Meta's 405B FP8: the first and last MLPs). */
    var byName = isCheckpoint(options.weightFormat) &&
      (options.weightFormat.skip.length > 0 || options.weightFormat.targets.length > 0);
    var layerBytes = [];
    for (var layer = 0; layer < (byName ? layers : 1); layer++) {
      layerBytes.push(modules.reduce(function (sum, module) {
        return module.role === "lm_head" ? sum : sum + linearBytes(module, options.weightFormat, cfg, tp, layer);
      }, 0n));
    }
    var d = big(cfg.d_model);
    var finalNorm = { rmsnorm: d, layernorm: 2n * d, "parameter-free": 0n }[cfg.norm];
    var perLayerNorms = 2n * (big(MC.paramBreakdown(cfg).norms) - finalNorm) / big(layers);
    var vocabRows = 2n * paddedVocab(cfg) / big(tp) * d;
    var headBytes = vocabRows + (cfg.lm_head_bias ? 2n * paddedVocab(cfg) / big(tp) : 0n);
    var head = modules.filter(function (module) { return module.role === "lm_head"; })[0];
    if (head && isCheckpoint(options.weightFormat) && convertsModule(cfg, options.weightFormat, head, 0)) {
      var headParts = storedBytes(options.weightFormat, d, paddedVocab(cfg) / big(tp));
      headBytes = headParts[0] + headParts[1] +
        (cfg.lm_head_bias ? options.weightFormat.bias_bytes * paddedVocab(cfg) / big(tp) : 0n);
    }
    var wholeKv = kvCacheBytes(cfg, options.context, options.batch, options.kvFormat);
    var kvHeads = kvHeadsPerGpu(cfg, tp);
    var firstLayer = 0;
    return stages.map(function (stageLayers, index) {
      var weights = big(stageLayers) * perLayerNorms;
      if (byName) {
        layerBytes.slice(firstLayer, firstLayer + stageLayers).forEach(function (bytes) { weights += bytes; });
      } else {
        weights += big(stageLayers) * layerBytes[0];
      }
      firstLayer += stageLayers;
      if (index === 0) { weights += vocabRows + 2n * big(cfg.learned_positions) * d; }
      if (index === stages.length - 1) { weights += 2n * finalNorm + (hasHead || stages.length > 1 ? headBytes : 0n); }
      var kv = ceilDiv(wholeKv * big(stageLayers) * kvHeads, big(layers) * big(cfg.n_kv_heads));
      return memoryPlan(weights, kv, 0n, 0n, 0n);
    });
  }

  /* ---- llmcalc.planner: training state as the libraries prepare it ---- */

  /* llmcalc.planner._trained_tensors: [values, copies] of every parameter tensor. */
  function trainedTensors(cfg) {
    var tensors = [];
    MC.linearModules(cfg).forEach(function (module) {
      tensors.push([big(module.d_in) * big(module.d_out), big(module.copies)]);
      if (module.bias) { tensors.push([big(module.d_out), big(module.copies)]); }
    });
    tensors.push([big(cfg.vocab_size) * big(cfg.d_model), 1n], [big(cfg.learned_positions) * big(cfg.d_model), 1n]);
    var normTensors = big({ rmsnorm: 1, layernorm: 2, "parameter-free": 0 }[cfg.norm]);
    var widths = [];
    for (var i = 0; i < Number(cfg.norms_per_layer); i += 1) { widths.push(big(cfg.d_model)); }
    if (cfg.qk_norm === "per-head") { widths.push(big(cfg.head_dim), big(cfg.head_dim)); }
    if (cfg.qk_norm === "per-projection") {
      widths.push(big(cfg.n_heads) * big(cfg.head_dim), big(cfg.n_kv_heads) * big(cfg.head_dim));
    }
    if (big(cfg.kv_lora_rank) > 0n) {
      widths.push(big(cfg.kv_lora_rank));
      if (big(cfg.q_lora_rank) > 0n) { widths.push(big(cfg.q_lora_rank)); }
    }
    widths.forEach(function (width) { tensors.push([width, big(cfg.n_layers) * normTensors]); });
    tensors.push([big(cfg.d_model), normTensors]);
    return tensors.filter(function (t) { return t[0] > 0n && t[1] > 0n; });
  }

  /* llmcalc.planner._adapter_tensors: lora_A (rank x d_in) and lora_B (d_out x rank) of each adapted module. */
  function adapterTensors(cfg, rank, targets) {
    var r = big(rank);
    var tensors = [];
    MC.loraTargets(cfg, targets).forEach(function (m) {
      tensors.push([r * big(m.d_in), big(m.copies)], [big(m.d_out) * r, big(m.copies)]);
    });
    return tensors;
  }

  /* llmcalc.planner.adamw_8bit_state_bytes: bitsandbytes' AdamW8bit, block constants and shared maps included. */
  function adamw8bitStateBytes(tensors) {
    var b = TABLES.bnb_optimizer;
    var total = 0n;
    var any8bit = false;
    tensors.forEach(function (t) {
      if (t[0] < big(b.min_8bit_size)) { total += t[1] * 8n * t[0]; return; }
      any8bit = true;
      total += t[1] * (2n * t[0] + 8n * ceilDiv(t[0], big(b.block)));
    });
    return total + (any8bit ? big(b.maps) : 0n);
  }

  /* llmcalc._validate.choice (Python's "did you mean" suggestion is left to Python). */
  function checkChoice(name, value, choices) {
    if (typeof value !== "string") {
      throw refusal("not_one_of_type", { name: name, options: choices, value: value, type: typeof value });
    }
    if (choices.indexOf(value) < 0) {
      throw refusal("not_one_of", { name: name, options: choices, value: value, suggestion: null });
    }
    return value;
  }

  /* llmcalc.planner.training_state_bytes (LoRA and QLoRA; full fine-tuning is planTraining's). */
  function adapterTrainingState(cfg, options) {
    var preparation = checkChoice("qlora_preparation", given(options.qloraPreparation, "kbit"),
      TABLES.qlora_preparations);
    checkCount("lora_rank", options.rank, 1, null);
    var baseParts = weightFormatBytes(cfg, options.task === "qlora" ? "nf4-dq" : "bf16");
    var base = baseParts.quantized + baseParts.constants + baseParts.unquantized;
    if (options.task === "qlora" && preparation === "kbit") {
      var quantizedBiases = 0n;
      MC.linearModules(cfg).forEach(function (m) {
        if (m.bias && converted(m, "nf4-dq", cfg)) { quantizedBiases += 2n * big(m.d_out) * big(m.copies); }
      });
      base += baseParts.unquantized - quantizedBiases;
    } else if (options.task === "qlora" && preparation === "norms") {
      base += 2n * big(MC.paramBreakdown(cfg).norms);
    }
    var adapters = trainingMemory(MC.loraModelParams(cfg, options.rank, options.targets), options.optimizer,
      given(options.adapterDtype, "fp32"));
    var states = options.optimizer === "adamw-8bit"
      ? adamw8bitStateBytes(adapterTensors(cfg, options.rank, options.targets)) : adapters.optimizer_states;
    return { weights: base + adapters.weights, gradients: adapters.gradients, optimizer_states: states };
  }

  /* llmcalc.planner.TASKS but inference (from data-tables): what plan_training plans. */
  var TRAINING_TASKS;

  /* llmcalc.planner.plan_training */
  function planTraining(cfg, options) {
    /* Checked in llmcalc's order, so that of two bad inputs the same one is named. */
    var n = checkedModel(cfg);
    checkChoice("task", options.task, TRAINING_TASKS);
    checkCount("seq_len", options.seqLen, 1, tokenLimit(cfg));
    checkCount("micro_batch", options.microBatch, 1, LIMITS.max_batch);
    checkChoice("optimizer", options.optimizer, Object.keys(TABLES.optimizers));
    checkCount("n_gpus", options.nGpus, 1, LIMITS.max_gpus);
    checkCount("zero_stage", options.zeroStage, 0, TABLES.zero_sharded.length - 1);
    if (options.task === "full") {
      /* LoRA's options change nothing here; a bad one is refused all the same, as llmcalc refuses it. */
      checkCount("lora_rank", given(options.rank, 16), 1, null);
      checkDropout(given(options.loraDropout, 0));
      checkChoice("adapter_dtype", given(options.adapterDtype, "fp32"), TABLES.adapter_dtypes);
      var precision = checkChoice("precision", given(options.precision, TABLES.full_precisions[0]),
        TABLES.full_precisions);
      var activations = activationPeak(cfg, options.microBatch, options.seqLen, options.checkpointing, options);
      var parts = zeroMemoryPerGpu(n, options.zeroStage, options.nGpus, options.optimizer,
        TABLES.precision_recipes[precision]);
      var states = parts.optimizer_states;
      if (options.optimizer === "adamw-8bit") {
        states = options.zeroStage === 0 ? adamw8bitStateBytes(trainedTensors(cfg))
          : adamw8bitStateBytes([[ceilDiv(n, big(options.nGpus)), 1n]]);
      }
      var weights = parts.weights;
      var gradients = parts.gradients;
      if (options.zeroStage === 3) {
        var full = trainingMemory(n, options.optimizer, TABLES.precision_recipes[precision]);
        var buffers = zero3BufferBytes(cfg, full.weights, n, full.gradients);
        weights += buffers[0];
        gradients += buffers[1];
      }
      return memoryPlan(weights, 0n, gradients, states + parts.master_weights, activations);
    }
    /* QLoRA's 4-bit base keeps its weight, not its input, for backward: measured the same bytes as LoRA, unless
     * prepare_model_for_kbit_training made the residual stream fp32 (activationPeak). */
    var loraActivations = activationPeak(cfg, options.microBatch, options.seqLen, options.checkpointing, options);
    var state = adapterTrainingState(cfg, options);
    if (options.zeroStage === 0) {
      return memoryPlan(state.weights, 0n, state.gradients, state.optimizer_states, loraActivations);
    }
    if (options.task === "qlora" && options.zeroStage === 3 && given(options.qloraPreparation, "kbit") !== "none") {
      throw refusal("qlora_zero3_one_dtype", { zero_stage: options.zeroStage });
    }
    var sharded = shardedAdapterState(cfg, options, state);
    return memoryPlan(sharded[0], 0n, sharded[1], sharded[2], loraActivations);
  }

  /* llmcalc.trainers.setup_settings' refusal: axolotl casts back only what its module names find. */
  function checkSetupCovers(cfg, options) {
    if (options.setup === "axolotl" && options.task === "qlora" &&
        (isMoe(cfg) || TABLES.axolotl_restored_layouts.indexOf(cfg.layout) < 0)) {
      throw refusal("setup_leaves_fp32", { setup: options.setup, model_type: cfg.model_type || cfg.layout });
    }
  }

  /* llmcalc.planner.zero3_buffer_bytes: [gathered parameters, reduce bucket] in bytes. */
  function zero3BufferBytes(cfg, weightBytes, trained, gradientBytes) {
    var Z = TABLES.zero3;
    var n = MC.paramCount(cfg);
    var largest = big(cfg.vocab_size) * big(cfg.d_model);
    MC.linearModules(cfg).forEach(function (m) {
      var size = big(m.d_in) * big(m.d_out);
      if (size > largest) { largest = size; }
    });
    var withPrefetch = largest + big(Z.prefetch_bucket_size);
    var capped = withPrefetch < big(Z.max_live_parameters) ? withPrefetch : big(Z.max_live_parameters);
    var gathered = capped > largest ? capped : largest;
    var gatheredBytes = ceilDiv((gathered < n ? gathered : n) * weightBytes, n);
    var t = big(trained);
    var bucket = t < big(Z.reduce_bucket_size) ? t : big(Z.reduce_bucket_size);
    return [gatheredBytes, t > 0n ? ceilDiv(bucket * gradientBytes, t) : 0n];
  }

  /* llmcalc.planner._sharded_adapter_state: [weights, gradients, optimizer states] on one GPU under ZeRO. */
  function shardedAdapterState(cfg, options, state) {
    var trained = big(MC.loraModelParams(cfg, options.rank, options.targets));
    var gpus = big(options.nGpus);
    var shard = ceilDiv(trained, gpus);
    var adapters = trainingMemory(trained, options.optimizer, given(options.adapterDtype, "fp32"));
    var split = trainingMemory(shard, options.optimizer, given(options.adapterDtype, "fp32"));
    var states = options.optimizer === "adamw-8bit" ? adamw8bitStateBytes([[shard, 1n]]) : split.optimizer_states;
    var gradients = options.zeroStage >= 2 ? split.gradients : state.gradients;
    var weights = state.weights;
    if (options.zeroStage === 3) {
      var base = state.weights - adapters.weights;
      var constants = options.task === "qlora" ? weightFormatBytes(cfg, "nf4-dq").constants : 0n;
      weights = ceilDiv(base - constants, gpus) + constants + split.weights;
      var buffers = zero3BufferBytes(cfg, base, trained, adapters.gradients);
      weights += buffers[0];
      gradients += buffers[1];
    }
    return [weights, gradients, states];
  }

  /* llmcalc._search.largest_holding: the largest n in [low, high] (low 0 unless given) for which holds(n), by
   * binary search; holds(low) is taken as true without being asked. */
  function largestHolding(holds, high, low) {
    var lowest = low === undefined ? 0 : low;
    var highest = high;
    while (lowest < highest) {
      var middle = Math.floor((lowest + highest + 1) / 2);
      if (holds(middle)) { lowest = middle; } else { highest = middle - 1; }
    }
    return lowest;
  }

  /* llmcalc.planner.largest_fitting: the largest n in [1, limit] whose plan fits, 0 if none. */
  function largestFitting(plan, gpuBytes, limit) {
    return largestHolding(function (n) { return planTotal(plan(n)) <= gpuBytes; }, limit);
  }

  /* ---- Inference engines: llmcalc.engines, named alike ---- */

  /* llmcalc.engines._dense: the engine plans take dense full-attention models only. */
  function denseOnly(cfg) {
    if (cfg.n_experts > 1 || cfg.kv_lora_rank > 0 || cfg.sliding_window > 0) {
      throw refusal("engine_needs_dense", { model_type: cfg.model_type || "custom" });
    }
  }

  /* llmcalc.engines._vllm_model: dense or routed experts, full attention or a window on every or every other layer. */
  function vllmModel(cfg) {
    if (cfg.kv_lora_rank > 0 || cfg.shared_expert_d_ff > 0 || cfg.dense_layers > 0) {
      throw refusal("vllm_engine_unmodelled", { model_type: cfg.model_type || "custom" });
    }
    var windowed = cfg.sliding_window > 0 ? big(cfg.sliding_window_layers) : 0n;
    var layers = big(cfg.n_layers);
    if (windowed > 0n && windowed !== layers && 2n * windowed !== layers) {
      throw refusal("vllm_window_pattern_unchecked", { model_type: cfg.model_type || "custom", windowed: windowed,
                                                       full: layers - windowed });
    }
  }

  /* llmcalc.engines.vllm_fused_moe_bytes: the fused experts' buffers and the routing tensors. */
  function vllmFusedMoeBytes(cfg, tokens, tp) {
    var n = big(tokens);
    var routes = big(cfg.experts_per_token);
    var chunk = n < big(TABLES.engines.fused_moe_chunk) ? n : big(TABLES.engines.fused_moe_chunk);
    var gateUp = 2n * big(cfg.expert_d_ff || cfg.d_ff) / big(tp);
    var d = big(cfg.d_model);
    var two = big(TABLES.engines.activation_bytes);
    return chunk * routes * two * ((gateUp > d ? gateUp : d) + gateUp / 2n) + n * (two * big(cfg.n_experts) + 12n * routes);
  }

  /* llmcalc.engines.generate_prefill_parts: [the prompt's bf16 KV cache, the prefill's working memory at its peak]. */
  function generatePrefillParts(cfg, prompt, batch, attention) {
    denseOnly(cfg);
    checkCount("batch", batch, 1, 65536);
    checkCount("prompt", prompt, 1, 16777216);
    var E = TABLES.engines;
    var two = big(E.activation_bytes);
    var sequences = big(batch);
    var tokens = big(prompt);
    var n = sequences * tokens;
    var kv = kvCacheBytes(cfg, prompt, batch, "bf16");
    var d = big(cfg.d_model);
    var ff = big(cfg.d_ff);
    var gpt2 = cfg.layout === "gpt2";
    var mlp = n * two * (cfg.ffn === "mlp" ? 5n * ff + 2n * d : 3n * ff + 4n * d);
    var logits = sequences * big(cfg.vocab_size) * (two + 4n) + n * two * 2n * d;
    var scores = sequences * big(cfg.n_heads) * tokens * tokens;
    var masks = sequences * tokens * tokens * two;
    if (attention === "eager" && gpt2) { mlp += scores * two + masks; }
    var eager = attention === "eager" && !gpt2 ? n * two * 6n * d + 10n * scores + masks : 0n;
    var working = mlp > eager ? mlp : eager;
    return [kv, working > logits ? working : logits];
  }

  /* llmcalc.engines.plan_generate */
  function planGenerate(cfg, options) {
    var base = planInference(cfg, { context: options.context, batch: options.batch, weightFormat: options.weightFormat,
                                    kvFormat: "bf16" });
    var prefill = generatePrefillParts(cfg, options.context, options.batch, options.attention);
    return memoryPlan(base.weights, prefill[0], 0n, 0n, prefill[1]);
  }

  /* llmcalc.engines.vllm_profile_peak: the larger of a layer's MLP and the sampler's warm-up. */
  function vllmProfilePeak(cfg, tokens, tp, maxNumSeqs, samplerFilter) {
    vllmModel(cfg);
    checkCount("max_num_batched_tokens", tokens, 1, 16777216);
    var two = big(TABLES.engines.activation_bytes);
    var width = big(cfg.d_ff) / big(tp);
    var mlp = big(tokens) * two * 3n * big(cfg.d_model) + (cfg.n_experts > 1 ? vllmFusedMoeBytes(cfg, tokens, tp)
      : big(tokens) * two * (cfg.ffn === "swiglu" ? 3n * width : 2n * width));
    var sampler = vllmSamplerPeak(cfg, tokens, maxNumSeqs, samplerFilter);
    if (cfg.n_experts > 1 && given(samplerFilter, "sort") === "triton") { sampler += vllmMoeWorkspace(cfg, tokens, tp); }
    return mlp > sampler ? mlp : sampler;
  }

  /* llmcalc.engines._vllm_moe_workspace: the fused-MoE workspace vLLM 0.19 and 0.20 keep between calls. */
  function vllmMoeWorkspace(cfg, tokens, tp) {
    var n = big(tokens);
    var chunk = n < big(TABLES.engines.fused_moe_chunk) ? n : big(TABLES.engines.fused_moe_chunk);
    var gateUp = 2n * big(cfg.expert_d_ff || cfg.d_ff) / big(tp);
    var d = big(cfg.d_model);
    var half = gateUp / 2n;
    return chunk * big(cfg.experts_per_token) * big(TABLES.engines.activation_bytes)
      * ((half > d ? half : d) + (gateUp > d ? gateUp : d));
  }

  /* llmcalc.engines.vllm_sampler_peak */
  function vllmSamplerPeak(cfg, tokens, maxNumSeqs, samplerFilter) {
    var E = TABLES.engines;
    var n = big(checkCount("max_num_batched_tokens", tokens, 1, 16777216));
    var seqs = big(checkCount("max_num_seqs", given(maxNumSeqs, E.max_num_seqs), 1, 16777216));
    if (n < seqs) { seqs = n; }
    var fp32 = big(E.fp32_bytes);
    if (checkChoice("sampler_filter", given(samplerFilter, "sort"), E.sampler_filters) === "triton"
        && seqs >= big(E.triton_filter_min_rows)) {
      /* The 16-bit logits, their FP32 copy, the probabilities and the noise, all live while it samples. */
      return n * big(E.activation_bytes) * big(cfg.d_model)
        + seqs * (big(E.activation_bytes) * paddedVocab(cfg) + 3n * fp32 * big(cfg.vocab_size));
    }
    var logits = seqs * (big(E.activation_bytes) * paddedVocab(cfg) + fp32 * big(cfg.vocab_size));
    return n * big(E.activation_bytes) * big(cfg.d_model) + logits + torchSortBytes(seqs, big(cfg.vocab_size), fp32);
  }

  /* llmcalc.engines.torch_sort_bytes: the outputs and the scratch of the path SortStable.cu takes. */
  /** @param {bigint} rows @param {bigint} length @param {bigint} value */
  function torchSortBytes(rows, length, value) {
    var outputs = rows * length * (value + 8n);
    if (length <= big(TABLES.engines.torch_sort_small_row)) { return outputs; }
    if (rows === 1n || length >= 1000000n) { return outputs + length * (8n + value + 8n); }
    if (rows < 128n) { return outputs + rows * length * (16n + value + value + 8n); }
    return outputs + rows * length * (8n + value + 8n);
  }

  /* llmcalc.engines.plan_vllm: the start-up budget and the KV-cache pool, as vLLM prints them. */
  function planVllm(cfg, gpuBytes, options) {
    vllmModel(cfg);
    checkedModel(cfg);
    var hybrid = checkFlag("hybrid_kv_cache", given(options.hybridKvCache, false));
    var E = TABLES.engines;
    var utilization = options.utilization;
    if (!(utilization > 0 && utilization <= 1)) {
      throw refusal("number_out_of_range", { name: "gpu_memory_utilization", minimum: 0, maximum: 1,
        min_inclusive: false, max_inclusive: true, value: utilization });
    }
    var length = checkCount("max_model_len", options.context, 1, tokenLimit(cfg));
    var batched = options.maxNumBatchedTokens;
    var requested = big(Math.trunc(Number(gpuBytes) * utilization));
    var nonTorch = big(checkCount("non_torch_bytes", big(given(options.nonTorchBytes, E.non_torch)), 0n,
                                  big(gpuBytes)));
    var graphs = big(checkCount("cuda_graph_bytes", big(options.cudaGraphBytes), 0n, big(gpuBytes)));
    var tp = checkCount("tensor_parallel", given(options.tensorParallel, 1), 1, LIMITS.max_gpus);
    var weights;
    var tokenBytes = kvCacheBytes(cfg, 1, 1, options.kvFormat);
    if (tp === 1) {
      var parts = weightFormatBytes(cfg, options.weightFormat);
      weights = Object.keys(parts).reduce(function (sum, key) { return sum + parts[key]; }, 0n);
    } else {
      // llmcalc.engines._weights_per_gpu: every expert split like one MLP n_experts times as wide, the router whole.
      var wide = cfg.n_experts > 1 ? MC.modelConfig(Object.assign({}, cfg, { n_experts: 1n, experts_per_token: 1n,
        model_type: "", d_ff: big(cfg.n_experts) * big(cfg.expert_d_ff || cfg.d_ff), expert_d_ff: 0n })) : cfg;
      weights = parallelInferencePlans(wide, { context: 1, batch: 1, weightFormat: options.weightFormat,
                                                kvFormat: options.kvFormat }, tp, 1)[0].weights;
      if (cfg.n_experts > 1) {
        weights += (big(cfg.n_layers) - big(cfg.dense_layers)) * big(cfg.d_model) * big(cfg.n_experts) *
          big(E.activation_bytes);
      }
      tokenBytes = ceilDiv(tokenBytes * kvHeadsPerGpu(cfg, tp), big(cfg.n_kv_heads));
    }
    var blockSize = big(E.block_size);
    var layers = big(cfg.n_layers);
    var windowed = cfg.sliding_window > 0 ? big(cfg.sliding_window_layers) : 0n;
    var grouped = hybrid && windowed > 0n;
    // llmcalc.engines._kv_cache_groups: groups of as many layers as the smaller kind, sharing one pool of blocks.
    var blockBytes = blockSize * tokenBytes / layers * (grouped ? windowed : layers);
    var fullGroups = grouped && windowed !== layers ? 1n : 0n;
    var windowGroups = grouped ? 1n : 0n;
    var span = big(cfg.sliding_window) - 1n + big(batched);
    var peak = vllmProfilePeak(cfg, batched, tp, options.maxNumSeqs, options.samplerFilter);
    nonTorch += graphs;
    var available = requested - weights - peak - nonTorch;
    var blocks = available > 0n ? available / blockBytes : 0n;
    var groups = grouped ? fullGroups + windowGroups : 1n;
    var tokens = blocks / groups * blockSize;
    function blocksPerRequest(len) {
      var full = ceilDiv(big(len), blockSize);
      if (!grouped) { return full; }
      var kept = span < big(len) ? span : big(len);
      return fullGroups * full + windowGroups * (ceilDiv(kept, blockSize) + 1n);
    }
    var perRequest = blocksPerRequest(length);
    return { requested: requested, weights: weights, profile_peak: peak, non_torch: nonTorch,
             block_bytes: blockBytes, blocks: blocks, block_size: blockSize, max_model_len: big(length),
             available_kv: available, kv_tokens: tokens, kv_groups: groups, window_groups: windowGroups,
             window_span: span, blocks_per_request: perRequest,
             max_concurrency: grouped ? Number(blocks) / Number(perRequest) : Number(tokens) / Number(length),
             starts: grouped ? blocks >= perRequest : tokens >= big(length),
             /* llmcalc.engines.VllmPlan.longest_model_len */
             longestModelLen: function (limit) {
               return largestHolding(function (n) { return blocksPerRequest(n) <= blocks; }, limit);
             } };
  }

  window.LLMPlanner = {
    kvCacheBytes: kvCacheBytes,
    trainingMemory: trainingMemory,
    zeroMemoryPerGpu: zeroMemoryPerGpu,
    weightFormatBytes: function (cfg, format) { return weightFormatBytes(cfg, format); },
    modelledWeightFormats: modelledWeightFormats,
    lighterWeightFormats: lighterWeightFormats,
    keptLinearModules: keptLinearModules,
    parallelInferencePlans: parallelInferencePlans,
    activationPeak: activationPeak,
    adamw8bitStateBytes: adamw8bitStateBytes,
    tokenLimit: tokenLimit,
    trainedContext: trainedContext,
    defaultTokens: defaultTokens,
    defaultLoraTargets: defaultLoraTargets,
    largestLowRank: largestLowRank,
    contextSearchLimit: contextSearchLimit,
    gpuMemory: gpuMemory,
    limits: function () { return LIMITS; },
    useTables: useTables,
    planInference: planInference,
    planTraining: planTraining,
    zero3BufferBytes: zero3BufferBytes,
    tables: function () { return TABLES; },
    planTotal: planTotal,
    largestFitting: largestFitting,
    largestHolding: largestHolding,
    generatePrefillParts: generatePrefillParts,
    planGenerate: planGenerate,
    planVllm: planVllm,
    tensorParallelSizes: tensorParallelSizes,
    specMismatch: specMismatch,
    memoryPlan: memoryPlan,
    checkSetupCovers: checkSetupCovers,
    isCheckpoint: isCheckpoint,
    ceilDiv: ceilDiv,
  };
})();
