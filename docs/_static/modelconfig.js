/* The browser's copy of llmcalc's model layer: ModelConfig.from_hf_config, the parameter counts and LoRA counts.
 *
 * Each function ports the Python function named alike (the comment above it names its twin) and gives the same
 * answer or the same error message.  The DATA those rules read (class defaults, aliases, module names, choices)
 * is not retyped here: it comes from llmcalc._browser.browser_tables() as JSON, in the page's
 * <script type="application/json" id="modelconfig-tables"> (glossary_html.inline_json), in
 * window.LLMModelConfigTables, or through LLMModelConfig.withTables(tables).
 *
 * Values follow Python's JSON model so that every check and message can match Python's:
 *   dict -> Map (insertion order, as Python keeps it; a plain object would put keys like "1" first),
 *   list -> Array, str -> string, int -> BigInt, float -> Number, bool -> boolean, None -> null.
 * parseConfigText(text) reads config.json text into that model exactly (4096.0 stays a float, big integers stay
 * exact).  fromHfConfig also accepts what JSON.parse returns; there an integer-valued number counts as an int,
 * because JSON.parse has already forgotten whether the file said 4096 or 4096.0, and integers beyond 2^53 arrive
 * rounded.  Every count and every integer field of a config is a BigInt: counts stay exact at any size.
 * Errors are Error objects whose name is Python's exception class and whose message is str() of Python's.
 */
