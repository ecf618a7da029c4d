/**
 * The browser example (examples/browser), served by the Worker itself at
 * /app/: same origin as the API and the console, so the console's session
 * authorizes the page's moves and mirrors, and its service worker keeps it
 * working offline. The files are the Worker's static assets (`npm start`
 * builds them into its data folder and hands them to miniflare as the
 * ASSETS binding; a deployment adds an `[assets]` section naming them).
 */

/**
 * The page's policy: no code from strings; connections to this origin, a
 * model's API (when the page is given a key), and an OTLP collector for the
 * page's traces: a local one on its usual port, and the one the Worker's
 * env names (as `npm run example:browser`'s server allows).
 */
function csp(env: AppEnv): string {
  const connect = ["'self'", "https://api.openai.com", "https://api.anthropic.com", "http://localhost:4318", "http://127.0.0.1:4318"];
  const collector = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (collector !== undefined) {
    try {
      connect.push(new URL(collector).origin);
    } catch {
      // Not a URL: the run objects' export says so; the page gets no more than the local collector.
    }
  }
  return `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src ${connect.join(" ")}; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'`;
}

/** The assets binding (wrangler's `[assets] binding = "ASSETS"`), and the collector the page may export its traces to. */
export interface AppEnv {
  readonly ASSETS?: { fetch(request: Request): Promise<Response> };
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string;
}

/** Serves /app and /app/*; undefined for any other path. */
export async function serveApp(request: Request, env: AppEnv): Promise<Response | undefined> {
  const url = new URL(request.url);
  if (url.pathname === "/app") return Response.redirect(`${url.origin}/app/`, 302);
  if (!url.pathname.startsWith("/app/") || request.method !== "GET") return undefined;
  if (env.ASSETS === undefined)
    return new Response("the browser example is not deployed with this Worker (no ASSETS binding)", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  const res = await env.ASSETS.fetch(new Request(new URL(url.pathname.slice("/app".length) + url.search, url.origin), request));
  const headers = new Headers(res.headers);
  headers.set("content-security-policy", csp(env));
  headers.set("x-content-type-options", "nosniff");
  headers.set("cache-control", "no-cache");
  return new Response(res.body, { status: res.status, headers });
}
