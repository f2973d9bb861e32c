/*
 * The search page's scorer (html_search_scorer, set by docs/_ext/llmglossary/glossarysearch.py).
 *
 * Sphinx writes this file into language_data.js, which the search page loads after
 * searchtools.js and before searchindex.js.  It keeps Sphinx's weights and results,
 * and adds what a glossary's search needs:
 *
 * - the glossary's objects (every term and alias, from the index) are matched against
 *   the whole query, ignoring case, width, separators and plural endings, and every
 *   glossary match ranks above every page hit: first the exact names, then plural
 *   variants, then names containing all the query's words, then word prefixes, then
 *   substrings (Chinese names); shorter names, terms before aliases, and earlier
 *   entries first among equals;
 * - every hit gets a snippet, from scripts (never fetched, which file:// forbids): an
 *   entry's first sentence from window.GlossarySearchData, which the search page
 *   loads; a page's passage that matches the query from _static/glossarysearch/<page>.js,
 *   which is loaded with a <script> element, as searchtools.js loads the index, only
 *   for the pages among the results;
 * - "glossary-search-finished" is dispatched on the document once the results and
 *   their snippets are shown.
 *
 * Text is written with textContent only.
 */

var Scorer = {
  // Sphinx's own weights (searchtools.js), unchanged: page hits rank as they did.
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,

  // Every glossary match scores above this; a page hit cannot reach it.
  glossaryBase: 1000,
  // Tiers of a glossary match, best first.
  glossaryTiers: { exact: 6, plural: 5, words: 4, prefixes: 3, substring: 2 },
};

