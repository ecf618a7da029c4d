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

/**
 * A scenario for a side-effect class: two calls of `add_item`, then a final
 * answer. With `idempotent` (the default), the tool recognises its own
 * earlier attempt by its idempotency key.
 */
export function listScenario(sideEffect: SideEffect, options: { idempotent?: boolean } = {}): CrashScenario {
  const idempotent = options.idempotent ?? true;
  return {
    name: `${sideEffect}${idempotent ? "" : " (not idempotent)"}`,
    task: { goal: "add a and b to the list" },
    tool: "add_item",
    idempotent,
    setup() {
      const items: string[] = [];
      const byKey = new Map<string, JsonValue>();
      const addItem = defineTool<{ item: string }>({
        name: "add_item",
        description: "Add an item to the list.",
        inputSchema: strictObject({ item: string("The item") }),
        sideEffect,
        ...(sideEffect === "read_only" ? {} : { permission: "allow" as const }),
        timeoutMs: 1000,
        call: (args, ctx) => {
          const earlier = byKey.get(ctx.idempotencyKey);
          if (idempotent && earlier !== undefined) return earlier;
          items.push(args.item);
          const result = { size: items.length };
          byKey.set(ctx.idempotencyKey, result);
          return result;
        },
      });
      return { tools: [addItem as Tool<never, unknown>], state: () => ({ items: [...items] }) };
    },
    agent: () => scriptedAgent([calls(call("add_item", { item: "a" })), calls(call("add_item", { item: "b" })), final("added")]),
  };
}
