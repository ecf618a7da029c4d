// docs/http.md's example of the console's session, as a reader would copy it:
// http.test.ts checks that docs/http.md shows this code verbatim (with
// "isoagent" and "isoagent/http" for the import paths) and runs it.
// DOCS: begin
import { createDriver, final, memoryStore, scriptedAgent } from "../../src/index.js";
import { createHttpApp, driverBackend, memorySessions } from "../../src/http/index.js";

const token = "an-operator-token-of-32-characters-or-more";
const driver = createDriver({ store: memoryStore(), agent: scriptedAgent([final("done")]), tools: [] });
// One ledger for every app that serves this console (here, one process).
const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [token], sessions: memorySessions() });

// An operator's token makes a one-time login code, and the link that carries it.
const minted = await app.request("/login/code", { method: "POST", headers: { authorization: `Bearer ${token}` } });
const { code, login } = (await minted.json()) as { code: string; login: string }; // login: "http://localhost/login#code=c1...."

// The login page at that link posts the code (same origin), once: the answer sets the session's cookie.
const post = { method: "POST", headers: { "content-type": "application/json", origin: "http://localhost" }, body: JSON.stringify({ code }) };
const cookie = (await app.request("/login", post)).headers.get("set-cookie")!.split(";")[0]!;
const listed = (await app.request("/runs", { headers: { cookie } })).status; // 200
const again = (await app.request("/login", post)).status; // 401 LOGIN_CODE_INVALID: the code was spent

// Logging out ends the session on the server: the same cookie, sent again from anywhere, is refused.
await app.request("/logout", { method: "POST", headers: { cookie, origin: "http://localhost" } });
const after = (await app.request("/runs", { headers: { cookie } })).status; // 401
// DOCS: end

export { after, again, listed, login };
