/**
 * The node project runs its files in shared module graphs (`isolate: false`
 * in vitest.config.ts: each worker imports the core once, not once a file,
 * which took a third of the project's CPU). So a file must leave the state
 * the core keeps in its modules, and the globals, as it found them. This
 * guard, a setup file of that project, fails the file that does not,
 * whatever ran before it:
 * - full schema support, once loaded, stays loaded (`loadFullSchemaSupport`,
 *   or an MCP listing of a schema with a format): a file that loads it runs
 *   with modules of its own, in the node-isolated project;
 * - fake timers must be turned off again, and `fetch` given back.
 */
import { afterAll, beforeAll, vi } from "vitest";
import { fullSupport } from "../../src/schema/support.js";

let loadedBefore = false;
let fetchBefore: typeof fetch;

beforeAll(() => {
  loadedBefore = fullSupport() !== undefined;
  fetchBefore = globalThis.fetch;
});

afterAll(() => {
  const left: string[] = [];
  if (!loadedBefore && fullSupport() !== undefined) left.push("it loaded full schema support, which stays loaded for every file after it: list it in OWN_MODULES (vitest.config.ts)");
  if (vi.isFakeTimers()) left.push("it left fake timers on (vi.useRealTimers() in an afterEach)");
  if (globalThis.fetch !== fetchBefore) left.push("it left globalThis.fetch replaced");
  if (left.length > 0) throw new Error(`this file shares its modules with the node project's other files, but ${left.join("; ")}`);
});
