/**
 * The Worker the conformance suite's server scenarios run against: the
 * conformance tools served by `mcpServer` at /mcp, on loopback, WITHOUT
 * authentication. The suite sends no bearer token (its client is built with
 * no auth provider and no headers), so this Worker exists for the tests
 * only; a deployment mounts `mcpServer` behind the HTTP app's tokens
 * (`createHttpApp({ mcp })`). `ALLOWED_HOSTS` (comma-separated host:port)
 * answers the suite's DNS-rebinding scenario.
 */
import { mcpServer } from "../../src/mcp/index.js";
import { conformanceTools, present } from "./tools.js";

interface Env {
  readonly ALLOWED_HOSTS?: string;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> | Response {
    if (new URL(request.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
    const allowedHosts = (env.ALLOWED_HOSTS ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h !== "");
    const server = mcpServer({ tools: conformanceTools, present, name: "isoagent-conformance", ...(allowedHosts.length > 0 ? { allowedHosts } : {}) });
    return server.fetch(request) as Promise<Response>;
  },
};