// Only with the searchtools.js it extends (Sphinx loads language_data.js after it, on the
// search page); SEARCHTOOLS_VERSIONS in glossarysearch.py names the releases checked.
const GlossarySearch =
  typeof Search === "undefined" ||
  typeof Search._performSearch !== "function" ||
  typeof _orderResultsByScoreThenName !== "function"
    ? null
    : (() => {
  const OBJECT_TYPES = new Set(["glossarysearch:term", "glossarysearch:alias"]);
  const HAN = /\p{Script=Han}/u;
  const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" };

  const data = () => window.GlossarySearchData || { entries: {}, pages: {}, pageFiles: [], snippetLength: 240 };
  const unescape = (text) => text.replace(/&(amp|lt|gt|quot|#x27);/g, (entity) => ENTITIES[entity]);
  const words = (text) =>
    text
      .normalize("NFKC")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word);
  // As match_key in glossarysearch.py: "Micro-batch", "micro batch" -> "microbatch".
  const matchKey = (text) => words(text).join("");
  const pluralForms = (word) => {
    const forms = [word, word + "s", word + "es"];
    if (word.endsWith("y")) forms.push(word.slice(0, -1) + "ies");
    return forms;
  };
  const samePlural = (one, other) => pluralForms(one).includes(other) || pluralForms(other).includes(one);

  let objects = null; // [{key, words, docIndex, anchor, name, term, entryKey}]
  const glossaryObjects = () => {
    if (objects !== null) return objects;
    objects = [];
    const index = Search._index;
    const ours = new Set(
      Object.entries(index.objtypes)
        .filter(([, name]) => OBJECT_TYPES.has(name))
        .map(([number]) => Number(number)),
    );
    for (const [prefix, items] of Object.entries(index.objects)) {
      for (let [docIndex, typeIndex, priority, anchor, name] of items) {
        if (!ours.has(typeIndex)) continue;
        const escaped = (prefix ? prefix + "." : "") + name;
        const fullname = unescape(escaped);
        // The index shortens an anchor that repeats the name (see get_objects in sphinx/search).
        if (anchor === "") anchor = escaped;
        else if (anchor === "-") anchor = index.objnames[typeIndex][1] + "-" + escaped;
        objects.push({
          name: fullname,
          key: matchKey(fullname),
          words: words(fullname),
          docIndex,
          typeIndex,
          anchor,
          term: priority === 0,
          entryKey: index.docnames[docIndex] + "#" + anchor,
        });
      }
    }
    return objects;
  };

  const tier = (query, object) => {
    const tiers = Scorer.glossaryTiers;
    if (query.key === object.key) return tiers.exact;
    if (samePlural(query.key, object.key)) return tiers.plural;
    if (query.words.every((word) => object.words.some((other) => samePlural(word, other)))) return tiers.words;
    // A single letter would be the start of half the glossary.
    if (query.key.length < 2 && !HAN.test(query.key)) return 0;
    if (query.words.every((word) => object.words.some((other) => other.startsWith(word)))) return tiers.prefixes;
    if (object.key.includes(query.key)) return tiers.substring;
    return 0;
  };

  // The entry's header that a matched name belongs to ("混合專家" -> "Mixture of experts（混合專家）"):
  // the header one of whose parts it is, else one that contains it, else the first.
  const headerFor = (entry, object) => {
    if (!entry || object.term) return object.name;
    const key = object.key;
    const parts = (name) => name.split(/[（）]/).map(matchKey);
    return (
      entry.names.find((name) => parts(name).includes(key)) ||
      entry.names.find((name) => matchKey(name).includes(key)) ||
      entry.names[0]
    );
  };

  /** Glossary hits for a query, as searchtools.js results. */
  const match = (query) => {
    const text = query
      .split(/\s+/)
      .filter((word) => !word.startsWith("-"))
      .join(" ");
    const wanted = { key: matchKey(text), words: words(text) };
    if (!wanted.key) return [];
    const index = Search._index;
    const entries = data().entries;
    const best = new Map();
    for (const object of glossaryObjects()) {
      const level = tier(wanted, object);
      if (!level) continue;
      const entry = entries[object.entryKey];
      const score =
        Scorer.glossaryBase +
        level * 100 +
        (50 * wanted.key.length) / Math.max(object.key.length, wanted.key.length) +
        (object.term ? 3 : 0) -
        (entry ? entry.order : 0) / 100000;
      const known = best.get(object.entryKey);
      if (known && known[4] >= score) continue;
      best.set(object.entryKey, [
        index.docnames[object.docIndex],
        headerFor(entry, object),
        "#" + object.anchor,
        index.objnames[object.typeIndex][2] + _(", in ") + index.titles[object.docIndex],
        score,
        index.filenames[object.docIndex],
        SearchResultKind.object,
      ]);
    }
    return [...best.values()];
  };

  // The link searchtools.js writes for a result (see _displayItem there).
  const hrefOf = (docName, anchor) => {
    if (DOCUMENTATION_OPTIONS.BUILDER === "dirhtml") {
      let dirname = docName + "/";
      if (dirname.match(/\/index\/$/)) dirname = dirname.substring(0, dirname.length - 6);
      else if (dirname === "index/") dirname = "";
      return document.documentElement.dataset.content_root + dirname + anchor;
    }
    return docName + DOCUMENTATION_OPTIONS.LINK_SUFFIX + anchor;
  };

  const cut = (text, start, length) => {
    const begin = Math.max(0, Math.min(start, text.length - length));
    const head = begin > 0 ? "…" : "";
    const tail = begin + length < text.length ? "…" : "";
    return head + text.substr(begin, length).trim() + tail;
  };

  /** The passage of a page that best matches the query's words, cut around the first match. */
  const passage = (docName, anchor, terms) => {
    const page = data().pages[docName];
    if (!page || !page.texts.length) return "";
    const length = data().snippetLength;
    const from = anchor && page.sections[anchor.slice(1)] !== undefined ? page.sections[anchor.slice(1)] : 0;
    const lowered = terms.map((term) => term.toLowerCase()).filter((term) => term);
    // The passage with the most query words; among equals, prose before a heading.
    let bestIndex = from;
    let bestCount = 0;
    let bestScore = 0;
    for (let i = from; i < page.texts.length; i++) {
      const text = page.texts[i].toLowerCase();
      const count = lowered.filter((term) => text.includes(term)).length;
      const score = count * 2 + (text.length > 60 ? 1 : 0);
      if (count && score > bestScore) {
        bestIndex = i;
        bestCount = count;
        bestScore = score;
        if (count === lowered.length && text.length > 60) break;
      }
    }
    // No passage holds a query word (a stemmed match): the first that is more than a heading.
    if (!bestCount) bestIndex = page.texts.findIndex((text, i) => i >= from && text.length > 60);
    const text = page.texts[bestIndex >= 0 ? bestIndex : from];
    const textLower = text.toLowerCase();
    const positions = lowered.map((term) => textLower.indexOf(term)).filter((at) => at >= 0);
    const first = positions.length ? Math.min(...positions) : 0;
    // A Chinese character is about two Latin letters wide: the same space, half the characters.
    const han = [...text.slice(first, first + length)].filter((char) => HAN.test(char)).length;
    const shown = han > length / 4 ? Math.round(length / 2) : length;
    return cut(text, first - Math.floor(shown / 3), shown);
  };

  // One <script> element per page, loaded once: resolves when its passages are there (or failed).
  const requested = new Map();
  const loadPage = (docName) => {
    if (data().pages[docName] || !data().pageFiles.includes(docName)) return Promise.resolve();
    if (!requested.has(docName)) {
      const path = docName.split("/").map(encodeURIComponent).join("/");
      const script = document.createElement("script");
      requested.set(
        docName,
        new Promise((resolve) => {
          script.addEventListener("load", resolve);
          script.addEventListener("error", resolve);
        }),
      );
      script.src = document.documentElement.dataset.content_root + "_static/glossarysearch/" + path + ".js";
      document.head.appendChild(script);
    }
    return requested.get(docName);
  };
  /** Load the passages of the pages among ``results`` (for snippetOf). */
  const loadPages = (results) => Promise.all(results.map((result) => loadPage(result[0])));

  let current = { terms: [], byHref: new Map(), pending: [] };

  /** The snippet of one result: an entry's first sentence, else the page's matching passage. */
  const snippetOf = (result, terms = current.terms) => {
    const [docName, , anchor, descr] = result;
    const entry = data().entries[docName + anchor];
    if (entry) return entry.sentence;
    return passage(docName, anchor, terms) || descr || "";
  };

  const remember = (results, terms) => {
    const byHref = new Map();
    for (const result of results) byHref.set(hrefOf(result[0], result[2]), result);
    current = { terms, byHref, pending: [] };
  };

  // Mark each query word in the snippet, still with text nodes only.
  const snippetElement = (text, terms) => {
    const paragraph = document.createElement("p");
    paragraph.classList.add("context", "glossary-search-snippet");
    const lowered = terms.map((term) => term.toLowerCase()).filter((term) => term.length > 1 || HAN.test(term));
    const textLower = text.toLowerCase();
    let at = 0;
    while (at < text.length) {
      let next = -1;
      let found = "";
      for (const term of lowered) {
        const position = textLower.indexOf(term, at);
        if (position >= 0 && (next < 0 || position < next)) {
          next = position;
          found = term;
        }
      }
      if (next < 0) break;
      paragraph.appendChild(document.createTextNode(text.slice(at, next)));
      paragraph.appendChild(document.createElement("mark")).textContent = text.slice(next, next + found.length);
      at = next + found.length;
    }
    paragraph.appendChild(document.createTextNode(text.slice(at)));
    return paragraph;
  };

  const addSnippet = (item) => {
    const link = item.querySelector("a");
    if (!link || item.querySelector(".glossary-search-snippet")) return;
    const result = current.byHref.get(link.getAttribute("href"));
    if (!result) return;
    const terms = current.terms;
    const show = () => {
      const text = snippetOf(result, terms);
      if (text && !item.querySelector(".glossary-search-snippet")) item.appendChild(snippetElement(text, terms));
    };
    if (data().entries[result[0] + result[2]]) show();
    else current.pending.push(loadPage(result[0]).then(show));
  };

  // Watched from the start: when searchindex.js loads before the page is ready, the
  // first result is shown as soon as the page is.
  new MutationObserver((records) => {
    for (const record of records)
      for (const node of record.addedNodes)
        if (node.nodeType === Node.ELEMENT_NODE && node.matches("ul.search > li")) addSnippet(node);
  }).observe(document.documentElement, { childList: true, subtree: true });

  // Sphinx's search, extended: its own results, less its copies of the glossary's
  // entries, plus the glossary's matches, in one ranking.
  const stockSearch = Search._performSearch;
  Search._performSearch = (query, searchTerms, excludedTerms, highlightTerms, objectTerms) => {
    const glossaryHits = match(query);
    const anchors = new Set(Object.keys(data().entries));
    const matched = new Set(glossaryHits.map((hit) => hit[0] + hit[2]));
    const results = stockSearch(query, searchTerms, excludedTerms, highlightTerms, objectTerms).filter((result) => {
      const place = result[0] + result[2];
      return !(anchors.has(place) && (result[6] === SearchResultKind.object || matched.has(place)));
    });
    results.push(...glossaryHits);
    results.sort(_orderResultsByScoreThenName);
    remember(results, [...new Set([...highlightTerms, ...searchTerms, ...words(query)])]);
    return results;
  };

  // Called by searchtools.js once the last result is shown; the snippets may still be loading.
  const stockStopPulse = Search.stopPulse;
  Search.stopPulse = () => {
    stockStopPulse();
    Promise.all(current.pending).then(() => document.dispatchEvent(new CustomEvent("glossary-search-finished")));
  };

  return { match, snippetOf, loadPages, matchKey, hrefOf };
})();
