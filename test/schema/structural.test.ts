import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { structuralDataSource } from "../../scripts/lib/structural-metaschemas.js";
import type { JsonValue } from "../../src/index.js";
import { SCHEMA_DRAFTS, type SchemaDraft } from "../../src/schema/index.js";
import { isCarriedMetaschema } from "../../src/schema/drafts.js";
import { FULL_SCHEMA_SUPPORT } from "../../src/schema/full.js";
import { METASCHEMAS } from "../../src/schema/metaschemas.js";
import { metaschemaIssues } from "../../src/schema/structural.js";
import { rng } from "../helpers/rng.js";
import { suiteDir } from "../helpers/suites.js";

/**
 * The core checks a schema against its draft's structural metaschema with
 * the fast evaluator; full support has @cfworker/json-schema check it
 * against the carried metaschema. They must agree: same verdict, same
 * issues (location and message, in order).
 */
const issues = (list: readonly { instanceLocation: string; message: string }[] | undefined): string[] => (list ?? []).map((i) => `${i.instanceLocation} ${i.message}`);
/**
 * Where they differ, or undefined. In 2019-09, @cfworker resolves the
 * vocabulary metaschemas' `$recursiveRef: "#"` to the vocabulary itself,
 * not to the outermost `$recursiveAnchor` (the dialect metaschema), so it
 * lets `items: [{ type: "strin" }]` pass, and its messages there lose the
 * keyword's value ("must be >= undefined"). The structural metaschema
 * follows the specification; there, only "refuses at least what @cfworker
 * refuses" is asked.
 */
const same = (value: unknown, draft: SchemaDraft): string | undefined => {
  const ours = issues(metaschemaIssues(value as JsonValue, draft));
  const reference = issues(FULL_SCHEMA_SUPPORT.metaschemaIssues(value as JsonValue, draft));
  const agree = draft === "2019-09" ? reference.length === 0 || ours.length > 0 : JSON.stringify(ours) === JSON.stringify(reference);
  return agree ? undefined : `${draft} ${JSON.stringify(value)}: structural ${JSON.stringify(ours)} reference ${JSON.stringify(reference)}`;
};

const { dir, present } = suiteDir("JSON-Schema-Test-Suite");
// The suite's draft7 and draft2020-12 folders (the ones ../shared/suites
// holds), their schemas read as every draft: a schema is only data to a
// metaschema.
const FOLDERS = ["draft7", "draft2020-12"];
const BAD_VALUES: unknown[] = [-1, 1.5, "x", "", [], [1, 1], ["a", "a"], {}, { a: 1 }, null, true, false, 0, [{}], { a: "b" }];

function suiteSchemas(folder: string): unknown[] {
  const out: unknown[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f.endsWith(".json")) for (const c of JSON.parse(readFileSync(p, "utf8")) as { schema: unknown }[]) out.push(c.schema);
    }
  };
  walk(join(dir, "tests", folder));
  return out;
}

/** Every keyword of every schema object, its value replaced by each bad value in turn. */
function* mutations(schema: unknown, r: () => number): Generator<unknown> {
  const json = JSON.stringify(schema);
  const paths: (string | number)[][] = [];
  const visit = (v: unknown, path: (string | number)[]): void => {
    if (Array.isArray(v)) v.forEach((x, k) => visit(x, [...path, k]));
    else if (typeof v === "object" && v !== null) for (const [k, x] of Object.entries(v)) (paths.push([...path, k]), visit(x, [...path, k]));
  };
  visit(schema, []);
  for (const path of paths) {
    const bad = BAD_VALUES[Math.floor(r() * BAD_VALUES.length)];
    const copy = JSON.parse(json) as Record<string | number, unknown>;
    let node = copy;
    for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
    node[path[path.length - 1]!] = bad;
    yield copy;
  }
}

describe("the structural metaschemas", () => {
  it("are what scripts/lib/structural-metaschemas.ts derives from the carried metaschemas (npm run gen:structural)", () => {
    expect(readFileSync("src/schema/structural-data.ts", "utf8")).toBe(structuralDataSource());
  });

  it("name every carried metaschema as carried, and nothing else", () => {
    for (const m of METASCHEMAS as { $id?: string; id?: string }[]) expect(isCarriedMetaschema((m.$id ?? m.id)!.replace(/#$/, ""))).toBe(true);
    expect(isCarriedMetaschema("https://json-schema.org/draft/2020-12/meta/nothing")).toBe(false);
    expect(isCarriedMetaschema("https://json-schema.org/draft/2020-12/meta/format-assertion")).toBe(false);
  });

  it("refuse what the carried metaschemas refuse, with the same issues, on hand-picked schemas of every draft", () => {
    const cases: unknown[] = [
      { type: 5 },
      { type: ["string", "string"] },
      { required: "path" },
      { properties: { a: { minLength: -1 } } },
      { minimum: "1" },
      { items: [{ type: "strin" }] },
      { enum: [] },
      { enum: [1, 1] },
      { allOf: [] },
      { $id: "#a" },
      { $anchor: "1a" },
      { exclusiveMinimum: true },
      { exclusiveMaximum: 3 },
      { definitions: { a: 5 } },
      { $defs: { a: { type: 1 } } },
      { dependencies: { a: 3 } },
      { dependentRequired: { a: [1] } },
      { multipleOf: 0 },
      { multipleOf: -2 },
      { contains: 1 },
      { prefixItems: [] },
      { unevaluatedProperties: "x" },
      { $comment: 1 },
      { title: 1 },
      true,
      false,
      3,
      null,
    ];
    const wrong: string[] = [];
    for (const draft of SCHEMA_DRAFTS) for (const c of cases) wrong.push(...[same(c, draft)].filter((x): x is string => x !== undefined));
    expect(wrong).toEqual([]);
  });

  it("follow the specification in 2019-09, where @cfworker resolves $recursiveRef in the vocabulary and lets a bad subschema through", () => {
    expect(issues(metaschemaIssues({ items: [{ type: "strin" }] }, "2019-09"))).toEqual(['/items must match at least one of the schemas in "anyOf"']);
    expect(issues(FULL_SCHEMA_SUPPORT.metaschemaIssues({ items: [{ type: "strin" }] }, "2019-09"))).toEqual([]);
    expect(issues(metaschemaIssues({ properties: { a: { minLength: -1 } } }, "2019-09"))).toEqual(["/properties/a/minLength must be >= 0"]);
  });

  describe.skipIf(!present)("over the JSON Schema Test Suite", () => {
    beforeAll(() => expect(present).toBe(true));
    for (const draft of SCHEMA_DRAFTS) {
      it(`${draft}: every schema of the suite, and each with one keyword's value broken`, () => {
        const r = rng(18);
        const wrong: string[] = [];
        let refused = 0;
        let count = 0;
        for (const schema of FOLDERS.flatMap(suiteSchemas)) {
          for (const s of [schema, ...mutations(schema, r)]) {
            count++;
            if (metaschemaIssues(s as JsonValue, draft) !== undefined) refused++;
            const w = same(s, draft);
            if (w !== undefined && wrong.length < 20) wrong.push(w);
          }
        }
        expect(wrong).toEqual([]);
        // The comparison means something: many schemas refused, many accepted.
        expect(refused).toBeGreaterThan(count / 10);
        expect(count - refused).toBeGreaterThan(count / 10);
      });
    }
  });
});
