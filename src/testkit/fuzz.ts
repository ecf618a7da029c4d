/**
 * Argument fuzzing: generates valid arguments and near misses from a tool's
 * schema, puts each through the runtime's acceptance (`compileTool(...).check`,
 * the code the driver runs), and checks that valid ones are accepted and
 * reach the tool without an unexpected throw, and invalid ones are refused.
 *
 * Whether a value is valid is decided independently of the code under test:
 * by @cfworker/json-schema (the reference evaluator) for values, and by
 * construction for raw-text mutations (a repeated key, an escaped lone
 * surrogate, nesting past 256, a trailing comma).
 *
 * The values are made by fuzz-generator.ts, the near misses by
 * fuzz-near-misses.ts; this file runs them through the tool.
 */
import { compileSchema, loadFullSchemaSupport, type CompiledSchema, type JsonSchema } from "../schema/index.js";
import { compileTool, type Tool, type ToolContext } from "../tools/index.js";
import { isToolError } from "../tools/tool.js";
import { isIsoagentError } from "../errors.js";
import { parseCallId, parseRunId } from "../ids.js";
import { sha256HexSync, type JsonValue } from "../json/index.js";
import { newAbortController } from "../web.js";
import { allowAll, evaluatePolicy, type Policy } from "../policy/index.js";
import { Generator, type Generated } from "./fuzz-generator.js";
import { nearMisses, type SampleKind } from "./fuzz-near-misses.js";

export type { SampleKind } from "./fuzz-near-misses.js";

/** One generated argument text, its kind, and whether it should be accepted. */
export interface FuzzSample {
  readonly kind: SampleKind;
  readonly raw: string;
  /** What the reference (or the construction) says. */
  readonly expectValid: boolean;
}

/** What `fuzz` found for one tool: how many samples of each kind, and every sample the runtime judged wrongly (a clean report has both lists empty). */
export interface FuzzReport {
  readonly tool: string;
  readonly seed: number;
  readonly samples: number;
  readonly valid: number;
  readonly invalid: number;
  readonly byKind: Partial<Record<SampleKind, number>>;
  /** Valid arguments the runtime refused. */
  readonly validRefused: FuzzSample[];
  /** Invalid arguments the runtime accepted (and so would have reached the tool). */
  readonly invalidAccepted: FuzzSample[];
  /** Accepted arguments on which the tool threw something other than a ToolError. */
  readonly crashes: { readonly sample: FuzzSample; readonly error: string }[];
  /** Accepted arguments the tool was called with. */
  readonly reachedTool: number;
}

/** How `fuzz` runs: the seed and number of samples (the same seed gives the same samples), whether accepted arguments reach the tool, and the policy its `permit` answers by. */
export interface FuzzOptions {
  readonly seed?: number;
  readonly count?: number;
  /** Call the tool with accepted arguments (default true). Give false for tools with real effects. */
  readonly call?: boolean;
  /** The policy the tool's `permit` answers by, fail-closed, for what it discovers. Default: allow everything. */
  readonly policy?: Policy;
}

/** A deterministic generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Fuzzes a tool's argument checking (and, by default, the tool with the
 * arguments accepted). Deterministic for a seed.
 *
 * @example
 * ```ts
 * const report = await fuzz(writeFile, { seed: 1, count: 2000, call: false })
 * expect(report.validRefused).toEqual([])
 * expect(report.invalidAccepted).toEqual([])
 * ```
 */
export async function fuzz(tool: Tool<never, unknown>, options: FuzzOptions = {}): Promise<FuzzReport> {
  const seed = options.seed ?? 1;
  const count = options.count ?? 1000;
  const rand = seededRandom(seed);
  // The verdicts are @cfworker/json-schema's: full schema support.
  await loadFullSchemaSupport();
  const compiled = compileTool(tool);
  const reference: CompiledSchema = compileSchema(compiled.inputSchema as JsonSchema, { evaluator: "reference" });
  const samples: FuzzSample[] = [];
  let failures = 0;
  while (samples.length < count) {
    const gen = new Generator(compiled.inputSchema as JsonValue, rand);
    let value: JsonValue;
    try {
      value = gen.gen(compiled.inputSchema as JsonValue, [], 0);
    } catch (e) {
      if (!isIsoagentError(e, "FUZZ_UNSATISFIABLE") || ++failures > count * 10) throw new Error(`fuzz: cannot generate arguments for ${compiled.name} (${e instanceof Error ? e.message : "?"})`);
      continue;
    }
    const g: Generated = { value, nodes: gen.nodes };
    samples.push({ kind: "valid", raw: JSON.stringify(value), expectValid: reference.validate(value).valid });
    for (const m of nearMisses(g, rand)) {
      if (samples.length >= count) break;
      const expectValid = m.byConstruction ? false : reference.validate(JSON.parse(m.raw) as JsonValue).valid;
      samples.push({ kind: m.kind, raw: m.raw, expectValid });
    }
  }
  const report = {
    tool: compiled.name,
    seed,
    samples: samples.length,
    valid: 0,
    invalid: 0,
    byKind: {} as Partial<Record<SampleKind, number>>,
    validRefused: [] as FuzzSample[],
    invalidAccepted: [] as FuzzSample[],
    crashes: [] as { sample: FuzzSample; error: string }[],
    reachedTool: 0,
  };
  for (const sample of samples) {
    report.byKind[sample.kind] = (report.byKind[sample.kind] ?? 0) + 1;
    if (sample.expectValid) report.valid++;
    else report.invalid++;
    const verdict = compiled.check(sample.raw);
    if (sample.expectValid && !verdict.valid) report.validRefused.push(sample);
    if (!sample.expectValid && verdict.valid) report.invalidAccepted.push(sample);
    if (!verdict.valid || options.call === false) continue;
    report.reachedTool++;
    const controller = newAbortController();
    const ctx: ToolContext = {
      runId: parseRunId("fuzz"),
      step: 1,
      callId: parseCallId("fuzz"),
      attempt: 1,
      idempotencyKey: `fuzz:${report.reachedTool}`,
      fencingToken: 1,
      signal: controller.signal,
      permit: (resources) => evaluatePolicy(options.policy ?? allowAll, { tool: compiled.name, sideEffect: compiled.sideEffect, args: verdict.args, resources, stage: "discovered" }),
      readArtifact: async () => undefined,
      // Fuzzing keeps nothing: progress is dropped, artifacts are hashed and let go.
      progress: () => {},
      putArtifact: async (bytes) => ({ sha256: sha256HexSync(bytes), size: bytes.length }),
    };
    try {
      await tool.call(verdict.args as never, ctx);
    } catch (e) {
      if (!isToolError(e)) report.crashes.push({ sample, error: e instanceof Error ? e.name : typeof e });
    } finally {
      controller.abort();
    }
  }
  return report;
}
