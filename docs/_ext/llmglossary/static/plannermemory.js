/* The "Will it fit?" planner's arithmetic, the part that mirrors llmcalc._validate's checks and llmcalc.memory's
 * formulas, and the tables every part reads.
 *
 * One of the classic scripts (module scripts do not load from file://) that split llmcalc's mirror along its
 * modules; they load in calculators/scripts.py's order and share their functions and the tables through
 * window.LLMPlannerParts (P), read when a function runs, so no script depends on the order of the others'
 * definitions.  planner.js exports the public API (window.LLMPlanner).  Bytes are BigInt.
 */
(function () {
  "use strict";

  var P = window.LLMPlannerParts = window.LLMPlannerParts || {};

  var MC = window.LLMModelConfig;
  /* llmcalc's refusals: a stable code and parameters (llmcalc.errors); the page words the message. */
  function refusal(code, params) { return new MC.LLMCalcError(code, params || {}); }
  /* llmcalc's tables (planner limits and reserve, DTYPE_BITS, OPTIMIZER_STATES, PRECISION_BYTES, ZERO_SHARDED and the
   * weight-format rules), from the widget's data-tables: never retyped here.  useTables puts them on P (P.TABLES,
   * P.LIMITS and the family traits below), where every part reads them when a function runs. */
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
    P.TABLES = tables;
    P.LIMITS = tables.limits;
    var traits = tables.activations_traits;
    P.MLP_WIDE_TENSORS = bigValues(traits.mlp_wide_tensors);
    P.FP32_SCALE_NORMS = traits.fp32_scale_norms;
    P.EAGER_ONLY = traits.eager_only;
    P.FOUR_NORMS = traits.four_norms;
    P.SOFT_CAPPED = traits.soft_capped;
    P.POST_NORMS = traits.post_norms;
    P.ROTARY_TABLES = bigValues(traits.rotary_tables);
    P.FP32_ROTARY = traits.fp32_rotary;
    P.CAT_ROTARY = traits.cat_rotary;
    P.FUSED_QKV = traits.fused_qkv;
    P.FFN_INPUT_ROLES = traits.ffn_input_roles;
    P.BLOCK_INPUT_ROLES = traits.block_input_roles;
    P.LATENT_ATTENTION_ROLES = traits.latent_attention_roles;
    P.PARTS = tables.plan_parts;
    P.TRAINING_TASKS = tables.tasks.filter(function (task) { return task !== "inference"; });
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
    return window.LLMModelCounts.kvCacheBytes(cfg, tokens, batch, P.TABLES.dtype_bits[dtype]);
  }

  /* llmcalc.memory.training_memory */
  /** @param {bigint} n @returns {TrainingMemory & {master_weights: bigint}} */
  function trainingMemory(n, optimizer, precision) {
    var states = P.TABLES.optimizers[optimizer];
    var recipe = P.TABLES.precisions[precision].map(big);
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
      parts[part] = P.TABLES.zero_sharded[stage].indexOf(part) >= 0 ? split[part] : full[part];
    });
    return parts;
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

  /* What the other parts call. */
  Object.assign(P, { MC: MC, refusal: refusal, SPEC_VERSION: SPEC_VERSION, specMismatch: specMismatch,
    useTables: useTables, bigValues: bigValues, big: big, ceilDiv: ceilDiv, checkCount: checkCount,
    checkFlag: checkFlag, given: given, kvCacheBytes: kvCacheBytes, trainingMemory: trainingMemory,
    zeroMemoryPerGpu: zeroMemoryPerGpu, checkChoice: checkChoice, checkDropout: checkDropout });
})();
