/**
 * {@link loadFullSchemaSupport}, apart from support.ts so that an entry
 * that never calls it has no lazy chunk at all.
 */
import { installFullSupport } from "./support.js";

/**
 * Loads full schema support, once (later calls return at once): the
 * @cfworker/json-schema evaluator for schemas the fast evaluator does not
 * take (`unevaluatedProperties`, `dependencies`, tuple `items`,
 * `$recursiveRef`, ...), the carried draft metaschemas (for a `$ref` to
 * one), `$dynamicRef` resolution, and the format checkers (a tool schema
 * asserts `format` by default). It is a chunk of its own: an application
 * whose schemas need none of it never loads it. After it, `compileTool`,
 * `checkArgs`, `compileSchema` and `createDriver` (all synchronous) accept
 * those schemas; before it, they refuse them with SCHEMA_NEEDS_FULL_SUPPORT.
 *
 * @example
 * ```ts
 * await loadFullSchemaSupport()
 * compileTool({ ...spec, inputSchema: strictObject({ to: string("Recipient", { format: "email" }) }) })
 * ```
 */
export async function loadFullSchemaSupport(): Promise<void> {
  installFullSupport((await import("./full.js")).FULL_SCHEMA_SUPPORT);
}
