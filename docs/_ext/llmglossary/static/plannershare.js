/* "Will it fit?": the plan in the page's address, so that a link reproduces it.
 *
 * Every input of the planner's form lives in the URL fragment, #plan=1&task=...&context=..., which never leaves
 * the machine (a browser sends no fragment to a server, and the site needs none).  A config.json the reader
 * loaded travels as the ModelConfig values llmcalc read from it (config=), never as the file.  The fragment is
 * rewritten with history.replaceState as the reader changes a value, so typing adds no history entries; it is
 * written only once the reader has changed something, so a visit alone leaves the address as it came, and only
 * for a plan that was computed, so it keeps the last good plan while a value is being typed.
 *
 * Opening a link restores every input, or none: a fragment that is malformed, of another version, names an
 * unknown field, or holds a value the field would refuse leaves the defaults and says so in the page's language.
 * Registered in window.LLMPlannerExtensions: plannerwidget.js makes it with its widget and calls it after each update.
 */
(function () {
  "use strict";

  var VERSION = "1";
  var MAX_VALUE_LENGTH = 64;  // no field's valid value is longer (the config travels apart, as config=)

  /* The named inputs of the form that hold a reader's choice: not the file picker, the paste box or buttons. */
  function fields(form) {
    var seen = {};
    return Array.prototype.filter.call(form.elements, function (element) {
      var kept = element.name && !seen[element.name] && element.type !== "file" && element.type !== "button" &&
        element.tagName !== "TEXTAREA" && element.tagName !== "FIELDSET";
      seen[element.name] = true;
      return kept;
    });
  }

  function valueOf(form, element) {
    if (element.type === "checkbox") { return element.checked ? "true" : "false"; }
    return element.type === "radio" ? form.elements[element.name].value : element.value;
  }

  /* Whether the field accepts `text` as the form itself would: a listed choice, a whole number in the field's
   * [min, max], a flag, a card's memory as llmcalc.planner.gpu_memory reads it, a dropout in [0, 1), a decimal
   * number of GiB outside PyTorch. */
  function accepts(form, element, text) {
    if (text.length > MAX_VALUE_LENGTH) { return false; }
    if (element.tagName === "SELECT") {
      return Array.prototype.some.call(element.options, function (option) { return option.value === text; });
    }
    if (element.type === "radio") {
      return Array.prototype.some.call(form.elements[element.name], function (radio) { return radio.value === text; });
    }
    if (element.type === "checkbox") { return text === "true" || text === "false"; }
    /* The ranking's optional fields: empty, or a whole number in [data-min, data-max], or a price above 0. */
    if (element.dataset.price !== undefined) {
      var price = window.LLMSpeedFormat.price(text, Number(element.dataset.price));
      return price === undefined || (price !== null && price > 0);
    }
    if (element.dataset.optional !== undefined) {
      return text.trim() === "" || (/^[0-9]+$/.test(text) && Number(text) >= Number(element.dataset.min) &&
        Number(text) <= Number(element.dataset.max));
    }
    if (element.name === "gpu_gib") { return window.LLMPlanner.gpuMemory(text) !== null; }
    if (element.name === "lora_dropout") { return /^(?:0|0?\.[0-9]+|0\.)$/.test(text) && Number(text) < 1; }
    if (element.name === "non_torch_gib" || element.name === "startup_used_gib") {
      return /^[0-9]+(?:\.[0-9]+)?$/.test(text);
    }
    if (element.min !== "" && element.max !== "") {
      return /^[0-9]+$/.test(text) && Number(text) >= Number(element.min) && Number(text) <= Number(element.max);
    }
    return true;
  }

  function apply(form, element, text) {
    if (element.type === "checkbox") { element.checked = text === "true"; } else if (element.type === "radio") {
      form.elements[element.name].value = text;
    } else { element.value = text; }
  }

  /* A ModelConfig's fields as JSON, integers written exactly (they are BigInt): modelconfig.js reads them back. */
  function configJson(cfg) {
    return "{" + Object.keys(cfg).map(function (name) {
      var value = cfg[name];
      return JSON.stringify(name) + ":" + (typeof value === "bigint" ? value.toString() : JSON.stringify(value));
    }).join(",") + "}";
  }

  /* A value read by modelconfig.js (objects as Maps, integers as BigInt) as JSON it reads back the same. */
  function valueJson(value) {
    if (typeof value === "bigint") { return value.toString(); }
    if (Array.isArray(value)) { return "[" + value.map(valueJson).join(",") + "]"; }
    if (value instanceof Map) {
      return "{" + Array.from(value, function (entry) { return JSON.stringify(entry[0]) + ":" + valueJson(entry[1]); })
        .join(",") + "}";
    }
    if (typeof value === "number") { return Number.isInteger(value) ? value.toFixed(1) : String(value); }
    return JSON.stringify(value);
  }

  /* The fragment of the form's inputs (and the loaded config's values, and its quantization_config). */
  function encode(widget) {
    var params = new URLSearchParams();
    params.set("plan", VERSION);
    fields(widget.form).forEach(function (element) {
      /* An optional field left empty (the ranking's split and prices) is its default: the link leaves it out. */
      if (element.dataset.optional !== undefined && element.value.trim() === "") { return; }
      params.set(element.name, valueOf(widget.form, element));
    });
    var cfg = widget.ownConfig();
    if (cfg) { params.set("config", configJson(cfg)); }
    var quantization = widget.ownQuantization();
    if (quantization) { params.set("quantization", valueJson(quantization)); }
    return "#" + params.toString();
  }

  class LinkError {
    /** @param {string} label @param {string} value */
    constructor(label, value) {
      this.label = label;
      this.value = value;
    }
  }

  /* The inputs a fragment gives, checked all before any is used: {element, text} pairs and the config, or a
   * LinkError naming the first bad part (its field's label, and the value as the link gave it). */
  function decode(widget, hash) {
    var params = new URLSearchParams(hash.slice(1));
    if (params.getAll("plan").length !== 1 || params.get("plan") !== VERSION) {
      throw new LinkError("plan", params.get("plan") || hash.slice(1));
    }
    var byName = {};
    fields(widget.form).forEach(function (element) { byName[element.name] = element; });
    var chosen = [];
    var config = null;
    var quantizationText = null;
    var seen = {};
    params.forEach(function (text, name) {
      if (name === "plan") { return; }
      if (seen[name]) { throw new LinkError(name, text); }
      seen[name] = true;
      if (name === "config") { config = text; return; }
      if (name === "quantization") { quantizationText = text; return; }
      var element = byName[name];
      if (!element) { throw new LinkError(name, text); }
      if (!accepts(widget.form, element, text)) { throw new LinkError(element.dataset.label || name, text); }
      chosen.push({ element: element, text: text });
    });
    var cfg = null;
    if (config !== null) {
      try {
        var read = window.LLMModelConfig.parseConfigText(config, "config");
        cfg = window.LLMModelConfig.modelConfig(Object.fromEntries(read));
      } catch (error) {
        throw new LinkError("config", config);
      }
    }
    if (config !== null && params.get("preset") !== "config") {
      throw new LinkError("preset", params.get("preset") || "");  // no preset in the link: an empty value
    }
    var quantization = null;
    if (quantizationText !== null) {
      try {
        quantization = window.LLMModelConfig.parseConfigText(quantizationText, "quantization");
        window.LLMModelConfig.quantizationFromHf(quantization, cfg);
      } catch (error) {
        throw new LinkError("quantization", quantizationText);
      }
    }
    return { chosen: chosen, cfg: cfg, quantization: quantization };
  }

  function shorten(text) { return text.length > 40 ? text.slice(0, 39) + "…" : text; }

  function make(widget) {
    var root = widget.root;
    var form = widget.form;
    var note = root.querySelector('[data-out="share-note"]');
    var status = root.querySelector('[data-out="share-status"]');
    var defaults = fields(form).map(function (element) { return { element: element, text: valueOf(form, element) }; });
    var changed = false;  // written only once the reader changed something (or came with a plan)
    var written = null;

    function say(box, text) {
      box.textContent = text;
      box.hidden = !text;
    }

    /* The plan of `hash`, or the defaults and a note naming what the link got wrong. */
    function restore(hash) {
      try {
        var found = decode(widget, hash);
        defaults.forEach(function (item) { apply(form, item.element, item.text); });
        found.chosen.forEach(function (item) { apply(form, item.element, item.text); });
        /* A link made before the sampler filter was a field of its own names none: it gets its vLLM release's,
         * as the planner then derived it. */
        if (!found.chosen.some(function (item) { return item.element.name === "sampler_filter"; })) {
          widget.useReleaseFilter();
        }
        if (found.cfg) { widget.useModelConfig(found.cfg, found.quantization); }
        say(note, "");
        changed = true;
      } catch (error) {
        if (!(error instanceof LinkError)) { throw error; }
        defaults.forEach(function (item) { apply(form, item.element, item.text); });
        say(note, widget.fill(widget.fill(root.dataset.shareBad, "label", error.label), "value", shorten(error.value)));
      }
    }

    /* The address keeps the last plan computed from inputs a link can carry: a value being typed that the
     * form refuses (or a refused one in a hidden field) would only give the next reader the defaults. */
    function write() {
      var valid = fields(form).every(function (element) { return accepts(form, element, valueOf(form, element)); });
      if (!valid) { return; }
      var hash = encode(widget);
      if (hash === location.hash) { return; }
      written = hash;
      try {
        history.replaceState(history.state, "", hash);
      } catch (error) {
        location.replace(hash);  // where replaceState is refused, a fragment change still adds no entry
      }
    }

    ["input", "change", "click"].forEach(function (type) {
      form.addEventListener(type, function (event) {
        if (type !== "click" || event.target.type === "button") {
          changed = true;
          say(note, "");  // the reader has moved on from the link's defaults
        }
      }, true);
    });
    window.addEventListener("hashchange", function () {
      if (location.hash !== written && /^#plan=/.test(location.hash)) {
        restore(location.hash);
        widget.update(true);
      }
    });
    root.querySelector('[data-share="copy"]').addEventListener("click", function () {
      changed = true;
      write();
      /* Shown by the button, and announced through the widget's one status line. */
      var done = function (ok) {
        say(status, ok ? root.dataset.shareCopied : root.dataset.shareCopyFailed);
        root.querySelector('[data-out="status"]').textContent = status.textContent;
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(location.href).then(function () { done(true); }, function () { done(false); });
      } else {
        done(false);
      }
    });
    if (/^#plan=/.test(location.hash)) { restore(location.hash); }

    return function planned(result) {
      if (changed && result) { write(); }
    };
  }

  window.LLMPlannerExtensions = (window.LLMPlannerExtensions || []).concat([make]);
})();
