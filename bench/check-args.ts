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
import type { ToolSpec } from "../src/index.js";
import { checkArgs, compileTool } from "../src/tools/index.js";
import { compilePattern } from "../src/pattern/index.js";
import { formatNs, measure, type MeasureOptions } from "./harness.js";
import { PEER_VALIDATORS } from "./peers/validators.js";
import { result, type Result } from "./results.js";

interface Case {
  readonly id: string;
  readonly what: string;
  readonly spec: ToolSpec;
  readonly valid: string;
  readonly invalid: string;
  /** The goals of its two figures (default: "<= 0.5" against @cfworker, "<= 3" against JSON.parse). */
  readonly goals?: { readonly vsCfworker: string; readonly vsParse: string };
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

/**
 * Common patterns, each proved linear on RegExp (src/pattern/linear.ts), so
 * they run on it: anchored, every loop's code points apart from what
 * follows it.
 */
const commonPatterns: ToolSpec = {
  name: "create_release",
  description: "Create a release.",
  sideEffect: "remote_mutation",
  permission: "ask",
  timeoutMs: 10000,
  inputSchema: {
    type: "object",
    additionalProperties: false,
    required: ["id", "version", "date", "commit", "owner"],
    properties: {
      id: { type: "string", pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" },
      version: { type: "string", pattern: "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z-.]+)?$" },
      date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
      commit: { type: "string", pattern: "^[0-9a-f]{40}$" },
      owner: { type: "string", pattern: "^[A-Za-z0-9_-]{1,39}$" },
      url: { type: "string", pattern: "^https?://[^\\s/$.?#].[^\\s]*$" },
      color: { type: "string", pattern: "^#[0-9a-fA-F]{6}$" },
      locale: { type: "string", pattern: "^[a-z]{2}(-[A-Z]{2})?$" },
      phone: { type: "string", pattern: "^\\+?[1-9]\\d{1,14}$" },
      labels: { type: "array", maxItems: 20, items: { type: "string", pattern: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$" } },
      meta: { type: "object", patternProperties: { "^x-[a-z]+$": { type: "string" } }, additionalProperties: false },
    },
  },
};

/**
 * Patterns no backtracker is proved to run in linear time (overlapping or
 * nested loops, loops a search starts again): only the linear-time matcher
 * may run them. The inputs are benign, so that @cfworker (RegExp) finishes.
 */
const matcherPatterns: ToolSpec = {
  name: "send_mail",
  description: "Send mail.",
  sideEffect: "remote_mutation",
  permission: "ask",
  timeoutMs: 10000,
  inputSchema: {
    type: "object",
    additionalProperties: false,
    required: ["to", "host", "subject"],
    properties: {
      to: { type: "string", pattern: "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$" },
      host: { type: "string", pattern: "^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$" },
      subject: { type: "string", pattern: "^(\\S+\\s?)+$" },
      attachment: { type: "string", pattern: "^.*\\.(png|jpe?g|pdf)$" },
      words: { type: "array", maxItems: 20, items: { type: "string", pattern: "(\\w+-?)+\\w$" } },
      body: { type: "string", pattern: "\\w[.!?]?\\s*$" },
    },
  },
};

const headerList = Array.from({ length: 8 }, (_, k) => ({ name: `X-Header-${k}`, value: `value-${k}-${"v".repeat(20)}` }));
const editList = Array.from({ length: 60 }, (_, k) => ({
  path: `src/module_${k}/file_${k}.ts`,
  old_text: `const value${k} = computeSomething(${k}, "abc");\n`,
  new_text: `const value${k} = computeSomethingElse(${k}, "abcdef", { retries: 3 });\n`,
}));

const labels = ["release", "security-fix", "breaking-change", "docs", "ci", "v2-api", "perf", "deps"];
const words = ["hello", "well-known", "state-of-the-art", "x1", "long-running", "ok", "twenty-two", "end"];

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
  {
    id: "patterns",
    what: "11 common patterns (run on RegExp, proved linear)",
    spec: commonPatterns,
    // The goal for it is the one against @cfworker; 11 RegExp tests cost more than 3 JSON.parses of 400 bytes.
    goals: { vsCfworker: "<= 0.5", vsParse: "informative" },
    valid: JSON.stringify({
      id: "123e4567-e89b-12d3-a456-426614174000",
      version: "12.4.0-beta.1",
      date: "2024-05-17",
      commit: "9fceb02d0ae598e95dc970b74767f19372d61af8",
      owner: "octo-cat_42",
      url: "https://github.com/org/repo/releases/tag/v12.4.0",
      color: "#1a2b3c",
      locale: "en-GB",
      phone: "+4915123456789",
      labels,
      meta: { "x-team": "core", "x-ticket": "REL-42" },
    }),
    invalid: JSON.stringify({
      id: "123e4567-e89b-12d3-a456-426614174000",
      version: "12.4.0-beta.1",
      date: "2024-05-17",
      commit: "9fceb02d0ae598e95dc970b74767f19372d61af8",
      owner: "octo-cat_42",
      url: "https://github.com/org/repo/releases/tag/v12.4.0",
      color: "#1a2b3c",
      locale: "en-GB",
      phone: "+4915123456789",
      labels: [...labels.slice(0, 7), "Not A Label"],
      meta: { "x-team": "core", "x-ticket": "REL-42" },
    }),
  },
  {
    id: "patterns-matcher",
    what: "6 patterns only the linear-time matcher may run",
    spec: matcherPatterns,
    valid: JSON.stringify({
      to: "someone.else@mail.example.co.uk",
      host: "smtp.eu-west-1.example.com",
      subject: "The quarterly report is attached",
      attachment: "q3-report.final.pdf",
      words,
      body: "Hello,\nsee the attachment.\n",
    }),
    invalid: JSON.stringify({
      to: "someone.else@mail.example.co.uk",
      host: "smtp.eu-west-1.example.com",
      subject: "The quarterly report  is attached",
      attachment: "q3-report.final.pdf",
      words,
      body: "Hello,\nsee the attachment.\n",
    }),
    goals: { vsCfworker: "informative", vsParse: "informative" },
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
  readonly goals: { readonly vsCfworker: string; readonly vsParse: string };
}

/** Every pattern of a schema, and whether it runs on RegExp: the two pattern cases must measure what they say. */
function patternsOf(schema: unknown): [string, boolean][] {
  const out: [string, boolean][] = [];
  const walk = (v: unknown): void => {
    if (typeof v !== "object" || v === null) return;
    const o = v as Record<string, unknown>;
    const add = (p: string) => {
      const r = compilePattern(p);
      if (!r.ok) throw new Error(`${p}: ${r.why}`);
      out.push([p, r.pattern.native]);
    };
    if (typeof o["pattern"] === "string") add(o["pattern"]);
    if (typeof o["patternProperties"] === "object" && o["patternProperties"] !== null) Object.keys(o["patternProperties"]).forEach(add);
    Object.values(o).forEach(walk);
  };
  walk(schema);
  return out;
}

export function benchCheckArgs(options: MeasureOptions = {}): CheckArgsFigure[] {
  const figures: CheckArgsFigure[] = [];
  for (const [id, native] of [
    ["patterns", true],
    ["patterns-matcher", false],
  ] as const) {
    const wrong = patternsOf(CASES.find((c) => c.id === id)!.spec.inputSchema).filter(([, n]) => n !== native);
    if (wrong.length > 0) throw new Error(`${id}: ${wrong.map(([p]) => p).join(", ")} ${native ? "do not run on RegExp" : "run on RegExp"}`);
  }
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
        goals: c.goals ?? { vsCfworker: "<= 0.5", vsParse: "<= 3" },
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
  const names = [...new Set(figures.flatMap((f) => Object.keys(f.peers)))];
  console.log("\npeers, in JSON.parse-times per check (same runs; none of them does the strict JSON boundary checks):");
  console.log(`| schema | input | checkArgs | @cfworker | ${names.join(" | ")} |`);
  console.log(`|---|---|---:|---:|${names.map(() => "---:").join("|")}|`);
  for (const f of figures) {
    console.log(`| ${f.what} | ${f.input} | ${f.ratioToParse.toFixed(2)} | ${(f.baselineNs / f.jsonParseNs).toFixed(2)} | ${names.map((n) => f.peers[n]?.toFixed(2) ?? "—").join(" | ")} |`);
  }
  console.log("goals: checkArgs at most 0.5 of JSON.parse + @cfworker, and at most 3 JSON.parses");
}

export function checkArgsResults(figures: CheckArgsFigure[]): Result[] {
  return figures.flatMap((f) => {
    const detail = {
      clock: "process CPU time",
      bytes: f.bytes,
      jsonParseNs: Math.round(f.jsonParseNs),
      baselineNs: Math.round(f.baselineNs),
      checkArgsNs: Math.round(f.checkArgsNs),
      spread: [f.ratioMin, f.ratioMax],
      peersInJsonParses: f.peers,
    };
    return [
      result(`check-args.${f.id}.${f.input}.vs-cfworker`, `checkArgs / (JSON.parse + @cfworker validate), ${f.what}, ${f.input}`, f.ratio, f.goals.vsCfworker, detail),
      result(`check-args.${f.id}.${f.input}.vs-parse`, `checkArgs / JSON.parse, ${f.what}, ${f.input}`, f.ratioToParse, f.goals.vsParse, detail),
    ];
  });
}

/**
 * What the matcher costs where a backtracking RegExp never ends: checkArgs
 * of send_mail with a 100 KB subject of "a"s and two spaces against ^(\S+\s?)+$
 * (each "a" can end a word or not: 2^100000 ways for a backtracker), in
 * JSON.parse-times and nanoseconds per byte. No @cfworker figure: it would
 * not finish.
 */
export function benchHostile(options: MeasureOptions = {}): Result {
  const raw = JSON.stringify({ to: "a@b.co", host: "b.co", subject: `${"a".repeat(100_000)}  ` });
  const tool = compileTool(matcherPatterns);
  if (checkArgs(tool, raw).valid) throw new Error("hostile: the subject should be refused");
  const [parse, check] = measure(
    [
      { name: "JSON.parse", run: () => JSON.parse(raw) },
      { name: "checkArgs", run: () => checkArgs(tool, raw).valid },
    ],
    { ...options, clock: "cpu" },
  );
  const ratio = check!.medianNs / parse!.medianNs;
  console.log(
    `\ncheck-args, hostile: a ${raw.length}-byte argument RegExp would backtrack on for ever: checkArgs ${formatNs(check!.medianNs)} (${(check!.medianNs / raw.length).toFixed(1)} ns/byte), ${ratio.toFixed(1)} JSON.parses`,
  );
  return result("check-args.patterns-matcher.hostile.vs-parse", `checkArgs / JSON.parse, send_mail with a 100 KB subject that backtracks for ever on RegExp (^(\\S+\\s?)+$)`, ratio, "informative", {
    clock: "process CPU time",
    bytes: raw.length,
    jsonParseNs: Math.round(parse!.medianNs),
    checkArgsNs: Math.round(check!.medianNs),
    nsPerByte: check!.medianNs / raw.length,
  });
}
