/**
 * Ready-made crash scenarios: a tool of a given side-effect class that
 * appends items to an outside list, keyed by the call's idempotency key, so
 * that an attempt run again answers from its record instead of acting twice.
 */
import { call, calls, final, scriptedAgent } from "../agents/index.js";
import type { JsonValue } from "../json/index.js";
import { strictObject, string } from "../schema/index.js";
import { defineTool, type SideEffect, type Tool } from "../tools/index.js";
import type { CrashScenario } from "./crash.js";

/** Where a scenario's world lives: in memory by default, or in a Web Storage (localStorage survives a page reload). */
export interface WorldStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * A scenario for a side-effect class: two calls of `add_item`, then a final
 * answer. With `idempotent` (the default), the tool recognises its own
 * earlier attempt by its idempotency key.
 */
export function listScenario(sideEffect: SideEffect, options: { idempotent?: boolean; storage?: WorldStorage; prefix?: string } = {}): CrashScenario {
  const idempotent = options.idempotent ?? true;
  const key = (name: string): string => `${options.prefix ?? "world"}:${name}`;
  return {
    name: `${sideEffect}${idempotent ? "" : " (not idempotent)"}`,
    task: { goal: "add a and b to the list" },
    tool: "add_item",
    idempotent,
    setup() {
      // A fresh world per setup, unless the caller keeps it in a storage
      // that must outlive the page (then the caller isolates it by prefix).
      const memory = new Map<string, string>();
      const storage: WorldStorage = options.storage ?? { getItem: (k) => memory.get(k) ?? null, setItem: (k, v) => void memory.set(k, v) };
      const load = <T>(name: string, fallback: T): T => JSON.parse(storage.getItem(key(name)) ?? JSON.stringify(fallback)) as T;
      const addItem = defineTool<{ item: string }>({
        name: "add_item",
        description: "Add an item to the list.",
        inputSchema: strictObject({ item: string("The item") }),
        sideEffect,
        ...(sideEffect === "read_only" ? {} : { permission: "allow" as const }),
        timeoutMs: 1000,
        call: (args, ctx) => {
          const byKey = load<Record<string, JsonValue>>("byKey", {});
          const earlier = byKey[ctx.idempotencyKey];
          if (idempotent && earlier !== undefined) return earlier;
          const items = [...load<string[]>("items", []), args.item];
          const result = { size: items.length };
          byKey[ctx.idempotencyKey] = result;
          // One write for both, as one system would record them together.
          storage.setItem(key("items"), JSON.stringify(items));
          storage.setItem(key("byKey"), JSON.stringify(byKey));
          return result;
        },
      });
      return { tools: [addItem as Tool<never, unknown>], state: () => ({ items: load<string[]>("items", []) }) };
    },
    agent: () => scriptedAgent([calls(call("add_item", { item: "a" })), calls(call("add_item", { item: "b" })), final("added")]),
  };
}
