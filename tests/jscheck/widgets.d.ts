/* The types the widgets' classic scripts (docs/_ext/llmglossary/static/*.js) share, for `make lint`'s
 * `tsc --noEmit` (tests/jscheck/tsconfig.json).  Each script is an IIFE that publishes one namespace on `window`;
 * this file declares those namespaces and the values that cross them, so a script that calls another's function
 * with the wrong arguments, or reads a field that does not exist, fails the check.  Nothing here is loaded by a page.
 *
 * The value model follows modelconfig.js: an integer of a config is a BigInt (exact at any size), as Python's int;
 * a Number is a float or a count the widgets chose to keep small (a context length, a rank).
 */

/** An integer that a formula converts with BigInt() first: the widgets pass either kind. */
type IntLike = bigint | number;

/** A JSON value in modelconfig.js's value model: objects are Maps, integer literals BigInts. */
type ConfigValue = null | boolean | bigint | number | string | ConfigValue[] | Map<string, ConfigValue>;

/** llmcalc.ModelConfig, as modelconfig.js builds it (construct): a frozen object of these fields. */
interface ModelConfig {
  readonly vocab_size: bigint;
  readonly d_model: bigint;
  readonly n_layers: bigint;
  readonly n_heads: bigint;
  readonly n_kv_heads: bigint;
  readonly head_dim: bigint;
  readonly d_ff: bigint;
  readonly ffn: string;
  readonly n_experts: bigint;
  readonly experts_per_token: bigint;
  readonly tie_embeddings: boolean;
  readonly qkv_bias: boolean;
  readonly out_bias: boolean;
  readonly mlp_bias: boolean;
  readonly lm_head_bias: boolean;
  readonly norm: string;
  readonly norms_per_layer: bigint;
  readonly learned_positions: bigint;
  readonly expert_d_ff: bigint;
  readonly shared_expert_d_ff: bigint;
  readonly shared_expert_gate: boolean;
  readonly dense_layers: bigint;
  readonly qk_norm: string;
  readonly q_lora_rank: bigint;
  readonly kv_lora_rank: bigint;
  readonly rope_head_dim: bigint;
  readonly v_head_dim: bigint;
  readonly sliding_window: bigint;
  readonly sliding_window_layers: bigint;
  readonly layout: string;
  readonly model_type: string;
  readonly trained_context: bigint;
  readonly attention_sinks: boolean;
  readonly router_bias: boolean;
}

/** What llmcalc.memory.kv_cache_bytes reads: a ModelConfig, or the KV-cache widget's bare shape. */
interface KvShape {
  n_layers: IntLike;
  n_kv_heads: IntLike;
  head_dim: IntLike;
  kv_lora_rank?: IntLike;
  rope_head_dim?: IntLike;
  sliding_window?: IntLike;
  sliding_window_layers?: IntLike;
}

/** llmcalc.errors.LLMCalcError: a stable code and the parameters a page formats its own message from. */
interface LLMCalcErrorInstance extends Error {
  readonly code: string;
  /* Values of any JSON kind, BigInt and Map included: each reader checks the kind of what it formats. */
  readonly params: Record<string, any>;
}

/** llmcalc.params.Linear */
interface LinearModule {
  readonly path: string;
  readonly role: string;
  readonly component: string;
  readonly d_in: bigint;
  readonly d_out: bigint;
  readonly bias: boolean;
  readonly copies: bigint;
  readonly adaptable: boolean;
  readonly params: bigint;
}

/** llmcalc.params.param_breakdown */
interface ParamBreakdown {
  embedding: bigint;
  positions: bigint;
  attention: bigint;
  ffn: bigint;
  router: bigint;
  norms: bigint;
  lm_head: bigint;
}

/** LoRA targets: a module name, a list of them, or the tables' allLinear ("all-linear"), as peft takes them. */
type LoraTargets = string | readonly string[];

