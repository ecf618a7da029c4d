import { hashJsonSync } from "../json/index.js";
import type { CompiledTool } from "./compile.js";

/**
 * The hash of a tool's shape: name, description, input schema, side effect
 * (what `run.created` records per tool, and an approval request binds).
 */
export function shapeHash(tool: Pick<CompiledTool<never>, "name" | "description" | "inputSchema" | "sideEffect">): string {
  return hashJsonSync({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, sideEffect: tool.sideEffect });
}
