/* The GGUF planner: a .gguf file's header read in the browser, and llama.cpp's memory from it.
 *
 * It repeats llmcalc.gguf (read_gguf_header, gguf_model, plan_gguf, largest_context) and the
 * browser tests compare the two on real files.  Only the header is read: File.slice in slices
 * of data-limits.chunk bytes, each count and length checked against what the file has left
 * before anything is read.  Reader data is written with textContent, never as HTML.
 *
 * With "All cards" ticked it also ranks the plan on one GPU of every listed card, as llmcalc.ranking.rank_gguf
 * (the CLI's gguf MODEL --gpu all) does: each row's verdict, headroom, longest context and smallest change
 * (llmcalc.ranking.gguf_changes_that_fit).
 */
(function () {
  "use strict";

  const MiB = 1048576;
  const GiB = 1073741824;
  let padding = 256; // llmcalc.gguf.CONTEXT_PADDING, read from the widget's data-padding
  // llmcalc.gguf.SWA_ARCHITECTURES, WINDOW_NOT_APPLIED and SWA_NOT_MODELLED, read from the widget's data-swa
  let swaRules = { architectures: {}, not_applied: [], not_modelled: [] };

  class GgufFail extends Error {
    constructor(code, values) {
      super(code);
      this.code = code;
      this.values = values || {};
    }
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
  }

  function grouped(n) {
    return Number(n).toLocaleString("en-US");
  }

  /* Reads a Blob front to back in slices; never past the header limit. */
  class Reader {
    constructor(blob, limits) {
      this.blob = blob;
      this.size = blob.size;
      this.limits = limits;
      this.buffer = new Uint8Array(0);
      this.start = 0;
      this.position = 0;
      this.bytesRead = 0;
    }

    async take(n) {
      const end = this.position + n;
      if (end > this.size) throw new GgufFail("err_truncated", { size: grouped(this.size) });
      if (end > this.limits.header) {
        throw new GgufFail("err_huge", { count: grouped(end), limit: grouped(this.limits.header) });
      }
      while (end > this.start + this.buffer.length) {
        const offset = this.start + this.buffer.length;
        const size = Math.min(Math.max(this.limits.chunk, end - offset), this.size - offset);
        const chunk = new Uint8Array(await this.blob.slice(offset, offset + size).arrayBuffer());
        if (chunk.length !== size) throw new GgufFail("err_truncated", { size: grouped(this.size) });
        this.bytesRead += size;
        const keep = this.position - this.start;
        const merged = new Uint8Array(this.buffer.length - keep + chunk.length);
        merged.set(this.buffer.subarray(keep), 0);
        merged.set(chunk, this.buffer.length - keep);
        this.buffer = merged;
        this.start += keep;
      }
      const data = this.buffer.subarray(this.position - this.start, end - this.start);
      this.position = end;
      return data;
    }

    async view(n) {
      const bytes = await this.take(n);
      return new DataView(bytes.buffer, bytes.byteOffset, n);
    }

    async u32() {
      return (await this.view(4)).getUint32(0, true);
    }

    /* A u64 as a Number, or Infinity when it exceeds what a Number holds exactly. */
    async u64() {
      const value = (await this.view(8)).getBigUint64(0, true);
      return value > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(value);
    }

    async string() {
      const at = this.position;
      const length = await this.u64();
      if (length > this.size - this.position) throw new GgufFail("err_truncated", { size: grouped(this.size) });
      try {
        return new TextDecoder("utf-8", { fatal: true }).decode(await this.take(length));
      } catch (error) {
        if (error instanceof GgufFail) throw error;
        throw new GgufFail("err_malformed", { at: grouped(at) });
      }
    }
  }

  const SCALARS = {
    0: [1, (v) => v.getUint8(0)], 1: [1, (v) => v.getInt8(0)], 2: [2, (v) => v.getUint16(0, true)],
    3: [2, (v) => v.getInt16(0, true)], 4: [4, (v) => v.getUint32(0, true)], 5: [4, (v) => v.getInt32(0, true)],
    6: [4, (v) => v.getFloat32(0, true)], 7: [1, (v) => v.getUint8(0) !== 0],
    10: [8, (v) => Number(v.getBigUint64(0, true))], 11: [8, (v) => Number(v.getBigInt64(0, true))],
    12: [8, (v) => v.getFloat64(0, true)],
  };

  async function value(reader, type, depth) {
    if (type in SCALARS) {
      const [size, get] = SCALARS[type];
      return get(await reader.view(size));
    }
    if (type === 8) return reader.string();
    if (type === 9 && depth === 0) {
      const at = reader.position;
      const itemType = await reader.u32();
      const count = await reader.u64();
      if (!(itemType in SCALARS) && itemType !== 8) throw new GgufFail("err_malformed", { at: grouped(at) });
      const smallest = itemType in SCALARS ? SCALARS[itemType][0] : 8;
      if (count * smallest > reader.size - reader.position) {
        throw new GgufFail("err_huge", { count: grouped(count), limit: grouped(reader.size - reader.position) });
      }
      if (itemType in SCALARS) {
        const [size, get] = SCALARS[itemType];
        const bytes = await reader.take(count * size);
        const items = [];
        for (let i = 0; i < count; i += 1) items.push(get(new DataView(bytes.buffer, bytes.byteOffset + i * size, size)));
        return items;
      }
      const items = [];
      for (let i = 0; i < count; i += 1) items.push(await reader.string());
      return items;
    }
    throw new GgufFail("err_malformed", { at: grouped(reader.position) });
  }

  async function readHeader(blob, types, limits) {
    const reader = new Reader(blob, limits);
    const magic = await reader.take(4);
    if (String.fromCharCode(...magic) !== "GGUF") throw new GgufFail("err_not_gguf");
    const version = await reader.u32();
    if (version !== 2 && version !== 3) throw new GgufFail("err_version", { version });
    const nTensors = await reader.u64();
    const nKeys = await reader.u64();
    if (nTensors > limits.tensors || nKeys > limits.keys) {
      throw new GgufFail("err_huge", { count: grouped(Math.max(nTensors, nKeys)), limit: grouped(limits.tensors) });
    }
    /** @type {Record<string, any>} a value of any GGUF type: each reader below checks the one it needs */
    const metadata = {};
    for (let i = 0; i < nKeys; i += 1) {
      const key = await reader.string();
      metadata[key] = await value(reader, await reader.u32(), 0);
    }
    const tensors = [];
    for (let i = 0; i < nTensors; i += 1) {
      const at = reader.position;
      const name = await reader.string();
      const nDims = await reader.u32();
      if (nDims < 1 || nDims > 4) throw new GgufFail("err_malformed", { at: grouped(at) });
      const shape = [];
      for (let d = 0; d < nDims; d += 1) shape.push(await reader.u64());
      const typeId = await reader.u32();
      const offset = await reader.u64();
      const type = types[String(typeId)];
      let elements = 1;
      for (const dim of shape) elements *= dim;
      if (!type || Math.min(...shape) < 1 || elements > 2 ** 50 || shape[0] % type[1] !== 0) {
        throw new GgufFail("err_malformed", { at: grouped(at) });
      }
      const bytes = (shape[0] / type[1]) * type[2] * (elements / shape[0]);
      tensors.push({ name, shape, type: type[0], offset, bytes });
    }
    const alignment = "general.alignment" in metadata ? metadata["general.alignment"] : 32;
    if (!Number.isInteger(alignment) || alignment < 1 || (alignment & (alignment - 1)) !== 0) {
      throw new GgufFail("err_malformed", { at: grouped(reader.position) });
    }
    const dataOffset = Math.ceil(reader.position / alignment) * alignment;
    for (const tensor of tensors) {
      if (dataOffset + tensor.offset + tensor.bytes > reader.size) {
        throw new GgufFail("err_truncated", { size: grouped(reader.size) });
      }
    }
    return { version, metadata, tensors, dataOffset, bytesRead: reader.bytesRead,
             weightBytes: tensors.reduce((sum, t) => sum + t.bytes, 0) };
  }

  /* llmcalc.gguf.swa_layer_flags: layer il is an SWA layer when il % period < period - 1 (period 0: every one). */
  function swaLayerFlags(nLayers, period) {
    return Array.from({ length: nLayers }, (_, il) => period === 0 || il % period < period - 1);
  }

  /* llmcalc.gguf._header_window: llama.cpp's window and SWA layers for a header, none where it keeps no SWA cache. */
  function headerWindow(meta, arch, nLayers) {
    const none = { window: 0, layers: [] };
    if (!Object.hasOwn(swaRules.architectures, arch)) return none;
    const [period, fallback, required] = swaRules.architectures[arch];
    const key = `${arch}.attention.sliding_window`;
    if (!(key in meta) && required) throw new GgufFail("err_unsupported", { key });
    const window = key in meta ? meta[key] : fallback;
    if (!Number.isInteger(window) || window < 0) throw new GgufFail("err_unsupported", { key });
    if (!window) {
      if (!required) return none;
      throw new GgufFail("err_unsupported", { key });
    }
    // llama.cpp reads a number into the period and passes an array over
    const patternKey = `${arch}.attention.sliding_window_pattern`;
    const pattern = patternKey in meta && !Array.isArray(meta[patternKey]) ? meta[patternKey] : period;
    if (!Number.isInteger(pattern) || pattern < 0) throw new GgufFail("err_unsupported", { key: patternKey });
    const layers = swaLayerFlags(nLayers, pattern);
    if (!layers.some(Boolean)) throw new GgufFail("err_unsupported", { key: patternKey });
    return { window, layers };
  }

  /* llmcalc.gguf.gguf_model */
  function ggufModel(header) {
    const meta = header.metadata;
    const arch = meta["general.architecture"];
    if (typeof arch !== "string" || !arch) throw new GgufFail("err_unsupported", { key: "general.architecture" });
    const windowKey = `${arch}.attention.sliding_window`;
    const ignoresWindow = swaRules.not_applied.includes(arch);
    if (swaRules.not_modelled.includes(arch)) throw new GgufFail("err_unsupported", { key: windowKey });
    if (windowKey in meta && !Object.hasOwn(swaRules.architectures, arch) && !ignoresWindow) {
      throw new GgufFail("err_unsupported", { key: windowKey });
    }
    for (const key of ["attention.kv_lora_rank", "ssm.state_size"]) {
      if (`${arch}.${key}` in meta) throw new GgufFail("err_unsupported", { key: `${arch}.${key}` });
    }
    const need = (key) => {
      if (!(`${arch}.${key}` in meta)) throw new GgufFail("err_unsupported", { key: `${arch}.${key}` });
      return meta[`${arch}.${key}`];
    };
    const nLayers = Number(need("block_count"));
    const nEmbd = Number(need("embedding_length"));
    const heads = need("attention.head_count");
    const kvHeads = `${arch}.attention.head_count_kv` in meta ? meta[`${arch}.attention.head_count_kv`] : heads;
    const perLayer = (v) => (Array.isArray(v) ? v.map(Number) : Array(nLayers).fill(Number(v)));
    const headCounts = perLayer(heads);
    const kvCounts = perLayer(kvHeads);
    if (headCounts.length !== nLayers || kvCounts.length !== nLayers || Math.max(...headCounts) < 1) {
      throw new GgufFail("err_unsupported", { key: `${arch}.attention.head_count` });
    }
    const headK = Number(meta[`${arch}.attention.key_length`] ?? Math.floor(nEmbd / Math.max(...headCounts)));
    const headV = Number(meta[`${arch}.attention.value_length`] ?? headK);
    const kvLayers = kvCounts.filter((n) => n);
    if (new Set(kvLayers).size > 1) throw new GgufFail("err_unsupported", { key: `${arch}.attention.head_count_kv` });
    const width = kvLayers.length ? kvLayers[0] : 0;
    const embedding = header.tensors.find((t) => t.name === "token_embd.weight");
    if (!embedding || embedding.shape.length !== 2) throw new GgufFail("err_unsupported", { key: "token_embd.weight" });
    const ffn = need("feed_forward_length");
    const ffnCounts = perLayer(ffn);
    if (ffnCounts.length !== nLayers) throw new GgufFail("err_unsupported", { key: `${arch}.feed_forward_length` });
    const tied = !header.tensors.some((t) => t.name === "output.weight");
    const split = layerSplit(header.tensors, nLayers, tied);
    const swa = headerWindow(meta, arch, nLayers);
    if (swa.layers.length && kvLayers.length !== nLayers) throw new GgufFail("err_unsupported", { key: windowKey });
    const ignored = ignoresWindow && windowKey in meta ? meta[windowKey] : 0;
    if (!Number.isInteger(ignored) || ignored < 0) throw new GgufFail("err_unsupported", { key: windowKey });
    return { arch, nLayers: kvLayers.length, kWidth: width * headK, vWidth: width * headV,
             trained: Number(meta[`${arch}.context_length`] || 0), weightBytes: header.weightBytes,
             nEmbd, nHead: Math.max(...headCounts), nFf: Math.max(...ffnCounts), nVocab: embedding.shape[1],
             embeddingBytes: embedding.bytes, tied, layerBytes: split.layers, outputBytes: split.output,
             slidingWindow: swa.window, swaLayers: swa.layers, windowNotApplied: ignored };
  }

  /* llmcalc.gguf.layer_split: each repeating layer's bytes (blk.N.*) and the output layer's (the rest but
   * token_embd, and token_embd again when tied). */
  function layerSplit(tensors, nBlocks, tied) {
    const layers = Array(nBlocks).fill(0);
    let output = 0;
    for (const tensor of tensors) {
      const match = /^blk\.(\d+)\./.exec(tensor.name);
      if (match) {
        if (Number(match[1]) >= nBlocks) throw new GgufFail("err_unsupported", { key: tensor.name });
        layers[Number(match[1])] += tensor.bytes;
      } else if (tensor.name !== "token_embd.weight" || tied) {
        output += tensor.bytes;
      }
    }
    return { layers, output };
  }

  /* llmcalc.gguf.model_from_config, as the build counted it for each preset and recipe (data-recipe-models). */
  function recipeModel(recipes, name, recipe, imatrix) {
    const shape = recipes.models[name];
    const entry = (imatrix && recipes.plans[`${name}|${recipe}|imatrix`]) || recipes.plans[`${name}|${recipe}`];
    const layers = [];
    for (const [bytes, count] of entry[3]) for (let i = 0; i < count; i += 1) layers.push(bytes);
    return { arch: shape[0], nLayers: shape[1], kWidth: shape[2], vWidth: shape[3], trained: shape[4],
             weightBytes: entry[0], nEmbd: shape[5], nHead: shape[6], nFf: shape[7], nVocab: shape[8],
             embeddingBytes: entry[1], tied: shape[9], layerBytes: layers, outputBytes: entry[2],
             slidingWindow: shape[10], swaLayers: Array.from(shape[11], (flag) => flag === "1"),
             windowNotApplied: shape[12] };
  }

  function rowBytes(types, cacheType, width) {
    const type = Object.values(types).find((t) => t[0] === cacheType.toUpperCase());
    if (width % type[1] !== 0) throw new GgufFail("err_unsupported", { key: cacheType });
    return (width / type[1]) * type[2];
  }

  const F32 = 4;

  /* llmcalc.gguf.compute_buffer_estimate: the largest of attention, output and feed-forward. */
  function computeEstimate(model, cells, ubatch, flash) {
    const tokens = Math.min(cells, ubatch);
    const activation = tokens * model.nEmbd * F32;
    const mask = cells * tokens * (F32 + (flash ? 2 : 0));
    const scores = flash ? 0 : cells * tokens * model.nHead * F32;
    return Math.max(scores + mask + 4 * activation, model.nVocab * tokens * F32 + activation,
                    2 * tokens * model.nFf * F32 + 2 * activation);
  }

  /* llmcalc.gguf.host_buffers: token_embd, the inputs (mask, embedding rows, ids), a row of logits a sequence. */
  function hostBytes(model, cells, ubatch, parallel) {
    const tokens = Math.min(cells, ubatch);
    return model.embeddingBytes + cells * tokens * F32 + tokens * model.nEmbd * F32 + 3 * tokens * 4 +
      parallel * model.nVocab * F32;
  }

  /* llmcalc.gguf._ggml_pad: GGML_PAD(value, 256). */
  function ggmlPad(value) { return Math.ceil(value / padding) * padding; }

  /* llmcalc.gguf.cache_streams: cells per stream and streams; a stream per sequence unless the cache is unified. */
  function cacheStreams(options) {
    // llama-context.cpp: cparams.n_ctx = GGML_PAD(cparams.n_ctx, 256); n_ctx_seq = GGML_PAD(n_ctx / n_seq_max, 256)
    const cells = ggmlPad(options.context);
    if (options.kvUnified || options.parallel === 1) return [cells, 1];
    return [ggmlPad(Math.floor(cells / options.parallel)), options.parallel];
  }

  /* llmcalc.gguf.kv_caches: the full cache, and the SWA layers' own (llama_kv_cache_iswa) when there are some. */
  function kvCaches(model, options, types) {
    const [cells, streams] = cacheStreams(options);
    const row = rowBytes(types, options.cacheK, model.kWidth) + rowBytes(types, options.cacheV, model.vWidth);
    const nSwa = (model.swaLayers || []).filter(Boolean).length;
    const full = model.nLayers - nSwa;
    const caches = [{ window: 0, cells, layers: full, bytes: streams * cells * full * row, streams }];
    if (nSwa) {
      // GGML_PAD(min(n_ctx_seq, n_swa * (unified ? n_seq_max : 1) + n_ubatch), 256), the micro-batch at most the
      // context; n_ctx_seq with --swa-full
      const windows = model.slidingWindow * (options.kvUnified ? options.parallel : 1);
      const wanted = windows + Math.min(options.context, options.ubatch);
      const swaCells = options.swaFull ? cells : ggmlPad(Math.min(cells, wanted));
      caches.push({ window: model.slidingWindow, cells: swaCells, layers: nSwa,
                    bytes: streams * swaCells * nSwa * row, streams });
    }
    return caches;
  }

  /* llmcalc.gguf.plan_gguf; options.ngl null is every layer (-ngl all). */
  function plan(model, options, types, reserve) {
    if (options.cacheV !== "f16" && !options.flash) throw new GgufFail("err_flash");
    const caches = kvCaches(model, options, types);
    const cells = caches[0].cells;  // one stream of the full cache: what the compute buffer and outputs are sized for
    const kv = caches.reduce((sum, cache) => sum + cache.bytes, 0);
    const estimated = options.compute === null;
    const compute = estimated ? computeEstimate(model, cells, options.ubatch, options.flash) : options.compute;
    // llama.cpp keeps token_embd on the host; a tied model loads it again on the GPU as its output matrix.
    let weights = model.weightBytes - (model.tied ? 0 : model.embeddingBytes);
    let kvOnGpu = kv;
    let host = hostBytes(model, cells, options.ubatch, options.parallel);
    let gpuLayers = null;
    if (options.ngl !== null) {
      // llama-model.cpp load_tensors: the last ngl repeating layers, and the output layer once ngl exceeds them.
      const blocks = model.layerBytes.length;
      gpuLayers = Math.min(options.ngl, blocks + 1);
      const first = blocks - Math.min(gpuLayers, blocks);
      const sum = (list) => list.reduce((a, b) => a + b, 0);
      weights = sum(model.layerBytes.slice(first)) + (gpuLayers > blocks ? model.outputBytes : 0);
      const onHost = sum(model.layerBytes.slice(0, first)) + (gpuLayers > blocks ? 0 : model.outputBytes);
      // each layer's cache stays with the layer; an SWA layer's is the SWA cache's share
      const layerCache = (swa) => (swa ? caches[1].bytes / caches[1].layers : caches[0].bytes / caches[0].layers);
      const flags = model.swaLayers && model.swaLayers.length ? model.swaLayers : Array(model.nLayers).fill(false);
      kvOnGpu = flags.slice(model.nLayers - Math.min(gpuLayers, model.nLayers))
        .reduce((bytes, swa) => bytes + layerCache(swa), 0);
      host += onHost + kv - kvOnGpu;
    }
    const total = weights + kvOnGpu + compute + reserve;
    return { weights, kv_cache: kvOnGpu, compute_part: compute, reserve, total, estimated, host, gpuLayers,
             caches };
  }

  /* llmcalc.gguf.most_gpu_layers */
  function mostLayers(model, options, types, reserve, gpu) {
    for (let layers = model.layerBytes.length + 1; layers >= 0; layers -= 1) {
      if (plan(model, { ...options, ngl: layers }, types, reserve).total <= gpu) return layers;
    }
    return 0;
  }

  /* llmcalc._search.largest_holding: the largest n in [low, high] for which holds(n), by binary search;
   * holds(low) is taken as true without being asked. */
  function largestHolding(holds, high, low = 0) {
    let lowest = low;
    let highest = high;
    while (lowest < highest) {
      const middle = Math.floor((lowest + highest + 1) / 2);
      if (holds(middle)) lowest = middle;
      else highest = middle - 1;
    }
    return lowest;
  }

  function largestContext(model, options, types, reserve, gpu, limits) {
    const limit = options.beyond || !model.trained ? limits.context : Math.min(model.trained, limits.context);
    return largestHolding((n) => plan(model, { ...options, context: n }, types, reserve).total <= gpu, limit);
  }

  /* llmcalc.ranking._largest_true: the largest n in [low, high] for which holds(n), or null. */
  function largestTrue(holds, low, high) {
    if (high < low || !holds(low)) return null;
    return largestHolding(holds, high, low);
  }

  /* llmcalc.planner.gpu_memory without the card keys, in its units and range (data-limits); and
   * llmcalc.gguf.compute_buffer_bytes. */

  function decimalBytes(number, unit) {
    const [whole, fraction = ""] = number.split(".");
    // Exact, as Python's integers: digits times the unit, divided once, rounded down.
    return Number((BigInt((whole + fraction) || "0") * BigInt(unit)) / 10n ** BigInt(fraction.length));
  }

  /** @param {string} text @param {Record<string, any>} limits @returns {number | null} */
  function gpuBytes(text, limits) {
    const units = limits.memory_units;
    const match = /^[ \t\n\r\f\v]*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t\n\r\f\v]*([A-Za-z]*)[ \t\n\r\f\v]*$/.exec(text);
    if (!match || !(match[2].toLowerCase() in units)) return null;
    const size = decimalBytes(match[1], units[match[2].toLowerCase()]);
    return size >= limits.min_gpu_bytes && size <= limits.max_gpu_bytes ? size : null;
  }

  /** @param {string} text @param {Record<string, any>} limits */
  function computeBytes(text, limits) {
    const trimmed = text.trim();
    if (trimmed === "") return null;
    if (!/^([0-9]+(\.[0-9]*)?|\.[0-9]+)$/.test(trimmed)) return undefined;
    const size = decimalBytes(trimmed, MiB);
    return size <= limits.compute_mib * MiB ? size : undefined;
  }

  function setUp(root) {
    const types = JSON.parse(root.dataset.types);
    const limits = JSON.parse(root.dataset.limits);
    const reserve = JSON.parse(root.dataset.reserve);
    padding = JSON.parse(root.dataset.padding);
    swaRules = JSON.parse(root.dataset.swa);
    const recipes = JSON.parse(root.dataset.recipeModels);
    const labels = JSON.parse(root.dataset.labels);
    const form = root.querySelector("form");
    const error = root.querySelector("[data-error]");
    const summary = root.querySelector("[data-summary]");
    const table = root.querySelector("table");
    const verdict = root.querySelector("[data-verdict]");
    const largest = root.querySelector("[data-largest]");
    const most = root.querySelector("[data-most-layers]");
    const kvFull = root.querySelector("[data-kv-full]");
    const kvSwa = root.querySelector("[data-kv-swa]");
    const kvStreams = root.querySelector("[data-kv-streams]");
    const serverNote = root.querySelector("[data-server-slots]");
    const windowNote = root.querySelector("[data-window-note]");
    const cards = JSON.parse(root.dataset.cards);
    const rankSection = root.querySelector(".gguf-rank");
    const rankBody = rankSection.querySelector("tbody");
    let rankSort = ["rank", "ascending"];
    let rankRowsShown = [];
    let model = null;
    let fileModel = null;
    let fileSummary = "";
    let fileFacts = null; // what the summary says of the header beyond the model: its version and tensors
    let serial = 0;

    /* The two caches of a model with sliding-window layers, and the window llama.cpp does not apply; none when
     * `caches` is null (no plan). */
    function showCaches(caches, ignored, serverSlots) {
      const line = (box, label, cache) => {
        box.hidden = !cache;
        box.textContent = cache ? fill(labels[label], { layers: cache.layers, cells: grouped(cache.cells),
                                                        mib: (cache.bytes / MiB).toFixed(2),
                                                        window: grouped(cache.window) }) : "";
      };
      const two = caches && caches.length > 1;
      line(kvFull, "kv_cache_full", two ? caches[0] : null);
      line(kvSwa, "kv_cache_swa", two ? caches[1] : null);
      const streams = caches ? caches[0].streams : 1;
      kvStreams.hidden = streams === 1;
      kvStreams.textContent = streams === 1 ? "" : fill(labels.kv_streams, { streams });
      serverNote.hidden = !(caches && serverSlots);
      serverNote.textContent = caches && serverSlots ? fill(labels.server_slots, { slots: serverSlots }) : "";
      windowNote.hidden = !(caches && ignored);
      windowNote.textContent = caches && ignored ? fill(labels.window_not_applied, { window: grouped(ignored) }) : "";
    }

    function fail(code, values) {
      error.textContent = fill(labels[code], values || {});
      error.hidden = false;
      table.hidden = true;
      showCaches(null, 0);
      verdict.textContent = "";
      largest.textContent = "";
      most.textContent = "";
      rankSection.hidden = true;
      root.dataset.state = code;
    }

    /* The first of llmcalc.ranking.gguf_changes_that_fit's changes, in its order: a shorter context, the least
     * quantized smaller recipe (a listed model only), -ngl with the host memory it needs, a larger card. */
    function smallestChange(options, gpu, source) {
      const at = (planned, changed) => plan(planned, { ...options, ...changed }, types, reserve);
      const fitsWith = (planned, changed) => at(planned, changed).total <= gpu;
      const shorter = largestTrue((n) => fitsWith(model, { context: n }), 1, options.context - 1);
      if (shorter !== null) return { setting: "context", value: shorter, plan: at(model, { context: shorter }) };
      if (source) {
        const made = {};
        for (const recipe of recipes.recipes) made[recipe] = recipeModel(recipes, source.name, recipe, source.imatrix);
        const own = made[source.recipe].weightBytes;
        const found = recipes.recipes.filter((recipe) => made[recipe].weightBytes < own)
          .sort((a, b) => made[b].weightBytes - made[a].weightBytes)
          .find((recipe) => fitsWith(made[recipe], {}));
        if (found !== undefined) return { setting: "recipe", value: found, plan: at(made[found], {}) };
      }
      if (model.layerBytes.length) {
        const layers = mostLayers(model, options, types, reserve, gpu);
        if (layers && fitsWith(model, { ngl: layers })) {
          return { setting: "n_gpu_layers", value: layers, plan: at(model, { ngl: layers }) };
        }
      }
      const total = at(model, {}).total;
      const card = cards.filter((c) => c[2] > gpu).sort((a, b) => a[2] - b[2]).find((c) => total <= c[2]);
      return card ? { setting: "gpu", value: card[0], plan: at(model, {}) } : null;
    }

    /* A change in the form's own words: the field's label and the value (set apart as the page's setting_value
     * says: a colon and a space in English, a full-width colon in zh_TW), -ngl with the host memory it needs. */
    function changeText(change) {
      const setting = (label, value) => fill(labels.setting_value, { label, value });
      if (change.setting === "gpu") return cards.find((c) => c[0] === change.value)[1];
      if (change.setting === "context") return setting(labels.context, grouped(change.value));
      if (change.setting === "recipe") return setting(labels.recipe, change.value);
      return fill(labels.rank_host, { change: setting(labels.ngl, grouped(change.value)),
                                      gib: (change.plan.host / GiB).toFixed(2) });
    }

    /* llmcalc.ranking.rank_gguf: every listed card, fits first, then the least memory, then the list's order. */
    function drawRanking(options) {
      rankSection.hidden = !form.gguf_rank_all.checked;
      rankBody.textContent = "";
      if (rankSection.hidden) return;
      // As the CLI's gguf --gpu all: every layer on the GPU; a smaller recipe only for a listed model.
      const every = { ...options, ngl: null };
      const source = form.gguf_source.value ? { name: form.gguf_source.value, recipe: form.gguf_recipe.value,
                                                imatrix: form.gguf_imatrix.checked } : null;
      const total = plan(model, every, types, reserve).total;
      const rows = cards.map(([key, name, budget, estimated], index) => ({
        key, name, budget, estimated, index, fits: total <= budget, headroom: budget - total,
        context: largestContext(model, every, types, reserve, budget, limits),
        change: total <= budget ? null : smallestChange(every, budget, source),
      }));
      rows.sort((a, b) => Number(b.fits) - Number(a.fits) || a.budget - b.budget || a.index - b.index);
      rows.forEach((row, position) => { row.rank = position + 1; });
      rankRowsShown = rows;
      drawRankRows();
    }

    /* The rows in the order the headers chose (ties in rank order), each with its data-* as the CLI's --json. */
    function drawRankRows() {
      rankBody.textContent = "";
      const [column, direction] = rankSort;
      const key = { rank: (row) => row.rank, card: (row) => row.index, headroom: (row) => row.headroom,
                    context: (row) => row.context }[column];
      const sign = direction === "descending" ? -1 : 1;
      for (const header of rankSection.querySelectorAll("th[data-column]")) {
        header.setAttribute("aria-sort", header.dataset.column === column ? direction : "none");
      }
      const sorted = rankRowsShown.slice().sort((a, b) => sign * (key(a) - key(b)) || a.rank - b.rank);
      sorted.forEach((row) => {
        const line = rankBody.insertRow();
        line.dataset.card = row.key;
        line.dataset.fits = String(row.fits);
        line.dataset.headroom = String(row.headroom);
        line.dataset.largestContext = String(row.context);
        line.dataset.estimated = String(row.estimated);
        line.dataset.change = row.change ? `--${row.change.setting.replace(/_/g, "-")} ${row.change.value}` : "";
        if (row.change) line.dataset.host = String(row.change.plan.host);
        line.insertCell().textContent = grouped(row.rank);
        const name = document.createElement("th");
        name.scope = "row";
        name.textContent = row.name + (row.estimated ? " *" : "");
        line.appendChild(name);
        const verdict = line.insertCell();
        verdict.textContent = row.fits ? labels.rank_fits : labels.rank_no_fit;
        line.insertCell().textContent = (row.headroom / GiB).toFixed(2);
        line.insertCell().textContent = grouped(row.context);
        line.insertCell().textContent = row.change ? changeText(row.change) : "";
      });
    }

    /* A preset and a recipe, as `llmcalc gguf PRESET --recipe R` plans them; otherwise the chosen file. */
    function chooseModel() {
      const name = form.gguf_source.value;
      if (!name) {
        model = fileModel;
        summary.textContent = fileModel ? fileSummary : labels.choose;
        return;
      }
      model = recipeModel(recipes, name, form.gguf_recipe.value, form.gguf_imatrix.checked);
      delete root.dataset.bytesRead;
      summary.textContent = fill(labels.summary_recipe, {
        model: name, recipe: form.gguf_recipe.value, layers: model.nLayers,
        trained: model.trained ? grouped(model.trained) : "?",
      });
    }

    /* Nothing planned, as the page opens. */
    function clearPlan() {
      table.hidden = true;
      showCaches(null, 0);
      verdict.textContent = "";
      largest.textContent = "";
      most.textContent = "";
      rankSection.hidden = true; // the ranking was of the model that went
      delete root.dataset.plan;
      root.dataset.state = "ready";
    }

    function render() {
      chooseModel();
      if (!model) {
        // No file yet (or a refused one, whose message stays): nothing to plan.
        if (root.dataset.state === "plan") clearPlan();
        return;
      }
      error.hidden = true;
      const context = Number(form.gguf_context.value);
      if (!Number.isInteger(context) || context < 1 || context > limits.context) {
        fail("err_input", { label: labels.context, min: 1, max: grouped(limits.context) });
        return;
      }
      const ubatch = Number(form.gguf_ubatch.value);
      if (!Number.isInteger(ubatch) || ubatch < 1 || ubatch > limits.ubatch) {
        fail("err_input", { label: labels.ubatch, min: 1, max: grouped(limits.ubatch) });
        return;
      }
      const parallel = Number(form.gguf_parallel.value);
      if (!Number.isInteger(parallel) || parallel < 1 || parallel > limits.parallel) {
        fail("err_input", { label: labels.parallel, min: 1, max: grouped(limits.parallel) });
        return;
      }
      const compute = computeBytes(form.gguf_compute_buffer.value, limits);
      if (compute === undefined) {
        fail("err_input", { label: labels.compute_buffer, min: 0, max: grouped(limits.compute_mib) });
        return;
      }
      const gpu = gpuBytes(form.gguf_gpu.value, limits);
      if (gpu === null) {
        fail("err_memory", { value: form.gguf_gpu.value });
        return;
      }
      const nglText = form.gguf_ngl.value.trim();
      const ngl = nglText === "" ? null : Number(nglText);
      if (ngl !== null && (!/^[0-9]+$/.test(nglText) || ngl > limits.context)) {
        fail("err_input", { label: labels.ngl, min: 0, max: grouped(limits.context) });
        return;
      }
      // llama-server started without -np runs its automatic slots in one unified cache, whatever the two fields
      // say (llmcalc.gguf.llama_server_slots)
      const server = form.gguf_llama_server.checked;
      const options = { context, ubatch, cacheK: form.gguf_cache_k.value, cacheV: form.gguf_cache_v.value,
                        flash: form.gguf_flash.checked, compute, beyond: form.gguf_beyond.checked, ngl,
                        swaFull: form.gguf_swa_full.checked, parallel: server ? limits.server_slots : parallel,
                        kvUnified: server || form.gguf_kv_unified.checked };
      let parts;
      let gpuLayers;
      let caches;
      try {
        ({ gpuLayers, caches, ...parts } = plan(model, options, types, reserve));
      } catch (failure) {
        if (!(failure instanceof GgufFail)) throw failure;
        fail(failure.code, failure.values);
        return;
      }
      for (const row of table.querySelectorAll("tr")) {
        const value = parts[row.dataset.part];
        const note = row.dataset.part === "compute_part" && parts.estimated ? ` (${labels.estimated})` : "";
        if (row.dataset.part === "weights") {
          row.querySelector("th").textContent = labels[ngl === null ? "weights" : "weights_partial"];
        }
        row.querySelector("[data-bytes]").textContent = grouped(value);
        row.querySelector("[data-gib]").textContent = `${(value / GiB).toFixed(2)} GiB${note}`;
      }
      table.hidden = false;
      showCaches(caches, model.windowNotApplied, server ? options.parallel : 0);
      const spare = Math.abs(gpu - parts.total);
      const fits = parts.total <= gpu;
      verdict.textContent = fill(labels[fits ? "fits" : "no_fit"], { bytes: `${(spare / GiB).toFixed(2)} GiB` });
      const longest = largestContext(model, options, types, reserve, gpu, limits);
      // Full-width punctuation carries its own spacing: zh_TW's label ends in "：".
      const label = labels.largest_context;
      largest.textContent = /[\u3000-\u303f\uff00-\uffef]$/.test(label) ? label + grouped(longest)
        : `${label} ${grouped(longest)}`;
      const mostFit = mostLayers(model, options, types, reserve, gpu);
      most.textContent = fill(labels.most_layers, { layers: mostFit, total: model.layerBytes.length + 1 });
      drawRanking(options);
      root.dataset.state = "plan";
      root.dataset.plan = JSON.stringify({ parts, total: parts.total, fits, largest_context: longest,
                                           compute_buffer_estimated: parts.estimated, host_total: parts.host,
                                           n_gpu_layers: gpuLayers, most_gpu_layers: mostFit,
                                           parallel: options.parallel, kv_unified: options.kvUnified,
                                           ...(server ? { llama_server_slots: true } : {}),
                                           ...(caches.length > 1 ? { kv_caches: caches } : {}),
                                           ...(model.windowNotApplied ? { window_not_applied: model.windowNotApplied }
                                             : {}) });
      root.dispatchEvent(new Event("gguf-plan")); // ggufshare.js writes the link of the plan
    }

    /* A file's model and what the summary says of its header: read from the file, or given by a link. */
    function useFileModel(found, facts) {
      fileModel = found;
      fileFacts = facts;
      fileSummary = found ? fill(labels.summary, {
        arch: found.arch, layers: found.nLayers, tensors: grouped(facts.tensors), version: facts.version,
        trained: found.trained ? grouped(found.trained) : "?",
      }) : "";
    }

    async function load(file) {
      const mine = ++serial;
      model = null;
      root.dataset.state = "reading";
      delete root.dataset.plan;
      fileModel = null;
      form.gguf_source.value = "";
      try {
        const header = await readHeader(file, types, limits);
        const found = ggufModel(header);
        if (mine !== serial) return;
        useFileModel(found, { version: header.version, tensors: header.tensors.length });
        form.gguf_source.value = "";
        root.dataset.bytesRead = String(header.bytesRead);
        render();
      } catch (failure) {
        if (mine !== serial) return;
        if (!(failure instanceof GgufFail)) throw failure;
        summary.textContent = "";
        fail(failure.code, failure.values);
      }
    }

    for (const button of rankSection.querySelectorAll("th[data-column] button")) {
      button.addEventListener("click", () => {
        const column = button.parentElement.dataset.column;
        rankSort = [column, rankSort[0] === column && rankSort[1] === "ascending" ? "descending" : "ascending"];
        drawRankRows();
      });
    }
    form.gguf_file.addEventListener("change", () => {
      if (form.gguf_file.files.length) load(form.gguf_file.files[0]);
    });
    // Choosing the same file again still reads it: the value is cleared once it is taken.
    form.gguf_file.addEventListener("click", () => {
      form.gguf_file.value = "";
    });
    form.addEventListener("input", (event) => {
      if (event.target !== form.gguf_file) render();
    });
    form.addEventListener("change", (event) => {
      if (event.target !== form.gguf_file) render();
    });
    root.dataset.state = "ready";

    /* ggufshare.js (window.LLMGgufExtensions): the share link reads and restores the form, the table's sort and a
     * chosen file's model through these. */
    const widget = {
      root, form, labels, limits, fill, render,
      gpuBytes: (text) => gpuBytes(text, limits),
      computeBytes: (text) => computeBytes(text, limits),
      sort: () => rankSort.slice(),
      setSort: (column, direction) => { rankSort = [column, direction]; },
      fileModel: () => (fileModel && !form.gguf_source.value ? { ...fileModel, ...fileFacts } : null),
      useFileModel: (shared) => useFileModel(shared, shared && { version: shared.version, tensors: shared.tensors }),
      // A link's defaults: no plan and no message left by the inputs before.
      clear: () => {
        error.hidden = true;
        clearPlan();
      },
    };
    for (const make of window.LLMGgufExtensions || []) make(widget);
  }

  for (const root of document.querySelectorAll("[data-gguf-planner]")) setUp(root);
})();
