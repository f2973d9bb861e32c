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
 *   substrings (Chinese names), then names the query holds with a qualifier ("bf16
 *   mixed precision"); shorter names, terms before aliases, and earlier entries first
 *   among equals.  A query word is also tried in its American spelling and without
 *   "-ing" ("quantisation", "KV caching");
 * - a query with Chinese characters is matched by substring, so it does not depend on
 *   how jieba segmented the index: when no name holds it, the entries whose opening
 *   holds it are listed, and a page whose title holds it is listed as a page hit;
 * - a page whose keywords (front matter html_meta) the query names ranks first among the
 *   pages ("VRAM", "OOM" and "70B" find the planner page);
 * - the search page's own messages (result count, no results, the hit's kind) come
 *   from the build's catalogs (window.GlossarySearchData.messages), where Sphinx's own
 *   zh_TW catalog leaves some empty;
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
  glossaryTiers: { exact: 7, plural: 6, words: 5, prefixes: 4, substring: 3, qualified: 2, opening: 1 },
  // Added to a page whose keywords the query names: above every page that only mentions the word
  // or has it in a section title.
  pageKeyword: 20,
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

  const data = () =>
    window.GlossarySearchData || { entries: {}, pages: {}, pageFiles: [], snippetLength: 240, messages: {} };
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
  // Other spellings a reader may type for a word: British -ise/-isation, and -ing for the noun ("caching").
  const spellings = (word) => {
    const forms = [word];
    const american = word.replace(/is(ation|ations|e|ed|es|er|ers|ing)$/, "iz$1").replace(/yse$/, "yze");
    if (american !== word) forms.push(american);
    for (const form of [...forms]) {
      const stem = form.match(/^(.{3,})ing$/);
      if (stem) forms.push(stem[1], stem[1] + "e", stem[1].replace(/([^aeiou])\1$/, "$1"));
    }
    return [...new Set(forms)];
  };
  // The query as typed, then in each other spelling of its words (at most a few dozen).
  const queryVariants = (text) => {
    let variants = [words(text)];
    for (let i = 0; i < variants[0].length; i++) {
      variants = variants.flatMap((variant) =>
        spellings(variant[i]).map((form) => [...variant.slice(0, i), form, ...variant.slice(i + 1)]),
      );
      if (variants.length > 32) break;
    }
    return variants.map((variant) => ({ key: variant.join(""), words: variant }));
  };

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
    // A name the query holds whole beside other words: "bf16 mixed precision".
    if (
      query.words.length > object.words.length &&
      object.key.length > 3 &&
      object.words.every((word) => query.words.some((other) => samePlural(word, other)))
    )
      return tiers.qualified;
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
    const variants = queryVariants(text);
    const wanted = variants[0];
    if (!wanted.key) return [];
    const index = Search._index;
    const entries = data().entries;
    /** @type {Map<string, SearchResult>} entry -> its best hit */
    const best = new Map();
    for (const object of glossaryObjects()) {
      // The query as typed first; another spelling of it scores a point less.
      let level = tier(wanted, object);
      let respelled = 0;
      for (const variant of variants.slice(1)) {
        const other = tier(variant, object);
        if (other > level) [level, respelled] = [other, 1];
      }
      if (!level) continue;
      const entry = entries[object.entryKey];
      const score =
        Scorer.glossaryBase +
        level * 100 +
        (50 * Math.min(object.key.length, wanted.key.length)) / Math.max(object.key.length, wanted.key.length) +
        (object.term ? 3 : 0) -
        respelled -
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
    if (!best.size && HAN.test(wanted.key) && [...wanted.key].length > 1) openingHits(wanted, best);
    return [...best.values()];
  };

  // Chinese text the glossary's names do not hold: the entries whose opening holds it, whatever
  // jieba made of it when the index was built.
  const openingHits = (wanted, best) => {
    const index = Search._index;
    const label = (kind) => index.objnames[kind][2] + _(", in ");
    const kinds = Object.entries(index.objnames).filter(([, name]) => name[0] + ":" + name[1] === "glossarysearch:term");
    const docIndex = new Map(index.docnames.map((name, position) => [name, position]));
    for (const [place, entry] of Object.entries(data().entries)) {
      if (!matchKey(entry.sentence).includes(wanted.key)) continue;
      const [docName, anchor] = place.split("#");
      const position = docIndex.get(docName);
      if (position === undefined || !kinds.length) continue;
      best.set(place, [
        docName,
        entry.names[0],
        "#" + anchor,
        label(Number(kinds[0][0])) + index.titles[position],
        Scorer.glossaryBase + Scorer.glossaryTiers.opening * 100 - entry.order / 100000,
        index.filenames[position],
        SearchResultKind.object,
      ]);
    }
  };

  // Pages whose title holds a Chinese query that the index split otherwise (裝得下 in 裝得下嗎？).
  /** @type {(query: string, results: SearchResult[]) => SearchResult[]} */
  const titleHits = (query, results) => {
    const key = matchKey(query);
    if (!HAN.test(key) || [...key].length < 2) return [];
    const index = Search._index;
    const listed = new Set(results.map((result) => result[0]));
    return index.titles
      .map((title, position) => [title, position])
      .filter(([title, position]) => matchKey(title).includes(key) && !listed.has(index.docnames[position]))
      .map(([title, position]) => [
        index.docnames[position],
        unescape(title),
        "",
        null,
        Scorer.title,
        index.filenames[position],
        SearchResultKind.title,
      ]);
  };

  // Pages whose keywords (their front matter's html_meta) the query names, as "VRAM" or "70B" name
  // the planner page's: ranked above the pages that only mention the word, and listed even when
  // the query holds words the page lacks ("how much VRAM do I need").
  const keywordHits = (query, results) => {
    const asked = new Set(queryVariants(query).flatMap((variant) => variant.words));
    const named = Object.entries(data().keywords || {})
      .filter(([, keywords]) => keywords.some((keyword) => words(keyword).every((word) => asked.has(word))))
      .map(([docName]) => docName);
    const index = Search._index;
    const added = [];
    for (const docName of named) {
      const listed = results.filter((result) => result[0] === docName && result[6] !== SearchResultKind.object);
      for (const result of listed) result[4] += Scorer.pageKeyword;
      const position = index.docnames.indexOf(docName);
      if (!listed.length && position >= 0)
        added.push([docName, unescape(index.titles[position]), "", null, Scorer.title + Scorer.pageKeyword,
                    index.filenames[position], SearchResultKind.title]);
    }
    return added;
  };

  // The messages of the search page as this build's catalogs say them: Sphinx 9.0.4's zh_TW
  // leaves the result count empty and its no-results message speaks of categories.
  const useMessages = () => {
    const messages = data().messages || {};
    const translations = Documentation.TRANSLATIONS;
    for (const [message, translated] of Object.entries(messages)) {
      if (typeof translated === "string") translations[message] = translated;
      else {
        const forms = [];
        forms[Documentation.PLURAL_EXPR(1)] = translated.one;
        forms[Documentation.PLURAL_EXPR(2)] = translated.other;
        translations[message] = forms;
      }
    }
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
        if (node instanceof Element && node.matches("ul.search > li")) addSnippet(node);
  }).observe(document.documentElement, { childList: true, subtree: true });

  // Sphinx's search, extended: its own results, less its copies of the glossary's
  // entries, plus the glossary's matches, in one ranking.
  const stockSearch = Search._performSearch;
  Search._performSearch = (query, searchTerms, excludedTerms, highlightTerms, objectTerms) => {
    if (typeof Documentation !== "undefined" && Documentation.TRANSLATIONS) useMessages();
    const glossaryHits = match(query);
    const anchors = new Set(Object.keys(data().entries));
    const matched = new Set(glossaryHits.map((hit) => hit[0] + hit[2]));
    const results = stockSearch(query, searchTerms, excludedTerms, highlightTerms, objectTerms).filter((result) => {
      const place = result[0] + result[2];
      return !(anchors.has(place) && (result[6] === SearchResultKind.object || matched.has(place)));
    });
    results.push(...glossaryHits, ...titleHits(query, results));
    results.push(...keywordHits(query, results));
    for (const result of results) {
      // The index keeps names HTML-escaped (a .gguf file&#x27;s tensors); a title is text.
      result[1] = unescape(result[1]);
      // Sphinx writes a kind without a label in English ("command"); the catalog has it.
      const command = "command" + _(", in ");
      if (typeof result[3] === "string" && result[3].startsWith(command))
        result[3] = _("command") + result[3].slice("command".length);
    }
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
