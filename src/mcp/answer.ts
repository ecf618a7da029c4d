/**
 * What a server asks of isoagent's client: ping; elicitation, to the
 * application's handler (declined by default; the schema and the accepted
 * content checked, see elicit.ts); sampling, refused unless the application
 * gives a sampling agent; anything else, method not found.
 */
import { cleanText } from "../call/hygiene.js";
import type { AbortSignalLike } from "../web.js";
import { checkedContent, declineElicitation, requestedSchemaProblem, type McpElicitHandler } from "./elicit.js";
import { McpError } from "./errors.js";
import { RPC, type JsonObject, type JsonRpcRequest } from "./jsonrpc.js";

/** Who an isoagent call is, for what the server asks in its middle. */
export interface McpCallContext {
  readonly tool?: string;
  readonly runId?: string;
  readonly callId?: string;
}

/** A sampling request, for the application's sampling agent. */
export interface McpSamplingRequest extends McpCallContext {
  /** The server's `sampling/createMessage` params, as sent (untrusted). */
  readonly params: JsonObject;
  readonly server: string;
  readonly signal: AbortSignalLike;
}

/** Answers sampling requests with a `CreateMessageResult` (`role`, `content`, `model`). Without one, sampling is refused. */
export type McpSamplingAgent = (request: McpSamplingRequest) => Promise<JsonObject> | JsonObject;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Answers one request of the server's (a thrown McpError with an rpcCode becomes that JSON-RPC error). */
export async function answerServer(
  req: JsonRpcRequest,
  context: McpCallContext & { readonly server: string; readonly signal: AbortSignalLike },
  handlers: { readonly elicit?: McpElicitHandler | undefined; readonly sampling?: McpSamplingAgent | undefined },
): Promise<JsonObject> {
  const params = req.params ?? {};
  switch (req.method) {
    case "ping":
      return {};
    case "elicitation/create": {
      if (params["mode"] !== undefined && params["mode"] !== "form") return { action: "decline" };
      const schema = params["requestedSchema"];
      if (typeof params["message"] !== "string" || requestedSchemaProblem(schema) !== undefined) return { action: "decline" };
      const handler = handlers.elicit ?? declineElicitation;
      let answer: unknown;
      try {
        answer = await handler({ ...context, message: cleanText(params["message"]).text, requestedSchema: schema as JsonObject });
      } catch {
        return { action: "decline" };
      }
      const action = isObject(answer) ? answer["action"] : undefined;
      if (action === "cancel") return { action: "cancel" };
      if (action !== "accept") return { action: "decline" };
      const content = checkedContent(schema as JsonObject, (answer as { content?: unknown }).content);
      return content === undefined ? { action: "decline" } : { action: "accept", content };
    }
    case "sampling/createMessage": {
      const agent = handlers.sampling;
      if (agent === undefined) throw new McpError("MCP_RPC_ERROR", "sampling is refused: this isoagent client was given no sampling agent", { rpcCode: RPC.METHOD_NOT_FOUND });
      const r = await agent({ ...context, params });
      if (!isObject(r) || typeof r["model"] !== "string" || !isObject(r["content"]) || typeof r["role"] !== "string")
        throw new McpError("MCP_RPC_ERROR", "the sampling agent gave no usable answer", { rpcCode: RPC.INTERNAL_ERROR });
      return r;
    }
    default:
      throw new McpError("MCP_RPC_ERROR", `this client does not handle ${cleanText(req.method.slice(0, 100)).text}`, { rpcCode: RPC.METHOD_NOT_FOUND });
  }
}
