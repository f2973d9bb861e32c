/* "Will it fit?": the plan against a second card, and a chart of memory against context length or micro-batch.
 *
 * Both read the plan planner.js computed (plannerwidget.js's plan function, so every total is llmcalc's as the
 * browser tests check) and write with DOM calls and textContent only.  The chart is inline SVG built with
 * createElementNS: no library, nothing fetched.  It names itself (<title>, <desc> with its range) and its points
 * are also a table, so a screen reader and a reader of numbers get the same figures as the picture.
 * Registered in window.LLMPlannerExtensions: plannerwidget.js makes it with its widget and calls it after each update.
 */
(function () {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";
  var GIB = 1073741824;
  var WIDTH = 640;
  var HEIGHT = 300;
  var LEFT = 64;
  var RIGHT = 16;
  var TOP = 16;
  var BOTTOM = 48;

  function element(name, attributes, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, String(attributes[key])); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function html(name, text, className) {
    var node = document.createElement(name);
    if (text !== undefined) { node.textContent = text; }
    if (className) { node.className = className; }
    return node;
  }

  /* The x values charted: powers of two up to the largest the plan takes, with the reader's own value. */
  function xValues(options, limit) {
    var training = options.task !== "inference";
    var chosen = training ? options.microBatch : options.context;
    var top = training ? Math.min(limit, Math.max(64, 2 * chosen)) : limit;
    var values = [chosen, top];
    for (var x = training ? 1 : 256; x < top; x *= 2) { values.push(x); }
    return values.filter(function (v, i) { return values.indexOf(v) === i && v >= 1 && v <= limit; })
      .sort(function (a, b) { return a - b; });
  }

  /* A tick step of 1, 2 or 5 times a power of ten that gives at most six ticks up to `top`. */
  function tickStep(top) {
    var power = Math.pow(10, Math.floor(Math.log10(top / 6)));
    return [1, 2, 5, 10].map(function (m) { return m * power; }).find(function (step) { return top / step <= 6; });
  }

  function make(widget) {
    var root = widget.root;
    var form = widget.form;
    var data = root.dataset;
    var format = widget.format;
    var compare = root.querySelector('[data-out="compare"]');
    var figure = root.querySelector('[data-out="chart"]');
    var gpus = widget.cards;  // each listed card's reported bytes, from llmcalc.planner.CARDS
    var serial = 0;

    function cardName(select, input) {
      return select.value ? select.options[select.selectedIndex].text : input.value.trim();
    }

    /* The verdict the main result gives, for any card: fits or not, or whether vLLM starts. */
    function verdict(result, budget) {
      var options = result.options;
      if (options.task === "inference" && options.engine === "vllm") {
        var v = window.LLMPlanner.planVllm(result.cfg, budget, options);
        var text = widget.fill(widget.fill(v.starts ? data.vllmStarts : data.vllmNoStart, "tokens",
          format.count(v.kv_tokens)), "context", format.count(options.context));
        return [widget.fill(text, "concurrency", v.max_concurrency.toLocaleString(document.documentElement.lang || "en",
          { minimumFractionDigits: 2, maximumFractionDigits: 2 })), v.starts];
      }
      var total = window.LLMPlanner.planTotal(widget.plan(result.cfg, options));
      var fits = total <= budget;
      return [widget.fill(fits ? data.fits : data.noFit, "bytes", format.bytes(fits ? budget - total : total - budget)),
        fits];
    }

    function showCompare(result) {
      var second = form.elements.gpu_compare.value;
      compare.textContent = "";
      compare.hidden = !result || !second;
      if (compare.hidden) { return; }
      var cards = [[cardName(form.elements.gpu, form.elements.gpu_gib), result.budget],
        [cardName(form.elements.gpu_compare), BigInt(gpus[second])]];
      cards.forEach(function (card) {
        var found = verdict(result, card[1]);
        var column = html("div", undefined, "planner-compare-card");
        column.appendChild(html("p", card[0] + format.aside(format.gib(card[1]) + " GiB"), "planner-compare-name"));
        column.appendChild(html("p", found[0], "planner-verdict " + (found[1] ? "planner-fits" : "planner-no-fit")));
        column.dataset.bytes = card[1].toString();
        compare.appendChild(column);
      });
    }

    /* The points: [x, total bytes] of every charted x the plan accepts (a refused one is left out). */
    function points(result) {
      var options = result.options;
      var training = options.task !== "inference";
      var P = window.LLMPlanner;
      /* Inference: up to the longest context the search would try, or the reader's own if longer. */
      var limit = training ? P.limits().max_batch : Math.max(P.contextSearchLimit(result.cfg, options.beyondTrained),
        Math.min(options.context, P.tokenLimit(result.cfg)));
      var found = [];
      xValues(options, limit).forEach(function (x) {
        var changed = Object.assign({}, options, training ? { microBatch: x } : { context: x });
        try {
          found.push([x, P.planTotal(widget.plan(result.cfg, changed))]);
        } catch (error) {
          if (!(error instanceof window.LLMModelConfig.LLMCalcError)) { throw error; }
        }
      });
      return found;
    }

    function drawChart(result) {
      figure.textContent = "";
      var vllm = result && result.options.task === "inference" && result.options.engine === "vllm";
      var found = result && !vllm ? points(result) : [];
      figure.hidden = found.length < 2;
      if (figure.hidden) { return; }
      var training = result.options.task !== "inference";
      var chosen = training ? result.options.microBatch : result.options.context;
      var xLabel = form.elements[training ? "micro_batch" : "context"].dataset.label;
      var title = training ? data.chartMicroBatch : data.chartContext;
      var cards = [[cardName(form.elements.gpu, form.elements.gpu_gib), Number(result.budget) / GIB]];
      if (form.elements.gpu_compare.value) {
        cards.push([cardName(form.elements.gpu_compare), Number(gpus[form.elements.gpu_compare.value]) / GIB]);
      }
      var gib = found.map(function (p) { return Number(p[1]) / GIB; });
      var top = Math.max.apply(null, gib.concat(cards.map(function (c) { return c[1]; }))) * 1.08;
      var step = tickStep(top);
      top = Math.ceil(top / step) * step;
      var logFirst = Math.log2(found[0][0]);
      var span = Math.log2(found[found.length - 1][0]) - logFirst;
      var xAt = function (x) { return LEFT + (Math.log2(x) - logFirst) / span * (WIDTH - LEFT - RIGHT); };
      var yAt = function (value) { return TOP + (1 - value / top) * (HEIGHT - TOP - BOTTOM); };
      var id = "planner-chart-" + (serial += 1);
      var summary = widget.fill(widget.fill(widget.fill(widget.fill(widget.fill(data.chartSummary,
        "first", format.gib(found[0][1])), "x_first", format.count(found[0][0])),
        "last", format.gib(found[found.length - 1][1])), "x_last", format.count(found[found.length - 1][0])),
        "cards", format.list(cards.map(function (c) { return c[0] + " " + format.gib(c[1] * GIB) + " GiB"; })));
      var svg = element("svg", { viewBox: "0 0 " + WIDTH + " " + HEIGHT, role: "img", class: "planner-chart-svg",
        "aria-labelledby": id + "-title " + id + "-desc" });
      // Sphinx's search highlighting skips "nohighlight": it would call getBBox on these, which they lack.
      svg.appendChild(element("title", { id: id + "-title", class: "nohighlight" }, title));
      svg.appendChild(element("desc", { id: id + "-desc", class: "nohighlight" }, summary));
      for (var tick = 0; tick <= top + step / 2; tick += step) {
        svg.appendChild(element("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: yAt(tick), y2: yAt(tick),
          class: "planner-chart-grid" }));
        svg.appendChild(element("text", { x: LEFT - 6, y: yAt(tick) + 4, "text-anchor": "end" },
          format.gib(tick * GIB).replace(/[.,]00$/, "")));
      }
      found.forEach(function (p) {
        svg.appendChild(element("text", { x: xAt(p[0]), y: HEIGHT - BOTTOM + 16, "text-anchor": "middle" },
          p[0] >= 1048576 ? p[0] / 1048576 + "M" : p[0] >= 1024 ? p[0] / 1024 + "k" : String(p[0])));
      });
      svg.appendChild(element("text", { x: (LEFT + WIDTH - RIGHT) / 2, y: HEIGHT - 8, "text-anchor": "middle" },
        xLabel));
      svg.appendChild(element("text", { x: 14, y: (TOP + HEIGHT - BOTTOM) / 2, "text-anchor": "middle",
        transform: "rotate(-90 14 " + (TOP + HEIGHT - BOTTOM) / 2 + ")" }, "GiB"));
      cards.forEach(function (card, index) {
        svg.appendChild(element("line", { x1: LEFT, x2: WIDTH - RIGHT, y1: yAt(card[1]), y2: yAt(card[1]),
          class: "planner-chart-card planner-chart-card-" + index, "data-gib": card[1] }));
        svg.appendChild(element("text", { x: WIDTH - RIGHT, y: yAt(card[1]) - 4, "text-anchor": "end",
          class: "planner-chart-card-label" }, card[0]));
      });
      svg.appendChild(element("polyline", { class: "planner-chart-total", fill: "none",
        points: found.map(function (p, i) { return xAt(p[0]) + "," + yAt(gib[i]); }).join(" ") }));
      found.forEach(function (p, i) {
        svg.appendChild(element("circle", { cx: xAt(p[0]), cy: yAt(gib[i]), r: p[0] === chosen ? 5 : 3,
          class: p[0] === chosen ? "planner-chart-point planner-chart-chosen" : "planner-chart-point",
          "data-x": p[0], "data-bytes": p[1].toString() }));
      });
      figure.appendChild(svg);
      figure.appendChild(table(found, xLabel, cards));
    }

    /* The chart's numbers as text: each x, its total, and whether it fits on each card. */
    function table(found, xLabel, cards) {
      var details = html("details");
      details.appendChild(html("summary", data.chartTable));
      var grid = html("table", undefined, "calc-table planner-chart-table");
      var head = grid.createTHead().insertRow();
      [xLabel, data.totalLabel + " (GiB)", data.totalLabel + " (B)"].forEach(function (text) {
        var cell = html("th", text);
        cell.scope = "col";
        head.appendChild(cell);
      });
      var body = grid.createTBody();
      found.forEach(function (p) {
        var row = body.insertRow();
        row.dataset.x = String(p[0]);
        row.dataset.bytes = p[1].toString();
        var first = html("th", format.count(p[0]));
        first.scope = "row";
        row.appendChild(first);
        row.insertCell().textContent = format.gib(p[1]);
        row.insertCell().textContent = format.count(p[1]);
      });
      details.appendChild(grid);
      details.appendChild(html("p", format.pairs(cards.map(function (c) {
        return format.setting(c[0], format.gib(c[1] * GIB) + " GiB");
      }))));
      return details;
    }

    return function planned(result) {
      showCompare(result);
      drawChart(result);
    };
  }

  window.LLMPlannerExtensions = (window.LLMPlannerExtensions || []).concat([make]);
})();
