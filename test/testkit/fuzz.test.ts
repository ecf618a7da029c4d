import { describe, expect, it } from "vitest";
import { array, boolean, defineTool, enumOf, integer, nullable, number, strictObject, string, ToolError, type Tool } from "../../src/index.js";
import { fuzz } from "../../src/testkit/index.js";

// Five realistic tool schemas: flat, patterned, nested with arrays, bounded
// numbers with multiples, and references into $defs.
const tools: Tool<never, unknown>[] = [
  defineTool<{ path: string; offset: number | null; limit: number | null }>({
    name: "read_file",
    description: "Read a file.",
    inputSchema: strictObject({
      path: string("Path", { minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$" }),
      offset: nullable(integer("Line", { minimum: 0 })),
      limit: nullable(integer("Lines", { minimum: 1, maximum: 2000 })),
    }),
    sideEffect: "read_only",
    timeoutMs: 1000,
    call: (a) => {
      if (a.path.includes("..")) throw new ToolError("path escapes the workspace");
      return { path: a.path, lines: [] };
    },
  }),
  defineTool<{ path: string; content: string; mode: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string("Path", { pattern: "^[a-z][a-z0-9/_-]*\\.(md|txt|json)$" }), content: string("Content", { maxLength: 10000 }), mode: enumOf(["overwrite", "append"]) }),
    sideEffect: "local_mutation",
    permission: "ask",
    timeoutMs: 1000,
    call: (a) => ({ written: a.content.length }),
  }),
  defineTool({
    name: "http_request",
    description: "Send a request.",
    inputSchema: strictObject(
      {
        url: string("URL", { pattern: "^https://[a-z0-9.-]+(/[A-Za-z0-9._~/-]*)?$" }),
        method: enumOf(["GET", "POST", "PUT", "DELETE"]),
        headers: array(strictObject({ name: string("Name", { pattern: "^[A-Za-z0-9-]+$" }), value: string("Value", { maxLength: 100 }) }), "Headers", { maxItems: 4 }),
        body: nullable(string("Body", { maxLength: 1000 })),
        retry: strictObject({ count: integer("Retries", { minimum: 0, maximum: 5 }), backoffMs: number("Backoff", { minimum: 0, maximum: 10000 }) }, ["count"]),
      },
      ["url", "method"],
    ),
    sideEffect: "remote_mutation",
    permission: "ask",
    timeoutMs: 1000,
    call: () => ({ status: 200 }),
  }),
  defineTool({
    name: "apply_edits",
    description: "Apply edits.",
    inputSchema: {
      type: "object",
      additionalProperties: false,
      required: ["edits"],
      properties: { edits: { type: "array", minItems: 1, maxItems: 5, items: { $ref: "#/$defs/edit" } }, dry_run: { type: "boolean" } },
      $defs: {
        edit: {
          type: "object",
          additionalProperties: false,
          required: ["path", "old_text", "new_text"],
          properties: { path: { type: "string", minLength: 1 }, old_text: { type: "string", minLength: 1 }, new_text: { type: "string" } },
        },
      },
    },
    sideEffect: "local_mutation",
    permission: "allow",
    timeoutMs: 1000,
    call: () => ({ applied: true }),
  }),
  defineTool({
    name: "schedule",
    description: "Schedule a job.",
    inputSchema: strictObject(
      {
        every_minutes: integer("Interval", { minimum: 5, maximum: 1440, multipleOf: 5 }),
        priority: number("Priority", { exclusiveMinimum: 0, exclusiveMaximum: 1 }),
        tags: array(string("Tag", { minLength: 2, maxLength: 8 }), "Tags", { uniqueItems: true, maxItems: 3 }),
        kind: { anyOf: [{ const: "cron" }, { type: "object", required: ["at"], properties: { at: { type: "string" } }, additionalProperties: false }] },
        enabled: boolean("On"),
      },
      ["every_minutes", "kind"],
    ),
    sideEffect: "remote_mutation",
    permission: "ask",
    timeoutMs: 1000,
    call: () => ({ scheduled: true }),
  }),
] as Tool<never, unknown>[];

describe("fuzz: generated arguments and near misses", () => {
  it("over 5 realistic schemas and 10,000+ arguments: no invalid argument reaches a tool, no valid one is refused, no crash", async () => {
    let total = 0;
    const kinds = new Set<string>();
    for (const [k, tool] of tools.entries()) {
      const report = await fuzz(tool, { seed: 100 + k, count: 2200 });
      total += report.samples;
      for (const kind of Object.keys(report.byKind)) kinds.add(kind);
      expect(report.invalidAccepted, tool.name).toEqual([]);
      expect(report.validRefused, tool.name).toEqual([]);
      expect(report.crashes, tool.name).toEqual([]);
      // Both sides are exercised.
      expect(report.valid, tool.name).toBeGreaterThan(200);
      expect(report.invalid, tool.name).toBeGreaterThan(1000);
      expect(report.reachedTool).toBe(report.valid);
    }
    expect(total).toBeGreaterThanOrEqual(10_000);
    expect([...kinds].sort()).toEqual(["extra_property", "lone_surrogate", "missing_required", "out_of_range", "pattern_miss", "repeated_key", "too_deep", "trailing_comma", "valid", "wrong_type"]);
  });

  it("reports a tool that throws something other than a ToolError as a crash", async () => {
    // A tool that throws a plain Error on some valid input is a crash.
    const fragile = defineTool<{ n: number }>({
      name: "fragile",
      description: "Crashes on even numbers.",
      inputSchema: strictObject({ n: integer("N", { minimum: 0, maximum: 9 }) }),
      sideEffect: "read_only",
      timeoutMs: 100,
      call: (a) => {
        if (a.n % 2 === 0) throw new TypeError("boom");
        return a.n;
      },
    });
    const report = await fuzz(fragile as Tool<never, unknown>, { seed: 3, count: 200 });
    expect(report.crashes.length).toBeGreaterThan(0);
    expect(report.crashes[0]!.error).toBe("TypeError");
  });

  it("is deterministic for a seed", async () => {
    const a = await fuzz(tools[2]!, { seed: 9, count: 300, call: false });
    const b = await fuzz(tools[2]!, { seed: 9, count: 300, call: false });
    expect(a).toEqual(b);
  });
});

describe("fuzz over formats, which tool schemas assert", () => {
  it("generates values every checked format accepts", async () => {
    const formats = [
      "date-time",
      "date",
      "time",
      "duration",
      "email",
      "hostname",
      "ipv4",
      "ipv6",
      "uri",
      "uri-reference",
      "iri",
      "iri-reference",
      "uuid",
      "uri-template",
      "json-pointer",
      "relative-json-pointer",
      "regex",
    ];
    const tool = defineTool({
      name: "formats",
      description: "Take one of each format.",
      inputSchema: strictObject(Object.fromEntries(formats.map((f) => [f.replace(/-/g, "_"), string(f, { format: f })]))),
      sideEffect: "read_only",
      timeoutMs: 1000,
      call: () => ({}),
    });
    const report = await fuzz(tool as Tool<never, unknown>, { seed: 3, count: 200 });
    expect(report.validRefused).toEqual([]);
    expect(report.valid).toBeGreaterThan(0);
  });
});
