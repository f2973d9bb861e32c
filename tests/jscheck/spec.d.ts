/** What modelconfig.js adds to window.LLMModelConfig for the versioned spec: llmcalc.browser.SPEC_VERSION as it
 * reads it (planner.js compares the page's tables with it).  Merged into widgets.d.ts's interface of that name. */
interface LLMModelConfigApi {
  SPEC_VERSION: number;
}
