/* "Will it fit?": CPU offload for training, as llmcalc.offload plans it (llmcalc plan --offload fsdp|zero).
 *
 * It repeats llmcalc.offload.plan_offloaded_training with planner.js's own planTraining, so each total is the
 * CLI's (tests/test_planner_offload.py compares them in both languages), and writes with textContent only.
 * With no offload chosen it names FSDP's offload when that makes a ZeRO-3 plan fit, as the CLI does.
 * Registered in window.LLMPlannerExtensions: plannerwidget.js makes it with its widget and calls it after each update.
 */
(function () {
  "use strict";

  function ceilDiv(a, b) { return (a + b - 1n) / b; }

  /* llmcalc.offload._state_parts: [trained parameters, their weight and gradient bytes, the frozen base, its
   * quantization constants]. */
  /** @param {LLMPlannerApi} P @param {ModelConfig} cfg @returns {bigint[]} */
  function stateParts(P, cfg, options) {
    var MC = window.LLMModelConfig;
    var T = P.tables();
    if (options.task === "full") {
      var n = BigInt(MC.paramCount(cfg));
      var full = P.trainingMemory(n, options.optimizer, T.precision_recipes[options.precision || "bf16"]);
      return [n, full.weights, full.gradients, 0n, 0n];
    }
    var trained = BigInt(MC.loraModelParams(cfg, options.rank, options.targets));
    var adapters = P.trainingMemory(trained, options.optimizer, options.adapterDtype || "fp32");
    // training_state_bytes' weights: the plan without ZeRO keeps them whole.
    var state = P.planTraining(cfg, Object.assign({}, options, { zeroStage: 0, nGpus: 1 }));
    var constants = options.task === "qlora" ? P.weightFormatBytes(cfg, "nf4-dq").constants : 0n;
    return [trained, adapters.weights, adapters.gradients, state.weights - adapters.weights, constants];
  }

  /* llmcalc.offload.plan_offloaded_training: {gpu: the plan's parts, host: bytes per GPU}, or null for a stage the
   * offload does not run with. */
  /** @param {ModelConfig} cfg */
  function planOffloaded(cfg, options, offload) {
    var P = window.LLMPlanner;
    var stage = options.zeroStage;
    if (stage < (offload === "fsdp" ? 3 : 1)) { return null; }
    var sharded = P.planTraining(cfg, options);
    var parts = stateParts(P, cfg, options);
    var trained = parts[0], trainedWeights = parts[1], trainedGrads = parts[2], base = parts[3], constants = parts[4];
    var gpus = BigInt(options.nGpus);
    var buffers = stage === 3 ? P.zero3BufferBytes(cfg, base || trainedWeights, trained, trainedGrads) : [0n, 0n];
    var splitWeights = sharded.weights - buffers[0] - (stage === 3 ? constants : 0n);
    var splitGrads = sharded.gradients - buffers[1];
    var gpu = Object.assign({}, sharded, { optimizer_states: 0n, kv_cache: 0n });
    if (offload === "fsdp") {
      var breakdown = window.LLMModelConfig.paramBreakdown(cfg);
      var rootParams = BigInt(breakdown.embedding) + BigInt(breakdown.positions) + BigInt(breakdown.lm_head) +
        BigInt(cfg.d_model);
      var layers = BigInt(cfg.n_layers);
      var root, allLayers;
      if (options.task === "full") {
        root = rootParams * (trainedWeights / trained);
        allLayers = trainedWeights - root;
        var gradBytes = trainedGrads / trained;
        gpu.gradients = rootParams * gradBytes + ceilDiv((trained - rootParams) * gradBytes, layers);
      } else {
        root = 2n * rootParams;
        allLayers = base - constants - root + trainedWeights;
        gpu.gradients = ceilDiv(trainedGrads, layers);
      }
      // The root and two decoder layers gathered, with the copy of this GPU's shard of each.
      gpu.weights = constants + ceilDiv((root * layers + 2n * allLayers) * (gpus + 1n), layers * gpus);
      return { gpu: gpu, host: splitWeights + splitGrads + sharded.optimizer_states };
    }
    var bucket = trained < BigInt(P.tables().zero3.reduce_bucket_size) ? trained
      : BigInt(P.tables().zero3.reduce_bucket_size);
    gpu.gradients = trained > 0n ? bucket * (trainedGrads / trained) : 0n;
    if (stage === 3) { gpu.weights = constants + buffers[0]; }
    return { gpu: gpu, host: sharded.optimizer_states + 4n * ceilDiv(trained, gpus) + (stage === 3 ? splitWeights : 0n) };
  }

  function make(widget) {
    var root = widget.root;
    var form = widget.form;
    var data = root.dataset;
    var out = root.querySelector('[data-out="offload"]');

    function show(text, plan) {
      out.textContent = text;
      out.hidden = !text;
      if (plan) { root.dataset.offloadPlan = JSON.stringify(plan); } else { delete root.dataset.offloadPlan; }
    }

    return function (result) {
      var offload = form.elements.offload ? form.elements.offload.value : "";
      if (!result || result.options.task === "inference") { show(""); return; }
      var options = result.options;
      var budget = result.budget;
      var P = window.LLMPlanner;
      var chosen = offload || (options.zeroStage === 3 ? "fsdp" : "");
      if (!chosen) { show(""); return; }
      var planned;
      try {
        planned = planOffloaded(result.cfg, options, chosen);
      } catch (failure) {
        show("");  // the planner's own error line says what is wrong with the plan
        return;
      }
      if (planned === null) { show(offload === "fsdp" ? data.offloadStageFsdp : data.offloadStageZero); return; }
      var total = P.planTotal(planned.gpu);
      var hostTotal = planned.host * BigInt(options.nGpus);
      var fits = total <= budget;
      var record = { offload: chosen, total: total.toString(), host_bytes_per_gpu: planned.host.toString(),
                     host_bytes: hostTotal.toString(), fits: fits };
      var name = chosen === "fsdp" ? data.offloadFsdp : data.offloadZero;
      if (!offload) {
        // As the CLI: FSDP's offload is named only when the plan without it does not fit and it does.
        var plain = P.planTotal(widget.plan(result.cfg, options));
        if (plain <= budget || !fits) { show(""); return; }
        show(widget.fill(widget.fill(data.offloadHint, "total", widget.format.bytes(total)), "host_total",
          widget.format.bytes(hostTotal)), record);
        return;
      }
      var verdict = widget.fill(fits ? data.fits : data.noFit, "bytes",
        widget.format.bytes(fits ? budget - total : total - budget));
      var text = data.offloadResult;
      [["offload", name], ["total", widget.format.bytes(total)], ["verdict", verdict],
       ["host", widget.format.bytes(planned.host)], ["host_total", widget.format.bytes(hostTotal)],
       ["gpus", widget.format.count(options.nGpus)]].forEach(function (item) {
        text = widget.fill(text, item[0], item[1]);
      });
      show(text, record);
    };
  }

  window.LLMPlannerExtensions = (window.LLMPlannerExtensions || []).concat([make]);
})();
