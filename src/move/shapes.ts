/** The shapes of a driver's tools, as `run.created` records them and an import checks them. */
import { shapeHash } from "../tools/shape.js";
import { compileTools, type Tool } from "../tools/index.js";

/**
 * The shape hashes of the tools a driver offers (all but deny), as its
 * runs' `run.created` records them: what {@link importRun} holds a run to
 * before this place takes it.
 */
export function toolShapes(tools: readonly Tool<never, unknown>[]): { name: string; specHash: string }[] {
  return compileTools(tools)
    .filter((c) => c.permission !== "deny")
    .map((c) => ({ name: c.name, specHash: shapeHash(c) }));
}
