/**
 * The layering, held (issue 28, item 2): every import of src/ and adapters/
 * (static, type-only, re-exports and dynamic `import()`) goes from a folder
 * to one scripts/lib/layers.ts allows, and no file imports itself back
 * through others (type-only imports included).
 */
import { describe, expect, it } from "vitest";
import { importCycles, projectImports, type Import } from "../scripts/lib/imports.js";
import { LAYERS, layerOf } from "../scripts/lib/layers.js";

const imports = projectImports(["src", "adapters"]);

/** The imports that go against the layers, as `from -> to (layer -> layer)`. */
function against(list: readonly Import[]): string[] {
  return list.flatMap(({ from, to }) => {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a === b || LAYERS[a]!.includes(b)) return [];
    return [`${from} -> ${to} (${a} -> ${b})`];
  });
}

describe("the arrows between folders", () => {
  it("reads the project's imports (a reader that found none would hold nothing)", () => {
    expect(imports.length).toBeGreaterThan(800);
    expect(imports.some((i) => i.from === "src/driver/session.ts" && i.to.startsWith("src/call/"))).toBe(true);
  });

  it("names every folder of src/ and adapters/ as a layer, and every layer it allows", () => {
    const layers = new Set(imports.flatMap((i) => [layerOf(i.from), layerOf(i.to)]));
    for (const l of layers) expect(LAYERS[l], l).toBeDefined();
    for (const [l, allowed] of Object.entries(LAYERS)) for (const a of allowed) expect(LAYERS[a], `${l} allows ${a}`).toBeDefined();
  });

  it("every import goes where the layers allow", () => {
    expect(against(imports)).toEqual([]);
  });

  it("the layers themselves have no cycle: each arrow points down", () => {
    const edges = Object.entries(LAYERS).flatMap(([from, to]) => to.map((t) => ({ from, to: t })));
    expect(importCycles(edges)).toEqual([]);
  });

  it("no file imports itself back through others, type-only imports included", () => {
    expect(importCycles(imports)).toEqual([]);
  });

  it("the checks catch what they are for: an import upward, and a cycle", () => {
    expect(against([{ from: "src/journal/events.ts", to: "src/driver/session.ts" }])).toEqual(["src/journal/events.ts -> src/driver/session.ts (src/journal -> src/driver)"]);
    expect(against([{ from: "src/driver/session.ts", to: "src/journal/events.ts" }])).toEqual([]);
    expect(
      importCycles([
        { from: "a", to: "b" },
        { from: "b", to: "c" },
        { from: "c", to: "a" },
      ]),
    ).toEqual([["a", "b", "c", "a"]]);
    expect(
      importCycles([
        { from: "a", to: "b" },
        { from: "a", to: "c" },
        { from: "b", to: "c" },
      ]),
    ).toEqual([]);
  });
});
