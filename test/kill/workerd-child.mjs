// The process the workerd kill test kills: Node running miniflare, which runs
// workerd, on Durable Object storage persisted in a directory the test keeps
// across kills. It prints "READY <url>" once it serves. Started detached (its
// own process group), it is killed with its workerd by SIGKILL to the group;
// when its parent goes away (its stdin closes), it kills its own group, so
// nothing outlives the test.
import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";

const [scriptPath, persistDir, observerUrl, token, sweepMs] = process.argv.slice(2);
process.stdin.on("end", () => process.kill(-process.pid, "SIGKILL"));
process.stdin.resume();

const mf = new Miniflare({
  modules: true,
  script: readFileSync(scriptPath, "utf8"),
  compatibilityDate: "2026-07-01",
  durableObjects: { RUNS: { className: "RunObject", useSQLite: true }, RUN_INDEX: { className: "RunIndex", useSQLite: true } },
  durableObjectsPersist: persistDir,
  bindings: { ISOAGENT_TOKEN: token, OBSERVER_URL: observerUrl, ISOAGENT_INDEX_SWEEP_MS: sweepMs },
  host: "127.0.0.1",
  port: 0,
});
const url = await mf.ready;
process.stdout.write(`READY ${url.toString()}\n`);
