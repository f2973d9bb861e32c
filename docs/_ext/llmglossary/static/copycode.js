/* Copy buttons on code blocks (docs/_ext/llmglossary/copycode.py).  For a doctest, only the
 * code is copied: ">>> " and "... " prompts are removed and output lines dropped;
 * a block without prompts is copied whole.
 */
(function () {
  "use strict";

  function codeOf(text) {
    var lines = text.replace(/\n$/, "").split("\n");
    var prompted = lines.filter(function (line) { return /^(>>>|\.\.\.)( |$)/.test(line); });
    if (prompted.length === 0) { return lines.join("\n"); }
    return prompted.map(function (line) { return line.replace(/^(>>>|\.\.\.) ?/, ""); }).join("\n");
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = document.execCommand("copy");
    document.body.removeChild(area);
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function init() {
    var data = document.getElementById("copy-labels");
    if (!data) { return; }
    var labels = JSON.parse(data.textContent);
    /** @type {NodeListOf<HTMLPreElement>} */
    var blocks = document.querySelectorAll("div.highlight pre");
    blocks.forEach(function (pre) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-code";
      button.textContent = labels.copy;
      button.addEventListener("click", function () {
        copy(codeOf(pre.innerText)).then(
          function () { button.textContent = labels.copied; },
          function () { button.textContent = labels.failed; }
        );
        window.setTimeout(function () { button.textContent = labels.copy; }, 2000);
      });
      pre.parentNode.insertBefore(button, pre);
    });
    markScrollable();
    window.addEventListener("resize", markScrollable);
    window.LLMGlossaryCopyCode = { codeOf: codeOf };
  }

  // A code block wider than the page scrolls sideways: it takes focus so the keyboard can
  // scroll it too (WCAG 2.1.1; axe-core's scrollable-region-focusable).
  function markScrollable() {
    /** @type {NodeListOf<HTMLPreElement>} */
    var blocks = document.querySelectorAll("div.highlight pre");
    blocks.forEach(function (pre) {
      if (pre.scrollWidth > pre.clientWidth) {
        pre.tabIndex = 0;
      } else {
        pre.removeAttribute("tabindex");
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
