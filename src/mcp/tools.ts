/**
 * `mcpTools`: an MCP server's tools as isoagent tools, so that every call
 * passes the same gate as a local tool's. Each schema goes through isoagent's
 * compiler (a tool whose schema refers outside itself or does not compile is
 * left out, with its reason); the side effect class comes from the
 * annotations only when the server is trusted; the listing is pinned (a tool
 * that changed under a live run stops the run with TOOL_SHAPE_CHANGED before
 * it is called); results become untrusted content with artifacts; the call's
 * idempotency key and run id travel in `_meta`.
 */
import { compileSchema, loadFullSchemaSupport, type CompiledSchema } from "../schema/index.js";
import { abortRun, compileTool, isAbortRun, ToolError, type OutputPolicy, type ReconcileHook, type ResourceRef, type Tool, type ToolContext } from "../tools/index.js";
import { isIsoagentError } from "../errors.js";
import { cleanText, hasInvisible } from "../call/hygiene.js";
import { isToolError } from "../call/gate.js";
import { mapStrings } from "../call/redact.js";
import type { JsonValue } from "../json/index.js";
import { parseUrl } from "../web.js";
import { classifyTool, type McpClassification } from "./classify.js";
import type { McpConnection } from "./connection.js";
import { oneLine, presentResult, textOf } from "./content.js";
import { McpError } from "./errors.js";
import type { JsonObject } from "./jsonrpc.js";
import { definitionHash, listTools, type McpRefusedTool, type McpToolDefinition } from "./list.js";

/** The `_meta` key of the call's idempotency key, sent with every call. */
export const META_IDEMPOTENCY_KEY = "io.isoagent/idempotencyKey";
/** The `_meta` key of the run's id, sent with every call. */
export const META_RUN_ID = "io.isoagent/runId";

/** The longest tool description kept (the model sees it). */
export const MAX_DESCRIPTION_CHARS = 4096;

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** The server's name in texts and resources. Default: the name it gave at initialization. */
  readonly name?: string | undefined;
  /** Put before every tool's name (`github_`), to keep names apart across servers. Default "". */
  readonly prefix?: string | undefined;
  /**
   * Take the side effect class from the server's annotations (see
   * {@link classifyTool}). Default false: every tool is `destructive` and asks;
   * the annotations are only shown to the operator.
   */
  readonly trustAnnotations?: boolean | undefined;
  /** The application's own classification of a tool (undefined: no opinion). It wins over the annotations. */
  readonly classify?: ((tool: McpToolDefinition) => McpClassification | undefined) | undefined;
  /** Which of the server's tools to take. Default: all. */
  readonly include?: ((tool: McpToolDefinition) => boolean) | undefined;
  /** Each tool's timeout (its call is cancelled with notifications/cancelled past it). Default 60,000 ms. */
  readonly timeoutMs?: number | undefined;
  /** Default `{ strategy: "head" }`, so the untrusted-content header always shows. */
  readonly outputPolicy?: OutputPolicy | undefined;
  /**
   * When the server's list is read again to check a tool before calling it:
   * "on_change" (the default) after a tools/list_changed notification or a
   * new session; "every_call" before every call (one more request each).
   */
  readonly verify?: "on_change" | "every_call" | undefined;
}

/** What {@link mcpTools} made of a server's tools. */
export interface McpToolSet {
  /** The tools, in the server's order, ready for `createDriver`. */
  readonly tools: Tool<never, unknown>[];
  /** The server's tools left out, each with its reason. */
  readonly refused: readonly McpRefusedTool[];
  /** After a crash: "run again" (same key) for the tools classified idempotent; the operator for the rest. */
  readonly reconcile: ReconcileHook;
  readonly server: { readonly name: string; readonly version: string; readonly protocolVersion: string };
}

const LIST_CHANGED_NOTE = "the server announced a change to its tools (notifications/tools/list_changed); this run keeps the tools it was offered";

function describeAnnotations(a: JsonObject | undefined): string {
  if (a === undefined) return "none";
  const keys = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"].filter((k) => Object.hasOwn(a, k));
  return keys.length === 0 ? "none" : keys.map((k) => `${k}: ${oneLine(JSON.stringify(a[k]), 100)}`).join(", ");
}

/** A call's failure to reach an answer, in the error contract's words. */
function transportError(server: string, tool: string, readOnly: boolean, e: unknown): ToolError {
  if (isIsoagentError(e, "MCP_RPC_ERROR")) {
    const m = e as McpError;
    return new ToolError(`the MCP server ${JSON.stringify(server)} refused the call to ${tool} (error ${m.rpcCode ?? "unknown"}): ${oneLine(m.serverMessage ?? m.message, 1000)}`, {
      next: m.rpcCode === -32602 ? `Check the arguments against ${tool}'s schema, then call it again.` : `Call ${tool} again only if a different request could avoid this.`,
      recovery: "If it is refused again, stop and report it.",
    });
  }
  const why = isIsoagentError(e) ? oneLine(e.message, 300) : "unknown failure";
  return new ToolError(`the call to ${tool} on the MCP server ${JSON.stringify(server)} did not complete (${why})${readOnly ? "" : "; whether it took effect is unknown"}.`, {
    next: readOnly ? `Call ${tool} again once.` : `Check whether it took effect before calling ${tool} again.`,
    recovery: "If it fails again, stop and say the MCP server cannot be reached.",
  });
}

