/* Glossary previews: hovering or focusing a term link shows the opening of its
 * definition.  The data is a JSON block written into the page at build time
 * (docs/_ext/llmglossary/termpreviews.py), so nothing is fetched.  Escape closes a preview;
 * the link is tied to it with aria-describedby for screen readers.
 */
(function () {
  "use strict";

  function init() {
    var data = document.getElementById("term-previews");
    if (!data) { return; }
    var previews = JSON.parse(data.textContent);
    var box = document.createElement("div");
    box.id = "term-preview";
    box.className = "term-preview";
    box.setAttribute("role", "tooltip");
    box.hidden = true;
    var title = document.createElement("strong");
    var text = document.createElement("p");
    box.appendChild(title);
    box.appendChild(text);
    document.body.appendChild(box);
    var current = null;

    function show(link) {
      var preview = previews[link.getAttribute("href")];
      if (!preview) { return; }
      current = link;
      title.textContent = preview.name;
      text.textContent = preview.summary;
      box.hidden = false;
      link.setAttribute("aria-describedby", "term-preview");
      var rect = link.getBoundingClientRect();
      var top = window.scrollY + rect.bottom + 6;
      var left = Math.max(8, Math.min(window.scrollX + rect.left, window.scrollX + document.documentElement.clientWidth - box.offsetWidth - 8));
      box.style.top = top + "px";
      box.style.left = left + "px";
    }

    function hide() {
      if (current) { current.removeAttribute("aria-describedby"); }
      current = null;
      box.hidden = true;
    }

    document.querySelectorAll("a.reference.internal[href]").forEach(function (link) {
      if (!Object.prototype.hasOwnProperty.call(previews, link.getAttribute("href"))) { return; }
      link.classList.add("has-term-preview");
      link.addEventListener("mouseenter", function () { show(link); });
      link.addEventListener("mouseleave", hide);
      link.addEventListener("focus", function () { show(link); });
      link.addEventListener("blur", hide);
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { hide(); }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
