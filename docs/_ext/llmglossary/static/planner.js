/* "Will it fit?": the GPU memory planner's arithmetic, offline, no framework: its public API.
 *
 * Model configs are read by modelconfig.js (window.LLMModelConfig, the browser's copy of llmcalc's config.json
 * reader) and counted by modelcounts.js, which also holds the KV-cache formula the calculators share.  The planner's
 * copy of llmcalc is split as llmcalc is, one classic script a module, loaded before this one
 * (calculators/scripts.py's PLANNER_ARITHMETIC): plannermemory.js (llmcalc._validate, llmcalc.memory),
 * planneractivations.js (llmcalc.activations), plannerweights.js (llmcalc.weightformats, llmcalc.checkpoints),
 * plannercore.js (llmcalc.planner) and plannerengines.js (llmcalc.engines).  Each function repeats the Python one
 * named alike; the conformance tests compare them with Python on generated vectors: the same bytes, or the same
 * refusal code and numbers.  Bytes are BigInt, and so is every integer field of a config from modelconfig.js.  This
 * file exports them as window.LLMPlanner for plannerwidget.js (the widget, which loads after it), the planner's
 * extensions and the tests.
 */
(function () {
  "use strict";

  var P = window.LLMPlannerParts;

  window.LLMPlanner = {
    kvCacheBytes: P.kvCacheBytes,
    trainingMemory: P.trainingMemory,
    zeroMemoryPerGpu: P.zeroMemoryPerGpu,
    weightFormatBytes: function (cfg, format) { return P.weightFormatBytes(cfg, format); },
    modelledWeightFormats: P.modelledWeightFormats,
    lighterWeightFormats: P.lighterWeightFormats,
    keptLinearModules: P.keptLinearModules,
    parallelInferencePlans: P.parallelInferencePlans,
    activationPeak: P.activationPeak,
    adamw8bitStateBytes: P.adamw8bitStateBytes,
    tokenLimit: P.tokenLimit,
    trainedContext: P.trainedContext,
    defaultTokens: P.defaultTokens,
    defaultLoraTargets: P.defaultLoraTargets,
    largestLowRank: P.largestLowRank,
    contextSearchLimit: P.contextSearchLimit,
    gpuMemory: P.gpuMemory,
    limits: function () { return P.LIMITS; },
    useTables: P.useTables,
    planInference: P.planInference,
    planTraining: P.planTraining,
    zero3BufferBytes: P.zero3BufferBytes,
    tables: function () { return P.TABLES; },
    planTotal: P.planTotal,
    largestFitting: P.largestFitting,
    largestHolding: P.largestHolding,
    generatePrefillParts: P.generatePrefillParts,
    planGenerate: P.planGenerate,
    planVllm: P.planVllm,
    checkVllmCard: P.checkVllmCard,
    tensorParallelSizes: P.tensorParallelSizes,
    specMismatch: P.specMismatch,
    memoryPlan: P.memoryPlan,
    checkSetupCovers: P.checkSetupCovers,
    isCheckpoint: P.isCheckpoint,
    ceilDiv: P.ceilDiv,
  };
})();