/** The counts modelcounts.js binds to modelconfig.js's tables (withModel). */
interface ModelCountsBound {
  linearModules(cfg: ModelConfig): LinearModule[];
  paramBreakdown(cfg: ModelConfig, options?: { active?: boolean }): ParamBreakdown;
  paramCount(cfg: ModelConfig): bigint;
  activeParamCount(cfg: ModelConfig): bigint;
  loraTargets(cfg: ModelConfig, targets?: LoraTargets): LinearModule[];
  linearTargetNames(cfg: ModelConfig, names: string[]): string[];
  loraModelParams(cfg: ModelConfig, rank: IntLike, targets?: LoraTargets): bigint;
}

/** A field of llmcalc.ModelConfig as browser_data() lists it: its name, type and default (null when required). */
interface ModelField {
  name: string;
  type: string;
  default: ConfigValue;
}

/** browser_data()'s tables as modelconfig.js's withTables binds them (objects made Maps where it looks keys up). */
interface ModelTables {
  supported: string[];
  defaults: Map<string, Map<string, ConfigValue>>;
  aliases: Map<string, Map<string, string>>;
  readSizeKeys: Map<string, Set<string>>;
  attentionBias: Record<string, string>;
  fields: ModelField[];
  atLeastOne: string[];
  choices: Record<string, string[]>;
  layoutFfn: Map<string, string>;
  attention: Map<string, { prefix: string; names: Map<string, string> }>;
  mlp: Map<string, Map<string, string>>;
  allLinear: string;
  fusedInto: Map<string, string>;
  peftMoeNames: Map<string, Map<string, string>>;
  routerNames: Map<string, string>;
}

/** The model layer modelconfig.js hands to modelcounts.js's withModel: its tables and the helpers both share. */
interface ModelLayer {
  tables: ModelTables;
  asModelConfig(cfg: unknown): ModelConfig;
  checkCount(name: string, value: unknown, minimum?: number): bigint;
  checkFlag(name: string, value: unknown): boolean;
  refusal(code: string, params?: Record<string, unknown>): LLMCalcErrorInstance;
  fromJson(value: unknown): ConfigValue;
  jsonType(value: unknown): string;
  isMoe(cfg: ModelConfig): boolean;
  usesLatentAttention(cfg: ModelConfig): boolean;
  qDim(cfg: ModelConfig): bigint;
  kvDim(cfg: ModelConfig): bigint;
  moeLayers(cfg: ModelConfig): bigint;
  routedExpertDff(cfg: ModelConfig): bigint;
}

/** window.LLMModelCounts (modelcounts.js) */
interface LLMModelCountsApi {
  kvCacheBytes(cfg: KvShape, tokens: IntLike, batch: IntLike, bits: IntLike): bigint;
  weightBytes(nParams: IntLike, bits: IntLike): bigint;
  loraParams(dIn: IntLike, dOut: IntLike, rank: IntLike): bigint;
  withModel(model: ModelLayer): ModelCountsBound;
}

/** A checkpoint's weight format (llmcalc.weightformats.CheckpointFormat), as modelconfig.js freezes it. */
type CheckpointFormat = Readonly<Record<string, unknown>>;

/** The model layer bound to one set of tables (modelconfig.js withTables). */
interface ModelConfigBound extends ModelCountsBound {
  fromHfConfig(source: unknown): ModelConfig;
  checkpointFromHf(source: unknown): { config: ModelConfig; weightFormat: CheckpointFormat | null };
  quantizationFromHf(source: unknown, cfg: ModelConfig): CheckpointFormat;
  modelConfig(given: Record<string, unknown>): ModelConfig;
  moeLayers(cfg: ModelConfig): bigint;
}

/** window.LLMModelConfig (modelconfig.js): the page's tables bound on first use. */
interface LLMModelConfigApi extends ModelConfigBound {
  parseConfigText(text: string, name: string): Map<string, ConfigValue>;
  withTables(rawTables: object): ModelConfigBound;
  fromJson(value: unknown): ConfigValue;
  LLMCalcError: new (code: string, params?: Record<string, unknown>) => LLMCalcErrorInstance;
}

