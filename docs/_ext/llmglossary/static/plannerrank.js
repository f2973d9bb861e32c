/* "Will it fit?": every listed card at once, the widget's side of llmcalc.ranking (the CLI's plan --gpu all).
 *
 * With "All cards" ticked, the plan the form describes is made on every listed card, on 1, 2, 4 and 8 of it where
 * the planner has a plan for several GPUs (tensor parallelism for inference without an engine and for vLLM, at the
 * sizes vLLM takes; the ZeRO stage chosen for training, stage 0 on one GPU; transformers' generate on one), with
 * planner.js's own plan functions, so every number is llmcalc's as the browser tests check.  Each row: the verdict,
 * the bytes to spare, the longest context, the most sequences (vLLM: requests at the context) or micro-batch, and
 * for a plan that does not fit the first single change of llmcalc.planner's lists (vLLM: of
 * llmcalc.ranking.vllm_changes_that_fit's) that makes it fit.  Rows are
 * ranked as llmcalc.ranking.rank_cards ranks them; a column header sorts them (a button, so the keyboard reaches
 * it; aria-sort says the order).  The box, the vLLM requests and the sort order are form fields, so the share link
 * (plannershare.js) keeps them.  With vLLM, each request's prompt and generated tokens give every row the speed
 * llmcalc.ranking's vLLM rows have (RowSpeed: vllmspeed.js's estimate of the requests on the row's card with its
 * pool, or the refusal that says why there is none, as a numbered footnote), and the reader's price of a card's
 * GPU-hour its cost per million output tokens; cells as llmcalc.ranking.speed_table writes them, sortable by their
 * headers too (a row without the figure after the others, as llmcalc.ranking.sorted_by_cost puts it).  Registered
 * in window.LLMPlannerExtensions before plannershare.js, which must find these fields when it restores a link.
 * Written with DOM calls and textContent only.
 */
