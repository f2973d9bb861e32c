/* "Will it fit?": the time and price of the training run a plan describes, as `llmcalc plan --train-tokens`
 * prints it (llmcalc.runcost and llmcalc.costcli).
 *
 * FLOPs per token: 6N for full fine-tuning, 4N + 6 x the adapters' parameters for LoRA and QLoRA (the backward
 * pass still flows through the frozen base, whose weights' own gradients are skipped), N the parameters in
 * matrix multiplications, plus the attention scores, 6 x heads x (key + value width) x tokens per layer (a window
 * on a windowed layer).  Counted exactly, as BigInt; the times are that over one GPU's peak (the listed card's
 * dense BF16 datasheet figure, llmcalc.datasheets, or the reader's) times the MFU, in the same order of float
 * operations as Python, so the printed figures agree.  Every plan multiplies in BF16, so a card whose tensor cores
 * have none (the T4, the V100) is refused by name unless the reader types a peak, as llmcalc.costcli does.
 * Written with textContent only.
 * Registered in window.LLMPlannerExtensions: plannerwidget.js makes it with its widget and calls it after each update.
 */
(function () {
  "use strict";

  var COUNT = /^\s*([0-9]+)(?:\.([0-9]+))?(?:[eE]([0-9]+))?\s*$/;
  var DECIMAL = /^\s*(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\s*$/;
  var SECONDS_PER_HOUR = 3600;

  /* A whole number of tokens, digits or a decimal with a power of ten (2e12, 1.5e9), as BigInt; null if not, or if
   * the power is above maxPower (llmcalc.costcli's, from data-tables' run_cost). */
  function trainTokens(text, maxPower) {
    var match = COUNT.exec(text);
    if (!match) { return null; }
    var fraction = match[2] || "";
    var power = Number(match[3] || 0);
    if (fraction.length > power || power > maxPower) { return null; }
    return BigInt(match[1] + fraction) * 10n ** BigInt(power - fraction.length);
  }

  /** @param {ModelConfig} cfg */
  function matmulParams(cfg) {
    var lookups = cfg.learned_positions * cfg.d_model + (cfg.tie_embeddings ? 0n : cfg.vocab_size * cfg.d_model);
    return window.LLMModelConfig.activeParamCount(cfg) - lookups;
  }

  /** @param {ModelConfig} cfg @param {bigint} seqLen */
  function attentionTrainingFlops(cfg, seqLen) {
    var perPosition = 6n * cfg.n_heads * (cfg.head_dim + (cfg.v_head_dim || cfg.head_dim));
    var windowed = cfg.sliding_window ? cfg.sliding_window_layers : 0n;
    var window = cfg.sliding_window && cfg.sliding_window < seqLen ? cfg.sliding_window : seqLen;
    return perPosition * ((cfg.n_layers - windowed) * seqLen + windowed * window);
  }

  function trainingFlopsPerToken(cfg, options) {
    var seqLen = BigInt(options.seqLen);
    if (options.task === "full") { return 6n * matmulParams(cfg) + attentionTrainingFlops(cfg, seqLen); }
    var adapters = BigInt(window.LLMModelConfig.loraModelParams(cfg, Number(options.rank), options.targets));
    return 4n * matmulParams(cfg) + 6n * adapters + attentionTrainingFlops(cfg, seqLen);
  }

  function make(widget) {
    var root = widget.root;
    var form = widget.form;
    var data = root.dataset;
    var output = root.querySelector('[data-out="run"]');
    var error = root.querySelector('[data-error="run"]');
    var peaks = JSON.parse(data.peakFlops);  // each listed card's dense BF16 peak, llmcalc.datasheets
    var fp16Only = JSON.parse(data.fp16OnlyCards);  // cards without BF16 tensor cores: name and FP16 TFLOPS
    var lang = document.documentElement.lang || "en";

    function fixed(value, digits) {
      return value.toLocaleString(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    }

    function fillAll(template, values) {
      return Object.keys(values).reduce(function (text, name) { return widget.fill(text, name, values[name]); },
        template);
    }

    function refuse(element, template) {
      element.setAttribute("aria-invalid", "true");
      return fillAll(template, { label: element.dataset.label, value: element.value.trim() });
    }

    /* A number > 0 (and <= 1 for the MFU), as Python's float() reads the CLI's; the refusal's text if not. */
    function positive(element, template, atMostOne) {
      var text = element.value;
      var value = DECIMAL.test(text) ? Number(text) : NaN;
      if (!(value > 0) || !isFinite(value) || (atMostOne && value > 1)) { return [null, refuse(element, template)]; }
      return [value, ""];
    }

    function show(lines, problem) {
      output.textContent = "";
      lines.forEach(function (line) {
        var paragraph = document.createElement("p");
        paragraph.textContent = line;
        output.appendChild(paragraph);
      });
      output.hidden = lines.length === 0;
      error.textContent = problem;
      error.hidden = !problem;
    }

    function estimate(result) {
      var fields = ["train_tokens", "mfu", "price_per_gpu_hour", "peak_tflops"].map(function (name) {
        var element = form.elements[name];
        element.removeAttribute("aria-invalid");
        return element;
      });
      if (!result || result.options.task === "inference" || !fields[0].value.trim()) { return [[], ""]; }
      var tokens = trainTokens(fields[0].value, window.LLMPlanner.tables().run_cost.max_power);
      if (tokens === null || tokens < 1n) { return [[], refuse(fields[0], data.runTokensError)]; }
      var mfu = positive(fields[1], data.runMfuError, true);
      if (mfu[1]) { return [[], mfu[1]]; }
      var price = fields[2].value.trim() ? positive(fields[2], data.runPositiveError, false) : [null, ""];
      if (price[1]) { return [[], price[1]]; }
      var card = form.elements.gpu.value;
      var peak;
      var source;
      if (fields[3].value.trim()) {
        var given = positive(fields[3], data.runPositiveError, false);
        if (given[1]) { return [[], given[1]]; }
        peak = given[0] * 1e12;
        source = data.runPeakGiven;
      } else if (card && fp16Only[card] !== undefined) {
        return [[], fillAll(data.runNoBf16, { card: fp16Only[card].name, tflops: String(fp16Only[card].tflops),
          precision: result.options.task === "full" ? result.options.precision : "bf16" })];
      } else if (card && peaks[card] !== undefined) {
        peak = Number(peaks[card]);
        source = data.runPeakDatasheet;
      } else {
        return [[], data.runNeedsPeak];
      }
      var options = result.options;
      var perToken = trainingFlopsPerToken(result.cfg, options);
      var flops = tokens * perToken;
      var gpuHours = Number(flops) / (peak * mfu[0]) / SECONDS_PER_HOUR;
      var wallHours = gpuHours / options.nGpus;
      var lines = [
        fillAll(options.task === "full" ? data.runFlopsFull : data.runFlopsLora, {
          tokens: widget.format.count(tokens), per_token: widget.format.count(perToken),
          seq_len: widget.format.count(options.seqLen), flops: Number(flops).toExponential(2) }),
        fillAll(data.runTime, { gpus: widget.format.count(options.nGpus), peak: fixed(peak / 1e12, 1),
          source: source, mfu: String(mfu[0]), gpu_hours: fixed(gpuHours, 2), wall_hours: fixed(wallHours, 2) }),
      ];
      if (price[0] !== null) {
        lines.push(fillAll(data.runPrice, { price_per_hour: fixed(price[0], 2), price: fixed(gpuHours * price[0], 2) }));
      }
      lines.push(data.runNote);
      output.dataset.flops = flops.toString();
      output.dataset.gpuHours = String(gpuHours);
      return [lines, ""];
    }

    return function planned(result) {
      var found = estimate(result);
      show(found[0], found[1]);
    };
  }

  window.LLMPlannerFlops = { matmulParams: matmulParams };  // the ranking's vLLM speed (plannerrank.js) too
  window.LLMPlannerExtensions = (window.LLMPlannerExtensions || []).concat([make]);
})();
