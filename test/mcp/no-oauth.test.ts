/**
 * Issue 27, finding 6: without a token, the MCP inspector fell into an
 * OAuth flow. `/mcp` answers 401 (right), and the discovery documents a
 * client then looks for (RFC 9728's protected-resource metadata, RFC 8414's
 * and OpenID's authorization-server metadata, each also path-suffixed
 * after `/mcp`) answered 401 too: "there is something here, but you may not
 * see it", which a client reads as an authorization server to log in to.
 * The app has no OAuth: they answer 404, and the 401's WWW-Authenticate
 * names no metadata. Every request the server gets is recorded.
 */
import { Client, StreamableHTTPClientTransport, type OAuthClientProvider } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriver, final, memoryStore, scriptedAgent } from "../../src/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { mcpRunsServer } from "../../src/mcp/index.js";
import { serveFetch } from "./helpers/serve.js";

const TOKEN = "operator-token-for-the-no-oauth-test-0123";
const backend = driverBackend(createDriver({ store: memoryStore(), agent: scriptedAgent([final("done")]), tools: [] }));
const app = createHttpApp({ backend, tokens: () => [TOKEN], mcp: mcpRunsServer(backend) });
const seen: { method: string; path: string; status: number; authenticate: string | null }[] = [];
let server: { origin: string; close(): Promise<void> };

beforeAll(async () => {
  server = await serveFetch(async (request) => {
    const res = await app.fetch(request);
    seen.push({ method: request.method, path: new URL(request.url).pathname, status: res.status, authenticate: res.headers.get("www-authenticate") });
    return res;
  });
});
afterAll(async () => {
  await server.close();
});

/** What the SDK asks of a provider, as the inspector's own provider answers when it has nothing yet; every step of a flow is recorded. */
function recordingProvider(steps: string[]): OAuthClientProvider {
  return {
    get redirectUrl() {
      return "http://localhost:6274/oauth/callback";
    },
    get clientMetadata() {
      return { client_name: "inspector-like", redirect_uris: ["http://localhost:6274/oauth/callback"] };
    },
    clientInformation: () => undefined,
    saveClientInformation: () => void steps.push("saveClientInformation"),
    tokens: () => undefined,
    saveTokens: () => void steps.push("saveTokens"),
    redirectToAuthorization: (url) => void steps.push(`redirectToAuthorization ${url.toString()}`),
    saveCodeVerifier: () => void steps.push("saveCodeVerifier"),
    codeVerifier: () => "",
  };
}

describe("an MCP client without a token", () => {
  it("gets 401 from /mcp, whose WWW-Authenticate names no OAuth metadata, and nothing else is asked", async () => {
    seen.length = 0;
    const client = new Client({ name: "no-token", version: "1" });
    const failed = await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(Error);
    expect(seen).toEqual([{ method: "POST", path: "/mcp", status: 401, authenticate: 'Bearer realm="isoagent"' }]);
  });

  it("with an OAuth provider (as the inspector has): every discovery document it looks for is 404, and no flow starts", async () => {
    seen.length = 0;
    const steps: string[] = [];
    const client = new Client({ name: "inspector-like", version: "1" });
    const failed = await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { authProvider: recordingProvider(steps) })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(Error);
    // No client registered, no token, no one sent to an authorization page.
    expect(steps).toEqual([]);
    expect(seen[0]).toEqual({ method: "POST", path: "/mcp", status: 401, authenticate: 'Bearer realm="isoagent"' });
    // Everything after the 401 is the client's own search for an authorization server: all of it is told there is none.
    const searched = seen.slice(1);
    expect(searched.length).toBeGreaterThan(0);
    for (const r of searched) expect([r.method, r.path, r.status]).toEqual([r.method, r.path, 404]);
    expect(searched.map((r) => r.path)).toContain("/.well-known/oauth-protected-resource/mcp");
    expect(searched.map((r) => r.path)).toContain("/.well-known/oauth-authorization-server");
    // Nothing but discovery and the default registration endpoint was tried.
    for (const r of searched) expect(r.path.includes("/.well-known/") || r.path === "/register", r.path).toBe(true);
  });

  it("answers every discovery path 404 (with or without a token), and /mcp 401 without one", async () => {
    const paths = [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
      "/.well-known/oauth-authorization-server/mcp",
      "/.well-known/openid-configuration",
      "/.well-known/openid-configuration/mcp",
      "/mcp/.well-known/openid-configuration",
      "/mcp/.well-known/oauth-authorization-server",
      "/register",
      "/authorize",
      "/token",
    ];
    for (const path of paths) {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
        const res = await app.request(path, { headers });
        expect([path, res.status, res.headers.get("www-authenticate")]).toEqual([path, 404, null]);
        expect((await res.json()) as unknown).toEqual({
          error: { code: "NOT_FOUND", message: 'this server has no OAuth: give the token as Authorization: Bearer <token> (see docs/mcp.md, "The inspector")' },
        });
      }
      expect((await app.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(404);
    }
    const mcp = await app.request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect([mcp.status, mcp.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="isoagent"']);
  });
});
