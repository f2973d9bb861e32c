/* The "Will it fit?" planner's arithmetic, the part that mirrors llmcalc.weightformats and llmcalc.checkpoints: the
 * bytes of the weights as a format or a checkpoint stores them.
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
  function ceilDiv(a, b) { return (a + b - 1n) / b; }

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
    if (cfg.attention_sinks || cfg.router_bias) { return ["bf16"]; }  // gpt-oss: no recipe measured on it
    var noGptq = cfg.n_experts > 1 || Object.prototype.hasOwnProperty.call(P.TABLES.no_gptq_layouts, cfg.layout);
    return P.TABLES.weight_formats.filter(function (f) { return !(noGptq && f === "int4"); });
  }

  /* llmcalc.weightformats.lighter_weight_formats: the modelled formats after format, least lossy first. */
  function lighterWeightFormats(cfg, format) {
    var at = P.TABLES.weight_formats.indexOf(format);
    if (at < 0) { return []; }
    var later = P.TABLES.weight_formats.slice(at + 1);
    return modelledWeightFormats(cfg).filter(function (f) { return later.indexOf(f) >= 0; });
  }

  /* llmcalc.weightformats.weight_format_bytes */
  function weightFormatBytes(cfg, format) {
    if (isCheckpoint(format)) { return checkpointWeightBytes(cfg, format); }
    var formats = P.TABLES.weight_formats;
    if (formats.indexOf(format) < 0) {
      throw P.refusal("not_one_of", { name: "weight_format", options: formats, value: format, suggestion: null });
    }
    if (modelledWeightFormats(cfg).indexOf(format) < 0) {
      if (cfg.attention_sinks || cfg.router_bias) {
        throw P.refusal("weight_format_unmeasured", { weight_format: format, model_type: cfg.model_type || "custom",
          formats: modelledWeightFormats(cfg) });
      }
      throw P.refusal("gptq_not_modelled", { formats: formats.filter(function (f) { return f !== "int4"; }) });
    }
    var quantized = 0n;
    var constants = 0n;
    var convertedWeights = 0n;
    var fp32Weights = 0n;
    var modules = P.MC.linearModules(cfg);
    /* get_keys_to_not_convert skips the model's last parameter: the last block's last linear layer when the
     * head is tied and the norms have no weights. */
    var lastKept = format !== "bf16" && format !== "int4" && cfg.tie_embeddings && cfg.norm === "parameter-free";
    modules.forEach(function (module, index) {
      var copies = big(module.copies) - (lastKept && index === modules.length - 1 ? 1n : 0n);
      if (module.role === "router" && P.TABLES.fp32_routers.indexOf(cfg.model_type) >= 0) {
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
    var unquantized = 2n * (P.MC.paramCount(cfg) - convertedWeights + fp32Weights);
    return { quantized: quantized, constants: constants, unquantized: unquantized };
  }

  /* ---- llmcalc.checkpoints: a quantized checkpoint's bytes, from the format MC.checkpointFromHf read ---- */

  var isCheckpoint = function (format) { return typeof format === "object" && format !== null; };

  /* llmcalc.checkpoints.stored_bytes */
  /** @param {bigint} dIn @param {bigint} dOut @returns {[bigint, bigint]} */
  function storedBytes(fmt, dIn, dOut) {
    if (fmt.codes.indexOf("bnb-") === 0) { return codesAndConstants(fmt.codes.slice(4), dIn, dOut, 1n); }
    if (fmt.codes === "mxfp4") {  // per row, ceil(d_in / 32) blocks of 16 code bytes and one scale byte
      var mxBlocks = dOut * ceilDiv(dIn, fmt.group_size);
      return [mxBlocks * fmt.group_size * fmt.bits / 8n, mxBlocks * fmt.scale_bytes];
    }
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
    if (module.role === "lm_head") { return [P.TABLES.checkpoints.head_name[cfg.layout] || "lm_head"]; }
    var prefix = P.TABLES.checkpoints.block_prefix[cfg.layout] || "model.layers";
    var layers = Number(cfg.n_layers);
    var dense = layers - Number(P.MC.moeLayers(cfg));
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
    if (fmt.codes === "mxfp4") { return module.path.indexOf("mlp.experts.") === 0; }
    if (fmt.codes.indexOf("bnb-") === 0 && !module.adaptable) { return false; }
    return cfg.layout !== "falcon" && cfg.layout !== "gpt2";
  }

  /* llmcalc.checkpoints._converted_copies: [module, copies converted] for every linear module. */
  /** @param {ModelConfig} cfg @returns {Array<[LinearModule, bigint]>} */
  function convertedCopies(cfg, fmt) {
    var matches = checkpointMatcher(fmt);
    var limit = big(P.TABLES.checkpoints.max_named_copies);
    return P.MC.linearModules(cfg).map(function (module) {
      if (!eligible(cfg, fmt, module)) { return [module, 0n]; }
      if (!fmt.skip.length && !fmt.targets.length) { return [module, big(module.copies)]; }
      if (big(module.copies) > limit) {
        throw P.refusal("quantization_unmodelled", { method: fmt.method, key: module.path + " copies",
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
      if (module.role === "router" && P.TABLES.fp32_routers.indexOf(cfg.model_type) >= 0) { fp32 += big(module.params); }
      if (!copies) { return; }
      var parts = storedBytes(fmt, big(module.d_in), big(module.d_out));
      quantized += copies * parts[0];
      constants += copies * (parts[1] + (fmt.bias_bytes - 2n) * (module.bias ? big(module.d_out) : 0n));
      convertedWeights += copies * big(module.d_in) * big(module.d_out);
    });
    constants += fmt.kv_scale_bytes * big(cfg.n_layers);
    return { quantized: quantized, constants: constants, unquantized: 2n * (P.MC.paramCount(cfg) - convertedWeights + fp32) };
  }

  /* llmcalc.checkpoints.converts: whether the format stores a dense model's module of block `layer` quantized. */
  function convertsModule(cfg, fmt, module, layer) {
    if (!eligible(cfg, fmt, module)) { return false; }
    var prefix = P.TABLES.checkpoints.block_prefix[cfg.layout] || "model.layers";
    var name = module.role === "lm_head" ? P.TABLES.checkpoints.head_name[cfg.layout] || "lm_head"
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
    var modules = P.MC.linearModules(cfg);
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

  /* What the other parts call. */
  Object.assign(P, { converted: converted, codesAndConstants: codesAndConstants,
    modelledWeightFormats: modelledWeightFormats, lighterWeightFormats: lighterWeightFormats,
    weightFormatBytes: weightFormatBytes, isCheckpoint: isCheckpoint, storedBytes: storedBytes,
    moduleNames: moduleNames, BOUNDARY: BOUNDARY, checkpointMatcher: checkpointMatcher, eligible: eligible,
    convertedCopies: convertedCopies, checkpointWeightBytes: checkpointWeightBytes, convertsModule: convertsModule,
    keptLinearModules: keptLinearModules });
})();
