/* "Will it fit?": the GPU memory planner's widget, offline, no framework.
 *
 * The markup comes from llmglossary/templates/calculators/planner.html, rendered by
 * docs/_ext/llmglossary/calculators/; model configs are read by modelconfig.js (window.LLMModelConfig) and every
 * number is planned by planner.js (window.LLMPlanner, llmcalc's formulas), which load before this file, as do the
 * extensions it makes (window.LLMPlannerExtensions).  This file reads the form, words llmcalc's refusals in the
 * page's language and writes the plan.
 * What a reader types or loads is data: written with textContent, never as HTML.
 */
(function () {
  "use strict";

  var MC = window.LLMModelConfig;
  var calc = window.LLMPlanner;
  var GIB = 1073741824n;

  function formatter(/** @type {HTMLElement} */ root) {
    var lang = document.documentElement.lang || "en";
    function count(value) { return BigInt(value).toLocaleString(lang); }
    function gib(bytes) {
      return (Number(bytes) / Number(GIB)).toLocaleString(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    var paren = /^zh/i.test(lang) ? ["（", "）"] : [" (", ")"];  /* zh_TW sets a note in full-width parentheses */
    /* The page's separators, language data in its labels list_join and sentence_join ("{first}, {next}" and
     * "{first} {next}"; zh_TW 「、」 and nothing after 。): what stands between the two placeholders joins the items. */
    function joiner(/** @type {string} */ template) {
      var between = template.split(/\{(?:first|next)\}/)[1];
      return function (/** @type {string[]} */ items) { return items.join(between); };
    }
    function aside(/** @type {string} */ text) { return paren[0] + text + paren[1]; }
    /* A name and its value ("{label}: {value}"; zh_TW 「{label}：{value}」), and such pairs joined by pair_join. */
    function setting(/** @type {string} */ label, /** @type {string} */ value) {
      return (root.dataset.settingValue || "").replace(/\{(label|value)\}/g, function (_, name) {
        return name === "label" ? label : value;
      });
    }
    return { count: count, gib: gib, bytes: function (value) { return gib(value) + " GiB" + aside(count(value) + " B"); },
             aside: aside, setting: setting, list: joiner(root.dataset.listJoin || ""),
             sentences: joiner(root.dataset.sentenceJoin || ""), pairs: joiner(root.dataset.pairJoin || "") };
  }

  function fill(template, name, value) { return template.split("{" + name + "}").join(value); }

  /* Text followed by the space that separates it from what comes next, unless full-width punctuation on either
   * side already does (zh_TW: "上下文：" before a number, "（" before a note). */
  var FULL_WIDTH = /[\u3000-\u303f\uff00-\uffef]/;
  function spacedBefore(text, next) {
    return FULL_WIDTH.test(text.slice(-1)) || FULL_WIDTH.test(next.charAt(0)) ? text : text + " ";
  }

  /* A whole number in the input's [min, max], or the page's translated message naming the field and range. */
  function readInteger(root, name, format) {
    var input = root.querySelector('[name="' + name + '"]');
    var text = input.value.trim();
    var value = Number(text);
    var min = Number(input.min);
    var max = Number(input.max);
    var bad = !/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max;
    input.setAttribute("aria-invalid", bad ? "true" : "false");
    if (bad) {
      var message = root.dataset.errorTemplate;
      message = fill(fill(fill(message, "label", input.dataset.label), "min", format.count(min)), "max", format.count(max));
      throw new PlannerInputError(message);
    }
    return value;
  }

  /* The GPU memory field: gpuMemory's bytes, or the page's translated message naming the value and the range. */
  function readMemory(root) {
    var input = root.querySelector('[name="gpu_gib"]');
    var size = calc.gpuMemory(input.value);
    input.setAttribute("aria-invalid", size === null ? "true" : "false");
    if (size === null) {
      throw new PlannerInputError(fill(fill(root.dataset.memoryError, "label", input.dataset.label), "value",
        input.value.trim()));
    }
    return size;
  }

  /* The LoRA dropout field: a decimal number in [0, 1), or the page's translated message naming the field. */
  function readDropout(root) {
    var input = root.querySelector('[name="lora_dropout"]');
    var text = input.value.trim();
    var value = Number(text);
    var bad = !/^(?:0|0?\.[0-9]+|0\.)$/.test(text) || !(value >= 0 && value < 1);
    input.setAttribute("aria-invalid", bad ? "true" : "false");
    if (bad) {
      throw new PlannerInputError(fill(fill(root.dataset.dropoutError, "label", input.dataset.label), "value", text));
    }
    return value;
  }

  /* A memory in GiB as vLLM prints it (outside PyTorch, in use at start-up): a decimal number from 0 to the card's. */
  function readGib(root, name, cardBytes) {
    var input = root.querySelector('[name="' + name + '"]');
    var text = input.value.trim();
    var cardGib = Number(cardBytes) / 1073741824;
    var bad = !/^[0-9]+(?:\.[0-9]+)?$/.test(text) || Number(text) > cardGib;
    input.setAttribute("aria-invalid", bad ? "true" : "false");
    if (bad) {
      throw new PlannerInputError(fill(fill(fill(root.dataset.nonTorchError, "label", input.dataset.label), "value",
        text), "max", cardGib.toLocaleString(document.documentElement.lang || "en", { maximumFractionDigits: 2 })));
    }
    return Math.round(Number(text) * 1073741824);
  }

  class PlannerInputError { constructor(/** @type {string} */ message) { this.message = message; } }

  /* A value named in a refusal: a value from the file as JSON wrote it, a limit grouped in the page's language. */
  function shown(value, format, asWritten) {
    if (typeof value === "bigint") { return asWritten ? value.toString() : format.count(value); }
    if (Array.isArray(value)) {
      return "[" + value.map(function (item) { return shown(item, format, asWritten); }).join(", ") + "]";
    }
    if (value instanceof Map) {
      return "{" + Array.from(value, function (entry) {
        return JSON.stringify(entry[0]) + ": " + shown(entry[1], format, asWritten);
      }).join(", ") + "}";
    }
    if (typeof value === "number" && !Number.isFinite(value)) { return String(value); }
    /* A float that holds a whole number, as the file wrote it (4096.0): the reason it was refused. */
    if (typeof value === "number" && Number.isInteger(value)) {
      return asWritten && !/e/.test(String(value)) ? value + ".0" : format.count(value);
    }
    return JSON.stringify(value === undefined ? null : value);
  }

  /* An llmcalc refusal in the page's language: its code's template from the widget's catalogue, the parameters
   * filled in.  Names (config keys, model types, module names) are shown as they are; English never is. */
  function describe(error, catalogue, format) {
    if (!(error instanceof MC.LLMCalcError)) { throw error; }  // a defect, not a refusal: let it surface
    var params = error.params;
    var text = catalogue["refusal_" + error.code];
    var extra = {
      multimodal: params.multimodal ? catalogue.hint_multimodal : "",
      fused: params.fused_into ? fill(catalogue.hint_fused, "fused_into", params.fused_into) : "",
      where: params.line ? fill(fill(catalogue.json_where, "line", format.count(params.line)), "column",
        format.count(params.column)) : "",
    };
    Object.keys(extra).forEach(function (name) { text = fill(text, name, extra[name]); });
    /* A quantization_config refusal whose accepted values are a description: in the page's words. */
    if (params.accepted_id) { text = fill(text, "accepted", catalogue["accepted_" + params.accepted_id]); }
    Object.keys(params).forEach(function (name) {
      var value = params[name];
      var names = name !== "value" && Array.isArray(value) &&
        value.every(function (item) { return typeof item === "string"; });
      var plain = typeof value === "string" && !/^(value|alias_value|model_type)$/.test(name);
      var asWritten = /value$/.test(name);
      /* A setting's yes or no, and a model type between the page's quotation marks (its text as JSON writes it). */
      text = fill(text, name, value === null && /^(value|model_type)$/.test(name) ? catalogue.missing
        : names ? format.list(value) : plain ? value
        : typeof value === "boolean" && !asWritten ? catalogue[value ? "flag_true" : "flag_false"]
        : name === "model_type" && typeof value === "string"
          ? fill(catalogue.quoted_name, "name", JSON.stringify(value).slice(1, -1))
        : shown(value, format, asWritten));
    });
    /* A hint left empty leaves a space before a punctuation mark, or two: tidied. */
    text = text.replace(/ {2,}/g, " ").replace(/ ([;.,)])/g, "$1");
    return params.config ? fill(fill(catalogue.config_prefix, "config", params.config), "detail", text) : text;
  }

  function setup(root) {
    var TABLES = calc.tables();
    var LIMITS = calc.limits();
    var PARTS = TABLES.plan_parts;
    var format = formatter(root);
    var catalogue = JSON.parse(root.dataset.refusals);
    var presets = JSON.parse(root.dataset.presets);
    var form = root.querySelector("form");
    var out = {};
    root.querySelectorAll("[data-out]").forEach(function (node) { out[node.dataset.out] = node; });
    var segments = {};
    root.querySelectorAll("[data-segment]").forEach(function (node) { segments[node.dataset.segment] = node; });
    var configError = root.querySelector('[data-error="config"]');
    var planError = root.querySelector('[data-error="plan"]');
    var preset = form.elements.preset;
    var gpu = form.elements.gpu;
    var gib = form.elements.gpu_gib;
    var ownConfig = null;
    var ownFormat = null;  // how the loaded config.json's quantization_config stores the weights, or null
    var ownQuantization = null;  // that quantization_config as read, for the share link
    var ownSource = null;  // [text, name] of the last config loaded, to name its error again

    var status = out.status;  // announced to screen readers when a value is committed, not on every keystroke
    var bar = root.querySelector(".planner-bar");

    /* llmcalc's range errors name their parameter; those that are a field of the form are shown at that field. */
    var FIELD_OF = { context: "context", batch: "batch", seq_len: "seq_len", micro_batch: "micro_batch",
                     n_gpus: "n_gpus", lora_rank: "rank", max_model_len: "context", prompt: "context",
                     max_num_batched_tokens: "max_num_batched_tokens", tensor_parallel: "tensor_parallel",
                     max_num_seqs: "max_num_seqs", non_torch_bytes: "non_torch_gib", startup_used_bytes: "startup_used_gib",
                     pipeline_parallel: "pipeline_parallel" };

    function fieldError(name, message) {
      var input = form.elements[name];
      var id = input.id + "-error";
      var box = document.getElementById(id);
      if (!box && message) {
        box = document.createElement("p");
        box.id = id;
        box.className = "calc-error planner-field-error";
        input.parentNode.appendChild(box);
        input.setAttribute("aria-describedby", id);
      }
      if (box) { say(box, message); }
      if (message) { input.setAttribute("aria-invalid", "true"); }
    }

    function clearFieldErrors() {
      root.querySelectorAll(".planner-field-error").forEach(function (box) { say(box, ""); });
    }

    function say(box, message) {
      box.textContent = message;
      box.hidden = !message;
    }

    function task() { return form.querySelector('input[name="task"]:checked').value; }

    function model() {
      if (preset.value !== "config") { return MC.modelConfig(presets[preset.value]); }
      if (!ownSource) { throw new PlannerInputError(catalogue.no_config); }
      return ownConfig || MC.checkpointFromHf(MC.parseConfigText(ownSource[0], ownSource[1])).config;
    }

    /* A loaded config.json's own weight format (its quantization_config), which the format list then gives way to. */
    function storedFormat() { return preset.value === "config" && ownConfig ? ownFormat : null; }

    /* As the CLI's note: how a quantized format stores the weights, and the linear layers it keeps in 16 bits. */
    function weightsNote(cfg, options) {
      if (options.task !== "inference" || options.weightFormat === "bf16") { return ""; }
      var kept = calc.keptLinearModules(cfg, options.weightFormat).map(function (entry) {
        return entry[1] === entry[2] ? entry[0] : fill(fill(fill(root.dataset.keptSome, "module", entry[0]), "kept",
          format.count(entry[1])), "all", format.count(entry[2]));
      });
      var how = calc.isCheckpoint(options.weightFormat)
        ? fill(root.dataset.weightsCheckpoint, "method", options.weightFormat.method)
        : fill(root.dataset.weightsFormat, "format", options.weightFormat);
      return fill(fill(root.dataset.weightsNote, "how", how), "kept", kept.length ? fill(root.dataset.keptList, "modules", format.list(kept)) : "");
    }

    function clearResults() {
      PARTS.concat(["total"]).forEach(function (part) {
        out[part].textContent = "—";
        out[part + "-gib"].textContent = "—";
        if (segments[part]) { segments[part].style.width = "0"; }
      });
      out.verdict.textContent = "—";
      out.largest.textContent = "—";
      say(out.note, "");
      say(out["engine-note"], "");
      say(out["gpu-total"], "");
      bar.setAttribute("aria-label", root.dataset.totalLabel);
    }

    function showModel(cfg) {
      out.params.textContent = format.count(MC.paramCount(cfg));
      out.active.textContent = format.count(MC.activeParamCount(cfg));
      out.active.parentNode.hidden = cfg.n_experts <= 1;
    }

    /* As the CLI: the sequence length and context default to 2,048 and 4,096 tokens, never past the positions the
     * model was trained on (llmcalc.planner.default_tokens).  When another model is chosen, a field at a default (the
     * page's, or the one the last model got) follows it; a value the reader typed is kept.  True when one changed. */
    var defaultedTokens = { seq_len: "", context: "" };
    var defaultsModel = null;
    function followModelDefaults(cfg) {
      var chosen = preset.value === "config" ? ownSource : preset.value;
      if (chosen === defaultsModel) { return false; }
      defaultsModel = chosen;
      var changed = false;
      [["seq_len", TABLES.lora_defaults.seq_len], ["context", TABLES.lora_defaults.context]].forEach(function (pair) {
        var input = form.elements[pair[0]];
        if (input.value !== defaultedTokens[pair[0]] && input.value !== String(pair[1])) { return; }
        var value = String(calc.defaultTokens(cfg, pair[1]));
        changed = changed || value !== input.value;
        input.value = value;
        defaultedTokens[pair[0]] = value;
      });
      return changed;
    }

    function readOptions(kind, cfg) {
      var options = { task: kind };
      var stored = storedFormat();
      /* llmcalc.checkpoints.is_qlora_base: a checkpoint stored as QLoRA loads its base gets the QLoRA plan. */
      var qloraBase = stored && stored.codes === "bnb-nf4-dq" && stored.skip.join() === "lm_head,embed_out";
      if (kind !== "inference" && stored && !(kind === "qlora" && qloraBase)) {
        throw new MC.LLMCalcError("quantized_training", { method: stored.method });
      }
      if (kind === "inference") {
        options.weightFormat = stored || form.elements.weight_format.value;
        options.kvFormat = form.elements.kv_format.value;
        options.context = readInteger(root, "context", format);
        options.batch = readInteger(root, "batch", format);
        options.beyondTrained = form.elements.beyond_trained.checked;
        options.engine = form.elements.engine.value;
        if (options.engine === "generate") { options.attention = form.elements.attention.value; }
        if (options.engine !== "generate") { options.tensorParallel = readInteger(root, "tensor_parallel", format); }
        if (options.engine === "sum") { options.pipelineParallel = readInteger(root, "pipeline_parallel", format); }
        if (options.engine === "vllm") {
          options.vllmVersion = form.elements.vllm_version.value;
          options.utilization = readInteger(root, "gpu_memory_utilization", format) / 100;
          options.maxNumBatchedTokens = readInteger(root, "max_num_batched_tokens", format);
          options.maxNumSeqs = readInteger(root, "max_num_seqs", format);
          /* As the CLI: before 0.20 vLLM captures its graphs outside the pool, so none are taken from it. */
          options.cudaGraphBytes = options.vllmVersion !== "before-0.20"
            ? readInteger(root, "cuda_graphs_mib", format) * 1048576 : 0;
          /* As the CLI (llmcalc.engines.vllm_release_settings): 0.20 and later size windowed layers with the hybrid
           * KV-cache manager; 0.34 sizes the pool with its extensible KV cache. */
          options.hybridKvCache = options.vllmVersion !== "before-0.20";
          options.extensibleKvCache = options.vllmVersion === "0.34+";
          /* As the CLI's --sampler-filter: its own choice, which the release sets when chosen (useRelease). */
          options.samplerFilter = form.elements.sampler_filter.value;
        }
        return options;
      }
      options.optimizer = form.elements.optimizer.value;
      options.microBatch = readInteger(root, "micro_batch", format);
      options.seqLen = readInteger(root, "seq_len", format);
      options.checkpointing = form.elements.checkpointing.checked;
      options.zeroStage = Number(form.elements.zero_stage.value);
      options.nGpus = readInteger(root, "n_gpus", format);
      if (kind === "full") {
        options.precision = form.elements.precision.value;
      } else {
        options.rank = readInteger(root, "rank", format);
        /* "default" is peft's own choice for the model (llmcalc.lora.default_lora_targets), as the CLI's. */
        var targets = form.elements.targets.value;
        options.targets = targets === "all-linear" ? targets
          : targets === "default" ? calc.defaultLoraTargets(cfg) : targets.split(",");
        options.loraDropout = readDropout(root);
        options.adapterDtype = form.elements.adapter_dtype.value;
        options.setup = form.elements.setup.value;
        if (kind === "qlora") { options.qloraPreparation = form.elements.qlora_preparation.value; }
      }
      return options;
    }

    function plan(cfg, options) {
      if (options.task === "inference" && options.engine === "generate") { return calc.planGenerate(cfg, options); }
      if (options.task === "inference") { return calc.planInference(cfg, options); }
      var trained = calc.planTraining(cfg, options);
      calc.checkSetupCovers(cfg, options);
      return trained;
    }

    /* vLLM's start-up pool in the table's rows: the weights, the profiled peak (activations), the memory outside
     * torch (reserve) and the pool (KV cache), against the share of the card vLLM plans with. */
    function renderVllm(cfg, options, budget) {
      /* As the CLI's --non-torch-gib: a number of GiB from 0 to the card's total. */
      options.nonTorchBytes = readGib(root, "non_torch_gib", budget);
      /* As the CLI's --startup-used-gib (0.34 only), and its ROCm margin on AMD's listed cards. */
      options.startupUsedBytes = options.extensibleKvCache ? readGib(root, "startup_used_gib", budget) : 0;
      var listed = TABLES.card_totals[form.elements.gpu.value];
      options.rocm = Boolean(options.extensibleKvCache && listed && listed.tool === "rocminfo");
      /* As the CLI: gpt-oss on a listed card whose MXFP4 backend is not the one modelled is refused. */
      if (Object.prototype.hasOwnProperty.call(TABLES.cards, form.elements.gpu.value)) {
        calc.checkVllmCard(cfg, form.elements.gpu.value);
      }
      var result = calc.planVllm(cfg, budget, options);
      var shown = calc.memoryPlan(result.weights, result.blocks * result.block_bytes, 0n, 0n, result.profile_peak);
      /* 0.34 keeps the graphs' estimate free a second time (the CLI's cuda_graphs_kept_again). */
      shown.reserve = result.non_torch + result.kept_graphs;
      var limit = calc.contextSearchLimit(cfg, options.beyondTrained);
      var longest = result.longestModelLen(limit);
      var verdict = fill(fill(fill(result.starts ? root.dataset.vllmStarts : root.dataset.vllmNoStart, "tokens",
        format.count(result.kv_tokens)), "context", format.count(options.context)), "concurrency",
        result.max_concurrency.toLocaleString(document.documentElement.lang || "en",
          { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
      /* As the CLI's notes: before 0.20 the graphs are outside the pool; from 0.20 they come out of it, and no shape
       * tells their size. */
      var graphsNote = options.vllmVersion === "before-0.20" ? root.dataset.vllmBeforeNote
        : options.cudaGraphBytes !== 0 ? "" : result.extensible ? root.dataset.vllmGraphsTwiceNote
          : root.dataset.vllmGraphsNote;
      /* As the CLI's notes on 0.34: what it keeps free and does not model, and the memory in use at start-up. */
      var extensibleNotes = !result.extensible ? [] : [
        fill(root.dataset.vllmExtensibleNote, "margin", format.gib(result.margin)),
        options.startupUsedBytes === 0 ? root.dataset.vllmStartupNote : ""];
      render(shown, result.budget, cfg, options, [verdict, result.starts,
        [root.dataset.largestMaxModelLen, longest, ""], format.sentences([vllmLayersNote(cfg, result)]
          .concat(extensibleNotes, [graphsNote]).filter(Boolean))]);
    }

    /* llmcalc.engines.vllm_layers_note, in the page's words: how windowed layers and experts were counted. */
    function vllmLayersNote(cfg, result) {
      var notes = [];
      var windowed = cfg.sliding_window > 0 ? BigInt(cfg.sliding_window_layers) : 0n;
      var layerWords = function (template) {
        return fill(fill(fill(template, "windowed", format.count(windowed)), "layers", format.count(cfg.n_layers)),
                    "window", format.count(cfg.sliding_window));
      };
      if (windowed > 0n && result.window_groups > 0n) {
        notes.push(fill(fill(fill(layerWords(root.dataset.vllmWindowHybridNote), "span", format.count(result.window_span)),
          "blocks", format.count(result.blocks_per_request)),
          "full", format.count(calc.ceilDiv(result.max_model_len, result.block_size) * result.kv_groups)));
      } else if (windowed > 0n) {
        notes.push(layerWords(root.dataset.vllmWindowFullNote));
      }
      if (cfg.n_experts > 1) {
        notes.push(fill(fill(root.dataset.vllmExpertsNote, "experts", format.count(cfg.n_experts)), "active",
                        format.count(cfg.experts_per_token)));
      }
      if (cfg.attention_sinks) { notes.push(root.dataset.vllmMxfp4Note); }
      return format.sentences(notes);
    }

    function largest(cfg, options, budget) {
      if (options.task === "inference") {
        var limit = calc.contextSearchLimit(cfg, options.beyondTrained);
        var plannedAt = function (n) { return plan(cfg, Object.assign({}, options, { context: n })); };
        var found = calc.largestFitting(plannedAt, budget, limit);
        var trained = calc.trainedContext(cfg);
        var note = "";
        /* As the CLI marks it: stopped at the trained context though more fits, or past it. */
        if (trained !== null && found === limit && limit === trained && trained < calc.tokenLimit(cfg) &&
            calc.planTotal(plannedAt(trained + 1)) <= budget) {
          note = fill(root.dataset.atTrained, "trained", format.count(trained));
        } else if (trained !== null && found > trained) {
          note = fill(root.dataset.beyondTrained, "trained", format.count(trained));
        }
        return [root.dataset.largestContext, found, note];
      }
      return [root.dataset.largestMicroBatch, calc.largestFitting(function (n) {
          return plan(cfg, Object.assign({}, options, { microBatch: n }));
        }, budget, LIMITS.max_batch), ""];
    }

    /* As the CLI's heading: a plan on several GPUs is one GPU's, never the whole set-up's. */
    function perGpu(options) {
      var tp = options.tensorParallel || 1;
      var pp = options.pipelineParallel || 1;
      if (options.task === "inference" && tp * pp > 1) {
        return fill(fill(fill(root.dataset.perGpuBusiest, "gpus", format.count(tp * pp)), "tp", format.count(tp)),
          "pp", format.count(pp));
      }
      if (options.task !== "inference" && options.nGpus > 1) {
        return fill(fill(root.dataset.perGpuEach, "gpus", format.count(options.nGpus)), "stage",
          String(options.zeroStage));
      }
      return "";
    }

    /* Which total the plan used, as the CLI's last line says it: a listed card's, what a CUDA process sees (from a
     * published log, or an estimate where none prints it), or the memory as typed. */
    function gpuTotalNote() {
      if (!gpu.value) { return root.dataset.gpuTyped; }
      var card = TABLES.card_totals[gpu.value];
      var total = card.field.replace(/^([0-9]+) MiB$/, function (all, mib) {
        return format.count(Number(mib)) + " MiB";
      });
      var text = card.estimated ? root.dataset.gpuEstimate : root.dataset.gpuProcess;
      var errors = TABLES.process_estimate_error_mib;
      return fill(fill(fill(fill(fill(fill(fill(text, "total", total), "source", card.source), "tool", card.tool),
        "reported", format.count(card.reported_mib)), "margin", format.count(TABLES.process_estimate_mib)),
        "over", format.count(errors[0])), "under", format.count(errors[1]));
    }

    /* A row's name as shown: vLLM's rows carry their own names beside the training ones. */
    function rowName(part) {
      var th = root.querySelector('[data-row="' + part + '"] th');
      return (th.querySelector("[data-names]:not([hidden])") || th).textContent.trim();
    }

    /* As the CLI's heading: the modules peft's default adapts, when the reader left the choice to peft. */
    function targetsNote(cfg, options) {
      if ((options.task !== "lora" && options.task !== "qlora") || form.elements.targets.value !== "default") {
        return "";
      }
      return fill(fill(fill(root.dataset.targetsNote, "targets", format.list(options.targets)), "peft_version",
        TABLES.lora_defaults.peft_version), "model_type", cfg.model_type || cfg.layout);
    }

    /* As the CLI's note (PL-16): a rank above the narrowest adapted layer's width, which peft accepts. */
    function rankNote(cfg, options) {
      if (options.task !== "lora" && options.task !== "qlora") { return ""; }
      var low = calc.largestLowRank(cfg, options.targets);
      if (low === null || BigInt(options.rank) <= low[0]) { return ""; }
      return fill(fill(fill(root.dataset.rankNote, "rank", format.count(options.rank)), "module", low[1]), "width",
        format.count(low[0]));
    }

    function render(result, budget, cfg, options, engineVerdict) {
      var names = engineVerdict ? "vllm" : "plan";
      root.querySelectorAll("[data-names]").forEach(function (node) { node.hidden = node.dataset.names !== names; });
      var total = calc.planTotal(result);
      var scale = total > budget ? total : budget;
      PARTS.forEach(function (part) {
        out[part].textContent = format.count(result[part]) + " B";
        out[part + "-gib"].textContent = format.gib(result[part]) + " GiB";
        segments[part].style.width = (Number(result[part]) / Number(scale) * 100) + "%";
        root.querySelector('[data-row="' + part + '"]').hidden = result[part] === 0n && part !== "weights";
      });
      /* vLLM's last row is its budget, the share of the card it plans with, as the CLI's "budget" row. */
      var lastRow = engineVerdict ? budget : total;
      out.total.textContent = format.count(lastRow) + " B";
      out["total-gib"].textContent = format.gib(lastRow) + " GiB";
      out.capacity.style.left = (Number(budget) / Number(scale) * 100) + "%";
      var fits = engineVerdict ? engineVerdict[1] : total <= budget;
      var spare = format.bytes(fits ? budget - total : total - budget);
      var said = engineVerdict ? engineVerdict[0] : fill(fits ? root.dataset.fits : root.dataset.noFit, "bytes", spare);
      var heading = perGpu(options);
      out.verdict.textContent = heading ? spacedBefore(heading, said) + said : said;
      out.verdict.className = "planner-verdict " + (fits ? "planner-fits" : "planner-no-fit");
      var found = engineVerdict ? engineVerdict[2] : largest(cfg, options, budget);
      var value = found[1] ? format.count(found[1]) : root.dataset.noneFits;
      out["largest-label"].textContent = spacedBefore(found[0], value);
      out.largest.textContent = found[2] ? spacedBefore(value, found[2]) + found[2] : value;
      /* As the CLI's note: a chosen context past the positions the model was trained on. */
      var trained = calc.trainedContext(cfg);
      var note = options.task === "inference" && trained !== null && options.context > trained
        ? fill(fill(root.dataset.contextNote, "context", format.count(options.context)), "trained",
          format.count(trained)) : "";
      var engineNote = engineVerdict && engineVerdict[3] ? engineVerdict[3] : "";
      say(out.note, format.sentences([note, engineNote, weightsNote(cfg, options), targetsNote(cfg, options),
        rankNote(cfg, options)].filter(Boolean)));
      /* As the CLI's note: the engine "None" adds no working memory, a knife-edge a serving engine can contradict. */
      say(out["engine-note"], options.task === "inference" && options.engine === "sum" ? root.dataset.sumNote : "");
      say(out["gpu-total"], gpuTotalNote());
      /* The bar's name carries its numbers: each part shown, the total and the card's memory. */
      var named = PARTS.filter(function (part) { return result[part] !== 0n || part === "weights"; })
        .map(function (part) {
          return rowName(part) + " " + format.gib(result[part]) + " GiB";
        });
      bar.setAttribute("aria-label", root.dataset.totalLabel + " " + format.gib(total) + " GiB / " +
        format.gib(budget) + " GiB" + format.aside(format.list(named)));
    }

    /* The form as the last update read it, and the text it gave the status line (or would have, when silent): a
     * committed change whose value an input event already planned announces that text without planning again. */
    var plannedForm = null;
    var lastAnnouncement = "";

    /* The paste box and the file are read by their own controls (the "use" button, the file's change), never by a
     * plan: typing a config into the box plans nothing until it is used. */
    function readByPlans(element) {
      return element.name && element !== form.elements.config_file && element !== form.elements.config_paste;
    }

    function formState() {
      return Array.prototype.map.call(form.elements, function (element) {
        if (!readByPlans(element)) { return ""; }
        var checkable = element.type === "checkbox" || element.type === "radio";
        return element.name + "=" + (checkable ? String(element.checked) : element.value);
      }).join("\n");
    }

    function announced(text, announce) {
      lastAnnouncement = text;
      if (announce) { status.textContent = text; }
    }

    function update(announce) {
      plannedForm = formState();
      var kind = task();
      root.querySelectorAll("[data-for]").forEach(function (group) {
        group.hidden = group.dataset.for.split(" ").indexOf(kind) < 0;
      });
      var engine = form.elements.engine.value;
      root.querySelectorAll("[data-engine]").forEach(function (group) {
        group.hidden = group.dataset.engine.split(" ").indexOf(engine) < 0;
      });
      var release = form.elements.vllm_version.value;
      root.querySelectorAll("[data-vllm-version]").forEach(function (group) {
        group.hidden = group.dataset.vllmVersion.split(" ").indexOf(release) < 0;
      });
      var cfg;
      form.elements.weight_format.disabled = Boolean(storedFormat());
      try {
        cfg = model();
        say(configError, "");
        showModel(cfg);
        if (followModelDefaults(cfg)) { plannedForm = formState(); }
      } catch (error) {
        say(configError, error instanceof PlannerInputError ? error.message
          : fill(root.dataset.configError, "detail", describe(error, catalogue, format)));
        /* Nothing is planned for a config that cannot be read: the last plan's errors no longer apply. */
        say(planError, "");
        clearFieldErrors();
        out.params.textContent = "—";
        out.active.textContent = "—";
        clearResults();
        announced(configError.textContent, announce);
        planned(null);
        return;
      }
      clearFieldErrors();
      try {
        var options = readOptions(kind, cfg);
        var budget = readMemory(root);
        if (options.task === "inference" && options.engine === "vllm") {
          renderVllm(cfg, options, budget);
        } else {
          render(plan(cfg, options), budget, cfg, options);
        }
        say(planError, "");
        announced(out.verdict.textContent, announce);
        planned({ cfg: cfg, options: options, budget: budget });
      } catch (/** @type {any} a PlannerInputError or an LLMCalcError: describe rethrows anything else */ error) {
        var own = error instanceof PlannerInputError;
        var message = own ? error.message : fill(root.dataset.planError, "detail", describe(error, catalogue, format));
        /* A count out of its range that is a field of the form: said at that field, in the field's own words. */
        var field = !own && error.code === "integer_out_of_range" && FIELD_OF[error.params.name];
        if (field && !form.elements[field].closest("[hidden]")) {
          var input = form.elements[field];
          say(planError, "");
          var maximum = error.params.maximum === null ? input.max : error.params.maximum;
          message = fill(fill(fill(root.dataset.errorTemplate, "label", input.dataset.label), "min",
            format.count(error.params.minimum)), "max", format.count(maximum));
          fieldError(field, message);
        } else {
          say(planError, message);
        }
        clearResults();
        announced(message, announce);
        planned(null);
      }
    }

    /* The file's text read as llmcalc reads a config.json (its messages name the file), then counted, and the
     * result announced: loading a file or using the pasted text is a reader's choice, as choosing a listed model. */
    function useConfigText(text, name) {
      preset.value = "config";
      try {
        var data = MC.parseConfigText(text, name);
        var checkpoint = MC.checkpointFromHf(data);
        ownConfig = checkpoint.config;
        ownFormat = checkpoint.weightFormat;
        ownQuantization = ownFormat ? data.get("quantization_config") : null;
      } catch (error) {
        ownConfig = null;
        ownFormat = null;
        ownQuantization = null;
      }
      ownSource = [text, name];
      update(true);
    }

    form.elements.config_file.addEventListener("change", function () {
      var file = form.elements.config_file.files[0];
      /* Cleared once read, so that choosing the same file again (after a listed model) reads it again. */
      if (file) {
        file.text().then(function (text) {
          form.elements.config_file.value = "";
          useConfigText(text, file.name);
        });
      }
    });
    form.elements.config_use.addEventListener("click", function () {
      useConfigText(form.elements.config_paste.value, "config.json");
    });
    /* A listed card fills in its memory before the form's listeners plan: on the choice's input event, which comes
     * first, and again on its change (a change alone, as a script may send, still gets the card's memory). */
    function useCard() {
      if (gpu.value) { gib.value = TABLES.card_totals[gpu.value].field; }
    }
    /* Choosing a vLLM release sets its default share of the card and sampler filter before the form's listeners
     * plan, as the CLI defaults --gpu-memory-utilization and --sampler-filter to the chosen --vllm-version's. */
    function useRelease() {
      var release = form.elements.vllm_version.value;
      form.elements.gpu_memory_utilization.value = String(Math.round(TABLES.engines.versions[release] * 100));
      useReleaseFilter();
    }
    function useReleaseFilter() {
      form.elements.sampler_filter.value = TABLES.engines.version_sampler_filters[form.elements.vllm_version.value];
    }
    form.elements.vllm_version.addEventListener("input", useRelease);
    form.elements.vllm_version.addEventListener("change", useRelease);
    gpu.addEventListener("input", useCard);
    gpu.addEventListener("change", useCard);
    /* A trainer's set-up fills in the settings it makes (llmcalc.trainers.setup_settings), as the CLI's --setup gives
     * those options their defaults: when a set-up, LoRA or QLoRA, or a ZeRO stage is chosen, before the form plans.
     * Each field stays the reader's to change afterwards, as an option typed after --setup. */
    function useSetup() {
      var kind = task();
      if (kind !== "lora" && kind !== "qlora") { return; }
      var setup = TABLES.setups.filter(function (item) { return item.key === form.elements.setup.value; })[0];
      var dtype = kind === "qlora" ? setup.qlora_adapter_dtype : setup.lora_adapter_dtype;
      /* TRL's SFTTrainer keeps the LoRA adapters of a model that is not quantized in bf16 under ZeRO-3. */
      if (setup.key === "trl-sft" && kind === "lora" && form.elements.zero_stage.value === "3") { dtype = "bf16"; }
      form.elements.adapter_dtype.value = dtype;
      if (kind === "qlora") { form.elements.qlora_preparation.value = setup.qlora_preparation; }
      form.elements.optimizer.value = setup.optimizer;
      form.elements.checkpointing.checked = setup.checkpointing;
      /* What the trainer leaves to peft takes the form's own default, as the CLI's option defaults. */
      [["rank", setup.rank], ["lora_dropout", setup.lora_dropout], ["targets", setup.targets]].forEach(function (item) {
        var element = form.elements[item[0]];
        element.value = item[1] !== null ? String(item[1]) : formDefault(element);
      });
    }
    function formDefault(element) {
      if (element.tagName !== "SELECT") { return element.defaultValue; }
      var chosen = Array.prototype.filter.call(element.options, function (option) { return option.defaultSelected; });
      return (chosen[0] || element.options[0]).value;
    }
    [form.elements.setup, form.elements.zero_stage].concat(Array.prototype.slice.call(form.elements.task))
      .forEach(function (element) {
        element.addEventListener("input", useSetup);
        element.addEventListener("change", useSetup);
      });
    gib.addEventListener("input", function () { gpu.value = ""; });
    /* Typing updates the numbers silently; a committed value (change: Enter, leaving the field, a choice) is
     * announced once, through the status line.  A click, a choice or a typed value fires input, then change:
     * the input planned the value, so the change only announces what is shown (a form the last update did not
     * read, as a change without an input leaves it, is planned). */
    form.addEventListener("input", function (event) {
      if (readByPlans(event.target)) { update(false); }
    });
    form.addEventListener("change", function (event) {
      if (!readByPlans(event.target)) { return; }
      if (formState() === plannedForm) {
        status.textContent = lastAnnouncement;
      } else {
        update(true);
      }
    });
    /* plannershare.js and plannerchart.js (loaded before this file) each get the widget and are told, after every
     * update, what was planned: {cfg, options, budget}, or null when nothing could be. */
    var widget = { root: root, form: form, format: format, fill: fill, plan: plan, update: update, cards: TABLES.cards,
                   describe: function (error) { return describe(error, catalogue, format); },
                   useModelConfig: function (cfg, quantization) {
                     preset.value = "config";
                     ownConfig = cfg;
                     ownFormat = quantization ? MC.quantizationFromHf(quantization, cfg) : null;
                     ownQuantization = quantization || null;
                     ownSource = ["", ""];
                     plannedForm = null;  // a model the form does not show: the next change plans it
                   },
                   ownConfig: function () { return preset.value === "config" ? ownConfig : null; },
                   useReleaseFilter: useReleaseFilter,
                   ownQuantization: function () { return storedFormat() ? ownQuantization : null; } };
    var extensions = (window.LLMPlannerExtensions || []).map(function (make) { return make(widget); });
    function planned(result) { extensions.forEach(function (extension) { extension(result); }); }
    update(false);
  }

  function init() {
    document.querySelectorAll('.calculator[data-calculator="planner"]').forEach(function (root) {
      var tables = JSON.parse(root.dataset.tables);
      var mismatch = calc.specMismatch(tables);
      if (mismatch) {
        /* Scripts and tables of different builds (a cached script, a half-copied folder): said, and no numbers. */
        var message = /** @type {HTMLElement} */ (root.querySelector('[data-error="plan"]'));
        message.textContent = fill(fill(root.dataset.specMismatch, "page", mismatch.page), "script", mismatch.script);
        message.hidden = false;
        root.querySelector("form").style.display = "none";  // the stylesheet gives the form a display of its own
        return;
      }
      calc.useTables(tables);
      setup(root);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
