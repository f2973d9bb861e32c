/* The GGUF planner's plan in the page's address, so that a link reproduces it (as plannershare.js does for the
 * "Will it fit?" planner above it on the page).
 *
 * Every input of the form, and the every-card table's sort, lives in the URL fragment, #gguf=1&source=...&
 * context=..., which never leaves the machine.  A .gguf file the reader chose travels as the model gguf.js read
 * from its header (model=), never as the file, as a loaded config.json travels in the main planner's link as the
 * values llmcalc read from it.  The fragment is rewritten with history.replaceState once the reader has changed
 * something, and only for a plan that was computed; the page holds one fragment, so it names the plan of the
 * planner the reader changed last.
 *
 * Opening a link restores every input, or none: a fragment that is malformed, of another version, names an
 * unknown field, or holds a value the field would refuse leaves the defaults and says, in the page's language,
 * which field and what it takes.  Registered in window.LLMGgufExtensions: gguf.js makes it with each widget.
 */
(function () {
  "use strict";

  const VERSION = "1";
  const KEY = "gguf";
  const PREFIX = "gguf_"; // the form's names; the link drops the prefix
  const MAX_VALUE_LENGTH = 64; // no field's valid value is longer (a file's model travels apart, as model=)
  const MAX_MODEL_LENGTH = 32768; // a model of MAX_BLOCKS layers of different sizes, with room to spare
  const MAX_LISTED = 8; // a longer list of choices is named by its size
  const MAX_BLOCKS = 1024; // repeating layers of a model in a link (published GGUFs have at most a few hundred)
  const MAX_BYTES = 2 ** 50;
  const SORT_COLUMNS = ["rank", "card", "headroom", "context"];
  const SORT_ORDERS = ["ascending", "descending"];
  const SORTS = SORT_COLUMNS.flatMap((column) => SORT_ORDERS.map((order) => `${column}-${order}`));
  const MODEL_INTEGERS = ["tensors", "nLayers", "kWidth", "vWidth", "trained", "nEmbd", "nHead", "nFf", "nVocab",
                          "embeddingBytes", "outputBytes"];
  const MODEL_FIELDS = ["arch", "version", "tied", "layers", ...MODEL_INTEGERS];
  // A sliding-window model's window, its SWA layers ("1" each, one character a layer) and a window its architecture
  // ignores; a link without them (a model without a window, or one written before they were) has no window.
  const SWA_FIELDS = ["slidingWindow", "swa", "windowNotApplied"];

  class LinkError {
    /* The link's bad part: the field's label, the value as the link gave it, and what the field takes. */
    constructor(label, value, accepted) {
      this.label = label;
      this.value = value;
      this.accepted = accepted;
    }
  }

  /* The named inputs that hold a reader's choice: not the file picker or buttons. */
  function fields(form) {
    return Array.from(form.elements).filter((element) => element.name && element.type !== "file" &&
      element.type !== "button");
  }

  function valueOf(element) {
    return element.type === "checkbox" ? String(element.checked) : element.value;
  }

  function apply(element, text) {
    if (element.type === "checkbox") element.checked = text === "true";
    else element.value = text;
  }

  function grouped(n) {
    return Number(n).toLocaleString("en-US");
  }

  function shorten(text) {
    return text.length > 40 ? text.slice(0, 39) + "…" : text;
  }

  function make(widget) {
    const { root, form, labels, fill, limits } = widget;
    const note = root.querySelector("[data-share-note]");
    const status = root.querySelector("[data-share-status]");
    const byName = Object.fromEntries(fields(form).map((element) => [element.name.slice(PREFIX.length), element]));
    const defaults = fields(form).map((element) => ({ element, text: valueOf(element) }));
    const defaultSort = widget.sort().join("-");
    const defaultSource = byName.source.value;
    let changed = false; // written only once the reader changed something (or came with a plan)
    let written = null;

    const whole = (min, max) => fill(labels.share_whole, { min: grouped(min), max: grouped(max) });
    /* Values a field takes, each between the page's quotation marks, joined as its choice_join says. */
    const listed = (items) => items.reduce((text, item) => fill(labels.choice_join, { first: text, next: item }));
    const choices = (list) => (list.length > MAX_LISTED ? fill(labels.share_listed, { count: list.length })
      : fill(labels.share_choice, { choices: listed(list.map((item) => fill(labels.quoted_choice, { value: item }))) }));

    /* What a field takes, in the page's words: as gguf.js's render accepts it, so a written link is accepted. */
    function accepted(name, element) {
      if (element.tagName === "SELECT") return choices(Array.from(element.options, (option) => option.value));
      if (element.type === "checkbox") return choices(["true", "false"]);
      if (name === "gpu") return labels.share_memory;
      if (name === "compute_buffer") {
        const mib = fill(labels.share_decimal, { min: 0, max: grouped(limits.compute_mib) });
        return fill(labels.share_empty, { accepted: mib });
      }
      if (name === "ngl") return fill(labels.share_empty, { accepted: whole(0, limits.context) });
      return whole(element.min, element.max);
    }

    function accepts(name, element, text) {
      if (text.length > MAX_VALUE_LENGTH) return false;
      if (element.tagName === "SELECT") return Array.from(element.options).some((option) => option.value === text);
      if (element.type === "checkbox") return text === "true" || text === "false";
      if (name === "gpu") return widget.gpuBytes(text) !== null;
      if (name === "compute_buffer") return text === "" || /^[0-9]+(?:\.[0-9]+)?$/.test(text) &&
        widget.computeBytes(text) !== undefined;
      if (name === "ngl") return text === "" || /^[0-9]+$/.test(text) && Number(text) <= limits.context;
      return /^[0-9]+$/.test(text) && Number(text) >= Number(element.min) && Number(text) <= Number(element.max);
    }

    /* A file's model as gguf.js read it, its layers as runs of equal bytes ([bytes, count]), with what the
     * summary shows of the header (its version and number of tensors). */
    function modelJson(found) {
      const runs = [];
      for (const bytes of found.layerBytes) {
        if (runs.length && runs[runs.length - 1][0] === bytes) runs[runs.length - 1][1] += 1;
        else runs.push([bytes, 1]);
      }
      const shared = { arch: found.arch, version: found.version, tied: found.tied, layers: runs };
      if (found.slidingWindow || found.windowNotApplied) { // a model without a window keeps the shorter link
        Object.assign(shared, { slidingWindow: found.slidingWindow, windowNotApplied: found.windowNotApplied,
                                swa: found.swaLayers.map((swa) => (swa ? "1" : "0")).join("") });
      }
      for (const name of MODEL_INTEGERS) shared[name] = found[name];
      return JSON.stringify(shared);
    }

    const count = (value, low, high) => Number.isSafeInteger(value) && value >= low && value <= high;

    /* The model a link gives, checked as gguf.js's ggufModel would have found it in a header, or null. */
    function readModel(text) {
      if (text.length > MAX_MODEL_LENGTH) return null;
      let shared;
      try {
        shared = JSON.parse(text);
      } catch (error) {
        return null;
      }
      if (!shared || typeof shared !== "object" || Array.isArray(shared)) return null;
      const keys = Object.keys(shared);
      const withWindow = keys.length === MODEL_FIELDS.length + SWA_FIELDS.length;
      const expected = withWindow ? [...MODEL_FIELDS, ...SWA_FIELDS] : MODEL_FIELDS;
      if (keys.length !== expected.length || !expected.every((name) => keys.includes(name))) return null;
      const window = withWindow ? shared.slidingWindow : 0;
      const swa = withWindow ? shared.swa : "";
      const ignored = withWindow ? shared.windowNotApplied : 0;
      if (!count(window, 0, MAX_BYTES) || !count(ignored, 0, MAX_BYTES) || typeof swa !== "string") return null;
      // SWA layers go with a window, one flag a layer, at least one of them an SWA layer
      if (window ? !/^[01]+$/.test(swa) || !swa.includes("1") : swa !== "") return null;
      if (typeof shared.arch !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(shared.arch)) return null;
      if ((shared.version !== 2 && shared.version !== 3) || typeof shared.tied !== "boolean") return null;
      if (!Array.isArray(shared.layers)) return null;
      const layerBytes = [];
      for (const run of shared.layers) {
        if (!Array.isArray(run) || run.length !== 2 || !count(run[0], 0, MAX_BYTES)) return null;
        if (!count(run[1], 1, MAX_BLOCKS - layerBytes.length)) return null;
        for (let i = 0; i < run[1]; i += 1) layerBytes.push(run[0]);
      }
      const ranges = { tensors: [1, limits.tensors], nLayers: [0, layerBytes.length], kWidth: [0, MAX_BYTES],
                       vWidth: [0, MAX_BYTES], trained: [0, Number.MAX_SAFE_INTEGER], nEmbd: [1, MAX_BYTES],
                       nHead: [1, MAX_BYTES], nFf: [1, MAX_BYTES], nVocab: [1, MAX_BYTES],
                       embeddingBytes: [1, MAX_BYTES], outputBytes: [0, MAX_BYTES] };
      if (!MODEL_INTEGERS.every((name) => count(shared[name], ...ranges[name]))) return null;
      if (window && (swa.length !== layerBytes.length || shared.nLayers !== layerBytes.length)) return null;
      const weightBytes = layerBytes.reduce((a, b) => a + b, 0) + shared.outputBytes +
        (shared.tied ? 0 : shared.embeddingBytes);
      if (weightBytes > MAX_BYTES) return null;
      const model = { ...shared, layerBytes, weightBytes, slidingWindow: window,
                      swaLayers: Array.from(swa, (flag) => flag === "1"), windowNotApplied: ignored };
      delete model.layers; // as runs; the plan reads layerBytes
      delete model.swa; // as flags; the plan reads swaLayers
      return model;
    }

    function encode() {
      const params = new URLSearchParams();
      params.set(KEY, VERSION);
      for (const [name, element] of Object.entries(byName)) params.set(name, valueOf(element));
      params.set("sort", widget.sort().join("-"));
      const found = widget.fileModel();
      if (found) params.set("model", modelJson(found));
      return "#" + params.toString();
    }

    /* The inputs a fragment gives, all checked before any is used, or a LinkError naming the first bad part. */
    function decode(hash) {
      const params = new URLSearchParams(hash.slice(1));
      if (params.getAll(KEY).length !== 1 || params.get(KEY) !== VERSION) {
        throw new LinkError(KEY, params.get(KEY) || hash.slice(1), choices([VERSION]));
      }
      const chosen = [];
      const seen = new Set();
      let sort = defaultSort;
      let modelText = null;
      for (const [name, text] of params) {
        if (name === KEY) continue;
        const element = Object.hasOwn(byName, name) ? byName[name] : undefined; // not "toString" or "__proto__"
        const label = element ? labels[name] : name === "sort" ? labels.share_sort : name;
        if (seen.has(name)) throw new LinkError(label, text, labels.share_once);
        seen.add(name);
        if (name === "model") {
          modelText = text;
        } else if (name === "sort") {
          if (!SORTS.includes(text)) throw new LinkError(label, text, choices(SORTS));
          sort = text;
        } else if (!element) {
          throw new LinkError(name, text, fill(labels.share_fields, {
            fields: listed([...Object.keys(byName), "sort", "model"]) }));
        } else if (!accepts(name, element, text)) {
          throw new LinkError(label, text, accepted(name, element));
        } else {
          chosen.push({ element, text });
        }
      }
      // A file's model goes with the file's entry of the model list, and that entry needs one.
      const fromFile = (params.get("source") ?? defaultSource) === "";
      let model = null;
      if (modelText !== null || fromFile) {
        model = modelText === null ? null : readModel(modelText);
        if (!model || !fromFile) throw new LinkError(labels.source, modelText ?? "", labels.share_model);
      }
      return { chosen, sort: sort.split("-"), model };
    }

    function say(box, text) {
      box.textContent = text;
      box.hidden = !text;
    }

    function useDefaults() {
      for (const { element, text } of defaults) apply(element, text);
      widget.setSort(...defaultSort.split("-"));
      widget.useFileModel(null);
      widget.clear();
    }

    /* The plan of `hash`, or the defaults and a note naming what the link got wrong. */
    function restore(hash) {
      try {
        const found = decode(hash);
        useDefaults();
        for (const { element, text } of found.chosen) apply(element, text);
        widget.setSort(...found.sort);
        widget.useFileModel(found.model);
        say(note, "");
        changed = true;
      } catch (error) {
        if (!(error instanceof LinkError)) throw error;
        useDefaults();
        say(note, fill(labels.share_bad, { label: error.label, value: shorten(error.value),
                                           accepted: error.accepted }));
      }
      widget.render();
    }

    /* The address keeps the last plan computed from inputs a link can carry. */
    function write() {
      if (!changed || root.dataset.state !== "plan") return;
      if (!Object.entries(byName).every(([name, element]) => accepts(name, element, valueOf(element)))) return;
      const found = widget.fileModel();
      // A file's model its link could not give back (past the link's limits) keeps the last link instead.
      if (found && !readModel(modelJson(found))) return;
      const hash = encode();
      if (hash === location.hash) return;
      written = hash;
      try {
        history.replaceState(history.state, "", hash);
      } catch (error) {
        location.replace(hash); // where replaceState is refused, a fragment change still adds no entry
      }
    }

    for (const type of ["input", "change"]) {
      form.addEventListener(type, () => {
        changed = true;
        say(note, ""); // the reader has moved on from the link's defaults
      }, true);
    }
    root.addEventListener("gguf-plan", write);
    root.addEventListener("click", (event) => {
      if (!event.target.closest("th[data-column] button")) return;
      changed = true;
      say(note, "");
      write(); // gguf.js's own listener, on the button, has sorted the rows
    });
    window.addEventListener("hashchange", () => {
      if (location.hash !== written && location.hash.startsWith(`#${KEY}=`)) restore(location.hash);
    });
    root.querySelector("[data-share-copy]").addEventListener("click", () => {
      changed = true;
      write();
      const done = (ok) => { status.textContent = ok ? labels.share_copied : labels.share_copy_failed; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(location.href).then(() => done(true), () => done(false));
      } else {
        done(false);
      }
    });
    if (location.hash.startsWith(`#${KEY}=`)) restore(location.hash);
  }

  window.LLMGgufExtensions = (window.LLMGgufExtensions || []).concat([make]);
})();
