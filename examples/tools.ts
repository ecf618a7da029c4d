/**
 * The demo tools shared by the examples: a workspace reader and writer, as a
 * tool author would declare them.
 */
import { integer, nullable, strictObject, string, type ToolSpec } from "../src/index.js";

export const readFile: ToolSpec<{ path: string; limit: number | null }> = {
  name: "read_file",
  description: "Read a UTF-8 text file from the workspace, at most `limit` lines.",
  inputSchema: strictObject({
    path: string("Workspace-relative path, such as notes/todo.md", { minLength: 1, pattern: "^[^/]" }),
    limit: nullable(integer("Most lines to return; null for the default of 200", { minimum: 1, maximum: 2000 })),
  }),
  sideEffect: "read_only",
  parallelSafe: true,
  timeoutMs: 5_000,
  resources: (args) => [{ kind: "path", value: args.path }],
};

export const writeFile: ToolSpec<{ path: string; content: string }> = {
  name: "write_file",
  description: "Write a UTF-8 text file in the workspace, creating parent folders. Overwrites.",
  inputSchema: strictObject({
    path: string("Workspace-relative path", { minLength: 1, pattern: "^[^/]" }),
    content: string("The whole new content of the file"),
  }),
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
  resources: (args) => [{ kind: "path", value: args.path }],
};