/** window.LLMCalc (calculators.js): the small calculators' formulas, for the browser tests' vectors. */
interface LLMCalcApi {
  loraParams(dIn: IntLike, dOut: IntLike, rank: IntLike): bigint;
  loraShare(dIn: IntLike, dOut: IntLike, rank: IntLike): number;
  weightBytes(nParams: IntLike, dtype: string): bigint;
  kvCacheBytes(layers: IntLike, kvHeads: IntLike, headDim: IntLike, dtype: string, tokens: IntLike, batch: IntLike): bigint;
  gqaCacheReduction(heads: number, kvHeads: number): number;
}

/** A plan's named byte counts (llmcalc.planner's InferencePlan / TrainingPlan): planTotal sums them. */
type Plan = Record<string, bigint>;

/** The options the planner widget reads from its form (plannerwidget.js readOptions), named as llmcalc's arguments in
 * camelCase; which are set depends on the task and engine.  Each extension reads some: a misspelt name fails. */
interface PlannerOptions {
  task: "inference" | "full" | "lora" | "qlora";
  // inference
  weightFormat?: string | CheckpointFormat;
  kvFormat?: string;
  context?: number;
  batch?: number;
  beyondTrained?: boolean;
  engine?: "sum" | "generate" | "vllm";
  attention?: string;
  tensorParallel?: number;
  pipelineParallel?: number;
  vllmVersion?: string;
  utilization?: number;
  maxNumBatchedTokens?: number;
  maxNumSeqs?: number;
  cudaGraphBytes?: number;
  nonTorchBytes?: IntLike;
  hybridKvCache?: boolean;
  extensibleKvCache?: boolean;
  startupUsedBytes?: number;
  rocm?: boolean;
  samplerFilter?: string;
  // training
  optimizer?: string;
  microBatch?: number;
  seqLen?: number;
  checkpointing?: boolean;
  zeroStage?: number;
  nGpus?: number;
  precision?: string;
  rank?: number;
  targets?: LoraTargets;
  loraDropout?: number;
  adapterDtype?: string;
  setup?: string;
  qloraPreparation?: string;
}

/** What llmcalc's formulas in planner.js read: any of the widget's options (parallelInferencePlans needs no task). */
type FormulaOptions = Partial<PlannerOptions>;

/** llmcalc.planner.plan_vllm's result, as planner.js builds it (the fields the other scripts read). */
interface VllmPlan {
  requested: bigint;
  budget: bigint;
  kept_graphs: bigint;
  margin: bigint;
  extensible: boolean;
  weights: bigint;
  profile_peak: bigint;
  non_torch: bigint;
  block_bytes: bigint;
  blocks: bigint;
  block_size: bigint;
  max_model_len: bigint;
  kv_tokens: bigint;
  kv_groups: bigint;
  window_groups: bigint;
  window_span: bigint;
  blocks_per_request: bigint;
  max_concurrency: number;
  starts: boolean;
  mostRequests(length: number | bigint | string): bigint;
  longestModelLen(limit: number): number | null;
}

/** llmcalc.memory.training_memory's parts. */
interface TrainingMemory {
  weights: bigint;
  gradients: bigint;
  optimizer_states: bigint;
}

/** llmcalc.weightformats.weight_format_bytes: the quantized codes, their constants and the 16-bit rest. */
interface WeightFormatBytes {
  quantized: bigint;
  constants: bigint;
  unquantized: bigint;
}

/** What plannerwidget.js tells each extension after an update: what was planned, or null when nothing could be. */
interface PlannedResult {
  cfg: ModelConfig;
  options: PlannerOptions;
  budget: bigint;
}

/** plannerwidget.js's formatter: numbers in the page's language, and text set apart or joined as its labels say. */
interface PlannerFormat {
  count(value: IntLike): string;
  gib(bytes: IntLike): string;
  bytes(value: IntLike): string;
  /** A note in the page's parentheses: " (…)" in English, 「（…）」 in zh_TW. */
  aside(text: string): string;
  /** A name and its value, as setting_value says. */
  setting(label: string, value: string): string;
  list(items: string[]): string;
  sentences(items: string[]): string;
  pairs(items: string[]): string;
}

