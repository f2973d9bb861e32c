/* The speed estimate: llama.cpp's decode rate, time to first token and cost, as `llmcalc speed` gives them.
 *
 * It repeats the arithmetic of llmcalc.speed.estimate_speed and speed_text on numbers llmcalc computed at
 * build time (data-speed: each preset's bytes and FLOPs, each card's datasheet figures, the fitted constants,
 * the held-out errors); the browser tests compare its lines with the CLI's.  What the reader types is read
 * as numbers and written back with textContent only.
 */
(function () {
  "use strict";

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
  }

  // Python's f"{x:,.{digits}f}": fixed digits, thousands grouped with commas.
  function fixed(x, digits) {
    const [whole, fraction] = Math.abs(x).toFixed(digits).split(".");
    const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (x < 0 ? "-" : "") + grouped + (fraction === undefined ? "" : "." + fraction);
  }

  // Python's f"{x:.1%}" in the page's style: speed_text's "11.3 %" in English, "11.3%" in zh_TW.
  function percent(labels, x) {
    return fill(labels.percent, { value: (x * 100).toFixed(1) });
  }

  function wholeNumber(text, min, max) {
    if (!/^\s*\d+\s*$/.test(text)) {
      return null;
    }
    const value = Number(text);
    return value >= min && value <= max ? value : null;
  }

  function price(text, max) {
    const trimmed = text.trim();
    if (trimmed === "") {
      return undefined;
    }
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(trimmed)) {
      return null;
    }
    const value = Number(trimmed);
    return value <= max ? value : null;
  }

  // llmcalc.speed._roofline with the shipped constants, and estimate_speed's notes.
  function estimate(data, modelName, format, hardwareKey, prompt, generated) {
    const model = data.models[modelName];
    const hardware = data.hardware[hardwareKey];
    const engine = hardware.engine;
    const kind = format === "F16" ? "16-bit" : "quantized";
    const weights = model.weights[format];
    const meanContext = prompt + (generated - 1) / 2;
    const decodeEfficiency = data.decode_efficiency[engine + "|" + kind];
    const decodeRate = Math.min(decodeEfficiency * hardware.bandwidth / (weights + model.kv * meanContext),
                                data.decode_ceiling[engine]);
    const big = BigInt;
    const flops = big(2) * big(model.matmul) * big(prompt)
      + big(2) * big(model.layers) * big(prompt) * big(prompt + 1) * big(model.width);
    // Quantized weights are unpacked to FP16 once per pass of data.ubatch prompt tokens: read, then written.
    const passes = Math.ceil(prompt / data.ubatch);
    const unpack = format === "F16" ? 0 : passes * (weights + 2 * model.matmul);
    let prefill = null;
    let prefillEfficiency = null;
    if (engine === "llama.cpp-cuda" && hardware.peak !== null) {
      prefillEfficiency = data.prefill_efficiency[engine];
      const rate = Math.min(prefillEfficiency * hardware.peak, data.prefill_ceiling[engine]);
      prefill = Math.max(Number(flops) / rate, weights / hardware.bandwidth) + unpack / hardware.bandwidth;
    }
    const notes = [];
    if (prompt > data.range.prompt_tokens && prefill !== null) {
      notes.push(["prompt_tokens", fixed(data.range.prompt_tokens, 0)]);
    }
    if (prompt + generated > data.range.context_tokens) {
      notes.push(["context_tokens", fixed(data.range.context_tokens, 0)]);
    }
    if (weights < data.range.min_weight_bytes) {
      notes.push(["min_weight_bytes", fixed(data.range.min_weight_bytes, 0)]);
    }
    if (decodeRate >= data.decode_ceiling[engine]) {
      notes.push(["decode_ceiling", fixed(data.decode_ceiling[engine], 1)]);
    }
    const ceiling = data.prefill_ceiling[engine];
    if (hardware.peak !== null && ceiling !== undefined && data.prefill_efficiency[engine] * hardware.peak > ceiling) {
      notes.push(["prefill_ceiling", fixed(ceiling / 1e12, 0)]);
    }
    if (unpack > 0 && prefill !== null) {
      notes.push(["unpack", ""]);
    }
    if (hardware.derived !== null) {
      notes.push(["derived", ""]);
    }
    return { engine, weights, kv: model.kv, bandwidth: hardware.bandwidth, peak: hardware.peak, decodeEfficiency,
             decodeRate, flops: Number(flops), prefillEfficiency, prefill, unpack, notes };
  }

  // llmcalc.speed.speed_text, line by line, in the page's words.
  function lines(data, labels, choice, result, cost) {
    const engineName = labels[result.engine === "llama.cpp-cuda" ? "engine_cuda" : "engine_metal"];
    const out = [
      fill(labels.summary, { model: choice.model, format: choice.format, hardware: choice.hardware,
                             engine: engineName }),
      fill(labels.setting, { prompt: fixed(choice.prompt, 0), generated: fixed(choice.generated, 0) }),
      fill(labels.decode, { rate: fixed(result.decodeRate, 1) }),
    ];
    if (result.prefill === null) {
      out.push(fill(labels.ttft_none, { hardware: choice.hardware }));
    } else {
      out.push(fill(labels.ttft, { ms: fixed(result.prefill * 1000, 0), rate: fixed(choice.prompt / result.prefill, 1) }));
    }
    if (cost !== null) {
      out.push(fill(labels.cost, { cost: fixed(cost, 2), price: fixed(choice.price, 2) }));
    }
    let basis = fill(labels.basis, { weights: fixed(result.weights, 0), kv: fixed(result.kv, 0),
                                     efficiency: result.decodeEfficiency.toFixed(3),
                                     bandwidth: fixed(result.bandwidth / 1e9, 0) });
    if (result.peak !== null && result.prefillEfficiency !== null) {
      basis += fill(labels.basis_prefill, { tflops: fixed(result.flops / 1e12, 2),
                                            efficiency: result.prefillEfficiency.toFixed(3),
                                            peak: fixed(result.peak / 1e12, 1),
                                            ceiling: fixed(data.prefill_ceiling[result.engine] / 1e12, 0) });
      if (result.unpack > 0) {
        basis += fill(labels.basis_unpack, { gigabytes: fixed(result.unpack / 1e9, 1) });
      }
    }
    out.push(basis);
    // llmcalc.speed.derived_figures: a card whose figures are derived says from what.
    const derived = data.hardware[choice.hardware].derived;
    if (derived !== null) {
      out.push(fill(labels.derived_bandwidth, { bandwidth: derived.bandwidth, bits: derived.bits, gbps: derived.gbps }));
      if (result.peak !== null && result.prefillEfficiency !== null) {
        out.push(fill(labels.derived_peak, { peak: derived.peak, sms: derived.sms, mhz: fixed(derived.mhz, 0),
                                             per_sm: derived.per_sm, whitepaper: derived.whitepaper }));
      }
    }
    out.push(fill(labels.error, { decode: percent(labels, data.errors.decode),
                                  prefill: percent(labels, data.errors.prefill) }));
    const whole = (x) => fill(labels.percent, { value: (x * 100).toFixed(0) });
    for (const [note, value] of result.notes) {
      out.push(fill(labels["note_" + note], { value, runs: data.derived_error.runs,
                                              low: whole(data.derived_error.low), high: whole(data.derived_error.high) }));
    }
    return out;
  }

  function setUp(widget) {
    const data = JSON.parse(widget.dataset.speed);
    const labels = JSON.parse(widget.dataset.labels);
    const form = widget.querySelector("form");
    const error = widget.querySelector("[data-error]");
    const result = widget.querySelector("[data-result]");
    const control = (name) => form.elements["speed_" + name];

    function show(message) {
      error.textContent = message;
      error.hidden = message === "";
    }

    function update() {
      const choice = {
        model: control("model").value,
        format: control("format").value,
        hardware: control("hardware").value,
        prompt: wholeNumber(control("prompt").value, 1, data.limits.tokens),
        generated: wholeNumber(control("generated").value, 1, data.limits.tokens),
        price: price(control("price").value, data.limits.price),
      };
      for (const name of ["prompt", "generated"]) {
        if (choice[name] === null) {
          show(fill(labels.err_input, { label: labels[name], min: 1, max: fixed(data.limits.tokens, 0) }));
          result.replaceChildren();
          return;
        }
      }
      if (choice.price === null) {
        show(fill(labels.err_price, { label: labels.price }));
        result.replaceChildren();
        return;
      }
      show("");
      const estimated = estimate(data, choice.model, choice.format, choice.hardware, choice.prompt, choice.generated);
      const cost = choice.price === undefined ? null : choice.price / 3600 / estimated.decodeRate * 1000000;
      result.replaceChildren(...lines(data, labels, choice, estimated, cost).map((text) => {
        const paragraph = document.createElement("p");
        paragraph.textContent = text;
        return paragraph;
      }));
    }

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    update();
  }

  function start() {
    document.querySelectorAll("[data-speed-estimate]").forEach(setUp);
  }

  // The formatting and input reading vllmspeed.js shares (it loads after this file).
  window.LLMSpeedFormat = Object.freeze({ fill, fixed, percent, wholeNumber, price });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