(function () {
  "use strict";

  class PyError extends Error {
    constructor(type, message) {
      super(message);
      this.name = type;
    }
  }
  const valueError = (message) => new PyError("ValueError", message);
  const typeError = (message) => new PyError("TypeError", message);

  // ---------------------------------------------------------------- Python's value model

  /** Python's type(value).__name__ for the JSON value model. */
  function pyType(value) {
    if (value === null || value === undefined) return "NoneType";
    if (typeof value === "boolean") return "bool";
    if (typeof value === "bigint") return "int";
    if (typeof value === "number") return "float";
    if (typeof value === "string") return "str";
    if (Array.isArray(value)) return "list";
    if (value instanceof Map) return "dict";
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

  const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

  /** repr() of a str: Python's choice of quotes and escapes. */
  function pyStrRepr(text) {
    const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
    let out = quote;
    for (const char of text) {
      const code = char.codePointAt(0);
      if (char === quote || char === "\\") out += "\\" + char;
      else if (char === "\t") out += "\\t";
      else if (char === "\n") out += "\\n";
      else if (char === "\r") out += "\\r";
      else if (code < 0x20 || code === 0x7f) out += "\\x" + code.toString(16).padStart(2, "0");
      else if (code < 0x7f || char === " " || !NOT_PRINTABLE.test(char)) out += char;
      else if (code < 0x100) out += "\\x" + code.toString(16).padStart(2, "0");
      else if (code < 0x10000) out += "\\u" + code.toString(16).padStart(4, "0");
      else out += "\\U" + code.toString(16).padStart(8, "0");
    }
    return out + quote;
  }

  /** repr() of a float: the shortest round-tripping digits, fixed between 1e-4 and 1e16, else 1e+16 style. */
  function pyFloatRepr(number) {
    if (Number.isNaN(number)) return "nan";
    if (!Number.isFinite(number)) return number > 0 ? "inf" : "-inf";
    if (number === 0) return Object.is(number, -0) ? "-0.0" : "0.0";
    const sign = number < 0 ? "-" : "";
    const [mantissa, exponentText] = Math.abs(number).toExponential().split("e");
    const digits = mantissa.replace(".", "");
    const exponent = Number(exponentText);
    if (exponent < -4 || exponent >= 16) {
      const fraction = digits.length > 1 ? "." + digits.slice(1) : "";
      const shown = String(Math.abs(exponent)).padStart(2, "0");
      return `${sign}${digits[0]}${fraction}e${exponent < 0 ? "-" : "+"}${shown}`;
    }
    if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
    return `${sign}${whole}.${digits.slice(exponent + 1) || "0"}`;
  }

  /** repr() of a value of the model. */
  function pyRepr(value) {
    if (value === null || value === undefined) return "None";
    if (typeof value === "boolean") return value ? "True" : "False";
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "number") return pyFloatRepr(value);
    if (typeof value === "string") return pyStrRepr(value);
    if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
    if (value instanceof Map) {
      return "{" + [...value].map(([key, item]) => `${pyRepr(key)}: ${pyRepr(item)}`).join(", ") + "}";
    }
    return String(value);
  }

  /** repr(value) and its type, as llmcalc's checks show a value of the wrong kind: "'12' (str)". */
  const described = (value) => `${pyRepr(value)} (${pyType(value)})`;

  /** Python's ==: bool, int and float compare as numbers (True == 1 == 1.0), containers item by item. */
  function pyEquals(a, b) {
    const numeric = (v) => typeof v === "boolean" || typeof v === "bigint" || typeof v === "number";
    if (numeric(a) && numeric(b)) {
      const x = typeof a === "boolean" ? BigInt(a) : a;
      const y = typeof b === "boolean" ? BigInt(b) : b;
      if (typeof x === typeof y) return x === y;
      return Number.isFinite(typeof x === "number" ? x : y) && x == y; // == compares a BigInt and a Number exactly
    }
    if (a === b) return a === null || typeof a === "string" || typeof a === "object";
    if (Array.isArray(a) && Array.isArray(b)) {
      return a.length === b.length && a.every((item, i) => item === b[i] || pyEquals(item, b[i]));
    }
    if (a instanceof Map && b instanceof Map) {
      return a.size === b.size && [...a].every(([key, item]) => b.has(key) && (item === b.get(key)
        || pyEquals(item, b.get(key))));
    }
    return false;
  }

  /** Python's bool(value). */
  function pyTruthy(value) {
    if (value === null) return false;
    if (typeof value === "boolean") return value;
    if (typeof value === "bigint") return value !== 0n;
    if (typeof value === "number") return value !== 0;
    if (typeof value === "string" || Array.isArray(value)) return value.length > 0;
    if (value instanceof Map) return value.size > 0;
    return true;
  }

  const compareCodePoints = (a, b) => {
    const x = Array.from(a, (c) => c.codePointAt(0));
    const y = Array.from(b, (c) => c.codePointAt(0));
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  };

  /** sorted(set(items)) for hashable JSON values: strings by code point, numbers by value. */
  function pySortedSet(items) {
    const unique = [];
    for (const item of items) {
      if (Array.isArray(item) || item instanceof Map) throw typeError(`unhashable type: '${pyType(item)}'`);
      if (!unique.some((seen) => pyEquals(seen, item))) unique.push(item);
    }
    const kind = (v) => (typeof v === "string" ? "str" : v === null ? "None" : "number");
    const other = unique.find((v, i) => i > 0 && (kind(v) !== kind(unique[0]) || v === null));
    if (other !== undefined) {
      // Python's own message names the pair in set order, which differs between runs when strings are in the set.
      throw typeError(`'<' not supported between instances of '${pyType(other)}' and '${pyType(unique[0])}'`);
    }
    if (kind(unique[0]) === "str") return unique.sort(compareCodePoints);
    return unique.sort((a, b) => (a < b ? -1 : b < a ? 1 : 0)); // bool, int and float compare as numbers
  }

  // ---------------------------------------------------------------- JSON text, read as Python's json module does

  class JsonError extends Error {
    constructor(message, position) {
      super(message);
      this.position = position;
    }
  }

  const WHITESPACE = " \t\n\r";
  const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
  const MAX_INT_DIGITS = 4300; // sys.get_int_max_str_digits() default

  /** json.loads(text), with Python's value model and the C scanner's error messages and positions. */
  function pyJsonLoads(text) {
    const chars = Array.from(text); // Python counts positions in code points
    const skip = (i) => {
      while (i < chars.length && WHITESPACE.includes(chars[i])) i++;
      return i;
    };

    function scanString(start) { // start: just after the opening quote
      let out = "";
      let i = start;
      for (;;) {
        if (i >= chars.length) throw new JsonError("Unterminated string starting at", start - 1);
        const char = chars[i];
        if (char === '"') return [out, i + 1];
        if (char !== "\\") {
          if (char.codePointAt(0) < 0x20) throw new JsonError("Invalid control character at", i);
          out += char;
          i++;
          continue;
        }
        if (i + 1 >= chars.length) throw new JsonError("Unterminated string starting at", start - 1);
        const escape = chars[i + 1];
        if (Object.hasOwn(ESCAPES, escape)) {
          out += ESCAPES[escape];
          i += 2;
        } else if (escape === "u") {
          const hex = chars.slice(i + 2, i + 6).join("");
          if (i + 6 >= chars.length || !/^[0-9a-fA-F]{4}$/.test(hex)) {
            throw new JsonError("Invalid \\uXXXX escape", i + 1);
          }
          out += String.fromCharCode(parseInt(hex, 16)); // surrogate pairs join as UTF-16, as Python joins them
          i += 6;
        } else {
          throw new JsonError("Invalid \\escape", i);
        }
      }
    }

    function scanValue(i) {
      const char = chars[i];
      if (char === '"') return scanString(i + 1);
      if (char === "{") return scanObject(i + 1);
      if (char === "[") return scanArray(i + 1);
      const ahead = (word) => chars.slice(i, i + word.length).join("") === word;
      if (ahead("null")) return [null, i + 4];
      if (ahead("true")) return [true, i + 4];
      if (ahead("false")) return [false, i + 5];
      if (ahead("NaN")) return [NaN, i + 3];
      if (ahead("Infinity")) return [Infinity, i + 8];
      if (ahead("-Infinity")) return [-Infinity, i + 9];
      return scanNumber(i);
    }

    const isDigit = (char) => char !== undefined && char >= "0" && char <= "9";

    // (-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?: an int unless it has a fraction or an exponent
    function scanNumber(start) {
      let i = chars[start] === "-" ? start + 1 : start;
      if (chars[i] === "0") i++;
      else if (isDigit(chars[i]) && chars[i] !== "0") while (isDigit(chars[i])) i++;
      else throw new JsonError("Expecting value", start);
      const integerEnd = i;
      if (chars[i] === "." && isDigit(chars[i + 1])) for (i += 2; isDigit(chars[i]);) i++;
      if (chars[i] === "e" || chars[i] === "E") {
        let j = chars[i + 1] === "+" || chars[i + 1] === "-" ? i + 2 : i + 1;
        if (isDigit(chars[j])) {
          while (isDigit(chars[j])) j++;
          i = j;
        }
      }
      const literal = chars.slice(start, i).join("");
      if (i > integerEnd) return [Number(literal), i];
      const digits = integerEnd - start - (chars[start] === "-" ? 1 : 0);
      if (digits > MAX_INT_DIGITS) {
        throw valueError(`Exceeds the limit (${MAX_INT_DIGITS} digits) for integer string conversion: value has `
          + `${digits} digits; use sys.set_int_max_str_digits() to increase the limit`);
      }
      return [BigInt(literal), i];
    }

    function scanObject(i) {
      const result = new Map();
      i = skip(i);
      if (chars[i] === "}") return [result, i + 1];
      for (;;) {
        if (chars[i] !== '"') throw new JsonError("Expecting property name enclosed in double quotes", i);
        let key;
        [key, i] = scanString(i + 1);
        i = skip(i);
        if (chars[i] !== ":") throw new JsonError("Expecting ':' delimiter", i);
        i = skip(i + 1);
        let value;
        [value, i] = scanValue(i);
        result.set(key, value); // a repeated key keeps its first place and takes the last value, as in a dict
        i = skip(i);
        if (chars[i] === "}") return [result, i + 1];
        if (chars[i] !== ",") throw new JsonError("Expecting ',' delimiter", i);
        i = skip(i + 1);
      }
    }

    function scanArray(i) {
      const result = [];
      i = skip(i);
      if (chars[i] === "]") return [result, i + 1];
      for (;;) {
        let value;
        [value, i] = scanValue(i);
        result.push(value);
        i = skip(i);
        if (chars[i] === "]") return [result, i + 1];
        if (chars[i] !== ",") throw new JsonError("Expecting ',' delimiter", i);
        i = skip(i + 1);
      }
    }

    if (chars[0] === "\ufeff") throw new JsonError("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
    const [value, end] = scanValue(skip(0));
    if (skip(end) !== chars.length) throw new JsonError("Extra data", skip(end));
    return value;
  }

  // _load (hf.py): the text of a config.json, refused unless it holds a JSON object.  Path.read_text reads
  // \r\n and \r as \n (universal newlines), which the line and column of an error show.
  function parseConfigText(text, name = "config.json") {
    const lines = String(text).replace(/\r\n?/g, "\n");
    let parsed;
    try {
      parsed = pyJsonLoads(lines);
    } catch (error) {
      if (error instanceof RangeError) { // the call stack ran out; Python raises RecursionError sooner (~1000 levels)
        throw new PyError("RecursionError", `${pyStrRepr(name)} nests lists or objects too deeply to read`);
      }
      if (!(error instanceof JsonError)) throw error;
      const before = Array.from(lines).slice(0, error.position);
      const line = before.filter((c) => c === "\n").length + 1;
      const lastNewline = before.lastIndexOf("\n");
      const where = `line ${line}, column ${error.position - lastNewline}`;
      throw valueError(`${pyStrRepr(name)} is not valid JSON: ${error.message} at ${where}`);
    }
    if (!(parsed instanceof Map)) {
      throw valueError(`${pyStrRepr(name)} must hold a JSON object (a config); got a ${pyType(parsed)}`);
    }
    return parsed;
  }

  // ---------------------------------------------------------------- the model layer, bound to its tables

  function withTables(rawTables) {
    const toMap = (object) => new Map(Object.entries(object));
    const nestedMap = (object, inner = toMap) => new Map(Object.entries(object).map(([k, v]) => [k, inner(v)]));
    const tables = {
      supported: rawTables.supportedModelTypes,
      defaults: nestedMap(rawTables.defaults, fromJson),
      aliases: nestedMap(rawTables.aliases),
      irrelevant: new Set(rawTables.irrelevant),
      sizeWords: new RegExp(rawTables.sizeWords),
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
    };
    const made = new WeakSet(); // configs this module validated: the counts accept nothing else

    // -------------------------------------------------------------- _validate.py

    // _validate.flag
    function checkFlag(name, value) {
      if (typeof value !== "boolean") throw typeError(`${name} must be True or False; got ${described(value)}`);
      return value;
    }

    // _validate.count (no maximum: ModelConfig and the counts use none)
    function checkCount(name, value, minimum = 1) {
      const accepted = `an integer >= ${minimum}`;
      if (typeof value === "boolean") throw typeError(`${name} must be ${accepted}; got ${pyRepr(value)} (a bool)`);
      if (typeof value === "number") {
        const hint = Number.isInteger(value) ? `; pass an int, e.g. int(${pyFloatRepr(value)})` : "";
        throw typeError(`${name} must be ${accepted}; got ${pyFloatRepr(value)} (a float)${hint}`);
      }
      if (typeof value !== "bigint") throw typeError(`${name} must be ${accepted}; got ${described(value)}`);
      if (value < BigInt(minimum)) throw valueError(`${name} must be ${accepted}; got ${value}`);
      return value;
    }

    // difflib.SequenceMatcher(None, a, b).ratio(), for _validate.choice's "did you mean" hint
    function matchRatio(a, b) {
      const x = Array.from(a);
      const y = Array.from(b);
      const positions = new Map();
      y.forEach((c, j) => positions.set(c, [...(positions.get(c) || []), j]));
      function longest(alo, ahi, blo, bhi) {
        let best = [alo, blo, 0];
        let lengths = new Map();
        for (let i = alo; i < ahi; i++) {
          const next = new Map();
          for (const j of positions.get(x[i]) || []) {
            if (j < blo) continue;
            if (j >= bhi) break;
            const k = (lengths.get(j - 1) || 0) + 1;
            next.set(j, k);
            if (k > best[2]) best = [i - k + 1, j - k + 1, k];
          }
          lengths = next;
        }
        return best;
      }
      let matched = 0;
      const queue = [[0, x.length, 0, y.length]];
      while (queue.length) {
        const [alo, ahi, blo, bhi] = queue.pop();
        const [i, j, k] = longest(alo, ahi, blo, bhi);
        if (k) {
          matched += k;
          if (alo < i && blo < j) queue.push([alo, i, blo, j]);
          if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
        }
      }
      const total = x.length + y.length;
      return total ? (2 * matched) / total : 1;
    }

    // _validate.choice
    function checkChoice(name, value, options) {
      const listing = options.map(pyStrRepr).join(", ");
      if (typeof value !== "string") throw typeError(`${name} must be one of ${listing}; got ${described(value)}`);
      if (!options.includes(value)) {
        // difflib.get_close_matches(value, options, n=1, cutoff=0.6): the best ratio, ties to the larger string
        let close = null;
        let bestScore = -1;
        for (const option of options) {
          const score = matchRatio(option, value);
          if (score >= 0.6 && (score > bestScore || (score === bestScore && option > close))) {
            [close, bestScore] = [option, score];
          }
        }
        const hint = close === null ? "" : ` (did you mean ${pyStrRepr(close)}?)`;
        throw valueError(`${name} must be one of ${listing}; got ${pyStrRepr(value)}${hint}`);
      }
      return value;
    }

    // -------------------------------------------------------------- config.py

    const isMoe = (cfg) => cfg.n_experts > 1n;
    const usesLatentAttention = (cfg) => cfg.kv_lora_rank > 0n;
    const qDim = (cfg) => cfg.n_heads * cfg.head_dim;
    const kvDim = (cfg) => cfg.n_kv_heads * cfg.head_dim;
    const moeLayers = (cfg) => (isMoe(cfg) ? cfg.n_layers - cfg.dense_layers : 0n);
    const routedExpertDff = (cfg) => cfg.expert_d_ff || cfg.d_ff;

    // ModelConfig.__init__ and __post_init__, on values already in the model (ints as BigInt)
    function construct(given) {
      const names = tables.fields.map((field) => field.name);
      const unexpected = Object.keys(given).find((key) => !names.includes(key));
      if (unexpected !== undefined) {
        throw typeError(`ModelConfig.__init__() got an unexpected keyword argument ${pyStrRepr(unexpected)}`);
      }
      const missing = tables.fields.filter((f) => f.default === null && !Object.hasOwn(given, f.name))
        .map((f) => pyStrRepr(f.name));
      if (missing.length) {
        const listed = missing.length === 1 ? missing[0] : missing.length === 2 ? missing.join(" and ")
          : `${missing.slice(0, -1).join(", ")}, and ${missing.at(-1)}`;
        const plural = missing.length === 1 ? "argument" : "arguments";
        throw typeError(`ModelConfig.__init__() missing ${missing.length} required positional ${plural}: ${listed}`);
      }
      const cfg = {};
      for (const field of tables.fields) {
        let value = Object.hasOwn(given, field.name) ? given[field.name] : field.default;
        if (field.type === "bool") value = checkFlag(field.name, value);
        else if (field.type === "str") {
          if (typeof value !== "string") throw typeError(`${field.name} must be a str; got ${described(value)}`);
        } else if (field.type === "int") {
          const required = tables.atLeastOne.includes(field.name);
          value = checkCount(field.name, value === null && !required ? 0n : value, required ? 1 : 0);
        } else value = checkChoice(field.name, value, tables.choices[field.type]);
        cfg[field.name] = value;
      }
      if (cfg.head_dim === 0n) {
        if (cfg.d_model % cfg.n_heads) {
          throw valueError(`n_heads=${cfg.n_heads} does not divide d_model=${cfg.d_model}; pass head_dim `
            + "explicitly or choose n_heads among the divisors of d_model");
        }
        cfg.head_dim = cfg.d_model / cfg.n_heads;
      }
      if (cfg.n_kv_heads === 0n) cfg.n_kv_heads = cfg.n_heads;
      if (cfg.sliding_window_layers === 0n) cfg.sliding_window_layers = cfg.sliding_window ? cfg.n_layers : 0n;
      const needs = tables.layoutFfn.get(cfg.layout) ?? cfg.ffn;
      const moe = isMoe(cfg);
      const problems = [
        [cfg.n_heads % cfg.n_kv_heads, `n_kv_heads must divide n_heads=${cfg.n_heads} (each KV head serves a `
          + `whole group of query heads); got n_kv_heads=${cfg.n_kv_heads}`],
        [cfg.experts_per_token > cfg.n_experts,
          `experts_per_token must be in [1, n_experts=${cfg.n_experts}]; got ${cfg.experts_per_token}`],
        [cfg.d_ff === 0n && (!moe || !cfg.expert_d_ff || cfg.dense_layers),
          "d_ff must be an integer >= 1 (the FFN inner width); got 0"],
        [cfg.dense_layers >= cfg.n_layers || (cfg.dense_layers && !moe),
          `dense_layers must be in [0, n_layers-1=${cfg.n_layers - 1n}] and needs n_experts > 1; `
          + `got ${cfg.dense_layers} with n_experts=${cfg.n_experts}`],
        ...["expert_d_ff", "shared_expert_d_ff"].map((name) => [cfg[name] && !moe,
          `${name}=${cfg[name]} describes a mixture of experts; set n_experts > 1 or leave it 0`]),
        [cfg.shared_expert_gate && !cfg.shared_expert_d_ff,
          "shared_expert_gate=True needs a shared expert: set shared_expert_d_ff"],
        [(!cfg.sliding_window && cfg.sliding_window_layers) || cfg.sliding_window_layers > cfg.n_layers,
          `sliding_window_layers must be in [0, n_layers=${cfg.n_layers}] and needs a sliding_window; `
          + `got ${cfg.sliding_window_layers} with sliding_window=${cfg.sliding_window}`],
        [needs !== cfg.ffn,
          `layout=${pyStrRepr(cfg.layout)} builds ffn=${pyStrRepr(needs)} blocks; got ffn=${pyStrRepr(cfg.ffn)}`],
        ...["q_lora_rank", "rope_head_dim", "v_head_dim"].map((name) => [cfg[name] && !cfg.kv_lora_rank,
          `${name}=${cfg[name]} describes latent attention; set kv_lora_rank > 0 or leave it 0`]),
        [cfg.kv_lora_rank && !(0n < cfg.rope_head_dim && cfg.rope_head_dim < cfg.head_dim),
          `rope_head_dim must be in [1, head_dim-1=${cfg.head_dim - 1n}] with latent attention (the rotary `
          + `part of each query/key head); got ${cfg.rope_head_dim}`],
        [cfg.kv_lora_rank && (cfg.layout !== "llama" || cfg.qk_norm !== "none" || cfg.n_kv_heads !== cfg.n_heads),
          "latent attention (kv_lora_rank > 0) is modelled with layout='llama', qk_norm='none' and n_kv_heads = "
          + `n_heads; got layout=${pyStrRepr(cfg.layout)}, qk_norm=${pyStrRepr(cfg.qk_norm)}, `
          + `n_kv_heads=${cfg.n_kv_heads}`],
      ];
      for (const [failed, message] of problems) if (failed) throw valueError(message);
      made.add(Object.freeze(cfg));
      return cfg;
    }

    // ModelConfig(**fields), for presets: JSON numbers with an integral value count as ints (see the file header)
    function modelConfig(fields) {
      return construct(Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, fromJson(value)])));
    }

    // as_model_config
    function asModelConfig(cfg) {
      if (!made.has(cfg)) {
        throw typeError("cfg must be a ModelConfig (see LLMModelConfig.modelConfig or fromHfConfig); "
          + `got ${cfg === null ? "null" : typeof cfg}`);
      }
      return cfg;
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
          && !pyEquals(this.data.get(key), this.data.get(alias))) {
          throw this.fail(`${key}=${pyRepr(this.data.get(key))} contradicts ${alias}=${pyRepr(this.data.get(alias))}`);
        }
        for (const name of [key, alias]) if (this.data.has(name)) return this.data.get(name);
        return this.defaults.has(key) ? this.defaults.get(key) : null;
      }

      // _Reader.fail
      fail(problem) {
        return valueError(`${this.modelType} config: ${problem}`);
      }

      // _Reader.refuse_unless
      refuseUnless(key, accepted, why) {
        const value = this.read(key);
        if (!accepted(value)) throw this.fail(`${key}=${pyRepr(value)} ${why}; llmcalc does not model it`);
      }

      // _Reader.check_rest
      checkRest() {
        for (const [key, value] of this.data) {
          const known = this.used.has(key) || tables.irrelevant.has(key) || this.defaults.has(key);
          if (!known && tables.sizeWords.test(key)) {
            throw this.fail(`unknown key ${pyStrRepr(key)} (value ${pyRepr(value)}) may change the parameter count or `
              + "the KV cache; llmcalc does not model it, so it refuses rather than guess");
          }
        }
      }
    }

    // _positive
    function positive(read, key, zero = false) {
      const value = read.read(key);
      const minimum = zero ? 0n : 1n;
      if (typeof value !== "bigint" || value < minimum) {
        const shown = value === null ? "missing" : pyRepr(value);
        throw read.fail(`${key} must be an integer >= ${minimum}; got ${shown}`);
      }
      return value;
    }

    // _flag
    function flag(read, key) {
      const value = read.read(key);
      if (typeof value !== "boolean") throw read.fail(`${key} must be true or false; got ${pyRepr(value)}`);
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
          const got = Array.isArray(types) ? `${types.length} entries` : pyRepr(types);
          throw read.fail(`layer_types must list one type per layer (${nLayers}); got ${got}`);
        }
        const unknown = pySortedSet(types.filter((t) => t !== "full_attention" && t !== "sliding_attention"));
        if (unknown.length) {
          throw read.fail(`layer_types ${pyRepr(unknown)} are not modelled `
            + "(only full_attention and sliding_attention)");
        }
        windowed = BigInt(types.filter((t) => t === "sliding_attention").length);
      } else {
        windowed = everyLayerWhenNoTypes && pyTruthy(window) ? nLayers : 0n;
      }
      if (windowed && !(typeof window === "bigint" && window >= 2n)) {
        throw read.fail(`sliding_window must be an integer >= 2 for windowed layers; got ${pyRepr(window)}`);
      }
      return { sliding_window: windowed ? window : 0n, sliding_window_layers: windowed };
    }

    // _layer_types: transformers' default rule, given here as the number of sliding layers it yields
    function layerTypes(read, nLayers, countSliding) {
      if (read.read("layer_types") === null) {
        read.data = new Map(read.data).set("layer_types", new DefaultLayerTypes(nLayers, countSliding()));
      }
    }

    // bool((i + 1) % pattern) summed over i in range(n_layers): Gemma 3's sliding_window_pattern, any JSON value
    function countNotMultiples(nLayers, pattern) {
      if (typeof pattern === "bigint" || typeof pattern === "boolean") {
        const step = BigInt(pattern);
        if (step === 0n) throw new PyError("ZeroDivisionError", "integer modulo by zero");
        return nLayers - nLayers / (step < 0n ? -step : step);
      }
      if (typeof pattern !== "number") {
        throw typeError(`unsupported operand type(s) for %: 'int' and '${pyType(pattern)}'`);
      }
      if (pattern === 0) throw new PyError("ZeroDivisionError", "float modulo");
      if (nLayers > 1000000n) {
        throw valueError(`sliding_window_pattern=${pyFloatRepr(pattern)} with more than 1000000 layers is not counted`);
      }
      let count = 0n;
      for (let i = 1; i <= Number(nLayers); i++) if (i % pattern !== 0) count++;
      return count;
    }

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
        read.refuseUnless("decoder_sparse_step", (v) => pyEquals(v, 1n), "makes only every n-th layer an MoE layer");
        read.refuseUnless("mlp_only_layers", (v) => v === null || (Array.isArray(v) && v.length === 0),
          "makes some layers dense");
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
    function build(read) {
      const mt = read.modelType;
      if (mt === "gpt2") {
        read.refuseUnless("add_cross_attention", (v) => !pyTruthy(v), "adds cross-attention layers");
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
        read.refuseUnless("new_decoder_architecture", (v) => !pyTruthy(v),
          "(Falcon-40B/180B) makes transformers cache keys and values expanded to every query head");
        const d = positive(read, "hidden_size");
        const heads = positive(read, "num_attention_heads");
        const ffn = read.read("ffn_hidden_size");
        const bias = flag(read, "bias");
        const twoNorms = !flag(read, "parallel_attn") || pyEquals(read.read("num_ln_in_parallel_attn"), 2n);
        // The old decoder architecture builds Q, K and V for every head unless multi_query: num_kv_heads is unused.
        return {
          vocab_size: positive(read, "vocab_size"), d_model: d, n_heads: heads,
          n_layers: positive(read, "num_hidden_layers"),
          n_kv_heads: flag(read, "multi_query") ? 1n : heads,
          d_ff: ffn === null ? 4n * d : positive(read, "ffn_hidden_size"), ffn: "mlp",
          tie_embeddings: flag(read, "tie_word_embeddings"), qkv_bias: bias, out_bias: bias,
          mlp_bias: bias, norm: "layernorm", norms_per_layer: twoNorms ? 2n : 1n, layout: "falcon",
        };
      }
      if (mt === "gpt_neox" || mt === "phi" || mt === "starcoder2") { // classic two-matrix MLP with LayerNorm
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
        read.refuseUnless("use_bidirectional_attention", (v) => !pyTruthy(v), "changes the window (embedding models)");
        const data = read.data;
        const pattern = data.has("sliding_window_pattern") ? data.get("sliding_window_pattern")
          : data.has("_sliding_window_pattern") ? data.get("_sliding_window_pattern") : 6n;
        layerTypes(read, nLayers, () => countNotMultiples(nLayers, pattern));
        Object.assign(cfg, sliding(read, nLayers, false), { norms_per_layer: 4n, qk_norm: "per-head" });
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
      if (!(data instanceof Map)) {
        throw typeError(`source must be a dict or a path to a config.json; got ${pyType(data)}`);
      }
      const modelType = data.has("model_type") ? data.get("model_type") : null;
      if (Array.isArray(modelType) || modelType instanceof Map) { // `model_type not in _DEFAULTS` hashes it
        throw typeError(`unhashable type: '${pyType(modelType)}'`);
      }
      if (!tables.supported.includes(modelType)) {
        const hint = data.get("text_config") instanceof Map ? " (a multimodal config: pass its text_config)" : "";
        const shown = modelType === null ? "missing" : pyRepr(modelType);
        throw valueError(`model_type ${shown} is not supported${hint}; supported: ${tables.supported.join(", ")}`);
      }
      if (data.has("quantization_config")) {
        throw valueError(`${modelType} config: quantization_config describes a quantized checkpoint, whose stored `
          + "tensors transformers packs differently; remove it to count the model it was quantized from");
      }
      const read = new Reader(data, modelType);
      const fields = build(read);
      fields.trained_context = trainedContext(read);
      read.checkRest();
      fields.model_type = modelType;
      try {
        return construct(fields);
      } catch (error) {
        if (error instanceof PyError && (error.name === "TypeError" || error.name === "ValueError")) {
          throw valueError(`${modelType} config: ${error.message}`);
        }
        throw error;
      }
    }

    // -------------------------------------------------------------- params.py

    // Linear, with its params property
    function linear(path, role, component, dIn, dOut, bias, copies, adaptable = true) {
      const params = copies * (dIn * dOut + (bias ? dOut : 0n));
      return Object.freeze({ path, role, component, d_in: dIn, d_out: dOut, bias, copies, adaptable, params });
    }

    // _norm_size
    function normSize(cfg, width) {
      return { rmsnorm: width, layernorm: 2n * width, "parameter-free": 0n }[cfg.norm];
    }

    // _attention
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
    function linearModules(cfg) {
      asModelConfig(cfg);
      const mlpPrefix = "mlp";
      const modules = attention(cfg);
      const dense = cfg.n_layers - moeLayers(cfg);
      if (dense) modules.push(...ffn(cfg, mlpPrefix, cfg.d_ff, dense));
      if (isMoe(cfg)) {
        const moe = moeLayers(cfg);
        modules.push(linear(`${mlpPrefix}.gate`, "router", "router", cfg.d_model, cfg.n_experts, false, moe, false));
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
      } else if (cfg.lm_head_bias) {
        throw valueError("lm_head_bias=True needs an untied head (tie_embeddings=False): a tied one has no bias");
      }
      return modules;
    }

    // _norms
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
      if (!Array.isArray(names)) {
        throw typeError(`targets must be ${pyStrRepr(tables.allLinear)} or a sequence of module names; `
          + `got ${pyRepr(fromJson(targets))}`);
      }
      if (!names.length) {
        throw valueError(`targets must be ${pyStrRepr(tables.allLinear)} or a non-empty sequence of module names; `
          + "got []");
      }
      for (const name of names) {
        if (typeof name !== "string") {
          const value = fromJson(name);
          throw typeError(`targets must hold module names (str); got ${described(value)}`);
        }
      }
      return [...names];
    }

    // _matches
    function matches(module, target) {
      return target === module.role || module.path === target || module.path.endsWith("." + target);
    }

    // lora_targets
    function loraTargets(cfg, targets = ["q", "v"]) {
      const adaptable = linearModules(asModelConfig(cfg)).filter((m) => m.adaptable);
      if (targets === tables.allLinear) return adaptable.filter((m) => m.role !== "lm_head");
      const chosen = [];
      for (const name of targetNames(targets)) {
        const hits = adaptable.filter((m) => matches(m, name));
        if (!hits.length) {
          const listing = [...new Set(adaptable.map((m) => m.path))].join(", ");
          const fusedRole = tables.fusedInto.get(name);
          const fused = adaptable.find((m) => fusedRole !== undefined && m.role === fusedRole);
          const hint = fused ? ` (it fuses ${pyStrRepr(name)} into ${pyStrRepr(fused.path)}: target that)` : "";
          throw valueError(`target ${pyStrRepr(name)} matches no module of this model${hint}; `
            + `adaptable modules: ${listing}`);
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
        throw valueError(`targets ${pyRepr(fused)} need ${pyRepr(fusedSources)} together: peft fuses them into the `
          + "experts' gate_up_proj");
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
      return [total, names.filter((name) => !conversion.has(name))];
    }

    // lora_model_params
    function loraModelParams(cfg, rank, targets = ["q", "v"]) {
      asModelConfig(cfg);
      const r = checkCount("rank", fromJson(rank));
      let names;
      if (targets === tables.allLinear) {
        if (isMoe(cfg) && !cfg.model_type) {
          const known = [...new Set(["qwen2_moe", ...tables.peftMoeNames.keys()])].sort(compareCodePoints);
          throw valueError("'all-linear' on a mixture of experts depends on the model_type in peft; set model_type "
            + `(one of ${known.join(", ")}) or name the targets`);
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
      return stacked + r * sum(chosen.map((m) => m.copies * (m.d_in + m.d_out)));
    }

    return {
      fromHfConfig, modelConfig, linearModules, paramBreakdown, paramCount, activeParamCount, loraTargets,
      loraModelParams,
    };
  }

  // The API on the page's tables, bound on first use so that the script and the tables may come in either order.
  let bound = null;
  const onPageTables = (name) => (...args) => {
    if (!bound) {
      const element = document.getElementById("modelconfig-tables");
      const tables = window.LLMModelConfigTables || (element && JSON.parse(element.textContent));
      if (!tables) {
        throw new Error("modelconfig.js needs llmcalc._browser.browser_tables() in #modelconfig-tables "
          + "or window.LLMModelConfigTables");
      }
      bound = withTables(tables);
    }
    return bound[name](...args);
  };
  const api = { parseConfigText, withTables, pyRepr, fromJson };
  for (const name of ["fromHfConfig", "modelConfig", "linearModules", "paramBreakdown", "paramCount",
    "activeParamCount", "loraTargets", "loraModelParams"]) {
    api[name] = onPageTables(name);
  }
  window.LLMModelConfig = Object.freeze(api);
})();
