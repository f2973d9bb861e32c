/* The browser's copy of llmcalc's model layer: ModelConfig.from_hf_config, with the parameter and LoRA counts of
 * modelcounts.js (load it too, in either order) bound to the same tables.
 *
 * Each function ports the Python function named alike (the comment above it names its twin) and gives the same
 * answer or the same refusal.  The DATA those rules read (class defaults, aliases, module names, choices)
 * is not retyped here: it comes from llmcalc.browser.browser_data() as JSON, in the page's
 * <script type="application/json" id="modelconfig-tables"> (glossary_html.inline_json), in
 * window.LLMModelConfigTables, or through LLMModelConfig.withTables(tables).
 *
 * A refusal is an LLMCalcError with llmcalc's stable `code` and its `params` (llmcalc.errors): the page
 * formats its own, translated message from them (plannerwidget.js), so nothing here writes English for a reader.
 *
 * Values keep JSON's distinction between integers and other numbers, as Python's json module does:
 *   object -> Map, array -> Array, string -> string, integer literal -> BigInt (exact at any size),
 *   number with a fraction or exponent -> Number, true/false -> boolean, null -> null.
 * parseConfigText(text) reads the literal of each number, so 4096.0 stays a float and a 30-digit integer stays
 * exact, in any browser; fromHfConfig also accepts what JSON.parse returns, where an integer-valued number counts
 * as an int.
 */
