/* vLLM's batch speed estimate: decode rates, time to first token and cost, as `llmcalc speed --engine vllm`.
 *
 * It repeats the arithmetic of llmcalc.vllmspeed.estimate_vllm_speed and vllm_speed_text on numbers llmcalc
 * computed at build time (data-speed: each preset's bytes and FLOPs and its KV pool on each card, each card's
 * datasheet figures, the fitted constants, the measured range and the held-out error), in the same order of
 * float operations as Python; the browser tests compare its lines with the CLI's.  window.LLMVllmSpeed.estimate is
 * the same arithmetic for the planner's all-cards ranking (plannerrank.js), on a model and pool the planner made.  The number formatting is
 * plannerspeed.js's (window.LLMSpeedFormat).  What the reader types is read as numbers and written back with
 * textContent only.
 */
(function () {
  "use strict";

  // llmcalc.speed.prompt_flops: exact, as Python's integers.
  function promptFlops(model, prompt) {
    const big = BigInt;
    return big(2) * big(model.matmul) * big(prompt)
      + big(2) * big(model.layers) * big(prompt) * big(prompt + 1) * big(model.width);
  }

  // llmcalc.vllmspeed._steps, _Steps.seconds and estimate_vllm_speed's notes.
  function estimate(data, model, hardware, hardwareKey, batch, prompt, generated) {
    const constants = data.constants;
    const step = (memory, compute, share) =>
      Math.max(memory / constants.bandwidth_share, compute / share) + constants.step_seconds;
    const perStep = Math.max(Math.floor(data.batched_tokens / prompt), 1);
    const full = Math.floor(batch / perStep);
    const rest = batch % perStep;
    const weightSeconds = model.weights / hardware.bandwidth;
    const flops = promptFlops(model, prompt);
    let prefill = 0;
    let prefillComputeBound = false;
    const prefillStep = (count, compute) => {
      prefill += count * step(weightSeconds, compute, constants.prefill_share);
      prefillComputeBound ||= compute / constants.prefill_share > weightSeconds / constants.bandwidth_share;
    };
    if (full) {
      prefillStep(full, Number(BigInt(perStep) * flops) / hardware.peak);
    }
    if (rest) {
      prefillStep(1, Number(BigInt(rest) * flops) / hardware.peak);
    }
    const context = prompt + generated / 2;
    const decodeBytes = model.weights + batch * model.kv * context;
    const decodeFlops = batch * (2 * model.matmul + 4 * model.layers * context * model.width);
    const memory = decodeBytes / hardware.bandwidth;
    const compute = decodeFlops / hardware.peak;
    const stepSeconds = step(memory, compute, constants.compute_share);
    const range = data.range;
    const notes = [];
    if (batch > range.batch) { notes.push("batch"); }
    if (prompt + generated > range.context_tokens) { notes.push("context_tokens"); }
    if (!(range.weight_bytes[0] <= model.weights && model.weights <= range.weight_bytes[1])) { notes.push("weight_bytes"); }
    if (!range.hardware.includes(hardwareKey)) { notes.push("hardware"); }
    if (compute / constants.compute_share > memory / constants.bandwidth_share) { notes.push("compute"); }
    if (prefillComputeBound) { notes.push("prefill"); }
    return { stepSeconds, prefill, notes };
  }

  function setUp(widget) {
    const format = window.LLMSpeedFormat;
    const { fill, fixed } = format;
    const data = JSON.parse(widget.dataset.speed);
    const labels = JSON.parse(widget.dataset.labels);
    const form = widget.querySelector("form");
    const error = widget.querySelector("[data-error]");
    const result = widget.querySelector("[data-result]");
    const control = (name) => form.elements["vllm_" + name];

    function show(message, lines) {
      error.textContent = message;
      error.hidden = message === "";
      result.replaceChildren(...lines.map((text) => {
        const paragraph = document.createElement("p");
        paragraph.textContent = text;
        return paragraph;
      }));
    }

    function update() {
      const modelName = control("model").value;
      const hardwareKey = control("hardware").value;
      const model = data.models[modelName];
      const hardware = data.hardware[hardwareKey];
      const limits = data.limits;
      const read = {
        batch: format.wholeNumber(control("batch").value, 1, limits.batch),
        prompt: format.wholeNumber(control("prompt").value, 1, limits.tokens),
        generated: format.wholeNumber(control("generated").value, 2, limits.tokens),
      };
      const bounds = { batch: [1, limits.batch], prompt: [1, limits.tokens], generated: [2, limits.tokens] };
      for (const name of ["batch", "prompt", "generated"]) {
        if (read[name] === null) {
          show(fill(labels.err_input, { label: labels[name], min: bounds[name][0], max: fixed(bounds[name][1], 0) }),
               []);
          return;
        }
      }
      const price = format.price(control("price").value, limits.price);
      if (price === null) {
        show(fill(labels.err_price, { label: labels.price }), []);
        return;
      }
      const context = read.prompt + read.generated;
      if (context > model.limit) {
        show(fill(labels.err_context, { context: fixed(context, 0), limit: fixed(model.limit, 0) }), []);
        return;
      }
      const pool = model.pools[hardwareKey];
      if (read.batch * context > pool) {
        show(fill(labels.err_preempted, { hardware: hardwareKey, pool: fixed(pool, 0),
                                          fits: fixed(Math.floor(pool / context), 0), context: fixed(context, 0),
                                          batch: fixed(read.batch, 0) }), []);
        return;
      }
      const found = estimate(data, model, hardware, hardwareKey, read.batch, read.prompt, read.generated);
      const aggregate = read.batch / found.stepSeconds;
      const constants = data.constants;
      const lines = [
        fill(labels.summary, { model: modelName, hardware: hardwareKey }),
        fill(labels.setting, { batch: fixed(read.batch, 0), prompt: fixed(read.prompt, 0),
                               generated: fixed(read.generated, 0) }),
        fill(labels.decode, { rate: fixed(1 / found.stepSeconds, 1), aggregate: fixed(aggregate, 1) }),
        fill(labels.ttft, { ms: fixed(found.prefill * 1000, 0) }),
      ];
      if (price !== undefined) {
        lines.push(fill(labels.cost, { cost: fixed(price * 1 / 3600 / aggregate * 1000000, 2),
                                       price: fixed(price, 2) }));
      }
      lines.push(fill(labels.basis, { weights: fixed(model.weights, 0), kv: fixed(model.kv, 0),
                                      bandwidth_share: constants.bandwidth_share.toFixed(2),
                                      bandwidth: fixed(hardware.bandwidth / 1e9, 0),
                                      compute_share: constants.compute_share.toFixed(2),
                                      prefill_share: constants.prefill_share.toFixed(2),
                                      peak: fixed(hardware.peak / 1e12, 1),
                                      step: (constants.step_seconds * 1000).toFixed(1), pool: fixed(pool, 0) }));
      lines.push(fill(labels.error, { error: format.percent(labels, data.error), runs: fixed(data.runs, 0) }));
      for (const note of found.notes) {
        lines.push(labels["note_" + note]);
      }
      // run_vllm_cli's last lines: a card whose figures are derived says from what.
      const derived = hardware.derived;
      if (derived !== null) {
        lines.push(fill(labels.derived_bandwidth, { bandwidth: derived.bandwidth, bits: derived.bits,
                                                    gbps: derived.gbps }));
        lines.push(fill(labels.derived_peak, { peak: derived.peak, sms: derived.sms, mhz: fixed(derived.mhz, 0),
                                               per_sm: derived.per_sm, whitepaper: derived.whitepaper }));
      }
      show("", lines);
    }

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    update();
  }

  // The planner's all-cards ranking (plannerrank.js) estimates each row with the same arithmetic.
  window.LLMVllmSpeed = { estimate };

  function start() {
    document.querySelectorAll("[data-vllm-speed-estimate]").forEach(setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
