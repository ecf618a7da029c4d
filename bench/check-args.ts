/**
 * `npm run bench -- check-args`: the cost of the runtime's acceptance of a
 * tool call (strict JSON boundary + schema) against what it is built on:
 * JSON.parse followed by @cfworker/json-schema's Validator, on the same text,
 * in the same run. Also shown: JSON.parse alone, as the unit of cost.
 * Each batch is timed in this process's CPU time (not wall time): the
 * machines this runs on are shared, and a process descheduled mid-batch
 * would otherwise be charged for its neighbours' work.
 */
import { Validator } from "@cfworker/json-schema";
import { checkArgs, compileTool, type ToolSpec } from "../src/index.js";
import { formatNs, measure, type MeasureOptions } from "./harness.js";
import { PEER_VALIDATORS } from "./peers/validators.js";
import { result, type Result } from "./results.js";

interface Case {
  readonly id: string;
  readonly what: string;
  readonly spec: ToolSpec;
  readonly valid: string;
  readonly invalid: string;
}

const small: ToolSpec = {
  name: "read_file",
  description: "Read a text file.",
  sideEffect: "read_only",
  timeoutMs: 5000,
  inputSchema: {
    type: "object",
    additionalProperties: false,
    required: ["path"],
    properties: {
      path: { type: "string", minLength: 1 },
      offset: { type: "integer", minimum: 0 },
      limit: { type: "integer", minimum: 1 },
      encoding: { enum: ["utf-8", "latin1"] },
    },
  },
};

const nested: ToolSpec = {
  name: "http_request",
  description: "Send an HTTP request.",
  sideEffect: "remote_mutation",
  permission: "ask",
  timeoutMs: 30000,
  inputSchema: {
    type: "object",
    additionalProperties: false,
    required: ["url", "method", "headers"],
    properties: {
      url: { type: "string", pattern: "^https?://[^\\s/$.?#].[^\\s]*$" },
      method: { enum: ["GET", "POST", "PUT", "DELETE"] },
      headers: {
        type: "array",
        maxItems: 32,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["name", "value"],
          properties: { name: { type: "string", pattern: "^[A-Za-z0-9-]+$" }, value: { type: "string", maxLength: 4096 } },
        },
      },
      body: { type: ["string", "null"], maxLength: 65536 },
      retry: {
        type: "object",
        additionalProperties: false,
        properties: { count: { type: "integer", minimum: 0, maximum: 5 }, backoffMs: { type: "number", minimum: 0 } },
      },
    },
  },
};

const edits: ToolSpec = {
  name: "apply_edits",
  description: "Apply exact-text edits to files.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10000,
  inputSchema: {
    type: "object",
    additionalProperties: false,
    required: ["edits"],
    properties: {
      edits: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["path", "old_text", "new_text"],
          properties: {
            path: { type: "string", pattern: "^[^/][^\\u0000]*$" },
            old_text: { type: "string", minLength: 1 },
            new_text: { type: "string" },
          },
        },
      },
      dry_run: { type: "boolean" },
    },
  },
};

const headerList = Array.from({ length: 8 }, (_, k) => ({ name: `X-Header-${k}`, value: `value-${k}-${"v".repeat(20)}` }));
const editList = Array.from({ length: 60 }, (_, k) => ({
  path: `src/module_${k}/file_${k}.ts`,
  old_text: `const value${k} = computeSomething(${k}, "abc");\n`,
  new_text: `const value${k} = computeSomethingElse(${k}, "abcdef", { retries: 3 });\n`,
}));

export const CASES: Case[] = [
  {
    id: "small",
    what: "small flat object (4 properties)",
    spec: small,
    valid: JSON.stringify({ path: "notes/todo.md", offset: 10, limit: 200, encoding: "utf-8" }),
    invalid: JSON.stringify({ path: "notes/todo.md", offset: -1, limit: 200, encoding: "utf-8" }),
  },
  {
    id: "nested",
    what: "nested, arrays and patterns",
    spec: nested,
    valid: JSON.stringify({ url: "https://api.example.com/v1/items?limit=10", method: "POST", headers: headerList, body: '{"name":"x"}', retry: { count: 2, backoffMs: 250 } }),
    invalid: JSON.stringify({ url: "https://api.example.com/v1/items?limit=10", method: "POST", headers: [...headerList.slice(0, 7), { name: "Bad Header", value: "x" }], body: null }),
  },
  {
    id: "edits-10kb",
    what: "a 10 KB argument of 60 edits",
    spec: edits,
    valid: JSON.stringify({ edits: editList, dry_run: false }),
    invalid: JSON.stringify({ edits: [...editList.slice(0, 59), { path: "/etc/passwd", old_text: "a", new_text: "b" }], dry_run: false }),
  },
];