(function () {
  "use strict";

  class LLMCalcError extends Error {
    constructor(code, params = {}) {
      super(code);
      this.name = "LLMCalcError";
      this.code = code;
      this.params = params;
    }
  }
  const refusal = (code, params) => new LLMCalcError(code, params);
  /** The layout of browser_data() this file reads: llmcalc.browser.SPEC_VERSION when it was written. */
  const SPEC_VERSION = 2;

  /** The JSON kind of a value, for a refusal's `type` parameter. */
  function jsonType(value) {
    if (value === null || value === undefined) return "null";
    if (typeof value === "bigint") return "integer";
    if (Array.isArray(value)) return "array";
    if (value instanceof Map) return "object";
    return typeof value;
  }

  /** The value model from what JSON.parse (or a caller) gives: objects become Maps, integral numbers ints. */
  function fromJson(value) {
    if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
    if (Array.isArray(value)) return value.map(fromJson);
    if (value instanceof Map) return new Map([...value].map(([key, item]) => [key, fromJson(item)]));
    if (value !== null && typeof value === "object") {
      return new Map(Object.entries(value).map(([key, item]) => [key, fromJson(item)]));
    }
    return value === undefined ? null : value;
  }

  /** Python's ==, on the value model: numbers by value (True == 1), everything else by kind and content. */
  function same(a, b) {
    const numeric = (v) => ["bigint", "number", "boolean"].includes(typeof v);
    if (numeric(a) && numeric(b)) return a == b; // loose ==, as Python's: exact across BigInt and Number (1n == 1.0)
    if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => same(v, b[i]));
    if (a instanceof Map && b instanceof Map) {
      return a.size === b.size && [...a].every(([k, v]) => b.has(k) && same(v, b.get(k)));
    }
    return a === b;
  }

  /** Python's bool(value). */
  function truthy(value) {
    if (typeof value === "bigint") return value !== 0n;
    if (Array.isArray(value) || typeof value === "string") return value.length > 0;
    if (value instanceof Map) return value.size > 0;
    return Boolean(value);
  }

  // Python's json module reads every integer literal as an exact int, every other number as a float, and also
  // NaN, Infinity and -Infinity.  JSON.parse reads 4096.0 and 4096 alike, rounds integers beyond 2^53, and refuses
  // the non-finite literals.  So each number literal (and each non-finite one) outside a string is rewritten
  // into a string holding a mark and the literal, which the reviver turns back into a BigInt or a Number.  That
  // needs nothing of the browser beyond JSON.parse (its source-text access, context.source, is not everywhere).
  const TOKENS = /"(?:[^"\\]|\\.)*"|(-?Infinity|NaN|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
  const INTEGER = /^-?\d+$/;
  const NON_FINITE = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };
  const MAX_INT_DIGITS = 4300; // sys.get_int_max_str_digits() default

  /** A mark no string of `text` can start with: one more NUL than its longest run of escaped NULs, then U+0001.
   *  A JSON string can hold U+0000 only as the escape \u0000 (a raw control character is invalid JSON). */
  function markFor(text) {
    const runs = text.match(/(?:\\u0000)+/gi) || [];
    const longest = runs.reduce((most, run) => Math.max(most, run.length / 6), 0);
    return { escaped: "\\u0000".repeat(longest + 1) + "\\u0001", decoded: "\u0000".repeat(longest + 1) + "\u0001" };
  }

  // _load (hf.py): the text of a config.json, refused unless it holds a JSON object.
  function parseConfigText(text, name = "config.json") {
    const lines = String(text).replace(/\r\n?/g, "\n"); // as Path.read_text gives it to Python
    const mark = markFor(lines);
    const shifts = []; // [position in the marked text, characters added before it]: maps JSON.parse's position back
    let added = 0;
    const marked = lines.replace(TOKENS, (match, literal, offset) => {
      if (!literal) return match;
      added += mark.escaped.length + 2;
      shifts.push([offset + added, added]);
      return `"${mark.escaped}${literal}"`;
    });
    const original = (position) => {
      let before = 0;
      for (const [start, shift] of shifts) if (position >= start) before = shift;
      return position - before;
    };
    let parsed;
    try {
      parsed = JSON.parse(marked, (key, value) => {
        if (typeof value === "string" && value.startsWith(mark.decoded)) {
          const literal = value.slice(mark.decoded.length);
          if (literal in NON_FINITE) return NON_FINITE[literal];
          if (!INTEGER.test(literal)) return Number(literal);
          if (literal.replace("-", "").length > MAX_INT_DIGITS) {
            throw refusal("number_too_long", { path: name, max_digits: MAX_INT_DIGITS });
          }
          return BigInt(literal);
        }
        if (value !== null && typeof value === "object" && !Array.isArray(value)) return new Map(Object.entries(value));
        return value;
      });
    } catch (error) {
      if (error instanceof LLMCalcError) throw error;
      if (error instanceof RangeError) throw refusal("too_deeply_nested", { path: name });
      // V8 names the position in some of its messages; its line and column count characters as Python's do.
      const found = /position (\d+)/.exec(/** @type {SyntaxError} JSON.parse's, the one error left */ (error).message);
      const position = found ? original(Number(found[1])) : null;
      const before = position === null ? null : lines.slice(0, position);
      throw refusal("invalid_json", {
        path: name, line: before === null ? null : before.split("\n").length,
        column: before === null ? null : position - before.lastIndexOf("\n"),
      });
    }
    if (!(parsed instanceof Map)) throw refusal("not_a_json_object", { path: name, type: jsonType(parsed) });
    return parsed;
  }

  // ---------------------------------------------------------------- the model layer, bound to its tables

  function withTables(rawTables) {
    if (rawTables.spec_version !== SPEC_VERSION) {
      throw new Error(`the page's tables are llmcalc.browser.SPEC_VERSION ${rawTables.spec_version}, `
        + `modelconfig.js reads version ${SPEC_VERSION}`);
    }
    const toMap = (object) => new Map(Object.entries(object));
    /** @type {(object: object, inner?: (value: any) => any) => Map<string, any>} */
    const nestedMap = (object, inner = toMap) => new Map(Object.entries(object).map(([k, v]) => [k, inner(v)]));
    const tables = {
      supported: rawTables.supportedModelTypes,
      defaults: nestedMap(rawTables.defaults, fromJson),
      aliases: nestedMap(rawTables.aliases),
      readSizeKeys: nestedMap(rawTables.readSizeKeys, (keys) => new Set(keys)),
      attentionBias: rawTables.attentionBias,
      fields: rawTables.fields.map((field) => ({ ...field, default: fromJson(field.default) })),
      atLeastOne: rawTables.atLeastOne,
      choices: rawTables.choices,
      layoutFfn: toMap(rawTables.layoutFfn),
      attention: nestedMap(rawTables.attention, (entry) => ({ prefix: entry.prefix, names: toMap(entry.names) })),
      mlp: nestedMap(rawTables.mlp),
      allLinear: rawTables.allLinear,
      fusedInto: toMap(rawTables.fusedInto),
      peftMoeNames: nestedMap(rawTables.peftMoeNames, (pairs) => new Map(pairs)),
      routerNames: toMap(rawTables.routerNames),
    };
    const made = new WeakSet(); // configs this module validated: the counts accept nothing else

    // -------------------------------------------------------------- _validate.py

    // _validate.flag
    function checkFlag(name, value) {
      if (typeof value !== "boolean") throw refusal("not_a_flag", { name, value, type: jsonType(value) });
      return value;
    }

    // _validate.count (no maximum: ModelConfig and the counts use none)
    function checkCount(name, value, minimum = 1) {
      const limits = { name, minimum, maximum: null };
      if (typeof value !== "bigint") {
        const integral = typeof value === "number" && Number.isInteger(value);
        throw refusal("not_an_integer", { ...limits, value, type: jsonType(value), integral });
      }
      if (value < BigInt(minimum)) throw refusal("integer_out_of_range", { ...limits, value });
      return value;
    }

    // _validate.choice (Python's "did you mean" suggestion is left to Python)
    function checkChoice(name, value, options) {
      if (typeof value !== "string") throw refusal("not_one_of_type", { name, options, value, type: jsonType(value) });
      if (!options.includes(value)) throw refusal("not_one_of", { name, options, value, suggestion: null });
      return value;
    }

    // -------------------------------------------------------------- config.py

    const isMoe = (/** @type {ModelConfig} */ cfg) => cfg.n_experts > 1n;
    const usesLatentAttention = (/** @type {ModelConfig} */ cfg) => cfg.kv_lora_rank > 0n;
    const qDim = (/** @type {ModelConfig} */ cfg) => cfg.n_heads * cfg.head_dim;
    const kvDim = (/** @type {ModelConfig} */ cfg) => cfg.n_kv_heads * cfg.head_dim;
    const moeLayers = (/** @type {ModelConfig} */ cfg) => (isMoe(cfg) ? cfg.n_layers - cfg.dense_layers : 0n);
    const routedExpertDff = (/** @type {ModelConfig} */ cfg) => cfg.expert_d_ff || cfg.d_ff;

    // ModelConfig.__init__ and __post_init__, on values already in the model (ints as BigInt)
    /** @param {Record<string, ConfigValue>} given @returns {ModelConfig} */
    function construct(given) {
      const names = tables.fields.map((field) => field.name);
      const unexpected = Object.keys(given).find((key) => !names.includes(key));
      // A programming error of the caller, as Python's TypeError for a wrong keyword is: not a refusal.
      if (unexpected !== undefined) throw new TypeError(`ModelConfig has no field ${unexpected}`);
      const missing = tables.fields.filter((f) => f.default === null && !Object.hasOwn(given, f.name));
      if (missing.length) throw new TypeError(`ModelConfig needs ${missing.map((f) => f.name).join(", ")}`);
      /** @type {any} filled from tables.fields one by one: a ModelConfig only once the loop and checks are done */
      const cfg = {};
      for (const field of tables.fields) {
        let value = Object.hasOwn(given, field.name) ? given[field.name] : field.default;
        if (field.type === "bool") value = checkFlag(field.name, value);
        else if (field.type === "str") {
          if (typeof value !== "string") {
            throw refusal("not_a_str", { name: field.name, value, type: jsonType(value) });
          }
        } else if (field.type === "int") {
          const required = tables.atLeastOne.includes(field.name);
          value = checkCount(field.name, value === null && !required ? 0n : value, required ? 1 : 0);
        } else value = checkChoice(field.name, value, tables.choices[field.type]);
        cfg[field.name] = value;
      }
      if (cfg.head_dim === 0n) {
        if (cfg.d_model % cfg.n_heads) {
          throw refusal("heads_do_not_divide", { n_heads: cfg.n_heads, d_model: cfg.d_model });
        }
        cfg.head_dim = cfg.d_model / cfg.n_heads;
      }
      if (cfg.n_kv_heads === 0n) cfg.n_kv_heads = cfg.n_heads;
      if (cfg.sliding_window_layers === 0n) cfg.sliding_window_layers = cfg.sliding_window ? cfg.n_layers : 0n;
      const needs = tables.layoutFfn.get(cfg.layout) ?? cfg.ffn;
      const moe = isMoe(cfg);
      const problems = [
        [cfg.n_heads % cfg.n_kv_heads, "kv_heads_do_not_divide", { n_heads: cfg.n_heads, n_kv_heads: cfg.n_kv_heads }],
        [cfg.experts_per_token > cfg.n_experts, "too_many_active_experts",
          { n_experts: cfg.n_experts, experts_per_token: cfg.experts_per_token }],
        [cfg.d_ff === 0n && (!moe || !cfg.expert_d_ff || cfg.dense_layers), "missing_d_ff", {}],
        [cfg.dense_layers >= cfg.n_layers || (cfg.dense_layers && !moe), "dense_layers_out_of_range",
          { max_dense_layers: cfg.n_layers - 1n, dense_layers: cfg.dense_layers, n_experts: cfg.n_experts }],
        ...["expert_d_ff", "shared_expert_d_ff", "router_bias"].map((name) => [cfg[name] && !moe, "moe_only_field",
          { name, value: cfg[name] }]),
        [cfg.shared_expert_gate && !cfg.shared_expert_d_ff, "shared_gate_without_expert", {}],
        [(!cfg.sliding_window && cfg.sliding_window_layers) || cfg.sliding_window_layers > cfg.n_layers,
          "window_layers_out_of_range", { n_layers: cfg.n_layers, sliding_window_layers: cfg.sliding_window_layers,
            sliding_window: cfg.sliding_window }],
        [needs !== cfg.ffn, "layout_ffn_mismatch", { layout: cfg.layout, needs, ffn: cfg.ffn }],
        ...["q_lora_rank", "rope_head_dim", "v_head_dim"].map((name) => [cfg[name] && !cfg.kv_lora_rank,
          "latent_only_field", { name, value: cfg[name] }]),
        [cfg.kv_lora_rank && !(0n < cfg.rope_head_dim && cfg.rope_head_dim < cfg.head_dim),
          "rope_head_dim_out_of_range", { max_rope_head_dim: cfg.head_dim - 1n, rope_head_dim: cfg.rope_head_dim }],
        [cfg.kv_lora_rank && (cfg.layout !== "llama" || cfg.qk_norm !== "none" || cfg.n_kv_heads !== cfg.n_heads),
          "latent_attention_layout", { layout: cfg.layout, qk_norm: cfg.qk_norm, n_kv_heads: cfg.n_kv_heads }],
        [cfg.lm_head_bias && cfg.tie_embeddings, "lm_head_bias_tied", {}],
      ];
      for (const [failed, code, params] of problems) if (failed) throw refusal(code, params);
      made.add(Object.freeze(cfg));
      return cfg;
    }

    // ModelConfig(**fields), for presets: JSON numbers with an integral value count as ints (see the file header)
    function modelConfig(fields) {
      return construct(Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, fromJson(value)])));
    }

    // as_model_config
    /** @param {object} cfg @returns {ModelConfig} */
    function asModelConfig(cfg) {
      if (!made.has(cfg)) {
        throw refusal("not_a_model_config", { type: cfg === null ? "null" : typeof cfg });
      }
      return /** @type {ModelConfig} made only by construct */ (cfg);
    }

    // -------------------------------------------------------------- hf.py

    // _Reader: keys from the file first, then the class defaults of its model_type
    class Reader {
      constructor(data, modelType) {
        this.data = data;
        this.modelType = modelType;
        this.defaults = tables.defaults.get(modelType);
        this.used = new Set(["model_type"]);
      }

      // _Reader.__call__
      read(key) {
        const alias = tables.aliases.get(this.modelType)?.get(key) ?? key;
        this.used.add(key).add(alias);
        if (alias !== key && this.data.has(key) && this.data.has(alias)
          && !same(this.data.get(key), this.data.get(alias))) {
          throw this.fail("contradicting_keys",
            { key, value: this.data.get(key), alias, alias_value: this.data.get(alias) });
        }
        for (const name of [key, alias]) if (this.data.has(name)) return this.data.get(name);
        return this.defaults.has(key) ? this.defaults.get(key) : null;
      }

      // _Reader.fail
      fail(code, params) {
        return refusal(code, { config: this.modelType, ...params });
      }

      // _Reader.refuse_unless
      refuseUnless(key, accepted, code) {
        const value = this.read(key);
        if (!accepted(value)) throw this.fail(code, { key, value });
      }

      // _Reader.check_rest
      checkRest() {
        for (const [key, value] of this.data) {
          if (tables.readSizeKeys.get(this.modelType).has(key) && !this.used.has(key)) {
            throw this.fail("unknown_size_key", { key, value });
          }
        }
      }
    }

    // _positive
    function positive(read, key, zero = false) {
      const value = read.read(key);
      const minimum = zero ? 0n : 1n;
      if (typeof value !== "bigint" || value < minimum) {
        throw read.fail("key_not_a_count", { key, minimum: Number(minimum), value });
      }
      return value;
    }

    // _flag
    function flag(read, key) {
      const value = read.read(key);
      if (typeof value !== "boolean") throw read.fail("key_not_a_flag", { key, value });
      return value;
    }

    // The layer_types list _layer_types writes, kept as its length and sliding count: a list of 10^15 entries
    // would freeze the page (Python would build it).
    class DefaultLayerTypes {
      constructor(length, sliding) {
        this.length = length;
        this.sliding = sliding;
      }
    }

    // _sliding
    function sliding(read, nLayers, everyLayerWhenNoTypes) {
      const window = read.read("sliding_window");
      const types = read.read("layer_types");
      let windowed;
      if (types instanceof DefaultLayerTypes) windowed = types.sliding;
      else if (types !== null) {
        if (!Array.isArray(types) || BigInt(types.length) !== nLayers) {
          throw read.fail("layer_types_length",
            { n_layers: nLayers, entries: Array.isArray(types) ? types.length : null, value: types });
        }
        const unknown = [];
        for (const item of types) {
          const known = item === "full_attention" || item === "sliding_attention";
          if (!known && !unknown.some((seen) => same(seen, item))) unknown.push(item);
        }
        if (unknown.length) throw read.fail("layer_types_unknown", { types: unknown });
        windowed = BigInt(types.filter((t) => t === "sliding_attention").length);
      } else {
        windowed = everyLayerWhenNoTypes && truthy(window) ? nLayers : 0n;
      }
      if (windowed && !(typeof window === "bigint" && window >= 2n)) {
        throw read.fail("sliding_window_invalid", { value: window });
      }
      return { sliding_window: windowed ? window : 0n, sliding_window_layers: windowed };
    }

    // _layer_types: transformers' default rule, given here as the number of sliding layers it yields
    function layerTypes(read, nLayers, countSliding) {
      if (read.read("layer_types") === null) {
        read.data = new Map(read.data).set("layer_types", new DefaultLayerTypes(nLayers, countSliding()));
      }
    }

    // bool((i + 1) % pattern) summed over i in range(n_layers): Gemma 3's sliding_window_pattern
    const countNotMultiples = (nLayers, pattern) => nLayers - nLayers / pattern;

    // _common
    function common(read) {
      const d = positive(read, "hidden_size");
      const heads = positive(read, "num_attention_heads");
      const kvHeads = read.read("num_key_value_heads");
      const headDim = read.read("head_dim");
      return {
        vocab_size: positive(read, "vocab_size"),
        d_model: d,
        n_layers: positive(read, "num_hidden_layers"),
        n_heads: heads,
        n_kv_heads: kvHeads === null ? heads : positive(read, "num_key_value_heads"),
        head_dim: headDim === null ? d / heads : positive(read, "head_dim"),
        tie_embeddings: flag(read, "tie_word_embeddings"),
      };
    }

    // _llama_like
    function llamaLike(read) {
      const cfg = common(read);
      cfg.d_ff = positive(read, "intermediate_size");
      const mt = read.modelType;
      if (tables.attentionBias.includes(mt)) cfg.qkv_bias = cfg.out_bias = flag(read, "attention_bias");
      if (mt === "llama" || mt === "deepseek_v2") cfg.mlp_bias = flag(read, "mlp_bias");
      if (mt === "qwen2") cfg.qkv_bias = true; // Qwen2's q, k and v always carry a bias, the output projection none
      if (mt === "qwen2_moe") cfg.qkv_bias = flag(read, "qkv_bias");
      return cfg;
    }

    // _moe
    function moeFields(read, cfg, expertsKey, widthKey) {
      if (read.defaults.has("decoder_sparse_step")) {
        read.refuseUnless("decoder_sparse_step", (v) => same(v, 1n), "sparse_step_unmodelled");
        read.refuseUnless("mlp_only_layers", (v) => v === null || (Array.isArray(v) && v.length === 0),
          "dense_layers_unmodelled");
      }
      cfg.n_experts = positive(read, expertsKey);
      cfg.experts_per_token = positive(read, "num_experts_per_tok");
      if (widthKey) cfg.expert_d_ff = positive(read, widthKey);
    }

    // _qwen_sliding
    function qwenSliding(read, nLayers) {
      const mt = read.modelType;
      const use = flag(read, "use_sliding_window");
      if (mt === "qwen3_moe") return sliding(read, nLayers, use);
      const first = positive(read, "max_window_layers", true);
      if (mt === "qwen2_moe") {
        // use and bool((i + 1) % 2) and i < first: the even layers below first
        layerTypes(read, nLayers, () => (use ? ((first < nLayers ? first : nLayers) + 1n) / 2n : 0n));
      } else {
        // use and read("sliding_window") is not None and i >= first
        layerTypes(read, nLayers,
          () => (use && read.read("sliding_window") !== null && first < nLayers ? nLayers - first : 0n));
      }
      return sliding(read, nLayers, false);
    }

    // _build
    /** @returns {Record<string, ConfigValue>} construct's fields, read from the config */
    function build(read) {
      const mt = read.modelType;
      if (mt === "gpt2") {
        read.refuseUnless("add_cross_attention", (v) => !truthy(v), "cross_attention_unmodelled");
        const d = positive(read, "n_embd");
        const inner = read.read("n_inner");
        return {
          vocab_size: positive(read, "vocab_size"), d_model: d, n_layers: positive(read, "n_layer"),
          n_heads: positive(read, "n_head"), d_ff: inner === null ? 4n * d : positive(read, "n_inner"),
          ffn: "mlp", tie_embeddings: flag(read, "tie_word_embeddings"), qkv_bias: true, out_bias: true,
          mlp_bias: true, norm: "layernorm", learned_positions: positive(read, "n_positions"), layout: "gpt2",
        };
      }
      if (mt === "falcon") {
        read.refuseUnless("new_decoder_architecture", (v) => !truthy(v), "new_decoder_unmodelled");
        const d = positive(read, "hidden_size");
        const heads = positive(read, "num_attention_heads");
        const ffn = read.read("ffn_hidden_size");
        const bias = flag(read, "bias");
        const twoNorms = !flag(read, "parallel_attn") || same(read.read("num_ln_in_parallel_attn"), 2n);
        // The old decoder architecture builds Q, K and V for every head unless multi_query: num_kv_heads is unused.
        const multiQuery = flag(read, "multi_query");
        const kvHeads = multiQuery ? 1n : heads;
        // transformers 5.25 derives num_key_value_heads, the heads its cache code sizes, and saves it; a file's value
        // replaces the derived one, so only the number the attention layers build is accepted.
        if (read.read("num_key_value_heads") !== null && positive(read, "num_key_value_heads") !== kvHeads) {
          throw read.fail("contradicting_keys", { key: "num_key_value_heads", value: read.read("num_key_value_heads"),
            alias: "multi_query", alias_value: multiQuery });
        }
        return {
          vocab_size: positive(read, "vocab_size"), d_model: d, n_heads: heads,
          n_layers: positive(read, "num_hidden_layers"),
          n_kv_heads: kvHeads,
          d_ff: ffn === null ? 4n * d : positive(read, "ffn_hidden_size"), ffn: "mlp",
          tie_embeddings: flag(read, "tie_word_embeddings"), qkv_bias: bias, out_bias: bias,
          mlp_bias: bias, norm: "layernorm", norms_per_layer: twoNorms ? 2n : 1n, layout: "falcon",
        };
      }
      if (mt === "gpt_neox" || mt === "phi" || mt === "starcoder2") { // classic two-matrix MLP with LayerNorm
        /** @type {Record<string, ConfigValue>} construct's fields, some set below */
        const cfg = { ...common(read), d_ff: positive(read, "intermediate_size"), ffn: "mlp", norm: "layernorm",
          layout: mt, mlp_bias: true };
        const biasKey = { gpt_neox: "attention_bias", starcoder2: "use_bias" }[mt];
        cfg.qkv_bias = cfg.out_bias = biasKey ? flag(read, biasKey) : true;
        if (mt === "phi") {
          const qkNorm = flag(read, "qk_layernorm") ? "per-head" : "none";
          Object.assign(cfg, { lm_head_bias: true, norms_per_layer: 1n, qk_norm: qkNorm });
        }
        if (mt === "starcoder2") Object.assign(cfg, { mlp_bias: cfg.qkv_bias }, sliding(read, cfg.n_layers, true));
        return cfg;
      }

      const cfg = llamaLike(read);
      const nLayers = cfg.n_layers;
      if (["mistral", "mixtral", "phi3"].includes(mt)) Object.assign(cfg, sliding(read, nLayers, true));
      if (["qwen2", "qwen2_moe", "qwen3", "qwen3_moe"].includes(mt)) Object.assign(cfg, qwenSliding(read, nLayers));
      if (mt === "gemma2") {
        layerTypes(read, nLayers, () => (nLayers + 1n) / 2n); // bool((i + 1) % 2): every other layer from the first
        Object.assign(cfg, sliding(read, nLayers, false), { norms_per_layer: 4n });
      }
      if (mt === "gemma3_text") {
        read.refuseUnless("use_bidirectional_attention", (v) => !truthy(v), "bidirectional_unmodelled");
        const patternKey = ["sliding_window_pattern", "_sliding_window_pattern"].find((k) => read.data.has(k));
        const pattern = patternKey ? positive(read, patternKey) : 6n;
        layerTypes(read, nLayers, () => countNotMultiples(nLayers, pattern));
        Object.assign(cfg, sliding(read, nLayers, false), { norms_per_layer: 4n, qk_norm: "per-head" });
      }
      if (mt === "gpt_oss") { // a 128-token window on every other layer, from layer 0
        layerTypes(read, nLayers, () => (nLayers + 1n) / 2n);
        Object.assign(cfg, sliding(read, nLayers, false));
        moeFields(read, cfg, "num_local_experts", null);
        Object.assign(cfg, { mlp_bias: true, router_bias: true, attention_sinks: true });
      }
      if (mt === "qwen3" || mt === "qwen3_moe") cfg.qk_norm = "per-head";
      if (mt === "olmo") cfg.norm = "parameter-free";
      if (mt === "olmo2" || mt === "olmoe") cfg.qk_norm = "per-projection";
      if (mt === "phi3") cfg.layout = "phi3";
      if (mt === "mixtral") moeFields(read, cfg, "num_local_experts", null);
      if (mt === "olmoe") moeFields(read, cfg, "num_experts", null);
      if (mt === "qwen2_moe" || mt === "qwen3_moe") moeFields(read, cfg, "num_experts", "moe_intermediate_size");
      if (mt === "qwen2_moe") {
        cfg.shared_expert_d_ff = positive(read, "shared_expert_intermediate_size");
        cfg.shared_expert_gate = true;
      }
      if (mt === "deepseek_v2" || mt === "deepseek_v3") {
        moeFields(read, cfg, "n_routed_experts", "moe_intermediate_size");
        const nope = positive(read, "qk_nope_head_dim");
        const rope = positive(read, "qk_rope_head_dim");
        const qRank = read.read("q_lora_rank");
        cfg.head_dim = nope + rope;
        cfg.rope_head_dim = rope;
        cfg.v_head_dim = positive(read, "v_head_dim");
        cfg.kv_lora_rank = positive(read, "kv_lora_rank");
        cfg.q_lora_rank = qRank === null ? 0n : positive(read, "q_lora_rank");
        cfg.n_kv_heads = cfg.n_heads;
        cfg.dense_layers = positive(read, "first_k_dense_replace", true);
        cfg.shared_expert_d_ff = positive(read, "n_shared_experts", true) * cfg.expert_d_ff;
      }
      return cfg;
    }

    // _rope_scalings: transformers 5's rope_parameters (one per layer type for Gemma 3), then rope_scaling
    function ropeScalings(read) {
      const found = [];
      for (const key of ["rope_parameters", "rope_scaling"]) {
        const value = read.read(key);
        if (value instanceof Map) {
          const nested = [...value.values()].filter((item) => item instanceof Map);
          found.push(...(nested.length ? nested : [value]));
        }
      }
      return found;
    }

    // _trained_context
    function trainedContext(read) {
      if (read.modelType === "gpt2") return positive(read, "n_positions");
      let longest = positive(read, "max_position_embeddings");
      const topOriginal = read.read("original_max_position_embeddings");
      for (const scaling of ropeScalings(read)) {
        const kind = scaling.has("rope_type") ? scaling.get("rope_type") : scaling.get("type");
        if (kind === "llama3") continue;  // max_position_embeddings is already Llama 3.1/3.2's context
        const factor = scaling.has("factor") ? scaling.get("factor") : null;
        const original = scaling.has("original_max_position_embeddings")
          ? scaling.get("original_max_position_embeddings") : topOriginal;
        if (typeof original !== "bigint" || original < 1n || original > 2n ** 53n) continue;
        if (typeof factor === "bigint" && factor > 1n) {
          if (original * factor > longest) longest = original * factor;
        } else if (typeof factor === "number" && Number.isFinite(factor) && factor > 1
          && Number.isFinite(Number(original) * factor)) {
          const reached = BigInt(Math.trunc(Number(original) * factor));
          if (reached > longest) longest = reached;
        }
      }
      return longest;
    }

    // config_from_hf (ModelConfig.from_hf_config), on a parsed config: a Map from parseConfigText, or JSON.parse's
    function fromHfConfig(source) {
      const data = source instanceof Map ? source : fromJson(source);
      if (!(data instanceof Map)) throw refusal("config_source_type", { type: jsonType(data) });
      const modelType = data.has("model_type") ? data.get("model_type") : null;
      if (!tables.supported.includes(modelType)) {
        throw refusal("unsupported_model_type", { model_type: modelType, supported: tables.supported,
          multimodal: data.get("text_config") instanceof Map });
      }
      if (data.has("quantization_config")) throw refusal("quantized_checkpoint", { config: modelType });
      const read = new Reader(data, modelType);
      const fields = build(read);
      fields.trained_context = trainedContext(read);
      read.checkRest();
      fields.model_type = modelType;
      try {
        return construct(fields);
      } catch (error) {
        throw error instanceof LLMCalcError ? refusal(error.code, { ...error.params, config: modelType }) : error;
      }
    }

    // -------------------------------------------------------------- checkpoints.py: the quantization_config

    const quantMethods = rawTables.quantMethods;
    const BOUNDARY = "(?:(?<=\\.)|(?=\\.|$))";
    const isInt = (value) => typeof value === "bigint";
    const twoCounts = (value) => Array.isArray(value) && value.length === 2 && value.every((b) => isInt(b) && b >= 1n);

    // _check
    function checkQuant(method, ok, key, value, accepted) {
      if (ok) return;
      const id = Object.hasOwn(rawTables.quantAccepted, accepted) ? accepted : null;
      throw refusal("quantization_unmodelled",
        { method, key, value, accepted: id ? rawTables.quantAccepted[id] : accepted, accepted_id: id });
    }

    // _int
    function quantInt(method, data, key, fallback, accepted = null, minimum = 1n) {
      const value = data.has(key) ? data.get(key) : fallback;
      const fine = isInt(value) && (accepted ? accepted.some((a) => BigInt(a) === value) : value >= minimum);
      checkQuant(method, fine, key, value, accepted ? accepted.join(", ") : minimum === 1n ? "integer" : "group");
      return value;
    }

    // get with Python's dict.get(key, default)
    const getOr = (data, key, fallback) => (data.has(key) ? data.get(key) : fallback);

    // _names: a skip list, each pattern compiled as its loader compiles it
    function quantNames(method, data, key, headByDefault = false) {
      const value = getOr(data, key, null);
      if (value === null) return headByDefault ? ["lm_head", "embed_out"] : [];
      checkQuant(method, Array.isArray(value) && value.every((v) => typeof v === "string"), key, value, "names");
      for (const name of value) {
        const pattern = key === "ignore" ? (name.startsWith("re:") ? name.slice(3) : "") : `(?:${name})${BOUNDARY}`;
        try {
          new RegExp(pattern);
        } catch (error) {
          checkQuant(method, false, key, name, "patterns");
        }
      }
      return value;
    }

    // CheckpointFormat's defaults
    const checkpointFormat = (fields) => ({
      bits: 8n, scales: "channel", group_size: 0n, block: [0n, 0n], scale_bytes: 4n, zero_points: false,
      group_index: false, input_scale_bytes: 0n, bias_bytes: 2n, skip: [], targets: [], matcher: "transformers",
      blocks_only: false, kv_scale_bytes: 0n, ...fields,
    });

    // _fp8
    function fp8Format(data, method) {
      const alias = getOr(data, "modules_to_not_convert", null) === null && data.has("ignored_layers")
        ? "ignored_layers" : "modules_to_not_convert";
      const skip = quantNames(method, data, alias, true);
      checkQuant(method, !truthy(getOr(data, "modules_to_convert", null)), "modules_to_convert",
        getOr(data, "modules_to_convert", null), "no_fp8_embeddings");
      if (method === "fbgemm_fp8") {
        return checkpointFormat({ method, codes: "fp8", scales: "channel", scale_bytes: 4n, bias_bytes: 4n, skip });
      }
      const block = getOr(data, "weight_block_size", null);
      const scheme = getOr(data, "activation_scheme", "dynamic");
      checkQuant(method, ["dynamic", "static"].includes(scheme), "activation_scheme", scheme, "dynamic, static");
      const scaleFmt = getOr(data, "scale_fmt", "float");
      checkQuant(method, ["float", "ue8m0", null].includes(scaleFmt), "scale_fmt", scaleFmt, "float, ue8m0");
      checkQuant(method, getOr(data, "fmt", "e4m3") === "e4m3", "fmt", getOr(data, "fmt", null), "e4m3");
      if (block !== null) checkQuant(method, twoCounts(block), "weight_block_size", block, "block");
      return checkpointFormat({ method, codes: "fp8", scales: block ? "block" : "tensor", block: block || [0n, 0n],
        scale_bytes: scaleFmt === "ue8m0" ? 1n : 4n, input_scale_bytes: scheme === "static" ? 4n : 0n, skip });
    }

    // _compressed
    function compressedFormat(data, cfg) {
      const method = "compressed-tensors";
      for (const key of ["sparsity_config", "transform_config"]) {
        checkQuant(method, !truthy(getOr(data, key, null)), key, getOr(data, key, null), "dense_weights");
      }
      const groups = getOr(data, "config_groups", null);
      checkQuant(method, groups instanceof Map && groups.size === 1, "config_groups", groups,
        "one_group");
      const [group] = groups.values();
      checkQuant(method, group instanceof Map, "config_groups", groups, "object");
      const weights = getOr(group, "weights", null);
      checkQuant(method, weights instanceof Map, "weights", weights, "object");
      const kind = getOr(weights, "type", "int");
      checkQuant(method, ["int", "float"].includes(kind), "weights.type", kind, "int, float");
      const bits = quantInt(method, weights, "num_bits", null, kind === "float" ? [8] : [2, 4, 8]);
      const strategy = getOr(weights, "strategy", "tensor");
      checkQuant(method, ["tensor", "channel", "group", "block"].includes(strategy), "weights.strategy", strategy,
        "tensor, channel, group, block");
      checkQuant(method, getOr(weights, "dynamic", false) === false, "weights.dynamic",
        getOr(weights, "dynamic", null), "false");
      const groupSize = strategy === "group" ? quantInt(method, weights, "group_size", null) : 0n;
      const block = strategy === "block" ? getOr(weights, "block_structure", null) : null;
      if (strategy === "block") {
        checkQuant(method, twoCounts(block), "weights.block_structure", block, "block_structure");
      }
      const actorder = getOr(weights, "actorder", null);
      checkQuant(method, [null, "group", "weight", "static", "dynamic"].includes(actorder), "weights.actorder",
        actorder, "null, group, weight, static, dynamic");
      const fmtName = truthy(getOr(group, "format", null)) ? group.get("format") : getOr(data, "format", null);
      const formats = { "float-quantized": "fp8", "naive-quantized": "int8", "int-quantized": "int8",
        "pack-quantized": "packed" };
      checkQuant(method, typeof fmtName === "string" && Object.hasOwn(formats, fmtName), "format", fmtName,
        Object.keys(formats).join(", "));
      const codes = formats[fmtName];
      checkQuant(method, codes !== "fp8" || kind === "float", "format", fmtName, "float_format");
      checkQuant(method, codes !== "int8" || bits === 8n, "weights.num_bits", bits, "eight_bits");
      const inputs = getOr(group, "input_activations", null);
      const staticInput = inputs instanceof Map && getOr(inputs, "dynamic", null) === false;
      checkQuant(method, !staticInput || getOr(inputs, "strategy", "tensor") === "tensor",
        "input_activations.strategy", inputs instanceof Map ? getOr(inputs, "strategy", null) : null,
        "static_tensor");
      const targets = getOr(group, "targets", null);
      checkQuant(method, Array.isArray(targets) && targets.every((t) => typeof t === "string"), "targets", targets,
        "targets");
      quantNames(method, new Map([["ignore", targets]]), "ignore");
      checkQuant(method, !isMoe(cfg), "model_type", cfg.model_type,
        "dense_model");
      return checkpointFormat({ method, codes, bits, scales: strategy, group_size: groupSize,
        block: block || [0n, 0n], scale_bytes: 2n, zero_points: !truthy(getOr(weights, "symmetric", true)),
        group_index: actorder === "group", input_scale_bytes: staticInput ? 2n : 0n,
        skip: quantNames(method, data, "ignore"), targets, matcher: "compressed-tensors",
        kv_scale_bytes: getOr(data, "kv_cache_scheme", null) instanceof Map ? 4n : 0n });
    }

    // _gptq_awq
    function gptqAwqFormat(data, cfg, method) {
      checkQuant(method, !isMoe(cfg), "model_type", cfg.model_type,
        "dense_model");
      if (method === "awq") {
        const bits = quantInt(method, data, "bits", 4n, [4]);
        const version = getOr(data, "version", "gemm");
        const spelled = pyStr(version).toLowerCase();
        checkQuant(method, ["gemm", "gemv"].includes(spelled), "version", version, "gemm, gemv");
        const gemv = spelled === "gemv";
        const group = quantInt(method, data, "group_size", 128n, null, -1n);
        checkQuant(method, group !== 0n && !(gemv && (group < 0n || (group < 128n && group !== 32n && group !== 64n))),
          "group_size", group, "gemv_group");
        return checkpointFormat({ method, codes: gemv ? "awq-gemv" : "awq", bits, scales: "group",
          group_size: group > 0n ? group : 0n, scale_bytes: 2n,
          skip: quantNames(method, data, "modules_to_not_convert"), blocks_only: true });
      }
      const bits = quantInt(method, data, "bits", 4n, [2, 3, 4, 8]);
      const group = quantInt(method, data, "group_size", 128n, null, -1n);
      checkQuant(method, group !== 0n, "group_size", group, "group");
      for (const key of ["dynamic", "modules_in_block_to_quantize"]) {
        checkQuant(method, !truthy(getOr(data, key, null)), key, getOr(data, key, null),
          "every_block_layer");
      }
      checkQuant(method, !truthy(getOr(data, "lm_head", false)), "lm_head", getOr(data, "lm_head", null), "false");
      const checkpoint = getOr(data, "checkpoint_format", "gptq");
      checkQuant(method, ["gptq", "gptq_v2"].includes(checkpoint), "checkpoint_format", checkpoint, "gptq, gptq_v2");
      return checkpointFormat({ method, codes: "gptq", bits, scales: "group", group_size: group > 0n ? group : 0n,
        scale_bytes: 2n, group_index: true, blocks_only: true });
    }

    // _bitsandbytes
    function bitsandbytesFormat(data) {
      const method = "bitsandbytes";
      const skip = quantNames(method, data, "llm_int8_skip_modules", true);
      if (truthy(getOr(data, "load_in_8bit", null))) return checkpointFormat({ method, codes: "bnb-int8", skip });
      checkQuant(method, truthy(getOr(data, "load_in_4bit", null)), "load_in_4bit", getOr(data, "load_in_4bit", null),
        "load_in");
      const kind = getOr(data, "bnb_4bit_quant_type", "fp4");
      checkQuant(method, ["nf4", "fp4"].includes(kind), "bnb_4bit_quant_type", kind, "nf4, fp4");
      const double = getOr(data, "bnb_4bit_use_double_quant", false);
      checkQuant(method, typeof double === "boolean", "bnb_4bit_use_double_quant", double, "true, false");
      return checkpointFormat({ method, codes: double ? "bnb-nf4-dq" : "bnb-nf4", bits: 4n, skip });
    }

    // _mxfp4
    function mxfp4Format(data, cfg) {
      const method = "mxfp4";
      checkQuant(method, cfg.model_type === "gpt_oss", "model_type", cfg.model_type, "gpt_oss_only");
      checkQuant(method, getOr(data, "dequantize", false) === false, "dequantize", getOr(data, "dequantize", null),
        "false");
      return checkpointFormat({ method, codes: "mxfp4", bits: 4n, scales: "group", group_size: 32n, scale_bytes: 1n,
        skip: quantNames(method, data, "modules_to_not_convert") });
    }

    // Python's str() of a JSON value, for AWQ's version (only its lower-case spelling is compared)
    const pyStr = (value) => (typeof value === "string" ? value : String(value));

    // quantization_from_hf
    function quantizationFromHf(quantization, cfg) {
      if (!(quantization instanceof Map)) {
        checkQuant("a checkpoint", false, "quantization_config", quantization, "object");
      }
      const bnbKeys = ["load_in_4bit", "load_in_8bit"].some((key) => quantization.has(key));
      const method = getOr(quantization, "quant_method", bnbKeys ? "bitsandbytes" : null);
      if (!quantMethods.includes(method)) {
        checkQuant("llmcalc", false, "quant_method", method, quantMethods.join(", "));
      }
      let format;
      if (method === "fbgemm_fp8" || method === "fp8") format = fp8Format(quantization, method);
      else if (method === "compressed-tensors") format = compressedFormat(quantization, cfg);
      else if (method === "awq" || method === "gptq") format = gptqAwqFormat(quantization, cfg, method);
      else if (method === "mxfp4") format = mxfp4Format(quantization, cfg);
      else format = bitsandbytesFormat(quantization);
      if ((format.blocks_only || format.matcher === "compressed-tensors") && ["gpt2", "falcon"].includes(cfg.layout)) {
        checkQuant(method, false, "model_type", cfg.model_type, "linear_blocks");
      }
      return Object.freeze(format);
    }

    // checkpoint_from_hf
    function checkpointFromHf(source) {
      const data = source instanceof Map ? source : fromJson(source);
      if (!(data instanceof Map) || !data.has("quantization_config")) {
        return { config: fromHfConfig(data), weightFormat: null };
      }
      const config = fromHfConfig(new Map([...data].filter(([key]) => key !== "quantization_config")));
      return { config, weightFormat: quantizationFromHf(data.get("quantization_config"), config) };
    }

    const counts = window.LLMModelCounts.withModel({
      tables, asModelConfig, checkCount, checkFlag, refusal, fromJson, jsonType, isMoe, usesLatentAttention, qDim,
      kvDim, moeLayers, routedExpertDff,
    });

    return { fromHfConfig, checkpointFromHf, quantizationFromHf, modelConfig, moeLayers, ...counts };
  }

  // The API on the page's tables, bound on first use so that the script and the tables may come in either order.
  let bound = null;
  const onPageTables = (name) => (...args) => {
    if (!bound) {
      const element = document.getElementById("modelconfig-tables");
      const tables = window.LLMModelConfigTables || (element && JSON.parse(element.textContent));
      if (!tables) {
        throw new Error("modelconfig.js needs llmcalc.browser.browser_data() in #modelconfig-tables "
          + "or window.LLMModelConfigTables");
      }
      bound = withTables(tables);
    }
    return bound[name](...args);
  };
  const api = { parseConfigText, withTables, fromJson, LLMCalcError, SPEC_VERSION };
  for (const name of ["fromHfConfig", "checkpointFromHf", "quantizationFromHf", "modelConfig", "moeLayers",
    "linearModules", "paramBreakdown", "paramCount", "activeParamCount", "loraTargets", "linearTargetNames",
    "loraModelParams"]) {
    api[name] = onPageTables(name);
  }
  window.LLMModelConfig = /** @type {LLMModelConfigApi} with the bound functions added above */ (Object.freeze(api));
})();