/** The planner widget as plannerwidget.js hands it to each extension (`widget` in its setup). */
interface PlannerWidget {
  root: HTMLElement;
  form: HTMLFormElement;
  format: PlannerFormat;
  fill(template: string, name: string, value: string): string;
  plan(cfg: ModelConfig, options: PlannerOptions): Plan;
  update(announce: boolean): void;
  cards: Record<string, IntLike>;
  useModelConfig(cfg: ModelConfig, quantization: Map<string, ConfigValue> | null): void;
  ownConfig(): ModelConfig | null;
  useReleaseFilter(release: string): void;
  ownQuantization(): Map<string, ConfigValue> | null;
  /** An llmcalc refusal in the page's language (the widget's catalogue of refusal_<code> labels). */
  describe(error: LLMCalcErrorInstance): string;
}

/** An extension: made once with the widget, then called after every update. */
type PlannerExtension = (widget: PlannerWidget) => (result: PlannedResult | null) => void;

/** window.LLMPlanner (planner.js): the planner's formulas, for its extensions and the browser tests.  The
 * formulas only the browser tests call (through page.evaluate, with the arguments of the Python twin) are typed
 * by their parameters' count only: planner.js, where they are defined, says what each takes. */
interface LLMPlannerApi {
  planTotal(plan: Plan): bigint;
  gpuMemory(text: string): bigint | null;
  planInference(cfg: ModelConfig, options: FormulaOptions): Plan;
  planTraining(cfg: ModelConfig, options: FormulaOptions): Plan;
  planVllm(cfg: ModelConfig, gpuBytes: bigint, options: FormulaOptions): VllmPlan;
  checkVllmCard(cfg: ModelConfig, card: string): void;
  planGenerate(cfg: ModelConfig, options: FormulaOptions): Plan;
  parallelInferencePlans(cfg: ModelConfig, options: FormulaOptions, tp: number, pp: number): Plan[];
  trainingMemory(n: bigint, optimizer: string, precision: string | object): TrainingMemory;
  weightFormatBytes(cfg: ModelConfig, format: string): WeightFormatBytes;
  modelledWeightFormats(cfg: ModelConfig): string[];
  lighterWeightFormats(cfg: ModelConfig, format: string): string[];
  tensorParallelSizes(cfg: ModelConfig): number[];
  zero3BufferBytes(cfg: ModelConfig, weightBytes: bigint, trained: bigint, gradientBytes: bigint): bigint[];
  tokenLimit(cfg: ModelConfig): number;
  contextSearchLimit(cfg: ModelConfig, beyondTrained: boolean): number;
  largestFitting(plan: (n: number) => Plan, gpuBytes: bigint, limit: number): number;
  largestHolding(holds: (n: number) => boolean, high: number, low?: number): number | null;
  limits(): Record<string, number>;
  /* browser_data()'s planner tables (planner_tables()), read by key. */
  tables(): Record<string, any>;
  useTables(tables: object): void;
  kvCacheBytes(cfg: ModelConfig, tokens: IntLike, batch: IntLike, dtype: string): bigint;
  zeroMemoryPerGpu(n: bigint, stage: number, nGpus: number, optimizer: string, precision: string): unknown;
  /** [path, copies kept in 16 bits, all copies] of each linear module a format leaves unquantized. */
  keptLinearModules(cfg: ModelConfig, format: string | CheckpointFormat): [string, bigint, bigint][];
  activationPeak(cfg: ModelConfig, microBatch: number, seqLen: number, checkpointing: unknown, options?: unknown): unknown;
  adamw8bitStateBytes(tensors: unknown): unknown;
  trainedContext(cfg: ModelConfig): number | null;
  defaultTokens(cfg: ModelConfig, preferred: number): number;
  defaultLoraTargets(cfg: ModelConfig): string[];
  largestLowRank(cfg: ModelConfig, targets: unknown): unknown;
  generatePrefillParts(cfg: ModelConfig, prompt: number, batch: number, attention: string): unknown;
  /** What plannerwidget.js also calls: why the page's tables cannot be read (null when they can), a plan of
   * given parts, the trainer set-up's refusal, whether a weight format is a checkpoint's, and a rounded-up
   * quotient. */
  specMismatch(tables: { spec_version: number }): { page: string; script: string } | null;
  memoryPlan(weights: bigint, kv: bigint, gradients: bigint, optimizerStates: bigint, activations: bigint): Plan;
  checkSetupCovers(cfg: ModelConfig, options: FormulaOptions): void;
  isCheckpoint(format: string | CheckpointFormat): boolean;
  ceilDiv(a: bigint, b: bigint): bigint;
}