/**
 * Whether a schema (compiled, so of bounded depth) has an invisible
 * formatting character in any string or key: it reaches the model as the
 * server wrote it, so it cannot be cleaned without changing what it checks.
 */
function invisibleIn(schema: JsonObject): boolean {
  let found = false;
  const look = (text: string): string => ((found ||= hasInvisible(text)), text);
  mapStrings(schema, look, look);
  return found;
}

/**
 * Compiles, loading full schema support first when the schema needs it: a
 * server's schemas often assert formats (`uri`, `date-time`), and a listing
 * is asynchronous anyway, so MCP users never have to load it themselves.
 */
async function withFullSupport<T>(compile: () => T): Promise<T> {
  try {
    return compile();
  } catch (e) {
    if (!(isIsoagentError(e) && e.code === "SCHEMA_NEEDS_FULL_SUPPORT")) throw e;
    await loadFullSchemaSupport();
    return compile();
  }
}

/**
 * Turns the tools of a connected MCP server into isoagent tools.
 *
 * @example
 * ```ts
 * const connection = await connectMcp({ url: "https://mcp.example.com/mcp" })
 * const weather = await mcpTools(connection, { prefix: "weather_", trustAnnotations: true })
 * const driver = createDriver({ agent, tools: [...weather.tools], reconcile: weather.reconcile })
 * console.log(weather.refused) // [{ name: "remote_schema", code: "SCHEMA_EXTERNAL_REF", reason: "..." }]
 * ```
 */
