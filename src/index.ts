/**
 * isoagent: a durable runtime for tool-using AI agents. This entry point is
 * the isomorphic core: it runs unchanged in a browser, on Cloudflare Workers
 * and in Node, uses only Web-standard APIs, and never evaluates code from
 * strings.
 *
 * @module
 */
export { IsoagentError, isIsoagentError, type IsoagentErrorCode } from "./errors.js";
export * from "./json/index.js";
export * from "./schema/index.js";
export * from "./tools/index.js";
export * from "./ids.js";
export * from "./clock.js";
export * from "./journal/index.js";
export * from "./store/index.js";
export * from "./policy/index.js";
export * from "./agents/index.js";
export * from "./driver/index.js";