/** window.LLMGlossaryCopyCode (copycode.js) */
interface LLMGlossaryCopyCodeApi {
  codeOf(pre: HTMLElement): string;
}

/* Every element the scripts look up by a selector (querySelector returns an Element) is an HTML or SVG element,
 * and both have dataset (lib.dom's HTMLOrSVGElement): said once here rather than with a cast at each lookup. */
interface Element {
  readonly dataset: DOMStringMap;
}

/** What gguf.js hands its extensions (ggufshare.js): the form, its limits, and the readers and setters a share
 * link needs, each with the arguments the extension passes (the widget binds the rest, such as the limits). */
interface GgufWidget {
  root: Element;
  form: HTMLFormElement;
  labels: Record<string, string>;
  limits: Record<string, any>;
  fill(template: string, values: Record<string, unknown>): string;
  render(): void;
  gpuBytes(text: string): number | null;
  computeBytes(text: string): number | null | undefined;
  sort(): string[];
  setSort(column: string, direction: string): void;
  fileModel(): object | null;
  useFileModel(shared: object | null): void;
  clear(): void;
}

/** window.LLMSpeedFormat (plannerspeed.js): the number formatting and input reading vllmspeed.js shares. */
interface LLMSpeedFormatApi {
  fill(template: string, values: Record<string, string | number>): string;
  fixed(x: number, digits: number): string;
  percent(labels: Record<string, string>, x: number): string;
  wholeNumber(text: string, min: number, max: number): number | null;
  price(text: string, max: number): number | null | undefined;
}

interface Window {
  /** The planner's arithmetic scripts (plannermemory.js ... plannerengines.js) share their functions and the
   * tables here, each read when a function runs; planner.js exports the typed API below from it. */
  LLMPlannerParts: Record<string, any>;
  LLMModelConfig: LLMModelConfigApi;
  /** The tables modelconfig.js reads when a page sets them here rather than in #modelconfig-tables. */
  LLMModelConfigTables?: object;
  LLMModelCounts: LLMModelCountsApi;
  LLMCalc: LLMCalcApi;
  LLMPlanner: LLMPlannerApi;
  /** Registered by the planner's extension scripts, which load before plannerwidget.js. */
  LLMPlannerExtensions?: PlannerExtension[];
  /** Registered by the GGUF planner's extension scripts (ggufshare.js), which load before gguf.js. */
  LLMGgufExtensions?: ((widget: GgufWidget) => void)[];
  LLMGlossaryCopyCode: LLMGlossaryCopyCodeApi;
  LLMSpeedFormat: LLMSpeedFormatApi;
  /** vllmspeed.js's estimate (llmcalc.vllmspeed.estimate_vllm_speed's arithmetic), for the planner's ranking. */
  LLMVllmSpeed: LLMVllmSpeedApi;
  /** plannercost.js's llmcalc.flops.matmul_params, for the ranking's vLLM speed. */
  LLMPlannerFlops: { matmulParams(cfg: ModelConfig): bigint };
}

/** window.LLMVllmSpeed (vllmspeed.js): one decode step's seconds, the prefill of every prompt and the notes. */
interface LLMVllmSpeedApi {
  estimate(data: any, model: any, hardware: any, hardwareKey: string, batch: number, prompt: number,
           generated: number): { stepSeconds: number; prefill: number; notes: string[] };
}