export async function mcpTools(connection: McpConnection, options: McpToolsOptions = {}): Promise<McpToolSet> {
  const prefix = options.prefix ?? "";
  if (typeof prefix !== "string" || !/^[A-Za-z0-9_-]{0,32}$/.test(prefix)) throw new McpError("MCP_OPTIONS_INVALID", "prefix must be at most 32 of [A-Za-z0-9_-]");
  const server = oneLine(options.name ?? connection.serverInfo.name, 100) || "mcp";
  const host = connection.url === undefined ? undefined : parseUrl(connection.url)?.hostname.toLowerCase();
  const listed = await listTools(connection);
  const refused: McpRefusedTool[] = [...listed.refused];
  const tools: Tool<never, unknown>[] = [];
  const idempotent = new Set<string>();
  const pinned = new Map<string, string>();
  let checked = { generation: connection.generation, changes: connection.toolsChanged };
  let checking: Promise<void> | undefined;
  /** The pinned tools the server changed ("changed") or dropped ("removed"), as of the last listing. */
  const drift = new Map<string, "changed" | "removed">();
  const baseline = connection.toolsChanged;
  const noted = new Map<string, number>();

  /** Lists the server's tools again when a check is due (one listing at a time), and records which pinned tools drifted. */
  const verify = async (): Promise<void> => {
    const due = options.verify === "every_call" || connection.generation !== checked.generation || connection.toolsChanged !== checked.changes;
    if (!due) return;
    checking ??= (async () => {
      const at = { generation: connection.generation, changes: connection.toolsChanged };
      try {
        const now = new Map((await listTools(connection)).tools.map((t) => [t.name, definitionHash(t)]));
        drift.clear();
        for (const [name, hash] of pinned) {
          const live = now.get(name);
          if (live !== hash) drift.set(name, live === undefined ? "removed" : "changed");
        }
        checked = at;
      } finally {
        checking = undefined;
      }
    })();
    return checking;
  };

  for (const def of listed.tools) {
    if (options.include !== undefined && !options.include(def)) continue;
    const name = `${prefix}${def.name}`;
    try {
      let outputSchema: CompiledSchema | undefined;
      if (def.outputSchema !== undefined) {
        const schema = def.outputSchema;
        outputSchema = await withFullSupport(() => compileSchema(schema, { toolSchema: true }));
      }
      const custom = options.classify?.(def);
      const c = classifyTool(def.annotations, options.trustAnnotations === true, custom);
      const description = cleanText(def.description ?? def.title ?? "").text.trim();
      const shortDescription = description.length > MAX_DESCRIPTION_CHARS ? `${description.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : description;
      const readOnly = c.sideEffect === "read_only";
      const how =
        custom !== undefined && custom !== null
          ? "classified by the application"
          : options.trustAnnotations === true
            ? "from the server's annotations, which this application trusts"
            : "the server's annotations are not trusted";
      const resources: ResourceRef[] = [{ kind: "mcp_tool", value: `${server}/${def.name}` }, ...(host === undefined ? [] : [{ kind: "host", value: host, operation: "network" as const }])];
      const tool: Tool<never, unknown> = {
        name,
        description: shortDescription === "" ? `The ${def.name} tool of the MCP server ${server}.` : shortDescription,
        inputSchema: def.inputSchema as JsonValue as never,
        sideEffect: c.sideEffect,
        permission: c.permission,
        timeoutMs: options.timeoutMs ?? 60_000,
        outputPolicy: { strategy: "head", ...options.outputPolicy },
        resources: () => resources,
        preview: (args: never) =>
          [
            `MCP server ${JSON.stringify(server)}${connection.url === undefined ? "" : ` at ${connection.url}`}, tool ${JSON.stringify(def.name)}.`,
            `Treated as ${c.sideEffect}, permission ${c.permission} (${how}).`,
            `The server's annotations (hints nobody checked): ${describeAnnotations(def.annotations)}.`,
            "Arguments:",
            JSON.stringify(args, null, 2),
          ].join("\n"),
        activity: (_a: never, result: JsonValue) =>
          `MCP ${server}/${def.name}${typeof result === "string" && result.includes(LIST_CHANGED_NOTE) ? " (the server's tool list changed; not applied)" : ""}`,
        call: async (args: never, ctx: ToolContext) => {
          /** The tool as this run was offered it, or the run stops here (TOOL_SHAPE_CHANGED): before the call, and again before it is sent in a new session. */
          const guard = async (): Promise<void> => {
            await verify().catch((e: unknown) => {
              throw transportError(server, name, readOnly, e);
            });
            const drifted = drift.get(def.name);
            if (drifted !== undefined) {
              throw abortRun(
                `TOOL_SHAPE_CHANGED: the MCP server ${JSON.stringify(server)} ${drifted === "removed" ? "no longer offers" : "changed"} tool ${JSON.stringify(def.name)} (its description, schemas or annotations) since this run was offered it; it was not called. Start a new run to use what the server offers now.`,
              );
            }
          };
          await guard();
          const notes: string[] = [];
          const seen = noted.get(ctx.runId) ?? baseline;
          if (connection.toolsChanged > seen) notes.push(`[Note: ${LIST_CHANGED_NOTE}, and ${def.name} is unchanged.]`);
          noted.set(ctx.runId, connection.toolsChanged);
          if (noted.size > 1024) noted.delete(noted.keys().next().value!);
          let r: JsonObject;
          try {
            r = await connection.request(
              "tools/call",
              { name: def.name, arguments: args as JsonValue, _meta: { [META_IDEMPOTENCY_KEY]: ctx.idempotencyKey, [META_RUN_ID]: ctx.runId } },
              {
                signal: ctx.signal,
                onProgress: (p) => ctx.progress(p),
                context: { tool: name, runId: ctx.runId, callId: ctx.callId },
                // A new session: the list is read again (a rug pull would otherwise hide behind it).
                beforeResend: guard,
              },
            );
          } catch (e) {
            if (isToolError(e) || isAbortRun(e)) throw e; // the guard's, before a resend

            throw transportError(server, name, readOnly, e);
          }
          const content = Array.isArray(r["content"]) ? r["content"] : [];
          if (r["isError"] === true) {
            const text = textOf(content).trim();
            throw new ToolError(text === "" ? `${name} reported an error without saying what` : text, {
              next: `Read the error; call ${name} again only with arguments that avoid it.`,
              recovery: "If the same error comes back, stop and report it.",
            });
          }
          if (outputSchema !== undefined) {
            const structured = r["structuredContent"];
            const verdict = structured === undefined ? undefined : outputSchema.validate(structured as JsonValue);
            if (verdict === undefined || !verdict.valid) {
              const why =
                verdict === undefined
                  ? "none was returned"
                  : verdict.issues
                      .slice(0, 3)
                      .map((i) => `${i.instanceLocation || "/"}: ${i.message}`)
                      .join("; ");
              throw new ToolError(`${name} returned structured content that does not match its declared output schema (${oneLine(why, 500)}).`, {
                next: `Do not rely on this output; call ${name} again only if a different request could avoid it.`,
                recovery: "If it happens again, stop and report it.",
              });
            }
          }
          return presentResult(server, def.name, r, (bytes) => ctx.putArtifact(bytes), notes);
        },
      };
      await withFullSupport(() => compileTool(tool));
      if (invisibleIn(def.inputSchema) || (def.outputSchema !== undefined && invisibleIn(def.outputSchema))) {
        refused.push({
          name: def.name,
          code: "MCP_TOOL_INVALID",
          reason: "its schema carries invisible formatting characters (bidirectional controls or tag characters), which would reach the model unseen",
        });
        continue;
      }
      pinned.set(def.name, definitionHash(def));
      if (c.idempotent === true && !readOnly) idempotent.add(name);
      tools.push(tool);
    } catch (e) {
      refused.push({ name: def.name, code: isIsoagentError(e) ? e.code : "MCP_TOOL_INVALID", reason: isIsoagentError(e) ? e.message : "it could not be made into a tool" });
    }
  }
  return {
    tools,
    refused,
    reconcile: (call) => (idempotent.has(call.tool) ? { action: "run_again" } : { action: "ask_operator" }),
    server: { name: server, version: connection.serverInfo.version, protocolVersion: connection.protocolVersion },
  };
}