export interface CheckArgsFigure {
  readonly id: string;
  readonly what: string;
  readonly input: "valid" | "invalid";
  readonly bytes: number;
  readonly jsonParseNs: number;
  readonly baselineNs: number;
  readonly checkArgsNs: number;
  /** checkArgs / (JSON.parse + @cfworker validate), median of same-round ratios. */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
  /** checkArgs / JSON.parse alone. */
  readonly ratioToParse: number;
  /** Each peer's time, in JSON.parse-times (informative). */
  readonly peers: Readonly<Record<string, number>>;
}

export function benchCheckArgs(options: MeasureOptions = {}): CheckArgsFigure[] {
  const figures: CheckArgsFigure[] = [];
  for (const c of CASES) {
    const tool = compileTool(c.spec);
    const validator = new Validator(JSON.parse(JSON.stringify(c.spec.inputSchema)), "2020-12");
    for (const input of ["valid", "invalid"] as const) {
      const raw = input === "valid" ? c.valid : c.invalid;
      // Sanity: both contenders agree on the verdict, or the comparison is void.
      const ours = checkArgs(c.spec, raw).valid;
      const theirs = validator.validate(JSON.parse(raw)).valid;
      if (ours !== (input === "valid") || theirs !== ours) throw new Error(`${c.id}/${input}: verdicts differ (ours ${ours}, @cfworker ${theirs})`);
      void tool;
      const peers = PEER_VALIDATORS.flatMap((p) => {
        const f = p.make(c.id, JSON.parse(JSON.stringify(c.spec.inputSchema)));
        if (f === undefined) return [];
        if (f(raw) !== (input === "valid")) throw new Error(`${c.id}/${input}: ${p.name} gives another verdict`);
        return [{ name: p.name, run: () => f(raw) }];
      });
      const [base, parse, check, ...others] = measure(
        [
          { name: "JSON.parse + @cfworker validate", run: () => validator.validate(JSON.parse(raw)).valid },
          { name: "JSON.parse", run: () => JSON.parse(raw) },
          { name: "checkArgs", run: () => checkArgs(c.spec, raw).valid },
          ...peers,
        ],
        { ...options, clock: "cpu" },
      );
      figures.push({
        id: c.id,
        what: c.what,
        input,
        bytes: raw.length,
        jsonParseNs: parse!.medianNs,
        baselineNs: base!.medianNs,
        checkArgsNs: check!.medianNs,
        ratio: check!.ratio,
        ratioMin: check!.ratioMin,
        ratioMax: check!.ratioMax,
        ratioToParse: check!.medianNs / parse!.medianNs,
        peers: Object.fromEntries(others.map((o, k) => [peers[k]!.name, o.medianNs / parse!.medianNs])),
      });
    }
  }
  return figures;
}

export function printCheckArgs(figures: CheckArgsFigure[]): void {
  console.log("check-args: checkArgs against JSON.parse + @cfworker/json-schema Validator.validate (same text, same run; process CPU time per batch)");
  console.log("| schema | input | bytes | JSON.parse | parse + @cfworker | checkArgs | ratio (spread) | checkArgs / JSON.parse |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  for (const f of figures) {
    console.log(
      `| ${f.what} | ${f.input} | ${f.bytes} | ${formatNs(f.jsonParseNs)} | ${formatNs(f.baselineNs)} | ${formatNs(f.checkArgsNs)} | ${f.ratio.toFixed(2)} (${f.ratioMin.toFixed(2)}-${f.ratioMax.toFixed(2)}) | ${f.ratioToParse.toFixed(1)} |`,
    );
  }
  const names = Object.keys(figures[0]?.peers ?? {});
  console.log("\npeers, in JSON.parse-times per check (same runs; none of them does the strict JSON boundary checks):");
  console.log(`| schema | input | checkArgs | @cfworker | ${names.join(" | ")} |`);
  console.log(`|---|---|---:|---:|${names.map(() => "---:").join("|")}|`);
  for (const f of figures) {
    console.log(`| ${f.what} | ${f.input} | ${f.ratioToParse.toFixed(2)} | ${(f.baselineNs / f.jsonParseNs).toFixed(2)} | ${names.map((n) => f.peers[n]!.toFixed(2)).join(" | ")} |`);
  }
  console.log("goals: checkArgs at most 0.5 of JSON.parse + @cfworker, and at most 3 JSON.parses");
}

export function checkArgsResults(figures: CheckArgsFigure[]): Result[] {
  return figures.flatMap((f) => {
    const detail = { clock: "process CPU time", bytes: f.bytes, jsonParseNs: Math.round(f.jsonParseNs), baselineNs: Math.round(f.baselineNs), checkArgsNs: Math.round(f.checkArgsNs), spread: [f.ratioMin, f.ratioMax], peersInJsonParses: f.peers };
    return [
      result(`check-args.${f.id}.${f.input}.vs-cfworker`, `checkArgs / (JSON.parse + @cfworker validate), ${f.what}, ${f.input}`, f.ratio, "<= 0.5", detail),
      result(`check-args.${f.id}.${f.input}.vs-parse`, `checkArgs / JSON.parse, ${f.what}, ${f.input}`, f.ratioToParse, "<= 3", detail),
    ];
  });
}
