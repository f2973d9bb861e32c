/* The page's scripts in a Node vm context, for tests/jsnode.py.
 *
 * The first line on stdin is the page: {scripts: [[name, text], ...], elements: {id: text}, roots: {selector:
 * dataset}, lists: {selector: [dataset, ...]}, prelude: text}.  The scripts run in that order in one context whose
 * global is `window`, with a document that is complete (no DOMContentLoaded to wait for), finds the page's inline
 * JSON by id (getElementById), a widget's data-* attributes by its selector (querySelector), and lists only the
 * elements `lists` names (querySelectorAll), so no widget is set up: the arithmetic runs, the UI does not.  Every further line is {source, arg}, answered by one line, as Playwright's
 * page.evaluate(source, arg) answers it: a function's source is called with the argument (awaited if it returns a
 * promise), any other source is evaluated; the result comes back as JSON ({result}), a throw as {error}.
 */
"use strict";
const readline = require("node:readline");
const vm = require("node:vm");

function openPage(page) {
  const context = vm.createContext({ console });
  vm.runInContext("globalThis.window = globalThis;", context);
  context.document = {
    readyState: "complete",
    addEventListener() {},
    getElementById: (id) => (id in page.elements ? { textContent: page.elements[id] } : null),
    querySelector: (selector) => (selector in page.roots ? { dataset: page.roots[selector] } : null),
    querySelectorAll: (selector) => (page.lists[selector] || []).map((dataset) => ({ dataset })),
  };
  for (const [name, text] of page.scripts) vm.runInContext(text, context, { filename: name });
  if (page.prelude) vm.runInContext(page.prelude, context, { filename: "prelude" });
  return context;
}

async function evaluate(context, request) {
  const value = vm.runInContext(`(${request.source}\n)`, context, { filename: "evaluate" });
  const parse = vm.runInContext("JSON.parse", context);
  let result = typeof value === "function" ? value(parse(JSON.stringify(request.arg ?? null))) : value;
  result = await result;
  return vm.runInContext("JSON.stringify", context)(result === undefined ? null : result);
}

async function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let context = null;
  for await (const line of lines) {
    let answer;
    try {
      if (context === null) {
        context = openPage(JSON.parse(line));
        answer = { result: "null" };
      } else {
        answer = { result: await evaluate(context, JSON.parse(line)) };
      }
    } catch (error) {
      answer = { error: error && error.stack ? String(error.stack) : String(error) };
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
}

main();
