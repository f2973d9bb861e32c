/* Interactive calculators (LoRA rank, model memory, KV cache), offline, no framework.
 *
 * The markup comes from llmglossary/templates/calculators/widget.html, rendered by
 * docs/_ext/llmglossary/calculators/.  The formulas are modelcounts.js's (loaded first), shared with the planner,
 * but for the LoRA share and the GQA ratio, which only these widgets use;
 * the browser tests run hundreds of llmcalc-generated vectors through window.LLMCalc
 * and compare exactly, so the two cannot drift apart.
 * Counts use BigInt, so no size is ever rounded; results are written with
 * textContent only, never as HTML built from input.
 */
(function () {
  "use strict";

  /* Bits per value of each number format: llmcalc.DTYPE_BITS, which the build writes
   * into every memory and KV-cache widget's data-dtype-bits (read at init). */
  var DTYPE_BITS = {};
  var GB = 1e9;
  var GIB = 1073741824;

  function bits(dtype) {
    if (!Object.prototype.hasOwnProperty.call(DTYPE_BITS, dtype)) {
      throw new RangeError("unknown dtype " + dtype);
    }
    return DTYPE_BITS[dtype];
  }

  /* llmcalc.lora_params: modelcounts.js's formula. */
  function loraParams(dIn, dOut, rank) {
    return window.LLMModelCounts.loraParams(dIn, dOut, rank);
  }

  /* llmcalc.lora_share: adapter parameters over the matrix's d_in * d_out. */
  function loraShare(dIn, dOut, rank) {
    return Number(loraParams(dIn, dOut, rank)) / Number(BigInt(dIn) * BigInt(dOut));
  }

  /* llmcalc.weight_bytes: modelcounts.js's formula, in the format's bits. */
  function weightBytes(nParams, dtype) {
    return window.LLMModelCounts.weightBytes(nParams, bits(dtype));
  }

  /* llmcalc.kv_cache_bytes of a full-attention shape: modelcounts.js's formula, the planner's too. */
  function kvCacheBytes(layers, kvHeads, headDim, dtype, tokens, batch) {
    var shape = { n_layers: layers, n_kv_heads: kvHeads, head_dim: headDim };
    return window.LLMModelCounts.kvCacheBytes(shape, tokens, batch, bits(dtype));
  }

  /* llmcalc.gqa_cache_reduction: an MHA cache over a GQA cache. */
  function gqaCacheReduction(heads, kvHeads) {
    return heads / kvHeads;
  }

  function formatter() {
    var lang = document.documentElement.lang || "en";
    return {
      count: function (value) { return BigInt(value).toLocaleString(lang); },
      decimal: function (value, digits) {
        return value.toLocaleString(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
      },
      percent: function (value) {
        return value.toLocaleString(lang, { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 });
      },
    };
  }

  /* The page's (translated) message for a value outside [min, max]. */
  function rangeMessage(template, label, min, max, format) {
    return template.replace("{label}", label).replace("{min}", format.count(min)).replace("{max}", format.count(max));
  }

  /* A whole number in [min, max], or an error message naming the field and the range. */
  function readInteger(input, template, format) {
    var text = input.value.trim();
    var min = Number(input.min);
    var max = Number(input.max);
    var value = Number(text);
    if (text === "" || !/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
      return { error: rangeMessage(template, input.dataset.label || input.name, min, max, format) };
    }
    return { value: value };
  }

  function outputs(root) {
    var map = {};
    root.querySelectorAll("[data-out]").forEach(function (node) { map[node.dataset.out] = node; });
    return map;
  }

  function showError(root, message, out) {
    var box = root.querySelector(".calc-error");
    box.textContent = message;
    box.hidden = false;
    Object.keys(out).forEach(function (key) {
      if (key === "bar") { out[key].style.width = "0"; } else { out[key].textContent = "—"; }
    });
  }

  function clearError(root) {
    var box = root.querySelector(".calc-error");
    box.textContent = "";
    box.hidden = true;
  }

  /* Reads every numeric field named in `names`; returns values, or null after showing an error. */
  function readFields(root, names, format, out) {
    var template = root.dataset.errorTemplate;
    var values = {};
    for (var i = 0; i < names.length; i += 1) {
      var input = root.querySelector('input[name="' + names[i] + '"][type="number"]');
      var result = readInteger(input, template, format);
      input.setAttribute("aria-invalid", result.error ? "true" : "false");
      if (result.error) {
        showError(root, result.error, out);
        return null;
      }
      values[names[i]] = result.value;
    }
    clearError(root);
    return values;
  }

  function setupLora(root, format) {
    var out = outputs(root);
    var slider = root.querySelector('input[name="rank"]');
    var box = root.querySelector('input[name="rank-box"]');
    function update() {
      var values = readFields(root, ["rank-box", "d_in", "d_out"], format, out);
      if (!values) { return; }
      var rank = values["rank-box"];
      var limit = Math.min(values.d_in, values.d_out);
      if (rank > limit) {
        showError(root, rangeMessage(root.dataset.errorTemplate, box.dataset.label, 1, limit, format), out);
        return;
      }
      var trainable = loraParams(values.d_in, values.d_out, rank);
      var share = loraShare(values.d_in, values.d_out, rank);
      out.trainable.textContent = format.count(trainable);
      out.original.textContent = format.count(BigInt(values.d_in) * BigInt(values.d_out));
      out.share.textContent = format.percent(share);
      out.formula.textContent = format.count(rank) + " × (" + format.count(values.d_in) + " + " +
        format.count(values.d_out) + ") = " + format.count(trainable);
      out.bar.style.width = Math.max(0.5, Math.min(100, share * 100)) + "%";
    }
    slider.addEventListener("input", function () { box.value = slider.value; update(); });
    box.addEventListener("input", function () {
      if (/^[0-9]+$/.test(box.value) && Number(box.value) >= 1 && Number(box.value) <= 256) { slider.value = box.value; }
      update();
    });
    root.querySelectorAll('input[name="d_in"], input[name="d_out"]').forEach(function (input) {
      input.addEventListener("input", update);
    });
    update();
  }

  function setupMemory(root, format) {
    var out = outputs(root);
    var presets = JSON.parse(root.dataset.presets);
    var select = root.querySelector('select[name="preset"]');
    var params = root.querySelector('input[name="params"]');
    function update() {
      var values = readFields(root, ["params"], format, out);
      if (!values) { return; }
      Object.keys(out).forEach(function (key) {
        var parts = key.split("-");
        var bytes = weightBytes(values.params, parts[1]);
        out[key].textContent = format.decimal(Number(bytes) / (parts[0] === "gb" ? GB : GIB), 2);
      });
    }
    select.addEventListener("change", function () {
      if (select.value) { params.value = presets[select.value].params; }
      update();
    });
    params.addEventListener("input", function () { select.value = ""; update(); });
    update();
  }

  function setupKVCache(root, format) {
    var out = outputs(root);
    var presets = JSON.parse(root.dataset.presets);
    var select = root.querySelector('select[name="preset"]');
    var dtype = root.querySelector('select[name="dtype"]');
    var fields = ["layers", "heads", "kv_heads", "head_dim", "tokens", "batch"];
    function update() {
      var values = readFields(root, fields, format, out);
      if (!values) { return; }
      if (values.heads % values.kv_heads !== 0) {
        root.querySelector('input[name="kv_heads"]').setAttribute("aria-invalid", "true");
        showError(root, root.dataset.divisorError, out);
        return;
      }
      var total = kvCacheBytes(values.layers, values.kv_heads, values.head_dim, dtype.value, values.tokens, values.batch);
      var perToken = kvCacheBytes(values.layers, values.kv_heads, values.head_dim, dtype.value, 1, 1);
      var mha = kvCacheBytes(values.layers, values.heads, values.head_dim, dtype.value, values.tokens, values.batch);
      out.per_token.textContent = format.count(perToken) + " B";
      out.total.textContent = format.count(total) + " B (" + format.decimal(Number(total) / GIB, 2) + " GiB)";
      out.mha.textContent = format.count(mha) + " B (" + format.decimal(Number(mha) / GIB, 2) + " GiB)";
      out.saving.textContent = format.decimal(gqaCacheReduction(values.heads, values.kv_heads), 2) + "×";
    }
    select.addEventListener("change", function () {
      var preset = presets[select.value];
      if (preset) {
        root.querySelector('input[name="layers"]').value = preset.layers;
        root.querySelector('input[name="heads"]').value = preset.heads;
        root.querySelector('input[name="kv_heads"]').value = preset.kv_heads;
        root.querySelector('input[name="head_dim"]').value = preset.head_dim;
      }
      update();
    });
    ["layers", "heads", "kv_heads", "head_dim"].forEach(function (name) {
      root.querySelector('input[name="' + name + '"]').addEventListener("input", function () { select.value = ""; update(); });
    });
    ["tokens", "batch"].forEach(function (name) {
      root.querySelector('input[name="' + name + '"]').addEventListener("input", update);
    });
    dtype.addEventListener("change", update);
    update();
  }

  var SETUP = { lora: setupLora, memory: setupMemory, kvcache: setupKVCache };

  window.LLMCalc = {
    loraParams: loraParams,
    loraShare: loraShare,
    weightBytes: weightBytes,
    kvCacheBytes: kvCacheBytes,
    gqaCacheReduction: gqaCacheReduction,
  };

  function init() {
    document.querySelectorAll(".calculator[data-dtype-bits]").forEach(function (root) {
      var table = JSON.parse(root.dataset.dtypeBits);
      Object.keys(table).forEach(function (dtype) { DTYPE_BITS[dtype] = BigInt(table[dtype]); });
    });
    document.querySelectorAll(".calculator[data-calculator]").forEach(function (root) {
      SETUP[root.dataset.calculator](root, formatter());
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
