import type { JsonValue } from "../json/index.js";
import type { ArgsCheck } from "./check.js";
import { compileTool, specKey, type CompiledTool } from "./compile.js";
import type { ToolSpec } from "./spec.js";

/** How many compiled specs {@link checkArgs} keeps. */
export const CHECK_ARGS_CACHE_SIZE = 16;

interface Entry {
  spec: ToolSpec<never>;
  key: string | undefined;
  tool: CompiledTool<never>;
}

// Most recently used first. Small and linear on purpose: a loop over one spec
// hits the first entry by identity.
const cache: Entry[] = [];

/** @internal The compiled tool for a spec, from the cache or compiled now. */
export function compiledFor(spec: ToolSpec<never>): CompiledTool<never> {
  const first = cache[0];
  if (first !== undefined && first.spec === spec) return first.tool;
  for (let k = 1; k < cache.length; k++) {
    if (cache[k]!.spec === spec) return touch(k);
  }
  // Another object with the same content (a spec rebuilt per call) compiles
  // to the same tool.
  let key: string | undefined;
  try {
    key = specKey(spec);
  } catch {
    key = undefined; // not JSON: compileTool gives the precise refusal
  }
  if (key !== undefined) {
    for (let k = 0; k < cache.length; k++) {
      if (cache[k]!.key === key) {
        cache[k]!.spec = spec;
        return touch(k);
      }
    }
  }
  const tool = compileTool(spec);
  cache.unshift({ spec, key, tool });
  if (cache.length > CHECK_ARGS_CACHE_SIZE) cache.pop();
  return tool;
}

function touch(k: number): CompiledTool<never> {
  if (k === 0) return cache[0]!.tool;
  const [entry] = cache.splice(k, 1);
  cache.unshift(entry!);
  return entry!.tool;
}

/**
 * {@link compileTool} and `check` in one call: the runtime's acceptance of raw
 * argument text for a spec, without a driver or a store. Throws the
 * {@link ToolSpecError} the driver would give when the spec itself is
 * refused. Keeps the compiled forms of the last few specs (by identity, then
 * by content), so a loop over one spec does not recompile; a caller holding
 * many specs should keep {@link compileTool}'s results instead.
 *
 * @example
 * ```ts
 * const r = checkArgs(readFileSpec, '{"path": 3}')
 * if (!r.valid) console.log(r.text)
 * // Error: invalid arguments for read_file: at /path: expected string, got integer
 * // [Next: ...]
 * ```
 */
export function checkArgs<Args = JsonValue>(spec: ToolSpec<Args>, rawArgs: string | Uint8Array): ArgsCheck<Args> {
  return compiledFor(spec as ToolSpec<never>).check(rawArgs) as ArgsCheck<Args>;
}
