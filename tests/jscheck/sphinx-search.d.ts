/* The globals of Sphinx's search page that docs/_ext/llmglossary/templates/glossarysearch-scorer.js reads or
 * replaces, as Sphinx 9.0.4 defines them (sphinx/themes/basic/static/searchtools.js and doctools.js;
 * documentation_options.js).  They are internals, not an API: glossarysearch.py's SEARCHTOOLS_VERSIONS names the
 * releases checked, and this file names what the scorer relies on, so a renamed member fails `make lint`'s check
 * here as well as the search tests. */

/** A result row: [docname, title, anchor, description, score, filename, kind] (searchtools.js's SearchResult). */
type SearchResult = [string, string, string, string | null, number, string, string];

/** The parts of searchindex.js the scorer reads. */
interface SearchIndex {
  docnames: string[];
  filenames: string[];
  titles: string[];
  /** prefix -> [docIndex, typeIndex, priority, anchor, name] for each object */
  objects: Record<string, [number, number, number, string, string][]>;
  /** typeIndex -> [domain, object type, localized label] */
  objnames: Record<number, [string, string, string]>;
  /** typeIndex -> "domain:type" */
  objtypes: Record<number, string>;
}

declare const Search: {
  _index: SearchIndex;
  _performSearch(
    query: string,
    searchTerms: Set<string>,
    excludedTerms: Set<string>,
    highlightTerms: Set<string>,
    objectTerms: Set<string>,
  ): SearchResult[];
  stopPulse(): void;
};

declare class SearchResultKind {
  static readonly index: string;
  static readonly object: string;
  static readonly text: string;
  static readonly title: string;
}

declare function _orderResultsByScoreThenName(a: SearchResult, b: SearchResult): number;

/** doctools.js: `const _ = Documentation.gettext`. */
declare function _(text: string): string;

declare const Documentation: {
  TRANSLATIONS: Record<string, string | string[]>;
  PLURAL_EXPR(n: number): number;
};

declare const DOCUMENTATION_OPTIONS: {
  BUILDER: string;
  LINK_SUFFIX: string;
};

/** glossarysearch.py's search_data(), and the pages' passages its scripts add to `pages`. */
interface GlossarySearchDataShape {
  entries: Record<string, { names: string[]; sentence: string; order: number }>;
  /** msgid -> its translation, or a plural's two forms (search_page_messages) */
  messages: Record<string, string | { one: string; other: string }>;
  /** docname -> its passages (page_passages), once _static/glossarysearch/<docname>.js has loaded */
  pages: Record<string, { texts: string[]; sections: Record<string, number> }>;
  pageFiles: string[];
  keywords?: Record<string, string[]>;
  snippetLength: number;
}

interface Window {
  GlossarySearchData?: GlossarySearchDataShape;
}
