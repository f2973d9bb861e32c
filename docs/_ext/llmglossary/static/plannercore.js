/* The "Will it fit?" planner's arithmetic, the part that mirrors llmcalc.planner (and llmcalc._search): the inference and
 * training plans.
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

  /* llmcalc.planner.MemoryPlan's fields (data-tables' plan_parts, P.PARTS): parts in display order, and their sum. */
  function memoryPlan(weights, kv, gradients, optimizerStates, activations) {
    return { weights: weights, kv_cache: kv, gradients: gradients, optimizer_states: optimizerStates,
             activations: activations, reserve: big(P.LIMITS.reserve) };
  }

  function planTotal(plan) {
    return P.PARTS.reduce(function (sum, part) { return sum + plan[part]; }, 0n);
  }

  /* llmcalc.planner.checked_model: the parameter count, refused beyond the limit. */
  function checkedModel(cfg) {
    var n = P.MC.paramCount(cfg);
    if (n > big(P.LIMITS.max_params)) {
      throw P.refusal("model_too_large", { params: n, max_params: big(P.LIMITS.max_params) });
    }
    return n;
  }

  /* llmcalc.planner.context_limit */
  function tokenLimit(cfg) {
    var learned = Number(cfg.learned_positions);
    return learned ? Math.min(learned, P.LIMITS.max_tokens) : P.LIMITS.max_tokens;
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
    if (Object.prototype.hasOwnProperty.call(P.TABLES.cards, key)) { return big(P.TABLES.cards[key]); }
    var match = /^[ \t\n\r\f\v]*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t\n\r\f\v]*([A-Za-z]*)[ \t\n\r\f\v]*$/.exec(text);
    if (!match || !Object.prototype.hasOwnProperty.call(P.TABLES.memory_units, match[2].toLowerCase())) { return null; }
    var parts = match[1].split(".");
    var fraction = parts.length > 1 ? parts[1] : "";
    var size = big((parts[0] + fraction) || "0") * big(P.TABLES.memory_units[match[2].toLowerCase()]) /
      (10n ** big(fraction.length));
    return size >= big(P.LIMITS.min_gpu_bytes) && size <= big(P.LIMITS.max_gpu_bytes) ? size : null;
  }

  /* llmcalc.planner.plan_inference: one GPU, or the busiest of tensor_parallel x pipeline_parallel. */
  function planInference(cfg, options) {
    checkedModel(cfg);
    P.checkCount("context", options.context, 1, tokenLimit(cfg));
    P.checkCount("batch", options.batch, 1, P.LIMITS.max_batch);
    var tp = P.checkCount("tensor_parallel", P.given(options.tensorParallel, 1), 1, P.LIMITS.max_gpus);
    var pp = P.checkCount("pipeline_parallel", P.given(options.pipelineParallel, 1), 1, P.LIMITS.max_gpus);
    if (tp > 1 || pp > 1) {
      return parallelInferencePlans(cfg, options, tp, pp).reduce(function (busiest, candidate) {
        return planTotal(candidate) > planTotal(busiest) ? candidate : busiest;
      });
    }
    var kv = P.kvCacheBytes(cfg, options.context, options.batch, options.kvFormat);
    var format = options.weightFormat;
    if (P.isCheckpoint(format) && format.codes === "mxfp4") {
      // As llmcalc.planner.plan_inference: the layout transformers' kernels give the experts depends on the GPU.
      throw P.refusal("mxfp4_layout_unmodelled", { method: format.method });
    }
    var parts = P.weightFormatBytes(cfg, options.weightFormat);
    var weights = Object.keys(parts).reduce(function (sum, key) { return sum + parts[key]; }, 0n);
    return memoryPlan(weights, kv, 0n, 0n, 0n);
  }

  /* ---- llmcalc.planner: several GPUs for inference, as vLLM splits a dense model ---- */

  /* llmcalc.planner._parallel_model */
  function parallelModel(cfg) {
    checkedModel(cfg);
    if (cfg.n_experts > 1 || cfg.kv_lora_rank > 0) {
      throw P.refusal("parallel_needs_dense", { model_type: cfg.model_type || "custom" });
    }
  }

  /* llmcalc.planner.padded_vocab */
  function paddedVocab(cfg) {
    var pad = big(P.TABLES.parallel.vocab_padding);
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
      throw P.refusal("pipeline_parallel_out_of_range", { n_layers: layers, value: stages });
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
    } else if (P.TABLES.parallel.column.indexOf(module.role) >= 0) {
      dOut /= t;
    } else if (P.TABLES.parallel.row.indexOf(module.role) >= 0) {
      dIn /= t;
    }
    var bias = module.bias ? dOut : 0n;
    if (P.isCheckpoint(format)) {
      if (!P.convertsModule(cfg, format, module, layer)) { return 2n * (dIn * dOut + bias); }
      var stored = P.storedBytes(format, dIn, dOut);
      return stored[0] + stored[1] + format.bias_bytes * bias;
    }
    if (P.converted(module, format, cfg)) {
      var parts = P.codesAndConstants(format, dIn, dOut, 1n);
      return parts[0] + parts[1] + 2n * bias;
    }
    return 2n * (dIn * dOut + bias);
  }

  /* llmcalc.planner.parallel_inference_plans: one GPU of each pipeline stage. */
  function parallelInferencePlans(cfg, options, tp, pp) {
    parallelModel(cfg);
    P.weightFormatBytes(cfg, options.weightFormat);
    var sizes = tensorParallelSizes(cfg);
    if (sizes.indexOf(tp) < 0) {
      throw P.refusal("tensor_parallel_does_not_divide", { n_heads: cfg.n_heads, n_kv_heads: cfg.n_kv_heads,
        d_ff: cfg.d_ff, vocab: paddedVocab(cfg), value: tp, sizes: sizes });
    }
    var layers = Number(cfg.n_layers);
    var stages = pipelineStages(layers, pp);
    var windowed = Number(cfg.sliding_window_layers);
    if (windowed > 0 && windowed < layers && stages.length > 1) {
      throw P.refusal("parallel_needs_dense", { model_type: cfg.model_type || "custom" });
    }
    var modules = P.MC.linearModules(cfg);
    var hasHead = modules.some(function (module) { return module.role === "lm_head"; });
    /* A checkpoint's skip list may keep some blocks' layers in 16 bits (Meta's 405B FP8: the first and last MLPs). */
    var byName = P.isCheckpoint(options.weightFormat) &&
      (options.weightFormat.skip.length > 0 || options.weightFormat.targets.length > 0);
    var layerBytes = [];
    for (var layer = 0; layer < (byName ? layers : 1); layer++) {
      layerBytes.push(modules.reduce(function (sum, module) {
        return module.role === "lm_head" ? sum : sum + linearBytes(module, options.weightFormat, cfg, tp, layer);
      }, 0n));
    }
    var d = big(cfg.d_model);
    var finalNorm = { rmsnorm: d, layernorm: 2n * d, "parameter-free": 0n }[cfg.norm];
    var perLayerNorms = 2n * (big(P.MC.paramBreakdown(cfg).norms) - finalNorm) / big(layers);
    var vocabRows = 2n * paddedVocab(cfg) / big(tp) * d;
    var headBytes = vocabRows + (cfg.lm_head_bias ? 2n * paddedVocab(cfg) / big(tp) : 0n);
    var head = modules.filter(function (module) { return module.role === "lm_head"; })[0];
    if (head && P.isCheckpoint(options.weightFormat) && P.convertsModule(cfg, options.weightFormat, head, 0)) {
      var headParts = P.storedBytes(options.weightFormat, d, paddedVocab(cfg) / big(tp));
      headBytes = headParts[0] + headParts[1] +
        (cfg.lm_head_bias ? options.weightFormat.bias_bytes * paddedVocab(cfg) / big(tp) : 0n);
    }
    var wholeKv = P.kvCacheBytes(cfg, options.context, options.batch, options.kvFormat);
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
    P.MC.linearModules(cfg).forEach(function (module) {
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
    P.MC.loraTargets(cfg, targets).forEach(function (m) {
      tensors.push([r * big(m.d_in), big(m.copies)], [big(m.d_out) * r, big(m.copies)]);
    });
    return tensors;
  }

  /* llmcalc.planner.adamw_8bit_state_bytes: bitsandbytes' AdamW8bit, block constants and shared maps included. */
  function adamw8bitStateBytes(tensors) {
    var b = P.TABLES.bnb_optimizer;
    var total = 0n;
    var any8bit = false;
    tensors.forEach(function (t) {
      if (t[0] < big(b.min_8bit_size)) { total += t[1] * 8n * t[0]; return; }
      any8bit = true;
      total += t[1] * (2n * t[0] + 8n * ceilDiv(t[0], big(b.block)));
    });
    return total + (any8bit ? big(b.maps) : 0n);
  }

  /* llmcalc.planner.training_state_bytes (LoRA and QLoRA; full fine-tuning is planTraining's). */
  function adapterTrainingState(cfg, options) {
    var preparation = P.checkChoice("qlora_preparation", P.given(options.qloraPreparation, "kbit"),
      P.TABLES.qlora_preparations);
    P.checkCount("lora_rank", options.rank, 1, null);
    var baseParts = P.weightFormatBytes(cfg, options.task === "qlora" ? "nf4-dq" : "bf16");
    var base = baseParts.quantized + baseParts.constants + baseParts.unquantized;
    if (options.task === "qlora" && preparation === "kbit") {
      var quantizedBiases = 0n;
      P.MC.linearModules(cfg).forEach(function (m) {
        if (m.bias && P.converted(m, "nf4-dq", cfg)) { quantizedBiases += 2n * big(m.d_out) * big(m.copies); }
      });
      base += baseParts.unquantized - quantizedBiases;
    } else if (options.task === "qlora" && preparation === "norms") {
      base += 2n * big(P.MC.paramBreakdown(cfg).norms);
    }
    var adapters = P.trainingMemory(P.MC.loraModelParams(cfg, options.rank, options.targets), options.optimizer,
      P.given(options.adapterDtype, "fp32"));
    var states = options.optimizer === "adamw-8bit"
      ? adamw8bitStateBytes(adapterTensors(cfg, options.rank, options.targets)) : adapters.optimizer_states;
    return { weights: base + adapters.weights, gradients: adapters.gradients, optimizer_states: states };
  }

  /* llmcalc.planner.TASKS but inference (from data-tables): what plan_training plans. */

  /* llmcalc.planner.plan_training */
  function planTraining(cfg, options) {
    /* Checked in llmcalc's order, so that of two bad inputs the same one is named. */
    var n = checkedModel(cfg);
    P.checkChoice("task", options.task, P.TRAINING_TASKS);
    P.checkCount("seq_len", options.seqLen, 1, tokenLimit(cfg));
    P.checkCount("micro_batch", options.microBatch, 1, P.LIMITS.max_batch);
    P.checkChoice("optimizer", options.optimizer, Object.keys(P.TABLES.optimizers));
    P.checkCount("n_gpus", options.nGpus, 1, P.LIMITS.max_gpus);
    P.checkCount("zero_stage", options.zeroStage, 0, P.TABLES.zero_sharded.length - 1);
    if (options.task === "full") {
      /* LoRA's options change nothing here; a bad one is refused all the same, as llmcalc refuses it. */
      P.checkCount("lora_rank", P.given(options.rank, 16), 1, null);
      P.checkDropout(P.given(options.loraDropout, 0));
      P.checkChoice("adapter_dtype", P.given(options.adapterDtype, "fp32"), P.TABLES.adapter_dtypes);
      var precision = P.checkChoice("precision", P.given(options.precision, P.TABLES.full_precisions[0]),
        P.TABLES.full_precisions);
      var activations = P.activationPeak(cfg, options.microBatch, options.seqLen, options.checkpointing, options);
      var parts = P.zeroMemoryPerGpu(n, options.zeroStage, options.nGpus, options.optimizer,
        P.TABLES.precision_recipes[precision]);
      var states = parts.optimizer_states;
      if (options.optimizer === "adamw-8bit") {
        states = options.zeroStage === 0 ? adamw8bitStateBytes(trainedTensors(cfg))
          : adamw8bitStateBytes([[ceilDiv(n, big(options.nGpus)), 1n]]);
      }
      var weights = parts.weights;
      var gradients = parts.gradients;
      if (options.zeroStage === 3) {
        var full = P.trainingMemory(n, options.optimizer, P.TABLES.precision_recipes[precision]);
        var buffers = zero3BufferBytes(cfg, full.weights, n, full.gradients);
        weights += buffers[0];
        gradients += buffers[1];
      }
      return memoryPlan(weights, 0n, gradients, states + parts.master_weights, activations);
    }
    /* QLoRA's 4-bit base keeps its weight, not its input, for backward: measured the same bytes as LoRA, unless
     * prepare_model_for_kbit_training made the residual stream fp32 (activationPeak). */
    var loraActivations = P.activationPeak(cfg, options.microBatch, options.seqLen, options.checkpointing, options);
    var state = adapterTrainingState(cfg, options);
    if (options.zeroStage === 0) {
      return memoryPlan(state.weights, 0n, state.gradients, state.optimizer_states, loraActivations);
    }
    if (options.task === "qlora" && options.zeroStage === 3 && P.given(options.qloraPreparation, "kbit") !== "none") {
      throw P.refusal("qlora_zero3_one_dtype", { zero_stage: options.zeroStage });
    }
    var sharded = shardedAdapterState(cfg, options, state);
    return memoryPlan(sharded[0], 0n, sharded[1], sharded[2], loraActivations);
  }

  /* llmcalc.trainers.setup_settings' refusal: axolotl casts back only what its module names find. */
  function checkSetupCovers(cfg, options) {
    if (options.setup === "axolotl" && options.task === "qlora" &&
        (P.isMoe(cfg) || P.TABLES.axolotl_restored_layouts.indexOf(cfg.layout) < 0)) {
      throw P.refusal("setup_leaves_fp32", { setup: options.setup, model_type: cfg.model_type || cfg.layout });
    }
  }

  /* llmcalc.planner.zero3_buffer_bytes: [gathered parameters, reduce bucket] in bytes. */
  function zero3BufferBytes(cfg, weightBytes, trained, gradientBytes) {
    var Z = P.TABLES.zero3;
    var n = P.MC.paramCount(cfg);
    var largest = big(cfg.vocab_size) * big(cfg.d_model);
    P.MC.linearModules(cfg).forEach(function (m) {
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
    var trained = big(P.MC.loraModelParams(cfg, options.rank, options.targets));
    var gpus = big(options.nGpus);
    var shard = ceilDiv(trained, gpus);
    var adapters = P.trainingMemory(trained, options.optimizer, P.given(options.adapterDtype, "fp32"));
    var split = P.trainingMemory(shard, options.optimizer, P.given(options.adapterDtype, "fp32"));
    var states = options.optimizer === "adamw-8bit" ? adamw8bitStateBytes([[shard, 1n]]) : split.optimizer_states;
    var gradients = options.zeroStage >= 2 ? split.gradients : state.gradients;
    var weights = state.weights;
    if (options.zeroStage === 3) {
      var base = state.weights - adapters.weights;
      var constants = options.task === "qlora" ? P.weightFormatBytes(cfg, "nf4-dq").constants : 0n;
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

  /* llmcalc.planner.default_tokens: a default length, never past the trained context or the learned positions. */
  function defaultTokens(cfg, preferred) {
    var trained = trainedContext(cfg);
    return Math.min(preferred, trained === null ? P.LIMITS.max_tokens : trained, tokenLimit(cfg));
  }

  /* What the other parts call. */
  Object.assign(P, { memoryPlan: memoryPlan, planTotal: planTotal, checkedModel: checkedModel, tokenLimit: tokenLimit,
    trainedContext: trainedContext, contextSearchLimit: contextSearchLimit, gpuMemory: gpuMemory,
    planInference: planInference, parallelModel: parallelModel, paddedVocab: paddedVocab,
    tensorParallelSizes: tensorParallelSizes, kvHeadsPerGpu: kvHeadsPerGpu, pipelineStages: pipelineStages,
    linearBytes: linearBytes, parallelInferencePlans: parallelInferencePlans, trainedTensors: trainedTensors,
    adapterTensors: adapterTensors, adamw8bitStateBytes: adamw8bitStateBytes,
    adapterTrainingState: adapterTrainingState, planTraining: planTraining, checkSetupCovers: checkSetupCovers,
    zero3BufferBytes: zero3BufferBytes, shardedAdapterState: shardedAdapterState, largestHolding: largestHolding,
    largestFitting: largestFitting, defaultTokens: defaultTokens });
})();
