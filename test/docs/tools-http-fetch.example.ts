// docs/tools/http_fetch.md's example: an allowlist, GET only, a credential added for one host.
// This program's fetch answers for the hosts (no network here), recording what each was sent.
import assert from "node:assert/strict";
import { httpFetchTool } from "../../src/toolkit/index.js";
import { bareContext } from "../mcp/helpers/run.js";

const token = "ghp_docs-example-token";
const sent: { url: string; authorization: string | null }[] = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  sent.push({ url, authorization: new Headers(init?.headers).get("authorization") });
  return new Response(`{"from":"${new URL(url).host}"}`, { headers: { "content-type": "application/json" } });
};

// DOCS: begin
const fetchTool = httpFetchTool({
  allow: ["api.github.com", "*.wikipedia.org", "127.0.0.1:8080"],
  methods: ["GET"],
  headers: (host) => (host === "api.github.com" ? { authorization: `Bearer ${token}` } : undefined),
});
// DOCS: end

const get = (url: string, method?: "POST") =>
  Promise.resolve()
    .then(() => fetchTool.call({ url, ...(method === undefined ? {} : { method }) }, bareContext()))
    .then(String, (e: Error) => `refused: ${e.message}`);
try {
  assert.equal(fetchTool.sideEffect, "read_only"); // GET only: read_only, allowed without asking
  assert.equal(fetchTool.permission ?? "allow", "allow");
  assert.match(await get("https://api.github.com/repos/a/b"), /api\.github\.com/);
  assert.match(await get("https://en.wikipedia.org/wiki/Journal"), /en\.wikipedia\.org/);
  assert.match(await get("http://127.0.0.1:8080/status"), /127\.0\.0\.1:8080/);
  // The credential goes to api.github.com only, and the model never sees it.
  assert.deepEqual(
    sent.map((s) => s.authorization),
    [`Bearer ${token}`, null, null],
  );
  for (const out of await Promise.all(sent.map((s) => get(s.url)))) assert.doesNotMatch(out, new RegExp(token));
  // Not on the list: another host, the bare wikipedia.org, another port; and no POST.
  const before = sent.length;
  for (const url of ["https://example.com/", "https://wikipedia.org/", "http://127.0.0.1:8081/"]) assert.match(await get(url), /^refused: /);
  assert.match(await get("https://api.github.com/", "POST"), /^refused: .*only GET/);
  assert.equal(sent.length, before);
} finally {
  globalThis.fetch = realFetch;
}