(function () {
  "use strict";

  var COLUMNS = ["rank", "card", "gpus", "verdict", "headroom", "context", "batch", "change"];
  var SORTABLE = ["rank", "card", "gpus", "headroom", "context", "batch", "aggregate", "each", "first", "cost"];
  /* The speed columns of a vLLM ranking given each request's split, as llmcalc.ranking.speed_table's: tokens/s of
   * all the requests and of each, the time to the first token, and the cost where a price is given. */
  var SPEED_COLUMNS = ["aggregate", "each", "first"];
  /* Each change's setting, the form field that shows it (a reader reads the change in the form's own words). */
  var FIELDS = { batch: "batch", context: "context", kv_format: "kv_format", weight_format: "weight_format",
                 tensor_parallel: "tensor_parallel", micro_batch: "micro_batch", seq_len: "seq_len",
                 checkpointing: "checkpointing", optimizer: "optimizer", task: "task", zero_stage: "zero_stage",
                 gpu: "gpu", concurrency: "rank_concurrency", gpu_memory_utilization: "gpu_memory_utilization" };

  function html(name, text, className) {
    var node = document.createElement(name);
    if (text !== undefined) { node.textContent = text; }
    if (className) { node.className = className; }
    return node;
  }

  /* A refusal of a GPU count the planner does not split this model over (llmcalc.ranking.gpu_counts skips it). */
  function refusedCount(error) {
    return error instanceof window.LLMModelConfig.LLMCalcError &&
      (error.code === "tensor_parallel_does_not_divide" || error.code === "parallel_needs_dense");
  }

  function flag(change) {
    if (!change) { return ""; }
    var name = "--" + change.setting.replace(/_/g, "-");
    return change.value === true ? name : name + " " + change.value;
  }

  function make(widget) {
    var root = widget.root;
    var form = widget.form;
    var format = widget.format;
    var P = window.LLMPlanner;
    var tables = JSON.parse(root.dataset.tables);
    var GPU_COUNTS = tables.ranking.gpu_counts;  // llmcalc.ranking.GPU_COUNTS
    /* llmcalc.ranking.UTILIZATION_STEP: a higher gpu_memory_utilization is searched in hundredths (the field's %). */
    var UTILIZATION_STEP = tables.ranking.utilization_step;
    var labels = JSON.parse(root.dataset.rankLabels);
    var cardKeys = Object.keys(tables.card_totals);
    var prefix = form.querySelector("select[name=gpu]").id;

    /* The form's three fields: the box, the requests vLLM must hold, and the sort order (hidden: the headers set it). */
    var fieldset = form.querySelector(".planner-gpu");
    var box = html("div", undefined, "calc-field planner-rank-field");
    var check = html("input");
    check.type = "checkbox";
    check.name = "all_cards";
    check.id = prefix + "-all-cards";
    var boxLabel = html("label", labels.rank_all);
    boxLabel.htmlFor = check.id;
    box.appendChild(check);
    box.appendChild(boxLabel);
    fieldset.appendChild(box);
    var requestsField = html("div", undefined, "calc-field");
    var requests = html("input");
    requests.type = "number";
    requests.name = "rank_concurrency";
    requests.id = prefix + "-rank-concurrency";
    requests.min = "1";
    requests.max = String(tables.limits.max_batch);
    requests.value = "1";
    requests.required = true;
    requests.dataset.label = labels.rank_concurrency;
    var requestsLabel = html("label", labels.rank_concurrency);
    requestsLabel.htmlFor = requests.id;
    requestsField.appendChild(requestsLabel);
    requestsField.appendChild(requests);
    requestsField.hidden = true;
    fieldset.appendChild(requestsField);

    /* The vLLM ranking's speed: each request's split of the context, and the reader's price of a card's GPU-hour
     * (empty: none; a link omits what is empty). */
    var speedData = JSON.parse(root.dataset.rankSpeed);
    var LIMITS = speedData.limits;
    function optionalField(name, label, parent) {
      var field = html("div", undefined, "calc-field");
      var input = html("input");
      input.type = "text";
      input.inputMode = "decimal";
      input.name = name;
      input.id = prefix + "-" + name.replace(/_/g, "-");
      input.dataset.label = label;
      input.dataset.optional = "";
      var text = html("label", label);
      text.htmlFor = input.id;
      field.appendChild(text);
      field.appendChild(input);
      parent.appendChild(field);
      return input;
    }
    var speedFields = html("div", undefined, "planner-rank-speed");
    speedFields.hidden = true;
    var promptInput = optionalField("rank_prompt", labels.rank_prompt, speedFields);
    promptInput.inputMode = "numeric";
    promptInput.dataset.min = "1";
    promptInput.dataset.max = String(LIMITS.tokens);
    var generatedInput = optionalField("rank_generated", labels.rank_generated, speedFields);
    generatedInput.inputMode = "numeric";
    generatedInput.dataset.min = "2";
    generatedInput.dataset.max = String(LIMITS.tokens);
    var prices = html("details", undefined, "planner-rank-prices");
    prices.appendChild(html("summary", labels.rank_prices));
    var priceInputs = {};
    cardKeys.forEach(function (key) {
      var input = optionalField("price_" + key, cardName(key), prices);
      input.dataset.label = widget.fill(labels.rank_price_card, "card", cardName(key));
      input.dataset.price = String(LIMITS.price);
      priceInputs[key] = input;
    });
    speedFields.appendChild(prices);
    fieldset.appendChild(speedFields);
    var sort = html("select");
    sort.name = "rank_sort";
    sort.hidden = true;
    sort.setAttribute("aria-hidden", "true");
    sort.tabIndex = -1;
    SORTABLE.forEach(function (column) {
      ["ascending", "descending"].forEach(function (direction) {
        var option = html("option", column + " " + direction);
        option.value = column + ":" + direction;
        sort.appendChild(option);
      });
    });
    sort.value = "rank:ascending";
    fieldset.appendChild(sort);

    var section = html("section", undefined, "planner-rank");
    section.hidden = true;
    section.setAttribute("aria-labelledby", prefix + "-rank-caption");
    root.querySelector(".planner-results").appendChild(section);

    function cardName(key) {
      var option = form.elements.gpu.querySelector('option[value="' + key + '"]');
      return option ? option.textContent : key;
    }

    function gpuCounts(cfg, options) {
      if (options.task !== "inference") { return options.zeroStage > 0 ? GPU_COUNTS : [1]; }
      if (options.engine === "generate") { return [1]; }
      return GPU_COUNTS.filter(function (n) {
        if (n === 1) { return true; }
        try {
          P.parallelInferencePlans(cfg, { context: 1, batch: 1, weightFormat: options.weightFormat,
                                          kvFormat: options.kvFormat }, n, 1);
          return true;
        } catch (error) {
          if (refusedCount(error)) { return false; }
          throw error;
        }
      });
    }

    function fits(plan, budget) { return P.planTotal(plan) <= budget; }

    /* llmcalc.planner._smaller_that_fits: the largest value below the given one whose plan fits, or null. */
    function smaller(planned, setting, value, budget) {
      if (value <= 1) { return null; }
      var largest = P.largestFitting(function (n) { var c = {}; c[setting] = n; return planned(c); }, budget,
        value - 1);
      return largest ? { setting: setting.replace(/[A-Z]/g, function (c) { return "_" + c.toLowerCase(); }),
                         value: largest } : null;
    }

    /* llmcalc._search.least_card_above over the listed cards: the card with the least memory above the budget on
     * whose total fitsOn says the plan fits. */
    function cardThatFits(budget, fitsOn) {
      var larger = cardKeys.filter(function (key) { return BigInt(tables.cards[key]) > budget; })
        .sort(function (a, b) { return tables.cards[a] - tables.cards[b]; });
      var found = larger.filter(function (key) { return fitsOn(BigInt(tables.cards[key])); })[0];
      return found ? { setting: "gpu", value: found } : null;
    }

    /* The planner's near misses' card (least_card_above with the plan's fits): the next card up that holds it. */
    function cheapestCard(plan, budget) {
      return cardThatFits(budget, function (total) { return fits(plan, total); });
    }

    /* llmcalc.ranking._largest_true: the largest n in [low, high] for which holds(n), or null. */
    function largestTrue(holds, low, high) {
      if (high < low || !holds(low)) { return null; }
      return P.largestHolding(holds, high, low);
    }

    /* The first of llmcalc.ranking.vllm_changes_that_fit's changes, in its order: fewer requests, a shorter
     * max_model_len, an fp8 KV cache, a higher gpu_memory_utilization, a later weight format, more GPUs, a card. */
    function vllmChange(cfg, options, budget, wanted) {
      var context = Number(options.context);
      var planned = function (changed, total) {
        return P.planVllm(cfg, total === undefined ? budget : total, Object.assign({}, options, changed));
      };
      var holds = function (v, requests, length) { return v.mostRequests(length) >= BigInt(requests); };
      var current = planned({});
      var fewer = largestTrue(function (n) { return holds(current, n, context); }, 1, wanted - 1);
      if (fewer !== null) { return { setting: "concurrency", value: fewer }; }
      var shorter = largestTrue(function (n) { return holds(planned({ context: n }), wanted, n); }, 1, context - 1);
      if (shorter !== null) { return { setting: "context", value: shorter }; }
      if (options.kvFormat !== "fp8" && holds(planned({ kvFormat: "fp8" }), wanted, context)) {
        return { setting: "kv_format", value: "fp8" };
      }
      var start = Math.trunc(options.utilization * UTILIZATION_STEP);
      var missing = largestTrue(function (k) {
        return !holds(planned({ utilization: k / UTILIZATION_STEP }), wanted, context);
      }, Math.max(start, 1), UTILIZATION_STEP);
      if (missing !== null && missing < UTILIZATION_STEP) {
        return { setting: "gpu_memory_utilization", value: (missing + 1) / UTILIZATION_STEP };
      }
      var later = P.lighterWeightFormats(cfg, options.weightFormat);
      for (var i = 0; i < later.length; i += 1) {
        if (holds(planned({ weightFormat: later[i] }), wanted, context)) {
          return { setting: "weight_format", value: later[i] };
        }
      }
      var sizes;
      try {
        sizes = P.tensorParallelSizes(cfg);
      } catch (error) {
        if (!(error instanceof window.LLMModelConfig.LLMCalcError)) { throw error; }
        sizes = [];  // a model the planner does not split
      }
      var larger = sizes.filter(function (size) { return size > options.tensorParallel; });
      for (var j = 0; j < larger.length; j += 1) {
        if (holds(planned({ tensorParallel: larger[j] }), wanted, context)) {
          return { setting: "tensor_parallel", value: larger[j] };
        }
      }
      return cardThatFits(budget, function (total) { return holds(planned({}, total), wanted, context); });
    }

    /* The first of llmcalc.planner.inference_changes_that_fit's changes, in its order. */
    function inferenceChange(cfg, options, budget) {
      var planned = function (changed) { return widget.plan(cfg, Object.assign({}, options, changed)); };
      var found = smaller(planned, "batch", options.batch, budget) || smaller(planned, "context", options.context,
        budget);
      if (found) { return found; }
      if (options.engine === "sum" && options.kvFormat !== "fp8" && fits(planned({ kvFormat: "fp8" }), budget)) {
        return { setting: "kv_format", value: "fp8" };
      }
      var later = P.lighterWeightFormats(cfg, options.weightFormat);
      for (var i = 0; i < later.length; i += 1) {
        if (fits(planned({ weightFormat: later[i] }), budget)) { return { setting: "weight_format", value: later[i] }; }
      }
      if (options.engine === "sum") {
        for (var size = options.tensorParallel + 1; size <= Number(cfg.n_heads); size += 1) {
          var plan;
          try {
            plan = planned({ tensorParallel: size });
          } catch (error) {
            if (refusedCount(error)) { continue; }
            throw error;
          }
          if (fits(plan, budget)) { return { setting: "tensor_parallel", value: size }; }
        }
      }
      return cheapestCard(planned({}), budget);
    }

    /* The first of llmcalc.planner.training_changes_that_fit's changes, in its order. */
    function trainingChange(cfg, options, budget) {
      var planned = function (changed) { return widget.plan(cfg, Object.assign({}, options, changed)); };
      if (!options.checkpointing && fits(planned({ checkpointing: true }), budget)) {
        return { setting: "checkpointing", value: true };
      }
      var found = smaller(planned, "microBatch", options.microBatch, budget) ||
        smaller(planned, "seqLen", options.seqLen, budget);
      if (found) { return found; }
      if (options.optimizer === "adamw" && fits(planned({ optimizer: "adamw-8bit" }), budget)) {
        return { setting: "optimizer", value: "adamw-8bit" };
      }
      var tries = [];
      if (options.task === "lora") { tries.push([{ task: "qlora", qloraPreparation: "kbit" }, "task", "qlora"]); }
      for (var stage = options.zeroStage + 1; stage < 4 && options.nGpus > 1; stage += 1) {
        tries.push([{ zeroStage: stage }, "zero_stage", stage]);
      }
      for (var i = 0; i < tries.length; i += 1) {
        var plan;
        try {
          plan = planned(tries[i][0]);
        } catch (error) {
          if (error instanceof window.LLMModelConfig.LLMCalcError && error.code === "qlora_zero3_one_dtype") {
            continue;
          }
          throw error;
        }
        if (fits(plan, budget)) { return { setting: tries[i][1], value: tries[i][2] }; }
      }
      return cheapestCard(planned({}), budget);
    }

    /* One card and GPU count, as llmcalc.ranking.RankedPlan: the plan's verdict and what fits around it. */
    function row(cfg, options, key, gpus, wanted) {
      var budget = BigInt(tables.cards[key]);
      var inference = options.task === "inference";
      var own = Object.assign({}, options, inference ? { tensorParallel: gpus, pipelineParallel: 1 } : { nGpus: gpus });
      var result = { key: key, gpus: gpus, budget: budget, change: null, kvTokens: null };
      if (inference && options.engine === "vllm") {
        /* As llmcalc.ranking's vLLM rows: 0.34 keeps a larger margin on AMD's cards (ROCm). */
        own.rocm = Boolean(own.extensibleKvCache) && tables.card_totals[key].tool === "rocminfo";
        var v = P.planVllm(cfg, budget, own);
        var tokenBytes = v.block_bytes / v.block_size;
        var want = BigInt(wanted) * BigInt(options.context);
        result.fits = v.mostRequests(options.context) >= BigInt(wanted);
        result.headroom = (v.kv_tokens - want) * tokenBytes;
        var limit = BigInt(P.contextSearchLimit(cfg, options.beyondTrained));
        result.context = v.kv_tokens < limit ? v.kv_tokens : limit;
        result.batch = v.mostRequests(options.context);
        result.kvTokens = v.kv_tokens;
        if (!result.fits) { result.change = vllmChange(cfg, own, budget, wanted); }
        if (speedAsked) { result.speed = rowSpeed(cfg, options, result, wanted); }
        return result;
      }
      var planned = function (changed) { return widget.plan(cfg, Object.assign({}, own, changed)); };
      var total = P.planTotal(planned({}));
      result.fits = total <= budget;
      result.headroom = budget - total;
      result.context = BigInt(P.largestFitting(function (n) {
        return planned(inference ? { context: n } : { seqLen: n });
      }, budget, P.contextSearchLimit(cfg, inference && options.beyondTrained)));
      result.batch = BigInt(P.largestFitting(function (n) {
        return planned(inference ? { batch: n } : { microBatch: n });
      }, budget, P.limits().max_batch));
      if (!result.fits) {
        result.change = inference ? inferenceChange(cfg, own, budget) : trainingChange(cfg, own, budget);
      }
      return result;
    }

    /* The split and the prices the reader gave: {split: [prompt, generated] or null, prices, error}, as
     * llmcalc.ranking._split and _checked_prices check them (an error names the field and the value). */
    var speedAsked = null;
    function readSpeed(context) {
      var read = { split: null, prices: {}, error: "" };
      var counts = [promptInput, generatedInput].map(function (input) {
        var text = input.value.trim();
        if (text === "") { return null; }
        var value = /^[0-9]+$/.test(text) ? Number(text) : NaN;
        if (!(value >= Number(input.dataset.min) && value <= Number(input.dataset.max))) {
          read.error = read.error || widget.fill(widget.fill(widget.fill(widget.fill(labels.rank_bad_tokens, "label",
            input.dataset.label), "min", format.count(input.dataset.min)), "max", format.count(input.dataset.max)),
            "value", text);
        }
        return value;
      });
      cardKeys.forEach(function (key) {
        var text = priceInputs[key].value.trim();
        var price = window.LLMSpeedFormat.price(text, LIMITS.price);
        if (price === undefined) { return; }
        if (price === null || !(price > 0)) {
          read.error = read.error || widget.fill(widget.fill(widget.fill(labels.rank_bad_price, "card", cardName(key)),
            "max", format.count(LIMITS.price)), "value", text);
          return;
        }
        read.prices[key] = price;
      });
      if (read.error) { return read; }
      if ((counts[0] === null) !== (counts[1] === null)) {
        read.error = labels.rank_split_incomplete;
      } else if (counts[0] !== null && counts[0] + counts[1] > context) {
        read.error = widget.fill(widget.fill(widget.fill(widget.fill(labels.rank_split_past_context, "prompt",
          format.count(counts[0])), "generated", format.count(counts[1])), "total",
          format.count(counts[0] + counts[1])), "context", format.count(context));
      } else if (counts[0] !== null) {
        read.split = counts;
      } else if (Object.keys(read.prices).length) {
        read.error = labels.rank_price_needs_speed;
      }
      return read;
    }

    function refused(code, params) { return { refusal: new window.LLMModelConfig.LLMCalcError(code, params) }; }

    /* llmcalc.ranking._vllm_speed: the row's estimate (llmcalc.vllmspeed.estimate_vllm_speed of the requests on
     * its card with its pool, vllmspeed.js's arithmetic), or the refusal that says why there is none. */
    function rowSpeed(cfg, options, item, wanted) {
      var prompt = speedAsked.split[0];
      var generated = speedAsked.split[1];
      var price = speedAsked.prices[item.key];
      var found = (function () {
        if (item.gpus > 1) { return refused("vllm_speed_tensor_parallel", { gpus: item.gpus }); }
        if (!item.fits) { return refused("ranking_speed_does_not_fit", {}); }
        if (options.weightFormat !== "bf16") {
          return refused("vllm_speed_format_unmeasured", { weight_format: options.weightFormat });
        }
        if (options.kvFormat !== "bf16" && options.kvFormat !== "fp16") {
          return refused("vllm_speed_kv_format_unmeasured", { kv_format: options.kvFormat });
        }
        var card = speedData.refused[item.key];
        if (card) {
          return card.footnote ? { footnote: labels[card.footnote], code: card.code } : refused(card.code, card.params);
        }
        if (cfg.n_experts > 1n || cfg.sliding_window_layers > 0n) {  // llmcalc: cfg.is_moe or a window
          /* As the CLI prints it, the type bare (the widget puts a model_type parameter between quotation marks). */
          return refused("vllm_speed_model_unmeasured", { model: cfg.model_type || "custom" });
        }
        var limit = P.tokenLimit(cfg);
        if (Number(options.context) > limit) {
          return refused("vllm_speed_context_too_long", { context: Number(options.context), limit: limit });
        }
        var pool = Number(item.kvTokens);
        if (wanted * (prompt + generated) > pool) {
          return refused("vllm_speed_preempted", { hardware: item.key, pool: pool, context: prompt + generated,
                                                   fits: Math.floor(pool / (prompt + generated)), batch: wanted });
        }
        var matmul = window.LLMPlannerFlops.matmulParams(cfg);
        var model = { weights: Number(2n * matmul), kv: Number(P.kvCacheBytes(cfg, 1, 1, "fp16")),
                      matmul: Number(matmul), layers: Number(cfg.n_layers), width: Number(cfg.n_heads * cfg.head_dim) };
        var batched = options.maxNumBatchedTokens === undefined || options.maxNumBatchedTokens === null
          ? speedData.batched_tokens : Number(options.maxNumBatchedTokens);
        var steps = window.LLMVllmSpeed.estimate(Object.assign({}, speedData, { batched_tokens: batched }), model,
          speedData.hardware[item.key], item.key, wanted, prompt, generated);
        return { aggregate: wanted / steps.stepSeconds, each: 1 / steps.stepSeconds, first: steps.prefill,
                 notes: steps.notes };
      })();
      found.price = price === undefined ? null : price;
      /* llmcalc.speed.cost_per_million_tokens: the price times the GPUs, over the output tokens an hour. */
      found.cost = found.aggregate === undefined || found.price === null ? null
        : found.price * item.gpus / 3600 / found.aggregate * 1000000;
      return found;
    }

    /* llmcalc.ranking.rank_cards: fits first, then the fewest GPUs, then the least memory, then the list's order. */
    function rank(cfg, options, wanted) {
      if (options.task === "inference" && options.engine === "vllm") { P.checkVllmCard(cfg, "all"); }
      var rows = [];
      gpuCounts(cfg, options).forEach(function (gpus) {
        cardKeys.forEach(function (key) { rows.push(row(cfg, options, key, gpus, wanted)); });
      });
      var compare = function (a, b) { return a < b ? -1 : a > b ? 1 : 0; };
      rows.sort(function (a, b) {
        return compare(a.fits ? 0 : 1, b.fits ? 0 : 1) || compare(a.gpus, b.gpus) ||
          compare(BigInt(a.gpus) * a.budget, BigInt(b.gpus) * b.budget) ||
          compare(cardKeys.indexOf(a.key), cardKeys.indexOf(b.key));
      });
      rows.forEach(function (item, index) { item.rank = index + 1; });
      return rows;
    }

    /* A change in the form's own words: the field's label and the value as the form shows it, set apart as the
     * page's setting_value says (a colon and a space in English, a full-width colon in zh_TW). */
    function changeText(change) {
      if (!change) { return ""; }
      if (change.setting === "gpu") { return cardName(change.value); }
      var field = form.elements[FIELDS[change.setting]];
      var element = field.length && field.tagName !== "SELECT" ? Array.prototype.filter.call(field, function (radio) {
        return radio.value === change.value;
      })[0] : field;
      var label = form.querySelector('label[for="' + element.id + '"]');
      var name = label ? label.textContent.trim() : element.dataset.label;
      if (change.value === true || element.type === "radio") { return name; }
      if (change.setting === "gpu_memory_utilization") {  // the field is a percentage
        return format.setting(name, format.count(Math.round(change.value * UTILIZATION_STEP)));
      }
      if (element.tagName === "SELECT") {
        var option = element.querySelector('option[value="' + change.value + '"]');
        return format.setting(name, option ? option.textContent : String(change.value));
      }
      return format.setting(name, format.count(change.value));
    }

    function sortKey(item, column) {
      if (column === "card") { return cardKeys.indexOf(item.key); }
      if (SPEED_COLUMNS.indexOf(column) >= 0 || column === "cost") {
        return item.speed && item.speed[column] !== undefined && item.speed[column] !== null ? item.speed[column]
          : null;
      }
      return { rank: item.rank, gpus: item.gpus, headroom: item.headroom, context: item.context,
               batch: item.batch }[column];
    }

    function sortRows(rows) {
      var parts = sort.value.split(":");
      var sign = parts[1] === "descending" ? -1 : 1;
      return rows.slice().sort(function (a, b) {
        var x = sortKey(a, parts[0]);
        var y = sortKey(b, parts[0]);
        /* As llmcalc.ranking.sorted_by_cost: the rows without the figure after the others, in the ranking's order. */
        if (x === null || y === null) { return (x === null ? 1 : 0) - (y === null ? 1 : 0) || a.rank - b.rank; }
        return sign * (x < y ? -1 : x > y ? 1 : 0) || a.rank - b.rank;
      });
    }

    function chooseSort(column) {
      var parts = sort.value.split(":");
      sort.value = column + ":" + (parts[0] === column && parts[1] === "ascending" ? "descending" : "ascending");
      sort.dispatchEvent(new Event("input", { bubbles: true }));
      var button = section.querySelector('th[data-column="' + column + '"] button');
      if (button) { button.focus(); }
    }

    function draw(rows, options, read) {
      section.textContent = "";
      var priced = read.split !== null && Object.keys(read.prices).length > 0;
      var columns = COLUMNS.concat(read.split ? SPEED_COLUMNS : [], priced ? ["cost"] : []);
      var caption = html("p", labels.rank_caption, "planner-rank-caption");
      caption.id = prefix + "-rank-caption";
      section.appendChild(caption);
      var wrap = html("div", undefined, "planner-rank-scroll");
      wrap.tabIndex = 0;
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-labelledby", caption.id);
      var grid = html("table", undefined, "calc-table planner-rank-table");
      var parts = sort.value.split(":");
      var head = grid.createTHead().insertRow();
      var batchLabel = options.task !== "inference" ? labels.rank_col_micro_batch
        : options.engine === "vllm" ? labels.rank_col_requests : labels.rank_col_batch;
      columns.forEach(function (column) {
        var text = column === "batch" ? batchLabel : labels["rank_col_" + column];
        var cell = html("th");
        cell.scope = "col";
        cell.dataset.column = column;
        if (SORTABLE.indexOf(column) >= 0) {
          cell.setAttribute("aria-sort", parts[0] === column ? parts[1] : "none");
          var button = html("button", text, "planner-rank-sort");
          button.type = "button";
          button.addEventListener("click", function () { chooseSort(column); });
          cell.appendChild(button);
        } else {
          cell.textContent = text;
        }
        head.appendChild(cell);
      });
      var body = grid.createTBody();
      var reasons = [];  // each refusal's text once, numbered in the order the table shows them (speed_table's)
      var notes = {};  // each note's cards, in the table's order
      var fixed = window.LLMSpeedFormat.fixed;
      sortRows(rows).forEach(function (item) {
        var line = body.insertRow();
        line.dataset.card = item.key;
        line.dataset.gpus = String(item.gpus);
        line.dataset.fits = String(item.fits);
        line.dataset.headroom = item.headroom.toString();
        line.dataset.largestContext = item.context.toString();
        line.dataset.largestBatch = item.batch.toString();
        line.dataset.change = flag(item.change);
        line.dataset.estimated = String(tables.card_totals[item.key].estimated);
        line.insertCell().textContent = format.count(item.rank);
        var name = html("th", cardName(item.key) + (tables.card_totals[item.key].estimated ? " *" : ""));
        name.scope = "row";
        line.appendChild(name);
        line.insertCell().textContent = format.count(item.gpus);
        var verdict = line.insertCell();
        verdict.textContent = item.fits ? labels.rank_fits : labels.rank_no_fit;
        verdict.className = item.fits ? "planner-fits" : "planner-no-fit";
        line.insertCell().textContent = format.gib(item.headroom);
        line.insertCell().textContent = format.count(item.context);
        line.insertCell().textContent = format.count(item.batch);
        line.insertCell().textContent = changeText(item.change);
        if (!item.speed) { return; }
        var speed = item.speed;
        if (speed.aggregate === undefined) {
          var reason = speed.footnote || widget.describe(speed.refusal);
          if (reasons.indexOf(reason) < 0) { reasons.push(reason); }
          line.dataset.refusal = speed.code || speed.refusal.code;
          line.insertCell().textContent = widget.fill(labels.rank_na_mark, "number",
            format.count(reasons.indexOf(reason) + 1));
          line.insertCell().textContent = labels.rank_na;
          line.insertCell().textContent = labels.rank_na;
          if (priced) { line.insertCell().textContent = labels.rank_na; }
          return;
        }
        line.dataset.aggregate = String(speed.aggregate);
        line.dataset.each = String(speed.each);
        line.dataset.first = String(speed.first);
        line.dataset.cost = speed.cost === null ? "" : String(speed.cost);
        line.insertCell().textContent = fixed(speed.aggregate, 1);
        line.insertCell().textContent = fixed(speed.each, 1);
        line.insertCell().textContent = fixed(speed.first * 1000, 0);
        if (priced) {
          line.insertCell().textContent = speed.cost === null ? labels.rank_no_price : fixed(speed.cost, 2);
        }
        speed.notes.forEach(function (note) { (notes[note] = notes[note] || []).push(item.key); });
      });
      wrap.appendChild(grid);
      section.appendChild(wrap);
      section.appendChild(html("p", widget.fill(labels.rank_totals_note, "margin",
        format.count(tables.process_estimate_mib)), "planner-note"));
      if (options.task !== "inference" || options.engine !== "vllm") { return; }
      if (!read.split) {
        section.appendChild(html("p", labels.rank_memory_only, "planner-note"));
        return;
      }
      var list = html("ul", undefined, "planner-rank-notes");
      reasons.forEach(function (reason, index) {
        list.appendChild(html("li", widget.fill(widget.fill(labels.rank_no_speed, "number", format.count(index + 1)),
          "reason", reason)));
      });
      Object.keys(notes).forEach(function (note) {
        list.appendChild(html("li", widget.fill(widget.fill(labels.rank_card_note, "cards", notes[note].join(", ")),
          "note", labels["rank_note_" + note])));
      });
      if (list.childNodes.length) { section.appendChild(list); }
      var signed = function (x) { return (x >= 0 ? "+" : "") + (x * 100).toFixed(0); };
      var basis = labels.rank_speed_basis;
      [["requests", format.count(Number(requests.value))], ["prompt", format.count(read.split[0])],
       ["generated", format.count(read.split[1])], ["error", (speedData.error * 100).toFixed(1)],
       ["runs", format.count(speedData.runs)], ["independent", format.count(speedData.independent.runs)],
       ["low", signed(speedData.independent.low)], ["high", signed(speedData.independent.high)]]
        .forEach(function (pair) { basis = widget.fill(basis, pair[0], pair[1]); });
      section.appendChild(html("p", basis, "planner-note"));
    }

    return function planned(result) {
      var vllm = result && result.options.task === "inference" && result.options.engine === "vllm";
      requestsField.hidden = !check.checked || !vllm;
      speedFields.hidden = !check.checked || !vllm;
      section.hidden = !check.checked || !result;
      if (section.hidden) { section.textContent = ""; return; }
      var wanted = Number(requests.value);
      if (!(Number.isInteger(wanted) && wanted >= 1 && wanted <= tables.limits.max_batch)) { wanted = 1; }
      var read = vllm ? readSpeed(Number(result.options.context)) : { split: null, prices: {}, error: "" };
      speedAsked = read.split ? read : null;
      var rows;
      try {
        rows = rank(result.cfg, result.options, vllm ? wanted : 1);
      } catch (/** @type {any} */ error) {
        if (error.code !== "vllm_mxfp4_card_unchecked") { throw error; }
        /* As llmcalc.ranking.rank_cards: gpt-oss with vLLM is planned on one Hopper card at a time. */
        section.textContent = "";
        section.appendChild(html("p", labels.rank_mxfp4_refused, "planner-note"));
        return;
      }
      draw(rows, result.options, read);
      if (read.error) {
        var error = html("p", read.error, "calc-error");
        error.setAttribute("role", "alert");
        section.insertBefore(error, section.firstChild.nextSibling);
      }
    };
  }

  window.LLMPlannerExtensions = (window.LLMPlannerExtensions || []).concat([make]);
})();
