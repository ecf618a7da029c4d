/**
 * isoagent/mcp: any MCP server's tools through isoagent's gate (a client
 * over Streamable HTTP on `fetch`), and isoagent's tools and runs served as
 * an MCP server. Platform-free, eval-free; the SDK's stdio transport is in
 * the Node-only isoagent/mcp/stdio.
 *
 * @module
 */
export { McpError, type McpErrorCode } from "./errors.js";
export { connectMcp, LATEST_PROTOCOL_VERSION, McpConnection, SUPPORTED_PROTOCOL_VERSIONS } from "./connection.js";
export type { McpConnectOptions, McpProgress } from "./connect-options.js";
export { type McpCallContext, type McpSamplingAgent, type McpSamplingRequest } from "./answer.js";
export { declineElicitation, type McpElicitation, type McpElicitHandler, type McpElicitResult, type McpFormValue } from "./elicit.js";
export { streamableHttp, StreamableHttpTransport, type StreamableHttpOptions } from "./http.js";
export { type McpTransport } from "./transport.js";
export { kvSessions, memorySessions, type KeyValueLike, type McpSessionState, type McpSessionStore } from "./sessions.js";
export { classifyTool, sideEffectOf, UNTRUSTED, type McpClassification, type McpToolAnnotations } from "./classify.js";
export { definitionHash, listTools, MAX_LIST_CHARS, MAX_LIST_PAGES, MAX_TOOL_CHARS, MAX_TOOLS, type McpRefusedTool, type McpToolDefinition } from "./list.js";
export { MAX_DESCRIPTION_CHARS, mcpTools, META_IDEMPOTENCY_KEY, META_RUN_ID, type McpToolSet, type McpToolsOptions } from "./tools.js";
export { parseMessage, toMessage, type JsonObject, type JsonRpcId, type JsonRpcMessage } from "./jsonrpc.js";
export { mcpRunsServer, mcpServer, type McpContentBlock, type McpServer, type McpServerOptions } from "./server/server.js";
export { type ArtifactSink } from "./server/call.js";
export { operatorOnlyText, type McpCaller, type RunsControl } from "./server/runs.js";
export { type RequestLike, type ResponseLike } from "./server/web.js";
