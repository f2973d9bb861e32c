/* The browser's counts: llmcalc.params (the linear modules and parameter counts), llmcalc.lora (LoRA counts),
 * and the formulas every widget shares: llmcalc.memory.kv_cache_bytes and weight_bytes, llmcalc.lora_params.
 *
 * Each function ports the Python function named alike (the comment above it names its twin).  The counts read a
 * ModelConfig made by modelconfig.js and its tables: modelconfig.js binds them with withModel(model) when its
 * tables are bound, and exposes them as its own (window.LLMModelConfig.paramCount, ...).  The memory formulas
 * need no tables: calculators.js and planner.js both call them, so each formula exists once in the browser.
 */
(function () {
  "use strict";

  const big = (value) => BigInt(value);
  const ceilDiv = (a, b) => (a + b - 1n) / b;

  // llmcalc.memory._kv_values_per_token_per_layer
  function kvValuesPerTokenPerLayer(cfg) {
    if (big(cfg.kv_lora_rank || 0) > 0n) return big(cfg.kv_lora_rank) + big(cfg.rope_head_dim);
    return 2n * big(cfg.n_kv_heads) * big(cfg.head_dim);
  }

  // llmcalc.memory.kv_cache_bytes: full layers cache every token, sliding ones min(T, W - 1); `bits` per value.
  // A shape without the sliding or latent fields (the KV-cache widget's) is full attention.
  function kvCacheBytes(cfg, tokens, batch, bits) {
    const windowed = big(cfg.sliding_window_layers || 0);
    const t = big(tokens);
    const span = big(cfg.sliding_window || 0) - 1n;
    const kept = span > 0n ? span : 0n;
    const cached = (big(cfg.n_layers) - windowed) * t + windowed * (t < kept ? t : kept);
    return ceilDiv(cached * kvValuesPerTokenPerLayer(cfg) * big(bits) * big(batch), 8n);
  }

  // llmcalc.lora.lora_params: rank * (d_in + d_out), the adapter of one d_in -> d_out matrix.
  function loraParams(dIn, dOut, rank) {
    return big(rank) * (big(dIn) + big(dOut));
  }

  // llmcalc.memory.weight_bytes: n * bits / 8, rounded up to a whole byte.
  function weightBytes(nParams, bits) {
    return ceilDiv(big(nParams) * big(bits), 8n);
  }

  // The counts on modelconfig.js's tables and validated configs (its withTables passes them).
  /** @param {ModelLayer} model */
  function withModel(model) {
    const { tables, asModelConfig, checkCount, checkFlag, refusal, fromJson, jsonType } = model;
    const { isMoe, usesLatentAttention, qDim, kvDim, moeLayers, routedExpertDff } = model;

    // -------------------------------------------------------------- params.py

    // Linear, with its params property
    /**
     * @param {string} path @param {string} role @param {string} component
     * @param {bigint} dIn @param {bigint} dOut @param {boolean} bias @param {bigint} copies
     * @returns {LinearModule}
     */
    function linear(path, role, component, dIn, dOut, bias, copies, adaptable = true) {
      const params = copies * (dIn * dOut + (bias ? dOut : 0n));
      return Object.freeze({ path, role, component, d_in: dIn, d_out: dOut, bias, copies, adaptable, params });
    }

    // _norm_size
    /** @param {ModelConfig} cfg @param {bigint} width @returns {bigint} */
    function normSize(cfg, width) {
      return { rmsnorm: width, layernorm: 2n * width, "parameter-free": 0n }[cfg.norm];
    }

    // _attention
    /** @param {ModelConfig} cfg @returns {LinearModule[]} */
    function attention(cfg) {
      const layers = cfg.n_layers;
      const d = cfg.d_model;
      if (usesLatentAttention(cfg)) {
        const vHead = cfg.v_head_dim || cfg.head_dim;
        const modules = cfg.q_lora_rank
          ? [linear("self_attn.q_a_proj", "q_a", "attention", d, cfg.q_lora_rank, cfg.qkv_bias, layers),
            linear("self_attn.q_b_proj", "q", "attention", cfg.q_lora_rank, qDim(cfg), false, layers)]
          : [linear("self_attn.q_proj", "q", "attention", d, qDim(cfg), false, layers)];
        const kvLatent = cfg.kv_lora_rank + cfg.rope_head_dim;
        const kvBOut = cfg.n_heads * (cfg.head_dim - cfg.rope_head_dim + vHead);
        return [
          ...modules,
          linear("self_attn.kv_a_proj_with_mqa", "kv_a", "attention", d, kvLatent, cfg.qkv_bias, layers),
          linear("self_attn.kv_b_proj", "kv_b", "attention", cfg.kv_lora_rank, kvBOut, false, layers),
          linear("self_attn.o_proj", "o", "attention", cfg.n_heads * vHead, d, cfg.out_bias, layers),
        ];
      }
      const { prefix, names } = tables.attention.get(cfg.layout);
      const widths = { q: qDim(cfg), k: kvDim(cfg), v: kvDim(cfg), qkv: qDim(cfg) + 2n * kvDim(cfg) };
      const modules = ["q", "k", "v", "qkv"].filter((role) => names.has(role))
        .map((role) => linear(`${prefix}.${names.get(role)}`, role, "attention", d, widths[role], cfg.qkv_bias,
          layers));
      return [...modules, linear(`${prefix}.${names.get("o")}`, "o", "attention", qDim(cfg), d, cfg.out_bias, layers)];
    }

    // _ffn
    /** @param {ModelConfig} cfg @param {string} prefix @param {bigint} width @param {bigint} copies */
    function ffn(cfg, prefix, width, copies, adaptable = true) {
      const names = tables.mlp.get(cfg.layout);
      const d = cfg.d_model;
      const bias = cfg.mlp_bias;
      let ups;
      if (cfg.ffn === "mlp") ups = [["up", width]];
      else if (names.has("gate_up")) ups = [["gate_up", 2n * width]];
      else ups = [["gate", width], ["up", width]];
      return [
        ...ups.map(([role, out]) => linear(`${prefix}.${names.get(role)}`, role, "ffn", d, out, bias, copies,
          adaptable)),
        linear(`${prefix}.${names.get("down")}`, "down", "ffn", width, d, bias, copies, adaptable),
      ];
    }

    // linear_modules
    /** @param {ModelConfig} cfg @returns {LinearModule[]} */
    function linearModules(cfg) {
      asModelConfig(cfg);
      const mlpPrefix = "mlp";
      const modules = attention(cfg);
      const dense = cfg.n_layers - moeLayers(cfg);
      if (dense) modules.push(...ffn(cfg, mlpPrefix, cfg.d_ff, dense));
      if (isMoe(cfg)) {
        const moe = moeLayers(cfg);
        const router = `${mlpPrefix}.${tables.routerNames.get(cfg.model_type) ?? "gate"}`;
        modules.push(linear(router, "router", "router", cfg.d_model, cfg.n_experts, cfg.router_bias, moe, false));
        modules.push(...ffn(cfg, `${mlpPrefix}.experts`, routedExpertDff(cfg), moe * cfg.n_experts, false));
        if (cfg.shared_expert_d_ff) {
          const shared = usesLatentAttention(cfg) ? `${mlpPrefix}.shared_experts` : `${mlpPrefix}.shared_expert`;
          modules.push(...ffn(cfg, shared, cfg.shared_expert_d_ff, moe));
        }
        if (cfg.shared_expert_gate) {
          modules.push(linear(`${mlpPrefix}.shared_expert_gate`, "shared_gate", "router", cfg.d_model, 1n, false, moe));
        }
      }
      if (!cfg.tie_embeddings) {
        modules.push(linear("lm_head", "lm_head", "lm_head", cfg.d_model, cfg.vocab_size, cfg.lm_head_bias, 1n));
      }
      return modules;
    }

    // _norms
    /** @param {ModelConfig} cfg @returns {bigint} */
    function norms(cfg) {
      let perLayer = cfg.norms_per_layer * normSize(cfg, cfg.d_model);
      if (cfg.qk_norm === "per-head") perLayer += 2n * normSize(cfg, cfg.head_dim);
      else if (cfg.qk_norm === "per-projection") perLayer += normSize(cfg, qDim(cfg)) + normSize(cfg, kvDim(cfg));
      if (usesLatentAttention(cfg)) {
        perLayer += normSize(cfg, cfg.kv_lora_rank) + (cfg.q_lora_rank ? normSize(cfg, cfg.q_lora_rank) : 0n);
      }
      return cfg.n_layers * perLayer + normSize(cfg, cfg.d_model);
    }

    // param_breakdown
    /** @param {ModelConfig} cfg @returns {ParamBreakdown} */
    function paramBreakdown(cfg, { active = false } = {}) {
      asModelConfig(cfg);
      const [used, of] = checkFlag("active", active) ? [cfg.experts_per_token, cfg.n_experts] : [1n, 1n];
      const parts = { embedding: 0n, positions: 0n, attention: 0n, ffn: 0n, router: 0n, norms: 0n, lm_head: 0n };
      parts.embedding = cfg.vocab_size * cfg.d_model;
      parts.positions = cfg.learned_positions * cfg.d_model;
      for (const module of linearModules(cfg)) {
        const routed = module.path.startsWith("mlp.experts.");
        parts[module.component] += routed ? (module.params * used) / of : module.params;
      }
      parts.attention += cfg.attention_sinks ? cfg.n_layers * cfg.n_heads : 0n;
      parts.norms = norms(cfg);
      return parts;
    }

    const sum = (values) => values.reduce((a, b) => a + b, 0n);

    // param_count
    function paramCount(cfg) {
      return sum(Object.values(paramBreakdown(cfg)));
    }

    // active_param_count
    function activeParamCount(cfg) {
      return sum(Object.values(paramBreakdown(cfg, { active: true })));
    }

    // -------------------------------------------------------------- lora.py

    // _target_names
    function targetNames(targets) {
      const names = typeof targets === "string" ? [targets] : targets;
      if (!Array.isArray(names)) throw refusal("targets_not_a_sequence", { value: fromJson(targets) });
      if (!names.length) throw refusal("targets_empty", { value: [] });
      for (const name of names) {
        if (typeof name !== "string") {
          const value = fromJson(name);
          throw refusal("target_not_a_str", { value, type: jsonType(value) });
        }
      }
      return [...names];
    }

    // _matches
    function matches(module, target) {
      return target === module.role || module.path === target || module.path.endsWith("." + target);
    }

    // lora_targets
    /** @param {ModelConfig} cfg @param {LoraTargets} [targets] */
    function loraTargets(cfg, targets = ["q", "v"]) {
      const adaptable = linearModules(asModelConfig(cfg)).filter((m) => m.adaptable);
      if (targets === tables.allLinear) return adaptable.filter((m) => m.role !== "lm_head");
      const chosen = [];
      for (const name of targetNames(targets)) {
        const hits = adaptable.filter((m) => matches(m, name));
        if (!hits.length) {
          const fusedRole = tables.fusedInto.get(name);
          const fused = adaptable.find((m) => fusedRole !== undefined && m.role === fusedRole);
          throw refusal("target_matches_nothing", { target: name, fused_into: fused ? fused.path : null,
            modules: [...new Set(adaptable.map((m) => m.path))] });
        }
        chosen.push(...hits.filter((m) => !chosen.includes(m)));
      }
      return chosen;
    }

    // _stacked_expert_params
    function stackedExpertParams(cfg, rank, names) {
      const conversion = isMoe(cfg) ? tables.peftMoeNames.get(cfg.model_type) : undefined;
      if (!conversion || !conversion.size) return [0n, names];
      const mapped = new Map();
      for (const name of names) {
        if (conversion.has(name)) mapped.set(conversion.get(name), [...(mapped.get(conversion.get(name)) || []), name]);
      }
      const fusedSources = [...conversion].filter(([, weight]) => weight === "gate_up").map(([name]) => name);
      const fused = mapped.get("gate_up") || [];
      if (fused.length > 0 && fused.length < fusedSources.length) {
        throw refusal("experts_need_fused_pair", { targets: fused, needed: fusedSources });
      }
      const d = cfg.d_model;
      const width = routedExpertDff(cfg);
      const experts = cfg.n_experts;
      const perLayer = {
        router: rank * (d + experts),
        gate_up: 2n * rank * experts * (d + 2n * width),
        down: rank * experts * (width + d),
      };
      const total = moeLayers(cfg) * sum([...mapped.keys()].map((weight) => perLayer[weight]));
      return [total, linearTargetNames(cfg, names)];
    }

    // linear_target_names: a converted name still selects the linear modules it names (peft 0.22.0)
    function linearTargetNames(cfg, names) {
      const conversion = isMoe(cfg) ? tables.peftMoeNames.get(cfg.model_type) : undefined;
      const paths = linearModules(asModelConfig(cfg)).filter((m) => m.adaptable).map((m) => m.path);
      return names.filter((name) => !conversion || !conversion.has(name)
        || paths.some((path) => path === name || path.endsWith("." + name)));
    }

    // lora_model_params
    /** @param {ModelConfig} cfg @param {IntLike} rank @param {LoraTargets} [targets] */
    function loraModelParams(cfg, rank, targets = ["q", "v"]) {
      asModelConfig(cfg);
      const r = checkCount("rank", fromJson(rank));
      let names;
      if (targets === tables.allLinear) {
        if (isMoe(cfg) && !cfg.model_type) {
          const known = [...new Set(["qwen2_moe", ...tables.peftMoeNames.keys()])].sort();
          throw refusal("all_linear_needs_model_type", { model_types: known });
        }
        // peft resolves "all-linear" to the leaf names of the linear modules, then maps MoE names as for a list.
        names = [...new Set(loraTargets(cfg, tables.allLinear).map((m) => m.path.split(".").at(-1)))];
        const moeNames = tables.peftMoeNames.get(cfg.model_type);
        if (moeNames && isMoe(cfg)) names.push(...[...moeNames.keys()].filter((name) => !names.includes(name)));
      } else {
        names = targetNames(targets);
      }
      const [stacked, moduleNames] = stackedExpertParams(cfg, r, names);
      const chosen = moduleNames.length ? loraTargets(cfg, moduleNames) : [];
      return stacked + sum(chosen.map((m) => m.copies * loraParams(m.d_in, m.d_out, r)));
    }

    return { linearModules, paramBreakdown, paramCount, activeParamCount, loraTargets, linearTargetNames,
             loraModelParams };
  }

  window.LLMModelCounts = Object.freeze({ kvCacheBytes, weightBytes, loraParams, withModel });
})();
