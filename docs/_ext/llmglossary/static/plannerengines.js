/* The "Will it fit?" planner's arithmetic, the part that mirrors llmcalc.engines: the plans of vLLM and of
 * transformers' generate().
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

  /* llmcalc.engines._dense: the engine plans take dense full-attention models only. */
  function denseOnly(cfg) {
    if (cfg.n_experts > 1 || cfg.kv_lora_rank > 0 || cfg.sliding_window > 0) {
      throw P.refusal("engine_needs_dense", { model_type: cfg.model_type || "custom" });
    }
  }

  /* llmcalc.engines._vllm_model: dense or routed experts, full attention or a window on every or every other layer;
   * attention sinks (gpt-oss) only as checked (checkedMxfp4Weights). */
  function vllmModel(cfg) {
    if (cfg.kv_lora_rank > 0 || cfg.shared_expert_d_ff > 0 || cfg.dense_layers > 0) {
      throw P.refusal("vllm_engine_unmodelled", { model_type: cfg.model_type || "custom" });
    }
    var windowed = cfg.sliding_window > 0 ? big(cfg.sliding_window_layers) : 0n;
    var layers = big(cfg.n_layers);
    if (windowed > 0n && windowed !== layers && 2n * windowed !== layers) {
      throw P.refusal("vllm_window_pattern_unchecked", { model_type: cfg.model_type || "custom", windowed: windowed,
                                                       full: layers - windowed });
    }
  }

  /* llmcalc.engines.vllm_fused_moe_bytes: the fused experts' buffers and the routing tensors. */
  function vllmFusedMoeBytes(cfg, tokens, tp) {
    var n = big(tokens);
    var routes = big(cfg.experts_per_token);
    var chunk = n < big(P.TABLES.engines.fused_moe_chunk) ? n : big(P.TABLES.engines.fused_moe_chunk);
    var gateUp = 2n * big(cfg.expert_d_ff || cfg.d_ff) / big(tp);
    var d = big(cfg.d_model);
    var two = big(P.TABLES.engines.activation_bytes);
    return chunk * routes * two * ((gateUp > d ? gateUp : d) + gateUp / 2n) + n * (two * big(cfg.n_experts) + 12n * routes);
  }

  /* llmcalc.engines.generate_prefill_parts: [the prompt's bf16 KV cache, the prefill's working memory at its peak]. */
  function generatePrefillParts(cfg, prompt, batch, attention) {
    denseOnly(cfg);
    P.checkCount("batch", batch, 1, 65536);
    P.checkCount("prompt", prompt, 1, 16777216);
    var E = P.TABLES.engines;
    var two = big(E.activation_bytes);
    var sequences = big(batch);
    var tokens = big(prompt);
    var n = sequences * tokens;
    var kv = P.kvCacheBytes(cfg, prompt, batch, "bf16");
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
    var base = P.planInference(cfg, { context: options.context, batch: options.batch, weightFormat: options.weightFormat,
                                    kvFormat: "bf16" });
    var prefill = generatePrefillParts(cfg, options.context, options.batch, options.attention);
    return P.memoryPlan(base.weights, prefill[0], 0n, 0n, prefill[1]);
  }

  /* llmcalc.engines.vllm_profile_peak: the larger of a layer's MLP and the sampler's warm-up. */
  function vllmProfilePeak(cfg, tokens, tp, maxNumSeqs, samplerFilter) {
    vllmModel(cfg);
    P.checkCount("max_num_batched_tokens", tokens, 1, 16777216);
    var two = big(P.TABLES.engines.activation_bytes);
    var width = big(cfg.d_ff) / big(tp);
    var mlp = big(tokens) * two * 3n * big(cfg.d_model) + (cfg.n_experts > 1 ? vllmFusedMoeBytes(cfg, tokens, tp)
      : big(tokens) * two * (cfg.ffn === "swiglu" ? 3n * width : 2n * width));
    var sampler = vllmSamplerPeak(cfg, tokens, maxNumSeqs, samplerFilter);
    // gpt-oss's MXFP4 experts run a monolithic Triton kernel that holds no workspace.
    if (cfg.n_experts > 1 && P.given(samplerFilter, "sort") === "triton" && !cfg.attention_sinks) {
      sampler += vllmMoeWorkspace(cfg, tokens, tp);
    }
    return mlp > sampler ? mlp : sampler;
  }

  /* llmcalc.engines._vllm_moe_workspace: the fused-MoE workspace vLLM 0.19 and 0.20 keep between calls. */
  function vllmMoeWorkspace(cfg, tokens, tp) {
    var n = big(tokens);
    var chunk = n < big(P.TABLES.engines.fused_moe_chunk) ? n : big(P.TABLES.engines.fused_moe_chunk);
    var gateUp = 2n * big(cfg.expert_d_ff || cfg.d_ff) / big(tp);
    var d = big(cfg.d_model);
    var half = gateUp / 2n;
    return chunk * big(cfg.experts_per_token) * big(P.TABLES.engines.activation_bytes)
      * ((half > d ? half : d) + (gateUp > d ? gateUp : d));
  }

  /* llmcalc.engines.vllm_sampler_peak */
  function vllmSamplerPeak(cfg, tokens, maxNumSeqs, samplerFilter) {
    var E = P.TABLES.engines;
    var n = big(P.checkCount("max_num_batched_tokens", tokens, 1, 16777216));
    var seqs = big(P.checkCount("max_num_seqs", P.given(maxNumSeqs, E.max_num_seqs), 1, 16777216));
    if (n < seqs) { seqs = n; }
    var fp32 = big(E.fp32_bytes);
    if (P.checkChoice("sampler_filter", P.given(samplerFilter, "sort"), E.sampler_filters) === "triton"
        && seqs >= big(E.triton_filter_min_rows)) {
      /* The 16-bit logits, their FP32 copy, the probabilities and the noise, all live while it samples. */
      return n * big(E.activation_bytes) * big(cfg.d_model)
        + seqs * (big(E.activation_bytes) * P.paddedVocab(cfg) + 3n * fp32 * big(cfg.vocab_size));
    }
    var logits = seqs * (big(E.activation_bytes) * P.paddedVocab(cfg) + fp32 * big(cfg.vocab_size));
    return n * big(E.activation_bytes) * big(cfg.d_model) + logits + torchSortBytes(seqs, big(cfg.vocab_size), fp32);
  }

  /* llmcalc.engines.torch_sort_bytes: the outputs and the scratch of the path SortStable.cu takes. */
  /** @param {bigint} rows @param {bigint} length @param {bigint} value */
  function torchSortBytes(rows, length, value) {
    var outputs = rows * length * (value + 8n);
    if (length <= big(P.TABLES.engines.torch_sort_small_row)) { return outputs; }
    if (rows === 1n || length >= 1000000n) { return outputs + length * (8n + value + 8n); }
    if (rows < 128n) { return outputs + rows * length * (16n + value + value + 8n); }
    return outputs + rows * length * (8n + value + 8n);
  }

  /* llmcalc.engines._wide_mlp: the routed experts as one MLP n_experts times as wide, and no router. */
  function wideMlp(cfg) {
    return P.MC.modelConfig(Object.assign({}, cfg, { n_experts: 1n, experts_per_token: 1n, model_type: "",
      d_ff: big(cfg.n_experts) * big(cfg.expert_d_ff || cfg.d_ff), expert_d_ff: 0n, router_bias: false }));
  }

  /* llmcalc.engines._weights_per_gpu: every expert split like one MLP n_experts times as wide, the router whole. */
  function weightsPerGpu(cfg, weightFormat, kvFormat, tp) {
    var moe = cfg.n_experts > 1;
    var weights = P.parallelInferencePlans(moe ? wideMlp(cfg) : cfg, { context: 1, batch: 1, weightFormat: weightFormat,
                                                                     kvFormat: kvFormat }, tp, 1)[0].weights;
    if (moe) {
      var router = big(cfg.d_model) * big(cfg.n_experts) + (cfg.router_bias ? big(cfg.n_experts) : 0n);
      weights += (big(cfg.n_layers) - big(cfg.dense_layers)) * router * big(P.TABLES.engines.activation_bytes);
    }
    return weights;
  }

  function roundUp(value, multiple) { return ceilDiv(value, multiple) * multiple; }

  /* llmcalc.engines._mxfp4_weights_per_gpu: gpt-oss's MXFP4 checkpoint as vLLM's Triton backend holds it on Hopper. */
  function mxfp4WeightsPerGpu(cfg, tp) {
    if (tp > 1) { weightsPerGpu(cfg, "bf16", "bf16", tp); }  // refuses a size vLLM does not accept
    var t = big(tp);
    var d = big(cfg.d_model);
    var align = 64n;
    var dense = 0n;
    P.MC.linearModules(cfg).forEach(function (module) {
      if (module.component === "attention" || module.component === "router") {
        dense += big(module.copies) * P.linearBytes(module, "bf16", cfg, tp, 0);
      }
    });
    dense += 2n * big(cfg.n_layers) * (big(cfg.n_heads) / t) + 2n * big(P.MC.paramBreakdown(cfg).norms);
    dense += 2n * (P.paddedVocab(cfg) / t) * d * (cfg.tie_embeddings ? 1n : 2n);
    var width = roundUp(big(cfg.expert_d_ff || cfg.d_ff) / t, align);
    var codes = roundUp(d / 2n, align) * roundUp(2n * width, align) + roundUp(width / 2n, align) * roundUp(d, align);
    var relaid = roundUp(2n * width, 256n) * roundUp(d / 32n, 2n) + roundUp(d, 256n) * roundUp(width / 32n, 2n);
    var loaded = 2n * width * (d / 32n) + d * (width / 32n);
    var biases = big(P.TABLES.engines.fp32_bytes) * (2n * width + d);
    return dense + (big(cfg.n_layers) - big(cfg.dense_layers)) * big(cfg.n_experts) * (codes + relaid + loaded + biases);
  }

  /* llmcalc.engines._checked_mxfp4_weights: gpt-oss as checked against vLLM 0.19.0's logs, or refused by name. */
  function checkedMxfp4Weights(cfg, weightFormat, hybrid, samplerFilter, tp) {
    var mxfp4 = P.isCheckpoint(weightFormat) && weightFormat.codes === "mxfp4";
    var sampler = P.given(samplerFilter, "sort");
    if (!(mxfp4 && hybrid && sampler === "triton")) {
      throw P.refusal("vllm_sinks_unchecked", { model_type: cfg.model_type || "custom",
        weight_format: P.isCheckpoint(weightFormat) ? weightFormat.method : weightFormat,
        hybrid_kv_cache: hybrid, sampler_filter: sampler });
    }
    return mxfp4WeightsPerGpu(cfg, tp);
  }

  /* llmcalc.engines.check_vllm_card: gpt-oss is planned on the Hopper cards only ("all": a ranking of every card). */
  function checkVllmCard(cfg, card) {
    var cards = P.TABLES.engines.mxfp4_cards;
    if (cfg.attention_sinks && cards.indexOf(card) < 0) {
      throw P.refusal("vllm_mxfp4_card_unchecked", { card: card, cards: cards });
    }
  }

  /* llmcalc.engines.plan_vllm: the start-up budget and the KV-cache pool, as vLLM prints them. */
  function planVllm(cfg, gpuBytes, options) {
    vllmModel(cfg);
    P.checkedModel(cfg);
    var extensible = P.checkFlag("extensible_kv_cache", P.given(options.extensibleKvCache, false));
    if (extensible && (cfg.n_experts > 1 || (cfg.sliding_window > 0 && cfg.sliding_window_layers > 0))) {
      throw P.refusal("vllm_extensible_unread", { model_type: cfg.model_type || "custom" });
    }
    var hybrid = P.checkFlag("hybrid_kv_cache", P.given(options.hybridKvCache, false));
    var E = P.TABLES.engines;
    var utilization = options.utilization;
    if (!(utilization > 0 && utilization <= 1)) {
      throw P.refusal("number_out_of_range", { name: "gpu_memory_utilization", minimum: 0, maximum: 1,
        min_inclusive: false, max_inclusive: true, value: utilization });
    }
    var length = P.checkCount("max_model_len", options.context, 1, P.tokenLimit(cfg));
    var batched = options.maxNumBatchedTokens;
    /* vLLM's int() of the float product; 0.34's math.ceil (request_memory). */
    var requested = big((extensible ? Math.ceil : Math.trunc)(Number(gpuBytes) * utilization));
    var startupUsed = big(P.checkCount("startup_used_bytes", big(P.given(options.startupUsedBytes, 0n)), 0n,
                                       big(gpuBytes)));
    var nonTorch = big(P.checkCount("non_torch_bytes", big(P.given(options.nonTorchBytes, E.non_torch)), 0n,
                                  big(gpuBytes)));
    var graphs = big(P.checkCount("cuda_graph_bytes", big(options.cudaGraphBytes), 0n, big(gpuBytes)));
    var tp = P.checkCount("tensor_parallel", P.given(options.tensorParallel, 1), 1, P.LIMITS.max_gpus);
    var weights;
    if (cfg.attention_sinks) {
      weights = checkedMxfp4Weights(cfg, options.weightFormat, hybrid, options.samplerFilter, tp);
    } else if (tp === 1) {
      var parts = P.weightFormatBytes(cfg, options.weightFormat);
      weights = Object.keys(parts).reduce(function (sum, key) { return sum + parts[key]; }, 0n);
    } else {
      weights = weightsPerGpu(cfg, options.weightFormat, options.kvFormat, tp);
    }
    var tokenBytes = ceilDiv(P.kvCacheBytes(cfg, 1, 1, options.kvFormat) * P.kvHeadsPerGpu(cfg, tp),
                             big(cfg.n_kv_heads));
    var blockSize = big(extensible ? E.extensible_block_size : E.block_size);
    var layers = big(cfg.n_layers);
    var windowed = cfg.sliding_window > 0 ? big(cfg.sliding_window_layers) : 0n;
    var grouped = hybrid && windowed > 0n;
    // llmcalc.engines._kv_cache_groups: groups of as many layers as the smaller kind, sharing one pool of blocks.
    var layersABlock = grouped ? windowed : layers;
    var layerBlock = blockSize * tokenBytes / layers;
    var blockBytes = layerBlock * layersABlock;
    var fullGroups = grouped && windowed !== layers ? 1n : 0n;
    var windowGroups = grouped ? 1n : 0n;
    var span = big(cfg.sliding_window) - 1n + big(batched);
    var peak = vllmProfilePeak(cfg, batched, tp, options.maxNumSeqs, options.samplerFilter);
    nonTorch += graphs;
    /* llmcalc.engines.plan_vllm's extensible_kv_cache (vLLM 0.34): the graphs' estimate is kept free again in the
     * transient, with a margin of the larger of the floor and three quarters of it, within what was free at
     * start-up; each layer's share of the pool in whole granules. */
    var keptGraphs = extensible ? graphs : 0n;
    var margin = 0n;
    var budget = requested;
    if (extensible) {
      var floor = big(options.rocm ? E.extensible_margin_floor_rocm : E.extensible_margin_floor);
      margin = (peak + graphs) * 3n / 4n > floor ? (peak + graphs) * 3n / 4n : floor;
      var free = big(gpuBytes) - startupUsed - margin;
      budget = requested < free ? requested : free;
    }
    var available = budget - weights - peak - nonTorch - keptGraphs;
    var granule = big(E.extensible_granule);
    var blocks = available <= 0n ? 0n
      : extensible ? available / (layersABlock * granule) * granule / layerBlock : available / blockBytes;
    var groups = grouped ? fullGroups + windowGroups : 1n;
    function blocksPerRequest(len) {
      var full = ceilDiv(big(len), blockSize);
      if (!grouped) { return full; }
      var kept = span < big(len) ? span : big(len);
      return fullGroups * full + windowGroups * (ceilDiv(kept, blockSize) + 1n);
    }
    var perRequest = blocksPerRequest(length);
    /* llmcalc.engines.VllmPlan.usable_blocks: 0.34 keeps the null block back from requests. */
    var usable = extensible && blocks > 0n ? blocks - 1n : blocks;
    var concurrency = grouped || extensible ? Number(blocks) / Number(perRequest) : 0;
    var tokens = extensible ? big(Math.trunc(concurrency * length)) : blocks / groups * blockSize;
    return { requested: requested, budget: budget, weights: weights, profile_peak: peak, non_torch: nonTorch,
             kept_graphs: keptGraphs, margin: margin, extensible: extensible,
             block_bytes: blockBytes, blocks: blocks, block_size: blockSize, max_model_len: big(length),
             available_kv: available, kv_tokens: tokens, kv_groups: groups, window_groups: windowGroups,
             window_span: span, blocks_per_request: perRequest,
             max_concurrency: grouped || extensible ? concurrency : Number(tokens) / Number(length),
             starts: grouped || extensible ? usable >= perRequest : tokens >= big(length),
             /* llmcalc.engines.VllmPlan.most_requests */
             mostRequests: function (len) {
               return grouped || extensible ? usable / blocksPerRequest(len) : tokens / big(len);
             },
             /* llmcalc.engines.VllmPlan.longest_model_len */
             longestModelLen: function (limit) {
               return P.largestHolding(function (n) { return blocksPerRequest(n) <= usable; }, limit);
             } };
  }

  /* What the other parts call. */
  Object.assign(P, { denseOnly: denseOnly, vllmModel: vllmModel, vllmFusedMoeBytes: vllmFusedMoeBytes,
    generatePrefillParts: generatePrefillParts, planGenerate: planGenerate, vllmProfilePeak: vllmProfilePeak,
    vllmMoeWorkspace: vllmMoeWorkspace, vllmSamplerPeak: vllmSamplerPeak, torchSortBytes: torchSortBytes,
    checkVllmCard: checkVllmCard, planVllm: planVllm });
})();
